//! `tickbot run`: a session from a session file (`--config`), from the
//! flags of `run GAME ...` (a session of one entry), from a session
//! directory's manifest (`--resume`), or the bundled default session; its
//! entries built by each game's `entry` function from the same flags
//! `run GAME` takes; its directory opened (lock, manifest, results); then
//! played and summed up in a per-entry table.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, anyhow};
use clap::{Args, Parser, Subcommand};

use tickbot::input;
use tickbot::session::shard::{ShardChoice, choose_shard};
use tickbot::session::spec::{
    ByteSize, EntrySpec, MAX_SESSION_FILE_BYTES, ParamValue, ReplayPolicy, SessionSpec, SprtSection, parse_duration,
};
use tickbot::session::store::MANIFEST_FILE;
use tickbot::session::{
    Entry, EntryPlayer, Manifest, ResultsFile, SessionConfig, SessionDir, SessionError, SessionProgress, SessionReport,
    SessionTest, Shard, Totals,
};
use tickbot::sprt::paired::Measure;
use tickbot::sprt::{LlrGauge, SprtSpec};

use super::agent::{AgentArgs, EntryAgent, take_exec_planner};
use super::common::{Align, Column, Levels, Table, output_width};
use super::flag::FlagArgs;
use super::locm::LocmArgs;
use super::pipes::PipesArgs;
use super::slide::SlideArgs;
use super::snake::SnakeArgs;
use super::support::{
    Exit, ExitOnError, Failure, SessionMetrics, collect_files, default_parallelism, print_session_test, run_session,
};

mod out_dir;
use out_dir::{OutContents, already_a_session, check_out_dir, lock, remove_session_files};

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// A session file (TOML): entries of game, level, planner and games or weight.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Continue the session in DIR (stopped by Ctrl-C, SIGTERM, kill, a full disk
    /// or a reboot): plays the games its results file does not yet record.
    #[arg(long, value_name = "DIR", conflicts_with = "out")]
    pub resume: Option<PathBuf>,
    #[command(flatten)]
    pub options: RunOptions,
    #[command(subcommand)]
    pub game: Option<RunGame>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum RunGame {
    /// Snake with the bfs-tail planner.
    Snake(SnakeArgs),
    /// Reach the Flag (default: the bundled round 12, exact planner).
    Flag(FlagArgs),
    /// Sliding puzzle: random solvable starts of --size (default 3×3) from each
    /// game's seed, or one --tiles start; actions name the direction the blank moves.
    Slide(SlideArgs),
    /// A Pipes (Net) puzzle, by default solved by `solve`. The puzzle has no
    /// randomness: every game of a run plays the same puzzle.
    Pipes(PipesArgs),
    /// Legends of Code and Magic 1.2: draft and battle bots for both seats.
    Locm(LocmArgs),
}

/// The options of `tickbot run`: each overrides the session file's setting
/// of the same name (see docs/guide.md, "Session files").
#[derive(Debug, Args)]
pub(crate) struct RunOptions {
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
    /// A new or empty directory, or one that holds an earlier session (see
    /// --resume and --overwrite); never the filesystem's root, the home
    /// directory or a directory holding other files. Default: out.
    #[arg(long, global = true, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Start over in an --out that holds an earlier session: delete its
    /// results.jsonl, manifest.json and the replays (*.tbr, *.part) in its
    /// replays/ first; nothing else in the directory is touched.
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
    /// Keep FILE up to date while the session runs: its figures in Prometheus's
    /// text format (the metrics of `tickbot status --metrics`, for node-exporter's
    /// textfile collector: name it *.prom), rewritten atomically every 5 s and once
    /// at the end. A path that is a directory, or whose folder does not exist, is
    /// refused (exit 2) before the session starts; a write that fails later is a
    /// warning in the log, and the session goes on.
    #[arg(long, global = true, value_name = "FILE")]
    pub metrics: Option<PathBuf>,
    /// Run a sequential test between the session's two entries, A (the first) and B
    /// (the second), which plays A's seeds: games go in pairs (game i of A and of B;
    /// for LOCM, give the entries the same drafters with the seats swapped) and the
    /// session stops once the test decides, printing its verdict. SPEC as for `match
    /// locm --sprt`: elo0=0,elo1=5, nelo0=..,nelo1=.. or p0=..,p1=.., with alpha and
    /// beta (default 0.05). Replaces the session file's [sprt] test.
    #[arg(long, global = true, value_name = "SPEC")]
    pub sprt: Option<SprtSpec>,
    /// With --sprt, in a one-player game: what a pair is compared by: score (higher
    /// is better), ticks (a won game beats one not won; of two won games, fewer
    /// ticks is better) or won. Default: the [sprt] section's, else score.
    #[arg(long, global = true, value_name = "MEASURE", requires = "sprt")]
    pub measure: Option<Measure>,
    #[command(flatten)]
    pub agents: RunAgentArgs,
}

