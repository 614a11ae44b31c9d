//! Loops for a board whose free cells form one rectangle with a side of odd
//! length: blocks of 2×2, 3×2 and 2×3 cells, each driven round its edge,
//! and for an odd × odd rectangle one 3×3 block in a corner whose cycle
//! leaves out its corner cell or its centre (the switch).
//!
//! Columns of blocks are two cells wide but one, three wide, and rows two
//! cells high but one, three high; so every block but the corner 3×3 has an
//! even number of cells and a cycle round its edge through all of them.
//! Blocks meet along sides two or three cells long, so every pair of
//! neighbours has a crossing ([`super::cover`]) and the blocks are joined.

use crate::game::snake::Config;
use crate::game::snake::plan::cycle::loops::{Loops, Switch};

/// The loops of `config`'s board if its free cells are exactly one
/// rectangle at least 2×2 with a side of odd length (both sides even is
/// the plain 2×2 tiling's case).
pub(crate) fn rectangle(config: &Config) -> Option<Loops> {
    let (left, top, width, height) = free_rectangle(config)?;
    if width < 2 || height < 2 || (width % 2 == 0 && height % 2 == 0) {
        return None;
    }
    // An odd × odd board's 3×3 block must sit in a corner, where the cell
    // its cycle leaves out has two neighbours, both on the cycle. A single
    // odd strip goes in the middle: over 200 games each on 7×8, 9×10,
    // 12×9 and 15×20 that fills the board in 1% fewer moves than at an end.
    let corner = width % 2 == 1 && height % 2 == 1;
    let columns = strips(width, corner);
    let rows = strips(height, corner);
    let mut loops = Loops::empty(config);
    let board_width = config.width();
    let cell = |col: u16, row: u16| (top + row) * board_width + left + col;
    let mut row = 0;
    for &block_height in &rows {
        let mut col = 0;
        for &block_width in &columns {
            // Down the left side, right along the bottom, up the right side,
            // left along the top: counterclockwise on screen, as the 2×2
            // tiling's sense 0.
            let mut ring = Vec::with_capacity(10);
            ring.extend((0..block_height).map(|dy| cell(col, row + dy)));
            ring.extend((1..block_width).map(|dx| cell(col + dx, row + block_height - 1)));
            ring.extend((0..block_height - 1).rev().map(|dy| cell(col + block_width - 1, row + dy)));
            ring.extend((1..block_width - 1).rev().map(|dx| cell(col + dx, row)));
            for (index, &from) in ring.iter().enumerate() {
                loops.succ[usize::from(from)] = ring[(index + 1) % ring.len()];
            }
            if block_width == 3 && block_height == 3 {
                // The ring leaves out the centre; the switch lets a cycle
                // leave out the corner instead (its ring goes top-middle,
                // corner, then down the side).
                loops.switch = Some(Switch {
                    entry: cell(col + 1, row),
                    cells: [cell(col, row), cell(col + 1, row + 1)],
                    exit: cell(col, row + 1),
                });
            }
            col += block_width;
        }
        row += block_height;
    }
    debug_assert!(loops.covers_every_free_cell(config));
    Some(loops)
}

/// The widths of the strips a side of `length` cells is cut into: twos,
/// and one three (the first if `first`, else the middle one) if `length`
/// is odd.
fn strips(length: u16, first: bool) -> Vec<u16> {
    let mut widths = vec![2; usize::from(length / 2)];
    if length % 2 == 1 {
        let at = if first { 0 } else { (widths.len() - 1) / 2 };
        widths[at] = 3;
    }
    widths
}

/// The free cells' bounding box (left, top, width, height), if every cell in
/// it is free and there are free cells.
fn free_rectangle(config: &Config) -> Option<(u16, u16, u16, u16)> {
    let width = config.width();
    let free: Vec<u16> = (0..config.n_cells() as u16).filter(|&cell| !config.is_wall(cell)).collect();
    let (first, last) = (*free.first()?, *free.last()?);
    let left = free.iter().map(|cell| cell % width).min()?;
    let right = free.iter().map(|cell| cell % width).max()?;
    let (top, bottom) = (first / width, last / width);
    let (box_width, box_height) = (right - left + 1, bottom - top + 1);
    (usize::from(box_width) * usize::from(box_height) == free.len()).then_some((left, top, box_width, box_height))
}
