//! Running: a session of many games (`run`), its games started in the
//! session's order as tokio tasks with bounded concurrency, each finished
//! game's line appended to the results file and added to the totals, until
//! the games are done, the duration is over, a shutdown comes or a write
//! fails; and one game alone (`play_one`, for `tickbot play`).

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::task::{JoinError, JoinSet};
use tracing::{error, info, warn};

use crate::game::{OutcomeKind, Replayable};
use crate::plan::Planner;
use crate::progress::Progress;
use crate::rng::derive_seed;
use crate::session::entry::Keep;
use crate::session::game::play_game;
use crate::session::store::Recorded;
use crate::session::{
    EntryReport, GameJob, GameRecord, GameResult, Recovered, ReplayPolicy, ResultsFile, Schedule, SessionConfig,
    SessionDir, SessionError, SessionReport, Slot, Totals, game_seed, replay_path,
};

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
    let mut session = Running::new(config, out);
    let deadline = session.config.duration.map(|duration| tokio::time::Instant::now() + duration);
    tokio::pin!(shutdown);
    loop {
        session.start_games();
        if session.tasks.is_empty() {
            break;
        }
        tokio::select! {
            () = &mut shutdown, if !session.report.interrupted => session.interrupt(),
            () = sleep_until(deadline), if !session.report.timed_out && !session.report.interrupted => {
                session.report.timed_out = true;
                info!(running = session.tasks.len(), "the session's duration is over: starting no more games");
            }
            Some(joined) = session.tasks.join_next() => session.finished(joined),
        }
    }
    session.into_report(started)
}

/// A session while it runs: what it plays, what it has recorded, and the
/// games under way.
struct Running {
    config: SessionConfig,
    /// Set to stop the running games (a shutdown, a failed write).
    cancel: Arc<AtomicBool>,
    replay_dir: Option<PathBuf>,
    results: Option<ResultsFile>,
    /// Per entry, the games its results file already records.
    recorded: Vec<Option<Recorded>>,
    /// Per entry, its totals so far (those recorded before a resume included).
    totals: Vec<Totals>,
    schedule: Schedule,
    /// Bytes the kept replays take, for the disk budget.
    disk_used: Arc<AtomicU64>,
    report: SessionReport,
    /// Games played at once.
    jobs: usize,
    /// The running games, each with its entry's number.
    tasks: JoinSet<(usize, GameResult)>,
    /// The session's order has no game left to start.
    exhausted: bool,
}

