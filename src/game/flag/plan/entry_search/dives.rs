//! Restarted dives over the entry search: the `search` planner's first plan
//! and its improvement rounds, and the upper bound `exact` starts its
//! deepening with (see the `search` planner's docs for the method).
//!
//! A dive is a depth-first search that tries the entry with the fewest
//! onward exits first, ties broken at random; it is cut after a number of
//! nodes that follows the Luby sequence and started again with new random
//! tie-breaks. States a dive refutes completely stay in the transposition
//! table across restarts.

use super::{INFINITE, Search};
use crate::rng::GameRng;

/// Nodes of the shortest dive; dive `i` may take `luby(i)` times as many.
const RESTART_UNIT: u64 = 1024;

/// The `k`th term (from 1) of the Luby sequence 1, 1, 2, 1, 1, 2, 4, 1, ...
fn luby(k: u64) -> u64 {
    let mut k = k;
    loop {
        // The smallest power of two 2^j with k <= 2^j - 1.
        let mut power = 1u64;
        while power - 1 < k {
            power *= 2;
        }
        if k == power - 1 {
            return power / 2;
        }
        k -= power / 2 - 1;
    }
}

/// How a dive ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dive {
    Found,
    /// Nothing below wins (proven; remembered in the table).
    Dead,
    /// Nothing below wins within the dive's bound (not remembered).
    OverBound,
    /// The dive's node limit or the budget cut it: nothing proven.
    Cut,
}

/// One candidate of a dive: its sort key and the tile.
#[derive(Clone, Copy, Debug)]
struct DiveCandidate {
    /// Smallest first: the cost (when the entries go shortest first), then
    /// whether the entry keeps a way into the flag open, the onward exits
    /// (jittered after the first dive), the cost, and a random tie-break.
    key: (u32, u8, u8, u32, u32),
    target: u16,
    cost: u32,
}

/// Dive state beside the shared [`Search`]: the random tie-breaks, the
/// dive's node limit and a candidate stack of its own.
struct Diver {
    rng: GameRng,
    dive_nodes: u64,
    dive_limit: u64,
    /// Whether to jitter the exit counts (every dive but the first).
    jitter: bool,
    /// Plans longer than this many moves are cut.
    bound: u32,
    /// Order entries by cost first (see [`restarted_dives`]).
    shortest_first: bool,
    deepest: usize,
    candidates: Vec<DiveCandidate>,
}

/// How the first-solution phase ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FirstPlan {
    /// A winning entry order is in `search.found`.
    Found { restarts: u32 },
    /// Proven: nothing wins.
    NoSolution { restarts: u32 },
    /// The budget (`search.stopped`) or the node limit (`search.capped`)
    /// ended it: nothing proven.
    Cut { restarts: u32, deepest: usize },
}

/// Restarted dives on `search` (see the `search` module docs) until one
/// finds a plan of at most `bound` moves, the dives prove there is none, or
/// the budget or `search.node_limit` stops them. The tie-breaks are drawn
/// from `seed`; `shortest_first` orders the entries by their cost in moves
/// before their onward exits (for shorter plans, not faster ones).
pub(crate) fn restarted_dives(search: &mut Search, seed: u64, bound: u32, shortest_first: bool) -> FirstPlan {
    if search.lower_bound() > bound || (search.remaining > 0 && !search.may_be_won()) {
        return FirstPlan::NoSolution { restarts: 0 };
    }
    let mut diver = Diver {
        rng: GameRng::from_seed(seed ^ 0x5EA2_C4A1_7E5E_A2C4),
        dive_nodes: 0,
        dive_limit: 0,
        jitter: false,
        bound,
        shortest_first,
        deepest: 0,
        candidates: Vec::with_capacity(4 * search.visits.len()),
    };
    let mut restarts = 0;
    for dive_index in 1.. {
        diver.dive_nodes = 0;
        diver.dive_limit = luby(dive_index) * RESTART_UNIT;
        diver.jitter = dive_index > 1;
        match search.dive(0, &mut diver) {
            Dive::Found => return FirstPlan::Found { restarts },
            Dive::Dead | Dive::OverBound => return FirstPlan::NoSolution { restarts },
            Dive::Cut if search.stopped.is_some() || search.capped => {
                return FirstPlan::Cut { restarts, deepest: diver.deepest };
            }
            Dive::Cut => restarts += 1,
        }
    }
    unreachable!("the dives end")
}

/// The first-solution phase: restarted dives with no bound on the length.
pub(crate) fn first_plan(search: &mut Search, seed: u64) -> FirstPlan {
    restarted_dives(search, seed, INFINITE - 1, false)
}

