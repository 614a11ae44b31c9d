//! A Hamiltonian cycle of a set of free cells, found by search, or a proof
//! that there is none: for boards whose free cells no block tiling covers
//! (interior walls, doors, corridors).
//!
//! **Proofs first.** A Hamiltonian cycle needs at least four cells, all
//! joined; every cell with two neighbours in the set (a dead end has one);
//! as many cells of each colour of the chessboard colouring (a cycle
//! alternates colours, so a set with an odd number of cells has none); and
//! no cell whose removal cuts the set in two (a cycle has two paths between
//! any two cells). Each is checked in time linear in the board.
//!
//! **Then search**, over the board's edges (the pairs of side-by-side
//! cells): each edge is in the cycle, out of it, or undecided. Every cell
//! needs exactly two edges in: a cell with two in has all others out, a
//! cell with only two not out has both in (degree-2 forcing). The edges in
//! form paths; an edge joining the two ends of one path is out unless it
//! closes the whole cycle (no short loops). The cells must stay joined by
//! edges not out (connectivity). When nothing is forced, it branches on an
//! undecided edge at the end of a path with the fewest choices: in, then
//! out. The search is complete, so running out of branches proves there is
//! no cycle; it gives up after [`NODE_LIMIT`] branches. It allocates once
//! per search, keeps an undo trail, and runs no recursion, so the board's
//! size does not bound it by the stack.
//!
//! This is the textbook approach to Hamiltonian cycles in grid graphs
//! (constraint propagation as for Slitherlink or Masyu puzzles); we wrote
//! it for the board's own cell numbering rather than take a general graph
//! crate, none of which we found does the forcing above.

use crate::game::snake::Config;
use crate::game::snake::plan::cycle::loops::{NONE, free_neighbours};

/// How many branches the search may take before it gives up (then `cycle`
/// plays as `bfs-tail`). A bound on the work done once per game, not a
/// tuned figure: each branch checks connectivity in time linear in the
/// board. Every walled board in the tests and the docs' tables finds its
/// cycle within it.
pub(crate) const NODE_LIMIT: u64 = 100_000;

/// What the search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Search {
    /// A Hamiltonian cycle: `succ[cell]` is the next cell, [`NONE`] off it.
    Found(Vec<u16>),
    /// There is none, and why.
    NoCycle(NoCycle),
    /// It gave up after [`NODE_LIMIT`] branches.
    GaveUp,
}

/// Why a set of cells has no Hamiltonian cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoCycle {
    /// Fewer than four cells.
    TooFew,
    /// The cells are not all joined.
    Apart,
    /// This cell has fewer than two neighbours in the set.
    DeadEnd(u16),
    /// More cells of one colour than of the other.
    Unbalanced,
    /// Taking this cell out cuts the set in two.
    CutCell(u16),
    /// The search tried every branch.
    Exhausted,
}

const UNDECIDED: u8 = 0;
const IN: u8 = 1;
const OUT: u8 = 2;

/// A Hamiltonian cycle through exactly the cells with `cells[cell]`, with
/// every edge of `forced` in it, or why there is none.
pub(crate) fn hamiltonian_cycle(config: &Config, cells: &[bool], forced: &[(u16, u16)]) -> Search {
    if let Some(reason) = no_cycle_by_counting(config, cells) {
        return Search::NoCycle(reason);
    }
    let mut search = EdgeSearch::new(config, cells);
    for &(a, b) in forced {
        if !search.set(search.edge(a, b), IN) {
            return Search::NoCycle(NoCycle::Exhausted);
        }
    }
    search.run()
}

