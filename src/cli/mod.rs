//! The command line's shape: the top-level clap types. The options every
//! game shares are in `common.rs`; each game's own flags, and what its
//! subcommands do, live in a file of their own beside this one. Part of the
//! binary, not the library.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub mod common;
pub mod evolve;
pub mod flag;
pub mod locm;
pub mod merge;
pub mod pipes;
pub mod run;
pub mod slide;
pub mod snake;
pub mod stats;
pub mod view;

use common::{EXIT_CODES, RunOptions};
use evolve::{EvalDraft, EvolveDraft};
use flag::{BenchFlag, FlagArgs, GenFlag, PlayFlag};
use locm::{BenchLocm, LocmArgs, MatchLocm, PlayLocm};
use pipes::{BenchPipes, GenPipes, PipesArgs, PlayPipes};
use slide::{BenchSlide, PlaySlide, SlideArgs};
use snake::{BenchSnake, PlaySnake, SnakeArgs};

/// tickbot plays tick-based games unattended, records every game as a binary
/// replay, and proves tick by tick that a replay reproduces exactly.
#[derive(Debug, Parser)]
#[command(name = "tickbot", version, after_help = EXIT_CODES, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// Log filter for stderr and the log file: error, warn, info, debug, trace,
    /// or a directive like `tickbot=debug`. Default: $RUST_LOG, else info
    /// (`run` then leaves each game's start and end to the log file).
    #[arg(long, global = true, value_name = "FILTER", display_order = 100)]
    pub log_level: Option<String>,

    /// Directory for the JSON-lines log (tickbot.jsonl), written by run, play and bench.
    #[arg(long, global = true, default_value = "logs", value_name = "DIR", display_order = 101)]
    pub log_dir: PathBuf,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The main job: a session of many games, unattended, writing a replay per
    /// game and one synced JSON line per finished game to DIR/results.jsonl, then a
    /// per-entry table. Plays the session file given by --config, one game type
    /// (`run GAME ...`), or without either the bundled default session (every
    /// game and planner, about a minute). `--resume DIR` continues a stopped one.
    /// `--shard I/N` (or a batch engine's array index) plays one shard of the
    /// session on this machine; `tickbot merge` joins the shards' directories.
    #[command(after_help = EXIT_CODES, subcommand_value_name = "GAME", subcommand_help_heading = "Games")]
    Run(RunArgs),
    /// What finished sessions say: per entry (or --by game,planner, level) the
    /// outcomes, win rate with a 95% interval, mean score, percentiles of ticks and
    /// planner time, the slowest and failed games with their replays; --compare two
    /// sessions or entries; --logs for planning time per planner and warnings.
    #[command(after_help = EXIT_CODES)]
    Stats(stats::StatsArgs),
    /// Join the directories of a session's shards (`run --shard I/N`) into one
    /// session directory: the results file in id order, the replays (hard-linked
    /// or copied) and the manifest, as if the session had run on one machine.
    #[command(after_help = merge::AFTER_HELP)]
    Merge(merge::MergeArgs),
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
    /// Evolve strategies: LOCM draft strategies with the active-genes GA.
    #[command(subcommand)]
    Evolve(EvolveCommand),
    /// The results step of an evolution run: its winner against every generation, with a chart.
    #[command(subcommand)]
    Eval(EvalCommand),
}

#[derive(Debug, Subcommand)]
pub enum EvolveCommand {
    /// Evolve LOCM draft strategies (Kowalski & Miernik's active genes): progress per
    /// generation, DIR/best.txt (loadable by genome:FILE), DIR/log.jsonl, a checkpoint
    /// per generation; --resume DIR continues a stopped run exactly.
    #[command(after_help = EXIT_CODES)]
    Draft(EvolveDraft),
}

#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// The final winner of a draft evolution against every generation's best, worst and
    /// whole population on that generation's draft, and each generation's best against
    /// ClosetAI and Icebox: DIR/eval.jsonl and the chart DIR/eval.svg.
    #[command(after_help = EXIT_CODES)]
    Draft(EvalDraft),
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// A session file (TOML): entries of game, level, planner and games or weight.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Continue the session in DIR (stopped by Ctrl-C, SIGTERM, kill, a full disk
    /// or a reboot): plays the games its results file does not yet record.
    #[arg(long, value_name = "DIR", conflicts_with = "out")]
    pub resume: Option<PathBuf>,
    #[command(flatten)]
    pub options: RunOptions,
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
    Locm(LocmArgs),
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
    #[command(after_help = EXIT_CODES)]
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
    /// Rewrite format version 1 replays as version 2 (about 7 times smaller,
    /// every byte checksummed), in place and atomically; each new file is
    /// verified before it replaces the old one. Version 2 files are skipped.
    /// Directories are searched recursively for *.tbr files.
    #[command(after_help = EXIT_CODES)]
    Upgrade {
        #[arg(required = true, value_name = "FILE|DIR")]
        paths: Vec<PathBuf>,
    },
    /// Sum the sizes and ticks of replays per game and format version, and
    /// print the bytes per tick. Directories are searched recursively.
    #[command(after_help = EXIT_CODES)]
    Stats {
        #[arg(required = true, value_name = "FILE|DIR")]
        paths: Vec<PathBuf>,
        /// Print one JSON line per game and version instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print one JSON line per tick: the tick, the action that led to it (text and
    /// code), the state hash, the status, and with --states the game's own state.
    /// Stops with exit 1 at a tick that does not reproduce.
    #[command(after_help = EXIT_CODES)]
    Export {
        #[arg(value_name = "FILE")]
        path: PathBuf,
        /// Write JSON lines (the export's one format; required so that others can come).
        #[arg(long, required = true)]
        json: bool,
        /// Add each tick's state as the game holds it, under "state".
        #[arg(long)]
        states: bool,
        /// The first tick to export (0: the start).
        #[arg(long, value_name = "T")]
        from: Option<u32>,
        /// The last tick to export. Default: the last tick.
        #[arg(long, value_name = "T")]
        to: Option<u32>,
    },
    /// Draw a replay for watching: a self-contained HTML page with a slider and
    /// play/pause (it handles games of any length), or an animated GIF or SVG for
    /// sharing. The format follows --out's extension.
    #[command(after_help = EXIT_CODES)]
    Render {
        #[arg(value_name = "FILE")]
        path: PathBuf,
        /// The file to write: NAME.html, NAME.gif or NAME.svg.
        #[arg(long, value_name = "NAME.html|NAME.gif|NAME.svg")]
        out: PathBuf,
        /// The first tick to draw (0: the start).
        #[arg(long, value_name = "T")]
        from: Option<u32>,
        /// The last tick to draw. Default: the last tick (a GIF or SVG of a long game
        /// is large: pick a stretch).
        #[arg(long, value_name = "T")]
        to: Option<u32>,
        /// Ticks per second when playing.
        #[arg(long, default_value_t = 10, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
        fps: u32,
    },
}

#[derive(Debug, Subcommand)]
pub enum BenchGame {
    /// Play seeded Snake episodes with bfs-tail; report length, fill rate and speed.
    Snake(BenchSnake),
    /// Reach the Flag: GA generations and time per generation over seeds, the exact
    /// solver's time per map, or the search planner's time to a first plan and length
    /// against the generator's witness, by size.
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
    /// A random solvable Reach the Flag map (a random walk, or with --walk the designer's
    /// long walk with revisits; tiles from its entry counts).
    Flag(GenFlag),
    /// A Net puzzle: a random spanning tree from the centre, every tile turned at
    /// random; printed in the puzzle format with its solution as a second grid.
    Pipes(GenPipes),
}
