//! Runs every task × strategy not yet in `records.jsonl` through an `OffloadRunner` (the real one is
//! the `Offloader` of `cuda-offload offload`), appends one record per finished search, then rewrites the
//! report and the plot from the whole file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use super::BenchError;
use super::records::{Record, RecordKey, append_record, finished, read_records};
use super::task::BenchTask;
use super::{environment, omp, plot, report};
use crate::search::offload::{OffloadRequest, OffloadRunner, OffloadSummary, Strategy};
use crate::verify::VerifyOutcome;

pub const RECORDS: &str = "records.jsonl";
pub const REPORT: &str = "report.md";
pub const PLOT: &str = "plot.svg";

/// What one benchmark run measures with.
#[derive(Debug, Clone)]
pub struct RunConfig {
    pub suite: String,
    pub strategies: Vec<Strategy>,
    pub budget: u32,
    pub seed: u64,
    pub model: String,
    pub model_id: Option<String>,
    pub out_dir: PathBuf,
    /// Searches at a time.
    pub jobs: usize,
    /// Time the 16-thread OpenMP baseline for correct kernels.
    pub omp_baseline: bool,
}

/// Where the records were measured.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    pub gpu: Option<String>,
    pub driver: Option<String>,
    pub nvcc: String,
    pub commit: String,
    pub cpu_cores: usize,
}

/// How many records a run added and how many it found already finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunCounts {
    pub ran: usize,
    pub skipped: usize,
}

impl RunConfig {
    fn key(&self, task: &str, strategy: Strategy) -> RecordKey {
        RecordKey {
            task: task.to_string(),
            strategy: strategy.as_str().to_string(),
            model: self.model.clone(),
            budget: self.budget,
            seed: self.seed,
        }
    }
}

/// Runs what is missing, then writes the report and the plot.
pub async fn run(
    tasks: &[BenchTask],
    cfg: &RunConfig,
    env: &Environment,
    runner: Arc<dyn OffloadRunner>,
    cancel: CancellationToken,
) -> Result<RunCounts, BenchError> {
    std::fs::create_dir_all(&cfg.out_dir).map_err(|source| BenchError::Write {
        path: cfg.out_dir.clone(),
        source,
    })?;
    let records_path = cfg.out_dir.join(RECORDS);
    let existing = read_records(&records_path)?;
    let done = finished(&existing);
    // The OpenMP time depends on the task only: measured once, also across runs.
    let omp_cache: Arc<Mutex<HashMap<String, Option<f64>>>> = Arc::new(Mutex::new(
        existing
            .iter()
            .filter_map(|r| r.omp16_ms.map(|ms| (r.task.clone(), Some(ms))))
            .collect(),
    ));
    let mut work = Vec::new();
    let mut skipped = 0;
    for t in tasks {
        for &s in &cfg.strategies {
            if done.contains(&cfg.key(t.id(), s)) {
                skipped += 1;
            } else {
                work.push((t, s));
            }
        }
    }
    let total = work.len();
    if skipped > 0 {
        eprintln!(
            "{skipped} task × strategy records already in {}: not recomputed",
            records_path.display()
        );
    }
    let finished_count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let results: Vec<Result<(), BenchError>> = futures::stream::iter(work)
        .map(|(task, strategy)| {
            let runner = runner.clone();
            let cancel = cancel.clone();
            let omp_cache = omp_cache.clone();
            let records_path = records_path.clone();
            let finished_count = finished_count.clone();
            async move {
                if cancel.is_cancelled() {
                    return Ok(());
                }
                let record = run_one(
                    task,
                    strategy,
                    cfg,
                    env,
                    runner.as_ref(),
                    &omp_cache,
                    cancel.clone(),
                )
                .await;
                if cancel.is_cancelled() && record.verdict == "error" {
                    // A search cut short is not a result: leave it for the next run.
                    return Ok(());
                }
                append_record(&records_path, &record)?;
                let n = finished_count.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                eprintln!(
                    "[{n}/{total}] {} {}: {}{} ({} model calls, {:.0} s)",
                    record.task,
                    record.strategy,
                    record.verdict,
                    record
                        .speedup_vs_serial
                        .map(|s| format!(", {s:.2}x vs serial"))
                        .unwrap_or_default(),
                    record.llm_calls,
                    record.wall_s
                );
                Ok(())
            }
        })
        .buffer_unordered(cfg.jobs.max(1))
        .collect()
        .await;
    for r in results {
        r?;
    }
    write_report(&cfg.suite, &cfg.out_dir)?;
    Ok(RunCounts {
        ran: finished_count.load(std::sync::atomic::Ordering::SeqCst),
        skipped,
    })
}

/// Rewrites `report.md` and `plot.svg` from `records.jsonl` alone: no search, no timing.
pub fn write_report(suite: &str, out_dir: &Path) -> Result<Vec<Record>, BenchError> {
    let records = read_records(&out_dir.join(RECORDS))?;
    let write = |name: &str, text: String| {
        let path = out_dir.join(name);
        std::fs::write(&path, text).map_err(|source| BenchError::Write { path, source })
    };
    write(REPORT, report::markdown(suite, &records))?;
    write(
        PLOT,
        plot::svg(&format!("{suite}: speedup vs serial per task"), &records),
    )?;
    Ok(records)
}

