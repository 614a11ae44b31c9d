//! The command line: clap types only, and their conversion into the
//! library's configuration types. Part of the binary, not the library.

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};

use tickbot::game::snake::bfs_tail::BfsTailParams;
use tickbot::game::snake::{self, Dir, SnakeSetup, Start, TailRule};
use tickbot::map::MapError;

/// The bundled default Snake board, so `tickbot run` works from any directory.
const DEFAULT_SNAKE_MAP: &str = include_str!("../maps/snake/hawstein.txt");
const DEFAULT_SNAKE_MAP_NAME: &str = "maps/snake/hawstein.txt (bundled)";

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
}

#[derive(Debug, Subcommand)]
pub enum PlayGame {
    /// Play one game of Snake.
    Snake(PlaySnake),
}

#[derive(Debug, Args)]
pub struct PlaySnake {
    #[command(flatten)]
    pub snake: SnakeArgs,
    /// The game's seed (it decides where food appears).
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
}

#[derive(Debug, Args)]
pub struct BenchSnake {
    #[command(flatten)]
    pub snake: SnakeArgs,
    /// Number of episodes; episode i plays with a seed derived from (seed, i).
    #[arg(long, default_value_t = 1000)]
    pub episodes: u64,
    /// Master seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Threads to spread episodes over. Default: the number of cores.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print one JSON object (keys: episodes, avg_length, avg_steps, fill_rate,
    /// lost, stalled, moves_per_sec, planner, rules, ...).
    #[arg(long)]
    pub json: bool,
}

/// The Snake board and rules. Without --map, --size or --preset: the bundled
/// board of the original write-up (18x8 playable cells inside walls).
#[derive(Debug, Args, Default)]
pub struct SnakeArgs {
    /// A map file: 'X' wall, '.' free, optional `start COL ROW DIR LENGTH` line.
    #[arg(long, value_name = "FILE", group = "board")]
    pub map: Option<PathBuf>,
    /// An open board of this size, e.g. 10x10.
    #[arg(long, value_name = "WxH", group = "board", value_parser = parse_size)]
    pub size: Option<(u16, u16)>,
    /// Named rules. chuyangliu: 8x8 playable cells, length 4 in the top-left corner
    /// heading right, the head may not enter the tail's cell, 5000-step episodes.
    #[arg(long, value_enum, group = "board")]
    pub preset: Option<Preset>,
    /// Where the snake starts: head column, row, heading and length, e.g. 3,0,right,4.
    #[arg(long, value_name = "COL,ROW,DIR,LEN", value_parser = parse_start)]
    pub start: Option<Start>,
    /// Whether the head may enter the cell the tail leaves on the same tick.
    #[arg(long, value_enum)]
    pub tail_rule: Option<TailRuleArg>,
    /// Ticks without food before the game is stalled. Default: width*height*4.
    #[arg(long, value_name = "TICKS")]
    pub stall_limit: Option<u32>,
    /// End every episode after this many ticks (as stalled).
    #[arg(long, value_name = "TICKS")]
    pub max_ticks: Option<u32>,
    /// The planner.
    #[arg(long, value_enum, default_value_t = SnakePlanner::BfsTail)]
    pub planner: SnakePlanner,
    /// Play bfs-tail exactly as the 2013 write-up did: no slack in the tail check,
    /// no loop avoidance, never a gamble. It can chase its tail until the game stalls.
    #[arg(long)]
    pub write_up: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Preset {
    Chuyangliu,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TailRuleArg {
    /// The tail moves first: the head may take its cell.
    Vacates,
    /// The tail's cell stays body until the tick ends.
    Blocks,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum SnakePlanner {
    /// BFS to the food, accepted only if the tail stays reachable; else follow the tail.
    #[default]
    BfsTail,
}

impl SnakePlanner {
    pub fn name(self) -> &'static str {
        match self {
            SnakePlanner::BfsTail => "bfs-tail",
        }
    }
}

fn parse_size(text: &str) -> Result<(u16, u16), String> {
    let expected = || format!("expected WIDTHxHEIGHT like 10x10, got {text:?}");
    let (width, height) = text.split_once(['x', 'X']).ok_or_else(expected)?;
    let side = |word: &str| word.trim().parse::<u16>().map_err(|_| expected());
    Ok((side(width)?, side(height)?))
}

fn parse_start(text: &str) -> Result<Start, String> {
    let expected = || format!("expected COL,ROW,DIR,LEN like 3,0,right,4, got {text:?}");
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [col, row, dir, length] = parts[..] else {
        return Err(expected());
    };
    let number = |word: &str| word.parse::<u16>().map_err(|_| expected());
    let heading = Dir::parse(dir).ok_or_else(|| format!("unknown direction {dir:?}: use up, right, down or left"))?;
    Ok(Start { col: number(col)?, row: number(row)?, heading, length: number(length)? })
}

impl SnakeArgs {
    /// The planner's parameters these flags choose.
    pub fn bfs_tail_params(&self) -> BfsTailParams {
        if self.write_up { BfsTailParams::write_up() } else { BfsTailParams::default() }
    }

    /// The validated Snake configuration these flags describe. Errors name
    /// the map file and line.
    pub fn config(&self) -> anyhow::Result<snake::Config> {
        let (mut setup, source) = if let Some(path) = &self.map {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read map {}", path.display()))?;
            (SnakeSetup::parse(&text).map_err(|error| error.in_file(path))?, path.display().to_string())
        } else if let Some((width, height)) = self.size {
            (SnakeSetup::open(width, height), format!("--size {width}x{height}"))
        } else if self.preset == Some(Preset::Chuyangliu) {
            (SnakeSetup::chuyangliu(), "--preset chuyangliu".to_string())
        } else {
            let setup = SnakeSetup::parse(DEFAULT_SNAKE_MAP).map_err(|error| error.in_file(DEFAULT_SNAKE_MAP_NAME))?;
            (setup, DEFAULT_SNAKE_MAP_NAME.to_string())
        };
        if let Some(start) = self.start {
            setup.start = Some(start);
        }
        if let Some(rule) = self.tail_rule {
            setup.tail_rule = match rule {
                TailRuleArg::Vacates => TailRule::Vacates,
                TailRuleArg::Blocks => TailRule::Blocks,
            };
        }
        if let Some(limit) = self.stall_limit {
            setup.stall_limit = Some(limit);
        }
        if let Some(cap) = self.max_ticks {
            setup.max_ticks = Some(cap);
        }
        match snake::Config::try_from(setup) {
            Ok(config) => Ok(config),
            Err(MapError { path: None, line: 0, message, .. }) => bail!("{source}: {message}"),
            Err(error) => Err(error.into()),
        }
    }
}
