//! The write-up's version of the GA ([`Variant::WriteUp`](crate::plan::Variant),
//! `--write-up`). It follows the printed code and text exactly:
//! - crossing makes **one** child per policy crossed: the head of the i-th
//!   best policy and the tail of its random partner, cut at a point drawn
//!   from 1 to `move_count` − 2; the number crossed is `len × hybrid_rate /
//!   100` rounded to nearest, a half to even (`np.around`);
//! - children join the population, which is sorted and **cut** to
//!   `policy_limit`, **then** every policy is offered to mutation (the new
//!   gene may equal the old) and the whole is sorted again;
//! - sorting is by value, then by the moves gene by gene (numpy's sort with
//!   `order='value'` compares the other fields on a tie), the genes in the
//!   post's codes (0 tile up, 1 tile right, 2 tile down, 3 tile left: the
//!   blank moves down, left, up, right);
//! - the carried prefix stays **inside** the fixed-length policy: a new
//!   round's policies are the prefix followed by `move_count` − its length
//!   random genes, played from the start board, so the prefix can still be
//!   crossed and mutated and a whole solution must fit in `move_count`
//!   moves;
//! - the policy of value 0 is played as it is, without its no-ops (our game
//!   has no move that does nothing) and stopped where the board is first
//!   solved; it is not shortened further.
//!
//! The printed code has three array-view bugs that we do not reproduce, since
//! its text says what it meant: `hybrid_2` scores each child with the value
//! of a policy of the outer `policies` array instead of its own; it writes
//! the children into a view of the best parents, so they are overwritten
//! (and appear twice once appended); and `mutate` keeps "the policy before
//! the mutation" as a view of the same record, so `better_mutate` never
//! undoes anything. We follow the text: a child is a new policy with its own
//! value, the parents stay, and a worse mutation is undone. The post prints
//! no main loop: we look for a value of 0 in the first population and after
//! each generation.

use std::sync::atomic::Ordering;

use super::round::Round;
use super::{GaResult, GaSettings, shorten, stop_at_first_solve};
use crate::game::slide::{Board, Dir, Goal, neighbour};
use crate::plan::ga::Problem;
use crate::plan::{Budget, PlanError};
use crate::rng::GameRng;

/// The blank move of each of the post's gene codes, which name the way the
/// tile moves: 0 "up" (the blank moves down), 1 "right" (left), 2 "down"
/// (up), 3 "left" (right).
const POST_CODE_MOVES: [Dir; 4] = [Dir::Down, Dir::Left, Dir::Up, Dir::Right];

/// The post's code of a blank move.
fn post_code(dir: Dir) -> u8 {
    POST_CODE_MOVES.iter().position(|&other| other == dir).expect("every direction has a code") as u8
}

/// A policy of the write-up's version, with its value.
#[derive(Clone, Debug)]
struct Policy {
    genes: Vec<u8>,
    value: f64,
}

/// `np.around(numerator / 100)`: to the nearest whole number, a half to even.
fn round_half_even_percent(numerator: usize) -> usize {
    let (quotient, remainder) = (numerator / 100, numerator % 100);
    match remainder.cmp(&50) {
        std::cmp::Ordering::Less => quotient,
        std::cmp::Ordering::Greater => quotient + 1,
        std::cmp::Ordering::Equal => quotient + quotient % 2,
    }
}

/// The post's `np.sort(policies, order = 'value')`: by value, ties by the
/// moves gene by gene.
fn sort_policies(policies: &mut [Policy]) {
    policies.sort_by(|a, b| a.value.total_cmp(&b.value).then_with(|| a.genes.cmp(&b.genes)));
}

/// Storage the write-up's generations reuse, so that a generation allocates
/// nothing once the first ones have run.
#[derive(Debug, Default)]
struct Spare {
    policies: Vec<Policy>,
    partners: Vec<usize>,
}

