//! What counts of outcomes say about the strength difference: the Elo
//! estimate with its 95% interval, normalized Elo, the likelihood of
//! superiority; and how many games a fixed-size test with the same error
//! rates would need.

use serde::Serialize;

use super::llr::{NELO_PER_T, logistic_elo, logistic_score};
use super::spec::{Hypotheses, SprtSpec};
use crate::stats::two_sided_p_value;

/// The strength difference the counts show, from the first side's view.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EloEstimate {
    /// The mean score per game, draws counting half.
    pub score: f64,
    /// Logistic Elo of that score, with the 95% interval of the score
    /// (normal approximation) mapped to Elo.
    pub elo: f64,
    pub elo_interval: (f64, f64),
    /// Normalized Elo ((score - 1/2) / standard deviation per game, scaled
    /// by 800 / ln 10); `None` when every observation is alike.
    pub nelo: Option<f64>,
    pub nelo_interval: Option<(f64, f64)>,
    /// The likelihood of superiority: the normal-approximation probability
    /// that the first side is the stronger.
    pub los: f64,
}

/// The two-sided 95% normal quantile.
const Z95: f64 = 1.959_963_984_540_054;

/// The estimate from outcome counts (losses, draws, wins; or the five sums
/// of pairs of games), the plain one of a fixed sample: after a sequential
/// test stops early it leans towards the hypothesis accepted. `None` for no
/// observations.
pub(crate) fn estimate(counts: &[u64]) -> Option<EloEstimate> {
    let (score, variance) = mean_and_variance(counts)?;
    let (n, classes) = (counts.iter().sum::<u64>() as f64, counts.len());
    let standard_error = (variance / n).sqrt();
    let (low, high) = (score - Z95 * standard_error, score + Z95 * standard_error);
    // A pair's score is the mean of two games: a game's deviation is sqrt(2) times the pair's.
    let per_game_sigma = if classes == 5 { (2.0 * variance).sqrt() } else { variance.sqrt() };
    let nelo_of = |s: f64| (s - 0.5) / per_game_sigma * NELO_PER_T;
    let z = if standard_error > 0.0 { (score - 0.5) / standard_error } else { 0.0 };
    let los = match z {
        _ if standard_error == 0.0 => match score.partial_cmp(&0.5) {
            Some(std::cmp::Ordering::Greater) => 1.0,
            Some(std::cmp::Ordering::Less) => 0.0,
            _ => 0.5,
        },
        z if z >= 0.0 => 1.0 - two_sided_p_value(z) / 2.0,
        z => two_sided_p_value(z) / 2.0,
    };
    let spread = per_game_sigma > 0.0;
    Some(EloEstimate {
        score,
        elo: logistic_elo(score),
        elo_interval: (logistic_elo(low), logistic_elo(high)),
        nelo: spread.then(|| nelo_of(score)),
        nelo_interval: spread.then(|| (nelo_of(low), nelo_of(high))),
        los,
    })
}

/// The mean score of one observation (class `i` of `k` scoring
/// `i / (k - 1)`) and its variance; `None` for no observations.
pub(crate) fn mean_and_variance(counts: &[u64]) -> Option<(f64, f64)> {
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return None;
    }
    let value = |i: usize| i as f64 / (counts.len() - 1) as f64;
    let mean = counts.iter().enumerate().map(|(i, &count)| count as f64 * value(i)).sum::<f64>() / n as f64;
    let variance =
        counts.iter().enumerate().map(|(i, &count)| count as f64 * (value(i) - mean).powi(2)).sum::<f64>() / n as f64;
    Some((mean, variance))
}

