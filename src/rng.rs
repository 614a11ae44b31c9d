//! The one source of randomness for anything a replay depends on.
//!
//! Every draw goes through [`GameRng`]: a ChaCha8 stream (a named, portable
//! algorithm) seeded by our own expansion of a `u64`, and sampled by our own
//! helpers. We never use `rand`'s range, float or shuffle helpers here, because
//! their output may change between `rand` releases and that would silently
//! break every recorded replay.

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A seeded, portable random stream owned by one game (or one planner run).
#[derive(Clone, Debug)]
pub struct GameRng {
    inner: ChaCha8Rng,
}

impl GameRng {
    /// Builds the stream for `seed`. The 32-byte ChaCha key is the SplitMix64
    /// expansion of `seed`, written out here so it cannot change under us.
    pub(crate) fn from_seed(seed: u64) -> GameRng {
        let mut key = [0u8; 32];
        let mut state = seed;
        for chunk in key.chunks_exact_mut(8) {
            chunk.copy_from_slice(&splitmix64(&mut state).to_le_bytes());
        }
        GameRng { inner: ChaCha8Rng::from_seed(key) }
    }

    /// The next raw 64-bit word.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// A uniform integer in `0..n` (Lemire's multiply-and-reject method).
    ///
    /// # Panics
    /// If `n == 0`: there is nothing to choose from, and that is a caller bug.
    pub(crate) fn below(&mut self, n: u32) -> u32 {
        assert!(n > 0, "GameRng::below(0)");
        let n = u64::from(n);
        let threshold = (u32::MAX as u64 + 1 - n) % n;
        loop {
            let product = u64::from(self.inner.next_u32()) * n;
            if (product & 0xFFFF_FFFF) >= threshold {
                return (product >> 32) as u32;
            }
        }
    }

    /// `true` with probability `numerator / denominator`, exactly.
    pub(crate) fn chance(&mut self, numerator: u32, denominator: u32) -> bool {
        self.below(denominator) < numerator
    }

    /// Fisher–Yates shuffle driven by [`GameRng::below`].
    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u32 + 1) as usize;
            items.swap(i, j);
        }
    }

    /// How far the stream has advanced, in 32-bit words. Part of a game's
    /// canonical state: two games that look alike but would draw differently
    /// next must not hash alike.
    pub(crate) fn word_pos(&self) -> u128 {
        self.inner.get_word_pos()
    }
}

/// SplitMix64, the standard seed expander (Steele, Lea and Flood, 2014).
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of game number `index` in a run with `master_seed`: a pure
/// function of the two, so results never depend on scheduling.
pub fn derive_seed(master_seed: u64, index: u64) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(&index.to_le_bytes(), master_seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stream is part of the replay format: these words are frozen.
    /// If this fails, every recorded replay has silently changed meaning.
    #[test]
    fn stream_is_frozen() {
        let mut rng = GameRng::from_seed(7);
        let words: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        assert_eq!(words, [7_387_829_322_293_334_546, 14_283_834_251_474_640_193, 9_360_588_686_666_418_927]);
        assert_eq!(derive_seed(1, 2), 1_667_139_887_444_314_012);
        let mut again = GameRng::from_seed(7);
        assert_eq!(words, (0..3).map(|_| again.next_u64()).collect::<Vec<_>>());
        assert_ne!(words, {
            let mut other = GameRng::from_seed(8);
            (0..3).map(|_| other.next_u64()).collect::<Vec<_>>()
        });
    }

    #[test]
    fn below_is_in_range_and_covers_it() {
        let mut rng = GameRng::from_seed(1);
        let mut seen = [0u32; 7];
        for _ in 0..7_000 {
            seen[rng.below(7) as usize] += 1;
        }
        assert!(seen.iter().all(|&count| (800..1200).contains(&count)), "{seen:?}");
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut rng = GameRng::from_seed(3);
        let mut items: Vec<u32> = (0..50).collect();
        rng.shuffle(&mut items);
        assert_ne!(items, (0..50).collect::<Vec<_>>());
        items.sort_unstable();
        assert_eq!(items, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn derived_seeds_differ_by_index_and_master() {
        assert_ne!(derive_seed(1, 0), derive_seed(1, 1));
        assert_ne!(derive_seed(1, 0), derive_seed(2, 0));
        assert_eq!(derive_seed(5, 9), derive_seed(5, 9));
    }
}
