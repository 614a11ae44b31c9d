//! `astar`: the heuristic search of the pipe write-up (Tien-Nam-Nguyen/
//! Pipe-Puzzle, `Pipe_puzzle/AI introduction assignment 1.md` at commit
//! `e0d80caaceb7c3b91f9dafdee311c20061381169`), in two versions. g counts
//! the moves made (a half turn counts as one); h is the write-up's measure
//! of the state: open ends / 2 + dry tiles + 5 × ends into a wall + 5 ×
//! facing dead-end pairs + 3 × loops. h is not admissible, so a plan is not
//! always the shortest. Boards of at most 64 tiles.
//!
//! **The write-up's** ([`Variant::WriteUp`], `--write-up`) is its printed
//! pseudocode exactly:
//! - successors in the order of its three loops: every tile turned
//!   clockwise, then every tile anticlockwise, then every tile a half turn
//!   (tiles in row-major order, see `dfs`);
//! - a successor joins the open list (`checking_states`) unless it is on the
//!   closed list (`visited`); the open list is not checked, so a state may
//!   be on it several times, with different g, and be expanded once per copy
//!   chosen;
//! - the state chosen is the one of least g + h, and among equals the **most
//!   recently added** (the printed scan keeps the last with `fn <= curr_min`);
//!   it goes on the closed list and is tested for the goal (h = 0); the
//!   start is tested too; the search ends when the open list is empty right
//!   after a choice (we call the board unsolved unless that state is the
//!   goal);
//! - h uses the plain division `num_opened_head / 2`. An open end is an end
//!   facing a neighbour with no pipe back; an end into the wall counts in the
//!   wall term only. The write-up says the open-end count is always even,
//!   which holds only if ends into the wall count as open ends too (as the
//!   write-up's program counts them, in `core.py`): with that reading h is
//!   always whole. We follow the printed formula with the first reading, so
//!   h may end in a half; on `maps/pipes/7x7-flat.txt` the other reading
//!   expands 2,459 states (1,495 distinct) instead of 1,315 (869). The other
//!   bundled boards below give the same counts under both readings;
//! - the plan is its search path (`list_of_steps`), each step played as in
//!   `dfs`.
//!
//! Its `plan` event gives `nodes`, the states expanded, and `distinct`, the
//! distinct states on the closed list: 9 / 10 on `3x3-flat`, 12 / 13 on
//! `3x3-wrap`, 5,969 / 1,184 on `4x4-flat`, 28 / 29 on `5x5-flat`.
//!
//! **Ours** ([`Variant::Ours`], the default) changes:
//! - it keeps the best g seen per state and skips a worse or equal copy, so
//!   no state is expanded twice with the same or a worse g (on `4x4-flat`
//!   the write-up's version expands five times as many states as it has);
//! - ties on g + h go to the least h, then the smaller packed state: a
//!   heap, not a scan of the whole open list per step, and closer to the
//!   goal first;
//! - h rounds the half up, so h is a whole number and one open end still
//!   counts;
//! - it plays the goal it finds as at most one move per tile.
//!
//! Both give up at a state budget (`--max-states`, default 2,000,000), which
//! is ours: ours counts the distinct states it holds, the write-up's version
//! the states on its open and closed lists, copies included (the write-up's
//! program's "stored states").

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap, HashSet};

use crate::game::pipes::plan::dfs::{
    BUDGET_POLL_STATES, Found, SearchTree, WRITE_UP_TURNS, play_search, small_board, write_up_limits,
};
use crate::game::pipes::plan::moves_between;
use crate::game::pipes::plan::small::MAX_SMALL_TILES;
use crate::game::pipes::{PipesGame, Rotate};
use crate::plan::{Budget, Decision, PlanError, Planner, StoredPlan, Variant};

/// The `astar` planner.
#[derive(Debug)]
pub struct AStar {
    max_states: u64,
    variant: Variant,
    plan: StoredPlan<PipesGame>,
}

impl AStar {
    /// The heuristic search in `variant`'s version, giving up once it holds
    /// `max_states` states (ours counts distinct states, the write-up's the
    /// entries of its open and closed lists).
    pub fn new(max_states: u64, variant: Variant) -> AStar {
        AStar { max_states, variant, plan: StoredPlan::default() }
    }
}

