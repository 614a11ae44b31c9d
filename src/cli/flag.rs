//! Reach the Flag on the command line: its map and planner flags, and what
//! `play flag`, `run flag`, `bench flag` and `gen flag` do with them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, anyhow};
use clap::Args;

use tickbot::bench;
use tickbot::game::flag::designer::DesignerSettings;
use tickbot::game::flag::generate::GenSettings;
use tickbot::game::flag::plan::{PlannerArgs, PlannerName};
use tickbot::game::flag::{self, FlagGame, FlagSetup};
use tickbot::map::{self, Level};
use tickbot::par::Workers;
use tickbot::progress::Progress;

use tickbot::session::{EntryPlayer, GameEntry};

use super::agent::{AgentArgs, EntryAgent, json_agent};
use super::common::{Levels, PlayArgs, parse_size};
use super::support::{
    Exit, ExitOnError, Failure, collect_files, default_parallelism, finished, interrupt_budget, play_one, print_json,
    progress_bar,
};

/// The bundled default map (round 12 of the original), so `tickbot run flag`
/// works from any directory.
const DEFAULT_FLAG_MAP: &str = include_str!("../../maps/flag/round-12.txt");
const DEFAULT_FLAG_MAP_NAME: &str = "maps/flag/round-12.txt (bundled)";

#[derive(Debug, Args)]
pub(crate) struct PlayFlag {
    #[command(flatten)]
    pub flag: FlagArgs,
    #[command(flatten)]
    pub agents: AgentArgs,
    #[command(flatten)]
    pub options: PlayArgs,
}

/// The level and the planner. Without --map: the bundled round 12.
#[derive(Clone, Debug, Args, Default)]
pub(crate) struct FlagArgs {
    /// A map file: `start COL ROW`, then rows of '.' hole, '1' fragile, '2' cracked,
    /// '3' stone, '5'/'F' flag (row 0 is the top line).
    #[arg(long, value_name = "FILE")]
    pub map: Option<PathBuf>,
    #[command(flatten)]
    pub planner: PlannerArgs,
}

impl FlagArgs {
    /// The validated level these flags name, and its display name.
    pub(crate) fn config(&self) -> anyhow::Result<(flag::Config, String)> {
        match &self.map {
            Some(path) => Ok((map::read::<flag::Config>(path)?, path.display().to_string())),
            None => {
                let config =
                    flag::Config::parse(DEFAULT_FLAG_MAP).map_err(|error| error.in_file(DEFAULT_FLAG_MAP_NAME))?;
                Ok((config, DEFAULT_FLAG_MAP_NAME.to_string()))
            }
        }
    }
}

pub(crate) fn play(args: PlayFlag) -> Result<Exit, Failure> {
    let (level, _) = args.flag.config().exit_code(Exit::BadInput)?;
    args.flag.planner.check().exit_code(Exit::BadInput)?;
    let level = Arc::new(level);
    let planner_level = Arc::clone(&level);
    let options = &args.options;
    if let Some(agent) = json_agent::<FlagGame>(options, &args.agents, &level)? {
        let agent = std::sync::Mutex::new(Some(agent));
        let take = move || agent.lock().expect("not poisoned").take().expect("one game, one agent");
        return play_one::<FlagGame, _>(level, take, options);
    }
    play_one::<FlagGame, _>(level, move || args.flag.planner.make(&planner_level), &args.options)
}

/// `run flag` and a session's Flag entries: each map is a level (none: the
/// one these flags name), played by the planner these flags choose or by the
/// entry's agent.
pub(crate) fn entry(
    args: FlagArgs,
    levels: &Levels,
    agent: Option<EntryAgent>,
) -> Result<Arc<dyn EntryPlayer>, Failure> {
    args.planner.check().exit_code(Exit::BadInput)?;
    let levels = levels
        .read(|map| {
            let mut args = args.clone();
            args.map = map.map(Path::to_path_buf).or(args.map);
            Ok(args.config()?.0)
        })
        .exit_code(Exit::BadInput)?;
    if let Some(agent) = agent {
        return Ok(agent.player::<FlagGame>(levels));
    }
    Ok(GameEntry::<FlagGame, ()>::player(levels, move |level: &flag::Config| args.planner.make(level)))
}