async fn run_one(
    task: &BenchTask,
    strategy: Strategy,
    cfg: &RunConfig,
    env: &Environment,
    runner: &dyn OffloadRunner,
    omp_cache: &Mutex<HashMap<String, Option<f64>>>,
    cancel: CancellationToken,
) -> Record {
    let start = Instant::now();
    let request = OffloadRequest {
        file: task.serial_path(),
        source: task.task.serial_file(),
        region: task.task.region.clone(),
        strategy: Some(strategy),
        budget: Some(cfg.budget as usize),
        seed: Some(cfg.seed),
    };
    let id = format!("{} {}", task.id(), strategy.as_str());
    let progress = Box::new(move |p: &crate::search::Progress| {
        tracing::debug!("{id}: {}/{} model calls", p.llm_calls, p.budget);
    });
    let result = runner.offload(request, progress, cancel).await;
    let wall_s = start.elapsed().as_secs_f64();
    let mut record = base_record(task, strategy, cfg, env, wall_s);
    match result {
        Ok(summary) => fill_from_summary(&mut record, &summary),
        Err(message) => fill_from_error(&mut record, &message),
    }
    if record.correct && cfg.omp_baseline {
        let omp_ms = omp_time(task, omp_cache).await;
        record.omp16_ms = omp_ms;
        record.speedup_vs_omp16 = match (omp_ms, record.kernel_ms) {
            (Some(o), Some(k)) if k > 0.0 => Some(o / k),
            _ => None,
        };
    }
    record
}

async fn omp_time(task: &BenchTask, cache: &Mutex<HashMap<String, Option<f64>>>) -> Option<f64> {
    let mut cache = cache.lock().await;
    if let Some(v) = cache.get(task.id()) {
        return *v;
    }
    let region = task.task.region.clone();
    let source = task.info().openmp_source.clone();
    let measured = tokio::task::spawn_blocking(move || omp::time_openmp(&region, &source))
        .await
        .ok()
        .and_then(|r| r.map_err(|e| tracing::warn!("{}: {e}", task.id())).ok())
        .map(|(ms, _)| ms);
    cache.insert(task.id().to_string(), measured);
    measured
}

fn base_record(
    task: &BenchTask,
    strategy: Strategy,
    cfg: &RunConfig,
    env: &Environment,
    wall_s: f64,
) -> Record {
    Record {
        task: task.id().to_string(),
        suite: cfg.suite.clone(),
        tier: task.task.tier,
        strategy: strategy.as_str().to_string(),
        model: cfg.model.clone(),
        model_id: cfg.model_id.clone(),
        budget: cfg.budget,
        seed: cfg.seed,
        compiled: false,
        correct: false,
        verdict: String::new(),
        detail: String::new(),
        kernel_ms: None,
        e2e_ms: None,
        serial_ms: None,
        omp16_ms: None,
        speedup_vs_serial: None,
        speedup_vs_omp16: None,
        e2e_speedup: None,
        roofline_fraction: None,
        timed_size: String::new(),
        llm_calls: 0,
        tokens: 0,
        wall_s,
        path: Vec::new(),
        gpu: env.gpu.clone(),
        driver: env.driver.clone(),
        nvcc: env.nvcc.clone(),
        cpu_cores: env.cpu_cores,
        commit: env.commit.clone(),
        timestamp: environment::timestamp_utc(),
    }
}

fn fill_from_summary(record: &mut Record, s: &OffloadSummary) {
    record.llm_calls = s.llm_calls;
    record.tokens = s.tokens;
    record.path = s.path.clone();
    record.detail = s.verdict.clone();
    match &s.best_outcome {
        Some(o) => {
            record.verdict = o.verdict().to_string();
            record.compiled = o.compiled();
            if let VerifyOutcome::Correct(t) = o {
                record.correct = true;
                record.kernel_ms = Some(t.kernel_ms);
                record.e2e_ms = Some(t.end_to_end_ms);
                record.serial_ms = Some(t.serial_ms);
                record.speedup_vs_serial = Some(t.speedup);
                record.e2e_speedup = Some(t.end_to_end_speedup);
                record.roofline_fraction = t.roofline_fraction;
                record.timed_size = t.size.clone();
            }
        }
        None => record.verdict = "unverified".into(),
    }
}

/// A search that returned no kernel: the reason, and the model calls where the message says them.
fn fill_from_error(record: &mut Record, message: &str) {
    record.verdict = if message.starts_with("no candidate passed") {
        "no_candidate".into()
    } else {
        "error".into()
    };
    record.detail = message.chars().take(500).collect();
    record.llm_calls = message
        .split_once(" model calls")
        .and_then(|(before, _)| before.rsplit([' ', '(']).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_search_keeps_its_reason_and_model_calls() {
        let mut r = crate::bench::records::tests::record(
            "a",
            crate::graph::tasks::Tier::Easy,
            "cot",
            None,
            None,
            None,
        );
        fill_from_error(
            &mut r,
            "no candidate passed verification (3 tried, 5 model calls); last: wrong",
        );
        assert_eq!(r.verdict, "no_candidate");
        assert_eq!(r.llm_calls, 5);
        fill_from_error(&mut r, "cannot verify candidates: no nvcc");
        assert_eq!((r.verdict.as_str(), r.llm_calls), ("error", 0));
    }
}
