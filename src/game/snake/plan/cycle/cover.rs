//! The tables `cycle` plays on: the board's free cells cut into blocks,
//! each block one directed loop, the crossings that merge two side-by-side
//! blocks into one loop, and each cell's two moves under each turning
//! sense. Built once per game from a 2×2 tiling, or from the loops a
//! builder hands over ([`Loops`]), whatever their shapes.
//!
//! **The merge rule.** Two loops that run side by side along the two
//! opposite sides of a unit square, in opposite directions (`x1 → y1` in
//! one, `x2 → y2` in the other, `x1` beside `y2` and `x2` beside `y1`),
//! become one loop when those two steps are swapped for `x1 → y2` and
//! `x2 → y1`. That pair of swaps is a *crossing* between the two blocks.
//! No step is in two crossings, so the crossings of any spanning tree of
//! the blocks can be swapped together, and each tree gives one Hamiltonian
//! cycle of the covered cells; reversing every loop gives the other
//! turning sense with the same crossings. Two blocks may be joined by more
//! than one crossing (a side three cells long has two such pairs): a tree
//! uses one of them, and a body that opens both has closed a loop.
//!
//! **The switch.** A board with an odd number of free cells has no
//! Hamiltonian cycle; a cover can then hold a switch (see [`Switch`]): two
//! cells of which every cycle holds exactly one, so the cycles run through
//! all free cells but one, and the snake chooses which as it passes.

use crate::game::snake::plan::cycle::grid;
use crate::game::snake::plan::cycle::loops::{Loops, NONE, Switch};
use crate::game::snake::plan::cycle::search::{self, Search};
use crate::game::snake::plan::cycle::split;
use crate::game::snake::{Config, Dir};

/// No crossing: the block's side is the board's edge or a wall block.
pub(crate) const NO_EDGE: u32 = u32::MAX;

/// The two turning senses a snake may drive round its blocks in. For the
/// 2×2 tiling sense 0 is counterclockwise on screen; for a cover built from
/// [`Loops`] it is the loops' own direction, and sense 1 the reverse.
pub(crate) const COUNTERCLOCKWISE: usize = 0;
pub(crate) const CLOCKWISE: usize = 1;

/// The board cut into blocks, and each cell's two moves under each
/// turning sense.
#[derive(Clone, Debug)]
pub(crate) struct Cover {
    pub(crate) n_free_blocks: usize,
    /// Block indices run below this; the 2×2 tiling numbers wall blocks too.
    pub(crate) n_blocks: usize,
    pub(crate) block_free: Vec<bool>,
    /// The two blocks each crossing joins.
    pub(crate) edges: Vec<(u32, u32)>,
    /// `moves[sense][cell]`: round the block, then across (or [`NONE`]);
    /// at the switch's entry, its two cells.
    pub(crate) moves: [Vec<[u16; 2]>; 2],
    /// `crossing[sense][cell]`: the crossing the cell's move across uses.
    pub(crate) crossing: [Vec<u32>; 2],
    /// Each cell's block ([`NO_EDGE`] for a cell no block holds).
    pub(crate) block_of: Vec<u32>,
    /// The switch's two cells, if the cover has one.
    pub(crate) switch: Option<[u16; 2]>,
    /// How many cells each of the cover's Hamiltonian cycles runs through:
    /// every free cell, one fewer with a switch, fewer still where the
    /// cover leaves cells out.
    pub(crate) cycle_len: usize,
}

impl Cover {
    /// The cover `cycle` plays on `config`'s board, if it finds one.
    pub(crate) fn of(config: &Config) -> Option<Cover> {
        if let Some(cover) = Cover::blocks_2x2(config) {
            return Some(cover);
        }
        let loops = grid::rectangle(config).or_else(|| searched(config))?;
        Cover::from_loops(config, &loops)
    }

    /// Whether `cell` lies in some block.
    pub(crate) fn covers(&self, cell: u16) -> bool {
        self.block_of[usize::from(cell)] != NO_EDGE
    }

