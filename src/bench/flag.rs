//! `tickbot bench flag`: the GA's generations and time per generation over
//! seeds, and the exact solver's time per map.
//!
//! Generation counts and verdicts depend only on the seeds and maps; the
//! times depend on the machine (and on what else it runs).

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::ga::GaError;
use crate::game::Game;
use crate::game::flag::exact::{ExactSolver, Solution, Verdict};
use crate::game::flag::ga::{GaSettings, evolve};
use crate::game::flag::{self, FlagGame};
use crate::par::map_indexed;
use crate::plan::{Budget, PlanError, format_params};
use crate::progress::Progress;
use crate::rng::derive_seed;
use crate::stats;

/// One GA run of the benchmark.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlagGaRunReport {
    pub seed: u64,
    pub solved: bool,
    pub generations: u64,
    pub best_fitness: u32,
    pub plan_len: Option<usize>,
    pub wall_ms: f64,
    /// The budget (Ctrl-C) stopped the run before it ended.
    #[serde(skip)]
    pub stopped: bool,
}

/// `tickbot bench flag --planner ga`'s report. The key names are a
/// documented interface.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlagGaBenchReport {
    pub planner: String,
    pub planner_params: String,
    pub map: String,
    pub rules: String,
    pub runs: usize,
    pub solved: usize,
    /// Over the solved runs.
    pub generations_median: f64,
    pub generations_p25: f64,
    pub generations_p75: f64,
    pub generations_mean: f64,
    /// Wall time per run, over all runs.
    pub wall_ms_median: f64,
    pub wall_ms_p25: f64,
    pub wall_ms_p75: f64,
    /// Total run time over total generations bred, in microseconds.
    pub us_per_generation: f64,
    pub total_seconds: f64,
    pub master_seed: u64,
    pub threads: usize,
    /// Ctrl-C stopped the benchmark: the figures cover the finished runs only.
    pub interrupted: bool,
    pub per_run: Vec<FlagGaRunReport>,
}

/// Runs the GA `n_runs` times on `level` (run `i` seeded with
/// `derive_seed(master_seed, i)`), spread over `threads` threads, until
/// `budget` runs out; counts finished runs in `progress`.
#[allow(clippy::too_many_arguments)]
pub fn bench_flag_ga(
    level: &flag::Config,
    map_name: &str,
    settings: &GaSettings,
    n_runs: u64,
    master_seed: u64,
    threads: usize,
    budget: &Budget,
    progress: &Progress,
) -> Result<FlagGaBenchReport, GaError> {
    settings.validate()?;
    let run_one = |_: &mut (), index| {
        let seed = derive_seed(master_seed, index);
        let game = FlagGame::new(level, seed);
        let run_started = Instant::now();
        let run = evolve(&game, settings, seed, |_| budget.exhausted().is_some())?;
        Ok(FlagGaRunReport {
            seed,
            solved: run.plan.is_some(),
            generations: run.generations,
            best_fitness: run.best_fitness,
            plan_len: run.plan.as_ref().map(Vec::len),
            wall_ms: run_started.elapsed().as_secs_f64() * 1000.0,
            stopped: run.stopped,
        })
    };
    let gathered = map_indexed(n_runs, threads, || (), run_one, budget, progress);
    let (total_seconds, threads) = (gathered.wall_seconds, gathered.threads);
    let mut per_run = Vec::with_capacity(gathered.results.len());
    for (_, run) in gathered.results {
        let run: FlagGaRunReport = run?;
        // A run the budget stopped is unfinished: leave it out.
        if !run.stopped {
            per_run.push(run);
        }
    }
    let interrupted = (per_run.len() as u64) < n_runs;
    let solved_generations: Vec<f64> =
        per_run.iter().filter(|run| run.solved).map(|run| run.generations as f64).collect();
    let walls: Vec<f64> = per_run.iter().map(|run| run.wall_ms).collect();
    let total_generations: u64 = per_run.iter().map(|run| run.generations).sum();
    let total_wall_ms: f64 = walls.iter().sum();
    let quantile = |values: &[f64], q| stats::quantile(values, q).unwrap_or(0.0);
    Ok(FlagGaBenchReport {
        planner: "ga".to_string(),
        planner_params: format_params(&settings.params(level)),
        map: map_name.to_string(),
        rules: FlagGame::describe(level),
        runs: per_run.len(),
        solved: solved_generations.len(),
        generations_median: quantile(&solved_generations, 0.5),
        generations_p25: quantile(&solved_generations, 0.25),
        generations_p75: quantile(&solved_generations, 0.75),
        generations_mean: stats::mean(&solved_generations).unwrap_or(0.0),
        wall_ms_median: quantile(&walls, 0.5),
        wall_ms_p25: quantile(&walls, 0.25),
        wall_ms_p75: quantile(&walls, 0.75),
        us_per_generation: total_wall_ms * 1000.0 / total_generations.max(1) as f64,
        total_seconds,
        master_seed,
        threads,
        interrupted,
        per_run,
    })
}

