//! Additive pattern databases for the blank-first goal: the tile partitions
//! (8-puzzle 4-4, 15-puzzle 6-6-3, 5-5-5 and 7-8, 24-puzzle 6-6-6-6), the
//! breadth-first build over each pattern's abstract space, the perfect hash
//! of a pattern's tile positions, and the [`PdbSet`] lookups IDA* uses.
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
//! states each, four tables) the build ignores the blank instead: a group tile may step onto any cell not held
//! by another group tile. That bound is weaker but still additive.
//!
//! No file I/O here: `src/pdb_cache.rs` saves and loads the tables.

#[cfg(test)]
use super::Board;
use super::{Dir, MAX_CELLS, neighbour};
use crate::plan::{Budget, PlanError};
use crate::progress::Progress;

/// States settled between two polls of the budget (and two updates of the
/// progress counter) in a build: about a hundredth of a second of work, so a
/// cancelled build stops at once while the inner loop stays a plain loop.
const POLL_EVERY: u32 = 1 << 16;

/// Value of an entry the build never reached (no valid placement has it).
const UNSEEN: u8 = u8::MAX;

/// A named partition of the tiles into disjoint groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Partition {
    /// 8-puzzle: {1,2,3,4} and {5,6,7,8}.
    P44,
    /// 15-puzzle: the left two columns (6 tiles), the right two columns
    /// without the bottom row (6), and the rest (3).
    P663,
    /// 15-puzzle: three groups of five.
    P555,
    /// 15-puzzle: the top half (7 tiles) and the bottom half (8). Its 8-tile
    /// table has 16!/8! ≈ 5.2·10⁸ entries and its blank-aware build scans
    /// 8.3·10⁹ states (see `build_with_blank_by_scan`): built only on
    /// request.
    P78,
    /// 24-puzzle: four groups of six (built without the blank: see
    /// [`Partition::blank_aware`]).
    P6666,
}

impl Partition {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Partition::P44 => "4-4",
            Partition::P663 => "6-6-3",
            Partition::P555 => "5-5-5",
            Partition::P78 => "7-8",
            Partition::P6666 => "6-6-6-6",
        }
    }

    pub fn parse(name: &str) -> Option<Partition> {
        [Partition::P44, Partition::P663, Partition::P555, Partition::P78, Partition::P6666]
            .into_iter()
            .find(|partition| partition.name() == name)
    }

    /// The board side it partitions.
    pub fn side(self) -> u8 {
        match self {
            Partition::P44 => 3,
            Partition::P663 | Partition::P555 | Partition::P78 => 4,
            Partition::P6666 => 5,
        }
    }

    /// The default partition for a board side.
    pub fn default_for(side: u8) -> Partition {
        match side {
            3 => Partition::P44,
            4 => Partition::P663,
            _ => Partition::P6666,
        }
    }

    /// The groups, each a list of tiles (the blank-first goal: tile `t`
    /// belongs on cell `t`).
    pub(crate) fn groups(self) -> Vec<Vec<u8>> {
        match self {
            Partition::P44 => vec![vec![1, 2, 3, 4], vec![5, 6, 7, 8]],
            Partition::P663 => vec![vec![1, 4, 5, 8, 9, 12], vec![2, 3, 6, 7, 10, 11], vec![13, 14, 15]],
            Partition::P555 => vec![vec![1, 4, 5, 8, 9], vec![2, 3, 6, 7, 11], vec![10, 12, 13, 14, 15]],
            Partition::P78 => vec![vec![1, 2, 3, 4, 5, 6, 7], vec![8, 9, 10, 11, 12, 13, 14, 15]],
            Partition::P6666 => vec![
                vec![1, 2, 5, 6, 10, 11],
                vec![3, 4, 7, 8, 9, 14],
                vec![15, 16, 17, 20, 21, 22],
                vec![12, 13, 18, 19, 23, 24],
            ],
        }
    }

    /// Whether a group of `group_len` tiles is built with the blank's
    /// position (stronger) or without it: with it for every 8- and
    /// 15-puzzle group (the largest, the 8-tile group of 7-8, has 8.3·10⁹
    /// (placement, blank) states: a byte each, 8.3 GB during its build) and
    /// for larger boards only when the space has at most 2³⁰ states, which
    /// no 6-tile 24-puzzle group meets (3.2·10⁹ states each, four tables).
    pub(crate) fn blank_aware(self, group_len: usize) -> bool {
        let cells = usize::from(self.side()) * usize::from(self.side());
        self.side() <= 4 || n_placements(cells, group_len).saturating_mul(cells) <= 1 << 30
    }
}