    /// The cover made of `loops`, if their crossings join them all.
    pub(crate) fn from_loops(config: &Config, loops: &Loops) -> Option<Cover> {
        let n_cells = config.n_cells();
        let succ = &loops.succ;
        let mut block_of = vec![NO_EDGE; n_cells];
        let mut n_blocks = 0u32;
        let mut cycle_len = 0;
        for start in 0..n_cells {
            if succ[start] == NONE || block_of[start] != NO_EDGE {
                continue;
            }
            let mut cell = start;
            while block_of[cell] == NO_EDGE {
                block_of[cell] = n_blocks;
                cycle_len += 1;
                cell = usize::from(succ[cell]);
            }
            debug_assert_eq!(cell, start, "a successor table of loops");
            n_blocks += 1;
        }
        let mut pred = vec![NONE; n_cells];
        for (cell, &next) in succ.iter().enumerate() {
            if next != NONE {
                pred[usize::from(next)] = cell as u16;
            }
        }
        let mut moves = [vec![[NONE; 2]; n_cells], vec![[NONE; 2]; n_cells]];
        for cell in 0..n_cells {
            moves[COUNTERCLOCKWISE][cell][0] = succ[cell];
            moves[CLOCKWISE][cell][0] = pred[cell];
        }
        if let Some(Switch { entry, cells: [on, off], exit }) = loops.switch {
            block_of[usize::from(off)] = block_of[usize::from(entry)];
            moves[COUNTERCLOCKWISE][usize::from(entry)] = [on, off];
            moves[COUNTERCLOCKWISE][usize::from(off)] = [exit, NONE];
            moves[CLOCKWISE][usize::from(exit)] = [on, off];
            moves[CLOCKWISE][usize::from(off)] = [entry, NONE];
        }
        let mut cover = Cover {
            n_free_blocks: n_blocks as usize,
            n_blocks: n_blocks as usize,
            block_free: vec![true; n_blocks as usize],
            edges: Vec::new(),
            moves,
            crossing: [vec![NO_EDGE; n_cells], vec![NO_EDGE; n_cells]],
            block_of,
            switch: loops.switch.map(|switch| switch.cells),
            cycle_len,
        };
        cover.add_crossings(config, loops);
        joined(cover.n_blocks, cover.n_free_blocks, &cover.edges).then_some(cover)
    }

    /// Every crossing between two loops, `loops.first_squares` first, then
    /// square by square in row-major order; a step already in a crossing,
    /// or touching the switch's cells, is in no other.
    fn add_crossings(&mut self, config: &Config, loops: &Loops) {
        let (width, height) = (config.width(), config.height());
        let succ = &loops.succ;
        let mut used = vec![false; config.n_cells()];
        let switch_cells = self.switch.unwrap_or([NONE; 2]);
        let n_cells = config.n_cells() as u16;
        for top_left in loops.first_squares.iter().copied().chain(0..n_cells) {
            if top_left % width + 1 >= width || top_left / width + 1 >= height {
                continue;
            }
            let (p, q, s) = (top_left, top_left + 1, top_left + width);
            let r = s + 1;
            // The top and bottom sides, then the left and right sides: each
            // as (x1, y1, x2, y2) for the steps x1 → y1 and x2 → y2.
            for [x1, y1, x2, y2] in [[p, q, r, s], [q, p, s, r], [p, s, r, q], [s, p, q, r]] {
                let runs = |x: u16, y: u16| succ[usize::from(x)] == y && !used[usize::from(x)];
                if !runs(x1, y1) || !runs(x2, y2) || [x1, y1, x2, y2].iter().any(|cell| switch_cells.contains(cell)) {
                    continue;
                }
                let (block_1, block_2) = (self.block_of[usize::from(x1)], self.block_of[usize::from(x2)]);
                if block_1 == block_2 {
                    continue;
                }
                used[usize::from(x1)] = true;
                used[usize::from(x2)] = true;
                let edge = self.edges.len() as u32;
                self.edges.push((block_1, block_2));
                // Swapped: x1 → y2 and x2 → y1; reversed, y1 → x2 and y2 → x1.
                for (sense, from, to) in
                    [(COUNTERCLOCKWISE, x1, y2), (COUNTERCLOCKWISE, x2, y1), (CLOCKWISE, y1, x2), (CLOCKWISE, y2, x1)]
                {
                    self.moves[sense][usize::from(from)][1] = to;
                    self.crossing[sense][usize::from(from)] = edge;
                }
            }
        }
    }

