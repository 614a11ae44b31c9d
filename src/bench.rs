//! `tickbot bench`: plays many seeded episodes as fast as possible and
//! reports quality and speed. Episodes are spread over threads, but each
//! result depends only on its seed and the totals are summed in episode
//! order, so every figure but the speed is the same on any machine.

use std::time::Instant;

use serde::Serialize;

use crate::game::snake::bfs_tail::{BfsTail, BfsTailParams};
use crate::game::snake::{self, SnakeGame};
use crate::game::{Game, OutcomeKind};
use crate::plan::{Budget, Planner, PlayError, format_params, play_to_end};
use crate::rng::derive_seed;

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

/// `tickbot bench snake`'s report. The key names are a documented interface.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SnakeBenchReport {
    pub episodes: u64,
    pub avg_length: f64,
    pub avg_steps: f64,
    /// Fraction of episodes that filled the board.
    pub fill_rate: f64,
    pub won: u64,
    pub lost: u64,
    pub stalled: u64,
    pub moves_per_sec: f64,
    pub planner: String,
    /// The planner's parameters, `name=value` separated by spaces.
    pub planner_params: String,
    pub rules: String,
    pub seed: u64,
    pub threads: usize,
}

/// Benchmarks `bfs-tail` with `params` on `level`.
pub fn bench_snake(
    level: &snake::Config,
    params: BfsTailParams,
    n_episodes: u64,
    master_seed: u64,
    threads: usize,
) -> Result<SnakeBenchReport, PlayError> {
    let make_planner = || BfsTail::with_params(level, params);
    let (planner_name, planner_params) = {
        let planner = make_planner();
        (Planner::<SnakeGame>::name(&planner).to_string(), format_params(&Planner::<SnakeGame>::params(&planner)))
    };
    let run = play_episodes::<SnakeGame, _>(level, make_planner, n_episodes, master_seed, threads)?;
    let count = |kind| run.episodes.iter().filter(|episode| episode.outcome == kind).count() as u64;
    let total_length: i64 = run.episodes.iter().map(|episode| episode.score).sum();
    let total_steps: u64 = run.episodes.iter().map(|episode| u64::from(episode.ticks)).sum();
    let n = run.episodes.len().max(1) as f64;
    Ok(SnakeBenchReport {
        episodes: run.episodes.len() as u64,
        avg_length: total_length as f64 / n,
        avg_steps: total_steps as f64 / n,
        fill_rate: count(OutcomeKind::Won) as f64 / n,
        won: count(OutcomeKind::Won),
        lost: count(OutcomeKind::Lost),
        stalled: count(OutcomeKind::Stalled),
        moves_per_sec: total_steps as f64 / run.seconds.max(1e-9),
        planner: planner_name,
        planner_params,
        rules: SnakeGame::describe(level),
        seed: master_seed,
        threads: run.threads,
    })
}
