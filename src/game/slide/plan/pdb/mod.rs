//! Additive pattern databases for the blank-first goal: one table
//! ([`PatternDb`]) with the perfect hash of its tiles' positions, and the
//! [`PdbSet`] of a partition's tables with the lookups IDA* makes. The
//! partitions are in `partition.rs`, the builds in `build.rs`.
//!
//! A pattern database for a group of tiles stores, for every placement of
//! those tiles, the fewest moves **of those tiles** needed to bring them
//! home. Only moves of a group's own tiles are counted, so the values of
//! disjoint groups add up to a lower bound of the whole distance (Korf &
//! Felner 2002). The abstract state is the group's positions plus the
//! blank's cell: moves that swap the blank with a tile outside the group
//! cost 0, the others 1, and the stored value is the minimum over the
//! blank's cells, so a table holds one byte per placement (25·24·23·22·21·20
//! = 127,512,000 for a 6-tile group of the 24-puzzle).
//!
//! Each group is looked up twice: on the board, and on the board reflected
//! about the main diagonal (the same tables, other tiles and cells), and
//! IDA* takes the larger sum. A group may be a table seen through a
//! symmetry of the board, so the 24-puzzle's four groups need two tables.
//!
//! No file I/O here: `src/pdb_cache.rs` saves and loads the tables.

mod build;
mod partition;

pub use partition::Partition;
pub(crate) use partition::Symmetry;

#[cfg(test)]
use crate::game::slide::Board;
use crate::game::slide::{Dir, MAX_CELLS, neighbour};

/// Value of an entry the build never reached (no valid placement has it).
const UNSEEN: u8 = u8::MAX;

/// The most tiles a group may have (the 8-tile half of the 15-puzzle's 7-8).
#[cfg(test)]
pub(crate) const MAX_GROUP_TILES: usize = 8;

/// One table, indexed by [`rank`].
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct PatternDb {
    side: u8,
    tiles: Vec<u8>,
    entries: Vec<u8>,
}

impl std::fmt::Debug for PatternDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PatternDb")
            .field("side", &self.side)
            .field("tiles", &self.tiles)
            .field("entries", &self.entries.len())
            .finish()
    }
}

/// Why stored table bytes do not fit a pattern.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PdbError {
    #[error("a table for {tiles} tiles on {cells} cells has {expected} entries, got {got}")]
    Length { tiles: usize, cells: usize, expected: usize, got: usize },
    #[error("the table holds an entry no build produces ({0})")]
    BadEntry(u8),
}

/// Number of placements of `k` distinct tiles on `n` cells: n!/(n-k)!.
pub(crate) fn n_placements(n_cells: usize, k: usize) -> usize {
    (n_cells - k + 1..=n_cells).product()
}

/// The perfect hash of a placement: position `i`'s rank among the cells not
/// taken by positions `0..i`, read as a mixed-radix number (radices n, n-1, …).
#[inline]
pub(crate) fn rank(positions: &[u8], n_cells: u32) -> usize {
    let mut used = 0u32;
    let mut index = 0usize;
    for (i, &cell) in positions.iter().enumerate() {
        let below = (used & ((1u32 << cell) - 1)).count_ones();
        index = index * (n_cells as usize - i) + (u32::from(cell) - below) as usize;
        used |= 1 << cell;
    }
    index
}

/// The inverse of [`rank`]: writes the placement into `positions`.
pub(crate) fn unrank(mut index: usize, n_cells: u32, positions: &mut [u8]) {
    let k = positions.len();
    let mut digits = [0u32; MAX_CELLS];
    for i in (0..k).rev() {
        let radix = n_cells as usize - i;
        digits[i] = (index % radix) as u32;
        index /= radix;
    }
    let mut used = 0u32;
    for i in 0..k {
        let mut remaining = digits[i];
        let mut cell = 0u32;
        loop {
            if used & (1 << cell) == 0 {
                if remaining == 0 {
                    break;
                }
                remaining -= 1;
            }
            cell += 1;
        }
        positions[i] = cell as u8;
        used |= 1 << cell;
    }
}

/// [`rank`] as the search computes it, on `K` slots of which the first
/// `k` hold the group's cells: `weights[i]` is the product of the radices
/// after slot `i` (0 for the padding slots past `k`, whose cells must be at
/// least `K`). Branch-free: the count of earlier cells below each cell is a
/// sum of comparisons, which needs no population-count instruction.
#[inline(always)]
pub(crate) fn rank_padded<const K: usize>(positions: &[u8; K], weights: &[u32; K]) -> usize {
    let mut index = 0u32;
    for i in 0..K {
        let cell = u32::from(positions[i]);
        let mut below = 0u32;
        for &earlier in &positions[..i] {
            below += u32::from(u32::from(earlier) < cell);
        }
        index += (cell - below) * weights[i];
    }
    index as usize
}

