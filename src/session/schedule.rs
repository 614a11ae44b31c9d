//! The session's fixed order of games: which entry plays next, and the
//! how-manyth game of that entry it is. Entries take turns in proportion
//! to their weights (smooth weighted round robin, integers only), an entry
//! with a `games` count drops out once it has them all, and the whole
//! sequence is a pure function of the weights and counts: never of timing,
//! threads or which games a resumed session has already played.

/// One game's place: its entry and its index within the entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub(crate) entry: usize,
    pub(crate) index: u64,
}

/// The order of a session's games.
#[derive(Clone, Debug)]
pub struct Schedule {
    weights: Vec<u64>,
    caps: Vec<Option<u64>>,
    current: Vec<i128>,
    handed: Vec<u64>,
    remaining_total: Option<u64>,
}

impl Schedule {
    /// `weights[e]` (at least 1) is entry `e`'s share; `caps[e]` its game
    /// count, if it has one; `total` caps the whole session.
    pub(crate) fn new(weights: Vec<u64>, caps: Vec<Option<u64>>, total: Option<u64>) -> Schedule {
        let entries = weights.len();
        Schedule { weights, caps, current: vec![0; entries], handed: vec![0; entries], remaining_total: total }
    }

    /// Games of the whole session, if it is bounded.
    pub(crate) fn total(&self) -> Option<u64> {
        let by_entries: Option<u64> = self.caps.iter().copied().sum();
        match (by_entries, self.remaining_total) {
            (Some(entries), Some(total)) => Some(entries.min(total)),
            (entries, total) => entries.or(total),
        }
    }

    /// How many games each entry plays in the whole session, if it is
    /// bounded: entry `e` plays indices `0..counts[e]`. Walks the order
    /// when a session-wide cap cuts it short (one step per game).
    pub(crate) fn entry_counts(&self) -> Option<Vec<u64>> {
        self.total()?;
        let mut counts = self.handed.clone();
        for slot in self.clone() {
            counts[slot.entry] += 1;
        }
        Some(counts)
    }
}

impl Iterator for Schedule {
    type Item = Slot;

    fn next(&mut self) -> Option<Slot> {
        if self.remaining_total == Some(0) {
            return None;
        }
        let open =
            |entry: usize, handed: &[u64], caps: &[Option<u64>]| caps[entry].is_none_or(|cap| handed[entry] < cap);
        let mut sum = 0i128;
        let mut best: Option<usize> = None;
        for entry in 0..self.weights.len() {
            if !open(entry, &self.handed, &self.caps) {
                continue;
            }
            let weight = i128::from(self.weights[entry].max(1));
            self.current[entry] += weight;
            sum += weight;
            if best.is_none_or(|best| self.current[entry] > self.current[best]) {
                best = Some(entry);
            }
        }
        let entry = best?;
        self.current[entry] -= sum;
        let index = self.handed[entry];
        self.handed[entry] += 1;
        if let Some(remaining) = &mut self.remaining_total {
            *remaining -= 1;
        }
        Some(Slot { entry, index })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(weights: &[u64], caps: &[Option<u64>], total: Option<u64>) -> Vec<(usize, u64)> {
        Schedule::new(weights.to_vec(), caps.to_vec(), total).map(|slot| (slot.entry, slot.index)).take(40).collect()
    }

    #[test]
    fn entries_take_turns_by_weight_and_drop_out_when_done() {
        assert_eq!(order(&[1, 1], &[Some(2), Some(3)], None), [(0, 0), (1, 0), (0, 1), (1, 1), (1, 2)]);
        assert_eq!(order(&[2, 1], &[None, None], Some(6)), [(0, 0), (1, 0), (0, 1), (0, 2), (1, 1), (0, 3)]);
        assert_eq!(order(&[5], &[Some(2)], Some(9)), [(0, 0), (0, 1)]);
        assert_eq!(Schedule::new(vec![1, 1], vec![Some(2), None], None).total(), None);
        assert_eq!(Schedule::new(vec![1, 1], vec![Some(2), Some(5)], Some(4)).total(), Some(4));
        assert_eq!(Schedule::new(vec![1, 1], vec![Some(2), Some(5)], Some(4)).entry_counts(), Some(vec![2, 2]));
        assert_eq!(Schedule::new(vec![2, 1], vec![None, None], Some(6)).entry_counts(), Some(vec![4, 2]));
        assert_eq!(Schedule::new(vec![1, 1], vec![Some(2), None], None).entry_counts(), None);
    }
}
