//! Sequential tests that stop a comparison as soon as it is decided: Wald's
//! SPRT on games won or lost, and the generalized SPRT (GSPRT) on outcomes
//! with draws (trinomial) and on pairs of games (pentanomial), with
//! hypotheses in logistic or normalized Elo, computed as fishtest computes
//! them. `docs/sprt.md` writes the maths down.
//!
//! A test is fed one observation at a time ([`Sprt::add_game`],
//! [`Sprt::add_pair`]) and asked for its [`Verdict`]. Work that finishes out
//! of order (threads, a resumed or sharded session) goes through a
//! [`SequentialTest`], which feeds observations in index order and keeps the
//! first decision, so the verdict and the number of games never depend on
//! scheduling. [`simulate`] checks the error rates by simulation, and
//! [`paired`] turns two one-player games on the same seed into one outcome.

mod estimate;
mod llr;
pub mod paired;
mod simulate;
mod spec;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

pub use estimate::EloEstimate;
pub use simulate::{SimulatedHypothesis, Simulation, SimulationError, SimulationSettings, simulate, simulate_at};
pub use spec::{Bounds, Hypotheses, SpecError, SprtSpec};

use llr::{NELO_PER_T, Statistic, gsprt_llr, logistic_score, wald_llr};

/// One game's result from the first side's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Points {
    Loss,
    Draw,
    Win,
}

impl Points {
    /// Half-points: 0, 1, 2; the index of its class among (loss, draw, win).
    pub fn half_points(self) -> usize {
        self as usize
    }

    /// The other side's result.
    pub fn reversed(self) -> Points {
        match self {
            Points::Loss => Points::Win,
            Points::Draw => Points::Draw,
            Points::Win => Points::Loss,
        }
    }

    /// The first side's result when the sides' measures compare as
    /// `ordering` (greater is better).
    pub fn of_ordering(ordering: std::cmp::Ordering) -> Points {
        match ordering {
            std::cmp::Ordering::Less => Points::Loss,
            std::cmp::Ordering::Equal => Points::Draw,
            std::cmp::Ordering::Greater => Points::Win,
        }
    }
}

/// What one observation of a test is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// A single game: the GSPRT counts losses, draws and wins (trinomial).
    Games,
    /// Two games played together (the same seed, seats swapped): the GSPRT
    /// counts the pair's sum of points, 0 to 4 half-points (pentanomial),
    /// which keeps what the two games share out of the variance.
    Pairs,
}

/// What a test says now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// The LLR reached its lower bound: H0 accepted.
    H0,
    /// The LLR reached its upper bound: H1 accepted.
    H1,
    /// Between the bounds: more games are needed.
    #[serde(rename = "continue")]
    Continue,
}

/// A sequential test's state: its settings and the outcomes counted so far.
/// Rebuilt from a results file by feeding the same observations again.
#[derive(Clone, Debug, PartialEq)]
pub struct Sprt {
    spec: SprtSpec,
    unit: Unit,
    /// Losses, draws and wins over all games.
    games: [u64; 3],
    /// Pairs by their sum of half-points (only for [`Unit::Pairs`]).
    pairs: [u64; 5],
}

impl Sprt {
    pub fn new(spec: SprtSpec, unit: Unit) -> Sprt {
        Sprt { spec, unit, games: [0; 3], pairs: [0; 5] }
    }

    pub fn spec(&self) -> &SprtSpec {
        &self.spec
    }

    pub fn unit(&self) -> Unit {
        self.unit
    }

    /// Counts one game of a test over [`Unit::Games`]. (A test over pairs
    /// counts whole pairs only: use [`Sprt::add_pair`].)
    pub fn add_game(&mut self, points: Points) {
        debug_assert_eq!(self.unit, Unit::Games, "a test over pairs counts whole pairs");
        self.games[points.half_points()] += 1;
    }

    /// Counts two games played together; in a test over games, two games.
    pub fn add_pair(&mut self, first: Points, second: Points) {
        self.games[first.half_points()] += 1;
        self.games[second.half_points()] += 1;
        self.pairs[first.half_points() + second.half_points()] += 1;
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.games.iter().sum()
    }

    /// Observations counted: games, or pairs.
    pub fn observations(&self) -> u64 {
        match self.unit {
            Unit::Games => self.games(),
            Unit::Pairs => self.pairs.iter().sum(),
        }
    }

    /// The counts the GSPRT and the estimate use: (losses, draws, wins), or
    /// pairs by half-points.
    fn counts(&self) -> &[u64] {
        match self.unit {
            Unit::Games => &self.games,
            Unit::Pairs => &self.pairs,
        }
    }

    /// The log-likelihood ratio of H1 against H0 so far: 0 before the
    /// first observation. (Also 0, so that the test goes on, should the
    /// normalized-Elo fit find no solution: the spec's limit of ±200 keeps
    /// every hypothesis within its reach.)
    pub fn llr(&self) -> f64 {
        let [losses, _, wins] = self.games;
        let statistic = match self.spec.hypotheses {
            Hypotheses::WinRate { p0, p1 } => return wald_llr(wins, losses, p0, p1),
            Hypotheses::LogisticElo { elo0, elo1 } => {
                Statistic::Expectation { s0: logistic_score(elo0), s1: logistic_score(elo1) }
            }
            Hypotheses::NormalizedElo { nelo0, nelo1 } => {
                // A pair's score is the mean of two games: its t-value is sqrt(2) times a game's.
                let scale = if self.unit == Unit::Pairs { 2f64.sqrt() } else { 1.0 };
                Statistic::TValue { t0: nelo0 / NELO_PER_T * scale, t1: nelo1 / NELO_PER_T * scale }
            }
        };
        gsprt_llr(self.counts(), statistic).unwrap_or(0.0)
    }

