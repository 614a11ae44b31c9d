//! The log-likelihood ratios the sequential tests add up: Wald's for games
//! won or lost, and the generalized one (GSPRT) for outcomes with draws
//! (trinomial) and for pairs of games (pentanomial), with hypotheses on the
//! expected score (logistic Elo) or on the t-value (normalized Elo).
//!
//! The GSPRT follows fishtest (official-stockfish/fishtest,
//! `server/fishtest/stats/LLRcalc.py`) so that the same counts give the
//! same LLR: `docs/sprt.md` derives it. Its one numerical step, the root of
//! the secular equation, is solved here (safeguarded Newton on a bracket)
//! rather than taken from a crate: it is a monotone function of one variable
//! on a known interval, a dozen lines, and its accuracy is checked against
//! an independent computation in the tests.

/// What an empty outcome class counts as before the fit, as in fishtest: an
/// empty class would otherwise get probability 0 under every hypothesis and
/// the maximum-likelihood fit would have no interior solution.
const EMPTY_CLASS: f64 = 1e-3;

/// Normalized Elo per unit of t-value (fishtest's `nelo_divided_by_nt`,
/// 800 / ln 10): with this scale, normalized and logistic Elo agree near 0
/// for games without draws.
pub(crate) const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// Rounds of the fixed-point iteration for a t-value hypothesis, and the
/// change in every probability below which it has converged (fishtest's).
const T_VALUE_ROUNDS: usize = 10;
const T_VALUE_CONVERGED: f64 = 1e-9;

/// Newton steps allowed on the secular equation (it converges in well
/// under twenty; bisection steps guarantee progress where Newton would not).
const SECULAR_STEPS: usize = 200;

/// The expected score of a player `elo` logistic Elo points stronger.
pub(crate) fn logistic_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The logistic Elo difference of an expected score, the score kept within
/// [0.001, 0.999] (±1200 Elo) so that a clean sweep gives a number.
pub(crate) fn logistic_elo(score: f64) -> f64 {
    let score = score.clamp(1e-3, 1.0 - 1e-3);
    -400.0 * (1.0 / score - 1.0).log10()
}

/// Wald's log-likelihood ratio of `wins` and `losses` for a win probability
/// `p1` against `p0`.
pub(crate) fn wald_llr(wins: u64, losses: u64, p0: f64, p1: f64) -> f64 {
    wins as f64 * (p1 / p0).ln() + losses as f64 * ((1.0 - p1) / (1.0 - p0)).ln()
}

/// Which statistic a GSPRT's hypotheses fix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Statistic {
    /// The expected score per game: H0 score = s0, H1 score = s1.
    Expectation { s0: f64, s1: f64 },
    /// The t-value (mean - 1/2) / standard deviation of the outcome:
    /// H0 t = t0, H1 t = t1.
    TValue { t0: f64, t1: f64 },
}

/// The generalized log-likelihood ratio of H1 against H0 for the outcome
/// `counts`, class `i` of `k` scoring `i / (k - 1)` (losses, draws, wins; or
/// the five sums of a pair of games). `None` where a hypothesis admits no
/// maximum-likelihood distribution (a t-value beyond what the linearised
/// fit reaches: see [`Empirical::fit_t_value`]), and for no observations.
pub(crate) fn gsprt_llr(counts: &[u64], statistic: Statistic) -> Option<f64> {
    if counts.iter().all(|&count| count == 0) {
        return None;
    }
    let empirical = Empirical::of(counts);
    let (fit0, fit1) = match statistic {
        Statistic::Expectation { s0, s1 } => (empirical.fit_mean(s0)?, empirical.fit_mean(s1)?),
        Statistic::TValue { t0, t1 } => (empirical.fit_t_value(t0)?, empirical.fit_t_value(t1)?),
    };
    let k = empirical.len;
    Some((0..k).map(|i| empirical.count[i] * (fit1[i].ln() - fit0[i].ln())).sum())
}

/// At most five outcome classes (a pair of games).
const MAX_CLASSES: usize = 5;

/// The observed distribution: each class's count (empty ones regularized),
/// its share of the total, and its score.
struct Empirical {
    len: usize,
    count: [f64; MAX_CLASSES],
    share: [f64; MAX_CLASSES],
    score: [f64; MAX_CLASSES],
}

