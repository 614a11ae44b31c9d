//! `tickbot merge`: the directories of a session's shards joined into one
//! session directory (the library's `session::merge` does the work); this
//! file owns its flags, its report (shards seen, games missing as id runs,
//! how the replays were brought over), its progress bars and exit codes.

use std::path::PathBuf;

use anyhow::anyhow;
use clap::Args;

use tickbot::progress::Progress;
use tickbot::session::merge::{Merge, MergeError, check_out};
use tickbot::session::store::{MANIFEST_FILE, REPLAY_DIR, RESULTS_FILE};

use super::support::{Exit, Failure, interrupt_flag, print_session_test, progress_bar};

/// What `merge --help` prints after the flags.
pub(crate) const AFTER_HELP: &str = "\
Shard I of N (`tickbot run --shard I/N`) plays the games whose index in their entry is I
modulo N; merging the N directories gives exactly the results of the session run
unsplit (its two wall-clock fields aside), in id order. A session with a sequential test
([sprt]): each shard plays all of its games (it cannot see the others' pairs), and merge
prints the test's verdict over the merged games in index order, the unsplit session's. Check the merged directory with
`tickbot replay verify OUT/replays`; `tickbot run --resume OUT` plays any games missing.

Exit codes:
  0    merged (every game of the session, or with --allow-partial every game recorded)
  2    bad input: a directory that is not a session or is still running, manifests that
       disagree (tickbot version, master seed, session settings, shard count), a damaged
       results line, a replay that is missing, a non-empty --out, or games missing
       without --allow-partial (listed as id ranges; nothing is written)
  4    runtime failure (cannot read a shard, or cannot write --out)
  130  interrupted (Ctrl-C or SIGTERM): --out is left as it was";

#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// The shards' session directories (each written by `run --shard I/N`), in any
    /// order; an id that two of them record is taken from the first one given.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// The merged session directory; it must not exist or be empty. Replays are
    /// hard-linked into it where it shares a filesystem with the shards, else copied.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Merge even when games are missing (they are listed all the same).
    #[arg(long)]
    pub allow_partial: bool,
}

pub(crate) fn execute(args: MergeArgs) -> Result<Exit, Failure> {
    check_out(&args.out).map_err(failure)?;
    let reading = Progress::default();
    let merge = {
        let _bar = progress_bar("reading the shards' results", &reading);
        Merge::open(&args.dirs, &reading).map_err(failure)?
    };
    let shards = merge.shards();
    let count = merge.shard_count;
    let seen = if count == 1 {
        format!("{} whole sessions", shards.len())
    } else {
        let mut indices: Vec<u64> = shards.iter().map(|shard| shard.index()).collect();
        indices.sort_unstable();
        indices.dedup();
        let absent: Vec<String> =
            (0..count).filter(|index| !indices.contains(index)).map(|index| format!("{index}/{count}")).collect();
        let listed: Vec<String> = indices.iter().map(|index| index.to_string()).collect();
        let absent =
            if absent.is_empty() { String::new() } else { format!("; no directory holds shard {}", absent.join(", ")) };
        format!("shards {} of {count}{absent}", listed.join(", "))
    };
    println!("tickbot merge: {} directories ({seen})", merge.directories());
    let expected = if merge.bounded {
        format!("{} games in the session", merge.expected)
    } else {
        format!("an open-ended session, {} games up to the highest id recorded per entry", merge.expected)
    };
    let mut notes = Vec::new();
    if merge.duplicates > 0 {
        notes.push(format!("{} recorded twice, kept from the first directory given", merge.duplicates));
    }
    if merge.torn_lines > 0 {
        notes.push(format!("{} torn last lines of killed shards left out", merge.torn_lines));
    }
    let notes = if notes.is_empty() { String::new() } else { format!(" ({})", notes.join("; ")) };
    println!("  {expected}, {} recorded{notes}", merge.games());
    let missing = &merge.missing;
    if missing.games > 0 {
        println!("  missing {} games:", missing.games);
        for run in &missing.runs {
            println!("    {run}");
        }
        if missing.more_runs > 0 {
            println!("    ... and {} more runs", missing.more_runs);
        }
        if !args.allow_partial {
            return Err(Failure::bad_input(anyhow!(
                "{} games are missing (listed above), so nothing was written: merge again once their shards have \
                 finished (`tickbot run --resume DIR` finishes a stopped shard), or pass --allow-partial",
                missing.games
            )));
        }
    }
    let writing = Progress::default();
    let written = {
        let _bar = progress_bar("merging", &writing);
        merge.write(&args.out, &writing, &interrupt_flag())
    };
    let written = match written {
        Ok(written) => written,
        Err(error @ MergeError::Interrupted { .. }) => {
            eprintln!("{error}");
            return Ok(Exit::Interrupted);
        }
        Err(error) => return Err(failure(error)),
    };
    let out = args.out.display();
    println!(
        "  wrote {out}/{RESULTS_FILE}: {} games, entry by entry in the session's order, each by index",
        written.games
    );
    let how = match (written.linked, written.copied) {
        (0, 0) => "none kept".to_string(),
        (linked, 0) => format!("{linked} hard-linked (the shards' filesystem)"),
        (0, copied) => format!("{copied} copied (another filesystem, or one without hard links)"),
        (linked, copied) => format!("{linked} hard-linked, then {copied} copied (hard links stopped working)"),
    };
    println!("  replays in {out}/{REPLAY_DIR}/: {how}");
    println!("  {out}/{MANIFEST_FILE}: the whole session (check: tickbot replay verify {out}/{REPLAY_DIR})");
    if let Some((test, verdict)) = &merge.sprt {
        // Over the merged games in index order: the unsplit session's verdict.
        println!();
        print_session_test(verdict, test);
    }
    if missing.games > 0 && merge.bounded {
        println!("  partial: `tickbot run --resume {out}` plays the {} missing games", missing.games);
    } else if missing.games > 0 {
        println!(
            "  partial: `tickbot run --resume {out} --duration TIME` plays the {} missing games, then goes on \
             (the session has no fixed number of games)",
            missing.games
        );
    }
    Ok(Exit::Success)
}

fn failure(error: MergeError) -> Failure {
    let code = match error {
        MergeError::Io { .. } => Exit::Runtime,
        MergeError::Interrupted { .. } => Exit::Interrupted,
        _ => Exit::BadInput,
    };
    Failure { code, error: error.into() }
}
