//! IDA* over the entry search, the `exact` planner's deepening: one
//! depth-first iteration under a bound on the total number of moves.
//!
//! Among the entries possible next, the cheapest are tried first, then
//! cracked tiles that keep an entry, then the tile with the fewest usable
//! neighbours (Warnsdorff's rule). The candidates of every depth share one
//! stack.

use super::{INFINITE, Search};

/// Returned up the search once a solution is found.
pub(crate) const FOUND: u32 = u32::MAX - 1;

/// One candidate entry: the tile, the moves it costs, and its tie-break.
#[derive(Clone, Copy, Debug)]
pub(super) struct Candidate {
    target: u16,
    cost: u32,
    usable_neighbours: u8,
    tie: u8,
}

impl Search<'_> {
    /// IDA* below the current state, `spent` moves in, under `bound` moves in
    /// total. Returns [`FOUND`], or the smallest total over the bound seen
    /// (a valid next bound), or [`INFINITE`] if nothing below can win.
    pub(crate) fn depth_first(&mut self, spent: u32, bound: u32) -> u32 {
        if self.count_node() {
            return INFINITE;
        }
        let estimate = self.lower_bound();
        if estimate == INFINITE {
            return INFINITE;
        }
        if spent + estimate > bound {
            return spent + estimate;
        }
        if self.remaining == 0 {
            // The estimate is exact here: the walk to the flag.
            self.found.clear();
            self.found.extend_from_slice(&self.entries);
            return FOUND;
        }
        let key = self.hash | 1;
        let (slot_key, failed_budget) = self.table[key as usize & (self.table.len() - 1)];
        if slot_key == key && failed_budget >= bound - spent {
            return if failed_budget == INFINITE { INFINITE } else { spent + failed_budget + 1 };
        }
        if !self.may_be_won() {
            self.remember(key, INFINITE);
            return INFINITE;
        }
        let tables = self.tables;
        let first = self.candidates.len();
        let here = usize::from(self.position);
        for &(target, cost) in
            &tables.macro_targets[tables.macro_start[here] as usize..tables.macro_start[here + 1] as usize]
        {
            let owed = self.visits[usize::from(target)];
            if owed > 0 {
                let usable_neighbours = self.usable_neighbours(target);
                // Tie-break: a tile that will not fall when entered now first.
                let tie = u8::from(owed == 1);
                self.candidates.push(Candidate { target, cost, usable_neighbours, tie });
            }
        }
        self.candidates[first..]
            .sort_by_key(|candidate| (candidate.cost, candidate.tie, candidate.usable_neighbours, candidate.target));
        let mut smallest_over = INFINITE;
        for index in first..self.candidates.len() {
            let candidate = self.candidates[index];
            let previous = self.enter(candidate.target);
            let result = self.depth_first(spent + candidate.cost, bound);
            self.leave(candidate.target, previous);
            if result == FOUND {
                // The path is in `found`; unwind to the caller's state.
                self.candidates.truncate(first);
                return FOUND;
            }
            smallest_over = smallest_over.min(result);
        }
        self.candidates.truncate(first);
        if self.stopped.is_none() && !self.capped {
            let failed_budget = if smallest_over == INFINITE { INFINITE } else { smallest_over - spent - 1 };
            self.remember(key, failed_budget);
        }
        smallest_over
    }
}
