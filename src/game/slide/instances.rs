//! The sliding puzzle's text format: an instance file (one board per line,
//! with its goal convention and, where known, its optimal length), read as
//! a [`map::Level`](crate::map::Level), and the tile list a board line (or
//! `--tiles`) is written in.

use super::board::{Goal, MAX_CELLS, side_for_cells};
use super::config::Config;
use crate::map::{Level, MapError, content_lines};

/// One board of an instance file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// 1-based position among the file's instances.
    pub id: u32,
    /// The line it came from.
    pub(crate) line: usize,
    pub config: Config,
    /// The published optimal length, when the file gives one.
    pub optimal: Option<u32>,
}

/// An instance file: one board per line (`side²` numbers, row-major,
/// 0 = blank), optionally followed by `# optimal N` (the published optimal
/// length); `goal blank-first` / `goal blank-last` lines set the convention
/// for the lines after them (default blank-last); other `#` lines are
/// comments. It holds at least one instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstanceSet {
    instances: Vec<Instance>,
}

impl InstanceSet {
    pub fn into_instances(self) -> Vec<Instance> {
        self.instances
    }

    /// Parses space- or comma-separated tiles, as a board line of an
    /// instance file writes them and `--tiles "7 3 0 8 1 4 6 2 5"` gives them.
    pub fn parse_tiles(text: &str) -> Result<Vec<u8>, MapError> {
        parse_tiles_at(0, text)
    }
}

impl Level for InstanceSet {
    /// Errors name the line and, where one number is at fault, its column.
    fn parse(text: &str) -> Result<InstanceSet, MapError> {
        let mut goal = Goal::BlankLast;
        let mut instances = Vec::new();
        for (line_no, line) in content_lines(text) {
            let (board_text, comment) = match line.split_once('#') {
                Some((board, comment)) => (board, Some(comment)),
                None => (line, None),
            };
            if board_text.trim_start().starts_with("goal") {
                goal = parse_goal_line(line_no, board_text)?;
                continue;
            }
            let optimal = parse_optimal(line_no, comment)?;
            let tiles = parse_tiles_at(line_no, board_text)?;
            let side = side_for_cells(tiles.len()).ok_or_else(|| {
                MapError::at(
                    line_no,
                    0,
                    format!("expected 9, 16 or 25 numbers (a 3×3, 4×4 or 5×5 board), got {}", tiles.len()),
                )
            })?;
            let config =
                Config::fixed(side, &tiles, goal).map_err(|error| MapError::at(line_no, 0, error.to_string()))?;
            instances.push(Instance { id: instances.len() as u32 + 1, line: line_no, config, optimal });
        }
        if instances.is_empty() {
            return Err(MapError::whole("no instance: expected lines of 9, 16 or 25 numbers"));
        }
        Ok(InstanceSet { instances })
    }
}

/// A `goal blank-first` or `goal blank-last` line.
fn parse_goal_line(line_no: usize, text: &str) -> Result<Goal, MapError> {
    let mut words = text.split_whitespace().skip(1);
    match (words.next(), words.next()) {
        (Some("blank-first"), None) => Ok(Goal::BlankFirst),
        (Some("blank-last"), None) => Ok(Goal::BlankLast),
        _ => Err(MapError::at(line_no, 0, "expected `goal blank-first` or `goal blank-last`")),
    }
}

/// The `# optimal N` after a board, if its comment is one.
fn parse_optimal(line_no: usize, comment: Option<&str>) -> Result<Option<u32>, MapError> {
    match comment.map(str::trim) {
        Some(comment) if comment.starts_with("optimal") => {
            let number = comment["optimal".len()..].trim();
            let optimal = number.parse::<u32>().map_err(|_| {
                MapError::at(line_no, 0, format!("expected `# optimal N` with N a number, got {number:?}"))
            })?;
            Ok(Some(optimal))
        }
        _ => Ok(None),
    }
}

fn parse_tiles_at(line_no: usize, text: &str) -> Result<Vec<u8>, MapError> {
    let mut tiles = Vec::new();
    let mut column = 1;
    for word in text.split(|ch: char| ch.is_whitespace() || ch == ',') {
        if !word.is_empty() {
            let tile = word.parse::<u8>().ok().filter(|&tile| usize::from(tile) < MAX_CELLS).ok_or_else(|| {
                MapError::at(line_no, column, format!("expected a tile number 0..24 (0 = blank), got {word:?}"))
            })?;
            tiles.push(tile);
        }
        column += word.chars().count() + 1;
    }
    Ok(tiles)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_files_parse_goal_lines_and_optimal_lengths() {
        let text = "# a comment\n1 2 3 4 5 6 7 0 8  # optimal 1\ngoal blank-first\n1 0 2 3 4 5 6 7 8\n";
        let instances = InstanceSet::parse(text).unwrap().into_instances();
        assert_eq!(instances.len(), 2);
        assert_eq!((instances[0].id, instances[0].line, instances[0].optimal), (1, 2, Some(1)));
        assert_eq!(instances[0].config.goal(), Goal::BlankLast);
        assert_eq!((instances[1].id, instances[1].line, instances[1].optimal), (2, 4, None));
        assert_eq!(instances[1].config.goal(), Goal::BlankFirst);
    }

    #[track_caller]
    fn check_bad(text: &str, line: usize, column: usize, message: &str) {
        let error = InstanceSet::parse(text).unwrap_err();
        assert_eq!((error.line, error.column), (line, column), "{error}");
        assert!(error.message.contains(message), "{:?} lacks {message:?}", error.message);
    }

    #[test]
    fn bad_instance_files_name_the_line_and_the_problem() {
        check_bad("1 2 3\n", 1, 0, "expected 9, 16 or 25 numbers");
        check_bad("\n1 2 3 4 5 6 7 8 8\n", 2, 0, "tile 8 appears twice");
        check_bad("1 2 3 4 5 6 7 8 9\n", 1, 0, "tile 9 is out of range");
        check_bad("1 2 x 4 5 6 7 8 0\n", 1, 5, "got \"x\"");
        check_bad("7 3 0 8 1 4 6 5 2\n", 1, 0, "unsolvable");
        check_bad("goal sideways\n", 1, 0, "expected `goal blank-first` or `goal blank-last`");
        check_bad("1 2 3 4 5 6 7 8 0 # optimal many\n", 1, 0, "expected `# optimal N`");
        assert_eq!(InstanceSet::parse("# nothing\n").unwrap_err().line, 0);
    }
}