/// The post's `hybrid`: the best `hybrid_rate`% each cross with a random
/// partner into one child, appended; sorted and cut to `policy_limit`.
fn hybrid(round: &Round, policies: &mut Vec<Policy>, spare: &mut Spare, rng: &mut GameRng) {
    let params = round.params;
    let len = policies.len();
    let crossed = round_half_even_percent(len * params.hybrid_rate as usize).min(len);
    // As the post: all partners first (`np.random.choice`), then the cuts.
    spare.partners.clear();
    spare.partners.extend((0..crossed).map(|_| rng.below(len as u32) as usize));
    for (index, &partner) in spare.partners.iter().enumerate() {
        let cut = 1 + rng.below(params.move_count as u32 - 2) as usize;
        let mut child = spare.policies.pop().unwrap_or_else(|| Policy { genes: Vec::new(), value: 0.0 });
        child.genes.clear();
        child.genes.extend_from_slice(&policies[index].genes[..cut]);
        child.genes.extend_from_slice(&policies[partner].genes[cut..]);
        child.value = round.fitness(&child.genes);
        policies.push(child);
    }
    sort_policies(policies);
    if policies.len() > params.policy_limit {
        spare.policies.extend(policies.drain(params.policy_limit..));
    }
}

/// The post's `mutate`: each policy, with probability `mutate_rate`%, gets
/// one random gene set to a random move; with `better_mutate` a change that
/// makes the value worse is undone. Then sorted.
fn mutate(round: &Round, policies: &mut [Policy], rng: &mut GameRng) {
    let params = round.params;
    for policy in policies.iter_mut() {
        if !rng.chance(params.mutate_rate, 100) {
            continue;
        }
        let gene = rng.below(params.move_count as u32) as usize;
        let old_allele = std::mem::replace(&mut policy.genes[gene], rng.below(4) as u8);
        let value = round.fitness(&policy.genes);
        if params.better_mutate && value > policy.value {
            policy.genes[gene] = old_allele;
        } else {
            policy.value = value;
        }
    }
    sort_policies(policies);
}

