//! Pipes on the command line: the puzzle and planner flags, and what
//! `play pipes`, `run pipes`, `bench pipes` and `gen pipes` do with them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, anyhow};
use clap::Args;

use tickbot::bench::{self, BenchPuzzle};
use tickbot::game::pipes::generate::{GenSettings, GenerateError};
use tickbot::game::pipes::plan::PlannerArgs;
use tickbot::game::pipes::plan::solve::Solver;
use tickbot::game::pipes::{self, PipesGame, Puzzle};
use tickbot::map::{self, Level};
use tickbot::plan::PlanError;
use tickbot::progress::Progress;

use tickbot::session::{EntryPlayer, GameEntry};

use super::agent::{AgentArgs, EntryAgent, json_agent};
use super::common::{Levels, PlayArgs, parse_size};
use super::support::{
    Exit, ExitOnError, Failure, collect_files, finished, interrupt_budget, interrupted, play_one, print_json,
    progress_bar,
};

/// The bundled default puzzle, so `tickbot run pipes` works from any directory.
const DEFAULT_PIPES_MAP: &str = include_str!("../../maps/pipes/10x10-flat.txt");
const DEFAULT_PIPES_MAP_NAME: &str = "maps/pipes/10x10-flat.txt (bundled)";

#[derive(Debug, Args)]
pub(crate) struct PlayPipes {
    #[command(flatten)]
    pub pipes: PipesArgs,
    /// Count the solutions (up to 2) with the solver and print the verdict
    /// (`no solution`, `unique`, `at least 2 solutions`) instead of playing.
    #[arg(long)]
    pub count: bool,
    #[command(flatten)]
    pub agents: AgentArgs,
    #[command(flatten)]
    pub options: PlayArgs,
}

/// The puzzle and the planner.
#[derive(Clone, Debug, Args, Default)]
pub(crate) struct PipesArgs {
    /// A puzzle file: `W H wrap|nowrap SX SY`, then H rows of W hex digits
    /// (Up=1 Right=2 Down=4 Left=8). Default: the bundled 10x10 puzzle.
    #[arg(long, value_name = "FILE")]
    pub map: Option<PathBuf>,
    #[command(flatten)]
    pub planner: PlannerArgs,
}

