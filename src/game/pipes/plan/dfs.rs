//! `dfs`: the blind depth-first search of the pipe write-up (Tien-Nam-Nguyen/
//! Pipe-Puzzle, `Pipe_puzzle/AI introduction assignment 1.md` at commit
//! `e0d80caaceb7c3b91f9dafdee311c20061381169`), in two versions. A state is
//! the orientation of every tile; a successor turns one tile clockwise,
//! anticlockwise or a half turn; a visited set keeps the search from going
//! round in circles. Boards of at most 64 tiles; meant for 3×3.
//!
//! **The write-up's** ([`Variant::WriteUp`], `--write-up`) is its printed
//! pseudocode exactly:
//! - the successors of a state are every tile turned clockwise, then every
//!   tile turned anticlockwise, then every tile turned a half turn (tiles in
//!   row-major order: the write-up's program keeps them in the order its
//!   generator laid them, which a puzzle file does not record); every one
//!   not yet visited is pushed, and the **last** pushed is popped first;
//! - a state is marked visited and tested for the goal when it is
//!   **popped**, so a state may wait on the stack more than once, and is
//!   expanded once per pop;
//! - the start is tested like any popped state; the search ends when the
//!   stack is empty right after a pop (the printed code then plays the state
//!   it popped: we call the board unsolved unless that state is the goal);
//! - the plan is its search path, `list_of_steps`: every step from the start
//!   to the goal along the search tree, 20,108 moves on
//!   `maps/pipes/3x3-flat.txt`. A step is one of the write-up's three
//!   actions on one tile, `right`, `left` or `left left`, played as our
//!   clockwise, anticlockwise or half turn of that tile. No step is a no-op:
//!   a child that looks like its parent is already visited and never pushed.
//!
//! Its `plan` event gives `nodes`, the states expanded (20,108 on
//! `3x3-flat`, 19,788 on `3x3-wrap`), and `distinct`, the distinct states
//! popped, the start included.
//!
//! **Ours** ([`Variant::Ours`], the default) changes three things:
//! - it marks and tests a state when it is generated, so no state is stacked
//!   twice and the goal is seen as soon as it is made;
//! - it goes tile by tile (clockwise, anticlockwise, half turn of tile 0,
//!   then of tile 1, ...) and explores the first child first, with a stack
//!   of (state, next successor), so memory grows with the states visited,
//!   not with the successors generated;
//! - it plays the goal it finds as at most one move per tile (turns of
//!   different tiles commute), not the path the search took to it.
//!
//! Both give up at a state budget (`--max-states`, default 2,000,000), which
//! is ours: the write-up has none. Ours counts the distinct states visited;
//! the write-up's version counts the states it holds, those waiting on the
//! stack and those popped, as the write-up's program counts its "stored
//! states".

use std::collections::HashSet;

use crate::game::pipes::plan::moves_between;
use crate::game::pipes::plan::small::{MAX_SMALL_TILES, SmallBoard};
use crate::game::pipes::{PipesGame, Rotate, Turn};
use crate::plan::{Budget, Decision, Plan, PlanError, Planner, StoredPlan, Variant};

/// The state budget both searches default to.
pub(crate) const DEFAULT_MAX_STATES: u64 = 2_000_000;

/// How often (in states) the searches poll their time budget.
pub(crate) const BUDGET_POLL_STATES: u64 = 4096;

/// The write-up's order of the turns: all tiles `right` (clockwise), then
/// all `left` (anticlockwise), then all `left left` (a half turn).
pub(crate) const WRITE_UP_TURNS: [Turn; 3] = [Turn::Clockwise, Turn::Anticlockwise, Turn::Half];

/// The `dfs` planner.
#[derive(Debug)]
pub struct Dfs {
    max_states: u64,
    variant: Variant,
    plan: StoredPlan<PipesGame>,
}

impl Dfs {
    /// The blind search in `variant`'s version. Ours gives up after visiting
    /// `max_states` states, the write-up's once it holds `max_states` states.
    pub fn new(max_states: u64, variant: Variant) -> Dfs {
        Dfs { max_states, variant, plan: StoredPlan::default() }
    }
}

/// What a search found: the moves to play and its counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) moves: Vec<Rotate>,
    /// States expanded (their successors generated).
    pub(crate) expanded: u64,
    /// Distinct states the search held.
    pub(crate) distinct: u64,
}

/// The packed board of `game`, or why the searches cannot take it.
pub(crate) fn small_board(game: &PipesGame, name: &str) -> Result<SmallBoard, PlanError> {
    let config = game.config();
    SmallBoard::new(config.grid(), config.source(), game.tiles()).ok_or_else(|| {
        PlanError::GaveUp(format!("{name} handles boards of at most {MAX_SMALL_TILES} tiles, not {}", config.n_tiles()))
    })
}

/// The search tree of a write-up search: for each state it popped, the
/// state it was made from and the step that made it, so that the path to
/// any popped state can be read back.
#[derive(Debug, Default)]
pub(crate) struct SearchTree {
    parent: Vec<u32>,
    step: Vec<Rotate>,
}

impl SearchTree {
    /// The record of the start state.
    pub(crate) const ROOT: u32 = 0;

