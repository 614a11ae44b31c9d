//! The draft evolution: a population of per-card draft strategies bred
//! generation by generation from games between its members, as in
//! Kowalski and Miernik, "Evolutionary Approach to Collectible Card Game
//! Arena Deckbuilding using Active Genes" (IEEE CEC 2020).
//!
//! One generation of the active-genes scheme:
//! 1. `PrepareDraft`: one fresh draft (30 triples); the cards in it are the
//!    generation's *active genes*.
//! 2. `SelectParents`, P times: `ts` distinct random members play a
//!    tournament on that draft, `tg` games per pair and seat order (a round
//!    robin, the best two by wins become parents, ties to the earlier drawn;
//!    or a knock-out bracket when `ts` is a power of two, the two finalists
//!    become parents, a drawn match going to the earlier drawn).
//!    `CrossoverChildren` and `MutateChildren` make one child of each pair.
//! 3. `ScoreChildrenPopulation`: `sr` rounds; each round sorts the children
//!    by their win rate so far (stable, best first) and pairs them, first
//!    with last or neighbours, `sg` games per pair and seat order.
//! 4. `PopulationSelectMerge`, P times: a parent and a child are drawn by
//!    roulette wheel on fitness and merged into one member of the next
//!    population, whose fitness is 0.9 × the parent's + 0.1 × the child's.
//!
//! The representations: `priority` (one number in [0, 1] per card, the
//! highest of the three offered is picked; uniform crossover, each gene
//! redrawn with probability `pm`; the merge copies the child's active genes
//! into the parent), `priority-gauss` (the same with Gaussian mutation of
//! width `sigma`; the merge sets active genes to `wc`·child + (1−`wc`)·parent)
//! and `sequence` (a permutation of card ids, the card nearest the front is
//! picked; order crossover, swap mutation (each place swapped with a random
//! one with probability `pm`); the merge refills the parent's
//! slots that hold active cards in the child's order). `--merge all` merges
//! every gene instead of the active ones. The `baseline` scheme has no
//! active genes: every generation plays on one fixed set of drafts, and the
//! next population is the best `elites` parents and the best children
//! (whole genomes, no merge).
//!
//! Ours, not the write-up's: the sequence's default crossover is linear
//! order crossover, which fills from the front; the write-up's OX1
//! (`--sequence-crossover ox1`) fills from the second cut, wrapping around,
//! which moves the other parent's best-ranked cards behind its worst and
//! kept our sequence runs from learning at all.
//!
//! Choices that are ours where the write-up leaves them open: children start
//! with no games (so the first scoring round pairs them in the order they
//! were bred); a child's fitness is its win rate over all its scoring games;
//! an odd child out sits a round out; drafts come from our engine's draft
//! (a 60-card pool, as the LOCM 1.2 referee draws it); every game of a
//! generation's draft is played with a fresh deck shuffle.
//!
//! Determinism: generation `g` depends only on the run seed, `g` and the
//! population it starts from. Its random draws come from one [`GameRng`]
//! seeded from (seed, g) and drawn on one thread; its games run in parallel
//! with seeds derived from (seed, g, phase, game) and are gathered in game
//! order ([`crate::par`]); fitness sums run in member order. So a run gives
//! the same result on any number of threads, and a run resumed from the
//! checkpoint of generation `g` continues exactly as if never stopped.
//!
//! The loop is not [`crate::ga`]'s rank-and-replace engine, whose fitness is
//! a function of one genome: here fitness comes from games between members
//! and a generation merges instead of replacing. It uses that module's
//! operators.
use std::sync::Arc;

use super::checkpoint::{CHECKPOINT_FORMAT, Checkpoint, GenerationReport, genome_text};
use super::genes::{self, Genes, Member, drafters, random_genes};
use super::jobs::{GenerationGames, Job, play_jobs};
use super::scoring::score_children;
use super::seeds::{PHASE_RNG, generation_drafts, generation_seed, init_games_seed, init_seed, probe_seed};
use super::settings::{DraftEvolutionSettings, EvolveError, Init, Scheme, battle_bot, opponent_bot};
use super::tournament::select_parents;
use crate::game::locm::Config;
use crate::game::locm::plan::BattleBot;
use crate::game::locm::plan::draft::DraftBot;
use crate::par::Workers;
use crate::rng::{GameRng, derive_seed};

/// A draft evolution in progress. The population is kept in the order the
/// last generation made it.
#[derive(Clone, Debug)]
pub struct DraftEvolution {
    config: Config,
    settings: DraftEvolutionSettings,
    seed: u64,
    battle: BattleBot,
    population: Vec<Member>,
    report: GenerationReport,
}

