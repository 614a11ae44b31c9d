//! The `exact` planner: a complete search that returns a shortest winning
//! move sequence, or proves that none exists.
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
//! IDA* over the total number of moves, with these lower bounds and cuts:
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
//! Before deepening, the `search` planner's restarted dives (below, and in
//! the `search` module docs) look for any plan for a few tens of thousands
//! of nodes: its length is an upper bound, so the deepening stops, with
//! that plan, as soon as its bound reaches it, and the states the dives
//! proved dead stay in the table.
//!
//! Among the entries possible next, the cheapest are tried first, then
//! cracked tiles that keep an entry, then the tile with the fewest usable
//! neighbours (Warnsdorff's rule). Nothing is allocated per node: the state
//! is updated in place and undone, candidates share one stack.
//!
//! Tests check it against a naive breadth-first search over whole game
//! states on random small boards, solvable and not.
//!
//! Known limit: the search is exponential in the worst case. Boards of about
//! 10×10 with many cracked tiles or with stones can take seconds or more when
//! the optimum exceeds the first lower bound, because each cheaper bound
//! must be refuted exhaustively; the planner honours its time budget. The
//! `search` planner plays such boards (a plan at once, shortened for a
//! fixed number of nodes, with its gap to the lower bound reported).

use super::{Config, Dir, FlagGame, NO_CELL, Tile};
use crate::game::Game;
use crate::plan::{Budget, Decision, Plan, PlanError, Planner, StoredPlan};
use crate::rng::GameRng;

/// "No bound": a state from which no solution exists at all.
pub(super) const INFINITE: u32 = u32::MAX;
/// Returned up the search once a solution is found.
pub(super) const FOUND: u32 = u32::MAX - 1;
/// Transposition-table slots at first, and at most (16 bytes each: 64 MB).
/// The table grows fourfold whenever the search has made 8 times as many
/// nodes as it has slots, so small levels never pay for a large table.
const FIRST_TABLE_SLOTS: usize = 1 << 12;
const MAX_TABLE_SLOTS: usize = 1 << 22;
/// Nodes between two looks at the budget.
pub(super) const BUDGET_POLL_NODES: u64 = 1024;
/// Nodes the first-solution dives may spend on an upper bound before the
/// deepening starts: enough for the boards where deepening is slow, a small
/// share of a solve where it is not.
const UPPER_BOUND_NODES: u64 = 1 << 16;

/// What the search concluded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// A shortest winning sequence of moves.
    Solved(Vec<Dir>),
    /// No sequence of moves wins from this state: proven, not timed out.
    NoSolution,
}

/// A verdict with the work it took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Solution {
    pub verdict: Verdict,
    /// Search nodes expanded, over every IDA* iteration.
    pub nodes: u64,
    /// IDA* iterations (cost bounds tried).
    pub iterations: u32,
}

/// The board-dependent tables of the search, built once per level.
#[derive(Clone, Debug)]
pub(crate) struct ExactSolver {
    pub(super) n_cells: usize,
    pub(super) flag: u16,
    pub(super) permanent: Vec<bool>,
    /// `(column + row) % 2` of each cell.
    pub(super) colour: Vec<u8>,
    pub(super) neighbours: Vec<[u16; 4]>,
    /// Macro moves from cell `p`: `macro_targets[macro_start[p]..macro_start[p + 1]]`,
    /// each a non-permanent tile with the fewest moves to enter it over
    /// permanent tiles only.
    pub(super) macro_start: Vec<u32>,
    pub(super) macro_targets: Vec<(u16, u32)>,
    /// Fragile and cracked tiles with a permanent neighbour: the only ones
    /// that can be reachable with no other way in (see `lower_bound`).
    pub(super) near_permanent: Vec<u16>,
    /// Whether each cell is a neighbour of the flag.
    pub(super) beside_flag: Vec<bool>,
    /// Fewest moves from a cell to the flag over permanent tiles only;
    /// [`INFINITE`] if there is no such walk. 0 on the flag.
    pub(super) flag_cost: Vec<u32>,
    /// Zobrist keys: `entry_keys[3 * cell + visits]` for visits 1 and 2.
    pub(super) entry_keys: Vec<u64>,
    pub(super) position_keys: Vec<u64>,
}