/// `run`'s limits of external agents (`--planner 'exec:COMMAND'`, an
/// entry's `agent = [...]`, LOCM's `exec:` seats): each overrides the
/// entries' field of the same name.
#[derive(Debug, Default, Args)]
pub(crate) struct RunAgentArgs {
    /// The time limit of each call to a snake, flag, slide or pipes agent, in
    /// milliseconds (the entry's `agent_call_ms`, else 1000; LOCM's are the contest's).
    #[arg(long, global = true, value_name = "MS", help_heading = "External agents (exec:COMMAND)",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub agent_call_ms: Option<u64>,
    /// Milliseconds added to every agent call's time limit before it is a
    /// timeout. Default: the entry's `agent_margin`, else 50.
    #[arg(long, global = true, value_name = "MS", help_heading = "External agents (exec:COMMAND)")]
    pub agent_margin: Option<u64>,
    /// Each agent's address space limit, in MiB (the entry's `agent_memory`).
    #[arg(long, global = true, value_name = "MIB", help_heading = "External agents (exec:COMMAND)")]
    pub agent_memory: Option<u64>,
    /// Each agent's CPU time limit per game, in seconds (the entry's `agent_cpu`).
    #[arg(long, global = true, value_name = "SECONDS", help_heading = "External agents (exec:COMMAND)")]
    pub agent_cpu: Option<u64>,
    /// Run every entry's agents in the sandbox (docs/protocols.md; the entry's `sandbox`).
    #[arg(long, global = true, help_heading = "External agents (exec:COMMAND)")]
    pub sandbox: bool,
}

/// The bundled default session: every game and planner on bundled levels.
pub(crate) const DEFAULT_SESSION: &str = include_str!("../../../sessions/default.toml");
const DEFAULT_SESSION_NAME: &str = "sessions/default.toml (bundled)";

/// Games of a `run GAME` session without `--games`.
const DEFAULT_GAME_COUNT: u64 = 20;

/// The flags of one entry, parsed exactly as `tickbot run GAME FLAGS...`.
#[derive(Debug, Parser)]
#[command(name = "entry", no_binary_name = true)]
struct EntryFlags {
    #[command(subcommand)]
    game: RunGame,
}

/// The run-wide flags that take a value: what follows `run GAME` may hold
/// them, and they are not the game's.
const RUN_FLAGS_WITH_VALUES: [&str; 21] = [
    "--games",
    "--duration",
    "--seed",
    "--jobs",
    "--out",
    "--move-budget-ms",
    "--replays",
    "--disk-budget",
    "--config",
    "--resume",
    "--log-level",
    "--log-dir",
    "--shard",
    "--shard-count",
    "--metrics",
    "--sprt",
    "--measure",
    "--agent-call-ms",
    "--agent-margin",
    "--agent-memory",
    "--agent-cpu",
];

/// Where a session file came from, for messages.
struct Source {
    name: String,
    text: String,
}

/// `log_dir` is where this command writes its log: a folder of it inside
/// `--out` is this run's, not a stranger's.
pub(crate) fn execute(args: RunArgs, log_dir: &Path) -> Result<Exit, Failure> {
    let RunArgs { config, resume, options, game } = args;
    if let Some(path) = &options.metrics {
        check_metrics_file(path)?;
    }
    if config.is_some() && game.is_some() {
        return Err(Failure::bad_input(anyhow!("give a session file (--config) or a game (`run GAME ...`), not both")));
    }
    match resume {
        Some(dir) => {
            if game.is_some() {
                return Err(Failure::bad_input(anyhow!(
                    "--resume takes the session from {}: give no game",
                    dir.join(MANIFEST_FILE).display()
                )));
            }
            resume_session(&dir, config.as_deref(), &options)
        }
        None => {
            let (spec, source) = match (&config, &game) {
                (Some(path), _) => read_session_file(path)?,
                (None, Some(game)) => (one_game_session(game, &options)?, None),
                (None, None) => {
                    let source = Source { name: DEFAULT_SESSION_NAME.into(), text: DEFAULT_SESSION.into() };
                    let spec = parse(&source)?;
                    (spec, Some(source))
                }
            };
            new_session(spec, source.as_ref(), &options, log_dir)
        }
    }
}

