//! The `ga` planner: the 2020 write-up's genetic algorithm for the sliding
//! puzzle (Fivero1017, "遗传算法解决8数码问题"), on the shared engine
//! `src/ga.rs` with its μ+λ scheme.
//!
//! A policy is a fixed-length array of blank moves; a move that would leave
//! the board changes nothing and is kept as a no-op. Its value is the sum
//! over all symbols (the blank included) of the Euclidean distance between
//! where the symbol is after the policy and where it belongs: 0 means
//! solved. Each generation the best `hybrid_rate`% of policies are crossed
//! at one random cut with random partners and the children appended, every
//! policy is mutated with probability `mutate_rate`% at one random gene
//! (with `better_mutate`, a mutation that makes the value worse is undone),
//! and the lot is sorted and cut back to `policy_limit`. A round that ends
//! without a solution shortens its best policy (no-ops removed, then
//! adjacent opposite moves cancelled until none are left) and makes it the
//! fixed prefix of the next round's policies.
//!
//! The post never published its parameter values; the defaults here are
//! ours, chosen by measurement (see the README). Values are `f64` sums of
//! square roots taken from a table and added in cell order, so they are the
//! same on every run; the engine's ranking is a stable sort.

use std::sync::atomic::{AtomicU64, Ordering};

use super::{Board, Dir, Goal, MAX_CELLS, SlideGame, neighbour};
use crate::ga::{Evolution, EvolutionSettings, Problem, RunEnd, Scheme, one_point_crossover};
use crate::game::Game;
use crate::plan::{Budget, Decision, Plan, PlanError, Planner, StoredPlan};
use crate::rng::{GameRng, derive_seed};

/// The write-up's knobs, plus our round structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GaSettings {
    /// Moves per policy (the post's `move_count`).
    pub move_count: usize,
    /// Policies kept after each generation (`policy_limit`).
    pub policy_limit: usize,
    /// Percent of the best policies crossed each generation (`hybrid_rate`).
    pub hybrid_rate: u32,
    /// Percent chance that a policy is mutated each generation (`mutate_rate`).
    pub mutate_rate: u32,
    /// Undo a mutation that makes the value worse (`better_mutate`).
    pub better_mutate: bool,
    /// Generations per round before the best policy becomes a prefix.
    pub generations_per_round: u64,
    /// Rounds before giving up.
    pub max_rounds: u32,
    /// Seeds the planner's random stream (mixed with the start board).
    pub seed: u64,
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
        }
    }
}

/// What one GA run found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GaResult {
    /// The shortened solution, `None` when every round ended unsolved.
    pub moves: Option<Vec<Dir>>,
    /// Generations bred over all rounds.
    pub generations: u64,
    /// Rounds started.
    pub rounds: u32,
    /// Policy values computed.
    pub evaluations: u64,
}

/// `sqrt(d)` for every squared distance on a 5×5 board (at most 4² + 4²).
fn sqrt_table() -> [f64; 33] {
    let mut table = [0.0; 33];
    for (squared, root) in table.iter_mut().enumerate() {
        *root = (squared as f64).sqrt();
    }
    table
}

/// One round's search space: policies played from the board the prefix
/// leads to.
struct Round {
    side: u8,
    n_cells: usize,
    start: Board,
    start_blank: u8,
    /// `home[symbol]`: the goal cell of each symbol (0 = the blank).
    home: [u8; MAX_CELLS],
    roots: [f64; 33],
    params: GaSettings,
    evaluations: AtomicU64,
}

impl Round {
    fn play(&self, policy: &[u8]) -> Board {
        let mut board = self.start;
        let mut blank = self.start_blank;
        for &gene in policy {
            if let Some(next) = neighbour(self.side, blank, Dir::ALL[usize::from(gene)]) {
                board.swap(usize::from(blank), usize::from(next));
                blank = next;
            }
        }
        board
    }

    fn value_of(&self, board: &Board) -> f64 {
        let side = self.side;
        let mut total = 0.0;
        for cell in 0..self.n_cells as u8 {
            let home = self.home[usize::from(board[usize::from(cell)])];
            let d_row = (cell / side).abs_diff(home / side);
            let d_col = (cell % side).abs_diff(home % side);
            total += self.roots[usize::from(d_row * d_row + d_col * d_col)];
        }
        total
    }
}

impl Problem for Round {
    type Genome = Vec<u8>;
    type Fitness = f64;

    fn random_genome(&self, rng: &mut GameRng) -> Vec<u8> {
        (0..self.params.move_count).map(|_| rng.below(4) as u8).collect()
    }

    fn fitness(&self, genome: &Vec<u8>) -> f64 {
        self.evaluations.fetch_add(1, Ordering::Relaxed);
        self.value_of(&self.play(genome))
    }

    fn is_solution(&self, fitness: f64) -> bool {
        fitness == 0.0
    }

    fn crossover(&self, a: &Vec<u8>, b: &Vec<u8>, rng: &mut GameRng, child_a: &mut Vec<u8>, child_b: &mut Vec<u8>) {
        one_point_crossover(a, b, rng, child_a, child_b);
    }