impl Search<'_> {
    /// One dive, `spent` moves in (see the `search` module docs). Leaves
    /// the state as it found it; a plan found is in `found`.
    fn dive(&mut self, spent: u32, diver: &mut Diver) -> Dive {
        diver.dive_nodes += 1;
        if self.count_node() {
            return Dive::Cut;
        }
        diver.deepest = diver.deepest.max(self.entries.len());
        let key = match self.dive_ends_here(spent, diver) {
            Ok(key) => key,
            Err(end) => return end,
        };
        let first = diver.candidates.len();
        self.push_dive_candidates(diver);
        let (mut cut, mut over_bound) = (false, false);
        for index in first..diver.candidates.len() {
            let DiveCandidate { target, cost, .. } = diver.candidates[index];
            let previous = self.enter(target);
            let result = self.dive(spent + cost, diver);
            self.leave(target, previous);
            match result {
                Dive::Found => {
                    diver.candidates.truncate(first);
                    return Dive::Found;
                }
                Dive::Dead => {}
                Dive::OverBound => over_bound = true,
                Dive::Cut => {
                    cut = true;
                    if diver.dive_nodes >= diver.dive_limit || self.stopped.is_some() || self.capped {
                        break;
                    }
                }
            }
        }
        diver.candidates.truncate(first);
        if cut {
            Dive::Cut
        } else if over_bound {
            Dive::OverBound
        } else {
            self.remember(key, INFINITE);
            Dive::Dead
        }
    }

    /// How the dive ends at this state (`Err`), if it does; otherwise the
    /// state's transposition-table key (`Ok`). The cheap tests come first:
    /// a plan in hand, a state the table knows is dead, the bound; then the
    /// costlier cuts and the dive's node limit.
    fn dive_ends_here(&mut self, spent: u32, diver: &Diver) -> Result<u64, Dive> {
        let tables = self.tables;
        let here = usize::from(self.position);
        if self.remaining == 0 {
            return Err(if tables.flag_cost[here] == INFINITE {
                Dive::Dead
            } else if spent + tables.flag_cost[here] > diver.bound {
                Dive::OverBound
            } else {
                self.found.clear();
                self.found.extend_from_slice(&self.entries);
                Dive::Found
            });
        }
        let key = self.hash | 1;
        let (slot_key, failed_budget) = self.table[key as usize & (self.table.len() - 1)];
        if slot_key == key && failed_budget == INFINITE {
            return Err(Dive::Dead);
        }
        let estimate = self.lower_bound();
        if estimate == INFINITE {
            self.remember(key, INFINITE);
            return Err(Dive::Dead);
        }
        // The bound, and what deepening searches proved about it; then the
        // costlier cuts.
        if spent + estimate > diver.bound || (slot_key == key && spent + failed_budget >= diver.bound) {
            return Err(Dive::OverBound);
        }
        if !self.may_be_won() {
            self.remember(key, INFINITE);
            return Err(Dive::Dead);
        }
        if diver.dive_nodes >= diver.dive_limit {
            return Err(Dive::Cut);
        }
        Ok(key)
    }

    /// Pushes the entries possible next onto the diver's stack, in the
    /// order the dive tries them: by the sort key [`DiveCandidate::key`].
    fn push_dive_candidates(&mut self, diver: &mut Diver) {
        let tables = self.tables;
        let here = usize::from(self.position);
        let first = diver.candidates.len();
        for &(target, cost) in
            &tables.macro_targets[tables.macro_start[here] as usize..tables.macro_start[here + 1] as usize]
        {
            let owed = self.visits[usize::from(target)];
            if owed > 0 {
                let random = diver.rng.next_u64();
                // The flag is entered last, from one of its neighbours: a
                // neighbour that falls now is one way in fewer, so it waits.
                let keeps_flag_open =
                    u8::from(owed == 1 && tables.beside_flag[usize::from(target)] && self.remaining > 1);
                // Later dives jitter the exit count, so that they differ
                // from the first by more than its ties.
                let jitter = u8::from(diver.jitter && random & 3 == 0);
                let exits = self.usable_neighbours(target) + jitter;
                let (first_key, cost_key) = if diver.shortest_first { (cost, 0) } else { (0, cost) };
                diver.candidates.push(DiveCandidate {
                    key: (first_key, keeps_flag_open, exits, cost_key, (random >> 32) as u32),
                    target,
                    cost,
                });
            }
        }
        diver.candidates[first..].sort_unstable_by_key(|candidate| candidate.key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_luby_sequence_starts_as_published() {
        let terms: Vec<u64> = (1..=15).map(luby).collect();
        assert_eq!(terms, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
    }
}
