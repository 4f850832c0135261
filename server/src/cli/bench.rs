//! `cuda-offload bench`: run a suite (every task × strategy through the `offload` search), resume from
//! the records already written, regenerate the report; `bench convert` builds the ParEval suite;
//! `--check-tasks` verifies each task's plain CUDA reference before model calls are spent.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use tokio_util::sync::CancellationToken;

use crate::bench::environment::{build_commit, cpu_cores, split_gpu_name};
use crate::bench::records::{RecordKey, finished, read_records};
use crate::bench::runner::{self, Environment, RunConfig};
use crate::bench::task::{BenchTask, find_suite_dir, load_suite, select};
use crate::bench::{convert, omp};
use crate::config::{Settings, SettingsArgs, Strategy};
use crate::llm::BackendKind;
use crate::search::judge::VerifierJudge;
use crate::search::offload::OffloadRunner;
use crate::search::offloader::{Offloader, SearchSettings, load_graph};
use crate::verify::{Protocol, Verifier, VerifyJob, VerifyOutcome};

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Convert ParEval's serial problems into bench/tasks/pareval with the curated map
    Convert(ConvertArgs),
}

#[derive(Debug, clap::Args)]
struct ConvertArgs {
    /// ParEval's data folder (with prompts/ and results/)
    #[arg(long, value_name = "DIR")]
    pareval: PathBuf,
    /// The curated map of problems to tasks [default: bench/pareval-map.toml of this checkout]
    #[arg(long)]
    map: Option<PathBuf>,
    /// Where the tasks go [default: bench/tasks/pareval of this checkout]
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
struct RunArgs {
    /// Suite: a folder under bench/tasks
    #[arg(long, default_value = "pareval")]
    suite: String,
    /// The suite's folder, when it is not bench/tasks/<suite> above the current directory
    #[arg(long, value_name = "DIR")]
    suite_dir: Option<PathBuf>,
    /// Search strategies, comma-separated
    #[arg(long, value_enum, value_delimiter = ',', default_value = "mcgs,cot")]
    strategy: Vec<Strategy>,
    #[command(flatten)]
    settings: SettingsArgs,
    /// Only these tasks (comma-separated ids)
    #[arg(long, value_delimiter = ',')]
    tasks: Vec<String>,
    /// Where records.jsonl, report.md and plot.svg go [default: bench/results/<suite>]
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Searches at a time (every timing still has the machine to itself)
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Only regenerate report.md and plot.svg from records.jsonl
    #[arg(long)]
    report_only: bool,
    /// Verify each task's reference.cu (the GPU validation of the suite) instead of searching
    #[arg(long, conflicts_with = "report_only")]
    check_tasks: bool,
    /// Skip the 16-thread OpenMP baseline
    #[arg(long)]
    no_omp: bool,
    /// Wall-clock limit of one search, in seconds
    #[arg(long)]
    deadline: Option<f64>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        Some(Command::Convert(c)) => run_convert(c),
        None => run_suite(args.run),
    }
}

fn cwd() -> anyhow::Result<PathBuf> {
    std::env::current_dir().context("no current directory")
}

/// The checkout's root: the nearest folder above the current one holding `bench/`.
fn checkout_file(rel: &str) -> anyhow::Result<PathBuf> {
    let cwd = cwd()?;
    Ok(cwd
        .ancestors()
        .find(|a| a.join("bench").is_dir())
        .unwrap_or(&cwd)
        .join(rel))
}

fn run_convert(args: ConvertArgs) -> anyhow::Result<ExitCode> {
    let map = match args.map {
        Some(m) => m,
        None => checkout_file("bench/pareval-map.toml")?,
    };
    let out = match args.out {
        Some(o) => o,
        None => checkout_file("bench/tasks/pareval")?,
    };
    let done = convert::convert(&args.pareval, &map, &out)?;
    eprintln!(
        "{} tasks written to {}, {} problems excluded (see EXCLUDED.md)",
        done.tasks.len(),
        out.display(),
        done.excluded
    );
    Ok(ExitCode::SUCCESS)
}

