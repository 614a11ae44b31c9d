//! The solver's state: what it knows of each tile and edge, the union-find
//! of the tiles joined by open edges, the trail of changes to undo and the
//! branch points; its construction for one board and its reset for a deal.
//! The rules that change this state are in `propagate`, the search that
//! drives them in `search`.

use super::tables::DOMAINS;
use crate::game::pipes::{DIR_BITS, Grid};

/// No tile: past the border of a flat board, or no contradiction yet.
pub(super) const NO_TILE: u32 = u32::MAX;

/// One reversible change, recorded so that backtracking can undo it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Undo {
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
pub(super) struct TileState {
    /// The tile as dealt: orientations are turns of it.
    pub(super) base: u8,
    /// The quarter turns still possible, as a bit set.
    pub(super) domain: u8,
    /// The directions of the open edges, as a mask. An edge is one variable
    /// seen from both its tiles: setting or clearing it changes both masks,
    /// so a tile reads its edges in one load.
    pub(super) open_edges: u8,
    /// The directions of the closed edges (border edges of a flat board are
    /// closed from the start).
    pub(super) closed_edges: u8,
    /// Whether the tile is in the queue (or being revised).
    pub(super) queued: bool,
}

/// A tile's entry in the union-find. All but `parent` are meaningful at a
/// component's root only, and describe the whole component. They sit
/// together because the rules read them together.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct UnionFindEntry {
    pub(super) parent: u32,
    pub(super) size: u32,
    /// Unknown edges with an end in the component, counted once per end.
    pub(super) free: u32,
    /// The XOR of `tile + 1` over its tiles that still have pipe ends to
    /// join, so that with one end left this names the tile that has it.
    pub(super) open_ends: u32,
    /// The pipes of its tiles, summed.
    pub(super) degree_sum: u32,
}

/// A branch point: the trail length and scan cursor before it, the tile,
/// and the orientations not yet tried.
#[derive(Clone, Copy, Debug)]
pub(super) struct Choice {
    pub(super) trail_len: usize,
    pub(super) scan_cursor: usize,
    pub(super) tile: u32,
    pub(super) untried: u8,
}

/// The solver with its scratch state, sized for one board and reusable for
/// any tiles on that board.
#[derive(Clone, Debug)]
pub struct Solver {
    pub(super) grid: Grid,
    pub(super) n_with_pipes: u32,
    /// `neighbours[tile][dir]`, `NO_TILE` past the border of a flat board.
    pub(super) neighbours: Vec<[u32; 4]>,
    pub(super) tiles: Vec<TileState>,
    /// The union-find of the tiles joined by open edges, one entry per tile.
    pub(super) union_find: Vec<UnionFindEntry>,
    /// Whether changes go to the trail: not during the propagation at the
    /// root, which is never undone.
    pub(super) recording: bool,
    /// Each component's members as a circular list: merging two lists (and
    /// splitting them again on undo) is one swap.
    pub(super) next: Vec<u32>,
    pub(super) trail: Vec<Undo>,
    pub(super) queue: Vec<u32>,
    pub(super) choices: Vec<Choice>,
    pub(super) solution: Vec<u8>,
    pub(super) last_solution: Vec<u8>,
    /// Where the fallback scan for an undecided tile starts.
    pub(super) scan_cursor: usize,
    pub(super) revisions: u64,
    /// The tiles at the last contradiction (both the same for a tile with
    /// no orientation left; `NO_TILE` past a border).
    pub(super) conflict: [u32; 2],
    /// Contradictions each tile took part in during this run.
    pub(super) weight: Vec<u32>,
    /// The tiles with a weight, in the order they first got one.
    pub(super) hot: Vec<u32>,
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

    pub(crate) fn grid(&self) -> Grid {
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
    pub(crate) fn deduce(&mut self, tiles: &[u8], source: usize) -> bool {
        assert_eq!(tiles.len(), self.grid.n_tiles(), "tiles for another board");
        self.reset(tiles);
        let source_is_dry = self.tiles[source].base == 0 && self.n_with_pipes > 0;
        !source_is_dry && self.propagate()
    }

    /// Whether `tile` has one orientation left after the last
    /// [`Solver::deduce`] or [`Solver::run`].
    pub(crate) fn is_decided(&self, tile: usize) -> bool {
        self.tiles[tile].domain.count_ones() == 1
    }

    pub(super) fn reset(&mut self, tiles: &[u8]) {
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
}
