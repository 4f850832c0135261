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
use crate::search::offload::{
    OffloadRequest, OffloadRunner, OffloadSummary, SearchFailure, Strategy,
};
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
    /// MCGS rollouts in flight at once.
    pub parallel: u32,
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
            parallel: self.parallel,
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
        Err(failure) => fill_from_error(&mut record, &failure),
    }
    if record.correct && cfg.omp_baseline {
        let omp_ms = omp_time(task, omp_cache, runner).await;
        record.omp16_ms = omp_ms;
        record.speedup_vs_omp16 = match (omp_ms, record.kernel_ms) {
            (Some(o), Some(k)) if k > 0.0 => Some(o / k),
            _ => None,
        };
    }
    record
}

async fn omp_time(
    task: &BenchTask,
    cache: &Mutex<HashMap<String, Option<f64>>>,
    runner: &dyn OffloadRunner,
) -> Option<f64> {
    let mut cache = cache.lock().await;
    if let Some(v) = cache.get(task.id()) {
        return *v;
    }
    // Timed on a quiet machine: no compile, run or decoding of another search beside it.
    let _alone = runner.hold_alone().await;
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
        parallel: cfg.parallel,
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
        profiles: Vec::new(),
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
    record.profiles = s.profiles.clone();
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

/// A search that returned no kernel: the reason, and the model calls and tokens where the message says them.
fn fill_from_error(record: &mut Record, failure: &SearchFailure) {
    record.verdict = if failure.message.starts_with("no candidate passed") {
        "no_candidate".into()
    } else {
        "error".into()
    };
    record.detail = failure.message.chars().take(500).collect();
    record.llm_calls = failure.llm_calls;
    record.tokens = failure.tokens;
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
        let searched = SearchFailure {
            message: "no candidate passed verification (3 tried, 5 model calls, 1200 tokens); last: wrong".into(),
            trace: Some(serde_json::json!({})),
            llm_calls: 5,
            tokens: 1200,
        };
        fill_from_error(&mut r, &searched);
        assert_eq!(r.verdict, "no_candidate");
        assert_eq!((r.llm_calls, r.tokens), (5, 1200));
        fill_from_error(&mut r, &"cannot verify candidates: no nvcc".into());
        assert_eq!((r.verdict.as_str(), r.llm_calls), ("error", 0));
    }
}

