//! What the game-independent subcommands do (`replay verify`, `replay show`),
//! the dispatch of every subcommand, and the helpers each game's `play` and
//! `run` share: exit codes, the session runner, summaries. Part of the binary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, anyhow};
use serde::Serialize;

use tickbot::game::{Game, GameSpec, GameVisitor};
use tickbot::plan::{Planner, format_params};
use tickbot::replay::{self, ReplayError};
use tickbot::session::{self, ReplayTarget, Seeding, SessionConfig, SessionReport};
use tickbot::telemetry::{self, LogConfig, TelemetryError};

use crate::cli::{
    self, BenchGame, Cli, Command, GenGame, MatchGame, PlayArgs, PlayGame, ReplayCommand, RunArgs, RunGame,
};

/// The documented exit codes (see `tickbot --help`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Success = 0,
    Diverged = 1,
    BadInput = 2,
    InvalidReplay = 3,
    Runtime = 4,
    Interrupted = 130,
}

/// An error on its way out, with the exit code it maps to.
#[derive(Debug)]
pub struct Failure {
    pub code: Exit,
    pub error: anyhow::Error,
}

pub trait ExitOnError<T> {
    fn exit_code(self, code: Exit) -> Result<T, Failure>;
}

impl<T, E: Into<anyhow::Error>> ExitOnError<T> for Result<T, E> {
    fn exit_code(self, code: Exit) -> Result<T, Failure> {
        self.map_err(|error| Failure { code, error: error.into() })
    }
}

pub fn execute(cli: Cli) -> Result<Exit, Failure> {
    let writes_log = !matches!(cli.command, Command::Replay(_) | Command::Gen(_));
    let log = LogConfig { level: cli.log_level.clone(), dir: writes_log.then(|| cli.log_dir.clone()) };
    if let Err(error) = telemetry::init(&log) {
        let code = match error {
            TelemetryError::Filter { .. } => Exit::BadInput,
            TelemetryError::File { .. } => Exit::Runtime,
        };
        return Err(Failure { code, error: error.into() });
    }
    match cli.command {
        Command::Run(args) => match &args.game {
            Some(RunGame::Snake(snake_args)) => cli::snake::run(&args, snake_args),
            Some(RunGame::Flag(flag_args)) => cli::flag::run(&args, flag_args),
            Some(RunGame::Slide(slide_args)) => cli::slide::run(&args, slide_args),
            Some(RunGame::Pipes(pipes_args)) => cli::pipes::run(&args, pipes_args),
            Some(RunGame::Locm(locm_args)) => cli::locm::run(&args, locm_args),
            None => cli::snake::run(&args, &cli::snake::SnakeArgs::default()),
        },
        Command::Play(PlayGame::Snake(args)) => cli::snake::play(args),
        Command::Play(PlayGame::Flag(args)) => cli::flag::play(args),
        Command::Play(PlayGame::Slide(args)) => cli::slide::play(args),
        Command::Play(PlayGame::Pipes(args)) => cli::pipes::play(args),
        Command::Play(PlayGame::Locm(args)) => cli::locm::play(args),
        Command::Replay(ReplayCommand::Verify { paths, json }) => verify(&paths, json),
        Command::Replay(ReplayCommand::Show { path, tick, all }) => show(&path, tick, all),
        Command::Bench(BenchGame::Snake(args)) => cli::snake::bench(args),
        Command::Bench(BenchGame::Flag(args)) => cli::flag::bench(args),
        Command::Bench(BenchGame::Slide(args)) => cli::slide::bench(args),
        Command::Bench(BenchGame::Pipes(args)) => cli::pipes::bench(args),
        Command::Bench(BenchGame::Locm(args)) => cli::locm::bench(args),
        Command::Match(MatchGame::Locm(args)) => cli::locm::run_match(args),
        Command::Gen(GenGame::Flag(args)) => cli::flag::gen_map(args),
        Command::Gen(GenGame::Pipes(args)) => cli::pipes::gen_puzzle(args),
    }
}

pub fn default_parallelism() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// `tickbot play GAME`: one game with the exact seed, optionally recorded,
/// one line of outcome, and the final board with `--show`.
pub fn play_one<G: Game, P: Planner<G>>(
    level: Arc<G::Config>,
    make_planner: impl Fn() -> P,
    options: &PlayArgs,
) -> Result<Exit, Failure> {
    let session = SessionConfig {
        games: 1,
        seeding: Seeding::Exact(options.seed),
        jobs: 1,
        replays: options.record.clone().map_or(ReplayTarget::None, ReplayTarget::File),
        results_path: None,
        move_budget: Duration::from_millis(options.move_budget_ms),
    };
    let mut report = run_session::<G, P>(level, make_planner, session)?;
    let Some(record) = report.records.first() else {
        let error = report.failures.pop().map_or_else(|| anyhow!("the game did not finish"), anyhow::Error::from);
        return Err(Failure { code: Exit::Runtime, error });
    };
    println!(
        "{} seed {}: {} ({}), score {}, {} ticks, {:.1} ms",
        G::NAME,
        record.seed,
        record.outcome,
        record.reason,
        record.score,
        record.ticks,
        record.elapsed_us as f64 / 1000.0
    );
    if let Some(path) = &record.replay {
        println!("replay written to {}", path.display());
    }
    if let (true, Some(path)) = (options.show, &record.replay) {
        let bytes = std::fs::read(path).exit_code(Exit::Runtime)?;
        let replay = replay::decode(&bytes).exit_code(Exit::InvalidReplay)?;
        print!("{}", replay::render_at(&replay, record.ticks).exit_code(Exit::Runtime)?);
    }
    Ok(session_exit(&report))
}