#[derive(Debug, Args)]
pub(crate) struct BenchFlag {
    #[command(flatten)]
    pub planner: PlannerArgs,
    /// ga: the map to evolve on (default: the bundled round 12). exact, search: maps to
    /// solve (files, or directories whose *.txt files are taken in name order). Without
    /// --map or --generated, they solve the bundled rounds in maps/flag/.
    #[arg(long, value_name = "FILE|DIR", num_args = 1..)]
    pub map: Vec<PathBuf>,
    /// exact, search: also solve generated maps of these sizes (see `tickbot gen flag`),
    /// --count of each.
    #[arg(long, value_name = "WxH", value_parser = parse_size, num_args = 1..)]
    pub generated: Vec<(u16, u16)>,
    /// exact, search: how many generated maps of each size (seeds 0..COUNT).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    pub count: u64,
    /// exact, search: generate designer maps (`gen flag --walk`) with walks of LEN moves,
    /// or of MIN-MAX moves spread evenly over the --count maps of a size.
    #[arg(long, value_name = "LEN|MIN-MAX", value_parser = parse_walk)]
    pub walk: Option<(u32, u32)>,
    /// exact, search: the designer's --revisit for generated maps (percent).
    #[arg(long, default_value_t = 25, value_name = "PERCENT", requires = "walk")]
    pub revisit: u32,
    /// exact, search: stones in each generated map (without --walk).
    #[arg(long, default_value_t = 0, conflicts_with = "walk")]
    pub stones: usize,
    /// exact, search: the generator's --fill for generated maps (percent of cells walked).
    #[arg(long, default_value_t = 70, value_name = "PERCENT", conflicts_with = "walk")]
    pub fill: u32,
    /// exact, search: the generator's --cracked for generated maps (re-entry chance, percent).
    #[arg(long, default_value_t = 10, value_name = "PERCENT", conflicts_with = "walk")]
    pub cracked: u32,
    /// exact, search: give up on a map after this long (its verdict is then "timeout").
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    pub limit_ms: u64,
    /// ga: number of runs; run i is seeded from (seed, i).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub seeds: u64,
    /// ga: master seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// ga: threads to spread the runs over (1 gives the cleanest time per generation).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print one JSON object (ga keys: runs, solved, generations_median, generations_p25,
    /// generations_p75, wall_ms_median, us_per_generation, ...; exact keys: maps, solved,
    /// no_solution, total_ms, median_ms, max_ms, per_map; search keys: maps, solved,
    /// no_solution, timeout, by_size (first_ms_median, first_ms_p90, within_witness,
    /// final_over_witness, optimal, ...), per_map).
    #[arg(long)]
    pub json: bool,
}

/// Maps given to `bench flag --map`: files as they are, directories'
/// `*.txt` files (recursively) in name order, except the witnesses
/// `gen flag --out` writes beside its maps (`*.solution.txt`).
fn collect_maps(paths: &[PathBuf]) -> anyhow::Result<Vec<(String, flag::Config)>> {
    let mut files = Vec::new();
    for path in paths {
        let before = files.len();
        collect_files(path, "txt", &mut files)?;
        if path.is_dir() {
            let mut index = before;
            while index < files.len() {
                if files[index].to_string_lossy().ends_with(".solution.txt") {
                    files.remove(index);
                } else {
                    index += 1;
                }
            }
        }
    }
    files.iter().map(|file| Ok((file.display().to_string(), map::read::<flag::Config>(file)?))).collect()
}

pub(crate) fn bench(args: BenchFlag) -> Result<Exit, Failure> {
    match args.planner.planner {
        PlannerName::Ga => bench_ga(&args),
        PlannerName::Exact => bench_exact(&args),
        PlannerName::Search => bench_search(&args),
    }
}

/// `--walk LEN` or `--walk MIN-MAX`.
fn parse_walk(text: &str) -> Result<(u32, u32), String> {
    let expected = || format!("expected a walk length like 250 or a range like 150-350, got {text:?}");
    let number = |word: &str| word.trim().parse::<u32>().map_err(|_| expected());
    let (min, max) = match text.split_once('-') {
        Some((min, max)) => (number(min)?, number(max)?),
        None => (number(text)?, number(text)?),
    };
    if min == 0 || min > max {
        return Err(expected());
    }
    Ok((min, max))
}