impl DraftEvolution {
    /// Draws and scores the initial population (generation 0). `None` if
    /// the budget ran out first.
    pub fn start(
        config: &Config,
        settings: DraftEvolutionSettings,
        seed: u64,
        workers: &Workers,
    ) -> Result<Option<DraftEvolution>, EvolveError> {
        settings.validate()?;
        let n_cards = config.table().len();
        if !(3..=255).contains(&n_cards) {
            return Err(EvolveError::Cards(n_cards));
        }
        let battle = battle_bot(&settings.battle)?;
        let mut rng = GameRng::from_seed(init_seed(seed));
        let population: Vec<Member> = (0..settings.population)
            .map(|_| Member { fitness: 0.0, genes: random_genes(settings.representation, n_cards, &mut rng) })
            .collect();
        let mut evolution = DraftEvolution {
            config: config.clone(),
            settings,
            seed,
            battle,
            population,
            report: GenerationReport::empty(),
        };
        let games = match evolution.settings.init {
            Init::Zero => 0,
            Init::Pairs | Init::Against => match evolution.initial_fitness(&mut rng, workers)? {
                Some(games) => games,
                None => return Ok(None),
            },
        };
        Ok(evolution.finish_generation(0, games, workers).then_some(evolution))
    }

    /// Continues from a checkpoint (of this configuration's card list).
    pub fn resume(config: &Config, checkpoint: Checkpoint) -> Result<DraftEvolution, EvolveError> {
        checkpoint.check(config.table().len())?;
        let battle = battle_bot(&checkpoint.settings.battle)?;
        Ok(DraftEvolution {
            config: config.clone(),
            settings: checkpoint.settings,
            seed: checkpoint.seed,
            battle,
            population: checkpoint.population,
            report: checkpoint.report,
        })
    }

