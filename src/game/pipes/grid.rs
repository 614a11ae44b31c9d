//! The board's geometry: a tile's connection mask and how it turns, and the
//! [`Grid`], the neighbour relation every part of the game (rules, solver,
//! generator, searches) shares.
//!
//! Directions are the shared [`Dir`]'s codes as plain indices 0..4 (up,
//! right, down, left), the order of the bits in a mask, so a direction's bit
//! is one shift or one table look-up in the solver's inner loops.

use crate::game::Dir;

/// The connection bit of each direction, indexed by direction (0 up, 1 right,
/// 2 down, 3 left): the order of the bits in a mask.
pub const DIR_BITS: [u8; 4] = [1, 2, 4, 8];

/// The shared [`Dir`] of direction index `dir`, for messages.
pub(crate) fn direction(dir: usize) -> Dir {
    Dir::ALL[dir]
}

/// A mask turned a quarter turn clockwise: up becomes right, and so on.
pub(crate) const fn rotate_cw(mask: u8) -> u8 {
    ((mask << 1) | (mask >> 3)) & 0xF
}

/// A mask turned `quarter_turns` quarter turns clockwise.
pub const fn rotate_by(mask: u8, quarter_turns: u8) -> u8 {
    let mut mask = mask & 0xF;
    let mut left = quarter_turns % 4;
    while left > 0 {
        mask = rotate_cw(mask);
        left -= 1;
    }
    mask
}

/// The direction opposite `dir` (direction indices 0..4).
pub const fn opposite(dir: usize) -> usize {
    (dir + 2) % 4
}

/// Whether `candidate` is `mask` turned some number of quarter turns.
pub(crate) fn is_rotation_of(candidate: u8, mask: u8) -> bool {
    (0..4).any(|turns| rotate_by(mask, turns) == candidate)
}

/// The board's shape and topology: the neighbour relation every part of the
/// game (rules, solver, generator, searches) shares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    pub width: u16,
    pub height: u16,
    /// Whether the board is a torus: the right edge joins the left one, the
    /// bottom the top.
    pub wrap: bool,
}

impl Grid {
    pub(crate) fn n_tiles(&self) -> usize {
        usize::from(self.width) * usize::from(self.height)
    }

    /// The tile one step from `tile` in direction `dir` (0 up, 1 right,
    /// 2 down, 3 left), or `None` past the border of a non-wrapping board.
    /// On a wrapping board one tile wide, a tile is its own left and right
    /// neighbour.
    pub(crate) fn neighbour(&self, tile: usize, dir: usize) -> Option<usize> {
        let width = usize::from(self.width);
        let height = usize::from(self.height);
        let (col, row) = (tile % width, tile / width);
        let (col, row) = match dir {
            0 if row > 0 => (col, row - 1),
            0 if self.wrap => (col, height - 1),
            1 if col + 1 < width => (col + 1, row),
            1 if self.wrap => (0, row),
            2 if row + 1 < height => (col, row + 1),
            2 if self.wrap => (col, 0),
            3 if col > 0 => (col - 1, row),
            3 if self.wrap => (width - 1, row),
            _ => return None,
        };
        Some(row * width + col)
    }
}
