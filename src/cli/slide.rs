//! The sliding puzzle on the command line: its instance and planner flags,
//! the pattern-database cache, and what `play slide`, `bench slide` and
//! `run slide` do with them.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use clap::{Args, ValueEnum};

use tickbot::bench::{self, SlideBenchRun, SlideBenchState, SlideCase, StateChange};
use tickbot::game::Game;
use tickbot::game::slide::plan::idastar::IdaStar;
use tickbot::game::slide::plan::pdb::{Partition, PdbSet};
use tickbot::game::slide::plan::{PlannerArgs, PlannerMaker};
use tickbot::game::slide::{self, Config, Goal, InstanceSet, SlideGame, SlideSetup, Start};
use tickbot::map;
use tickbot::pdb_cache::{self, CacheError, CacheReport};
use tickbot::plan::PlanError;
use tickbot::progress::Progress;
use tickbot::rng::derive_seed;

use tickbot::session::{EntryPlayer, GameEntry};

use super::agent::{AgentArgs, EntryAgent, json_agent};
use super::common::{Levels, PlayArgs};
use super::support::{Exit, ExitOnError, Failure, interrupt_budget, interrupted, play_one, print_json, progress_bar};

const MOVES_HELP: &str = "\
Actions name the direction the BLANK moves: `up` swaps the blank with the tile above it.";

#[derive(Debug, Args)]
#[command(after_help = MOVES_HELP)]
pub(crate) struct PlaySlide {
    #[command(flatten)]
    pub slide: SlideArgs,
    /// Which instance of --instances to play (1-based).
    #[arg(long, default_value_t = 1, requires = "instances")]
    pub index: u32,
    #[command(flatten)]
    pub agents: AgentArgs,
    #[command(flatten)]
    pub options: PlayArgs,
}

#[derive(Debug, Args)]
#[command(after_help = MOVES_HELP)]
pub(crate) struct BenchSlide {
    #[command(flatten)]
    pub slide: SlideArgs,
    /// Instead of --instances: this many random solvable starts of --size
    /// (seeds derived from --seed); on 3×3 their optimum is computed too.
    #[arg(long, value_name = "N", conflicts_with_all = ["instances", "tiles"],
          value_parser = clap::value_parser!(u32).range(1..))]
    pub random: Option<u32>,
    /// Master seed of --random starts (and of the ga planner).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Only these instances of the file, in this order (ids count from 1),
    /// e.g. --ids 38,40,25.
    #[arg(long, value_name = "ID,...", value_delimiter = ',', conflicts_with = "random",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub ids: Vec<u32>,
    /// Only the first N instances of the file (of --ids, if given).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
    /// Keep the run's state in FILE (JSON), saved after each instance, at
    /// least every 30 s of a long search, and on Ctrl-C, so that --resume
    /// FILE goes on from there. FILE must not exist yet.
    #[arg(long, value_name = "FILE", conflicts_with = "resume")]
    pub checkpoint: Option<PathBuf>,
    /// Go on with the run whose state --checkpoint kept in FILE: the
    /// instances finished are reported as they were, and the search under
    /// way goes on where it stopped (idastar), on any number of threads.
    /// Give the same instance and planner flags.
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
    /// Give up on an instance after this long (its `moves` is then null).
    #[arg(long, value_name = "MS")]
    pub instance_budget_ms: Option<u64>,
    /// Print one JSON object: {"instances": [{"id", "moves", "nodes", "seconds", "optimal"}, ...],
    /// "total_seconds", "solved", "unsolved", "optimal_checked", "not_optimal", "total_nodes",
    /// "planner", "planner_params", "pdb_build_seconds", "pdb_load_seconds"}.
    #[arg(long)]
    pub json: bool,
}

