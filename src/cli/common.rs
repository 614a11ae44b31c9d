//! The command-line pieces every game shares: the options of `play` and
//! `run`, the exit-code table `--help` prints, and value parsers. Below the
//! per-game files, which use it; uses nothing of theirs.

use std::path::PathBuf;

use clap::Args;

pub const EXIT_CODES: &str = "\
Exit codes:
  0    success (for `replay verify`: every replay reproduced exactly)
  1    `replay verify`/`show`: a replay diverged (an action that is illegal where it
       was recorded, or a state hash that differs, at some tick; `show` says so
       for `--tick` at or after that tick and for `--all`)
  2    bad command line or bad input (an unreadable or invalid map, a missing file, ...)
  3    `replay verify`/`show`/`upgrade`: a file is not a valid replay (foreign, truncated,
       unsupported format version, corrupt or damaged, or an action code that stands
       for no action); 1 takes precedence when both occur
  4    runtime failure (cannot write replays, results or logs)
  130  interrupted (Ctrl-C or SIGTERM): finished work is kept and reported;
       a second Ctrl-C ends at once
  141  the reader of the output went away (`... | head`): ended quietly by SIGPIPE";

/// The options of `tickbot play` that every game shares.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The game's seed (Snake: where food appears; planners that draw random
    /// numbers draw them from it too).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
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

/// The options of `tickbot run` that every game shares.
#[derive(Debug, Args)]
pub struct RunOptions {
    /// Number of games to play.
    #[arg(long, global = true, default_value_t = 20)]
    pub games: u64,
    /// Master seed; game i plays with a seed derived from (seed, i).
    #[arg(long, global = true, default_value_t = 1)]
    pub seed: u64,
    /// Games played at once. Default: the number of cores.
    #[arg(long, global = true, value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Output directory: replays go to DIR/replays/, results to DIR/results.jsonl.
    /// It must not hold an earlier run's results (see --overwrite).
    #[arg(long, global = true, default_value = "out", value_name = "DIR")]
    pub out: PathBuf,
    /// Start over in an --out that holds an earlier run: delete its results.jsonl
    /// and replays/ first.
    #[arg(long, global = true)]
    pub overwrite: bool,
    /// Longest time one planner call may take before its game is aborted.
    #[arg(long, global = true, default_value_t = 10_000, value_name = "MS", env = "TICKBOT_MOVE_BUDGET_MS")]
    pub move_budget_ms: u64,
}

/// The largest board side any game accepts on the command line; each game
/// has its own, smaller limit that its rules check.
const MAX_SIDE: u16 = 4096;

/// Parses `WxH`, e.g. `10x10`.
pub fn parse_size(text: &str) -> Result<(u16, u16), String> {
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
