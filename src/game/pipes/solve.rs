//! `solve`: our complete Net solver, and the planner that plays its answer.
//!
//! Constraint propagation over two kinds of variable: each tile's remaining
//! orientations (a 4-bit domain, duplicates of symmetric tiles removed) and
//! each edge's state (unknown, open, closed; border edges of non-wrapping
//! boards start closed), held as a mask of open and one of closed
//! directions in each of its two tiles. A work queue revises a tile
//! whenever one of its edges changes: orientations that disagree with a
//! known edge go (one table look-up), and an edge that every remaining
//! orientation opens (or closes) is set. Three
//! global rules ride on a union-find of the tiles joined by open edges:
//! - loops: opening an edge inside one component is a contradiction, and
//!   after every union each unknown edge that now runs inside the component
//!   is closed (found by walking the smaller of the two merged parts);
//! - closed pockets: each component counts its unknown edges; one that has
//!   none left but does not hold every tile with pipes is a contradiction;
//! - dead ends: each component knows how many pipe ends its tiles have
//!   left to join (their pipes minus twice its inner edges). Two components
//!   with one end left each must not be joined to each other unless they
//!   hold every tile with pipes between them, since they would close a
//!   pocket; so an unknown edge between them is closed. (This is the rule
//!   that gets deduction going on a wrapping board, which has no border to
//!   start from: two dead-end tiles side by side never face each other.)
//!   The component also keeps the XOR of its tiles that still have ends to
//!   join, so when it has one end left, that tile is known without a walk.
//!
//! Where deduction stalls, the search branches. Every change is written to a
//! trail, so backtracking undoes exactly what a branch did (the union-find
//! has no path compression for that reason; union by size keeps it shallow)
//! and nothing is cloned per branch. The search can go on after the first
//! solution to count up to a limit, which is how `--count` and the
//! generator prove uniqueness.
//!
//! Branching: the undecided tile that took part in the most contradictions
//! so far (its weight), else the first undecided tile in row-major order.
//! This is the weighted-degree rule of Boussemart, Hemery, Lecoutre and
//! Sais, "Boosting systematic search by weighting constraints" (ECAI 2004).
//! A sweep in row-major order decides the board front by front; a wrong
//! choice is sometimes refuted only rows later, and chronological
//! backtracking then tries every combination of the unrelated choices made
//! along the front in between: the heavy tail. Once a spot has failed a few
//! times, the weights make the search settle it right after the next
//! backtrack, so the culprit is found without enumerating the rest. As a
//! safety net the search restarts from the root (weights kept) after
//! [`FIRST_RESTART_BACKTRACKS`] backtracks, a limit that doubles at each
//! restart so the search stays complete (Gomes, Selman and Kautz, "Boosting
//! combinatorial search through randomization", AAAI 1998); no board we
//! generated reaches it. Restarts stop once a solution is found, so
//! counting goes on from it. Nothing is random: a board is always solved
//! the same way.
//!
//! What each candidate did, measured on generated boards 300×300 flat and
//! wrapping, seeds 1 to 20 (tile revisions summed over the run; the root
//! propagation alone is about 90,000 of them):
//! - row-major branching alone, before the dead-end rule: seed 1 flat took
//!   961,540 branch points, wrapping seeds 1 and 2 did not finish in
//!   minutes; 2 of 40 boards over a 20 s limit, the worst wrapping board
//!   finished at 2.4 million revisions;
//! - the branching tile next to what the last branch changed (a frontier
//!   of the network) instead of row-major: worse, 7 of 9 hard boards over
//!   20 s; last-conflict branching (Lecoutre et al. 2009): 11 of 40 over;
//! - a global connectivity test after every branch: the same branch
//!   counts, so the late refutations are not disconnections;
//! - weights with restarts every 256 backtracks, doubling (the first fix,
//!   before the dead-end rule): every board solved, the worst at 24
//!   million revisions; restarting only the last rows of the sweep (Luby
//!   limits) halved the median but left 2 of 40 over 20 s;
//! - the dead-end rule: deduction now decides most of a wrapping board
//!   before any branch; with row-major branching 1 of 40 boards still
//!   thrashed, with weights and no restart the worst took 222,790
//!   revisions, with restarts every 256 backtracks 356,927 (restarts throw
//!   away good work: at 500×500 one board took 14 million). Hence the
//!   weights with a restart limit far above what any board needed.
//!
//! The solver never sees a reference solution: only the tiles as dealt.

