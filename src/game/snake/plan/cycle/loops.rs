//! A cycle cover as `cycle`'s board builders hand it over: each covered
//! cell's successor on its loop, and at most one switch. [`super::cover`]
//! turns it into the tables the planner reads.

use crate::game::snake::Config;

/// No cell: off the board, or a move the turning sense does not allow.
pub(crate) const NONE: u16 = u16::MAX;

/// Free cells cut into disjoint directed loops (each at least four cells
/// round a face of the grid or more), for one of the two turning senses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Loops {
    /// `succ[cell]`: the next cell on the cell's loop; [`NONE`] for a cell
    /// no loop holds (a wall, a cell the cover leaves out, or the switch's
    /// second cell).
    pub(crate) succ: Vec<u16>,
    pub(crate) switch: Option<Switch>,
    /// Squares (by their top-left cell) whose crossings are added before
    /// any other: together they join every loop, so the loops have a
    /// Hamiltonian cycle whatever else is found.
    pub(crate) first_squares: Vec<u16>,
}

/// Two cells of which every cycle of the cover holds exactly one: `entry`
/// goes to either and either goes on to `exit`. The cell a cycle leaves
/// out is its hole; a board with an odd number of cells needs one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Switch {
    pub(crate) entry: u16,
    /// The one [`Loops::succ`] puts on the loop, then the other.
    pub(crate) cells: [u16; 2],
    pub(crate) exit: u16,
}

impl Loops {
    /// No loops yet on `config`'s board.
    pub(crate) fn empty(config: &Config) -> Loops {
        Loops { succ: vec![NONE; config.n_cells()], switch: None, first_squares: Vec::new() }
    }

    /// Whether the loop cells and the switch's second cell are exactly the
    /// board's free cells.
    pub(crate) fn covers_every_free_cell(&self, config: &Config) -> bool {
        let off_loop = self.switch.map(|switch| switch.cells[1]);
        (0..config.n_cells() as u16)
            .all(|cell| config.is_wall(cell) == (self.succ[usize::from(cell)] == NONE && off_loop != Some(cell)))
    }
}

/// The free neighbours of `cell`, [`NONE`] where there is none, in the
/// order up, right, down, left.
pub(crate) fn free_neighbours(config: &Config, cell: u16) -> [u16; 4] {
    crate::game::Dir::ALL.map(|dir| config.neighbour(cell, dir).filter(|&next| !config.is_wall(next)).unwrap_or(NONE))
}
