//! One IDA* iteration split into subtrees and shared by threads: the nodes
//! at a shallow depth, in depth-first order, each one unit of work, taken
//! by whichever thread is free.
//!
//! The answer does not depend on the threads: a subtree is searched exactly
//! as the one-thread search would search it, and the solution kept is the
//! one in the first subtree (in depth-first order) that holds one, which is
//! the one the one-thread search finds. A thread never skips a subtree
//! before the first one known to hold a solution, and gives up on one only
//! when an earlier one is known to hold a solution. Only the node count
//! varies: subtrees after the solution's may be searched, in part, before
//! it is found.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::checkpoint::{Checkpoint, SplitProgress};
use super::kernel::{Halt, Item, Kernel, MAX_SPLIT_DEPTH};
use crate::plan::PlanError;

/// The fewest subtrees an iteration is split into: the first depth with at
/// least this many nodes within the bound is the split depth. Subtrees vary
/// in size by orders of magnitude, so many more than threads keeps the
/// threads busy to the end.
const MIN_SUBTREES: usize = 2048;

/// How one iteration ended.
#[derive(Debug)]
pub(super) enum Iteration {
    /// A solution: its moves (direction codes), the first in depth-first order.
    Found(Vec<u8>),
    /// No solution within the bound; the least f above it.
    Exhausted { min_exceeded: u32 },
    /// Stopped by the budget; the checkpoint holds the finished work, and
    /// `unrecorded` counts the nodes of the work cut short.
    Halted { error: PlanError, unrecorded: u64 },
}

/// Runs the iteration `state` describes (its bound, and its split if it was
/// split before), split into subtrees, on `threads` threads, recording
/// finished work in `state` and calling `report` after each subtree.
pub(super) fn iterate<const K: usize>(
    root: &Kernel<'_, K>,
    state: &mut Checkpoint,
    threads: usize,
    report: &(dyn Fn(&Checkpoint) + Sync),
) -> Iteration {
    let bound = state.bound;
    let items = match enumerate(root, bound, state.split.as_ref().map(|split| split.depth as usize)) {
        Enumerated::Found { moves, generated } => {
            state.nodes += generated;
            return Iteration::Found(moves);
        }
        Enumerated::Halted { error, generated } => return Iteration::Halted { error, unrecorded: generated },
        Enumerated::Items { items, depth, generated, min_exceeded } => {
            match &mut state.split {
                // Resumed: the split was counted when it was first made, so
                // a resumed search counts the nodes a whole one would.
                Some(split) if split.subtrees as usize == items.len() => {}
                Some(_) => {
                    // Only a checkpoint of another search can disagree.
                    let error = PlanError::GaveUp("the checkpoint does not fit this search's split".to_string());
                    return Iteration::Halted { error, unrecorded: 0 };
                }
                None => {
                    state.nodes += generated;
                    let mut split = SplitProgress::new(depth as u32, items.len() as u32);
                    split.nodes = generated;
                    split.min_exceeded = min_exceeded;
                    state.split = Some(split);
                }
            }
            items
        }
    };
    let shared = Shared {
        bound,
        items: &items,
        next: AtomicUsize::new(0),
        first_found: AtomicUsize::new(usize::MAX),
        outcome: Mutex::new(Outcome { state, found: Vec::new(), unrecorded: 0, halted: None }),
        report,
    };
    std::thread::scope(|scope| {
        for _ in 1..threads.max(1) {
            scope.spawn(|| work(root, &shared));
        }
        work(root, &shared);
    });
    let first_found = shared.first_found.load(Ordering::Relaxed);
    let Outcome { state, found, unrecorded, halted } = shared.outcome.into_inner().expect("no worker panics");
    let split = state.split.as_ref().expect("split above");
    // A solution counts once every subtree before it is finished: always,
    // unless the budget stopped a thread on one of them. Then the search
    // ends, and the work no checkpoint records is counted too.
    if let Some((_, moves)) = found.into_iter().find(|&(index, _)| index == first_found) {
        if (0..first_found as u32).all(|index| split.is_done(index)) {
            state.nodes += unrecorded;
            return Iteration::Found(moves);
        }
    }
    match halted {
        Some(error) => Iteration::Halted { error, unrecorded },
        None => Iteration::Exhausted { min_exceeded: split.min_exceeded },
    }
}

