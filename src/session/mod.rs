//! The session runner: the only async module. A session plays the games of
//! its entries (each a game, its levels and a planner) in a fixed order
//! (`schedule`), as tokio tasks with bounded concurrency, sends planning
//! (CPU work) to the blocking pool under a per-move budget, writes replays
//! durably, and appends one synced JSON line per finished game to the
//! results file of its directory (`store`), keeping only running totals in
//! memory. A planner fault (panic, over its budget, an illegal action) ends
//! its game with an outcome of its own and the session goes on.
//!
//! A session stops starting games on shutdown, at its deadline, or when a
//! results line or replay cannot be written; in the first and last cases
//! the running games are stopped, and neither recorded nor kept (their
//! `.part` replays are deleted), so a resumed session plays them again and
//! ends with exactly the results of an uninterrupted one.

pub mod merge;
pub mod schedule;
pub mod shard;
pub mod spec;
pub mod store;

use std::fmt;
use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::task::JoinSet;
use tracing::{debug, error, info, warn};

use crate::game::{Outcome, OutcomeKind, Replayable, Status};
use crate::plan::{Budget, PlanError, Planner};
use crate::progress::Progress;
use crate::replay::{Footer, Frame, FrameHash, Header, ReplayFile};
use crate::rng::derive_seed;

pub use schedule::{Schedule, Slot};
pub use shard::Shard;
pub use spec::{ReplayPolicy, SessionSpec};
pub use store::{Manifest, Recovered, ResultsFile, SessionDir};

/// The log target of the per-game events (`game_start`, `game_end`): a
/// terminal running a long session leaves them to the log file.
pub const GAME_EVENTS: &str = "tickbot::games";

/// What to play, how, and how much.
#[derive(Debug)]
pub struct SessionConfig {
    pub entries: Vec<Entry>,
    /// Game `index` of entry `e` plays with `game_seed(master_seed, e, index)`.
    pub master_seed: u64,
    /// Stop after this many games of the session's order (recorded ones
    /// included).
    pub max_games: Option<u64>,
    /// Start no game after this long; running ones finish.
    pub duration: Option<Duration>,
    /// Games played at once.
    pub jobs: usize,
    /// The longest one planner call may take.
    pub move_budget: Duration,
    pub replays: ReplayPolicy,
    /// Keep no more replays once the replay folder holds this many bytes.
    pub disk_budget: Option<u64>,
    /// Counts finished games and played ticks as they happen.
    pub progress: SessionProgress,
    /// Which of the session's games this run plays ([`Shard::WHOLE`]: all).
    pub shard: Shard,
}

/// One entry of a session: a name, a share, and the games it plays.
pub struct Entry {
    pub name: String,
    /// Its turn in the session's order, relative to the other entries.
    pub weight: u64,
    /// Exactly this many games, or as many as its weight gives it.
    pub games: Option<u64>,
    pub player: Arc<dyn EntryPlayer>,
}

impl fmt::Debug for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Entry")
            .field("name", &self.name)
            .field("weight", &self.weight)
            .field("games", &self.games)
            .field("game", &self.player.game())
            .field("planner", &self.player.planner())
            .finish()
    }
}

/// An entry's games, whatever the game: plays game `job` to its end.
pub trait EntryPlayer: Send + Sync + 'static {
    fn game(&self) -> &'static str;
    fn planner(&self) -> &'static str;
    /// The rules of its first level, in a line.
    fn rules(&self) -> String;
    /// Starts one game. Resolves to `None` for a game stopped by the
    /// session (not recorded; its replay deleted).
    fn play(self: Arc<Self>, job: GameJob) -> Pin<Box<dyn Future<Output = GameResult> + Send>>;
}

/// How one game ended for the session.
pub type GameResult = Result<Option<GameRecord>, SessionError>;

/// The games of one game type: its levels (game `index` plays level
/// `index % levels`) and a planner maker (a fresh planner per game).
pub struct GameEntry<G: Replayable, F> {
    levels: Vec<(String, Arc<G::Config>)>,
    make_planner: F,
    planner: &'static str,
}

impl<G: Replayable, F> fmt::Debug for GameEntry<G, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let levels: Vec<&str> = self.levels.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("GameEntry")
            .field("game", &G::NAME)
            .field("levels", &levels)
            .field("planner", &self.planner)
            .finish()
    }
}

impl<G, F, P> GameEntry<G, F>
where
    G: Replayable,
    F: Fn(&G::Config) -> P + Send + Sync + 'static,
    P: Planner<G>,
{
    /// `levels` (at least one) are named as the results file names them.
    pub fn player(levels: Vec<(String, Arc<G::Config>)>, make_planner: F) -> Arc<dyn EntryPlayer> {
        assert!(!levels.is_empty(), "an entry plays at least one level");
        let planner = make_planner(&levels[0].1).name();
        Arc::new(GameEntry::<G, F> { levels, make_planner, planner })
    }
}

