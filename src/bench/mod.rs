//! `tickbot bench`: plays many seeded episodes as fast as possible and
//! reports quality and speed. Episodes are spread over threads, but each
//! result depends only on its seed and the totals are summed in episode
//! order, so every figure but the speed is the same on any machine.

use crate::game::{Game, OutcomeKind};
use crate::par::{Workers, map_indexed};
use crate::plan::{PlanError, Planner, PlayError, play_to_end};
use crate::rng::derive_seed;

mod flag;
mod locm;
mod locm_sprt;
mod locm_turns;
mod pipes;
mod slide;
mod snake;

pub use flag::{
    FlagExactBenchReport, FlagExactMapReport, FlagGaBenchReport, FlagGaRunReport, FlagSearchBenchReport, FlagSearchMap,
    FlagSearchMapReport, FlagSearchSizeReport, bench_flag_exact, bench_flag_ga, bench_flag_search,
};
pub use locm::{
    LocmBenchReport, LocmMatchReport, Side as LocmSide, bench_locm, play_game as play_locm_game,
    play_match as play_locm_match, play_sides as play_locm_sides,
};
pub use locm_sprt::{LocmSprtReport, SprtMatch, play_sprt_match};
pub use locm_turns::{TurnTimesReport, time_turns};
pub use pipes::{BenchPuzzle, PipesBenchReport, PuzzleTiming, SizeTiming, bench_pipes};
pub use slide::{
    CurrentInstance, SlideBenchError, SlideBenchReport, SlideBenchRun, SlideBenchState, SlideCase, SlideInstanceReport,
    StateChange, bench_slide,
};
pub use snake::{SnakeBenchReport, bench_snake};

/// The result of one benchmark episode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Episode {
    pub(crate) outcome: OutcomeKind,
    pub(crate) score: i64,
    pub(crate) ticks: u32,
}

/// The episodes played, in index order, with the wall time they took together.
#[derive(Clone, Debug)]
pub(crate) struct EpisodeRun {
    pub(crate) episodes: Vec<Episode>,
    pub(crate) seconds: f64,
    pub(crate) threads: usize,
    /// The budget ran out (Ctrl-C) before every episode was played; the
    /// episodes cut short are left out.
    pub(crate) interrupted: bool,
}

/// Plays episodes `0..n_episodes` (seed of episode `i`: `derive_seed(master_seed, i)`),
/// each with a fresh planner from `make_planner`, on the workers' threads
/// until their budget runs out, counting finished episodes in their progress.
pub(crate) fn play_episodes<G: Game, P: Planner<G>>(
    level: &G::Config,
    make_planner: impl Fn() -> P + Sync,
    n_episodes: u64,
    master_seed: u64,
    workers: &Workers,
) -> Result<EpisodeRun, PlayError> {
    let play = |_: &mut (), index| {
        let mut game = G::new(level, derive_seed(master_seed, index));
        let outcome = play_to_end(&mut game, &mut make_planner(), workers.budget, |_, _| {})?;
        Ok(Episode { outcome: outcome.kind, score: game.score(), ticks: game.tick() })
    };
    let gathered = map_indexed(n_episodes, workers, || (), play);
    let (seconds, threads) = (gathered.wall_seconds, gathered.threads);
    let mut interrupted = gathered.stopped_early();
    let mut episodes = Vec::with_capacity(gathered.results.len());
    for (_, result) in gathered.results {
        match result {
            Ok(episode) => episodes.push(episode),
            Err(PlayError::Plan(PlanError::Cancelled)) => interrupted = true,
            Err(error) => return Err(error),
        }
    }
    Ok(EpisodeRun { episodes, seconds, threads, interrupted })
}
