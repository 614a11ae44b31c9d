//! The session's workers: threads that each play games one after another,
//! every tick of a game on the same thread (no hand-off per tick or per
//! game), taking the next game of the session's order themselves and
//! leaving each finished game in the inbox for the next group commit.
//!
//! Each worker keeps its game's progress (ticks, score, last hash, the
//! replay being written) in its `Lane`, behind a mutex only the worker
//! and the watchdog take, and publishes there the number of the planner
//! call under way (a counter: no clock is read for it). The run loop's
//! watchdog times each call from the first time it sees its number: a
//! call seen for longer than its budget and grace (or, once the session
//! is stopping, than a short grace) has its game taken from the lane and
//! ended by the session; the worker's thread is left to the planner (it
//! exits, touching nothing, if the call ever returns) and a fresh worker
//! takes its place. So a call is timed to the watchdog's resolution: it
//! ends at most one look later than it would by its own start.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::Notify;
use tracing::warn;

use crate::progress::Progress;
use crate::rng::derive_seed;
use crate::session::commit::Pending;
use crate::session::entry::Keep;
use crate::session::sprt::{Half, RunningTest, SessionVerdict};
use crate::session::store::Recorded;
use crate::session::{
    EntryPlayer, GameJob, LiveGame, ReplayPolicy, Schedule, SessionError, Shard, Slot, game_seed, replay_path,
};

/// Finished games that wake the run loop for a commit before its time:
/// a bound on what a commit holds (each kept replay an open file).
pub(super) const COMMIT_GAMES: usize = 256;

/// A lane between planner calls.
const IDLE: u64 = u64::MAX;

/// What every worker of a session reads.
#[derive(Debug)]
pub(super) struct Context {
    pub(super) cancel: Arc<AtomicBool>,
    pub(super) move_budget: Duration,
    /// Ticks played, over all games.
    pub(super) ticks: Progress,
    /// Bytes the kept replays take, for the disk budget.
    pub(super) disk_used: Arc<AtomicU64>,
}

impl Context {
    pub(super) fn new(cancel: Arc<AtomicBool>, move_budget: Duration, ticks: Progress, disk_used: u64) -> Context {
        Context { cancel, move_budget, ticks, disk_used: Arc::new(AtomicU64::new(disk_used)) }
    }
}

/// One worker's place: its game as far as it has been played, and which
/// planner call is under way.
#[derive(Debug)]
pub struct Lane {
    /// The number of the planner call under way (the worker's count of
    /// its calls, over all its games); [`IDLE`] between calls.
    call: AtomicU64,
    /// The worker's next call number, kept here between its games (only
    /// the worker touches it).
    next_call: AtomicU64,
    /// The call the watchdog last saw under way, and when it first saw
    /// it: taken by the watchdog only.
    sighting: Mutex<Option<(u64, Instant)>>,
    live: Mutex<Live>,
    pub(super) ctx: Arc<Context>,
}

#[derive(Debug, Default)]
struct Live {
    /// The watchdog took the game: the worker must touch nothing more.
    abandoned: bool,
    game: Option<LiveGame>,
}

/// The lane's game was taken by the watchdog.
#[derive(Debug)]
pub(super) struct Abandoned;

impl Lane {
    fn new(ctx: Arc<Context>) -> Lane {
        let (call, next_call) = (AtomicU64::new(IDLE), AtomicU64::new(0));
        Lane { call, next_call, sighting: Mutex::default(), live: Mutex::default(), ctx }
    }

    #[inline]
    fn live(&self) -> MutexGuard<'_, Live> {
        // A panic while the lock was held is reported as the game's own
        // failure; what the lane holds is still whole.
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Puts a starting game in the lane.
    pub(super) fn begin(&self, game: LiveGame) {
        self.live().game = Some(game);
    }

    /// The first call number of a game: after its last game's, so that
    /// the watchdog never takes two calls for one.
    pub(super) fn first_call(&self) -> u64 {
        self.next_call.load(Ordering::Relaxed)
    }

