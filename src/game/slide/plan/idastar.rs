//! The `idastar` planner: IDA* over blank-first boards with the additive
//! pattern databases of `pdb/`, maximised with the transposed lookup.
//! Optimal.
//!
//! The inner loop allocates nothing and logs nothing: the board, the tile
//! positions per group (for the board and for its transpose) and the path
//! live in fixed arrays; a move re-looks-up only the moved tile's group on
//! each side; the neighbour table is precomputed; the move that undoes the
//! previous one is never tried. The budget is polled every 4096 nodes.

use std::sync::Arc;

use super::canonical::Canonical;
use super::pdb::{PdbSet, transpose_cell};
use crate::game::slide::{Board, Dir, MAX_CELLS, SlideGame, neighbour};
use crate::plan::{Budget, Decision, Plan, PlanError, Planner, Stopped, StoredPlan};

/// Groups a partition may have, and tiles a group may have.
const MAX_GROUPS: usize = 4;
const MAX_GROUP_TILES: usize = 8;
/// Longer than any optimal solution of a 24-puzzle (at most 208 moves).
const MAX_DEPTH: usize = 256;
/// Nodes between two looks at the budget.
const POLL_EVERY: u64 = 4096;

/// An optimal solution on the canonical (blank-first) board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Solution {
    /// Blank moves on the canonical board.
    pub(crate) moves: Vec<Dir>,
    /// Nodes expanded over all iterations.
    pub(crate) nodes: u64,
}

/// Solves `board` (blank-first goal, `tables.side()` wide) optimally.
pub(crate) fn solve(tables: &PdbSet, board: &Board, budget: &Budget) -> Result<Solution, Stopped> {
    let mut search = Search::new(tables, board, budget);
    let mut bound = search.h();
    loop {
        let next_bound = search.dfs(0, bound, usize::MAX);
        if let Some(error) = search.stopped.take() {
            return Err(Stopped { error, nodes: search.nodes });
        }
        if search.found {
            let moves = search.path[..search.solution_len].iter().map(|&dir| Dir::ALL[usize::from(dir)]).collect();
            return Ok(Solution { moves, nodes: search.nodes });
        }
        if next_bound == u32::MAX || next_bound as usize >= MAX_DEPTH {
            let error = PlanError::GaveUp(format!("no solution within {MAX_DEPTH} moves"));
            return Err(Stopped { error, nodes: search.nodes });
        }
        bound = next_bound;
    }
}

struct Search<'a> {
    tables: &'a PdbSet,
    budget: &'a Budget,
    moves: [[u8; 4]; MAX_CELLS],
    /// `transpose[x]`: the transposed cell of cell `x`, and equally the
    /// transposed label of tile `x`.
    transpose: [u8; MAX_CELLS],
    board: Board,
    blank: u8,
    group_len: [usize; MAX_GROUPS],
    positions: [[u8; MAX_GROUP_TILES]; MAX_GROUPS],
    transposed_positions: [[u8; MAX_GROUP_TILES]; MAX_GROUPS],
    group_h: [u8; MAX_GROUPS],
    transposed_group_h: [u8; MAX_GROUPS],
    sum: u32,
    transposed_sum: u32,
    path: [u8; MAX_DEPTH],
    solution_len: usize,
    found: bool,
    stopped: Option<PlanError>,
    nodes: u64,
}

