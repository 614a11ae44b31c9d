//! The bridge from the synchronous binary to the library's async session
//! runner: a tokio runtime, the interrupt flag as a future, and on them
//! one game (`play_one`, for `play GAME`) or a session (`run_session`, for
//! `run`) with its progress shown as it goes (and, with `run --metrics`,
//! kept in a metrics file).

use std::collections::VecDeque;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use anyhow::Context;
use tracing_indicatif::span_ext::IndicatifSpanExt;

use tickbot::analysis::status::{Liveness, RATE_WINDOW_MS, live_report, now_ms, prometheus_text};
use tickbot::game::Replayable;
use tickbot::plan::Planner;
use tickbot::progress::Progress;
use tickbot::replay;
use tickbot::session::{
    self, Recovered, ResultsFile, SessionConfig, SessionDir, SessionLog, SessionProgress, SessionReport, Shard,
};
use tickbot::telemetry;

use super::exit::{Exit, ExitOnError, Failure};
use super::interrupt::{finished, interrupt_flag};
use super::output::replace_file;
use super::progress::{ProgressGuard, progress_bar};
use super::sprt::llr_status;
use crate::cli::common::PlayArgs;

/// `tickbot play GAME`: one game with the exact seed, optionally recorded,
/// one line of outcome, and the final board with `--show`.
pub(crate) fn play_one<G: Replayable, P: Planner<G>>(
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
            session_log(),
            signalled(),
        );
        let result = runtime.block_on(game);
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

/// The log file as the session checks it before each commit.
fn session_log() -> Option<Arc<dyn SessionLog>> {
    telemetry::log_file().map(|file| Arc::new(file) as Arc<dyn SessionLog>)
}

/// One thread is enough for the run loop: it only waits on the workers,
/// the clock and the signals, while games play on their own threads and
/// commits on the blocking pool. (A multi-threaded runtime would start a
/// thread per core to sit idle.)
fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread().enable_all().build().exit_code(Exit::Runtime)
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
/// and otherwise a `status` log line every 30 s; with `metrics`, its
/// metrics file rewritten every few seconds and once at the end.
pub(crate) fn run_session(
    config: SessionConfig,
    out: Option<(&SessionDir, ResultsFile, Recovered)>,
    metrics: Option<SessionMetrics>,
) -> Result<SessionReport, Failure> {
    let progress = config.progress.clone();
    let duration = config.duration;
    // A planner that panics ends its game as `panic` and the session goes
    // on: its message goes to the log (above the progress bar, into the
    // JSON file) instead of raw onto stderr.
    std::panic::set_hook(Box::new(|info| tracing::error!(panic = %info, "a planner panicked")));
    let runtime = runtime()?;
    let mut report = {
        let _display = SessionDisplay::start(&progress, duration, metrics);
        runtime.block_on(session::run(config, out, session_log(), signalled()))
    };
    runtime.shutdown_timeout(Duration::from_secs(1));
    // A line lost after the last commit (the session's closing events)
    // fails the run all the same: no log line is lost without a word.
    if report.stopped_by.is_none() {
        report.stopped_by = telemetry::log_file().and_then(|log| log.failure());
    }
    Ok(report)
}

/// `run --metrics FILE`: where the session keeps its metrics, and how its
/// series are labelled (as `tickbot status --metrics DIR` labels them).
#[derive(Debug)]
pub(crate) struct SessionMetrics {
    pub file: PathBuf,
    /// The session directory, as given.
    pub dir: PathBuf,
    pub shard: Shard,
}

impl SessionMetrics {
    /// Writes the figures of this moment; a failure is a warning (logged
    /// once until a write succeeds again), never the session's end.
    fn write(&self, live: &SessionProgress, liveness: Liveness, rate: &mut Rate, failing: &mut bool) {
        let now = now_ms();
        let entries = live.entries.snapshot();
        let recorded = entries.iter().map(|entry| entry.totals.games).sum();
        let games_per_s = rate.look(now, recorded);
        let report = live_report(now, &self.dir, Some(self.shard), liveness, &entries, games_per_s);
        match replace_file(&self.file, &prometheus_text(&report)) {
            Ok(()) => *failing = false,
            Err(error) if !*failing => {
                *failing = true;
                tracing::warn!(error = format!("{error:#}"), "the metrics file was not written; the session goes on");
            }
            Err(_) => {}
        }
    }
}

