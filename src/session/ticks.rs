//! The ticks of one game: ask the planner (on the blocking pool, under the
//! move budget), sort what it answers into the action to play or the
//! fault that ends the game, step the game, and write each tick's frame.
//! What happens to the finished game (its replay kept or deleted, its
//! record, its log line) is `game.rs`'s.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tracing::{debug, warn};

use crate::game::{Outcome, OutcomeKind, Replayable, Status};
use crate::plan::{Budget, Decision, PlanError, PlanStats, Planner};
use crate::replay::{Frame, FrameHash, ReplayFile};
use crate::session::{GameJob, SessionError};

/// How the ticks of one game ended.
pub(super) enum Ending {
    Over(Outcome),
    /// Stopped by the session; kept only if `record_interrupted`.
    Interrupted(Outcome),
}

/// Where a game stands after its last tick: what its footer and record need.
pub(super) struct Played {
    pub(super) ending: Ending,
    /// The game's tick and score after its last step.
    pub(super) ticks: u32,
    pub(super) score: i64,
    /// The hash of the state after the last step (the initial hash if none).
    pub(super) last_hash: u64,
    /// Time spent in the planner, over all its calls.
    pub(super) planner_time: Duration,
}

/// A planner call that came back: the planner and the game, with what the
/// planner answered (or the panic it raised) and how long it took.
struct Planned<G: Replayable, P> {
    planner: P,
    game: G,
    decision: std::thread::Result<Result<Decision<G::Action>, PlanError>>,
    elapsed: Duration,
}

/// Plays `game` from its start until it is over, the planner faults, or
/// the job is cancelled; each step's frame goes to `replay`. An error is a
/// frame that could not be written (the caller deletes the replay).
pub(super) async fn play_ticks<G: Replayable, P: Planner<G>>(
    mut game: G,
    mut planner: P,
    initial_hash: u64,
    mut replay: Option<&mut ReplayFile>,
    job: &GameJob,
    id: &str,
) -> Result<Played, SessionError> {
    let planner_name = planner.name();
    // Kept outside `game`, which is away on the blocking pool while a
    // planner runs and is lost if that planner overruns its budget.
    let mut last_hash = initial_hash;
    let mut ticks = game.tick();
    let mut score = game.score();
    let mut planner_time = Duration::ZERO;
    let ending = loop {
        let tick = ticks;
        if let Status::Over(outcome) = game.status() {
            break Ending::Over(outcome);
        }
        if job.cancel.load(Ordering::Relaxed) {
            break Ending::Interrupted(Outcome::new(
                OutcomeKind::Aborted,
                format!("interrupted before tick {}", tick + 1),
            ));
        }
        let planned = match plan_tick(game, planner, job, tick).await {
            Ok(planned) => planned,
            Err(ending) => break ending,
        };
        (planner, game) = (planned.planner, planned.game);
        planner_time += planned.elapsed;
        let decision = match sort_answer(planned.decision, job.move_budget, tick) {
            Ok(decision) => decision,
            Err(ending) => break ending,
        };
        if let Some(stats) = decision.planned {
            log_plan(id, planner_name, tick, &stats, planned.elapsed);
        }
        if let Err(illegal) = game.step(decision.action) {
            warn!(id = %id, error = %illegal, "planner chose an illegal action");
            break fault(
                OutcomeKind::Illegal,
                format!("planner chose an illegal action at tick {}: {illegal}", tick + 1),
            );
        }
        last_hash = game.state_hash();
        ticks = game.tick();
        score = game.score();
        job.ticks.advance(1);
        if let Some(file) = &mut replay {
            // Buffered: a syscall every few hundred frames, cheap enough to
            // do on the runtime thread.
            let frame = Frame { action: G::action_code(decision.action), hash: FrameHash::Full(last_hash) };
            file.frame(frame).map_err(|cause| SessionError::Replay { path: file.path().to_path_buf(), cause })?;
        }
    };
    Ok(Played { ending, ticks, score, last_hash, planner_time })
}

/// One planner call, on the blocking pool under the move budget: the
/// planner and the game come back with its answer, or the fault that ends
/// the game (a failed task, or no answer within the budget and its grace).
async fn plan_tick<G: Replayable, P: Planner<G>>(
    game: G,
    mut planner: P,
    job: &GameJob,
    tick: u32,
) -> Result<Planned<G, P>, Ending> {
    let budget = Budget::new(Some(Instant::now() + job.move_budget), Some(Arc::clone(&job.cancel)));
    let planning = tokio::task::spawn_blocking(move || {
        let plan_started = Instant::now();
        let decision = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| planner.next_action(&game, &budget)));
        Planned { planner, game, decision, elapsed: plan_started.elapsed() }
    });
    // A planner that ignores its budget keeps its blocking thread, but
    // the game is ended here, a little after the budget, all the same.
    let grace = job.move_budget / 10 + Duration::from_millis(100);
    match tokio::time::timeout(job.move_budget + grace, planning).await {
        Ok(Ok(planned)) => Ok(planned),
        Ok(Err(join_error)) => {
            Err(fault(OutcomeKind::Panic, format!("planner task failed at tick {}: {join_error}", tick + 1)))
        }
        Err(_) => Err(fault(OutcomeKind::Timeout, over_budget_reason(job.move_budget, tick))),
    }
}

/// Sorts a planner's answer: the decision to play, or the outcome its fault
/// ends the game with (over budget, cancelled, a planning error, a panic).
fn sort_answer<A>(
    answer: std::thread::Result<Result<Decision<A>, PlanError>>,
    move_budget: Duration,
    tick: u32,
) -> Result<Decision<A>, Ending> {
    match answer {
        Ok(Ok(decision)) => Ok(decision),
        Ok(Err(PlanError::OutOfTime)) => Err(fault(OutcomeKind::Timeout, over_budget_reason(move_budget, tick))),
        Ok(Err(PlanError::Cancelled)) => Err(Ending::Interrupted(Outcome::new(
            OutcomeKind::Aborted,
            format!("interrupted while planning tick {}", tick + 1),
        ))),
        Ok(Err(error)) => Err(fault(OutcomeKind::Aborted, format!("at tick {}: {error}", tick + 1))),
        Err(payload) => {
            let message = panic_message(payload.as_ref());
            Err(fault(OutcomeKind::Panic, format!("planner panicked at tick {}: {message}", tick + 1)))
        }
    }
}

/// The debug-level `plan` event of a planner that reports its search.
fn log_plan(id: &str, planner_name: &str, tick: u32, stats: &PlanStats, elapsed: Duration) {
    debug!(
        id = %id,
        planner = planner_name,
        tick,
        kind = stats.kind,
        nodes = stats.nodes,
        distinct = stats.distinct,
        plan_len = stats.plan_len,
        first_solution_us = stats.first_solution_us,
        lower_bound = stats.lower_bound,
        elapsed_us = elapsed.as_micros() as u64,
        "plan"
    );
}

/// A game ended by its planner: recorded with `kind` and `reason`.
fn fault(kind: OutcomeKind, reason: String) -> Ending {
    Ending::Over(Outcome::new(kind, reason))
}

/// The text of a panic's payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

fn over_budget_reason(budget: Duration, tick: u32) -> String {
    format!("planner exceeded its move budget of {} ms at tick {}", budget.as_millis(), tick + 1)
}
