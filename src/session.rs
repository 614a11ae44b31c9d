//! The session runner: the only async module. It plays games as tokio
//! tasks with bounded concurrency, sends planning (CPU work) to the blocking
//! pool under a per-move budget, writes each game's replay durably, appends
//! one JSON line per finished game to the results file, and on shutdown
//! stops starting games and cleanly aborts the running ones. A results file
//! that cannot be written stops the session the same way: the games already
//! running are finished as aborted and their replays finalised, so nothing
//! is left half-written.

use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::io::AsyncWriteExt;
use tokio::task::JoinSet;
use tracing::{debug, error, info, warn};

use crate::game::{Game, Outcome, OutcomeKind, Status};
use crate::plan::{Budget, PlanError, Planner};
use crate::progress::Progress;
use crate::replay::{Footer, Frame, FrameHash, Header, ReplayFile};
use crate::rng::derive_seed;

/// What to play and where to put it.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    pub games: u64,
    pub seeding: Seeding,
    /// Games played at once.
    pub jobs: usize,
    pub replays: ReplayTarget,
    /// Where each finished game's JSON line is appended, if anywhere.
    pub results_path: Option<PathBuf>,
    /// The longest one planner call may take before its game is aborted.
    pub move_budget: Duration,
    /// Counts finished games and played ticks as they happen, for a progress display.
    pub progress: SessionProgress,
}

/// The counters a session advances while it runs.
#[derive(Clone, Debug, Default)]
pub struct SessionProgress {
    /// Games finished (its total is set to the games asked for).
    pub games: Progress,
    /// Ticks played, over all games.
    pub ticks: Progress,
}

/// How each game's seed is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seeding {
    /// Game `i` gets `derive_seed(master, i)`: independent of scheduling.
    Derived { master: u64 },
    /// Every game gets this seed (used to play one chosen game).
    Exact(u64),
}

/// Where replays go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayTarget {
    None,
    /// One file per game, `<dir>/<game>-<index>.tbr`.
    Dir(PathBuf),
    /// Exactly this file (a session of one game).
    File(PathBuf),
}

impl Seeding {
    pub(crate) fn seed_of(self, index: u64) -> u64 {
        match self {
            Seeding::Derived { master } => derive_seed(master, index),
            Seeding::Exact(seed) => seed,
        }
    }
}

/// One finished game: the line appended to the results file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameRecord {
    pub index: u64,
    pub seed: u64,
    pub game: &'static str,
    pub planner: &'static str,
    pub outcome: OutcomeKind,
    pub reason: String,
    pub ticks: u32,
    pub score: i64,
    pub elapsed_us: u64,
    pub replay: Option<PathBuf>,
}

/// What a session did: its totals, every finished game in index order, the
/// games that failed for a reason outside the game, and the error that
/// stopped the whole session, if one did.
#[derive(Debug)]
pub struct SessionReport {
    pub summary: Summary,
    pub records: Vec<GameRecord>,
    pub failures: Vec<SessionError>,
    /// The results file could not be written: no game was started after it,
    /// and the games finished after it are counted but not in the file.
    pub stopped_by: Option<SessionError>,
}

/// Totals over the games a session finished.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub games_finished: u64,
    pub won: u64,
    pub lost: u64,
    pub stalled: u64,
    pub aborted: u64,
    pub total_ticks: u64,
    pub total_score: i64,
    /// The best score of any finished game; 0 before the first.
    pub best_score: i64,
    /// The session was stopped by a shutdown signal.
    pub interrupted: bool,
    pub elapsed_us: u64,
}

/// Why a session (or one of its games) failed outside the game's rules.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("replay {path}: {cause}")]
    Replay { path: PathBuf, cause: io::Error },
    #[error("results file {path}: {cause}")]
    Results { path: PathBuf, cause: io::Error },
    #[error("a game task failed: {0}")]
    Task(String),
    #[error("a session with one replay file must play exactly one game")]
    OneFileManyGames,
}

