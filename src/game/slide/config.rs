//! What a sliding-puzzle game is built from: the unvalidated
//! [`SlideSetup`] (an instance file, the command line or a replay header
//! says it), and the validated [`Config`] a replay header carries, with the
//! checks between them.

use serde::{Deserialize, Serialize};

use super::board::{Board, Goal, MAX_CELLS, MAX_SIDE, MIN_SIDE, is_solvable, tiles_text};
use crate::map::MapError;

/// Default episode cap: far above any optimal solution (at most 208 moves on
/// a 24-puzzle) and above what the GA's shortened plans need.
pub(crate) const DEFAULT_MAX_TICKS: u32 = 100_000;

/// How the start board is chosen.
///
/// Part of the replay format (see `replay::format`): stored by variant index;
/// changing the variants' order or number needs a format version bump.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Start {
    /// This board, row-major, 0 = blank.
    Tiles(Vec<u8>),
    /// A uniformly random solvable board drawn from the game's seed.
    Random,
}

/// Everything a sliding-puzzle game is built from, unvalidated: what an
/// instance file, the command line or a replay header says.
///
/// Part of the replay format (see `replay::format`): stored field by field in
/// this order; changing the fields needs a format version bump.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlideSetup {
    pub side: u8,
    pub start: Start,
    pub goal: Goal,
    /// The episode cap in ticks; `None`: [`DEFAULT_MAX_TICKS`].
    pub max_ticks: Option<u32>,
}

/// A validated sliding-puzzle configuration: a side of 3..=5, a start that
/// is a permutation of `0..side²` and can reach the goal. Only
/// [`Config::try_from`] builds one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "SlideSetup", into = "SlideSetup")]
pub struct Config {
    side: u8,
    /// `None`: drawn from the seed.
    start: Option<Board>,
    goal: Goal,
    max_ticks: u32,
}

/// Why a board is not a playable start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    #[error("the board side must be {MIN_SIDE}, 4 or {MAX_SIDE} (got {0})")]
    Side(u8),
    #[error("expected {expected} numbers (a {side}×{side} board), got {got}")]
    Count { expected: usize, got: usize, side: u8 },
    #[error("tile {tile} is out of range: tiles are 0 (the blank) to {max}")]
    OutOfRange { tile: u32, max: usize },
    #[error("tile {0} appears twice")]
    Duplicate(u8),
    #[error(
        "unsolvable: this board has the wrong permutation parity for the {goal} goal \
         (it can only reach the goal with two tiles swapped)"
    )]
    Unsolvable { goal: &'static str },
    #[error("the episode cap must be at least 1 tick")]
    ZeroCap,
}

impl From<BoardError> for MapError {
    fn from(error: BoardError) -> MapError {
        MapError::whole(error.to_string())
    }
}

/// Checks that `tiles` is a start for a `side`×`side` board and returns it
/// as a [`Board`]. The reachability check is [`is_solvable`].
pub(crate) fn board_from_tiles(side: u8, tiles: &[u8], goal: Goal) -> Result<Board, BoardError> {
    if !(MIN_SIDE..=MAX_SIDE).contains(&side) {
        return Err(BoardError::Side(side));
    }
    let n_cells = usize::from(side) * usize::from(side);
    if tiles.len() != n_cells {
        return Err(BoardError::Count { expected: n_cells, got: tiles.len(), side });
    }
    let mut seen = [false; MAX_CELLS];
    let mut board = [0u8; MAX_CELLS];
    for (cell, &tile) in tiles.iter().enumerate() {
        if usize::from(tile) >= n_cells {
            return Err(BoardError::OutOfRange { tile: u32::from(tile), max: n_cells - 1 });
        }
        if seen[usize::from(tile)] {
            return Err(BoardError::Duplicate(tile));
        }
        seen[usize::from(tile)] = true;
        board[cell] = tile;
    }
    if !is_solvable(side, &board, goal) {
        return Err(BoardError::Unsolvable { goal: goal.name() });
    }
    Ok(board)
}

impl TryFrom<SlideSetup> for Config {
    type Error = BoardError;

