//! The session's workers: threads that each play games one after another,
//! every tick of a game on the same thread (no hand-off per tick or per
//! game), taking the next game of the session's order themselves and
//! leaving each finished game in the inbox for the next group commit.
//!
//! Each worker keeps its game in its `Lane`, where the run loop's
//! watchdog can take it when a planner call runs too long (its budget and
//! grace, or, once the session is stopping, a short grace). A tick of a
//! game without a replay touches no lock and no read-modify-write there
//! (at a fraction of a microsecond a tick, one would cost a tenth of it):
//!
//! - the worker publishes how far the game got, then the number of the
//!   call it starts (a counter: no clock is read for it), and after the
//!   call marks the lane idle and looks whether the game was taken;
//! - the watchdog times each call from the first time it sees its number.
//!   An overdue call's game is taken under the lane's lock, with what it
//!   had reached before the call (read between two looks at the call's
//!   number, as a sequence lock reads), and the lane is marked abandoned;
//! - the lock is the one handover: whoever takes the game first, the
//!   worker at the game's end or the watchdog, has it. A worker that raced
//!   past an overdue call's end stops at its next look, and what it
//!   played meanwhile is dropped. A game that writes a replay writes each
//!   frame, and how far it got, under that lock, so that a game taken at
//!   any moment has a footer that agrees with its frames.
//!
//! A game the watchdog takes is ended by the session, the worker's thread
//! is left to the planner (it exits, touching nothing, if the call ever
//! returns) and a fresh worker takes its place. So a call is timed to the
//! watchdog's resolution: it ends at most one look later than it would by
//! its own start.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, Ordering, fence};
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

/// Finished games, and kept replays among them, that wake the run loop
/// for a commit before its time: bounds on the memory a commit holds, on
/// its open files, and on what is left to commit once the last game ends
/// (the session waits for it). Games without a replay are cheap to hold,
/// but not free: the bigger the batch, the more memory its records and
/// lines touch for the first time (on a virtual machine, microseconds a
/// page), and the more is left for the last commit; the smaller, the more
/// syncs, each some 50 µs of system time. At LOCM's pace (some 50,000
/// games a second) that is a commit each 10 ms; a thousand games a batch
/// left a millisecond of commit after the last game, 256 cost the syncs
/// more than it saved.
pub(super) const COMMIT_GAMES: usize = 512;
pub(super) const COMMIT_REPLAYS: usize = 256;

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

/// How far a game has been played: what its record and its replay's
/// footer take from its last step.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Reached {
    /// The game's tick and score.
    pub(super) ticks: u32,
    pub(super) score: i64,
    /// The state hash (the initial one if no step was taken), kept only
    /// while a replay is written.
    pub(super) last_hash: u64,
    /// Time spent in the planner, over all its calls so far.
    pub(super) planner_time: Duration,
}

/// [`Reached`] as the worker publishes it before each call, for the
/// watchdog that may take the game during the call.
#[derive(Debug, Default)]
struct Published {
    ticks: AtomicU32,
    score: AtomicI64,
    last_hash: AtomicU64,
    planner_ns: AtomicU64,
}

impl Published {
    #[inline]
    fn store(&self, reached: &Reached) {
        // Seen by a watchdog that reads them, only if it then sees the
        // lane idle (or a later call): how it knows them to be newer than
        // the call it is about to end.
        fence(Ordering::Release);
        self.ticks.store(reached.ticks, Ordering::Relaxed);
        self.score.store(reached.score, Ordering::Relaxed);
        self.last_hash.store(reached.last_hash, Ordering::Relaxed);
        self.planner_ns.store(reached.planner_time.as_nanos() as u64, Ordering::Relaxed);
    }

    fn load(&self) -> Reached {
        Reached {
            ticks: self.ticks.load(Ordering::Relaxed),
            score: self.score.load(Ordering::Relaxed),
            last_hash: self.last_hash.load(Ordering::Relaxed),
            planner_time: Duration::from_nanos(self.planner_ns.load(Ordering::Relaxed)),
        }
    }
}

/// One worker's place: its game, which planner call is under way, and
/// how far the game has been played.
#[derive(Debug)]
pub struct Lane {
    /// The number of the planner call under way (the worker's count of
    /// its calls, over all its games); [`IDLE`] between calls. Written by
    /// the worker only.
    call: AtomicU64,
    /// Set by the watchdog, under the `game` lock, once it took the game.
    abandoned: AtomicBool,
    /// The worker's next call number, and the size of its pacer's window
    /// (`ticks.rs`), kept here between its games (only the worker
    /// touches them).
    next_call: AtomicU64,
    pacer_window: AtomicU32,
    /// The call the watchdog last saw under way, and when it first saw
    /// it: taken by the watchdog only.
    sighting: Mutex<Option<(u64, Instant)>>,
    /// The game being played, until the worker (at its end) or the
    /// watchdog takes it.
    game: Mutex<Option<LiveGame>>,
    reached: Published,
    pub(super) ctx: Arc<Context>,
}

/// The lane's game was taken by the watchdog.
#[derive(Debug)]
pub(super) struct Abandoned;

impl Lane {
    fn new(ctx: Arc<Context>) -> Lane {
        Lane {
            call: AtomicU64::new(IDLE),
            abandoned: AtomicBool::new(false),
            next_call: AtomicU64::new(0),
            pacer_window: AtomicU32::new(1),
            sighting: Mutex::default(),
            game: Mutex::default(),
            reached: Published::default(),
            ctx,
        }
    }

