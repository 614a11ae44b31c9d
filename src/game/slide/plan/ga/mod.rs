//! The `ga` planner: the genetic algorithm of the 2020 write-up for the
//! sliding puzzle (Fivero1017, "遗传算法解决8数码问题",
//! `_posts/2020-07-17-8Digits-Problem-Genetic-Algorithm.md` in
//! Fivero1017/Fivero1017.github.io at commit
//! `d11f935b7585e57832c0013c8a49b2f5c6f953ce`), in two versions.
//!
//! What both share: a policy is a fixed-length array of moves; a move that
//! would leave the board changes nothing and is kept as a no-op. Its value
//! is the sum over all symbols (the blank included) of the Euclidean
//! distance between where the symbol is after the policy and where it
//! belongs: 0 means solved. Generations cross the best `hybrid_rate`% of
//! the policies at one random cut with partners drawn from the whole
//! population, mutate a policy with probability `mutate_rate`% at one random
//! gene (with `better_mutate`, a mutation that makes the value worse is
//! undone), and keep the best `policy_limit`. A round that ends without a
//! solution shortens its best policy (no-ops removed, then adjacent opposite
//! moves cancelled until none are left) and makes it the start of the next
//! round's policies, whose other genes are drawn afresh.
//!
//! The two versions differ in how they breed, how they carry a round's
//! best policy into the next and what they play: the write-up's, exactly
//! as printed (`write_up.rs`, [`Variant::WriteUp`], `--write-up`), and ours
//! (`ours.rs`, the default). Each file's docs list its rules.
//!
//! Parameters: the post names `move_count`, `policy_limit`, `hybrid_rate`,
//! `mutate_rate` and `better_mutate` but never gives their values, nor the
//! size of the first population (here `policy_limit`), the generations per
//! round or a number of rounds; every value here is ours, chosen by
//! measurement, in both versions. Values are `f64` sums of square roots
//! taken from a table and added in cell order, so they are the same on
//! every run.

mod ours;
mod round;
mod write_up;

use crate::game::Game;
use crate::game::slide::{Board, Dir, Goal, SlideGame, goal_board, neighbour};
use crate::plan::{Budget, Decision, Plan, PlanError, Planner, StoredPlan, Variant};
use crate::rng::derive_seed;

/// The write-up's knobs, plus our round structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GaSettings {
    /// Moves per policy (the post's `move_count`).
    pub(crate) move_count: usize,
    /// Policies kept after each generation (`policy_limit`).
    pub(crate) policy_limit: usize,
    /// Percent of the best policies crossed each generation (`hybrid_rate`).
    pub(crate) hybrid_rate: u32,
    /// Percent chance that a policy is mutated each generation (`mutate_rate`).
    pub(crate) mutate_rate: u32,
    /// Undo a mutation that makes the value worse (`better_mutate`).
    pub(crate) better_mutate: bool,
    /// Generations per round before the best policy becomes a prefix.
    pub(crate) generations_per_round: u64,
    /// Rounds before giving up.
    pub(crate) max_rounds: u32,
    /// Seeds the planner's random stream (mixed with the start board).
    pub(crate) seed: u64,
    /// Which version runs: ours, or the write-up's (see the module docs).
    pub(crate) variant: Variant,
}

impl Default for GaSettings {
    fn default() -> Self {
        GaSettings {
            move_count: 30,
            policy_limit: 200,
            hybrid_rate: 30,
            mutate_rate: 50,
            better_mutate: true,
            generations_per_round: 60,
            max_rounds: 40,
            seed: 1,
            variant: Variant::Ours,
        }
    }
}

/// What one GA run found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GaResult {
    /// The shortened solution, `None` when every round ended unsolved.
    pub(crate) moves: Option<Vec<Dir>>,
    /// Generations bred over all rounds.
    pub(crate) generations: u64,
    /// Rounds started.
    pub(crate) rounds: u32,
    /// Policy values computed.
    pub(crate) evaluations: u64,
}

/// Runs the GA on `board` towards `goal`, in the version `params` names.
pub(crate) fn solve(
    side: u8,
    board: &Board,
    goal: Goal,
    params: GaSettings,
    rng_seed: u64,
    budget: &Budget,
) -> Result<GaResult, PlanError> {
    match params.variant {
        Variant::Ours => ours::solve(side, board, goal, params, rng_seed, budget),
        Variant::WriteUp => write_up::solve(side, board, goal, params, rng_seed, budget),
    }
}

/// The write-up's shortening: drop moves that change nothing, then cancel
/// adjacent opposite moves until none are left (a stack does it in one pass,
/// since a cancellation can only expose a new pair at the stack's top).
pub(crate) fn shorten(side: u8, start_blank: u8, moves: &[Dir]) -> Vec<Dir> {
    let mut blank = start_blank;
    let mut kept: Vec<Dir> = Vec::with_capacity(moves.len());
    for &dir in moves {
        let Some(next) = neighbour(side, blank, dir) else { continue };
        blank = next;
        if kept.last() == Some(&dir.opposite()) {
            kept.pop();
        } else {
            kept.push(dir);
        }
    }
    kept
}

