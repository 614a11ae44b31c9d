//! The small statistics reports need: quantiles, means and the Wilson
//! interval of a proportion, a running mean and variance, the normal
//! distribution's tail and the two-proportion test. Written here rather
//! than taken from a crate because each is a few lines and the reports need
//! their exact definitions (linear interpolation between ranks; the Wilson
//! score interval; Welford's update; the pooled two-proportion z-test with
//! Newcombe's interval of the difference).

/// The `q` quantile (0 ≤ q ≤ 1) of `values` by linear interpolation between
/// the closest ranks; `None` for no values. NaN sorts last.
pub(crate) fn quantile(values: &[f64], q: f64) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    quantile_of_sorted(&sorted, q)
}

/// [`quantile`] of values already sorted ascending.
pub(crate) fn quantile_of_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let position = q.clamp(0.0, 1.0) * last as f64;
    let low = position.floor() as usize;
    let high = position.ceil() as usize;
    Some(sorted[low] + (sorted[high] - sorted[low]) * (position - low as f64))
}

/// The median of `values`; `None` for no values.
pub(crate) fn median(values: &[f64]) -> Option<f64> {
    quantile(values, 0.5)
}

/// The arithmetic mean, summed in the given order; `None` for no values.
pub(crate) fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// The 95% Wilson score interval of `successes` out of `trials`: unlike the
/// normal approximation it stays inside [0, 1] and is sound near 0% and 100%.
/// `None` for no trials.
pub(crate) fn wilson_interval(successes: u64, trials: u64) -> Option<(f64, f64)> {
    if trials == 0 {
        return None;
    }
    let n = trials as f64;
    let p = successes as f64 / n;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half_width = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    Some(((centre - half_width).max(0.0), (centre + half_width).min(1.0)))
}

/// z of a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// Mean and variance kept as values arrive (Welford's update, so a long
/// stream of large scores loses no precision to a sum of squares).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Moments {
    count: u64,
    mean: f64,
    /// Sum of squared differences from the mean.
    m2: f64,
}

impl Moments {
    pub(crate) fn add(&mut self, value: f64) {
        self.count += 1;
        let delta = value - self.mean;
        self.mean += delta / self.count as f64;
        self.m2 += delta * (value - self.mean);
    }

    /// The sample standard deviation; 0 below two values.
    pub(crate) fn std_dev(&self) -> f64 {
        if self.count < 2 { 0.0 } else { (self.m2 / (self.count - 1) as f64).sqrt() }
    }

    /// The 95% interval of the mean by the normal approximation (sound for
    /// the tens of games and more that reports are made of).
    pub(crate) fn mean_interval(&self) -> (f64, f64) {
        let half_width = if self.count == 0 { 0.0 } else { Z95 * self.std_dev() / (self.count as f64).sqrt() };
        (self.mean - half_width, self.mean + half_width)
    }
}

/// The complementary error function, erfc(x), with a fractional error below
/// 1.2e-7 everywhere (the Chebyshev fit of Numerical Recipes' `erfcc`).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let answer = t * poly.exp();
    if x >= 0.0 { answer } else { 2.0 - answer }
}

/// The probability that a standard normal variable is at least `|z|` away
/// from 0 in either direction: the two-sided p-value of a z statistic.
pub(crate) fn two_sided_p_value(z: f64) -> f64 {
    erfc(z.abs() / std::f64::consts::SQRT_2).min(1.0)
}

/// Two win rates compared: `a` wins `wins_a` of `games_a`, `b` wins
/// `wins_b` of `games_b`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ProportionTest {
    /// Rate of `a` minus rate of `b`.
    pub difference: f64,
    /// 95% interval of the difference (Newcombe's hybrid score interval,
    /// built from the two Wilson intervals).
    pub difference_interval: (f64, f64),
    /// The pooled two-proportion z statistic; 0 when it is undefined (no
    /// games, or both rates 0 or both 1).
    pub z: f64,
    pub p_value: f64,
    /// `p_value` below 0.05.
    pub significant: bool,
}