/// The weights [`rank_padded`] takes for `k` tiles on `n_cells` cells.
pub(crate) fn rank_weights<const K: usize>(n_cells: u32, k: usize) -> [u32; K] {
    let mut weights = [0u32; K];
    for (i, weight) in weights.iter_mut().enumerate().take(k) {
        *weight = (i + 1..k).map(|j| n_cells - j as u32).product();
    }
    weights
}

impl PatternDb {
    /// A table read back from storage; the length and the entries are checked.
    pub(crate) fn from_entries(side: u8, tiles: &[u8], entries: Vec<u8>) -> Result<PatternDb, PdbError> {
        let cells = usize::from(side) * usize::from(side);
        let expected = n_placements(cells, tiles.len());
        if entries.len() != expected {
            return Err(PdbError::Length { tiles: tiles.len(), cells, expected, got: entries.len() });
        }
        if let Some(&bad) = entries.iter().find(|&&value| value == UNSEEN) {
            return Err(PdbError::BadEntry(bad));
        }
        Ok(PatternDb { side, tiles: tiles.to_vec(), entries })
    }

    pub(crate) fn side(&self) -> u8 {
        self.side
    }
    pub(crate) fn tiles(&self) -> &[u8] {
        &self.tiles
    }
    pub(crate) fn entries(&self) -> &[u8] {
        &self.entries
    }

    /// The stored bound for the table's tiles on `positions` (in the order
    /// of [`PatternDb::tiles`]).
    #[cfg(test)]
    pub(crate) fn lookup(&self, positions: &[u8]) -> u8 {
        self.entries[rank(positions, u32::from(self.side) * u32::from(self.side))]
    }

    /// Whether the table's value may depend on where the blank ends: true
    /// when the group's tiles, at home, wall the blank's goal cell off from
    /// some other free cell. Then only a symmetry that fixes that cell may
    /// reuse the table for another group.
    pub(crate) fn goal_blank_matters(&self) -> bool {
        let n = self.side * self.side;
        let home: u32 = self.tiles.iter().fold(0, |mask, &tile| mask | 1 << tile);
        let free = ((1u32 << n) - 1) & !home;
        let mut region = 1u32;
        loop {
            let mut grown = region;
            for cell in (0..n).filter(|&cell| region & (1 << cell) != 0) {
                for dir in Dir::ALL {
                    if let Some(next) = neighbour(self.side, cell, dir) {
                        grown |= (1 << next) & free;
                    }
                }
            }
            if grown == region {
                return region != free;
            }
            region = grown;
        }
    }
}

/// One lookup a search makes: a table, the tiles it is given in slot
/// order, and the cell the table is shown for a tile on each cell. A
/// group's regular view and its reflected one share the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct View {
    pub(crate) table: usize,
    pub(crate) tiles: Vec<u8>,
    pub(crate) cell_map: [u8; MAX_CELLS],
}

/// The tables of one partition with the views of its groups: which view
/// and slot each tile has on the board and on its reflection.
#[derive(Debug)]
pub struct PdbSet {
    partition: Partition,
    side: u8,
    tables: Vec<PatternDb>,
    /// The groups' regular views, then their reflected views, in group order.
    views: Vec<View>,
    /// `slots[tile]`: (view, slot) of the tile in the regular views, then
    /// in the reflected ones; unused for the blank.
    slots: [[(u8, u8); 2]; MAX_CELLS],
}

impl PdbSet {
    /// Builds every table of `partition`.
    pub fn build(partition: Partition) -> PdbSet {
        let tables = partition.tables().iter().map(|tiles| PatternDb::build(partition.side(), tiles)).collect();
        PdbSet::from_tables(partition, tables)
    }

    /// Assembles tables built (or loaded) one by one, in the partition's order.
    ///
    /// # Panics
    /// If the tables are not the partition's, or a group turns a table
    /// whose value depends on the blank's goal cell by a symmetry that moves
    /// that cell: a caller bug.
    pub(crate) fn from_tables(partition: Partition, tables: Vec<PatternDb>) -> PdbSet {
        let side = partition.side();
        let expected = partition.tables();
        assert_eq!(tables.len(), expected.len());
        for (table, tiles) in tables.iter().zip(&expected) {
            assert_eq!(table.tiles(), &tiles[..]);
            assert_eq!(table.side(), side);
        }
        let transpose = |cell: u8| Symmetry::Transpose.apply(side, cell);
        let groups = partition.groups();
        let group_tiles = partition.group_tiles();
        let mut views = Vec::with_capacity(2 * groups.len());
        for reflected in [false, true] {
            for (group, tiles) in groups.iter().zip(&group_tiles) {
                let moves_goal_blank = group.symmetry.apply(side, 0) != 0;
                assert!(!(moves_goal_blank && tables[group.table].goal_blank_matters()), "{group:?}");
                let mut cell_map = [0u8; MAX_CELLS];
                for cell in 0..side * side {
                    let seen = if reflected { transpose(cell) } else { cell };
                    cell_map[usize::from(cell)] = group.symmetry.apply(side, seen);
                }
                let tiles = if reflected { tiles.iter().map(|&tile| transpose(tile)).collect() } else { tiles.clone() };
                views.push(View { table: group.table, tiles, cell_map });
            }
        }
        let mut slots = [[(u8::MAX, u8::MAX); 2]; MAX_CELLS];
        for (v, view) in views.iter().enumerate() {
            let kind = usize::from(v >= groups.len());
            for (slot, &tile) in view.tiles.iter().enumerate() {
                slots[usize::from(tile)][kind] = (v as u8, slot as u8);
            }
        }
        PdbSet { partition, side, tables, views, slots }
    }

