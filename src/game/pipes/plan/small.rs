//! Small boards (at most 64 tiles) for the searches that come from the pipe
//! write-up, `dfs` and `astar`: a whole state packed into a `u128` (two bits
//! of turn per tile, counted from the tiles as dealt), the write-up's
//! measures of how far a state is from solved, computed on the stack without
//! allocating.
//!
//! Turns are kept canonical: a straight has two distinct orientations and a
//! cross one, so their turn counts are taken modulo that, and two states
//! that look the same pack to the same number.

use crate::game::pipes::{DIR_BITS, Grid, opposite, rotate_by};

/// The most tiles a packed state can hold: two bits each in a `u128`.
pub(crate) const MAX_SMALL_TILES: usize = 64;

/// A small board as dealt, ready to unpack states.
#[derive(Clone, Debug)]
pub(crate) struct SmallBoard {
    source: usize,
    n: usize,
    base: [u8; MAX_SMALL_TILES],
    /// Distinct orientations of each tile: 1, 2 or 4.
    period: [u8; MAX_SMALL_TILES],
    neighbours: [[u8; 4]; MAX_SMALL_TILES],
}

/// The write-up's measures of a state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Measures {
    /// Pipe ends pointing at a neighbour that has no pipe back.
    pub(crate) open_ends: u32,
    /// Tiles with pipes that the source's network does not reach.
    pub(crate) dry_tiles: u32,
    /// Pipe ends pointing off a non-wrapping board.
    pub(crate) ends_into_wall: u32,
    /// Two dead ends joined to each other: a closed pocket.
    pub(crate) dead_end_pairs: u32,
    /// Independent loops in the joined network (edges − tiles + components).
    pub(crate) loops: u32,
}

impl Measures {
    /// Our heuristic: the write-up's terms, open ends / 2 (rounded up, so
    /// that one open end still counts) + dry tiles + 5 × ends into a wall +
    /// 5 × facing dead-end pairs + 3 × loops. Zero exactly when solved.
    pub(crate) fn heuristic(&self) -> u32 {
        self.open_ends.div_ceil(2) + self.dry_tiles + 5 * self.ends_into_wall + 5 * self.dead_end_pairs + 3 * self.loops
    }

    /// Twice the write-up's heuristic as printed, `num_opened_head / 2 +
    /// num_no_water + num_wall * 5 + num_invalid_deadend * 5 + num_loop * 3`,
    /// with its plain (not rounded) division: doubled, so that a half stays
    /// exact in an integer. An end into the wall counts in the wall term only,
    /// not also as an open end, so the open ends may be odd and h a half.
    pub(crate) fn heuristic_doubled(&self) -> u32 {
        self.open_ends + 2 * (self.dry_tiles + 5 * self.ends_into_wall + 5 * self.dead_end_pairs + 3 * self.loops)
    }

    pub(crate) fn is_solved(&self) -> bool {
        *self == Measures::default()
    }
}

const NONE: u8 = u8::MAX;

impl SmallBoard {
    /// `None` when the board has more than [`MAX_SMALL_TILES`] tiles.
    pub(crate) fn new(grid: Grid, source: usize, tiles: &[u8]) -> Option<SmallBoard> {
        let n = tiles.len();
        if n > MAX_SMALL_TILES {
            return None;
        }
        let mut board = SmallBoard {
            source,
            n,
            base: [0; MAX_SMALL_TILES],
            period: [1; MAX_SMALL_TILES],
            neighbours: [[NONE; 4]; MAX_SMALL_TILES],
        };
        for (tile, &mask) in tiles.iter().enumerate() {
            board.base[tile] = mask;
            board.period[tile] = (1..=4).find(|&turns| rotate_by(mask, turns) == mask).unwrap_or(4);
            for dir in 0..4 {
                board.neighbours[tile][dir] = grid.neighbour(tile, dir).map_or(NONE, |other| other as u8);
            }
        }
        Some(board)
    }

    pub(crate) fn n_tiles(&self) -> usize {
        self.n
    }

    /// Quarter turns of `tile` in `state`.
    pub(crate) fn turns(state: u128, tile: usize) -> u8 {
        ((state >> (2 * tile)) & 3) as u8
    }

    /// `state` with `tile` turned `quarter_turns` more, kept canonical.
    pub(crate) fn turn(&self, state: u128, tile: usize, quarter_turns: u8) -> u128 {
        let turns = (Self::turns(state, tile) + quarter_turns) % self.period[tile];
        (state & !(3u128 << (2 * tile))) | (u128::from(turns) << (2 * tile))
    }