    /// Keeps where a game's call numbers ended, for the worker's next game.
    pub(super) fn calls_ended(&self, next: u64) {
        self.next_call.store(next, Ordering::Relaxed);
    }

    /// Publishes the start of planner call number `call` (a count the
    /// worker keeps, below [`IDLE`]).
    #[inline]
    pub(super) fn call_started(&self, call: u64) {
        self.call.store(call, Ordering::Release);
    }

    /// After a planner call: `tick` runs on the lane's game unless the
    /// watchdog took it meanwhile.
    #[inline]
    pub(super) fn after_call<R>(&self, tick: impl FnOnce(&mut LiveGame) -> R) -> Result<R, Abandoned> {
        let mut live = self.live();
        if live.abandoned {
            return Err(Abandoned);
        }
        self.call.store(IDLE, Ordering::Release);
        let game = live.game.as_mut().expect("a game is in the lane while it plays");
        Ok(tick(game))
    }

    /// Takes the lane's game back at its end.
    pub(super) fn take(&self) -> Result<Option<LiveGame>, Abandoned> {
        let mut live = self.live();
        if live.abandoned { Err(Abandoned) } else { Ok(live.game.take()) }
    }

    /// The game of a planner call that `overdue` says has run too long
    /// (given how long it has run), taken from the worker; the worker is
    /// then abandoned.
    fn abandon_if(&self, overdue: impl Fn(Duration) -> bool) -> Option<LiveGame> {
        let call = self.call.load(Ordering::Acquire);
        let running = {
            let mut sighting = self.sighting.lock().unwrap_or_else(PoisonError::into_inner);
            match *sighting {
                _ if call == IDLE => {
                    *sighting = None;
                    return None;
                }
                Some((seen, since)) if seen == call => since.elapsed(),
                _ => {
                    *sighting = Some((call, Instant::now()));
                    Duration::ZERO
                }
            }
        };
        if !overdue(running) {
            return None;
        }
        let mut live = self.live();
        // Still the same call: the worker has not come back to the lane.
        if live.abandoned || self.call.load(Ordering::Acquire) != call {
            return None;
        }
        live.abandoned = true;
        live.game.take()
    }
}

/// What became of one game, for the run loop.
#[derive(Debug)]
pub struct Finished(pub(super) Done);

#[derive(Debug)]
pub(super) enum Done {
    /// Ended and recorded: waiting for a commit.
    Recorded(Pending),
    /// Stopped by the session: not recorded, its replay deleted.
    Stopped,
    /// A replay could not be written, or the game panicked outside its
    /// planner: the session stops.
    Failed(SessionError),
}

impl Finished {
    pub(super) fn failed(error: SessionError) -> Finished {
        Finished(Done::Failed(error))
    }
}

/// What the workers leave for the run loop.
#[derive(Debug, Default)]
pub(super) struct Inbox {
    pub(super) games: Vec<Pending>,
    pub(super) stopped: u64,
    pub(super) failures: Vec<SessionError>,
    pub(super) workers_done: usize,
}

/// Where the workers take their games from.
#[derive(Debug)]
pub(super) enum Starter {
    /// A session's games in its order.
    Session(Box<SessionStarter>),
    /// One game (`tickbot play`).
    One(Option<GameJob>),
}

/// The workers of a session, and what they share with its run loop.
pub(super) struct Crew {
    pub(super) entries: Vec<Arc<dyn EntryPlayer>>,
    starter: Mutex<Starter>,
    inbox: Mutex<Inbox>,
    /// Woken by a worker that ends, fails, or fills a commit.
    pub(super) wake: Notify,
    pub(super) ctx: Arc<Context>,
    /// The session's sequential test, counted as games finish (before
    /// their commit) so that a decision stops the starting of games at
    /// once, however fast they are. A std mutex taken by a worker for one
    /// pair's count, never while the starter's or the inbox's is held.
    test: Mutex<Option<RunningTest>>,
}

