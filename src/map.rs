//! Shared pieces of the plain-text map formats: the error type that names the
//! line and column, and a reader that skips comments and blank lines.
//!
//! Each game parses its own format (in its module) into a validated config;
//! this file only holds what every format has in common. No file I/O here:
//! the caller reads the file and attaches its path to the error.

use std::fmt;
use std::path::PathBuf;

/// A map that could not be parsed or validated, located as precisely as we can.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct MapError {
    /// The file, when the map came from one.
    pub path: Option<PathBuf>,
    /// 1-based line; 0 when the problem concerns the map as a whole.
    pub line: usize,
    /// 1-based column; 0 when the problem concerns the whole line.
    pub column: usize,
    pub message: String,
}

impl MapError {
    pub(crate) fn at(line: usize, column: usize, message: impl Into<String>) -> MapError {
        MapError { path: None, line, column, message: message.into() }
    }

    pub(crate) fn whole(message: impl Into<String>) -> MapError {
        MapError::at(0, 0, message)
    }

    /// The same error, said of the file at `path`.
    pub fn in_file(mut self, path: impl Into<PathBuf>) -> MapError {
        self.path = Some(path.into());
        self
    }
}

impl fmt::Display for MapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let source = match &self.path {
            Some(path) => path.display().to_string(),
            None => "<map>".to_string(),
        };
        match (self.line, self.column) {
            (0, _) => write!(f, "{source}: {}", self.message),
            (line, 0) => write!(f, "{source}:{line}: {}", self.message),
            (line, column) => write!(f, "{source}:{line}:{column}: {}", self.message),
        }
    }
}

/// The meaningful lines of a map text: `(1-based line number, text)` with
/// trailing whitespace and `\r` removed, skipping blank lines and lines whose
/// first non-blank character is `#`.
pub(crate) fn content_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(index, line)| {
        let line = line.trim_end();
        let first = line.trim_start().chars().next();
        match first {
            None | Some('#') => None,
            Some(_) => Some((index + 1, line)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_lines_skip_comments_and_blanks_and_keep_numbers() {
        let text = "# title\n\nab \r\n  # indented comment\ncd\n";
        let lines: Vec<_> = content_lines(text).collect();
        assert_eq!(lines, vec![(3, "ab"), (5, "cd")]);
    }

    #[test]
    fn error_display_names_file_line_and_column() {
        let error = MapError::at(3, 7, "unexpected 'x'").in_file("maps/a.txt");
        assert_eq!(error.to_string(), "maps/a.txt:3:7: unexpected 'x'");
        assert_eq!(MapError::at(2, 0, "too short").to_string(), "<map>:2: too short");
    }
}
