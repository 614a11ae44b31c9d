//! The command-line pieces every game shares: the options of `play` and
//! `run`, a session entry's levels, the exit-code table `--help` prints,
//! and value parsers. Below the
//! per-game files, which use it; uses nothing of theirs.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::anyhow;
use clap::Args;

use tickbot::session::Shard;
use tickbot::session::spec::{ByteSize, ReplayPolicy, parse_duration};

pub const EXIT_CODES: &str = "\
Exit codes:
  0    success (for `replay verify`: every replay reproduced exactly)
  1    `replay verify`/`show`: a replay diverged (an action that is illegal where it
       was recorded, or a state hash that differs, at some tick; `show` says so
       for `--tick` at or after that tick and for `--all`)
  2    bad command line or bad input (an unreadable or invalid map, a missing file, a
       shard's variables that disagree or are not numbers, ...)
  3    `replay verify`/`show`/`upgrade`: a file is not a valid replay (foreign, truncated,
       unsupported format version, corrupt or damaged, or an action code that stands
       for no action); 1 takes precedence when both occur
  4    runtime failure (cannot write replays, results or logs)
  130  interrupted (Ctrl-C or SIGTERM): finished work is kept and reported;
       a second Ctrl-C ends at once
  141  the reader of the output went away (`... | head`): ended quietly by SIGPIPE";

/// The options of `tickbot play` that every game shares.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The game's seed (Snake: where food appears; planners that draw random
    /// numbers draw them from it too).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the replay to this file.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Print the final board (redrawn from the replay).
    #[arg(long, requires = "record")]
    pub show: bool,
    /// Longest time one planner call may take before the game is aborted.
    #[arg(long, default_value_t = 10_000, value_name = "MS", env = "TICKBOT_MOVE_BUDGET_MS")]
    pub move_budget_ms: u64,
}

/// The options of `tickbot run`: each overrides the session file's setting
/// of the same name (see the README's session file section).
#[derive(Debug, Args)]
pub struct RunOptions {
    /// Games to play over all entries (the first ones of the session's order).
    /// Default: what the session file says; 20 for `run GAME`.
    #[arg(long, global = true, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: Option<u64>,
    /// Stop starting games after this long (8h, 90m, 1h30m, 45s); running games
    /// finish. With --games, whichever comes first.
    #[arg(long, global = true, value_name = "TIME", value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Master seed; game i of entry e plays with a seed derived from (seed, e, i).
    /// Default: 1.
    #[arg(long, global = true)]
    pub seed: Option<u64>,
    /// Games played at once. Default: the number of cores.
    #[arg(long, global = true, value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Output directory: DIR/results.jsonl, DIR/manifest.json, DIR/replays/.
    /// It must not hold an earlier session (see --resume and --overwrite). Default: out.
    #[arg(long, global = true, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Start over in an --out that holds an earlier session: delete its
    /// results.jsonl, manifest.json and replays/ first.
    #[arg(long, global = true)]
    pub overwrite: bool,
    /// Longest time one planner call may take; a planner over it ends its game
    /// as `timeout`. Default: 10000.
    #[arg(long, global = true, value_name = "MS", env = "TICKBOT_MOVE_BUDGET_MS")]
    pub move_budget_ms: Option<u64>,
    /// Which games keep their replay: all, failures (every outcome but won),
    /// none, or sample=SHARE (e.g. sample=0.01, the same games every time).
    #[arg(long, global = true, value_name = "POLICY")]
    pub replays: Option<ReplayPolicy>,
    /// Keep no more replays once they take this much space (500MB, 2GiB); results go on.
    #[arg(long, global = true, value_name = "SIZE")]
    pub disk_budget: Option<ByteSize>,
    /// Play one shard of the session: shard I (from 0) of N plays the games whose
    /// index in their entry is I modulo N, with the session's ids and seeds, into
    /// its own --out (resumable on its own); `tickbot merge` joins the N
    /// directories. Without it, the index comes from JOB_COMPLETION_INDEX
    /// (Kubernetes), SLURM_ARRAY_TASK_ID less SLURM_ARRAY_TASK_MIN (Slurm) or
    /// AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch), the count from --shard-count,
    /// TICKBOT_SHARD_COUNT or SLURM_ARRAY_TASK_COUNT; this flag wins over all of
    /// them (0/1: the whole session). Variables that disagree or are not numbers
    /// are refused (exit 2).
    #[arg(long, global = true, value_name = "I/N", conflicts_with = "shard_count")]
    pub shard: Option<Shard>,
    /// The shard count, where a batch engine's variable gives the index.
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub shard_count: Option<u64>,
}