use crate::game::pipes::{DIR_BITS, Grid, PipesGame, Rotate, moves_between, opposite, rotate_by};
use crate::plan::{Budget, Decision, Plan, PlanError, Planner, StoredPlan};

/// The state an edge is set to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EdgeState {
    Open,
    Closed,
}
const NO_TILE: u32 = u32::MAX;

/// How often (in branches) the search polls its time budget.
const BUDGET_POLL_BRANCHES: u64 = 256;

/// Backtracks before the first restart; each restart multiplies the limit
/// by [`RESTART_GROWTH`], so some run is always long enough to finish. The
/// generated boards up to 500×500 need at most about 2,000, so only a
/// board that thrashes anyway restarts.
const FIRST_RESTART_BACKTRACKS: u64 = 4096;
const RESTART_GROWTH: u64 = 2;

/// `ROTATIONS[mask][r]`: `mask` turned `r` quarter turns clockwise.
const ROTATIONS: [[u8; 4]; 16] = {
    let mut table = [[0u8; 4]; 16];
    let mut mask = 0;
    while mask < 16 {
        let mut turns = 0;
        while turns < 4 {
            table[mask][turns] = rotate_by(mask as u8, turns as u8);
            turns += 1;
        }
        mask += 1;
    }
    table
};

/// `DOMAINS[mask]`: the rotations of `mask` that give distinct masks (the
/// fewest turns of each), as a bit set over quarter turns 0..4.
const DOMAINS: [u8; 16] = {
    let mut table = [0u8; 16];
    let mut mask = 0;
    while mask < 16 {
        let mut turns = 0;
        while turns < 4 {
            let mut seen = false;
            let mut earlier = 0;
            while earlier < turns {
                if ROTATIONS[mask][earlier] == ROTATIONS[mask][turns] {
                    seen = true;
                }
                earlier += 1;
            }
            if !seen {
                table[mask] |= 1 << turns;
            }
            turns += 1;
        }
        mask += 1;
    }
    table
};

/// `FITTING[mask][open | closed << 4]`: the quarter turns of `mask` (as a
/// bit set) that open every edge in `open` and none in `closed`. A tile's
/// revision is a look-up here instead of a test of each turn.
const FITTING: [[u8; 256]; 16] = {
    let mut table = [[0u8; 256]; 16];
    let mut mask = 0;
    while mask < 16 {
        let mut known = 0;
        while known < 256 {
            let (open, closed) = ((known & 0xF) as u8, (known >> 4) as u8);
            let mut turns = 0;
            while turns < 4 {
                let turned = ROTATIONS[mask][turns];
                if turned & open == open && turned & closed == 0 {
                    table[mask][known] |= 1 << turns;
                }
                turns += 1;
            }
            known += 1;
        }
        mask += 1;
    }
    table
};

/// `AGREED[mask][turns]`, for a set of quarter turns of `mask`: the pipes
/// every one of them opens, and the pipes any of them opens.
const AGREED: [[(u8, u8); 16]; 16] = {
    let mut table = [[(0u8, 0u8); 16]; 16];
    let mut mask = 0;
    while mask < 16 {
        let mut set = 0;
        while set < 16 {
            let (mut all, mut any) = (0xFu8, 0u8);
            let mut turns = 0;
            while turns < 4 {
                if set & (1 << turns) != 0 {
                    all &= ROTATIONS[mask][turns];
                    any |= ROTATIONS[mask][turns];
                }
                turns += 1;
            }
            table[mask][set] = (all, any);
            set += 1;
        }
        mask += 1;
    }
    table
};

/// One reversible change, recorded so that backtracking can undo it.
#[derive(Clone, Copy, Debug)]
enum Undo {
    Domain {
        tile: u32,
        old: u8,
    },
    /// The edge on the right (`dir` 1) or bottom (`dir` 2) of `tile`.
    Edge {
        tile: u32,
        dir: u8,
    },
    Union {
        small: u32,
        big: u32,
    },
    Free {
        root: u32,
        old_free: u32,
        old_open_ends: u32,
    },
}