#[derive(Debug, Args)]
pub(crate) struct BenchPipes {
    /// Puzzle files or directories of them (*.txt). Default: maps/pipes.
    #[arg(value_name = "FILE|DIR")]
    pub paths: Vec<PathBuf>,
    /// Also time generated puzzles of this size (flat and wrapping, seeds
    /// 1..=--seeds), e.g. 200x200. May be repeated.
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub generate: Vec<(u16, u16)>,
    /// Generated puzzles per size and topology (seeds 1..=N).
    #[arg(long, default_value_t = 3, value_name = "N", alias = "generated-per-size", value_parser = clap::value_parser!(u64).range(1..))]
    pub seeds: u64,
    /// Generate the puzzles with `gen pipes --unique` (one solution each).
    #[arg(long)]
    pub unique: bool,
    /// Only puzzles with at most this many tiles (dfs and astar are meant for small boards).
    #[arg(long, value_name = "N")]
    pub max_tiles: Option<usize>,
    #[command(flatten)]
    pub planner: PlannerArgs,
    /// Times each puzzle is solved; the report gives the median.
    #[arg(long, default_value_t = 11)]
    pub repeat: u32,
    /// Print one JSON object (keys: planner, repeat, sizes[{size, wrap, kind,
    /// puzzles, solved, median_ms, p90_ms, p99_ms, max_ms, median_nodes,
    /// p90_nodes, p99_nodes, max_nodes}], puzzles[{name, kind, size, wrap,
    /// median_ms, ...}]).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct GenPipes {
    /// Board size, e.g. 40x40.
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub size: (u16, u16),
    /// A wrapping board (a torus).
    #[arg(long)]
    pub wrap: bool,
    /// Adjust the puzzle until the solver proves its solution unique.
    #[arg(long)]
    pub unique: bool,
    /// The generator's seed: the same seed gives the same puzzle.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the puzzle here instead of to stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Reads and validates a puzzle file. Errors name the file, line and column.
fn read_puzzle(path: &Path) -> anyhow::Result<pipes::Config> {
    let puzzle = map::read::<Puzzle>(path)?;
    Ok(pipes::Config::try_from(puzzle.setup).map_err(|error| error.in_file(path))?)
}

impl PipesArgs {
    /// The validated puzzle these flags name (after checking the planner
    /// flags). Errors name the puzzle file and line.
    pub(crate) fn config(&self) -> anyhow::Result<pipes::Config> {
        self.planner.check()?;
        let (name, config) = match &self.map {
            Some(path) => (path.display().to_string(), read_puzzle(path)?),
            None => {
                let puzzle = Puzzle::parse(DEFAULT_PIPES_MAP).map_err(|error| error.in_file(DEFAULT_PIPES_MAP_NAME))?;
                let config =
                    pipes::Config::try_from(puzzle.setup).map_err(|error| error.in_file(DEFAULT_PIPES_MAP_NAME))?;
                (DEFAULT_PIPES_MAP_NAME.to_string(), config)
            }
        };
        self.planner.check_level(&config).with_context(|| name)?;
        Ok(config)
    }
}

pub(crate) fn play(args: PlayPipes) -> Result<Exit, Failure> {
    let config = args.pipes.config().exit_code(Exit::BadInput)?;
    if args.count {
        let mut solver = Solver::new(config.grid());
        let report = solver.run(config.tiles(), config.source(), 2, &interrupt_budget()).map_err(|error| Failure {
            code: if error == PlanError::Cancelled { Exit::Interrupted } else { Exit::Runtime },
            error: anyhow!("counting the solutions: {error}"),
        })?;
        let verdict = match report.solutions {
            0 => "no solution",
            1 => "unique",
            _ => "at least 2 solutions",
        };
        println!(
            "solutions: {} ({verdict}), {} branches, {} backtracks, {} tile revisions",
            report.solutions, report.branches, report.backtracks, report.revisions
        );
        return Ok(Exit::Success);
    }
    let level = Arc::new(config);
    let planner_level = Arc::clone(&level);
    let options = &args.options;
    if let Some(agent) = json_agent::<PipesGame>(options, &args.agents, &level)? {
        let agent = std::sync::Mutex::new(Some(agent));
        let take = move || agent.lock().expect("not poisoned").take().expect("one game, one agent");
        return play_one::<PipesGame, _>(level, take, options);
    }
    play_one::<PipesGame, _>(level, move || args.pipes.planner.make(&planner_level), &args.options)
}

/// `run pipes` and a session's Pipes entries: each puzzle is a level (none:
/// the one these flags name), played by the planner these flags choose or
/// by the entry's agent.
pub(crate) fn entry(
    args: PipesArgs,
    levels: &Levels,
    agent: Option<EntryAgent>,
) -> anyhow::Result<Arc<dyn EntryPlayer>> {
    let levels = levels.read(|map| {
        let mut args = args.clone();
        args.map = map.map(Path::to_path_buf).or(args.map);
        args.config()
    })?;
    if let Some(agent) = agent {
        return Ok(agent.player::<PipesGame>(levels));
    }
    Ok(GameEntry::<PipesGame, ()>::player(levels, move |level: &pipes::Config| args.planner.make(level)))
}

fn bench_puzzles(args: &BenchPipes) -> Result<Vec<BenchPuzzle>, Failure> {
    let default_dir = [PathBuf::from("maps/pipes")];
    let paths = if args.paths.is_empty() && args.generate.is_empty() { &default_dir[..] } else { &args.paths[..] };
    let mut files = Vec::new();
    for path in paths {
        collect_files(path, "txt", &mut files).exit_code(Exit::BadInput)?;
    }
    let mut puzzles = Vec::new();
    for file in files {
        puzzles.push(BenchPuzzle {
            name: file.display().to_string(),
            kind: "file",
            config: read_puzzle(&file).exit_code(Exit::BadInput)?,
        });
    }
    let budget = interrupt_budget();
    for &(width, height) in &args.generate {
        for wrap in [false, true] {
            for seed in 1..=args.seeds {
                if interrupted() {
                    return Err(generate_failure(GenerateError::Stopped(PlanError::Cancelled)));
                }
                let options = GenSettings { width, height, wrap, unique: args.unique, seed };
                let generated = pipes::generate::generate_within(&options, &budget).map_err(generate_failure)?;
                let flags =
                    format!("{}{}", if wrap { " --wrap" } else { "" }, if args.unique { " --unique" } else { "" });
                puzzles.push(BenchPuzzle {
                    name: format!("gen pipes --size {width}x{height}{flags} --seed {seed}"),
                    kind: if args.unique { "generated unique" } else { "generated" },
                    config: pipes::Config::try_from(generated.setup).exit_code(Exit::BadInput)?,
                });
            }
        }
    }
    if let Some(max_tiles) = args.max_tiles {
        puzzles.retain(|puzzle| puzzle.config.n_tiles() <= max_tiles);
    }
    if puzzles.is_empty() {
        return Err(Failure::bad_input(anyhow!("no puzzles to time")));
    }
    Ok(puzzles)
}

pub(crate) fn bench(args: BenchPipes) -> Result<Exit, Failure> {
    args.planner.check().exit_code(Exit::BadInput)?;
    let puzzles = bench_puzzles(&args)?;
    let progress = Progress::with_total(puzzles.len() as u64);
    let report = {
        let _bar = progress_bar("pipes puzzles", &progress);
        let make_planner = |level: &pipes::Config| args.planner.make(level);
        bench::bench_pipes(&puzzles, make_planner, args.repeat, &interrupt_budget(), &progress)
    };
    if args.json {
        print_json(&report)?;
    } else {
        println!("planner {} {} (median of {} runs per puzzle)", report.planner, report.planner_params, report.repeat);
        print_pipes_sizes(&report.sizes);
        for puzzle in report.puzzles.iter().filter(|puzzle| !puzzle.solved) {
            println!("not solved: {}: {}", puzzle.name, puzzle.failure.as_deref().unwrap_or("?"));
        }
    }
    if report.interrupted {
        eprintln!("interrupted: the figures cover the {} puzzles finished before", report.puzzles.len());
    }
    Ok(finished())
}

/// The failure of a generation that Ctrl-C stopped, or of bad settings.
fn generate_failure(error: GenerateError) -> Failure {
    match error {
        GenerateError::Stopped(_) => {
            Failure { code: Exit::Interrupted, error: anyhow!("interrupted while generating the puzzle") }
        }
        error => Failure::bad_input(error),
    }
}

/// The per-group table of `bench pipes`: solved share, then time and
/// search-node quantiles.
fn print_pipes_sizes(sizes: &[bench::SizeTiming]) {
    println!(
        "{:<9} {:<5} {:<16} {:>7} | {:>9} {:>9} {:>9} {:>9} | {:>8} {:>8} {:>8} {:>8}",
        "size", "wrap", "kind", "solved", "median ms", "p90 ms", "p99 ms", "max ms", "nodes", "p90", "p99", "max"
    );
    for size in sizes {
        println!(
            "{:<9} {:<5} {:<16} {:>7} | {:>9.2} {:>9.2} {:>9.2} {:>9.2} | {:>8.0} {:>8.0} {:>8.0} {:>8}",
            size.size,
            size.wrap,
            size.kind,
            format!("{}/{}", size.solved, size.puzzles),
            size.median_ms,
            size.p90_ms,
            size.p99_ms,
            size.max_ms,
            size.median_nodes,
            size.p90_nodes,
            size.p99_nodes,
            size.max_nodes
        );
    }
}

pub(crate) fn generate(args: GenPipes) -> Result<Exit, Failure> {
    let (width, height) = args.size;
    let options = GenSettings { width, height, wrap: args.wrap, unique: args.unique, seed: args.seed };
    if args.unique {
        eprintln!(
            "generating a {width}×{height} puzzle with a unique solution: the solver looks for a second solution after \
             each adjustment, which can take minutes on large boards"
        );
    }
    let generated = pipes::generate::generate_within(&options, &interrupt_budget()).map_err(generate_failure)?;
    let flags = format!("{}{}", if args.wrap { " --wrap" } else { "" }, if args.unique { " --unique" } else { "" });
    let mut comments =
        vec![format!("generated by `tickbot gen pipes --size {width}x{height}{flags} --seed {}`", args.seed)];
    if args.unique {
        comments.push(format!("unique solution ({} adjustments)", generated.adjustments));
    }
    comments.push("the second grid is the reference solution (planners never read it)".to_string());
    let text = generated.setup.to_text(&comments, Some(&generated.solution));
    match &args.out {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))
            .exit_code(Exit::Runtime)?,
        None => print!("{text}"),
    }
    Ok(Exit::Success)
}

/// `tickbot agent pipes`: the planner these flags name, for a JSON-lines referee.
#[derive(Debug, clap::Args)]
pub(crate) struct ServePipes {
    #[command(flatten)]
    pub planner: PlannerArgs,
}

pub(crate) fn serve(args: ServePipes) -> Result<Exit, Failure> {
    super::agent::serve::<PipesGame, _>(|config, _| Ok(args.planner.make(config)))
}
