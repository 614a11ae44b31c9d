//! Reach the Flag's validated level: the board, its tiles, the start and
//! the flag, with the neighbour table every move looks up.

use serde::{Deserialize, Serialize};

use super::{Dir, FlagSetup, MAX_CELLS, MAX_SIDE, Tile};
use crate::map::MapError;

/// Marks a missing neighbour in [`Config::neighbour`]'s table.
pub(crate) const NO_CELL: u16 = u16::MAX;

/// A validated level. Only [`Config::try_from`] builds one, so a `Config`
/// always describes a playable game: a board within limits, one flag, a
/// start on a tile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "FlagSetup", into = "FlagSetup")]
pub struct Config {
    width: u16,
    height: u16,
    tiles: Vec<Tile>,
    start: u16,
    flag: u16,
    /// `neighbours[4 * cell + dir]`: the cell one step away, or [`NO_CELL`]
    /// off the board. Holes are not excluded.
    neighbours: Vec<u16>,
}

impl TryFrom<FlagSetup> for Config {
    type Error = MapError;

    fn try_from(setup: FlagSetup) -> Result<Config, MapError> {
        let (width, height) = (setup.width, setup.height);
        if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
            return Err(MapError::whole(format!("board is {width}×{height}; each side must be 1..={MAX_SIDE}")));
        }
        let n_cells = usize::from(width) * usize::from(height);
        if n_cells > MAX_CELLS {
            return Err(MapError::whole(format!("board has {n_cells} cells; at most {MAX_CELLS} are allowed")));
        }
        if setup.tiles.len() != n_cells {
            return Err(MapError::whole(format!("{} tiles for {n_cells} cells", setup.tiles.len())));
        }
        let flags: Vec<usize> = (0..n_cells).filter(|&cell| setup.tiles[cell] == Tile::Flag).collect();
        let [flag] = flags[..] else {
            return Err(MapError::whole(format!("the board has {} flags; it must have exactly one", flags.len())));
        };
        let start = setup.check_start().map_err(MapError::whole)?;
        let mut neighbours = Vec::with_capacity(4 * n_cells);
        for cell in 0..n_cells {
            let (col, row) = ((cell % usize::from(width)) as u16, (cell / usize::from(width)) as u16);
            for dir in Dir::ALL {
                let next = match dir {
                    Dir::Up if row > 0 => cell - usize::from(width),
                    Dir::Down if row + 1 < height => cell + usize::from(width),
                    Dir::Left if col > 0 => cell - 1,
                    Dir::Right if col + 1 < width => cell + 1,
                    _ => usize::from(NO_CELL),
                };
                neighbours.push(next as u16);
            }
        }
        Ok(Config { width, height, tiles: setup.tiles, start: start as u16, flag: flag as u16, neighbours })
    }
}

impl From<Config> for FlagSetup {
    fn from(config: Config) -> FlagSetup {
        FlagSetup {
            width: config.width,
            height: config.height,
            start_col: config.start % config.width,
            start_row: config.start / config.width,
            tiles: config.tiles,
        }
    }
}

impl Config {
    pub(crate) fn width(&self) -> u16 {
        self.width
    }
    pub(crate) fn height(&self) -> u16 {
        self.height
    }
    pub(crate) fn n_cells(&self) -> usize {
        self.tiles.len()
    }
    pub(crate) fn tile(&self, cell: u16) -> Tile {
        self.tiles[usize::from(cell)]
    }
    pub(crate) fn tiles(&self) -> &[Tile] {
        &self.tiles
    }
    /// The start cell (row-major index).
    pub(crate) fn start(&self) -> u16 {
        self.start
    }
    /// The flag cell (row-major index).
    pub(crate) fn flag(&self) -> u16 {
        self.flag
    }
    /// `(column, row)` of `cell`.
    pub(crate) fn col_row(&self, cell: u16) -> (u16, u16) {
        (cell % self.width, cell / self.width)
    }

    /// The cell one step from `cell` in `dir`, or `None` off the board.
    /// Holes are not checked.
    pub(crate) fn neighbour(&self, cell: u16, dir: Dir) -> Option<u16> {
        let next = self.neighbours[4 * usize::from(cell) + usize::from(dir.code())];
        (next != NO_CELL).then_some(next)
    }

    /// The four neighbours of `cell` in [`Dir::ALL`] order, [`NO_CELL`] off
    /// the board.
    pub(crate) fn neighbours(&self, cell: u16) -> [u16; 4] {
        let at = 4 * usize::from(cell);
        [self.neighbours[at], self.neighbours[at + 1], self.neighbours[at + 2], self.neighbours[at + 3]]
    }

    /// How many tiles of `kind` the board has.
    pub(crate) fn count(&self, kind: Tile) -> usize {
        self.tiles.iter().filter(|&&tile| tile == kind).count()
    }

    /// Visits each tile still needs at tick 0 (the start tile's entry
    /// already counted), indexed by cell.
    pub(crate) fn initial_visits(&self) -> Vec<u8> {
        let mut visits: Vec<u8> = self.tiles.iter().map(|tile| tile.visits()).collect();
        let start = usize::from(self.start);
        visits[start] = visits[start].saturating_sub(1);
        visits
    }

    /// A one-line summary, for reports.
    pub(crate) fn describe_rules(&self) -> String {
        let (start_col, start_row) = self.col_row(self.start);
        let (flag_col, flag_row) = self.col_row(self.flag);
        format!(
            "{}x{} board, {} fragile, {} cracked, {} stone tiles, start at ({start_col},{start_row}), flag at \
             ({flag_col},{flag_row})",
            self.width,
            self.height,
            self.count(Tile::Fragile),
            self.count(Tile::Cracked),
            self.count(Tile::Stone)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::Level;

    #[test]
    fn a_hostile_setup_is_refused() {
        let good = FlagSetup::from(Config::parse("start 0 0\n11F\n").unwrap());
        let cases: Vec<(FlagSetup, &str)> = vec![
            (FlagSetup { tiles: vec![Tile::Fragile; 3], ..good.clone() }, "0 flags"),
            (FlagSetup { tiles: vec![Tile::Flag; 3], ..good.clone() }, "3 flags"),
            (FlagSetup { tiles: vec![Tile::Fragile], ..good.clone() }, "1 tiles for 3 cells"),
            (FlagSetup { start_col: 9, ..good.clone() }, "off the"),
            (FlagSetup { width: 0, tiles: vec![], ..good.clone() }, "each side"),
            (FlagSetup { width: 40, height: 40, tiles: vec![Tile::Hole; 1600], ..good.clone() }, "at most 1024"),
        ];
        for (setup, fragment) in cases {
            let error = Config::try_from(setup).expect_err("refused");
            assert!(error.message.contains(fragment), "{error} should mention {fragment:?}");
        }
        assert!(Config::try_from(good).is_ok());
    }
}
