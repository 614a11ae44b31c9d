//! `tickbot bench pipes`: how long a planner takes to solve each puzzle,
//! repeated to take a median, grouped by board size, topology and where the
//! puzzles came from, with the quantiles that show a heavy tail (p90, p99,
//! max) of both time and search nodes.

use std::time::Instant;

use serde::Serialize;

use crate::game::pipes::{Config, PipesGame};
use crate::game::{Game, OutcomeKind, Status};
use crate::plan::{Budget, PlanError, Planner};
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
    pub kind: &'static str,
    pub size: String,
    pub wrap: bool,
    /// Median planning time over the repeats, in milliseconds.
    pub median_ms: f64,
    pub min_ms: f64,
    /// Search nodes of the plan (solve: branch points; dfs/astar: states).
    pub nodes: u64,
    /// Moves the plan played.
    pub moves: u32,
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
pub fn bench_pipes<P: Planner<PipesGame>>(
    puzzles: &[BenchPuzzle],
    make_planner: impl Fn() -> P,
    repeat: u32,
    budget: &Budget,
    progress: &Progress,
) -> PipesBenchReport {
    let repeat = repeat.max(1);
    let sample = make_planner();
    let planner = sample.name().to_string();
    let planner_params = crate::plan::format_params(&sample.params());
    let mut timings = Vec::with_capacity(puzzles.len());
    let cancelled = || budget.exhausted() == Some(PlanError::Cancelled);
    let mut interrupted = false;
    for puzzle in puzzles {
        let grid = puzzle.config.grid();
        let mut times = Vec::with_capacity(repeat as usize);
        let mut last = None;
        for _ in 0..repeat {
            let game = PipesGame::new(&puzzle.config, 0);
            let mut planner = make_planner();
            let started = Instant::now();
            let decision =
                if game.status() == Status::Running { Some(planner.next_action(&game, budget)) } else { None };
            times.push(started.elapsed().as_secs_f64() * 1000.0);
            last = Some((game, planner, decision));
            if cancelled() {
                break;
            }
        }
        if cancelled() {
            interrupted = true;
            break;
        }
        let (mut game, mut planner, decision) = last.expect("at least one repeat");
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
        let solved = matches!(game.status(), Status::Over(outcome) if outcome.kind == OutcomeKind::Won);
        let min_ms = times.iter().copied().fold(f64::INFINITY, f64::min);
        timings.push(PuzzleTiming {
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
        });
        if cancelled() {
            // Cut short while the plan was played out: not a finished timing.
            timings.pop();
            interrupted = true;
            break;
        }
        progress.advance(1);
    }
    let mut groups: Vec<(u32, String, bool, &'static str)> = timings
        .iter()
        .zip(puzzles)
        .map(|(timing, puzzle)| (puzzle.config.n_tiles() as u32, timing.size.clone(), timing.wrap, timing.kind))
        .collect();
    groups.sort();
    groups.dedup();
    let sizes = groups
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
        .collect();
    PipesBenchReport { planner, planner_params, repeat, sizes, puzzles: timings, interrupted }
}
