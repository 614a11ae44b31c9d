//! The ticks of one game, all on its worker's thread: ask the planner
//! (under the move budget, a panic caught), sort what it answers into the
//! action to play or the fault that ends the game, step the game, and
//! write the tick's frame. Before each call the game's progress is
//! published in its `Lane`, where the watchdog can end a game whose
//! planner never returns (`workers.rs`). What happens to the finished game
//! is `game.rs`'s.
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
//! A worker's next game starts its window where the last one left it
//! (after timing its first call alone, which often plans the game).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tracing::{debug, warn};

use crate::game::{Outcome, OutcomeKind, Replayable, Status};
use crate::plan::{Budget, PlanError, PlanStats, Planner};
use crate::replay::{Frame, FrameHash};
use crate::session::SessionError;
use crate::session::workers::{Abandoned, Lane, Reached, panic_message};

/// Ticks counted into the progress counter at once: a shared counter
/// touched every tick by every worker would cost more than a tick.
const TICKS_PER_REPORT: u64 = 1024;

/// A window of calls that took less than this makes the next one twice
/// as long; one that took up to twice this, half as long (so that the
/// windows of calls of a steady pace settle around this length, rather
/// than growing past it and starting again from one call); one that took
/// longer times the next call on its own. Short beside any move budget
/// (whose grace alone is 100 ms), so a deadline counted from a window's
/// opening is early by a fraction of a millisecond at most, in all but a
/// window whose calls turn slow.
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
    /// The window a quick one grows to at once: where the worker's last
    /// game left it, so that a worker of quick games does not time the
    /// first calls of each one by one again. Its first call still is.
    resume: u32,
}

impl Pacer {
    /// A game's pacer, `resume` where the worker's last game left it.
    fn new(resume: u32) -> Pacer {
        Pacer { window: 1, left: 0, opened: Instant::now(), resume }
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
        if one_at_a_time || took >= 2 * QUICK_WINDOW {
            (self.window, self.resume) = (1, 1);
        } else if took >= QUICK_WINDOW {
            self.window = (self.window / 2).max(1);
            self.resume = self.window;
        } else {
            self.window = (self.window * 2).max(self.resume).min(MAX_WINDOW);
        }
        self.left = 0;
    }

    /// The time of a window the game's end left open.
    fn finish(&mut self) -> Option<Duration> {
        (self.left > 0 && self.left < self.window).then(|| self.close(false).0)
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
/// replay, and how far the game got to `reached`.
pub(super) fn play_ticks<G: Replayable, P: Planner<G>>(
    game: &mut G,
    planner: &mut P,
    lane: &Lane,
    reached: &mut Reached,
) -> Result<Ending, Halt> {
    let mut ticking = Ticking::new(lane, planner.name(), reached);
    // One unwinding guard for the whole game, not one per call (which
    // would cost a hot loop of quick calls a tenth of its time): a panic
    // is the planner's if it came while a call was under way.
    let played = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ticking.play(game, planner)));
    let ending = match played {
        Ok(ending) => ending,
        Err(payload) if ticking.in_call => {
            let (tick, timed) = (game.tick(), ticking.pacer.after_call(true));
            ticking.returned().map(|()| {
                let late = timed.and_then(|(took, single)| ticking.window_closed(took, single));
                late.unwrap_or_else(|| {
                    let message = panic_message(payload.as_ref());
                    fault(OutcomeKind::Panic, format!("planner panicked at tick {}: {message}", tick + 1))
                })
            })
        }
        Err(payload) => std::panic::resume_unwind(payload),
    };
    if matches!(ending, Err(Halt::Abandoned)) {
        return ending;
    }
    lane.ctx.ticks.advance(ticking.unreported);
    if let Some(took) = ticking.pacer.finish() {
        ticking.reached.planner_time += took;
    }
    lane.game_ended(ticking.calls, ticking.pacer.window);
    ending
}

/// The state of one game's ticks that outlives a panic in its planner.
struct Ticking<'a> {
    lane: &'a Lane,
    planner_name: &'static str,
    reached: &'a mut Reached,
    pacer: Pacer,
    /// The number of the next planner call (of the one under way, during
    /// a call).
    calls: u64,
    in_call: bool,
    /// Ticks not yet counted into the session's progress.
    unreported: u64,
    /// Whether a plan's `debug` event is wanted. Asked once per game: a
    /// planner that plans every tick would otherwise pay the filter's
    /// check on each. A plan's event has its call's time, so with it
    /// every call is timed on its own.
    log_plans: bool,
}