/// Refuses a `--metrics` path that can never be written: a directory, no
/// file name, or a folder that does not exist.
fn check_metrics_file(path: &Path) -> Result<(), Failure> {
    let shown = path.display();
    if path.is_dir() || path.file_name().is_none() {
        return Err(Failure::bad_input(anyhow!(
            "--metrics {shown}: this is a directory; give a file to write, such as {}",
            path.join("tickbot.prom").display()
        )));
    }
    let folder = path.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !folder.is_dir() {
        return Err(Failure::bad_input(anyhow!(
            "--metrics {shown}: the folder {} does not exist (it is not created)",
            folder.display()
        )));
    }
    Ok(())
}

fn parse(source: &Source) -> Result<SessionSpec, Failure> {
    SessionSpec::parse(&source.text).map_err(|error| {
        Failure::bad_input(anyhow!("{}:{}:{}: {}", source.name, error.line, error.column, error.message))
    })
}

/// Reads a session file; its levels are taken relative to its folder.
fn read_session_file(path: &Path) -> Result<(SessionSpec, Option<Source>), Failure> {
    // Bounded, and never waiting on a FIFO named by mistake.
    let text = input::read_text(path, MAX_SESSION_FILE_BYTES, "a session file")
        .context("cannot read the session file")
        .exit_code(Exit::BadInput)?;
    let source = Source { name: path.display().to_string(), text };
    let mut spec = parse(&source)?;
    let base = path.parent().unwrap_or(Path::new(""));
    for entry in &mut spec.entries {
        for level in &mut entry.level {
            let joined = base.join(&*level);
            *level = std::path::absolute(&joined).unwrap_or(joined).display().to_string();
        }
    }
    Ok((spec, Some(source)))
}

/// `run GAME FLAGS...` as a session of one entry.
fn one_game_session(game: &RunGame, options: &RunOptions) -> Result<SessionSpec, Failure> {
    let name = match game {
        RunGame::Snake(_) => "snake",
        RunGame::Flag(_) => "flag",
        RunGame::Slide(_) => "slide",
        RunGame::Pipes(_) => "pipes",
        RunGame::Locm(_) => "locm",
    };
    let entry = EntrySpec {
        name: Some(name.into()),
        game: name.into(),
        level: Vec::new(),
        pick: None,
        planner: None,
        agent: Vec::new(),
        agent_call_ms: None,
        agent_margin: None,
        agent_memory: None,
        agent_cpu: None,
        sandbox: None,
        games: Some(options.games.unwrap_or(DEFAULT_GAME_COUNT)),
        weight: None,
        params: Default::default(),
        args: game_flags(name),
    };
    let mut spec = SessionSpec::of(vec![entry]);
    spec.complete("").map_err(|error| Failure::bad_input(anyhow!("{}", error.message)))?;
    Ok(spec)
}

/// The flags after `run GAME` on this process's command line, less the
/// run-wide ones (which clap lets stand after the game too).
fn game_flags(game: &str) -> Vec<String> {
    let args: Vec<String> = std::env::args_os().skip(1).map(|arg| arg.to_string_lossy().into_owned()).collect();
    let mut flags = Vec::new();
    let (mut seen_run, mut seen_game, mut skip_value) = (false, false, false);
    for arg in args {
        if skip_value {
            skip_value = false;
            continue;
        }
        if RUN_FLAGS_WITH_VALUES.contains(&arg.as_str()) {
            skip_value = true;
            continue;
        }
        let flag_name = arg.split_once('=').map_or(arg.as_str(), |(name, _)| name);
        if RUN_FLAGS_WITH_VALUES.contains(&flag_name) || arg == "--overwrite" || arg == "--sandbox" {
            continue;
        }
        if seen_game {
            flags.push(arg);
        } else if seen_run {
            seen_game = arg == game;
        } else {
            seen_run = arg == "run";
        }
    }
    flags
}

