//! The named tile partitions of the pattern databases (8-puzzle 4-4,
//! 15-puzzle 6-6-3, 5-5-5 and 7-8, 24-puzzle 6-6-6-6): the tables each one
//! builds, its groups (each a table seen through a symmetry of the board),
//! and their names on the command line.

/// A symmetry of the square board: where it sends cell (row, col).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Symmetry {
    Identity,
    /// Half a turn: (row, col) to (side-1-row, side-1-col).
    Rot180,
    /// A quarter turn: (row, col) to (side-1-col, row).
    Rot90,
    /// The reflection about the main diagonal: (row, col) to (col, row). It
    /// fixes the blank's goal cell, so it maps the blank-first goal onto
    /// itself (tile `t` to tile `T(t)`).
    Transpose,
}

impl Symmetry {
    /// The image of `cell` on a `side`×`side` board.
    pub(crate) fn apply(self, side: u8, cell: u8) -> u8 {
        let (row, col) = (cell / side, cell % side);
        let last = side - 1;
        let (row, col) = match self {
            Symmetry::Identity => (row, col),
            Symmetry::Rot180 => (last - row, last - col),
            Symmetry::Rot90 => (last - col, row),
            Symmetry::Transpose => (col, row),
        };
        row * side + col
    }
}

/// One group of a partition: the tiles of table `table` seen through
/// `symmetry`. The group's tile for slot `i` is the tile whose goal cell
/// the symmetry sends to the goal cell of the table's tile `i`, and the
/// group's value is the table's entry for its tiles' cells sent through the
/// symmetry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Group {
    pub(crate) table: usize,
    pub(crate) symmetry: Symmetry,
}

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
    /// table has 16!/8! ≈ 5.2·10⁸ entries and its build settles 4.2·10⁹
    /// (placement, blank) states: built only on request.
    P78,
    /// 24-puzzle: Korf and Felner's four groups of six, {1,2,5,6,7,12},
    /// {3,4,8,9,13,14}, {10,11,15,16,20,21} and {17,18,19,22,23,24}. The
    /// last two are the second one turned half round and a quarter round,
    /// so two tables serve all four.
    P6666,
}

impl Partition {
    /// Every partition, in the order `--help` lists them.
    pub(crate) const ALL: [Partition; 5] =
        [Partition::P44, Partition::P663, Partition::P555, Partition::P78, Partition::P6666];

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
        Partition::ALL.into_iter().find(|partition| partition.name() == name)
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

    /// The tables to build, each a list of tiles in slot order (the
    /// blank-first goal: tile `t` belongs on cell `t`).
    pub(crate) fn tables(self) -> Vec<Vec<u8>> {
        match self {
            Partition::P44 => vec![vec![1, 2, 3, 4], vec![5, 6, 7, 8]],
            Partition::P663 => vec![vec![1, 4, 5, 8, 9, 12], vec![2, 3, 6, 7, 10, 11], vec![13, 14, 15]],
            Partition::P555 => vec![vec![1, 4, 5, 8, 9], vec![2, 3, 6, 7, 11], vec![10, 12, 13, 14, 15]],
            Partition::P78 => vec![vec![1, 2, 3, 4, 5, 6, 7], vec![8, 9, 10, 11, 12, 13, 14, 15]],
            Partition::P6666 => vec![vec![1, 2, 5, 6, 7, 12], vec![3, 4, 8, 9, 13, 14]],
        }
    }

    /// The groups: a table each, or a table turned.
    pub(crate) fn groups(self) -> Vec<Group> {
        let own = |table| Group { table, symmetry: Symmetry::Identity };
        match self {
            Partition::P6666 => vec![
                own(0),
                own(1),
                Group { table: 1, symmetry: Symmetry::Rot180 },
                Group { table: 1, symmetry: Symmetry::Rot90 },
            ],
            _ => (0..self.tables().len()).map(own).collect(),
        }
    }

    /// The tiles of each group in slot order (see [`Group`]).
    pub(crate) fn group_tiles(self) -> Vec<Vec<u8>> {
        let (side, tables) = (self.side(), self.tables());
        self.groups()
            .iter()
            .map(|group| {
                let home_of_slot = &tables[group.table];
                home_of_slot
                    .iter()
                    .map(|&home| {
                        (1..side * side).find(|&tile| group.symmetry.apply(side, tile) == home).expect("a bijection")
                    })
                    .collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_cover_every_tile_once() {
        for partition in Partition::ALL {
            let mut tiles: Vec<u8> = partition.group_tiles().concat();
            tiles.sort_unstable();
            let n = partition.side() * partition.side();
            assert_eq!(tiles, (1..n).collect::<Vec<_>>(), "{}", partition.name());
        }
    }

    #[test]
    fn the_24_puzzle_groups_are_korf_and_felners() {
        let groups = Partition::P6666.group_tiles();
        let sorted: Vec<Vec<u8>> = groups
            .into_iter()
            .map(|mut tiles| {
                tiles.sort_unstable();
                tiles
            })
            .collect();
        assert_eq!(
            sorted,
            [
                vec![1, 2, 5, 6, 7, 12],
                vec![3, 4, 8, 9, 13, 14],
                vec![10, 11, 15, 16, 20, 21],
                vec![17, 18, 19, 22, 23, 24]
            ]
        );
        // The quarter turn sends tile 19's cell to tile 3's, as in Korf's
        // program (its `rot90` table).
        assert_eq!(Symmetry::Rot90.apply(5, 19), 3);
        assert_eq!(Symmetry::Rot90.apply(5, 0), 20);
        assert_eq!(Symmetry::Rot180.apply(5, 21), 3);
    }

    #[test]
    fn symmetries_are_permutations_that_keep_neighbours() {
        use crate::game::slide::{Dir, neighbour};
        for side in [3u8, 4, 5] {
            for symmetry in [Symmetry::Identity, Symmetry::Rot180, Symmetry::Rot90, Symmetry::Transpose] {
                let mut images: Vec<u8> = (0..side * side).map(|cell| symmetry.apply(side, cell)).collect();
                for cell in 0..side * side {
                    for dir in Dir::ALL {
                        if let Some(next) = neighbour(side, cell, dir) {
                            let (a, b) = (symmetry.apply(side, cell), symmetry.apply(side, next));
                            assert!(Dir::ALL.iter().any(|&d| neighbour(side, a, d) == Some(b)), "{symmetry:?}");
                        }
                    }
                }
                images.sort_unstable();
                assert_eq!(images, (0..side * side).collect::<Vec<_>>(), "{symmetry:?} on {side}");
            }
        }
    }
}