/// The maps `bench flag` solves for exact and search: --map files (or the
/// bundled rounds), then --count generated maps of each --generated size,
/// each with the length of its generator's witness.
fn bench_maps(args: &BenchFlag) -> Result<Vec<(String, flag::Config, Option<usize>)>, Failure> {
    let files = if args.map.is_empty() && args.generated.is_empty() {
        let bundled = PathBuf::from("maps/flag");
        collect_maps(&[bundled])
            .context("no --map given and the bundled maps/flag/ is not here (run from the checkout)")
            .exit_code(Exit::BadInput)?
    } else {
        collect_maps(&args.map).exit_code(Exit::BadInput)?
    };
    let mut maps: Vec<(String, flag::Config, Option<usize>)> =
        files.into_iter().map(|(name, config)| (name, config, None)).collect();
    for &(width, height) in &args.generated {
        for seed in 0..args.count {
            let (name, setup, walk) = match args.walk {
                Some((min, max)) => {
                    let span = u64::from(max - min);
                    let walk_len = min + (span * seed / args.count.saturating_sub(1).max(1)) as u32;
                    let settings = DesignerSettings {
                        revisit_percent: args.revisit,
                        ..DesignerSettings::new(width, height, walk_len, seed)
                    };
                    let designed = flag::designer::design(&settings).exit_code(Exit::BadInput)?;
                    (format!("designer {width}x{height} walk {walk_len} seed {seed}"), designed.setup, designed.walk)
                }
                None => {
                    let settings = GenSettings {
                        stones: args.stones,
                        fill_percent: args.fill,
                        cracked_percent: args.cracked,
                        ..GenSettings::new(width, height, seed)
                    };
                    let generated = flag::generate::generate(&settings).exit_code(Exit::BadInput)?;
                    (format!("generated {width}x{height} seed {seed}"), generated.setup, generated.walk)
                }
            };
            let config = flag::Config::try_from(setup).context("a generated map").exit_code(Exit::Runtime)?;
            maps.push((name, config, Some(walk.len())));
        }
    }
    Ok(maps)
}

fn bench_search(args: &BenchFlag) -> Result<Exit, Failure> {
    let maps: Vec<bench::FlagSearchMap> = bench_maps(args)?
        .into_iter()
        .map(|(name, level, witness_len)| bench::FlagSearchMap { name, level, witness_len })
        .collect();
    let limit = std::time::Duration::from_millis(args.limit_ms);
    let progress = Progress::with_total(maps.len() as u64);
    let report = {
        let _bar = progress_bar("maps", &progress);
        let settings = args.planner.search_settings();
        bench::bench_flag_search(&maps, &settings, limit, &interrupt_budget(), &progress)
    };
    if args.json {
        print_json(&report)?;
    } else {
        let or_dash = |value: Option<usize>| value.map_or("-".to_string(), |value| value.to_string());
        println!(
            "{:<40} {:>5} {:>4} {:>4} {:>4} {:>11} {:>7} {:>5} {:>5} {:>5} {:>9} {:>9} {:>9}",
            "map", "size", "1", "2", "3", "verdict", "witness", "first", "final", "bound", "first_ms", "nodes", "ms"
        );
        for map in &report.per_map {
            let bound = map.lower_bound.map(|bound| bound as usize);
            println!(
                "{:<40} {:>5} {:>4} {:>4} {:>4} {:>11} {:>7} {:>5} {:>5} {:>5} {:>9.2} {:>9} {:>9.2}",
                map.map,
                map.size,
                map.fragile,
                map.cracked,
                map.stones,
                map.verdict,
                or_dash(map.witness),
                or_dash(map.first_moves),
                or_dash(map.moves),
                or_dash(bound),
                map.first_ms,
                map.nodes,
                map.ms
            );
        }
        println!();
        println!(
            "{:<6} {:>6} {:>9} {:>11} {:>11} {:>13} {:>14} {:>8} {:>14} {:>14}",
            "size",
            "solved",
            "no_sol",
            "first_ms_p50",
            "first_ms_p90",
            "first_nodes_p50",
            "within_witness",
            "optimal",
            "first/witness",
            "final/witness"
        );
        for size in &report.by_size {
            println!(
                "{:<6} {:>6} {:>9} {:>11.2} {:>11.2} {:>13.0} {:>14} {:>8} {:>14.3} {:>14.3}",
                size.size,
                format!("{}/{}", size.solved, size.maps),
                size.no_solution,
                size.first_ms_median,
                size.first_ms_p90,
                size.first_nodes_median,
                format!("{}/{}", size.within_witness, size.solved),
                size.optimal,
                size.first_over_witness,
                size.final_over_witness
            );
        }
        println!(
            "{} maps: {} solved, {} without solution, {} timed out (limit {} ms, --improve-nodes {})",
            report.maps, report.solved, report.no_solution, report.timeout, report.limit_ms, report.improve_nodes
        );
    }
    if report.interrupted {
        eprintln!("interrupted: the figures cover the {} finished maps", report.maps);
    }
    Ok(finished())
}

fn bench_ga(args: &BenchFlag) -> Result<Exit, Failure> {
    let flag_args = FlagArgs { map: args.map.first().cloned(), planner: PlannerArgs::default() };
    let (config, name) = flag_args.config().exit_code(Exit::BadInput)?;
    let threads = args.threads.unwrap_or(1).min(default_parallelism().max(1) * 4);
    args.planner.check().exit_code(Exit::BadInput)?;
    let progress = Progress::with_total(args.seeds);
    let report = {
        let _bar = progress_bar("GA runs", &progress);
        let settings = args.planner.ga_settings();
        bench::bench_flag_ga(
            &config,
            &name,
            &settings,
            args.seeds,
            args.seed,
            &Workers { threads, budget: &interrupt_budget(), progress: &progress },
        )
        .map_err(|error| anyhow!("bad GA parameters: {error}"))
        .exit_code(Exit::BadInput)?
    };
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
    if report.interrupted {
        eprintln!("interrupted: the figures cover the {} finished runs", report.runs);
    }
    Ok(finished())
}

