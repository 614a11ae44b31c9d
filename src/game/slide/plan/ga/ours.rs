//! Our version of the GA (the default). It differs from the write-up's
//! (`write_up.rs`) in this: each crossing makes two children (a's head with
//! b's tail and b's head with a's tail), cut from 1 to `move_count` − 1,
//! and the number crossed is rounded up; every parent and child is mutated
//! first and the whole is then sorted and cut (μ+λ on the shared engine
//! `src/ga.rs`, ties kept in order by a stable sort); the carried prefix is
//! frozen on the board (each round plays its policies from the board the
//! prefix leads to, with `move_count` fresh genes), so a solution may be
//! longer than `move_count`; and the plan is the shortened solution. On 100
//! random 8-puzzles these changes solve every one (see docs/games/slide.md).

use std::sync::atomic::Ordering;

use super::round::Round;
use super::{GaResult, GaSettings, shorten, stop_at_first_solve};
use crate::game::slide::{Board, Dir, Goal, neighbour};
use crate::plan::ga::{Evolution, EvolutionSettings, RunEnd, Scheme};
use crate::plan::{Budget, PlanError};
use crate::rng::GameRng;

/// Runs our version of the GA on `board` towards `goal`.
pub(super) fn solve(
    side: u8,
    board: &Board,
    goal: Goal,
    params: GaSettings,
    rng_seed: u64,
    budget: &Budget,
) -> Result<GaResult, PlanError> {
    let n_cells = usize::from(side) * usize::from(side);
    let start_blank = board[..n_cells].iter().position(|&tile| tile == 0).expect("a blank") as u8;
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
        // The prefix is frozen on the board: this round plays from where it leads.
        let mut start = *board;
        let mut blank = start_blank;
        for &dir in &prefix {
            let next = neighbour(side, blank, dir).expect("a shortened prefix has no no-op");
            start.swap(usize::from(blank), usize::from(next));
            blank = next;
        }
        let round = Round::new(side, &start, goal, Dir::ALL, params);
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