    /// The masks of `state`, written to the first `n` entries of `out`.
    pub(crate) fn masks(&self, state: u128, out: &mut [u8; MAX_SMALL_TILES]) {
        for (tile, slot) in out.iter_mut().enumerate().take(self.n) {
            *slot = rotate_by(self.base[tile], Self::turns(state, tile));
        }
    }

    /// The measures of the board with these masks.
    pub(crate) fn measure(&self, masks: &[u8; MAX_SMALL_TILES]) -> Measures {
        let mut measures = Measures::default();
        let mut parent = [0u8; MAX_SMALL_TILES];
        for (tile, slot) in parent.iter_mut().enumerate().take(self.n) {
            *slot = tile as u8;
        }
        fn find(parent: &mut [u8; MAX_SMALL_TILES], mut tile: u8) -> u8 {
            while parent[usize::from(tile)] != tile {
                parent[usize::from(tile)] = parent[usize::from(parent[usize::from(tile)])];
                tile = parent[usize::from(tile)];
            }
            tile
        }
        let (mut joined_ends, mut n_with_pipes) = (0u32, 0u32);
        for tile in 0..self.n {
            let mask = masks[tile];
            if mask != 0 {
                n_with_pipes += 1;
            }
            for dir in 0..4 {
                if mask & DIR_BITS[dir] == 0 {
                    continue;
                }
                let other = self.neighbours[tile][dir];
                if other == NONE {
                    measures.ends_into_wall += 1;
                } else if masks[usize::from(other)] & DIR_BITS[opposite(dir)] == 0 {
                    measures.open_ends += 1;
                } else {
                    joined_ends += 1;
                    let (a, b) = (find(&mut parent, tile as u8), find(&mut parent, other));
                    parent[usize::from(a)] = b;
                    if mask.count_ones() == 1 && masks[usize::from(other)].count_ones() == 1 {
                        measures.dead_end_pairs += 1;
                    }
                }
            }
        }
        // Each join and each facing pair was seen from both of its ends.
        measures.dead_end_pairs /= 2;
        let source_root = find(&mut parent, self.source as u8);
        let mut components = 0u32;
        for (tile, &mask) in masks.iter().enumerate().take(self.n) {
            if mask == 0 {
                continue;
            }
            let root = find(&mut parent, tile as u8);
            if root == tile as u8 {
                components += 1;
            }
            if root != source_root {
                measures.dry_tiles += 1;
            }
        }
        measures.loops = (joined_ends / 2 + components).saturating_sub(n_with_pipes);
        measures
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::pipes::find_flaw;

    #[test]
    fn measures_are_zero_exactly_when_solved() {
        // Every state of a 2×2 board of two bends and two dead ends: the
        // heuristic is zero exactly where find_flaw agrees.
        for wrap in [false, true] {
            let grid = Grid { width: 2, height: 2, wrap };
            let tiles = [3, 1, 3, 1];
            let board = SmallBoard::new(grid, 0, &tiles).unwrap();
            let mut masks = [0u8; MAX_SMALL_TILES];
            let mut n_solved = 0;
            for state in 0..256u128 {
                board.masks(state, &mut masks);
                let measures = board.measure(&masks);
                let solved = find_flaw(grid, 0, &masks[..4]).is_ok();
                assert_eq!(measures.is_solved(), solved, "{masks:?} {measures:?}");
                assert_eq!(measures.heuristic() == 0, solved);
                n_solved += usize::from(solved);
            }
            assert!(n_solved > 0, "wrap={wrap}");
        }
    }

    #[test]
    fn measures_count_each_flaw() {
        let grid = Grid { width: 2, height: 2, wrap: false };
        let board = SmallBoard::new(grid, 0, &[6, 0xc, 3, 9]).unwrap();
        let mut masks = [0u8; MAX_SMALL_TILES];
        board.masks(0, &mut masks);
        assert_eq!(board.measure(&masks), Measures { loops: 1, ..Measures::default() });
        let board = SmallBoard::new(grid, 0, &[2, 8, 2, 8]).unwrap();
        board.masks(0, &mut masks);
        assert_eq!(board.measure(&masks), Measures { dry_tiles: 2, dead_end_pairs: 2, ..Measures::default() });
        let board = SmallBoard::new(grid, 0, &[1, 4, 0, 0]).unwrap();
        board.masks(0, &mut masks);
        let measures = board.measure(&masks);
        assert_eq!((measures.ends_into_wall, measures.open_ends, measures.dry_tiles), (1, 1, 1));
        // Turning a straight twice is the state it started in.
        let board = SmallBoard::new(grid, 0, &[5, 1, 0xf, 3]).unwrap();
        assert_eq!(board.turn(0, 0, 2), 0);
        assert_eq!(board.turn(0, 2, 1), 0);
        assert_ne!(board.turn(0, 1, 2), 0);
    }
}
