//! `dfs`: the write-up's blind search. A state is the orientation of every
//! tile; its successors turn one tile clockwise, anticlockwise or twice; a
//! visited set keeps it from going round in circles, and it stops at the
//! first solved state it meets. Meant for 3×3 boards: past its state budget
//! it gives up ("gave up after N states") rather than run for ever.
//!
//! The search is depth-first with an explicit stack of (state, next
//! successor), so memory grows with the states visited, not with the
//! successors generated. The goal it finds is played as at most one move
//! per tile (turns of different tiles commute), however long the path the
//! search took to it.

use std::collections::HashSet;

use crate::game::pipes::small::{MAX_SMALL_TILES, SmallBoard};
use crate::game::pipes::{PipesGame, Rotate, moves_between};
use crate::plan::{Budget, Decision, Plan, PlanError, Planner, StoredPlan};

/// The state budget both write-up searches default to.
pub const DEFAULT_MAX_STATES: u64 = 2_000_000;

/// How often (in states) the searches poll their time budget.
pub(crate) const BUDGET_POLL_STATES: u64 = 4096;

/// The `dfs` planner.
#[derive(Debug)]
pub struct Dfs {
    max_states: u64,
    plan: StoredPlan<PipesGame>,
}

impl Dfs {
    /// A blind search that gives up after visiting `max_states` states.
    pub fn new(max_states: u64) -> Dfs {
        Dfs { max_states, plan: StoredPlan::default() }
    }
}

/// Runs the blind search from the tiles as they are in `game`: the solved
/// masks and the number of states visited, or why it stopped.
pub(crate) fn search(game: &PipesGame, max_states: u64, budget: &Budget) -> Result<(Vec<u8>, u64), PlanError> {
    let config = game.config();
    let board = SmallBoard::new(config.grid(), config.source(), game.tiles()).ok_or_else(|| {
        PlanError::GaveUp(format!("dfs handles boards of at most {MAX_SMALL_TILES} tiles, not {}", config.n_tiles()))
    })?;
    let n = board.n_tiles();
    let mut masks = [0u8; MAX_SMALL_TILES];
    let mut visited: HashSet<u128> = HashSet::new();
    // Frames: a state and the index of its next successor (tile * 3 + turn).
    let mut stack: Vec<(u128, u32)> = Vec::new();
    let mut visit = |state: u128, visited: &mut HashSet<u128>| -> Option<bool> {
        if !visited.insert(state) {
            return None;
        }
        board.masks(state, &mut masks);
        Some(board.measure(&masks).is_solved())
    };
    let mut goal = None;
    if visit(0, &mut visited) == Some(true) {
        goal = Some(0);
    }
    stack.push((0, 0));
    while goal.is_none() {
        let Some(top) = stack.last_mut() else {
            return Err(PlanError::GaveUp(format!("no solution: searched all {} states", visited.len())));
        };
        let (state, successor) = *top;
        if successor as usize == 3 * n {
            stack.pop();
            continue;
        }
        top.1 += 1;
        let (tile, quarter_turns) = (successor as usize / 3, [1u8, 3, 2][successor as usize % 3]);
        let next = board.turn(state, tile, quarter_turns);
        match visit(next, &mut visited) {
            None => continue,
            Some(true) => goal = Some(next),
            Some(false) => stack.push((next, 0)),
        }
        let n_visited = visited.len() as u64;
        if n_visited >= max_states && goal.is_none() {
            return Err(PlanError::GaveUp(format!("gave up after {n_visited} states")));
        }
        if n_visited % BUDGET_POLL_STATES == 0 {
            if let Some(error) = budget.exhausted() {
                return Err(error);
            }
        }
    }
    let goal = goal.expect("the loop ends on a goal");
    board.masks(goal, &mut masks);
    Ok((masks[..n].to_vec(), visited.len() as u64))
}

impl Planner<PipesGame> for Dfs {
    fn name(&self) -> &'static str {
        "dfs"
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![("max_states".to_string(), self.max_states.to_string())]
    }

    fn next_action(&mut self, game: &PipesGame, budget: &Budget) -> Result<Decision<Rotate>, PlanError> {
        let max_states = self.max_states;
        self.plan.next_action(game, || {
            let (goal, nodes) = search(game, max_states, budget)?;
            Ok(Plan { actions: moves_between(game.tiles(), &goal), kind: "dfs", nodes })
        })
    }
}
