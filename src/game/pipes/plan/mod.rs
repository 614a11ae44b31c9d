//! The pipe puzzle's planners, and the registry that names them: every
//! command that plays Pipes (`play`, `run`, session files, `bench`) chooses
//! a planner and reads its flags through [`PlannerArgs`].
//!
//! - [`solve`]: constraint propagation and backtracking, complete and fast
//!   on any size (ours; the default).
//! - [`dfs`] and [`astar`]: the blind and the heuristic search of the pipe
//!   write-up, ours or exactly as printed (`--write-up`), on boards of at
//!   most 64 tiles, whose states [`small`] packs into one number.
//!
//! Also here, since only planners use it: [`moves_between`], the moves that
//! turn the board as dealt into a solution found.

pub mod astar;
pub mod dfs;
pub(crate) mod small;
pub mod solve;

use clap::{Args, ValueEnum};

use crate::game::pipes::{Config, PipesGame, Rotate, Turn, rotate_by};
use crate::plan::{ChoiceError, Planner, Variant};

/// The planner flags of every Pipes command.
#[derive(Clone, Debug, Args)]
pub struct PlannerArgs {
    /// The planner.
    #[arg(long, value_enum, default_value_t = PlannerName::Solve)]
    pub planner: PlannerName,
    /// dfs and astar give up after this many states (our budget; the write-up has none).
    #[arg(long, default_value_t = dfs::DEFAULT_MAX_STATES, value_name = "N")]
    pub(crate) max_states: u64,
    /// dfs and astar exactly as the write-up prints them: successors all
    /// clockwise, then all anticlockwise, then all half turns; visited and goal
    /// tested when a state is taken, not when made; astar's open list keeps
    /// copies and takes the latest of equal f; h with a plain division; the
    /// whole search path is played (20,108 moves for dfs on 3x3-flat). Default
    /// (ours): visited and goal tested when made, astar keeps the best g per
    /// state and breaks ties by least h, h rounds up, and the goal is played
    /// as at most one move per tile.
    #[arg(long)]
    pub(crate) write_up: bool,
}

impl Default for PlannerArgs {
    /// What the command line gives without planner flags.
    fn default() -> PlannerArgs {
        PlannerArgs { planner: PlannerName::Solve, max_states: dfs::DEFAULT_MAX_STATES, write_up: false }
    }
}

/// The pipe puzzle's planners by the names `--planner` takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum PlannerName {
    /// Constraint propagation and backtracking: complete and fast on any size.
    #[default]
    Solve,
    /// Blind depth-first search from the write-up (ours by default, --write-up for
    /// its own; boards up to 64 tiles; meant for 3x3).
    Dfs,
    /// A* with the write-up's heuristic (ours by default, --write-up for its own;
    /// boards up to 64 tiles).
    Astar,
}

impl PlannerArgs {
    /// Checks that the flags go together; call once, before
    /// [`PlannerArgs::make`]. Every combination is accepted: `solve` has no
    /// write-up version and no state budget, and goes without
    /// `--write-up` and `--max-states` when they are given.
    pub fn check(&self) -> Result<(), ChoiceError> {
        Ok(())
    }

    /// Checks that the chosen planner can play `level` at all, so that a
    /// board too large for it is refused before any game starts rather than
    /// aborting every game: `dfs` and `astar` pack a board into one number
    /// and take at most [`small::MAX_SMALL_TILES`] tiles.
    pub fn check_level(&self, level: &Config) -> Result<(), ChoiceError> {
        let name = match self.planner {
            PlannerName::Solve => return Ok(()),
            PlannerName::Dfs => "dfs",
            PlannerName::Astar => "astar",
        };
        let tiles = level.n_tiles();
        if tiles > small::MAX_SMALL_TILES {
            return Err(ChoiceError::new(format!(
                "--planner {name} handles boards of at most {} tiles (8x8), not {tiles}: give a smaller --map, or \
                 play this board with --planner solve",
                small::MAX_SMALL_TILES
            )));
        }
        Ok(())
    }

    /// A fresh planner for one game on `level` (one planner plays one game).
    /// No planner needs to see the level before its first move.
    pub fn make(&self, _level: &Config) -> Box<dyn Planner<PipesGame>> {
        let variant = Variant::write_up_if(self.write_up);
        match self.planner {
            PlannerName::Solve => Box::new(solve::Solve::new()),
            PlannerName::Dfs => Box::new(dfs::Dfs::new(self.max_states, variant)),
            PlannerName::Astar => Box::new(astar::AStar::new(self.max_states, variant)),
        }
    }
}

/// The moves that turn `from` into `to`, tile by tile (at most one per
/// tile, since turns of different tiles commute).
/// `to[i]` must be a rotation of `from[i]`.
pub(crate) fn moves_between(from: &[u8], to: &[u8]) -> Vec<Rotate> {
    let mut moves = Vec::new();
    for (tile, (&start, &goal)) in from.iter().zip(to).enumerate() {
        let quarter_turns = (0..4).find(|&turns| rotate_by(start, turns) == goal).unwrap_or(0);
        if let Some(turn) = Turn::from_quarter_turns(quarter_turns) {
            moves.push(Rotate { tile: tile as u32, turn });
        }
    }
    moves
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_between_takes_the_shortest_turn() {
        assert_eq!(
            moves_between(&[1, 1, 1, 1, 5], &[1, 2, 4, 8, 5]),
            vec![
                Rotate { tile: 1, turn: Turn::Clockwise },
                Rotate { tile: 2, turn: Turn::Half },
                Rotate { tile: 3, turn: Turn::Anticlockwise },
            ]
        );
    }
}