    /// The tiling of `config`'s board, if its free cells are exactly the
    /// union of 2×2 blocks (for one of the four offsets) and those blocks
    /// are joined side to side.
    fn blocks_2x2(config: &Config) -> Option<Cover> {
        [(0, 0), (1, 0), (0, 1), (1, 1)].into_iter().find_map(|(dx, dy)| Cover::at_offset(config, dx, dy))
    }

    fn at_offset(config: &Config, dx: u16, dy: u16) -> Option<Cover> {
        let (width, height) = (config.width(), config.height());
        if width < dx + 2 || height < dy + 2 {
            return None;
        }
        let (block_cols, block_rows) = ((width - dx) / 2, (height - dy) / 2);
        let n_cells = config.n_cells();
        let block_of = |cell: u16| -> Option<u32> {
            let (col, row) = (cell % width, cell / width);
            if col < dx || row < dy || col - dx >= 2 * block_cols || row - dy >= 2 * block_rows {
                return None;
            }
            Some(u32::from((row - dy) / 2) * u32::from(block_cols) + u32::from((col - dx) / 2))
        };
        // Every free cell in a block, every block all free or all wall.
        let n_blocks = usize::from(block_cols) * usize::from(block_rows);
        let mut free_cells_in = vec![0u8; n_blocks];
        for cell in 0..n_cells as u16 {
            if config.is_wall(cell) {
                continue;
            }
            free_cells_in[block_of(cell)? as usize] += 1;
        }
        if free_cells_in.iter().any(|&n| n != 0 && n != 4) {
            return None;
        }
        let free = |block: u32| free_cells_in[block as usize] == 4;
        let mut edges = Vec::new();
        let mut right_edge = vec![NO_EDGE; n_blocks];
        let mut down_edge = vec![NO_EDGE; n_blocks];
        for block in 0..n_blocks as u32 {
            let (col, row) = (block % u32::from(block_cols), block / u32::from(block_cols));
            if col + 1 < u32::from(block_cols) && free(block) && free(block + 1) {
                right_edge[block as usize] = edges.len() as u32;
                edges.push((block, block + 1));
            }
            let below = block + u32::from(block_cols);
            if row + 1 < u32::from(block_rows) && free(block) && free(below) {
                down_edge[block as usize] = edges.len() as u32;
                edges.push((block, below));
            }
        }
        let n_free_blocks = free_cells_in.iter().filter(|&&n| n == 4).count();
        if n_free_blocks == 0 || !joined(n_blocks, n_free_blocks, &edges) {
            return None;
        }
        // Each cell's moves. Counterclockwise (rows grow downwards): top-left
        // goes down or left, bottom-left right or down, bottom-right up or
        // right, top-right left or up. Clockwise is the mirror image.
        let mut moves = [vec![[NONE; 2]; n_cells], vec![[NONE; 2]; n_cells]];
        let mut crossing = [vec![NO_EDGE; n_cells], vec![NO_EDGE; n_cells]];
        for cell in 0..n_cells as u16 {
            let Some(block) = block_of(cell) else { continue };
            if !free(block) {
                continue;
            }
            let (col, row) = (cell % width, cell / width);
            let (right, bottom) = ((col - dx) % 2 == 1, (row - dy) % 2 == 1);
            let block = block as usize;
            let left_block = |b: usize| if b % usize::from(block_cols) > 0 { right_edge[b - 1] } else { NO_EDGE };
            let up_block =
                |b: usize| if b >= usize::from(block_cols) { down_edge[b - usize::from(block_cols)] } else { NO_EDGE };
            let step = |dir: Dir| config.neighbour(cell, dir).unwrap_or(NONE);
            let ccw = match (right, bottom) {
                (false, false) => (Dir::Down, Dir::Left, left_block(block)),
                (false, true) => (Dir::Right, Dir::Down, down_edge[block]),
                (true, true) => (Dir::Up, Dir::Right, right_edge[block]),
                (true, false) => (Dir::Left, Dir::Up, up_block(block)),
            };
            let cw = match (right, bottom) {
                (false, false) => (Dir::Right, Dir::Up, up_block(block)),
                (true, false) => (Dir::Down, Dir::Right, right_edge[block]),
                (true, true) => (Dir::Left, Dir::Down, down_edge[block]),
                (false, true) => (Dir::Up, Dir::Left, left_block(block)),
            };
            for (sense, (round, across, edge)) in [(COUNTERCLOCKWISE, ccw), (CLOCKWISE, cw)] {
                let across_cell = if edge == NO_EDGE { NONE } else { step(across) };
                moves[sense][usize::from(cell)] = [step(round), across_cell];

                crossing[sense][usize::from(cell)] = edge;
            }
        }
        let block_of = (0..n_cells as u16).map(|cell| block_of(cell).unwrap_or(NO_EDGE)).collect();
        let block_free = free_cells_in.iter().map(|&n| n == 4).collect();
        let cycle_len = config.n_free_cells() as usize;
        Some(Cover { n_free_blocks, n_blocks, block_free, edges, moves, crossing, block_of, switch: None, cycle_len })
    }
}

