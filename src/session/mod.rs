//! The session runner: the only async module. A session plays the games of
//! its entries (each a game, its levels and a planner) in a fixed order
//! (`schedule`) on `jobs` worker threads, each game's ticks on one thread
//! under a per-move budget, with an async loop that watches the workers,
//! commits finished games in groups (their replays synced, then one synced
//! write of their JSON lines to the results file of its directory,
//! `store`) and keeps only running totals in memory. A planner fault
//! (panic, over its budget, an illegal action, no answer at all) ends its
//! game with an outcome of its own and the session goes on.
//!
//! A session stops starting games on shutdown, at its deadline, or when a
//! results line or replay cannot be written; in the first and last cases
//! the running games are stopped, and neither recorded nor kept (their
//! `.part` replays are deleted), so a resumed session plays them again and
//! ends with exactly the results of an uninterrupted one.
//!
//! Its files: `entry.rs` (what a session plays: its config and entries),
//! `workers.rs` (the worker threads, where they take games from, the
//! watchdog's side of each game), `game.rs` (one game from start to
//! record), `ticks.rs` (one game's tick loop), `commit.rs` (replays written
//! and made durable in groups with their results lines), `run.rs` (the
//! async loop, for a session and for one game alone), `report.rs` (each
//! game's record and the totals); and beside them the schedule, shards,
//! the session file (`spec`), the directory on disk (`store`) and `merge`.

mod commit;
mod entry;
mod game;
pub(crate) mod json_line;
pub mod merge;
mod report;
mod run;
pub(crate) mod schedule;
pub mod shard;
pub mod spec;
pub mod sprt;
pub mod store;
mod ticks;
mod workers;

use std::io;
use std::path::{Path, PathBuf};

use crate::rng::derive_seed;

pub use entry::{Entry, EntryPlayer, GameJob, LiveEntry, LiveTotals, SessionConfig, SessionProgress};
pub use game::GameEntry;
pub use report::{EntryReport, GameRecord, SessionReport, Totals};
pub use run::{play_one, run};
pub use schedule::{Schedule, Slot};
pub use shard::Shard;
pub use spec::{ReplayPolicy, SessionSpec};
pub use sprt::{SessionTest, SessionVerdict};
pub use store::{Manifest, Recovered, ResultsFile, SessionDir};
pub use workers::{Finished, Lane};
// What a worker's lane holds: named here, for `workers.rs` sits below
// `game.rs`, which plays on a lane.
use game::LiveGame;

/// The log target of the per-game events (`game_start`, `game_end`): a
/// terminal running a long session leaves them to the log file.
pub(crate) const GAME_EVENTS: &str = "tickbot::games";

/// The seed of game `index` of entry number `entry`: a pure function of
/// the three, so results never depend on scheduling.
pub(crate) fn game_seed(master_seed: u64, entry: usize, index: u64) -> u64 {
    derive_seed(derive_seed(master_seed, entry as u64), index)
}

/// The log a session keeps in step with its results: flushed before each
/// group commit, so that no game is recorded whose log lines were lost.
/// An error stops the session as a failed results write does.
pub trait SessionLog: Send + Sync {
    fn flush(&self) -> Result<(), SessionError>;
}

/// A game's id in results: its entry and index.
pub(crate) fn game_id(entry: &str, index: u64) -> String {
    // By hand, as `format!("{entry}/{index:06}")` would write it: its
    // padding cost a game of quick ticks a thousand instructions.
    let mut id = String::with_capacity(entry.len() + 1 + 6);
    id.push_str(entry);
    id.push('/');
    push_zero_padded(&mut id, index, 6);
    id
}

/// `number` in decimal, with leading zeros to `width` digits (as
/// `{number:0width$}` writes it, without a formatter): for game ids and
/// the per-game log lines' timestamps.
pub(crate) fn push_zero_padded(out: &mut String, number: u64, width: usize) {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(number);
    out.extend(std::iter::repeat_n('0', width.saturating_sub(digits.len())));
    out.push_str(digits);
}

/// Where game `index` of `entry` keeps its replay under a replay folder.
pub(crate) fn replay_path(dir: &Path, entry: &str, index: u64) -> PathBuf {
    dir.join(entry).join(format!("{index:06}.tbr"))
}

/// Why a session (or one of its games) failed outside the game's rules.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot write the replay {path}: {cause}")]
    Replay { path: PathBuf, cause: io::Error },
    #[error("cannot write the results file {path}: {cause}")]
    Results { path: PathBuf, cause: io::Error },
    #[error("cannot write the log file {path}: {cause}")]
    Log { path: PathBuf, cause: io::Error },
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

#[cfg(test)]
mod tests {
    #[test]
    fn game_ids_are_the_entry_and_the_index_padded_to_six_digits() {
        for index in [0, 7, 42, 99_999, 999_999, 1_000_000, 12_345_678, u64::MAX] {
            assert_eq!(super::game_id("locm", index), format!("locm/{index:06}"));
        }
        assert_eq!(super::game_id("a/b", 3), "a/b/000003");
    }
}
