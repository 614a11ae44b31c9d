//! `tickbot bench slide`: one planner over a list of instances, in order
//! (idastar shares each instance among its threads); every solution is
//! replayed through the rules and its length checked against the optimum
//! the instance file gives. A run can be stopped and resumed: its state
//! ([`SlideBenchState`]: the instances finished, and where the search of
//! the current one stands) is handed to the caller as it changes.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::game::slide::plan::idastar::Checkpoint;
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlideInstanceReport {
    pub id: u32,
    pub moves: Option<u32>,
    pub nodes: u64,
    pub seconds: f64,
    /// The optimum the instance file gives (or the one computed for random starts).
    pub optimal: Option<u32>,
    /// GA only: generations bred over all rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) generations: Option<u64>,
}

/// `tickbot bench slide`'s report. The key names are a documented interface.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SlideBenchReport {
    pub instances: Vec<SlideInstanceReport>,
    /// Wall time of the whole run, the runs it resumed included.
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

/// Everything a stopped benchmark needs to go on: what it runs, what it
/// has finished, and how far the instance under way has got.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlideBenchState {
    pub planner: String,
    pub planner_params: String,
    /// The instances, in the order they are run.
    pub ids: Vec<u32>,
    /// The reports of the instances finished (solved or given up on).
    pub finished: Vec<SlideInstanceReport>,
    /// The instance under way, if it has a search to resume.
    pub current: Option<CurrentInstance>,
    /// Wall time of the runs before this one.
    pub seconds: f64,
}

/// The instance a stopped benchmark was working on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurrentInstance {
    pub id: u32,
    /// Wall time spent on it so far, over every run.
    pub seconds: f64,
    /// Where its search stands.
    pub checkpoint: Checkpoint,
}

impl SlideBenchState {
    /// A fresh state for `cases` run by `planner`.
    pub fn new(cases: &[SlideCase], planner: &PlannerMaker) -> SlideBenchState {
        let (name, params) = planner_names(planner);
        let ids = cases.iter().map(|case| case.id).collect();
        SlideBenchState {
            planner: name,
            planner_params: params,
            ids,
            finished: Vec::new(),
            current: None,
            seconds: 0.0,
        }
    }
}

/// When the caller is handed the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateChange {
    /// An instance has finished, or the run has stopped: keep this state.
    Settled,
    /// The search of the current instance has moved on (a subtree or an
    /// iteration finished): keep it if it is time to.
    Progressed,
}

/// Why a benchmark could not run to its end.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SlideBenchError {
    #[error("instance {id}: the planner's solution does not solve the board (ends {status})")]
    NotASolution { id: u32, status: String },
    #[error(
        "the checkpoint is of another benchmark: it ran {0}, this command runs {1} (give the same instances and \
         planner flags)"
    )]
    OtherBenchmark(String, String),
}

/// How a benchmark runs: each instance's time limit, where it goes on
/// from, and who hears of its progress.
#[derive(Clone, Copy)]
pub struct SlideBenchRun<'a> {
    /// Wall time allowed per instance, over every run (unlimited if `None`).
    pub per_instance: Option<Duration>,
    /// The state of a stopped run of the same benchmark, to go on from.
    pub resume: Option<&'a SlideBenchState>,
    /// Called with the state as it changes (from the search's threads,
    /// one call at a time).
    pub on_state: &'a (dyn Fn(&SlideBenchState, StateChange) + Sync),
}

impl std::fmt::Debug for SlideBenchRun<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SlideBenchRun")
            .field("per_instance", &self.per_instance)
            .field("resume", &self.resume)
            .finish_non_exhaustive()
    }
}

/// Runs the planner `planner` makes on every case in order, calling
/// `on_instance` as each ends (long runs show progress). Stops when
/// `budget` is cancelled.
pub fn bench_slide(
    cases: &[SlideCase],
    planner: &PlannerMaker,
    run: SlideBenchRun,
    budget: &Budget,
    mut on_instance: impl FnMut(&SlideInstanceReport),
) -> Result<SlideBenchReport, SlideBenchError> {
    let started = Instant::now();
    let state = match run.resume {
        Some(resumed) => {
            let fresh = SlideBenchState::new(cases, planner);
            let what = |state: &SlideBenchState| {
                format!("{} ({}) on instances {:?}", state.planner, state.planner_params, state.ids)
            };
            if (&resumed.planner, &resumed.planner_params, &resumed.ids)
                != (&fresh.planner, &fresh.planner_params, &fresh.ids)
            {
                return Err(SlideBenchError::OtherBenchmark(what(resumed), what(&fresh)));
            }
            resumed.clone()
        }
        None => SlideBenchState::new(cases, planner),
    };
    let earlier_seconds = state.seconds;
    let state = Mutex::new(state);
    let lock = || state.lock().expect("no state update panics");
    let mut instances = lock().finished.clone();
    let mut interrupted = false;
    for case in cases.iter().skip(instances.len()) {
        let game = SlideGame::new(&case.config, 0);
        let resume = lock().current.take().filter(|current| current.id == case.id);
        let spent = resume.as_ref().map_or(0.0, |current| current.seconds);
        let case_budget = match run.per_instance {
            Some(limit) => budget.with_deadline(Instant::now() + limit.saturating_sub(Duration::from_secs_f64(spent))),
            None => budget.clone(),
        };
        let case_started = Instant::now();
        let report = |checkpoint: &Checkpoint| {
            let mut state = lock();
            let seconds = spent + case_started.elapsed().as_secs_f64();
            state.current = Some(CurrentInstance { id: case.id, seconds, checkpoint: checkpoint.clone() });
            state.seconds = earlier_seconds + started.elapsed().as_secs_f64();
            (run.on_state)(&state, StateChange::Progressed);
        };
        let checkpoint = resume.map(|current| current.checkpoint);
        let Attempt { moves, nodes, generations, checkpoint: stopped_at } =
            planner.solve_resumable(&game, &case_budget, checkpoint.as_ref(), &report);
        let seconds = spent + case_started.elapsed().as_secs_f64();
        if moves.is_none() && budget.exhausted() == Some(PlanError::Cancelled) {
            let mut state = lock();
            state.current = stopped_at.map(|checkpoint| CurrentInstance { id: case.id, seconds, checkpoint });
            state.seconds = earlier_seconds + started.elapsed().as_secs_f64();
            (run.on_state)(&state, StateChange::Settled);
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
        instances.push(line.clone());
        let mut state = lock();
        state.finished.push(line);
        state.current = None;
        state.seconds = earlier_seconds + started.elapsed().as_secs_f64();
        (run.on_state)(&state, StateChange::Settled);
    }
    let (name, params) = planner_names(planner);
    let total_seconds = earlier_seconds + started.elapsed().as_secs_f64();
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
        planner: name,
        planner_params: params,
        median_generations: stats::median(&generations),
        instances,
        interrupted,
    })
}

/// The planner's name and parameters as the report prints them.
fn planner_names(planner: &PlannerMaker) -> (String, String) {
    let sample = planner.make();
    (sample.name().to_string(), format_params(&sample.params()))
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
