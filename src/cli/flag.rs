//! Reach the Flag on the command line: its map and planner flags, and what
//! `play flag`, `run flag`, `bench flag` and `gen flag` do with them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, anyhow};
use clap::{Args, ValueEnum};

use tickbot::bench;
use tickbot::game::flag::exact::Exact;
use tickbot::game::flag::ga::{Fitness, GaPlanner, GaSettings, Mutation};
use tickbot::game::flag::generate::{GenSettings, generate};
use tickbot::game::flag::{self, FlagGame, FlagSetup};
use tickbot::plan::{Budget, Decision, PlanError, Planner};

use super::{PlayArgs, RunArgs, parse_size};
use crate::commands::{Exit, ExitOnError, Failure, default_parallelism, play_one, print_json, run_many};

/// The bundled default map (round 12 of the original), so `tickbot run flag`
/// works from any directory.
const DEFAULT_FLAG_MAP: &str = include_str!("../../maps/flag/round-12.txt");
const DEFAULT_FLAG_MAP_NAME: &str = "maps/flag/round-12.txt (bundled)";

#[derive(Debug, Args)]
pub struct PlayFlag {
    #[command(flatten)]
    pub flag: FlagArgs,
    #[command(flatten)]
    pub options: PlayArgs,
}

/// The level and the planner. Without --map: the bundled round 12.
#[derive(Debug, Args, Default)]
pub struct FlagArgs {
    /// A map file: `start COL ROW`, then rows of '.' hole, '1' fragile, '2' cracked,
    /// '3' stone, '5'/'F' flag (row 0 is the top line).
    #[arg(long, value_name = "FILE")]
    pub map: Option<PathBuf>,
    #[command(flatten)]
    pub planner: FlagPlannerArgs,
}