/// Plays `config.games` games of `G` on `level`, each with a fresh planner
/// from `make_planner`, until all are done or `shutdown` resolves. A game
/// that fails (its replay cannot be written, say) is reported and the others
/// go on; a results file that cannot be written stops the session cleanly
/// ([`SessionReport::stopped_by`]). Errs only when the results file cannot
/// be opened at all.
pub async fn run<G, P>(
    level: Arc<G::Config>,
    make_planner: impl Fn() -> P,
    config: SessionConfig,
    shutdown: impl Future<Output = ()>,
) -> Result<SessionReport, SessionError>
where
    G: Game,
    P: Planner<G>,
{
    if matches!(config.replays, ReplayTarget::File(_)) && config.games != 1 {
        return Err(SessionError::OneFileManyGames);
    }
    let started = Instant::now();
    let cancel = Arc::new(AtomicBool::new(false));
    let mut results = match &config.results_path {
        Some(path) => Some(ResultsFile::open(path).await?),
        None => None,
    };
    let mut summary = Summary::default();
    let mut records = Vec::new();
    let mut failures = Vec::new();
    let mut stopped_by = None;
    config.progress.games.set_total(config.games);
    let mut tasks = JoinSet::new();
    let mut next_index = 0u64;
    let jobs = config.jobs.max(1);
    tokio::pin!(shutdown);
    loop {
        while !summary.interrupted && stopped_by.is_none() && tasks.len() < jobs && next_index < config.games {
            let index = next_index;
            next_index += 1;
            let job = GameJob {
                index,
                seed: config.seeding.seed_of(index),
                replay_path: replay_path(&config.replays, G::NAME, index),
                move_budget: config.move_budget,
                cancel: Arc::clone(&cancel),
                ticks: config.progress.ticks.clone(),
            };
            tasks.spawn(play_game::<G, P>(Arc::clone(&level), make_planner(), job));
        }
        if tasks.is_empty() {
            break;
        }
        tokio::select! {
            () = &mut shutdown, if !summary.interrupted => {
                summary.interrupted = true;
                cancel.store(true, Ordering::Relaxed);
                warn!(running = tasks.len(), "interrupted: starting no more games, aborting the running ones");
            }
            Some(joined) = tasks.join_next() => {
                let outcome = joined.map_err(|error| SessionError::Task(error.to_string()));
                match outcome.and_then(|result| result) {
                    Ok(record) => {
                        if let (Some(file), None) = (&mut results, &stopped_by) {
                            if let Err(failure) = file.append(&record).await {
                                error!(error = %failure, "cannot write the results file: stopping the session");
                                cancel.store(true, Ordering::Relaxed);
                                stopped_by = Some(failure);
                            }
                        }
                        config.progress.games.advance(1);
                        summary.add(&record);
                        records.push(record);
                    }
                    Err(failure) => {
                        error!(error = %failure, "game failed");
                        failures.push(failure);
                    }
                }
            }
        }
    }
    records.sort_by_key(|record| record.index);
    summary.elapsed_us = started.elapsed().as_micros() as u64;
    Ok(SessionReport { summary, records, failures, stopped_by })
}

impl Summary {
    /// The mean score of the finished games; 0 before the first.
    pub fn mean_score(&self) -> f64 {
        self.total_score as f64 / self.games_finished.max(1) as f64
    }

    fn add(&mut self, record: &GameRecord) {
        self.best_score = if self.games_finished == 0 { record.score } else { self.best_score.max(record.score) };
        self.games_finished += 1;
        match record.outcome {
            OutcomeKind::Won => self.won += 1,
            OutcomeKind::Lost => self.lost += 1,
            OutcomeKind::Stalled => self.stalled += 1,
            OutcomeKind::Aborted => self.aborted += 1,
        }
        self.total_ticks += u64::from(record.ticks);
        self.total_score += record.score;
    }
}

fn replay_path(target: &ReplayTarget, game: &str, index: u64) -> Option<PathBuf> {
    match target {
        ReplayTarget::None => None,
        ReplayTarget::Dir(dir) => Some(dir.join(format!("{game}-{index:04}.tbr"))),
        ReplayTarget::File(path) => Some(path.clone()),
    }
}

struct GameJob {
    index: u64,
    seed: u64,
    replay_path: Option<PathBuf>,
    move_budget: Duration,
    cancel: Arc<AtomicBool>,
    ticks: Progress,
}

