//! The `exact` planner: a complete search that returns a shortest winning
//! move sequence, or proves that none exists.
//!
//! IDA* over the total number of moves, on the search over tile entries
//! (`super::entry_search`, which holds the macro moves, the lower bounds
//! and the cuts). A solution is exactly as many macro moves as entries are
//! owed, and a final walk to the flag, so the depth is bounded, which is
//! what makes "no solution" a proof rather than a timeout.
//!
//! Before deepening, the `search` planner's restarted dives look for any
//! plan for a few tens of thousands of nodes: its length is an upper bound,
//! so the deepening stops, with that plan, as soon as its bound reaches it,
//! and the states the dives proved dead stay in the table.
//!
//! Tests check it against a naive breadth-first search over whole game
//! states on random small boards, solvable and not.
//!
//! Known limit: the search is exponential in the worst case. Boards of about
//! 10×10 with many cracked tiles or with stones can take seconds or more when
//! the optimum exceeds the first lower bound, because each cheaper bound
//! must be refuted exhaustively; the planner honours its time budget. The
//! `search` planner plays such boards (a plan at once, shortened for a
//! fixed number of nodes, with its gap to the lower bound reported).

use super::entry_search::{BoardTables, FOUND, FirstPlan, INFINITE, Search, first_plan};
use crate::game::Game;
use crate::game::flag::{Config, Dir, FlagGame};
use crate::plan::{Budget, Decision, Plan, PlanError, Planner, StoredPlan};

/// Nodes the first-solution dives may spend on an upper bound before the
/// deepening starts: enough for the boards where deepening is slow, a small
/// share of a solve where it is not.
const UPPER_BOUND_NODES: u64 = 1 << 16;

/// What the search concluded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// A shortest winning sequence of moves.
    Solved(Vec<Dir>),
    /// No sequence of moves wins from this state: proven, not timed out.
    NoSolution,
}

/// A verdict with the work it took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Solution {
    pub(crate) verdict: Verdict,
    /// Search nodes expanded, over every IDA* iteration.
    pub(crate) nodes: u64,
    /// IDA* iterations (cost bounds tried).
    pub(crate) iterations: u32,
}

/// Solves the game on `tables`' board from `visits` (entries each cell
/// still takes) with the player on `position`. Stops with [`PlanError`]
/// only when the budget runs out.
pub(crate) fn solve(
    tables: &BoardTables,
    visits: &[u8],
    position: u16,
    budget: &Budget,
) -> Result<Solution, PlanError> {
    assert_eq!(visits.len(), tables.n_cells, "visits for another board");
    let mut search = Search::new(tables, visits, position, budget);
    let mut iterations = 0;
    let mut bound = search.lower_bound();
    // An upper bound first: the `search` planner's restarted dives, for
    // at most UPPER_BOUND_NODES nodes. Their proofs of dead states stay
    // in the table; a plan found ends the deepening as soon as the bound
    // reaches its length.
    search.node_limit = UPPER_BOUND_NODES;
    let upper = match first_plan(&mut search, 0) {
        FirstPlan::Found { .. } => Some(tables.expand(position, &search.found)),
        FirstPlan::NoSolution { .. } => {
            return Ok(Solution { verdict: Verdict::NoSolution, nodes: search.nodes, iterations });
        }
        FirstPlan::Cut { .. } => None,
    };
    if let Some(error) = search.stopped.take() {
        return Err(error);
    }
    (search.node_limit, search.capped) = (u64::MAX, false);
    let verdict = loop {
        if bound == INFINITE {
            break Verdict::NoSolution;
        }
        if let Some(moves) = upper.as_ref().filter(|moves| moves.len() as u32 <= bound) {
            break Verdict::Solved(moves.clone());
        }
        iterations += 1;
        let result = search.depth_first(0, bound);
        if let Some(error) = search.stopped.take() {
            return Err(error);
        }
        match result {
            FOUND => break Verdict::Solved(tables.expand(position, &search.found)),
            INFINITE => break Verdict::NoSolution,
            next => bound = next,
        }
    };
    Ok(Solution { verdict, nodes: search.nodes, iterations })
}

/// The `exact` planner: solves once, then plays the solution move by move.
/// A level with no solution ends the game with the verdict "no solution".
#[derive(Debug)]
pub(crate) struct Exact {
    tables: BoardTables,
    plan: StoredPlan<FlagGame>,
}

impl Exact {
    pub(crate) fn new(config: &Config) -> Exact {
        Exact { tables: BoardTables::new(config), plan: StoredPlan::default() }
    }
}

