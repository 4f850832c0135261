//! What verifying one candidate concluded, and the search's reward for it (ARCHITECTURE.md §4, §5).

use serde::{Deserialize, Serialize};

/// One compiler message, mapped onto the candidate's own lines where it points into the candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// 1-based line in the candidate file; `None` for messages about the harness or the link.
    pub line: Option<usize>,
    pub severity: String,
    pub message: String,
}

/// Times in milliseconds; `samples` timed runs after the warm-ups.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    pub kernel_ms: f64,
    pub kernel_p10_ms: f64,
    pub kernel_p90_ms: f64,
    pub end_to_end_ms: f64,
    pub end_to_end_p10_ms: f64,
    pub end_to_end_p90_ms: f64,
    /// Median serial CPU time of the reference (std::chrono, ≥5 runs).
    pub serial_ms: f64,
    /// serial / kernel-only (the paper's convention).
    pub speedup: f64,
    pub end_to_end_speedup: f64,
    /// Roofline floor over the measured kernel time; `None` when the region has no work estimate.
    pub roofline_fraction: Option<f64>,
    pub samples: usize,
    /// Relative standard error of the mean kernel time.
    pub noise: f64,
    /// The noise stayed above `NOISE_BOUND` (or the samples fell in two clusters) after a
    /// retake: the figures are less certain than they look.
    #[serde(default)]
    pub noisy: bool,
    /// The sizes the timed runs used, `n=...`.
    pub size: String,
}

/// The verdict on one candidate. Every stage ends in exactly one of these; none of them is a
/// server error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum VerifyOutcome {
    /// Refused before or after running by the guard named: `static:*` (the source text),
    /// `link:*` (the compiled object), `run:*` (what the harness saw), `timing:*` (the timer).
    Rejected {
        /// Empty in results recorded before guards were named.
        #[serde(default)]
        guard: String,
        reason: String,
    },
    CompileError {
        diagnostics: Vec<Diagnostic>,
    },
    /// Compiled, but there is no GPU to run it on: ranked by compile success only, unverified.
    CompiledNotRun {
        reason: String,
        detail: String,
    },
    /// Died: a signal, a CUDA error, an exit code the harness does not use.
    Crash {
        reason: String,
        stderr: String,
    },
    Timeout {
        seconds: f64,
        stage: String,
    },
    /// First mismatch against the serial reference.
    Wrong {
        param: String,
        index: usize,
        expected: String,
        got: String,
        /// The shape (`held-out shape` for the case never named to the model).
        size: String,
        seed: u64,
        /// Which check found it: `case`, `edge case`, `special values`, `held-out shape`,
        /// `timed sample 7` (empty in results recorded before checks were named).
        #[serde(default)]
        check: String,
    },
    Correct(Timing),
    /// The verifier itself failed (the reference, the toolchain, this machine): no verdict on the
    /// candidate, no reward, nothing to repair.
    VerifierError {
        detail: String,
    },
    /// Stopped before a verdict: no reward.
    Cancelled,
}