/// The puzzle and the planner. Without --tiles or --instances: a random
/// solvable start of --size (default 3) drawn from the game's seed.
#[derive(Clone, Debug, Args, Default)]
pub(crate) struct SlideArgs {
    /// One start, row-major, 0 (or _) = blank, numbers separated by spaces or
    /// commas, e.g. "7 3 0 8 1 4 6 2 5" or 7,3,0,8,1,4,6,2,5. Its count gives the size.
    #[arg(long, value_name = "TILES", group = "start")]
    pub tiles: Option<String>,
    /// An instance file: one board per line, optional `# optimal N` after it,
    /// `goal blank-first|blank-last` lines (default blank-last).
    #[arg(long, value_name = "FILE", group = "start")]
    pub instances: Option<PathBuf>,
    /// Board side of random starts: 3, 4 or 5.
    #[arg(long, value_name = "N")]
    pub size: Option<u8>,
    /// The goal of --tiles and random starts.
    #[arg(long, value_enum, default_value_t = GoalArg::BlankLast)]
    pub goal: GoalArg,
    /// End the game unsolved after this many moves.
    #[arg(long, value_name = "TICKS")]
    pub max_ticks: Option<u32>,
    #[command(flatten)]
    pub planner: PlannerArgs,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum GoalArg {
    /// 1 2 3 / 4 5 6 / 7 8 _
    #[default]
    BlankLast,
    /// _ 1 2 / 3 4 5 / 6 7 8 (the research instance sets)
    BlankFirst,
}

impl GoalArg {
    fn goal(self) -> Goal {
        match self {
            GoalArg::BlankLast => Goal::BlankLast,
            GoalArg::BlankFirst => Goal::BlankFirst,
        }
    }
}

impl SlideArgs {
    /// The instances these flags name: the file's, one from --tiles, or one
    /// random start of --size.
    fn cases(&self) -> anyhow::Result<Vec<SlideCase>> {
        let goal = self.goal.goal();
        let mut cases = if let Some(path) = &self.instances {
            map::read::<InstanceSet>(path)?
                .into_instances()
                .into_iter()
                .map(|instance| SlideCase { id: instance.id, config: instance.config, optimal: instance.optimal })
                .collect()
        } else if let Some(text) = &self.tiles {
            let tiles = InstanceSet::parse_tiles(&text.replace(['_', 'X', 'x'], "0"))
                .map_err(|error| anyhow::anyhow!("--tiles: {}", error.message))?;
            let Some(side) = slide::side_for_cells(tiles.len()) else {
                bail!("--tiles: expected 9, 16 or 25 numbers, got {}", tiles.len());
            };
            if let Some(size) = self.size.filter(|&size| size != side) {
                bail!(
                    "--tiles has {} numbers, a {side}×{side} board, but --size is {size}: give one or the other",
                    tiles.len()
                );
            }
            let config = Config::fixed(side, &tiles, goal).with_context(|| format!("--tiles {text:?}"))?;
            vec![SlideCase { id: 1, config, optimal: None }]
        } else {
            let setup = SlideSetup { side: self.size.unwrap_or(3), start: Start::Random, goal, max_ticks: None };
            vec![SlideCase { id: 1, config: Config::try_from(setup).context("--size")?, optimal: None }]
        };
        if let Some(cap) = self.max_ticks {
            for case in &mut cases {
                case.config = case.config.clone().with_max_ticks(cap).context("--max-ticks")?;
            }
        }
        Ok(cases)
    }

    /// The planner these flags choose for boards of `side`, with its
    /// pattern databases loaded if it needs them (and what loading them
    /// took); `seed` seeds the ga planner.
    fn planner(&self, side: u8, seed: u64) -> Result<(PlannerMaker, Option<CacheReport>), Failure> {
        self.planner.check().map_err(Failure::bad_input)?;
        let (tables, report) = match self.planner.tables_needed(side).map_err(Failure::bad_input)? {
            Some(partition) => {
                let (tables, report) = self.tables(partition)?;
                (Some(tables), Some(report))
            }
            None => (None, None),
        };
        Ok((self.planner.prepare(tables, seed), report))
    }

