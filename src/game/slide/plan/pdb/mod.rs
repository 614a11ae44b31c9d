//! Additive pattern databases for the blank-first goal: one group's table
//! ([`PatternDb`]) with the perfect hash of its tiles' positions, and the
//! [`PdbSet`] of a partition's tables with the lookups IDA* uses. The
//! partitions are in `partition.rs`, the builds in `build.rs`.
//!
//! A pattern database for a group of tiles stores, for every placement of
//! those tiles, the fewest moves **of those tiles** needed to bring them
//! home. Only moves of a group's own tiles are counted, so the values of
//! disjoint groups add up to a lower bound of the whole distance (Korf &
//! Felner 2002). The build is "blank-aware": the abstract state is the
//! group's positions plus the blank's cell, moves that swap the blank with a
//! tile outside the group cost 0 and the others cost 1 (a 0-1 BFS), and the
//! stored value is the minimum over the blank's cells. Spaces beyond 2³⁰
//! states (the 8-tile group of the 15-puzzle's 7-8 split: 8.3·10⁹) are built
//! by depth-by-depth scans of a byte array instead of queues (see
//! `build_with_blank_by_scan`). For the 24-puzzle's 6-tile groups (3·10⁹
//! states each, four tables) the build ignores the blank instead: a group
//! tile may step onto any cell not held by another group tile. That bound is
//! weaker but still additive.
//!
//! No file I/O here: `src/pdb_cache.rs` saves and loads the tables.

mod build;
mod partition;

pub use partition::Partition;

#[cfg(test)]
use crate::game::slide::Board;
use crate::game::slide::MAX_CELLS;

/// Value of an entry the build never reached (no valid placement has it).
const UNSEEN: u8 = u8::MAX;

/// One group's table, indexed by [`rank`].
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

    /// The stored bound for the group's tiles on `positions` (in the order of
    /// [`PatternDb::tiles`]).
    #[inline]
    pub(crate) fn lookup(&self, positions: &[u8]) -> u8 {
        self.entries[rank(positions, u32::from(self.side) * u32::from(self.side))]
    }

    /// The stored bound for the group on a whole board.
    #[cfg(test)]
    pub(crate) fn lookup_board(&self, board: &Board) -> u8 {
        let n_cells = usize::from(self.side) * usize::from(self.side);
        let mut where_is = [0u8; MAX_CELLS];
        for cell in 0..n_cells {
            where_is[usize::from(board[cell])] = cell as u8;
        }
        let mut positions = [0u8; MAX_CELLS];
        for (i, &tile) in self.tiles.iter().enumerate() {
            positions[i] = where_is[usize::from(tile)];
        }
        self.lookup(&positions[..self.tiles.len()])
    }
}

/// The transposition about the main diagonal: cell (row, col) to (col, row).
/// It maps the blank-first goal to itself (tile `t` to tile `T(t)`), so a
/// board and its transpose are equally far from the goal, and the tables
/// looked up on the transposed board give a second admissible bound.
pub(crate) fn transpose_cell(side: u8, cell: u8) -> u8 {
    (cell % side) * side + cell / side
}

/// The tables of one partition, with what IDA* needs to update them tile by
/// tile: which group each tile is in and where in that group.
#[derive(Debug)]
pub struct PdbSet {
    partition: Partition,
    side: u8,
    groups: Vec<PatternDb>,
    /// `group_of[tile]`, `u8::MAX` for the blank.
    group_of: [u8; MAX_CELLS],
    /// `slot_of[tile]`: the tile's index in its group.
    slot_of: [u8; MAX_CELLS],
}

/// The sum of the group bounds, maximised with the sum on the transposed
/// board.
impl PdbSet {
    /// Builds every table of `partition`.
    pub fn build(partition: Partition) -> PdbSet {
        let groups = partition
            .groups()
            .iter()
            .map(|tiles| PatternDb::build(partition.side(), tiles, partition.blank_aware(tiles.len())))
            .collect();
        PdbSet::from_tables(partition, groups)
    }

    /// Assembles tables built (or loaded) one by one, in the partition's order.
    ///
    /// # Panics
    /// If the tables are not the partition's groups: a caller bug.
    pub(crate) fn from_tables(partition: Partition, groups: Vec<PatternDb>) -> PdbSet {
        let expected = partition.groups();
        assert_eq!(groups.len(), expected.len());
        let mut group_of = [u8::MAX; MAX_CELLS];
        let mut slot_of = [u8::MAX; MAX_CELLS];
        for (g, (table, tiles)) in groups.iter().zip(&expected).enumerate() {
            assert_eq!(table.tiles(), &tiles[..]);
            assert_eq!(table.side(), partition.side());
            for (slot, &tile) in tiles.iter().enumerate() {
                group_of[usize::from(tile)] = g as u8;
                slot_of[usize::from(tile)] = slot as u8;
            }
        }
        PdbSet { partition, side: partition.side(), groups, group_of, slot_of }
    }

    pub(crate) fn partition(&self) -> Partition {
        self.partition
    }
    pub(crate) fn side(&self) -> u8 {
        self.side
    }
    pub(crate) fn groups(&self) -> &[PatternDb] {
        &self.groups
    }
    /// The group of `tile` (not the blank).
    #[inline]
    pub(crate) fn group_of(&self, tile: u8) -> usize {
        usize::from(self.group_of[usize::from(tile)])
    }
    #[inline]
    pub(crate) fn slot_of(&self, tile: u8) -> usize {
        usize::from(self.slot_of[usize::from(tile)])
    }

    /// The heuristic of a whole board: the larger of the summed bounds on
    /// the board and on its transpose.
    #[cfg(test)]
    pub(crate) fn heuristic(&self, board: &Board) -> u32 {
        let n = usize::from(self.side) * usize::from(self.side);
        let mut transposed = [0u8; MAX_CELLS];
        for cell in 0..n as u8 {
            let tile = board[usize::from(cell)];
            transposed[usize::from(transpose_cell(self.side, cell))] = transpose_cell(self.side, tile);
        }
        let sum = |board: &Board| self.groups.iter().map(|table| u32::from(table.lookup_board(board))).sum::<u32>();
        sum(board).max(sum(&transposed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::slide::{Goal, goal_board};

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
    fn the_goal_has_heuristic_zero_and_one_move_away_at_most_one() {
        let set = PdbSet::build(Partition::P44);
        let goal = goal_board(3, Goal::BlankFirst);
        assert_eq!(set.heuristic(&goal), 0);
        let mut moved = goal;
        moved.swap(0, 1);
        assert_eq!(set.heuristic(&moved), 1);
        assert_eq!(Partition::parse("6-6-3"), Some(Partition::P663));
        let from_bytes = PatternDb::from_entries(3, &[1, 2, 3, 4], set.groups()[0].entries().to_vec()).unwrap();
        assert_eq!(&from_bytes, &set.groups()[0]);
        assert!(PatternDb::from_entries(3, &[1, 2, 3, 4], vec![0; 10]).is_err());
    }
}