/// One map of the exact benchmark.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlagExactMapReport {
    pub map: String,
    pub size: String,
    pub fragile: usize,
    pub cracked: usize,
    pub stones: usize,
    /// `"solved"`, `"no solution"` or `"timeout"`.
    pub verdict: String,
    pub moves: Option<usize>,
    pub nodes: u64,
    pub iterations: u32,
    pub ms: f64,
}

/// `tickbot bench flag --planner exact`'s report. The key names are a
/// documented interface.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlagExactBenchReport {
    pub planner: String,
    pub maps: usize,
    pub solved: usize,
    pub no_solution: usize,
    /// Maps given up on at the time limit.
    pub timeout: usize,
    pub limit_ms: f64,
    pub total_ms: f64,
    pub median_ms: f64,
    pub max_ms: f64,
    pub per_map: Vec<FlagExactMapReport>,
    /// The budget was cancelled (Ctrl-C): `per_map` holds the maps finished
    /// before; the one cut short is left out.
    pub interrupted: bool,
}

/// Solves each map once from its start, in order, on this thread, giving up
/// on a map after `limit` (verdict `"timeout"`). The time of a map includes
/// building the solver's tables. Stops when `budget` is cancelled.
pub fn bench_flag_exact(
    levels: &[(String, flag::Config)],
    limit: Duration,
    budget: &Budget,
) -> Result<FlagExactBenchReport, PlanError> {
    let mut per_map = Vec::with_capacity(levels.len());
    let mut interrupted = false;
    for (name, level) in levels {
        let game = FlagGame::new(level, 0);
        let started = Instant::now();
        let solver = ExactSolver::new(level);
        let result = solver.solve(game.visits(), game.position(), &budget.with_deadline(started + limit));
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let (verdict, moves, nodes, iterations) = match &result {
            Ok(Solution { verdict: Verdict::Solved(moves), nodes, iterations }) => {
                ("solved", Some(moves.len()), *nodes, *iterations)
            }
            Ok(Solution { verdict: Verdict::NoSolution, nodes, iterations }) => {
                ("no solution", None, *nodes, *iterations)
            }
            Err(PlanError::OutOfTime) => ("timeout", None, 0, 0),
            Err(PlanError::Cancelled) => {
                interrupted = true;
                break;
            }
            Err(error) => return Err(error.clone()),
        };
        per_map.push(FlagExactMapReport {
            map: name.clone(),
            size: format!("{}x{}", level.width(), level.height()),
            fragile: level.count(flag::Tile::Fragile),
            cracked: level.count(flag::Tile::Cracked),
            stones: level.count(flag::Tile::Stone),
            verdict: verdict.to_string(),
            moves,
            nodes,
            iterations,
            ms,
        });
    }
    let times: Vec<f64> = per_map.iter().map(|map| map.ms).collect();
    Ok(FlagExactBenchReport {
        planner: "exact".to_string(),
        maps: per_map.len(),
        solved: per_map.iter().filter(|map| map.moves.is_some()).count(),
        no_solution: per_map.iter().filter(|map| map.verdict == "no solution").count(),
        timeout: per_map.iter().filter(|map| map.verdict == "timeout").count(),
        limit_ms: limit.as_secs_f64() * 1000.0,
        total_ms: times.iter().fold(0.0, |total, ms| total + ms),
        median_ms: stats::median(&times).unwrap_or(0.0),
        max_ms: times.iter().copied().fold(0.0, f64::max),
        per_map,
        interrupted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_count_what_they_ran() {
        let level = flag::Config::parse("start 0 0\n1111\n111F").unwrap();
        let settings = GaSettings { max_generations: 5_000, ..GaSettings::default() };
        let run = |threads| {
            bench_flag_ga(&level, "tiny", &settings, 4, 0, threads, &Budget::unlimited(), &Progress::default()).unwrap()
        };
        let report = run(2);
        assert_eq!((report.runs, report.solved), (4, 4));
        assert!(report.generations_p25 <= report.generations_median);
        assert!(report.generations_median <= report.generations_p75);
        let again = run(1);
        let generations =
            |report: &FlagGaBenchReport| report.per_run.iter().map(|run| run.generations).collect::<Vec<_>>();
        assert_eq!(generations(&report), generations(&again), "threads must not change the runs");
        let unsolvable = flag::Config::parse("start 0 0\n11.F").unwrap();
        let maps = [("a".into(), level), ("b".into(), unsolvable)];
        let report = bench_flag_exact(&maps, Duration::from_secs(60), &Budget::unlimited()).unwrap();
        assert_eq!((report.maps, report.solved, report.no_solution), (2, 1, 1));
        assert_eq!(report.per_map[0].moves, Some(8), "8 cells, start and flag on one colour: an even walk");
    }
}
