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

use std::fmt::Write as _;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::ga::{
    distinct_indices, happens, linear_order_crossover, order_crossover, roulette_wheel, standard_normal,
    uniform_crossover, unit_interval,
};
use crate::game::Game;
use crate::game::locm::draft::Draft;
use crate::game::locm::plan::draft::DraftBot;
use crate::game::locm::plan::genome::Genome;
use crate::game::locm::plan::seats::LocmBots;
use crate::game::locm::plan::{BattleBot, DraftName};
use crate::game::locm::{Config, LocmGame};
use crate::par::{Workers, map_indexed};
use crate::plan::Budget;
use crate::progress::Progress;
use crate::rng::{GameRng, derive_seed};

/// How a strategy is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Representation {
    /// A priority per card; uniform mutation; merge AG (copy).
    Priority,
    /// A priority per card; Gaussian mutation; merge AG-weights.
    PriorityGauss,
    /// A permutation of card ids; swap mutation; the refill merge.
    Sequence,
}

/// How two sequences are crossed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SequenceCrossover {
    /// Order crossover (OX1), as the write-up names it: the other parent's
    /// genes fill the free places from the second cut on, wrapping around.
    Ox1,
    /// Linear order crossover (ours, the default): they fill the free
    /// places from the front, so a ranking's head stays at the head.
    Linear,
}

/// Which genes a merge touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MergeScope {
    /// The generation's active genes (the cards of its draft).
    Active,
    /// Every gene.
    All,
}

/// How one population becomes the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    /// A fresh draft per generation, and the merge.
    ActiveGenes,
    /// A fixed set of drafts, and elitist replacement without merging.
    Baseline,
}

/// How parents are chosen from a tournament.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tournament {
    RoundRobin,
    /// A knock-out bracket; needs a power-of-two tournament size.
    Knockout,
}

/// How sorted children are paired in a scoring round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pairing {
    /// First with second, third with fourth, ...
    Neighbours,
    /// First with last, second with second to last, ...
    FirstLast,
}

/// The initial population's fitness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Init {
    /// Every member starts at 0 (the first roulette draws are uniform).
    Zero,
    /// Each member's win rate in `init_games` games against random other
    /// members on fresh drafts.
    Pairs,
    /// Each member's win rate in `init_games` games against the fixed
    /// drafter `init_opponent` on fresh drafts.
    Against,
}

/// Everything a run is made of, but the seed. Stored in every checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DraftEvolutionSettings {
    pub representation: Representation,
    /// The crossover of [`Representation::Sequence`].
    pub sequence_crossover: SequenceCrossover,
    pub merge: MergeScope,
    pub scheme: Scheme,
    /// P.
    pub population: usize,
    /// G.
    pub generations: u64,
    /// `ts`: members per tournament.
    pub tournament_size: usize,
    pub tournament: Tournament,
    /// `tg`: games per pair and seat order in a tournament.
    pub tournament_games: u32,
    /// `sr`: scoring rounds.
    pub scoring_rounds: u32,
    /// `sg`: games per pair and seat order in a scoring round.
    pub scoring_games: u32,
    pub pairing: Pairing,
    /// `pm`: the per-gene mutation probability.
    pub mutation: f64,
    /// `wc`: the child's weight in the AG-weights merge.
    pub child_weight: f64,
    /// The Gaussian mutation's standard deviation.
    pub sigma: f64,
    pub init: Init,
    /// Games per member for [`Init::Pairs`] and [`Init::Against`].
    pub init_games: u32,
    /// The fixed drafter of [`Init::Against`].
    pub init_opponent: String,
    /// The baseline's fixed drafts.
    pub baseline_drafts: u32,
    /// The baseline's parents kept unchanged.
    pub elites: usize,
    /// The battle bot of both seats.
    pub battle: String,
    /// Games of the best member against ClosetAI after every generation, on
    /// fixed fresh drafts (both seats each): the progress display's probe.
    pub probe_games: u32,
}

impl Default for DraftEvolutionSettings {
    /// The published settings, with AG-weights.
    fn default() -> DraftEvolutionSettings {
        DraftEvolutionSettings {
            representation: Representation::PriorityGauss,
            sequence_crossover: SequenceCrossover::Linear,
            merge: MergeScope::Active,
            scheme: Scheme::ActiveGenes,
            population: 100,
            generations: 100,
            tournament_size: 4,
            tournament: Tournament::RoundRobin,
            tournament_games: 5,
            scoring_rounds: 2,
            scoring_games: 20,
            pairing: Pairing::Neighbours,
            mutation: 0.05,
            child_weight: 0.75,
            sigma: 0.1,
            init: Init::Zero,
            init_games: 20,
            init_opponent: "closetai".to_string(),
            baseline_drafts: 10,
            elites: 10,
            battle: "greedy".to_string(),
            probe_games: 200,
        }
    }
}