/// `tickbot run GAME`: the main job, many games with derived seeds, replays
/// and a results file under `--out`, then a summary.
pub fn run_many<G: Game, P: Planner<G>>(
    args: &RunArgs,
    level: Arc<G::Config>,
    make_planner: impl Fn() -> P,
    planner_name: &str,
) -> Result<Exit, Failure> {
    let replay_dir = args.out.join("replays");
    let results_path = args.out.join("results.jsonl");
    let session = SessionConfig {
        games: args.games,
        seeding: Seeding::Derived { master: args.seed },
        jobs: args.jobs.unwrap_or_else(default_parallelism),
        replays: ReplayTarget::Dir(replay_dir.clone()),
        results_path: Some(results_path.clone()),
        move_budget: Duration::from_millis(args.move_budget_ms),
    };
    println!("tickbot run: {} games of {} with {planner_name}, master seed {}", args.games, G::NAME, args.seed);
    println!("  rules: {}", G::describe(&level));
    let report = run_session::<G, P>(level, make_planner, session)?;
    print_summary(&report);
    println!("  replays: {}/  results: {}", replay_dir.display(), results_path.display());
    Ok(session_exit(&report))
}

fn run_session<G: Game, P: Planner<G>>(
    level: Arc<G::Config>,
    make_planner: impl Fn() -> P,
    session: SessionConfig,
) -> Result<SessionReport, Failure> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().exit_code(Exit::Runtime)?;
    let result = runtime.block_on(session::run::<G, P>(level, make_planner, session, shutdown_signal()));
    // A planner that ignored its budget may still hold a blocking thread:
    // do not wait for it forever.
    runtime.shutdown_timeout(Duration::from_secs(1));
    result.exit_code(Exit::Runtime)
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}

fn session_exit(report: &SessionReport) -> Exit {
    if report.summary.interrupted {
        Exit::Interrupted
    } else if !report.failures.is_empty() {
        Exit::Runtime
    } else {
        Exit::Success
    }
}

fn print_summary(report: &SessionReport) {
    let summary = &report.summary;
    let interrupted = if summary.interrupted { "  (interrupted)" } else { "" };
    println!(
        "  finished {} games: won {}, lost {}, stalled {}, aborted {}, failed {}{interrupted}",
        summary.games_finished,
        summary.won,
        summary.lost,
        summary.stalled,
        summary.aborted,
        report.failures.len()
    );
    println!(
        "  mean score {:.2}, best {}, {} ticks in {:.2} s",
        summary.mean_score(),
        summary.best_score,
        summary.total_ticks,
        summary.elapsed_us as f64 / 1e6
    );
}

pub fn print_json<T: Serialize>(value: &T) -> Result<(), Failure> {
    let text = serde_json::to_string(value).exit_code(Exit::Runtime)?;
    println!("{text}");
    Ok(())
}

/// One line of `replay verify --json`.
#[derive(Debug, Serialize)]
struct FileReport {
    path: PathBuf,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ticks: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tick: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    action: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    actual_hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
}

#[derive(Debug, Serialize)]
struct VerifyReport {
    files: Vec<FileReport>,
    ok: usize,
    diverged: usize,
    invalid: usize,
}

fn verify(paths: &[PathBuf], json: bool) -> Result<Exit, Failure> {
    let mut files = Vec::new();
    for path in paths {
        collect_files(path, "tbr", &mut files).exit_code(Exit::BadInput)?;
    }
    let mut reports = Vec::with_capacity(files.len());
    for path in files {
        let report = verify_file(&path);
        if !json {
            println!("{}", describe_report(&report));
        }
        reports.push(report);
    }
    let count = |status| reports.iter().filter(|report| report.status == status).count();
    let report =
        VerifyReport { ok: count("ok"), diverged: count("diverged"), invalid: count("invalid"), files: reports };
    if json {
        print_json(&report)?;
    } else {
        println!(
            "{} replays: {} reproduced, {} diverged, {} invalid",
            report.files.len(),
            report.ok,
            report.diverged,
            report.invalid
        );
    }
    Ok(if report.files.is_empty() {
        eprintln!("error: no .tbr replay files found in {}", display_paths(paths));
        Exit::BadInput
    } else if report.diverged > 0 {
        Exit::Diverged
    } else if report.invalid > 0 {
        Exit::InvalidReplay
    } else {
        Exit::Success
    })
}