impl VerifyOutcome {
    pub fn verdict(&self) -> &'static str {
        match self {
            VerifyOutcome::Rejected { .. } => "rejected",
            VerifyOutcome::CompileError { .. } => "compile_error",
            VerifyOutcome::CompiledNotRun { .. } => "compiled_not_run",
            VerifyOutcome::Crash { .. } => "crash",
            VerifyOutcome::Timeout { .. } => "timeout",
            VerifyOutcome::Wrong { .. } => "wrong",
            VerifyOutcome::Correct(_) => "correct",
            VerifyOutcome::VerifierError { .. } => "verifier_error",
            VerifyOutcome::Cancelled => "cancelled",
        }
    }

    /// A judgement of the candidate (as opposed to a verifier error or a cancel).
    pub fn is_judgement(&self) -> bool {
        !matches!(
            self,
            VerifyOutcome::VerifierError { .. } | VerifyOutcome::Cancelled
        )
    }

    /// The guard that decided a rejection, crash or mismatch, for reports and the red-team suite.
    pub fn guard(&self) -> Option<String> {
        match self {
            VerifyOutcome::Rejected { guard, .. } => Some(guard.clone()),
            VerifyOutcome::Wrong { check, .. } => Some(format!("compare:{check}")),
            VerifyOutcome::Crash { .. } => Some("run:crash".into()),
            VerifyOutcome::Timeout { stage, .. } => Some(format!("timeout:{stage}")),
            _ => None,
        }
    }

    /// What a repair prompt may say: which output is wrong and by how much, never the shape,
    /// the seed or the expected values (a model told those tunes the kernel to them).
    pub fn feedback(&self) -> String {
        match self {
            VerifyOutcome::Wrong {
                param,
                expected,
                got,
                ..
            } => {
                let how = match (expected.parse::<f64>(), got.parse::<f64>()) {
                    (Ok(e), Ok(g)) if e.is_finite() && g.is_finite() => {
                        let rel = (g - e).abs() / e.abs().max(1e-30);
                        format!("off by about {:.0e} relative to the expected value", rel)
                    }
                    (Ok(_), Ok(g)) if !g.is_finite() => {
                        "not finite where a finite value was expected".into()
                    }
                    _ => "different from the serial code's".into(),
                };
                format!(
                    "wrong result: some elements of the output `{param}` are {how} on one of the test shapes (shapes are not disclosed; handle every size, including 1, primes and sizes that are not multiples of the block size)"
                )
            }
            other => other.summary(),
        }
    }

    pub fn compiled(&self) -> bool {
        !matches!(
            self,
            VerifyOutcome::CompileError { .. } | VerifyOutcome::Rejected { .. }
        )
    }

    /// One line for people.
    pub fn summary(&self) -> String {
        match self {
            VerifyOutcome::Rejected { guard, reason } => format!("rejected ({guard}): {reason}"),
            VerifyOutcome::CompileError { diagnostics } => {
                let first = diagnostics
                    .iter()
                    .find(|d| d.severity == "error")
                    .or(diagnostics.first());
                match first {
                    Some(d) => match d.line {
                        Some(l) => format!("compile error at line {l}: {}", d.message),
                        None => format!("compile error: {}", d.message),
                    },
                    None => "compile error".into(),
                }
            }
            VerifyOutcome::CompiledNotRun { reason, detail } => {
                format!("compiled; not run: {reason} ({detail})")
            }
            VerifyOutcome::Crash { reason, .. } => format!("crash: {reason}"),
            VerifyOutcome::Timeout { seconds, stage } => {
                format!("timeout after {seconds:.1} s ({stage})")
            }
            VerifyOutcome::Wrong {
                param,
                index,
                expected,
                got,
                size,
                seed,
                check,
            } => format!(
                "wrong: {param}[{index}] = {got}, expected {expected} ({check}, size {size}, seed {seed})"
            ),
            VerifyOutcome::VerifierError { detail } => format!("verifier error: {detail}"),
            VerifyOutcome::Cancelled => "cancelled".into(),
            VerifyOutcome::Correct(t) => {
                let roof = t
                    .roofline_fraction
                    .map(|r| format!(", roofline {:.0}%", r * 100.0))
                    .unwrap_or_default();
                format!(
                    "correct: kernel {:.4} ms (p10 {:.4}, p90 {:.4}), end-to-end {:.3} ms, serial {:.3} ms, \
                     speedup {:.1}x{roof}, {} samples, noise {:.2}%{}",
                    t.kernel_ms,
                    t.kernel_p10_ms,
                    t.kernel_p90_ms,
                    t.end_to_end_ms,
                    t.serial_ms,
                    t.speedup,
                    t.samples,
                    t.noise * 100.0,
                    if t.noisy {
                        " (noisy timing, taken twice: the speedup is uncertain)"
                    } else {
                        ""
                    }
                )
            }
        }
    }
}

