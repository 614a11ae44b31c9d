//! Snake's planners, and the registry that names them: every command that
//! plays Snake (`play`, `run`, session files, `bench`) chooses a planner and
//! reads its flags through [`PlannerArgs`].
//!
//! - [`cycle`]: a Hamiltonian cycle through the body, rebuilt as it goes,
//!   with every shortcut it can prove safe (ours; the default).
//! - [`bfs_tail`]: shortest path to the food if the tail stays reachable,
//!   else follow the tail (ours), and [`write_up`], the 2013 program it
//!   improves on, exactly as written (`--write-up`).

pub mod bfs_tail;
pub mod cycle;
pub(crate) mod write_up;

use clap::{Args, ValueEnum};

use crate::game::snake::{Config, SnakeGame};
use crate::plan::{ChoiceError, Planner, Variant};

/// The planner flags of every Snake command.
#[derive(Clone, Debug, Default, Args)]
pub struct PlannerArgs {
    /// The planner. Default: cycle, or bfs-tail with --write-up.
    #[arg(long, value_enum)]
    pub planner: Option<PlannerName>,
    /// With --planner bfs-tail: play the 2013 write-up's program exactly (Hawstein's
    /// snake.py, transcribed with its tie-breaks), not our improved bfs-tail. It can
    /// chase its tail until the game stalls.
    #[arg(long)]
    pub(crate) write_up: bool,
}

/// Snake's planners by the names `--planner` takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum PlannerName {
    /// Never loses on any rectangle with an even side and on walled boards with a
    /// Hamiltonian cycle it finds: a cycle through the body, rebuilt as it goes, with
    /// every shortcut to the food it can prove safe. Odd x odd: wins every game under
    /// tail vacates, sure of all cells but two under tail blocks. Boards with no cycle
    /// (a dead end, or the search gives up): plays as bfs-tail
    #[default]
    Cycle,
    /// BFS to the food, accepted only if the tail stays reachable; else follow the tail.
    BfsTail,
}

impl PlannerArgs {
    /// The planner these flags choose.
    pub(crate) fn name(&self) -> PlannerName {
        self.planner.unwrap_or(if self.write_up { PlannerName::BfsTail } else { PlannerName::Cycle })
    }

    /// Checks that the flags go together; call once, before [`PlannerArgs::make`].
    pub fn check(&self) -> Result<(), ChoiceError> {
        if self.write_up && self.name() == PlannerName::Cycle {
            return Err(ChoiceError::new(
                "--write-up plays bfs-tail's 2013 program; it does not apply to --planner cycle",
            ));
        }
        Ok(())
    }

    /// A fresh planner for one game on `level` (one planner plays one game).
    pub fn make(&self, level: &Config) -> Box<dyn Planner<SnakeGame>> {
        match (self.name(), Variant::write_up_if(self.write_up)) {
            (PlannerName::Cycle, _) => Box::new(cycle::Cycle::new(level)),
            (PlannerName::BfsTail, Variant::WriteUp) => Box::new(write_up::WriteUp::new(level)),
            (PlannerName::BfsTail, Variant::Ours) => Box::new(bfs_tail::BfsTail::new(level)),
        }
    }
}
