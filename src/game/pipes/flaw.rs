//! The solved check: whether a board of tiles is one tree of pipes fed by
//! the source, and if not, the first [`Flaw`] that says why.

use std::fmt;

use super::grid::{DIR_BITS, Grid, direction, opposite};

/// Why a board of tiles is not solved: the first flaw found, in the order
/// the variants are listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flaw {
    /// A pipe points off a non-wrapping board.
    IntoWall { tile: usize, dir: usize },
    /// A pipe points at a neighbour with no pipe back.
    OpenEnd { tile: usize, dir: usize },
    /// A tile with pipes that the source's network does not reach.
    Dry { tile: usize },
    /// Every end is joined and every tile is fed, but the network has a loop.
    Loop,
}

impl fmt::Display for Flaw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Flaw::IntoWall { tile, dir } => write!(f, "tile {tile} points {} into the border", direction(dir)),
            Flaw::OpenEnd { tile, dir } => write!(f, "tile {tile} has an open end pointing {}", direction(dir)),
            Flaw::Dry { tile } => write!(f, "tile {tile} is not connected to the source"),
            Flaw::Loop => f.write_str("the network has a loop"),
        }
    }
}

/// Checks `tiles` on `grid` with the source at `source`: `Ok` when solved.
/// Allocates a visited list; the game calls it only once every end is
/// joined, which is rare, so that is cheap.
pub fn find_flaw(grid: Grid, source: usize, tiles: &[u8]) -> Result<(), Flaw> {
    let mut arm_ends = 0usize;
    let mut n_with_pipes = 0usize;
    for (tile, &mask) in tiles.iter().enumerate() {
        if mask != 0 {
            n_with_pipes += 1;
        }
        for dir in 0..4 {
            if mask & DIR_BITS[dir] == 0 {
                continue;
            }
            arm_ends += 1;
            match grid.neighbour(tile, dir) {
                None => return Err(Flaw::IntoWall { tile, dir }),
                Some(other) if tiles[other] & DIR_BITS[opposite(dir)] == 0 => {
                    return Err(Flaw::OpenEnd { tile, dir });
                }
                Some(_) => {}
            }
        }
    }
    // Every end is matched, so the joins are exactly arm_ends / 2 edges.
    let mut seen = vec![false; tiles.len()];
    let mut stack = vec![source];
    seen[source] = true;
    let mut reached = 0usize;
    while let Some(tile) = stack.pop() {
        reached += 1;
        for (dir, &bit) in DIR_BITS.iter().enumerate() {
            if tiles[tile] & bit != 0 {
                let other = grid.neighbour(tile, dir).expect("checked above");
                if !seen[other] {
                    seen[other] = true;
                    stack.push(other);
                }
            }
        }
    }
    if let Some(tile) = (0..tiles.len()).find(|&tile| tiles[tile] != 0 && !seen[tile]) {
        return Err(Flaw::Dry { tile });
    }
    // A source without pipes on a board with other pipes is caught as Dry
    // above; here the network is connected, so it is a tree iff it has one
    // edge fewer than it has tiles.
    if n_with_pipes > 0 && arm_ends / 2 != reached - 1 {
        return Err(Flaw::Loop);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solved_on_both_topologies() {
        // A 3×1 row: right dead end, horizontal straight, left dead end.
        assert_eq!(find_flaw(Grid { width: 3, height: 1, wrap: false }, 0, &[2, 0xa, 8]), Ok(()));
        // Wrapping: two horizontal bends meeting across the seam.
        let wrap = Grid { width: 2, height: 1, wrap: true };
        assert_eq!(find_flaw(wrap, 0, &[8, 2]), Ok(()));
        // The same tiles on a flat board point into the border.
        let flat = Grid { width: 2, height: 1, wrap: false };
        assert_eq!(find_flaw(flat, 0, &[8, 2]), Err(Flaw::IntoWall { tile: 0, dir: 3 }));
        // On the torus, two straights across a 2-wide seam make a loop.
        assert_eq!(find_flaw(wrap, 0, &[0xa, 0xa]), Err(Flaw::Loop));
        // On a 1-wide torus a horizontal straight meets itself: a loop.
        assert_eq!(find_flaw(Grid { width: 1, height: 1, wrap: true }, 0, &[0xa]), Err(Flaw::Loop));
    }

    #[test]
    fn loops_open_ends_walls_and_dry_tiles_are_rejected() {
        let grid = Grid { width: 2, height: 2, wrap: false };
        // A 2×2 ring: every end joined, but a loop.
        assert_eq!(find_flaw(grid, 0, &[6, 0xc, 3, 9]), Err(Flaw::Loop));
        // Break one joint: an open end.
        assert_eq!(find_flaw(grid, 0, &[6, 0xc, 3, 1]), Err(Flaw::OpenEnd { tile: 2, dir: 1 }));
        // A tree of three plus a lone tile with a pipe into the wall.
        assert_eq!(find_flaw(grid, 0, &[6, 8, 1, 4]), Err(Flaw::IntoWall { tile: 3, dir: 2 }));
        // Two separate joined pairs: the one away from the source is dry.
        assert_eq!(find_flaw(grid, 0, &[2, 8, 2, 8]), Err(Flaw::Dry { tile: 2 }));
        // Empty tiles take no part.
        assert_eq!(find_flaw(grid, 0, &[2, 8, 0, 0]), Ok(()));
    }
}
