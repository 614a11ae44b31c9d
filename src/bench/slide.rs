//! `tickbot bench slide`: one planner over a list of instances, in order, on
//! one thread; every solution is replayed through the rules and its length
//! checked against the optimum the instance file gives.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::game::slide::plan::{Attempt, PlannerMaker};
use crate::game::slide::{Config, Dir, SlideGame};
use crate::game::{Game, OutcomeKind, Status};
use crate::plan::{Budget, PlanError, format_params};
use crate::stats;

/// One benchmark instance.
#[derive(Clone, Debug)]
pub struct SlideCase {
    pub id: u32,
    pub config: Config,
    /// The known optimal length, if any; a solution of another length is
    /// reported in `not_optimal`.
    pub optimal: Option<u32>,
}

/// One line of the report. `id`, `moves`, `nodes` and `seconds` are the
/// documented interface; `moves` is `null` when the planner gave up.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SlideInstanceReport {
    pub id: u32,
    pub moves: Option<u32>,
    pub nodes: u64,
    pub seconds: f64,
    /// The optimum the instance file gives (or the one computed for random starts).
    pub optimal: Option<u32>,
    /// GA only: generations bred over all rounds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) generations: Option<u64>,
}

/// `tickbot bench slide`'s report. The key names are a documented interface.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SlideBenchReport {
    pub instances: Vec<SlideInstanceReport>,
    pub total_seconds: f64,
    pub solved: u32,
    pub(crate) unsolved: u32,
    /// Solutions whose length was checked against a known optimum.
    pub optimal_checked: u32,
    /// Ids of the solutions longer than the known optimum.
    pub not_optimal: Vec<u32>,
    pub total_nodes: u64,
    pub planner: String,
    pub planner_params: String,
    /// GA only: the median of `generations` over solved instances (the
    /// mean of the two middle values for an even count).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub median_generations: Option<f64>,
    /// The budget was cancelled (Ctrl-C): `instances` holds those finished
    /// before, the one cut short is left out.
    pub interrupted: bool,
}

/// Why a benchmark could not run to its end.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SlideBenchError {
    #[error("instance {id}: the planner's solution does not solve the board (ends {status})")]
    NotASolution { id: u32, status: String },
}

/// Runs the planner `planner` makes on every case in order, each with at
/// most `per_instance` of wall time (unlimited if `None`), calling
/// `on_instance` as each ends (long runs show progress). Stops when
/// `budget` is cancelled.
pub fn bench_slide(
    cases: &[SlideCase],
    planner: &PlannerMaker,
    per_instance: Option<Duration>,
    budget: &Budget,
    mut on_instance: impl FnMut(&SlideInstanceReport),
) -> Result<SlideBenchReport, SlideBenchError> {
    let (name, params) = {
        let sample = planner.make();
        (sample.name(), sample.params())
    };
    let mut instances = Vec::with_capacity(cases.len());
    let started = Instant::now();
    let mut interrupted = false;
    for case in cases {
        let game = SlideGame::new(&case.config, 0);
        let case_budget = match per_instance {
            Some(limit) => budget.with_deadline(Instant::now() + limit),
            None => budget.clone(),
        };
        let case_started = Instant::now();
        let Attempt { moves, nodes, generations } = planner.solve(&game, &case_budget);
        let seconds = case_started.elapsed().as_secs_f64();
        if moves.is_none() && budget.exhausted() == Some(PlanError::Cancelled) {
            interrupted = true;
            break;
        }
        if let Some(moves) = &moves {
            check_solution(case.id, &game, moves)?;
        }
        let line = SlideInstanceReport {
            id: case.id,
            moves: moves.map(|moves| moves.len() as u32),
            nodes,
            seconds,
            optimal: case.optimal,
            generations,
        };
        on_instance(&line);
        instances.push(line);
    }
    let total_seconds = started.elapsed().as_secs_f64();
    let solved = instances.iter().filter(|line| line.moves.is_some()).count() as u32;
    let checked: Vec<&SlideInstanceReport> =
        instances.iter().filter(|line| line.moves.is_some() && line.optimal.is_some()).collect();
    let not_optimal = checked.iter().filter(|line| line.moves != line.optimal).map(|line| line.id).collect();
    let generations: Vec<f64> = instances
        .iter()
        .filter(|line| line.moves.is_some())
        .filter_map(|line| line.generations)
        .map(|generations| generations as f64)
        .collect();
    Ok(SlideBenchReport {
        total_seconds,
        solved,
        unsolved: instances.len() as u32 - solved,
        optimal_checked: checked.len() as u32,
        not_optimal,
        total_nodes: instances.iter().map(|line| line.nodes).sum(),
        planner: name.to_string(),
        planner_params: format_params(&params),
        median_generations: stats::median(&generations),
        instances,
        interrupted,
    })
}

/// Plays `moves` through the rules: they must end in a won game.
fn check_solution(id: u32, game: &SlideGame, moves: &[Dir]) -> Result<(), SlideBenchError> {
    let mut game = game.clone();
    for &dir in moves {
        if game.step(dir).is_err() {
            break;
        }
    }
    match game.status() {
        Status::Over(outcome) if outcome.kind == OutcomeKind::Won && game.tick() as usize == moves.len() => Ok(()),
        status => Err(SlideBenchError::NotASolution { id, status: format!("{status:?} after {} ticks", game.tick()) }),
    }
}
