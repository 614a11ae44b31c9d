//! `astar`: the write-up's heuristic search. g counts the moves made (a
//! half turn counts as one), h is the write-up's measure of the state
//! ([`Measures::heuristic`]: open ends / 2 + dry tiles + 5 × ends into a
//! wall + 5 × facing dead-end pairs + 3 × loops), and the open state with
//! the least g + h is expanded next (ties: least h, then the smaller packed
//! state, so the search is deterministic). h is not admissible, so the plan
//! is not always the shortest; the goal found is played as at most one move
//! per tile. Boards of at most 64 tiles; past its state budget it gives up
//! ("gave up after N states").

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::game::pipes::dfs::BUDGET_POLL_STATES;
use crate::game::pipes::small::{MAX_SMALL_TILES, Measures, SmallBoard};
use crate::game::pipes::{PipesGame, Rotate, moves_between};
use crate::plan::{Budget, Decision, Plan, PlanError, Planner, StoredPlan};

/// The `astar` planner.
#[derive(Debug)]
pub struct AStar {
    max_states: u64,
    plan: StoredPlan<PipesGame>,
}

impl AStar {
    /// A heuristic search that gives up once it holds `max_states` states.
    pub fn new(max_states: u64) -> AStar {
        AStar { max_states, plan: StoredPlan::default() }
    }
}

/// Runs A* from the tiles as they are in `game`: the solved masks and the
/// number of states it stored, or why it stopped.
pub(crate) fn search(game: &PipesGame, max_states: u64, budget: &Budget) -> Result<(Vec<u8>, u64), PlanError> {
    let config = game.config();
    let board = SmallBoard::new(config.grid(), config.source(), game.tiles()).ok_or_else(|| {
        PlanError::GaveUp(format!("astar handles boards of at most {MAX_SMALL_TILES} tiles, not {}", config.n_tiles()))
    })?;
    let n = board.n_tiles();
    let mut masks = [0u8; MAX_SMALL_TILES];
    let mut heuristic = |state: u128| -> Measures {
        board.masks(state, &mut masks);
        board.measure(&masks)
    };
    // Best g seen per state; the heap holds (f, h, state) with stale entries
    // skipped when popped.
    let mut best_g: HashMap<u128, u32> = HashMap::new();
    let mut open: BinaryHeap<Reverse<(u32, u32, u128)>> = BinaryHeap::new();
    best_g.insert(0, 0);
    let h0 = heuristic(0).heuristic();
    open.push(Reverse((h0, h0, 0)));
    let mut expanded = 0u64;
    let goal = loop {
        let Some(Reverse((f, h, state))) = open.pop() else {
            return Err(PlanError::GaveUp(format!("no solution: searched all {} states", best_g.len())));
        };
        let g = f - h;
        if best_g.get(&state).is_some_and(|&best| best < g) {
            continue;
        }
        if h == 0 {
            break state;
        }
        expanded += 1;
        if expanded % BUDGET_POLL_STATES == 0 {
            if let Some(error) = budget.exhausted() {
                return Err(error);
            }
        }
        for tile in 0..n {
            for quarter_turns in [1u8, 3, 2] {
                let next = board.turn(state, tile, quarter_turns);
                if next == state || best_g.get(&next).is_some_and(|&best| best <= g + 1) {
                    continue;
                }
                best_g.insert(next, g + 1);
                let h = heuristic(next).heuristic();
                open.push(Reverse((g + 1 + h, h, next)));
            }
        }
        if best_g.len() as u64 >= max_states {
            return Err(PlanError::GaveUp(format!("gave up after {} states", best_g.len())));
        }
    };
    board.masks(goal, &mut masks);
    Ok((masks[..n].to_vec(), best_g.len() as u64))
}

impl Planner<PipesGame> for AStar {
    fn name(&self) -> &'static str {
        "astar"
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![("max_states".to_string(), self.max_states.to_string())]
    }

    fn next_action(&mut self, game: &PipesGame, budget: &Budget) -> Result<Decision<Rotate>, PlanError> {
        let max_states = self.max_states;
        self.plan.next_action(game, || {
            let (goal, nodes) = search(game, max_states, budget)?;
            Ok(Plan { actions: moves_between(game.tiles(), &goal), kind: "astar", nodes })
        })
    }
}