/// The planner and the GA's parameters (ignored by `exact`).
#[derive(Debug, Args, Default)]
pub struct FlagPlannerArgs {
    /// The planner: `exact` (shortest solution or a proof there is none) or `ga`.
    #[arg(long, value_enum, default_value_t = FlagPlanner::Exact)]
    pub planner: FlagPlanner,
    /// GA: population size.
    #[arg(long, default_value_t = 40)]
    pub population: usize,
    /// GA: the best this many are the parents (rank selection).
    #[arg(long, default_value_t = 25)]
    pub parents: usize,
    /// GA: the best this many are carried into the next generation.
    #[arg(long, default_value_t = 5)]
    pub elites: usize,
    /// GA: carry the elites over unchanged (the write-up mutated them with the children).
    #[arg(long)]
    pub frozen_elites: bool,
    /// GA: mutation operator. improved: swap two genes with probability 0.4, else
    /// reset one; original: reset one gene with probability 0.3.
    #[arg(long, value_enum, default_value_t = MutationArg::Improved)]
    pub mutation: MutationArg,
    /// GA: fitness. linear: owed entries + distance to the flag; double: 2*owed + distance.
    #[arg(long, value_enum, default_value_t = FitnessArg::Linear)]
    pub fitness: FitnessArg,
    /// GA: added per void (blocked) move unless the rest of the fitness is 0.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub void_penalty: u32,
    /// GA: chromosome length. Default: #fragile + 2*#cracked + 5*(#stone + 1).
    #[arg(long, value_name = "GENES")]
    pub length: Option<usize>,
    /// GA: give up after this many generations.
    #[arg(long, default_value_t = 200_000)]
    pub max_generations: u64,
    /// GA: evaluate fitness on several threads (same result; rarely faster).
    #[arg(long)]
    pub parallel: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum FlagPlanner {
    /// Complete search: a shortest winning sequence, or "no solution".
    #[default]
    Exact,
    /// The write-up's genetic algorithm, seeded from --seed.
    Ga,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum MutationArg {
    #[default]
    Improved,
    Original,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum FitnessArg {
    #[default]
    Linear,
    Double,
}

impl FlagPlannerArgs {
    /// The GA settings these flags choose.
    pub fn ga_settings(&self) -> GaSettings {
        GaSettings {
            population: self.population,
            parents: self.parents,
            elites: self.elites,
            mutate_elites: !self.frozen_elites,
            mutation: match self.mutation {
                MutationArg::Improved => Mutation::IMPROVED,
                MutationArg::Original => Mutation::ORIGINAL,
            },
            fitness: match self.fitness {
                FitnessArg::Linear => Fitness::Linear,
                FitnessArg::Double => Fitness::DoubleOwed,
            },
            void_penalty: self.void_penalty,
            chromosome_length: self.length,
            max_generations: self.max_generations,
            parallel: self.parallel,
        }
    }

    fn name(&self) -> &'static str {
        match self.planner {
            FlagPlanner::Exact => "exact",
            FlagPlanner::Ga => "ga",
        }
    }

    /// Builds the planner for `level`; bad GA parameters are bad input.
    fn planner(&self, level: &flag::Config) -> Result<FlagPlannerChoice, Failure> {
        Ok(match self.planner {
            FlagPlanner::Exact => FlagPlannerChoice::Exact(Box::new(Exact::new(level))),
            FlagPlanner::Ga => FlagPlannerChoice::Ga(Box::new(
                GaPlanner::new(level, self.ga_settings())
                    .map_err(|error| anyhow!("bad GA parameters: {error}"))
                    .exit_code(Exit::BadInput)?,
            )),
        })
    }
}

/// Either planner, behind one type for the session runner.
#[derive(Debug)]
enum FlagPlannerChoice {
    Exact(Box<Exact>),
    Ga(Box<GaPlanner>),
}

impl Planner<FlagGame> for FlagPlannerChoice {
    fn name(&self) -> &'static str {
        match self {
            FlagPlannerChoice::Exact(planner) => planner.name(),
            FlagPlannerChoice::Ga(planner) => planner.name(),
        }
    }

    fn params(&self) -> Vec<(String, String)> {
        match self {
            FlagPlannerChoice::Exact(planner) => planner.params(),
            FlagPlannerChoice::Ga(planner) => planner.params(),
        }
    }

    fn next_action(&mut self, game: &FlagGame, budget: &Budget) -> Result<Decision<flag::Dir>, PlanError> {
        match self {
            FlagPlannerChoice::Exact(planner) => planner.next_action(game, budget),
            FlagPlannerChoice::Ga(planner) => planner.next_action(game, budget),
        }
    }
}

/// Reads and validates a map file; errors name the file, line and column.
fn read_map(path: &Path) -> anyhow::Result<flag::Config> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read map {}", path.display()))?;
    Ok(flag::Config::parse(&text).map_err(|error| error.in_file(path))?)
}

impl FlagArgs {
    /// The validated level these flags name, and its display name.
    pub fn config(&self) -> anyhow::Result<(flag::Config, String)> {
        match &self.map {
            Some(path) => Ok((read_map(path)?, path.display().to_string())),
            None => {
                let config =
                    flag::Config::parse(DEFAULT_FLAG_MAP).map_err(|error| error.in_file(DEFAULT_FLAG_MAP_NAME))?;
                Ok((config, DEFAULT_FLAG_MAP_NAME.to_string()))
            }
        }
    }
}

pub fn play(args: PlayFlag) -> Result<Exit, Failure> {
    let (config, _) = args.flag.config().exit_code(Exit::BadInput)?;
    let config = Arc::new(config);
    // Build once up front so bad GA parameters are reported before playing.
    args.flag.planner.planner(&config)?;
    let level = Arc::clone(&config);
    let planner_args = args.flag.planner;
    play_one::<FlagGame, _>(config, move || planner_args.planner(&level).expect("checked above"), &args.options)
}

pub fn run(run_args: &RunArgs, flag_args: &FlagArgs) -> Result<Exit, Failure> {
    let (config, _) = flag_args.config().exit_code(Exit::BadInput)?;
    let config = Arc::new(config);
    flag_args.planner.planner(&config)?;
    let level = Arc::clone(&config);
    run_many::<FlagGame, _>(
        run_args,
        config,
        move || flag_args.planner.planner(&level).expect("checked above"),
        flag_args.planner.name(),
    )
}