/// One group's table, indexed by [`rank`].
#[derive(Clone, PartialEq, Eq)]
pub struct PatternDb {
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

/// Neighbour cells by direction, `u8::MAX` off the board.
fn move_table(side: u8) -> [[u8; 4]; MAX_CELLS] {
    let mut table = [[u8::MAX; 4]; MAX_CELLS];
    for cell in 0..side * side {
        for dir in Dir::ALL {
            if let Some(next) = neighbour(side, cell, dir) {
                table[usize::from(cell)][usize::from(dir.code())] = next;
            }
        }
    }
    table
}

/// Counts settled states into a [`Progress`] in batches and polls the
/// budget once per batch.
struct Ticker<'a> {
    budget: &'a Budget,
    progress: &'a Progress,
    pending: u32,
}

impl Ticker<'_> {
    /// Adds `states` settled states; `Err` once the budget has run out.
    #[inline]
    fn settled(&mut self, states: u32) -> Result<(), PlanError> {
        self.pending += states;
        if self.pending < POLL_EVERY {
            return Ok(());
        }
        self.poll()
    }

    /// Publishes the count and checks the budget.
    fn poll(&mut self) -> Result<(), PlanError> {
        self.flush();
        self.budget.exhausted().map_or(Ok(()), Err)
    }

    fn flush(&mut self) {
        self.progress.advance(u64::from(self.pending));
        self.pending = 0;
    }
}

impl PatternDb {
    /// Builds the table for `tiles` on a `side`×`side` board by breadth-first
    /// search from the goal (see the module docs for the two abstractions).
    pub fn build(side: u8, tiles: &[u8], blank_aware: bool) -> PatternDb {
        PatternDb::build_within(side, tiles, blank_aware, &Budget::unlimited(), &Progress::default())
            .expect("an unlimited budget never runs out")
    }

    /// [`PatternDb::build`], stopping with the budget's error once it runs
    /// out (it is polled every few thousand states) and counting the states
    /// settled so far in `progress` (out of [`PatternDb::build_states`]).
    pub fn build_within(
        side: u8,
        tiles: &[u8],
        blank_aware: bool,
        budget: &Budget,
        progress: &Progress,
    ) -> Result<PatternDb, PlanError> {
        let n = usize::from(side) * usize::from(side);
        let mut ticker = Ticker { budget, progress, pending: 0 };
        let entries = if !blank_aware {
            build_without_blank(side, tiles, &mut ticker)
        } else if n_placements(n, tiles.len()) * n <= 1 << 30 {
            build_with_blank(side, tiles, &mut ticker)
        } else {
            build_with_blank_by_scan(side, tiles, &mut ticker)
        };
        ticker.flush();
        Ok(PatternDb { side, tiles: tiles.to_vec(), entries: entries? })
    }

    /// The states a build of `n_tiles` tiles on a `side`×`side` board
    /// settles, each once: placements times the cells left for the blank
    /// when it knows the blank, else placements. What
    /// [`PatternDb::build_within`] counts towards.
    pub fn build_states(side: u8, n_tiles: usize, blank_aware: bool) -> u64 {
        let n = usize::from(side) * usize::from(side);
        let placements = n_placements(n, n_tiles) as u64;
        if blank_aware { placements * (n - n_tiles) as u64 } else { placements }
    }

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

