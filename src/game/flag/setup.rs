//! Reach the Flag's map format: the tiles, the unvalidated [`FlagSetup`] a
//! map, a replay header or a generator gives, and the text format, read
//! straight into a validated [`Config`] (its [`Level`] impl).
//!
//! The format is read into the validated `Config`, not the setup, because
//! nothing changes a map between the file and the game (unlike Snake, whose
//! command line may move the start): one type for what a map file holds.

use serde::{Deserialize, Serialize};

use super::{Config, MAX_CELLS, MAX_SIDE};
use crate::map::{Level, MapError, content_lines};

/// One cell of the map as drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tile {
    /// Not walkable (`.` or `0`).
    Hole,
    /// Falls after one entry (`1`).
    Fragile,
    /// Falls after two entries (`2`).
    Cracked,
    /// Never falls (`3`).
    Stone,
    /// Never falls; the goal (`5` or `F`).
    Flag,
}

impl Tile {
    /// Entries the tile takes before it falls; 0 for tiles that never fall
    /// (and for holes).
    pub(crate) fn visits(self) -> u8 {
        match self {
            Tile::Fragile => 1,
            Tile::Cracked => 2,
            Tile::Hole | Tile::Stone | Tile::Flag => 0,
        }
    }

    /// Whether the tile never falls.
    pub(crate) fn is_permanent(self) -> bool {
        matches!(self, Tile::Stone | Tile::Flag)
    }

    /// The character the map format uses for the tile.
    pub(crate) fn symbol(self) -> char {
        match self {
            Tile::Hole => '.',
            Tile::Fragile => '1',
            Tile::Cracked => '2',
            Tile::Stone => '3',
            Tile::Flag => 'F',
        }
    }

    fn parse(ch: char) -> Option<Tile> {
        match ch {
            '.' | '0' => Some(Tile::Hole),
            '1' => Some(Tile::Fragile),
            '2' => Some(Tile::Cracked),
            '3' => Some(Tile::Stone),
            '5' | 'F' => Some(Tile::Flag),
            _ => None,
        }
    }
}

/// A level as a map file, the command line or a replay header says it,
/// unvalidated. [`Config::try_from`] validates it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlagSetup {
    pub width: u16,
    pub height: u16,
    /// Row-major, row 0 at the top, `width * height` entries.
    pub tiles: Vec<Tile>,
    /// Start column.
    pub start_col: u16,
    /// Start row (0 is the top).
    pub start_row: u16,
}

impl FlagSetup {
    /// The start cell (row-major index), or why the start is not on a tile
    /// of the board.
    pub(super) fn check_start(&self) -> Result<usize, String> {
        let (col, row) = (self.start_col, self.start_row);
        if col >= self.width || row >= self.height {
            return Err(format!("the start (column {col}, row {row}) is off the {}×{} board", self.width, self.height));
        }
        let cell = usize::from(row) * usize::from(self.width) + usize::from(col);
        if self.tiles.get(cell) == Some(&Tile::Hole) {
            return Err(format!("the start (column {col}, row {row}) is on a hole"));
        }
        Ok(cell)
    }

    /// The map in the file format, with `comment` lines (each prefixed
    /// with `# `) first.
    pub fn to_text(&self, comment: &str) -> String {
        let mut out = String::new();
        for line in comment.lines() {
            out.push_str("# ");
            out.push_str(line);
            out.push('\n');
        }
        out.push_str(&format!("start {} {}\n", self.start_col, self.start_row));
        for row in self.tiles.chunks(usize::from(self.width.max(1))) {
            out.extend(row.iter().map(|tile| tile.symbol()));
            out.push('\n');
        }
        out
    }
}

impl Level for Config {
    /// Parses and validates a map: an optional `start COL ROW` line, then
    /// one grid line per row (`.`/`0` hole, `1` fragile, `2` cracked, `3`
    /// stone, `5`/`F` flag). `#` starts a comment, on its own line or after
    /// the content.
    fn parse(text: &str) -> Result<Config, MapError> {
        Config::try_from(parse_setup(text)?)
    }
}

/// The map text as a setup, checked as far as the text can point at a
/// line: the grid, its one flag, the start line and where the start is.
fn parse_setup(text: &str) -> Result<FlagSetup, MapError> {
    let mut start: Option<(usize, u16, u16)> = None;
    let mut rows: Vec<Vec<Tile>> = Vec::new();
    let mut width = 0usize;
    let mut first_grid_line = 0;
    let mut flag_seen: Option<(usize, usize)> = None;
    for (line_no, line) in content_lines(text) {
        let line = line.split('#').next().unwrap_or_default().trim_end();
        if line.trim_start().starts_with("start") {
            if let Some((first, _, _)) = start {
                return Err(MapError::at(line_no, 0, format!("a second `start` line (the first is line {first})")));
            }
            let (col, row) = parse_start(line_no, line)?;
            start = Some((line_no, col, row));
            continue;
        }
        let cells = parse_row(line_no, line, &mut flag_seen)?;
        if rows.is_empty() {
            width = cells.len();
            first_grid_line = line_no;
        } else if cells.len() != width {
            return Err(MapError::at(
                line_no,
                cells.len().min(width) + 1,
                format!("row has {} cells, but the first row (line {first_grid_line}) has {width}", cells.len()),
            ));
        }
        rows.push(cells);
    }
    if rows.is_empty() {
        return Err(MapError::whole("no grid: expected rows of '.', '1', '2', '3' and one '5' or 'F'"));
    }
    if width > usize::from(MAX_SIDE) || rows.len() > usize::from(MAX_SIDE) || width * rows.len() > MAX_CELLS {
        return Err(MapError::whole(format!(
            "the board is {width}×{}; it may be at most {MAX_SIDE}×{MAX_SIDE} and {MAX_CELLS} cells",
            rows.len()
        )));
    }
    if flag_seen.is_none() {
        return Err(MapError::whole("no flag: exactly one cell must be '5' or 'F'"));
    }
    let Some((start_line, start_col, start_row)) = start else {
        return Err(MapError::whole("no `start COL ROW` line (column, then row; row 0 is the top grid line)"));
    };
    let setup =
        FlagSetup { width: width as u16, height: rows.len() as u16, tiles: rows.concat(), start_col, start_row };
    // Check the start here, where its line is known, so the error can
    // point at it.
    setup.check_start().map_err(|message| MapError::at(start_line, 0, message))?;
    Ok(setup)
}

