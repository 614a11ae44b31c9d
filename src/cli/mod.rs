//! The command line's shape: the top-level clap types and the options every
//! game shares. Each game's own flags, and what its subcommands do, live in
//! a file of their own beside this one. Part of the binary, not the library.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub mod flag;
pub mod locm;
pub mod pipes;
pub mod slide;
pub mod snake;

use flag::{BenchFlag, FlagArgs, GenFlag, PlayFlag};
use locm::{BenchLocm, LocmSeats, MatchLocm, PlayLocm};
use pipes::{BenchPipes, GenPipes, PipesArgs, PlayPipes};
use slide::{BenchSlide, PlaySlide, SlideArgs};
use snake::{BenchSnake, PlaySnake, SnakeArgs};

const EXIT_CODES: &str = "\
Exit codes:
  0    success (for `replay verify`: every replay reproduced exactly)
  1    `replay verify`: at least one replay diverged
  2    bad command line or bad input (an unreadable or invalid map, ...)
  3    `replay verify`/`show`: a file is not a valid replay (foreign, truncated,
       unsupported format version, corrupt); 1 takes precedence when both occur
  4    runtime failure (cannot write replays, results or logs)
  130  interrupted (Ctrl-C or SIGTERM); finished games and their replays are kept";

/// tickbot plays tick-based games unattended, records every game as a binary
/// replay, and proves tick by tick that a replay reproduces exactly.
#[derive(Debug, Parser)]
#[command(name = "tickbot", version, after_help = EXIT_CODES, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// Log filter for stderr and the log file: error, warn, info, debug, trace,
    /// or a directive like `tickbot=debug`. Default: $RUST_LOG, else info.
    #[arg(long, global = true, value_name = "FILTER", display_order = 100)]
    pub log_level: Option<String>,

    /// Directory for the JSON-lines log (tickbot.jsonl), written by run, play and bench.
    #[arg(long, global = true, default_value = "logs", value_name = "DIR", display_order = 101)]
    pub log_dir: PathBuf,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The main job: play many games unattended, writing a replay per game and one
    /// JSON line per finished game to a results file, then print a summary.
    /// Without a game, plays Snake on the bundled board.
    #[command(after_help = EXIT_CODES, subcommand_value_name = "GAME", subcommand_help_heading = "Games")]
    Run(RunArgs),
    /// Play one game, optionally recording its replay.
    #[command(subcommand)]
    Play(PlayGame),
    /// Check and inspect replay files.
    #[command(subcommand)]
    Replay(ReplayCommand),
    /// Measure a planner over many seeded episodes.
    #[command(subcommand)]
    Bench(BenchGame),
    /// Play two strategies head to head over many games and report win rates.
    #[command(subcommand)]
    Match(MatchGame),
    /// Generate a level and print it in the game's map format.
    #[command(subcommand)]
    Gen(GenGame),
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Number of games to play.
    #[arg(long, global = true, default_value_t = 20)]
    pub games: u64,
    /// Master seed; game i plays with a seed derived from (seed, i).
    #[arg(long, global = true, default_value_t = 1)]
    pub seed: u64,
    /// Games played at once. Default: the number of cores.
    #[arg(long, global = true)]
    pub jobs: Option<usize>,
    /// Output directory: replays go to DIR/replays/, results to DIR/results.jsonl.
    #[arg(long, global = true, default_value = "out", value_name = "DIR")]
    pub out: PathBuf,
    /// Longest time one planner call may take before its game is aborted.
    #[arg(long, global = true, default_value_t = 10_000, value_name = "MS")]
    pub move_budget_ms: u64,
    #[command(subcommand)]
    pub game: Option<RunGame>,
}

#[derive(Debug, Subcommand)]
pub enum RunGame {
    /// Snake with the bfs-tail planner.
    Snake(SnakeArgs),
    /// Reach the Flag (default: the bundled round 12, exact planner).
    Flag(FlagArgs),
    /// Sliding puzzle: random solvable starts of --size (default 3×3) from each
    /// game's seed, or one --tiles start; actions name the direction the blank moves.
    Slide(SlideArgs),
    /// A Pipes (Net) puzzle, by default solved by `solve`. The puzzle has no
    /// randomness: every game of a run plays the same puzzle.
    Pipes(PipesArgs),
    /// Legends of Code and Magic 1.2: draft and battle bots for both seats.
    Locm(LocmSeats),
}

#[derive(Debug, Subcommand)]
pub enum PlayGame {
    /// Play one game of Snake.
    Snake(PlaySnake),
    /// Play one game of Reach the Flag.
    Flag(PlayFlag),
    /// Solve one sliding puzzle (8, 15 or 24 tiles); actions name the direction
    /// the blank moves.
    Slide(PlaySlide),
    /// Solve one Pipes (Net) puzzle by rotating tiles, one per tick.
    Pipes(PlayPipes),
    /// Play one game of Legends of Code and Magic 1.2 (draft and battle).
    Locm(PlayLocm),
}

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
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    pub move_budget_ms: u64,
}

#[derive(Debug, Subcommand)]
pub enum ReplayCommand {
    /// Re-simulate replays and check every tick's state hash. Directories are
    /// searched recursively for *.tbr files.
    #[command(after_help = EXIT_CODES)]
    Verify {
        #[arg(required = true, value_name = "FILE|DIR")]
        paths: Vec<PathBuf>,
        /// Print one JSON report instead of a line per file.
        #[arg(long)]
        json: bool,
    },
    /// Print a replay's header and outcome, and the board at a tick.
    Show {
        #[arg(value_name = "FILE")]
        path: PathBuf,
        /// Show the board after this many ticks (0: the start). Default: the last tick.
        #[arg(long, conflicts_with = "all")]
        tick: Option<u32>,
        /// Show the board at every tick.
        #[arg(long)]
        all: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum BenchGame {
    /// Play seeded Snake episodes with bfs-tail; report length, fill rate and speed.
    Snake(BenchSnake),
    /// Reach the Flag: GA generations and time per generation over seeds, or the exact
    /// solver's time per map.
    Flag(BenchFlag),
    /// Solve a file of sliding puzzles in order on one thread; report moves, nodes and
    /// seconds per instance and check each length against the published optimum.
    Slide(BenchSlide),
    /// Time a planner on Pipes puzzles; report the median solve time per board size.
    Pipes(BenchPipes),
    /// Full LOCM games (draft + battle) per CPU-second, random and greedy battlers.
    Locm(BenchLocm),
}

#[derive(Debug, Subcommand)]
pub enum MatchGame {
    /// Drafter A against drafter B in LOCM: every draft played twice with the seats
    /// swapped; wins, win rate with a 95% interval, games per second.
    Locm(MatchLocm),
}

#[derive(Debug, Subcommand)]
pub enum GenGame {
    /// A random solvable Reach the Flag map (a random walk; tiles from its entry counts).
    Flag(GenFlag),
    /// A Net puzzle: a random spanning tree from the centre, every tile turned at
    /// random; printed in the puzzle format with its solution as a second grid.
    Pipes(GenPipes),
}

/// Parses `WxH`, e.g. `10x10`.
pub fn parse_size(text: &str) -> Result<(u16, u16), String> {
    let expected = || format!("expected WIDTHxHEIGHT like 10x10, got {text:?}");
    let (width, height) = text.split_once(['x', 'X']).ok_or_else(expected)?;
    let side = |word: &str| word.trim().parse::<u16>().map_err(|_| expected());
    Ok((side(width)?, side(height)?))
}
