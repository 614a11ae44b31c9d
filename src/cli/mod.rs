//! The command tree: the top-level clap types (`Cli`, `Command` and the
//! per-game subcommand enums) and `execute`, which starts the log and the
//! interrupt handler and hands each subcommand to the file that runs it.
//! One file (or folder) per command family: `run.rs`, `replay/`,
//! `stats.rs`, `merge.rs`, `evolve.rs` (`evolve` and `eval`), and a file
//! per game (`snake.rs`, `flag.rs`, `slide.rs`, `pipes.rs`, `locm.rs`) for
//! its `play`, `bench`, `match` and `gen` and its `run GAME` entry. Below
//! them `common.rs` and `support/`, which they share. Imports only run
//! downwards, a test checks it (`tests/tidy.rs`).

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use tickbot::telemetry::{self, LogConfig, TelemetryError};

pub(crate) mod common;
pub(crate) mod evolve;
pub(crate) mod flag;
pub(crate) mod locm;
pub(crate) mod merge;
pub(crate) mod pipes;
pub(crate) mod replay;
pub(crate) mod run;
pub(crate) mod slide;
pub(crate) mod snake;
pub(crate) mod stats;
pub(crate) mod support;

use evolve::{EvalDraft, EvolveDraft};
use flag::{BenchFlag, GenFlag, PlayFlag};
use locm::{BenchLocm, MatchLocm, PlayLocm};
use pipes::{BenchPipes, GenPipes, PlayPipes};
use replay::ReplayCommand;
use run::RunArgs;
use slide::{BenchSlide, PlaySlide};
use snake::{BenchSnake, PlaySnake};
use support::{EXIT_CODES, Exit, ExitOnError, Failure};

/// tickbot plays tick-based games unattended, records every game as a binary
/// replay, and proves tick by tick that a replay reproduces exactly.
#[derive(Debug, Parser)]
#[command(name = "tickbot", version, after_help = EXIT_CODES, max_term_width = 100)]
pub(crate) struct Cli {
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
pub(crate) enum Command {
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
pub(crate) enum EvolveCommand {
    /// Evolve LOCM draft strategies (Kowalski & Miernik's active genes): progress per
    /// generation, DIR/best.txt (loadable by genome:FILE), DIR/log.jsonl, a checkpoint
    /// per generation; --resume DIR continues a stopped run exactly.
    #[command(after_help = EXIT_CODES)]
    Draft(EvolveDraft),
}

#[derive(Debug, Subcommand)]
pub(crate) enum EvalCommand {
    /// The final winner of a draft evolution against every generation's best, worst and
    /// whole population on that generation's draft, and each generation's best against
    /// ClosetAI and Icebox: DIR/eval.jsonl and the chart DIR/eval.svg.
    #[command(after_help = EXIT_CODES)]
    Draft(EvalDraft),
}

#[derive(Debug, Subcommand)]
pub(crate) enum PlayGame {
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
pub(crate) enum BenchGame {
    /// Play seeded Snake episodes with bfs-tail; report length, fill rate and speed.
    Snake(BenchSnake),
    /// Reach the Flag: GA generations and time per generation over seeds, the exact
    /// solver's time per map, or the search planner's time to a first plan and length
    /// against the generator's witness, by size.
    Flag(BenchFlag),
    /// Solve a file of sliding puzzles in order (idastar shares each one among
    /// --threads); report moves, nodes and seconds per instance and check each length
    /// against the published optimum. --checkpoint FILE and --resume FILE stop and
    /// go on with a long run.
    Slide(BenchSlide),
    /// Time a planner on Pipes puzzles; report the median solve time per board size.
    Pipes(BenchPipes),
    /// Full LOCM games (draft + battle) per CPU-second, random and greedy battlers.
    Locm(BenchLocm),
}

#[derive(Debug, Subcommand)]
pub(crate) enum MatchGame {
    /// Drafter A against drafter B in LOCM: every draft played twice with the seats
    /// swapped; wins, win rate with a 95% interval, games per second.
    Locm(MatchLocm),
}

#[derive(Debug, Subcommand)]
pub(crate) enum GenGame {
    /// A random solvable Reach the Flag map (a random walk, or with --walk the designer's
    /// long walk with revisits; tiles from its entry counts).
    Flag(GenFlag),
    /// A Net puzzle: a random spanning tree from the centre, every tile turned at
    /// random; printed in the puzzle format with its solution as a second grid.
    Pipes(GenPipes),
}

/// Runs one command line: the log first (`replay`, `gen`, `stats` and
/// `merge` write no log file), then the interrupt handler, then the
/// subcommand.
pub(crate) fn execute(cli: Cli) -> Result<Exit, Failure> {
    let writes_log =
        !matches!(cli.command, Command::Replay(_) | Command::Gen(_) | Command::Stats(_) | Command::Merge(_));
    let log = LogConfig {
        level: cli.log_level.clone(),
        dir: writes_log.then(|| cli.log_dir.clone()),
        quiet_games_on_stderr: matches!(cli.command, Command::Run(_)),
    };
    if let Err(error) = telemetry::init(&log) {
        let code = match error {
            TelemetryError::Filter { .. } => Exit::BadInput,
            TelemetryError::File { .. } => Exit::Runtime,
        };
        return Err(Failure { code, error: error.into() });
    }
    support::install_interrupt_handler().exit_code(Exit::Runtime)?;
    match cli.command {
        Command::Run(args) => run::execute(args),
        Command::Stats(args) => stats::execute(args),
        Command::Merge(args) => merge::execute(args),
        Command::Replay(command) => replay::execute(command),
        Command::Play(PlayGame::Snake(args)) => snake::play(args),
        Command::Play(PlayGame::Flag(args)) => flag::play(args),
        Command::Play(PlayGame::Slide(args)) => slide::play(args),
        Command::Play(PlayGame::Pipes(args)) => pipes::play(args),
        Command::Play(PlayGame::Locm(args)) => locm::play(args),
        Command::Bench(BenchGame::Snake(args)) => snake::bench(args),
        Command::Bench(BenchGame::Flag(args)) => flag::bench(args),
        Command::Bench(BenchGame::Slide(args)) => slide::bench(args),
        Command::Bench(BenchGame::Pipes(args)) => pipes::bench(args),
        Command::Bench(BenchGame::Locm(args)) => locm::bench(args),
        Command::Match(MatchGame::Locm(args)) => locm::run_match(args),
        Command::Gen(GenGame::Flag(args)) => flag::generate(args),
        Command::Gen(GenGame::Pipes(args)) => pipes::generate(args),
        Command::Evolve(EvolveCommand::Draft(args)) => evolve::evolve(args),
        Command::Eval(EvalCommand::Draft(args)) => evolve::eval(args),
    }
}