    fn try_from(setup: SlideSetup) -> Result<Config, BoardError> {
        let SlideSetup { side, start, goal, max_ticks } = setup;
        if !(MIN_SIDE..=MAX_SIDE).contains(&side) {
            return Err(BoardError::Side(side));
        }
        let start = match start {
            Start::Tiles(tiles) => Some(board_from_tiles(side, &tiles, goal)?),
            Start::Random => None,
        };
        let max_ticks = max_ticks.unwrap_or(DEFAULT_MAX_TICKS);
        if max_ticks == 0 {
            return Err(BoardError::ZeroCap);
        }
        Ok(Config { side, start, goal, max_ticks })
    }
}

impl From<Config> for SlideSetup {
    fn from(config: Config) -> SlideSetup {
        let n_cells = config.n_cells();
        SlideSetup {
            side: config.side,
            start: match config.start {
                Some(board) => Start::Tiles(board[..n_cells].to_vec()),
                None => Start::Random,
            },
            goal: config.goal,
            max_ticks: Some(config.max_ticks),
        }
    }
}

impl Config {
    /// A fixed start. Errors say what is wrong with the board.
    pub fn fixed(side: u8, tiles: &[u8], goal: Goal) -> Result<Config, BoardError> {
        Config::try_from(SlideSetup { side, start: Start::Tiles(tiles.to_vec()), goal, max_ticks: None })
    }

    pub fn side(&self) -> u8 {
        self.side
    }
    pub(crate) fn n_cells(&self) -> usize {
        usize::from(self.side) * usize::from(self.side)
    }
    pub(crate) fn goal(&self) -> Goal {
        self.goal
    }
    /// The episode cap in ticks.
    pub(crate) fn max_ticks(&self) -> u32 {
        self.max_ticks
    }
    /// The fixed start, if the start is not drawn from the seed.
    pub(crate) fn start(&self) -> Option<&Board> {
        self.start.as_ref()
    }

    /// The same level with another episode cap.
    pub fn with_max_ticks(mut self, max_ticks: u32) -> Result<Config, BoardError> {
        if max_ticks == 0 {
            return Err(BoardError::ZeroCap);
        }
        self.max_ticks = max_ticks;
        Ok(self)
    }

    /// A one-line summary, for reports.
    pub(crate) fn describe_rules(&self) -> String {
        let start = match &self.start {
            Some(board) => format!("start {}", tiles_text(&board[..self.n_cells()])),
            None => "random solvable start from the seed".to_string(),
        };
        let n_tiles = self.n_cells() - 1;
        format!("{n_tiles}-puzzle, {} goal, {start}, episode cap {} ticks", self.goal.name(), self.max_ticks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WRITE_UP_PRINTED: [u8; 9] = [7, 3, 0, 8, 1, 4, 6, 5, 2];
    const WRITE_UP_INFERRED: [u8; 9] = [7, 3, 0, 8, 1, 4, 6, 2, 5];

    #[test]
    fn the_write_ups_printed_start_is_rejected_as_unsolvable() {
        let error = Config::fixed(3, &WRITE_UP_PRINTED, Goal::BlankLast).unwrap_err();
        assert_eq!(error, BoardError::Unsolvable { goal: "blank-last" });
        assert!(error.to_string().starts_with("unsolvable: "), "{error}");
        assert!(Config::fixed(3, &WRITE_UP_INFERRED, Goal::BlankLast).is_ok());
    }

    #[test]
    fn hostile_setups_do_not_validate() {
        let setup = |side, tiles: Vec<u8>| SlideSetup {
            side,
            start: Start::Tiles(tiles),
            goal: Goal::BlankLast,
            max_ticks: None,
        };
        assert!(Config::try_from(setup(2, vec![1, 2, 3, 0])).is_err());
        assert!(Config::try_from(setup(6, (0..36).collect())).is_err());
        assert!(Config::try_from(setup(3, vec![0; 9])).is_err());
        let ok = Config::try_from(setup(3, vec![1, 2, 3, 4, 5, 6, 7, 8, 0])).unwrap();
        let json = serde_json::to_string(&ok).unwrap();
        assert_eq!(serde_json::from_str::<Config>(&json).unwrap(), ok);
        let bad = json.replace("[1,2,3,4,5,6,7,8,0]", "[1,2,3,4,5,6,8,7,0]");
        assert!(serde_json::from_str::<Config>(&bad).is_err());
    }
}
