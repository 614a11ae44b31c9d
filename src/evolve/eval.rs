//! The write-up's results step for a finished draft evolution: the final
//! winner W plays, for every generation i, against every member of
//! generation i's population on draft i (the draft that generation was bred
//! on), which gives W's win rate against that generation's best, its worst
//! and the population as a whole; and the learning curve, generation i's
//! best against ClosetAI and Icebox on fresh drafts (the same ones for every
//! generation, so that generations differ only by their drafter).
//!
//! Like the evolution, a row depends only on its inputs and seeds, never on
//! the thread count.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::genes::{Genes, Member, drafters};
use super::jobs::{Job, play_jobs};
use super::seeds::generation_draft;
use super::settings::DraftEvolutionSettings;
use crate::game::locm::Config;
use crate::game::locm::plan::BattleBot;
use crate::game::locm::plan::draft::DraftBot;
use crate::par::Workers;
use crate::rng::derive_seed;

/// How many games the results step plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalSettings {
    /// Games of W against each member, per seat order.
    pub games_per_member: u32,
    /// Games of each generation's best against each fixed drafter (both
    /// seats, on fresh drafts).
    pub curve_games: u32,
}

/// One generation's results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalRow {
    pub generation: u64,
    /// W's win rate against the generation's best member (highest fitness).
    pub vs_best: f64,
    /// ... against its worst member (lowest fitness).
    pub vs_worst: f64,
    /// ... against all its members together.
    pub vs_population: f64,
    /// The generation's best against ClosetAI and against Icebox.
    pub best_vs_closetai: f64,
    pub best_vs_icebox: f64,
    /// Games played for this row.
    pub(crate) games: u64,
}

/// The run a results step is about.
#[derive(Clone, Copy, Debug)]
pub struct RunInfo<'a> {
    pub config: &'a Config,
    pub settings: &'a DraftEvolutionSettings,
    pub seed: u64,
}

const STREAM_EVAL: u64 = 0x6576_616C;
const STREAM_CURVE: u64 = 0x0063_7572_7665;

/// The results of generation `generation` (from 1), whose population is
/// `population`, against the winner `winner`. `None` if the budget ran out.
pub fn evaluate_generation(
    run: RunInfo<'_>,
    generation: u64,
    population: &[Member],
    winner: &Genes,
    eval: EvalSettings,
    workers: &Workers,
) -> Option<EvalRow> {
    let battle = BattleBot::from_name(&run.settings.battle).unwrap_or(BattleBot::Greedy);
    let size = population.len();
    let mut drafters = drafters(population);
    let w = size as u32;
    drafters.push(DraftBot::Genome(Arc::new(winner.to_genome())));
    drafters.push(DraftBot::ClosetAi);
    drafters.push(DraftBot::Icebox);
    let draft = [generation_draft(run.config, run.settings, run.seed, generation)];
    let eval_seed = derive_seed(derive_seed(run.seed, STREAM_EVAL), generation);
    let per_member = 2 * eval.games_per_member as usize;
    let mut jobs = Vec::with_capacity(size * per_member);
    for member in 0..size as u32 {
        for game in 0..per_member {
            let seats = if game % 2 == 0 { [w, member] } else { [member, w] };
            jobs.push(Job { seats, draft: Some(0), seed: derive_seed(eval_seed, jobs.len() as u64) });
        }
    }
    let best = best_index(population, |a, b| a > b) as u32;
    let worst = best_index(population, |a, b| a < b);
    let curve_pairs = u64::from(eval.curve_games).div_ceil(2);
    let curve_seed = derive_seed(run.seed, STREAM_CURVE);
    let curve_start = jobs.len();
    for opponent in [w + 1, w + 2] {
        for game in 0..2 * curve_pairs {
            let seats = if game % 2 == 0 { [best, opponent] } else { [opponent, best] };
            jobs.push(Job { seats, draft: None, seed: derive_seed(curve_seed, game / 2) });
        }
    }
    let winners = play_jobs(run.config, battle, &drafters, &draft, &jobs, workers)?;
    // The share of `games` (ranges of jobs) won by drafter `who`.
    let won_by = |who: u32, range: std::ops::Range<usize>| {
        let wins = range.clone().filter(|&index| jobs[index].seats[usize::from(winners[index])] == who).count();
        wins as f64 / range.len().max(1) as f64
    };
    let member_rates: Vec<f64> =
        (0..size).map(|member| won_by(w, member * per_member..(member + 1) * per_member)).collect();
    let all_wins: usize = (0..curve_start).filter(|&index| jobs[index].seats[usize::from(winners[index])] == w).count();
    let curve_len = 2 * curve_pairs as usize;
    Some(EvalRow {
        generation,
        vs_best: member_rates[best as usize],
        vs_worst: member_rates[worst],
        vs_population: all_wins as f64 / curve_start.max(1) as f64,
        best_vs_closetai: won_by(best, curve_start..curve_start + curve_len),
        best_vs_icebox: won_by(best, curve_start + curve_len..curve_start + 2 * curve_len),
        games: jobs.len() as u64,
    })
}

/// The first member whose fitness beats every other by `better`.
fn best_index(population: &[Member], better: impl Fn(f64, f64) -> bool) -> usize {
    let mut chosen = 0;
    for (index, member) in population.iter().enumerate() {
        if better(member.fitness, population[chosen].fitness) {
            chosen = index;
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evolve::draft::DraftEvolution;

    #[test]
    fn a_row_does_not_depend_on_the_thread_count_and_a_drafter_beats_its_own_random_start() {
        let config = Config::bundled();
        let settings = DraftEvolutionSettings {
            population: 4,
            generations: 1,
            tournament_games: 1,
            scoring_games: 1,
            probe_games: 2,
            ..DraftEvolutionSettings::default()
        };
        let (budget, progress) = (crate::plan::Budget::unlimited(), crate::progress::Progress::default());
        let workers = |threads| Workers { threads, budget: &budget, progress: &progress };
        let mut evolution = DraftEvolution::start(&config, settings.clone(), 2, &workers(1)).unwrap().unwrap();
        evolution.step(&workers(1)).unwrap();
        let run = RunInfo { config: &config, settings: &settings, seed: 2 };
        let eval = EvalSettings { games_per_member: 3, curve_games: 10 };
        let population = evolution.population().to_vec();
        let row = |threads| {
            evaluate_generation(run, 1, &population, &Genes::Priorities(vec![0.5; 160]), eval, &workers(threads))
                .unwrap()
        };
        let one = row(1);
        assert_eq!(one, row(2));
        assert_eq!(one.games, 4 * 6 + 2 * 10);
        for rate in [one.vs_best, one.vs_worst, one.vs_population, one.best_vs_closetai, one.best_vs_icebox] {
            assert!((0.0..=1.0).contains(&rate));
        }
    }
}