/// The proofs that need no search: too few cells, cells apart, a dead end,
/// unbalanced colours, a cut cell.
pub(crate) fn no_cycle_by_counting(config: &Config, cells: &[bool]) -> Option<NoCycle> {
    let members: Vec<u16> = (0..cells.len() as u16).filter(|&cell| cells[usize::from(cell)]).collect();
    if members.len() < 4 {
        return Some(NoCycle::TooFew);
    }
    let neighbours =
        |cell: u16| free_neighbours(config, cell).into_iter().filter(|&next| next != NONE && cells[usize::from(next)]);
    if let Some(&cell) = members.iter().find(|&&cell| neighbours(cell).count() < 2) {
        return Some(NoCycle::DeadEnd(cell));
    }
    let width = config.width();
    let black = members.iter().filter(|&&cell| (cell % width + cell / width) % 2 == 0).count();
    if 2 * black != members.len() {
        return Some(NoCycle::Unbalanced);
    }
    match cut_cell(config, cells, members[0]) {
        CutSearch::Apart => Some(NoCycle::Apart),
        CutSearch::Cut(cell) => Some(NoCycle::CutCell(cell)),
        CutSearch::None => None,
    }
}

enum CutSearch {
    Apart,
    Cut(u16),
    None,
}

/// Tarjan's articulation points, without recursion: the first cut cell of
/// the set found from `root`, or whether the set is not joined at all.
fn cut_cell(config: &Config, cells: &[bool], root: u16) -> CutSearch {
    let n_cells = cells.len();
    let mut order = vec![u32::MAX; n_cells];
    let mut low = vec![0u32; n_cells];
    let mut parent = vec![NONE; n_cells];
    let mut next_dir = vec![0u8; n_cells];
    let mut stack = vec![root];
    let mut counter = 0;
    let mut root_children = 0;
    order[usize::from(root)] = 0;
    low[usize::from(root)] = 0;
    let mut found = None;
    while let Some(&cell) = stack.last() {
        let at = usize::from(cell);
        let neighbours = free_neighbours(config, cell);
        if usize::from(next_dir[at]) < neighbours.len() {
            let next = neighbours[usize::from(next_dir[at])];
            next_dir[at] += 1;
            if next == NONE || !cells[usize::from(next)] || next == parent[at] {
                continue;
            }
            let to = usize::from(next);
            if order[to] == u32::MAX {
                counter += 1;
                order[to] = counter;
                low[to] = counter;
                parent[to] = cell;
                if cell == root {
                    root_children += 1;
                }
                stack.push(next);
            } else {
                low[at] = low[at].min(order[to]);
            }
            continue;
        }
        stack.pop();
        let up = parent[at];
        if up != NONE {
            low[usize::from(up)] = low[usize::from(up)].min(low[at]);
            if up != root && low[at] >= order[usize::from(up)] && found.is_none() {
                found = Some(up);
            }
        }
    }
    let reached = (0..n_cells).filter(|&cell| cells[cell] && order[cell] != u32::MAX).count();
    if reached != cells.iter().filter(|&&member| member).count() {
        CutSearch::Apart
    } else if root_children > 1 {
        CutSearch::Cut(root)
    } else {
        found.map_or(CutSearch::None, CutSearch::Cut)
    }
}

/// One undoable change.
#[derive(Clone, Copy, Debug)]
enum Undo {
    /// An edge was decided (it was undecided before).
    Edge(u32),
    /// A path end's other end changed from this.
    End(u16, u16),
}

/// A branch: the trail's length before it, its edge, and how many of its
/// two choices (in, out) were tried.
struct Frame {
    trail_len: usize,
    edge: u32,
    tried: u8,
}

struct EdgeSearch {
    width: u16,
    n_members: u32,
    cells: Vec<bool>,
    /// Edge `2 * cell` joins the cell to its right, `2 * cell + 1` below.
    status: Vec<u8>,
    degree_in: Vec<u8>,
    undecided: Vec<u8>,
    /// For a cell at the end of a path of edges in (or alone), the other end.
    other_end: Vec<u16>,
    n_in: u32,
    trail: Vec<Undo>,
    queue: Vec<u16>,
    seen: Vec<u32>,
    stamp: u32,
    reach: Vec<u16>,
}