/// Applies the command line's settings over the file's.
fn apply_options(spec: &mut SessionSpec, options: &RunOptions) {
    if let Some(seed) = options.seed {
        spec.seed = seed;
    }
    if let Some(games) = options.games {
        spec.games = Some(games);
    }
    if let Some(jobs) = options.jobs {
        spec.jobs = Some(usize::from(jobs));
    }
    if let Some(out) = &options.out {
        spec.out = out.clone();
    }
    if let Some(budget) = options.move_budget_ms {
        spec.move_budget_ms = budget;
    }
    if let Some(policy) = options.replays {
        spec.replays = policy;
    }
    if let Some(size) = options.disk_budget {
        spec.disk_budget = Some(size);
    }
    if let Some(duration) = options.duration {
        spec.duration = Some(duration);
    }
    let agents = &options.agents;
    for entry in &mut spec.entries {
        if !entry.agent.is_empty() || entry.names_exec_planner() {
            entry.agent_call_ms = agents.agent_call_ms.or(entry.agent_call_ms);
        }
        entry.agent_margin = agents.agent_margin.or(entry.agent_margin);
        entry.agent_memory = agents.agent_memory.or(entry.agent_memory);
        entry.agent_cpu = agents.agent_cpu.or(entry.agent_cpu);
        entry.sandbox = if agents.sandbox { Some(true) } else { entry.sandbox };
    }
}

/// `--sprt SPEC`: the session's two entries tested against each other,
/// the first as A. Checked as a session file's `[sprt]` is.
fn apply_sprt(spec: &mut SessionSpec, options: &RunOptions) -> Result<(), Failure> {
    let Some(test) = options.sprt else { return Ok(()) };
    if spec.entries.len() != 2 {
        return Err(Failure::bad_input(anyhow!(
            "--sprt tests a session of exactly two entries, A and B (this one has {})",
            spec.entries.len()
        )));
    }
    let measure = options.measure.or(spec.sprt.as_ref().and_then(|section| section.measure));
    let (a, b) = match &spec.sprt {
        Some(section) => (section.a.clone(), section.b.clone()),
        None => (spec.entry_name(0).to_string(), spec.entry_name(1).to_string()),
    };
    spec.sprt = Some(SprtSection { a, b, test: test.to_string(), measure });
    spec.complete("").map_err(|error| Failure::bad_input(anyhow!("--sprt: {}", error.message)))
}

/// The shard this run asks for: `--shard`, else the batch engines'
/// variables (see `session::shard::choose_shard` for the precedence).
fn requested_shard(options: &RunOptions) -> Result<Option<ShardChoice>, Failure> {
    choose_shard(options.shard, options.shard_count, |name| std::env::var(name).ok())
        .map_err(|error| Failure::bad_input(anyhow!("choosing the shard: {error}")))
}

/// How a manifest's shard reads in messages.
fn describe_shard(shard: Option<Shard>) -> String {
    match shard {
        Some(shard) if shard != Shard::WHOLE => format!("shard {shard} of its session"),
        _ => "a whole session (no shard)".into(),
    }
}

fn new_session(
    mut spec: SessionSpec,
    source: Option<&Source>,
    options: &RunOptions,
    log_dir: &Path,
) -> Result<Exit, Failure> {
    let shard = requested_shard(options)?.map(|choice| choice.shard).filter(|&shard| shard != Shard::WHOLE);
    apply_options(&mut spec, options);
    apply_sprt(&mut spec, options)?;
    // The directory first: a run that will be refused (in use, a session
    // already there, a directory that is not for sessions) is refused
    // before the levels are read and the pattern databases built.
    check_out_dir(&spec.out, options.overwrite, log_dir)?;
    // Every entry is built (and checked) before anything is written.
    let entries = build_entries(&spec, source)?;
    let dir = lock(&spec.out)?;
    // Again under the lock: another session may have started meanwhile.
    if OutContents::of(dir.path(), log_dir).exit_code(Exit::Runtime)?.holds_session {
        if !options.overwrite {
            return Err(already_a_session(&spec.out));
        }
        remove_session_files(&dir)?;
    }
    let started_unix_s = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_secs());
    let manifest = Manifest {
        tickbot_version: env!("CARGO_PKG_VERSION").to_string(),
        started_unix_s,
        master_seed: spec.seed,
        config: serde_json::to_value(&spec).exit_code(Exit::Runtime)?,
        shard,
    };
    dir.write_manifest(&manifest).exit_code(Exit::Runtime)?;
    play(&spec, entries, &dir, shard.unwrap_or(Shard::WHOLE), options.metrics.as_deref())
}