/// What the solver knows of one tile, in one place since a revision reads
/// it all.
#[derive(Clone, Copy, Debug, Default)]
struct TileState {
    /// The tile as dealt: orientations are turns of it.
    base: u8,
    /// The quarter turns still possible, as a bit set.
    domain: u8,
    /// The directions of the open edges, as a mask. An edge is one variable
    /// seen from both its tiles: setting or clearing it changes both masks,
    /// so a tile reads its edges in one load.
    open_edges: u8,
    /// The directions of the closed edges (border edges of a flat board are
    /// closed from the start).
    closed_edges: u8,
    /// Whether the tile is in the queue (or being revised).
    queued: bool,
}

/// A tile's entry in the union-find. All but `parent` are meaningful at a
/// component's root only, and describe the whole component. They sit
/// together because the rules read them together.
#[derive(Clone, Copy, Debug, Default)]
struct UnionFindEntry {
    parent: u32,
    size: u32,
    /// Unknown edges with an end in the component, counted once per end.
    free: u32,
    /// The XOR of `tile + 1` over its tiles that still have pipe ends to
    /// join, so that with one end left this names the tile that has it.
    open_ends: u32,
    /// The pipes of its tiles, summed.
    degree_sum: u32,
}

/// A branch point: the trail length and scan cursor before it, the tile,
/// and the orientations not yet tried.
#[derive(Clone, Copy, Debug)]
struct Choice {
    trail_len: usize,
    scan_cursor: usize,
    tile: u32,
    untried: u8,
}

/// What one run of the solver found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolveReport {
    /// Solutions found, at most the limit asked for. With limit 2, a count of
    /// 1 proves the solution unique and 0 proves there is none.
    pub solutions: u32,
    /// Branch points tried (0: deduction alone decided everything).
    pub branches: u64,
    /// Tile revisions made by propagation.
    pub revisions: u64,
    /// Times the search backtracked: after a contradiction, or to look for
    /// another solution.
    pub backtracks: u64,
    /// Times the search started again from the root.
    pub restarts: u64,
}

/// The solver with its scratch state, sized for one board and reusable for
/// any tiles on that board.
#[derive(Clone, Debug)]
pub struct Solver {
    grid: Grid,
    n_with_pipes: u32,
    /// `neighbours[tile][dir]`, `NO_TILE` past the border of a flat board.
    neighbours: Vec<[u32; 4]>,
    tiles: Vec<TileState>,
    /// The union-find of the tiles joined by open edges, one entry per tile.
    union_find: Vec<UnionFindEntry>,
    /// Whether changes go to the trail: not during the propagation at the
    /// root, which is never undone.
    recording: bool,
    /// Each component's members as a circular list: merging two lists (and
    /// splitting them again on undo) is one swap.
    next: Vec<u32>,
    trail: Vec<Undo>,
    queue: Vec<u32>,
    choices: Vec<Choice>,
    solution: Vec<u8>,
    last_solution: Vec<u8>,
    /// Where the fallback scan for an undecided tile starts.
    scan_cursor: usize,
    revisions: u64,
    /// The tiles at the last contradiction (both the same for a tile with
    /// no orientation left; `NO_TILE` past a border).
    conflict: [u32; 2],
    /// Contradictions each tile took part in during this run.
    weight: Vec<u32>,
    /// The tiles with a weight, in the order they first got one.
    hot: Vec<u32>,
}

impl Solver {
    /// A solver for boards of shape `grid`.
    pub fn new(grid: Grid) -> Solver {
        let n = grid.n_tiles();
        // Grid::neighbour's rule, row by row, without a division per tile.
        let (width, height) = (u32::from(grid.width), u32::from(grid.height));
        let wrapped = |tile: u32| if grid.wrap { tile } else { NO_TILE };
        let mut neighbours = Vec::with_capacity(n);
        for row in 0..height {
            for col in 0..width {
                let tile = row * width + col;
                neighbours.push([
                    if row > 0 { tile - width } else { wrapped(tile + (height - 1) * width) },
                    if col + 1 < width { tile + 1 } else { wrapped(tile + 1 - width) },
                    if row + 1 < height { tile + width } else { wrapped(col) },
                    if col > 0 { tile - 1 } else { wrapped(tile + width - 1) },
                ]);
            }
        }
        Solver {
            grid,
            tiles: vec![TileState::default(); n],
            n_with_pipes: 0,
            neighbours,
            union_find: vec![UnionFindEntry::default(); n],
            recording: false,
            next: vec![0; n],
            trail: Vec::with_capacity(16 * n),
            queue: Vec::with_capacity(n),
            choices: Vec::new(),
            solution: vec![0; n],
            last_solution: vec![0; n],
            scan_cursor: 0,
            revisions: 0,
            conflict: [NO_TILE; 2],
            weight: vec![0; n],
            hot: Vec::new(),
        }
    }