impl<'a> Search<'a> {
    fn new(tables: &'a PdbSet, board: &Board, budget: &'a Budget) -> Search<'a> {
        let side = tables.side();
        let n = side * side;
        let mut moves = [[u8::MAX; 4]; MAX_CELLS];
        let mut transpose = [0u8; MAX_CELLS];
        for cell in 0..n {
            for dir in Dir::ALL {
                if let Some(next) = neighbour(side, cell, dir) {
                    moves[usize::from(cell)][usize::from(dir.code())] = next;
                }
            }
            transpose[usize::from(cell)] = transpose_cell(side, cell);
        }
        let mut search = Search {
            tables,
            budget,
            moves,
            transpose,
            board: *board,
            blank: board[..usize::from(n)].iter().position(|&tile| tile == 0).expect("a blank") as u8,
            group_len: [0; MAX_GROUPS],
            positions: [[0; MAX_GROUP_TILES]; MAX_GROUPS],
            transposed_positions: [[0; MAX_GROUP_TILES]; MAX_GROUPS],
            group_h: [0; MAX_GROUPS],
            transposed_group_h: [0; MAX_GROUPS],
            sum: 0,
            transposed_sum: 0,
            path: [0; MAX_DEPTH],
            solution_len: 0,
            found: false,
            stopped: None,
            nodes: 0,
        };
        for (g, table) in tables.groups().iter().enumerate() {
            search.group_len[g] = table.tiles().len();
        }
        for cell in 0..n {
            let tile = board[usize::from(cell)];
            if tile == 0 {
                continue;
            }
            search.positions[tables.group_of(tile)][tables.slot_of(tile)] = cell;
            let (t_tile, t_cell) = (transpose[usize::from(tile)], transpose[usize::from(cell)]);
            search.transposed_positions[tables.group_of(t_tile)][tables.slot_of(t_tile)] = t_cell;
        }
        for g in 0..tables.groups().len() {
            search.group_h[g] = search.lookup(g);
            search.transposed_group_h[g] = search.transposed_lookup(g);
        }
        search.sum = search.group_h.iter().map(|&h| u32::from(h)).sum();
        search.transposed_sum = search.transposed_group_h.iter().map(|&h| u32::from(h)).sum();
        search
    }

    #[inline]
    fn lookup(&self, g: usize) -> u8 {
        self.tables.groups()[g].lookup(&self.positions[g][..self.group_len[g]])
    }

    #[inline]
    fn transposed_lookup(&self, g: usize) -> u8 {
        self.tables.groups()[g].lookup(&self.transposed_positions[g][..self.group_len[g]])
    }

    #[inline]
    fn h(&self) -> u32 {
        self.sum.max(self.transposed_sum)
    }

    /// Moves `tile` to cell `to` in both views; returns what to restore.
    #[inline]
    fn move_tile(&mut self, tile: u8, to: u8) -> (usize, u8, usize, u8, u8, u8) {
        let (g, slot) = (self.tables.group_of(tile), self.tables.slot_of(tile));
        let old_cell = self.positions[g][slot];
        let old_h = self.group_h[g];
        self.positions[g][slot] = to;
        let new_h = self.lookup(g);
        self.group_h[g] = new_h;
        self.sum = self.sum + u32::from(new_h) - u32::from(old_h);

        let t_tile = self.transpose[usize::from(tile)];
        let (tg, t_slot) = (self.tables.group_of(t_tile), self.tables.slot_of(t_tile));
        let old_t_cell = self.transposed_positions[tg][t_slot];
        let old_th = self.transposed_group_h[tg];
        self.transposed_positions[tg][t_slot] = self.transpose[usize::from(to)];
        let new_th = self.transposed_lookup(tg);
        self.transposed_group_h[tg] = new_th;
        self.transposed_sum = self.transposed_sum + u32::from(new_th) - u32::from(old_th);
        (g, old_h, tg, old_th, old_cell, old_t_cell)
    }

    #[inline]
    fn restore(&mut self, tile: u8, saved: (usize, u8, usize, u8, u8, u8)) {
        let (g, old_h, tg, old_th, old_cell, old_t_cell) = saved;
        let slot = self.tables.slot_of(tile);
        self.positions[g][slot] = old_cell;
        self.sum = self.sum - u32::from(self.group_h[g]) + u32::from(old_h);
        self.group_h[g] = old_h;
        let t_slot = self.tables.slot_of(self.transpose[usize::from(tile)]);
        self.transposed_positions[tg][t_slot] = old_t_cell;
        self.transposed_sum = self.transposed_sum - u32::from(self.transposed_group_h[tg]) + u32::from(old_th);
        self.transposed_group_h[tg] = old_th;
    }

    /// Depth-first search below `bound`; returns the smallest f that
    /// exceeded it (the next bound). `back` is the direction that would undo
    /// the last move.
    fn dfs(&mut self, depth: usize, bound: u32, back: usize) -> u32 {
        let h = self.h();
        let f = depth as u32 + h;
        if f > bound {
            return f;
        }
        if h == 0 {
            self.found = true;
            self.solution_len = depth;
            return f;
        }
        self.nodes += 1;
        if self.nodes % POLL_EVERY == 1 {
            if let Some(error) = self.budget.exhausted() {
                self.stopped = Some(error);
                return u32::MAX;
            }
        }
        if depth + 1 >= MAX_DEPTH {
            return u32::MAX;
        }
        let mut next_bound = u32::MAX;
        let blank = self.blank;
        for dir in 0..4 {
            let next = self.moves[usize::from(blank)][dir];
            if dir == back || next == u8::MAX {
                continue;
            }
            let tile = self.board[usize::from(next)];
            let saved = self.move_tile(tile, blank);
            self.board[usize::from(blank)] = tile;
            self.board[usize::from(next)] = 0;
            self.blank = next;
            self.path[depth] = dir as u8;
            let result = self.dfs(depth + 1, bound, dir ^ 2);
            self.blank = blank;
            self.board[usize::from(next)] = tile;
            self.board[usize::from(blank)] = 0;
            self.restore(tile, saved);
            if self.found || self.stopped.is_some() {
                return result;
            }
            next_bound = next_bound.min(result);
        }
        next_bound
    }
}

