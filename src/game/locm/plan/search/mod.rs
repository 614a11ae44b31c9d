//! The `search` battle bot. At the start of its turn it searches the turn's
//! action sequences ([`tree`]), scores each end-of-turn state after the
//! opponent's likely reply ([`eval`]), and keeps the best sequence as its
//! plan; it then plays the plan one action per tick, and searches again
//! whenever the state it is shown is not the one the plan expected.
//!
//! Its strength is set by a budget of scored states per search, not by
//! time, so a turn's plan is a pure function of the view at the turn's
//! start and matches replay alike on any machine. A caller that must answer
//! within a time limit (`tickbot agent locm`) passes a guard that stops the
//! search early with the best plan so far; in-process play passes none.

pub(crate) mod eval;
#[cfg(test)]
mod tests;
pub(crate) mod tree;

use self::tree::{Limits, Outcome, Tree};
use crate::game::locm::battle::{Battle, Move};
use crate::game::locm::cards::CardTable;

/// The default budget: states scored per search (`--battle search`).
pub(crate) const DEFAULT_BUDGET: u64 = 4_000;
/// The fast mode's budget (`--battle search:fast`), for evolution.
pub(crate) const FAST_BUDGET: u64 = 500;

/// Counts over every search a [`Searcher`] has run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    pub searches: u64,
    /// States scored, the opponent's replies included.
    pub evaluations: u64,
    /// Searches the budget cut before the whole turn was searched.
    pub budget_stops: u64,
    /// Searches the time guard cut.
    pub time_stops: u64,
}

/// One seat's search bot: its buffers and the plan of the current turn.
#[derive(Clone, Debug, Default)]
pub(crate) struct Searcher {
    tree: Tree,
    plan: Vec<Move>,
    /// The next action of `plan` to play.
    next: usize,
    /// The state the next action of the plan expects to be played in.
    expected: Option<Battle>,
    pub(crate) stats: SearchStats,
}

impl Searcher {
    /// The action to play in `battle`, the mover's view, searching with
    /// `budget` scored states (and `out_of_time`, asked now and then) when
    /// the plan does not fit the state. Returns the action and the states
    /// scored for it (0 when it came from the plan).
    pub(crate) fn choose(
        &mut self,
        battle: &Battle,
        table: &CardTable,
        budget: u64,
        out_of_time: &dyn Fn() -> bool,
    ) -> (Move, u64) {
        let on_plan = self.expected.as_ref() == Some(battle)
            && self.plan.get(self.next).is_none_or(|&action| battle.is_legal(action, table));
        let mut evaluations = 0;
        if !on_plan {
            let outcome = self.tree.search(battle, table, &Limits { budget, out_of_time }, &mut self.plan);
            self.record(outcome);
            self.next = 0;
            evaluations = outcome.evaluations;
        }
        let Some(&action) = self.plan.get(self.next) else {
            self.expected = None;
            return (Move::EndTurn, evaluations);
        };
        self.next += 1;
        let mut after = *battle;
        after.apply(action, table, &eval::NO_DECKS);
        self.expected = Some(after);
        (action, evaluations)
    }

    /// Forgets the last game's plan (the buffers and counters stay).
    pub(crate) fn new_game(&mut self) {
        self.plan.clear();
        self.next = 0;
        self.expected = None;
    }

    fn record(&mut self, outcome: Outcome) {
        self.stats.searches += 1;
        self.stats.evaluations += outcome.evaluations;
        self.stats.budget_stops += u64::from(outcome.budget_stop);
        self.stats.time_stops += u64::from(outcome.time_stop);
    }
}
