//! The `search` planner: an anytime search that returns a winning plan as
//! soon as it has one, then spends a fixed number of search nodes making it
//! shorter, and reports a lower bound on the optimum.
//!
//! It runs the search over tile entries that the `exact` planner runs too
//! (entries over macro moves, the reachability, dead-end and
//! articulation-point rules, the transposition table: see
//! `super::entry_search`) and differs in how it orders and bounds the
//! search:
//!
//! 1. **First solution**: depth-first search with no length bound, trying
//!    first the tile with the fewest onward exits (Warnsdorff's rule for
//!    knight's tours), then the cheapest, ties broken at random. A dive that
//!    makes a bad early choice can be trapped below it for a very long time
//!    (the heavy tail of backtracking search), so dives are cut after a
//!    number of nodes that follows the Luby sequence (Luby, Sinclair and
//!    Zuckerman 1993: 1, 1, 2, 1, 1, 2, 4, ... times 1024 nodes) and
//!    restarted with new random tie-breaks. States a dive has refuted
//!    completely stay in the transposition table across restarts, so a dive
//!    that exhausts the space without a cut proves "no solution".
//! 2. **Improvement**: branch and bound from above, by the same restarted
//!    dives with a bound on the length set just below the best plan (two
//!    moves below: every winning plan from a state has the same parity,
//!    fixed by the colours of the player's cell and the flag), cheapest
//!    entries first, again and again until [`SearchSettings::improve_nodes`]
//!    nodes are spent. A dive that ends uncut under that bound has refuted
//!    every shorter plan: the best plan is then proven shortest, and the
//!    search stops early.
//!
//! The lower bound reported is the `exact` planner's admissible estimate at
//! the start (entries owed, permanent tiles that must be crossed, cell
//! colours), or the plan's own length once it is proven shortest.
//!
//! **Determinism.** Both phases count nodes, never time: for a seed (the
//! game's) and `improve_nodes`, the plan is the same on every machine. The
//! time budget only ends the search early: out of time before a first plan,
//! the game is aborted with what the search learned; out of time while
//! improving, the best plan so far is played, and only then may the plan
//! depend on the machine's speed.

use super::entry_search::{BoardTables, FirstPlan, INFINITE, Search, first_plan, restarted_dives};
use crate::game::Game;
use crate::game::flag::{Config, Dir, FlagGame};
use crate::plan::{Budget, Decision, Plan, PlanError, Planner, Stopwatch, StoredPlan};

/// The `search` planner's knobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchSettings {
    /// Search nodes spent shortening the first plan (0: play the first).
    pub(crate) improve_nodes: u64,
}

impl Default for SearchSettings {
    /// 100,000 improvement nodes: a fraction of a second on the boards it
    /// is made for (10×10 to 20×20), so `play` does not wait for the move
    /// budget. On designer maps the plans come out within about half a
    /// percent of what twice as many nodes give.
    fn default() -> SearchSettings {
        SearchSettings { improve_nodes: 100_000 }
    }
}

/// What one anytime search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Found {
    /// The best winning plan found, with the moves of the first one.
    Plan { moves: Vec<Dir>, first_len: usize, proven_optimal: bool },
    /// No sequence of moves wins: proven, not timed out.
    NoSolution,
}

/// An anytime search's result with the work it took. Node counts are the
/// same on every machine; `first_solution_us` is not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Anytime {
    pub(crate) found: Found,
    /// A proven lower bound on the length of a winning plan.
    pub(crate) lower_bound: u32,
    pub(crate) nodes: u64,
    /// Nodes until the first plan was in hand.
    pub(crate) first_solution_nodes: u64,
    pub(crate) first_solution_us: u64,
    /// Dives cut and started again before the first plan.
    pub(crate) restarts: u32,
}

/// What the search had learned when the budget stopped it before a plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unfinished {
    pub(crate) error: PlanError,
    pub(crate) nodes: u64,
    pub(crate) restarts: u32,
    /// The most entries any dive made, of `entries_owed` at the start.
    pub(crate) deepest: usize,
    pub(crate) entries_owed: u32,
    pub(crate) lower_bound: u32,
}

impl Unfinished {
    /// The planner's error: a cancel stays a cancel (the session reports an
    /// interrupt); running out of time becomes a verdict with what was learned.
    pub(crate) fn into_plan_error(self) -> PlanError {
        match self.error {
            PlanError::OutOfTime => PlanError::GaveUp(format!(
                "out of budget before a winning plan: {} nodes, {} restarts; the deepest try made {} of the {} \
                 tile entries owed; a winning plan needs at least {} moves",
                self.nodes, self.restarts, self.deepest, self.entries_owed, self.lower_bound
            )),
            error => error,
        }
    }
}