    pub(crate) fn partition(&self) -> Partition {
        self.partition
    }
    pub(crate) fn side(&self) -> u8 {
        self.side
    }
    pub(crate) fn tables(&self) -> &[PatternDb] {
        &self.tables
    }
    /// The regular views (one per group), then the reflected ones.
    pub(crate) fn views(&self) -> &[View] {
        &self.views
    }
    /// The (view, slot) of `tile` (not the blank) among the regular views
    /// (`reflected` false) or the reflected ones.
    pub(crate) fn slot_of(&self, tile: u8, reflected: bool) -> (usize, usize) {
        let (view, slot) = self.slots[usize::from(tile)][usize::from(reflected)];
        (usize::from(view), usize::from(slot))
    }

    /// The most tiles any table has.
    pub(crate) fn max_group_tiles(&self) -> usize {
        self.tables.iter().map(|table| table.tiles().len()).max().unwrap_or(0)
    }

    /// One view's value on a board whose tile `t` stands on `where_is[t]`.
    #[cfg(test)]
    pub(crate) fn view_value(&self, view: &View, where_is: &[u8; MAX_CELLS]) -> u8 {
        let mut positions = [0u8; MAX_GROUP_TILES];
        for (slot, &tile) in view.tiles.iter().enumerate() {
            positions[slot] = view.cell_map[usize::from(where_is[usize::from(tile)])];
        }
        self.tables[view.table].lookup(&positions[..view.tiles.len()])
    }

    /// The heuristic of a whole board: the larger of the summed bounds on
    /// the board and on its reflection.
    #[cfg(test)]
    pub(crate) fn heuristic(&self, board: &Board) -> u32 {
        let (regular, reflected) = self.sums(board);
        regular.max(reflected)
    }