impl Crew {
    pub(super) fn new(entries: Vec<Arc<dyn EntryPlayer>>, starter: Starter, ctx: Context) -> Crew {
        Crew {
            entries,
            starter: Mutex::new(starter),
            inbox: Mutex::default(),
            wake: Notify::new(),
            ctx: Arc::new(ctx),
            test: Mutex::new(None),
        }
    }

    /// The crew of a session that runs a sequential test.
    pub(super) fn with_test(self, test: Option<RunningTest>) -> Crew {
        Crew { test: Mutex::new(test), ..self }
    }

    /// The test's verdict over the games counted, if the session runs one.
    pub(super) fn test_verdict(&self) -> Option<SessionVerdict> {
        self.test.lock().unwrap_or_else(PoisonError::into_inner).as_ref().map(RunningTest::verdict)
    }

    /// Counts a finished game in the session's test; a decision that ends
    /// the session stops the starting of games (the running ones finish).
    fn count_in_test(&self, game: &Pending) {
        let record = &game.record;
        let half = Half { outcome: record.outcome, score: record.score, ticks: record.ticks };
        let decided = match &mut *self.test.lock().unwrap_or_else(PoisonError::into_inner) {
            Some(test) => test.count(game.entry_number, record.index, half),
            None => return,
        };
        if let Some(decision) = decided {
            tracing::info!(
                verdict = ?decision.verdict,
                pairs = decision.observations,
                "the sequential test decided: starting no more games"
            );
            self.stop_starting();
        }
    }

    fn starter(&self) -> MutexGuard<'_, Starter> {
        self.starter.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn inbox(&self) -> MutexGuard<'_, Inbox> {
        self.inbox.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// No more games start.
    pub(super) fn stop_starting(&self) {
        match &mut *self.starter() {
            Starter::Session(starter) => starter.stopped = true,
            Starter::One(job) => *job = None,
        }
    }

    /// Whether the disk budget stopped replays being kept.
    pub(super) fn disk_budget_reached(&self) -> bool {
        matches!(&*self.starter(), Starter::Session(starter) if starter.disk_budget_reached)
    }

    fn next_job(&self) -> Option<GameJob> {
        let disk_used = self.ctx.disk_used.load(Ordering::Relaxed);
        match &mut *self.starter() {
            Starter::Session(starter) => starter.next(disk_used),
            Starter::One(job) => job.take(),
        }
    }

    /// Leaves a finished game for the run loop; a failure stops the
    /// session at once (no game starts, the running ones stop).
    pub(super) fn deliver(&self, finished: Finished) {
        if let Done::Recorded(game) = &finished.0 {
            self.count_in_test(game);
        }
        let wake = {
            let mut inbox = self.inbox();
            match finished.0 {
                Done::Recorded(game) => {
                    inbox.games.push(game);
                    inbox.games.len() >= COMMIT_GAMES
                }
                Done::Stopped => {
                    inbox.stopped += 1;
                    false
                }
                Done::Failed(error) => {
                    inbox.failures.push(error);
                    true
                }
            }
        };
        if wake {
            self.wake.notify_one();
        }
    }

    /// Everything the workers left since the last call.
    pub(super) fn collect(&self) -> Inbox {
        std::mem::take(&mut *self.inbox())
    }

    /// Starts a worker on its own thread.
    pub(super) fn spawn_worker(self: &Arc<Self>) -> Result<Arc<Lane>, SessionError> {
        let lane = Arc::new(Lane::new(Arc::clone(&self.ctx)));
        let (crew, worker_lane) = (Arc::clone(self), Arc::clone(&lane));
        std::thread::Builder::new()
            .name("tickbot-worker".into())
            .spawn(move || work(&crew, &worker_lane))
            .map_err(|error| SessionError::Task(format!("cannot start a worker thread: {error}")))?;
        Ok(lane)
    }