fn resume_session(path: &Path, config: Option<&Path>, options: &RunOptions) -> Result<Exit, Failure> {
    refuse_new_settings(options)?;
    if path.exists() && !path.is_dir() {
        return Err(Failure::bad_input(anyhow!(
            "--resume {}: this is a file, not a session directory (give the --out of the session to continue)",
            path.display()
        )));
    }
    if !path.join(MANIFEST_FILE).is_file() {
        return Err(Failure::bad_input(anyhow!(
            "{} has no {MANIFEST_FILE}: it is not a session directory (start one with `tickbot run --out {}`)",
            path.display(),
            path.display()
        )));
    }
    let requested = requested_shard(options)?;
    let dir = lock(path)?;
    let manifest = dir.read_manifest().exit_code(Exit::BadInput)?.expect("the manifest was just seen");
    let recorded_shard = manifest.shard.filter(|&shard| shard != Shard::WHOLE);
    if let Some(choice) = requested {
        if choice.shard != recorded_shard.unwrap_or(Shard::WHOLE) {
            let asked = if choice.shard == Shard::WHOLE {
                "the whole session".to_string()
            } else {
                format!("shard {}", choice.shard)
            };
            return Err(Failure::bad_input(anyhow!(
                "{} holds {}, but {} asks for {asked}: each shard resumes in its own directory (a retried task \
                 must get the same index and count)",
                path.display(),
                describe_shard(recorded_shard),
                choice.source
            )));
        }
    }
    let version = env!("CARGO_PKG_VERSION");
    if manifest.tickbot_version != version {
        return Err(Failure::bad_input(anyhow!(
            "{} was started by tickbot {}, and this is tickbot {version}: its games would not replay the same. \
             Resume it with tickbot {}, or start a new session",
            path.display(),
            manifest.tickbot_version,
            manifest.tickbot_version
        )));
    }
    let mut spec: SessionSpec = serde_json::from_value(manifest.config.clone())
        .map_err(|error| anyhow!("{}: the session's config: {error}", dir.manifest_path().display()))
        .exit_code(Exit::BadInput)?;
    spec.complete("").map_err(|error| Failure::bad_input(anyhow!("{}", error.message)))?;
    if let Some(config) = config {
        check_same_session(&spec, config, path)?;
    }
    spec.out = path.to_path_buf();
    if let Some(jobs) = options.jobs {
        spec.jobs = Some(usize::from(jobs));
    }
    spec.duration = options.duration.or(spec.duration);
    spec.move_budget_ms = options.move_budget_ms.unwrap_or(spec.move_budget_ms);
    let entries = build_entries(&spec, None)?;
    play(&spec, entries, &dir, recorded_shard.unwrap_or(Shard::WHOLE), options.metrics.as_deref())
}

/// A resumed session keeps the settings it was started with: the flags
/// that would change its games are refused.
fn refuse_new_settings(options: &RunOptions) -> Result<(), Failure> {
    let refused = [
        ("--games", options.games.is_some()),
        ("--seed", options.seed.is_some()),
        ("--replays", options.replays.is_some()),
        ("--disk-budget", options.disk_budget.is_some()),
        ("--overwrite", options.overwrite),
        ("--sprt", options.sprt.is_some()),
        ("--measure", options.measure.is_some()),
    ];
    if let Some((flag, _)) = refused.iter().find(|(_, given)| *given) {
        return Err(Failure::bad_input(anyhow!(
            "{flag} with --resume: a resumed session keeps the settings it was started with (only --jobs, \
             --duration and --move-budget-ms may change)"
        )));
    }
    Ok(())
}

