//! The command tree: the top-level clap types (`Cli`, `Command` and the
//! per-game subcommand enums) and `execute`, which starts the log and the
//! interrupt handler and hands each subcommand to the file that runs it.
//! One file (or folder) per command family: `run.rs`, `replay/`,
//! `stats.rs`, `merge.rs`, `status.rs`, `evolve.rs` (`evolve` and `eval`), `sprt.rs`
//! (`bench sprt`), and a file
//! per game (`snake.rs`, `flag.rs`, `slide.rs`, `pipes.rs`, `locm.rs`) for
//! its `play`, `bench`, `match` and `gen` and its `run GAME` entry. Below
//! them `common.rs` and `support/`, which they share. Imports only run
//! downwards, a test checks it (`tests/tidy.rs`).

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};

use tickbot::telemetry::{self, LogConfig, TelemetryError};

pub(crate) mod agent;
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
pub(crate) mod sprt;
pub(crate) mod stats;
pub(crate) mod status;
pub(crate) mod support;

use evolve::{EvalDraft, EvolveDraft};
use flag::{BenchFlag, GenFlag, PlayFlag};
use locm::{BenchLocm, MatchLocm, PlayLocm, ServeLocm};
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
    /// game and planner, a few seconds). `--resume DIR` continues a stopped one.
    /// `--shard I/N` (or a batch engine's array index) plays one shard of the
    /// session on this machine; `tickbot merge` joins the shards' directories.
    #[command(after_help = EXIT_CODES, subcommand_value_name = "GAME", subcommand_help_heading = "Games")]
    Run(Box<RunArgs>),
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
    /// How far running sessions are, from what they write: for one session directory
    /// or the shards of one, games recorded of the total, games per second, an ETA,
    /// outcomes and win rates per entry, faults, the slowest running game and whether
    /// each directory's process holds its lock; --watch refreshes, --json for scripts,
    /// --metrics keeps a Prometheus textfile.
    #[command(after_help = status::AFTER_HELP)]
    Status(status::StatusArgs),
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
    /// Serve tickbot's own bots as an external agent over a game's protocol on
    /// stdin and stdout, for another referee (or tickbot's exec:COMMAND) to play.
    #[command(subcommand)]
    Agent(AgentGame),
    /// The launcher of external agents (internal: tickbot runs it itself).
    #[command(hide = true, name = "agent-exec")]
    AgentExec(agent::AgentExec),
    /// The watchdog of an external agent's process group (internal).
    #[command(hide = true, name = "agent-watch")]
    AgentWatch,
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
    /// A sequential test (SPRT) simulated thousands of times at H0 and at H1: how often
    /// it accepts the wrong hypothesis, and its games against a fixed-size test's.
    Sprt(sprt::BenchSprt),
}

#[derive(Debug, Subcommand)]
pub(crate) enum MatchGame {
    /// Drafter A against drafter B in LOCM: every draft played twice with the seats
    /// swapped; wins, win rate with a 95% interval, games per second.
    Locm(MatchLocm),
}