    /// The watchdog: the game of each lane whose planner call is overdue,
    /// taken from its worker (see [`Lane`]).
    pub(super) fn abandon_overdue(
        &self,
        lanes: &[Arc<Lane>],
        overdue: impl Fn(Duration) -> bool,
    ) -> Vec<(usize, LiveGame)> {
        let mut taken = Vec::new();
        for (number, lane) in lanes.iter().enumerate() {
            if let Some(game) = lane.abandon_if(&overdue) {
                warn!(id = %game.id(), "the planner did not return in time: its game ends and its thread is left to it");
                taken.push((number, game));
            }
        }
        taken
    }
}

/// A worker: plays games until none is left to start.
fn work(crew: &Crew, lane: &Lane) {
    while let Some(job) = crew.next_job() {
        let player = &crew.entries[job.entry_number];
        let played = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| player.play(job, lane)));
        let finished = match played {
            Ok(Some(finished)) => finished,
            // The watchdog took the game and counted this worker out.
            Ok(None) => return,
            Err(payload) => match lane.take() {
                Err(Abandoned) => return,
                Ok(game) => {
                    game.into_iter().for_each(LiveGame::discard);
                    let message = panic_message(payload.as_ref());
                    Finished::failed(SessionError::Task(format!("a game panicked outside its planner: {message}")))
                }
            },
        };
        crew.deliver(finished);
    }
    crew.inbox().workers_done += 1;
    crew.wake.notify_one();
}

/// A session's games in its order: skips those its results file records
/// and those of other shards, decides where each keeps its replay.
#[derive(Debug)]
pub(super) struct SessionStarter {
    pub(super) schedule: Schedule,
    /// Per entry, its name and the games its results file already records.
    pub(super) entries: Vec<(String, Option<Recorded>)>,
    pub(super) shard: Shard,
    pub(super) master_seed: u64,
    /// Per entry, the entry whose seeds it plays: its own, or in a session
    /// with a test, A's for B.
    pub(super) seed_entries: Vec<usize>,
    pub(super) replays: ReplayPolicy,
    pub(super) replay_dir: Option<std::path::PathBuf>,
    pub(super) disk_budget: Option<u64>,
    pub(super) disk_budget_reached: bool,
    pub(super) stopped: bool,
}

impl SessionStarter {
    fn next(&mut self, disk_used: u64) -> Option<GameJob> {
        if self.stopped {
            return None;
        }
        loop {
            let slot = self.schedule.next()?;
            let recorded = self.entries[slot.entry].1.as_ref().is_some_and(|done| done.contains(slot.index));
            if self.shard.plays(slot.index) && !recorded {
                return Some(self.job(&slot, disk_used));
            }
        }
    }

    /// The job of the game in `slot`: its seed, and whether and where it
    /// keeps its replay (none once the disk budget is reached).
    fn job(&mut self, slot: &Slot, disk_used: u64) -> GameJob {
        let name = &self.entries[slot.entry].0;
        let seed = game_seed(self.master_seed, self.seed_entries[slot.entry], slot.index);
        let over_budget = self.disk_budget.is_some_and(|budget| disk_used >= budget);
        if over_budget && !self.disk_budget_reached {
            self.disk_budget_reached = true;
            warn!(
                budget = self.disk_budget,
                "the replays reached the disk budget: later games keep no replay (results go on)"
            );
        }
        let keep = if over_budget { None } else { keep_rule(self.replays, seed) };
        GameJob {
            entry_number: slot.entry,
            entry: name.clone(),
            index: slot.index,
            seed,
            replay_path: keep.and(self.replay_dir.as_ref()).map(|dir| replay_path(dir, name, slot.index)),
            keep: keep.unwrap_or(Keep::Always),
            record_interrupted: false,
        }
    }
}

/// Which games keep their replay (`None`: not this one).
pub(super) fn keep_rule(policy: ReplayPolicy, seed: u64) -> Option<Keep> {
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

/// The text of a panic's payload.
pub(super) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}
