//! One Hamiltonian cycle cut into small loops, so that `cycle` has many
//! cycles to choose from rather than one: the merge rule of
//! [`super::cover`] run backwards.
//!
//! Where a loop runs `x1 → y2` and, elsewhere, `x2 → y1` along two
//! opposite sides of a unit square (`x1` beside `y1`, `x2` beside `y2`),
//! swapping those two steps for `x1 → y1` and `x2 → y2`
//! cuts it into two loops, joined again by that crossing. Cutting greedily,
//! always where the smaller piece is smallest, first carves off every 2×2
//! block it can, then 2×3 blocks, and so on. A step a cut's crossing needs
//! is never cut again, so the cuts' crossings join the pieces: they are
//! handed over as [`Loops::first_squares`].

use crate::game::snake::Config;
use crate::game::snake::plan::cycle::loops::{Loops, NONE};

/// `cycle` (successors, [`NONE`] off it) cut into small loops.
pub(crate) fn split(config: &Config, cycle: Vec<u16>) -> Loops {
    let mut pieces = Pieces::new(cycle);
    let mut first_squares = Vec::new();
    while let Some((square, cut)) = pieces.best_cut(config) {
        pieces.cut(cut);
        first_squares.push(square);
    }
    Loops { succ: pieces.succ, switch: None, first_squares }
}

/// A cut: the steps `x1 → y2` and `x2 → y1` of one loop become `x1 → y1`
/// and `x2 → y2`.
#[derive(Clone, Copy, Debug)]
struct Cut {
    x1: u16,
    y1: u16,
    x2: u16,
    y2: u16,
}

struct Pieces {
    succ: Vec<u16>,
    /// Each cell's loop, and its position along it.
    loop_of: Vec<u32>,
    position: Vec<u32>,
    loop_len: Vec<u32>,
    /// `locked[cell]`: the step out of `cell` belongs to a cut's crossing.
    locked: Vec<bool>,
}

impl Pieces {
    fn new(succ: Vec<u16>) -> Pieces {
        let n_cells = succ.len();
        let mut pieces = Pieces {
            succ,
            loop_of: vec![u32::MAX; n_cells],
            position: vec![0; n_cells],
            loop_len: Vec::new(),
            locked: vec![false; n_cells],
        };
        if let Some(start) = (0..n_cells).find(|&cell| pieces.succ[cell] != NONE) {
            pieces.loop_len.push(0);
            pieces.number(start as u16, 0);
        }
        pieces
    }

    /// Numbers the loop through `start` as loop `id`, from 0 at `start`.
    fn number(&mut self, start: u16, id: u32) {
        let mut cell = start;
        let mut index = 0;
        loop {
            self.loop_of[usize::from(cell)] = id;
            self.position[usize::from(cell)] = index;
            index += 1;
            cell = self.succ[usize::from(cell)];
            if cell == start {
                break;
            }
        }
        self.loop_len[id as usize] = index;
    }

    /// The cut whose smaller piece is smallest (at least four cells), the
    /// first in row-major order of its square among equals.
    fn best_cut(&self, config: &Config) -> Option<(u16, Cut)> {
        let width = config.width();
        let mut best: Option<(u32, u16, Cut)> = None;
        for top_left in 0..config.n_cells() as u16 {
            if top_left % width + 1 >= width || top_left / width + 1 >= config.height() {
                continue;
            }
            let (p, q, s) = (top_left, top_left + 1, top_left + width);
            let r = s + 1;
            // A loop through x1 → y2 and x2 → y1, for the four ways two
            // opposite sides of the square can run in opposite directions.
            for [x1, y1, x2, y2] in [[p, s, r, q], [s, p, q, r], [p, q, r, s], [q, p, s, r]] {
                let Some(smaller) = self.smaller_piece(Cut { x1, y1, x2, y2 }) else { continue };
                if smaller >= 4 && best.is_none_or(|(size, _, _)| smaller < size) {
                    best = Some((smaller, top_left, Cut { x1, y1, x2, y2 }));
                }
            }
        }
        best.map(|(_, square, cut)| (square, cut))
    }

    /// The size of the smaller of the two loops `cut` would leave, if it is
    /// a cut of one loop through unlocked steps.
    fn smaller_piece(&self, cut: Cut) -> Option<u32> {
        let Cut { x1, y1, x2, y2 } = cut;
        let runs = |from: u16, to: u16| self.succ[usize::from(from)] == to && !self.locked[usize::from(from)];
        if !runs(x1, y2) || !runs(x2, y1) {
            return None;
        }
        let id = self.loop_of[usize::from(x1)];
        if self.loop_of[usize::from(x2)] != id {
            return None;
        }
        // The loop is x1 → y2 → … → x2 → y1 → … → x1; the cut leaves
        // x2 → y2 → … → x2 (from y2 to x2) and the rest.
        let len = self.loop_len[id as usize];
        let (from, to) = (self.position[usize::from(y2)], self.position[usize::from(x2)]);
        let piece = (to + len - from) % len + 1;
        Some(piece.min(len - piece))
    }

    fn cut(&mut self, cut: Cut) {
        let Cut { x1, y1, x2, y2 } = cut;
        let id = self.loop_of[usize::from(x1)];
        self.succ[usize::from(x1)] = y1;
        self.succ[usize::from(x2)] = y2;
        self.locked[usize::from(x1)] = true;
        self.locked[usize::from(x2)] = true;
        let new_id = self.loop_len.len() as u32;
        self.loop_len.push(0);
        self.number(x1, id);
        self.number(x2, new_id);
    }
}
