//! The `Game` trait every tick-based environment implements, and the shared
//! vocabulary around it (status, outcome, state hashing, illegal actions).
//!
//! Nothing in `game/` knows about tokio, files, the replay codec, tracing
//! subscribers or wall-clock time: a game is a pure function of its
//! configuration, its seed and the actions it is given.

mod dir;
pub mod flag;
pub mod locm;
pub mod picture;
pub mod pipes;
pub mod slide;
pub mod snake;

use std::fmt;

pub use dir::Dir;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

/// The rules of a tick-based game: built from a validated configuration
/// and a seed, stepped one action per tick. This is all a planner sees and
/// all a new game must write before its first test runs; how replays write
/// it ([`Wire`]) and how people see it ([`Show`]) are traits of their own.
pub trait Game: Clone + Send + 'static {
    /// The validated level and rules. Embedded whole in every replay header.
    type Config: Clone + fmt::Debug + Send + Sync + 'static;
    /// One decision. Replays store it as its [`Wire::action_code`].
    type Action: Copy + Eq + fmt::Debug + fmt::Display + Send + 'static;

    /// The game's name on the command line and in replays (`"snake"`).
    const NAME: &'static str;

    /// The initial state. All randomness the game will ever use is derived
    /// from `seed` here.
    fn new(config: &Self::Config, seed: u64) -> Self;

    /// The actions that [`Game::step`] accepts now, appended to `out` (which
    /// the caller clears and reuses). Empty once the game is over.
    fn legal_actions(&self, out: &mut Vec<Self::Action>);

    /// Plays one tick. An action that is not legal now is rejected and the
    /// state is left untouched.
    fn step(&mut self, action: Self::Action) -> Result<(), IllegalAction>;

    /// Whether the game goes on, and if not, how it ended.
    fn status(&self) -> Status;

    /// Ticks played so far.
    fn tick(&self) -> u32;

    /// The game's own measure of progress (Snake: its length).
    fn score(&self) -> i64;

    /// Feeds the canonical byte encoding of the full state to `hasher`. Two
    /// states that can behave differently in future must encode differently.
    fn hash_state(&self, hasher: &mut StateHasher);

    /// xxh3-64 of the canonical encoding: the hash replays record per tick.
    fn state_hash(&self) -> u64 {
        let mut hasher = StateHasher::new();
        self.hash_state(&mut hasher);
        hasher.finish()
    }
}

/// How a replay writes a game: its configuration in the header and one
/// integer code per action. Part of the replay format: a code, once given,
/// stands for the same action forever.
pub trait Wire: Game {
    /// The stable integer that stands for `action` in a replay.
    fn action_code(action: Self::Action) -> u32;

    /// The inverse of [`Wire::action_code`]; `None` for a code no action has.
    fn action_from_code(code: u32) -> Option<Self::Action>;

    /// Every action code of a game on `config` is below this bound (codes
    /// below it may still stand for no action). Replays of format version 2
    /// store each action in the fewest bits that hold every code below it.
    fn action_code_bound(config: &Self::Config) -> u32;

    /// Wraps `config` for a replay header.
    fn spec(config: &Self::Config) -> GameSpec;

    /// The inverse of [`Wire::spec`]: the configuration in `spec` if it is
    /// this game's.
    fn config_of(spec: GameSpec) -> Option<Self::Config>;
}

/// How people see a game: as text, as plain data, as tiles, and its level
/// in a line. Views only: nothing here feeds a state hash or a replay.
pub trait Show: Game {
    /// The state as plain data, for `replay export --states`. Never hashed
    /// and never stored in a replay, so its shape may change freely.
    type Snapshot: Serialize;

    /// A human-readable picture of the state, ending in a newline.
    fn render(&self) -> String;

    /// The state as [`Show::Snapshot`]: what changes during a game (the
    /// level itself is in the replay header).
    fn snapshot(&self) -> Self::Snapshot;

    /// The board drawn as tiles for the viewers (`replay render`).
    fn draw(&self) -> picture::Picture;

    /// A one-line description of the level and rules, for reports.
    fn describe(config: &Self::Config) -> String;
}