/// A Hamiltonian cycle of the free cells, found by search and cut into
/// small loops.
fn searched(config: &Config) -> Option<Loops> {
    let cells: Vec<bool> = (0..config.n_cells() as u16).map(|cell| !config.is_wall(cell)).collect();
    match search::hamiltonian_cycle(config, &cells, &[]) {
        Search::Found(cycle) => Some(split::split(config, cycle)),
        Search::NoCycle(_) | Search::GaveUp => None,
    }
}

/// Whether `edges` join all `n_free_blocks` blocks (of `n_blocks` indices).
pub(crate) fn joined(n_blocks: usize, n_free_blocks: usize, edges: &[(u32, u32)]) -> bool {
    let mut parent: Vec<u32> = (0..n_blocks as u32).collect();
    let merges = edges.iter().filter(|&&(a, b)| union(&mut parent, a, b)).count();
    merges + 1 == n_free_blocks
}

pub(crate) fn find(parent: &mut [u32], mut node: u32) -> u32 {
    while parent[node as usize] != node {
        let grand = parent[parent[node as usize] as usize];
        parent[node as usize] = grand;
        node = grand;
    }
    node
}

/// Joins the sets of `a` and `b`; `false` if they were one set already.
pub(crate) fn union(parent: &mut [u32], a: u32, b: u32) -> bool {
    let (root_a, root_b) = (find(parent, a), find(parent, b));
    if root_a == root_b {
        return false;
    }
    parent[root_a.max(root_b) as usize] = root_a.min(root_b);
    true
}

