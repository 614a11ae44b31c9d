//! Reach the Flag's planners, and the registry that names them: every
//! command that plays Reach the Flag (`play`, `run`, session files, `bench`)
//! chooses a planner and reads its flags through [`PlannerArgs`].
//!
//! - [`exact`]: a shortest winning plan, or a proof that there is none
//!   (IDA*; the default);
//! - [`search`]: an anytime search for large maps: a plan at once, then
//!   shorter ones for a fixed number of nodes, with a lower bound;
//! - [`ga`]: the write-up's genetic algorithm, ours or (`--write-up`) its
//!   own.
//!
//! `exact` and `search` run the same search over tile entries,
//! `entry_search`.

pub(crate) mod entry_search;
pub(crate) mod exact;
pub(crate) mod ga;
#[cfg(test)]
mod oracle;
pub(crate) mod search;

use clap::{Args, ValueEnum};

use crate::game::flag::{Config, FlagGame};
use crate::plan::{ChoiceError, Planner, Variant};
use ga::{Fitness, GaPlanner, GaSettings, Mutation};
use search::{AnytimeSearch, SearchSettings};

/// The planner flags of every Reach the Flag command: the planner, the
/// `search` planner's node budget and the GA's parameters (ignored by
/// `exact`).
#[derive(Clone, Debug, Args, Default)]
pub struct PlannerArgs {
    /// The planner: `exact` (shortest solution or a proof there is none), `search`
    /// (anytime: a first plan fast, then shorter ones) or `ga`.
    #[arg(long, value_enum, default_value_t = PlannerName::Exact)]
    pub planner: PlannerName,
    /// search: search nodes spent shortening the first plan (0: play the first). Counted in
    /// nodes, not time, so a seed always gives the same plan.
    #[arg(long, default_value_t = SearchSettings::default().improve_nodes, value_name = "NODES")]
    pub(crate) improve_nodes: u64,
    /// GA: population size.
    #[arg(long, default_value_t = 40)]
    pub(crate) population: usize,
    /// GA: the best this many are the parents (rank selection).
    #[arg(long, default_value_t = 25)]
    pub(crate) parents: usize,
    /// GA: the best this many are carried into the next generation.
    #[arg(long, default_value_t = 5)]
    pub(crate) elites: usize,
    /// GA: the write-up's version: one child per pair of parents (35 a generation, cuts
    /// in 0..L-1, the second parent's genes on the inclusive segment), the text's
    /// mutation_rate 0.3 (swap 70%), no void penalty (the fitness of its reported
    /// runs), and the length counted after the start tile's first entry (38 on round
    /// 12). Default (ours): two complementary children per pair, swap 40% (the
    /// code's mutation_rate 0.6), a void penalty of 1, the start tile counted (39).
    #[arg(long)]
    pub(crate) write_up: bool,
    /// GA: carry the elites over unchanged (the write-up mutated them with the children).
    #[arg(long)]
    pub(crate) frozen_elites: bool,
    /// GA: mutation operator. improved: reset one gene with probability
    /// --mutation-rate, else swap two genes; original: reset one gene with
    /// probability --mutation-rate, else nothing.
    #[arg(long, value_enum, default_value_t = MutationName::Improved)]
    pub(crate) mutation: MutationName,
    /// GA: the write-up's mutation_rate, in percent: the chance of a reset. Default:
    /// 60 for improved (the code's value, so swap 40%), 30 for original and for
    /// improved with --write-up (the text's only stated value, so swap 70%).
    #[arg(long, value_name = "PERCENT", value_parser = clap::value_parser!(u32).range(0..=100))]
    pub(crate) mutation_rate: Option<u32>,
    /// GA: fitness. linear: owed entries + distance to the flag; double: 2*owed + distance.
    #[arg(long, value_enum, default_value_t = FitnessName::Linear)]
    pub(crate) fitness: FitnessName,
    /// GA: added per void (blocked) move unless the rest of the fitness is 0. Default:
    /// 1 (the form of the write-up's section 4b, which gives no value), 0 with --write-up.
    #[arg(long, value_name = "N")]
    pub(crate) void_penalty: Option<u32>,
    /// GA: chromosome length. Default: #fragile + 2*#cracked + 5*(#stone + 1), with
    /// --write-up counted after the start tile's first entry.
    #[arg(long, value_name = "GENES")]
    pub(crate) length: Option<usize>,
    /// GA: give up after this many generations (our cap; the write-up has none).
    #[arg(long, default_value_t = 200_000)]
    pub(crate) max_generations: u64,
    /// GA: evaluate fitness on several threads (same result; rarely faster).
    #[arg(long)]
    pub(crate) parallel: bool,
}

/// Reach the Flag's planners by the names `--planner` takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum PlannerName {
    /// Complete search: a shortest winning sequence, or "no solution".
    #[default]
    Exact,
    /// A genetic algorithm from the write-up (ours, or its own with --write-up), seeded from --seed.
    Ga,
    /// Anytime search: a winning plan as soon as one is found, then shorter ones, for
    /// --improve-nodes nodes; reports a lower bound. For large maps.
    Search,
}

/// The GA's mutation operators by the names `--mutation` takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum MutationName {
    #[default]
    Improved,
    Original,
}

/// The GA's fitness functions by the names `--fitness` takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum FitnessName {
    #[default]
    Linear,
    Double,
}

impl PlannerArgs {
    /// Checks that the flags go together (the GA's parameters as its engine
    /// will check them); call once, before [`PlannerArgs::make`].
    pub fn check(&self) -> Result<(), ChoiceError> {
        match self.planner {
            PlannerName::Exact | PlannerName::Search => Ok(()),
            PlannerName::Ga => {
                self.ga_settings().validate().map_err(|error| ChoiceError::new(format!("bad GA parameters: {error}")))
            }
        }
    }

    /// A fresh planner for one game on `level` (one planner plays one game).
    pub fn make(&self, level: &Config) -> Box<dyn Planner<FlagGame>> {
        match self.planner {
            PlannerName::Exact => Box::new(exact::Exact::new(level)),
            PlannerName::Ga => Box::new(GaPlanner::new(level, self.ga_settings())),
            PlannerName::Search => Box::new(AnytimeSearch::new(level, self.search_settings())),
        }
    }

    /// The GA settings these flags choose.
    pub fn ga_settings(&self) -> GaSettings {
        let base = GaSettings::new(Variant::write_up_if(self.write_up));
        let mutation = match (self.mutation, self.mutation_rate) {
            (MutationName::Improved, None) => base.mutation,
            (MutationName::Improved, Some(rate)) => Mutation::SwapElseReset { swap_percent: 100 - rate },
            (MutationName::Original, rate) => Mutation::Reset { percent: rate.unwrap_or(30) },
        };
        GaSettings {
            population: self.population,
            parents: self.parents,
            elites: self.elites,
            mutate_elites: !self.frozen_elites,
            mutation,
            fitness: match self.fitness {
                FitnessName::Linear => Fitness::Linear,
                FitnessName::Double => Fitness::DoubleOwed,
            },
            void_penalty: self.void_penalty.unwrap_or(base.void_penalty),
            chromosome_length: self.length,
            max_generations: self.max_generations,
            parallel: self.parallel,
            ..base
        }
    }

    /// The `search` planner's settings these flags choose.
    pub fn search_settings(&self) -> SearchSettings {
        SearchSettings { improve_nodes: self.improve_nodes }
    }
}