/// The standard normal quantile of `p` (0 < p < 1): Acklam's rational
/// approximation (relative error below 1.2e-9), written out because it is
/// a dozen constants and only the fixed-size comparison needs it.
pub(crate) fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] =
        [7.784_695_709_041_462e-3, 3.224_671_290_700_398e-1, 2.445_134_137_142_996, 3.754_408_661_907_416];
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    const LOW: f64 = 0.024_25;
    if p < LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - LOW {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// Games a fixed-size one-sided test with the same error rates needs: the
/// n at which a z-test of H0 at level alpha has power 1 - beta at H1.
/// `variance` is the variance of one observation's score and
/// `games_per_observation` 1 for games, 2 for pairs; Wald's hypotheses use
/// the binomial variance under each instead. `None` for a spread of 0.
pub(crate) fn fixed_size_games(spec: &SprtSpec, variance: f64, games_per_observation: u64) -> Option<f64> {
    let (z_alpha, z_beta) = (normal_quantile(1.0 - spec.alpha), normal_quantile(1.0 - spec.beta));
    let observations = match spec.hypotheses {
        Hypotheses::WinRate { p0, p1 } => {
            let spread = z_alpha * (p0 * (1.0 - p0)).sqrt() + z_beta * (p1 * (1.0 - p1)).sqrt();
            return Some((spread / (p1 - p0)).powi(2));
        }
        _ if variance <= 0.0 => return None,
        Hypotheses::LogisticElo { elo0, elo1 } => {
            let gap = logistic_score(elo1) - logistic_score(elo0);
            ((z_alpha + z_beta) * variance.sqrt() / gap).powi(2)
        }
        Hypotheses::NormalizedElo { nelo0, nelo1 } => {
            // A t-value gap of (nelo1 - nelo0) / NELO_PER_T per game is that
            // many standard deviations of one game's score.
            let gap_in_sigmas = (nelo1 - nelo0) / NELO_PER_T;
            let per_observation = if games_per_observation == 2 { 2f64.sqrt() } else { 1.0 };
            ((z_alpha + z_beta) / (gap_in_sigmas * per_observation)).powi(2)
        }
    };
    Some(observations * games_per_observation as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_normal_quantile_matches_tables() {
        for (p, z) in
            [(0.5, 0.0), (0.975, 1.959_963_985), (0.95, 1.644_853_627), (0.01, -2.326_347_874), (1e-6, -4.753_424_309)]
        {
            assert!((normal_quantile(p) - z).abs() < 1e-8, "{p}: {}", normal_quantile(p));
        }
    }

    #[test]
    fn estimates_match_hand_computed_values() {
        // 30 wins, 10 draws, 20 losses: score 35 / 60; per-game variance
        // (20 * (7/12)^2 + 10 * (1/12)^2 + 30 * (5/12)^2) / 60 = 0.2014.
        let estimate = estimate(&[20, 10, 30]).unwrap();
        let score = 35.0 / 60.0;
        let variance: f64 = (20.0 * (7.0f64 / 12.0).powi(2) + 10.0 / 144.0 + 30.0 * (5.0f64 / 12.0).powi(2)) / 60.0;
        assert!((estimate.score - score).abs() < 1e-15);
        assert!((estimate.elo - 400.0 * (35.0f64 / 25.0).log10()).abs() < 1e-9, "{estimate:?}");
        let high = score + Z95 * (variance / 60.0).sqrt();
        assert!((estimate.elo_interval.1 - -400.0 * (1.0 / high - 1.0).log10()).abs() < 1e-9);
        assert!((estimate.nelo.unwrap() - (score - 0.5) / variance.sqrt() * NELO_PER_T).abs() < 1e-9);
        assert!(estimate.los > 0.5 && estimate.los < 1.0);
        // Pairs: a game's deviation is sqrt(2) times a pair's.
        let pairs = super::estimate(&[0, 0, 10, 0, 10]).unwrap();
        assert!((pairs.score - 0.75).abs() < 1e-15);
        assert!((pairs.nelo.unwrap() - 0.25 / (2.0 * 0.0625f64).sqrt() * NELO_PER_T).abs() < 1e-9);
        let sweep = super::estimate(&[0, 0, 7]).unwrap();
        assert!((sweep.elo - logistic_elo(0.999)).abs() < 1e-9 && sweep.nelo.is_none() && sweep.los == 1.0);
        assert_eq!(super::estimate(&[0, 0, 0]), None);
    }

    #[test]
    fn a_fixed_size_test_needs_the_textbook_sample() {
        // p0 = 0.5 against p1 = 0.6 at alpha = beta = 0.05:
        // ((1.6449 * 0.5 + 1.6449 * 0.4899) / 0.1)^2 = 265.2 games.
        let spec: SprtSpec = "p0=0.5,p1=0.6".parse().unwrap();
        let games = fixed_size_games(&spec, 0.0, 1).unwrap();
        assert!((games - 265.2).abs() < 0.1, "{games}");
        // Elo 0 against 35 on pairs of variance 1/8: (2 * 1.6449)^2 / 8 / gap^2 pairs.
        let spec: SprtSpec = "elo0=0,elo1=35".parse().unwrap();
        let gap = logistic_score(35.0) - 0.5;
        let games = fixed_size_games(&spec, 0.125, 2).unwrap();
        assert!((games - 2.0 * (2.0 * 1.644_853_627f64).powi(2) * 0.125 / (gap * gap)).abs() < 1e-3, "{games}");
        assert_eq!(fixed_size_games(&spec, 0.0, 2), None);
    }
}
