//! `tickbot bench snake`: a planner's length, fill rate and speed.

use serde::Serialize;

use super::play_episodes;
use crate::game::snake::{self, SnakeGame};
use crate::game::{OutcomeKind, Show};
use crate::par::Workers;
use crate::plan::{Planner, PlayError, format_params};

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
    /// Ctrl-C stopped the benchmark early: the figures cover `episodes` only.
    pub(crate) interrupted: bool,
}

/// Benchmarks the planners `make_planner` makes (one per episode) on `level`.
pub fn bench_snake<P: Planner<SnakeGame>>(
    level: &snake::Config,
    make_planner: impl Fn() -> P + Sync,
    n_episodes: u64,
    master_seed: u64,
    workers: &Workers,
) -> Result<SnakeBenchReport, PlayError> {
    let (planner_name, planner_params) = {
        let planner = make_planner();
        (planner.name().to_string(), format_params(&planner.params()))
    };
    let run = play_episodes::<SnakeGame, _>(level, make_planner, n_episodes, master_seed, workers)?;
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
        interrupted: run.interrupted,
    })
}