    fn game(&self) -> MutexGuard<'_, Option<LiveGame>> {
        // A panic while the lock was held is reported as the game's own
        // failure; what the lane holds is still whole.
        self.game.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Puts a starting game in the lane.
    pub(super) fn begin(&self, game: LiveGame) {
        self.reached.store(&game.reached);
        *self.game() = Some(game);
    }

    /// The first call number of a game: after its last game's, so that
    /// the watchdog never takes two calls for one.
    pub(super) fn first_call(&self) -> u64 {
        self.next_call.load(Ordering::Relaxed)
    }

    /// The pacer's window where the worker's last game left it.
    pub(super) fn pacer_window(&self) -> u32 {
        self.pacer_window.load(Ordering::Relaxed)
    }

    /// Keeps where a game's call numbers and its pacer's window ended, for
    /// the worker's next game.
    pub(super) fn game_ended(&self, next_call: u64, pacer_window: u32) {
        self.next_call.store(next_call, Ordering::Relaxed);
        self.pacer_window.store(pacer_window, Ordering::Relaxed);
    }

    /// Publishes how far the game has got, then the start of planner call
    /// number `call` (a count the worker keeps, below [`IDLE`]).
    #[inline]
    pub(super) fn call_started(&self, call: u64, reached: &Reached) {
        self.reached.store(reached);
        self.call.store(call, Ordering::Release);
    }

    /// After a planner call returned (or panicked): the lane is idle; the
    /// game goes on unless the watchdog took it.
    #[inline]
    pub(super) fn call_returned(&self) -> Result<(), Abandoned> {
        self.call.store(IDLE, Ordering::Release);
        if self.abandoned.load(Ordering::Acquire) { Err(Abandoned) } else { Ok(()) }
    }

    /// `with` on the lane's game between planner calls, unless the
    /// watchdog took it.
    pub(super) fn with_game<R>(&self, with: impl FnOnce(&mut LiveGame) -> R) -> Result<R, Abandoned> {
        self.game().as_mut().map(with).ok_or(Abandoned)
    }

    /// Takes the lane's game back at its end (`None`: none was begun),
    /// unless the watchdog took it.
    pub(super) fn take(&self) -> Result<Option<LiveGame>, Abandoned> {
        let mut game = self.game();
        match game.take() {
            None if self.abandoned.load(Ordering::Relaxed) => Err(Abandoned),
            taken => Ok(taken),
        }
    }

    /// The game of a planner call that `overdue` says has run too long
    /// (given how long it has run), taken from the worker with how far it
    /// was played; the worker is then abandoned.
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
        // How far the game got before the call: whole only if the call is
        // still the same one after reading it.
        let reached = self.reached.load();
        fence(Ordering::Acquire);
        if self.call.load(Ordering::Relaxed) != call {
            return None;
        }
        let mut slot = self.game();
        // `None`: the worker came back and took its game at its end.
        let mut game = slot.take()?;
        self.abandoned.store(true, Ordering::Release);
        drop(slot);
        if game.replay.is_none() {
            // With a replay, the lane's game has its own, kept with its frames.
            game.reached = reached;
        }
        Some(game)
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
    /// How many of `games` keep a replay.
    pub(super) replays: usize,
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
    test: Option<Mutex<RunningTest>>,
}

impl Crew {
    pub(super) fn new(entries: Vec<Arc<dyn EntryPlayer>>, starter: Starter, ctx: Context) -> Crew {
        Crew {
            entries,
            starter: Mutex::new(starter),
            inbox: Mutex::default(),
            wake: Notify::new(),
            ctx: Arc::new(ctx),
            test: None,
        }
    }

    /// The crew of a session that runs a sequential test.
    pub(super) fn with_test(self, test: Option<RunningTest>) -> Crew {
        Crew { test: test.map(Mutex::new), ..self }
    }

    /// The test's verdict over the games counted, if the session runs one.
    pub(super) fn test_verdict(&self) -> Option<SessionVerdict> {
        self.test.as_ref().map(|test| test.lock().unwrap_or_else(PoisonError::into_inner).verdict())
    }

    /// Counts a finished game in the session's test; a decision that ends
    /// the session stops the starting of games (the running ones finish).
    fn count_in_test(&self, game: &Pending) {
        // No lock at all in a session without a test.
        let Some(test) = &self.test else { return };
        let record = &game.record;
        let half = Half { outcome: record.outcome, score: record.score, ticks: record.ticks };
        let decided = test.lock().unwrap_or_else(PoisonError::into_inner).count(game.entry_number, record.index, half);
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
                    inbox.replays += usize::from(game.replay.is_some());
                    inbox.games.push(game);
                    inbox.games.len() >= COMMIT_GAMES || inbox.replays >= COMMIT_REPLAYS
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

    /// Everything the workers left since the last call. `room`, an empty
    /// list, takes the taken games' place: the lists that take turns keep
    /// their room, rather than each batch growing one from nothing into
    /// memory touched for the first time.
    pub(super) fn collect(&self, room: Vec<Pending>) -> Inbox {
        let mut inbox = self.inbox();
        let taken = std::mem::take(&mut *inbox);
        inbox.games = room;
        taken
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
    pub(super) entries: Vec<(Arc<str>, Option<Recorded>)>,
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
            entry: Arc::clone(name),
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
