//! Two one-player games on the same seed (the same board, food or puzzle)
//! compared: which side did better, as a loss, draw or win for the
//! sequential tests, and the difference of their measures, summed into a
//! paired interval of the mean difference and a sign test. Pairing removes
//! what the seed decides (an easy board is easy for both), so it needs far
//! fewer games than comparing two independent win rates.

use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::Points;
use crate::stats::{Moments, two_sided_p_value};

/// What two games on the same seed are compared by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Measure {
    /// The game's score (Snake's length, tiles or pipe ends in place):
    /// higher is better, over every pair.
    Score,
    /// Ticks to win (Snake's moves to fill the board, a puzzle's plan
    /// length): fewer is better. A won game beats one not won; two games not
    /// won draw and have no difference to average.
    Ticks,
    /// Whether the game was won (LOCM, where "won" is seat 0's win): a won
    /// game beats one not won. The difference (1, 0 or -1) averages to the
    /// difference of the win rates on the same seeds.
    Won,
}

impl FromStr for Measure {
    type Err = String;

    fn from_str(text: &str) -> Result<Measure, String> {
        match text.trim() {
            "score" => Ok(Measure::Score),
            "ticks" => Ok(Measure::Ticks),
            "won" => Ok(Measure::Won),
            other => Err(format!("{other:?} is not a measure: use score, ticks or won")),
        }
    }
}

impl Measure {
    pub fn name(self) -> &'static str {
        match self {
            Measure::Score => "score",
            Measure::Ticks => "ticks",
            Measure::Won => "won",
        }
    }
}

/// What one game of a pair shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairedGame {
    pub won: bool,
    pub score: i64,
    pub ticks: u32,
}

/// A's result against B on the same seed, and the difference A - B in the
/// measure's units where there is one to average.
pub fn compare(measure: Measure, a: &PairedGame, b: &PairedGame) -> (Points, Option<f64>) {
    match measure {
        Measure::Score => (Points::of_ordering(a.score.cmp(&b.score)), Some(a.score as f64 - b.score as f64)),
        Measure::Ticks => match (a.won, b.won) {
            (true, true) => (Points::of_ordering(b.ticks.cmp(&a.ticks)), Some(f64::from(a.ticks) - f64::from(b.ticks))),
            (true, false) => (Points::Win, None),
            (false, true) => (Points::Loss, None),
            (false, false) => (Points::Draw, None),
        },
        Measure::Won => {
            (Points::of_ordering(a.won.cmp(&b.won)), Some(f64::from(u8::from(a.won)) - f64::from(u8::from(b.won))))
        }
    }
}

/// Pairs summed up as they come.
#[derive(Clone, Debug, Default)]
pub struct PairedSummary {
    /// Pairs A won, drew and lost.
    points: [u64; 3],
    differences: Moments,
    difference_sum: f64,
    counted: u64,
}

impl PairedSummary {
    pub fn add(&mut self, points: Points, difference: Option<f64>) {
        self.points[points.half_points()] += 1;
        if let Some(difference) = difference {
            self.differences.add(difference);
            self.difference_sum += difference;
            self.counted += 1;
        }
    }

    pub fn report(&self, measure: Measure) -> PairedReport {
        let [b_better, equal, a_better] = self.points;
        let decisive = a_better + b_better;
        // The sign test by its normal approximation: under "no difference"
        // A wins half of the decisive pairs.
        let z = if decisive == 0 { 0.0 } else { (a_better as f64 - b_better as f64) / (decisive as f64).sqrt() };
        let sign_test_p = two_sided_p_value(z);
        let mean_difference = self.difference_sum / self.counted.max(1) as f64;
        let (low, high) = self.differences.mean_interval();
        let half_width = (high - low) / 2.0;
        PairedReport {
            measure,
            pairs: a_better + equal + b_better,
            a_better,
            equal,
            b_better,
            differences: self.counted,
            mean_difference,
            difference_interval: (mean_difference - half_width, mean_difference + half_width),
            sign_test_p,
            significant: sign_test_p < 0.05,
        }
    }
}

/// Two sides compared pair by pair (the key names are a documented
/// interface of `stats --json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairedReport {
    pub measure: Measure,
    /// Seeds both sides played.
    pub pairs: u64,
    /// Pairs where A did better, as well, worse.
    pub a_better: u64,
    pub equal: u64,
    pub b_better: u64,
    /// Pairs with a difference to average (every pair for the score; pairs
    /// both sides won for ticks).
    pub differences: u64,
    /// The mean of A - B over those pairs, with its 95% interval (normal
    /// approximation of the paired differences).
    pub mean_difference: f64,
    pub difference_interval: (f64, f64),
    /// The two-sided sign test (normal approximation) on the decisive pairs.
    pub sign_test_p: f64,
    pub significant: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(won: bool, score: i64, ticks: u32) -> PairedGame {
        PairedGame { won, score, ticks }
    }

    #[test]
    fn pairs_compare_by_the_measure_in_its_direction() {
        let (won_fast, won_slow, lost) = (game(true, 36, 100), game(true, 36, 140), game(false, 20, 90));
        assert_eq!(compare(Measure::Ticks, &won_fast, &won_slow), (Points::Win, Some(-40.0)));
        assert_eq!(compare(Measure::Ticks, &won_slow, &won_fast), (Points::Loss, Some(40.0)));
        assert_eq!(compare(Measure::Ticks, &lost, &won_fast), (Points::Loss, None));
        assert_eq!(compare(Measure::Ticks, &lost, &lost), (Points::Draw, None));
        assert_eq!(compare(Measure::Score, &won_slow, &lost), (Points::Win, Some(16.0)));
        assert_eq!(compare(Measure::Score, &won_fast, &won_slow), (Points::Draw, Some(0.0)));
        assert_eq!("ticks".parse(), Ok(Measure::Ticks));
        assert_eq!(compare(Measure::Won, &won_slow, &lost), (Points::Win, Some(1.0)));
        assert_eq!(compare(Measure::Won, &won_slow, &won_fast), (Points::Draw, Some(0.0)));
        assert_eq!(compare(Measure::Won, &lost, &won_fast), (Points::Loss, Some(-1.0)));
        assert!("length".parse::<Measure>().unwrap_err().contains("use score, ticks or won"));
    }

    #[test]
    fn the_paired_report_matches_hand_computed_figures() {
        let mut summary = PairedSummary::default();
        for difference in [3.0, 1.0, 0.0, 4.0, 2.0, -1.0, 5.0, 2.0] {
            summary.add(Points::of_ordering(f64::total_cmp(&difference, &0.0)), Some(difference));
        }
        let report = summary.report(Measure::Score);
        assert_eq!((report.pairs, report.a_better, report.equal, report.b_better), (8, 6, 1, 1));
        assert!((report.mean_difference - 2.0).abs() < 1e-15);
        // Squared deviations from the mean 2 sum to 28: sample deviation
        // sqrt(28 / 7) = 2, half-width 1.96 * 2 / sqrt(8).
        let half_width = 1.959_963_984_540_054 * 2.0 / 8f64.sqrt();
        assert!((report.difference_interval.1 - 2.0 - half_width).abs() < 1e-12, "{report:?}");
        // Sign test: z = (6 - 1) / sqrt 7 = 1.8898, p = 0.0588.
        assert!((report.sign_test_p - 0.0588).abs() < 1e-4 && !report.significant, "{report:?}");
    }
}
