//! Indexed batch work spread over threads and gathered in index order: the
//! one fan-out behind `bench` and `match`. Item `i` must depend only on `i`
//! (its seed is derived from it), so the results are the same on any number
//! of threads; only the times change. The work stops early, between items,
//! when its [`Budget`] is exhausted (Ctrl-C), and counts finished items in a
//! [`Progress`] for whoever draws a progress bar.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::plan::Budget;
use crate::progress::Progress;

/// How batch work runs: on how many threads, until which budget runs out
/// (Ctrl-C), counted into which progress. What every fan-out takes.
#[derive(Clone, Copy, Debug)]
pub struct Workers<'a> {
    pub threads: usize,
    pub budget: &'a Budget,
    pub progress: &'a Progress,
}

/// What [`map_indexed`] did.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Gathered<R> {
    /// The results of the finished items, in index order: every item unless
    /// the budget stopped the work.
    pub(crate) results: Vec<(u64, R)>,
    /// Items asked for.
    pub(crate) requested: u64,
    pub(crate) wall_seconds: f64,
    /// CPU time of the worker threads, summed; their wall time where the
    /// platform does not tell (then it includes time lost to other processes).
    pub(crate) cpu_seconds: f64,
    pub(crate) threads: usize,
}

impl<R> Gathered<R> {
    /// Whether the budget stopped the work before every item was done.
    pub(crate) fn stopped_early(&self) -> bool {
        (self.results.len() as u64) < self.requested
    }

    /// The results alone, in index order.
    #[cfg(test)]
    pub(crate) fn into_values(self) -> Vec<R> {
        self.results.into_iter().map(|(_, result)| result).collect()
    }
}

/// Runs `work(state, i)` for every `i` in `0..n_items` on the workers'
/// threads (each with its own `state` from `make_state`), handing out items
/// one at a time so that slow items do not leave threads idle.
pub(crate) fn map_indexed<S, R: Send>(
    n_items: u64,
    workers: &Workers,
    make_state: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, u64) -> R + Sync,
) -> Gathered<R> {
    let Workers { threads, budget, progress } = *workers;
    let threads = threads.clamp(1, n_items.max(1) as usize);
    let next_item = AtomicU64::new(0);
    let started = Instant::now();
    let per_thread: Vec<(Vec<(u64, R)>, f64)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let (make_state, work, next_item) = (&make_state, &work, &next_item);
                scope.spawn(move || {
                    let cpu_start = thread_cpu_seconds();
                    let wall_start = Instant::now();
                    let mut state = make_state();
                    let mut results = Vec::new();
                    while budget.exhausted().is_none() {
                        let index = next_item.fetch_add(1, Ordering::Relaxed);
                        if index >= n_items {
                            break;
                        }
                        results.push((index, work(&mut state, index)));
                        progress.advance(1);
                    }
                    let cpu = match (cpu_start, thread_cpu_seconds()) {
                        (Some(start), Some(end)) => end - start,
                        _ => wall_start.elapsed().as_secs_f64(),
                    };
                    (results, cpu)
                })
            })
            .collect();
        // A panic in `work` is a bug in the item's code: pass it on.
        workers
            .into_iter()
            .map(|worker| worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    });
    let wall_seconds = started.elapsed().as_secs_f64();
    let mut cpu_seconds = 0.0;
    let mut results = Vec::with_capacity(n_items as usize);
    for (done, cpu) in per_thread {
        results.extend(done);
        cpu_seconds += cpu;
    }
    results.sort_unstable_by_key(|(index, _)| *index);
    Gathered { results, requested: n_items, wall_seconds, cpu_seconds, threads }
}

/// CPU time this thread has used, in seconds, where the platform tells us
/// (Linux: `/proc/thread-self/schedstat`).
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(nanos as f64 / 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn results_come_back_in_index_order_whatever_the_thread_count() {
        let square = |_: &mut (), index: u64| index * index;
        for threads in [1, 2, 5] {
            let (budget, progress) = (Budget::unlimited(), Progress::default());
            let gathered = map_indexed(20, &Workers { threads, budget: &budget, progress: &progress }, || (), square);
            assert_eq!(gathered.into_values(), (0..20).map(|index| index * index).collect::<Vec<_>>());
        }
    }

    #[test]
    fn an_exhausted_budget_stops_before_the_next_item_and_progress_counts_what_was_done() {
        let cancel = Arc::new(AtomicBool::new(false));
        let budget = Budget::new(None, Some(Arc::clone(&cancel)));
        let progress = Progress::default();
        let workers = Workers { threads: 1, budget: &budget, progress: &progress };
        let gathered = map_indexed(
            100,
            &workers,
            || (),
            |_, index| {
                if index == 9 {
                    cancel.store(true, Ordering::Relaxed);
                }
                index
            },
        );
        assert!(gathered.stopped_early());
        assert_eq!(gathered.results.len(), 10);
        assert_eq!(progress.done(), 10);
    }
}