#[derive(Debug, Subcommand)]
pub(crate) enum AgentGame {
    /// LOCM over the contest protocol (docs/protocols.md): one game, then exit.
    #[command(after_help = EXIT_CODES)]
    Locm(ServeLocm),
    /// Snake over the JSON-lines protocol (docs/protocols.md): one game, then exit.
    #[command(after_help = EXIT_CODES)]
    Snake(snake::ServeSnake),
    /// Reach the Flag over the JSON-lines protocol.
    #[command(after_help = EXIT_CODES)]
    Flag(flag::ServeFlag),
    /// The sliding puzzle over the JSON-lines protocol.
    #[command(after_help = EXIT_CODES)]
    Slide(slide::ServeSlide),
    /// The pipe puzzle over the JSON-lines protocol.
    #[command(after_help = EXIT_CODES)]
    Pipes(pipes::ServePipes),
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

/// How long a command has to stop after Ctrl-C or SIGTERM before it is
/// ended without finishing: every long loop polls the interrupt flag and
/// stops in well under a second, so only a thread blocked in the operating
/// system (`open` of a FIFO nobody writes to, a hung network disk) takes
/// this long.
const STOP_GRACE: Duration = Duration::from_secs(10);

/// Ends the process with exit 130 if it is still running [`STOP_GRACE`]
/// after the first Ctrl-C or SIGTERM. A thread blocked in a system call
/// cannot poll a flag, and signal-hook restarts such calls, so this thread
/// (blocked on the signals themselves) is what stops it. Ending here is no
/// worse than `kill -9`, which every command survives: results lines and
/// replays are written whole or not at all, and a resumed session, a later
/// merge or evolution clean up what was left half done.
fn end_when_stuck_after_a_signal() -> std::io::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM])?;
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            std::thread::sleep(STOP_GRACE);
            eprintln!(
                "error: still running {} s after the signal (blocked reading or writing a FIFO, a device or a hung \
                 disk?): ended now; what had finished is kept",
                STOP_GRACE.as_secs()
            );
            if let Some(log) = telemetry::log_file() {
                log.try_write_waiting();
            }
            std::process::exit(Exit::Interrupted as i32);
        }
    });
    Ok(())
}

/// Runs one command line: the log first (`replay`, `gen`, `stats`, `status` and
/// `merge` write no log file), then the interrupt handler, then the
/// subcommand.
pub(crate) fn execute(cli: Cli) -> Result<Exit, Failure> {
    // The launcher becomes the agent: no log, no handlers of its own.
    let command = match cli.command {
        Command::AgentExec(args) => return agent::exec(args),
        Command::AgentWatch => tickbot::agent::launch::watch(),
        command => command,
    };
    let cli = Cli { command, ..cli };
    let writes_log = !matches!(
        cli.command,
        Command::Replay(_)
            | Command::Gen(_)
            | Command::Stats(_)
            | Command::Merge(_)
            | Command::Status(_)
            | Command::Agent(_)
    );
    if writes_log && cli.log_dir.exists() && !cli.log_dir.is_dir() {
        return Err(Failure::bad_input(anyhow::anyhow!(
            "--log-dir {}: this is a file, not a directory; give a directory for the log (it is created if missing)",
            cli.log_dir.display()
        )));
    }
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
    end_when_stuck_after_a_signal().exit_code(Exit::Runtime)?;
    let outcome = match cli.command {
        Command::Run(args) => run::execute(*args, &cli.log_dir),
        Command::Stats(args) => stats::execute(args),
        Command::Merge(args) => merge::execute(args),
        Command::Status(args) => status::execute(args),
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
        Command::Bench(BenchGame::Sprt(args)) => sprt::bench(args),
        Command::Match(MatchGame::Locm(args)) => locm::run_match(args),
        Command::Gen(GenGame::Flag(args)) => flag::generate(args),
        Command::Gen(GenGame::Pipes(args)) => pipes::generate(args),
        Command::Evolve(EvolveCommand::Draft(args)) => evolve::evolve(args),
        Command::Eval(EvalCommand::Draft(args)) => evolve::eval(args),
        Command::Agent(AgentGame::Locm(args)) => locm::serve(args),
        Command::Agent(AgentGame::Snake(args)) => snake::serve(args),
        Command::Agent(AgentGame::Flag(args)) => flag::serve(args),
        Command::Agent(AgentGame::Slide(args)) => slide::serve(args),
        Command::Agent(AgentGame::Pipes(args)) => pipes::serve(args),
        Command::AgentExec(_) | Command::AgentWatch => unreachable!("handled above"),
    };
    // The per-game lines still waiting (a session has already written
    // and checked its own).
    if let Some(log) = telemetry::log_file() {
        let _ = log.failure();
    }
    outcome
}