/// Our A* from the tiles as they are in `game`.
pub(crate) fn search(game: &PipesGame, max_states: u64, budget: &Budget) -> Result<Found, PlanError> {
    let board = small_board(game, "astar")?;
    let n = board.n_tiles();
    let mut masks = [0u8; MAX_SMALL_TILES];
    let mut heuristic = |state: u128| -> u32 {
        board.masks(state, &mut masks);
        board.measure(&masks).heuristic()
    };
    // Best g seen per state; the heap holds (f, h, state) with stale entries
    // skipped when popped.
    let mut best_g: HashMap<u128, u32> = HashMap::new();
    let mut open: BinaryHeap<Reverse<(u32, u32, u128)>> = BinaryHeap::new();
    best_g.insert(0, 0);
    let h0 = heuristic(0);
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
                let h = heuristic(next);
                open.push(Reverse((g + 1 + h, h, next)));
            }
        }
        if best_g.len() as u64 >= max_states {
            return Err(PlanError::GaveUp(format!("gave up after {} states", best_g.len())));
        }
    };
    board.masks(goal, &mut masks);
    Ok(Found { moves: moves_between(game.tiles(), &masks[..n]), expanded, distinct: best_g.len() as u64 })
}

/// A state on the write-up's open list.
#[derive(Clone, Copy, Debug)]
struct Open {
    /// 2 (g + h): doubled, so that h's half stays exact.
    f_doubled: u32,
    /// When it was added: among equal f the latest is chosen.
    added: u64,
    state: u128,
    g: u32,
    h_doubled: u32,
    parent: u32,
    step: Rotate,
}

impl Open {
    /// The heap's order: the greatest is the least f, then the latest added.
    fn key(&self) -> (Reverse<u32>, u64) {
        (Reverse(self.f_doubled), self.added)
    }
}

impl PartialEq for Open {
    fn eq(&self, other: &Open) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Open {}

impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Open) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Open {
    fn cmp(&self, other: &Open) -> Ordering {
        self.key().cmp(&other.key())
    }
}

/// The write-up's A* from the tiles as they are in `game`.
pub(crate) fn search_write_up(game: &PipesGame, max_states: u64, budget: &Budget) -> Result<Found, PlanError> {
    let board = small_board(game, "astar")?;
    let n = board.n_tiles();
    let mut masks = [0u8; MAX_SMALL_TILES];
    let mut heuristic_doubled = |state: u128| -> u32 {
        board.masks(state, &mut masks);
        board.measure(&masks).heuristic_doubled()
    };
    let mut visited: HashSet<u128> = HashSet::from([0]);
    let mut tree = SearchTree::new();
    let mut open: BinaryHeap<Open> = BinaryHeap::new();
    let (mut state, mut g, mut h_doubled, mut record) = (0u128, 0u32, heuristic_doubled(0), SearchTree::ROOT);
    let (mut expanded, mut added) = (0u64, 0u64);
    let no_solution = |expanded: u64| {
        PlanError::GaveUp(format!("no solution: the open list ran empty after {expanded} states expanded"))
    };
    while h_doubled != 0 {
        expanded += 1;
        for turn in WRITE_UP_TURNS {
            for tile in 0..n {
                let next = board.turn(state, tile, turn.quarter_turns());
                if visited.contains(&next) {
                    continue;
                }
                let next_h_doubled = heuristic_doubled(next);
                added += 1;
                open.push(Open {
                    f_doubled: 2 * (g + 1) + next_h_doubled,
                    added,
                    state: next,
                    g: g + 1,
                    h_doubled: next_h_doubled,
                    parent: record,
                    step: Rotate { tile: tile as u32, turn },
                });
            }
        }
        let Some(chosen) = open.pop() else { return Err(no_solution(expanded)) };
        (state, g, h_doubled) = (chosen.state, chosen.g, chosen.h_doubled);
        record = tree.push(chosen.parent, chosen.step);
        visited.insert(state);
        if open.is_empty() {
            // The printed loop breaks here without testing the state chosen.
            if h_doubled == 0 {
                break;
            }
            return Err(no_solution(expanded));
        }
        write_up_limits((open.len() + tree.len()) as u64, expanded, max_states, budget)?;
    }
    Ok(Found { moves: tree.path_to(record), expanded, distinct: visited.len() as u64 })
}

impl Planner<PipesGame> for AStar {
    fn name(&self) -> &'static str {
        "astar"
    }

    fn params(&self) -> Vec<(String, String)> {
        let mut params = vec![("max_states".to_string(), self.max_states.to_string())];
        if self.variant == Variant::WriteUp {
            params.push(("write_up".to_string(), "true".to_string()));
        }
        params
    }

    fn next_action(&mut self, game: &PipesGame, budget: &Budget) -> Result<Decision<Rotate>, PlanError> {
        let (max_states, variant) = (self.max_states, self.variant);
        play_search(&mut self.plan, game, "astar", || match variant {
            Variant::Ours => search(game, max_states, budget),
            Variant::WriteUp => search_write_up(game, max_states, budget),
        })
    }
}