impl EdgeSearch {
    fn new(config: &Config, cells: &[bool]) -> EdgeSearch {
        let n_cells = cells.len();
        let width = config.width();
        let mut status = vec![OUT; 2 * n_cells];
        let mut undecided = vec![0u8; n_cells];
        for cell in 0..n_cells as u16 {
            if !cells[usize::from(cell)] {
                continue;
            }
            for (slot, next) in [(0, cell + 1), (1, cell + width)] {
                let beside = if slot == 0 { cell % width + 1 < width } else { usize::from(cell + width) < n_cells };
                if beside && cells[usize::from(next)] {
                    status[2 * usize::from(cell) + slot] = UNDECIDED;
                    undecided[usize::from(cell)] += 1;
                    undecided[usize::from(next)] += 1;
                }
            }
        }
        EdgeSearch {
            width,
            n_members: cells.iter().filter(|&&member| member).count() as u32,
            cells: cells.to_vec(),
            status,
            degree_in: vec![0; n_cells],
            undecided,
            other_end: (0..n_cells as u16).collect(),
            n_in: 0,
            trail: Vec::with_capacity(4 * n_cells),
            queue: Vec::with_capacity(n_cells),
            seen: vec![0; n_cells],
            stamp: 0,
            reach: Vec::with_capacity(n_cells),
        }
    }

    fn edge(&self, a: u16, b: u16) -> u32 {
        let (low, high) = (a.min(b), a.max(b));
        2 * u32::from(low) + u32::from(high - low != 1)
    }

    fn ends(&self, edge: u32) -> (u16, u16) {
        let cell = (edge / 2) as u16;
        (cell, if edge % 2 == 0 { cell + 1 } else { cell + self.width })
    }

    /// The edges of `cell` (up to four, `u32::MAX` for none).
    fn edges_of(&self, cell: u16) -> [u32; 4] {
        let mut edges = [u32::MAX; 4];
        let n_cells = self.cells.len() as u16;
        if cell % self.width + 1 < self.width {
            edges[0] = 2 * u32::from(cell);
        }
        if cell + self.width < n_cells {
            edges[1] = 2 * u32::from(cell) + 1;
        }
        if cell % self.width > 0 {
            edges[2] = 2 * u32::from(cell - 1);
        }
        if cell >= self.width {
            edges[3] = 2 * u32::from(cell - self.width) + 1;
        }
        edges
    }

    /// Decides `edge` (undecided) as `value`; `false` on a contradiction
    /// found at once. Queues both ends for [`EdgeSearch::propagate`].
    fn set(&mut self, edge: u32, value: u8) -> bool {
        if self.status[edge as usize] != UNDECIDED {
            return self.status[edge as usize] == value;
        }
        let (a, b) = self.ends(edge);
        self.status[edge as usize] = value;
        self.trail.push(Undo::Edge(edge));
        self.undecided[usize::from(a)] -= 1;
        self.undecided[usize::from(b)] -= 1;
        self.queue.push(a);
        self.queue.push(b);
        if value == OUT {
            return true;
        }
        self.degree_in[usize::from(a)] += 1;
        self.degree_in[usize::from(b)] += 1;
        self.n_in += 1;
        if self.degree_in[usize::from(a)] > 2 || self.degree_in[usize::from(b)] > 2 {
            return false;
        }
        if self.other_end[usize::from(a)] == b {
            // It closes a loop: only the last edge of the whole cycle may.
            return self.n_in == self.n_members;
        }
        let (end_a, end_b) = (self.other_end[usize::from(a)], self.other_end[usize::from(b)]);
        self.set_end(end_a, end_b);
        self.set_end(end_b, end_a);
        if self.n_in + 1 < self.n_members && self.are_beside(end_a, end_b) {
            let closing = self.edge(end_a, end_b);
            if self.status[closing as usize] == UNDECIDED {
                return self.set(closing, OUT);
            }
        }
        true
    }

    fn are_beside(&self, a: u16, b: u16) -> bool {
        let (low, high) = (a.min(b), a.max(b));
        (high - low == 1 && low % self.width + 1 < self.width) || high - low == self.width
    }

    fn set_end(&mut self, cell: u16, end: u16) {
        self.trail.push(Undo::End(cell, self.other_end[usize::from(cell)]));
        self.other_end[usize::from(cell)] = end;
    }

