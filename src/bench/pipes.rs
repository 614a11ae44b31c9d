//! `tickbot bench pipes`: how long a planner takes to solve each puzzle,
//! repeated to take a median, grouped by board size, topology and where the
//! puzzles came from, with the quantiles that show a heavy tail (p90, p99,
//! max) of both time and search nodes.

use std::time::Instant;

use serde::Serialize;

use crate::game::pipes::{Config, PipesGame, Rotate};
use crate::game::{Game, OutcomeKind, Status};
use crate::plan::{Budget, Decision, PlanError, Planner};
use crate::progress::Progress;
use crate::stats;

/// One puzzle to time: a name for the report, where it came from (the
/// report groups by it: `file`, `generated` or `generated unique`) and its
/// validated config.
#[derive(Clone, Debug)]
pub struct BenchPuzzle {
    pub name: String,
    pub kind: &'static str,
    pub config: Config,
}

/// One puzzle's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PuzzleTiming {
    pub name: String,
    pub(crate) kind: &'static str,
    pub(crate) size: String,
    pub(crate) wrap: bool,
    /// Median planning time over the repeats, in milliseconds.
    pub(crate) median_ms: f64,
    pub(crate) min_ms: f64,
    /// Search nodes of the plan (solve: branch points; dfs/astar: states).
    pub(crate) nodes: u64,
    /// Moves the plan played.
    pub(crate) moves: u32,
    /// Whether playing the plan solved the puzzle.
    pub solved: bool,
    /// Why not, when the planner gave up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// The puzzles of one size, topology and kind together. Quantiles are over
/// the puzzles (each puzzle's median time), by linear interpolation between
/// ranks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SizeTiming {
    pub size: String,
    pub wrap: bool,
    pub kind: &'static str,
    pub puzzles: usize,
    pub solved: usize,
    /// Median over the puzzles of each puzzle's median time, in ms.
    pub median_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    /// The slowest puzzle's median time, in ms.
    pub max_ms: f64,
    /// Search nodes (solve: branch points) over the puzzles.
    pub median_nodes: f64,
    pub p90_nodes: f64,
    pub p99_nodes: f64,
    pub max_nodes: u64,
}

/// `tickbot bench pipes`'s report. The key names are a documented interface.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PipesBenchReport {
    pub planner: String,
    pub planner_params: String,
    pub repeat: u32,
    pub sizes: Vec<SizeTiming>,
    pub puzzles: Vec<PuzzleTiming>,
    /// The budget was cancelled (Ctrl-C): the report covers the puzzles
    /// finished before; the one cut short is left out.
    pub interrupted: bool,
}

/// Times the first planning call of a fresh planner on each puzzle `repeat`
/// times (the plan is made there; later calls only hand out its moves), then
/// plays the last plan out to check that it solves the puzzle. Stops when
/// `budget` is cancelled; counts finished puzzles in `progress`.
/// `make_planner` makes a fresh planner for a game on the puzzle it is given;
/// the report takes the planner's name and parameters from the one made for
/// the first puzzle (none: an empty name).
pub fn bench_pipes<P: Planner<PipesGame>>(
    puzzles: &[BenchPuzzle],
    make_planner: impl Fn(&Config) -> P,
    repeat: u32,
    budget: &Budget,
    progress: &Progress,
) -> PipesBenchReport {
    let repeat = repeat.max(1);
    let (planner, planner_params) = match puzzles.first() {
        Some(first) => {
            let sample = make_planner(&first.config);
            (sample.name().to_string(), crate::plan::format_params(&sample.params()))
        }
        None => (String::new(), String::new()),
    };
    let mut timings = Vec::with_capacity(puzzles.len());
    let mut interrupted = false;
    for puzzle in puzzles {
        match time_puzzle(puzzle, &make_planner, repeat, budget) {
            Some(timing) => timings.push(timing),
            None => {
                interrupted = true;
                break;
            }
        }
        progress.advance(1);
    }
    let sizes = group_by_size(puzzles, &timings);
    PipesBenchReport { planner, planner_params, repeat, sizes, puzzles: timings, interrupted }
}

