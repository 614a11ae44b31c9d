//! The planner interface and the synchronous play loop.
//!
//! A planner is asked for one action per tick. Planners that compute a whole
//! plan at once (a search, a genetic algorithm) keep it and hand it out move
//! by move, reporting [`PlanStats`] only on the ticks where they planned, so
//! the session logs one event per plan and never one per node.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::game::{Game, IllegalAction, Outcome, Status};

/// Chooses the actions of one game, tick by tick.
pub trait Planner<G: Game>: Send + 'static {
    /// The planner's name on the command line and in replay headers.
    fn name(&self) -> &'static str;

    /// Its parameters as `(name, value)` pairs, recorded in replay headers.
    fn params(&self) -> Vec<(String, String)>;

    /// The action to play now. `game` is running.
    fn next_action(&mut self, game: &G, budget: &Budget) -> Result<Decision<G::Action>, PlanError>;
}

/// Planner parameters as one line, `name=value` separated by spaces: how
/// reports and `replay show` print them.
pub fn format_params(params: &[(String, String)]) -> String {
    let pairs: Vec<String> = params.iter().map(|(name, value)| format!("{name}={value}")).collect();
    pairs.join(" ")
}

/// One answer of a planner.
#[derive(Clone, Debug)]
pub struct Decision<A> {
    pub action: A,
    /// Present on the ticks where the planner made a new plan.
    pub planned: Option<PlanStats>,
}

/// What a planner reports about one plan, for the debug log and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanStats {
    /// Which branch of the planner produced the plan (`"food"`, `"tail"`, ...).
    pub kind: &'static str,
    /// Search nodes expanded (BFS cells, A* states, GA evaluations, ...).
    pub nodes: u64,
    /// Moves in the plan.
    pub plan_len: u32,
}

/// Why a planner produced no action.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("planner gave up: {0}")]
    GaveUp(String),
    #[error("planner ran out of its time budget")]
    OutOfTime,
    #[error("planner was cancelled")]
    Cancelled,
}

/// The limits a planner must respect while choosing one action. Long
/// searches poll [`Budget::exhausted`] every few thousand nodes.
#[derive(Clone, Debug, Default)]
pub struct Budget {
    deadline: Option<Instant>,
    cancel: Option<Arc<AtomicBool>>,
}

impl Budget {
    /// No limit at all.
    pub fn unlimited() -> Budget {
        Budget::default()
    }

    pub fn new(deadline: Option<Instant>, cancel: Option<Arc<AtomicBool>>) -> Budget {
        Budget { deadline, cancel }
    }

    /// `Some(error)` once the planner must stop.
    pub fn exhausted(&self) -> Option<PlanError> {
        if self.cancel.as_ref().is_some_and(|flag| flag.load(Ordering::Relaxed)) {
            return Some(PlanError::Cancelled);
        }
        if self.deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            return Some(PlanError::OutOfTime);
        }
        None
    }
}

/// Why a synchronous game could not be played to its end.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error(transparent)]
    Plan(#[from] PlanError),
    #[error("the planner chose an illegal action: {0}")]
    Illegal(#[from] IllegalAction),
}

/// Plays `game` to its end with `planner`, calling `on_tick` after every
/// step with the action played and the state it led to. The synchronous
/// loop behind `bench` and the tests; the session has its own async one.
pub fn play_to_end<G: Game, P: Planner<G>>(
    game: &mut G,
    planner: &mut P,
    budget: &Budget,
    mut on_tick: impl FnMut(G::Action, &G),
) -> Result<Outcome, PlayError> {
    loop {
        if let Status::Over(outcome) = game.status() {
            return Ok(outcome);
        }
        let decision = planner.next_action(game, budget)?;
        game.step(decision.action)?;
        on_tick(decision.action, game);
    }
}