/// The levels of one entry: files (or none: the game's flags name the
/// level), and which of them to play.
#[derive(Debug)]
pub struct Levels {
    pub files: Vec<PathBuf>,
    /// The name of the one level when there are no files.
    pub default_name: String,
    /// Which levels to play, numbered from 1; `None`: all.
    pub pick: Option<Vec<u32>>,
}

impl Levels {
    /// Each file with its name, or the one default level.
    pub fn files(&self) -> Vec<(String, Option<&Path>)> {
        if self.files.is_empty() {
            return vec![(self.default_name.clone(), None)];
        }
        self.files.iter().map(|path| (path.display().to_string(), Some(path.as_path()))).collect()
    }

    /// The picked files, each read into a level by `read`.
    pub fn read<C>(
        &self,
        mut read: impl FnMut(Option<&Path>) -> anyhow::Result<C>,
    ) -> anyhow::Result<Vec<(String, Arc<C>)>> {
        self.pick(self.files())?.into_iter().map(|(name, path)| Ok((name, Arc::new(read(path)?)))).collect()
    }

    /// The picked ones of `levels` (all without `pick`).
    pub fn pick<T>(&self, levels: Vec<T>) -> anyhow::Result<Vec<T>> {
        let Some(pick) = &self.pick else {
            return Ok(levels);
        };
        let count = levels.len();
        let mut slots: Vec<Option<T>> = levels.into_iter().map(Some).collect();
        pick.iter()
            .map(|&number| {
                let slot = slots.get_mut(number as usize - 1);
                slot.and_then(Option::take).ok_or_else(|| {
                    anyhow!("pick: level {number} is not there, or picked twice (the level holds {count})")
                })
            })
            .collect()
    }
}

/// The largest board side any game accepts on the command line; each game
/// has its own, smaller limit that its rules check.
const MAX_SIDE: u16 = 4096;

/// Parses `WxH`, e.g. `10x10`.
pub fn parse_size(text: &str) -> Result<(u16, u16), String> {
    let expected = || format!("expected WIDTHxHEIGHT like 10x10, got {text:?}");
    let (width, height) = text.split_once(['x', 'X']).ok_or_else(expected)?;
    let side = |word: &str, name: &str| -> Result<u16, String> {
        let word = word.trim();
        if word.is_empty() || !word.bytes().all(|byte| byte.is_ascii_digit()) {
            return Err(expected());
        }
        match word.parse::<u64>() {
            Ok(0) => Err(format!("the {name} must be at least 1")),
            Ok(value) if value <= u64::from(MAX_SIDE) => Ok(value as u16),
            _ => Err(format!("the {name} {word} is too large: at most {MAX_SIDE}")),
        }
    };
    Ok((side(width, "width")?, side(height, "height")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_bad_ones_say_what_is_wrong() {
        assert_eq!(parse_size("10x12"), Ok((10, 12)));
        assert_eq!(parse_size(" 3 X 4 "), Ok((3, 4)));
        let error = |text| parse_size(text).unwrap_err();
        assert!(error("10").contains("expected WIDTHxHEIGHT"));
        assert!(error("axb").contains("expected WIDTHxHEIGHT"));
        assert_eq!(error("100000x1"), "the width 100000 is too large: at most 4096");
        assert_eq!(error("5x0"), "the height must be at least 1");
    }
}
