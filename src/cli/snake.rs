//! Snake on the command line: its board and planner flags, and what
//! `play snake`, `bench snake` and `run snake` do with them.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::bail;
use clap::{Args, ValueEnum};

use tickbot::bench;
use tickbot::game::snake::plan::PlannerArgs;
use tickbot::game::snake::{self, Dir, SnakeGame, SnakeSetup, Start, StartRule, TailRule};
use tickbot::map::{self, Level, MapError};
use tickbot::par::Workers;
use tickbot::progress::Progress;

use tickbot::session::{EntryPlayer, GameEntry};

use super::agent::{AgentArgs, EntryAgent, json_agent};
use super::common::{Levels, PlayArgs, parse_size};
use super::support::{
    Exit, ExitOnError, Failure, default_parallelism, finished, interrupt_budget, play_one, print_json, progress_bar,
};

/// The bundled default Snake board, so `tickbot run` works from any directory.
const DEFAULT_SNAKE_MAP: &str = include_str!("../../maps/snake/hawstein.txt");
const DEFAULT_SNAKE_MAP_NAME: &str = "maps/snake/hawstein.txt (bundled)";

#[derive(Debug, Args)]
pub(crate) struct PlaySnake {
    #[command(flatten)]
    pub snake: SnakeArgs,
    #[command(flatten)]
    pub agents: AgentArgs,
    #[command(flatten)]
    pub options: PlayArgs,
}

