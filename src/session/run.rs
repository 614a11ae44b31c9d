//! Running: a session of many games (`run`) or one game alone
//! (`play_one`, for `tickbot play`), on one loop. Workers (`workers.rs`)
//! play the games on threads of their own; this async loop watches them
//! (a planner call that never returns ends its game), commits finished
//! games in groups (`commit.rs`) and adds them to the totals, until the
//! games are done, the duration is over, a shutdown comes or a write
//! fails.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::time::MissedTickBehavior;
use tracing::{error, info, warn};

use crate::game::{Outcome, OutcomeKind, Replayable};
use crate::plan::Planner;
use crate::progress::Progress;
use crate::session::commit::{self, Committed, KnownDirs, Pending};
use crate::session::entry::Keep;
use crate::session::game::single;
use crate::session::sprt::RunningTest;
use crate::session::ticks::{Ending, grace, over_budget_reason};
use crate::session::workers::{COMMIT_GAMES, COMMIT_REPLAYS, Context, Crew, Lane, SessionStarter, Starter};
use crate::session::{
    EntryReport, GameJob, GameRecord, LiveEntry, Recovered, ResultsFile, Schedule, SessionConfig, SessionDir,
    SessionError, SessionLog, SessionProgress, SessionReport, Totals,
};

/// How often the loop looks at its workers: the watchdog's resolution.
const WATCH_EVERY: Duration = Duration::from_millis(20);

/// The time between two group commits: results come in steadily (a
/// progress bar, `tail -f`, a `kill -9` loses little) at 20 syncs a
/// second, more only when games finish faster than `COMMIT_GAMES` (or
/// replays are kept faster than `COMMIT_REPLAYS`) in that time.
const COMMIT_EVERY: Duration = Duration::from_millis(50);

/// Once a session stops (Ctrl-C, a failed write), a planner call has this
/// long to come back before its game is ended without it.
const STOP_GRACE: Duration = Duration::from_millis(100);

/// Plays a session until its games are done, its duration is over,
/// `shutdown` resolves, or a write fails. With `out`, results go to its
/// results file (games it already records are skipped) and replays under
/// its replay folder; `log`, if given, is flushed before each commit and a
/// failure to write it stops the session as a failed results write does.
pub async fn run(
    config: SessionConfig,
    out: Option<(&SessionDir, ResultsFile, Recovered)>,
    log: Option<Arc<dyn SessionLog>>,
    shutdown: impl Future<Output = ()>,
) -> SessionReport {
    let started = Instant::now();
    let deadline = config.duration.map(|duration| tokio::time::Instant::now() + duration);
    let jobs = config.jobs.max(1);
    let mut session = Running::new(config, out, log);
    session.drive(jobs, deadline, shutdown).await;
    session.into_report(started)
}

/// Plays one game with `seed` (`tickbot play`) on the session's loop: a
/// shutdown ends it as aborted, its replay kept.
#[allow(clippy::too_many_arguments)] // the one game's settings, each used once
pub async fn play_one<G: Replayable, P: Planner<G>>(
    level: Arc<G::Config>,
    planner: P,
    seed: u64,
    replay: Option<PathBuf>,
    move_budget: Duration,
    ticks: Progress,
    log: Option<Arc<dyn SessionLog>>,
    shutdown: impl Future<Output = ()>,
) -> Result<GameRecord, SessionError> {
    let job = GameJob {
        entry_number: 0,
        entry: Arc::from(G::NAME),
        index: 0,
        seed,
        replay_path: replay,
        keep: Keep::Always,
        record_interrupted: true,
    };
    let ctx = Context::new(Arc::new(AtomicBool::new(false)), move_budget, ticks, 0);
    let crew = Crew::new(vec![single::<G, P>(level, planner)], Starter::One(Some(job)), ctx);
    let names = vec![(G::NAME.to_string(), G::NAME, "")];
    let mut session = Running::with_crew(crew, names, vec![Totals::default()], None, log, SessionProgress::default());
    session.drive(1, None, shutdown).await;
    match (session.report.stopped_by, session.last_record) {
        (Some(failure), _) => Err(failure),
        (None, Some(record)) => Ok(record),
        (None, None) => Err(SessionError::Task("the game ended without a record".into())),
    }
}