#[derive(Debug, Args)]
pub struct BenchFlag {
    #[command(flatten)]
    pub planner: FlagPlannerArgs,
    /// ga: the map to evolve on (default: the bundled round 12). exact: maps to solve
    /// (files, or directories whose *.txt files are taken in name order). Without
    /// --map or --generated, exact solves the bundled rounds in maps/flag/.
    #[arg(long, value_name = "FILE|DIR", num_args = 1..)]
    pub map: Vec<PathBuf>,
    /// exact: also solve generated maps of this size (see `tickbot gen flag`).
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub generated: Option<(u16, u16)>,
    /// exact: how many generated maps (seeds 0..COUNT).
    #[arg(long, default_value_t = 20)]
    pub count: u64,
    /// exact: stones in each generated map.
    #[arg(long, default_value_t = 0)]
    pub stones: usize,
    /// exact: the generator's --fill for generated maps (percent of cells walked).
    #[arg(long, default_value_t = 70, value_name = "PERCENT")]
    pub fill: u32,
    /// exact: the generator's --cracked for generated maps (re-entry chance, percent).
    #[arg(long, default_value_t = 10, value_name = "PERCENT")]
    pub cracked: u32,
    /// exact: give up on a map after this long (its verdict is then "timeout").
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    pub limit_ms: u64,
    /// ga: number of runs; run i is seeded from (seed, i).
    #[arg(long, default_value_t = 30)]
    pub seeds: u64,
    /// ga: master seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// ga: threads to spread the runs over (1 gives the cleanest time per generation).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print one JSON object (ga keys: runs, solved, generations_median, generations_p25,
    /// generations_p75, wall_ms_median, us_per_generation, ...; exact keys: maps, solved,
    /// no_solution, total_ms, median_ms, max_ms, per_map).
    #[arg(long)]
    pub json: bool,
}

/// Maps given to `bench flag --map`: files as they are, directories'
/// `*.txt` files in name order.
fn collect_maps(paths: &[PathBuf]) -> anyhow::Result<Vec<(String, flag::Config)>> {
    let mut maps = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(path)
                .with_context(|| format!("cannot list {}", path.display()))?
                .map(|entry| entry.map(|entry| entry.path()))
                .collect::<Result<_, _>>()
                .with_context(|| format!("cannot list {}", path.display()))?;
            files.retain(|file| file.extension().is_some_and(|extension| extension == "txt"));
            files.sort();
            for file in files {
                maps.push((file.display().to_string(), read_map(&file)?));
            }
        } else {
            maps.push((path.display().to_string(), read_map(path)?));
        }
    }
    Ok(maps)
}

pub fn bench(args: BenchFlag) -> Result<Exit, Failure> {
    match args.planner.planner {
        FlagPlanner::Ga => bench_ga(&args),
        FlagPlanner::Exact => bench_exact(&args),
    }
}

fn bench_ga(args: &BenchFlag) -> Result<Exit, Failure> {
    let flag_args = FlagArgs { map: args.map.first().cloned(), planner: FlagPlannerArgs::default() };
    let (config, name) = flag_args.config().exit_code(Exit::BadInput)?;
    let threads = args.threads.unwrap_or(1).min(default_parallelism().max(1) * 4);
    let report = bench::bench_flag_ga(&config, &name, &args.planner.ga_settings(), args.seeds, args.seed, threads)
        .map_err(|error| anyhow!("bad GA parameters: {error}"))
        .exit_code(Exit::BadInput)?;
    if args.json {
        print_json(&report)?;
    } else {
        println!("planner          ga ({})", report.planner_params);
        println!("map              {} ({})", report.map, report.rules);
        println!("runs             {} (master seed {}, {} threads)", report.runs, report.master_seed, report.threads);
        println!("solved           {}", report.solved);
        println!(
            "generations      median {:.0}, p25 {:.0}, p75 {:.0}, mean {:.0} (solved runs)",
            report.generations_median, report.generations_p25, report.generations_p75, report.generations_mean
        );
        println!(
            "wall per run     median {:.1} ms, p25 {:.1} ms, p75 {:.1} ms",
            report.wall_ms_median, report.wall_ms_p25, report.wall_ms_p75
        );
        println!("per generation   {:.2} µs", report.us_per_generation);
    }
    Ok(Exit::Success)
}