/// A game with all three traits: what sessions, replays and viewers need.
/// Every game implements it through the blanket impl below.
pub trait Replayable: Game + Wire + Show {}

impl<G: Game + Wire + Show> Replayable for G {}

/// The configuration of any game, as a replay header stores it. Appending a
/// variant keeps old replays readable; reordering variants breaks them.
/// Deserializing a variant validates it, so a hostile replay cannot build an
/// unplayable game. Each variant is stored as its game's `*Setup`: see
/// `replay::format` for what may not change without a format version bump.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GameSpec {
    Snake(snake::Config),
    Flag(flag::Config),
    Slide(slide::Config),
    Pipes(pipes::Config),
    Locm(locm::Config),
}

/// Code that works with any game, given the concrete type at run time:
/// [`GameSpec::visit`] calls [`GameVisitor::visit`] with the right `G`. This
/// is the one `match` over games that replay verification and display need.
pub trait GameVisitor {
    type Output;
    fn visit<G: Replayable>(self, config: &G::Config) -> Self::Output;
}

impl GameSpec {
    pub fn name(&self) -> &'static str {
        match self {
            GameSpec::Snake(_) => snake::SnakeGame::NAME,
            GameSpec::Flag(_) => flag::FlagGame::NAME,
            GameSpec::Slide(_) => slide::SlideGame::NAME,
            GameSpec::Pipes(_) => pipes::PipesGame::NAME,
            GameSpec::Locm(_) => locm::LocmGame::NAME,
        }
    }

    pub fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        match self {
            GameSpec::Snake(config) => visitor.visit::<snake::SnakeGame>(config),
            GameSpec::Flag(config) => visitor.visit::<flag::FlagGame>(config),
            GameSpec::Slide(config) => visitor.visit::<slide::SlideGame>(config),
            GameSpec::Pipes(config) => visitor.visit::<pipes::PipesGame>(config),
            GameSpec::Locm(config) => visitor.visit::<locm::LocmGame>(config),
        }
    }
}

/// Whether a game is still running, and if not, how it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Running,
    Over(Outcome),
}

/// How a game ended, with a short reason a person can read. Part of the
/// replay format (a footer stores it): see `replay::format`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    pub kind: OutcomeKind,
    pub reason: String,
}

/// The ways a game can end. Only the first three come from a game's own
/// rules: the session ends a game early as `Aborted` (Ctrl-C while playing
/// one game, a planner that gives up) or with a planner fault: `Panic`,
/// `Timeout` (over its per-move budget) or `Illegal` (it proposed an
/// action the rules refuse). Part of the replay format, by variant index:
/// new kinds go at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutcomeKind {
    Won,
    Lost,
    Stalled,
    Aborted,
    Panic,
    Timeout,
    Illegal,
}

impl Outcome {
    pub(crate) fn new(kind: OutcomeKind, reason: impl Into<String>) -> Outcome {
        Outcome { kind, reason: reason.into() }
    }
}

impl OutcomeKind {
    /// Whether the session, not the game's rules, ended the game.
    pub(crate) fn ended_early(self) -> bool {
        matches!(self, OutcomeKind::Aborted | OutcomeKind::Panic | OutcomeKind::Timeout | OutcomeKind::Illegal)
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            OutcomeKind::Won => "won",
            OutcomeKind::Lost => "lost",
            OutcomeKind::Stalled => "stalled",
            OutcomeKind::Aborted => "aborted",
            OutcomeKind::Panic => "panic",
            OutcomeKind::Timeout => "timeout",
            OutcomeKind::Illegal => "illegal",
        }
    }
}

impl fmt::Display for OutcomeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.kind, self.reason)
    }
}

/// An action [`Game::step`] refused, with why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal action {action} at tick {tick}: {reason}")]
pub struct IllegalAction {
    pub(crate) action: String,
    pub(crate) tick: u32,
    pub(crate) reason: &'static str,
}

