//! The search over tile entries that the `exact` and the `search` planners
//! share: its board tables (`tables`), its state, updated in place and
//! undone (here), its lower bound and cuts (`cuts`), and the two ways it
//! is searched: IDA* (`deepening`, `exact`'s) and restarted dives
//! (`dives`, `search`'s first plan and `exact`'s upper bound).
//!
//! The search works on *entries*, not single moves. Every move enters one
//! tile, and each fragile or cracked entry is forced (it is what has to be
//! done); the only freedom is the order, and the permanent tiles (stones and
//! the flag) walked over between two entries. Walking over permanent tiles
//! changes nothing, so between two entries the player takes a shortest
//! permanent-only path. Those paths depend on the board alone and are
//! precomputed: from each cell, every tile that can be entered next, at what
//! cost in moves ("macro moves"). A solution is then exactly `remaining`
//! macro moves and a final walk to the flag, and the search depth is bounded,
//! which is also what makes "no solution" a proof rather than a timeout.
//!
//! The lower bounds and cuts:
//! - every remaining entry costs a move, and the last move enters the flag;
//! - a tile that only permanent tiles can lead into costs a permanent entry
//!   before each of its entries;
//! - the grid is bipartite: moves alternate cell colours, so the entries still
//!   owed on each colour bound the length, and its parity is fixed by the
//!   colours of the player's cell and the flag;
//! - every tile still owed an entry, and the flag, must be reachable over
//!   tiles that have not fallen; when the player stands on a fallen tile
//!   (never to return), they must all lie in one piece of the board without it;
//! - a tile with a single usable neighbour must be entered from it and left
//!   to it, so that neighbour must have enough entries left;
//! - a fragile or cracked tile whose removal cuts the board into pieces
//!   (an articulation point, found by Tarjan's low links in one depth-first
//!   search) is a door: each pass through it moves the player between
//!   pieces, so it needs as many entries left as the pieces holding owed
//!   tiles or the flag need passes;
//! - a transposition table (position and remaining entries, Zobrist-hashed
//!   to 63 bits; a collision could wrongly cut a state, at odds of ~2^-40)
//!   remembers the largest cost budget a state is known to fail with, so a
//!   state reached again by another order is not searched again.
//!
//! Nothing is allocated per node: the state is updated in place and undone,
//! candidates share one stack.

mod cuts;
mod deepening;
mod dives;
mod tables;

pub(crate) use deepening::FOUND;
pub(crate) use dives::{FirstPlan, first_plan, restarted_dives};
pub(crate) use tables::BoardTables;

use crate::game::flag::NO_CELL;
use crate::plan::{Budget, PlanError};

/// "No bound": a state from which no solution exists at all.
pub(crate) const INFINITE: u32 = u32::MAX;
/// Transposition-table slots at first, and at most (16 bytes each: 64 MB).
/// The table grows fourfold whenever the search has made 8 times as many
/// nodes as it has slots, so small levels never pay for a large table.
const FIRST_TABLE_SLOTS: usize = 1 << 12;
const MAX_TABLE_SLOTS: usize = 1 << 22;
/// Nodes between two looks at the budget.
const BUDGET_POLL_NODES: u64 = 1024;

/// The mutable state of one search: updated in place and undone.
pub(crate) struct Search<'a> {
    tables: &'a BoardTables,
    budget: &'a Budget,
    visits: Vec<u8>,
    position: u16,
    /// Entries still owed, in total and per cell colour.
    pub(crate) remaining: u32,
    remaining_by_colour: [u32; 2],
    /// Cells still owed at least one entry.
    live_cells: u32,
    /// The Zobrist hash of the position and the entries owed.
    hash: u64,
    /// The entries made so far, in order.
    entries: Vec<u16>,
    /// The IDA* candidates of every depth, on one stack.
    candidates: Vec<deepening::Candidate>,
    /// Largest cost budget each state is known to fail with, in a
    /// direct-mapped table indexed by the low bits of the state's key: a new
    /// state replaces whatever shared its slot (forgetting costs time, never
    /// correctness). Key 0 marks an empty slot.
    table: Vec<(u64, u32)>,
    /// Flood-fill scratch: a cell is seen in this fill when its stamp equals `stamp`.
    seen_stamp: Vec<u32>,
    stamp: u32,
    /// Entries of a cell that dead ends hanging off it need, valid where
    /// `demand_stamp` equals `stamp`.
    demand: Vec<u32>,
    demand_stamp: Vec<u32>,
    /// Returns to the player's cell that the pieces beside it need.
    returns_needed: u32,
    #[cfg(test)]
    queue: Vec<u16>,
    pub(crate) nodes: u64,
    pub(crate) stopped: Option<PlanError>,
    /// The search stops (as if out of budget, but deterministically) once
    /// `nodes` reaches this.
    pub(crate) node_limit: u64,
    /// Set when `node_limit` stopped the search: nothing below was proven.
    pub(crate) capped: bool,
    /// The entries of the last solution found (the search unwinds after it).
    pub(crate) found: Vec<u16>,
    /// Articulation-point scratch, per cell: discovery time (0: not yet),
    /// low link, live cells and the flag in the depth-first subtree, and
    /// the pieces of the board without the cell that need a pass through it.
    discovered: Vec<u32>,
    low_link: Vec<u32>,
    live_below: Vec<u32>,
    flag_below: Vec<bool>,
    pieces_cut_off: Vec<u32>,
    flag_cut_off: Vec<bool>,
    dfs_stack: Vec<(u16, u8)>,
}

