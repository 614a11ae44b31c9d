//! Checking a test's error rates by simulation: many sequential tests on
//! outcomes drawn (from seeded [`GameRng`] streams) at exactly H0 and at
//! exactly H1, counting how often each hypothesis is wrongly accepted and
//! how many games the tests take. Each simulated test is the real [`Sprt`]
//! fed one observation at a time, so this checks the code the matches use.

use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use super::llr::{NELO_PER_T, logistic_score};
use super::{Hypotheses, Points, Sprt, SprtSpec, Unit, Verdict, estimate};
use crate::progress::Progress;
use crate::rng::{GameRng, derive_seed};
use crate::stats::{quantile, wilson_interval};

/// How to simulate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SimulationSettings {
    /// Sequential tests at each hypothesis.
    pub runs: u64,
    /// A test still undecided after this many games stops undecided.
    pub max_games: u64,
    pub seed: u64,
    /// Each game is drawn with this probability; the rest are decided, so
    /// that the expected score (or win rate of decisive games) is the
    /// hypothesis's.
    pub draw_rate: f64,
    /// Single games, or pairs of independent games.
    pub unit: Unit,
}

/// Why a simulation could not be set up.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SimulationError {
    #[error(
        "a draw rate of {draw_rate} cannot give an expected score of {score:.4}: draws count half, so at most {max:.4}"
    )]
    DrawRate { draw_rate: f64, score: f64, max: f64 },
    #[error("the draw rate must be at least 0 and below 1, not {0}")]
    DrawRateRange(f64),
    #[error("no outcome distribution with {draw_rate} draws has normalized Elo {nelo}")]
    NormalizedElo { nelo: f64, draw_rate: f64 },
    #[error("a win probability of {0} is not strictly between 0 and 1")]
    WinRate(f64),
}

/// Tests simulated at one hypothesis.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimulatedHypothesis {
    /// The hypothesis's value (p, Elo or normalized Elo) and the chances of
    /// a loss, a draw and a win it gives one game.
    pub value: f64,
    pub game_chances: [f64; 3],
    pub runs: u64,
    pub accepted_h0: u64,
    pub accepted_h1: u64,
    pub undecided: u64,
    /// The share of runs that accepted the wrong hypothesis (alpha's
    /// estimate at H0, beta's at H1), with its 95% Wilson interval.
    pub error_rate: f64,
    pub error_interval: (f64, f64),
    /// What the test was designed for: alpha at H0, beta at H1.
    pub designed_error: f64,
    /// Games per test: the average sample number, median, 90th percentile.
    pub mean_games: f64,
    pub median_games: f64,
    pub p90_games: f64,
}

/// A simulation's report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Simulation {
    pub spec: String,
    pub settings: SimulationSettings,
    pub at_h0: SimulatedHypothesis,
    pub at_h1: SimulatedHypothesis,
    /// Games a fixed-size test with the same alpha and beta needs at the
    /// simulated outcomes' variance (at the midpoint of the hypotheses).
    pub fixed_size_games: Option<f64>,
    /// Ctrl-C stopped it: the figures cover the runs finished.
    pub interrupted: bool,
}

