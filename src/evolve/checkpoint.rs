//! What a draft evolution's run directory holds, as the library makes it:
//! the checkpoint of a generation ([`Checkpoint`], JSON: the settings, the
//! seed, the generation's report and its population), what a resumed run
//! checks of one, and a member as a `genome:FILE` text (`best.txt`). The
//! binary writes them.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::genes::{Genes, Member, is_permutation};
use super::settings::{DraftEvolutionSettings, EvolveError, Representation};

/// What one generation did. The figures are the same on every run of the
/// same seed; `seconds` is filled in by whoever timed it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationReport {
    /// 0: the initial population.
    pub generation: u64,
    pub(crate) fitness_min: f64,
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
    pub(crate) total_games: u64,
    /// Wall-clock seconds the generation took, probe included.
    pub(crate) seconds: f64,
}

/// One generation's state: what a run resumes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Always [`CHECKPOINT_FORMAT`].
    pub(crate) format: String,
    pub seed: u64,
    pub settings: DraftEvolutionSettings,
    pub report: GenerationReport,
    pub population: Vec<Member>,
}

/// The `format` of a checkpoint this build reads and writes.
pub(crate) const CHECKPOINT_FORMAT: &str = "tickbot draft evolution 1";

impl GenerationReport {
    /// The report of a run before its first generation is scored.
    pub(crate) fn empty() -> GenerationReport {
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
}

impl Checkpoint {
    /// Checks that the checkpoint is one this build can continue with a
    /// list of `n_cards` cards: its format, its settings, and that every
    /// member is a genome of its representation for that list.
    pub(crate) fn check(&self, n_cards: usize) -> Result<(), EvolveError> {
        let bad = |message: String| Err(EvolveError::Checkpoint(message));
        if self.format != CHECKPOINT_FORMAT {
            return bad(format!("format {:?}; expected {CHECKPOINT_FORMAT:?}", self.format));
        }
        self.settings.validate()?;
        if self.population.len() != self.settings.population {
            return bad(format!("{} members; the settings say {}", self.population.len(), self.settings.population));
        }
        for (index, member) in self.population.iter().enumerate() {
            let fits = match (&member.genes, self.settings.representation) {
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
        Ok(())
    }
}

/// A genome as a `genome:FILE` text: comments naming the run that made it,
/// then one priority per line (shortest exact decimal) with its card id.
pub(crate) fn genome_text(
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