/// `--config` with `--resume`: the file must describe the session the
/// directory holds.
fn check_same_session(spec: &SessionSpec, config: &Path, path: &Path) -> Result<(), Failure> {
    let (given, _) = read_session_file(config)?;
    let (ours, theirs) = (spec.results_key(), given.results_key());
    if ours != theirs {
        let differing: Vec<String> = ours
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(key, value)| theirs.get(key.as_str()) != Some(value))
            .map(|(key, _)| key.clone())
            .collect();
        return Err(Failure::bad_input(anyhow!(
            "{} does not match the session in {} (its {MANIFEST_FILE} differs in: {}); resume without \
             --config to continue the session as it was started",
            config.display(),
            path.display(),
            differing.join(", ")
        )));
    }
    Ok(())
}

fn build_entries(spec: &SessionSpec, source: Option<&Source>) -> Result<Vec<Entry>, Failure> {
    (0..spec.entries.len()).map(|number| build_entry(spec, number, source)).collect()
}

/// One entry: its flags parsed as `run GAME` parses them, its levels read,
/// its planner chosen. Mistakes name the entry and where it starts.
fn build_entry(spec: &SessionSpec, number: usize, source: Option<&Source>) -> Result<Entry, Failure> {
    let entry = &spec.entries[number];
    let name = spec.entry_name(number).to_string();
    let place = match source {
        Some(source) => {
            let (line, column) = spec.entry_position(&source.text, number);
            format!("{}:{line}:{column}: entry {name:?}", source.name)
        }
        None => format!("entry {name:?}"),
    };
    let bad = |error: anyhow::Error| Failure::bad_input(anyhow!("{place}: {error:#}"));
    let mut argv = vec![entry.game.clone()];
    if let Some(planner) = &entry.planner {
        argv.push(if entry.game == "locm" { "--draft" } else { "--planner" }.to_string());
        argv.push(planner.clone());
    }
    for (key, value) in &entry.params {
        if ["games", "seed", "jobs", "out", "level", "planner", "weight", "replays", "duration"].contains(&key.as_str())
        {
            return Err(bad(anyhow!("params.{key}: this is set by the entry or the session, not as a game flag")));
        }
        let flag = format!("--{key}");
        match value {
            ParamValue::Switch(true) => argv.push(flag),
            ParamValue::Switch(false) => {}
            ParamValue::Integer(number) => argv.extend([flag, number.to_string()]),
            ParamValue::Number(number) => argv.extend([flag, number.to_string()]),
            ParamValue::Text(text) => argv.extend([flag, text.clone()]),
        }
    }
    argv.extend(entry.args.iter().cloned());
    // An exec: planner is an agent, not a planner's name (LOCM's are seats of --draft).
    let exec = if entry.game == "locm" { None } else { take_exec_planner(&mut argv) };
    let flags = EntryFlags::try_parse_from(&argv).map_err(|error| {
        let text = error.to_string();
        let first = text.lines().next().unwrap_or_default().trim_start_matches("error: ").to_string();
        bad(anyhow!("{first} (flags: {})", argv.join(" ")))
    })?;
    let levels = levels(entry, &argv).map_err(bad)?;
    let limits = AgentArgs {
        agent_margin: entry.agent_margin.unwrap_or(AgentArgs::default().agent_margin),
        agent_memory: entry.agent_memory,
        agent_cpu: entry.agent_cpu,
        sandbox: entry.sandbox.unwrap_or(false),
    };
    let agent = EntryAgent::of(&entry.agent, exec.as_deref(), entry.agent_call_ms, &limits).map_err(bad)?;
    let player: std::sync::Arc<dyn EntryPlayer> = match flags.game {
        RunGame::Snake(args) => super::snake::entry(args, &levels, agent).map_err(bad)?,
        RunGame::Flag(args) => {
            super::flag::entry(args, &levels, agent).map_err(|failure| with_place(&place, failure))?
        }
        RunGame::Slide(args) => {
            super::slide::entry(args, &levels, spec.seed, agent).map_err(|failure| with_place(&place, failure))?
        }
        RunGame::Pipes(args) => super::pipes::entry(args, &levels, agent).map_err(bad)?,
        RunGame::Locm(args) => super::locm::entry(args, &levels, &limits).map_err(bad)?,
    };
    Ok(Entry { name, weight: entry.weight.unwrap_or(1), games: entry.games, player })
}

