//! The ticks of one game, all on its worker's thread: ask the planner
//! (under the move budget, a panic caught), sort what it answers into the
//! action to play or the fault that ends the game, step the game, and
//! write the tick's frame. Between calls the game's progress is in its
//! `Lane`, where the watchdog can end a game whose planner never returns.
//! What happens to the finished game is `game.rs`'s.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tracing::{debug, warn};

use crate::game::{Outcome, OutcomeKind, Replayable, Status};
use crate::plan::{Budget, Decision, PlanError, PlanStats, Planner};
use crate::replay::{Frame, FrameHash};
use crate::session::SessionError;
use crate::session::workers::{Abandoned, Lane, panic_message};

/// Ticks counted into the progress counter at once: a shared counter
/// touched every tick by every worker would cost more than a tick.
const TICKS_PER_REPORT: u64 = 1024;

/// How the ticks of one game ended.
#[derive(Debug)]
pub(super) enum Ending {
    Over(Outcome),
    /// Stopped by the session; kept only if `record_interrupted`.
    Interrupted(Outcome),
}

/// Why the ticks stopped without an ending.
pub(super) enum Halt {
    /// A frame could not be written (the caller deletes the replay).
    Failed(SessionError),
    /// The watchdog took the game.
    Abandoned,
}

/// The time a planner is given past its budget before its game is ended
/// without its answer.
pub(super) fn grace(move_budget: Duration) -> Duration {
    move_budget / 10 + Duration::from_millis(100)
}

/// Plays `game` on the calling thread until it is over, the planner
/// faults, or the session stops it; each step's frame goes to the lane's
/// replay.
pub(super) fn play_ticks<G: Replayable, P: Planner<G>>(
    game: &mut G,
    planner: &mut P,
    lane: &Lane,
) -> Result<Ending, Halt> {
    let ctx = &*lane.ctx;
    let planner_name = planner.name();
    let mut budget = Budget::new(None, Some(Arc::clone(&ctx.cancel)));
    let limit = ctx.move_budget + grace(ctx.move_budget);
    let mut unreported = 0;
    // Asked once per game: a planner that plans every tick would otherwise
    // pay the filter's check on each.
    let log_plans = tracing::enabled!(tracing::Level::DEBUG);
    let ending = loop {
        if let Status::Over(outcome) = game.status() {
            break Ending::Over(outcome);
        }
        let tick = game.tick();
        if ctx.cancel.load(Ordering::Relaxed) {
            break Ending::Interrupted(Outcome::new(
                OutcomeKind::Aborted,
                format!("interrupted before tick {}", tick + 1),
            ));
        }
        let started = Instant::now();
        budget.set_deadline(started + ctx.move_budget);
        lane.call_started(started);
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| planner.next_action(game, &budget)));
        let elapsed = started.elapsed();
        let stepped = lane.after_call(|live| -> Result<Option<Ending>, SessionError> {
            live.planner_time += elapsed;
            // Past the grace the answer comes too late, whatever it is:
            // the watchdog would have ended the game without it.
            let decision = if elapsed > limit {
                Err(fault(OutcomeKind::Timeout, over_budget_reason(ctx.move_budget, tick)))
            } else {
                sort_answer(answer, ctx.move_budget, tick)
            };
            let decision = match decision {
                Ok(decision) => decision,
                Err(ending) => return Ok(Some(ending)),
            };
            if let Some(stats) = decision.planned.filter(|_| log_plans) {
                log_plan(live.id(), planner_name, tick, &stats, elapsed);
            }
            if let Err(illegal) = game.step(decision.action) {
                warn!(id = %live.id(), error = %illegal, "planner chose an illegal action");
                return Ok(Some(fault(
                    OutcomeKind::Illegal,
                    format!("planner chose an illegal action at tick {}: {illegal}", tick + 1),
                )));
            }
            live.ticks = game.tick();
            live.score = game.score();
            if let Some(replay) = &mut live.replay {
                // Hashed only where a replay records it: the footer's final
                // hash is the last one.
                live.last_hash = game.state_hash();
                replay
                    .frame(Frame { action: G::action_code(decision.action), hash: FrameHash::Full(live.last_hash) })?;
            }
            Ok(None)
        });
        match stepped {
            Ok(Ok(None)) => {}
            Ok(Ok(Some(ending))) => break ending,
            Ok(Err(error)) => return Err(Halt::Failed(error)),
            Err(Abandoned) => return Err(Halt::Abandoned),
        }
        unreported += 1;
        if unreported == TICKS_PER_REPORT {
            ctx.ticks.advance(unreported);
            unreported = 0;
        }
    };
    ctx.ticks.advance(unreported);
    Ok(ending)
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

pub(super) fn over_budget_reason(budget: Duration, tick: u32) -> String {
    format!("planner exceeded its move budget of {} ms at tick {}", budget.as_millis(), tick + 1)
}