    pub fn grid(&self) -> Grid {
        self.grid
    }

    /// The first solution found by the last [`Solver::run`] that found one:
    /// each tile's mask.
    pub(crate) fn solution(&self) -> &[u8] {
        &self.solution
    }

    /// Deduction alone, no search: propagates the rules on `tiles` (with
    /// the source at `source`) and reports whether they are still
    /// consistent. [`Solver::is_decided`] then tells which tiles deduction
    /// fixed; when every tile is, that is the only solution.
    pub fn deduce(&mut self, tiles: &[u8], source: usize) -> bool {
        assert_eq!(tiles.len(), self.grid.n_tiles(), "tiles for another board");
        self.reset(tiles);
        let source_is_dry = self.tiles[source].base == 0 && self.n_with_pipes > 0;
        !source_is_dry && self.propagate()
    }

    /// Whether `tile` has one orientation left after the last
    /// [`Solver::deduce`] or [`Solver::run`].
    pub fn is_decided(&self, tile: usize) -> bool {
        self.tiles[tile].domain.count_ones() == 1
    }

    /// Searches the orientations of `tiles` (the board as dealt, with the
    /// source at `source`) for up to `max_solutions` solutions. The first is
    /// kept in [`Solver::solution`]. Fails only when `budget` runs out.
    pub fn run(
        &mut self,
        tiles: &[u8],
        source: usize,
        max_solutions: u32,
        budget: &Budget,
    ) -> Result<SolveReport, PlanError> {
        assert_eq!(tiles.len(), self.grid.n_tiles(), "tiles for another board");
        self.reset(tiles);
        let mut report = SolveReport { solutions: 0, branches: 0, revisions: 0, backtracks: 0, restarts: 0 };
        let source_is_dry = self.tiles[source].base == 0 && self.n_with_pipes > 0;
        let mut consistent = !source_is_dry && self.propagate();
        if !consistent {
            report.revisions = self.revisions;
            return Ok(report);
        }
        // From here on changes can be undone.
        self.recording = true;
        let root_trail_len = self.trail.len();
        let mut restart_limit = FIRST_RESTART_BACKTRACKS;
        let mut backtracks_since_restart = 0u64;
        loop {
            if consistent {
                match self.branch_tile() {
                    None => {
                        report.solutions += 1;
                        for tile in 0..self.tiles.len() {
                            let turns = self.tiles[tile].domain.trailing_zeros() as usize;
                            self.last_solution[tile] = ROTATIONS[usize::from(self.tiles[tile].base)][turns];
                        }
                        if report.solutions == 1 {
                            self.solution.copy_from_slice(&self.last_solution);
                        }
                        if report.solutions >= max_solutions {
                            break;
                        }
                        consistent = false;
                    }
                    Some(tile) => {
                        report.branches += 1;
                        if report.branches % BUDGET_POLL_BRANCHES == 0 {
                            if let Some(error) = budget.exhausted() {
                                return Err(error);
                            }
                        }
                        let domain = self.tiles[tile as usize].domain;
                        let first = domain & domain.wrapping_neg();
                        self.choices.push(Choice {
                            trail_len: self.trail.len(),
                            scan_cursor: self.scan_cursor,
                            tile,
                            untried: domain & !first,
                        });
                        consistent = self.assign(tile, first);
                    }
                }
            } else {
                if report.solutions == 0 {
                    self.note_conflict();
                }
                report.backtracks += 1;
                backtracks_since_restart += 1;
                if report.solutions == 0 && backtracks_since_restart > restart_limit && !self.choices.is_empty() {
                    // Start again from the root with what the conflicts
                    // taught the branching rule.
                    self.undo_to(root_trail_len);
                    self.choices.clear();
                    self.scan_cursor = 0;
                    report.restarts += 1;
                    backtracks_since_restart = 0;
                    restart_limit = restart_limit.saturating_mul(RESTART_GROWTH);
                    consistent = true;
                    continue;
                }
                match self.choices.pop() {
                    None => break,
                    Some(choice) => {
                        self.undo_to(choice.trail_len);
                        self.scan_cursor = choice.scan_cursor;
                        if choice.untried == 0 {
                            continue;
                        }
                        let next = choice.untried & choice.untried.wrapping_neg();
                        let untried = choice.untried & !next;
                        // The last option needs no branch point of its own:
                        // it is forced by the choices above it, and undoing
                        // the parent undoes it too.
                        if untried != 0 {
                            self.choices.push(Choice { untried, ..choice });
                        }
                        consistent = self.assign(choice.tile, next);
                    }
                }
            }
        }
        report.revisions = self.revisions;
        Ok(report)
    }