fn with_place(place: &str, failure: Failure) -> Failure {
    Failure { code: failure.code, error: anyhow!("{place}: {:#}", failure.error) }
}

/// The entry's level: a file, a folder of `*.txt` files in name order, or
/// none (the game's flags name it).
fn levels(entry: &EntrySpec, argv: &[String]) -> anyhow::Result<Levels> {
    let default_name = if argv.len() > 1 { argv[1..].join(" ") } else { "default".to_string() };
    let mut files = Vec::new();
    for level in &entry.level {
        let path = PathBuf::from(level);
        if !path.exists() {
            return Err(anyhow!(
                "level = {level:?}: no such file or folder (a session file's levels are relative to its folder; \
                 the bundled default session's to the current one: run it from the repository)"
            ));
        }
        let before = files.len();
        collect_files(&path, "txt", &mut files)?;
        if files.len() == before {
            return Err(anyhow!("level = {level:?}: the folder holds no *.txt file"));
        }
    }
    Ok(Levels { files, default_name, pick: entry.pick.clone() })
}

fn play(
    spec: &SessionSpec,
    entries: Vec<Entry>,
    dir: &SessionDir,
    shard: Shard,
    metrics: Option<&Path>,
) -> Result<Exit, Failure> {
    let replays = dir.replay_dir();
    if replays.exists() && !replays.is_dir() {
        return Err(Failure {
            code: Exit::Runtime,
            error: anyhow!(
                "cannot write replays: the replay directory {} is a file; move it away or choose another --out",
                replays.display()
            ),
        });
    }
    let removed = dir.remove_unfinished_replays().exit_code(Exit::Runtime)?;
    let test = SessionTest::of(spec);
    let keep: Vec<&str> = test.iter().flat_map(|test| [test.a_name.as_str(), test.b_name.as_str()]).collect();
    let (results, recovered) = ResultsFile::open_keeping(&dir.results_path(), &keep).map_err(|error| {
        // A damaged line is the file's fault, not the machine's.
        let code = if matches!(error, SessionError::Corrupt { .. }) { Exit::BadInput } else { Exit::Runtime };
        Failure { code, error: error.into() }
    })?;
    let already: u64 = recovered.totals.values().map(|totals| totals.games).sum();
    let jobs = spec.jobs.unwrap_or_else(default_parallelism);
    println!(
        "tickbot run: {} entries, master seed {}, {jobs} games at once, results in {}",
        entries.len(),
        spec.seed,
        dir.results_path().display()
    );
    if let [entry] = &entries[..] {
        println!("  {} with {}; rules: {}", entry.player.game(), entry.player.planner(), entry.player.rules());
    }
    if shard != Shard::WHOLE {
        println!(
            "  shard {shard}: the games whose index in their entry is {} modulo {} (`tickbot merge` joins the shards)",
            shard.index(),
            shard.count()
        );
    }
    if let Some(test) = &test {
        let stops = if shard == Shard::WHOLE {
            "the session stops once it decides"
        } else {
            "a shard plays all of its games; `tickbot merge` gives the verdict"
        };
        println!(
            "  sequential test: {} against {} on the same seeds, {}; {stops}",
            test.a_name, test.b_name, test.spec
        );
    }
    if already > 0 || recovered.torn_bytes > 0 || removed > 0 {
        let mut repairs = Vec::new();
        if recovered.torn_bytes > 0 {
            repairs.push(format!("a torn last line of {} bytes cut", recovered.torn_bytes));
        }
        if removed > 0 {
            repairs.push(format!("{removed} unfinished replays deleted"));
        }
        let repairs = if repairs.is_empty() { String::new() } else { format!(" ({})", repairs.join(", ")) };
        println!("  resuming: {already} games already recorded{repairs}");
    }
    let mut progress = SessionProgress::default();
    // A shard's test is not the session's: its LLR would mislead.
    progress.sprt =
        test.as_ref().filter(|_| shard == Shard::WHOLE).map(|test| (LlrGauge::default(), test.spec.bounds()));
    let config = SessionConfig {
        entries,
        master_seed: spec.seed,
        max_games: spec.games,
        duration: spec.duration,
        jobs,
        move_budget: std::time::Duration::from_millis(spec.move_budget_ms.max(1)),
        replays: spec.replays,
        disk_budget: spec.disk_budget.map(|size| size.0),
        progress,
        shard,
        sprt: test.clone(),
    };
    let metrics = metrics.map(|file| SessionMetrics { file: file.to_path_buf(), dir: dir.path().to_path_buf(), shard });
    let report = run_session(config, Some((dir, results, recovered)), metrics)?;
    Ok(finish(&report, dir, shard, test.as_ref()))
}

