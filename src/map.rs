//! The plain-text level formats' common ground: the [`Level`] trait every
//! game's format implements, [`read`] (the one way a level file is read:
//! bounded, its errors naming the file), the error that names the line and
//! column, and a reader that skips comments and blank lines.
//!
//! Each game parses its own format (in its module) into an unvalidated
//! setup or a validated config; this file only holds what every format has
//! in common, so the games themselves never touch a file.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A level, or a set of levels, in a game's plain-text format: a Snake or
/// Reach the Flag map, a file of sliding puzzles, a pipe puzzle, a card
/// list. Parse errors carry the line and column; [`read`] adds the file.
pub trait Level: Sized {
    /// The largest file of this format [`read`] accepts, so that a wrong
    /// path (`/dev/zero`, a disk image) fails at once instead of filling
    /// memory. Generous: the largest bundled file is far below it.
    const MAX_BYTES: u64 = 64 << 20;

    /// Parses the text of one file.
    fn parse(text: &str) -> Result<Self, MapError>;
}

/// Reads the level file at `path`: at most `L::MAX_BYTES`, as UTF-8, then
/// [`Level::parse`]; every error names `path`.
pub fn read<L: Level>(path: &Path) -> Result<L, MapError> {
    let cannot = |why: String| MapError::whole(why).in_file(path);
    // Not `File::open`: a FIFO named by mistake would wait forever.
    let file = crate::input::open(path).map_err(|error| match error {
        crate::input::InputError::NotAFile { kind, .. } => cannot(format!("{kind}, not a level file")),
        crate::input::InputError::Io { cause, .. } => cannot(format!("cannot read: {cause}")),
        too_large @ crate::input::InputError::TooLarge { .. } => cannot(too_large.to_string()),
    })?;
    let mut bytes = Vec::new();
    file.take(L::MAX_BYTES + 1).read_to_end(&mut bytes).map_err(|error| cannot(format!("cannot read: {error}")))?;
    if bytes.len() as u64 > L::MAX_BYTES {
        return Err(cannot(format!("larger than {} bytes: not a level file", L::MAX_BYTES)));
    }
    let text = String::from_utf8(bytes).map_err(|error| {
        let before = &error.as_bytes()[..error.utf8_error().valid_up_to()];
        let line = before.iter().filter(|&&byte| byte == b'\n').count() + 1;
        MapError::at(line, 0, "not UTF-8 text").in_file(path)
    })?;
    L::parse(&text).map_err(|error| error.in_file(path))
}

/// A map that could not be parsed or validated, located as precisely as we can.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct MapError {
    /// The file, when the map came from one.
    pub path: Option<PathBuf>,
    /// 1-based line; 0 when the problem concerns the map as a whole.
    pub line: usize,
    /// 1-based column; 0 when the problem concerns the whole line.
    pub(crate) column: usize,
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

    /// A format whose levels are their meaningful lines.
    #[derive(Debug)]
    struct Lines(Vec<String>);

    impl Level for Lines {
        const MAX_BYTES: u64 = 64;

        fn parse(text: &str) -> Result<Lines, MapError> {
            let lines: Vec<String> = content_lines(text).map(|(_, line)| line.to_string()).collect();
            if lines.is_empty() { Err(MapError::whole("no levels")) } else { Ok(Lines(lines)) }
        }
    }

    #[test]
    fn read_names_the_file_and_refuses_what_is_too_large_or_not_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name);
        std::fs::write(path("two.txt"), "# two levels\na\nb\n").unwrap();
        assert_eq!(read::<Lines>(&path("two.txt")).unwrap().0, ["a", "b"]);
        std::fs::write(path("empty.txt"), "").unwrap();
        let error = read::<Lines>(&path("empty.txt")).unwrap_err();
        assert_eq!(error.to_string(), format!("{}: no levels", path("empty.txt").display()));
        std::fs::write(path("big.txt"), "x".repeat(65)).unwrap();
        assert!(read::<Lines>(&path("big.txt")).unwrap_err().to_string().contains("larger than 64 bytes"));
        std::fs::write(path("binary.txt"), b"a\nb\n\xff\n").unwrap();
        assert!(read::<Lines>(&path("binary.txt")).unwrap_err().to_string().ends_with("binary.txt:3: not UTF-8 text"));
        let error = read::<Lines>(&path("missing.txt")).unwrap_err().to_string();
        assert!(error.contains("missing.txt: cannot read: "), "{error}");
    }

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
