//! The puzzle text format: a [`Puzzle`] read from a file ([`Level`]) and a
//! setup written back out ([`PipesSetup::to_text`]).
//!
//! A header line `W H wrap|nowrap SX SY`, `H` lines of `W` hex digits (the
//! tiles' masks: Up=1 Right=2 Down=4 Left=8), and optionally `H` more lines
//! holding a reference solution. `#` starts a comment (a whole line, or the
//! rest of a line); blank lines are skipped.

use super::config::{MAX_SIDE, PipesSetup};
use super::grid::is_rotation_of;
use crate::map::{Level, MapError, content_lines};

/// A parsed puzzle file: the puzzle, and the reference solution if the file
/// has one. The solution is for tests only; it never reaches a `Config`, so
/// no planner can see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Puzzle {
    pub setup: PipesSetup,
    pub solution: Option<Vec<u8>>,
}

const HEADER_HELP: &str = "expected `WIDTH HEIGHT wrap|nowrap SOURCE_COL SOURCE_ROW`, e.g. `5 5 nowrap 2 2`";

impl Level for Puzzle {
    /// Parses the plain-text format (see the module docs). Errors name the
    /// line and column.
    fn parse(text: &str) -> Result<Puzzle, MapError> {
        let mut lines = content_lines(text);
        let Some((header_line, header)) = lines.next() else {
            return Err(MapError::whole(format!("empty puzzle: {HEADER_HELP}")));
        };
        let mut setup = parse_header(header_line, header)?;
        let (grids, row_lines) = read_grids(&setup, header_line, lines)?;
        let mut grids = grids.into_iter();
        setup.tiles = grids.next().expect("read_grids returns at least one grid");
        let solution = grids.next();
        if let Some(solution) = &solution {
            check_solution(&setup, solution, &row_lines)?;
        }
        Ok(Puzzle { setup, solution })
    }
}

/// The header line's board, topology and source, as a setup with no tiles
/// yet.
fn parse_header(header_line: usize, header: &str) -> Result<PipesSetup, MapError> {
    let header = header.split('#').next().unwrap_or_default();
    let words: Vec<&str> = header.split_whitespace().collect();
    let [width, height, topology, source_col, source_row] = words[..] else {
        return Err(MapError::at(header_line, 0, HEADER_HELP));
    };
    let number = |word: &str, what: &str| {
        if word.is_empty() || !word.bytes().all(|byte| byte.is_ascii_digit()) {
            return Err(MapError::at(header_line, 0, format!("{what} {word:?} is not a number: {HEADER_HELP}")));
        }
        word.parse::<u16>().map_err(|_| {
            MapError::at(header_line, 0, format!("{what} {word} is too large: a board's sides are at most {MAX_SIDE}"))
        })
    };
    let (width, height) = (number(width, "width")?, number(height, "height")?);
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
        return Err(MapError::at(
            header_line,
            0,
            format!("the board is {width}×{height}; each side must be 1..={MAX_SIDE}"),
        ));
    }
    let wrap = match topology {
        "wrap" => true,
        "nowrap" => false,
        other => {
            return Err(MapError::at(header_line, 0, format!("topology {other:?} is neither wrap nor nowrap")));
        }
    };
    let (source_col, source_row) = (number(source_col, "source column")?, number(source_row, "source row")?);
    if source_col >= width || source_row >= height {
        return Err(MapError::at(
            header_line,
            0,
            format!("source ({source_col}, {source_row}) is off the {width}×{height} board"),
        ));
    }
    Ok(PipesSetup { width, height, wrap, source_col, source_row, tiles: Vec::new() })
}