/// What the threads share.
struct Shared<'s, 'c> {
    bound: u32,
    items: &'s [Item],
    /// The next subtree to hand out.
    next: AtomicUsize,
    /// The least index of a subtree found to hold a solution.
    first_found: AtomicUsize,
    outcome: Mutex<Outcome<'c>>,
    report: &'s (dyn Fn(&Checkpoint) + Sync),
}

struct Outcome<'c> {
    state: &'c mut Checkpoint,
    /// Subtrees found to hold a solution, with its moves. They are not
    /// marked finished: a search stopped before the subtrees ahead of them
    /// are searches them again on resume.
    found: Vec<(usize, Vec<u8>)>,
    /// Nodes of the subtrees that hold a solution or were given up for an
    /// earlier one: counted only if the iteration ends with its solution.
    unrecorded: u64,
    halted: Option<PlanError>,
}

/// One thread's loop: take the next subtree, search it, record it.
fn work<const K: usize>(root: &Kernel<'_, K>, shared: &Shared) {
    loop {
        let index = shared.next.fetch_add(1, Ordering::Relaxed);
        if index >= shared.items.len() || index > shared.first_found.load(Ordering::Relaxed) {
            return;
        }
        {
            let outcome = shared.outcome.lock().expect("no worker panics");
            if outcome.halted.is_some() {
                return;
            }
            if outcome.state.split.as_ref().is_some_and(|split| split.is_done(index as u32)) {
                continue;
            }
        }
        let item = shared.items[index];
        let mut kernel = root.clone();
        for (g, &code) in item.moves[..usize::from(item.len)].iter().enumerate() {
            kernel.apply(code);
            kernel.path[g] = code;
        }
        kernel.overtaken_when(&shared.first_found, index);
        let depth = usize::from(item.len);
        let previous = kernel.previous_blank(depth);
        let found = kernel.search(depth, previous, shared.bound);
        let mut outcome = shared.outcome.lock().expect("no worker panics");
        let split = outcome.state.split.as_mut().expect("the iteration is split");
        match (found, kernel.halted) {
            (Some(length), _) => {
                outcome.unrecorded += kernel.generated;
                outcome.found.push((index, kernel.path[..length].to_vec()));
                shared.first_found.fetch_min(index, Ordering::Relaxed);
            }
            (None, None) => {
                split.mark_done(index as u32);
                split.nodes += kernel.generated;
                split.min_exceeded = split.min_exceeded.min(kernel.min_exceeded);
                outcome.state.nodes += kernel.generated;
                (shared.report)(outcome.state);
            }
            (None, Some(Halt::Overtaken)) => outcome.unrecorded += kernel.generated,
            (None, Some(Halt::Budget(error))) => {
                outcome.unrecorded += kernel.generated;
                outcome.halted.get_or_insert(error);
                return;
            }
        }
    }
}

/// The split of one iteration.
enum Enumerated {
    Items {
        items: Vec<Item>,
        depth: usize,
        generated: u64,
        min_exceeded: u32,
    },
    /// A goal above the split depth: the iteration's first solution.
    Found {
        moves: Vec<u8>,
        generated: u64,
    },
    Halted {
        error: PlanError,
        generated: u64,
    },
}

/// The nodes within `bound` at `depth`, or, without a depth, at the first
/// depth that has [`MIN_SUBTREES`] of them (or the deepest allowed).
fn enumerate<const K: usize>(root: &Kernel<'_, K>, bound: u32, depth: Option<usize>) -> Enumerated {
    let deepest = MAX_SPLIT_DEPTH.min(bound.saturating_sub(1).max(1) as usize);
    let mut generated = 0;
    let mut at = depth.unwrap_or(1);
    loop {
        let mut kernel = root.clone();
        kernel.split_at(at);
        let found = kernel.search(0, kernel.previous_blank(0), bound);
        generated += kernel.generated;
        if let Some(length) = found {
            return Enumerated::Found { moves: kernel.path[..length].to_vec(), generated };
        }
        if let Some(Halt::Budget(error)) = kernel.halted {
            return Enumerated::Halted { error, generated };
        }
        if depth.is_some() || kernel.items.len() >= MIN_SUBTREES || at >= deepest {
            let items = std::mem::take(&mut kernel.items);
            return Enumerated::Items { items, depth: at, generated, min_exceeded: kernel.min_exceeded };
        }
        at += 1;
    }
}