/// Games per second over the last five minutes, from the counts seen at
/// each write (as `tickbot status` measures a directory without a log).
#[derive(Debug, Default)]
struct Rate {
    looks: VecDeque<(u64, u64)>,
}

impl Rate {
    fn look(&mut self, now_ms: u64, recorded: u64) -> Option<f64> {
        let window_start = now_ms.saturating_sub(RATE_WINDOW_MS);
        self.looks.push_back((now_ms, recorded));
        while self.looks.len() > 2 && self.looks[1].0 <= window_start {
            self.looks.pop_front();
        }
        let &(first_ms, first_count) = self.looks.front()?;
        (now_ms > first_ms).then(|| recorded.saturating_sub(first_count) as f64 * 1000.0 / (now_ms - first_ms) as f64)
    }
}

/// What shows a session's progress while it runs: a bar on a terminal, and
/// a status thread for the log lines (off a terminal) and the metrics file.
struct SessionDisplay {
    _bar: Option<ProgressGuard>,
    stop: Option<Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// How often a session that is not on a terminal logs its status.
const STATUS_EVERY: Duration = Duration::from_secs(30);

/// How often a session rewrites its metrics file (node-exporter reads it
/// at each scrape, typically every 15 s or more).
const METRICS_EVERY: Duration = Duration::from_secs(5);

impl SessionDisplay {
    fn start(
        progress: &SessionProgress,
        duration: Option<Duration>,
        metrics: Option<SessionMetrics>,
    ) -> SessionDisplay {
        let started = Instant::now();
        let time_left = move || {
            duration.map_or_else(String::new, |duration| {
                let left = duration.saturating_sub(started.elapsed()).as_secs();
                format!(", {}h{:02}m{:02}s left", left / 3600, left / 60 % 60, left % 60)
            })
        };
        let so_far = {
            let progress = progress.clone();
            let sprt = progress.sprt.clone();
            move || {
                let llr = sprt.as_ref().map(|(gauge, bounds)| llr_status(gauge, bounds.lower, bounds.upper)());
                let llr = llr.filter(|text| !text.is_empty()).map_or_else(String::new, |text| format!(", {text}"));
                format!("won {}, other {}{llr}{}", progress.won.done(), progress.not_won.done(), time_left())
            }
        };
        let terminal = std::io::stderr().is_terminal();
        let bar = terminal.then(|| {
            let guard = progress_bar("games", &progress.games);
            let (done, ticker_span) = (Arc::clone(&guard.done), guard.span.clone());
            let so_far = so_far.clone();
            std::thread::spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    ticker_span.pb_set_message(&format!("games ({})", so_far()));
                    std::thread::sleep(Duration::from_millis(250));
                }
            });
            guard
        });
        if terminal && metrics.is_none() {
            return SessionDisplay { _bar: bar, stop: None, thread: None };
        }
        // Dropping the sender wakes the thread at once: a short session
        // does not wait out a sleep at its end, and the metrics file gets
        // its last write.
        let (stop, stopped) = mpsc::channel::<()>();
        let progress = progress.clone();
        let thread = std::thread::spawn(move || {
            let wake = if metrics.is_some() { METRICS_EVERY } else { STATUS_EVERY };
            let (mut rate, mut failing, mut last_status) = (Rate::default(), false, Instant::now());
            let running = Liveness::Running { pid: Some(std::process::id()) };
            if let Some(metrics) = &metrics {
                metrics.write(&progress, running.clone(), &mut rate, &mut failing);
            }
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(wake) {
                if let Some(metrics) = &metrics {
                    metrics.write(&progress, running.clone(), &mut rate, &mut failing);
                }
                if !terminal && last_status.elapsed() >= STATUS_EVERY {
                    last_status = Instant::now();
                    let games = &progress.games;
                    let per_second = games.done() as f64 / started.elapsed().as_secs_f64().max(1e-9);
                    tracing::info!(
                        games = games.done(),
                        of = games.total(),
                        games_per_s = format!("{per_second:.1}"),
                        so_far = so_far(),
                        "status"
                    );
                }
            }
            if let Some(metrics) = &metrics {
                metrics.write(&progress, Liveness::Ended, &mut rate, &mut failing);
            }
        });
        SessionDisplay { _bar: bar, stop: Some(stop), thread: Some(thread) }
    }
}

impl Drop for SessionDisplay {
    fn drop(&mut self) {
        // The sender goes first, ending the thread's wait.
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
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