/// Runs the anytime search from `visits` with the player on `position`.
pub(crate) fn anytime(
    tables: &BoardTables,
    visits: &[u8],
    position: u16,
    budget: &Budget,
    settings: &SearchSettings,
    seed: u64,
) -> Result<Anytime, Unfinished> {
    let stopwatch = Stopwatch::start();
    let mut search = Search::new(tables, visits, position, budget);
    let entries_owed = search.remaining;
    let root_bound = search.lower_bound();
    let restarts = match first_plan(&mut search, seed) {
        FirstPlan::Found { restarts } => restarts,
        FirstPlan::NoSolution { restarts } => {
            return Ok(Anytime {
                found: Found::NoSolution,
                lower_bound: INFINITE,
                nodes: search.nodes,
                first_solution_nodes: search.nodes,
                first_solution_us: stopwatch.elapsed_us(),
                restarts,
            });
        }
        FirstPlan::Cut { restarts, deepest } => {
            return Err(Unfinished {
                error: search.stopped.take().unwrap_or(PlanError::OutOfTime),
                nodes: search.nodes,
                restarts,
                deepest,
                entries_owed,
                lower_bound: root_bound,
            });
        }
    };
    let first_solution_nodes = search.nodes;
    let first_solution_us = stopwatch.elapsed_us();
    let mut best = tables.expand(position, &search.found);
    let first_len = best.len();
    let mut lower_bound = root_bound;
    search.node_limit = search.nodes.saturating_add(settings.improve_nodes);
    let mut round = 0;
    while best.len() as u32 > lower_bound {
        round += 1;
        let bound = (best.len() as u32).saturating_sub(2);
        match restarted_dives(&mut search, seed.wrapping_add(round), bound, true) {
            FirstPlan::Found { .. } => best = tables.expand(position, &search.found),
            // Refuted completely: nothing shorter than the best wins.
            FirstPlan::NoSolution { .. } => lower_bound = best.len() as u32,
            FirstPlan::Cut { .. } => break,
        }
    }
    // Out of time while improving: the best plan so far stands; a cancel
    // is the caller's to see.
    if let Some(PlanError::Cancelled) = search.stopped {
        return Err(Unfinished {
            error: PlanError::Cancelled,
            nodes: search.nodes,
            restarts,
            deepest: 0,
            entries_owed,
            lower_bound,
        });
    }
    let proven_optimal = best.len() as u32 <= lower_bound;
    Ok(Anytime {
        found: Found::Plan { moves: best, first_len, proven_optimal },
        lower_bound,
        nodes: search.nodes,
        first_solution_nodes,
        first_solution_us,
        restarts,
    })
}

/// The `search` planner: plans once with `anytime`, then plays the plan.
#[derive(Debug)]
pub(crate) struct AnytimeSearch {
    tables: BoardTables,
    settings: SearchSettings,
    plan: StoredPlan<FlagGame>,
}

impl AnytimeSearch {
    pub(crate) fn new(config: &Config, settings: SearchSettings) -> AnytimeSearch {
        AnytimeSearch { tables: BoardTables::new(config), settings, plan: StoredPlan::default() }
    }
}

