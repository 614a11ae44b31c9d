//! A puzzle's setup and its validated [`Config`]: the board, the source and
//! the tiles as dealt, and the episode cap.

use serde::{Deserialize, Serialize};

use super::grid::{Grid, rotate_by};
use crate::map::MapError;

/// Largest board side we accept: 500×500 tiles keep every tile index and
/// action code far inside a `u32`.
pub(crate) const MAX_SIDE: u16 = 500;

/// A puzzle as a file, the generator or a replay header describes it,
/// unvalidated. [`Config::try_from`] validates it.
///
/// Part of the replay format (see `replay::format`): stored field by field in
/// this order; changing the fields needs a format version bump.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PipesSetup {
    pub width: u16,
    pub height: u16,
    pub wrap: bool,
    pub source_col: u16,
    pub source_row: u16,
    /// Row-major connection masks, `width * height` of them.
    pub tiles: Vec<u8>,
}

impl PipesSetup {
    #[cfg(test)]
    pub(crate) fn grid(&self) -> Grid {
        Grid { width: self.width, height: self.height, wrap: self.wrap }
    }
}

/// The longest search path the episode cap makes room for: far more than
/// the write-up's searches expand within their default budget of 2,000,000
/// states, and small enough that a game on a large board still ends.
pub const MAX_SEARCH_PATH: u32 = 1 << 24;

/// A validated puzzle. Only [`Config::try_from`] builds one, so a `Config`
/// always describes a playable game (though not always a solvable one).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "PipesSetup", into = "PipesSetup")]
pub struct Config {
    grid: Grid,
    source: u32,
    tiles: Vec<u8>,
    /// The episode cap: a game still unsolved after four moves per tile, or
    /// after as many moves as the board has orientations less one if that
    /// is more, is stalled. One move per tile is enough to solve; the second
    /// bound lets the write-up's searches play their whole search path,
    /// which never visits a state twice. That bound is itself capped at
    /// [`MAX_SEARCH_PATH`] moves, so large boards keep a finite episode.
    max_ticks: u32,
}

impl TryFrom<PipesSetup> for Config {
    type Error = MapError;

    fn try_from(setup: PipesSetup) -> Result<Config, MapError> {
        let PipesSetup { width, height, wrap, source_col, source_row, tiles } = setup;
        if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
            return Err(MapError::whole(format!("board is {width}×{height}; each side must be 1..={MAX_SIDE}")));
        }
        let grid = Grid { width, height, wrap };
        if tiles.len() != grid.n_tiles() {
            return Err(MapError::whole(format!("{} tiles for a {width}×{height} board", tiles.len())));
        }
        if let Some(tile) = tiles.iter().position(|&mask| mask > 0xF) {
            return Err(MapError::whole(format!("tile {tile} has mask {}; masks are 0..=15", tiles[tile])));
        }
        if source_col >= width || source_row >= height {
            return Err(MapError::whole(format!(
                "source ({source_col}, {source_row}) is off the {width}×{height} board"
            )));
        }
        let source = u32::from(source_row) * u32::from(width) + u32::from(source_col);
        let orientations = tiles.iter().fold(1u64, |product, &mask| {
            let period = (1..=4).find(|&turns| rotate_by(mask, turns) == mask).unwrap_or(4);
            product.saturating_mul(u64::from(period))
        });
        let search_path = (orientations - 1).min(u64::from(MAX_SEARCH_PATH)) as u32;
        let max_ticks = (4 * grid.n_tiles() as u32).max(search_path);
        Ok(Config { grid, source, tiles, max_ticks })
    }
}

impl From<Config> for PipesSetup {
    fn from(config: Config) -> PipesSetup {
        let width = u32::from(config.grid.width);
        PipesSetup {
            width: config.grid.width,
            height: config.grid.height,
            wrap: config.grid.wrap,
            source_col: (config.source % width) as u16,
            source_row: (config.source / width) as u16,
            tiles: config.tiles,
        }
    }
}

impl Config {
    pub fn grid(&self) -> Grid {
        self.grid
    }
    pub fn n_tiles(&self) -> usize {
        self.grid.n_tiles()
    }
    /// The source tile, row-major.
    pub fn source(&self) -> usize {
        self.source as usize
    }
    /// The tiles as the puzzle gives them (scrambled).
    pub fn tiles(&self) -> &[u8] {
        &self.tiles
    }
    /// The episode cap: moves after which an unsolved game is stalled.
    pub(crate) fn max_ticks(&self) -> u32 {
        self.max_ticks
    }
    pub(crate) fn describe_rules(&self) -> String {
        let Grid { width, height, wrap } = self.grid;
        let topology = if wrap { "wrapping" } else { "non-wrapping" };
        let source = self.source();
        format!(
            "{width}x{height} {topology} Net puzzle, source at ({}, {}), unsolved after {} moves is stalled",
            source % usize::from(width),
            source / usize::from(width),
            self.max_ticks
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_setups_are_rejected() {
        let setup = PipesSetup { width: 2, height: 2, wrap: false, source_col: 0, source_row: 0, tiles: vec![1; 4] };
        assert!(Config::try_from(PipesSetup { tiles: vec![1; 3], ..setup.clone() }).is_err());
        assert!(Config::try_from(PipesSetup { tiles: vec![1, 2, 3, 16], ..setup.clone() }).is_err());
        assert!(Config::try_from(PipesSetup { source_row: 2, ..setup.clone() }).is_err());
        assert!(Config::try_from(PipesSetup { width: 0, tiles: vec![], ..setup.clone() }).is_err());
        let config = Config::try_from(setup.clone()).unwrap();
        assert_eq!(PipesSetup::from(config), setup);
    }
}