#[derive(Debug, Args)]
pub(crate) struct BenchSnake {
    #[command(flatten)]
    pub snake: SnakeArgs,
    /// Number of episodes; episode i plays with a seed derived from (seed, i).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
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
#[derive(Clone, Debug, Args, Default)]
pub(crate) struct SnakeArgs {
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
    /// Where the snake starts: head column, row, heading and length, e.g. 3,0,right,4;
    /// or `random`: length 1 on a free cell drawn from the game's seed.
    #[arg(long, value_name = "COL,ROW,DIR,LEN|random", value_parser = parse_start)]
    pub start: Option<StartRule>,
    /// Whether the head may enter the cell the tail leaves on the same tick.
    #[arg(long, value_enum)]
    pub tail_rule: Option<TailRuleArg>,
    /// Ticks without food before the game is stalled. Default: width*height*4.
    #[arg(long, value_name = "TICKS")]
    pub stall_limit: Option<u32>,
    /// End every episode after this many ticks (as stalled).
    #[arg(long, value_name = "TICKS")]
    pub max_ticks: Option<u32>,
    #[command(flatten)]
    pub planner: PlannerArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Preset {
    Chuyangliu,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum TailRuleArg {
    /// The tail moves first: the head may take its cell.
    Vacates,
    /// The tail's cell stays body until the tick ends.
    Blocks,
}

fn parse_start(text: &str) -> Result<StartRule, String> {
    if text == "random" {
        return Ok(StartRule::Random);
    }
    let expected = || format!("expected COL,ROW,DIR,LEN like 3,0,right,4, or random, got {text:?}");
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [col, row, dir, length] = parts[..] else {
        return Err(expected());
    };
    let number = |word: &str| word.parse::<u16>().map_err(|_| expected());
    let heading =
        Dir::from_word(dir).ok_or_else(|| format!("unknown direction {dir:?}: use up, right, down or left"))?;
    Ok(StartRule::At(Start { col: number(col)?, row: number(row)?, heading, length: number(length)? }))
}

impl SnakeArgs {
    /// The validated Snake configuration these flags describe. Errors name
    /// the map file and line.
    pub(crate) fn config(&self) -> anyhow::Result<snake::Config> {
        self.planner.check()?;
        let (mut setup, source) = if let Some(path) = &self.map {
            (map::read::<SnakeSetup>(path)?, path.display().to_string())
        } else if let Some((width, height)) = self.size {
            // The default start lies along the top row: say so, rather than
            // the map parser's words about a missing `start` line.
            let length = snake::DEFAULT_START_LENGTH;
            if self.start.is_none() && width < length {
                bail!(
                    "--size {width}x{height}: too small for the default start, a snake of length {length} lying \
                     along the top row: the board must be at least {length} wide (or give --start COL,ROW,DIR,LEN, \
                     e.g. --start 0,{},down,{})",
                    height.min(length) - 1,
                    height.min(length)
                );
            }
            (SnakeSetup::open(width, height), format!("--size {width}x{height}"))
        } else if self.preset == Some(Preset::Chuyangliu) {
            (SnakeSetup::chuyangliu(), "--preset chuyangliu".to_string())
        } else {
            let setup = SnakeSetup::parse(DEFAULT_SNAKE_MAP).map_err(|error| error.in_file(DEFAULT_SNAKE_MAP_NAME))?;
            (setup, DEFAULT_SNAKE_MAP_NAME.to_string())
        };
        if let Some(start) = self.start {
            setup.start = start;
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

pub(crate) fn play(args: PlaySnake) -> Result<Exit, Failure> {
    let level = Arc::new(args.snake.config().exit_code(Exit::BadInput)?);
    let planner_level = Arc::clone(&level);
    let options = &args.options;
    if let Some(agent) = json_agent::<SnakeGame>(options, &args.agents, &level)? {
        let agent = std::sync::Mutex::new(Some(agent));
        let take = move || agent.lock().expect("not poisoned").take().expect("one game, one agent");
        return play_one::<SnakeGame, _>(level, take, options);
    }
    play_one::<SnakeGame, _>(level, move || args.snake.planner.make(&planner_level), &args.options)
}

/// `run snake` and a session's Snake entries: each map is a level (none:
/// the board these flags name), played by the planner these flags choose or
/// by the entry's agent.
pub(crate) fn entry(
    args: SnakeArgs,
    levels: &Levels,
    agent: Option<EntryAgent>,
) -> anyhow::Result<Arc<dyn EntryPlayer>> {
    let levels = levels.read(|map| {
        let mut args = args.clone();
        if let Some(map) = map {
            (args.map, args.size, args.preset) = (Some(map.to_path_buf()), None, None);
        }
        args.config()
    })?;
    if let Some(agent) = agent {
        return Ok(agent.player::<SnakeGame>(levels));
    }
    Ok(GameEntry::<SnakeGame, ()>::player(levels, move |level: &snake::Config| args.planner.make(level)))
}

pub(crate) fn bench(args: BenchSnake) -> Result<Exit, Failure> {
    let level = args.snake.config().exit_code(Exit::BadInput)?;
    let threads = args.threads.unwrap_or_else(default_parallelism);
    let progress = Progress::with_total(args.episodes);
    let report = {
        let _bar = progress_bar("snake episodes", &progress);
        let make_planner = || args.snake.planner.make(&level);
        bench::bench_snake(
            &level,
            make_planner,
            args.episodes,
            args.seed,
            &Workers { threads, budget: &interrupt_budget(), progress: &progress },
        )
        .exit_code(Exit::Runtime)?
    };
    if args.json {
        print_json(&report)?;
    } else {
        println!("planner        {} ({})", report.planner, report.planner_params);
        println!("rules          {}", report.rules);
        println!("episodes       {} (seed {}, {} threads)", report.episodes, report.seed, report.threads);
        println!("avg length     {:.2}", report.avg_length);
        println!("avg steps      {:.2}", report.avg_steps);
        println!("fill rate      {:.1}% ({} filled the board)", report.fill_rate * 100.0, report.won);
        println!("lost           {}", report.lost);
        println!("stalled        {}", report.stalled);
        println!("moves/sec      {:.0}", report.moves_per_sec);
    }
    Ok(finished())
}

/// `tickbot agent snake`: the planner these flags name, for a JSON-lines referee.
#[derive(Debug, clap::Args)]
pub(crate) struct ServeSnake {
    #[command(flatten)]
    pub planner: PlannerArgs,
}

pub(crate) fn serve(args: ServeSnake) -> Result<Exit, Failure> {
    super::agent::serve::<SnakeGame, _>(|config, _| Ok(args.planner.make(config)))
}