/// Settings that cannot make a run, or a checkpoint that does not fit.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum EvolveError {
    #[error("--population {0}: the population must hold at least 2 members")]
    Population(usize),
    #[error("--ts {size}: a tournament needs between 2 and the population ({population}) members")]
    TournamentSize { size: usize, population: usize },
    #[error("--ts {0}: a knock-out bracket needs a power of two")]
    KnockoutSize(usize),
    #[error("{flag} {value}: expected {expected}")]
    Number { flag: &'static str, value: String, expected: &'static str },
    #[error("--elites {elites}: must be below the population ({population})")]
    Elites { elites: usize, population: usize },
    #[error("unknown {flag} {name:?}: {expected}")]
    Bot { flag: &'static str, name: String, expected: &'static str },
    #[error("the card list has {0} cards; a draft evolution needs between 3 and 255")]
    Cards(usize),
    #[error("checkpoint: {0}")]
    Checkpoint(String),
}

impl DraftEvolutionSettings {
    /// Checks every setting; the errors name the command-line flag.
    pub fn validate(&self) -> Result<(), EvolveError> {
        let number = |flag: &'static str, value: String, expected: &'static str| {
            Err(EvolveError::Number { flag, value, expected })
        };
        if self.population < 2 {
            return Err(EvolveError::Population(self.population));
        }
        if self.tournament_size < 2 || self.tournament_size > self.population {
            return Err(EvolveError::TournamentSize { size: self.tournament_size, population: self.population });
        }
        if self.tournament == Tournament::Knockout && !self.tournament_size.is_power_of_two() {
            return Err(EvolveError::KnockoutSize(self.tournament_size));
        }
        let probability = |value: f64| value.is_finite() && (0.0..=1.0).contains(&value);
        if !probability(self.mutation) {
            return number("--pm", self.mutation.to_string(), "a probability between 0 and 1");
        }
        if !probability(self.child_weight) {
            return number("--wc", self.child_weight.to_string(), "a weight between 0 and 1");
        }
        if !(self.sigma.is_finite() && self.sigma > 0.0) {
            return number("--sigma", self.sigma.to_string(), "a positive standard deviation");
        }
        for (flag, value) in [
            ("--tg", self.tournament_games),
            ("--sr", self.scoring_rounds),
            ("--sg", self.scoring_games),
            ("--init-games", self.init_games),
            ("--baseline-drafts", self.baseline_drafts),
        ] {
            if value == 0 {
                return number(flag, value.to_string(), "at least 1");
            }
        }
        if self.generations == 0 {
            return number("--generations", "0".to_string(), "at least 1");
        }
        if self.scheme == Scheme::Baseline && self.elites >= self.population {
            return Err(EvolveError::Elites { elites: self.elites, population: self.population });
        }
        battle_bot(&self.battle)?;
        if self.init == Init::Against {
            opponent_bot(&self.init_opponent)?;
        }
        Ok(())
    }

    /// Evolution games per generation (the probe not counted).
    pub fn games_per_generation(&self) -> u64 {
        let population = self.population as u64;
        let size = self.tournament_size as u64;
        let matches = match self.tournament {
            Tournament::RoundRobin => size * (size - 1) / 2,
            Tournament::Knockout => size - 2,
        };
        let tournaments = population * matches * 2 * u64::from(self.tournament_games);
        let scoring = u64::from(self.scoring_rounds) * (population / 2) * 2 * u64::from(self.scoring_games);
        tournaments + scoring
    }

    /// The command that starts this run, every setting spelled out.
    pub fn command_line(&self, seed: u64) -> String {
        let mut line = format!(
            "tickbot evolve draft --seed {seed} --representation {} --merge {} --scheme {} --population {} \
             --generations {} --ts {} --tournament {} --tg {} --sr {} --sg {} --pairing {} --pm {} --wc {} \
             --sigma {} --init {} --battle {} --probe-games {}",
            kebab_name(&self.representation),
            kebab_name(&self.merge),
            kebab_name(&self.scheme),
            self.population,
            self.generations,
            self.tournament_size,
            kebab_name(&self.tournament),
            self.tournament_games,
            self.scoring_rounds,
            self.scoring_games,
            kebab_name(&self.pairing),
            self.mutation,
            self.child_weight,
            self.sigma,
            kebab_name(&self.init),
            self.battle,
            self.probe_games,
        );
        if self.representation == Representation::Sequence {
            let _ = write!(line, " --sequence-crossover {}", kebab_name(&self.sequence_crossover));
        }
        if self.init != Init::Zero {
            let _ = write!(line, " --init-games {}", self.init_games);
        }
        if self.init == Init::Against {
            let _ = write!(line, " --init-opponent {}", self.init_opponent);
        }
        if self.scheme == Scheme::Baseline {
            let _ = write!(line, " --baseline-drafts {} --elites {}", self.baseline_drafts, self.elites);
        }
        line
    }
}

/// The kebab-case name a settings enum has on the command line and in
/// checkpoints (its serde name).
fn kebab_name(value: &impl Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        _ => String::new(),
    }
}

fn battle_bot(name: &str) -> Result<BattleBot, EvolveError> {
    BattleBot::from_name(name).ok_or_else(|| EvolveError::Bot {
        flag: "--battle",
        name: name.to_string(),
        expected: "use random, pass, max-attack or greedy",
    })
}

fn opponent_bot(name: &str) -> Result<DraftBot, EvolveError> {
    DraftName::from_name(name).map(DraftName::bot).ok_or_else(|| EvolveError::Bot {
        flag: "--init-opponent",
        name: name.to_string(),
        expected: "use a built-in drafter: random, max-attack, closetai, icebox, coac, chad or evolved",
    })
}