/// The end of a session: its table, its test's verdict, where its files
/// are, and the exit code (why it stopped, if it did).
fn finish(report: &SessionReport, dir: &SessionDir, shard: Shard, test: Option<&SessionTest>) -> Exit {
    print_table(report);
    if let (Some(verdict), Some(test)) = (report.sprt.as_ref().filter(|_| shard == Shard::WHOLE), test) {
        println!();
        print_session_test(verdict, test);
        println!();
    }
    println!("  results: {}  replays: {}/", dir.results_path().display(), dir.replay_dir().display());
    if report.disk_budget_reached {
        println!("  the disk budget was reached: later games kept no replay");
    }
    let resume = format!("tickbot run --resume {}", dir.path().display());
    if let Some(error) = &report.stopped_by {
        eprintln!(
            "error: {error}; the session stopped ({} unfinished games are not recorded: `{resume}` plays them once \
             the cause is fixed)",
            report.unfinished
        );
        return Exit::Runtime;
    }
    if report.interrupted {
        eprintln!("interrupted: {} unfinished games are not recorded; `{resume}` plays them", report.unfinished);
        return Exit::Interrupted;
    }
    Exit::Success
}

fn print_table(report: &SessionReport) {
    let right = |header: &str, gap: usize| Column::new(header, Align::Right, gap, 0);
    // Short headers, so that the bundled session's table fits 100 columns
    // (the game column goes where it would not); the line below says what
    // the last three are.
    let columns = vec![
        Column::new("game", Align::Left, 2, 0).optional(),
        Column::new("planner", Align::Left, 2, 0),
        right("games", 1),
        right("won", 1),
        right("lost", 1),
        right("stalled", 1),
        right("aborted", 1),
        right("faults", 1),
        right("score", 2),
        right("ticks", 1),
        right("plan s", 1),
    ];
    let mut table = Table::new("entry", columns);
    let mut row = |name: &str, game: &str, planner: &str, totals: &Totals| {
        let cells = vec![
            game.to_string(),
            planner.to_string(),
            totals.games.to_string(),
            totals.won.to_string(),
            totals.lost.to_string(),
            totals.stalled.to_string(),
            totals.aborted.to_string(),
            totals.faults().to_string(),
            format!("{:.2}", totals.mean_score()),
            format!("{:.1}", totals.mean_ticks()),
            format!("{:.2}", totals.planner_us as f64 / 1e6),
        ];
        table.row(name, cells);
    };
    for entry in &report.entries {
        row(&entry.name, entry.game, entry.planner, &entry.totals);
    }
    row("all", "", "", &report.overall);
    let width = output_width();
    for line in table.lines(width) {
        println!("{line}");
    }
    println!("  score, ticks: means per game; plan s: seconds the planners took, all games together");
    let interrupted = if report.interrupted { "  (interrupted)" } else { "" };
    let all = &report.overall;
    let counts = format!(
        "  finished {} games: won {}, lost {}, stalled {}, aborted {}, failed {}",
        all.games,
        all.won,
        all.lost,
        all.stalled,
        all.aborted,
        all.faults()
    );
    let rest = format!(
        "(panic {}, timeout {}, illegal {}); mean score {:.2}, best {}{interrupted}",
        all.panic,
        all.timeout,
        all.illegal,
        all.mean_score(),
        all.best_score
    );
    if counts.chars().count() + rest.chars().count() < width {
        println!("{counts} {rest}");
    } else {
        println!("{counts}\n    {rest}");
    }
    if report.played_now == 0 && report.stopped_by.is_none() && !report.interrupted && !report.timed_out {
        println!("  this run: nothing left to play, the session is complete");
    } else {
        println!("  this run: {} games in {:.2} s", report.played_now, report.elapsed_us as f64 / 1e6);
    }
}
