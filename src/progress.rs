//! Counting long work as it goes, for a progress display that the binary
//! draws: the library only counts (atomically, never blocking, never
//! printing), and whoever shows progress reads the counters.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Units of work done so far, out of a total if one is known. Clones share
/// the counters.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    done: Arc<AtomicU64>,
    total: Arc<AtomicU64>,
}

impl Progress {
    /// A counter of `total` units (0 when the total is not known).
    pub fn with_total(total: u64) -> Progress {
        let progress = Progress::default();
        progress.set_total(total);
        progress
    }

    pub(crate) fn advance(&self, units: u64) {
        self.done.fetch_add(units, Ordering::Relaxed);
    }

    pub(crate) fn set_total(&self, total: u64) {
        self.total.store(total, Ordering::Relaxed);
    }

    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// 0 when not known.
    pub fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }
}
