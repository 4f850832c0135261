//! The graded reward of ARCHITECTURE.md §4.

use serde::{Deserialize, Serialize};

/// How a correct candidate's speed becomes a reward.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "mode")]
pub enum RewardScale {
    /// The paper's raw form: `speedup` (or `speedup - 1` below 1). Only for the ablation: raw
    /// speedups in the hundreds drown P-UCB's exploration term.
    Raw,
    /// `roofline_fraction` when known, else `log2(speedup) / log2(cap)` clamped to (0, 1].
    Normalized { speedup_cap: f64 },
}

impl Default for RewardScale {
    fn default() -> Self {
        RewardScale::Normalized {
            speedup_cap: 4096.0,
        }
    }
}

/// -1 when incorrect; `speedup - 1` (in (-1, 0)) when correct but slower than serial; otherwise the
/// scaled gain.
pub fn reward(
    correct: bool,
    speedup: f64,
    roofline_fraction: Option<f64>,
    scale: RewardScale,
) -> f64 {
    if !correct || !speedup.is_finite() || speedup <= 0.0 {
        return -1.0;
    }
    if speedup < 1.0 {
        return speedup - 1.0;
    }
    match scale {
        RewardScale::Raw => speedup,
        RewardScale::Normalized { speedup_cap } => match roofline_fraction {
            Some(f) if f.is_finite() && f > 0.0 => f.min(1.0),
            _ => {
                let cap = speedup_cap.max(2.0);
                // A correct kernel at exactly serial speed still beats every wrong one.
                (speedup.log2() / cap.log2()).clamp(1e-3, 1.0)
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grades_as_the_paper_then_normalizes() {
        let n = RewardScale::default();
        assert_eq!(reward(false, 500.0, Some(0.9), n), -1.0);
        assert!((reward(true, 0.25, None, n) - (-0.75)).abs() < 1e-12);
        assert_eq!(reward(true, 300.0, Some(0.42), n), 0.42);
        assert!(
            (reward(
                true,
                64.0,
                None,
                RewardScale::Normalized {
                    speedup_cap: 4096.0
                }
            ) - 0.5)
                .abs()
                < 1e-12
        );
        assert_eq!(reward(true, 1e9, None, n), 1.0);
        assert_eq!(reward(true, 300.0, Some(0.42), RewardScale::Raw), 300.0);
        assert_eq!(reward(true, f64::NAN, None, n), -1.0);
    }
}