    fn reset(&mut self, tiles: &[u8]) {
        let n = tiles.len();
        self.n_with_pipes = tiles.iter().filter(|&&mask| mask != 0).count() as u32;
        for tile in 0..n {
            self.next[tile] = tile as u32;
            let neighbours = self.neighbours[tile];
            let border =
                (0..4).fold(0, |mask, dir| if neighbours[dir] == NO_TILE { mask | DIR_BITS[dir] } else { mask });
            self.tiles[tile] = TileState {
                base: tiles[tile],
                domain: DOMAINS[usize::from(tiles[tile] & 0xF)],
                open_edges: 0,
                closed_edges: border,
                queued: true,
            };
            self.union_find[tile] = UnionFindEntry {
                parent: tile as u32,
                size: 1,
                free: 4 - border.count_ones(),
                open_ends: if tiles[tile] != 0 { tile as u32 + 1 } else { 0 },
                degree_sum: tiles[tile].count_ones(),
            };
        }
        self.queue.clear();
        self.queue.extend((0..n as u32).rev());
        self.trail.clear();
        self.recording = false;
        self.choices.clear();
        self.scan_cursor = 0;
        self.revisions = 0;
        for &tile in &self.hot {
            self.weight[tile as usize] = 0;
        }
        self.hot.clear();
    }

    fn find(&self, mut tile: u32) -> u32 {
        loop {
            let parent = self.union_find[tile as usize].parent;
            if parent == tile {
                return tile;
            }
            tile = parent;
        }
    }

    fn enqueue(&mut self, tile: u32) {
        if !self.tiles[tile as usize].queued {
            self.tiles[tile as usize].queued = true;
            self.queue.push(tile);
        }
    }

    /// Restricts `tile` to the orientations in `domain` and propagates.
    fn assign(&mut self, tile: u32, domain: u8) -> bool {
        let old = self.tiles[tile as usize].domain;
        self.record(Undo::Domain { tile, old });
        self.tiles[tile as usize].domain = domain;
        self.enqueue(tile);
        self.propagate()
    }