/// The Hamiltonian cycle of the spanning tree of `cover`'s blocks that
/// Kruskal's algorithm builds from the crossings taken in `order`, as
/// successors under `sense` ([`NONE`] off it): what `cycle` follows once it
/// has fixed a tree.
#[cfg(test)]
pub(crate) fn tree_cycle(cover: &Cover, sense: usize, order: &[usize]) -> Vec<u16> {
    let mut parent: Vec<u32> = (0..cover.n_blocks as u32).collect();
    let mut tree = vec![false; cover.edges.len()];
    for &edge in order {
        let (a, b) = cover.edges[edge];
        tree[edge] = union(&mut parent, a, b);
    }
    let n_cells = cover.block_of.len();
    let off = cover.switch.map(|[_, off]| off);
    (0..n_cells as u16)
        .map(|cell| {
            let at = usize::from(cell);
            if !cover.covers(cell) || off == Some(cell) {
                return NONE;
            }
            let edge = cover.crossing[sense][at];
            let [round, across] = cover.moves[sense][at];
            if edge != NO_EDGE && tree[edge as usize] { across } else { round }
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::game::snake::SnakeSetup;
    use proptest::prelude::*;

    /// The cells of the cycle `succ` describes, in order from its first
    /// cell; panics unless every cell with a successor is on one closed
    /// cycle of side-by-side steps.
    pub(crate) fn walk(config: &Config, succ: &[u16]) -> Vec<u16> {
        let on: Vec<u16> = (0..succ.len() as u16).filter(|&cell| succ[usize::from(cell)] != NONE).collect();
        let mut order = vec![on[0]];
        let mut cell = succ[usize::from(on[0])];
        while cell != on[0] {
            assert!(order.len() < on.len(), "the steps close a loop short of every cell");
            order.push(cell);
            cell = succ[usize::from(cell)];
        }
        for pair in order.windows(2).chain([[order[order.len() - 1], order[0]].as_slice()]) {
            let beside = Dir::ALL.into_iter().any(|dir| config.neighbour(pair[0], dir) == Some(pair[1]));
            assert!(beside && !config.is_wall(pair[1]), "{} to {} is no move", pair[0], pair[1]);
        }
        order
    }

    /// Every tree's cycle visits each free cell once (all but one, the
    /// switch's hole, when the board has an odd number of cells) and is
    /// closed, under both turning senses, the one the reverse of the other.
    fn check_every_tree_cycle_is_hamiltonian(config: &Config, order_seed: u64) {
        let cover = Cover::of(config).expect("a cover");
        let n_free = config.n_free_cells() as usize;
        let expected = if n_free % 2 == 1 { n_free - 1 } else { n_free };
        assert_eq!(cover.cycle_len, expected);
        assert_eq!(cover.switch.is_some(), n_free % 2 == 1);
        // A pseudo-random order of the crossings: another spanning tree.
        let mut order: Vec<usize> = (0..cover.edges.len()).collect();
        order.sort_by_key(|&edge| (edge as u64 + 1).wrapping_mul(order_seed | 1).rotate_left(17));
        let forward = tree_cycle(&cover, COUNTERCLOCKWISE, &order);
        let cells = walk(config, &forward);
        assert_eq!(cells.len(), expected, "the cycle misses cells");
        let backward = tree_cycle(&cover, CLOCKWISE, &order);
        for (cell, &next) in forward.iter().enumerate() {
            if next != NONE {
                assert_eq!(usize::from(backward[usize::from(next)]), cell, "not the reverse cycle");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        /// Rectangles with an odd side (and odd × odd ones, with a switch).
        #[test]
        fn every_rectangle_with_an_odd_side_has_a_closed_cycle_through_every_cell(
            width in 2u16..=31,
            height in 2u16..=31,
            order_seed in any::<u64>(),
        ) {
            prop_assume!(width % 2 == 1 || height % 2 == 1);
            prop_assume!(width >= 3 || height >= 3);
            let setup = SnakeSetup { start: crate::game::snake::StartRule::Random, ..SnakeSetup::open(width, height) };
            check_every_tree_cycle_is_hamiltonian(&Config::try_from(setup).unwrap(), order_seed);
        }
    }

    /// A board with walls no 2×2 tiling fits: two 6×7 rooms with one-cell
    /// doors (as `maps/snake/two_rooms.txt`); its cycle comes from the search.
    #[test]
    fn a_walled_board_gets_its_cycle_from_the_search() {
        let rooms = "......X......\n......X......\n.............\n......X......\n\
            ......X......\n.............\n......X......";
        let setup = <SnakeSetup as crate::map::Level>::parse(rooms).unwrap();
        let config = Config::try_from(setup).unwrap();
        assert!(Cover::blocks_2x2(&config).is_none() && grid::rectangle(&config).is_none());
        for seed in [1, 2, 3] {
            check_every_tree_cycle_is_hamiltonian(&config, seed);
        }
    }
}