/// The grids after the header: the puzzle and, if present, the solution,
/// with the line of every grid row (so that a bad solution tile can be
/// located).
fn read_grids<'a>(
    setup: &PipesSetup,
    header_line: usize,
    lines: impl Iterator<Item = (usize, &'a str)>,
) -> Result<(Vec<Vec<u8>>, Vec<usize>), MapError> {
    let (width, height) = (setup.width, setup.height);
    let mut grids: Vec<Vec<u8>> = Vec::new();
    let mut current = Vec::with_capacity(usize::from(width) * usize::from(height));
    let mut last_line = header_line;
    let mut row_lines = Vec::with_capacity(2 * usize::from(height));
    for (line_no, line) in lines {
        last_line = line_no;
        row_lines.push(line_no);
        if grids.len() == 2 {
            return Err(MapError::at(
                line_no,
                1,
                "unexpected line after the solution grid (a file holds a puzzle and at most one solution)",
            ));
        }
        read_row(line_no, line, width, &mut current)?;
        if current.len() == usize::from(width) * usize::from(height) {
            grids.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() || grids.is_empty() {
        let which = if grids.is_empty() { "puzzle" } else { "solution" };
        let rows = current.len() / usize::from(width);
        return Err(MapError::at(
            last_line + 1,
            0,
            format!("the {which} grid ends after {rows} rows, expected {height} (the header's height)"),
        ));
    }
    Ok((grids, row_lines))
}

/// Appends the masks of one grid row to `tiles`; the row must hold
/// `width` hex digits.
fn read_row(line_no: usize, line: &str, width: u16, tiles: &mut Vec<u8>) -> Result<(), MapError> {
    let digits = line.split('#').next().unwrap_or_default().trim_end();
    let mut n_digits = 0usize;
    for (index, ch) in digits.chars().enumerate() {
        let Some(mask) = ch.to_digit(16) else {
            return Err(MapError::at(
                line_no,
                index + 1,
                format!("unexpected {ch:?}: a tile is one hex digit 0-9 or a-f (Up=1 Right=2 Down=4 Left=8)"),
            ));
        };
        n_digits += 1;
        tiles.push(mask as u8);
    }
    if n_digits != usize::from(width) {
        return Err(MapError::at(
            line_no,
            n_digits.min(usize::from(width)) + 1,
            format!("row has {n_digits} tiles, expected {width} (the header's width)"),
        ));
    }
    Ok(())
}

/// Checks that every tile of `solution` is a turn of the puzzle's tile;
/// `row_lines` locates the first that is not.
fn check_solution(setup: &PipesSetup, solution: &[u8], row_lines: &[usize]) -> Result<(), MapError> {
    let Some(tile) = (0..solution.len()).find(|&tile| !is_rotation_of(solution[tile], setup.tiles[tile])) else {
        return Ok(());
    };
    let width = usize::from(setup.width);
    let line_no = row_lines[usize::from(setup.height) + tile / width];
    Err(MapError::at(
        line_no,
        tile % width + 1,
        format!("solution tile {:x} is not a rotation of the puzzle's tile {:x}", solution[tile], setup.tiles[tile]),
    ))
}

impl PipesSetup {
    /// The puzzle in the file format: header, grid, and `solution` after a
    /// blank line if given. `comment` lines come first, each after `# `.
    pub fn to_text(&self, comments: &[String], solution: Option<&[u8]>) -> String {
        let mut out = String::new();
        for comment in comments {
            out.push_str("# ");
            out.push_str(comment);
            out.push('\n');
        }
        let topology = if self.wrap { "wrap" } else { "nowrap" };
        out.push_str(&format!("{} {} {topology} {} {}\n", self.width, self.height, self.source_col, self.source_row));
        let push_grid = |out: &mut String, grid: &[u8]| {
            for row in grid.chunks(usize::from(self.width)) {
                for &mask in row {
                    out.push(char::from_digit(u32::from(mask), 16).unwrap_or('?'));
                }
                out.push('\n');
            }
        };
        push_grid(&mut out, &self.tiles);
        if let Some(solution) = solution {
            out.push('\n');
            push_grid(&mut out, solution);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::pipes::{Config, Grid};

    #[test]
    fn parse_reads_header_grid_comments_and_solution() {
        let puzzle =
            Puzzle::parse("# a puzzle\n3 2 wrap 1 1   # width, height\n4a2\nfe0 # row two\n\n2a8\nfe0\n").unwrap();
        assert_eq!(puzzle.setup.grid(), Grid { width: 3, height: 2, wrap: true });
        assert_eq!((puzzle.setup.source_col, puzzle.setup.source_row), (1, 1));
        assert_eq!(puzzle.setup.tiles, vec![4, 0xa, 2, 0xf, 0xe, 0]);
        assert_eq!(puzzle.solution, Some(vec![2, 0xa, 8, 0xf, 0xe, 0]));
        let text = puzzle.setup.to_text(&["made by hand".to_string()], puzzle.solution.as_deref());
        assert_eq!(Puzzle::parse(&text).unwrap(), puzzle);
        assert!(text.starts_with("# made by hand\n3 2 wrap 1 1\n"));
    }

    #[track_caller]
    fn check_error(text: &str, line: usize, column: usize, fragment: &str) {
        let error = match Puzzle::parse(text) {
            Err(error) => error,
            Ok(puzzle) => Config::try_from(puzzle.setup).expect_err("the puzzle should be rejected"),
        };
        assert_eq!((error.line, error.column), (line, column), "{error}");
        assert!(error.message.contains(fragment), "{error:?} should mention {fragment:?}");
    }

    #[test]
    fn parse_errors_name_line_and_column() {
        check_error("", 0, 0, "empty puzzle");
        check_error("3 2 nowrap 1\n", 1, 0, "expected `WIDTH HEIGHT");
        check_error("3 x nowrap 1 1\n", 1, 0, "height \"x\" is not a number");
        check_error("100000 2 nowrap 0 0\n", 1, 0, "width 100000 is too large: a board's sides are at most 500");
        check_error("600 2 nowrap 0 0\n", 1, 0, "each side must be 1..=500");
        check_error("0 2 nowrap 0 0\n", 1, 0, "each side must be 1..=500");
        check_error("3 2 torus 1 1\n", 1, 0, "neither wrap nor nowrap");
        check_error("3 2 wrap 3 1\n", 1, 0, "source (3, 1) is off the 3×2 board");
        check_error("# c\n3 2 wrap 1 1\n4a2\n4g2\n", 4, 2, "unexpected 'g'");
        check_error("3 2 wrap 1 1\n4a\n", 2, 3, "row has 2 tiles, expected 3");
        check_error("3 2 wrap 1 1\n4a21\n", 2, 4, "row has 4 tiles");
        check_error("3 2 wrap 1 1\n4a2\n", 3, 0, "the puzzle grid ends after 1 rows, expected 2");
        check_error("3 2 wrap 1 1\n4a2\n4a2\n\n4a2\n", 6, 0, "the solution grid ends after 1 rows");
        check_error("3 1 wrap 1 0\n4a2\n\n4a3\n", 4, 3, "solution tile 3 is not a rotation of the puzzle's tile 2");
        check_error("3 1 wrap 1 0\n4a2\n\n4a2\n4a2\n", 5, 1, "unexpected line after the solution grid");
    }
}