/// The `idastar` planner. Plans once, on the first tick, and hands the plan
/// out move by move.
#[derive(Debug)]
pub struct IdaStar {
    tables: Arc<PdbSet>,
    plan: StoredPlan<SlideGame>,
}

impl IdaStar {
    pub fn new(tables: Arc<PdbSet>) -> IdaStar {
        IdaStar { tables, plan: StoredPlan::default() }
    }

    /// Solves `game`'s current board; the moves are real (not canonical).
    pub fn solve_game(&self, game: &SlideGame, budget: &Budget) -> Result<(Vec<Dir>, u64), Stopped> {
        solve_game(&self.tables, game, budget)
    }
}

fn solve_game(tables: &PdbSet, game: &SlideGame, budget: &Budget) -> Result<(Vec<Dir>, u64), Stopped> {
    let config = game.config();
    if config.side() != tables.side() {
        let error = PlanError::GaveUp(format!(
            "the {} pattern databases are for {}×{} boards, this board is {}×{}",
            tables.partition().name(),
            tables.side(),
            tables.side(),
            config.side(),
            config.side()
        ));
        return Err(Stopped { error, nodes: 0 });
    }
    let canonical = Canonical::new(config.side(), game.board(), config.goal());
    let solution = solve(tables, &canonical.board, budget)?;
    Ok((solution.moves.iter().map(|&dir| canonical.real_move(dir)).collect(), solution.nodes))
}

