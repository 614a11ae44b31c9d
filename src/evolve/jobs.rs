//! The games a draft evolution plays, in batches spread over threads
//! ([`crate::par`]): a [`Job`] says who sits where, on which draft, with
//! which seed; [`play_jobs`] plays a batch and returns the winners in job
//! order; [`GenerationGames::play_matches`] turns pairs of drafters into
//! jobs, both seat orders, with the seeds of a generation's phase.

use super::settings::DraftEvolutionSettings;
use crate::game::Game;
use crate::game::locm::draft::Draft;
use crate::game::locm::plan::BattleBot;
use crate::game::locm::plan::draft::DraftBot;
use crate::game::locm::plan::seats::LocmBots;
use crate::game::locm::{Config, LocmGame};
use crate::par::{Workers, map_indexed};
use crate::rng::derive_seed;

/// One game to play: who sits where, on which draft, with which seed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Job {
    /// Indices into the drafter table of the batch.
    pub(crate) seats: [u32; 2],
    /// An index into the batch's drafts, or `None` for the fresh draft of
    /// `seed` (as `match locm` plays it).
    pub(crate) draft: Option<u32>,
    pub(crate) seed: u64,
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
        let game = match job.draft {
            Some(draft) => LocmGame::on_draft(config, drafts[draft as usize], job.seed),
            None => LocmGame::new(config, job.seed),
        };
        bots.play_out(game)
    };
    let gathered = map_indexed(jobs.len() as u64, workers, make, work);
    if gathered.stopped_early() {
        return None;
    }
    Some(gathered.results.into_iter().map(|(_, winner)| winner).collect())
}

/// What the games of one generation are played with: the card list and
/// battle bot of the run, the generation's drafts and seed, and the
/// workers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GenerationGames<'a> {
    pub(crate) config: &'a Config,
    pub(crate) settings: &'a DraftEvolutionSettings,
    pub(crate) battle: BattleBot,
    pub(crate) drafts: &'a [Draft],
    /// The generation's seed ([`super::seeds::generation_seed`]).
    pub(crate) seed: u64,
    pub(crate) workers: Workers<'a>,
}

impl GenerationGames<'_> {
    /// Plays every pair of `pairs` (indices into `drafters`) `games` times
    /// in each seat order, cycling through the generation's drafts, with
    /// seeds from the generation's `phase`; each side's wins per pair, or
    /// `None` if the budget ran out.
    pub(crate) fn play_matches(
        &self,
        drafters: &[DraftBot],
        pairs: &[[u32; 2]],
        games: u32,
        phase: u64,
    ) -> Option<Vec<(u32, u32)>> {
        let per_pair = 2 * games as usize;
        let phase_seed = derive_seed(self.seed, phase);
        let jobs: Vec<Job> = pairs
            .iter()
            .flat_map(|&pair| (0..per_pair).map(move |game| (pair, game)))
            .enumerate()
            .map(|(index, (pair, game))| Job {
                seats: if game % 2 == 0 { pair } else { [pair[1], pair[0]] },
                draft: Some((index % self.drafts.len()) as u32),
                seed: derive_seed(phase_seed, index as u64),
            })
            .collect();
        let winners = play_jobs(self.config, self.battle, drafters, self.drafts, &jobs, &self.workers)?;
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
}