fn bench_exact(args: &BenchFlag) -> Result<Exit, Failure> {
    let maps: Vec<(String, flag::Config)> =
        bench_maps(args)?.into_iter().map(|(name, config, _)| (name, config)).collect();
    let limit = std::time::Duration::from_millis(args.limit_ms);
    let report = bench::bench_flag_exact(&maps, limit, &interrupt_budget()).exit_code(Exit::Runtime)?;
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
    if report.interrupted {
        eprintln!("interrupted: the figures cover the {} maps finished before", report.maps);
    }
    Ok(finished())
}

#[derive(Debug, Args)]
pub(crate) struct GenFlag {
    /// Board size, e.g. 10x10.
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub size: (u16, u16),
    /// The generator's seed: the same seed gives the same map.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Walked cells turned into stones.
    #[arg(long, default_value_t = 0, conflicts_with = "walk")]
    pub stones: usize,
    /// Percentage of the cells the walk enters.
    #[arg(long, default_value_t = 70, value_name = "PERCENT", conflicts_with = "walk")]
    pub fill: u32,
    /// Chance, in percent, that a step re-enters a tile entered once (making it cracked).
    #[arg(long, default_value_t = 10, value_name = "PERCENT", conflicts_with = "walk")]
    pub cracked: u32,
    /// The designer's map: one walk of LEN moves, with revisits (entered once: fragile,
    /// twice: cracked, three or more times: stone; the end: the flag).
    #[arg(long, value_name = "LEN")]
    pub walk: Option<u32>,
    /// With --walk: chance, in percent, that a step may go to any neighbour while a
    /// never-entered one is at hand (100: a plain random walk; 0: revisit only when boxed in).
    #[arg(long, default_value_t = 25, value_name = "PERCENT", requires = "walk")]
    pub revisit: u32,
    /// Write the map to this file instead of stdout, and the winning walk to
    /// NAME.solution.txt beside it (NAME: the file name without its extension).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

pub(crate) fn generate(args: GenFlag) -> Result<Exit, Failure> {
    let (width, height) = args.size;
    let (command_line, setup, walk) = match args.walk {
        Some(walk_len) => {
            let settings = DesignerSettings {
                revisit_percent: args.revisit,
                ..DesignerSettings::new(width, height, walk_len, args.seed)
            };
            let designed = flag::designer::design(&settings).exit_code(Exit::BadInput)?;
            (settings.command_line(), designed.setup, designed.walk)
        }
        None => {
            let settings = GenSettings {
                width,
                height,
                seed: args.seed,
                stones: args.stones,
                fill_percent: args.fill,
                cracked_percent: args.cracked,
            };
            let generated = flag::generate::generate(&settings).exit_code(Exit::BadInput)?;
            (settings.command_line(), generated.setup, generated.walk)
        }
    };
    let comment =
        format!("Generated by `{command_line}`.\nA winning walk of {} moves: {}", walk.len(), flag::letters(&walk));
    let text = FlagSetup::to_text(&setup, &comment);
    match &args.out {
        Some(path) => {
            std::fs::write(path, text)
                .with_context(|| format!("cannot write {}", path.display()))
                .exit_code(Exit::Runtime)?;
            let solution_path = solution_path(path);
            let solution = format!(
                "# A winning walk of {} moves for {}, from `{command_line}`.\n{}\n",
                walk.len(),
                path.file_name().map_or_else(String::new, |name| name.to_string_lossy().into_owned()),
                flag::letters(&walk)
            );
            std::fs::write(&solution_path, solution)
                .with_context(|| format!("cannot write {}", solution_path.display()))
                .exit_code(Exit::Runtime)?;
        }
        None => print!("{text}"),
    }
    Ok(Exit::Success)
}

/// `maps/x.txt` -> `maps/x.solution.txt`: where `gen flag --out` puts the witness.
fn solution_path(map: &Path) -> PathBuf {
    let stem = map.file_stem().map_or_else(|| "map".into(), |stem| stem.to_string_lossy().into_owned());
    map.with_file_name(format!("{stem}.solution.txt"))
}

/// `tickbot agent flag`: the planner these flags name, for a JSON-lines referee.
#[derive(Debug, clap::Args)]
pub(crate) struct ServeFlag {
    #[command(flatten)]
    pub planner: PlannerArgs,
}

pub(crate) fn serve(args: ServeFlag) -> Result<Exit, Failure> {
    super::agent::serve::<FlagGame, _>(|config, _| Ok(args.planner.make(config)))
}