impl<G, F, P> EntryPlayer for GameEntry<G, F>
where
    G: Replayable,
    F: Fn(&G::Config) -> P + Send + Sync + 'static,
    P: Planner<G>,
{
    fn game(&self) -> &'static str {
        G::NAME
    }

    fn planner(&self) -> &'static str {
        self.planner
    }

    fn rules(&self) -> String {
        G::describe(&self.levels[0].1)
    }

    fn play(self: Arc<Self>, job: GameJob) -> Pin<Box<dyn Future<Output = GameResult> + Send>> {
        Box::pin(async move {
            let (name, level) = &self.levels[(job.index % self.levels.len() as u64) as usize];
            let planner = (self.make_planner)(level);
            play_game::<G, P>(Arc::clone(level), name.clone(), planner, job).await
        })
    }
}

/// The counters a session advances while it runs.
#[derive(Clone, Debug, Default)]
pub struct SessionProgress {
    /// Games finished in this run (its total: the games left to play, 0 if unbounded).
    pub games: Progress,
    /// Ticks played, over all games.
    pub ticks: Progress,
    pub won: Progress,
    /// Every other outcome.
    pub not_won: Progress,
}

/// The seed of game `index` of entry number `entry`: a pure function of
/// the three, so results never depend on scheduling.
pub fn game_seed(master_seed: u64, entry: usize, index: u64) -> u64 {
    derive_seed(derive_seed(master_seed, entry as u64), index)
}

/// A game's id in results: its entry and index.
pub fn game_id(entry: &str, index: u64) -> String {
    format!("{entry}/{index:06}")
}

/// One finished game: the line appended to the results file.
/// `planner_us` and `elapsed_us` are wall-clock times; every other field is
/// a function of the session file and the game's id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameRecord {
    pub id: String,
    pub entry: String,
    pub index: u64,
    pub game: &'static str,
    pub level: String,
    pub planner: &'static str,
    pub seed: u64,
    pub outcome: OutcomeKind,
    pub reason: String,
    pub ticks: u32,
    pub score: i64,
    /// Time spent in the planner, over all its calls.
    pub planner_us: u64,
    pub elapsed_us: u64,
    pub replay: Option<PathBuf>,
}

/// Running totals over finished games.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Totals {
    pub games: u64,
    pub won: u64,
    pub lost: u64,
    pub stalled: u64,
    pub aborted: u64,
    pub panic: u64,
    pub timeout: u64,
    pub illegal: u64,
    pub ticks: u64,
    pub score: i64,
    /// The best score of any finished game; 0 before the first.
    pub best_score: i64,
    pub planner_us: u64,
}

impl Totals {
    pub(crate) fn add(&mut self, outcome: OutcomeKind, ticks: u32, score: i64, planner_us: u64) {
        self.best_score = if self.games == 0 { score } else { self.best_score.max(score) };
        self.games += 1;
        *match outcome {
            OutcomeKind::Won => &mut self.won,
            OutcomeKind::Lost => &mut self.lost,
            OutcomeKind::Stalled => &mut self.stalled,
            OutcomeKind::Aborted => &mut self.aborted,
            OutcomeKind::Panic => &mut self.panic,
            OutcomeKind::Timeout => &mut self.timeout,
            OutcomeKind::Illegal => &mut self.illegal,
        } += 1;
        self.ticks += u64::from(ticks);
        self.score += score;
        self.planner_us += planner_us;
    }

    /// Adds another entry's totals.
    pub fn merge(&mut self, other: &Totals) {
        self.best_score = match (self.games, other.games) {
            (_, 0) => self.best_score,
            (0, _) => other.best_score,
            _ => self.best_score.max(other.best_score),
        };
        self.games += other.games;
        self.won += other.won;
        self.lost += other.lost;
        self.stalled += other.stalled;
        self.aborted += other.aborted;
        self.panic += other.panic;
        self.timeout += other.timeout;
        self.illegal += other.illegal;
        self.ticks += other.ticks;
        self.score += other.score;
        self.planner_us += other.planner_us;
    }

    /// Planner faults: panics, timeouts and illegal actions.
    pub fn faults(&self) -> u64 {
        self.panic + self.timeout + self.illegal
    }

    pub fn mean_score(&self) -> f64 {
        self.score as f64 / self.games.max(1) as f64
    }

    pub fn mean_ticks(&self) -> f64 {
        self.ticks as f64 / self.games.max(1) as f64
    }
}

/// One entry's line of the final table.
#[derive(Clone, Debug, Serialize)]
pub struct EntryReport {
    pub name: String,
    pub game: &'static str,
    pub planner: &'static str,
    /// Over the whole session, games recorded before a resume included.
    pub totals: Totals,
}