    fn mutate(&self, genome: &mut Vec<u8>, rng: &mut GameRng) {
        if genome.is_empty() || !rng.chance(self.params.mutate_rate, 100) {
            return;
        }
        let gene = rng.below(genome.len() as u32) as usize;
        let new_allele = rng.below(4) as u8;
        if !self.params.better_mutate {
            genome[gene] = new_allele;
            return;
        }
        let before = self.fitness(genome);
        let old_allele = std::mem::replace(&mut genome[gene], new_allele);
        if self.fitness(genome) > before {
            genome[gene] = old_allele;
        }
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

/// Runs the GA on `board` towards `goal`.
pub(crate) fn solve(
    side: u8,
    board: &Board,
    goal: Goal,
    params: GaSettings,
    rng_seed: u64,
    budget: &Budget,
) -> Result<GaResult, PlanError> {
    let n_cells = usize::from(side) * usize::from(side);
    let mut home = [0u8; MAX_CELLS];
    for tile in 0..n_cells as u8 {
        home[usize::from(tile)] = goal.cell_of(tile, n_cells as u8);
    }
    let blank_of = |board: &Board| board[..n_cells].iter().position(|&tile| tile == 0).expect("a blank") as u8;
    let start_blank = blank_of(board);
    let engine = EvolutionSettings {
        population: params.policy_limit,
        scheme: Scheme::Plus { crossover_percent: params.hybrid_rate },
        max_generations: params.generations_per_round,
        parallel: false,
    };
    engine.validate().map_err(|error| PlanError::GaveUp(format!("bad GA parameters: {error}")))?;
    let mut rng = GameRng::from_seed(rng_seed);
    let mut prefix: Vec<Dir> = Vec::new();
    let mut result = GaResult { moves: None, generations: 0, rounds: 0, evaluations: 0 };
    for _ in 0..params.max_rounds {
        result.rounds += 1;
        let mut start = *board;
        let mut blank = start_blank;
        for &dir in &prefix {
            let next = neighbour(side, blank, dir).expect("a shortened prefix has no no-op");
            start.swap(usize::from(blank), usize::from(next));
            blank = next;
        }
        let round = Round {
            side,
            n_cells,
            start,
            start_blank: blank,
            home,
            roots: sqrt_table(),
            params,
            evaluations: AtomicU64::new(0),
        };
        let round_rng = GameRng::from_seed(rng.next_u64());
        let mut evolution =
            Evolution::new(&round, engine, round_rng).map_err(|error| PlanError::GaveUp(error.to_string()))?;
        let end = evolution.run(|_| budget.exhausted().is_some());
        result.generations += evolution.generation();
        result.evaluations += round.evaluations.load(Ordering::Relaxed);
        let best: Vec<Dir> = evolution.best().genome.iter().map(|&gene| Dir::ALL[usize::from(gene)]).collect();
        let mut whole = prefix.clone();
        whole.extend_from_slice(&best);
        prefix = shorten(side, start_blank, &whole);
        match end {
            RunEnd::Solved { .. } => {
                result.moves = Some(stop_at_first_solve(side, board, goal, prefix));
                return Ok(result);
            }
            RunEnd::Stopped => return Err(budget.exhausted().unwrap_or(PlanError::OutOfTime)),
            RunEnd::GenerationCap => {}
        }
    }
    Ok(result)
}

/// A solution may pass through the goal before its end; the game ends there.
fn stop_at_first_solve(side: u8, board: &Board, goal: Goal, moves: Vec<Dir>) -> Vec<Dir> {
    let goal_board = super::goal_board(side, goal);
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
    pub fn solve_game(&self, game: &SlideGame, budget: &Budget) -> Result<GaResult, PlanError> {
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
    use crate::game::slide::{Config, apply_moves, goal_board};

    #[test]
    fn shortening_drops_no_ops_and_cancels_opposite_pairs() {
        use Dir::*;
        // Blank on cell 0 of a 3×3 board: Up and Left are no-ops there.
        let moves = [Up, Left, Right, Down, Up, Left, Down, Right, Right];
        assert_eq!(shorten(3, 0, &moves), [Down, Right, Right]);
        assert_eq!(shorten(3, 0, &[Right, Down, Up, Left]), []);
    }

    #[test]
    fn the_value_is_zero_only_at_the_goal() {
        let round = |board: Board| Round {
            side: 3,
            n_cells: 9,
            start: board,
            start_blank: 8,
            home: {
                let mut home = [0u8; MAX_CELLS];
                for tile in 0..9 {
                    home[usize::from(tile)] = Goal::BlankLast.cell_of(tile, 9);
                }
                home
            },
            roots: sqrt_table(),
            params: GaSettings::default(),
            evaluations: AtomicU64::new(0),
        };
        let goal = goal_board(3, Goal::BlankLast);
        assert_eq!(round(goal).value_of(&goal), 0.0);
        // The post's example value: ≈15.48 for 7 3 _ / 8 1 4 / 6 2 5.
        let mut start = [0u8; MAX_CELLS];
        start[..9].copy_from_slice(&[7, 3, 0, 8, 1, 4, 6, 2, 5]);
        let value = round(start).value_of(&start);
        assert!((value - 15.479).abs() < 0.001, "{value}");
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
