//! The ticks of one game, all on its worker's thread: ask the planner
//! (under the move budget, a panic caught), sort what it answers into the
//! action to play or the fault that ends the game, step the game, and
//! write the tick's frame. Between calls the game's progress is in its
//! `Lane`, where the watchdog can end a game whose planner never returns.
//! What happens to the finished game is `game.rs`'s.
//!
//! The clock is read as little as the budget allows (`Pacer`): a call
//! that takes a while is timed on its own, start and end, as the move
//! budget needs; calls that come back in microseconds (many planners
//! play a stored plan, or choose greedily) are timed in windows of many
//! calls, one reading per window, for two readings a tick would cost
//! more than such a tick does. In a window every call's deadline counts
//! from the window's opening (so never later than from its own start),
//! the window's time goes to the planner's (with the game's steps
//! between its calls, a fraction of a microsecond each), and a call that
//! ignores its budget is ended by the watchdog, which times every call.

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

/// A window of calls that took less than this makes the next one twice
/// as long; one that took more times the next call on its own. Short
/// beside any move budget (whose grace alone is 100 ms), so a deadline
/// counted from a window's opening is early by a fraction of a
/// millisecond at most, in all but a window whose calls turn slow.
const QUICK_WINDOW: Duration = Duration::from_micros(200);

/// The most calls in a window: one clock reading per this many ticks.
const MAX_WINDOW: u32 = 1024;

/// When the clock is read: once per window of `window` calls (1: every
/// call timed on its own, start and end).
struct Pacer {
    window: u32,
    /// Calls left in the open window; 0: none is open.
    left: u32,
    /// When the open window opened.
    opened: Instant,
}

impl Pacer {
    fn new() -> Pacer {
        Pacer { window: 1, left: 0, opened: Instant::now() }
    }

    /// Before a call: opens a window if none is open; the call's deadline.
    #[inline]
    fn before_call(&mut self, move_budget: Duration) -> Option<Instant> {
        if self.left > 0 {
            return None;
        }
        self.opened = Instant::now();
        self.left = self.window;
        Some(self.opened + move_budget)
    }

    /// After a call: the time of the window if the call closed it, and
    /// whether the call was timed on its own.
    #[inline]
    fn after_call(&mut self, one_at_a_time: bool) -> Option<(Duration, bool)> {
        self.left -= 1;
        (self.left == 0).then(|| self.close(one_at_a_time))
    }

    /// Closes the open window: its time, and whether it held one call.
    fn close(&mut self, one_at_a_time: bool) -> (Duration, bool) {
        let took = self.opened.elapsed();
        let single = self.window - self.left == 1;
        self.adapt(took, one_at_a_time);
        (took, single)
    }

    /// Sizes the next window from how long the last one took.
    fn adapt(&mut self, took: Duration, one_at_a_time: bool) {
        self.window = if one_at_a_time || took >= QUICK_WINDOW { 1 } else { (self.window * 2).min(MAX_WINDOW) };
        self.left = 0;
    }

    /// The time of a window the game's end left open.
    fn finish(&mut self) -> Option<Duration> {
        (self.left > 0 && self.left < self.window).then(|| self.close(true).0)
    }
}

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
    // pay the filter's check on each. A plan's event has its call's time,
    // so with it every call is timed on its own.
    let log_plans = tracing::enabled!(tracing::Level::DEBUG);
    let mut pacer = Pacer::new();
    let mut calls = lane.first_call();
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
        if let Some(deadline) = pacer.before_call(ctx.move_budget) {
            budget.set_deadline(deadline);
        }
        lane.call_started(calls);
        calls += 1;
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| planner.next_action(game, &budget)));
        let timed = pacer.after_call(log_plans);
        let stepped = lane.after_call(|live| -> Result<Option<Ending>, SessionError> {
            let mut late = false;
            if let Some((took, single)) = timed {
                live.planner_time += took;
                // Past the grace the answer comes too late, whatever it
                // is: the watchdog would have ended the game without it.
                // (A window's time is many calls': the watchdog judges them.)
                late = single && took > limit;
            }
            let decision = if late {
                Err(fault(OutcomeKind::Timeout, over_budget_reason(ctx.move_budget, tick)))
            } else {
                sort_answer(answer, ctx.move_budget, tick)
            };
            let decision = match decision {
                Ok(decision) => decision,
                Err(ending) => return Ok(Some(ending)),
            };
            if let Some(stats) = decision.planned.filter(|_| log_plans) {
                let took = timed.map_or(Duration::ZERO, |(took, _)| took);
                log_plan(live.id(), planner_name, tick, &stats, took);
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
            Ok(Err(error)) => {
                lane.calls_ended(calls);
                return Err(Halt::Failed(error));
            }
            Err(Abandoned) => return Err(Halt::Abandoned),
        }
        unreported += 1;
        if unreported == TICKS_PER_REPORT {
            ctx.ticks.advance(unreported);
            unreported = 0;
        }
    };
    ctx.ticks.advance(unreported);
    lane.calls_ended(calls);
    if let Some(took) = pacer.finish() {
        // Between calls: the watchdog cannot have taken the game.
        let _ = lane.after_call(|live| live.planner_time += took);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_calls_share_a_clock_reading_and_a_slow_one_is_timed_alone() {
        let budget = Duration::from_secs(1);
        let mut pacer = Pacer::new();
        // The first call is timed on its own: its deadline, then its time.
        assert!(pacer.before_call(budget).is_some());
        assert!(matches!(pacer.after_call(false), Some((_, true))));
        // Quick windows double up to the cap.
        for _ in 0..20 {
            pacer.adapt(Duration::from_micros(1), false);
        }
        assert_eq!(pacer.window, MAX_WINDOW);
        // In a window only its first call reads the clock (for the deadline
        // of them all) and only its last reports the window's time.
        let deadline = pacer.before_call(budget);
        assert!(deadline.is_some_and(|deadline| deadline <= Instant::now() + budget));
        assert!(pacer.after_call(false).is_none());
        for _ in 1..MAX_WINDOW - 1 {
            assert!(pacer.before_call(budget).is_none());
            assert!(pacer.after_call(false).is_none());
        }
        assert!(pacer.before_call(budget).is_none());
        assert!(matches!(pacer.after_call(false), Some((_, false))));
        // A slow window, or calls whose plans are logged, time the next call alone.
        pacer.adapt(QUICK_WINDOW, false);
        assert_eq!(pacer.window, 1);
        pacer.adapt(Duration::ZERO, true);
        assert_eq!(pacer.window, 1);
        // A game that ends inside a window still counts its time.
        pacer.adapt(Duration::ZERO, false);
        assert_eq!(pacer.finish(), None, "no window open");
        pacer.before_call(budget);
        pacer.after_call(false);
        std::thread::sleep(Duration::from_millis(1));
        assert!(pacer.finish().is_some_and(|took| took >= Duration::from_millis(1)));
        assert_eq!((pacer.window, pacer.left), (1, 0));
    }
}
