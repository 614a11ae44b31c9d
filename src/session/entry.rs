//! What a session plays: its config, its entries, the one game a worker
//! plays (`GameJob`) and the counters it advances. Types only: how a game
//! is played is in `game.rs`, how a session runs in `run.rs`.

use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::progress::Progress;
use crate::session::sprt::SessionTest;
use crate::session::{Finished, Lane, ReplayPolicy, Shard, Totals};
use crate::sprt::{Bounds, LlrGauge};

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
    /// The sequential test between two entries, if the session runs one:
    /// B plays A's seeds, and a whole session stops starting games once
    /// the test decides (a shard, which sees only its share of the pairs,
    /// plays all of its games).
    pub sprt: Option<SessionTest>,
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
    /// Plays one game on the calling thread (one of the session's
    /// workers), its progress kept in `lane` where the session can still
    /// end the game if its planner never returns. `None`: the session did
    /// so while this call was away in the planner.
    fn play(&self, job: GameJob, lane: &Lane) -> Option<Finished>;
}

/// The counters a session advances while it runs.
#[derive(Clone, Debug, Default)]
pub struct SessionProgress {
    /// Games finished in this run (its total: the games left to play, 0 if unbounded).
    pub games: Progress,
    /// Ticks played, over all games.
    pub(crate) ticks: Progress,
    pub won: Progress,
    /// Every other outcome.
    pub not_won: Progress,
    /// Per entry, its totals so far: what a live metrics file shows.
    pub entries: LiveTotals,
    /// A session's test: its LLR as games are counted, and its bounds.
    pub sprt: Option<(LlrGauge, Bounds)>,
}

/// Per entry of a running session: its name, the games this run's shard
/// plays of it (if bounded) and its totals so far, those recorded before a
/// resume included. Set when the session starts and updated once per
/// recorded game (never per tick), for a reader on another thread.
#[derive(Clone, Debug, Default)]
pub struct LiveTotals(Arc<Mutex<Vec<LiveEntry>>>);

/// One entry's line of [`LiveTotals`].
#[derive(Clone, Debug, PartialEq)]
pub struct LiveEntry {
    pub name: String,
    pub expected: Option<u64>,
    pub totals: Totals,
}

impl LiveTotals {
    /// A copy of every entry's line, in the session's order.
    pub fn snapshot(&self) -> Vec<LiveEntry> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    pub(crate) fn set(&self, entries: Vec<LiveEntry>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = entries;
    }

    /// Counts one recorded game of entry `number`. A std mutex in the async
    /// loop: held for one addition, never across an await, and the reader
    /// holds it only to clone a line per entry.
    pub(crate) fn update(&self, number: usize, add: impl FnOnce(&mut Totals)) {
        if let Some(entry) = self.0.lock().unwrap_or_else(PoisonError::into_inner).get_mut(number) {
            add(&mut entry.totals);
        }
    }
}

/// One game to play.
#[derive(Debug)]
pub struct GameJob {
    /// The entry's place in the session, and its name.
    pub(super) entry_number: usize,
    pub(super) entry: Arc<str>,
    pub(super) index: u64,
    pub(super) seed: u64,
    pub(super) replay_path: Option<PathBuf>,
    pub(super) keep: Keep,
    /// A game stopped by the session is recorded as aborted (one game
    /// played alone), not dropped (a session, which plays it again on
    /// resume).
    pub(super) record_interrupted: bool,
}

/// When a written replay is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Keep {
    Always,
    /// Deleted when the game is won.
    UnlessWon,
}