impl Empirical {
    fn of(counts: &[u64]) -> Empirical {
        let len = counts.len();
        debug_assert!((2..=MAX_CLASSES).contains(&len), "{len} outcome classes");
        let mut empirical =
            Empirical { len, count: [0.0; MAX_CLASSES], share: [0.0; MAX_CLASSES], score: [0.0; MAX_CLASSES] };
        for (i, &count) in counts.iter().enumerate() {
            empirical.count[i] = if count == 0 { EMPTY_CLASS } else { count as f64 };
            empirical.score[i] = i as f64 / (len - 1) as f64;
        }
        let total: f64 = empirical.count[..len].iter().sum();
        for i in 0..len {
            empirical.share[i] = empirical.count[i] / total;
        }
        empirical
    }

    /// The distribution on the same classes closest to the observed one in
    /// likelihood whose mean score is `s`: share / (1 + x (score - s)), x
    /// the root of the secular equation.
    fn fit_mean(&self, s: f64) -> Option<[f64; MAX_CLASSES]> {
        let mut shift = [0.0; MAX_CLASSES];
        for (shift, score) in shift.iter_mut().zip(&self.score[..self.len]) {
            *shift = score - s;
        }
        self.tilted(&shift)
    }

    /// The distribution closest to the observed one in likelihood whose
    /// t-value, (mean - 1/2) / standard deviation, is `t`. The constraint is
    /// not linear in the probabilities: it is linearised around the current
    /// fit (at first the uniform distribution) and the linear problem solved
    /// like [`Empirical::fit_mean`], until the fit stops moving. The first
    /// round, from the uniform distribution, has a solution only for
    /// |t| below about 0.98 on games and 0.94 on pairs (normalized Elo 340
    /// and 230): the spec refuses hypotheses beyond 200.
    fn fit_t_value(&self, t: f64) -> Option<[f64; MAX_CLASSES]> {
        let len = self.len;
        let mut fit = [0.0; MAX_CLASSES];
        fit[..len].fill(1.0 / len as f64);
        for _ in 0..T_VALUE_ROUNDS {
            let (mean, variance) = mean_and_variance(&fit[..len], &self.score[..len]);
            let sigma = variance.sqrt();
            let mut shift = [0.0; MAX_CLASSES];
            for (shift, score) in shift.iter_mut().zip(&self.score[..len]) {
                let spread = (mean - score) / sigma;
                *shift = score - 0.5 - t * sigma * (1.0 + spread * spread) / 2.0;
            }
            let next = self.tilted(&shift)?;
            let change = (0..len).map(|i| (next[i] - fit[i]).abs()).fold(0.0, f64::max);
            fit = next;
            if change < T_VALUE_CONVERGED {
                break;
            }
        }
        Some(fit)
    }

    /// share_i / (1 + x shift_i) for the x that makes the tilted
    /// distribution's mean shift 0.
    fn tilted(&self, shift: &[f64; MAX_CLASSES]) -> Option<[f64; MAX_CLASSES]> {
        let x = secular_root(&self.share[..self.len], &shift[..self.len])?;
        let mut fit = [0.0; MAX_CLASSES];
        for i in 0..self.len {
            fit[i] = self.share[i] / (1.0 + x * shift[i]);
        }
        Some(fit)
    }
}

/// The mean and variance of `values` under the probabilities `weights`.
fn mean_and_variance(weights: &[f64], values: &[f64]) -> (f64, f64) {
    let mean: f64 = weights.iter().zip(values).map(|(w, v)| w * v).sum();
    let variance = weights.iter().zip(values).map(|(w, v)| w * (v - mean) * (v - mean)).sum();
    (mean, variance)
}

