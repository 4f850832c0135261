//! Optimization trajectories (`graph-data/trajectories/<category>.jsonl`): per task, the ordered steps
//! an expert took from the serial code, each with the verifier's measurement once it has run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::GraphError;

/// What the verifier measured for one step on the GPU. Written by `graph record` from a
/// `verify --manifest` run, never by hand. Times in milliseconds at the timed size (`size`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Passed every correctness check against the serial code.
    pub correct: bool,
    /// The verifier's verdict (`correct`, `wrong`, `compile_error`, `crash`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_to_end_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial_ms: Option<f64>,
    /// Kernel-only speedup over the serial code at the timed size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speedup: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_to_end_speedup: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roofline_fraction: Option<f64>,
    /// Timed samples and the relative standard error of their mean.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<f64>,
    /// The shape the timing ran at (`n=...,m=...`); older records lack it (the verifier then
    /// chose one common scale for all size parameters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvcc: Option<String>,
    /// `YYYY-MM-DD` of the verification run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Whatever else a newer verifier records, kept as is rather than rejected.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// One optimization step: one technique applied to the previous step's code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Free-form technique name; relabelled onto the vocabulary by `graph build`.
    pub technique: String,
    pub reasoning: String,
    pub detail: String,
    /// The complete candidate file after this step.
    pub code: String,
    #[serde(default)]
    pub measured: Option<Measured>,
}

/// All steps for one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trajectory {
    pub task: String,
    #[serde(default)]
    pub author: String,
    pub steps: Vec<Step>,
}

/// A trajectory and where it came from, for messages.
#[derive(Debug, Clone)]
pub struct Located {
    pub file: PathBuf,
    pub line: usize,
    pub trajectory: Trajectory,
}

/// Parses a JSONL text: one trajectory per non-blank line. The first bad line fails the whole file
/// with its 1-based line number, so a half-written file is never merged silently.
pub fn parse_jsonl(text: &str, file: &Path) -> Result<Vec<Located>, GraphError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |message: String| GraphError::Trajectory {
            path: file.to_path_buf(),
            line: i + 1,
            message,
        };
        let trajectory: Trajectory = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
        if trajectory.task.trim().is_empty() {
            return Err(bad("field `task` is empty".into()));
        }
        if trajectory.steps.is_empty() {
            return Err(bad(format!("task `{}` has no steps", trajectory.task)));
        }
        if let Some((k, _)) = trajectory
            .steps
            .iter()
            .enumerate()
            .find(|(_, s)| s.code.trim().is_empty())
        {
            return Err(bad(format!("step {} has no code", k + 1)));
        }
        out.push(Located {
            file: file.to_path_buf(),
            line: i + 1,
            trajectory,
        });
    }
    Ok(out)
}

/// Reads every `*.jsonl` of a directory in file-name order.
pub fn load_dir(dir: &Path) -> Result<Vec<Located>, GraphError> {
    let read = |path: &Path, source| GraphError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut files = Vec::new();
    if dir.is_dir() {
        for entry in std::fs::read_dir(dir).map_err(|e| read(dir, e))? {
            let path = entry.map_err(|e| read(dir, e))?.path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).map_err(|e| read(&file, e))?;
        out.extend(parse_jsonl(&text, &file)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"task":"t","author":"a","steps":[{"technique":"naive port","reasoning":"r","detail":"d","code":"void t_gpu(){}","measured":null}]}"#;

    #[test]
    fn parses_lines_and_skips_blank_ones() {
        let text = format!("{GOOD}\n\n{}\n", GOOD.replace("\"t\"", "\"u\""));
        let parsed = parse_jsonl(&text, Path::new("x.jsonl")).unwrap();
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[1].line, 3);
        assert_eq!(parsed[1].trajectory.task, "u");
        assert!(parsed[0].trajectory.steps[0].measured.is_none());
    }

    #[test]
    fn keeps_unknown_measurement_fields() {
        let text = GOOD.replace(
            "\"measured\":null",
            "\"measured\":{\"correct\":true,\"speedup\":12.5,\"gpu\":\"H200\",\"nvcc\":\"13.0\",\"kernel_ms\":0.5,\"l2_hit_rate\":0.9}",
        );
        let parsed = parse_jsonl(&text, Path::new("x.jsonl")).unwrap();
        let m = parsed[0].trajectory.steps[0].measured.as_ref().unwrap();
        assert_eq!(m.speedup, Some(12.5));
        assert_eq!(m.kernel_ms, Some(0.5));
        assert_eq!(m.extra["l2_hit_rate"], serde_json::json!(0.9));
    }

    fn error_line(text: &str) -> (usize, String) {
        match parse_jsonl(text, Path::new("bad.jsonl")).unwrap_err() {
            GraphError::Trajectory { line, message, .. } => (line, message),
            other => panic!("unexpected error {other}"),
        }
    }

    #[test]
    fn corrupt_or_partial_lines_are_rejected_with_their_line_number() {
        let truncated = &GOOD[..GOOD.len() - 20];
        assert_eq!(error_line(&format!("{GOOD}\n{truncated}\n")).0, 2);
        let (line, message) =
            error_line(&format!("\n\n{}", GOOD.replace("\"steps\"", "\"stepz\"")));
        assert_eq!(line, 3);
        assert!(message.contains("stepz"), "{message}");
        assert!(
            error_line(&GOOD.replace("void t_gpu(){}", " "))
                .1
                .contains("no code")
        );
        assert!(
            error_line(r#"{"task":"t","steps":[]}"#)
                .1
                .contains("no steps")
        );
    }
}