/// One grid line's tiles; `flag_seen` holds where the first flag was, so
/// that a second one is refused where it stands.
fn parse_row(line_no: usize, line: &str, flag_seen: &mut Option<(usize, usize)>) -> Result<Vec<Tile>, MapError> {
    let mut cells = Vec::with_capacity(line.len());
    for (index, ch) in line.chars().enumerate() {
        let Some(tile) = Tile::parse(ch) else {
            return Err(MapError::at(
                line_no,
                index + 1,
                format!(
                    "unexpected {ch:?}: a cell is '.' or '0' (hole), '1' (fragile), '2' (cracked), '3' (stone) or \
                     '5'/'F' (flag)"
                ),
            ));
        };
        if tile == Tile::Flag {
            if let Some((flag_line, flag_column)) = *flag_seen {
                return Err(MapError::at(
                    line_no,
                    index + 1,
                    format!("a second flag (the first is at line {flag_line}, column {flag_column})"),
                ));
            }
            *flag_seen = Some((line_no, index + 1));
        }
        cells.push(tile);
    }
    Ok(cells)
}

fn parse_start(line_no: usize, line: &str) -> Result<(u16, u16), MapError> {
    let expected = "expected `start COL ROW`, e.g. `start 0 4` (row 0 is the top grid line)";
    let words: Vec<&str> = line.split_whitespace().collect();
    let [_, col, row] = words[..] else {
        return Err(MapError::at(line_no, 0, expected));
    };
    let number = |word: &str| word.parse::<u16>().map_err(|_| MapError::at(line_no, 0, expected));
    Ok((number(col)?, number(row)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(map: &str) -> Config {
        Config::parse(map).unwrap_or_else(|error| panic!("{error}"))
    }

    #[track_caller]
    fn check_error(text: &str, line: usize, column: usize, fragment: &str) {
        let error = Config::parse(text).expect_err("the map should be rejected");
        assert_eq!((error.line, error.column), (line, column), "{error}");
        assert!(error.message.contains(fragment), "{error:?} should mention {fragment:?}");
    }

    #[test]
    fn map_errors_name_line_and_column() {
        check_error("start 0 0\n11F\n1x1\n", 3, 2, "unexpected 'x'");
        check_error("start 0 0\n11F\n11\n", 3, 3, "row has 2 cells, but the first row (line 2) has 3");
        check_error("start 0 0\n1F\n5.\n", 3, 1, "a second flag (the first is at line 2, column 2)");
        check_error("start 0 0\n111\n", 0, 0, "no flag");
        check_error("11F\n", 0, 0, "no `start COL ROW` line");
        check_error("# map\nstart 3 0\n11F\n", 2, 0, "off the 3×1 board");
        check_error("start 1 0\n1.F\n", 1, 0, "is on a hole");
        check_error("start 0\n11F\n", 1, 0, "expected `start COL ROW`");
        check_error("start a b\n11F\n", 1, 0, "expected `start COL ROW`");
        check_error("start 0 0\nstart 1 0\n11F\n", 2, 0, "a second `start` line (the first is line 1)");
        check_error("# nothing\n", 0, 0, "no grid");
        check_error(&format!("start 0 0\nF{}\n", "1".repeat(64)), 0, 0, "at most 64×64");
    }

    #[test]
    fn comments_after_content_and_zero_holes_parse_and_round_trip() {
        let text = "# comment lines start with '#'\nstart 0 4          # column, row\n...1.\n...51\n...1.\n...1.\n\
                    1113.\n...1.\n";
        let config = level(text);
        assert_eq!((config.width(), config.height()), (5, 6));
        assert_eq!(config.col_row(config.start()), (0, 4));
        assert_eq!(config.col_row(config.flag()), (3, 1));
        assert_eq!((config.count(Tile::Fragile), config.count(Tile::Stone)), (8, 1));
        let zeros = level("start 0 0\n10F\n");
        assert_eq!(zeros.tile(1), Tile::Hole);
        // The text form parses back to the same level.
        let round_trip = level(&FlagSetup::from(config.clone()).to_text("again"));
        assert_eq!(round_trip, config);
    }
}