/// The root of the secular equation sum_i p_i b_i / (1 + x b_i) = 0 on the
/// interval where every 1 + x b_i is positive, (-1 / max b, -1 / min b).
/// The sum falls strictly from +inf to -inf there (its derivative is
/// -sum p_i b_i^2 / (1 + x b_i)^2), so the root is unique; it exists when
/// the b_i straddle 0 and every p_i is positive. Newton steps from x = 0,
/// replaced by bisection whenever one would leave the bracket or fail to
/// halve it.
pub(crate) fn secular_root(p: &[f64], b: &[f64]) -> Option<f64> {
    let min_b = b.iter().copied().fold(f64::INFINITY, f64::min);
    let max_b = b.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(min_b < 0.0 && max_b > 0.0) || p.iter().any(|&share| share <= 0.0) {
        return None;
    }
    let (mut low, mut high) = (-1.0 / max_b, -1.0 / min_b);
    let mut x = 0.0;
    let mut last_step = high - low;
    for _ in 0..SECULAR_STEPS {
        let (mut value, mut slope) = (0.0, 0.0);
        for (&share, &shift) in p.iter().zip(b) {
            let term = shift / (1.0 + x * shift);
            value += share * term;
            slope -= share * term * term;
        }
        if value == 0.0 {
            return Some(x);
        }
        // The sum falls as x grows: a positive value means the root is above.
        if value > 0.0 {
            low = x;
        } else {
            high = x;
        }
        let newton = x - value / slope;
        let step_ok = newton > low && newton < high && (newton - x).abs() * 2.0 <= last_step.abs();
        let next = if step_ok { newton } else { low + (high - low) / 2.0 };
        last_step = next - x;
        if next == x || (next - x).abs() <= 4.0 * f64::EPSILON * x.abs().max(f64::MIN_POSITIVE) {
            return Some(next);
        }
        x = next;
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_secular_root_makes_the_tilted_mean_zero_even_near_a_pole() {
        let check = |p: &[f64], b: &[f64]| {
            let x = secular_root(p, b).unwrap();
            let sum: f64 = p.iter().zip(b).map(|(p, b)| p * b / (1.0 + x * b)).sum();
            let scale: f64 = p.iter().zip(b).map(|(p, b)| (p * b / (1.0 + x * b)).abs()).sum();
            assert!(sum.abs() <= 1e-9 * scale, "{p:?} {b:?}: x {x}, sum {sum}");
            assert!(b.iter().all(|b| 1.0 + x * b > 0.0));
        };
        check(&[0.25, 0.5, 0.25], &[-0.52, -0.02, 0.48]);
        check(&[0.3, 0.4, 0.3], &[-0.5, 0.0, 0.5]);
        // A nearly empty top class: the root sits just inside -1 / max b.
        check(&[0.999_999, 1e-9, 1e-6 - 1e-9], &[-0.6, -0.1, 0.4]);
        check(&[1e-8, 0.2, 0.3, 0.3, 0.2 - 1e-8], &[-0.55, -0.3, -0.05, 0.2, 0.45]);
        assert_eq!(secular_root(&[0.5, 0.5], &[0.1, 0.2]), None, "no root unless the shifts straddle 0");
    }

    #[test]
    fn wald_and_logistic_helpers_match_hand_values() {
        assert!((logistic_score(0.0) - 0.5).abs() < 1e-15);
        assert!((logistic_score(400.0) - 10.0 / 11.0).abs() < 1e-15);
        assert!((logistic_elo(10.0 / 11.0) - 400.0).abs() < 1e-9);
        assert!((logistic_elo(1.0) - logistic_elo(0.999)).abs() < 1e-12);
        // 3 wins and 1 loss at p1 = 0.6 against p0 = 0.5: 3 ln 1.2 + ln 0.8.
        assert!((wald_llr(3, 1, 0.5, 0.6) - (3.0 * 1.2f64.ln() + 0.8f64.ln())).abs() < 1e-15);
    }

    #[test]
    fn a_fit_has_the_mean_or_t_value_it_was_asked_for() {
        let empirical = Empirical::of(&[120, 30, 250, 40, 130]);
        let fit = empirical.fit_mean(0.52).unwrap();
        let (mean, _) = mean_and_variance(&fit[..5], &empirical.score[..5]);
        assert!((mean - 0.52).abs() < 1e-12 && (fit.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{fit:?}");
        let fit = empirical.fit_t_value(0.05).unwrap();
        let (mean, variance) = mean_and_variance(&fit[..5], &empirical.score[..5]);
        assert!(((mean - 0.5) / variance.sqrt() - 0.05).abs() < 1e-6, "{fit:?}");
        // A t-value the linearised fit cannot reach from the uniform
        // distribution (about 0.94 on pairs): no fit, as in fishtest.
        assert_eq!(gsprt_llr(&[10, 0, 20, 0, 30], Statistic::TValue { t0: 0.0, t1: 1.2 }), None);
        assert_eq!(gsprt_llr(&[0, 0, 0], Statistic::Expectation { s0: 0.5, s1: 0.51 }), None);
    }
}