/// Streams a state's canonical encoding into xxh3-64 without allocating.
/// Integers are written little-endian at their declared width, so the hash is
/// the same on every platform. Small writes gather in a buffer that goes to
/// xxh3 a block at a time: a state is hashed on every recorded tick, mostly
/// as many two- and four-byte writes, and xxh3's streaming update costs far
/// more per call than per byte. The hash is of the same bytes either way.
#[derive(Clone)]
pub struct StateHasher {
    inner: Xxh3,
    /// Bytes not yet given to `inner`: the first `len` of `buffer`.
    buffer: [u8; HASH_BUFFER],
    len: usize,
    /// Whether `inner` has been given anything: if not, the buffer is
    /// hashed in one call (xxh3's one-shot and streaming forms agree).
    streamed: bool,
}

/// The hasher's buffer: one xxh3 block (a multiple of its 64-byte stripe).
const HASH_BUFFER: usize = 256;

impl fmt::Debug for StateHasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StateHasher")
    }
}

impl Default for StateHasher {
    fn default() -> Self {
        StateHasher::new()
    }
}

impl StateHasher {
    pub(crate) fn new() -> StateHasher {
        StateHasher { inner: Xxh3::new(), buffer: [0; HASH_BUFFER], len: 0, streamed: false }
    }
    #[inline]
    fn write<const N: usize>(&mut self, bytes: [u8; N]) {
        if self.len + N > HASH_BUFFER {
            self.inner.update(&self.buffer[..self.len]);
            self.len = 0;
            self.streamed = true;
        }
        self.buffer[self.len..self.len + N].copy_from_slice(&bytes);
        self.len += N;
    }
    pub(crate) fn u8(&mut self, value: u8) {
        self.write(value.to_le_bytes());
    }
    pub(crate) fn u16(&mut self, value: u16) {
        self.write(value.to_le_bytes());
    }
    pub(crate) fn u32(&mut self, value: u32) {
        self.write(value.to_le_bytes());
    }
    pub(crate) fn u64(&mut self, value: u64) {
        self.write(value.to_le_bytes());
    }
    pub(crate) fn u128(&mut self, value: u128) {
        self.write(value.to_le_bytes());
    }
    pub(crate) fn bytes(&mut self, value: &[u8]) {
        if self.len + value.len() <= HASH_BUFFER {
            self.buffer[self.len..self.len + value.len()].copy_from_slice(value);
            self.len += value.len();
        } else {
            self.inner.update(&self.buffer[..self.len]);
            self.len = 0;
            self.streamed = true;
            self.inner.update(value);
        }
    }
    pub(crate) fn finish(&self) -> u64 {
        if !self.streamed {
            return xxhash_rust::xxh3::xxh3_64(&self.buffer[..self.len]);
        }
        let mut inner = self.inner.clone();
        inner.update(&self.buffer[..self.len]);
        inner.digest()
    }
}

#[cfg(test)]
mod tests {
    use super::StateHasher;

    #[test]
    fn the_state_hasher_hashes_exactly_the_bytes_it_was_given_however_they_were_split() {
        // Writes of every width, and slices on both sides of the buffer's
        // size, against xxh3 of the same bytes laid end to end.
        for cells in [0usize, 1, 100, 127, 128, 129, 300, 1000] {
            for slice in [0usize, 1, 200, 255, 256, 257, 1000] {
                let mut hasher = StateHasher::new();
                let mut expected = Vec::new();
                hasher.u32(7);
                expected.extend(7u32.to_le_bytes());
                for cell in 0..cells {
                    hasher.u16(cell as u16);
                    expected.extend((cell as u16).to_le_bytes());
                    if cell % 50 == 3 {
                        hasher.u8(9);
                        expected.push(9);
                    }
                }
                let bytes: Vec<u8> = (0..slice).map(|byte| byte as u8).collect();
                hasher.bytes(&bytes);
                expected.extend(&bytes);
                hasher.u64(u64::MAX - 3);
                expected.extend((u64::MAX - 3).to_le_bytes());
                hasher.u128(1 << 100);
                expected.extend((1u128 << 100).to_le_bytes());
                assert_eq!(hasher.finish(), xxhash_rust::xxh3::xxh3_64(&expected), "{cells} cells, {slice} bytes");
            }
        }
    }
}