    /// The pattern databases of `partition`, from the cache or built (and
    /// then cached), with a progress bar while building; Ctrl-C stops a
    /// build. Says on stderr what it did.
    fn tables(&self, partition: Partition) -> Result<(Arc<PdbSet>, CacheReport), Failure> {
        let (planner, side) = (&self.planner, partition.side());
        let dir = if planner.no_pdb_cache { None } else { planner.pdb_dir.clone().or_else(pdb_cache::default_dir) };
        let loaded = pdb_cache::load(partition, dir.as_deref());
        let unusable_at_load = loaded.report().unusable.clone();
        if let Some(why) = &unusable_at_load {
            eprintln!("warning: the pattern-database cache is not usable ({why}): the tables are built in memory");
        }
        for path in &loaded.report().corrupt {
            eprintln!("pattern database {} is corrupt: it is rebuilt", path.display());
        }
        let place = loaded.dir().map_or_else(|| "not cached".to_string(), |dir| format!("cache {}", dir.display()));
        if loaded.missing() > 0 {
            let states = loaded.missing_states();
            let reuse = match loaded.dir() {
                Some(dir) => format!("done once: later runs load the tables from {}", dir.display()),
                None => "built again on every run, as nothing is cached".to_string(),
            };
            let tables = if loaded.missing() == 1 { "1 table" } else { &format!("{} tables", loaded.missing()) };
            let states =
                if states >= 1_000_000 { format!("{:.1} million", states as f64 / 1e6) } else { states.to_string() };
            eprintln!(
                "building pattern databases {} for the {side}×{side} puzzle: {tables}, a breadth-first search over \
                 {states} states ({reuse})",
                partition.name(),
            );
        }
        let progress = Progress::with_total(loaded.missing_states());
        let built = {
            let _bar = progress_bar(&format!("pattern databases {} (states)", partition.name()), &progress);
            loaded.build(&interrupt_budget(), &progress)
        };
        let (tables, report) = built.map_err(|error| match error {
            CacheError::Stopped(PlanError::Cancelled) => Failure {
                code: Exit::Interrupted,
                error: anyhow!("interrupted while building the pattern databases (tables finished before are kept)"),
            },
            error => Failure { code: Exit::Runtime, error: error.into() },
        })?;
        if let (Some(why), None) = (&report.unusable, &unusable_at_load) {
            eprintln!("warning: the pattern-database cache is not usable ({why}): the tables are kept in memory only");
        }
        eprintln!(
            "pattern databases {}: {} loaded in {:.3} s, {} built in {:.1} s ({place})",
            partition.name(),
            report.loaded,
            report.load_seconds,
            report.built,
            report.build_seconds
        );
        Ok((Arc::new(tables), report))
    }
}

pub(crate) fn play(args: PlaySlide) -> Result<Exit, Failure> {
    let cases = args.slide.cases().exit_code(Exit::BadInput)?;
    if args.index == 0 {
        return Err(Failure::bad_input(anyhow!("--index 0: instances are numbered from 1")));
    }
    let count = cases.len();
    let Some(case) = cases.into_iter().find(|case| case.id == args.index) else {
        let file = args.slide.instances.as_ref().map_or_else(String::new, |path| format!(" {}", path.display()));
        let instances = if count == 1 { "1 instance" } else { &format!("{count} instances") };
        return Err(Failure::bad_input(anyhow!(
            "--index {}: the file{file} holds {instances}, numbered from 1",
            args.index
        )));
    };
    let options = &args.options;
    let level = Arc::new(case.config);
    if let Some(agent) = json_agent::<SlideGame>(options, &args.agents, &level)? {
        let agent = Mutex::new(Some(agent));
        let take = move || agent.lock().expect("not poisoned").take().expect("one game, one agent");
        return play_one::<SlideGame, _>(level, take, options);
    }
    let (planner, _) = args.slide.planner(level.side(), options.seed)?;
    play_one::<SlideGame, _>(level, move || planner.make(), options)
}

pub(crate) fn bench(args: BenchSlide) -> Result<Exit, Failure> {
    let mut cases = match args.random {
        Some(count) => random_cases(&args.slide, count, args.seed)?,
        None => args.slide.cases().exit_code(Exit::BadInput)?,
    };
    if !args.ids.is_empty() {
        cases = pick_ids(cases, &args.ids, args.slide.instances.as_deref())?;
    }
    if let Some(limit) = args.limit {
        cases.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    }
    let Some(first) = cases.first() else {
        return Err(Failure::bad_input(anyhow!("bench slide: the instance file holds no instances")));
    };
    let side = first.config.side();
    if cases.iter().any(|case| case.config.side() != side) {
        return Err(Failure::bad_input(anyhow!("bench slide: all instances must be one size")));
    }
    let resumed = match &args.resume {
        Some(path) => Some(read_bench_state(path)?),
        None => None,
    };
    if let Some(path) = args.checkpoint.as_ref().filter(|path| path.exists()) {
        return Err(Failure::bad_input(anyhow!(
            "{} already holds a benchmark: go on with it with --resume {0}, or choose another file",
            path.display()
        )));
    }
    let (planner, pdb_report) = args.slide.planner(side, args.seed)?;
    let saver = StateSaver::new(args.checkpoint.as_ref().or(args.resume.as_ref()));
    let on_state = |state: &SlideBenchState, change: StateChange| saver.state_changed(state, change);
    let run = SlideBenchRun {
        per_instance: args.instance_budget_ms.map(Duration::from_millis),
        resume: resumed.as_ref(),
        on_state: &on_state,
    };
    let json = args.json;
    let report = bench::bench_slide(&cases, &planner, run, &interrupt_budget(), |line| {
        if !json {
            let moves = line.moves.map_or_else(|| "-".to_string(), |moves| moves.to_string());
            let optimal = line.optimal.map_or_else(String::new, |optimal| format!(" (optimal {optimal})"));
            println!("{:>4}  moves {moves:>4}{optimal}  nodes {:>14}  {:.3} s", line.id, line.nodes, line.seconds);
        }
    })
    .map_err(|error| match error {
        error @ bench::SlideBenchError::OtherBenchmark(..) => Failure::bad_input(error),
        error => Failure { code: Exit::Runtime, error: error.into() },
    })?;
    saver.finish()?;
    if args.json {
        let mut value = serde_json::to_value(&report).exit_code(Exit::Runtime)?;
        if let (Some(pdb), Some(object)) = (&pdb_report, value.as_object_mut()) {
            object.insert("pdb_build_seconds".to_string(), pdb.build_seconds.into());
            object.insert("pdb_load_seconds".to_string(), pdb.load_seconds.into());
        }
        print_json(&value)?;
    } else {
        println!("planner        {} ({})", report.planner, report.planner_params);
        println!("solved         {} of {}", report.solved, report.instances.len());
        println!(
            "optimal        {} checked, {} longer: {:?}",
            report.optimal_checked,
            report.not_optimal.len(),
            report.not_optimal
        );
        println!("nodes          {}", report.total_nodes);
        println!("total time     {:.3} s", report.total_seconds);
        if let Some(median) = report.median_generations {
            println!("median gens    {median}");
        }
    }
    if report.interrupted {
        eprintln!("interrupted: the figures cover the {} instances finished before", report.instances.len());
        if let Some(path) = args.checkpoint.as_ref().or(args.resume.as_ref()) {
            eprintln!("go on with the same command, --checkpoint replaced by --resume {}", path.display());
        }
        return Ok(Exit::Interrupted);
    }
    // Every solution was replayed through the rules, so one shorter than the
    // file's optimum proves the file wrong, whatever the planner.
    let below: Vec<String> = report
        .instances
        .iter()
        .filter_map(|line| match (line.moves, line.optimal) {
            (Some(moves), Some(optimal)) if moves < optimal => {
                Some(format!("instance {}: solved in {moves} moves, the file says `# optimal {optimal}`", line.id))
            }
            _ => None,
        })
        .collect();
    if !below.is_empty() {
        let file = args.slide.instances.as_ref().map_or_else(String::new, |path| format!(" in {}", path.display()));
        return Err(Failure::bad_input(anyhow!(
            "the optimum given{file} is wrong (a checked solution is shorter): {}",
            below.join("; ")
        )));
    }
    if !report.not_optimal.is_empty() && args.slide.planner.planner.is_optimal() {
        return Err(Failure {
            code: Exit::Runtime,
            error: anyhow!("solutions longer than the published optimum: instances {:?}", report.not_optimal),
        });
    }
    Ok(Exit::Success)
}

/// The cases with the ids `ids`, in that order.
fn pick_ids(cases: Vec<SlideCase>, ids: &[u32], file: Option<&Path>) -> Result<Vec<SlideCase>, Failure> {
    ids.iter()
        .map(|&id| {
            cases.iter().find(|case| case.id == id).cloned().ok_or_else(|| {
                let file = file.map_or_else(String::new, |path| format!(" {}", path.display()));
                Failure::bad_input(anyhow!(
                    "--ids {id}: the file{file} holds {} instances, numbered from 1",
                    cases.len()
                ))
            })
        })
        .collect()
}

/// A benchmark state kept by `--checkpoint`, read back for `--resume`.
fn read_bench_state(path: &Path) -> Result<SlideBenchState, Failure> {
    let bytes = std::fs::read(path)
        .with_context(|| format!("--resume: cannot read {}", path.display()))
        .exit_code(Exit::BadInput)?;
    serde_json::from_slice(&bytes)
        .with_context(|| format!("--resume: {} is not a state kept by `bench slide --checkpoint`", path.display()))
        .exit_code(Exit::BadInput)
}

/// How often a long search's state is saved.
const SAVE_EVERY: Duration = Duration::from_secs(30);

/// Writes a benchmark's state to its file as it changes: at once when an
/// instance ends or the run stops, at most every [`SAVE_EVERY`] while a
/// search goes on. Each write replaces the file whole. Also says on
/// stderr when a long search finishes an iteration.
struct StateSaver {
    path: Option<PathBuf>,
    inner: Mutex<SaverState>,
}

struct SaverState {
    last_save: Instant,
    /// The instance and iteration last said on stderr.
    last_said: (u32, u32),
    error: Option<String>,
}

impl StateSaver {
    fn new(path: Option<&PathBuf>) -> StateSaver {
        let inner = SaverState { last_save: Instant::now(), last_said: (0, 0), error: None };
        StateSaver { path: path.cloned(), inner: Mutex::new(inner) }
    }