/// What a session did: per-entry and overall totals (the whole session's,
/// a resumed one's earlier games included), and why it stopped early.
#[derive(Debug)]
pub struct SessionReport {
    pub entries: Vec<EntryReport>,
    pub overall: Totals,
    /// Games finished by this run (not those recorded before a resume).
    pub played_now: u64,
    /// Games stopped part way by a shutdown or a failure: not recorded,
    /// played again by a resumed session.
    pub unfinished: u64,
    /// The session was stopped by a shutdown signal.
    pub interrupted: bool,
    /// The session reached its duration.
    pub timed_out: bool,
    /// A results line or replay could not be written: nothing was started
    /// after it and the running games were stopped.
    pub stopped_by: Option<SessionError>,
    /// Replays stopped being kept when the disk budget was reached.
    pub disk_budget_reached: bool,
    pub elapsed_us: u64,
}

/// Why a session (or one of its games) failed outside the game's rules.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot write the replay {path}: {cause}")]
    Replay { path: PathBuf, cause: io::Error },
    #[error("cannot write the results file {path}: {cause}")]
    Results { path: PathBuf, cause: io::Error },
    #[error("{path}: {cause}")]
    Dir { path: PathBuf, cause: io::Error },
    #[error("{path} is in use by another session{}; wait for it to end, or choose another directory",
        .owner.map_or_else(String::new, |pid| format!(" (process {pid})")))]
    InUse { path: PathBuf, owner: Option<u32> },
    #[error("{path}: not a session manifest: {message}")]
    Manifest { path: PathBuf, message: String },
    #[error("{path}: line {line} is damaged ({message:?}): only the last line can be cut short by a crash")]
    Corrupt { path: PathBuf, line: u64, message: String },
    #[error("a game task failed: {0}")]
    Task(String),
}