impl<'a> Ticking<'a> {
    fn new(lane: &'a Lane, planner_name: &'static str, reached: &'a mut Reached) -> Ticking<'a> {
        let log_plans = tracing::enabled!(tracing::Level::DEBUG);
        let calls = lane.first_call();
        let pacer = Pacer::new(lane.pacer_window());
        Ticking { lane, planner_name, reached, pacer, calls, in_call: false, unreported: 0, log_plans }
    }

    fn play<G: Replayable, P: Planner<G>>(&mut self, game: &mut G, planner: &mut P) -> Result<Ending, Halt> {
        let ctx = &*self.lane.ctx;
        let mut budget = Budget::new(None, Some(Arc::clone(&ctx.cancel)));
        let recording = self.lane.with_game(|live| live.replay.is_some()).map_err(|Abandoned| Halt::Abandoned)?;
        loop {
            if let Status::Over(outcome) = game.status() {
                return Ok(Ending::Over(outcome));
            }
            let tick = game.tick();
            if ctx.cancel.load(Ordering::Relaxed) {
                let reason = format!("interrupted before tick {}", tick + 1);
                return Ok(Ending::Interrupted(Outcome::new(OutcomeKind::Aborted, reason)));
            }
            if let Some(deadline) = self.pacer.before_call(ctx.move_budget) {
                budget.set_deadline(deadline);
            }
            self.lane.call_started(self.calls, self.reached);
            self.in_call = true;
            let answer = planner.next_action(game, &budget);
            self.in_call = false;
            let timed = self.pacer.after_call(self.log_plans);
            self.returned()?;
            if let Some(late) = timed.and_then(|(took, single)| self.window_closed(took, single)) {
                return Ok(late);
            }
            let decision = match answer {
                Ok(decision) => decision,
                Err(error) => return Ok(plan_error_ending(error, ctx.move_budget, tick)),
            };
            if self.log_plans {
                self.log_planned(tick, decision.planned, timed);
            }
            if let Err(illegal) = game.step(decision.action) {
                let _ = self
                    .lane
                    .with_game(|live| warn!(id = %live.id(), error = %illegal, "planner chose an illegal action"));
                let reason = format!("planner chose an illegal action at tick {}: {illegal}", tick + 1);
                return Ok(fault(OutcomeKind::Illegal, reason));
            }
            self.reached.ticks = game.tick();
            self.reached.score = game.score();
            if recording {
                // Hashed only where a replay records it: the footer's final
                // hash is the last one.
                let hash = game.state_hash();
                self.reached.last_hash = hash;
                let frame = Frame { action: G::action_code(decision.action), hash: FrameHash::Full(hash) };
                let reached = *self.reached;
                // The frame and how far the game got, together: a game the
                // watchdog takes has a footer that agrees with its frames.
                let written = self.lane.with_game(|live| {
                    live.reached = reached;
                    live.replay.as_mut().map_or(Ok(()), |replay| replay.frame(frame))
                });
                match written {
                    Ok(Ok(())) => {}
                    Ok(Err(error)) => return Err(Halt::Failed(error)),
                    Err(Abandoned) => return Err(Halt::Abandoned),
                }
            }
            self.unreported += 1;
            if self.unreported == TICKS_PER_REPORT {
                ctx.ticks.advance(self.unreported);
                self.unreported = 0;
            }
        }
    }

    /// After a call returned: the game goes on, unless the watchdog took it.
    #[inline]
    fn returned(&mut self) -> Result<(), Halt> {
        self.calls += 1;
        self.lane.call_returned().map_err(|Abandoned| Halt::Abandoned)
    }

    /// The debug-level `plan` event of a call that planned. Out of line and
    /// given the statistics by value, so that a tick whose plan is not
    /// logged need not build them in memory.
    #[cold]
    #[inline(never)]
    fn log_planned(&self, tick: u32, planned: Option<PlanStats>, timed: Option<(Duration, bool)>) {
        if let Some(stats) = planned {
            let took = timed.map_or(Duration::ZERO, |(took, _)| took);
            let _ = self.lane.with_game(|live| log_plan(live.id(), self.planner_name, tick, &stats, took));
        }
    }

    /// A window of calls closed after `took` (`single`: one call): its
    /// time counted; the ending of a call that came too late.
    #[cold]
    fn window_closed(&mut self, took: Duration, single: bool) -> Option<Ending> {
        self.reached.planner_time += took;
        // Past the grace the answer comes too late, whatever it is: the
        // watchdog would have ended the game without it. (A window's time
        // is many calls': the watchdog judges them.)
        let move_budget = self.lane.ctx.move_budget;
        let late = single && took > move_budget + grace(move_budget);
        late.then(|| fault(OutcomeKind::Timeout, over_budget_reason(move_budget, self.reached.ticks)))
    }
}

/// The outcome a planning error ends the game with: over budget,
/// cancelled by the session, or a planner's own failure.
fn plan_error_ending(error: PlanError, move_budget: Duration, tick: u32) -> Ending {
    match error {
        PlanError::OutOfTime => fault(OutcomeKind::Timeout, over_budget_reason(move_budget, tick)),
        PlanError::Cancelled => Ending::Interrupted(Outcome::new(
            OutcomeKind::Aborted,
            format!("interrupted while planning tick {}", tick + 1),
        )),
        error => fault(OutcomeKind::Aborted, format!("at tick {}: {error}", tick + 1)),
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
        let mut pacer = Pacer::new(1);
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
        // A window a little long halves the next one; a slow one, or calls
        // whose plans are logged, time the next call alone.
        pacer.adapt(QUICK_WINDOW, false);
        assert_eq!((pacer.window, pacer.resume), (MAX_WINDOW / 2, MAX_WINDOW / 2));
        pacer.adapt(2 * QUICK_WINDOW, false);
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
        // A game after quick ones times its first call alone, then goes
        // back to the window the last game reached, until a slow one.
        let mut pacer = Pacer::new(512);
        assert!(pacer.before_call(budget).is_some());
        assert!(matches!(pacer.after_call(false), Some((_, true))));
        assert_eq!(pacer.window, 512);
        pacer.adapt(2 * QUICK_WINDOW, false);
        pacer.adapt(Duration::ZERO, false);
        assert_eq!(pacer.window, 2);
    }
}