#[cfg(test)]
mod run_tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::analysis::OffloadRegion;
    use crate::bench::task::load_suite;
    use crate::search::offload::{BoxFuture, PathSuggestion, ProgressSink, ReverifyOutcome};
    use crate::verify::outcome::Timing;

    /// Answers every search at once: a correct kernel 4x faster than serial for `axpy`, no kernel for
    /// the others; counts the searches.
    #[derive(Default)]
    struct Scripted {
        calls: AtomicUsize,
    }

    impl OffloadRunner for Scripted {
        fn offload(
            &self,
            request: OffloadRequest,
            _progress: ProgressSink,
            _cancel: CancellationToken,
        ) -> BoxFuture<'static, Result<OffloadSummary, SearchFailure>> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            let solved = request.region.name == "axpy";
            Box::pin(async move {
                if !solved {
                    return Err(SearchFailure {
                        message: "no candidate passed verification (2 tried, 2 model calls, 700 tokens); last: wrong".into(),
                        trace: None,
                        llm_calls: 2,
                        tokens: 700,
                    });
                }
                let timing = Timing {
                    kernel_ms: 1.0,
                    kernel_p10_ms: 0.9,
                    kernel_p90_ms: 1.1,
                    end_to_end_ms: 3.0,
                    end_to_end_p10_ms: 2.9,
                    end_to_end_p90_ms: 3.1,
                    serial_ms: 4.0,
                    speedup: 4.0,
                    end_to_end_speedup: 4.0 / 3.0,
                    roofline_fraction: Some(0.5),
                    samples: 30,
                    noisy: false,
                    noise: 0.001,
                    size: "n=11184809".into(),
                };
                Ok(OffloadSummary {
                    kernel_file: "axpy_cuda.cu".into(),
                    kernel_source: String::new(),
                    source_edits: Vec::new(),
                    verified: true,
                    verdict: "verified".into(),
                    speedup: Some(4.0),
                    roofline_fraction: Some(0.5),
                    path: vec!["coalesced_access".into()],
                    step_rewards: vec![1.0],
                    llm_calls: 3,
                    tokens: 900,
                    trace: serde_json::Value::Null,
                    start: None,
                    profiles: vec!["the start: latency-bound → tried first: loop_unrolling".into()],
                    best_outcome: Some(VerifyOutcome::Correct(timing)),
                })
            })
        }

        fn reverify(
            &self,
            _region: OffloadRegion,
            _kernel_source: String,
            _cancel: CancellationToken,
        ) -> BoxFuture<'static, Result<ReverifyOutcome, String>> {
            Box::pin(async { Err("not used".to_string()) })
        }

        fn suggested_paths(&self, _region: &OffloadRegion, _k: usize) -> Vec<PathSuggestion> {
            Vec::new()
        }
    }

    fn shipped(ids: &[&str]) -> Vec<BenchTask> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/tasks/pareval");
        let only: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        crate::bench::task::select(load_suite(&dir).unwrap(), &only).unwrap()
    }

    fn config(out: &Path) -> RunConfig {
        RunConfig {
            suite: "pareval".into(),
            strategies: vec![Strategy::Cot, Strategy::Mcgs],
            budget: 4,
            seed: 0,
            parallel: 1,
            model: "scripted".into(),
            model_id: None,
            out_dir: out.to_path_buf(),
            jobs: 2,
            omp_baseline: false,
        }
    }

    #[tokio::test]
    async fn a_second_run_finds_every_record_and_searches_nothing() {
        let out = tempfile::tempdir().unwrap();
        let tasks = shipped(&["axpy", "gemv"]);
        let cfg = config(out.path());
        let runner = Arc::new(Scripted::default());
        let env = Environment::default();
        let first = run(&tasks, &cfg, &env, runner.clone(), CancellationToken::new())
            .await
            .unwrap();
        assert_eq!(first, RunCounts { ran: 4, skipped: 0 });
        assert_eq!(runner.calls.load(Ordering::SeqCst), 4);
        let records = read_records(&out.path().join(RECORDS)).unwrap();
        let axpy = records
            .iter()
            .find(|r| r.task == "axpy" && r.strategy == "cot")
            .unwrap();
        assert!(axpy.correct && axpy.compiled);
        assert_eq!(axpy.speedup_vs_serial, Some(4.0));
        assert_eq!((axpy.llm_calls, axpy.tokens), (3, 900));
        let gemv = records
            .iter()
            .find(|r| r.task == "gemv" && r.strategy == "mcgs")
            .unwrap();
        assert!(!gemv.correct);
        assert_eq!((gemv.verdict.as_str(), gemv.llm_calls), ("no_candidate", 2));
        assert_eq!(gemv.tokens, 700, "a failed search's tokens still count");
        let report = std::fs::read_to_string(out.path().join(REPORT)).unwrap();
        assert!(
            report.contains("| cot | all | 2 | 1 | 0.50 | 4.00×"),
            "{report}"
        );
        assert!(out.path().join(PLOT).is_file());

        // Everything is there: nothing is searched again, and the report is rewritten the same.
        std::fs::remove_file(out.path().join(REPORT)).unwrap();
        let second = run(&tasks, &cfg, &env, runner.clone(), CancellationToken::new())
            .await
            .unwrap();
        assert_eq!(second, RunCounts { ran: 0, skipped: 4 });
        assert_eq!(runner.calls.load(Ordering::SeqCst), 4);
        assert_eq!(
            std::fs::read_to_string(out.path().join(REPORT)).unwrap(),
            report
        );

        // Another seed is another measurement.
        let other = RunConfig { seed: 1, ..cfg };
        let third = run(
            &tasks,
            &other,
            &env,
            runner.clone(),
            CancellationToken::new(),
        )
        .await
        .unwrap();
        assert_eq!(third, RunCounts { ran: 4, skipped: 0 });
        assert_eq!(runner.calls.load(Ordering::SeqCst), 8);
    }
}