/// Runs `settings.runs` sequential tests of `spec` at H0 and as many at H1;
/// run `r` at H0 draws from the stream of seed `derive(seed, 2r)`, at H1
/// `derive(seed, 2r + 1)`. Counts finished tests into `progress` and stops
/// early once `cancel` is set.
pub fn simulate(
    spec: &SprtSpec,
    settings: &SimulationSettings,
    progress: &Progress,
    cancel: &AtomicBool,
) -> Result<Simulation, SimulationError> {
    if !(0.0..1.0).contains(&settings.draw_rate) {
        return Err(SimulationError::DrawRateRange(settings.draw_rate));
    }
    let (h0, h1) = spec.hypotheses.values();
    let chances0 = game_chances(spec.hypotheses, h0, settings.draw_rate)?;
    let chances1 = game_chances(spec.hypotheses, h1, settings.draw_rate)?;
    progress.set_total(progress.total() + 2 * settings.runs);
    let mut interrupted = false;
    let mut at = |value: f64, chances: [f64; 3], parity: u64, designed_error: f64| {
        let seed_of = |run: u64| derive_seed(settings.seed, 2 * run + parity);
        let (verdicts, games, stopped) = run_tests(spec, settings, chances, seed_of, progress, cancel);
        interrupted |= stopped;
        summarise(value, chances, verdicts, &games, parity, designed_error)
    };
    let at_h0 = at(h0, chances0, 0, spec.alpha);
    let at_h1 = at(h1, chances1, 1, spec.beta);
    let midpoint = std::array::from_fn(|i| (chances0[i] + chances1[i]) / 2.0);
    let per_observation = if settings.unit == Unit::Pairs { 2 } else { 1 };
    let variance = game_variance(midpoint) / per_observation as f64;
    Ok(Simulation {
        spec: spec.to_string(),
        settings: *settings,
        at_h0,
        at_h1,
        fixed_size_games: estimate::fixed_size_games(spec, variance, per_observation),
        interrupted,
    })
}

/// Runs `settings.runs` tests of `spec` on outcomes drawn at `value` (a
/// planted strength anywhere, not only a hypothesis), run `r` from the
/// stream of seed `derive(derive(seed, 2^64 - 1 - k), r)` for the `k`-th
/// planted value. Its `error_rate` is the share that accepted H1 and its
/// `designed_error` is not a design (NaN). Returns `None` if interrupted.
pub fn simulate_at(
    spec: &SprtSpec,
    settings: &SimulationSettings,
    value: f64,
    k: u64,
    progress: &Progress,
    cancel: &AtomicBool,
) -> Result<Option<SimulatedHypothesis>, SimulationError> {
    let chances = game_chances(spec.hypotheses, value, settings.draw_rate)?;
    progress.set_total(progress.total() + settings.runs);
    let stream = derive_seed(settings.seed, u64::MAX - k);
    let (verdicts, games, stopped) =
        run_tests(spec, settings, chances, |run| derive_seed(stream, run), progress, cancel);
    Ok((!stopped).then(|| summarise(value, chances, verdicts, &games, 0, f64::NAN)))
}

/// Verdict counts (H0, H1, undecided) and games of `settings.runs` tests on
/// `chances`, run `r` seeded by `seed_of(r)`; whether `cancel` stopped it.
fn run_tests(
    spec: &SprtSpec,
    settings: &SimulationSettings,
    chances: [f64; 3],
    seed_of: impl Fn(u64) -> u64,
    progress: &Progress,
    cancel: &AtomicBool,
) -> ([u64; 3], Vec<f64>, bool) {
    let mut games = Vec::new();
    let mut verdicts = [0u64; 3];
    for run in 0..settings.runs {
        if cancel.load(Ordering::Relaxed) {
            return (verdicts, games, true);
        }
        let mut rng = GameRng::from_seed(seed_of(run));
        let (verdict, played) = one_test(spec, settings, chances, &mut rng);
        verdicts[verdict as usize] += 1;
        games.push(played as f64);
        progress.advance(1);
    }
    (verdicts, games, false)
}

/// One test until it decides or reaches `max_games`: its verdict and games.
fn one_test(spec: &SprtSpec, settings: &SimulationSettings, chances: [f64; 3], rng: &mut GameRng) -> (Verdict, u64) {
    let mut sprt = Sprt::new(*spec, settings.unit);
    loop {
        match settings.unit {
            Unit::Games => sprt.add_game(draw_game(chances, rng)),
            Unit::Pairs => {
                let first = draw_game(chances, rng);
                sprt.add_pair(first, draw_game(chances, rng));
            }
        }
        let verdict = sprt.verdict();
        if verdict != Verdict::Continue || sprt.games() >= settings.max_games {
            return (verdict, sprt.games());
        }
    }
}