/// The pooled two-proportion z-test of `wins_a / games_a` against
/// `wins_b / games_b`, with Newcombe's interval of the difference.
/// `None` when either side has no games.
pub(crate) fn two_proportion_test(wins_a: u64, games_a: u64, wins_b: u64, games_b: u64) -> Option<ProportionTest> {
    let (low_a, high_a) = wilson_interval(wins_a, games_a)?;
    let (low_b, high_b) = wilson_interval(wins_b, games_b)?;
    let (n_a, n_b) = (games_a as f64, games_b as f64);
    let (rate_a, rate_b) = (wins_a as f64 / n_a, wins_b as f64 / n_b);
    let difference = rate_a - rate_b;
    let pooled = (wins_a + wins_b) as f64 / (n_a + n_b);
    let standard_error = (pooled * (1.0 - pooled) * (1.0 / n_a + 1.0 / n_b)).sqrt();
    let z = if standard_error > 0.0 { difference / standard_error } else { 0.0 };
    let p_value = two_sided_p_value(z);
    let difference_interval = (
        difference - ((rate_a - low_a).powi(2) + (high_b - rate_b).powi(2)).sqrt(),
        difference + ((high_a - rate_a).powi(2) + (rate_b - low_b).powi(2)).sqrt(),
    );
    Some(ProportionTest { difference, difference_interval, z, p_value, significant: p_value < 0.05 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_between_ranks() {
        assert_eq!(quantile(&[], 0.5), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[1.0, 2.0, 3.0, 4.0]), Some(2.5));
        assert_eq!(quantile(&[4.0, 1.0, 2.0, 3.0, 5.0], 0.25), Some(2.0));
        assert_eq!(quantile(&[4.0, 1.0, 2.0, 3.0, 5.0], 1.0), Some(5.0));
        assert_eq!(quantile(&[7.0], 0.9), Some(7.0));
    }

    #[test]
    fn wilson_matches_published_values() {
        // Worked values of the 95% Wilson interval (z = 1.96): 0 of 10 is
        // 0–27.75%, 5 of 10 is 23.66–76.34%, 81 of 263 is 25.5–36.5%.
        let check = |successes, trials, low: f64, high: f64| {
            let (found_low, found_high) = wilson_interval(successes, trials).unwrap();
            assert!((found_low - low).abs() < 5e-4 && (found_high - high).abs() < 5e-4, "{found_low} {found_high}");
        };
        check(0, 10, 0.0, 0.2775);
        check(5, 10, 0.2366, 0.7634);
        check(81, 263, 0.2553, 0.3662);
        assert_eq!(wilson_interval(0, 0), None);
    }

    #[test]
    fn the_two_proportion_test_matches_worked_values() {
        // 45 of 100 against 30 of 100: pooled rate 0.375, z = 0.15 / 0.06847
        // = 2.1909, two-sided p = erfc(2.1909 / sqrt 2) = 0.02846; the Wilson
        // intervals 0.3561-0.5476 and 0.2189-0.3958 give Newcombe's interval
        // of the difference, 0.0159 to 0.2768.
        let test = two_proportion_test(45, 100, 30, 100).unwrap();
        assert!((test.z - 2.1909).abs() < 1e-3, "{test:?}");
        assert!((test.p_value - 0.02846).abs() < 5e-5, "{test:?}");
        assert!((test.difference_interval.0 - 0.0159).abs() < 2e-4, "{test:?}");
        assert!((test.difference_interval.1 - 0.2768).abs() < 2e-4, "{test:?}");
        assert!(test.significant);
        let same = two_proportion_test(30, 100, 30, 100).unwrap();
        assert!(same.z == 0.0 && (same.p_value - 1.0).abs() < 1e-6 && !same.significant);
        assert_eq!(two_proportion_test(0, 0, 1, 2), None);
        assert!((two_sided_p_value(1.959_964) - 0.05).abs() < 1e-6);
    }

    #[test]
    fn moments_match_the_two_pass_formulas() {
        let values = [4.0, 7.0, 13.0, 16.0];
        let mut moments = Moments::default();
        values.iter().for_each(|&value| moments.add(value));
        assert_eq!(moments.mean, 10.0);
        assert!((moments.std_dev() - 30f64.sqrt()).abs() < 1e-12);
        let (low, high) = moments.mean_interval();
        assert!((high - 10.0 - Z95 * 30f64.sqrt() / 2.0).abs() < 1e-12 && (10.0 - low - (high - 10.0)).abs() < 1e-12);
    }
}