impl<'a> Search<'a> {
    /// The search from `visits` (the entries each cell still takes) with the
    /// player on `position`, stopping when `budget` runs out.
    pub(crate) fn new(tables: &'a BoardTables, visits: &[u8], position: u16, budget: &'a Budget) -> Search<'a> {
        let mut remaining_by_colour = [0u32; 2];
        let mut live_cells = 0;
        let mut hash = tables.position_keys[usize::from(position)];
        for (cell, &count) in visits.iter().enumerate() {
            remaining_by_colour[usize::from(tables.colour[cell])] += u32::from(count);
            if count > 0 {
                live_cells += 1;
                hash ^= tables.entry_keys[3 * cell + usize::from(count.min(2))];
            }
        }
        Search {
            tables,
            budget,
            visits: visits.to_vec(),
            position,
            remaining: remaining_by_colour[0] + remaining_by_colour[1],
            remaining_by_colour,
            live_cells,
            hash,
            entries: Vec::with_capacity(visits.len() * 2),
            candidates: Vec::with_capacity(64 * 4),
            table: vec![(0, 0); FIRST_TABLE_SLOTS],
            seen_stamp: vec![0; visits.len()],
            stamp: 0,
            demand: vec![0; visits.len()],
            demand_stamp: vec![0; visits.len()],
            returns_needed: 0,
            #[cfg(test)]
            queue: Vec::with_capacity(visits.len()),
            nodes: 0,
            stopped: None,
            node_limit: u64::MAX,
            capped: false,
            found: Vec::with_capacity(visits.len() * 2),
            discovered: vec![0; visits.len()],
            low_link: vec![0; visits.len()],
            live_below: vec![0; visits.len()],
            flag_below: vec![false; visits.len()],
            pieces_cut_off: vec![0; visits.len()],
            flag_cut_off: vec![false; visits.len()],
            dfs_stack: Vec::with_capacity(visits.len()),
        }
    }

    /// Counts one node, and says whether the search must stop now: the
    /// budget is looked at every [`BUDGET_POLL_NODES`] nodes, the node
    /// limit every node.
    fn count_node(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes % BUDGET_POLL_NODES == 0
            && let Some(error) = self.budget.exhausted()
        {
            self.stopped = Some(error);
        }
        if self.nodes >= self.node_limit {
            self.capped = true;
        }
        self.stopped.is_some() || self.capped
    }

    /// Whether the player may stand on `cell` now.
    fn is_standing(&self, cell: u16) -> bool {
        self.tables.permanent[usize::from(cell)] || self.visits[usize::from(cell)] > 0
    }

    /// Neighbours of `tile` the player may stand on now.
    fn usable_neighbours(&self, tile: u16) -> u8 {
        self.tables.neighbours[usize::from(tile)]
            .iter()
            .filter(|&&next| next != NO_CELL && self.is_standing(next))
            .count() as u8
    }

    /// Records that the state with `key` fails with a cost budget of
    /// `failed_budget` moves (or at all, [`INFINITE`]), growing the table
    /// when the search has outgrown it.
    fn remember(&mut self, key: u64, failed_budget: u32) {
        if self.nodes > 8 * self.table.len() as u64 && self.table.len() < MAX_TABLE_SLOTS {
            let bigger = self.table.len() * 4;
            let old = std::mem::replace(&mut self.table, vec![(0, 0); bigger]);
            for (old_key, old_budget) in old.into_iter().filter(|&(old_key, _)| old_key != 0) {
                self.table[old_key as usize & (bigger - 1)] = (old_key, old_budget);
            }
        }
        let slot = key as usize & (self.table.len() - 1);
        let (slot_key, slot_budget) = self.table[slot];
        let budget = if slot_key == key { slot_budget.max(failed_budget) } else { failed_budget };
        self.table[slot] = (key, budget);
    }

    /// Moves to `target` and takes one of its entries; returns the position
    /// to go back to.
    fn enter(&mut self, target: u16) -> u16 {
        let tables = self.tables;
        let previous = self.position;
        let cell = usize::from(target);
        let count = self.visits[cell];
        self.hash ^= tables.position_keys[usize::from(previous)] ^ tables.position_keys[cell];
        self.hash ^= tables.entry_keys[3 * cell + usize::from(count)];
        if count > 1 {
            self.hash ^= tables.entry_keys[3 * cell + usize::from(count - 1)];
        } else {
            self.live_cells -= 1;
        }
        self.visits[cell] = count - 1;
        self.remaining -= 1;
        self.remaining_by_colour[usize::from(tables.colour[cell])] -= 1;
        self.position = target;
        self.entries.push(target);
        previous
    }

    /// Undoes [`Search::enter`]: gives `target` its entry back and returns to
    /// `previous`.
    fn leave(&mut self, target: u16, previous: u16) {
        let tables = self.tables;
        let cell = usize::from(target);
        let count = self.visits[cell];
        if count > 0 {
            self.hash ^= tables.entry_keys[3 * cell + usize::from(count)];
        } else {
            self.live_cells += 1;
        }
        self.hash ^= tables.entry_keys[3 * cell + usize::from(count + 1)];
        self.hash ^= tables.position_keys[usize::from(previous)] ^ tables.position_keys[cell];
        self.visits[cell] = count + 1;
        self.remaining += 1;
        self.remaining_by_colour[usize::from(tables.colour[cell])] += 1;
        self.position = previous;
        self.entries.pop();
    }
}