/// A session while it runs: its workers, what waits for a commit, and
/// what it has recorded.
struct Running {
    crew: Arc<Crew>,
    /// The workers' lanes, watched by the watchdog.
    lanes: Vec<Arc<Lane>>,
    /// Workers still playing (not ended, not abandoned).
    working: usize,
    /// Per entry: its name, game and planner, for the report.
    names: Vec<(String, &'static str, &'static str)>,
    results: Option<ResultsFile>,
    known_dirs: KnownDirs,
    log: Option<Arc<dyn SessionLog>>,
    /// Finished games waiting for the next commit, and how many of them
    /// keep a replay.
    pending: Vec<Pending>,
    pending_replays: usize,
    /// An empty list with room, for the workers' next games.
    room: Vec<Pending>,
    /// When the last commit began; `None` before the first, which comes
    /// as soon as a game finishes.
    last_commit: Option<Instant>,
    /// When the session began to stop its running games.
    stopping_since: Option<Instant>,
    /// Per entry, its totals so far (those recorded before a resume included).
    totals: Vec<Totals>,
    progress: SessionProgress,
    report: SessionReport,
    /// The last game recorded (the one game of `play_one`).
    last_record: Option<GameRecord>,
}

impl Running {
    fn new(
        config: SessionConfig,
        out: Option<(&SessionDir, ResultsFile, Recovered)>,
        log: Option<Arc<dyn SessionLog>>,
    ) -> Running {
        let (replay_dir, results, recovered, replay_bytes) = match out {
            Some((dir, results, recovered)) => {
                // The walk is only needed where a budget counts the bytes.
                let bytes = config.disk_budget.map(|_| dir.replay_bytes());
                (Some(dir.replay_dir()), Some(results), recovered, bytes)
            }
            None => (None, None, Recovered::default(), None),
        };
        let Recovered { recorded, totals: recovered_totals, kept, .. } = recovered;
        let test = config.sprt.as_ref().map(|sprt| {
            RunningTest::resume(
                sprt,
                &kept,
                config.shard,
                config.progress.sprt.as_ref().map(|(gauge, _)| gauge.clone()),
            )
        });
        let starter_entries: Vec<_> = config
            .entries
            .iter()
            .map(|entry| (Arc::from(entry.name.as_str()), recorded.get(&entry.name).cloned()))
            .collect();
        let totals: Vec<Totals> =
            config.entries.iter().map(|entry| recovered_totals.get(&entry.name).cloned().unwrap_or_default()).collect();
        let schedule = Schedule::new(
            config.entries.iter().map(|entry| entry.weight).collect(),
            config.entries.iter().map(|entry| entry.games).collect(),
            config.max_games,
        );
        let already: u64 = starter_entries.iter().filter_map(|(_, done)| done.as_ref()).map(|done| done.count()).sum();
        let shard = config.shard;
        let entry_counts: Option<Vec<u64>> =
            schedule.entry_counts().map(|counts| counts.iter().map(|&games| shard.games_of(games)).collect());
        let total = entry_counts.as_ref().map(|counts| counts.iter().sum::<u64>());
        config.progress.entries.set(
            config
                .entries
                .iter()
                .zip(&totals)
                .enumerate()
                .map(|(number, (entry, totals))| LiveEntry {
                    name: entry.name.clone(),
                    expected: entry_counts.as_ref().map(|counts| counts[number]),
                    totals: totals.clone(),
                })
                .collect(),
        );
        config.progress.games.set_total(total.map_or(0, |total| total.saturating_sub(already)));
        let starter = SessionStarter {
            schedule,
            entries: starter_entries,
            shard,
            master_seed: config.master_seed,
            seed_entries: (0..config.entries.len())
                .map(|number| config.sprt.as_ref().map_or(number, |sprt| sprt.seed_entry(number)))
                .collect(),
            replays: config.replays,
            replay_dir,
            disk_budget: config.disk_budget,
            disk_budget_reached: false,
            // A whole session whose test has decided plays nothing more.
            stopped: test.as_ref().is_some_and(RunningTest::stops_the_session),
        };
        let cancel = Arc::new(AtomicBool::new(false));
        let ticks = config.progress.ticks.clone();
        let ctx = Context::new(cancel, config.move_budget, ticks, replay_bytes.unwrap_or(0));
        let names = config
            .entries
            .iter()
            .map(|entry| (entry.name.clone(), entry.player.game(), entry.player.planner()))
            .collect();
        let players = config.entries.into_iter().map(|entry| entry.player).collect();
        let crew = Crew::new(players, Starter::Session(Box::new(starter)), ctx).with_test(test);
        Running::with_crew(crew, names, totals, results, log, config.progress)
    }