fn summarise(
    value: f64,
    game_chances: [f64; 3],
    verdicts: [u64; 3],
    games: &[f64],
    parity: u64,
    designed_error: f64,
) -> SimulatedHypothesis {
    let [accepted_h0, accepted_h1, undecided] = verdicts;
    let runs = games.len() as u64;
    let errors = if parity == 0 { accepted_h1 } else { accepted_h0 };
    SimulatedHypothesis {
        value,
        game_chances,
        runs,
        accepted_h0,
        accepted_h1,
        undecided,
        error_rate: errors as f64 / runs.max(1) as f64,
        error_interval: wilson_interval(errors, runs).unwrap_or((0.0, 1.0)),
        designed_error,
        mean_games: games.iter().sum::<f64>() / runs.max(1) as f64,
        median_games: quantile(games, 0.5).unwrap_or(0.0),
        p90_games: quantile(games, 0.9).unwrap_or(0.0),
    }
}

/// A uniform draw in [0, 1) from the top 53 bits of one word.
fn unit_interval(rng: &mut GameRng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

fn draw_game(chances: [f64; 3], rng: &mut GameRng) -> Points {
    let u = unit_interval(rng);
    if u < chances[0] {
        Points::Loss
    } else if u < chances[0] + chances[1] {
        Points::Draw
    } else {
        Points::Win
    }
}

/// The variance of one game's score (0, 1/2, 1) under `chances`.
fn game_variance(chances: [f64; 3]) -> f64 {
    let mean = chances[1] / 2.0 + chances[2];
    chances[0] * mean * mean + chances[1] * (0.5 - mean).powi(2) + chances[2] * (1.0 - mean).powi(2)
}

/// The chances of a loss, a draw and a win at hypothesis value `value`,
/// with `draw_rate` draws.
fn game_chances(hypotheses: Hypotheses, value: f64, draw_rate: f64) -> Result<[f64; 3], SimulationError> {
    let with_score = |score: f64| {
        let max = 1.0 - draw_rate / 2.0;
        if score > max || score < 1.0 - max {
            return Err(SimulationError::DrawRate { draw_rate, score, max });
        }
        Ok([1.0 - score - draw_rate / 2.0, draw_rate, score - draw_rate / 2.0])
    };
    match hypotheses {
        Hypotheses::WinRate { .. } if !(value > 0.0 && value < 1.0) => Err(SimulationError::WinRate(value)),
        Hypotheses::WinRate { .. } => Ok([(1.0 - value) * (1.0 - draw_rate), draw_rate, value * (1.0 - draw_rate)]),
        Hypotheses::LogisticElo { .. } => with_score(logistic_score(value)),
        Hypotheses::NormalizedElo { .. } => {
            // The t-value rises with the score: bisect for the score whose
            // (score - 1/2) / sigma is the hypothesis's.
            let target = value / NELO_PER_T;
            let t_of = |score: f64| {
                let chances = [1.0 - score - draw_rate / 2.0, draw_rate, score - draw_rate / 2.0];
                (score - 0.5) / game_variance(chances).sqrt()
            };
            let (mut low, mut high) = (draw_rate / 2.0 + 1e-12, 1.0 - draw_rate / 2.0 - 1e-12);
            if !(t_of(low) < target && target < t_of(high)) {
                return Err(SimulationError::NormalizedElo { nelo: value, draw_rate });
            }
            for _ in 0..200 {
                let middle = (low + high) / 2.0;
                if t_of(middle) < target { low = middle } else { high = middle }
            }
            with_score((low + high) / 2.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(spec: &str, unit: Unit, runs: u64, draw_rate: f64) -> Simulation {
        let settings = SimulationSettings { runs, max_games: 100_000, seed: 11, draw_rate, unit };
        simulate(&spec.parse().unwrap(), &settings, &Progress::default(), &AtomicBool::new(false)).unwrap()
    }

    /// The observed error rates stay within Wald's bounds: an SPRT whose
    /// LLR may overshoot its bounds has errors at most alpha / (1 - beta)
    /// and beta / (1 - alpha), and in practice below alpha and beta. With
    /// the simulation's sampling error, the lower end of each observed
    /// rate's 95% interval lies below the design, and its average sample
    /// number is below that of the fixed-size test.
    #[track_caller]
    fn check_within_bounds(simulation: &Simulation) {
        for at in [&simulation.at_h0, &simulation.at_h1] {
            assert!(at.error_interval.0 <= at.designed_error, "{simulation:#?}");
            assert!(at.error_rate > 0.0, "a test that never errs is suspicious: {simulation:#?}");
            assert_eq!(at.undecided, 0, "{simulation:#?}");
            assert!(at.mean_games < simulation.fixed_size_games.unwrap(), "{simulation:#?}");
        }
    }

    #[test]
    fn wald_sprt_keeps_its_error_rates() {
        check_within_bounds(&run("p0=0.5,p1=0.6", Unit::Games, 2000, 0.0));
        check_within_bounds(&run("p0=0.5,p1=0.6,alpha=0.1,beta=0.2", Unit::Games, 2000, 0.0));
    }

    #[test]
    fn the_gsprt_keeps_its_error_rates_on_games_with_draws_and_on_pairs() {
        check_within_bounds(&run("elo0=0,elo1=60", Unit::Games, 1000, 0.3));
        check_within_bounds(&run("elo0=0,elo1=60", Unit::Pairs, 1000, 0.0));
        check_within_bounds(&run("nelo0=0,nelo1=60", Unit::Pairs, 1000, 0.2));
    }

    #[test]
    fn a_planted_strength_beyond_h1_accepts_h1_more_often_and_sooner() {
        let spec: SprtSpec = "elo0=0,elo1=40".parse().unwrap();
        let settings = SimulationSettings { runs: 300, max_games: 100_000, seed: 5, draw_rate: 0.2, unit: Unit::Games };
        let (progress, cancel) = (Progress::default(), AtomicBool::new(false));
        let at = |value: f64, k: u64| simulate_at(&spec, &settings, value, k, &progress, &cancel).unwrap().unwrap();
        let (at_h1, beyond) = (at(40.0, 0), at(80.0, 1));
        assert!(beyond.error_rate > at_h1.error_rate && beyond.mean_games < at_h1.mean_games, "{beyond:?} {at_h1:?}");
        assert_eq!(beyond.accepted_h0 + beyond.accepted_h1 + beyond.undecided, 300);
        // The same planted value with the same k is the same simulation.
        let again = at(80.0, 1);
        assert_eq!((again.accepted_h1, again.mean_games), (beyond.accepted_h1, beyond.mean_games));
    }

    #[test]
    fn simulations_depend_only_on_their_seed_and_chances_follow_the_hypotheses() {
        assert_eq!(run("p0=0.5,p1=0.6", Unit::Games, 50, 0.0), run("p0=0.5,p1=0.6", Unit::Games, 50, 0.0));
        let chances = game_chances(Hypotheses::LogisticElo { elo0: 0.0, elo1: 1.0 }, 100.0, 0.2).unwrap();
        assert!((chances[1] / 2.0 + chances[2] - logistic_score(100.0)).abs() < 1e-15);
        let chances = game_chances(Hypotheses::NormalizedElo { nelo0: 0.0, nelo1: 1.0 }, 50.0, 0.3).unwrap();
        let t = (chances[1] / 2.0 + chances[2] - 0.5) / game_variance(chances).sqrt();
        assert!((t * NELO_PER_T - 50.0).abs() < 1e-9, "{chances:?}");
        assert!(matches!(
            game_chances(Hypotheses::LogisticElo { elo0: 0.0, elo1: 1.0 }, 900.0, 0.5),
            Err(SimulationError::DrawRate { .. })
        ));
        assert_eq!(
            game_chances(Hypotheses::WinRate { p0: 0.5, p1: 0.6 }, 1.5, 0.0),
            Err(SimulationError::WinRate(1.5))
        );
    }
}
