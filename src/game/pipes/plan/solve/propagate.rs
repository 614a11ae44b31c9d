//! Constraint propagation, the solver's hot loop: revising tiles against
//! their known edges, setting edges, joining components and the loop,
//! pocket and dead-end rules on them, and the trail that undoes every
//! change on backtracking.

use super::solver::{Solver, Undo};
use super::tables::{AGREED, FITTING};
use crate::game::pipes::{DIR_BITS, opposite};

/// The state an edge is set to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EdgeState {
    Open,
    Closed,
}

impl Solver {
    pub(super) fn find(&self, mut tile: u32) -> u32 {
        loop {
            let parent = self.union_find[tile as usize].parent;
            if parent == tile {
                return tile;
            }
            tile = parent;
        }
    }

    pub(super) fn enqueue(&mut self, tile: u32) {
        if !self.tiles[tile as usize].queued {
            self.tiles[tile as usize].queued = true;
            self.queue.push(tile);
        }
    }

    /// Revises queued tiles until nothing changes (`true`) or a contradiction
    /// appears (`false`, with the queue emptied).
    pub(super) fn propagate(&mut self) -> bool {
        loop {
            let ok = if let Some(tile) = self.queue.pop() {
                self.tiles[tile as usize].queued = false;
                self.revise(tile)
            } else {
                return true;
            };
            if !ok {
                for &tile in &self.queue {
                    self.tiles[tile as usize].queued = false;
                }
                self.queue.clear();
                return false;
            }
        }
    }

    /// Pipe ends the component rooted at `root` has left to join.
    fn ends_left(&self, root: u32) -> u32 {
        let component = &self.union_find[root as usize];
        component.degree_sum + 2 - 2 * component.size
    }

    /// Pipes of `tile` not yet joined by an open edge, or `None` if it has
    /// more open edges than pipes.
    fn unjoined(&self, tile: u32) -> Option<u32> {
        let t = tile as usize;
        self.tiles[t].base.count_ones().checked_sub(self.tiles[t].open_edges.count_ones())
    }

    /// The directions of `tile`'s open and of its closed edges, as masks.
    fn known_edges(&self, tile: usize) -> (u8, u8) {
        (self.tiles[tile].open_edges, self.tiles[tile].closed_edges)
    }

    /// Whether the edge of `tile` in `dir` is still unknown.
    fn is_unknown(&self, tile: usize, dir: usize) -> bool {
        (self.tiles[tile].open_edges | self.tiles[tile].closed_edges) & DIR_BITS[dir] == 0
    }

    /// Closes the unknown edges of `tile` that would join two components
    /// with one pipe end left each (a pocket) short of every tile: whether
    /// it closed any, or `None` on a contradiction.
    fn close_dead_ends(&mut self, tile: u32) -> Option<bool> {
        let root = self.find(tile);
        if self.ends_left(root) != 1 {
            return Some(false);
        }
        let mut closed_any = false;
        for dir in 0..4 {
            if !self.is_unknown(tile as usize, dir) {
                continue;
            }
            let other = self.find(self.neighbours[tile as usize][dir]);
            if other != root
                && self.ends_left(other) == 1
                && self.union_find[root as usize].size + self.union_find[other as usize].size < self.n_with_pipes
            {
                if !self.set_edge(tile, dir, EdgeState::Closed) {
                    return None;
                }
                closed_any = true;
            }
        }
        Some(closed_any)
    }

    /// Drops the orientations of `tile` that disagree with its known edges,
    /// then sets the edges its remaining orientations agree on.
    fn revise(&mut self, tile: u32) -> bool {
        self.revisions += 1;
        let t = tile as usize;
        let (mut open, mut closed) = self.known_edges(t);
        if open | closed != 0xF {
            match self.close_dead_ends(tile) {
                None => return false,
                Some(true) => (open, closed) = self.known_edges(t),
                Some(false) => {}
            }
        }
        let base = usize::from(self.tiles[t].base);
        let domain = self.tiles[t].domain;
        let kept = domain & FITTING[base][usize::from(open | closed << 4)];
        let (all, any) = AGREED[base][usize::from(kept)];
        if kept == 0 {
            self.conflict = [tile, tile];
            return false;
        }
        if kept != domain {
            self.record(Undo::Domain { tile, old: domain });
            self.tiles[t].domain = kept;
        }
        // The edges set here agree with the domain just computed, so they
        // need not queue this tile again; it is marked queued meanwhile.
        // Edges that others set meanwhile (a loop closed by a union) do.
        self.tiles[t].queued = true;
        let mut ok = true;
        for (dir, &bit) in DIR_BITS.iter().enumerate() {
            if !self.is_unknown(t, dir) {
                continue;
            }
            ok = if all & bit != 0 {
                self.set_edge(tile, dir, EdgeState::Open)
            } else if any & bit == 0 {
                self.set_edge(tile, dir, EdgeState::Closed)
            } else {
                true
            };
            if !ok {
                break;
            }
        }
        self.tiles[t].queued = false;
        if ok {
            let unknown = !(open | closed) & 0xF;
            let (expected_open, expected_closed) = (open | (all & unknown), closed | (!any & unknown));
            if self.known_edges(t) != (expected_open, expected_closed) {
                self.enqueue(tile);
            }
        }
        ok
    }

    fn set_free(&mut self, root: u32, free: u32, open_ends: u32) {
        let component = &mut self.union_find[root as usize];
        let undo = Undo::Free { root, old_free: component.free, old_open_ends: component.open_ends };
        component.free = free;
        component.open_ends = open_ends;
        self.record(undo);
    }

