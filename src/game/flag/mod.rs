//! Reach the Flag: the crumbling-tile puzzle's rules, its map format and its
//! validated configuration.
//!
//! A grid of tiles: holes, fragile tiles (fall after one entry), cracked
//! tiles (fall after two), stones (never fall) and one flag (never falls, may
//! be crossed). The player moves one cell per tick onto a tile that has not
//! fallen; the start tile counts as entered once at tick 0. Won when every
//! fragile and cracked tile has fallen and the player stands on the flag;
//! lost when no move is left otherwise.
//!
//! - `setup`: the tiles, the unvalidated [`FlagSetup`] and the map format;
//! - `config`: the validated level, [`Config`];
//! - `state`: [`FlagGame`], a game in progress, and its moves;
//! - [`picture`]: how people see it;
//! - [`generate`] and [`designer`]: random solvable maps, laid by a walk
//!   that is their witness (no planner needed);
//! - [`plan`]: the planners and their registry.

mod config;
pub mod designer;
pub mod generate;
pub(crate) mod picture;
pub mod plan;
mod setup;
mod state;

pub use config::Config;
pub(crate) use config::NO_CELL;
pub use setup::{FlagSetup, Tile};
pub use state::FlagGame;
#[cfg(test)]
pub(crate) use state::play_moves;

pub(crate) use crate::game::Dir;

/// Largest board side we accept.
pub(crate) const MAX_SIDE: u16 = 64;
/// Largest number of cells we accept: planners keep per-cell scratch arrays
/// of this size on the stack, so a board never makes them allocate.
pub(crate) const MAX_CELLS: usize = 1024;

/// Writes `moves` as letters (`uurd...`), the form plans are printed in.
pub fn letters(moves: &[Dir]) -> String {
    moves.iter().map(|dir| dir.letter().to_ascii_lowercase()).collect()
}