fn bench_exact(args: &BenchFlag) -> Result<Exit, Failure> {
    let mut maps = if args.map.is_empty() && args.generated.is_none() {
        let bundled = PathBuf::from("maps/flag");
        collect_maps(&[bundled])
            .context("no --map given and the bundled maps/flag/ is not here (run from the checkout)")
            .exit_code(Exit::BadInput)?
    } else {
        collect_maps(&args.map).exit_code(Exit::BadInput)?
    };
    if let Some((width, height)) = args.generated {
        for seed in 0..args.count {
            let settings = GenSettings {
                stones: args.stones,
                fill_percent: args.fill,
                cracked_percent: args.cracked,
                ..GenSettings::new(width, height, seed)
            };
            let generated = generate(&settings).exit_code(Exit::BadInput)?;
            maps.push((format!("generated {width}x{height} seed {seed}"), generated.config()));
        }
    }
    let limit = std::time::Duration::from_millis(args.limit_ms);
    let report = bench::bench_flag_exact(&maps, limit).exit_code(Exit::Runtime)?;
    if args.json {
        print_json(&report)?;
    } else {
        println!(
            "{:<32} {:>6} {:>4} {:>4} {:>4} {:>12} {:>6} {:>10} {:>10}",
            "map", "size", "1", "2", "3", "verdict", "moves", "nodes", "ms"
        );
        for map in &report.per_map {
            let moves = map.moves.map_or("-".to_string(), |moves| moves.to_string());
            println!(
                "{:<32} {:>6} {:>4} {:>4} {:>4} {:>12} {:>6} {:>10} {:>10.3}",
                map.map, map.size, map.fragile, map.cracked, map.stones, map.verdict, moves, map.nodes, map.ms
            );
        }
        println!(
            "{} maps: {} solved, {} without solution, {} timed out (limit {} ms); total {:.3} ms, median {:.3} ms, \
             max {:.3} ms",
            report.maps,
            report.solved,
            report.no_solution,
            report.timeout,
            report.limit_ms,
            report.total_ms,
            report.median_ms,
            report.max_ms
        );
    }
    Ok(Exit::Success)
}

#[derive(Debug, Args)]
pub struct GenFlag {
    /// Board size, e.g. 10x10.
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub size: (u16, u16),
    /// The generator's seed: the same seed gives the same map.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Walked cells turned into stones.
    #[arg(long, default_value_t = 0)]
    pub stones: usize,
    /// Percentage of the cells the walk enters.
    #[arg(long, default_value_t = 70, value_name = "PERCENT")]
    pub fill: u32,
    /// Chance, in percent, that a step re-enters a tile entered once (making it cracked).
    #[arg(long, default_value_t = 10, value_name = "PERCENT")]
    pub cracked: u32,
    /// Write the map to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

pub fn gen_map(args: GenFlag) -> Result<Exit, Failure> {
    let (width, height) = args.size;
    let settings = GenSettings {
        width,
        height,
        seed: args.seed,
        stones: args.stones,
        fill_percent: args.fill,
        cracked_percent: args.cracked,
    };
    let generated = generate(&settings).exit_code(Exit::BadInput)?;
    let comment = format!(
        "Generated by `{}`.\nA winning walk of {} moves: {}",
        settings.command_line(),
        generated.walk.len(),
        flag::letters(&generated.walk)
    );
    let text = FlagSetup::to_text(&generated.setup, &comment);
    match &args.out {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))
            .exit_code(Exit::Runtime)?,
        None => print!("{text}"),
    }
    Ok(Exit::Success)
}
