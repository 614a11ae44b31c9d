//! The breadth-first builds of one table over its abstract space (see the
//! folder's docs): by queues (a 0-1 BFS) where the space has at most 2³⁰
//! (placement, blank) states, else by depth-by-depth scans of two bits per
//! state. Each polls the budget and counts its settled states.

use super::{PatternDb, UNSEEN, n_placements, rank, unrank};
use crate::game::slide::{Dir, MAX_CELLS, neighbour};
use crate::plan::{Budget, PlanError};
use crate::progress::Progress;

/// States settled between two polls of the budget (and two updates of the
/// progress counter) in a build: about a hundredth of a second of work, so a
/// cancelled build stops at once while the inner loop stays a plain loop.
const POLL_EVERY: u32 = 1 << 16;

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
    /// search from the goal (see the module docs for the abstraction).
    pub(crate) fn build(side: u8, tiles: &[u8]) -> PatternDb {
        PatternDb::build_within(side, tiles, &Budget::unlimited(), &Progress::default())
            .expect("an unlimited budget never runs out")
    }

    /// [`PatternDb::build`], stopping with the budget's error once it runs
    /// out (it is polled every few thousand states) and counting the states
    /// settled so far in `progress` (out of [`PatternDb::build_states`]).
    pub(crate) fn build_within(
        side: u8,
        tiles: &[u8],
        budget: &Budget,
        progress: &Progress,
    ) -> Result<PatternDb, PlanError> {
        let n = usize::from(side) * usize::from(side);
        let mut ticker = Ticker { budget, progress, pending: 0 };
        let entries = if n_placements(n, tiles.len()) * n <= 1 << 30 {
            build_with_blank(side, tiles, &mut ticker)
        } else if n <= 16 {
            build_by_scan::<u32>(side, tiles, &mut ticker)
        } else {
            build_by_scan::<u64>(side, tiles, &mut ticker)
        };
        ticker.flush();
        Ok(PatternDb { side, tiles: tiles.to_vec(), entries: entries? })
    }

    /// The states a build of `n_tiles` tiles on a `side`×`side` board
    /// settles, each once: placements times the cells left for the blank.
    /// What [`PatternDb::build_within`] counts towards.
    pub(crate) fn build_states(side: u8, n_tiles: usize) -> u64 {
        let n = usize::from(side) * usize::from(side);
        n_placements(n, n_tiles) as u64 * (n - n_tiles) as u64
    }

    /// The memory a build of `n_tiles` tiles on a `side`×`side` board takes
    /// at its peak, in bytes (the table itself included).
    pub(crate) fn build_bytes(side: u8, n_tiles: usize) -> u64 {
        let n = usize::from(side) * usize::from(side);
        let placements = n_placements(n, n_tiles) as u64;
        if placements * n as u64 <= 1 << 30 {
            placements * n as u64 + placements
        } else {
            let word = if n <= 16 { 4 } else { 8 };
            placements * word + placements
        }
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

/// One word of two-bit fields, one field per blank cell, for each placement
/// of [`build_by_scan`]: `u32` for boards of up to 16 cells, `u64` for 25.
trait StateWord: Copy + Default {
    fn get(self) -> u64;
    fn set(value: u64) -> Self;
}

impl StateWord for u32 {
    #[inline]
    fn get(self) -> u64 {
        u64::from(self)
    }
    #[inline]
    fn set(value: u64) -> u32 {
        value as u32
    }
}

impl StateWord for u64 {
    #[inline]
    fn get(self) -> u64 {
        self
    }
    #[inline]
    fn set(value: u64) -> u64 {
        value
    }
}

/// A state's field in [`build_by_scan`]: not reached yet, or settled.
const FIELD_UNSEEN: u64 = 0;
const FIELD_DONE: u64 = 1;

/// The blank-aware table without queues, for spaces too large for
/// [`build_with_blank`]'s `u32` state indices and per-layer queues: two
/// bits per (placement, blank cell) state, one word per placement, and one
/// scan of the whole array per depth. A 6-tile group of the 24-puzzle
/// (127,512,000 placements, a `u64` each) takes 1.0 GB; the 8-tile group of
/// the 15-puzzle (518,918,400 placements, a `u32` each) 2.1 GB.
///
/// A field is unseen, done, or waiting at the depth of the pass (`current`)
/// or at the next one (`next`); the two waiting codes swap roles from one
/// depth to the next (`2 | depth & 1` is current), so the states a pass
/// finds for the next depth need no second scan to be relabelled.
///
/// Moves that swap the blank with a tile outside the group cost 0 and are
/// reversible, so every blank cell in one connected region of cells free of
/// group tiles has the same distance. The pass for depth `d` visits each
/// placement holding some state at `d`: it settles every cell of those
/// states' regions at `d` (a region may hold states found for `d + 1`
/// earlier in the same pass: they are lowered), then moves each group tile
/// next to one of those cells into it, marking the states it reaches, if
/// unseen, for `d + 1`. The table's entry for a placement is the depth of
/// the pass that first settles one of its states: the minimum over the
/// blank's cells.
fn build_by_scan<W: StateWord>(side: u8, tiles: &[u8], ticker: &mut Ticker) -> Result<Vec<u8>, PlanError> {
    let n = usize::from(side) * usize::from(side);
    let k = tiles.len();
    let moves = move_table(side);
    let mut neighbour_mask = [0u32; MAX_CELLS];
    for (cell, mask) in neighbour_mask.iter_mut().enumerate().take(n) {
        *mask = moves[cell].iter().filter(|&&next| next != u8::MAX).fold(0, |mask, &next| mask | 1 << next);
    }
    // Bit 0 of every field.
    let low_bits: u64 = (0..n).fold(0, |mask, cell| mask | 1 << (2 * cell));
    let n_ranks = n_placements(n, k);
    let mut fields = vec![W::default(); n_ranks];
    let mut entries = vec![UNSEEN; n_ranks];
    let mut positions = [0u8; MAX_CELLS];
    positions[..k].copy_from_slice(tiles);
    let start = rank(&positions[..k], n as u32);
    fields[start] = W::set(2); // depth 0 is current: code 2
    let all_cells = (1u32 << n) - 1;
    let mut depth = 0u8;
    loop {
        let current = 2 | u64::from(depth & 1);
        let next = current ^ 1;
        let mut found = false;
        for placement in 0..n_ranks {
            // A pass over placements that hold nothing at `depth` settles
            // nothing, and may still take seconds: poll by placements too.
            if placement % POLL_EVERY as usize == 0 {
                ticker.poll()?;
            }
            let word = fields[placement].get();
            // Fields equal to `current` are those where word ^ pattern is 00.
            let differs = word ^ (low_bits * current);
            let at_depth_fields = !(differs | differs >> 1) & low_bits;
            if at_depth_fields == 0 {
                continue;
            }
            found = true;
            unrank(placement, n as u32, &mut positions[..k]);
            let occupied = positions[..k].iter().fold(0u32, |mask, &cell| mask | 1 << cell);
            let free = all_cells & !occupied;
            // The regions of the blank cells at `depth`.
            let mut seeds = cells_of_fields(at_depth_fields);
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
            let settled_fields = fields_of_cells(at_depth);
            let word = (word & !(settled_fields * 3)) | (settled_fields * FIELD_DONE);
            fields[placement] = W::set(word);
            if entries[placement] == UNSEEN {
                entries[placement] = depth;
            }
            // One move of a group tile into a blank cell at `depth`.
            let mut slot_at = [0u8; MAX_CELLS];
            for (slot, &cell) in positions[..k].iter().enumerate() {
                slot_at[usize::from(cell)] = slot as u8;
            }
            let mut rest = at_depth;
            while rest != 0 {
                let blank = rest.trailing_zeros() as u8;
                rest &= rest - 1;
                let mut tiles_next = neighbour_mask[usize::from(blank)] & occupied;
                while tiles_next != 0 {
                    let from = tiles_next.trailing_zeros() as u8;
                    tiles_next &= tiles_next - 1;
                    let i = usize::from(slot_at[usize::from(from)]);
                    positions[i] = blank;
                    let target = rank(&positions[..k], n as u32);
                    positions[i] = from;
                    let shift = 2 * u32::from(from);
                    let target_word = fields[target].get();
                    if (target_word >> shift) & 3 == FIELD_UNSEEN {
                        fields[target] = W::set(target_word | next << shift);
                    }
                }
            }
        }
        if !found {
            break;
        }
        depth += 1;
    }
    Ok(entries)
}

/// The cells whose fields have bit 0 set in `fields` (bit `2c` for cell `c`).
#[inline]
fn cells_of_fields(mut fields: u64) -> u32 {
    let mut cells = 0u32;
    while fields != 0 {
        cells |= 1 << (fields.trailing_zeros() / 2);
        fields &= fields - 1;
    }
    cells
}

/// Bit 0 of the field of every cell in `cells`.
#[inline]
fn fields_of_cells(mut cells: u32) -> u64 {
    let mut fields = 0u64;
    while cells != 0 {
        fields |= 1 << (2 * cells.trailing_zeros());
        cells &= cells - 1;
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::GameRng;

    /// The true pattern distance of one placement by a direct search, the
    /// plain way: Dijkstra over (positions, blank) states from every blank
    /// cell at once (the table keeps the minimum over the blank's cells) to
    /// the group at home with the blank on cell 0.
    fn direct_pattern_distance(side: u8, tiles: &[u8], target: &[u8]) -> u8 {
        use std::cmp::Reverse;
        use std::collections::{BTreeMap, BinaryHeap};
        let n = side * side;
        let mut best: BTreeMap<(Vec<u8>, u8), u8> = BTreeMap::new();
        let mut open = BinaryHeap::new();
        for blank in (0..n).filter(|cell| !target.contains(cell)) {
            best.insert((target.to_vec(), blank), 0);
            open.push(Reverse((0u8, target.to_vec(), blank)));
        }
        while let Some(Reverse((cost, positions, blank))) = open.pop() {
            if best.get(&(positions.clone(), blank)).is_some_and(|&known| known < cost) {
                continue;
            }
            // The real goal has the blank on cell 0.
            if positions == tiles && blank == 0 {
                return cost;
            }
            let mut push = |positions: Vec<u8>, blank: u8, cost: u8| {
                let key = (positions.clone(), blank);
                if best.get(&key).is_none_or(|&old| cost < old) {
                    best.insert(key, cost);
                    open.push(Reverse((cost, positions, blank)));
                }
            };
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
        }
        u8::MAX
    }

    #[test]
    fn table_entries_match_a_direct_search_on_sampled_placements() {
        let mut rng = GameRng::from_seed(9);
        for (side, tiles) in [(3u8, vec![1u8, 2, 3, 4]), (3, vec![5, 6, 7, 8]), (4, vec![13, 14, 15])] {
            let table = PatternDb::build(side, &tiles);
            let n = u32::from(side) * u32::from(side);
            assert_eq!(table.entries().len(), n_placements(n as usize, tiles.len()));
            assert!(table.entries().iter().all(|&value| value != UNSEEN));
            let mut positions = [0u8; 8];
            for _ in 0..12 {
                let index = rng.below(table.entries().len() as u32) as usize;
                unrank(index, n, &mut positions[..tiles.len()]);
                let direct = direct_pattern_distance(side, &tiles, &positions[..tiles.len()]);
                assert_eq!(table.entries()[index], direct, "{tiles:?} at {:?}", &positions[..tiles.len()]);
            }
        }
    }

    #[test]
    fn the_scanning_builds_equal_the_queue_build() {
        for (side, tiles) in
            [(3u8, vec![1u8, 2, 3, 4]), (3, vec![5, 6, 7, 8]), (4, vec![13, 14, 15]), (4, vec![1, 4, 5, 8])]
        {
            let build = |how: u8| {
                let (budget, progress) = (Budget::unlimited(), Progress::default());
                let mut ticker = Ticker { budget: &budget, progress: &progress, pending: 0 };
                let entries = match how {
                    0 => build_with_blank(side, &tiles, &mut ticker),
                    1 => build_by_scan::<u32>(side, &tiles, &mut ticker),
                    _ => build_by_scan::<u64>(side, &tiles, &mut ticker),
                };
                ticker.flush();
                (entries.unwrap(), progress.done())
            };
            let (queued, queue_count) = build(0);
            let states = PatternDb::build_states(side, tiles.len());
            assert_eq!(queue_count, states, "each state counted once: {side}: {tiles:?}");
            for how in [1, 2] {
                let (scanned, scan_count) = build(how);
                assert_eq!(scanned, queued, "{side}: {tiles:?}");
                assert_eq!(scan_count, states, "each state counted once: {side}: {tiles:?}");
            }
        }
    }

    #[test]
    fn builds_count_every_state_once_and_stop_when_cancelled() {
        let tiles = [1u8, 2, 3, 4];
        let progress = Progress::default();
        PatternDb::build_within(4, &tiles, &Budget::unlimited(), &progress).unwrap();
        let states = PatternDb::build_states(4, tiles.len());
        assert!(states > u64::from(POLL_EVERY), "larger than one poll interval");
        assert_eq!(progress.done(), states);
        let cancelled = Budget::new(None, Some(std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true))));
        let progress = Progress::default();
        let result = PatternDb::build_within(4, &tiles, &cancelled, &progress);
        assert_eq!(result, Err(PlanError::Cancelled));
        assert!(progress.done() <= u64::from(POLL_EVERY) + 16, "stopped at the first poll: {}", progress.done());
        // The scanning build stops at its first poll too.
        let progress = Progress::default();
        let mut ticker = Ticker { budget: &cancelled, progress: &progress, pending: 0 };
        assert_eq!(build_by_scan::<u32>(4, &tiles, &mut ticker), Err(PlanError::Cancelled));
        assert_eq!(progress.done(), 0, "nothing settled before the first poll");
    }
}