/// How the search turns an outcome into a reward (ARCHITECTURE.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "form", rename_all = "snake_case")]
pub enum RewardForm {
    /// The default: the positive part in (0, 1] (roofline fraction when known, else
    /// log2(speedup)/log2(speedup_cap)), so that it does not drown P-UCB's exploration term.
    Normalized { speedup_cap: f64 },
    /// The paper's form: raw speedup (for the ablation).
    Raw,
}

impl Default for RewardForm {
    fn default() -> Self {
        RewardForm::Normalized {
            speedup_cap: 1024.0,
        }
    }
}

/// `-1` unless correct; `speedup - 1` when slower than serial; else the chosen positive form.
/// A candidate that compiled but could not run (no GPU) gets 0: ranked above failures only.
/// A verifier error or a cancel is no judgement of the candidate: `None`.
pub fn judged_reward(outcome: &VerifyOutcome, form: RewardForm) -> Option<f64> {
    outcome.is_judgement().then(|| reward(outcome, form))
}

/// [`judged_reward`] where the caller has already set verifier errors and cancels aside (they
/// count as -1 here).
pub fn reward(outcome: &VerifyOutcome, form: RewardForm) -> f64 {
    let t = match outcome {
        VerifyOutcome::Correct(t) => t,
        VerifyOutcome::CompiledNotRun { .. } => return 0.0,
        _ => return -1.0,
    };
    if t.speedup < 1.0 {
        return t.speedup - 1.0;
    }
    match form {
        RewardForm::Raw => t.speedup,
        RewardForm::Normalized { speedup_cap } => match t.roofline_fraction {
            Some(r) if r > 0.0 => r.min(1.0),
            _ => {
                let cap = speedup_cap.max(2.0);
                (t.speedup.log2() / cap.log2()).clamp(0.0, 1.0)
            }
        },
    }
}

#[cfg(test)]
impl VerifyOutcome {
    /// A correct outcome with a 1 ms kernel and the given speedup (the serial time follows).
    pub(crate) fn correct_for_tests(speedup: f64, roofline: Option<f64>) -> VerifyOutcome {
        VerifyOutcome::Correct(Timing {
            kernel_ms: 1.0,
            kernel_p10_ms: 0.9,
            kernel_p90_ms: 1.1,
            end_to_end_ms: 2.0,
            end_to_end_p10_ms: 1.9,
            end_to_end_p90_ms: 2.1,
            serial_ms: speedup,
            speedup,
            end_to_end_speedup: speedup / 2.0,
            roofline_fraction: roofline,
            samples: 30,
            noise: 0.001,
            noisy: false,
            size: "n=1".into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn correct(speedup: f64, roof: Option<f64>) -> VerifyOutcome {
        VerifyOutcome::correct_for_tests(speedup, roof)
    }

    #[test]
    fn reward_follows_the_graded_shape() {
        let wrong = VerifyOutcome::Rejected {
            guard: "static:test".into(),
            reason: "x".into(),
        };
        assert_eq!(
            judged_reward(&VerifyOutcome::Cancelled, RewardForm::default()),
            None
        );
        assert_eq!(reward(&wrong, RewardForm::default()), -1.0);
        assert!((reward(&correct(0.5, None), RewardForm::default()) + 0.5).abs() < 1e-12);
        assert_eq!(reward(&correct(242.0, None), RewardForm::Raw), 242.0);
        assert_eq!(
            reward(&correct(242.0, Some(0.8)), RewardForm::default()),
            0.8
        );
        let r = reward(
            &correct(32.0, None),
            RewardForm::Normalized {
                speedup_cap: 1024.0,
            },
        );
        assert!((r - 0.5).abs() < 1e-12, "{r}");
    }

    #[test]
    fn outcomes_serialize_with_a_verdict_tag() {
        let json = serde_json::to_value(correct(10.0, Some(0.5))).unwrap();
        assert_eq!(json["verdict"], "correct");
        assert_eq!(json["speedup"], 10.0);
        let back: VerifyOutcome = serde_json::from_value(json).unwrap();
        assert_eq!(back.verdict(), "correct");
    }
}
