//! Where every random draw of a draft evolution comes from: independent
//! streams derived from the run's seed (the initial population, each
//! generation, the probe, the baseline's fixed drafts), and within a
//! generation one stream per phase. A generation's draws therefore depend
//! only on the run seed and the generation, never on what ran before it
//! or on how many threads play its games.

use super::settings::{DraftEvolutionSettings, Scheme};
use crate::game::locm::draft::Draft;
use crate::game::locm::{Config, LocmGame};
use crate::rng::derive_seed;

/// Labels of the run seed's independent streams.
const STREAM_GENERATION: u64 = 0x6765_6E65_7261_7469;
const STREAM_INIT: u64 = 0x696E_6974;
const STREAM_PROBE: u64 = 0x0070_726F_6265;
const STREAM_BASELINE_DRAFTS: u64 = 0x6261_7365_6C69_6E65;

/// Sub-streams of a generation's seed: its one [`crate::rng::GameRng`],
/// its draft, its tournaments' rounds (from `PHASE_TOURNAMENT` on) and its
/// scoring rounds (from `PHASE_SCORING` on).
pub(crate) const PHASE_RNG: u64 = 0;
const PHASE_DRAFT: u64 = 1;
pub(crate) const PHASE_TOURNAMENT: u64 = 2;
pub(crate) const PHASE_SCORING: u64 = 100;

/// A generation's seed.
pub(crate) fn generation_seed(seed: u64, generation: u64) -> u64 {
    derive_seed(derive_seed(seed, STREAM_GENERATION), generation)
}

/// The seed of the stream that draws the initial population (and, with
/// `--init pairs`, each member's opponents).
pub(crate) fn init_seed(seed: u64) -> u64 {
    derive_seed(seed, STREAM_INIT)
}

/// The seed of the initial population's games: game `game` of member
/// `member` plays with `derive_seed(init_games_seed(seed), member << 32 | game)`.
pub(crate) fn init_games_seed(seed: u64) -> u64 {
    derive_seed(seed, STREAM_INIT + 1)
}

/// The draft generation `generation` (from 1) plays on: its active genes
/// under the active-genes scheme, one of the fixed drafts (the first game's)
/// under the baseline. The results step plays on it again.
pub(crate) fn generation_draft(
    config: &Config,
    settings: &DraftEvolutionSettings,
    seed: u64,
    generation: u64,
) -> Draft {
    match settings.scheme {
        Scheme::ActiveGenes => {
            LocmGame::draw_draft(config, derive_seed(generation_seed(seed, generation), PHASE_DRAFT))
        }
        Scheme::Baseline => baseline_drafts(config, settings, seed)[0],
    }
}

/// The drafts generation `generation` plays on: its own fresh draft, or
/// the baseline's fixed drafts.
pub(crate) fn generation_drafts(
    config: &Config,
    settings: &DraftEvolutionSettings,
    seed: u64,
    generation: u64,
) -> Vec<Draft> {
    match settings.scheme {
        Scheme::ActiveGenes => vec![generation_draft(config, settings, seed, generation)],
        Scheme::Baseline => baseline_drafts(config, settings, seed),
    }
}

/// The baseline's fixed drafts, the same for every generation.
fn baseline_drafts(config: &Config, settings: &DraftEvolutionSettings, seed: u64) -> Vec<Draft> {
    let stream = derive_seed(seed, STREAM_BASELINE_DRAFTS);
    (0..u64::from(settings.baseline_drafts)).map(|k| LocmGame::draw_draft(config, derive_seed(stream, k))).collect()
}

/// The probe's seeds: fixed fresh drafts, the same for every generation.
pub(crate) fn probe_seed(seed: u64, pair: u64) -> u64 {
    derive_seed(derive_seed(seed, STREAM_PROBE), pair)
}