    pub fn side(&self) -> u8 {
        self.side
    }
    pub fn tiles(&self) -> &[u8] {
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

/// 0-1 BFS over (placement, blank cell), indexed `rank * n + blank`; the
/// result is the minimum over blank cells.
fn build_with_blank(side: u8, tiles: &[u8], ticker: &mut Ticker) -> Result<Vec<u8>, PlanError> {
    let n = usize::from(side) * usize::from(side);
    let k = tiles.len();
    let moves = move_table(side);
    let n_ranks = n_placements(n, k);
    let mut dist = vec![UNSEEN; n_ranks * n];
    let mut positions = [0u8; MAX_CELLS];
    positions[..k].copy_from_slice(tiles);
    let start = rank(&positions[..k], n as u32) * n;
    dist[start] = 0;
    let mut layer: Vec<u32> = vec![start as u32];
    let mut next_layer: Vec<u32> = Vec::new();
    let mut depth = 0u8;
    while !layer.is_empty() {
        let mut at = 0;
        while at < layer.len() {
            let state = layer[at] as usize;
            at += 1;
            if dist[state] != depth {
                continue; // reached more cheaply since it was queued
            }
            ticker.settled(1)?;
            let (placement, blank) = (state / n, state % n);
            unrank(placement, n as u32, &mut positions[..k]);
            for &next in &moves[blank] {
                if next == u8::MAX {
                    continue;
                }
                match positions[..k].iter().position(|&cell| cell == next) {
                    None => {
                        // The blank swaps with a tile outside the group: free.
                        let target = placement * n + usize::from(next);
                        if dist[target] > depth {
                            dist[target] = depth;
                            layer.push(target as u32);
                        }
                    }
                    Some(i) => {
                        positions[i] = blank as u8;
                        let target = rank(&positions[..k], n as u32) * n + usize::from(next);
                        positions[i] = next;
                        if dist[target] > depth + 1 {
                            dist[target] = depth + 1;
                            next_layer.push(target as u32);
                        }
                    }
                }
            }
        }
        layer.clear();
        std::mem::swap(&mut layer, &mut next_layer);
        depth += 1;
    }
    Ok(dist.chunks_exact(n).map(|by_blank| *by_blank.iter().min().expect("n > 0")).collect())
}

/// The blank-aware table without queues, for spaces too large for
/// [`build_with_blank`]'s `u32` state indices and per-layer queues: one byte
/// per (placement, blank cell), indexed `rank * n + blank`, and one scan of
/// the whole array per depth.
///
/// Moves that swap the blank with a tile outside the group cost 0 and are
/// reversible, so every blank cell in one connected region of cells free of
/// group tiles has the same distance. The pass for depth `d` visits each
/// placement holding some state at `d`: it first gives every cell of those
/// states' regions the value `d` (a region may hold states set to `d + 1`
/// earlier in the same pass, which are lowered), then moves each group tile
/// next to a `d` cell into it, setting the states it reaches, if unseen, to
/// `d + 1`. Those are never expanded in the pass for `d`, which looks only
/// at bytes equal to `d`. The result is the minimum over blank cells.
fn build_with_blank_by_scan(side: u8, tiles: &[u8], ticker: &mut Ticker) -> Result<Vec<u8>, PlanError> {
    let n = usize::from(side) * usize::from(side);
    let k = tiles.len();
    let moves = move_table(side);
    let mut neighbour_mask = [0u32; MAX_CELLS];
    for (cell, mask) in neighbour_mask.iter_mut().enumerate().take(n) {
        *mask = moves[cell].iter().filter(|&&next| next != u8::MAX).fold(0, |mask, &next| mask | 1 << next);
    }
    let n_ranks = n_placements(n, k);
    let mut dist = vec![UNSEEN; n_ranks * n];
    let mut positions = [0u8; MAX_CELLS];
    positions[..k].copy_from_slice(tiles);
    dist[rank(&positions[..k], n as u32) * n] = 0;
    let all_cells = (1u32 << n) - 1;
    let mut depth = 0u8;
    loop {
        let mut found = false;
        for placement in 0..n_ranks {
            // A pass over placements that hold nothing at `depth` settles
            // nothing, and may still take seconds: poll by placements too.
            if placement % POLL_EVERY as usize == 0 {
                ticker.poll()?;
            }
            let states = &dist[placement * n..(placement + 1) * n];
            if !states.contains(&depth) {
                continue;
            }
            found = true;
            unrank(placement, n as u32, &mut positions[..k]);
            let occupied = positions[..k].iter().fold(0u32, |mask, &cell| mask | 1 << cell);
            let free = all_cells & !occupied;
            let states = &mut dist[placement * n..(placement + 1) * n];
            // The regions of the blank cells at `depth`.
            let mut seeds = (0..n).filter(|&cell| states[cell] == depth).fold(0u32, |mask, cell| mask | 1 << cell);
            let mut at_depth = 0u32;
            while seeds != 0 {
                let mut region = 1u32 << seeds.trailing_zeros();
                loop {
                    let mut grown = region;
                    let mut rest = region;
                    while rest != 0 {
                        let cell = rest.trailing_zeros() as usize;
                        rest &= rest - 1;
                        grown |= neighbour_mask[cell] & free;
                    }
                    if grown == region {
                        break;
                    }
                    region = grown;
                }
                seeds &= !region;
                at_depth |= region;
            }
            // Every state settles at its depth in exactly one region fill.
            ticker.settled(at_depth.count_ones())?;
            let mut rest = at_depth;
            while rest != 0 {
                let cell = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                states[cell] = depth;
            }
            // One move of a group tile into a blank cell at `depth`.
            let mut rest = at_depth;
            while rest != 0 {
                let blank = rest.trailing_zeros() as u8;
                rest &= rest - 1;
                let mut tiles_next = neighbour_mask[usize::from(blank)] & occupied;
                while tiles_next != 0 {
                    let from = tiles_next.trailing_zeros() as u8;
                    tiles_next &= tiles_next - 1;
                    let i = positions[..k].iter().position(|&cell| cell == from).expect("occupied cell");
                    positions[i] = blank;
                    let target = rank(&positions[..k], n as u32) * n + usize::from(from);
                    positions[i] = from;
                    if dist[target] == UNSEEN {
                        dist[target] = depth + 1;
                    }
                }
            }
        }
        if !found {
            break;
        }
        depth += 1;
    }
    Ok(dist.chunks_exact(n).map(|by_blank| *by_blank.iter().min().expect("n > 0")).collect())
}

/// BFS over placements alone: a group tile steps onto any neighbouring cell
/// no other group tile holds.
fn build_without_blank(side: u8, tiles: &[u8], ticker: &mut Ticker) -> Result<Vec<u8>, PlanError> {
    let n = usize::from(side) * usize::from(side);
    let k = tiles.len();
    let moves = move_table(side);
    let mut dist = vec![UNSEEN; n_placements(n, k)];
    let mut positions = [0u8; MAX_CELLS];
    positions[..k].copy_from_slice(tiles);
    let start = rank(&positions[..k], n as u32);
    dist[start] = 0;
    let mut layer: Vec<u32> = vec![start as u32];
    let mut next_layer: Vec<u32> = Vec::new();
    let mut depth = 0u8;
    while !layer.is_empty() {
        for &placement in &layer {
            ticker.settled(1)?;
            unrank(placement as usize, n as u32, &mut positions[..k]);
            let occupied = positions[..k].iter().fold(0u32, |mask, &cell| mask | 1 << cell);
            for i in 0..k {
                let from = positions[i];
                for &next in &moves[usize::from(from)] {
                    if next == u8::MAX || occupied & (1 << next) != 0 {
                        continue;
                    }
                    positions[i] = next;
                    let target = rank(&positions[..k], n as u32);
                    if dist[target] == UNSEEN {
                        dist[target] = depth + 1;
                        next_layer.push(target as u32);
                    }
                }
                positions[i] = from;
            }
        }
        layer.clear();
        std::mem::swap(&mut layer, &mut next_layer);
        depth += 1;
    }
    Ok(dist)
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
    pub fn side(&self) -> u8 {
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

    /// The true pattern distance of one placement by a direct search, the
    /// plain way: Dijkstra over (positions, blank) states from every blank
    /// cell at once (the table keeps the minimum over the blank's cells) to
    /// the group at home with the blank on cell 0.
    fn direct_pattern_distance(side: u8, tiles: &[u8], target: &[u8], blank_aware: bool) -> u8 {
        use std::cmp::Reverse;
        use std::collections::{BTreeMap, BinaryHeap};
        let n = side * side;
        let k = tiles.len();
        let starts: Vec<u8> =
            if blank_aware { (0..n).filter(|cell| !target.contains(cell)).collect() } else { vec![u8::MAX] };
        let mut best: BTreeMap<(Vec<u8>, u8), u8> = BTreeMap::new();
        let mut open = BinaryHeap::new();
        for blank in starts {
            best.insert((target.to_vec(), blank), 0);
            open.push(Reverse((0u8, target.to_vec(), blank)));
        }
        while let Some(Reverse((cost, positions, blank))) = open.pop() {
            if best.get(&(positions.clone(), blank)).is_some_and(|&known| known < cost) {
                continue;
            }
            // The real goal has the blank on cell 0.
            if positions == tiles && (!blank_aware || blank == 0) {
                return cost;
            }
            let mut push = |positions: Vec<u8>, blank: u8, cost: u8| {
                let key = (positions.clone(), blank);
                if best.get(&key).is_none_or(|&old| cost < old) {
                    best.insert(key, cost);
                    open.push(Reverse((cost, positions, blank)));
                }
            };
            if blank_aware {
                for dir in Dir::ALL {
                    let Some(next) = neighbour(side, blank, dir) else { continue };
                    match positions.iter().position(|&cell| cell == next) {
                        None => push(positions.clone(), next, cost),
                        Some(i) => {
                            let mut moved = positions.clone();
                            moved[i] = blank;
                            push(moved, next, cost + 1);
                        }
                    }
                }
            } else {
                for i in 0..k {
                    for dir in Dir::ALL {
                        let Some(next) = neighbour(side, positions[i], dir) else { continue };
                        if !positions.contains(&next) {
                            let mut moved = positions.clone();
                            moved[i] = next;
                            push(moved, blank, cost + 1);
                        }
                    }
                }
            }
        }
        u8::MAX
    }

    #[test]
    fn table_entries_match_a_direct_search_on_sampled_placements() {
        let mut rng = GameRng::from_seed(9);
        for (side, tiles, blank_aware) in
            [(3u8, vec![1u8, 2, 3, 4], true), (3, vec![5, 6, 7, 8], false), (4, vec![13, 14, 15], true)]
        {
            let table = PatternDb::build(side, &tiles, blank_aware);
            let n = u32::from(side) * u32::from(side);
            assert_eq!(table.entries().len(), n_placements(n as usize, tiles.len()));
            assert!(table.entries().iter().all(|&value| value != UNSEEN));
            let mut positions = [0u8; 8];
            for _ in 0..12 {
                let index = rng.below(table.entries().len() as u32) as usize;
                unrank(index, n, &mut positions[..tiles.len()]);
                let direct = direct_pattern_distance(side, &tiles, &positions[..tiles.len()], blank_aware);
                assert_eq!(table.entries()[index], direct, "{tiles:?} at {:?}", &positions[..tiles.len()]);
            }
        }
    }

    #[test]
    fn the_scanning_build_equals_the_queue_build() {
        for (side, tiles) in
            [(3u8, vec![1u8, 2, 3, 4]), (3, vec![5, 6, 7, 8]), (4, vec![13, 14, 15]), (4, vec![1, 4, 5, 8])]
        {
            let build = |scan: bool| {
                let (budget, progress) = (Budget::unlimited(), Progress::default());
                let mut ticker = Ticker { budget: &budget, progress: &progress, pending: 0 };
                let entries = if scan {
                    build_with_blank_by_scan(side, &tiles, &mut ticker)
                } else {
                    build_with_blank(side, &tiles, &mut ticker)
                };
                ticker.flush();
                (entries.unwrap(), progress.done())
            };
            let (scanned, scan_count) = build(true);
            let (queued, queue_count) = build(false);
            assert_eq!(scanned, queued, "{side}: {tiles:?}");
            let states = PatternDb::build_states(side, tiles.len(), true);
            assert_eq!((scan_count, queue_count), (states, states), "each state counted once: {side}: {tiles:?}");
        }
    }

    #[test]
    fn builds_count_every_state_once_and_stop_when_cancelled() {
        // Both spaces are larger than one poll interval.
        for (tiles, blank_aware) in [(&[1u8, 2, 3, 4][..], true), (&[1, 2, 3, 4, 5][..], false)] {
            let progress = Progress::default();
            PatternDb::build_within(4, tiles, blank_aware, &Budget::unlimited(), &progress).unwrap();
            let states = PatternDb::build_states(4, tiles.len(), blank_aware);
            assert!(states > u64::from(POLL_EVERY));
            assert_eq!(progress.done(), states, "blank aware: {blank_aware}");
            let cancelled = Budget::new(None, Some(std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true))));
            let progress = Progress::default();
            let result = PatternDb::build_within(4, tiles, blank_aware, &cancelled, &progress);
            assert_eq!(result, Err(PlanError::Cancelled));
            assert!(progress.done() <= u64::from(POLL_EVERY) + 16, "stopped at the first poll: {}", progress.done());
        }
    }

    #[test]
    fn the_blank_aware_bound_is_never_below_the_blind_one() {
        let aware = PatternDb::build(3, &[1, 2, 3, 4], true);
        let blind = PatternDb::build(3, &[1, 2, 3, 4], false);
        assert!(aware.entries().iter().zip(blind.entries()).all(|(a, b)| a >= b));
        assert!(aware.entries().iter().zip(blind.entries()).any(|(a, b)| a > b));
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

    #[test]
    fn partitions_cover_every_tile_once() {
        for partition in [Partition::P44, Partition::P663, Partition::P555, Partition::P78, Partition::P6666] {
            let mut tiles: Vec<u8> = partition.groups().concat();
            tiles.sort_unstable();
            let n = partition.side() * partition.side();
            assert_eq!(tiles, (1..n).collect::<Vec<_>>(), "{}", partition.name());
        }
    }
}
