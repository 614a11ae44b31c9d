//! The `astar` planner: A* over blank-first boards with Manhattan distance
//! plus linear conflicts. Optimal; meant for 8-puzzles and easy
//! 15-puzzles (it keeps every state it reaches, so memory bounds it).
//!
//! States are packed 5 bits per cell into a `u128`; the hash table is for
//! lookups only and the open list breaks ties by (f, larger g, insertion
//! order), so the plan is the same on every run.

use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::{BinaryHeap, HashMap};

use super::canonical::Canonical;
use crate::game::slide::{Board, Dir, MAX_CELLS, SlideGame, neighbour};
use crate::plan::{Budget, Decision, Plan, PlanError, Planner, Stopped, StoredPlan};

/// Default cap on stored states (about 40 bytes each).
pub(crate) const DEFAULT_MAX_NODES: u64 = 20_000_000;
const POLL_EVERY: u64 = 4096;

/// Manhattan distance plus linear conflicts to the blank-first goal: for
/// each row (column), the tiles that are in their goal row (column) but not
/// in goal order must leave it and come back, two more moves each for all
/// but a longest increasing run of them.
pub(crate) fn manhattan_linear_conflict(side: u8, board: &Board) -> u32 {
    let side_usize = usize::from(side);
    let mut total = 0u32;
    for cell in 0..side * side {
        let tile = board[usize::from(cell)];
        if tile != 0 {
            total += u32::from((cell / side).abs_diff(tile / side) + (cell % side).abs_diff(tile % side));
        }
    }
    let mut line = [0u8; 5];
    for index in 0..side {
        // Row `index`: goal columns of the tiles whose goal row it is.
        let mut len = 0;
        for col in 0..side {
            let tile = board[usize::from(index * side + col)];
            if tile != 0 && tile / side == index {
                line[len] = tile % side;
                len += 1;
            }
        }
        total += 2 * (len - longest_increasing(&line[..len])) as u32;
        // Column `index`: goal rows of the tiles whose goal column it is.
        len = 0;
        for row in 0..side {
            let tile = board[usize::from(row * side + index)];
            if tile != 0 && tile % side == index {
                line[len] = tile / side;
                len += 1;
            }
        }
        total += 2 * (len - longest_increasing(&line[..len])) as u32;
    }
    debug_assert!(side_usize <= line.len());
    total
}

/// Length of a longest strictly increasing subsequence (at most 5 items).
fn longest_increasing(items: &[u8]) -> usize {
    let mut best = [0usize; 5];
    let mut longest = 0;
    for i in 0..items.len() {
        best[i] = 1 + (0..i).filter(|&j| items[j] < items[i]).map(|j| best[j]).max().unwrap_or(0);
        longest = longest.max(best[i]);
    }
    longest
}

fn pack(board: &Board, n_cells: usize) -> u128 {
    board[..n_cells].iter().enumerate().fold(0u128, |key, (cell, &tile)| key | u128::from(tile) << (5 * cell))
}

fn unpack(key: u128, n_cells: usize) -> Board {
    let mut board = [0u8; MAX_CELLS];
    for (cell, slot) in board[..n_cells].iter_mut().enumerate() {
        *slot = ((key >> (5 * cell)) & 31) as u8;
    }
    board
}

struct Node {
    key: u128,
    parent: u32,
    dir: u8,
}

/// An optimal solution on the canonical board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Solution {
    pub(crate) moves: Vec<Dir>,
    /// States expanded.
    pub(crate) nodes: u64,
}

