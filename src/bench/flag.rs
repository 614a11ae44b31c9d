//! `tickbot bench flag`: the GA's generations and time per generation over
//! seeds, the exact solver's time per map, and the anytime search's time to
//! a first plan and final length against the generator's witness, by board
//! size.
//!
//! Generation counts and verdicts depend only on the seeds and maps; the
//! times depend on the machine (and on what else it runs).

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::game::flag::plan::entry_search::BoardTables;
use crate::game::flag::plan::exact::{Solution, Verdict, solve};
use crate::game::flag::plan::ga::{GaSettings, evolve};
use crate::game::flag::plan::search::{Found, SearchSettings, anytime};
use crate::game::flag::{self, FlagGame};
use crate::game::{Game, Show};
use crate::par::{Workers, map_indexed};
use crate::plan::ga::GaError;
use crate::plan::{Budget, PlanError, format_params};
use crate::progress::Progress;
use crate::rng::derive_seed;
use crate::stats;

/// One GA run of the benchmark.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlagGaRunReport {
    pub(crate) seed: u64,
    pub(crate) solved: bool,
    pub(crate) generations: u64,
    pub(crate) best_fitness: u32,
    pub(crate) plan_len: Option<usize>,
    pub(crate) wall_ms: f64,
    /// The budget (Ctrl-C) stopped the run before it ended.
    #[serde(skip)]
    pub(crate) stopped: bool,
}

/// `tickbot bench flag --planner ga`'s report. The key names are a
/// documented interface.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlagGaBenchReport {
    pub(crate) planner: String,
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
    pub(crate) total_seconds: f64,
    pub master_seed: u64,
    pub threads: usize,
    /// Ctrl-C stopped the benchmark: the figures cover the finished runs only.
    pub interrupted: bool,
    pub(crate) per_run: Vec<FlagGaRunReport>,
}

/// Runs the GA `n_runs` times on `level` (run `i` seeded with
/// `derive_seed(master_seed, i)`), spread over the workers' threads until
/// their budget runs out, counting finished runs in their progress.
pub fn bench_flag_ga(
    level: &flag::Config,
    map_name: &str,
    settings: &GaSettings,
    n_runs: u64,
    master_seed: u64,
    workers: &Workers,
) -> Result<FlagGaBenchReport, GaError> {
    settings.validate()?;
    let run_one = |_: &mut (), index| {
        let seed = derive_seed(master_seed, index);
        let game = FlagGame::new(level, seed);
        let run_started = Instant::now();
        let run = evolve(&game, settings, seed, |_| workers.budget.exhausted().is_some())?;
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
    let gathered = map_indexed(n_runs, workers, || (), run_one);
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
    pub(crate) iterations: u32,
    pub ms: f64,
}

/// `tickbot bench flag --planner exact`'s report. The key names are a
/// documented interface.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlagExactBenchReport {
    pub(crate) planner: String,
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
        let tables = BoardTables::new(level);
        let result = solve(&tables, game.visits(), game.position(), &budget.with_deadline(started + limit));
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

/// A map for [`bench_flag_search`]: its name, the level and the length of
/// a known winning plan (the generator's witness), if any.
#[derive(Clone, Debug)]
pub struct FlagSearchMap {
    pub name: String,
    pub level: flag::Config,
    pub witness_len: Option<usize>,
}

/// One map of the anytime search's benchmark.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlagSearchMapReport {
    pub map: String,
    pub size: String,
    pub fragile: usize,
    pub cracked: usize,
    pub stones: usize,
    /// `"solved"`, `"no solution"`, `"timeout"` or `"interrupted"`.
    pub verdict: String,
    /// The generator's witness length, when known.
    pub witness: Option<usize>,
    /// Moves of the first plan found, and of the plan the search ended with.
    pub first_moves: Option<usize>,
    pub moves: Option<usize>,
    /// The proven lower bound on a winning plan's length.
    pub lower_bound: Option<u32>,
    /// Whether `moves` is proven shortest (it equals the lower bound).
    pub(crate) optimal: bool,
    pub(crate) first_nodes: u64,
    pub first_ms: f64,
    pub nodes: u64,
    pub ms: f64,
}

/// The anytime search's figures over the maps of one board size.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlagSearchSizeReport {
    pub size: String,
    pub maps: usize,
    pub solved: usize,
    pub no_solution: usize,
    /// Time to the first plan over the solved maps (ms).
    pub first_ms_median: f64,
    pub first_ms_p90: f64,
    pub(crate) first_ms_max: f64,
    /// Nodes to the first plan over the solved maps (the same on any machine).
    pub first_nodes_median: f64,
    pub(crate) first_nodes_p90: f64,
    /// Solved maps with a witness whose final plan is no longer than it.
    pub within_witness: usize,
    /// Mean of final length / witness length, and of first length / witness
    /// length, over solved maps with a witness.
    pub final_over_witness: f64,
    pub first_over_witness: f64,
    /// Solved maps whose plan is proven shortest.
    pub optimal: usize,
}

/// `tickbot bench flag --planner search`'s report. The key names are a
/// documented interface.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlagSearchBenchReport {
    pub(crate) planner: String,
    pub improve_nodes: u64,
    pub limit_ms: f64,
    pub maps: usize,
    pub solved: usize,
    pub no_solution: usize,
    pub timeout: usize,
    /// Ctrl-C stopped the benchmark: the figures cover the finished maps.
    pub interrupted: bool,
    pub by_size: Vec<FlagSearchSizeReport>,
    pub per_map: Vec<FlagSearchMapReport>,
}

