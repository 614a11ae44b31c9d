//! The reference referee's random numbers, bit for bit: `java.util.Random`
//! (the 48-bit linear congruential generator of the JDK) and
//! `Collections.shuffle`. Used only in the Java seeding mode, so recorded
//! reference matches can be replayed exactly; our own games use `GameRng`.

const MULTIPLIER: i64 = 0x5_DEEC_E66D;
const INCREMENT: i64 = 0xB;
const MASK: i64 = (1 << 48) - 1;

/// `java.util.Random`, as specified in its Javadoc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct JavaRandom {
    seed: i64,
}

impl JavaRandom {
    /// `new Random(seed)`: the seed is scrambled with the multiplier.
    pub(crate) fn new(seed: i64) -> JavaRandom {
        JavaRandom { seed: (seed ^ MULTIPLIER) & MASK }
    }

    /// `next(bits)`: the top `bits` of the advanced 48-bit state, as a
    /// signed 32-bit value (Java's `int` cast).
    fn next(&mut self, bits: u32) -> i32 {
        self.seed = (self.seed.wrapping_mul(MULTIPLIER).wrapping_add(INCREMENT)) & MASK;
        (self.seed >> (48 - bits)) as i32
    }

    /// `nextInt(bound)` with the JDK's rejection rule, including its
    /// reliance on 32-bit overflow.
    ///
    /// # Panics
    /// If `bound <= 0`, as Java throws: a caller bug.
    pub(crate) fn next_int(&mut self, bound: i32) -> i32 {
        assert!(bound > 0, "JavaRandom::next_int({bound})");
        let mut r = self.next(31);
        let m = bound - 1;
        if bound & m == 0 {
            return ((i64::from(bound) * i64::from(r)) >> 31) as i32;
        }
        let mut u = r;
        loop {
            r = u % bound;
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                return r;
            }
            u = self.next(31);
        }
    }

    /// `nextLong()`: two 32-bit draws, the first shifted up, added as signed.
    pub(crate) fn next_long(&mut self) -> i64 {
        let high = i64::from(self.next(32));
        let low = i64::from(self.next(32));
        (high << 32).wrapping_add(low)
    }

    /// `Collections.shuffle(list, this)`: i runs from the last index down
    /// to 1 and swaps with `nextInt(i + 1)`.
    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.next_int(i as i32 + 1) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values printed by OpenJDK 17 on this machine (`java R.java`).
    #[test]
    fn matches_the_jdk() {
        let mut random = JavaRandom::new(42);
        assert_eq!(random.next_int(10), 0);
        assert_eq!(random.next_int(10), 3);
        assert_eq!(JavaRandom::new(0).next_long(), -4_962_768_465_676_381_896);
        assert_eq!(JavaRandom::new(42).next_int(16), 11);
        assert_eq!(JavaRandom::new(5).next_int(160), 127);
        assert_eq!(JavaRandom::new(-7).next_long(), 4_964_420_944_606_563_203);
        let mut items: Vec<u32> = (0..10).collect();
        JavaRandom::new(1).shuffle(&mut items);
        assert_eq!(items, [6, 9, 7, 8, 4, 2, 0, 3, 1, 5]);
    }

    #[test]
    fn next_int_stays_in_range() {
        let mut random = JavaRandom::new(7);
        for bound in [1, 2, 3, 60, 160, 1 << 30, i32::MAX] {
            for _ in 0..200 {
                let value = random.next_int(bound);
                assert!((0..bound).contains(&value));
            }
        }
    }

    #[test]
    fn shuffle_is_a_permutation_and_depends_on_the_seed() {
        let mut items: Vec<u32> = (0..30).collect();
        JavaRandom::new(1).shuffle(&mut items);
        let mut again: Vec<u32> = (0..30).collect();
        JavaRandom::new(2).shuffle(&mut again);
        assert_ne!(items, again);
        items.sort_unstable();
        assert_eq!(items, (0..30).collect::<Vec<_>>());
    }
}