    /// Revises queued tiles until nothing changes (`true`) or a contradiction
    /// appears (`false`, with the queue emptied).
    fn propagate(&mut self) -> bool {
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
    fn record(&mut self, undo: Undo) {
        if self.recording {
            self.trail.push(undo);
        }
    }

    fn undo_to(&mut self, trail_len: usize) {
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

    /// Weighs the tiles of the last contradiction.
    fn note_conflict(&mut self) {
        for tile in self.conflict {
            if tile == NO_TILE {
                continue;
            }
            if self.weight[tile as usize] == 0 {
                self.hot.push(tile);
            }
            self.weight[tile as usize] += 1;
        }
        self.conflict = [NO_TILE; 2];
    }

    /// The tile to branch on, or `None` when every tile is decided: the
    /// undecided tile that took part in the most contradictions, else the
    /// first undecided tile in row-major order.
    fn branch_tile(&mut self) -> Option<u32> {
        let mut best: Option<(u32, u32)> = None;
        for &tile in &self.hot {
            let weight = self.weight[tile as usize];
            if self.tiles[tile as usize].domain.count_ones() > 1 && best.is_none_or(|(_, most)| weight > most) {
                best = Some((tile, weight));
            }
        }
        if let Some((tile, _)) = best {
            return Some(tile);
        }
        let n = self.tiles.len();
        while self.scan_cursor < n {
            if self.tiles[self.scan_cursor].domain.count_ones() > 1 {
                return Some(self.scan_cursor as u32);
            }
            self.scan_cursor += 1;
        }
        None
    }
}

/// The `solve` planner: solves the board on its first call and plays the
/// plan, at most one move per tile (the shortest turn to its orientation in
/// the solution found).
#[derive(Debug)]
pub struct Solve {
    solver: Option<Solver>,
    plan: StoredPlan<PipesGame>,
}

impl Solve {
    pub fn new() -> Solve {
        Solve { solver: None, plan: StoredPlan::default() }
    }
}

impl Default for Solve {
    fn default() -> Self {
        Solve::new()
    }
}

impl Planner<PipesGame> for Solve {
    fn name(&self) -> &'static str {
        "solve"
    }

    fn params(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    fn next_action(&mut self, game: &PipesGame, budget: &Budget) -> Result<Decision<Rotate>, PlanError> {
        let slot = &mut self.solver;
        self.plan.next_action(game, || {
            let config = game.config();
            let solver = match slot {
                Some(solver) if solver.grid() == config.grid() => solver,
                slot => slot.insert(Solver::new(config.grid())),
            };
            let report = solver.run(game.tiles(), config.source(), 1, budget)?;
            if report.solutions == 0 {
                return Err(PlanError::GaveUp("no solution".to_string()));
            }
            let kind = if report.branches == 0 { "deduction" } else { "search" };
            Ok(Plan { actions: moves_between(game.tiles(), solver.solution()), kind, nodes: report.branches })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::pipes::find_flaw;

    /// Whether tile `a` and its neighbour in `dir` have pipes to each other.
    fn joined(grid: Grid, tiles: &[u8], a: usize, dir: usize) -> bool {
        grid.neighbour(a, dir).is_some_and(|b| tiles[a] & DIR_BITS[dir] != 0 && tiles[b] & DIR_BITS[opposite(dir)] != 0)
    }

    fn solve(grid: Grid, tiles: &[u8], limit: u32) -> (SolveReport, Vec<u8>) {
        let mut solver = Solver::new(grid);
        let report = solver.run(tiles, 0, limit, &Budget::unlimited()).unwrap();
        (report, solver.solution().to_vec())
    }

    #[test]
    fn the_neighbour_table_follows_the_grid() {
        for (width, height) in [(1, 1), (1, 4), (4, 1), (2, 2), (5, 3)] {
            for wrap in [false, true] {
                let grid = Grid { width, height, wrap };
                let solver = Solver::new(grid);
                for tile in 0..grid.n_tiles() {
                    for dir in 0..4 {
                        let expected = grid.neighbour(tile, dir).map_or(NO_TILE, |other| other as u32);
                        assert_eq!(
                            solver.neighbours[tile][dir], expected,
                            "{width}x{height} wrap={wrap} tile {tile} dir {dir}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn domains_drop_symmetric_duplicates() {
        assert_eq!(DOMAINS[0], 0b0001);
        assert_eq!(DOMAINS[0xF], 0b0001);
        assert_eq!(DOMAINS[0x5], 0b0011);
        assert_eq!(DOMAINS[0xA], 0b0011);
        assert_eq!(DOMAINS[0x1], 0b1111);
        assert_eq!(DOMAINS[0x7], 0b1111);
    }

    #[test]
    fn solves_a_small_flat_board_by_deduction() {
        let grid = Grid { width: 3, height: 1, wrap: false };
        let (report, solution) = solve(grid, &[4, 5, 1], 2);
        assert_eq!(report.solutions, 1);
        assert_eq!(report.branches, 0);
        assert_eq!(solution, vec![2, 0xa, 8]);
        assert!(joined(grid, &solution, 0, 1));
    }

    #[test]
    fn finds_two_solutions_and_none() {
        // Two dead ends on a 2×1 torus meet across either seam.
        let grid = Grid { width: 2, height: 1, wrap: true };
        let (report, solution) = solve(grid, &[1, 1], 5);
        assert_eq!(report.solutions, 2);
        assert_eq!(find_flaw(grid, 0, &solution), Ok(()));
        // Three dead ends cannot form a tree.
        let grid = Grid { width: 3, height: 1, wrap: false };
        assert_eq!(solve(grid, &[1, 1, 1], 2).0.solutions, 0);
        // Four bends on a flat 2×2 board can only make a ring.
        let grid = Grid { width: 2, height: 2, wrap: false };
        assert_eq!(solve(grid, &[3, 3, 3, 3], 2).0.solutions, 0);
    }

    /// Every distinct orientation of every tile, checked by `find_flaw`:
    /// the number of solutions by brute force.
    fn brute_force_count(grid: Grid, source: usize, tiles: &[u8]) -> u32 {
        let options: Vec<Vec<u8>> = tiles
            .iter()
            .map(|&mask| {
                (0..4)
                    .filter(|&turns| DOMAINS[usize::from(mask)] & (1 << turns) != 0)
                    .map(|turns| rotate_by(mask, turns))
                    .collect()
            })
            .collect();
        let mut current = vec![0u8; tiles.len()];
        let mut count = 0;
        let mut index = vec![0usize; tiles.len()];
        loop {
            for tile in 0..tiles.len() {
                current[tile] = options[tile][index[tile]];
            }
            if find_flaw(grid, source, &current).is_ok() {
                count += 1;
            }
            let mut tile = 0;
            while tile < tiles.len() {
                index[tile] += 1;
                if index[tile] < options[tile].len() {
                    break;
                }
                index[tile] = 0;
                tile += 1;
            }
            if tile == tiles.len() {
                return count;
            }
        }
    }

    #[test]
    fn counts_agree_with_brute_force_on_small_boards() {
        use crate::game::pipes::generate::{GenSettings, generate};
        use crate::rng::GameRng;
        let mut rng = GameRng::from_seed(5);
        let mut seen = [0u32; 3];
        for (width, height) in [(1, 4), (2, 2), (2, 3), (3, 3), (4, 2)] {
            for wrap in [false, true] {
                let grid = Grid { width, height, wrap };
                for case in 0..40u64 {
                    // Generated boards (solvable, often in several ways),
                    // every other one with a tile replaced at random (often
                    // unsolvable then).
                    let options = GenSettings { width, height, wrap, unique: false, seed: case };
                    let generated = generate(&options).unwrap();
                    let mut tiles = generated.setup.tiles;
                    if case % 2 == 1 {
                        let tile = rng.below(tiles.len() as u32) as usize;
                        tiles[tile] = [0, 1, 3, 5, 7, 0xf][rng.below(6) as usize];
                    }
                    let source = usize::from(generated.setup.source_row) * usize::from(width)
                        + usize::from(generated.setup.source_col);
                    let expected = brute_force_count(grid, source, &tiles);
                    let mut solver = Solver::new(grid);
                    let report = solver.run(&tiles, source, 1000, &Budget::unlimited()).unwrap();
                    assert_eq!(report.solutions, expected, "{width}x{height} wrap={wrap} {tiles:x?} source {source}");
                    if expected > 0 {
                        assert_eq!(find_flaw(grid, source, solver.solution()), Ok(()));
                    }
                    seen[expected.min(2) as usize] += 1;
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 0), "cases with 0, 1 and 2+ solutions all occur: {seen:?}");
    }

    #[test]
    fn solves_generated_boards_of_every_shape() {
        use crate::game::pipes::generate::{GenSettings, generate};
        for (width, height) in [(1, 1), (1, 6), (6, 1), (2, 2), (3, 3), (2, 7), (13, 11), (40, 40)] {
            for wrap in [false, true] {
                for seed in 0..3 {
                    let generated = generate(&GenSettings { width, height, wrap, unique: false, seed }).unwrap();
                    let setup = &generated.setup;
                    let source = usize::from(setup.source_row) * usize::from(width) + usize::from(setup.source_col);
                    let mut solver = Solver::new(setup.grid());
                    let report = solver.run(&setup.tiles, source, 1, &Budget::unlimited()).unwrap();
                    assert_eq!(report.solutions, 1, "{width}x{height} wrap={wrap} seed {seed}");
                    assert_eq!(find_flaw(setup.grid(), source, solver.solution()), Ok(()));
                }
            }
        }
    }
}