impl Planner<FlagGame> for Exact {
    fn name(&self) -> &'static str {
        "exact"
    }

    fn params(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    fn next_action(&mut self, game: &FlagGame, budget: &Budget) -> Result<Decision<Dir>, PlanError> {
        let tables = &self.tables;
        self.plan.next_action(game, || {
            let solution = solve(tables, game.visits(), game.position(), budget)?;
            match solution.verdict {
                Verdict::Solved(actions) => Ok(Plan { actions, kind: "exact", nodes: solution.nodes }),
                Verdict::NoSolution => Err(PlanError::GaveUp(format!(
                    "no solution: no sequence of moves from tick {} clears every tile and ends on the flag \
                     (proven by exhaustive search, {} nodes)",
                    game.tick(),
                    solution.nodes
                ))),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::flag::plan::oracle::{oracle, random_small_board};
    use crate::game::flag::{letters, play_moves};
    use crate::game::{OutcomeKind, Show, Status};
    use crate::map::Level;
    use crate::rng::GameRng;

    fn solve_text(text: &str) -> Solution {
        let config = Config::parse(text).unwrap_or_else(|error| panic!("{error}"));
        let game = FlagGame::new(&config, 0);
        super::solve(&BoardTables::new(&config), game.visits(), game.position(), &Budget::unlimited())
            .expect("no budget")
    }

    /// The shortest solutions of the original rounds 1–19 (round 5 with the
    /// drawn flag), as an independent breadth-first search over the original
    /// maps found them before they were converted.
    const OPTIMAL: [usize; 19] = [5, 5, 8, 6, 14, 16, 22, 32, 35, 16, 21, 34, 42, 36, 33, 49, 49, 32, 44];

    #[test]
    fn every_bundled_round_is_solved_in_the_known_optimal_length() {
        for (index, &optimal) in OPTIMAL.iter().enumerate() {
            let path = format!("{}/maps/flag/round-{:02}.txt", env!("CARGO_MANIFEST_DIR"), index + 1);
            let text = std::fs::read_to_string(&path).expect("bundled map");
            let config = Config::parse(&text).unwrap();
            let solution = solve_text(&text);
            let Verdict::Solved(moves) = solution.verdict else { panic!("{path}: no solution") };
            assert_eq!(moves.len(), optimal, "{path}: {}", letters(&moves));
            let game = play_moves(&config, &moves).expect("legal moves");
            assert!(matches!(game.status(), Status::Over(outcome) if outcome.kind == OutcomeKind::Won), "{path}");
        }
    }

    #[test]
    fn crafted_unsolvable_maps_get_a_verdict() {
        // Two dead ends off a fragile corridor: one of them strands the player.
        for map in ["start 1 0\n111\n.F.", "start 0 0\n1111\n1..1\n11F1", "start 0 0\n11.F", "start 0 0\n21F"] {
            assert_eq!(solve_text(map).verdict, Verdict::NoSolution, "{map}");
        }
    }

    #[test]
    fn stones_and_flag_crossings_are_counted_in_moves() {
        // Round trip over a stone to come back for a cracked tile.
        let solution = solve_text("start 0 0\n123\n..F");
        let Verdict::Solved(moves) = solution.verdict else { panic!("solvable") };
        assert_eq!(letters(&moves), "rrlrd");
        let solution = solve_text("start 0 0\n1F1");
        let Verdict::Solved(moves) = solution.verdict else { panic!("solvable") };
        assert_eq!(letters(&moves), "rrl");
    }

    #[test]
    fn generated_maps_are_solved_no_longer_than_their_walk() {
        use crate::game::flag::generate::{GenSettings, generate};
        for seed in 0..40 {
            for (width, height, stones) in [(6, 5, 0), (6, 6, 2), (5, 5, 0)] {
                let generated = generate(&GenSettings { stones, ..GenSettings::new(width, height, seed) }).unwrap();
                let config = generated.config();
                let game = FlagGame::new(&config, 0);
                let solution =
                    super::solve(&BoardTables::new(&config), game.visits(), game.position(), &Budget::unlimited())
                        .unwrap();
                let Verdict::Solved(moves) = solution.verdict else {
                    panic!("seed {seed} {width}x{height}: the generator's walk wins, yet no solution")
                };
                assert!(
                    moves.len() <= generated.walk.len(),
                    "seed {seed}: {} > walk {}",
                    moves.len(),
                    generated.walk.len()
                );
                let played = play_moves(&config, &moves).expect("legal moves");
                assert!(matches!(played.status(), Status::Over(outcome) if outcome.kind == OutcomeKind::Won));
            }
        }
    }

    /// The length of a shortest win by breadth-first search over whole game
    /// states: the naive oracle.
    /// The shortest win by breadth-first search over whole game states, or

    #[test]
    fn agrees_with_a_naive_oracle_on_random_small_boards() {
        let mut rng = GameRng::from_seed(11);
        let (mut solvable, mut unsolvable) = (0, 0);
        for case in 0..400 {
            let config = random_small_board(&mut rng);
            let game = FlagGame::new(&config, 0);
            if game.status() != Status::Running {
                continue;
            }
            let solution =
                super::solve(&BoardTables::new(&config), game.visits(), game.position(), &Budget::unlimited()).unwrap();
            let found = match solution.verdict {
                Verdict::Solved(moves) => Some(moves.len()),
                Verdict::NoSolution => None,
            };
            assert_eq!(found, oracle(&config), "case {case}:\n{}", game.render());
            if found.is_some() { solvable += 1 } else { unsolvable += 1 }
        }
        assert!(solvable > 50 && unsolvable > 50, "{solvable} solvable, {unsolvable} unsolvable: widen the sample");
    }

    #[test]
    fn plans_from_the_state_it_is_given() {
        let text = "start 0 0\n1111\n1111\n111F";
        let config = Config::parse(text).unwrap();
        let game = play_moves(&config, &[Dir::Down, Dir::Down, Dir::Right]).unwrap();
        let mut planner = Exact::new(&config);
        let mut game = game;
        while game.status() == Status::Running {
            let decision = planner.next_action(&game, &Budget::unlimited()).expect("solvable");
            game.step(decision.action).unwrap();
        }
        assert_eq!(game.tick(), 11);
        assert!(matches!(game.status(), Status::Over(outcome) if outcome.kind == OutcomeKind::Won));
    }
}