    /// The state after the last finished generation.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            format: CHECKPOINT_FORMAT.to_string(),
            seed: self.seed,
            settings: self.settings.clone(),
            report: self.report.clone(),
            population: self.population.clone(),
        }
    }

    pub fn settings(&self) -> &DraftEvolutionSettings {
        &self.settings
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Generations finished (0: only the initial population).
    pub fn generation(&self) -> u64 {
        self.report.generation
    }

    pub fn is_finished(&self) -> bool {
        self.generation() >= self.settings.generations
    }

    #[cfg(test)]
    pub(crate) fn population(&self) -> &[Member] {
        &self.population
    }

    /// The last finished generation's report.
    pub fn report(&self) -> &GenerationReport {
        &self.report
    }

    /// Records how long the last generation took (the caller timed it).
    pub fn set_seconds(&mut self, seconds: f64) {
        self.report.seconds = seconds;
    }

    /// The best member: the highest fitness, the first on ties.
    pub fn best(&self) -> &Member {
        &self.population[self.report.best]
    }

    /// The best member as a `genome:FILE` text: a comment naming the run,
    /// then one priority per line with its card id. Depends only on the
    /// seed, the settings and the generation.
    pub fn best_text(&self) -> String {
        genome_text(&self.best().genes, &self.settings, self.seed, self.generation(), self.best().fitness)
    }

    /// Breeds one generation. `None` (and nothing changed) if the budget ran
    /// out first.
    pub fn step(&mut self, workers: &Workers) -> Option<&GenerationReport> {
        let generation = self.generation() + 1;
        let gen_seed = generation_seed(self.seed, generation);
        let mut rng = GameRng::from_seed(derive_seed(gen_seed, PHASE_RNG));
        let drafts = generation_drafts(&self.config, &self.settings, self.seed, generation);
        let games = GenerationGames {
            config: &self.config,
            settings: &self.settings,
            battle: self.battle,
            drafts: &drafts,
            seed: gen_seed,
            workers: *workers,
        };
        let (parents, tournament_games) = select_parents(&games, &self.population, &mut rng)?;
        let mut children = genes::breed(&self.population, &parents, &self.settings, &mut rng);
        let scoring_games = score_children(&games, &mut children)?;
        let next = match self.settings.scheme {
            Scheme::ActiveGenes => genes::merge(&self.population, &children, &drafts[0], &self.settings, &mut rng),
            Scheme::Baseline => genes::replace(&self.population, children, self.settings.elites),
        };
        let previous = std::mem::replace(&mut self.population, next);
        let previous_report = self.report.clone();
        if self.finish_generation(generation, tournament_games + scoring_games, workers) {
            Some(&self.report)
        } else {
            self.population = previous;
            self.report = previous_report;
            None
        }
    }

    /// Sets the report of a generation just made (the probe included);
    /// false if the budget ran out during the probe.
    fn finish_generation(&mut self, generation: u64, games: u64, workers: &Workers) -> bool {
        let mut best = 0;
        let (mut min, mut max, mut sum) = (f64::INFINITY, f64::NEG_INFINITY, 0.0);
        for (index, member) in self.population.iter().enumerate() {
            if member.fitness > self.population[best].fitness {
                best = index;
            }
            min = min.min(member.fitness);
            max = max.max(member.fitness);
            sum += member.fitness;
        }
        let Some((probe_wins, probe_games)) = self.probe(&self.population[best].genes, workers) else {
            return false;
        };
        let total_games = if generation == 0 { games } else { self.report.total_games + games };
        self.report = GenerationReport {
            generation,
            fitness_min: min,
            fitness_mean: sum / self.population.len() as f64,
            fitness_max: max,
            best,
            probe_win_rate: probe_wins as f64 / probe_games.max(1) as f64,
            probe_games,
            games,
            total_games,
            seconds: 0.0,
        };
        true
    }

    /// The best member against ClosetAI on the fixed probe drafts.
    fn probe(&self, genes: &Genes, workers: &Workers) -> Option<(u64, u64)> {
        let pairs = u64::from(self.settings.probe_games).div_ceil(2);
        let drafters = [DraftBot::Genome(Arc::new(genes.to_genome())), DraftBot::ClosetAi];
        let jobs: Vec<Job> = (0..2 * pairs)
            .map(|index| {
                let seats = if index % 2 == 0 { [0, 1] } else { [1, 0] };
                Job { seats, draft: None, seed: probe_seed(self.seed, index / 2) }
            })
            .collect();
        let winners = play_jobs(&self.config, self.battle, &drafters, &[], &jobs, workers)?;
        let wins = jobs.iter().zip(&winners).filter(|(job, winner)| job.seats[usize::from(**winner)] == 0).count();
        Some((wins as u64, jobs.len() as u64))
    }

    /// `InitPopulation`'s fitness by games on fresh drafts; the number of
    /// games, or `None` if the budget ran out.
    fn initial_fitness(&mut self, rng: &mut GameRng, workers: &Workers) -> Result<Option<u64>, EvolveError> {
        let size = self.population.len();
        let mut drafters = drafters(&self.population);
        let against = self.settings.init == Init::Against;
        if against {
            drafters.push(opponent_bot(&self.settings.init_opponent)?);
        }
        let games = u64::from(self.settings.init_games);
        let stream = init_games_seed(self.seed);
        let mut jobs = Vec::with_capacity(size * games as usize);
        for member in 0..size {
            let opponent = if against {
                size
            } else {
                // Uniform among the others.
                let drawn = rng.below(size as u32 - 1) as usize;
                drawn + usize::from(drawn >= member)
            };
            for game in 0..games {
                let seed = derive_seed(stream, (member as u64) << 32 | game);
                let seats = if game % 2 == 0 { [member, opponent] } else { [opponent, member] };
                jobs.push(Job { seats: seats.map(|seat| seat as u32), draft: None, seed });
            }
        }
        let Some(winners) = play_jobs(&self.config, self.battle, &drafters, &[], &jobs, workers) else {
            return Ok(None);
        };
        // Member i's games are jobs i·games.., with it in seat 0 in the even ones.
        for (member, results) in winners.chunks(games as usize).enumerate() {
            let wins = results.iter().enumerate().filter(|&(game, &winner)| (game % 2) as u8 == winner).count();
            self.population[member].fitness = wins as f64 / games as f64;
        }
        Ok(Some(jobs.len() as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evolve::seeds::generation_draft;
    use crate::evolve::settings::tests::small;
    use crate::evolve::settings::{MergeScope, Pairing, Representation, SequenceCrossover, Tournament};
    use crate::game::locm::plan::genome::Genome;
    use crate::map::Level;
    use crate::plan::Budget;
    use crate::progress::Progress;

    fn run(settings: DraftEvolutionSettings, threads: usize) -> DraftEvolution {
        let (budget, progress) = (Budget::unlimited(), Progress::default());
        let workers = Workers { threads, budget: &budget, progress: &progress };
        let mut evolution = DraftEvolution::start(&Config::bundled(), settings, 9, &workers).unwrap().unwrap();
        while !evolution.is_finished() {
            evolution.step(&workers).unwrap();
        }
        evolution
    }

    #[test]
    fn every_variant_runs_the_same_on_one_thread_or_two_and_counts_its_games() {
        let variants = [
            small(),
            DraftEvolutionSettings { representation: Representation::Priority, ..small() },
            DraftEvolutionSettings { representation: Representation::Sequence, ..small() },
            DraftEvolutionSettings {
                representation: Representation::Sequence,
                sequence_crossover: SequenceCrossover::Ox1,
                ..small()
            },
            DraftEvolutionSettings { merge: MergeScope::All, ..small() },
            DraftEvolutionSettings { scheme: Scheme::Baseline, elites: 2, baseline_drafts: 3, ..small() },
            DraftEvolutionSettings { tournament: Tournament::Knockout, pairing: Pairing::FirstLast, ..small() },
            DraftEvolutionSettings { init: Init::Pairs, init_games: 2, ..small() },
            DraftEvolutionSettings { init: Init::Against, init_games: 2, ..small() },
        ];
        for settings in variants {
            let one = run(settings.clone(), 1);
            let two = run(settings.clone(), 2);
            assert_eq!(one.population(), two.population(), "{settings:?}");
            assert_eq!(one.best_text(), two.best_text());
            assert_eq!(one.generation(), 3);
            assert_eq!(one.report().games, settings.games_per_generation(), "{settings:?}");
            for member in one.population() {
                assert!((0.0..=1.0).contains(&member.fitness));
                let genome = member.genes.to_genome();
                assert_eq!(genome.priorities.len(), 160);
            }
            let parsed = Genome::parse(&one.best_text()).expect("best.txt loads as genome:FILE");
            assert_eq!(parsed.check_cards(160), Ok(()));
            assert_eq!(parsed, one.best().genes.to_genome(), "the text holds the exact priorities");
        }
    }

    #[test]
    fn a_resumed_run_ends_exactly_like_an_uninterrupted_one() {
        let whole = run(small(), 2);
        let (budget, progress) = (Budget::unlimited(), Progress::default());
        let workers = |threads| Workers { threads, budget: &budget, progress: &progress };
        let config = Config::bundled();
        let mut first = DraftEvolution::start(&config, small(), 9, &workers(1)).unwrap().unwrap();
        first.step(&workers(1)).unwrap();
        let json = serde_json::to_string(&first.checkpoint()).unwrap();
        let mut resumed = DraftEvolution::resume(&config, serde_json::from_str(&json).unwrap()).unwrap();
        while !resumed.is_finished() {
            resumed.step(&workers(2)).unwrap();
        }
        assert_eq!(resumed.population(), whole.population());
        assert_eq!(resumed.best_text(), whole.best_text());
    }

    #[test]
    fn the_merges_touch_only_active_genes() {
        let config = Config::bundled();
        let (budget, progress) = (Budget::unlimited(), Progress::default());
        let workers = Workers { threads: 1, budget: &budget, progress: &progress };
        for representation in [Representation::Priority, Representation::PriorityGauss, Representation::Sequence] {
            let settings = DraftEvolutionSettings { representation, ..small() };
            let evolution = DraftEvolution::start(&config, settings.clone(), 3, &workers).unwrap().unwrap();
            let draft = generation_draft(&config, &settings, 3, 1);
            let mut rng = GameRng::from_seed(1);
            let children: Vec<Member> =
                (0..6).map(|_| Member { fitness: 0.5, genes: random_genes(representation, 160, &mut rng) }).collect();
            let merged = genes::merge(evolution.population(), &children, &draft, &settings, &mut rng);
            let active: Vec<bool> = (0..=160u8).map(|card| draft.iter().flatten().any(|&c| c == card)).collect();
            for member in &merged {
                let (parent_like, child_like) = (
                    evolution.population().iter().any(|parent| agrees(&parent.genes, &member.genes, &active, false)),
                    children.iter().any(|child| agrees(&child.genes, &member.genes, &active, true)),
                );
                assert!(parent_like, "{representation:?}: inactive genes come from a parent");
                if representation != Representation::PriorityGauss {
                    assert!(child_like, "{representation:?}: active genes come from a child");
                }
            }
        }
    }

    /// Whether `b` agrees with `a` on the inactive genes (or, with
    /// `on_active`, on the order/values of the active ones).
    fn agrees(a: &Genes, b: &Genes, active: &[bool], on_active: bool) -> bool {
        match (a, b) {
            (Genes::Priorities(a), Genes::Priorities(b)) => {
                (0..a.len()).filter(|&card| active[card + 1] == on_active).all(|card| a[card] == b[card])
            }
            (Genes::Order(a), Genes::Order(b)) => {
                if on_active {
                    let keep = |order: &Vec<u8>| -> Vec<u8> {
                        order.iter().copied().filter(|&card| active[usize::from(card)]).collect()
                    };
                    keep(a) == keep(b)
                } else {
                    a.iter().zip(b).all(|(&x, &y)| active[usize::from(x)] || x == y)
                }
            }
            _ => false,
        }
    }
}
