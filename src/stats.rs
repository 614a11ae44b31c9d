//! The small statistics reports need: quantiles, means and the Wilson
//! interval of a proportion. Written here rather than taken from a crate
//! because each is a few lines and the reports need their exact definitions
//! (linear interpolation between ranks; the Wilson score interval).

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
    const Z: f64 = 1.959_963_984_540_054;
    let n = trials as f64;
    let p = successes as f64 / n;
    let z2 = Z * Z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half_width = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    Some(((centre - half_width).max(0.0), (centre + half_width).min(1.0)))
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
}