    fn undo_to(&mut self, trail_len: usize) {
        while self.trail.len() > trail_len {
            match self.trail.pop().expect("longer than trail_len") {
                Undo::Edge(edge) => {
                    let (a, b) = self.ends(edge);
                    if self.status[edge as usize] == IN {
                        self.degree_in[usize::from(a)] -= 1;
                        self.degree_in[usize::from(b)] -= 1;
                        self.n_in -= 1;
                    }
                    self.status[edge as usize] = UNDECIDED;
                    self.undecided[usize::from(a)] += 1;
                    self.undecided[usize::from(b)] += 1;
                }
                Undo::End(cell, end) => self.other_end[usize::from(cell)] = end,
            }
        }
        self.queue.clear();
    }

    /// Applies degree-2 forcing until nothing changes; `false` on a
    /// contradiction.
    fn propagate(&mut self) -> bool {
        while let Some(cell) = self.queue.pop() {
            let at = usize::from(cell);
            let (degree_in, undecided) = (self.degree_in[at], self.undecided[at]);
            let value = if degree_in + undecided < 2 {
                return false;
            } else if undecided > 0 && degree_in == 2 {
                OUT
            } else if undecided > 0 && degree_in + undecided == 2 {
                IN
            } else {
                continue;
            };
            for edge in self.edges_of(cell) {
                if edge != u32::MAX && self.status[edge as usize] == UNDECIDED && !self.set(edge, value) {
                    return false;
                }
            }
        }
        true
    }

    /// Whether the edges not out still join every cell.
    fn joined(&mut self) -> bool {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
        let Some(start) = (0..self.cells.len()).find(|&cell| self.cells[cell]) else { return true };
        self.reach.clear();
        self.reach.push(start as u16);
        self.seen[start] = self.stamp;
        let mut read = 0;
        while read < self.reach.len() {
            let cell = self.reach[read];
            read += 1;
            for edge in self.edges_of(cell) {
                if edge == u32::MAX || self.status[edge as usize] == OUT {
                    continue;
                }
                let (a, b) = self.ends(edge);
                let next = if a == cell { b } else { a };
                if self.seen[usize::from(next)] != self.stamp {
                    self.seen[usize::from(next)] = self.stamp;
                    self.reach.push(next);
                }
            }
        }
        self.reach.len() as u32 == self.n_members
    }

    /// The edge to branch on: an undecided edge of the path end (or, with
    /// no path yet, of the cell) with the fewest undecided edges.
    fn branch_edge(&self) -> Option<u32> {
        let mut best: Option<(u8, u8, u16)> = None;
        for cell in 0..self.cells.len() as u16 {
            let at = usize::from(cell);
            if !self.cells[at] || self.degree_in[at] == 2 || self.undecided[at] == 0 {
                continue;
            }
            let key = (u8::from(self.degree_in[at] == 0), self.undecided[at], cell);
            if best.is_none_or(|best| (key.0, key.1) < (best.0, best.1)) {
                best = Some(key);
            }
        }
        let (_, _, cell) = best?;
        self.edges_of(cell).into_iter().find(|&edge| edge != u32::MAX && self.status[edge as usize] == UNDECIDED)
    }

    fn run(&mut self) -> Search {
        if !self.propagate() || !self.joined() {
            return Search::NoCycle(NoCycle::Exhausted);
        }
        let mut stack: Vec<Frame> = Vec::new();
        let mut nodes = 0u64;
        loop {
            if self.n_in == self.n_members {
                return Search::Found(self.successors());
            }
            let Some(edge) = self.branch_edge() else { return Search::NoCycle(NoCycle::Exhausted) };
            stack.push(Frame { trail_len: self.trail.len(), edge, tried: 0 });
            loop {
                let Some(frame) = stack.last_mut() else { return Search::NoCycle(NoCycle::Exhausted) };
                if frame.tried == 2 {
                    stack.pop();
                    continue;
                }
                let (trail_len, edge, value) = (frame.trail_len, frame.edge, if frame.tried == 0 { IN } else { OUT });
                frame.tried += 1;
                nodes += 1;
                if nodes > NODE_LIMIT {
                    return Search::GaveUp;
                }
                self.undo_to(trail_len);
                if self.set(edge, value) && self.propagate() && self.joined() {
                    break;
                }
            }
        }
    }

