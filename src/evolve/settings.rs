//! The settings of a draft evolution: how strategies are encoded, bred,
//! ranked and merged ([`DraftEvolutionSettings`], stored in every
//! checkpoint), their validation (the errors name the command-line flag),
//! the games a generation costs, and the command line that starts a run.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::game::locm::plan::draft::DraftBot;
use crate::game::locm::plan::{BattleBot, DraftName};

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
    Bot { flag: &'static str, name: String, expected: String },
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

/// The battle bot of a run, by the name `--battle` gave.
pub(crate) fn battle_bot(name: &str) -> Result<BattleBot, EvolveError> {
    BattleBot::from_name(name).ok_or_else(|| EvolveError::Bot {
        flag: "--battle",
        name: name.to_string(),
        expected: format!("use {}", BattleBot::all()),
    })
}

/// The fixed drafter of [`Init::Against`], by the name `--init-opponent` gave.
pub(crate) fn opponent_bot(name: &str) -> Result<DraftBot, EvolveError> {
    DraftName::from_name(name).map(DraftName::bot).ok_or_else(|| EvolveError::Bot {
        flag: "--init-opponent",
        name: name.to_string(),
        expected: format!("use a built-in drafter: {}", DraftName::all()),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A run small enough for a unit test: 6 members, 3 generations.
    pub(crate) fn small() -> DraftEvolutionSettings {
        DraftEvolutionSettings {
            population: 6,
            generations: 3,
            tournament_games: 1,
            scoring_games: 2,
            probe_games: 4,
            ..DraftEvolutionSettings::default()
        }
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