/// Runs the write-up's version of the GA on `board` towards `goal`.
pub(super) fn solve(
    side: u8,
    board: &Board,
    goal: Goal,
    params: GaSettings,
    rng_seed: u64,
    budget: &Budget,
) -> Result<GaResult, PlanError> {
    if params.move_count < 3 || params.policy_limit == 0 {
        return Err(PlanError::GaveUp(format!(
            "bad GA parameters: the write-up's version needs --move-count of at least 3 (its cut is drawn from 1 to \
             move_count - 2) and a --policy-limit of at least 1, not {} and {}",
            params.move_count, params.policy_limit
        )));
    }
    let n_cells = usize::from(side) * usize::from(side);
    let start_blank = board[..n_cells].iter().position(|&tile| tile == 0).expect("a blank") as u8;
    // Every policy is played from the start board: the prefix is in the genes.
    let round = Round::new(side, board, goal, POST_CODE_MOVES, params);
    let to_moves =
        |genes: &[u8]| -> Vec<Dir> { genes.iter().map(|&gene| POST_CODE_MOVES[usize::from(gene)]).collect() };
    let mut rng = GameRng::from_seed(rng_seed);
    let mut prefix: Vec<u8> = Vec::new();
    let mut result = GaResult { moves: None, generations: 0, rounds: 0, evaluations: 0 };
    let mut spare = Spare::default();
    for _ in 0..params.max_rounds {
        result.rounds += 1;
        let mut policies: Vec<Policy> = (0..params.policy_limit)
            .map(|_| {
                let mut genes = prefix.clone();
                genes.extend((prefix.len()..params.move_count).map(|_| rng.below(4) as u8));
                let value = round.fitness(&genes);
                Policy { genes, value }
            })
            .collect();
        sort_policies(&mut policies);
        let mut generation = 0;
        while policies[0].value != 0.0 && generation < params.generations_per_round {
            if let Some(error) = budget.exhausted() {
                return Err(error);
            }
            hybrid(&round, &mut policies, &mut spare, &mut rng);
            mutate(&round, &mut policies, &mut rng);
            generation += 1;
        }
        result.generations += generation;
        result.evaluations = round.evaluations.load(Ordering::Relaxed);
        let best = to_moves(&policies[0].genes);
        if policies[0].value == 0.0 {
            // Played as it is, less the no-ops our game has no move for.
            let mut blank = start_blank;
            let mut moves = Vec::with_capacity(best.len());
            for dir in best {
                if let Some(next) = neighbour(side, blank, dir) {
                    blank = next;
                    moves.push(dir);
                }
            }
            result.moves = Some(stop_at_first_solve(side, board, goal, moves));
            return Ok(result);
        }
        prefix = shorten(side, start_blank, &best).into_iter().map(post_code).collect();
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::slide::{Config, apply_moves, goal_board};
    use crate::plan::Variant;

    #[test]
    fn numbers_crossed_round_half_to_even_as_numpy_does() {
        #[track_caller]
        fn check(percent_of: usize, expected: usize) {
            assert_eq!(round_half_even_percent(percent_of), expected, "{percent_of} / 100");
        }
        check(200 * 30, 60);
        check(249, 2);
        check(250, 2);
        check(251, 3);
        check(350, 4);
        check(50, 0);
        check(150, 2);
    }

    /// The write-up's operators as its text says, without the printed
    /// code's view bugs: a child is a new policy with its own value, the
    /// parents stay, one child per policy crossed, and a worse mutation is
    /// undone.
    #[test]
    fn the_write_ups_operators_make_one_child_keep_parents_and_undo_worse_mutations() {
        let config = Config::fixed(3, &[7, 3, 0, 8, 1, 4, 6, 2, 5], Goal::BlankLast).unwrap();
        let start = *config.start().unwrap();
        let params = GaSettings {
            policy_limit: 100,
            hybrid_rate: 30,
            mutate_rate: 100,
            variant: Variant::WriteUp,
            ..GaSettings::default()
        };
        let round = Round::new(3, &start, Goal::BlankLast, POST_CODE_MOVES, params);
        let mut rng = GameRng::from_seed(4);
        let mut policies: Vec<Policy> = (0..10)
            .map(|_| {
                let genes: Vec<u8> = (0..params.move_count).map(|_| rng.below(4) as u8).collect();
                Policy { value: round.fitness(&genes), genes }
            })
            .collect();
        sort_policies(&mut policies);
        let parents = policies.clone();
        hybrid(&round, &mut policies, &mut Spare::default(), &mut rng);
        assert_eq!(policies.len(), 13, "3 of 10 crossed, one child each");
        for parent in &parents {
            assert!(policies.iter().any(|policy| policy.genes == parent.genes), "a parent was overwritten");
        }
        for policy in &policies {
            assert_eq!(policy.value, round.fitness(&policy.genes), "a stale value");
        }
        let before: Vec<f64> = policies.iter().map(|policy| policy.value).collect();
        mutate(&round, &mut policies, &mut rng);
        for (policy, old) in policies.iter().zip(&before) {
            assert_eq!(policy.value, round.fitness(&policy.genes), "a stale value");
            assert!(policy.value <= *old, "better_mutate kept a worse policy");
        }
        // The post's example: "down left down right" (tile moves, its codes
        // 2 3 2 1) takes the blank left once, value about 14.7, and crossing it
        // into "down left down down" leaves the board as it was, about 15.5.
        let value = |genes: &[u8]| round.fitness(&genes.to_vec());
        assert!((value(&[2, 3, 2, 1]) - 14.715).abs() < 0.001);
        assert!((value(&[2, 3, 2, 2]) - 15.479).abs() < 0.001);
    }

    #[test]
    fn the_write_ups_version_solves_the_example_within_move_count_moves() {
        let config = Config::fixed(3, &[7, 3, 0, 8, 1, 4, 6, 2, 5], Goal::BlankLast).unwrap();
        let board = *config.start().unwrap();
        let params = GaSettings { variant: Variant::WriteUp, ..GaSettings::default() };
        for seed in [1, 2, 3] {
            let result = solve(3, &board, Goal::BlankLast, params, seed, &Budget::unlimited()).unwrap();
            let moves = result.moves.clone().expect("solved");
            assert_eq!(apply_moves(3, &board, &moves), Some(goal_board(3, Goal::BlankLast)));
            assert!((16..=params.move_count).contains(&moves.len()), "{} moves", moves.len());
            assert_eq!(solve(3, &board, Goal::BlankLast, params, seed, &Budget::unlimited()).unwrap(), result);
        }
        let too_short = GaSettings { move_count: 2, ..params };
        let error = solve(3, &board, Goal::BlankLast, too_short, 1, &Budget::unlimited()).unwrap_err();
        assert!(error.to_string().contains("at least 3"), "{error}");
    }
}