    /// A component with no unknown edge left is closed for good: fine only
    /// if it holds every tile with pipes (or is a lone empty tile).
    fn pocket_ok(&self, root: u32) -> bool {
        let component = &self.union_find[root as usize];
        component.free > 0
            || component.size >= self.n_with_pipes
            || (component.size == 1 && self.tiles[root as usize].base == 0)
    }

    /// Sets the unknown edge of `tile` in `dir`, keeping the components and
    /// their free counts in step.
    fn set_edge(&mut self, tile: u32, dir: usize, state: EdgeState) -> bool {
        debug_assert!(self.is_unknown(tile as usize, dir), "set_edge on a known edge");
        // The edge is named from its left or upper tile `a`, which fixes the
        // order in which its tiles are queued and weighed.
        let other = self.neighbours[tile as usize][dir];
        let (a, dir_a, b) = if dir == 1 || dir == 2 { (tile, dir, other) } else { (other, opposite(dir), tile) };
        self.conflict = [a, b];
        for (end, bit) in [(a, DIR_BITS[dir_a]), (b, DIR_BITS[opposite(dir_a)])] {
            let edges = &mut self.tiles[end as usize];
            match state {
                EdgeState::Open => edges.open_edges |= bit,
                EdgeState::Closed => edges.closed_edges |= bit,
            }
        }
        self.record(Undo::Edge { tile: a, dir: dir_a as u8 });
        self.enqueue(a);
        self.enqueue(b);
        let (root_a, root_b) = (self.find(a), self.find(b));
        if state == EdgeState::Closed {
            for root in [root_a, root_b] {
                let component = self.union_find[root as usize];
                self.set_free(root, component.free - 1, component.open_ends);
            }
            return self.pocket_ok(root_a) && self.pocket_ok(root_b);
        }
        if root_a == root_b {
            return false;
        }
        // Opening an edge at a tile whose pipes are all joined already is a
        // contradiction that revising the tile would find; it is caught here
        // so that the pipe-end counts below stay exact.
        let (Some(unjoined_a), Some(unjoined_b)) = (self.unjoined(a), self.unjoined(b)) else {
            return false;
        };
        let filled = |tile: u32, unjoined: u32| if unjoined == 0 { tile + 1 } else { 0 };
        let (small, big) = if self.union_find[root_a as usize].size < self.union_find[root_b as usize].size {
            (root_a, root_b)
        } else {
            (root_b, root_a)
        };
        let small_part = self.union_find[small as usize];
        let big_part = self.union_find[big as usize];
        // The new edge was counted once from each side.
        self.set_free(
            big,
            big_part.free + small_part.free - 2,
            big_part.open_ends ^ small_part.open_ends ^ filled(a, unjoined_a) ^ filled(b, unjoined_b),
        );
        let big_entry = &mut self.union_find[big as usize];
        big_entry.degree_sum += small_part.degree_sum;
        big_entry.size += small_part.size;
        self.union_find[small as usize].parent = big;
        let first_of_small = self.next[small as usize];
        self.next.swap(small as usize, big as usize);
        self.record(Undo::Union { small, big });
        // Every unknown edge inside the merged component runs between its
        // two old parts: walk the smaller part and close them.
        let mut member = first_of_small;
        loop {
            let m = member as usize;
            for dir in 0..4 {
                if self.is_unknown(m, dir)
                    && self.find(self.neighbours[m][dir]) == big
                    && !self.set_edge(member, dir, EdgeState::Closed)
                {
                    return false;
                }
            }
            if member == small {
                break;
            }
            member = self.next[m];
        }
        self.conflict = [a, b];
        if self.ends_left(big) == 1 {
            self.enqueue(self.union_find[big as usize].open_ends - 1);
        }
        self.pocket_ok(big)
    }

    /// Writes `undo` to the trail, unless the change is made by the
    /// propagation at the root, which nothing ever undoes.
    pub(super) fn record(&mut self, undo: Undo) {
        if self.recording {
            self.trail.push(undo);
        }
    }

    pub(super) fn undo_to(&mut self, trail_len: usize) {
        while self.trail.len() > trail_len {
            match self.trail.pop().expect("longer than trail_len") {
                Undo::Domain { tile, old } => self.tiles[tile as usize].domain = old,
                Undo::Edge { tile, dir } => {
                    let dir = usize::from(dir);
                    let b = self.neighbours[tile as usize][dir] as usize;
                    let (bit_a, bit_b) = (DIR_BITS[dir], DIR_BITS[opposite(dir)]);
                    self.tiles[tile as usize].open_edges &= !bit_a;
                    self.tiles[tile as usize].closed_edges &= !bit_a;
                    self.tiles[b].open_edges &= !bit_b;
                    self.tiles[b].closed_edges &= !bit_b;
                }
                Undo::Union { small, big } => {
                    let small_part = self.union_find[small as usize];
                    let big_entry = &mut self.union_find[big as usize];
                    big_entry.size -= small_part.size;
                    big_entry.degree_sum -= small_part.degree_sum;
                    self.union_find[small as usize].parent = small;
                    self.next.swap(small as usize, big as usize);
                }
                Undo::Free { root, old_free, old_open_ends } => {
                    let component = &mut self.union_find[root as usize];
                    component.free = old_free;
                    component.open_ends = old_open_ends;
                }
            }
        }
    }
}