    fn with_crew(
        crew: Crew,
        names: Vec<(String, &'static str, &'static str)>,
        totals: Vec<Totals>,
        results: Option<ResultsFile>,
        log: Option<Arc<dyn SessionLog>>,
        progress: SessionProgress,
    ) -> Running {
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
            sprt: None,
        };
        Running {
            crew: Arc::new(crew),
            lanes: Vec::new(),
            working: 0,
            names,
            results,
            known_dirs: KnownDirs::default(),
            log,
            pending: Vec::new(),
            pending_replays: 0,
            room: Vec::new(),
            last_commit: None,
            stopping_since: None,
            totals,
            progress,
            report,
            last_record: None,
        }
    }

    /// Starts `jobs` workers and runs until they have all ended, then
    /// commits what is left.
    async fn drive(&mut self, jobs: usize, deadline: Option<tokio::time::Instant>, shutdown: impl Future<Output = ()>) {
        for _ in 0..jobs {
            self.add_worker();
        }
        let crew = Arc::clone(&self.crew);
        let mut watch = tokio::time::interval(WATCH_EVERY);
        watch.set_missed_tick_behavior(MissedTickBehavior::Delay);
        tokio::pin!(shutdown);
        while self.working > 0 {
            let woken = crew.wake.notified();
            let starting = !self.report.timed_out && self.stopping_since.is_none();
            tokio::select! {
                () = &mut shutdown, if !self.report.interrupted => self.interrupt(),
                () = sleep_until(deadline), if starting => {
                    self.report.timed_out = true;
                    self.crew.stop_starting();
                    info!(running = self.working, "the session's duration is over: starting no more games");
                }
                _ = watch.tick() => self.watch(),
                () = woken => {}
            }
            self.collect();
            let waited = self.last_commit.is_none_or(|at| at.elapsed() >= COMMIT_EVERY);
            let full = self.pending.len() >= COMMIT_GAMES || self.pending_replays >= COMMIT_REPLAYS;
            let due = !self.pending.is_empty() && (waited || full);
            if due {
                self.commit().await;
            }
        }
        self.collect();
        self.commit().await;
    }

    fn add_worker(&mut self) {
        match self.crew.spawn_worker() {
            Ok(lane) => {
                self.lanes.push(lane);
                self.working += 1;
            }
            Err(failure) => self.stop(failure),
        }
    }

    /// The watchdog: a game whose planner call is overdue is ended here
    /// (as a timeout, or stopped if the session is stopping) and a fresh
    /// worker takes its worker's place.
    fn watch(&mut self) {
        let move_budget = self.crew.ctx.move_budget;
        let limit = move_budget + grace(move_budget);
        let stopping = self.stopping_since;
        let overdue = |running: Duration| {
            running >= limit || stopping.is_some_and(|since| since.elapsed() >= STOP_GRACE && running >= STOP_GRACE)
        };
        let taken = self.crew.abandon_overdue(&self.lanes, overdue);
        if taken.is_empty() {
            return;
        }
        let mut lanes: Vec<Option<Arc<Lane>>> = self.lanes.drain(..).map(Some).collect();
        let abandoned = taken.len();
        for (number, game) in taken {
            lanes[number] = None;
            self.working -= 1;
            let tick = game.reached.ticks + 1;
            let ending = if stopping.is_some() {
                Ending::Interrupted(Outcome::new(
                    OutcomeKind::Aborted,
                    format!("interrupted while planning tick {tick}"),
                ))
            } else {
                Ending::Over(Outcome::new(OutcomeKind::Timeout, over_budget_reason(move_budget, game.reached.ticks)))
            };
            self.crew.deliver(game.finish(ending, &self.crew.ctx.disk_used));
        }
        self.lanes = lanes.into_iter().flatten().collect();
        if stopping.is_none() {
            // A fresh worker for each one left to its planner; it ends at
            // once if no game is left to start.
            for _ in 0..abandoned {
                self.add_worker();
            }
        }
    }

    /// Takes what the workers left: finished games wait for the commit, a
    /// failure stops the session.
    fn collect(&mut self) {
        let mut inbox = self.crew.collect(std::mem::take(&mut self.room));
        self.working -= inbox.workers_done;
        self.report.unfinished += inbox.stopped;
        for failure in inbox.failures {
            self.report.unfinished += 1;
            if self.report.stopped_by.is_none() {
                self.stop(failure);
            }
        }
        if self.pending.is_empty() {
            std::mem::swap(&mut self.pending, &mut inbox.games);
        } else {
            self.pending.append(&mut inbox.games);
        }
        self.room = inbox.games;
        self.pending_replays += inbox.replays;
    }

    /// Commits the finished games (`commit.rs`), then counts them; none
    /// is recorded once the session has stopped on a failure.
    async fn commit(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        self.last_commit = Some(Instant::now());
        let mut games = std::mem::take(&mut self.pending);
        self.pending_replays = 0;
        if self.report.stopped_by.is_some() {
            return self.drop_games(games);
        }
        // The log first: no game is recorded whose log lines are lost.
        if let Some(failure) = self.log.as_ref().and_then(|log| log.flush().err()) {
            self.stop(failure);
            return self.drop_games(games);
        }
        let committed = if self.results.is_none() && games.iter().all(|game| game.replay.is_none()) {
            let recorded = games.drain(..).map(|game| (game.entry_number, game.record)).collect();
            self.pending = games;
            Committed { recorded, failure: None }
        } else {
            let mut results = self.results.take();
            let mut known_dirs = std::mem::take(&mut self.known_dirs);
            let committing = tokio::task::spawn_blocking(move || {
                let committed = commit::commit(&mut games, results.as_mut(), &mut known_dirs);
                (committed, results, known_dirs, games)
            });
            match committing.await {
                Ok((committed, results, known_dirs, emptied)) => {
                    (self.results, self.known_dirs, self.pending) = (results, known_dirs, emptied);
                    committed
                }
                Err(error) => return self.stop(SessionError::Task(error.to_string())),
            }
        };
        if let Some((failure, games)) = committed.failure {
            self.report.unfinished += games as u64;
            self.stop(failure);
        }
        for (entry_number, record) in committed.recorded {
            self.count(entry_number, record);
        }
    }

    /// Games not recorded after all: their replays deleted, counted as
    /// unfinished (a resumed session plays them again).
    fn drop_games(&mut self, games: Vec<Pending>) {
        self.report.unfinished += games.len() as u64;
        for game in games {
            game.replay.into_iter().for_each(commit::Sealed::discard);
        }
    }

    /// Adds a recorded game to the totals and the progress counters.
    fn count(&mut self, entry_number: usize, record: GameRecord) {
        self.totals[entry_number].add(record.outcome, record.ticks, record.score, record.planner_us);
        self.progress.entries.update(entry_number, |totals| {
            totals.add(record.outcome, record.ticks, record.score, record.planner_us);
        });
        self.report.played_now += 1;
        self.progress.games.advance(1);
        match record.outcome {
            OutcomeKind::Won => self.progress.won.advance(1),
            _ => self.progress.not_won.advance(1),
        }
        self.last_record = Some(record);
    }

    /// A shutdown: no more games start, and the running ones are stopped.
    fn interrupt(&mut self) {
        self.report.interrupted = true;
        warn!(running = self.working, "interrupted: starting no more games, stopping the running ones");
        self.stop_games();
    }

    /// A failed write: nothing more starts, and the running games stop.
    fn stop(&mut self, failure: SessionError) {
        error!(error = %failure, "stopping the session");
        self.report.stopped_by.get_or_insert(failure);
        self.stop_games();
    }

    fn stop_games(&mut self) {
        self.crew.stop_starting();
        self.crew.ctx.cancel.store(true, Ordering::Relaxed);
        self.stopping_since.get_or_insert_with(Instant::now);
    }

    /// The report: per-entry totals and their sum.
    fn into_report(self, started: Instant) -> SessionReport {
        let mut report = self.report;
        report.disk_budget_reached = self.crew.disk_budget_reached();
        for ((name, game, planner), totals) in self.names.into_iter().zip(self.totals) {
            report.overall.merge(&totals);
            report.entries.push(EntryReport { name, game, planner, totals });
        }
        report.elapsed_us = started.elapsed().as_micros() as u64;
        report.sprt = self.crew.test_verdict();
        report
    }
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::game::snake::{Config, Dir, SnakeGame, SnakeSetup};
    use crate::plan::{Budget, Decision, PlanError};
    use crate::session::{Entry, GameEntry, ReplayPolicy, SessionProgress, Shard, store};

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
            sprt: None,
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
        let config = config(entries, Duration::from_secs(2));
        let progress = config.progress.clone();
        let report = run(config, Some((&held, results, recovered)), None, std::future::pending()).await;
        assert!(report.stopped_by.is_none(), "{:?}", report.stopped_by);
        // The progress bar's counters saw every recorded game.
        assert_eq!((progress.games.done(), progress.won.done(), progress.not_won.done()), (6, 0, 6));
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
        let report = run(
            config(make(), Duration::from_secs(5)),
            Some((&held, results, recovered)),
            None,
            std::future::pending(),
        )
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
        let report =
            run(config(make(), Duration::from_secs(5)), Some((&held, results, recovered)), None, shutdown).await;
        assert!(report.interrupted && report.unfinished > 0, "{report:?}");
        assert!(held.remove_unfinished_replays().unwrap() == 0, "no .part is left behind");
        let (results, recovered) = ResultsFile::open(&held.results_path()).unwrap();
        let report = run(
            config(make(), Duration::from_secs(5)),
            Some((&held, results, recovered)),
            None,
            std::future::pending(),
        )
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
            None,
            std::future::pending(),
        )
        .await;
        assert!(matches!(report.stopped_by, Some(SessionError::Results { .. })), "{:?}", report.stopped_by);
        assert_eq!(report.overall.games, 0, "no line was written, so none is counted");
        // The games of the commit that failed and those running beside it
        // are unfinished; the rest never started. Their replays are kept
        // (finished) or gone (stopped), never left as .part.
        assert!(report.unfinished > 0 && report.unfinished < 20, "{report:?}");
        let names: Vec<PathBuf> = files(&held.replay_dir());
        assert!(names.iter().all(|name| name.extension().is_some_and(|extension| extension == "tbr")), "{names:?}");
    }

    /// A log that takes `lines` flushes, then fails as a full disk does.
    struct FullLog {
        flushes_left: std::sync::atomic::AtomicUsize,
    }

    impl SessionLog for FullLog {
        fn flush(&self) -> Result<(), SessionError> {
            match self.flushes_left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| left.checked_sub(1)) {
                Ok(_) => Ok(()),
                Err(_) => Err(SessionError::Log {
                    path: PathBuf::from("logs/tickbot.jsonl"),
                    cause: std::io::Error::from(std::io::ErrorKind::StorageFull),
                }),
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_log_that_cannot_be_written_stops_the_session_as_a_failed_results_write_does() {
        let dir = tempfile::tempdir().unwrap();
        let (held, results, recovered) = open(dir.path());
        let log = Arc::new(FullLog { flushes_left: 1.into() });
        let report = run(
            config(vec![entry("a", 20, 60, || walker(1))], Duration::from_secs(5)),
            Some((&held, results, recovered)),
            Some(log),
            std::future::pending(),
        )
        .await;
        assert!(matches!(report.stopped_by, Some(SessionError::Log { .. })), "{:?}", report.stopped_by);
        // The first commit went through; the session stopped at the second,
        // whose games are not recorded (a resume plays them again).
        let recorded = lines(&held.results_path()).len() as u64;
        assert!(recorded > 0 && recorded == report.overall.games, "{report:?}");
        assert!(report.unfinished > 0 && recorded + report.unfinished < 20, "{report:?}");
        assert!(files(&held.replay_dir()).iter().all(|name| name.extension().is_some_and(|ext| ext == "tbr")));
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
        let report = run(session, Some((&held, results, recovered)), None, std::future::pending()).await;
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
            None,
            std::future::pending(),
        )
        .await;
        assert_eq!(report.overall.timeout, 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_call_that_never_returns_ends_its_game_where_it_stood_with_or_without_a_replay() {
        // The watchdog takes the game during the third call: with a replay,
        // from the frames written with it; without, from what the worker
        // published before the call. Either way it stood after two moves.
        for replays in [ReplayPolicy::None, ReplayPolicy::All] {
            let dir = tempfile::tempdir().unwrap();
            let overrun = || Walker { misbehaviour: Misbehaviour::Overrun, ..walker(0) };
            let mut session = config(vec![entry("overrun", 1, 20, overrun)], Duration::from_millis(100));
            session.replays = replays;
            let (held, results, recovered) = open(dir.path());
            let report = run(session, Some((&held, results, recovered)), None, std::future::pending()).await;
            assert_eq!(report.overall.timeout, 1, "{replays:?}");
            let line = &lines(&held.results_path())[0];
            assert_eq!((line["outcome"].as_str(), line["ticks"].as_u64()), (Some("timeout"), Some(2)), "{line}");
            assert!(line["reason"].as_str().unwrap().ends_with("at tick 3"), "{line}");
            assert_eq!(line["replay"].is_null(), replays == ReplayPolicy::None, "{line}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_session_stops_starting_games_at_its_duration() {
        let mut session = config(vec![entry("long", 1000, 30, || walker(2))], Duration::from_secs(5));
        session.duration = Some(Duration::from_millis(150));
        let report = run(session, None, None, std::future::pending()).await;
        assert!(report.timed_out && !report.interrupted);
        assert!(report.overall.games > 0 && report.overall.games < 1000, "{report:?}");
        assert_eq!(report.unfinished, 0, "running games finish when the duration is over");
    }
}