/// Plays a session until its games are done, its duration is over,
/// `shutdown` resolves, or a write fails. With `out`, results go to its
/// results file (games it already records are skipped) and replays under
/// its replay folder.
pub async fn run(
    config: SessionConfig,
    out: Option<(&SessionDir, ResultsFile, Recovered)>,
    shutdown: impl Future<Output = ()>,
) -> SessionReport {
    let started = Instant::now();
    let cancel = Arc::new(AtomicBool::new(false));
    let (replay_dir, mut results, recovered) = match out {
        Some((dir, results, recovered)) => (Some(dir.replay_dir()), Some(results), recovered),
        None => (None, None, Recovered::default()),
    };
    let Recovered { recorded, totals: recovered_totals, .. } = recovered;
    let recorded: Vec<_> = config.entries.iter().map(|entry| recorded.get(&entry.name).cloned()).collect();
    let mut totals: Vec<Totals> =
        config.entries.iter().map(|entry| recovered_totals.get(&entry.name).cloned().unwrap_or_default()).collect();
    let mut schedule = Schedule::new(
        config.entries.iter().map(|entry| entry.weight).collect(),
        config.entries.iter().map(|entry| entry.games).collect(),
        config.max_games,
    );
    let already: u64 = recorded.iter().flatten().map(|done| done.count()).sum();
    let shard = config.shard;
    let total = schedule.entry_counts().map(|counts| counts.iter().map(|&games| shard.games_of(games)).sum::<u64>());
    config.progress.games.set_total(total.map_or(0, |total| total.saturating_sub(already)));
    let disk_used = Arc::new(AtomicU64::new(0));
    if let (Some(_), Some(dir)) = (config.disk_budget, &replay_dir) {
        disk_used.store(directory_bytes(dir), Ordering::Relaxed);
    }
    let mut report = SessionReport {
        entries: Vec::new(),
        overall: Totals::default(),
        played_now: 0,
        unfinished: 0,
        interrupted: false,
        timed_out: false,
        stopped_by: None,
        disk_budget_reached: false,
        elapsed_us: 0,
    };
    let deadline = config.duration.map(|duration| tokio::time::Instant::now() + duration);
    let jobs = config.jobs.max(1);
    let mut tasks = JoinSet::new();
    let mut exhausted = false;
    tokio::pin!(shutdown);
    loop {
        let starting = !report.interrupted && !report.timed_out && report.stopped_by.is_none();
        while starting && !exhausted && tasks.len() < jobs {
            let Some(slot) = schedule.next() else {
                exhausted = true;
                break;
            };
            if !shard.plays(slot.index) || recorded[slot.entry].as_ref().is_some_and(|done| done.contains(slot.index)) {
                continue;
            }
            let entry = &config.entries[slot.entry];
            let seed = game_seed(config.master_seed, slot.entry, slot.index);
            let over_budget = config.disk_budget.is_some_and(|budget| disk_used.load(Ordering::Relaxed) >= budget);
            if over_budget && !report.disk_budget_reached {
                report.disk_budget_reached = true;
                warn!(
                    budget = config.disk_budget,
                    "the replays reached the disk budget: later games keep no replay (results go on)"
                );
            }
            let keep = if over_budget { None } else { keep_rule(config.replays, seed) };
            let job = GameJob {
                entry: entry.name.clone(),
                index: slot.index,
                seed,
                replay_path: keep.and(replay_dir.as_ref()).map(|dir| replay_path(dir, &entry.name, slot.index)),
                keep: keep.unwrap_or(Keep::Always),
                move_budget: config.move_budget,
                cancel: Arc::clone(&cancel),
                record_interrupted: false,
                ticks: config.progress.ticks.clone(),
                disk_used: Arc::clone(&disk_used),
            };
            let game = Arc::clone(&entry.player).play(job);
            let entry_number = slot.entry;
            tasks.spawn(async move { (entry_number, game.await) });
        }
        if tasks.is_empty() {
            break;
        }
        tokio::select! {
            () = &mut shutdown, if !report.interrupted => {
                report.interrupted = true;
                cancel.store(true, Ordering::Relaxed);
                warn!(running = tasks.len(), "interrupted: starting no more games, stopping the running ones");
            }
            () = sleep_until(deadline), if !report.timed_out && !report.interrupted => {
                report.timed_out = true;
                info!(running = tasks.len(), "the session's duration is over: starting no more games");
            }
            Some(joined) = tasks.join_next() => {
                let (entry_number, result) = match joined {
                    Ok(joined) => joined,
                    Err(error) => (usize::MAX, Err(SessionError::Task(error.to_string()))),
                };
                match result {
                    Ok(Some(record)) => {
                        if report.stopped_by.is_some() {
                            // Finished after the failure: not in the file, so
                            // not counted; a resumed session plays it again.
                            report.unfinished += 1;
                            continue;
                        }
                        let appended = results.as_mut().map_or(Ok(()), |file| file.append(&record));
                        if let Err(failure) = appended {
                            error!(error = %failure, "stopping the session");
                            cancel.store(true, Ordering::Relaxed);
                            report.stopped_by = Some(failure);
                            report.unfinished += 1;
                            continue;
                        }
                        totals[entry_number].add(record.outcome, record.ticks, record.score, record.planner_us);
                        report.played_now += 1;
                        config.progress.games.advance(1);
                        if record.outcome == OutcomeKind::Won {
                            config.progress.won.advance(1);
                        } else {
                            config.progress.not_won.advance(1);
                        }
                    }
                    Ok(None) => report.unfinished += 1,
                    Err(failure) => {
                        report.unfinished += 1;
                        if report.stopped_by.is_none() {
                            error!(error = %failure, "stopping the session");
                            cancel.store(true, Ordering::Relaxed);
                            report.stopped_by = Some(failure);
                        }
                    }
                }
            }
        }
    }
    for (entry, totals) in config.entries.iter().zip(totals) {
        report.overall.merge(&totals);
        report.entries.push(EntryReport {
            name: entry.name.clone(),
            game: entry.player.game(),
            planner: entry.player.planner(),
            totals,
        });
    }
    report.elapsed_us = started.elapsed().as_micros() as u64;
    report
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// Plays one game with `seed` (`tickbot play`): a shutdown ends it as
/// aborted, its replay finalised.
pub async fn play_one<G: Replayable, P: Planner<G>>(
    level: Arc<G::Config>,
    planner: P,
    seed: u64,
    replay: Option<PathBuf>,
    move_budget: Duration,
    ticks: Progress,
    shutdown: impl Future<Output = ()>,
) -> Result<GameRecord, SessionError> {
    let cancel = Arc::new(AtomicBool::new(false));
    let job = GameJob {
        entry: G::NAME.to_string(),
        index: 0,
        seed,
        replay_path: replay,
        keep: Keep::Always,
        move_budget,
        cancel: Arc::clone(&cancel),
        record_interrupted: true,
        ticks,
        disk_used: Arc::default(),
    };
    let game = play_game::<G, P>(level, String::new(), planner, job);
    tokio::pin!(game);
    tokio::pin!(shutdown);
    let result = tokio::select! {
        result = &mut game => result,
        () = &mut shutdown => {
            cancel.store(true, Ordering::Relaxed);
            game.await
        }
    };
    result.map(|record| record.expect("an interrupted single game is recorded"))
}

/// Which games keep their replay (`None`: not this one).
fn keep_rule(policy: ReplayPolicy, seed: u64) -> Option<Keep> {
    match policy {
        ReplayPolicy::All => Some(Keep::Always),
        ReplayPolicy::Failures => Some(Keep::UnlessWon),
        ReplayPolicy::None => None,
        ReplayPolicy::Sample(share) => {
            // A draw of its own from the game's seed: the same games are
            // sampled however often the session runs.
            let draw = derive_seed(seed, SAMPLE_STREAM) as f64 / 2f64.powi(64);
            (draw < share).then_some(Keep::Always)
        }
    }
}

/// Salt of the replay-sampling draw, apart from any draw a game makes.
const SAMPLE_STREAM: u64 = 0x7265_706c_6179;

/// Where game `index` of `entry` keeps its replay under a replay folder.
pub fn replay_path(dir: &Path, entry: &str, index: u64) -> PathBuf {
    dir.join(entry).join(format!("{index:06}.tbr"))
}

fn directory_bytes(dir: &Path) -> u64 {
    let mut bytes = 0;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            match entry.metadata() {
                Ok(metadata) if metadata.is_dir() => pending.push(entry.path()),
                Ok(metadata) => bytes += metadata.len(),
                Err(_) => {}
            }
        }
    }
    bytes
}

