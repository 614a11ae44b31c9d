//! The `ga` planner's parameters: the two versions' defaults (chosen by
//! [`Variant`]), the operators and fitness it may use, the chromosome
//! length and the parameters as reports print them.

use std::fmt;

use crate::game::flag::{Config, Tile};
use crate::plan::Variant;
use crate::plan::ga::{EvolutionSettings, GaError, Scheme};

/// How a child is mutated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mutation {
    /// The write-up's improved operator: swap two genes with probability
    /// `swap_percent`%, else reset one gene to a random move.
    SwapElseReset { swap_percent: u32 },
    /// The original operator: with probability `percent`% reset one gene.
    Reset { percent: u32 },
}

impl Mutation {
    /// The improved operator with the code's `mutation_rate = 0.6`: swap 40%.
    pub(crate) const IMPROVED: Mutation = Mutation::SwapElseReset { swap_percent: 40 };
    /// The improved operator with the text's `mutation_rate = 0.3`: swap 70%.
    pub(crate) const IMPROVED_AS_WRITTEN: Mutation = Mutation::SwapElseReset { swap_percent: 70 };
}

impl fmt::Display for Mutation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mutation::SwapElseReset { swap_percent } => write!(f, "swap{swap_percent}-else-reset"),
            Mutation::Reset { percent } => write!(f, "reset{percent}"),
        }
    }
}

/// Which fitness the GA minimises (plus the void penalty in both).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fitness {
    /// owed entries + distance to the flag (the write-up's code from
    /// 2022-12-04 on).
    Linear,
    /// 2·owed entries + distance (the write-up's first form, §3b).
    DoubleOwed,
}

impl fmt::Display for Fitness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Fitness::Linear => "owed+distance",
            Fitness::DoubleOwed => "2*owed+distance",
        })
    }
}

/// The GA's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GaSettings {
    /// Ours, or the write-up's as written: it fixes the crossover (ours: two
    /// complementary children per pair of parents, the genes between two
    /// cuts drawn in `0..=len` swapped; the write-up's: one child, two cuts
    /// drawn in `0..len`, the second parent's genes on the inclusive segment
    /// between them) and how the chromosome length is counted when it is not
    /// given (`default_chromosome_length` or
    /// `write_up_chromosome_length`). The other fields take its defaults
    /// from [`GaSettings::new`].
    pub(crate) variant: Variant,
    pub(crate) population: usize,
    pub(crate) parents: usize,
    pub(crate) elites: usize,
    /// Mutate the elites' copies too (the write-up's behaviour); `false`
    /// keeps them frozen.
    pub(crate) mutate_elites: bool,
    pub(crate) mutation: Mutation,
    pub(crate) fitness: Fitness,
    /// Added per void gene unless the rest of the fitness is 0.
    pub(crate) void_penalty: u32,
    /// Chromosome length; `None`: counted as `variant` counts it.
    pub(crate) chromosome_length: Option<usize>,
    pub(crate) max_generations: u64,
    /// Evaluate fitness on rayon's threads (same result either way).
    pub(crate) parallel: bool,
}

impl Default for GaSettings {
    /// Ours.
    fn default() -> GaSettings {
        GaSettings::new(Variant::Ours)
    }
}

impl GaSettings {
    /// The defaults of `variant` (see the module docs): the write-up's swaps
    /// with the text's rate and has no void penalty. The generation cap and
    /// `parallel` are ours in both.
    pub(crate) fn new(variant: Variant) -> GaSettings {
        let (mutation, void_penalty) = match variant {
            Variant::Ours => (Mutation::IMPROVED, 1),
            Variant::WriteUp => (Mutation::IMPROVED_AS_WRITTEN, 0),
        };
        GaSettings {
            variant,
            population: 40,
            parents: 25,
            elites: 5,
            mutate_elites: true,
            mutation,
            fitness: Fitness::Linear,
            void_penalty,
            chromosome_length: None,
            max_generations: 200_000,
            parallel: false,
        }
    }

    /// The chromosome length on `config`.
    pub(crate) fn length_for(&self, config: &Config) -> usize {
        self.chromosome_length.unwrap_or_else(|| match self.variant {
            Variant::Ours => default_chromosome_length(config),
            Variant::WriteUp => write_up_chromosome_length(config),
        })
    }

    /// The crossover's name in the parameters.
    fn crossover_name(&self) -> &'static str {
        match self.variant {
            Variant::Ours => "two-children",
            Variant::WriteUp => "one-child",
        }
    }

    pub(super) fn evolution_settings(&self) -> EvolutionSettings {
        let scheme = if self.mutate_elites {
            Scheme::GenerationalMutatingElites { parents: self.parents, elites: self.elites }
        } else {
            Scheme::Generational { parents: self.parents, elites: self.elites }
        };
        EvolutionSettings {
            population: self.population,
            scheme,
            max_generations: self.max_generations,
            parallel: self.parallel,
        }
    }

    /// Checks the parameters the way the engine will.
    pub(crate) fn validate(&self) -> Result<(), GaError> {
        self.evolution_settings().validate()
    }

    /// As `(name, value)` pairs, for replay headers and reports.
    pub(crate) fn params(&self, config: &Config) -> Vec<(String, String)> {
        vec![
            ("population".into(), self.population.to_string()),
            ("parents".into(), self.parents.to_string()),
            ("elites".into(), self.elites.to_string()),
            ("elites_mutated".into(), self.mutate_elites.to_string()),
            ("mutation".into(), self.mutation.to_string()),
            ("fitness".into(), self.fitness.to_string()),
            ("void_penalty".into(), self.void_penalty.to_string()),
            ("crossover".into(), self.crossover_name().to_string()),
            ("length".into(), self.length_for(config).to_string()),
            ("max_generations".into(), self.max_generations.to_string()),
        ]
    }
}

/// Our chromosome length, the start tile counted like the others:
/// #fragile + 2·#cracked + 5·(#stone + #flag).
pub(crate) fn default_chromosome_length(config: &Config) -> usize {
    (config.count(Tile::Fragile) + 2 * config.count(Tile::Cracked) + 5 * (config.count(Tile::Stone) + 1)).max(1)
}

/// The write-up's code's chromosome length: the entries owed once the start
/// tile's first entry is taken, + 5·(#stone + #flag).
pub(crate) fn write_up_chromosome_length(config: &Config) -> usize {
    let owed: usize = config.initial_visits().iter().map(|&count| usize::from(count)).sum();
    (owed + 5 * (config.count(Tile::Stone) + 1)).max(1)
}
