//! The geometric mean, the one average of speedups that is fair across tasks: a task whose serial
//! code is slow (thousands×) must not outweigh ten tasks at a few hundred× (BENCHMARKING.md).

/// Geometric mean of the positive, finite values; `None` when there is none.
pub fn geomean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let logs: Vec<f64> = values
        .into_iter()
        .filter(|v| v.is_finite() && *v > 0.0)
        .map(f64::ln)
        .collect();
    (!logs.is_empty()).then(|| (logs.iter().sum::<f64>() / logs.len() as f64).exp())
}

#[cfg(test)]
mod tests {
    use super::geomean;

    #[test]
    fn geomean_of_known_values() {
        assert_eq!(geomean([]), None);
        assert!((geomean([2.0, 8.0]).unwrap() - 4.0).abs() < 1e-12);
        assert!((geomean([1.0, 10.0, 100.0]).unwrap() - 10.0).abs() < 1e-9);
        // Non-positive and non-finite values cannot enter a geometric mean.
        assert!((geomean([4.0, 0.0, f64::NAN]).unwrap() - 4.0).abs() < 1e-12);
    }
}