/// When a written replay is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keep {
    Always,
    /// Deleted when the game is won.
    UnlessWon,
}

/// One game to play.
#[derive(Debug)]
pub struct GameJob {
    entry: String,
    index: u64,
    seed: u64,
    replay_path: Option<PathBuf>,
    keep: Keep,
    move_budget: Duration,
    cancel: Arc<AtomicBool>,
    /// A game stopped by `cancel` is recorded as aborted (one game played
    /// alone), not dropped (a session, which plays it again on resume).
    record_interrupted: bool,
    ticks: Progress,
    disk_used: Arc<AtomicU64>,
}

/// How the loop of one game ended.
enum Ending {
    Over(Outcome),
    /// Stopped by the session; kept only if `record_interrupted`.
    Interrupted(Outcome),
}

/// The text of a panic's payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// Plays one game to its end (or until cancelled), recording it.
async fn play_game<G: Replayable, P: Planner<G>>(
    level: Arc<G::Config>,
    level_name: String,
    mut planner: P,
    job: GameJob,
) -> GameResult {
    let started = Instant::now();
    let planner_name = planner.name();
    let mut game = G::new(&level, job.seed);
    let id = game_id(&job.entry, job.index);
    info!(target: GAME_EVENTS, game = G::NAME, id = %id, seed = job.seed, planner = planner_name, "game_start");
    let header = Header::new::<G>(&level, job.seed, &planner);
    let replay_error = |path: &Path, cause| SessionError::Replay { path: path.to_path_buf(), cause };
    let mut replay = match &job.replay_path {
        Some(path) => Some(ReplayFile::create(path, &header).map_err(|cause| {
            remove_part(path);
            replay_error(path, cause)
        })?),
        None => None,
    };
    // Kept outside `game`, which is away on the blocking pool while a
    // planner runs and is lost if that planner overruns its budget.
    let mut last_hash = header.initial_hash;
    let mut ticks = game.tick();
    let mut score = game.score();
    let mut planner_time = Duration::ZERO;
    let fault = |kind: OutcomeKind, reason: String| Ending::Over(Outcome::new(kind, reason));
    let ending = loop {
        let tick = ticks;
        if let Status::Over(outcome) = game.status() {
            break Ending::Over(outcome);
        }
        if job.cancel.load(Ordering::Relaxed) {
            break Ending::Interrupted(Outcome::new(
                OutcomeKind::Aborted,
                format!("interrupted before tick {}", tick + 1),
            ));
        }
        let budget = Budget::new(Some(Instant::now() + job.move_budget), Some(Arc::clone(&job.cancel)));
        let planning = tokio::task::spawn_blocking(move || {
            let plan_started = Instant::now();
            let decision =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| planner.next_action(&game, &budget)));
            (planner, game, decision, plan_started.elapsed())
        });
        // A planner that ignores its budget keeps its blocking thread, but
        // the game is ended here, a little after the budget, all the same.
        let grace = job.move_budget / 10 + Duration::from_millis(100);
        let (returned_planner, returned_game, decision, plan_elapsed) =
            match tokio::time::timeout(job.move_budget + grace, planning).await {
                Ok(Ok(returned)) => returned,
                Ok(Err(join_error)) => {
                    break fault(OutcomeKind::Panic, format!("planner task failed at tick {}: {join_error}", tick + 1));
                }
                Err(_) => break fault(OutcomeKind::Timeout, over_budget_reason(job.move_budget, tick)),
            };
        planner = returned_planner;
        game = returned_game;
        planner_time += plan_elapsed;
        let decision = match decision {
            Ok(Ok(decision)) => decision,
            Ok(Err(PlanError::OutOfTime)) => {
                break fault(OutcomeKind::Timeout, over_budget_reason(job.move_budget, tick));
            }
            Ok(Err(PlanError::Cancelled)) => {
                break Ending::Interrupted(Outcome::new(
                    OutcomeKind::Aborted,
                    format!("interrupted while planning tick {}", tick + 1),
                ));
            }
            Ok(Err(error)) => break fault(OutcomeKind::Aborted, format!("at tick {}: {error}", tick + 1)),
            Err(payload) => {
                let message = panic_message(payload.as_ref());
                break fault(OutcomeKind::Panic, format!("planner panicked at tick {}: {message}", tick + 1));
            }
        };
        if let Some(stats) = decision.planned {
            debug!(
                id = %id,
                planner = planner_name,
                tick,
                kind = stats.kind,
                nodes = stats.nodes,
                distinct = stats.distinct,
                plan_len = stats.plan_len,
                first_solution_us = stats.first_solution_us,
                lower_bound = stats.lower_bound,
                elapsed_us = plan_elapsed.as_micros() as u64,
                "plan"
            );
        }
        if let Err(illegal) = game.step(decision.action) {
            warn!(id = %id, error = %illegal, "planner chose an illegal action");
            break fault(
                OutcomeKind::Illegal,
                format!("planner chose an illegal action at tick {}: {illegal}", tick + 1),
            );
        }
        last_hash = game.state_hash();
        ticks = game.tick();
        score = game.score();
        job.ticks.advance(1);
        if let Some(file) = &mut replay {
            // Buffered: a syscall every few hundred frames, cheap enough to
            // do on the runtime thread.
            let frame = Frame { action: G::action_code(decision.action), hash: FrameHash::Full(last_hash) };
            if let Err(cause) = file.frame(frame) {
                let path = file.path().to_path_buf();
                drop(replay);
                remove_part(&path);
                return Err(replay_error(&path, cause));
            }
        }
    };
    let outcome = match ending {
        Ending::Over(outcome) => outcome,
        Ending::Interrupted(outcome) if job.record_interrupted => outcome,
        Ending::Interrupted(_) => {
            if let Some(file) = replay {
                let path = file.path().to_path_buf();
                drop(file);
                remove_part(&path);
            }
            info!(id = %id, "game_stopped");
            return Ok(None);
        }
    };
    let keep = job.keep == Keep::Always || outcome.kind != OutcomeKind::Won;
    let footer = Footer { outcome: outcome.clone(), ticks, final_hash: last_hash };
    let replay_written = match replay {
        Some(file) if keep => {
            let path = file.path().to_path_buf();
            let finished = tokio::task::spawn_blocking(move || file.finish(footer)).await;
            let finished = finished.map_err(|error| SessionError::Task(error.to_string()))?;
            match finished {
                Ok(path) => {
                    let bytes = std::fs::metadata(&path).map_or(0, |metadata| metadata.len());
                    job.disk_used.fetch_add(bytes, Ordering::Relaxed);
                    Some(path)
                }
                Err(cause) => {
                    remove_part(&path);
                    return Err(replay_error(&path, cause));
                }
            }
        }
        Some(file) => {
            let path = file.path().to_path_buf();
            drop(file);
            remove_part(&path);
            None
        }
        None => None,
    };
    let record = GameRecord {
        id,
        entry: job.entry,
        index: job.index,
        seed: job.seed,
        game: G::NAME,
        level: level_name,
        planner: planner_name,
        outcome: outcome.kind,
        reason: outcome.reason,
        ticks,
        score,
        planner_us: planner_time.as_micros() as u64,
        elapsed_us: started.elapsed().as_micros() as u64,
        replay: replay_written,
    };
    info!(
        target: GAME_EVENTS,
        game = G::NAME,
        id = %record.id,
        seed = record.seed,
        planner = planner_name,
        outcome = %record.outcome,
        reason = %record.reason,
        ticks = record.ticks,
        score = record.score,
        planner_us = record.planner_us,
        elapsed_us = record.elapsed_us,
        "game_end"
    );
    Ok(Some(record))
}