    fn state_changed(&self, state: &SlideBenchState, change: StateChange) {
        let mut inner = self.inner.lock().expect("no save panics");
        if let Some(current) = &state.current {
            let checkpoint = &current.checkpoint;
            let said = (current.id, checkpoint.iterations);
            if change == StateChange::Progressed
                && said != inner.last_said
                && checkpoint.last_iteration_nodes >= 1 << 30
            {
                eprintln!(
                    "  instance {}: no solution within {} moves ({} nodes so far, {:.0} s); searching within {}",
                    current.id,
                    checkpoint.bound - 2,
                    checkpoint.nodes,
                    current.seconds,
                    checkpoint.bound
                );
                inner.last_said = said;
            }
        }
        let Some(path) = &self.path else { return };
        if change == StateChange::Progressed && inner.last_save.elapsed() < SAVE_EVERY {
            return;
        }
        inner.last_save = Instant::now();
        let written = serde_json::to_vec(state)
            .map_err(std::io::Error::other)
            .and_then(|bytes| tickbot::replay::write_atomically(path, &bytes));
        if let Err(error) = written {
            if inner.error.is_none() {
                eprintln!("warning: cannot save the benchmark's state to {}: {error}", path.display());
            }
            inner.error = Some(format!("cannot save the benchmark's state to {}: {error}", path.display()));
        }
    }

