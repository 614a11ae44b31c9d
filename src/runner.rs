//! What every command shares: the exit codes and the failures that carry
//! them, the Ctrl-C/SIGTERM flag, progress bars, playing one game or a
//! session of many, printing JSON, and collecting files from the command
//! line. Part of the binary; below `src/cli/` (which uses it) and above the
//! library.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use anyhow::Context;
use indicatif::ProgressStyle;
use serde::Serialize;
use tracing_indicatif::span_ext::IndicatifSpanExt;

use tickbot::game::Replayable;
use tickbot::plan::{Budget, Planner};
use tickbot::progress::Progress;
use tickbot::replay;
use tickbot::session::{self, Recovered, ResultsFile, SessionConfig, SessionDir, SessionProgress, SessionReport};

use crate::cli::common::PlayArgs;

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
        "{msg} [{bar:30}] {human_pos}/{human_len} ({percent}%, {per_sec}, {eta} left)"
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
    ProgressGuard { span, done, ticker: Some(ticker) }
}

/// Keeps a [`progress_bar`] drawn; removes it when dropped.
#[derive(Debug)]
pub struct ProgressGuard {
    span: tracing::Span,
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
pub fn play_one<G: Replayable, P: Planner<G>>(
    level: Arc<G::Config>,
    make_planner: impl Fn() -> P,
    options: &PlayArgs,
) -> Result<Exit, Failure> {
    if let Some(path) = &options.record {
        prepare_parent(path)?;
    }
    let ticks = Progress::default();
    let result = {
        let _bar = progress_bar(&format!("playing {} (ticks)", G::NAME), &ticks);
        let runtime = runtime()?;
        let game = session::play_one::<G, P>(
            level,
            make_planner(),
            options.seed,
            options.record.clone(),
            Duration::from_millis(options.move_budget_ms),
            ticks.clone(),
            signalled(),
        );
        let result = runtime.block_on(game);
        // A planner that ignored its budget may still hold a blocking
        // thread: do not wait for it forever.
        runtime.shutdown_timeout(Duration::from_secs(1));
        result.exit_code(Exit::Runtime)?
    };
    let record = result;
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
    Ok(finished())
}

fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().exit_code(Exit::Runtime)
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

/// Plays a session (`tickbot run`) until it ends or Ctrl-C/SIGTERM, with
/// a progress bar on a terminal (games, games/s, time left, won so far)
/// and otherwise a `status` log line every 30 s.
pub fn run_session(
    config: SessionConfig,
    out: Option<(&SessionDir, ResultsFile, Recovered)>,
) -> Result<SessionReport, Failure> {
    let progress = config.progress.clone();
    let duration = config.duration;
    // A planner that panics ends its game as `panic` and the session goes
    // on: its message goes to the log (above the progress bar, into the
    // JSON file) instead of raw onto stderr.
    std::panic::set_hook(Box::new(|info| tracing::error!(panic = %info, "a planner panicked")));
    let runtime = runtime()?;
    let report = {
        let _display = SessionDisplay::start(&progress, duration);
        runtime.block_on(session::run(config, out, signalled()))
    };
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(report)
}

/// What shows a session's progress while it runs.
enum SessionDisplay {
    Bar { _guard: ProgressGuard },
    Status { done: Arc<AtomicBool>, thread: Option<std::thread::JoinHandle<()>> },
}

/// How often a session that is not on a terminal logs its status.
const STATUS_EVERY: Duration = Duration::from_secs(30);

impl SessionDisplay {
    fn start(progress: &SessionProgress, duration: Option<Duration>) -> SessionDisplay {
        let started = Instant::now();
        let time_left = move || {
            duration.map_or_else(String::new, |duration| {
                let left = duration.saturating_sub(started.elapsed()).as_secs();
                format!(", {}h{:02}m{:02}s left", left / 3600, left / 60 % 60, left % 60)
            })
        };
        let so_far = {
            let progress = progress.clone();
            move || format!("won {}, other {}{}", progress.won.done(), progress.not_won.done(), time_left())
        };
        if std::io::stderr().is_terminal() {
            let guard = progress_bar("games", &progress.games);
            let (done, ticker_span) = (Arc::clone(&guard.done), guard.span.clone());
            std::thread::spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    ticker_span.pb_set_message(&format!("games ({})", so_far()));
                    std::thread::sleep(Duration::from_millis(250));
                }
            });
            return SessionDisplay::Bar { _guard: guard };
        }
        let done = Arc::new(AtomicBool::new(false));
        let thread = {
            let (done, games) = (Arc::clone(&done), progress.games.clone());
            std::thread::spawn(move || {
                let mut last = Instant::now();
                while !done.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(100));
                    if last.elapsed() >= STATUS_EVERY {
                        last = Instant::now();
                        let elapsed = started.elapsed().as_secs_f64();
                        let per_second = games.done() as f64 / elapsed.max(1e-9);
                        tracing::info!(
                            games = games.done(),
                            of = games.total(),
                            games_per_s = format!("{per_second:.1}"),
                            so_far = so_far(),
                            "status"
                        );
                    }
                }
            })
        };
        SessionDisplay::Status { done, thread: Some(thread) }
    }
}

impl Drop for SessionDisplay {
    fn drop(&mut self) {
        if let SessionDisplay::Status { done, thread } = self {
            done.store(true, Ordering::Relaxed);
            if let Some(thread) = thread.take() {
                let _ = thread.join();
            }
        }
    }
}

/// Resolves once Ctrl-C or SIGTERM has set the interrupt flag.
async fn signalled() {
    let flag = interrupt_flag();
    while !flag.load(Ordering::Relaxed) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
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