    pub(crate) fn new() -> SearchTree {
        // The root's step is never read.
        SearchTree { parent: vec![u32::MAX], step: vec![Rotate { tile: 0, turn: Turn::Clockwise }] }
    }

    /// Adds a popped state made from `parent` by `step`; its record.
    pub(crate) fn push(&mut self, parent: u32, step: Rotate) -> u32 {
        self.parent.push(parent);
        self.step.push(step);
        (self.parent.len() - 1) as u32
    }

    pub(crate) fn len(&self) -> usize {
        self.parent.len()
    }

    /// The steps from the start to `record`, in playing order.
    pub(crate) fn path_to(&self, mut record: u32) -> Vec<Rotate> {
        let mut steps = Vec::new();
        while record != Self::ROOT {
            steps.push(self.step[record as usize]);
            record = self.parent[record as usize];
        }
        steps.reverse();
        steps
    }
}

/// A state waiting on the write-up's stack, with where it came from.
#[derive(Clone, Copy, Debug)]
struct Pending {
    state: u128,
    parent: u32,
    step: Rotate,
}

/// The write-up searches' two stops, checked once per state taken: the
/// states held (stack or lists and the tree, copies included) against
/// `max_states`, and the budget every [`BUDGET_POLL_STATES`] states.
pub(crate) fn write_up_limits(held: u64, expanded: u64, max_states: u64, budget: &Budget) -> Result<(), PlanError> {
    if held >= max_states {
        return Err(PlanError::GaveUp(format!("gave up after {held} states ({expanded} expanded)")));
    }
    if expanded % BUDGET_POLL_STATES == 0 {
        if let Some(error) = budget.exhausted() {
            return Err(error);
        }
    }
    Ok(())
}

/// The write-up's search from the tiles as they are in `game`.
pub(crate) fn search_write_up(game: &PipesGame, max_states: u64, budget: &Budget) -> Result<Found, PlanError> {
    let board = small_board(game, "dfs")?;
    let n = board.n_tiles();
    let mut masks = [0u8; MAX_SMALL_TILES];
    let mut is_goal = |state: u128| {
        board.masks(state, &mut masks);
        board.measure(&masks).is_solved()
    };
    let mut visited: HashSet<u128> = HashSet::from([0]);
    let mut tree = SearchTree::new();
    let mut stack: Vec<Pending> = Vec::new();
    let (mut state, mut record) = (0u128, SearchTree::ROOT);
    let mut expanded = 0u64;
    let no_solution =
        |expanded: u64| PlanError::GaveUp(format!("no solution: the stack ran empty after {expanded} states expanded"));
    while !is_goal(state) {
        expanded += 1;
        for turn in WRITE_UP_TURNS {
            for tile in 0..n {
                let next = board.turn(state, tile, turn.quarter_turns());
                if !visited.contains(&next) {
                    stack.push(Pending { state: next, parent: record, step: Rotate { tile: tile as u32, turn } });
                }
            }
        }
        // The printed code pops without looking: on an empty stack it would fail.
        let Some(popped) = stack.pop() else { return Err(no_solution(expanded)) };
        state = popped.state;
        record = tree.push(popped.parent, popped.step);
        visited.insert(state);
        if stack.is_empty() {
            // The printed loop breaks here without testing what it popped.
            if is_goal(state) {
                break;
            }
            return Err(no_solution(expanded));
        }
        write_up_limits((stack.len() + tree.len()) as u64, expanded, max_states, budget)?;
    }
    Ok(Found { moves: tree.path_to(record), expanded, distinct: visited.len() as u64 })
}

/// Our search from the tiles as they are in `game`.
pub(crate) fn search(game: &PipesGame, max_states: u64, budget: &Budget) -> Result<Found, PlanError> {
    let board = small_board(game, "dfs")?;
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
    let mut expanded = 0u64;
    while goal.is_none() {
        let Some(top) = stack.last_mut() else {
            return Err(PlanError::GaveUp(format!("no solution: searched all {} states", visited.len())));
        };
        let (state, successor) = *top;
        if successor as usize == 3 * n {
            stack.pop();
            continue;
        }
        if successor == 0 {
            expanded += 1;
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
    Ok(Found { moves: moves_between(game.tiles(), &masks[..n]), expanded, distinct: visited.len() as u64 })
}

impl Planner<PipesGame> for Dfs {
    fn name(&self) -> &'static str {
        "dfs"
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
        play_search(&mut self.plan, game, "dfs", || match variant {
            Variant::Ours => search(game, max_states, budget),
            Variant::WriteUp => search_write_up(game, max_states, budget),
        })
    }
}

/// The tick logic both searches share: search once, play the moves out, and
/// report the distinct states beside the states expanded.
pub(crate) fn play_search(
    plan: &mut StoredPlan<PipesGame>,
    game: &PipesGame,
    kind: &'static str,
    search: impl FnOnce() -> Result<Found, PlanError>,
) -> Result<Decision<Rotate>, PlanError> {
    let mut distinct = None;
    let mut decision = plan.next_action(game, || {
        let found = search()?;
        distinct = Some(found.distinct);
        Ok(Plan { actions: found.moves, kind, nodes: found.expanded })
    })?;
    if let Some(stats) = &mut decision.planned {
        stats.distinct = distinct;
    }
    Ok(decision)
}