    /// The cycle of the edges in, as successors, starting from the first
    /// cell towards its lower-numbered neighbour on the cycle.
    fn successors(&self) -> Vec<u16> {
        let mut succ = vec![NONE; self.cells.len()];
        let Some(start) = (0..self.cells.len() as u16).find(|&cell| self.cells[usize::from(cell)]) else {
            return succ;
        };
        let (mut previous, mut cell) = (NONE, start);
        loop {
            let next = self
                .edges_of(cell)
                .into_iter()
                .filter(|&edge| edge != u32::MAX && self.status[edge as usize] == IN)
                .map(|edge| {
                    let (a, b) = self.ends(edge);
                    if a == cell { b } else { a }
                })
                .filter(|&next| next != previous)
                .min()
                .expect("every cell on the cycle has two edges in");
            succ[usize::from(cell)] = next;
            if next == start {
                return succ;
            }
            (previous, cell) = (cell, next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::snake::plan::cycle::cover::tests::walk;
    use crate::game::snake::plan::cycle::split;
    use crate::game::snake::{SnakeSetup, StartRule};
    use crate::map::Level;

    fn board(picture: &str) -> (Config, Vec<bool>) {
        let setup = SnakeSetup { start: StartRule::Random, ..SnakeSetup::parse(picture).unwrap() };
        let config = Config::try_from(setup).unwrap();
        let cells = (0..config.n_cells() as u16).map(|cell| !config.is_wall(cell)).collect();
        (config, cells)
    }

    #[test]
    fn it_finds_a_cycle_through_every_free_cell_of_a_walled_board() {
        // Two rooms joined by two doors, and a ring round a pillar with two
        // corners cut: no 2×2 tiling fits either. The ring's cycle may
        // admit no cut (then the snake has that one cycle).
        for (picture, cut) in [
            (
                "......X......\n......X......\n.............\n......X......\n......X......\n.............\n......X......",
                true,
            ),
            ("X....X\n......\n..XX..\n..XX..\n......\n......", false),
        ] {
            let (config, cells) = board(picture);
            let Search::Found(succ) = hamiltonian_cycle(&config, &cells, &[]) else { panic!("{picture}: no cycle") };
            assert_eq!(walk(&config, &succ).len(), config.n_free_cells() as usize, "{picture}");
            // Cut into loops, they still cover every cell and join up.
            let loops = split::split(&config, succ);
            assert!(loops.covers_every_free_cell(&config));
            let cover = crate::game::snake::plan::cycle::cover::Cover::from_loops(&config, &loops).expect("joined");
            assert!(!cut || cover.n_blocks > 1, "{picture}: the cycle was not cut");
        }
    }

    #[test]
    fn it_proves_boards_without_a_cycle() {
        let cases = [
            // Nine cells: more of one colour than the other.
            ("...\n...\n...", NoCycle::Unbalanced),
            // A corridor off a room ends in a dead end.
            ("....\n....\n.XXX", NoCycle::DeadEnd(8)),
            // Two rooms that meet in one cell.
            ("..XX..\n......", NoCycle::CutCell(10)),
            ("..X..\n..X..", NoCycle::Apart),
            ("..\nX.", NoCycle::TooFew),
        ];
        for (picture, reason) in cases {
            let (config, cells) = board(picture);
            assert_eq!(hamiltonian_cycle(&config, &cells, &[]), Search::NoCycle(reason), "{picture}");
        }
    }

    /// Balanced, no dead end, no cut cell, and still no cycle: only the
    /// search's exhausting every branch proves it.
    #[test]
    fn the_search_proves_what_counting_cannot() {
        let (config, cells) = board("X...X\n.....\n.X...\n.....\n.....");
        assert_eq!(no_cycle_by_counting(&config, &cells), None);
        assert_eq!(hamiltonian_cycle(&config, &cells, &[]), Search::NoCycle(NoCycle::Exhausted));
    }
}