fn display_paths(paths: &[PathBuf]) -> String {
    paths.iter().map(|path| path.display().to_string()).collect::<Vec<_>>().join(", ")
}

/// Files are taken as given; directories are searched recursively for files
/// ending in `.{extension}`, in sorted order so reports are stable.
pub fn collect_files(path: &Path, extension: &str, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let metadata = std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    if !metadata.is_dir() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .with_context(|| format!("cannot list {}", path.display()))?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<_, _>>()
        .with_context(|| format!("cannot list {}", path.display()))?;
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            collect_files(&entry, extension, out)?;
        } else if entry.extension().is_some_and(|found| found == extension) {
            out.push(entry);
        }
    }
    Ok(())
}

fn verify_file(path: &Path) -> FileReport {
    let mut report = FileReport {
        path: path.to_path_buf(),
        status: "invalid",
        ticks: None,
        outcome: None,
        reason: None,
        tick: None,
        action: None,
        expected_hash: None,
        actual_hash: None,
        detail: None,
    };
    let replay = match std::fs::read(path).map_err(ReplayError::from).and_then(|bytes| replay::decode(&bytes)) {
        Ok(replay) => replay,
        Err(error) => {
            report.detail = Some(error.to_string());
            return report;
        }
    };
    match replay::verify(&replay) {
        Ok(reproduced) => {
            report.status = "ok";
            report.ticks = Some(reproduced.ticks);
            report.outcome = Some(reproduced.outcome.kind.to_string());
            report.reason = Some(reproduced.outcome.reason);
        }
        Err(divergence) => {
            report.status = "diverged";
            report.tick = Some(divergence.tick);
            report.action = Some(divergence.action);
            report.expected_hash = Some(format!("{:016x}", divergence.expected));
            report.actual_hash = Some(format!("{:016x}", divergence.actual));
            report.detail = Some(divergence.detail);
        }
    }
    report
}

fn describe_report(report: &FileReport) -> String {
    let path = report.path.display();
    let detail = report.detail.as_deref().unwrap_or("");
    match report.status {
        "ok" => format!(
            "ok        {path}: {} ticks, {} ({})",
            report.ticks.unwrap_or(0),
            report.outcome.as_deref().unwrap_or(""),
            report.reason.as_deref().unwrap_or("")
        ),
        "diverged" => format!(
            "DIVERGED  {path}: tick {}: {detail} (action {}, expected hash {}, actual {})",
            report.tick.unwrap_or(0),
            report.action.as_deref().unwrap_or("-"),
            report.expected_hash.as_deref().unwrap_or("-"),
            report.actual_hash.as_deref().unwrap_or("-")
        ),
        _ => format!("INVALID   {path}: {detail}"),
    }
}

fn show(path: &Path, tick: Option<u32>, all: bool) -> Result<Exit, Failure> {
    let bytes =
        std::fs::read(path).with_context(|| format!("cannot read {}", path.display())).exit_code(Exit::BadInput)?;
    let replay =
        replay::decode_partial(&bytes).with_context(|| format!("{}", path.display())).exit_code(Exit::InvalidReplay)?;
    let header = &replay.header;
    let mut out = String::new();
    out.push_str(&format!("replay    {}\n", path.display()));
    out.push_str(&format!(
        "format    version {}, recorded by tickbot {}\n",
        replay::FORMAT_VERSION,
        header.tickbot_version
    ));
    out.push_str(&format!("game      {}: {}\n", header.game.name(), describe_spec(&header.game)));
    out.push_str(&format!("seed      {}\n", header.seed));
    out.push_str(&format!("planner   {} {}\n", header.planner.name, format_params(&header.planner.params)));
    let ticks = replay.frames.len() as u32;
    match &replay.footer {
        Some(footer) => out.push_str(&format!("outcome   {} after {} ticks\n", footer.outcome, footer.ticks)),
        None => out.push_str(&format!("outcome   none: the file ends after tick {ticks}, no footer\n")),
    }
    let boards = if all {
        replay::render_all(&replay).exit_code(Exit::Diverged)?
    } else {
        let tick = tick.unwrap_or(ticks);
        vec![replay::render_at(&replay, tick).exit_code(Exit::BadInput)?]
    };
    for board in boards {
        out.push('\n');
        out.push_str(&board);
    }
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = stdout.write_all(out.as_bytes());
    Ok(Exit::Success)
}

fn describe_spec(spec: &GameSpec) -> String {
    struct Describe;
    impl GameVisitor for Describe {
        type Output = String;
        fn visit<G: Game>(self, config: &G::Config) -> String {
            G::describe(config)
        }
    }
    spec.visit(Describe)
}
