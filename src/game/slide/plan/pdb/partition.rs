//! The named tile partitions of the pattern databases (8-puzzle 4-4,
//! 15-puzzle 6-6-3, 5-5-5 and 7-8, 24-puzzle 6-6-6-6): their groups, their
//! names on the command line, and which of their tables know the blank.

use super::n_placements;

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

    pub(crate) fn parse(name: &str) -> Option<Partition> {
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
    pub(crate) fn default_for(side: u8) -> Partition {
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

#[cfg(test)]
mod tests {
    use super::*;

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