/// Solves `board` (blank-first goal) optimally, keeping at most `max_nodes`
/// states.
pub(crate) fn solve(side: u8, board: &Board, budget: &Budget, max_nodes: u64) -> Result<Solution, Stopped> {
    let n_cells = usize::from(side) * usize::from(side);
    let mut nodes: Vec<Node> = vec![Node { key: pack(board, n_cells), parent: u32::MAX, dir: 0 }];
    let mut best: HashMap<u128, (u16, u32)> = HashMap::new();
    best.insert(nodes[0].key, (0, 0));
    // Max-heap of (lowest f, then highest g, then earliest node).
    let mut open: BinaryHeap<(Reverse<u32>, u16, Reverse<u32>)> = BinaryHeap::new();
    open.push((Reverse(manhattan_linear_conflict(side, board)), 0, Reverse(0)));
    let mut expanded = 0u64;
    while let Some((Reverse(f), g, Reverse(index))) = open.pop() {
        let key = nodes[index as usize].key;
        if best.get(&key).is_some_and(|&(_, best_index)| best_index != index) {
            continue; // a cheaper copy was queued later
        }
        let current = unpack(key, n_cells);
        if f == u32::from(g) {
            // h = 0 only at the goal.
            let mut moves = Vec::with_capacity(usize::from(g));
            let mut at = index;
            while nodes[at as usize].parent != u32::MAX {
                moves.push(Dir::ALL[usize::from(nodes[at as usize].dir)]);
                at = nodes[at as usize].parent;
            }
            moves.reverse();
            return Ok(Solution { moves, nodes: expanded });
        }
        expanded += 1;
        if expanded % POLL_EVERY == 0 {
            if let Some(error) = budget.exhausted() {
                return Err(Stopped { error, nodes: expanded });
            }
        }
        if nodes.len() as u64 >= max_nodes {
            let error = PlanError::GaveUp(format!("A* stored {max_nodes} states without reaching the goal"));
            return Err(Stopped { error, nodes: expanded });
        }
        let blank = current[..n_cells].iter().position(|&tile| tile == 0).expect("a blank") as u8;
        let back = (index != 0).then(|| Dir::ALL[usize::from(nodes[index as usize].dir)].opposite());
        for dir in Dir::ALL {
            let Some(next) = neighbour(side, blank, dir) else { continue };
            if Some(dir) == back {
                continue;
            }
            let mut child = current;
            child.swap(usize::from(blank), usize::from(next));
            let child_key = pack(&child, n_cells);
            let child_g = g + 1;
            let child_index = nodes.len() as u32;
            match best.entry(child_key) {
                Entry::Occupied(mut seen) if seen.get().0 > child_g => {
                    seen.insert((child_g, child_index));
                }
                Entry::Occupied(_) => continue,
                Entry::Vacant(slot) => {
                    slot.insert((child_g, child_index));
                }
            }
            nodes.push(Node { key: child_key, parent: index, dir: dir.code() });
            let h = manhattan_linear_conflict(side, &child);
            open.push((Reverse(u32::from(child_g) + h), child_g, Reverse(child_index)));
        }
    }
    Err(Stopped { error: PlanError::GaveUp("the goal is unreachable".to_string()), nodes: expanded })
}

/// The `astar` planner. Plans once, on the first tick, and hands the plan
/// out move by move.
#[derive(Debug, Default)]
pub struct AStar {
    max_nodes: u64,
    plan: StoredPlan<SlideGame>,
}

impl AStar {
    pub fn new(max_nodes: u64) -> AStar {
        AStar { max_nodes, plan: StoredPlan::default() }
    }

    /// Solves `game`'s current board; the moves are real (not canonical).
    pub(crate) fn solve_game(&self, game: &SlideGame, budget: &Budget) -> Result<(Vec<Dir>, u64), Stopped> {
        solve_game(game, budget, self.max_nodes)
    }
}

fn solve_game(game: &SlideGame, budget: &Budget, max_nodes: u64) -> Result<(Vec<Dir>, u64), Stopped> {
    let config = game.config();
    let canonical = Canonical::new(config.side(), game.board(), config.goal());
    let solution = solve(config.side(), &canonical.board, budget, max_nodes)?;
    Ok((solution.moves.iter().map(|&dir| canonical.real_move(dir)).collect(), solution.nodes))
}

impl Planner<SlideGame> for AStar {
    fn name(&self) -> &'static str {
        "astar"
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![
            ("heuristic".to_string(), "manhattan+linear-conflict".to_string()),
            ("max_nodes".to_string(), self.max_nodes.to_string()),
        ]
    }

    fn next_action(&mut self, game: &SlideGame, budget: &Budget) -> Result<Decision<Dir>, PlanError> {
        let max_nodes = self.max_nodes;
        self.plan.next_action(game, || {
            let (actions, nodes) = solve_game(game, budget, max_nodes)?;
            Ok(Plan { actions, kind: "astar", nodes })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::slide::{Goal, apply_moves, goal_board};

    #[test]
    fn linear_conflicts_add_two_per_tile_out_of_order() {
        let mut board = goal_board(3, Goal::BlankFirst);
        assert_eq!(manhattan_linear_conflict(3, &board), 0);
        // `_ 2 1 / ...`: tiles 1 and 2 swapped in their goal row: 2 + 2.
        board.swap(1, 2);
        assert_eq!(manhattan_linear_conflict(3, &board), 4);
    }

    #[test]
    fn solves_the_write_ups_puzzle_in_sixteen_moves() {
        let mut board = [0u8; MAX_CELLS];
        board[..9].copy_from_slice(&[7, 3, 0, 8, 1, 4, 6, 2, 5]);
        let canonical = Canonical::new(3, &board, Goal::BlankLast);
        let solution = solve(3, &canonical.board, &Budget::unlimited(), DEFAULT_MAX_NODES).unwrap();
        assert_eq!(solution.moves.len(), 16);
        assert_eq!(apply_moves(3, &canonical.board, &solution.moves), Some(goal_board(3, Goal::BlankFirst)));
    }
}