/// A member's genes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Genes {
    /// Indexed by card id − 1; the highest offered is picked.
    Priorities(Vec<f64>),
    /// Card ids, best first.
    Order(Vec<u8>),
}

impl Genes {
    /// The strategy as a per-card priority vector (what `genome:FILE`
    /// loads): an order's card at place k of n gets priority n − k.
    pub fn to_genome(&self) -> Genome {
        match self {
            Genes::Priorities(priorities) => Genome { priorities: priorities.clone() },
            Genes::Order(order) => {
                let n = order.len();
                let mut priorities = vec![0.0; n];
                for (place, &card) in order.iter().enumerate() {
                    priorities[usize::from(card) - 1] = (n - place) as f64;
                }
                Genome { priorities }
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            Genes::Priorities(genes) => genes.len(),
            Genes::Order(genes) => genes.len(),
        }
    }
}

/// A member of the population.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Member {
    pub fitness: f64,
    pub genes: Genes,
}

/// What one generation did. The figures are the same on every run of the
/// same seed; `seconds` is filled in by whoever timed it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationReport {
    /// 0: the initial population.
    pub generation: u64,
    pub fitness_min: f64,
    pub fitness_mean: f64,
    pub fitness_max: f64,
    /// The index of the best member (the highest fitness, the first on ties).
    pub best: usize,
    /// The best member's win rate against ClosetAI on the probe drafts.
    pub probe_win_rate: f64,
    pub probe_games: u64,
    /// Evolution games this generation (the probe not counted).
    pub games: u64,
    /// Evolution games since the run started.
    pub total_games: u64,
    /// Wall-clock seconds the generation took, probe included.
    pub seconds: f64,
}

/// One generation's state: what a run resumes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Always [`CHECKPOINT_FORMAT`].
    pub format: String,
    pub seed: u64,
    pub settings: DraftEvolutionSettings,
    pub report: GenerationReport,
    pub population: Vec<Member>,
}

/// The `format` of a checkpoint this build reads and writes.
pub const CHECKPOINT_FORMAT: &str = "tickbot draft evolution 1";

/// One game to play: who sits where, on which draft, with which seed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Job {
    /// Indices into the drafter table of the batch.
    pub seats: [u32; 2],
    /// An index into the batch's drafts, or `None` for the fresh draft of
    /// `seed` (as `match locm` plays it).
    pub draft: Option<u32>,
    pub seed: u64,
}

/// Plays a batch of games over threads; the winners' seats in job order,
/// or `None` if the budget ran out first.
pub(crate) fn play_jobs(
    config: &Config,
    battle: BattleBot,
    drafters: &[DraftBot],
    drafts: &[Draft],
    jobs: &[Job],
    workers: &Workers,
) -> Option<Vec<u8>> {
    let make = || LocmBots::new([DraftBot::Random, DraftBot::Random], [battle, battle]);
    let work = |bots: &mut LocmBots, index: u64| {
        let job = jobs[index as usize];
        bots.draft = job.seats.map(|seat| drafters[seat as usize].clone());
        let mut game = match job.draft {
            Some(draft) => LocmGame::on_draft(config, drafts[draft as usize], job.seed),
            None => LocmGame::new(config, job.seed),
        };
        loop {
            if let Some(winner) = game.winner() {
                return winner;
            }
            let (action, _) = bots.decide(&game);
            if let Err(error) = game.step(action) {
                panic!("a bot chose an illegal action: {error}");
            }
        }
    };
    let gathered = map_indexed(jobs.len() as u64, workers, make, work);
    if gathered.stopped_early() {
        return None;
    }
    Some(gathered.results.into_iter().map(|(_, winner)| winner).collect())
}

/// Labels of the run seed's independent streams.
const STREAM_GENERATION: u64 = 0x6765_6E65_7261_7469;
const STREAM_INIT: u64 = 0x696E_6974;
const STREAM_PROBE: u64 = 0x0070_726F_6265;
const STREAM_BASELINE_DRAFTS: u64 = 0x6261_7365_6C69_6E65;
/// Sub-streams of a generation's seed.
const PHASE_RNG: u64 = 0;
const PHASE_DRAFT: u64 = 1;
const PHASE_TOURNAMENT: u64 = 2;
const PHASE_SCORING: u64 = 100;

/// A generation's seed.
fn generation_seed(seed: u64, generation: u64) -> u64 {
    derive_seed(derive_seed(seed, STREAM_GENERATION), generation)
}

/// The draft generation `generation` (from 1) plays on: its active genes
/// under the active-genes scheme, one of the fixed drafts (the first game's)
/// under the baseline. The results step plays on it again.
pub fn generation_draft(config: &Config, settings: &DraftEvolutionSettings, seed: u64, generation: u64) -> Draft {
    match settings.scheme {
        Scheme::ActiveGenes => {
            LocmGame::draw_draft(config, derive_seed(generation_seed(seed, generation), PHASE_DRAFT))
        }
        Scheme::Baseline => baseline_drafts(config, settings, seed)[0],
    }
}

