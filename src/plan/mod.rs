//! The planner interface, the synchronous play loop, and [`StoredPlan`], the
//! tick logic every planner shares that plans once and plays the plan out.
//!
//! A planner is asked for one action per tick. Planners that compute a whole
//! plan at once (a search, a genetic algorithm) keep it and hand it out move
//! by move, reporting [`PlanStats`] only on the ticks where they planned, so
//! the session logs one event per plan and never one per node.

pub(crate) mod ga;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::game::{Game, IllegalAction, Outcome, Status};

/// Chooses the actions of one game, tick by tick.
///
/// **One planner value plays one game**, from its first tick to its end: a
/// planner may keep what it learns about that game between ticks (a stored
/// plan, the body configurations it has seen), so every caller (the session,
/// `bench`, [`crate::replay::record`]) makes a fresh planner for each game.
/// What is expensive and shared by all games, such as pattern databases, a
/// planner holds behind an `Arc` that its maker clones.
pub trait Planner<G: Game>: Send + 'static {
    /// The planner's name on the command line and in replay headers.
    fn name(&self) -> &'static str;

    /// Its parameters as `(name, value)` pairs, recorded in replay headers.
    fn params(&self) -> Vec<(String, String)>;

    /// The external programs that play for this planner, one per seat
    /// (`None`: a seat tickbot's own bots play), for the results lines
    /// and `stats`; empty for a planner that is all tickbot's.
    fn agents(&self) -> Vec<Option<String>> {
        Vec::new()
    }

    /// The action to play now. `game` is running.
    fn next_action(&mut self, game: &G, budget: &Budget) -> Result<Decision<G::Action>, PlanError>;
}

/// A planner chosen at run time (from the command line or a session file):
/// every planner of a game behind one type.
impl<G: Game> Planner<G> for Box<dyn Planner<G>> {
    fn name(&self) -> &'static str {
        (**self).name()
    }

    fn params(&self) -> Vec<(String, String)> {
        (**self).params()
    }

    fn agents(&self) -> Vec<Option<String>> {
        (**self).agents()
    }

    fn next_action(&mut self, game: &G, budget: &Budget) -> Result<Decision<G::Action>, PlanError> {
        (**self).next_action(game, budget)
    }
}

/// Which version of an algorithm a planner runs: ours (the default), or a
/// write-up's exactly as printed, tie-breaks and all (`--write-up`). Each
/// planner's module docs list what ours changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Variant {
    #[default]
    Ours,
    WriteUp,
}

impl Variant {
    /// `WriteUp` when `write_up` is set: how a `--write-up` flag reads.
    pub(crate) fn write_up_if(write_up: bool) -> Variant {
        if write_up { Variant::WriteUp } else { Variant::Ours }
    }
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
    pub(crate) kind: &'static str,
    /// Search nodes expanded (BFS cells, A* states, GA evaluations, ...).
    pub nodes: u64,
    /// Moves in the plan.
    pub plan_len: u32,
    /// Distinct states among the nodes, from planners that may expand a
    /// state more than once (the pipe write-up's searches) and report both.
    pub distinct: Option<u64>,
    /// Anytime planners: microseconds until the first winning plan was in
    /// hand (the plan played may be a later, shorter one).
    pub(crate) first_solution_us: Option<u64>,
    /// A proven lower bound on the length of any winning plan, when the
    /// planner knows one (`plan_len` equal to it proves the plan shortest).
    pub(crate) lower_bound: Option<u32>,
}

/// Measures how long part of a planner's work took, for [`PlanStats`]
/// only: a planner may report times, but never decides by them (its
/// deadline is the [`Budget`]'s).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stopwatch(Instant);

impl Stopwatch {
    pub(crate) fn start() -> Stopwatch {
        Stopwatch(Instant::now())
    }

    /// Microseconds since [`Stopwatch::start`].
    pub(crate) fn elapsed_us(&self) -> u64 {
        self.0.elapsed().as_micros() as u64
    }
}

/// Planner flags that do not go together (`--write-up` for a planner that
/// has no write-up), found by a game's registry before any game starts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ChoiceError(String);

impl ChoiceError {
    pub(crate) fn new(message: impl Into<String>) -> ChoiceError {
        ChoiceError(message.into())
    }
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

/// Why a search ended without a plan, with the nodes it had expanded by
/// then (benchmarks report them for instances given up on).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{error} (after {nodes} nodes)")]
pub struct Stopped {
    pub(crate) error: PlanError,
    pub(crate) nodes: u64,
}

impl From<Stopped> for PlanError {
    fn from(stopped: Stopped) -> PlanError {
        stopped.error
    }
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

    /// Sets the deadline: a session gives every planner call of a game the
    /// same budget value, its deadline moved before each call.
    pub(crate) fn set_deadline(&mut self, deadline: Instant) {
        self.deadline = Some(deadline);
    }

    /// This budget's cancel flag with `deadline` as well: the earlier of the
    /// two deadlines holds.
    pub(crate) fn with_deadline(&self, deadline: Instant) -> Budget {
        let deadline = self.deadline.map_or(deadline, |own| own.min(deadline));
        Budget { deadline: Some(deadline), cancel: self.cancel.clone() }
    }

