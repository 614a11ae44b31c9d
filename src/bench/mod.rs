//! `tickbot bench`: plays many seeded episodes as fast as possible and
//! reports quality and speed. Episodes are spread over threads, but each
//! result depends only on its seed and the totals are summed in episode
//! order, so every figure but the speed is the same on any machine.

use std::time::Instant;

use crate::game::{Game, OutcomeKind};
use crate::plan::{Budget, Planner, PlayError, play_to_end};
use crate::rng::derive_seed;

mod flag;
mod locm;
mod pipes;
mod slide;
mod snake;

pub use flag::{
    FlagExactBenchReport, FlagExactMapReport, FlagGaBenchReport, FlagGaRunReport, bench_flag_exact, bench_flag_ga,
};
pub use locm::{
    LocmBenchReport, LocmMatchReport, bench_locm, play_game as play_locm_game, play_match as play_locm_match,
};
pub use pipes::{BenchPuzzle, PipesBenchReport, PuzzleTiming, SizeTiming, bench_pipes};
pub use slide::{SlideBenchError, SlideBenchPlanner, SlideBenchReport, SlideCase, SlideInstanceReport, bench_slide};
pub use snake::{SnakeBenchReport, bench_snake};

/// The result of one benchmark episode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Episode {
    pub outcome: OutcomeKind,
    pub score: i64,
    pub ticks: u32,
}

/// Episodes in index order, with the wall time they took together.
#[derive(Clone, Debug)]
pub struct EpisodeRun {
    pub episodes: Vec<Episode>,
    pub seconds: f64,
    pub threads: usize,
}

/// Plays episodes `0..n_episodes` (seed of episode `i`: `derive_seed(master_seed, i)`)
/// on `threads` threads.
pub fn play_episodes<G: Game, P: Planner<G>>(
    level: &G::Config,
    make_planner: impl Fn() -> P + Sync,
    n_episodes: u64,
    master_seed: u64,
    threads: usize,
) -> Result<EpisodeRun, PlayError> {
    let threads = threads.clamp(1, n_episodes.max(1) as usize);
    let started = Instant::now();
    let per_thread: Vec<Result<Vec<(u64, Episode)>, PlayError>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|worker| {
                let make_planner = &make_planner;
                scope.spawn(move || {
                    let mut planner = make_planner();
                    let mut played = Vec::new();
                    for index in (worker as u64..n_episodes).step_by(threads) {
                        let mut game = G::new(level, derive_seed(master_seed, index));
                        let outcome = play_to_end(&mut game, &mut planner, &Budget::unlimited(), |_, _| {})?;
                        played
                            .push((index, Episode { outcome: outcome.kind, score: game.score(), ticks: game.tick() }));
                    }
                    Ok(played)
                })
            })
            .collect();
        workers.into_iter().map(|worker| worker.join().expect("benchmark thread panicked")).collect()
    });
    let seconds = started.elapsed().as_secs_f64();
    let mut indexed = Vec::with_capacity(n_episodes as usize);
    for played in per_thread {
        indexed.extend(played?);
    }
    indexed.sort_unstable_by_key(|(index, _)| *index);
    Ok(EpisodeRun { episodes: indexed.into_iter().map(|(_, episode)| episode).collect(), seconds, threads })
}
