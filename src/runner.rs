//! What every command shares: the exit codes and the failures that carry
//! them, the Ctrl-C/SIGTERM flag, progress bars, playing one game or a
//! session of many, printing JSON, and collecting files from the command
//! line. Part of the binary; below `src/cli/` (which uses it) and above the
//! library.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use anyhow::{Context, anyhow};
use indicatif::ProgressStyle;
use serde::Serialize;
use tracing_indicatif::span_ext::IndicatifSpanExt;

use tickbot::game::Game;
use tickbot::plan::{Budget, Planner};
use tickbot::progress::Progress;
use tickbot::replay;
use tickbot::session::{self, ReplayTarget, Seeding, SessionConfig, SessionProgress, SessionReport};

use crate::cli::common::{PlayArgs, RunOptions};

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

impl Failure {
    pub fn bad_input(error: impl Into<anyhow::Error>) -> Failure {
        Failure { code: Exit::BadInput, error: error.into() }
    }
}

pub trait ExitOnError<T> {
    fn exit_code(self, code: Exit) -> Result<T, Failure>;
}

impl<T, E: Into<anyhow::Error>> ExitOnError<T> for Result<T, E> {
    fn exit_code(self, code: Exit) -> Result<T, Failure> {
        self.map_err(|error| Failure { code, error: error.into() })
    }
}

/// Set by the first Ctrl-C or SIGTERM; a second Ctrl-C ends the process at once.
static INTERRUPTED: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// Installs the Ctrl-C/SIGTERM handlers: the first signal sets the flag that
/// every long command polls (it then stops promptly, prints what it has and
/// exits 130); a second Ctrl-C exits with 130 at once. Call once, early.
pub fn install_interrupt_handler() -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let flag = Arc::clone(INTERRUPTED.get_or_init(Arc::default));
    // The conditional shutdown is registered first, so it sees the flag as
    // the previous signal left it.
    signal_hook::flag::register_conditional_shutdown(SIGINT, Exit::Interrupted as i32, Arc::clone(&flag))?;
    signal_hook::flag::register(SIGINT, Arc::clone(&flag))?;
    signal_hook::flag::register(SIGTERM, flag)?;
    Ok(())
}

/// The flag a signal sets.
pub fn interrupt_flag() -> Arc<AtomicBool> {
    Arc::clone(INTERRUPTED.get_or_init(Arc::default))
}

pub fn interrupted() -> bool {
    interrupt_flag().load(Ordering::Relaxed)
}

/// A budget with no deadline that runs out on Ctrl-C or SIGTERM: what long
/// library work (benchmarks, matches, table builds) polls.
pub fn interrupt_budget() -> Budget {
    Budget::new(None, Some(interrupt_flag()))
}

/// `Exit::Interrupted` if a signal came, else `Exit::Success`: the code of
/// a command that printed what it had.
pub fn finished() -> Exit {
    if interrupted() { Exit::Interrupted } else { Exit::Success }
}

/// A progress bar on stderr for long work counted in `progress`, redrawn
/// ten times a second until the returned guard is dropped. Nothing is drawn
/// when stderr is not a terminal; log lines go above the bar.
pub fn progress_bar(message: &str, progress: &Progress) -> ProgressGuard {
    let span = tracing::trace_span!("progress", indicatif.pb_show = tracing::field::Empty);
    let template = if progress.total() > 0 {
        "{msg} [{bar:30}] {human_pos}/{human_len} ({percent}%, {eta} left)"
    } else {
        "{spinner} {msg} {pos} ({per_sec}, {elapsed})"
    };
    span.pb_set_style(&ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()));
    span.pb_set_message(message);
    span.pb_set_length(progress.total());
    span.pb_start();
    let done = Arc::new(AtomicBool::new(false));
    let ticker = {
        let (span, done, progress) = (span.clone(), Arc::clone(&done), progress.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                span.pb_set_length(progress.total().max(progress.done()));
                span.pb_set_position(progress.done());
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    };
    ProgressGuard { _span: span, done, ticker: Some(ticker) }
}

/// Keeps a [`progress_bar`] drawn; removes it when dropped.
#[derive(Debug)]
pub struct ProgressGuard {
    _span: tracing::Span,
    done: Arc<AtomicBool>,
    ticker: Option<std::thread::JoinHandle<()>>,
}