/// Deletes the `.part` file of an unfinished replay: nothing half-written
/// is left behind.
fn remove_part(path: &Path) {
    let mut part = path.as_os_str().to_owned();
    part.push(".part");
    let _ = std::fs::remove_file(PathBuf::from(part));
}

fn over_budget_reason(budget: Duration, tick: u32) -> String {
    format!("planner exceeded its move budget of {} ms at tick {}", budget.as_millis(), tick + 1)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::game::snake::{Config, Dir, SnakeGame, SnakeSetup};
    use crate::plan::Decision;

    /// How a test planner misbehaves.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Misbehaviour {
        None,
        /// Panics at its third move.
        Panic,
        /// Sleeps through its budget (and the grace after it) at its third
        /// move, ignoring it.
        Overrun,
        /// Walks into the wall it faces at its third move.
        Illegal,
    }

    /// Walks right (down at the wall) forever, sleeping `delay` per move.
    struct Walker {
        delay: Duration,
        moves: u32,
        misbehaviour: Misbehaviour,
    }

    fn walker(delay_ms: u64) -> Walker {
        Walker { delay: Duration::from_millis(delay_ms), moves: 0, misbehaviour: Misbehaviour::None }
    }

    impl Planner<SnakeGame> for Walker {
        fn name(&self) -> &'static str {
            "walker"
        }
        fn params(&self) -> Vec<(String, String)> {
            vec![("delay_ms".into(), self.delay.as_millis().to_string())]
        }
        fn next_action(&mut self, game: &SnakeGame, budget: &Budget) -> Result<Decision<Dir>, PlanError> {
            self.moves += 1;
            std::thread::sleep(self.delay);
            if self.moves == 3 {
                match self.misbehaviour {
                    Misbehaviour::None => {}
                    Misbehaviour::Panic => panic!("walker fell over"),
                    Misbehaviour::Overrun => std::thread::sleep(Duration::from_millis(3000)),
                    Misbehaviour::Illegal => return Ok(Decision { action: Dir::Left, planned: None }),
                }
            }
            if let Some(error) = budget.exhausted() {
                return Err(error);
            }
            let action = if game.is_legal(Dir::Right) { Dir::Right } else { Dir::Down };
            Ok(Decision { action, planned: None })
        }
    }

    /// A corridor: walking right, the snake reaches the far wall after about
    /// `width` ticks.
    fn level(width: u16) -> Arc<Config> {
        Arc::new(Config::try_from(SnakeSetup::open(width, 1)).unwrap())
    }

    fn entry(name: &str, games: u64, width: u16, make: impl Fn() -> Walker + Send + Sync + 'static) -> Entry {
        let levels = vec![(format!("open {width}x1"), level(width))];
        Entry {
            name: name.into(),
            weight: games,
            games: Some(games),
            player: GameEntry::player(levels, move |_: &Config| make()),
        }
    }

    fn config(entries: Vec<Entry>, move_budget: Duration) -> SessionConfig {
        SessionConfig {
            entries,
            master_seed: 9,
            max_games: None,
            duration: None,
            jobs: 2,
            move_budget,
            replays: ReplayPolicy::All,
            disk_budget: None,
            progress: SessionProgress::default(),
            shard: Shard::WHOLE,
        }
    }

    fn open(dir: &Path) -> (SessionDir, ResultsFile, Recovered) {
        let held = SessionDir::lock(dir).unwrap();
        let (results, recovered) = ResultsFile::open(&held.results_path()).unwrap();
        (held, results, recovered)
    }

    fn lines(path: &Path) -> Vec<serde_json::Value> {
        let text = std::fs::read_to_string(path).unwrap();
        text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn planner_faults_are_outcomes_and_the_other_games_go_on() {
        // The budget is wide, so that on a loaded machine neither a panic's
        // backtrace (slow where RUST_BACKTRACE is set) nor a walker's move is
        // over it: only the overrun, which sleeps well past budget and grace.
        let dir = tempfile::tempdir().unwrap();
        let faulty = |misbehaviour| move || Walker { misbehaviour, ..walker(0) };
        let entries = vec![
            entry("panic", 1, 20, faulty(Misbehaviour::Panic)),
            entry("overrun", 1, 20, faulty(Misbehaviour::Overrun)),
            entry("illegal", 1, 20, faulty(Misbehaviour::Illegal)),
            entry("fine", 3, 20, || walker(0)),
        ];
        let (held, results, recovered) = open(dir.path());
        let report =
            run(config(entries, Duration::from_secs(2)), Some((&held, results, recovered)), std::future::pending())
                .await;
        assert!(report.stopped_by.is_none(), "{:?}", report.stopped_by);
        let totals = |name: &str| report.entries.iter().find(|entry| entry.name == name).unwrap().totals.clone();
        assert_eq!((totals("panic").panic, totals("overrun").timeout, totals("illegal").illegal), (1, 1, 1));
        assert_eq!(totals("fine").lost, 3, "the corridor's far wall ends the others");
        let mut by_id: Vec<_> = lines(&held.results_path());
        by_id.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
        let outcome = |id: &str| by_id.iter().find(|line| line["id"] == id).unwrap().clone();
        let panic = outcome("panic/000000");
        assert_eq!(panic["outcome"], "panic");
        assert!(panic["reason"].as_str().unwrap().contains("walker fell over"), "{panic}");
        assert!(outcome("overrun/000000")["reason"].as_str().unwrap().contains("move budget of 2000 ms at tick 3"));
        let illegal = outcome("illegal/000000");
        assert!(illegal["reason"].as_str().unwrap().contains("illegal action at tick 3"), "{illegal}");
        // Each fault's replay is kept up to the tick before it, and verifies.
        for id in ["panic/000000", "overrun/000000", "illegal/000000"] {
            let line = outcome(id);
            assert_eq!(line["ticks"], 2, "{line}");
            let bytes = std::fs::read(line["replay"].as_str().unwrap()).unwrap();
            let replay = crate::replay::decode(&bytes).unwrap();
            let reproduced = crate::replay::verify(&replay).unwrap();
            assert_eq!(reproduced.outcome.kind.to_string(), line["outcome"].as_str().unwrap());
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn shutdown_stops_running_games_unrecorded_and_a_resume_ends_as_an_uninterrupted_run() {
        let whole = tempfile::tempdir().unwrap();
        let make = || vec![entry("a", 5, 40, || walker(1)), entry("b", 4, 30, || walker(1))];
        let (held, results, recovered) = open(whole.path());
        let report =
            run(config(make(), Duration::from_secs(5)), Some((&held, results, recovered)), std::future::pending())
                .await;
        assert_eq!(report.overall.games, 9);
        drop(held);

        let parts = tempfile::tempdir().unwrap();
        let (held, results, recovered) = open(parts.path());
        // Shut down once the first game is recorded: an event, not a clock,
        // so a loaded machine cannot make the shutdown come before any game
        // started or after every game ended.
        let results_path = held.results_path();
        let shutdown = async move {
            while std::fs::read(&results_path).map_or(0, |bytes| bytes.iter().filter(|&&b| b == b'\n').count()) == 0 {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        };
        let report = run(config(make(), Duration::from_secs(5)), Some((&held, results, recovered)), shutdown).await;
        assert!(report.interrupted && report.unfinished > 0, "{report:?}");
        assert!(held.remove_unfinished_replays().unwrap() == 0, "no .part is left behind");
        let (results, recovered) = ResultsFile::open(&held.results_path()).unwrap();
        let report =
            run(config(make(), Duration::from_secs(5)), Some((&held, results, recovered)), std::future::pending())
                .await;
        assert_eq!(report.overall.games, 9, "totals cover the games recorded before the resume too");
        let key = |dir: &Path| {
            let mut lines: Vec<_> = lines(&dir.join(store::RESULTS_FILE))
                .into_iter()
                .map(|mut line| {
                    let object = line.as_object_mut().unwrap();
                    object.remove("planner_us");
                    object.remove("elapsed_us");
                    let replay = object.remove("replay").unwrap();
                    let replay = std::fs::read(replay.as_str().unwrap()).unwrap();
                    (line.to_string(), replay)
                })
                .collect();
            lines.sort();
            lines
                .into_iter()
                .map(|(line, replay)| (line.replace(&dir.display().to_string(), ""), replay))
                .collect::<Vec<_>>()
        };
        assert_eq!(key(whole.path()), key(parts.path()));
    }

    /// `/dev/full` accepts the open and fails every write with "no space left
    /// on device": a results file on a full disk.
    #[cfg(target_os = "linux")]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_results_file_that_cannot_be_written_stops_the_session_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        let held = SessionDir::lock(dir.path()).unwrap();
        let (results, recovered) = ResultsFile::open(Path::new("/dev/full")).unwrap();
        let report = run(
            config(vec![entry("a", 20, 60, || walker(1))], Duration::from_secs(5)),
            Some((&held, results, recovered)),
            std::future::pending(),
        )
        .await;
        assert!(matches!(report.stopped_by, Some(SessionError::Results { .. })), "{:?}", report.stopped_by);
        assert_eq!(report.overall.games, 0, "no line was written, so none is counted");
        // The game whose line failed and at most the one beside it: nothing
        // was started after the failure; their replays are kept (finished) or
        // gone (stopped), never left as .part.
        assert!(report.unfinished <= 2, "{report:?}");
        let names: Vec<PathBuf> = files(&held.replay_dir());
        assert!(names.iter().all(|name| name.extension().is_some_and(|extension| extension == "tbr")), "{names:?}");
    }

    pub(crate) fn files(dir: &Path) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut pending = vec![dir.to_path_buf()];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                if entry.path().is_dir() {
                    pending.push(entry.path());
                } else {
                    found.push(entry.path());
                }
            }
        }
        found
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_shard_plays_exactly_its_games_and_counts_only_them() {
        let mut session =
            config(vec![entry("a", 5, 8, || walker(0)), entry("b", 4, 8, || walker(0))], Duration::from_secs(5));
        session.shard = Shard::new(1, 3).unwrap();
        let progress = session.progress.games.clone();
        let dir = tempfile::tempdir().unwrap();
        let (held, results, recovered) = open(dir.path());
        let report = run(session, Some((&held, results, recovered)), std::future::pending()).await;
        let mut ids: Vec<String> =
            lines(&held.results_path()).iter().map(|line| line["id"].as_str().unwrap().to_string()).collect();
        ids.sort();
        assert_eq!(ids, ["a/000001", "a/000004", "b/000001"]);
        assert_eq!((report.overall.games, progress.total(), progress.done()), (3, 3, 3));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_planner_over_its_budget_ends_its_game_as_a_timeout() {
        let report = run(
            config(vec![entry("slow", 1, 30, || walker(30))], Duration::from_millis(5)),
            None,
            std::future::pending(),
        )
        .await;
        assert_eq!(report.overall.timeout, 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_session_stops_starting_games_at_its_duration() {
        let mut session = config(vec![entry("long", 1000, 30, || walker(2))], Duration::from_secs(5));
        session.duration = Some(Duration::from_millis(150));
        let report = run(session, None, std::future::pending()).await;
        assert!(report.timed_out && !report.interrupted);
        assert!(report.overall.games > 0 && report.overall.games < 1000, "{report:?}");
        assert_eq!(report.unfinished, 0, "running games finish when the duration is over");
    }
}
