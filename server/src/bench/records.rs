//! One record per finished task × strategy, appended to `records.jsonl` as soon as it is known, so a
//! run that stops can resume where it stopped.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::BenchError;
use crate::graph::tasks::Tier;

/// What one search on one task concluded, with everything needed to compare it later.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub task: String,
    pub suite: String,
    pub tier: Tier,
    pub strategy: String,
    /// The configured model name (and the server's own id where it says one).
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_id: Option<String>,
    pub budget: u32,
    pub seed: u64,
    /// MCGS rollouts in flight at once (records from before it existed: 1).
    #[serde(default = "one")]
    pub parallel: u32,
    /// The returned kernel compiled.
    pub compiled: bool,
    /// The returned kernel was checked against the serial reference on the GPU and passed.
    pub correct: bool,
    /// `correct`, `compiled_not_run`, `no_candidate`, `error`, ...
    pub verdict: String,
    /// One line for people: the verifier's summary or why the search failed.
    pub detail: String,
    pub kernel_ms: Option<f64>,
    pub e2e_ms: Option<f64>,
    pub serial_ms: Option<f64>,
    /// Median of the OpenMP version at the same timed size with 16 threads.
    pub omp16_ms: Option<f64>,
    pub speedup_vs_serial: Option<f64>,
    pub speedup_vs_omp16: Option<f64>,
    pub e2e_speedup: Option<f64>,
    pub roofline_fraction: Option<f64>,
    /// The timed size, `n=...`.
    #[serde(default)]
    pub timed_size: String,
    pub llm_calls: usize,
    pub tokens: u64,
    pub wall_s: f64,
    /// Techniques applied by the returned kernel.
    pub path: Vec<String>,
    /// The profiles the search took, one line each (what limited the kernel, what went first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub profiles: Vec<String>,
    pub gpu: Option<String>,
    pub driver: Option<String>,
    pub nvcc: String,
    /// Cores of the machine the OpenMP baseline ran on (it uses 16 threads regardless).
    pub cpu_cores: usize,
    pub commit: String,
    /// UTC, RFC 3339.
    pub timestamp: String,
}

fn one() -> u32 {
    1
}

/// What makes two records the same measurement: a finished one is never recomputed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct RecordKey {
    pub task: String,
    pub strategy: String,
    pub model: String,
    pub budget: u32,
    pub seed: u64,
    pub parallel: u32,
}

impl Record {
    pub fn key(&self) -> RecordKey {
        RecordKey {
            task: self.task.clone(),
            strategy: self.strategy.clone(),
            model: self.model.clone(),
            budget: self.budget,
            seed: self.seed,
            parallel: self.parallel,
        }
    }
}

/// Reads every record of `path`; a missing file is no records. A line that is not a record is an
/// error (it is never silently dropped: the report would lie).
pub fn read_records(path: &Path) -> Result<Vec<Record>, BenchError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(BenchError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let mut records = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let r = serde_json::from_str(line).map_err(|e| BenchError::Parse {
            path: path.to_path_buf(),
            line: i + 1,
            message: e.to_string(),
        })?;
        records.push(r);
    }
    Ok(records)
}

/// The keys already finished in `records`.
pub fn finished(records: &[Record]) -> BTreeSet<RecordKey> {
    records.iter().map(Record::key).collect()
}

/// Appends one record as one line (a single write, so concurrent appends do not interleave).
pub fn append_record(path: &Path, record: &Record) -> Result<(), BenchError> {
    let err = |source| BenchError::Write {
        path: path.to_path_buf(),
        source,
    };
    let mut line = serde_json::to_string(record).expect("a record serializes");
    line.push('\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(err)?;
    f.write_all(line.as_bytes()).map_err(err)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A record with the given outcome; the rest is plausible filler the report does not aggregate.
    pub(crate) fn record(
        task: &str,
        tier: Tier,
        strategy: &str,
        speedup: Option<f64>,
        omp: Option<f64>,
        roofline: Option<f64>,
    ) -> Record {
        Record {
            task: task.into(),
            suite: "pareval".into(),
            tier,
            strategy: strategy.into(),
            model: "m".into(),
            model_id: None,
            budget: 8,
            seed: 0,
            parallel: 1,
            compiled: true,
            correct: speedup.is_some(),
            verdict: if speedup.is_some() {
                "correct".into()
            } else {
                "wrong".into()
            },
            detail: String::new(),
            kernel_ms: speedup.map(|s| 100.0 / s),
            e2e_ms: None,
            serial_ms: Some(100.0),
            omp16_ms: None,
            speedup_vs_serial: speedup,
            speedup_vs_omp16: omp,
            e2e_speedup: None,
            roofline_fraction: roofline,
            timed_size: "n=1".into(),
            llm_calls: 3,
            tokens: 1000,
            wall_s: 10.0,
            path: vec![],
            profiles: vec![],
            gpu: None,
            driver: None,
            nvcc: "13.0".into(),
            cpu_cores: 2,
            commit: "abc".into(),
            timestamp: "2026-01-01T00:00:00Z".into(),
        }
    }

    #[test]
    fn records_round_trip_through_the_file_and_name_their_keys() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("records.jsonl");
        assert!(read_records(&path).unwrap().is_empty());
        let a = record("axpy", Tier::Easy, "cot", Some(2.0), None, None);
        let b = record("gemm", Tier::Hard, "mcgs", None, None, None);
        append_record(&path, &a).unwrap();
        append_record(&path, &b).unwrap();
        let back = read_records(&path).unwrap();
        assert_eq!(back, vec![a.clone(), b]);
        let keys = finished(&back);
        assert!(keys.contains(&a.key()));
        let mut other_seed = a.clone();
        other_seed.seed = 1;
        assert!(!keys.contains(&other_seed.key()));
    }

    #[test]
    fn a_broken_line_is_an_error_with_its_line_number() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("records.jsonl");
        std::fs::write(&path, "{\"task\": 1}\n").unwrap();
        match read_records(&path) {
            Err(BenchError::Parse { line, .. }) => assert_eq!(line, 1),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }
}