impl Drop for ProgressGuard {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(ticker) = self.ticker.take() {
            let _ = ticker.join();
        }
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
    if let Some(path) = &options.record {
        prepare_parent(path)?;
    }
    let session = SessionConfig {
        games: 1,
        seeding: Seeding::Exact(options.seed),
        jobs: 1,
        replays: options.record.clone().map_or(ReplayTarget::None, ReplayTarget::File),
        results_path: None,
        move_budget: Duration::from_millis(options.move_budget_ms),
        progress: SessionProgress::default(),
    };
    let progress = session.progress.ticks.clone();
    let report = {
        let _bar = progress_bar(&format!("playing {} (ticks)", G::NAME), &progress);
        run_session::<G, P>(level, make_planner, session)?
    };
    let Some(record) = report.records.first() else {
        let error = report.failures.into_iter().next().map_or_else(|| anyhow!("the game did not finish"), Into::into);
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
    options: &RunOptions,
    level: Arc<G::Config>,
    make_planner: impl Fn() -> P,
) -> Result<Exit, Failure> {
    let replay_dir = options.out.join("replays");
    let results_path = options.out.join("results.jsonl");
    prepare_output_dir(&options.out, options.overwrite)?;
    let planner_name = make_planner().name();
    let session = SessionConfig {
        games: options.games,
        seeding: Seeding::Derived { master: options.seed },
        jobs: options.jobs.map_or_else(default_parallelism, usize::from),
        replays: ReplayTarget::Dir(replay_dir.clone()),
        results_path: Some(results_path.clone()),
        move_budget: Duration::from_millis(options.move_budget_ms),
        progress: SessionProgress::default(),
    };
    println!("tickbot run: {} games of {} with {planner_name}, master seed {}", options.games, G::NAME, options.seed);
    println!("  rules: {}", G::describe(&level));
    let progress = session.progress.games.clone();
    let report = {
        let _bar = progress_bar(&format!("{} games", G::NAME), &progress);
        run_session::<G, P>(level, make_planner, session)?
    };
    print_summary(&report);
    println!("  replays: {}/  results: {}", replay_dir.display(), results_path.display());
    if let Some(error) = &report.stopped_by {
        eprintln!("error: {error}; the session stopped (finished games and their replays are kept)");
    }
    Ok(session_exit(&report))
}

/// A run's output directory must not hold another run's results: its replay
/// names would be reused while the old result lines still point at them.
/// With `overwrite`, the old `results.jsonl` and `replays/` are deleted.
fn prepare_output_dir(out: &Path, overwrite: bool) -> Result<(), Failure> {
    let results = out.join("results.jsonl");
    let replays = out.join("replays");
    // Checked once here, so a file in the way is one clear error, not one
    // "File exists" per game.
    for (path, what) in [(out, "output directory"), (&replays, "replay directory")] {
        if path.exists() && !path.is_dir() {
            return Err(Failure {
                code: Exit::Runtime,
                error: anyhow!(
                    "cannot write replays: the {what} {} is a file; move it away or choose another --out",
                    path.display()
                ),
            });
        }
    }
    let used = results.exists() || replays.read_dir().is_ok_and(|mut entries| entries.next().is_some());
    if used && !overwrite {
        return Err(Failure::bad_input(anyhow!(
            "{} already holds the results of a run; choose another --out, or pass --overwrite to delete \
             its results.jsonl and replays/ and start over",
            out.display()
        )));
    }
    if used {
        let remove = |path: &Path, result: std::io::Result<()>| match result {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                Err(anyhow::Error::from(error).context(format!("cannot delete {}", path.display())))
            }
            _ => Ok(()),
        };
        remove(&results, std::fs::remove_file(&results)).exit_code(Exit::Runtime)?;
        remove(&replays, std::fs::remove_dir_all(&replays)).exit_code(Exit::Runtime)?;
    }
    std::fs::create_dir_all(&replays)
        .with_context(|| format!("cannot create the replay directory {}", replays.display()))
        .exit_code(Exit::Runtime)
}

/// Creates the directory a file will be written into, with one clear error.
fn prepare_parent(path: &Path) -> Result<(), Failure> {
    match path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
        Some(parent) => std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create the directory {} for {}", parent.display(), path.display()))
            .exit_code(Exit::Runtime),
        None => Ok(()),
    }
}

fn run_session<G: Game, P: Planner<G>>(
    level: Arc<G::Config>,
    make_planner: impl Fn() -> P,
    session: SessionConfig,
) -> Result<SessionReport, Failure> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().exit_code(Exit::Runtime)?;
    let result = runtime.block_on(session::run::<G, P>(level, make_planner, session, signalled()));
    // A planner that ignored its budget may still hold a blocking thread:
    // do not wait for it forever.
    runtime.shutdown_timeout(Duration::from_secs(1));
    result.exit_code(Exit::Runtime)
}

/// Resolves once Ctrl-C or SIGTERM has set the interrupt flag.
async fn signalled() {
    let flag = interrupt_flag();
    while !flag.load(Ordering::Relaxed) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn session_exit(report: &SessionReport) -> Exit {
    if report.summary.interrupted {
        Exit::Interrupted
    } else if !report.failures.is_empty() || report.stopped_by.is_some() {
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