    /// `Some(error)` once the planner must stop.
    pub(crate) fn exhausted(&self) -> Option<PlanError> {
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
pub(crate) fn play_to_end<G: Game, P: Planner<G> + ?Sized>(
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

/// A whole plan, as a planner that plans once returns it to [`StoredPlan`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plan<A> {
    /// The actions in playing order.
    pub(crate) actions: Vec<A>,
    /// Which branch of the planner made it, for [`PlanStats::kind`].
    pub(crate) kind: &'static str,
    /// Search nodes it took, for [`PlanStats::nodes`].
    pub(crate) nodes: u64,
}

/// The tick logic of a planner that plans once and plays the plan out: it
/// stores the plan, hands out one action per tick, and plans again whenever
/// the game it is asked about is not in the state the next stored action
/// was planned for.
///
/// The check is exact: the plan keeps its own copy of the game, steps it with
/// every action it hands out, and compares the state hashes, so a plan is
/// never played on another game, another goal or a game someone else moved.
pub(crate) struct StoredPlan<G: Game> {
    actions: Vec<G::Action>,
    next: usize,
    /// The game as the next stored action expects it, with its state hash.
    expected: Option<(G, u64)>,
}

impl<G: Game> Default for StoredPlan<G> {
    fn default() -> Self {
        StoredPlan { actions: Vec::new(), next: 0, expected: None }
    }
}

impl<G: Game> std::fmt::Debug for StoredPlan<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredPlan").field("len", &self.actions.len()).field("next", &self.next).finish()
    }
}

impl<G: Game> StoredPlan<G> {
    /// The next action for `game`: the next stored one if the plan fits
    /// `game`, otherwise the first of a new plan from `make_plan`.
    pub(crate) fn next_action(
        &mut self,
        game: &G,
        make_plan: impl FnOnce() -> Result<Plan<G::Action>, PlanError>,
    ) -> Result<Decision<G::Action>, PlanError> {
        let mut planned = None;
        if !self.fits(game) {
            let plan = make_plan()?;
            if plan.actions.is_empty() {
                return Err(PlanError::GaveUp(format!("the {} plan has no move for a running game", plan.kind)));
            }
            planned = Some(PlanStats {
                kind: plan.kind,
                nodes: plan.nodes,
                plan_len: plan.actions.len() as u32,
                ..PlanStats::default()
            });
            self.actions = plan.actions;
            self.next = 0;
            self.expected = Some((game.clone(), game.state_hash()));
        }
        let action = self.actions[self.next];
        self.next += 1;
        let (state, hash) = self.expected.as_mut().expect("a fitting plan has an expected state");
        if let Err(illegal) = state.step(action) {
            self.expected = None;
            return Err(PlanError::GaveUp(format!("the stored plan is not legal: {illegal}")));
        }
        *hash = state.state_hash();
        Ok(Decision { action, planned })
    }

    /// Whether the next stored action was planned for `game` as it is now.
    fn fits(&self, game: &G) -> bool {
        self.next < self.actions.len()
            && self
                .expected
                .as_ref()
                .is_some_and(|(state, hash)| state.tick() == game.tick() && *hash == game.state_hash())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::pipes::plan::solve::Solve;
    use crate::game::pipes::{self, PipesGame, Puzzle};
    use crate::game::slide::plan::astar::AStar;
    use crate::game::slide::{self, Goal, SlideGame};
    use crate::map::Level;

    fn slide_game(tiles: &[u8], goal: Goal) -> SlideGame {
        SlideGame::new(&slide::Config::fixed(3, tiles, goal).unwrap(), 0)
    }

    #[test]
    fn a_stored_plan_is_not_played_on_a_board_with_another_goal() {
        let mut planner = AStar::new(100_000);
        let mut first = slide_game(&[1, 2, 3, 4, 5, 6, 7, 0, 8], Goal::BlankLast);
        let decision = planner.next_action(&first, &Budget::unlimited()).unwrap();
        assert!(decision.planned.is_some());
        first.step(decision.action).unwrap();
        // The same board as `first` now, but another goal: the plan made for
        // `first` does not belong to it.
        let second = slide_game(first.tiles(), Goal::BlankFirst);
        let decision = planner.next_action(&second, &Budget::unlimited()).unwrap();
        assert!(decision.planned.is_some(), "the planner played a plan made for another goal");
    }

    #[test]
    fn a_stored_plan_is_not_played_on_another_puzzle() {
        let puzzle = |text: &str| pipes::Config::try_from(Puzzle::parse(text).unwrap().setup).unwrap();
        let mut planner = Solve::new();
        let first = PipesGame::new(&puzzle("3 1 nowrap 0 0\n8a2\n"), 0);
        let decision = planner.next_action(&first, &Budget::unlimited()).unwrap();
        assert_eq!(decision.planned.map(|stats| stats.plan_len), Some(2));
        let second = PipesGame::new(&puzzle("3 1 nowrap 0 0\n2a1\n"), 0);
        let decision = planner.next_action(&second, &Budget::unlimited()).unwrap();
        assert!(decision.planned.is_some(), "the planner played a plan made for another puzzle");
    }
}