    /// The summed bounds of a whole board, on it and on its reflection.
    #[cfg(test)]
    pub(crate) fn sums(&self, board: &Board) -> (u32, u32) {
        let n = usize::from(self.side) * usize::from(self.side);
        let mut where_is = [0u8; MAX_CELLS];
        for cell in 0..n {
            where_is[usize::from(board[cell])] = cell as u8;
        }
        let groups = self.views.len() / 2;
        let sum = |views: &[View]| views.iter().map(|view| u32::from(self.view_value(view, &where_is))).sum::<u32>();
        (sum(&self.views[..groups]), sum(&self.views[groups..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::slide::{Goal, goal_board};
    use crate::rng::GameRng;

    #[test]
    fn rank_is_a_bijection_onto_its_range() {
        for (n, k) in [(9u32, 4usize), (16, 3)] {
            let total = n_placements(n as usize, k);
            let mut positions = [0u8; 8];
            // rank(unrank(i)) = i for every i in range, and unrank gives k
            // distinct cells: together a bijection onto the placements.
            for index in 0..total {
                unrank(index, n, &mut positions[..k]);
                let mut sorted = positions[..k].to_vec();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(sorted.len(), k, "distinct cells");
                assert!(sorted.iter().all(|&cell| u32::from(cell) < n));
                assert_eq!(rank(&positions[..k], n), index);
            }
        }
    }

    #[test]
    fn the_padded_rank_equals_the_plain_one() {
        fn check<const K: usize>(n: u32, k: usize, rng: &mut GameRng) {
            let weights = rank_weights::<K>(n, k);
            let total = n_placements(n as usize, k);
            for _ in 0..2000 {
                let index = rng.below(total as u32) as usize;
                let mut padded = [K as u8; K];
                unrank(index, n, &mut padded[..k]);
                assert_eq!(rank_padded(&padded, &weights), index, "{k} of {n} in {K} slots");
            }
        }
        let mut rng = GameRng::from_seed(3);
        check::<4>(9, 4, &mut rng);
        check::<6>(16, 3, &mut rng);
        check::<6>(25, 6, &mut rng);
        check::<8>(16, 8, &mut rng);
        check::<8>(16, 7, &mut rng);
    }

    #[test]
    fn the_goal_has_heuristic_zero_and_one_move_away_at_most_one() {
        let set = PdbSet::build(Partition::P44);
        let goal = goal_board(3, Goal::BlankFirst);
        assert_eq!(set.heuristic(&goal), 0);
        let mut moved = goal;
        moved.swap(0, 1);
        assert_eq!(set.heuristic(&moved), 1);
        assert_eq!(Partition::parse("6-6-3"), Some(Partition::P663));
        let from_bytes = PatternDb::from_entries(3, &[1, 2, 3, 4], set.tables()[0].entries().to_vec()).unwrap();
        assert_eq!(&from_bytes, &set.tables()[0]);
        assert!(PatternDb::from_entries(3, &[1, 2, 3, 4], vec![0; 10]).is_err());
    }

    /// A table turned by a symmetry gives the value of the table built for
    /// the turned group, placement by placement: what lets two tables serve
    /// the 24-puzzle's four groups. Checked on groups placed like the
    /// 24-puzzle's second one (a block in the top-right corner), on 4×4 and
    /// on 5×5 (three of its six tiles), and their quarter and half turns.
    #[test]
    fn a_turned_table_equals_the_table_of_the_turned_group() {
        for (side, tiles) in [(4u8, &[2u8, 3, 6, 7][..]), (5, &[3, 4, 8][..])] {
            let n = side * side;
            let table = PatternDb::build(side, tiles);
            assert!(!table.goal_blank_matters());
            for symmetry in [Symmetry::Rot180, Symmetry::Rot90] {
                let turned_tiles: Vec<u8> = table
                    .tiles()
                    .iter()
                    .map(|&home| (1..n).find(|&tile| symmetry.apply(side, tile) == home).unwrap())
                    .collect();
                let turned = PatternDb::build(side, &turned_tiles);
                let mut positions = vec![0u8; tiles.len()];
                for index in 0..turned.entries().len() {
                    unrank(index, u32::from(n), &mut positions);
                    let seen: Vec<u8> = positions.iter().map(|&cell| symmetry.apply(side, cell)).collect();
                    assert_eq!(turned.entries()[index], table.lookup(&seen), "{symmetry:?} on {side}×{side}");
                }
            }
        }
        // The blank's goal cell is walled off by tiles 1 and 4 at home.
        assert!(PatternDb::build(4, &[1, 4, 5]).goal_blank_matters());
    }

    /// The reflected sum of a board is the regular sum of the board
    /// reflected about the main diagonal (tile `t` on cell `c` becomes tile
    /// `T(t)` on cell `T(c)`), on random 8- and 15-puzzle boards.
    #[test]
    fn the_reflected_sum_is_the_sum_on_the_reflected_board() {
        let mut rng = GameRng::from_seed(7);
        for partition in [Partition::P44, Partition::P555] {
            let set = PdbSet::build(partition);
            let side = partition.side();
            let n = usize::from(side) * usize::from(side);
            let mut differ = 0;
            for _ in 0..300 {
                let mut board = goal_board(side, Goal::BlankFirst);
                for i in (1..n).rev() {
                    board.swap(i, rng.below(i as u32 + 1) as usize);
                }
                let mut reflected = board;
                for cell in 0..n as u8 {
                    let to = Symmetry::Transpose.apply(side, cell);
                    reflected[usize::from(to)] = Symmetry::Transpose.apply(side, board[usize::from(cell)]);
                }
                let (regular, by_view) = set.sums(&board);
                assert_eq!(by_view, set.sums(&reflected).0, "{:?}", &board[..n]);
                assert_eq!(regular, set.sums(&reflected).1);
                differ += usize::from(regular != by_view);
            }
            assert!(differ > 0, "{}: the two sums are not the same lookup", partition.name());
        }
    }

    #[test]
    fn the_24_puzzle_set_has_two_tables_and_eight_views() {
        // Tables with every entry 0 stand in for the real ones (built in minutes).
        let tables = Partition::P6666
            .tables()
            .iter()
            .map(|tiles| PatternDb::from_entries(5, tiles, vec![0; n_placements(25, 6)]).unwrap())
            .collect();
        let set = PdbSet::from_tables(Partition::P6666, tables);
        assert_eq!((set.tables().len(), set.views().len(), set.max_group_tiles()), (2, 8, 6));
        for tile in 1..25u8 {
            let (regular, slot) = set.slot_of(tile, false);
            assert_eq!(set.views()[regular].tiles[slot], tile);
            let (reflected, slot) = set.slot_of(tile, true);
            assert!(reflected >= 4);
            assert_eq!(set.views()[reflected].tiles[slot], tile);
        }
        // The reflected view of group 0 gets tile 5 where the regular one gets tile 1.
        assert_eq!(set.views()[4].tiles[0], 5);
    }
}
