//! The four grid directions: the action of a Snake, Reach the Flag or
//! sliding-puzzle tick, one type with one set of names and codes.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A direction on a grid whose rows run top to bottom: `Up` is towards
/// row 0. Snake and Reach the Flag move a piece in it; the sliding puzzle
/// moves its blank.
///
/// Part of the replay format (see `replay::format`): each game's action
/// code is the direction's [`Dir::code`], and a Snake start stores its
/// heading by variant index, so the variants' order and number may not
/// change without a format version bump.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    Up,
    Right,
    Down,
    Left,
}

impl Dir {
    /// All directions, in the fixed order every tie-break and code uses.
    pub(crate) const ALL: [Dir; 4] = [Dir::Up, Dir::Right, Dir::Down, Dir::Left];

    pub(crate) fn opposite(self) -> Dir {
        match self {
            Dir::Up => Dir::Down,
            Dir::Right => Dir::Left,
            Dir::Down => Dir::Up,
            Dir::Left => Dir::Right,
        }
    }

    /// The stable code of the direction: its index in [`Dir::ALL`]
    /// (0 up, 1 right, 2 down, 3 left).
    pub(crate) fn code(self) -> u8 {
        self as u8
    }

    /// The inverse of [`Dir::code`]; `None` for a code of no direction.
    pub(crate) fn from_code(code: u32) -> Option<Dir> {
        Dir::ALL.get(usize::try_from(code).ok()?).copied()
    }

    /// The direction named by `word` as [`Display`](fmt::Display) writes it
    /// (`up`, `right`, `down`, `left`).
    pub fn from_word(word: &str) -> Option<Dir> {
        Dir::ALL.into_iter().find(|dir| dir.word() == word)
    }

    /// Its one-letter name in move strings: `U`, `R`, `D` or `L`.
    pub(crate) fn letter(self) -> char {
        match self {
            Dir::Up => 'U',
            Dir::Right => 'R',
            Dir::Down => 'D',
            Dir::Left => 'L',
        }
    }

    /// The inverse of [`Dir::letter`], in either case (Reach the Flag's
    /// files write moves in lower case).
    pub fn from_letter(letter: char) -> Option<Dir> {
        Dir::ALL.into_iter().find(|dir| dir.letter() == letter.to_ascii_uppercase())
    }

    fn word(self) -> &'static str {
        match self {
            Dir::Up => "up",
            Dir::Right => "right",
            Dir::Down => "down",
            Dir::Left => "left",
        }
    }
}

impl fmt::Display for Dir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_and_code_reads_back_as_its_direction() {
        for (code, dir) in Dir::ALL.into_iter().enumerate() {
            assert_eq!(dir.code() as usize, code);
            assert_eq!(Dir::from_code(code as u32), Some(dir));
            assert_eq!(Dir::from_word(&dir.to_string()), Some(dir));
            assert_eq!(Dir::from_letter(dir.letter()), Some(dir));
            assert_eq!(Dir::from_letter(dir.letter().to_ascii_lowercase()), Some(dir));
            assert_eq!(dir.opposite().opposite(), dir);
            assert_ne!(dir.opposite(), dir);
        }
        assert_eq!(Dir::from_code(4), None);
        assert_eq!(Dir::from_word("north"), None);
        assert_eq!(Dir::from_letter('x'), None);
    }
}