/// Runs the anytime search on each map once from its start, in order, on
/// this thread, each with `limit` of time (seed 0 for its tie-breaks);
/// a cancelled `budget` (Ctrl-C) stops the benchmark with the maps finished
/// so far.
pub fn bench_flag_search(
    maps: &[FlagSearchMap],
    settings: &SearchSettings,
    limit: Duration,
    budget: &Budget,
    progress: &Progress,
) -> FlagSearchBenchReport {
    let mut per_map = Vec::with_capacity(maps.len());
    let mut interrupted = false;
    for map in maps {
        let level = &map.level;
        let game = FlagGame::new(level, 0);
        let started = Instant::now();
        let tables = BoardTables::new(level);
        let result =
            anytime(&tables, game.visits(), game.position(), &budget.with_deadline(started + limit), settings, 0);
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let mut report = FlagSearchMapReport {
            map: map.name.clone(),
            size: format!("{}x{}", level.width(), level.height()),
            fragile: level.count(flag::Tile::Fragile),
            cracked: level.count(flag::Tile::Cracked),
            stones: level.count(flag::Tile::Stone),
            verdict: String::new(),
            witness: map.witness_len,
            first_moves: None,
            moves: None,
            lower_bound: None,
            optimal: false,
            first_nodes: 0,
            first_ms: 0.0,
            nodes: 0,
            ms,
        };
        match result {
            Ok(found) => {
                report.nodes = found.nodes;
                report.first_nodes = found.first_solution_nodes;
                report.first_ms = found.first_solution_us as f64 / 1000.0;
                match found.found {
                    Found::Plan { moves, first_len, proven_optimal } => {
                        report.verdict = "solved".to_string();
                        report.first_moves = Some(first_len);
                        report.moves = Some(moves.len());
                        report.lower_bound = Some(found.lower_bound);
                        report.optimal = proven_optimal;
                    }
                    Found::NoSolution => report.verdict = "no solution".to_string(),
                }
            }
            Err(unfinished) if unfinished.error == PlanError::Cancelled => {
                interrupted = true;
                break;
            }
            Err(unfinished) => {
                report.verdict = "timeout".to_string();
                report.nodes = unfinished.nodes;
                report.lower_bound = Some(unfinished.lower_bound);
            }
        }
        per_map.push(report);
        progress.advance(1);
    }
    let mut sizes: Vec<String> = Vec::new();
    for map in &per_map {
        if !sizes.contains(&map.size) {
            sizes.push(map.size.clone());
        }
    }
    let by_size = sizes.iter().map(|size| size_report(size, &per_map)).collect();
    FlagSearchBenchReport {
        planner: "search".to_string(),
        improve_nodes: settings.improve_nodes,
        limit_ms: limit.as_secs_f64() * 1000.0,
        maps: per_map.len(),
        solved: per_map.iter().filter(|map| map.moves.is_some()).count(),
        no_solution: per_map.iter().filter(|map| map.verdict == "no solution").count(),
        timeout: per_map.iter().filter(|map| map.verdict == "timeout").count(),
        interrupted,
        by_size,
        per_map,
    }
}

fn size_report(size: &str, per_map: &[FlagSearchMapReport]) -> FlagSearchSizeReport {
    let maps: Vec<&FlagSearchMapReport> = per_map.iter().filter(|map| map.size == size).collect();
    let solved: Vec<&FlagSearchMapReport> = maps.iter().copied().filter(|map| map.moves.is_some()).collect();
    let first_ms: Vec<f64> = solved.iter().map(|map| map.first_ms).collect();
    let first_nodes: Vec<f64> = solved.iter().map(|map| map.first_nodes as f64).collect();
    let with_witness: Vec<(usize, usize, usize)> =
        solved.iter().filter_map(|map| Some((map.first_moves?, map.moves?, map.witness?))).collect();
    let ratio = |pick: fn(&(usize, usize, usize)) -> f64| {
        stats::mean(&with_witness.iter().map(pick).collect::<Vec<f64>>()).unwrap_or(0.0)
    };
    let quantile = |values: &[f64], q| stats::quantile(values, q).unwrap_or(0.0);
    FlagSearchSizeReport {
        size: size.to_string(),
        maps: maps.len(),
        solved: solved.len(),
        no_solution: maps.iter().filter(|map| map.verdict == "no solution").count(),
        first_ms_median: quantile(&first_ms, 0.5),
        first_ms_p90: quantile(&first_ms, 0.9),
        first_ms_max: first_ms.iter().copied().fold(0.0, f64::max),
        first_nodes_median: quantile(&first_nodes, 0.5),
        first_nodes_p90: quantile(&first_nodes, 0.9),
        within_witness: with_witness.iter().filter(|(_, moves, witness)| moves <= witness).count(),
        final_over_witness: ratio(|&(_, moves, witness)| moves as f64 / witness as f64),
        first_over_witness: ratio(|&(first, _, witness)| first as f64 / witness as f64),
        optimal: solved.iter().filter(|map| map.optimal).count(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::Level;

    #[test]
    fn reports_count_what_they_ran() {
        let level = flag::Config::parse("start 0 0\n1111\n111F").unwrap();
        let settings = GaSettings { max_generations: 5_000, ..GaSettings::default() };
        let run = |threads| {
            let (budget, progress) = (Budget::unlimited(), Progress::default());
            let workers = Workers { threads, budget: &budget, progress: &progress };
            bench_flag_ga(&level, "tiny", &settings, 4, 0, &workers).unwrap()
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