/// One puzzle's timing, or `None` when `budget` was cancelled (Ctrl-C)
/// before the timing was finished.
fn time_puzzle<P: Planner<PipesGame>>(
    puzzle: &BenchPuzzle,
    make_planner: &impl Fn(&Config) -> P,
    repeat: u32,
    budget: &Budget,
) -> Option<PuzzleTiming> {
    let cancelled = || budget.exhausted() == Some(PlanError::Cancelled);
    let grid = puzzle.config.grid();
    let mut times = Vec::with_capacity(repeat as usize);
    let mut last = None;
    for _ in 0..repeat {
        let game = PipesGame::new(&puzzle.config, 0);
        let mut planner = make_planner(&puzzle.config);
        let started = Instant::now();
        let decision = if game.status() == Status::Running { Some(planner.next_action(&game, budget)) } else { None };
        times.push(started.elapsed().as_secs_f64() * 1000.0);
        last = Some((game, planner, decision));
        if cancelled() {
            break;
        }
    }
    if cancelled() {
        return None;
    }
    let (game, planner, decision) = last.expect("at least one repeat");
    let (game, nodes, failure) = play_out(game, planner, decision, budget);
    let solved = matches!(game.status(), Status::Over(outcome) if outcome.kind == OutcomeKind::Won);
    let min_ms = times.iter().copied().fold(f64::INFINITY, f64::min);
    let timing = PuzzleTiming {
        name: puzzle.name.clone(),
        kind: puzzle.kind,
        size: format!("{}x{}", grid.width, grid.height),
        wrap: grid.wrap,
        median_ms: stats::median(&times).unwrap_or(0.0),
        min_ms,
        nodes,
        moves: game.tick(),
        solved,
        failure: if solved { None } else { failure.or_else(|| Some(format!("{:?}", game.status()))) },
    };
    // Cut short while the plan was played out: not a finished timing.
    if cancelled() { None } else { Some(timing) }
}

/// Plays the plan of the timed `decision` out: the game at its end, the
/// plan's search nodes, and why the planner gave up if it did.
fn play_out<P: Planner<PipesGame>>(
    mut game: PipesGame,
    mut planner: P,
    decision: Option<Result<Decision<Rotate>, PlanError>>,
    budget: &Budget,
) -> (PipesGame, u64, Option<String>) {
    let (mut nodes, mut failure) = (0, None);
    match decision {
        None => {}
        Some(Err(error)) => failure = Some(error.to_string()),
        Some(Ok(decision)) => {
            nodes = decision.planned.map_or(0, |stats| stats.nodes);
            let mut action = decision.action;
            loop {
                if game.step(action).is_err() || game.status() != Status::Running {
                    break;
                }
                match planner.next_action(&game, budget) {
                    Ok(decision) => action = decision.action,
                    Err(error) => {
                        failure = Some(error.to_string());
                        break;
                    }
                }
            }
        }
    }
    (game, nodes, failure)
}

/// The timings grouped by size, topology and kind, smallest boards first,
/// with the quantiles of each group.
fn group_by_size(puzzles: &[BenchPuzzle], timings: &[PuzzleTiming]) -> Vec<SizeTiming> {
    let mut groups: Vec<(u32, String, bool, &'static str)> = timings
        .iter()
        .zip(puzzles)
        .map(|(timing, puzzle)| (puzzle.config.n_tiles() as u32, timing.size.clone(), timing.wrap, timing.kind))
        .collect();
    groups.sort();
    groups.dedup();
    groups
        .into_iter()
        .map(|(_, size, wrap, kind)| {
            let members: Vec<&PuzzleTiming> = timings
                .iter()
                .filter(|timing| timing.size == size && timing.wrap == wrap && timing.kind == kind)
                .collect();
            let medians: Vec<f64> = members.iter().map(|timing| timing.median_ms).collect();
            let nodes: Vec<f64> = members.iter().map(|timing| timing.nodes as f64).collect();
            let quantile = |values: &[f64], q| stats::quantile(values, q).unwrap_or(0.0);
            SizeTiming {
                size,
                wrap,
                kind,
                puzzles: members.len(),
                solved: members.iter().filter(|timing| timing.solved).count(),
                median_ms: quantile(&medians, 0.5),
                p90_ms: quantile(&medians, 0.9),
                p99_ms: quantile(&medians, 0.99),
                max_ms: medians.iter().copied().fold(0.0, f64::max),
                median_nodes: quantile(&nodes, 0.5),
                p90_nodes: quantile(&nodes, 0.9),
                p99_nodes: quantile(&nodes, 0.99),
                max_nodes: members.iter().map(|timing| timing.nodes).max().unwrap_or(0),
            }
        })
        .collect()
}