impl Planner<SlideGame> for IdaStar {
    fn name(&self) -> &'static str {
        "idastar"
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![("pdb".to_string(), self.tables.partition().name().to_string())]
    }

    fn next_action(&mut self, game: &SlideGame, budget: &Budget) -> Result<Decision<Dir>, PlanError> {
        let tables = &self.tables;
        self.plan.next_action(game, || {
            let (actions, nodes) = solve_game(tables, game, budget)?;
            Ok(Plan { actions, kind: "idastar", nodes })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::slide::plan::pdb::Partition;
    use crate::game::slide::{Goal, apply_moves, goal_board};

    #[test]
    fn solves_the_write_ups_puzzle_in_sixteen_moves() {
        let tables = PdbSet::build(Partition::P44);
        let start = Canonical::new(
            3,
            &[7, 3, 0, 8, 1, 4, 6, 2, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            Goal::BlankLast,
        );
        let solution = solve(&tables, &start.board, &Budget::unlimited()).unwrap();
        assert_eq!(solution.moves.len(), 16);
        assert_eq!(apply_moves(3, &start.board, &solution.moves), Some(goal_board(3, Goal::BlankFirst)));
    }

    #[test]
    fn a_cancelled_budget_stops_the_search() {
        let tables = PdbSet::build(Partition::P44);
        let flag = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let budget = Budget::new(None, Some(flag));
        // The budget is looked at on the first node, then every 4096.
        let start = [0, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let stopped = solve(&tables, &start, &budget).unwrap_err();
        assert_eq!(stopped.error, PlanError::Cancelled);
        assert_eq!(stopped.nodes, 1, "stopped at the first look");
    }

    /// Every reachable 8-puzzle state, by breadth-first search from the
    /// goal: `(board, distance)`.
    fn every_eight_puzzle_state() -> Vec<(Board, u8)> {
        use crate::game::slide::plan::pdb::rank;
        let goal = goal_board(3, Goal::BlankFirst);
        let index_of = |board: &Board| {
            let mut positions = [0u8; 9];
            for cell in 0..9 {
                positions[usize::from(board[cell])] = cell as u8;
            }
            rank(&positions, 9)
        };
        let mut seen = vec![false; 362_880];
        seen[index_of(&goal)] = true;
        let mut states = vec![(goal, 0u8)];
        let mut at = 0;
        while at < states.len() {
            let (board, distance) = states[at];
            at += 1;
            let blank = board[..9].iter().position(|&tile| tile == 0).unwrap() as u8;
            for dir in Dir::ALL {
                if let Some(next) = neighbour(3, blank, dir) {
                    let mut child = board;
                    child.swap(usize::from(blank), usize::from(next));
                    let index = index_of(&child);
                    if !seen[index] {
                        seen[index] = true;
                        states.push((child, distance + 1));
                    }
                }
            }
        }
        states
    }

    #[test]
    fn every_eight_puzzle_state_is_solved_at_its_breadth_first_distance() {
        let states = every_eight_puzzle_state();
        assert_eq!(states.len(), 181_440);
        assert_eq!(states.iter().map(|&(_, distance)| distance).max(), Some(31));
        let tables = PdbSet::build(Partition::P44);
        let goal = goal_board(3, Goal::BlankFirst);
        for (index, (board, distance)) in states.iter().enumerate() {
            let solution = solve(&tables, board, &Budget::unlimited()).unwrap();
            assert_eq!(solution.moves.len(), usize::from(*distance), "idastar on {:?}", &board[..9]);
            assert_eq!(apply_moves(3, board, &solution.moves), Some(goal));
            assert!(tables.heuristic(board) <= u32::from(*distance), "admissible");
            // A* keeps every state it meets: check it on a stride that still
            // covers every distance.
            if index % 61 == 0 {
                let solution =
                    crate::game::slide::plan::astar::solve(3, board, &Budget::unlimited(), 1_000_000).unwrap();
                assert_eq!(solution.moves.len(), usize::from(*distance), "astar on {:?}", &board[..9]);
                assert_eq!(apply_moves(3, board, &solution.moves), Some(goal));
            }
        }
    }

    #[test]
    fn fifteen_puzzle_solutions_are_optimal_and_the_bound_admissible_along_them() {
        use crate::game::slide::plan::astar;
        use crate::rng::GameRng;
        // 5-5-5 is the smallest 15-puzzle partition that builds in seconds.
        let tables = PdbSet::build(Partition::P555);
        let goal = goal_board(4, Goal::BlankFirst);
        let mut rng = GameRng::from_seed(4);
        for _ in 0..12 {
            // A random walk from the goal: 30 to 45 moves, never straight back.
            let mut board = goal;
            let mut blank = 0u8;
            let mut last: Option<Dir> = None;
            for _ in 0..30 + rng.below(16) {
                let dir = Dir::ALL[rng.below(4) as usize];
                if let (Some(next), false) = (neighbour(4, blank, dir), Some(dir.opposite()) == last) {
                    board.swap(usize::from(blank), usize::from(next));
                    blank = next;
                    last = Some(dir);
                }
            }
            let solution = solve(&tables, &board, &Budget::unlimited()).unwrap();
            let reference = astar::solve(4, &board, &Budget::unlimited(), 5_000_000).unwrap();
            assert_eq!(solution.moves.len(), reference.moves.len(), "{:?}", &board[..16]);
            // Along an optimal path the distance left is known exactly.
            let mut along = board;
            for (done, &dir) in solution.moves.iter().enumerate() {
                assert!(tables.heuristic(&along) as usize <= solution.moves.len() - done);
                along = apply_moves(4, &along, &[dir]).unwrap();
            }
            assert_eq!(along, goal);
        }
    }
}