impl Planner<FlagGame> for AnytimeSearch {
    fn name(&self) -> &'static str {
        "search"
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![("improve_nodes".to_string(), self.settings.improve_nodes.to_string())]
    }

    fn next_action(&mut self, game: &FlagGame, budget: &Budget) -> Result<Decision<Dir>, PlanError> {
        let (tables, settings) = (&self.tables, &self.settings);
        let mut reported = None;
        let mut decision = self.plan.next_action(game, || {
            let result = anytime(tables, game.visits(), game.position(), budget, settings, game.seed())
                .map_err(Unfinished::into_plan_error)?;
            reported = Some((result.first_solution_us, result.lower_bound));
            match result.found {
                Found::Plan { moves, proven_optimal, .. } => {
                    let kind = if proven_optimal { "optimal" } else { "anytime" };
                    Ok(Plan { actions: moves, kind, nodes: result.nodes })
                }
                Found::NoSolution => Err(PlanError::GaveUp(format!(
                    "no solution: no sequence of moves from tick {} clears every tile and ends on the flag \
                     (proven by exhaustive search, {} nodes)",
                    game.tick(),
                    result.nodes
                ))),
            }
        })?;
        if let (Some(stats), Some((first_solution_us, lower_bound))) = (decision.planned.as_mut(), reported) {
            stats.first_solution_us = Some(first_solution_us);
            stats.lower_bound = Some(lower_bound);
        }
        Ok(decision)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Show;
    use crate::game::flag::designer::{DesignerSettings, design};
    use crate::game::flag::plan::oracle::{oracle, random_small_board};
    use crate::game::flag::play_moves;
    use crate::game::{OutcomeKind, Status};
    use crate::map::Level;
    use crate::rng::GameRng;

    fn run(config: &Config, settings: &SearchSettings, seed: u64) -> Anytime {
        let game = FlagGame::new(config, 0);
        let tables = BoardTables::new(config);
        anytime(&tables, game.visits(), game.position(), &Budget::unlimited(), settings, seed)
            .unwrap_or_else(|unfinished| panic!("no budget, yet {unfinished:?}"))
    }

    /// One designer map: the plan wins, is no longer than the witness, and
    /// the bound is below it.
    #[track_caller]
    fn check(width: u16, height: u16, walk_len: u32, revisit_percent: u32, seed: u64) {
        let settings = DesignerSettings { revisit_percent, ..DesignerSettings::new(width, height, walk_len, seed) };
        let designed = design(&settings).unwrap();
        let config = designed.config();
        let result = run(&config, &SearchSettings { improve_nodes: 20_000 }, seed);
        let Found::Plan { moves, first_len, proven_optimal } = result.found else {
            panic!("{}: the walk wins, yet no solution", settings.command_line())
        };
        let game = play_moves(&config, &moves).expect("legal moves");
        assert!(
            matches!(game.status(), Status::Over(outcome) if outcome.kind == OutcomeKind::Won),
            "{}:\n{}",
            settings.command_line(),
            game.render()
        );
        assert!(
            moves.len() <= designed.walk.len(),
            "{}: {} > walk {}",
            settings.command_line(),
            moves.len(),
            designed.walk.len()
        );
        assert!(moves.len() <= first_len, "improving made it longer");
        assert!(result.lower_bound as usize <= moves.len());
        assert_eq!(proven_optimal, result.lower_bound as usize == moves.len());
    }

    #[test]
    fn designer_maps_are_won_no_longer_than_their_walk() {
        for seed in 0..6 {
            check(10, 10, 150 + 40 * seed as u32, 25, seed);
            check(10, 10, 300, 100, seed);
            check(12, 12, 200, 0, seed);
            check(8, 8, 60, 25, seed);
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_plan() {
        let designed = design(&DesignerSettings::new(12, 12, 250, 7)).unwrap();
        let config = designed.config();
        let settings = SearchSettings { improve_nodes: 5_000 };
        let first = run(&config, &settings, 3);
        let again = run(&config, &settings, 3);
        assert_eq!((first.found.clone(), first.nodes, first.restarts), (again.found, again.nodes, again.restarts));
        let Found::Plan { moves, .. } = first.found else { panic!("solvable") };
        assert!(!moves.is_empty());
    }

    #[test]
    fn agrees_with_a_naive_oracle_on_whether_small_boards_are_solvable() {
        let mut rng = GameRng::from_seed(23);
        let (mut wins, mut losses) = (0, 0);
        for case in 0..400 {
            let config = random_small_board(&mut rng);
            let game = FlagGame::new(&config, 0);
            if game.status() != Status::Running {
                continue;
            }
            let result = run(&config, &SearchSettings { improve_nodes: 1_000 }, case);
            let found = match &result.found {
                Found::Plan { moves, .. } => {
                    let played = play_moves(&config, moves).expect("legal moves");
                    assert!(matches!(played.status(), Status::Over(outcome) if outcome.kind == OutcomeKind::Won));
                    true
                }
                Found::NoSolution => false,
            };
            assert_eq!(found, oracle(&config).is_some(), "case {case}:\n{}", game.render());
            if found { wins += 1 } else { losses += 1 }
        }
        assert!(wins > 50 && losses > 50, "{wins} solvable, {losses} unsolvable: widen the sample");
    }

    #[test]
    fn a_fragile_tile_walled_in_is_proven_unsolvable_at_once() {
        // The fragile tile at the bottom right hangs off a fragile corridor
        // tile: a dead end that strands the player.
        let config = Config::parse("start 0 0\n1111111111\n1........1\n1111F11111\n.........1\n.........1").unwrap();
        let result = run(&config, &SearchSettings::default(), 0);
        assert_eq!(result.found, Found::NoSolution);
        assert!(result.nodes < 100, "{} nodes", result.nodes);
    }

    #[test]
    fn plans_from_a_later_state_once_and_reports_its_bound() {
        let designed = design(&DesignerSettings::new(10, 10, 200, 2)).unwrap();
        let config = designed.config();
        let game = play_moves(&config, &designed.walk[..20]).unwrap();
        let mut planner = AnytimeSearch::new(&config, SearchSettings { improve_nodes: 2_000 });
        let mut game = game;
        let mut planned = 0;
        while game.status() == Status::Running {
            let decision = planner.next_action(&game, &Budget::unlimited()).expect("solvable");
            if let Some(stats) = decision.planned {
                planned += 1;
                assert!(stats.lower_bound.is_some_and(|bound| bound <= stats.plan_len));
                assert!(stats.first_solution_us.is_some());
            }
            game.step(decision.action).unwrap();
        }
        assert_eq!(planned, 1, "one plan, played out");
        assert!(game.tick() as usize <= designed.walk.len());
        assert!(matches!(game.status(), Status::Over(outcome) if outcome.kind == OutcomeKind::Won));
    }
}