fn run_suite(args: RunArgs) -> anyhow::Result<ExitCode> {
    if args.report_only
        && let Some(out_dir) = &args.out
    {
        return report_only(&args.suite, out_dir);
    }
    let suite_dir = match &args.suite_dir {
        Some(d) => d.clone(),
        None => find_suite_dir(&cwd()?, &args.suite).with_context(|| {
            format!(
                "no bench/tasks/{} above the current directory (pass --suite-dir)",
                args.suite
            )
        })?,
    };
    let out_dir = match &args.out {
        Some(o) => o.clone(),
        None => suite_dir
            .parent()
            .and_then(Path::parent)
            .map(|b| b.join("results").join(&args.suite))
            .unwrap_or_else(|| PathBuf::from("bench-results")),
    };
    if args.report_only {
        return report_only(&args.suite, &out_dir);
    }
    let tasks = select(load_suite(&suite_dir)?, &args.tasks)?;
    if tasks.is_empty() {
        bail!("the suite {} has no tasks", suite_dir.display());
    }
    let flags = args.settings.layer();
    let (settings, config_file) = Settings::load(&suite_dir, |k| std::env::var(k).ok(), &flags)?;
    if let Some(path) = &config_file {
        eprintln!("settings from {}", path.display());
    }
    if !args.check_tasks {
        let strategies = dedup(&args.strategy);
        let done = finished(&read_records(&out_dir.join(runner::RECORDS))?);
        let all_done = tasks.iter().all(|t| {
            strategies.iter().all(|s| {
                done.contains(&RecordKey {
                    task: t.id().to_string(),
                    strategy: s.as_str().to_string(),
                    model: settings.model.clone(),
                    budget: settings.budget,
                    seed: settings.seed,
                    parallel: settings.parallel,
                })
            })
        });
        if all_done {
            // A finished suite: no verifier, no model server, no search; only the report again.
            let records = runner::write_report(&args.suite, &out_dir)?;
            eprintln!(
                "all {} task × strategy records are in {}: nothing to run; report of {} records rewritten",
                tasks.len() * strategies.len(),
                out_dir.join(runner::RECORDS).display(),
                records.len()
            );
            return Ok(ExitCode::SUCCESS);
        }
    }
    let mut verify_config = settings.verify_config();
    if args.check_tasks {
        // Only correctness is asked of a reference kernel; the serial references it computes (timed
        // alone either way) are cached for the searches that follow.
        verify_config.protocol = Protocol::Screening;
    }
    let verifier = Arc::new(Verifier::new(verify_config).context("the verifier needs nvcc")?);
    if args.check_tasks {
        return check_tasks(&verifier, &tasks);
    }
    let (gpu, driver) = split_gpu_name(verifier.gpu_name().as_deref());
    let env = Environment {
        gpu,
        driver,
        nvcc: nvcc_version(settings.nvcc.as_deref()),
        commit: build_commit().to_string(),
        cpu_cores: cpu_cores(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    // Said before the first task; each search checks again and fails at once, without model calls,
    // so the records stay honest about every task that could not run. The port asks no model.
    let calls_model = args.strategy.iter().any(|s| *s != Strategy::Port);
    if calls_model
        && let Err(e) = runtime.block_on(crate::llm::probe::preflight(&settings.backend_config()))
    {
        eprintln!("warning: {e}; every search will fail until it answers");
    }
    let model_id = if calls_model {
        runtime.block_on(server_model_id(&settings))
    } else {
        None
    };
    let cfg = RunConfig {
        suite: args.suite.clone(),
        strategies: dedup(&args.strategy),
        budget: settings.budget,
        seed: settings.seed,
        parallel: settings.parallel,
        model: settings.model.clone(),
        model_id,
        out_dir: out_dir.clone(),
        jobs: args.jobs.max(1),
        omp_baseline: !args.no_omp,
    };
    let graph = load_graph(Some(&suite_dir)).map_err(anyhow::Error::msg)?;
    let offloader: Arc<dyn OffloadRunner> = Arc::new(Offloader {
        backend: settings.backend_config(),
        judge: Arc::new(VerifierJudge(verifier.clone())),
        graph: Arc::new(graph),
        settings: SearchSettings {
            deadline: args.deadline.map(Duration::from_secs_f64),
            ..settings.search_settings()
        },
    });
    let model = if calls_model {
        format!(
            "budget {} model calls, seed {}, {} {} ({})",
            cfg.budget,
            cfg.seed,
            settings.backend.as_str(),
            settings.model,
            settings.effective_url()
        )
    } else {
        "no model (the generated port alone)".to_string()
    };
    eprintln!(
        "bench {}: {} tasks × {} strategies, {model}, GPU: {}, records in {}",
        cfg.suite,
        tasks.len(),
        cfg.strategies.len(),
        env.gpu
            .as_deref()
            .unwrap_or("none (kernels are compiled, not run)"),
        out_dir.display()
    );
    let cancel = CancellationToken::new();
    let ctrl_c = cancel.clone();
    let counts = runtime.block_on(async move {
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("cancelling… (finished records are kept; rerun to resume)");
                ctrl_c.cancel();
            }
        });
        runner::run(&tasks, &cfg, &env, offloader, cancel).await
    })?;
    eprintln!(
        "{} records added, {} already there; report: {}",
        counts.ran,
        counts.skipped,
        out_dir.join(runner::REPORT).display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Rewrites report.md and plot.svg from records.jsonl alone.
fn report_only(suite: &str, out_dir: &Path) -> anyhow::Result<ExitCode> {
    let records = runner::write_report(suite, out_dir)?;
    eprintln!(
        "report of {} records written to {}",
        records.len(),
        out_dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn dedup(strategies: &[Strategy]) -> Vec<Strategy> {
    let mut out: Vec<Strategy> = Vec::new();
    for s in strategies {
        if !out.contains(s) {
            out.push(*s);
        }
    }
    out
}

fn nvcc_version(configured: Option<&Path>) -> String {
    crate::verify::toolchain::find_nvcc(
        configured,
        &crate::verify::toolchain::default_project_roots(),
    )
    .map(|n| n.version)
    .unwrap_or_else(|_| "unknown".into())
}

/// The model id the server itself reports (`/v1/models`), where it lists exactly one or the configured one.
async fn server_model_id(settings: &Settings) -> Option<String> {
    if settings.backend == BackendKind::Replay {
        return None;
    }
    let report = crate::llm::probe::probe(
        settings.backend,
        &settings.effective_url(),
        &settings.model,
        Duration::from_secs(5),
    )
    .await
    .ok()?;
    match report.models.as_slice() {
        [one] => Some(one.clone()),
        many => many.iter().find(|m| **m == settings.model).cloned(),
    }
}

/// Verifies every task's reference.cu: a GPU says whether the task and its harness agree before any
/// model call is spent; without a GPU, that each compiles.
fn check_tasks(verifier: &Verifier, tasks: &[BenchTask]) -> anyhow::Result<ExitCode> {
    let mut jobs = Vec::new();
    for t in tasks {
        let cu = std::fs::read_to_string(t.reference_cu())
            .with_context(|| format!("cannot read {}", t.reference_cu().display()))?;
        jobs.push(VerifyJob {
            region: t.task.region.clone(),
            candidate: cu,
            run_timeout: None,
        });
    }
    let reports = verifier.verify_many_with(&jobs, |i, r| {
        let line = match r {
            Ok(rep) => rep.summary.clone(),
            Err(e) => format!("verifier error: {e}"),
        };
        eprintln!("{}: {line}", tasks[i].id());
    });
    let mut failed = 0;
    let mut passing = Vec::new();
    for (t, r) in tasks.iter().zip(&reports) {
        let ok = matches!(
            r.as_ref().map(|rep| &rep.outcome),
            Ok(VerifyOutcome::Correct(_)) | Ok(VerifyOutcome::CompiledNotRun { .. })
        );
        // The OpenMP baseline must build too (it is timed only next to a correct kernel).
        let omp_ok = tempfile::tempdir()
            .map_err(omp::OmpError::from)
            .and_then(|d| omp::build(&t.task.region, &t.info().openmp_source, d.path(), "-O1"))
            .map_err(|e| eprintln!("{}: {e}", t.id()))
            .is_ok();
        if !ok || !omp_ok {
            failed += 1;
        } else {
            passing.push(t.id().to_string());
        }
    }
    // For a script that benchmarks what the GPU accepted rather than nothing.
    println!("passing tasks: {}", passing.join(","));
    println!(
        "{} of {} task references pass{}",
        tasks.len() - failed,
        tasks.len(),
        if verifier.gpu_name().is_none() {
            " (compiled only: no GPU)"
        } else {
            ""
        }
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