fn baseline_drafts(config: &Config, settings: &DraftEvolutionSettings, seed: u64) -> Vec<Draft> {
    let stream = derive_seed(seed, STREAM_BASELINE_DRAFTS);
    (0..u64::from(settings.baseline_drafts)).map(|k| LocmGame::draw_draft(config, derive_seed(stream, k))).collect()
}

/// The probe's seeds: fixed fresh drafts, the same for every generation.
fn probe_seed(seed: u64, pair: u64) -> u64 {
    derive_seed(derive_seed(seed, STREAM_PROBE), pair)
}

/// A draft evolution in progress. The population is kept in the order the
/// last generation made it.
#[derive(Clone, Debug)]
pub struct DraftEvolution {
    config: Config,
    settings: DraftEvolutionSettings,
    seed: u64,
    threads: usize,
    battle: BattleBot,
    n_cards: usize,
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
        threads: usize,
        budget: &Budget,
        progress: &Progress,
    ) -> Result<Option<DraftEvolution>, EvolveError> {
        settings.validate()?;
        let n_cards = config.table().len();
        if !(3..=255).contains(&n_cards) {
            return Err(EvolveError::Cards(n_cards));
        }
        let battle = battle_bot(&settings.battle)?;
        let mut rng = GameRng::from_seed(derive_seed(seed, STREAM_INIT));
        let population: Vec<Member> = (0..settings.population)
            .map(|_| Member { fitness: 0.0, genes: random_genes(settings.representation, n_cards, &mut rng) })
            .collect();
        let mut evolution = DraftEvolution {
            config: config.clone(),
            settings,
            seed,
            threads,
            battle,
            n_cards,
            population,
            report: empty_report(),
        };
        let games = match evolution.settings.init {
            Init::Zero => 0,
            Init::Pairs | Init::Against => match evolution.initial_fitness(&mut rng, budget, progress)? {
                Some(games) => games,
                None => return Ok(None),
            },
        };
        Ok(evolution.finish_generation(0, games, budget, progress).then_some(evolution))
    }

    /// Continues from a checkpoint (of this configuration's card list).
    pub fn resume(config: &Config, checkpoint: Checkpoint, threads: usize) -> Result<DraftEvolution, EvolveError> {
        let bad = |message: String| Err(EvolveError::Checkpoint(message));
        if checkpoint.format != CHECKPOINT_FORMAT {
            return bad(format!("format {:?}; expected {CHECKPOINT_FORMAT:?}", checkpoint.format));
        }
        checkpoint.settings.validate()?;
        let n_cards = config.table().len();
        if checkpoint.population.len() != checkpoint.settings.population {
            return bad(format!(
                "{} members; the settings say {}",
                checkpoint.population.len(),
                checkpoint.settings.population
            ));
        }
        for (index, member) in checkpoint.population.iter().enumerate() {
            let fits = match (&member.genes, checkpoint.settings.representation) {
                (Genes::Priorities(genes), Representation::Priority | Representation::PriorityGauss) => {
                    genes.iter().all(|gene| gene.is_finite())
                }
                (Genes::Order(order), Representation::Sequence) => is_permutation(order, n_cards),
                _ => false,
            };
            if !fits || member.genes.len() != n_cards || !member.fitness.is_finite() {
                return bad(format!("member {index} is not a {n_cards}-card genome of this representation"));
            }
        }
        let battle = battle_bot(&checkpoint.settings.battle)?;
        Ok(DraftEvolution {
            config: config.clone(),
            settings: checkpoint.settings,
            seed: checkpoint.seed,
            threads,
            battle,
            n_cards,
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

    pub fn population(&self) -> &[Member] {
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
    pub fn step(&mut self, budget: &Budget, progress: &Progress) -> Option<&GenerationReport> {
        let generation = self.generation() + 1;
        let gen_seed = generation_seed(self.seed, generation);
        let mut rng = GameRng::from_seed(derive_seed(gen_seed, PHASE_RNG));
        let drafts = match self.settings.scheme {
            Scheme::ActiveGenes => vec![generation_draft(&self.config, &self.settings, self.seed, generation)],
            Scheme::Baseline => baseline_drafts(&self.config, &self.settings, self.seed),
        };
        let (parents, tournament_games) = self.select_parents(&mut rng, gen_seed, &drafts, budget, progress)?;
        let mut children = self.breed(&parents, &mut rng);
        let scoring_games = self.score_children(&mut children, gen_seed, &drafts, budget, progress)?;
        let next = match self.settings.scheme {
            Scheme::ActiveGenes => self.merge(&children, &drafts[0], &mut rng),
            Scheme::Baseline => self.replace(children),
        };
        let previous = std::mem::replace(&mut self.population, next);
        let previous_report = self.report.clone();
        if self.finish_generation(generation, tournament_games + scoring_games, budget, progress) {
            Some(&self.report)
        } else {
            self.population = previous;
            self.report = previous_report;
            None
        }
    }

    /// Sets the report of a generation just made (the probe included);
    /// false if the budget ran out during the probe.
    fn finish_generation(&mut self, generation: u64, games: u64, budget: &Budget, progress: &Progress) -> bool {
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
        let Some((probe_wins, probe_games)) = self.probe(&self.population[best].genes, budget, progress) else {
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
    fn probe(&self, genes: &Genes, budget: &Budget, progress: &Progress) -> Option<(u64, u64)> {
        let pairs = u64::from(self.settings.probe_games).div_ceil(2);
        let drafters = [DraftBot::Genome(Arc::new(genes.to_genome())), DraftBot::ClosetAi];
        let jobs: Vec<Job> = (0..2 * pairs)
            .map(|index| {
                let seats = if index % 2 == 0 { [0, 1] } else { [1, 0] };
                Job { seats, draft: None, seed: probe_seed(self.seed, index / 2) }
            })
            .collect();
        let winners = play_jobs(
            &self.config,
            self.battle,
            &drafters,
            &[],
            &jobs,
            &Workers { threads: self.threads, budget, progress },
        )?;
        let wins = jobs.iter().zip(&winners).filter(|(job, winner)| job.seats[usize::from(**winner)] == 0).count();
        Some((wins as u64, jobs.len() as u64))
    }

    /// `InitPopulation`'s fitness by games on fresh drafts; the number of
    /// games, or `None` if the budget ran out.
    fn initial_fitness(
        &mut self,
        rng: &mut GameRng,
        budget: &Budget,
        progress: &Progress,
    ) -> Result<Option<u64>, EvolveError> {
        let size = self.population.len();
        let mut drafters = self.drafters();
        let against = self.settings.init == Init::Against;
        if against {
            drafters.push(opponent_bot(&self.settings.init_opponent)?);
        }
        let games = u64::from(self.settings.init_games);
        let stream = derive_seed(self.seed, STREAM_INIT + 1);
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
        let Some(winners) = play_jobs(
            &self.config,
            self.battle,
            &drafters,
            &[],
            &jobs,
            &Workers { threads: self.threads, budget, progress },
        ) else {
            return Ok(None);
        };
        // Member i's games are jobs i·games.., with it in seat 0 in the even ones.
        for (member, results) in winners.chunks(games as usize).enumerate() {
            let wins = results.iter().enumerate().filter(|&(game, &winner)| (game % 2) as u8 == winner).count();
            self.population[member].fitness = wins as f64 / games as f64;
        }
        Ok(Some(jobs.len() as u64))
    }

    /// The population as drafters, in member order.
    fn drafters(&self) -> Vec<DraftBot> {
        self.population.iter().map(|member| DraftBot::Genome(Arc::new(member.genes.to_genome()))).collect()
    }

    /// `SelectParents`, P times: the two parents of every child, and the
    /// games played.
    fn select_parents(
        &self,
        rng: &mut GameRng,
        gen_seed: u64,
        drafts: &[Draft],
        budget: &Budget,
        progress: &Progress,
    ) -> Option<(Vec<[usize; 2]>, u64)> {
        let size = self.population.len();
        let ts = self.settings.tournament_size;
        let (mut scratch, mut drawn) = (Vec::new(), Vec::new());
        let mut entrants: Vec<Vec<u32>> = Vec::with_capacity(size);
        for _ in 0..size {
            distinct_indices(size, ts, rng, &mut scratch, &mut drawn);
            entrants.push(drawn.clone());
        }
        let drafters = self.drafters();
        let tg = self.settings.tournament_games;
        let mut played = 0;
        // One round of every tournament's matches at once: each side's wins
        // per match, and the games counted.
        let mut play_round = |matches: &[(usize, [u32; 2])], phase: u64| {
            let pairs = matches_only(matches);
            let wins = self.play_matches(&pairs, tg, &drafters, drafts, gen_seed, phase, budget, progress)?;
            played += wins.len() as u64 * 2 * u64::from(tg);
            Some(wins)
        };
        match self.settings.tournament {
            Tournament::RoundRobin => {
                let pairs: Vec<(usize, usize)> = (0..ts).flat_map(|x| (x + 1..ts).map(move |y| (x, y))).collect();
                let matches: Vec<(usize, [u32; 2])> = entrants
                    .iter()
                    .enumerate()
                    .flat_map(|(tournament, members)| {
                        pairs.iter().map(move |&(x, y)| (tournament, [members[x], members[y]]))
                    })
                    .collect();
                let wins = play_round(&matches, PHASE_TOURNAMENT)?;
                let mut points = vec![vec![0u32; ts]; size];
                for ((tournament, _), (&(x, y), &(wins_x, wins_y))) in
                    matches.iter().zip(pairs.iter().cycle().zip(&wins))
                {
                    points[*tournament][x] += wins_x;
                    points[*tournament][y] += wins_y;
                }
                let parents = entrants
                    .iter()
                    .zip(&points)
                    .map(|(members, points)| {
                        let mut order: Vec<usize> = (0..ts).collect();
                        order.sort_by_key(|&place| std::cmp::Reverse(points[place]));
                        [members[order[0]] as usize, members[order[1]] as usize]
                    })
                    .collect();
                Some((parents, played))
            }
            Tournament::Knockout => {
                let mut alive = entrants;
                let mut phase = PHASE_TOURNAMENT;
                while alive[0].len() > 2 {
                    let matches: Vec<(usize, [u32; 2])> = alive
                        .iter()
                        .enumerate()
                        .flat_map(|(tournament, members)| {
                            members.chunks(2).map(move |pair| (tournament, [pair[0], pair[1]]))
                        })
                        .collect();
                    let wins = play_round(&matches, phase)?;
                    for members in &mut alive {
                        members.clear();
                    }
                    for (&(tournament, pair), &(wins_first, wins_second)) in matches.iter().zip(&wins) {
                        alive[tournament].push(if wins_second > wins_first { pair[1] } else { pair[0] });
                    }
                    phase += 1;
                }
                Some((alive.iter().map(|members| [members[0] as usize, members[1] as usize]).collect(), played))
            }
        }
    }

    /// Plays every pair `games` times in each seat order; each side's wins
    /// per pair.
    #[allow(clippy::too_many_arguments)]
    fn play_matches(
        &self,
        pairs: &[[u32; 2]],
        games: u32,
        drafters: &[DraftBot],
        drafts: &[Draft],
        gen_seed: u64,
        phase: u64,
        budget: &Budget,
        progress: &Progress,
    ) -> Option<Vec<(u32, u32)>> {
        let per_pair = 2 * games as usize;
        let phase_seed = derive_seed(gen_seed, phase);
        let jobs: Vec<Job> = pairs
            .iter()
            .flat_map(|&pair| (0..per_pair).map(move |game| (pair, game)))
            .enumerate()
            .map(|(index, (pair, game))| Job {
                seats: if game % 2 == 0 { pair } else { [pair[1], pair[0]] },
                draft: Some((index % drafts.len()) as u32),
                seed: derive_seed(phase_seed, index as u64),
            })
            .collect();
        let winners = play_jobs(
            &self.config,
            self.battle,
            drafters,
            drafts,
            &jobs,
            &Workers { threads: self.threads, budget, progress },
        )?;
        Some(
            winners
                .chunks(per_pair)
                .map(|results| {
                    let first =
                        results.iter().enumerate().filter(|&(game, &winner)| (game % 2) as u8 == winner).count();
                    (first as u32, (per_pair - first) as u32)
                })
                .collect(),
        )
    }

    /// `CrossoverChildren` and `MutateChildren`: one child per pair of parents.
    fn breed(&self, parents: &[[usize; 2]], rng: &mut GameRng) -> Vec<Member> {
        let mut taken = Vec::new();
        parents
            .iter()
            .map(|&[a, b]| {
                let genes = match (&self.population[a].genes, &self.population[b].genes) {
                    (Genes::Priorities(a), Genes::Priorities(b)) => {
                        let mut child = Vec::with_capacity(a.len());
                        uniform_crossover(a, b, rng, &mut child);
                        let gauss = self.settings.representation == Representation::PriorityGauss;
                        for gene in &mut child {
                            if happens(self.settings.mutation, rng) {
                                *gene = if gauss {
                                    (*gene + self.settings.sigma * standard_normal(rng)).clamp(0.0, 1.0)
                                } else {
                                    unit_interval(rng)
                                };
                            }
                        }
                        Genes::Priorities(child)
                    }
                    (Genes::Order(a), Genes::Order(b)) => {
                        let mut child = Vec::with_capacity(a.len());
                        match self.settings.sequence_crossover {
                            SequenceCrossover::Ox1 => order_crossover(a, b, rng, &mut taken, &mut child),
                            SequenceCrossover::Linear => linear_order_crossover(a, b, rng, &mut taken, &mut child),
                        }
                        for place in 0..child.len() {
                            if happens(self.settings.mutation, rng) {
                                let other = rng.below(child.len() as u32) as usize;
                                child.swap(place, other);
                            }
                        }
                        Genes::Order(child)
                    }
                    _ => unreachable!("a population holds one representation (checked on resume)"),
                };
                Member { fitness: 0.0, genes }
            })
            .collect()
    }

    /// `ScoreChildrenPopulation`: sets each child's fitness to its win rate
    /// over the scoring rounds; the games played.
    fn score_children(
        &self,
        children: &mut [Member],
        gen_seed: u64,
        drafts: &[Draft],
        budget: &Budget,
        progress: &Progress,
    ) -> Option<u64> {
        let size = children.len();
        let drafters: Vec<DraftBot> =
            children.iter().map(|child| DraftBot::Genome(Arc::new(child.genes.to_genome()))).collect();
        let (mut wins, mut games) = (vec![0u32; size], vec![0u32; size]);
        let rate = |wins: u32, games: u32| if games == 0 { 0.0 } else { f64::from(wins) / f64::from(games) };
        let mut played = 0;
        for round in 0..u64::from(self.settings.scoring_rounds) {
            let mut order: Vec<usize> = (0..size).collect();
            // Integer cross-multiplication: the order never depends on rounding.
            order.sort_by(|&x, &y| {
                let (left, right) =
                    (u64::from(wins[y]) * u64::from(games[x].max(1)), u64::from(wins[x]) * u64::from(games[y].max(1)));
                left.cmp(&right)
            });
            let pairs: Vec<[u32; 2]> = match self.settings.pairing {
                Pairing::Neighbours => order.chunks_exact(2).map(|pair| [pair[0] as u32, pair[1] as u32]).collect(),
                Pairing::FirstLast => {
                    (0..size / 2).map(|place| [order[place] as u32, order[size - 1 - place] as u32]).collect()
                }
            };
            let results = self.play_matches(
                &pairs,
                self.settings.scoring_games,
                &drafters,
                drafts,
                gen_seed,
                PHASE_SCORING + round,
                budget,
                progress,
            )?;
            for (pair, (wins_first, wins_second)) in pairs.iter().zip(results) {
                let per_pair = wins_first + wins_second;
                wins[pair[0] as usize] += wins_first;
                wins[pair[1] as usize] += wins_second;
                games[pair[0] as usize] += per_pair;
                games[pair[1] as usize] += per_pair;
                played += u64::from(per_pair);
            }
        }
        for (child, (&wins, &games)) in children.iter_mut().zip(wins.iter().zip(&games)) {
            child.fitness = rate(wins, games);
        }
        Some(played)
    }

    /// `PopulationSelectMerge`: P members, each a roulette-drawn parent
    /// merged with a roulette-drawn child.
    fn merge(&self, children: &[Member], draft: &Draft, rng: &mut GameRng) -> Vec<Member> {
        let mut active = vec![self.settings.merge == MergeScope::All; self.n_cards + 1];
        for &card in draft.iter().flatten() {
            active[usize::from(card)] = true;
        }
        let parent_fitness: Vec<f64> = self.population.iter().map(|member| member.fitness).collect();
        let child_fitness: Vec<f64> = children.iter().map(|member| member.fitness).collect();
        let weight = self.settings.child_weight;
        let mut refill = Vec::new();
        (0..self.population.len())
            .map(|_| {
                let parent = &self.population[roulette_wheel(&parent_fitness, rng)];
                let child = &children[roulette_wheel(&child_fitness, rng)];
                let genes = match (&parent.genes, &child.genes) {
                    (Genes::Priorities(parent_genes), Genes::Priorities(child_genes)) => {
                        let mut genes = parent_genes.clone();
                        for (card, gene) in genes.iter_mut().enumerate() {
                            if active[card + 1] {
                                *gene = match self.settings.representation {
                                    Representation::PriorityGauss => {
                                        weight * child_genes[card] + (1.0 - weight) * *gene
                                    }
                                    _ => child_genes[card],
                                };
                            }
                        }
                        Genes::Priorities(genes)
                    }
                    (Genes::Order(parent_order), Genes::Order(child_order)) => {
                        refill.clear();
                        refill.extend(child_order.iter().copied().filter(|&card| active[usize::from(card)]));
                        let mut next_refill = refill.iter();
                        let genes = parent_order
                            .iter()
                            .map(|&card| {
                                if active[usize::from(card)] {
                                    *next_refill.next().expect("as many active cards in both orders")
                                } else {
                                    card
                                }
                            })
                            .collect();
                        Genes::Order(genes)
                    }
                    _ => unreachable!("a population holds one representation (checked on resume)"),
                };
                Member { fitness: 0.9 * parent.fitness + 0.1 * child.fitness, genes }
            })
            .collect()
    }

    /// The baseline's replacement: the best `elites` parents, then the best
    /// children (stable sorts: ties keep member order).
    fn replace(&self, mut children: Vec<Member>) -> Vec<Member> {
        let by_fitness = |a: &Member, b: &Member| b.fitness.total_cmp(&a.fitness);
        let mut parents = self.population.clone();
        parents.sort_by(by_fitness);
        children.sort_by(by_fitness);
        parents.truncate(self.settings.elites);
        parents.extend(children.into_iter().take(self.population.len() - self.settings.elites));
        parents
    }
}

fn matches_only(matches: &[(usize, [u32; 2])]) -> Vec<[u32; 2]> {
    matches.iter().map(|&(_, pair)| pair).collect()
}

fn empty_report() -> GenerationReport {
    GenerationReport {
        generation: 0,
        fitness_min: 0.0,
        fitness_mean: 0.0,
        fitness_max: 0.0,
        best: 0,
        probe_win_rate: 0.0,
        probe_games: 0,
        games: 0,
        total_games: 0,
        seconds: 0.0,
    }
}

fn random_genes(representation: Representation, n_cards: usize, rng: &mut GameRng) -> Genes {
    match representation {
        Representation::Priority | Representation::PriorityGauss => {
            Genes::Priorities((0..n_cards).map(|_| unit_interval(rng)).collect())
        }
        Representation::Sequence => {
            let mut order: Vec<u8> = (1..=n_cards as u8).collect();
            rng.shuffle(&mut order);
            Genes::Order(order)
        }
    }
}

fn is_permutation(order: &[u8], n_cards: usize) -> bool {
    let mut seen = vec![false; n_cards + 1];
    order.len() == n_cards
        && order.iter().all(|&card| {
            let fresh = (1..=n_cards).contains(&usize::from(card)) && !seen[usize::from(card)];
            if fresh {
                seen[usize::from(card)] = true;
            }
            fresh
        })
}

/// A genome as a `genome:FILE` text: comments naming the run that made it,
/// then one priority per line (shortest exact decimal) with its card id.
pub fn genome_text(
    genes: &Genes,
    settings: &DraftEvolutionSettings,
    seed: u64,
    generation: u64,
    fitness: f64,
) -> String {
    let genome = genes.to_genome();
    let mut text = String::with_capacity(32 * genome.priorities.len());
    text.push_str("# A LOCM draft strategy: one priority per card id, the highest of the three offered is picked.\n");
    let _ = writeln!(text, "# Made by: {}", settings.command_line(seed));
    let _ = writeln!(text, "# The best member after generation {generation} (fitness {fitness}).");
    for (index, priority) in genome.priorities.iter().enumerate() {
        let _ = writeln!(text, "{priority} # {}", index + 1);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::Level;

    fn small() -> DraftEvolutionSettings {
        DraftEvolutionSettings {
            population: 6,
            generations: 3,
            tournament_games: 1,
            scoring_games: 2,
            probe_games: 4,
            ..DraftEvolutionSettings::default()
        }
    }

    fn run(settings: DraftEvolutionSettings, threads: usize) -> DraftEvolution {
        let (budget, progress) = (Budget::unlimited(), Progress::default());
        let mut evolution =
            DraftEvolution::start(&Config::bundled(), settings, 9, threads, &budget, &progress).unwrap().unwrap();
        while !evolution.is_finished() {
            evolution.step(&budget, &progress).unwrap();
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
        let config = Config::bundled();
        let mut first = DraftEvolution::start(&config, small(), 9, 1, &budget, &progress).unwrap().unwrap();
        first.step(&budget, &progress).unwrap();
        let json = serde_json::to_string(&first.checkpoint()).unwrap();
        let mut resumed = DraftEvolution::resume(&config, serde_json::from_str(&json).unwrap(), 2).unwrap();
        while !resumed.is_finished() {
            resumed.step(&budget, &progress).unwrap();
        }
        assert_eq!(resumed.population(), whole.population());
        assert_eq!(resumed.best_text(), whole.best_text());
    }

    #[test]
    fn the_merges_touch_only_active_genes() {
        let config = Config::bundled();
        let (budget, progress) = (Budget::unlimited(), Progress::default());
        for representation in [Representation::Priority, Representation::PriorityGauss, Representation::Sequence] {
            let settings = DraftEvolutionSettings { representation, ..small() };
            let evolution =
                DraftEvolution::start(&config, settings.clone(), 3, 1, &budget, &progress).unwrap().unwrap();
            let draft = generation_draft(&config, &settings, 3, 1);
            let mut rng = GameRng::from_seed(1);
            let children: Vec<Member> =
                (0..6).map(|_| Member { fitness: 0.5, genes: random_genes(representation, 160, &mut rng) }).collect();
            let merged = evolution.merge(&children, &draft, &mut rng);
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

    #[test]
    fn the_sequence_merge_refills_active_slots_in_the_childs_order() {
        // [23,12,4,5,78,3,125] merged with a child ordering the active cards
        // 78, 4, 12 gives [23,78,4,5,12,3,125].
        let settings = DraftEvolutionSettings { representation: Representation::Sequence, population: 2, ..small() };
        let mut parent: Vec<u8> = vec![23, 12, 4, 5, 78, 3, 125];
        parent.extend((1..=160u8).filter(|card| ![23, 12, 4, 5, 78, 3, 125].contains(card)));
        let mut child: Vec<u8> = vec![78, 4, 12];
        child.extend((1..=160u8).filter(|card| ![78, 4, 12].contains(card)));
        let mut draft = [[1u8, 2, 3]; 30];
        draft[0] = [78, 4, 12];
        for triple in draft.iter_mut().skip(1) {
            *triple = [78, 4, 12];
        }
        let evolution = DraftEvolution {
            config: Config::bundled(),
            settings,
            seed: 0,
            threads: 1,
            battle: BattleBot::Greedy,
            n_cards: 160,
            population: vec![Member { fitness: 1.0, genes: Genes::Order(parent.clone()) }; 2],
            report: empty_report(),
        };
        let children = vec![Member { fitness: 1.0, genes: Genes::Order(child) }; 2];
        let merged = evolution.merge(&children, &draft, &mut GameRng::from_seed(0));
        let Genes::Order(order) = &merged[0].genes else { panic!("an order") };
        assert_eq!(&order[..7], [23, 78, 4, 5, 12, 3, 125]);
        assert_eq!(order[7..], parent[7..]);
        assert_eq!(merged[0].fitness, 1.0);
    }

    #[test]
    fn bad_settings_name_their_flag() {
        let cases: [(DraftEvolutionSettings, &str); 6] = [
            (DraftEvolutionSettings { population: 1, ..small() }, "--population 1"),
            (DraftEvolutionSettings { mutation: 2.0, ..small() }, "--pm 2"),
            (DraftEvolutionSettings { child_weight: -0.5, ..small() }, "--wc -0.5"),
            (DraftEvolutionSettings { tournament_size: 7, ..small() }, "--ts 7"),
            (DraftEvolutionSettings { tournament: Tournament::Knockout, tournament_size: 3, ..small() }, "--ts 3"),
            (DraftEvolutionSettings { battle: "smart".to_string(), ..small() }, "--battle \"smart\""),
        ];
        for (settings, expected) in cases {
            let message = settings.validate().unwrap_err().to_string();
            assert!(message.contains(expected), "{message:?} should name {expected:?}");
        }
        assert_eq!(DraftEvolutionSettings::default().games_per_generation(), 10_000, "the published budget");
    }
}