    pub fn bounds(&self) -> Bounds {
        self.spec.bounds()
    }

    pub fn verdict(&self) -> Verdict {
        let (llr, bounds) = (self.llr(), self.bounds());
        if llr >= bounds.upper {
            Verdict::H1
        } else if llr <= bounds.lower {
            Verdict::H0
        } else {
            Verdict::Continue
        }
    }

    /// Everything a report shows.
    pub fn status(&self) -> SprtStatus {
        let counts = self.counts();
        let variance = estimate::mean_and_variance(counts).map_or(0.0, |(_, variance)| variance);
        let per_observation = if self.unit == Unit::Pairs { 2 } else { 1 };
        SprtStatus {
            spec: self.spec.to_string(),
            test: self.spec.hypotheses.describe(),
            unit: self.unit,
            llr: self.llr(),
            bounds: self.bounds(),
            verdict: self.verdict(),
            games: self.games(),
            observations: self.observations(),
            losses_draws_wins: self.games,
            pentanomial: (self.unit == Unit::Pairs).then_some(self.pairs),
            estimate: estimate::estimate(counts),
            fixed_size_games: estimate::fixed_size_games(&self.spec, variance, per_observation),
        }
    }
}

/// A test's state as reports show it (the key names are a documented
/// interface of `--json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SprtStatus {
    /// The settings, as `elo0=0,elo1=5,alpha=0.05,beta=0.05`.
    pub spec: String,
    /// Which test, in a few words.
    pub test: &'static str,
    pub unit: Unit,
    pub llr: f64,
    pub bounds: Bounds,
    pub verdict: Verdict,
    pub games: u64,
    /// Games, or pairs for a test over pairs.
    pub observations: u64,
    pub losses_draws_wins: [u64; 3],
    /// Pairs by their sum of half-points (LL, LD, LW or DD, DW, WW).
    pub pentanomial: Option<[u64; 5]>,
    /// The strength difference the counts show (`None` before any game).
    pub estimate: Option<EloEstimate>,
    /// Games a fixed-size test with the same alpha and beta would need, at
    /// the variance observed (for p0/p1, the binomial one).
    pub fixed_size_games: Option<f64>,
}

/// One observation of a [`SequentialTest`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observation {
    Game(Points),
    Pair(Points, Points),
}

/// When and how a test decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// [`Verdict::H0`] or [`Verdict::H1`].
    pub verdict: Verdict,
    /// Observations counted when it decided: observations `0..observations`.
    pub observations: u64,
}

/// A test fed observations numbered from 0, in any order: they are counted
/// in index order, the verdict is looked at after each, and the first
/// decision is final. Observations after it are ignored, so the verdict and
/// the games it took are the same however the work was scheduled, however
/// often it was interrupted and resumed, and however it was split.
#[derive(Clone, Debug)]
pub struct SequentialTest {
    sprt: Sprt,
    /// The index of the next observation to count.
    next: u64,
    /// Observations that arrived before some earlier one.
    waiting: BTreeMap<u64, Observation>,
    decision: Option<Decision>,
}

impl SequentialTest {
    pub fn new(sprt: Sprt) -> SequentialTest {
        SequentialTest { sprt, next: 0, waiting: BTreeMap::new(), decision: None }
    }

    /// Records observation `index`; counts it and any waiting ones after it
    /// once every earlier one is in. Returns the decision if there is one.
    /// An index already recorded, or any after the decision, is ignored.
    pub fn record(&mut self, index: u64, observation: Observation) -> Option<Decision> {
        if self.decision.is_none() && index >= self.next {
            self.waiting.entry(index).or_insert(observation);
        }
        while self.decision.is_none() {
            let Some(observation) = self.waiting.remove(&self.next) else { break };
            match observation {
                Observation::Game(points) => self.sprt.add_game(points),
                Observation::Pair(first, second) => self.sprt.add_pair(first, second),
            }
            self.next += 1;
            let verdict = self.sprt.verdict();
            if verdict != Verdict::Continue {
                self.decision = Some(Decision { verdict, observations: self.next });
                self.waiting.clear();
            }
        }
        self.decision
    }

    pub fn decision(&self) -> Option<Decision> {
        self.decision
    }

    /// The test over the observations counted: up to the decision, or the
    /// unbroken run from 0 so far.
    pub fn sprt(&self) -> &Sprt {
        &self.sprt
    }

    /// Observations recorded but not counted: some earlier one is missing.
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }
}

/// The latest LLR of a running test, shared with whoever draws it (the
/// binary's progress bar): the library stores, never prints.
#[derive(Clone, Debug, Default)]
pub struct LlrGauge {
    bits: Arc<AtomicU64>,
    games: Arc<AtomicU64>,
}

impl LlrGauge {
    pub(crate) fn set(&self, llr: f64, games: u64) {
        self.bits.store(llr.to_bits(), Ordering::Relaxed);
        self.games.store(games, Ordering::Relaxed);
    }

    /// The LLR and the games it counts.
    pub fn get(&self) -> (f64, u64) {
        (f64::from_bits(self.bits.load(Ordering::Relaxed)), self.games.load(Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests;