/// Plays one game to its end (or until cancelled), recording it.
async fn play_game<G: Game, P: Planner<G>>(
    level: Arc<G::Config>,
    mut planner: P,
    job: GameJob,
) -> Result<GameRecord, SessionError> {
    let started = Instant::now();
    let planner_name = planner.name();
    let mut game = G::new(&level, job.seed);
    info!(game = G::NAME, index = job.index, seed = job.seed, planner = planner_name, "game_start");
    let header = Header::new::<G>(&level, job.seed, &planner);
    let replay_error = |path: &Path, cause| SessionError::Replay { path: path.to_path_buf(), cause };
    let mut replay = match &job.replay_path {
        Some(path) => Some(ReplayFile::create(path, &header).map_err(|cause| replay_error(path, cause))?),
        None => None,
    };
    // Kept outside `game`, which is away on the blocking pool while a
    // planner runs and is lost if that planner overruns its budget.
    let mut last_hash = header.initial_hash;
    let mut ticks = game.tick();
    let mut score = game.score();
    let outcome = loop {
        let tick = ticks;
        if let Status::Over(outcome) = game.status() {
            break outcome;
        }
        if job.cancel.load(Ordering::Relaxed) {
            break Outcome::new(OutcomeKind::Aborted, format!("interrupted before tick {}", tick + 1));
        }
        let budget = Budget::new(Some(Instant::now() + job.move_budget), Some(Arc::clone(&job.cancel)));
        let planning = tokio::task::spawn_blocking(move || {
            let plan_started = Instant::now();
            let decision = planner.next_action(&game, &budget);
            (planner, game, decision, plan_started.elapsed())
        });
        // A planner that ignores its budget keeps its blocking thread, but
        // the game is ended here, a little after the budget, all the same.
        let grace = job.move_budget / 10 + Duration::from_millis(100);
        let (returned_planner, returned_game, decision, plan_elapsed) =
            match tokio::time::timeout(job.move_budget + grace, planning).await {
                Ok(Ok(returned)) => returned,
                Ok(Err(join_error)) => {
                    break Outcome::new(
                        OutcomeKind::Aborted,
                        format!("planner crashed at tick {}: {join_error}", tick + 1),
                    );
                }
                Err(_) => {
                    break Outcome::new(OutcomeKind::Aborted, over_budget_reason(job.move_budget, tick));
                }
            };
        planner = returned_planner;
        game = returned_game;
        let decision = match decision {
            Ok(decision) => decision,
            Err(PlanError::OutOfTime) => {
                break Outcome::new(OutcomeKind::Aborted, over_budget_reason(job.move_budget, tick));
            }
            Err(PlanError::Cancelled) => {
                break Outcome::new(OutcomeKind::Aborted, format!("interrupted while planning tick {}", tick + 1));
            }
            Err(error) => break Outcome::new(OutcomeKind::Aborted, format!("at tick {}: {error}", tick + 1)),
        };
        if let Some(stats) = decision.planned {
            debug!(
                index = job.index,
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
            error!(index = job.index, error = %illegal, "planner chose an illegal action");
            break Outcome::new(OutcomeKind::Aborted, format!("planner chose an illegal action: {illegal}"));
        }
        last_hash = game.state_hash();
        ticks = game.tick();
        score = game.score();
        job.ticks.advance(1);
        if let Some(file) = &mut replay {
            // Buffered: a syscall every few hundred frames, cheap enough to
            // do on the runtime thread.
            let frame = Frame { action: G::action_code(decision.action), hash: FrameHash::Full(last_hash) };
            file.frame(frame).map_err(|cause| replay_error(file.path(), cause))?;
        }
    };
    let footer = Footer { outcome: outcome.clone(), ticks, final_hash: last_hash };
    let replay_written = match replay {
        Some(file) => {
            let path = file.path().to_path_buf();
            let finished = tokio::task::spawn_blocking(move || file.finish(footer)).await;
            let finished = finished.map_err(|error| SessionError::Task(error.to_string()))?;
            Some(finished.map_err(|cause| replay_error(&path, cause))?)
        }
        None => None,
    };
    let record = GameRecord {
        index: job.index,
        seed: job.seed,
        game: G::NAME,
        planner: planner_name,
        outcome: outcome.kind,
        reason: outcome.reason,
        ticks,
        score,
        elapsed_us: started.elapsed().as_micros() as u64,
        replay: replay_written,
    };
    info!(
        game = G::NAME,
        index = record.index,
        seed = record.seed,
        planner = planner_name,
        outcome = %record.outcome,
        reason = %record.reason,
        ticks = record.ticks,
        score = record.score,
        elapsed_us = record.elapsed_us,
        "game_end"
    );
    Ok(record)
}

fn over_budget_reason(budget: Duration, tick: u32) -> String {
    format!("planner exceeded its move budget of {} ms at tick {}", budget.as_millis(), tick + 1)
}

/// The results file: one JSON line per finished game, each synced to disk
/// before the next game is counted, so a crash loses at most the line being
/// written and every line in the file parses.
struct ResultsFile {
    file: tokio::fs::File,
    path: PathBuf,
}

impl ResultsFile {
    async fn open(path: &Path) -> Result<ResultsFile, SessionError> {
        let error = |cause| SessionError::Results { path: path.to_path_buf(), cause };
        if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
            tokio::fs::create_dir_all(parent).await.map_err(error)?;
        }
        let file = tokio::fs::OpenOptions::new().create(true).append(true).open(path).await.map_err(error)?;
        Ok(ResultsFile { file, path: path.to_path_buf() })
    }

    async fn append(&mut self, record: &GameRecord) -> Result<(), SessionError> {
        let mut line = serde_json::to_vec(record)
            .map_err(|error| io::Error::other(error.to_string()))
            .map_err(|cause| SessionError::Results { path: self.path.clone(), cause })?;
        line.push(b'\n');
        let error = |cause| SessionError::Results { path: self.path.clone(), cause };
        self.file.write_all(&line).await.map_err(error)?;
        self.file.sync_data().await.map_err(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::snake::{Config, Dir, SnakeGame, SnakeSetup};
    use crate::plan::Decision;

    /// Walks right forever, sleeping `delay` per move, honouring its budget.
    struct SlowWalker {
        delay: Duration,
    }

    impl Planner<SnakeGame> for SlowWalker {
        fn name(&self) -> &'static str {
            "slow-walker"
        }
        fn params(&self) -> Vec<(String, String)> {
            vec![("delay_ms".into(), self.delay.as_millis().to_string())]
        }
        fn next_action(&mut self, game: &SnakeGame, budget: &Budget) -> Result<Decision<Dir>, PlanError> {
            std::thread::sleep(self.delay);
            if let Some(error) = budget.exhausted() {
                return Err(error);
            }
            let action = if game.is_legal(Dir::Right) { Dir::Right } else { Dir::Down };
            Ok(Decision { action, planned: None })
        }
    }

    /// A corridor: walking right, the snake reaches the far wall after
    /// about `width` ticks.
    fn level(width: u16) -> Arc<Config> {
        Arc::new(Config::try_from(SnakeSetup::open(width, 1)).unwrap())
    }

    fn config(games: u64, move_budget: Duration) -> SessionConfig {
        SessionConfig {
            games,
            seeding: Seeding::Derived { master: 9 },
            jobs: 2,
            replays: ReplayTarget::None,
            results_path: None,
            move_budget,
            progress: SessionProgress::default(),
        }
    }

    /// `/dev/full` accepts the open and fails every write with "no space
    /// left on device": a results file on a full disk.
    #[cfg(target_os = "linux")]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_results_file_that_cannot_be_written_stops_the_session_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        let session = SessionConfig {
            results_path: Some(PathBuf::from("/dev/full")),
            replays: ReplayTarget::Dir(dir.path().join("replays")),
            ..config(20, Duration::from_secs(5))
        };
        let planner = || SlowWalker { delay: Duration::from_millis(1) };
        let report = run::<SnakeGame, _>(level(60), planner, session, std::future::pending()).await.unwrap();
        assert!(matches!(report.stopped_by, Some(SessionError::Results { .. })), "{:?}", report.stopped_by);
        // The game whose line failed, and at most the one running beside it:
        // nothing was started after the failure.
        assert!(!report.records.is_empty() && report.records.len() <= 2, "{:?}", report.records);
        let names: Vec<String> = std::fs::read_dir(dir.path().join("replays"))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|name| name.ends_with(".tbr")), "unfinished replays left: {names:?}");
        assert_eq!(names.len(), report.records.len());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_planner_over_its_budget_aborts_its_game() {
        let planner = || SlowWalker { delay: Duration::from_millis(30) };
        let SessionReport { summary, records, .. } =
            run::<SnakeGame, _>(level(30), planner, config(1, Duration::from_millis(5)), std::future::pending())
                .await
                .unwrap();
        assert_eq!(summary.aborted, 1);
        assert!(records[0].reason.contains("exceeded its move budget of 5 ms at tick 1"), "{}", records[0].reason);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn shutdown_aborts_running_games_and_starts_no_more() {
        let planner = || SlowWalker { delay: Duration::from_millis(2) };
        let shutdown = tokio::time::sleep(Duration::from_millis(50));
        let SessionReport { summary, records, .. } =
            run::<SnakeGame, _>(level(200), planner, config(50, Duration::from_secs(5)), shutdown).await.unwrap();
        assert!(summary.interrupted);
        // Only the first `jobs` games were ever started, and both were aborted.
        assert_eq!(records.iter().map(|record| record.index).collect::<Vec<_>>(), [0, 1]);
        assert!(records.iter().all(|record| record.outcome == OutcomeKind::Aborted), "{records:?}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn results_file_gets_one_line_per_game() {
        let dir = std::env::temp_dir().join(format!("tickbot-session-{}", std::process::id()));
        let results_path = dir.join("results.jsonl");
        let _ = std::fs::remove_file(&results_path);
        let session = SessionConfig {
            results_path: Some(results_path.clone()),
            replays: ReplayTarget::Dir(dir.join("replays")),
            ..config(3, Duration::from_secs(5))
        };
        let planner = || SlowWalker { delay: Duration::ZERO };
        let SessionReport { summary, .. } =
            run::<SnakeGame, _>(level(30), planner, session, std::future::pending()).await.unwrap();
        assert_eq!(summary.games_finished, 3);
        let text = std::fs::read_to_string(&results_path).unwrap();
        let lines: Vec<serde_json::Value> = text.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
        assert_eq!(lines.len(), 3);
        assert!(lines.iter().all(|line| line["outcome"] == "lost" && line["planner"] == "slow-walker"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
