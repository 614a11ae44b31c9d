//! The breadth-first builds of one group's table over its abstract space
//! (see the folder's docs): with the blank by queues (a 0-1 BFS) or, for
//! spaces beyond 2³⁰ states, by depth-by-depth scans of a byte array; and
//! without the blank. Each polls the budget and counts its settled states.

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
    /// search from the goal (see the module docs for the two abstractions).
    pub(crate) fn build(side: u8, tiles: &[u8], blank_aware: bool) -> PatternDb {
        PatternDb::build_within(side, tiles, blank_aware, &Budget::unlimited(), &Progress::default())
            .expect("an unlimited budget never runs out")
    }

    /// [`PatternDb::build`], stopping with the budget's error once it runs
    /// out (it is polled every few thousand states) and counting the states
    /// settled so far in `progress` (out of [`PatternDb::build_states`]).
    pub(crate) fn build_within(
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
    pub(crate) fn build_states(side: u8, n_tiles: usize, blank_aware: bool) -> u64 {
        let n = usize::from(side) * usize::from(side);
        let placements = n_placements(n, n_tiles) as u64;
        if blank_aware { placements * (n - n_tiles) as u64 } else { placements }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::GameRng;

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
}
