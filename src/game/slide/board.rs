//! The board of the sliding puzzle: its sizes, its cells and their
//! neighbours, the two goal conventions, and the solvability (parity) check
//! that decides which starts can reach a goal.

use serde::{Deserialize, Serialize};

use crate::game::Dir;
use crate::rng::GameRng;

/// Largest board side: 5×5 (the 24-puzzle). Cells fit in a `u8` and a board
/// in the 25-byte array [`Board`].
pub(crate) const MAX_SIDE: u8 = 5;
/// Smallest board side: 3×3 (the 8-puzzle).
pub(crate) const MIN_SIDE: u8 = 3;
/// Cells of the largest board.
pub(crate) const MAX_CELLS: usize = 25;

/// Cells row-major; `board[cell]` is the tile there (0 = blank). Only the
/// first `side²` entries are used.
pub(crate) type Board = [u8; MAX_CELLS];

/// Where the blank belongs when the puzzle is solved.
///
/// Part of the replay format (see `replay::format`): stored by variant index;
/// changing the variants' order or number needs a format version bump.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Goal {
    /// `1 2 3 / 4 5 6 / 7 8 _`: tile `v` on cell `v - 1`, the blank last.
    BlankLast,
    /// `_ 1 2 / 3 4 5 / 6 7 8`: tile `v` on cell `v`, the blank on cell 0
    /// (the research instance sets use this one).
    BlankFirst,
}

impl Goal {
    /// The cell where `tile` (0 = blank) belongs on a board of `n_cells`.
    pub(crate) fn cell_of(self, tile: u8, n_cells: u8) -> u8 {
        match self {
            Goal::BlankFirst => tile,
            Goal::BlankLast if tile == 0 => n_cells - 1,
            Goal::BlankLast => tile - 1,
        }
    }

    /// The tile that belongs on `cell`.
    pub(crate) fn tile_at(self, cell: u8, n_cells: u8) -> u8 {
        match self {
            Goal::BlankFirst => cell,
            Goal::BlankLast if cell == n_cells - 1 => 0,
            Goal::BlankLast => cell + 1,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Goal::BlankFirst => "blank-first",
            Goal::BlankLast => "blank-last",
        }
    }
}

/// The board side for `count` cells, if it is one we play.
pub fn side_for_cells(count: usize) -> Option<u8> {
    (MIN_SIDE..=MAX_SIDE).find(|&side| usize::from(side) * usize::from(side) == count)
}

/// Whether `board` can reach `goal`. Every move swaps the blank with a
/// neighbour: one transposition of the cell permutation, and one step of
/// the blank's taxicab distance to its goal cell. So the permutation that
/// takes the board to the goal has the parity of that distance in every
/// reachable board, and (a classic result) every board with matching
/// parities is reachable.
pub(crate) fn is_solvable(side: u8, board: &Board, goal: Goal) -> bool {
    let n_cells = side * side;
    // target[cell]: the cell where the tile now on `cell` belongs.
    let mut visited = [false; MAX_CELLS];
    let mut transpositions = 0u32;
    for first in 0..n_cells {
        if visited[usize::from(first)] {
            continue;
        }
        let mut cell = first;
        let mut length = 0u32;
        while !visited[usize::from(cell)] {
            visited[usize::from(cell)] = true;
            cell = goal.cell_of(board[usize::from(cell)], n_cells);
            length += 1;
        }
        transpositions += length - 1;
    }
    let blank = board[..usize::from(n_cells)].iter().position(|&tile| tile == 0).expect("a board has a blank") as u8;
    let home = goal.cell_of(0, n_cells);
    let distance = (blank / side).abs_diff(home / side) + (blank % side).abs_diff(home % side);
    transpositions % 2 == u32::from(distance) % 2
}

/// The goal board.
pub(crate) fn goal_board(side: u8, goal: Goal) -> Board {
    let n_cells = side * side;
    let mut board = [0u8; MAX_CELLS];
    for cell in 0..n_cells {
        board[usize::from(cell)] = goal.tile_at(cell, n_cells);
    }
    board
}

/// A uniformly random solvable board: a shuffle, then, if its parity is
/// wrong, the first two tiles (not the blank) swapped, which flips it.
pub fn random_board(side: u8, goal: Goal, rng: &mut GameRng) -> Board {
    let n_cells = usize::from(side) * usize::from(side);
    let mut board = [0u8; MAX_CELLS];
    for (cell, slot) in board[..n_cells].iter_mut().enumerate() {
        *slot = cell as u8;
    }
    rng.shuffle(&mut board[..n_cells]);
    if !is_solvable(side, &board, goal) {
        let mut tiles = (0..n_cells).filter(|&cell| board[cell] != 0);
        let (a, b) = (tiles.next().expect("3+ tiles"), tiles.next().expect("3+ tiles"));
        board.swap(a, b);
    }
    board
}

/// Tiles as space-separated numbers.
pub(crate) fn tiles_text(tiles: &[u8]) -> String {
    tiles.iter().map(|tile| tile.to_string()).collect::<Vec<_>>().join(" ")
}

/// The neighbour of `cell` in direction `dir` on a `side`×`side` board.
pub(crate) fn neighbour(side: u8, cell: u8, dir: Dir) -> Option<u8> {
    let (row, col) = (cell / side, cell % side);
    match dir {
        Dir::Up if row > 0 => Some(cell - side),
        Dir::Down if row + 1 < side => Some(cell + side),
        Dir::Left if col > 0 => Some(cell - 1),
        Dir::Right if col + 1 < side => Some(cell + 1),
        _ => None,
    }
}

/// Applies blank moves to `board` (whose blank is on `blank`); `None` if a
/// move leaves the board.
#[cfg(test)]
pub(crate) fn apply_moves(side: u8, board: &Board, moves: &[Dir]) -> Option<Board> {
    let mut board = *board;
    let n_cells = usize::from(side) * usize::from(side);
    let mut blank = board[..n_cells].iter().position(|&tile| tile == 0)? as u8;
    for &dir in moves {
        let next = neighbour(side, blank, dir)?;
        board.swap(usize::from(blank), usize::from(next));
        blank = next;
    }
    Some(board)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parity_matches_reachability_on_small_scrambles() {
        // Every board reached by moves is solvable; swapping two tiles of it
        // never is. Both goals, all three sizes.
        let mut rng = GameRng::from_seed(5);
        for side in MIN_SIDE..=MAX_SIDE {
            for goal in [Goal::BlankFirst, Goal::BlankLast] {
                for _ in 0..50 {
                    let mut board = goal_board(side, goal);
                    let mut blank = goal.cell_of(0, side * side);
                    for _ in 0..rng.below(60) {
                        let dir = Dir::ALL[rng.below(4) as usize];
                        if let Some(next) = neighbour(side, blank, dir) {
                            board.swap(usize::from(blank), usize::from(next));
                            blank = next;
                        }
                    }
                    assert!(is_solvable(side, &board, goal));
                    let n = usize::from(side * side);
                    let tiles: Vec<usize> = (0..n).filter(|&cell| board[cell] != 0).collect();
                    let mut swapped = board;
                    swapped.swap(tiles[0], tiles[n - 2]);
                    assert!(!is_solvable(side, &swapped, goal));
                }
            }
        }
    }
}