impl ExactSolver {
    pub fn new(config: &Config) -> ExactSolver {
        let n_cells = config.n_cells();
        let permanent: Vec<bool> = config.tiles().iter().map(|tile| tile.is_permanent()).collect();
        let colour = (0..n_cells as u16)
            .map(|cell| {
                let (col, row) = config.col_row(cell);
                ((col + row) % 2) as u8
            })
            .collect();
        let neighbours: Vec<[u16; 4]> = (0..n_cells as u16).map(|cell| config.neighbours(cell)).collect();
        let mut macro_start = Vec::with_capacity(n_cells + 1);
        let mut macro_targets = Vec::new();
        let mut flag_cost = vec![INFINITE; n_cells];
        // One breadth-first walk over permanent tiles from each cell.
        let mut distance = vec![INFINITE; n_cells];
        let mut queue: Vec<u16> = Vec::with_capacity(n_cells);
        let mut best_target = vec![INFINITE; n_cells];
        for start in 0..n_cells {
            macro_start.push(macro_targets.len() as u32);
            if config.tile(start as u16) == Tile::Hole {
                continue;
            }
            distance.fill(INFINITE);
            best_target.fill(INFINITE);
            queue.clear();
            distance[start] = 0;
            queue.push(start as u16);
            let mut head = 0;
            while head < queue.len() {
                let cell = queue[head];
                head += 1;
                let here = distance[usize::from(cell)];
                for next in neighbours[usize::from(cell)] {
                    if next == NO_CELL {
                        continue;
                    }
                    let next_index = usize::from(next);
                    match config.tile(next) {
                        Tile::Hole => {}
                        Tile::Fragile | Tile::Cracked => {
                            best_target[next_index] = best_target[next_index].min(here + 1);
                        }
                        Tile::Stone | Tile::Flag => {
                            if distance[next_index] == INFINITE {
                                distance[next_index] = here + 1;
                                queue.push(next);
                            }
                        }
                    }
                }
            }
            flag_cost[start] = distance[usize::from(config.flag())];
            let first = macro_targets.len();
            for (target, &cost) in best_target.iter().enumerate() {
                if cost != INFINITE {
                    macro_targets.push((target as u16, cost));
                }
            }
            macro_targets[first..].sort_by_key(|&(target, cost)| (cost, target));
        }
        macro_start.push(macro_targets.len() as u32);
        let near_permanent = (0..n_cells as u16)
            .filter(|&cell| matches!(config.tile(cell), Tile::Fragile | Tile::Cracked))
            .filter(|&cell| {
                neighbours[usize::from(cell)].iter().any(|&next| next != NO_CELL && permanent[usize::from(next)])
            })
            .collect();
        let mut beside_flag = vec![false; n_cells];
        for next in neighbours[usize::from(config.flag())] {
            if next != NO_CELL {
                beside_flag[usize::from(next)] = true;
            }
        }
        let mut keys = GameRng::from_seed(0x5EED_F1A6);
        let entry_keys = (0..3 * n_cells).map(|_| keys.next_u64()).collect();
        let position_keys = (0..n_cells).map(|_| keys.next_u64()).collect();
        ExactSolver {
            n_cells,
            flag: config.flag(),
            permanent,
            colour,
            neighbours,
            macro_start,
            macro_targets,
            near_permanent,
            beside_flag,
            flag_cost,
            entry_keys,
            position_keys,
        }
    }

    /// Solves the game from `visits` (entries each cell still takes) with
    /// the player on `position`. Stops with [`PlanError`] only when the
    /// budget runs out.
    pub(crate) fn solve(&self, visits: &[u8], position: u16, budget: &Budget) -> Result<Solution, PlanError> {
        assert_eq!(visits.len(), self.n_cells, "visits for another board");
        let mut search = Search::new(self, visits, position, budget);
        let mut iterations = 0;
        let mut bound = search.lower_bound();
        // An upper bound first: the `search` planner's restarted dives, for
        // at most UPPER_BOUND_NODES nodes. Their proofs of dead states stay
        // in the table; a plan found ends the deepening as soon as the bound
        // reaches its length.
        search.node_limit = UPPER_BOUND_NODES;
        let upper = match first_plan(&mut search, 0) {
            FirstPlan::Found { .. } => Some(self.expand(position, &search.found)),
            FirstPlan::NoSolution { .. } => {
                return Ok(Solution { verdict: Verdict::NoSolution, nodes: search.nodes, iterations });
            }
            FirstPlan::Cut { .. } => None,
        };
        if let Some(error) = search.stopped.take() {
            return Err(error);
        }
        (search.node_limit, search.capped) = (u64::MAX, false);
        let verdict = loop {
            if bound == INFINITE {
                break Verdict::NoSolution;
            }
            if let Some(moves) = upper.as_ref().filter(|moves| moves.len() as u32 <= bound) {
                break Verdict::Solved(moves.clone());
            }
            iterations += 1;
            let result = search.depth_first(0, bound);
            if let Some(error) = search.stopped.take() {
                return Err(error);
            }
            match result {
                FOUND => break Verdict::Solved(self.expand(position, &search.found)),
                INFINITE => break Verdict::NoSolution,
                next => bound = next,
            }
        };
        Ok(Solution { verdict, nodes: search.nodes, iterations })
    }

    /// Turns the entry order into moves: the shortest permanent-only walk
    /// before each entry, then to the flag.
    pub(super) fn expand(&self, mut position: u16, entries: &[u16]) -> Vec<Dir> {
        let mut moves = Vec::new();
        for &target in entries {
            self.walk(position, target, &mut moves);
            position = target;
        }
        if position != self.flag {
            self.walk(position, self.flag, &mut moves);
        }
        moves
    }

    /// Appends the fewest moves from `from` to `to` whose intermediate cells
    /// are all permanent (the macro move the search chose).
    pub(super) fn walk(&self, from: u16, to: u16, moves: &mut Vec<Dir>) {
        let mut parent = vec![NO_CELL; self.n_cells];
        let mut queue = vec![from];
        let mut head = 0;
        let mut seen = vec![false; self.n_cells];
        seen[usize::from(from)] = true;
        while head < queue.len() {
            let cell = queue[head];
            head += 1;
            if cell == to && cell != from {
                break;
            }
            if cell != from && !self.permanent[usize::from(cell)] {
                continue;
            }
            for next in self.neighbours[usize::from(cell)] {
                if next == NO_CELL || (seen[usize::from(next)] && next != to) || parent[usize::from(next)] != NO_CELL {
                    continue;
                }
                // Only `to` and permanent tiles may be stepped on; holes and
                // other fragile tiles are never part of a macro move.
                if next != to && !self.permanent[usize::from(next)] {
                    continue;
                }
                seen[usize::from(next)] = true;
                parent[usize::from(next)] = cell;
                queue.push(next);
            }
        }
        let mut path = vec![to];
        let mut cell = to;
        while parent[usize::from(cell)] != from {
            cell = parent[usize::from(cell)];
            assert_ne!(cell, NO_CELL, "the search chose a macro move with no walk");
            path.push(cell);
        }
        let mut here = from;
        for &next in path.iter().rev() {
            let dir = Dir::ALL
                .into_iter()
                .find(|&dir| self.neighbours[usize::from(here)][usize::from(dir.code())] == next)
                .expect("consecutive cells of a walk are neighbours");
            moves.push(dir);
            here = next;
        }
    }
}

