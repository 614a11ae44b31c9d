//! The command-line pieces every game's file shares: the options of
//! `play`, the levels `run` hands to a game's entry, and the `WxH` size
//! parser. Below the per-game files and `support/` (which use it); uses
//! nothing of the binary's.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::anyhow;
use clap::Args;

/// The options of `tickbot play` that every game shares.
#[derive(Debug, Args)]
pub(crate) struct PlayArgs {
    /// The game's seed (Snake: where food appears; planners that draw random
    /// numbers draw them from it too).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// An external agent plays instead of the planner: COMMAND speaks the JSON-lines
    /// protocol (docs/protocols.md), split into words as a shell would but run
    /// without one.
    #[arg(long, value_name = "COMMAND")]
    pub agent: Option<String>,
    /// The agent's time limit per call, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1000, requires = "agent")]
    pub agent_call_ms: u64,
    /// Write the replay to this file.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Print the final board (redrawn from the replay).
    #[arg(long, requires = "record")]
    pub show: bool,
    /// Longest time one planner call may take before the game is aborted.
    #[arg(long, default_value_t = 10_000, value_name = "MS", env = "TICKBOT_MOVE_BUDGET_MS")]
    pub move_budget_ms: u64,
}

/// The levels of one entry: files (or none: the game's flags name the
/// level), and which of them to play.
#[derive(Debug)]
pub(crate) struct Levels {
    pub files: Vec<PathBuf>,
    /// The name of the one level when there are no files.
    pub default_name: String,
    /// Which levels to play, numbered from 1; `None`: all.
    pub pick: Option<Vec<u32>>,
}

impl Levels {
    /// Each file with its name, or the one default level.
    pub(crate) fn files(&self) -> Vec<(String, Option<&Path>)> {
        if self.files.is_empty() {
            return vec![(self.default_name.clone(), None)];
        }
        self.files.iter().map(|path| (path.display().to_string(), Some(path.as_path()))).collect()
    }

    /// The picked files, each read into a level by `read`.
    pub(crate) fn read<C>(
        &self,
        mut read: impl FnMut(Option<&Path>) -> anyhow::Result<C>,
    ) -> anyhow::Result<Vec<(String, Arc<C>)>> {
        self.pick(self.files())?.into_iter().map(|(name, path)| Ok((name, Arc::new(read(path)?)))).collect()
    }

    /// The picked ones of `levels` (all without `pick`).
    pub(crate) fn pick<T>(&self, levels: Vec<T>) -> anyhow::Result<Vec<T>> {
        let Some(pick) = &self.pick else {
            return Ok(levels);
        };
        let count = levels.len();
        let mut slots: Vec<Option<T>> = levels.into_iter().map(Some).collect();
        pick.iter()
            .map(|&number| {
                let slot = slots.get_mut(number as usize - 1);
                slot.and_then(Option::take).ok_or_else(|| {
                    anyhow!("pick: level {number} is not there, or picked twice (the level holds {count})")
                })
            })
            .collect()
    }
}

/// The largest board side any game accepts on the command line; each game
/// has its own, smaller limit that its rules check.
const MAX_SIDE: u16 = 4096;

/// Parses `WxH`, e.g. `10x10`.
pub(crate) fn parse_size(text: &str) -> Result<(u16, u16), String> {
    let expected = || format!("expected WIDTHxHEIGHT like 10x10, got {text:?}");
    let (width, height) = text.split_once(['x', 'X']).ok_or_else(expected)?;
    let side = |word: &str, name: &str| -> Result<u16, String> {
        let word = word.trim();
        if word.is_empty() || !word.bytes().all(|byte| byte.is_ascii_digit()) {
            return Err(expected());
        }
        match word.parse::<u64>() {
            Ok(0) => Err(format!("the {name} must be at least 1")),
            Ok(value) if value <= u64::from(MAX_SIDE) => Ok(value as u16),
            _ => Err(format!("the {name} {word} is too large: at most {MAX_SIDE}")),
        }
    };
    Ok((side(width, "width")?, side(height, "height")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_bad_ones_say_what_is_wrong() {
        assert_eq!(parse_size("10x12"), Ok((10, 12)));
        assert_eq!(parse_size(" 3 X 4 "), Ok((3, 4)));
        let error = |text| parse_size(text).unwrap_err();
        assert!(error("10").contains("expected WIDTHxHEIGHT"));
        assert!(error("axb").contains("expected WIDTHxHEIGHT"));
        assert_eq!(error("100000x1"), "the width 100000 is too large: at most 4096");
        assert_eq!(error("5x0"), "the height must be at least 1");
    }
}