    /// Fails if the last save failed: the file is then not the run's state.
    fn finish(self) -> Result<(), Failure> {
        match self.inner.into_inner().expect("no save panics").error {
            Some(error) => Err(Failure { code: Exit::Runtime, error: anyhow!(error) }),
            None => Ok(()),
        }
    }
}

/// `count` random solvable starts of `--size`; on 3×3 each gets its optimum
/// from idastar, so the GA's lengths can be compared with it.
fn random_cases(args: &SlideArgs, count: u32, seed: u64) -> Result<Vec<SlideCase>, Failure> {
    let side = args.size.unwrap_or(3);
    let goal = args.goal.goal();
    let random = Config::try_from(SlideSetup { side, start: Start::Random, goal, max_ticks: None })
        .context("--size")
        .exit_code(Exit::BadInput)?;
    let tables = (side == 3).then(|| Arc::new(PdbSet::build(Partition::P44)));
    let budget = interrupt_budget();
    let stopped = |index: u32| Failure {
        code: Exit::Interrupted,
        error: anyhow!("interrupted while drawing the random starts ({index} of {count} drawn)"),
    };
    let mut cases = Vec::with_capacity(count as usize);
    for index in 0..count {
        if interrupted() {
            return Err(stopped(index));
        }
        let game = SlideGame::new(&random, derive_seed(seed, u64::from(index)));
        let config = Config::fixed(side, game.tiles(), goal).context("a random start").exit_code(Exit::Runtime)?;
        let optimal = match &tables {
            Some(tables) => {
                let fixed = SlideGame::new(&config, 0);
                // Only Ctrl-C stops a search without a deadline.
                let (moves, _) =
                    IdaStar::new(Arc::clone(tables)).solve_game(&fixed, &budget).map_err(|_| stopped(index))?;
                Some(moves.len() as u32)
            }
            None => None,
        };
        cases.push(SlideCase { id: index + 1, config, optimal });
    }
    Ok(cases)
}

/// `run slide` and a session's Slide entries: every instance of each
/// instance file is a level (none: the start these flags name), played by
/// the planner these flags choose or by the entry's agent; `seed` seeds the
/// ga planner.
pub(crate) fn entry(
    args: SlideArgs,
    levels: &Levels,
    seed: u64,
    agent: Option<EntryAgent>,
) -> Result<Arc<dyn EntryPlayer>, Failure> {
    let mut cases = Vec::new();
    for (name, file) in levels.files() {
        let mut args = args.clone();
        args.instances = file.map(Path::to_path_buf).or(args.instances);
        let many = args.instances.is_some();
        for case in args.cases().exit_code(Exit::BadInput)? {
            let name = if many { format!("{name}#{}", case.id) } else { name.clone() };
            cases.push((name, Arc::new(case.config)));
        }
    }
    let cases = levels.pick(cases).exit_code(Exit::BadInput)?;
    let Some(side) = cases.first().map(|(_, config)| config.side()) else {
        return Err(Failure::bad_input(anyhow!("the instance file holds no instances")));
    };
    if cases.iter().any(|(_, config)| config.side() != side) {
        return Err(Failure::bad_input(anyhow!("the instances of one entry must all have the same board size")));
    }
    if let Some(agent) = agent {
        return Ok(agent.player::<SlideGame>(cases));
    }
    let (planner, _) = args.planner(side, seed)?;
    Ok(GameEntry::<SlideGame, ()>::player(cases, move |_: &Config| planner.make()))
}

/// `tickbot agent slide`: the planner these flags name, for a JSON-lines
/// referee. Its pattern databases (idastar) are loaded or built as `play
/// slide` does, once, when the header has said the board's size.
#[derive(Debug, clap::Args)]
pub(crate) struct ServeSlide {
    #[command(flatten)]
    pub planner: PlannerArgs,
    /// The ga planner's seed. Default: the game's, from the header (as
    /// `play slide --seed` seeds both).
    #[arg(long)]
    pub seed: Option<u64>,
}

pub(crate) fn serve(args: ServeSlide) -> Result<Exit, Failure> {
    let slide = SlideArgs { planner: args.planner, ..SlideArgs::default() };
    super::agent::serve::<SlideGame, _>(|config: &Config, seed| {
        let (planner, _) = slide.planner(config.side(), args.seed.unwrap_or(seed))?;
        Ok(planner.make())
    })
}