/// One candidate entry: the tile, the moves it costs, and its tie-break.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    target: u16,
    cost: u32,
    usable_neighbours: u8,
    tie: u8,
}

/// The mutable state of one solve: updated in place and undone.
pub(super) struct Search<'a> {
    pub(super) solver: &'a ExactSolver,
    pub(super) budget: &'a Budget,
    pub(super) visits: Vec<u8>,
    pub(super) position: u16,
    /// Entries still owed, in total and per cell colour.
    pub(super) remaining: u32,
    pub(super) remaining_by_colour: [u32; 2],
    /// Cells still owed at least one entry.
    pub(super) live_cells: u32,
    pub(super) hash: u64,
    /// The entries made so far, in order.
    pub(super) entries: Vec<u16>,
    candidates: Vec<Candidate>,
    /// Largest cost budget each state is known to fail with, in a
    /// direct-mapped table indexed by the low bits of the state's key: a new
    /// state replaces whatever shared its slot (forgetting costs time, never
    /// correctness). Key 0 marks an empty slot.
    pub(super) table: Vec<(u64, u32)>,
    /// Flood-fill scratch: a cell is seen in this fill when its stamp equals `stamp`.
    pub(super) seen_stamp: Vec<u32>,
    pub(super) stamp: u32,
    /// Entries of a cell that dead ends hanging off it need, valid where
    /// `demand_stamp` equals `stamp`.
    pub(super) demand: Vec<u32>,
    pub(super) demand_stamp: Vec<u32>,
    /// Returns to the player's cell that the pieces beside it need.
    pub(super) returns_needed: u32,
    #[cfg(test)]
    queue: Vec<u16>,
    pub(super) nodes: u64,
    pub(super) stopped: Option<PlanError>,
    /// The search stops (as if out of budget, but deterministically) once
    /// `nodes` reaches this.
    pub(super) node_limit: u64,
    /// Set when `node_limit` stopped the search: nothing below was proven.
    pub(super) capped: bool,
    /// The entries of the last solution found (the search unwinds after it).
    pub(super) found: Vec<u16>,
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
    pub(super) fn new(solver: &'a ExactSolver, visits: &[u8], position: u16, budget: &'a Budget) -> Search<'a> {
        let mut remaining_by_colour = [0u32; 2];
        let mut live_cells = 0;
        let mut hash = solver.position_keys[usize::from(position)];
        for (cell, &count) in visits.iter().enumerate() {
            remaining_by_colour[usize::from(solver.colour[cell])] += u32::from(count);
            if count > 0 {
                live_cells += 1;
                hash ^= solver.entry_keys[3 * cell + usize::from(count.min(2))];
            }
        }
        Search {
            solver,
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

    /// A lower bound on the moves still needed to win ([`INFINITE`] when
    /// the flag cannot be reached at the end).
    pub(super) fn lower_bound(&self) -> u32 {
        let solver = self.solver;
        let here = usize::from(self.position);
        if self.remaining == 0 {
            return solver.flag_cost[here];
        }
        let same = usize::from(solver.colour[here]);
        let flag_colour = usize::from(solver.colour[usize::from(solver.flag)]);
        // Entry k (1-based) lands on the other colour when k is odd: a walk of
        // L moves makes ceil(L/2) entries on the other colour, floor(L/2) on
        // this one, and the last entry is the flag.
        let other_entries = self.remaining_by_colour[1 - same] + u32::from(flag_colour != same);
        let same_entries = self.remaining_by_colour[same] + u32::from(flag_colour == same);
        // A tile whose every way in is a permanent tile (no live fragile or
        // cracked neighbour, and not beside the player) is entered from a
        // stone or the flag each time: one permanent entry before each of its
        // entries (the first may be the cell the player stands on), and the
        // final flag entry comes after them all.
        let mut walled_entries = 0;
        for &tile in &solver.near_permanent {
            let owed = self.visits[usize::from(tile)];
            if owed > 0 && self.is_walled_in(tile) {
                walled_entries += u32::from(owed);
            }
        }
        let on_permanent = u32::from(solver.permanent[here]);
        let permanent_entries = 1 + walled_entries.saturating_sub(on_permanent);
        let mut bound =
            (self.remaining + permanent_entries).max((2 * other_entries).saturating_sub(1)).max(2 * same_entries);
        let parity = u32::from(same != flag_colour);
        if bound % 2 != parity {
            bound += 1;
        }
        bound
    }

    /// Whether no fragile or cracked tile can lead into `tile` any more: its
    /// neighbours are permanent, fallen or holes, and the player is not on one.
    fn is_walled_in(&self, tile: u16) -> bool {
        self.solver.neighbours[usize::from(tile)].iter().all(|&next| {
            next == NO_CELL
                || (next != self.position
                    && (self.solver.permanent[usize::from(next)] || self.visits[usize::from(next)] == 0))
        })
    }

    pub(super) fn is_standing(&self, cell: u16) -> bool {
        self.solver.permanent[usize::from(cell)] || self.visits[usize::from(cell)] > 0
    }

    /// Whether the position can still be won as far as cheap tests tell.
    ///
    /// Every owed tile and the flag must be reachable over tiles that have
    /// not fallen. When the player stands on a fragile or cracked tile, the
    /// board without that cell falls into pieces: the flag's piece, reached
    /// last, and others the player can only visit and come back from, each
    /// return taking one of the entries the player's tile has left (a fallen
    /// tile has none, so everything must then be in the flag's piece).
    ///
    /// A tile with one usable neighbour `n` is entered from `n` and left to
    /// it (`n, t, n, t, ..., n`): all such tiles hanging off `n` need that
    /// many entries of `n`.
    ///
    /// A fragile or cracked tile `u` whose removal cuts the board into
    /// pieces can only be crossed as often as it has entries left, and each
    /// crossing moves the player from one piece to another. The player
    /// starts in their own piece and ends on the flag, so with `m` other
    /// pieces that hold owed tiles or the flag, `u` needs `m` passes when the
    /// flag is in one of them, and `m + 1` (out and back home) when the flag
    /// is in the player's piece.
    ///
    /// All of it comes from one depth-first search from the player's cell
    /// over the standing cells (Tarjan's low links: a child whose subtree
    /// cannot reach above its parent is a piece cut off by the parent, and
    /// the root's children are the pieces around the player).
    pub(super) fn may_be_won(&mut self) -> bool {
        let solver = self.solver;
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen_stamp.fill(0);
            self.demand_stamp.fill(0);
            self.stamp = 1;
        }
        let root = self.position;
        self.discovered.fill(0);
        self.dfs_stack.clear();
        self.returns_needed = 0;
        // Pieces around the player that must be visited and left again.
        let mut pieces_to_return_from = 0;
        let mut time = 1;
        self.open(root, time);
        while let Some(top) = self.dfs_stack.last_mut() {
            let (cell, next_dir) = *top;
            if next_dir < 4 {
                top.1 += 1;
                let next = solver.neighbours[usize::from(cell)][usize::from(next_dir)];
                if next == NO_CELL || !(next == root || self.is_standing(next)) {
                    continue;
                }
                let index = usize::from(next);
                if self.discovered[index] == 0 {
                    let owed = self.visits[index];
                    if owed > 0 && !self.dead_end_has_room(next, owed) {
                        return false;
                    }
                    time += 1;
                    self.open(next, time);
                } else {
                    let low = self.low_link[usize::from(cell)].min(self.discovered[index]);
                    self.low_link[usize::from(cell)] = low;
                }
                continue;
            }
            self.dfs_stack.pop();
            let index = usize::from(cell);
            if cell != root && !solver.permanent[index] {
                // Every child of `cell` is done: its cut-off pieces are known.
                let pieces = self.pieces_cut_off[index];
                let passes = if self.flag_cut_off[index] { pieces } else { pieces + u32::from(pieces > 0) };
                if passes > u32::from(self.visits[index]) {
                    return false;
                }
            }
            let Some(&(parent, _)) = self.dfs_stack.last() else { break };
            let parent_index = usize::from(parent);
            self.low_link[parent_index] = self.low_link[parent_index].min(self.low_link[index]);
            self.live_below[parent_index] += self.live_below[index];
            self.flag_below[parent_index] |= self.flag_below[index];
            if parent == root {
                pieces_to_return_from += u32::from(self.live_below[index] > 0 && !self.flag_below[index]);
            } else if self.low_link[index] >= self.discovered[parent_index]
                && (self.live_below[index] > 0 || self.flag_below[index])
            {
                self.pieces_cut_off[parent_index] += 1;
                self.flag_cut_off[parent_index] |= self.flag_below[index];
            }
        }
        let root_index = usize::from(root);
        if self.live_below[root_index] != self.live_cells || !self.flag_below[root_index] {
            return false;
        }
        // On a permanent tile the player may come back at will; on another,
        // each piece left and returned from takes one of its entries, and
        // the flag's piece comes last. (A dead end beside the player adds
        // its extra trips to `returns_needed`.)
        solver.permanent[root_index]
            || pieces_to_return_from + self.returns_needed <= u32::from(self.visits[root_index])
    }

    /// [`Self::may_be_won`] as it was first written, in two passes (a
    /// breadth-first fill per piece, then the articulation search): the
    /// one-pass version must agree with it.
    #[cfg(test)]
    fn may_be_won_by_two_passes(&mut self) -> bool {
        self.pieces_are_reachable() && self.passes_suffice()
    }

    /// The reachability and dead-end half of the two-pass version.
    #[cfg(test)]
    fn pieces_are_reachable(&mut self) -> bool {
        let solver = self.solver;
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen_stamp.fill(0);
            self.demand_stamp.fill(0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        let here = self.position;
        if solver.permanent[usize::from(here)] {
            // The player can come back here at will: one piece through it.
            let Some((live_reached, _)) = self.fill(here) else { return false };
            return live_reached == self.live_cells && self.seen_stamp[usize::from(solver.flag)] == stamp;
        }
        self.seen_stamp[usize::from(here)] = stamp;
        self.returns_needed = 0;
        let Some((mut live_reached, touches_player)) = self.fill(solver.flag) else { return false };
        if !touches_player {
            return false;
        }
        for next in solver.neighbours[usize::from(here)] {
            if next == NO_CELL || self.seen_stamp[usize::from(next)] == stamp || !self.is_standing(next) {
                continue;
            }
            let Some((reached, _)) = self.fill(next) else { return false };
            // A piece with nothing owed (stones only) need not be visited.
            live_reached += reached;
            self.returns_needed += u32::from(reached > 0);
        }
        // The player's own tile, if it still owes entries, is live too.
        let owed_here = self.visits[usize::from(here)];
        live_reached += u32::from(owed_here > 0);
        live_reached == self.live_cells && self.returns_needed <= u32::from(owed_here)
    }

    /// The articulation-point rule: a fragile or cracked tile `u` whose
    /// removal cuts the board into pieces can only be crossed as often as it
    /// has entries left, and each crossing moves the player from one piece
    /// to another. The player starts in their own piece and ends on the
    /// flag, so with `m` other pieces that hold owed tiles or the flag, `u`
    /// needs `m` passes when the flag is in one of them, and `m + 1` (out and
    /// back home) when the flag is in the player's piece. The pieces come
    /// from one depth-first search (Tarjan's low links) from the player's
    /// cell over the standing cells.
    #[cfg(test)]
    fn passes_suffice(&mut self) -> bool {
        let solver = self.solver;
        let root = self.position;
        self.discovered.fill(0);
        self.dfs_stack.clear();
        let mut time = 1;
        self.open(root, time);
        while let Some(top) = self.dfs_stack.last_mut() {
            let (cell, next_dir) = *top;
            if next_dir < 4 {
                top.1 += 1;
                let next = solver.neighbours[usize::from(cell)][usize::from(next_dir)];
                if next == NO_CELL || !(next == root || self.is_standing(next)) {
                    continue;
                }
                if self.discovered[usize::from(next)] == 0 {
                    time += 1;
                    self.open(next, time);
                } else {
                    let low = self.low_link[usize::from(cell)].min(self.discovered[usize::from(next)]);
                    self.low_link[usize::from(cell)] = low;
                }
                continue;
            }
            self.dfs_stack.pop();
            let index = usize::from(cell);
            if cell != root && !solver.permanent[index] {
                // Every child of `cell` is done: its cut-off pieces are known.
                let pieces = self.pieces_cut_off[index];
                let passes = if self.flag_cut_off[index] { pieces } else { pieces + u32::from(pieces > 0) };
                if passes > u32::from(self.visits[index]) {
                    return false;
                }
            }
            let Some(&(parent, _)) = self.dfs_stack.last() else { break };
            let parent_index = usize::from(parent);
            self.low_link[parent_index] = self.low_link[parent_index].min(self.low_link[index]);
            self.live_below[parent_index] += self.live_below[index];
            self.flag_below[parent_index] |= self.flag_below[index];
            if parent != root
                && self.low_link[index] >= self.discovered[parent_index]
                && (self.live_below[index] > 0 || self.flag_below[index])
            {
                self.pieces_cut_off[parent_index] += 1;
                self.flag_cut_off[parent_index] |= self.flag_below[index];
            }
        }
        true
    }

    fn open(&mut self, cell: u16, time: u32) {
        let index = usize::from(cell);
        self.discovered[index] = time;
        self.low_link[index] = time;
        self.live_below[index] = u32::from(self.visits[index] > 0);
        self.flag_below[index] = cell == self.solver.flag;
        self.pieces_cut_off[index] = 0;
        self.flag_cut_off[index] = false;
        self.dfs_stack.push((cell, 0));
    }

    /// Breadth-first fill from `from` over standing cells not yet seen in
    /// this call. Returns the live cells reached and whether the piece
    /// touches the player's cell, or `None` when a dead end is short of
    /// entries.
    #[cfg(test)]
    fn fill(&mut self, from: u16) -> Option<(u32, bool)> {
        let solver = self.solver;
        let stamp = self.stamp;
        let here = self.position;
        self.queue.clear();
        self.queue.push(from);
        self.seen_stamp[usize::from(from)] = stamp;
        let mut live_reached = 0;
        let mut touches_player = from == here;
        let mut head = 0;
        while head < self.queue.len() {
            let cell = self.queue[head];
            head += 1;
            let owed = self.visits[usize::from(cell)];
            if owed > 0 {
                live_reached += 1;
                if cell != here && !self.dead_end_has_room(cell, owed) {
                    return None;
                }
            }
            for next in solver.neighbours[usize::from(cell)] {
                if next == NO_CELL {
                    continue;
                }
                touches_player |= next == here;
                if self.seen_stamp[usize::from(next)] == stamp || !self.is_standing(next) {
                    continue;
                }
                self.seen_stamp[usize::from(next)] = stamp;
                self.queue.push(next);
            }
        }
        Some((live_reached, touches_player))
    }

    /// The dead-end rule for live `tile`, accumulated per neighbour.
    fn dead_end_has_room(&mut self, tile: u16, owed: u8) -> bool {
        let solver = self.solver;
        let here = self.position;
        let mut usable = 0;
        let mut only = NO_CELL;
        for next in solver.neighbours[usize::from(tile)] {
            if next != NO_CELL && (next == here || self.is_standing(next)) {
                usable += 1;
                only = next;
            }
        }
        if usable != 1 || solver.permanent[usize::from(only)] {
            return usable > 0;
        }
        if only == here {
            // A piece of its own beside the player: each entry is a trip out
            // and back. The first trip is counted as the piece's return.
            self.returns_needed += u32::from(owed) - 1;
            return true;
        }
        let index = usize::from(only);
        if self.demand_stamp[index] != self.stamp {
            self.demand_stamp[index] = self.stamp;
            self.demand[index] = 0;
        }
        self.demand[index] += u32::from(owed);
        self.demand[index] < u32::from(self.visits[index])
    }

    pub(super) fn usable_neighbours(&self, tile: u16) -> u8 {
        self.solver.neighbours[usize::from(tile)]
            .iter()
            .filter(|&&next| next != NO_CELL && self.is_standing(next))
            .count() as u8
    }

    /// IDA* below the current state, `spent` moves in, under `bound` moves in
    /// total. Returns [`FOUND`], or the smallest total over the bound seen
    /// (a valid next bound), or [`INFINITE`] if nothing below can win.
    pub(super) fn depth_first(&mut self, spent: u32, bound: u32) -> u32 {
        self.nodes += 1;
        if self.nodes % BUDGET_POLL_NODES == 0
            && let Some(error) = self.budget.exhausted()
        {
            self.stopped = Some(error);
        }
        if self.nodes >= self.node_limit {
            self.capped = true;
        }
        if self.stopped.is_some() || self.capped {
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
        let solver = self.solver;
        let first = self.candidates.len();
        let here = usize::from(self.position);
        for &(target, cost) in
            &solver.macro_targets[solver.macro_start[here] as usize..solver.macro_start[here + 1] as usize]
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

    pub(super) fn remember(&mut self, key: u64, failed_budget: u32) {
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
    pub(super) fn enter(&mut self, target: u16) -> u16 {
        let solver = self.solver;
        let previous = self.position;
        let cell = usize::from(target);
        let count = self.visits[cell];
        self.hash ^= solver.position_keys[usize::from(previous)] ^ solver.position_keys[cell];
        self.hash ^= solver.entry_keys[3 * cell + usize::from(count)];
        if count > 1 {
            self.hash ^= solver.entry_keys[3 * cell + usize::from(count - 1)];
        } else {
            self.live_cells -= 1;
        }
        self.visits[cell] = count - 1;
        self.remaining -= 1;
        self.remaining_by_colour[usize::from(solver.colour[cell])] -= 1;
        self.position = target;
        self.entries.push(target);
        previous
    }

    pub(super) fn leave(&mut self, target: u16, previous: u16) {
        let solver = self.solver;
        let cell = usize::from(target);
        let count = self.visits[cell];
        if count > 0 {
            self.hash ^= solver.entry_keys[3 * cell + usize::from(count)];
        } else {
            self.live_cells += 1;
        }
        self.hash ^= solver.entry_keys[3 * cell + usize::from(count + 1)];
        self.hash ^= solver.position_keys[usize::from(previous)] ^ solver.position_keys[cell];
        self.visits[cell] = count + 1;
        self.remaining += 1;
        self.remaining_by_colour[usize::from(solver.colour[cell])] += 1;
        self.position = previous;
        self.entries.pop();
    }
}

// The first-solution dives: the `search` planner's first phase, and the
// upper bound of `exact`'s deepening (see the `search` module docs).

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
pub(super) enum FirstPlan {
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
pub(super) fn restarted_dives(search: &mut Search, seed: u64, bound: u32, shortest_first: bool) -> FirstPlan {
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
pub(super) fn first_plan(search: &mut Search, seed: u64) -> FirstPlan {
    restarted_dives(search, seed, INFINITE - 1, false)
}

impl Search<'_> {
    /// One dive, `spent` moves in (see the `search` module docs). Leaves
    /// the state as it found it; a plan found is in `found`.
    fn dive(&mut self, spent: u32, diver: &mut Diver) -> Dive {
        self.nodes += 1;
        diver.dive_nodes += 1;
        if self.nodes % BUDGET_POLL_NODES == 0
            && let Some(error) = self.budget.exhausted()
        {
            self.stopped = Some(error);
        }
        if self.nodes >= self.node_limit {
            self.capped = true;
        }
        if self.stopped.is_some() || self.capped {
            return Dive::Cut;
        }
        diver.deepest = diver.deepest.max(self.entries.len());
        let solver = self.solver;
        let here = usize::from(self.position);
        if self.remaining == 0 {
            return if solver.flag_cost[here] == INFINITE {
                Dive::Dead
            } else if spent + solver.flag_cost[here] > diver.bound {
                Dive::OverBound
            } else {
                self.found.clear();
                self.found.extend_from_slice(&self.entries);
                Dive::Found
            };
        }
        let key = self.hash | 1;
        let (slot_key, failed_budget) = self.table[key as usize & (self.table.len() - 1)];
        if slot_key == key && failed_budget == INFINITE {
            return Dive::Dead;
        }
        let estimate = self.lower_bound();
        if estimate == INFINITE {
            self.remember(key, INFINITE);
            return Dive::Dead;
        }
        // The bound, and what deepening searches proved about it; then the
        // costlier cuts.
        if spent + estimate > diver.bound || (slot_key == key && spent + failed_budget >= diver.bound) {
            return Dive::OverBound;
        }
        if !self.may_be_won() {
            self.remember(key, INFINITE);
            return Dive::Dead;
        }
        if diver.dive_nodes >= diver.dive_limit {
            return Dive::Cut;
        }
        let first = diver.candidates.len();
        for &(target, cost) in
            &solver.macro_targets[solver.macro_start[here] as usize..solver.macro_start[here + 1] as usize]
        {
            let owed = self.visits[usize::from(target)];
            if owed > 0 {
                let random = diver.rng.next_u64();
                // The flag is entered last, from one of its neighbours: a
                // neighbour that falls now is one way in fewer, so it waits.
                let keeps_flag_open =
                    u8::from(owed == 1 && solver.beside_flag[usize::from(target)] && self.remaining > 1);
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
}

/// The `exact` planner: solves once, then plays the solution move by move.
/// A level with no solution ends the game with the verdict "no solution".
#[derive(Debug)]
pub struct Exact {
    solver: ExactSolver,
    plan: StoredPlan<FlagGame>,
}

impl Exact {
    pub fn new(config: &Config) -> Exact {
        Exact { solver: ExactSolver::new(config), plan: StoredPlan::default() }
    }
}

impl Planner<FlagGame> for Exact {
    fn name(&self) -> &'static str {
        "exact"
    }

    fn params(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    fn next_action(&mut self, game: &FlagGame, budget: &Budget) -> Result<Decision<Dir>, PlanError> {
        let solver = &mut self.solver;
        self.plan.next_action(game, || {
            let solution = solver.solve(game.visits(), game.position(), budget)?;
            match solution.verdict {
                Verdict::Solved(actions) => Ok(Plan { actions, kind: "exact", nodes: solution.nodes }),
                Verdict::NoSolution => Err(PlanError::GaveUp(format!(
                    "no solution: no sequence of moves from tick {} clears every tile and ends on the flag \
                     (proven by exhaustive search, {} nodes)",
                    game.tick(),
                    solution.nodes
                ))),
            }
        })
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::game::{OutcomeKind, Show, Status};
    use crate::map::Level;

    fn solve(text: &str) -> Solution {
        let config = Config::parse(text).unwrap_or_else(|error| panic!("{error}"));
        let game = FlagGame::new(&config, 0);
        ExactSolver::new(&config).solve(game.visits(), game.position(), &Budget::unlimited()).expect("no budget")
    }

    /// The shortest solutions of the original rounds 1–19 (round 5 with the
    /// drawn flag), as an independent breadth-first search over the original
    /// maps found them before they were converted.
    const OPTIMAL: [usize; 19] = [5, 5, 8, 6, 14, 16, 22, 32, 35, 16, 21, 34, 42, 36, 33, 49, 49, 32, 44];

    #[test]
    fn every_bundled_round_is_solved_in_the_known_optimal_length() {
        for (index, &optimal) in OPTIMAL.iter().enumerate() {
            let path = format!("{}/maps/flag/round-{:02}.txt", env!("CARGO_MANIFEST_DIR"), index + 1);
            let text = std::fs::read_to_string(&path).expect("bundled map");
            let config = Config::parse(&text).unwrap();
            let solution = solve(&text);
            let Verdict::Solved(moves) = solution.verdict else { panic!("{path}: no solution") };
            assert_eq!(moves.len(), optimal, "{path}: {}", super::super::letters(&moves));
            let game = super::super::play_moves(&config, &moves).expect("legal moves");
            assert!(matches!(game.status(), Status::Over(outcome) if outcome.kind == OutcomeKind::Won), "{path}");
        }
    }

    #[test]
    fn crafted_unsolvable_maps_get_a_verdict() {
        // Two dead ends off a fragile corridor: one of them strands the player.
        for map in ["start 1 0\n111\n.F.", "start 0 0\n1111\n1..1\n11F1", "start 0 0\n11.F", "start 0 0\n21F"] {
            assert_eq!(solve(map).verdict, Verdict::NoSolution, "{map}");
        }
    }

    #[test]
    fn stones_and_flag_crossings_are_counted_in_moves() {
        // Round trip over a stone to come back for a cracked tile.
        let solution = solve("start 0 0\n123\n..F");
        let Verdict::Solved(moves) = solution.verdict else { panic!("solvable") };
        assert_eq!(super::super::letters(&moves), "rrlrd");
        let solution = solve("start 0 0\n1F1");
        let Verdict::Solved(moves) = solution.verdict else { panic!("solvable") };
        assert_eq!(super::super::letters(&moves), "rrl");
    }

    #[test]
    fn generated_maps_are_solved_no_longer_than_their_walk() {
        use crate::game::flag::generate::{GenSettings, generate};
        for seed in 0..40 {
            for (width, height, stones) in [(6, 5, 0), (6, 6, 2), (5, 5, 0)] {
                let generated = generate(&GenSettings { stones, ..GenSettings::new(width, height, seed) }).unwrap();
                let config = generated.config();
                let game = FlagGame::new(&config, 0);
                let solution =
                    ExactSolver::new(&config).solve(game.visits(), game.position(), &Budget::unlimited()).unwrap();
                let Verdict::Solved(moves) = solution.verdict else {
                    panic!("seed {seed} {width}x{height}: the generator's walk wins, yet no solution")
                };
                assert!(
                    moves.len() <= generated.walk.len(),
                    "seed {seed}: {} > walk {}",
                    moves.len(),
                    generated.walk.len()
                );
                let played = super::super::play_moves(&config, &moves).expect("legal moves");
                assert!(matches!(played.status(), Status::Over(outcome) if outcome.kind == OutcomeKind::Won));
            }
        }
    }

    /// The length of a shortest win by breadth-first search over whole game
    /// states: the naive oracle.
    /// The shortest win by breadth-first search over whole game states, or
    /// `None`: the naive oracle the planners are checked against.
    pub(in crate::game::flag) fn oracle(config: &Config) -> Option<usize> {
        oracle_from(FlagGame::new(config, 0))
    }

    fn oracle_from(start: FlagGame) -> Option<usize> {
        use std::collections::{HashSet, VecDeque};
        let mut seen = HashSet::new();
        let mut queue = VecDeque::from([(start, 0usize)]);
        let mut legal = Vec::new();
        while let Some((game, depth)) = queue.pop_front() {
            if matches!(game.status(), Status::Over(outcome) if outcome.kind == OutcomeKind::Won) {
                return Some(depth);
            }
            legal.clear();
            game.legal_actions(&mut legal);
            for &dir in &legal {
                let mut next = game.clone();
                next.step(dir).unwrap();
                if seen.insert((next.position(), next.visits().to_vec())) {
                    queue.push_back((next, depth + 1));
                }
            }
        }
        None
    }

    /// A random 3×3 or 4×3 board of holes, fragile, cracked and stone tiles
    /// with a flag and a start that is not a hole: the small boards the
    /// planners are checked against [`oracle`] on.
    pub(in crate::game::flag) fn random_small_board(rng: &mut GameRng) -> Config {
        let tiles = [Tile::Hole, Tile::Fragile, Tile::Fragile, Tile::Fragile, Tile::Cracked, Tile::Stone];
        let (width, height) = (3 + rng.below(2) as u16, 3);
        let n_cells = usize::from(width * height);
        let mut setup = super::super::FlagSetup {
            width,
            height,
            tiles: (0..n_cells).map(|_| tiles[rng.below(tiles.len() as u32) as usize]).collect(),
            start_col: 0,
            start_row: 0,
        };
        setup.tiles[rng.below(n_cells as u32) as usize] = Tile::Flag;
        let start = rng.below(n_cells as u32) as usize;
        if setup.tiles[start] == Tile::Hole {
            setup.tiles[start] = Tile::Fragile;
        }
        (setup.start_col, setup.start_row) = ((start % usize::from(width)) as u16, (start / usize::from(width)) as u16);
        Config::try_from(setup).unwrap()
    }

    #[test]
    fn agrees_with_a_naive_oracle_on_random_small_boards() {
        let mut rng = GameRng::from_seed(11);
        let (mut solvable, mut unsolvable) = (0, 0);
        for case in 0..400 {
            let config = random_small_board(&mut rng);
            let game = FlagGame::new(&config, 0);
            if game.status() != Status::Running {
                continue;
            }
            let solution =
                ExactSolver::new(&config).solve(game.visits(), game.position(), &Budget::unlimited()).unwrap();
            let found = match solution.verdict {
                Verdict::Solved(moves) => Some(moves.len()),
                Verdict::NoSolution => None,
            };
            assert_eq!(found, oracle(&config), "case {case}:\n{}", game.render());
            if found.is_some() { solvable += 1 } else { unsolvable += 1 }
        }
        assert!(solvable > 50 && unsolvable > 50, "{solvable} solvable, {unsolvable} unsolvable: widen the sample");
    }

    /// Every state reachable on random small boards: the bound never exceeds
    /// the true distance to a win, and the cuts never drop a winnable state.
    #[test]
    fn bounds_and_cuts_are_sound_in_every_reachable_state() {
        let tiles = [Tile::Hole, Tile::Fragile, Tile::Fragile, Tile::Cracked, Tile::Cracked, Tile::Stone];
        let mut rng = GameRng::from_seed(5);
        let budget = Budget::unlimited();
        let mut checked = 0;
        for _ in 0..60 {
            let (width, height) = (3, 3);
            let n_cells = usize::from(width * height);
            let mut setup = super::super::FlagSetup {
                width,
                height,
                tiles: (0..n_cells).map(|_| tiles[rng.below(tiles.len() as u32) as usize]).collect(),
                start_col: 0,
                start_row: 0,
            };
            setup.tiles[rng.below(n_cells as u32) as usize] = Tile::Flag;
            let start = rng.below(n_cells as u32) as usize;
            if setup.tiles[start] == Tile::Hole {
                setup.tiles[start] = Tile::Cracked;
            }
            (setup.start_col, setup.start_row) = ((start % 3) as u16, (start / 3) as u16);
            let config = Config::try_from(setup).unwrap();
            let solver = ExactSolver::new(&config);
            let mut pending = vec![FlagGame::new(&config, 0)];
            let mut seen = std::collections::HashSet::new();
            let mut legal = Vec::new();
            while let Some(game) = pending.pop() {
                if game.status() != Status::Running {
                    continue;
                }
                let mut search = Search::new(&solver, game.visits(), game.position(), &budget);
                assert_eq!(search.may_be_won(), search.may_be_won_by_two_passes(), "{}", game.render());
                if let Some(distance) = oracle_from(game.clone()) {
                    checked += 1;
                    assert!(search.lower_bound() as usize <= distance, "bound too high:\n{}", game.render());
                    assert!(search.remaining == 0 || search.may_be_won(), "winnable state cut:\n{}", game.render());
                }
                legal.clear();
                game.legal_actions(&mut legal);
                for &dir in &legal {
                    let mut next = game.clone();
                    next.step(dir).unwrap();
                    if seen.insert((next.position(), next.visits().to_vec())) {
                        pending.push(next);
                    }
                }
            }
        }
        assert!(checked > 200, "only {checked} winnable states checked");
    }

    #[test]
    fn the_luby_sequence_starts_as_published() {
        let terms: Vec<u64> = (1..=15).map(luby).collect();
        assert_eq!(terms, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
    }

    #[test]
    fn plans_from_the_state_it_is_given() {
        let text = "start 0 0\n1111\n1111\n111F";
        let config = Config::parse(text).unwrap();
        let game = super::super::play_moves(&config, &[Dir::Down, Dir::Down, Dir::Right]).unwrap();
        let mut planner = Exact::new(&config);
        let mut game = game;
        while game.status() == Status::Running {
            let decision = planner.next_action(&game, &Budget::unlimited()).expect("solvable");
            game.step(decision.action).unwrap();
        }
        assert_eq!(game.tick(), 11);
        assert!(matches!(game.status(), Status::Over(outcome) if outcome.kind == OutcomeKind::Won));
    }
}