impl Running {
    fn new(config: SessionConfig, out: Option<(&SessionDir, ResultsFile, Recovered)>) -> Running {
        let (replay_dir, results, recovered, replay_bytes) = match out {
            Some((dir, results, recovered)) => {
                // The walk is only needed where a budget counts the bytes.
                let bytes = config.disk_budget.map(|_| dir.replay_bytes());
                (Some(dir.replay_dir()), Some(results), recovered, bytes)
            }
            None => (None, None, Recovered::default(), None),
        };
        let Recovered { recorded, totals: recovered_totals, .. } = recovered;
        let recorded: Vec<_> = config.entries.iter().map(|entry| recorded.get(&entry.name).cloned()).collect();
        let totals: Vec<Totals> =
            config.entries.iter().map(|entry| recovered_totals.get(&entry.name).cloned().unwrap_or_default()).collect();
        let schedule = Schedule::new(
            config.entries.iter().map(|entry| entry.weight).collect(),
            config.entries.iter().map(|entry| entry.games).collect(),
            config.max_games,
        );
        let already: u64 = recorded.iter().flatten().map(|done| done.count()).sum();
        let shard = config.shard;
        let total =
            schedule.entry_counts().map(|counts| counts.iter().map(|&games| shard.games_of(games)).sum::<u64>());
        config.progress.games.set_total(total.map_or(0, |total| total.saturating_sub(already)));
        let report = SessionReport {
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
        Running {
            jobs: config.jobs.max(1),
            config,
            cancel: Arc::new(AtomicBool::new(false)),
            replay_dir,
            results,
            recorded,
            totals,
            schedule,
            disk_used: Arc::new(AtomicU64::new(replay_bytes.unwrap_or(0))),
            report,
            tasks: JoinSet::new(),
            exhausted: false,
        }
    }

    /// Starts games in the session's order until `jobs` of them run, none
    /// is left, or the session has stopped starting them.
    fn start_games(&mut self) {
        let report = &self.report;
        let starting = !report.interrupted && !report.timed_out && report.stopped_by.is_none();
        while starting && !self.exhausted && self.tasks.len() < self.jobs {
            let Some(slot) = self.schedule.next() else {
                self.exhausted = true;
                break;
            };
            let recorded = self.recorded[slot.entry].as_ref().is_some_and(|done| done.contains(slot.index));
            if !self.config.shard.plays(slot.index) || recorded {
                continue;
            }
            let job = self.job(&slot);
            let game = Arc::clone(&self.config.entries[slot.entry].player).play(job);
            let entry_number = slot.entry;
            self.tasks.spawn(async move { (entry_number, game.await) });
        }
    }

    /// The job of the game in `slot`: its seed, and whether and where it
    /// keeps its replay (none once the disk budget is reached).
    fn job(&mut self, slot: &Slot) -> GameJob {
        let config = &self.config;
        let entry = &config.entries[slot.entry];
        let seed = game_seed(config.master_seed, slot.entry, slot.index);
        let over_budget = config.disk_budget.is_some_and(|budget| self.disk_used.load(Ordering::Relaxed) >= budget);
        if over_budget && !self.report.disk_budget_reached {
            self.report.disk_budget_reached = true;
            warn!(
                budget = config.disk_budget,
                "the replays reached the disk budget: later games keep no replay (results go on)"
            );
        }
        let keep = if over_budget { None } else { keep_rule(config.replays, seed) };
        GameJob {
            entry: entry.name.clone(),
            index: slot.index,
            seed,
            replay_path: keep.and(self.replay_dir.as_ref()).map(|dir| replay_path(dir, &entry.name, slot.index)),
            keep: keep.unwrap_or(Keep::Always),
            move_budget: config.move_budget,
            cancel: Arc::clone(&self.cancel),
            record_interrupted: false,
            ticks: config.progress.ticks.clone(),
            disk_used: Arc::clone(&self.disk_used),
        }
    }

    /// A shutdown: no more games start, and the running ones are stopped.
    fn interrupt(&mut self) {
        self.report.interrupted = true;
        self.cancel.store(true, Ordering::Relaxed);
        warn!(running = self.tasks.len(), "interrupted: starting no more games, stopping the running ones");
    }

    /// A game's task ended: its record is appended and counted, or it is
    /// counted as unfinished; a failure stops the session.
    fn finished(&mut self, joined: Result<(usize, GameResult), JoinError>) {
        let (entry_number, result) = match joined {
            Ok(joined) => joined,
            Err(error) => (usize::MAX, Err(SessionError::Task(error.to_string()))),
        };
        match result {
            Ok(Some(record)) => self.record(entry_number, record),
            Ok(None) => self.report.unfinished += 1,
            Err(failure) => {
                self.report.unfinished += 1;
                if self.report.stopped_by.is_none() {
                    self.stop(failure);
                }
            }
        }
    }

    /// Appends a finished game's line to the results file, then counts it.
    fn record(&mut self, entry_number: usize, record: GameRecord) {
        if self.report.stopped_by.is_some() {
            // Finished after the failure: not in the file, so not counted;
            // a resumed session plays it again.
            self.report.unfinished += 1;
            return;
        }
        let appended = self.results.as_mut().map_or(Ok(()), |file| file.append(&record));
        if let Err(failure) = appended {
            self.stop(failure);
            self.report.unfinished += 1;
            return;
        }
        self.totals[entry_number].add(record.outcome, record.ticks, record.score, record.planner_us);
        self.report.played_now += 1;
        let progress = &self.config.progress;
        progress.games.advance(1);
        if record.outcome == OutcomeKind::Won {
            progress.won.advance(1);
        } else {
            progress.not_won.advance(1);
        }
    }

    /// A failed write: nothing more starts, and the running games stop.
    fn stop(&mut self, failure: SessionError) {
        error!(error = %failure, "stopping the session");
        self.cancel.store(true, Ordering::Relaxed);
        self.report.stopped_by = Some(failure);
    }

    /// The report: per-entry totals and their sum.
    fn into_report(self, started: Instant) -> SessionReport {
        let mut report = self.report;
        for (entry, totals) in self.config.entries.iter().zip(self.totals) {
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

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::game::snake::{Config, Dir, SnakeGame, SnakeSetup};
    use crate::plan::{Budget, Decision, PlanError};
    use crate::session::{Entry, GameEntry, SessionProgress, Shard, store};

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