/// A solution may pass through the goal before its end; the game ends there.
fn stop_at_first_solve(side: u8, board: &Board, goal: Goal, moves: Vec<Dir>) -> Vec<Dir> {
    let goal_board = goal_board(side, goal);
    let n_cells = usize::from(side) * usize::from(side);
    let mut current = *board;
    let mut blank = current[..n_cells].iter().position(|&tile| tile == 0).expect("a blank") as u8;
    for (index, &dir) in moves.iter().enumerate() {
        let next = neighbour(side, blank, dir).expect("shortened moves stay on the board");
        current.swap(usize::from(blank), usize::from(next));
        blank = next;
        if current == goal_board {
            return moves[..=index].to_vec();
        }
    }
    moves
}

/// The `ga` planner. Plans once, on the first tick, and hands the plan out
/// move by move.
#[derive(Debug)]
pub struct GaPlanner {
    params: GaSettings,
    plan: StoredPlan<SlideGame>,
}

impl GaPlanner {
    pub fn new(params: GaSettings) -> GaPlanner {
        GaPlanner { params, plan: StoredPlan::default() }
    }

    /// Runs the GA on `game`'s board. The random stream is seeded from the
    /// planner's seed and the board, so one planner plays different starts
    /// differently and the same start the same way.
    pub(crate) fn solve_game(&self, game: &SlideGame, budget: &Budget) -> Result<GaResult, PlanError> {
        solve_game(self.params, game, budget)
    }
}

fn solve_game(params: GaSettings, game: &SlideGame, budget: &Budget) -> Result<GaResult, PlanError> {
    let config = game.config();
    let rng_seed = derive_seed(params.seed, game.state_hash());
    solve(config.side(), game.board(), config.goal(), params, rng_seed, budget)
}

impl Planner<SlideGame> for GaPlanner {
    fn name(&self) -> &'static str {
        "ga"
    }

    fn params(&self) -> Vec<(String, String)> {
        let p = &self.params;
        vec![
            ("move_count".to_string(), p.move_count.to_string()),
            ("policy_limit".to_string(), p.policy_limit.to_string()),
            ("hybrid_rate".to_string(), p.hybrid_rate.to_string()),
            ("mutate_rate".to_string(), p.mutate_rate.to_string()),
            ("better_mutate".to_string(), p.better_mutate.to_string()),
            ("generations_per_round".to_string(), p.generations_per_round.to_string()),
            ("max_rounds".to_string(), p.max_rounds.to_string()),
            ("seed".to_string(), p.seed.to_string()),
        ]
        .into_iter()
        .chain((p.variant == Variant::WriteUp).then(|| ("write_up".to_string(), "true".to_string())))
        .collect()
    }

    fn next_action(&mut self, game: &SlideGame, budget: &Budget) -> Result<Decision<Dir>, PlanError> {
        let params = self.params;
        self.plan.next_action(game, || {
            let result = solve_game(params, game, budget)?;
            match result.moves {
                Some(actions) => Ok(Plan { actions, kind: "ga", nodes: result.evaluations }),
                None => Err(PlanError::GaveUp(format!(
                    "no solution in {} rounds ({} generations)",
                    result.rounds, result.generations
                ))),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::slide::{Config, apply_moves};

    #[test]
    fn shortening_drops_no_ops_and_cancels_opposite_pairs() {
        use Dir::*;
        // Blank on cell 0 of a 3×3 board: Up and Left are no-ops there.
        let moves = [Up, Left, Right, Down, Up, Left, Down, Right, Right];
        assert_eq!(shorten(3, 0, &moves), [Down, Right, Right]);
        assert_eq!(shorten(3, 0, &[Right, Down, Up, Left]), []);
    }

    #[test]
    fn solves_the_write_ups_puzzle_for_fixed_seeds_deterministically() {
        let config = Config::fixed(3, &[7, 3, 0, 8, 1, 4, 6, 2, 5], Goal::BlankLast).unwrap();
        let board = *config.start().unwrap();
        for seed in [1, 2, 3] {
            let result = solve(3, &board, Goal::BlankLast, GaSettings::default(), seed, &Budget::unlimited()).unwrap();
            let moves = result.moves.clone().expect("solved");
            assert_eq!(apply_moves(3, &board, &moves), Some(goal_board(3, Goal::BlankLast)));
            assert!(moves.len() >= 16);
            let again = solve(3, &board, Goal::BlankLast, GaSettings::default(), seed, &Budget::unlimited()).unwrap();
            assert_eq!(again, result);
        }
    }
}
