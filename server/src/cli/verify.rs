//! `cuda-offload verify`: check a CUDA kernel against the serial loop it replaces (compile, compare,
//! time), alone or as a batch from a manifest (what `scripts/gpu-test` runs).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use crate::analysis::OffloadRegion;
use crate::verify::{Protocol, Verifier, VerifyConfig, VerifyJob, VerifyReport, testdata};

/// stdout may be a closed pipe (`| head`): losing the rest of the report is fine, panicking is not.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// C++ file holding the loop (with --line); not needed with --region
    file: Option<PathBuf>,
    /// 1-based line of the loop in FILE
    #[arg(long)]
    line: Option<usize>,
    /// The candidate: a .cu file defining `void <name>_gpu(<the loop's parameters>)` on device pointers
    #[arg(long, required_unless_present = "manifest")]
    candidate: Option<PathBuf>,
    /// The region as JSON (a serialized OffloadRegion), or `builtin:NAME` for a test-workspace loop
    #[arg(long)]
    region: Option<String>,
    /// Print the report as JSON on stdout
    #[arg(long)]
    json: bool,
    /// Verify a batch: a JSON manifest of {name, region, candidate, expect}
    #[arg(long, conflicts_with = "candidate")]
    manifest: Option<PathBuf>,
    /// With --manifest: where to write results.json and report.md
    #[arg(long, requires = "manifest")]
    out: Option<PathBuf>,
    /// nvcc to use (file or CUDA root)
    #[arg(long, env = "CUDA_OFFLOAD_NVCC")]
    nvcc: Option<PathBuf>,
    /// Wall-clock limit of one candidate run, seconds
    #[arg(long, default_value_t = 120)]
    timeout: u64,
    /// Compiles at a time (default: the cores)
    #[arg(long)]
    jobs: Option<usize>,
    /// Timing protocol: `full` (BENCHMARKING.md: up to 30 samples) or `screening` (5 to 10
    /// samples, as a search times its candidates)
    #[arg(long, value_enum, default_value_t = Protocol::Full)]
    protocol: Protocol,
    /// Screening runs that may share one GPU (full timings always run alone). More than 1 trades
    /// timing precision for throughput: the timings of runs that overlapped include each other's
    /// GPU time, never less than their own
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    screening_runs: u32,
    /// Do not read or write the outcome cache
    #[arg(long)]
    no_cache: bool,
    /// Cache directory (default: $XDG_CACHE_HOME/cuda-offload or ~/.cache/cuda-offload)
    #[arg(long)]
    cache_dir: Option<PathBuf>,
    /// Keep the job directory (generated sources, outputs) and print where it is
    #[arg(long)]
    keep: bool,
    /// Seed of the inputs, the shapes and the re-checked samples (default: drawn at random for
    /// each run and printed, so that a run can be repeated)
    #[arg(long)]
    seed: Option<u64>,
    /// After a correct verdict, profile the kernel with Nsight Compute (`ncu`) and print what
    /// limits it and which techniques a search would try on it first
    #[arg(long, conflicts_with = "manifest")]
    profile: bool,
    /// Run the compiled harness even without a detected GPU (shows the driver's own answer)
    #[arg(long, hide = true)]
    force_run: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut cfg = VerifyConfig {
        nvcc: args.nvcc.clone(),
        run_timeout: Duration::from_secs(args.timeout.max(1)),
        keep_dirs: args.keep,
        force_run: args.force_run,
        protocol: args.protocol,
        screening_runs: args.screening_runs as usize,
        seed: args.seed,
        ..VerifyConfig::default()
    };
    if let Some(j) = args.jobs {
        cfg.compile_jobs = j.max(1);
    }
    if args.no_cache {
        cfg.cache_dir = None;
    } else if let Some(d) = &args.cache_dir {
        cfg.cache_dir = Some(d.clone());
    }
    let verifier = Verifier::new(cfg).context("cannot verify without nvcc")?;
    if let Some(m) = &args.manifest {
        return run_manifest(&verifier, m, args.out.as_deref(), args.json);
    }
    let region = match (&args.region, &args.file, args.line) {
        (Some(r), _, _) => load_region(r, Path::new("."))?,
        (None, Some(f), Some(n)) => region_at_line(f, n)?,
        _ => bail!("say which loop: FILE --line N, or --region REGION.json"),
    };
    let cand_path = args.candidate.as_ref().context("--candidate is required")?;
    let text = crate::analysis::read_source(cand_path).context("cannot read the candidate")?;
    // A kernel file `offload` wrote carries the host wrapper the user's program calls (it copies
    // and prints errors): the candidate is what precedes it.
    let candidate = crate::search::workspace_edit::candidate_part(&text);
    let report = verifier.verify(&region, candidate)?;
    let profile = (args.profile && report.outcome.verdict() == "correct")
        .then(|| verifier.profile(&region, candidate));
    if args.json {
        let mut v = serde_json::to_value(&report)?;
        if let Some(p) = &profile {
            v["profile"] = match p {
                Ok(p) => serde_json::to_value(p)?,
                Err(why) => serde_json::json!({ "error": why }),
            };
        }
        say!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print_human(&report, cand_path);
        match &profile {
            Some(Ok(p)) => {
                say!("  profile: {}", p.summary);
                for f in &p.favoured {
                    say!("    try {}: {}", f.technique, f.reason);
                }
            }
            Some(Err(why)) => say!("  profile: none ({why})"),
            None if args.profile => say!("  profile: none (only a correct kernel is profiled)"),
            None => {}
        }
    }
    Ok(exit_for(&report))
}

/// The region of the loop at `line` (1-based) of `file`, as analysis outlines it.
fn region_at_line(file: &Path, line: usize) -> anyhow::Result<OffloadRegion> {
    let (_, _, region) = crate::analysis::outline_in_file(file, line)?;
    Ok(region)
}

/// `builtin:NAME` or a JSON file (relative to `base`).
fn load_region(spec: &str, base: &Path) -> anyhow::Result<OffloadRegion> {
    if let Some(name) = spec.strip_prefix("builtin:") {
        return testdata::builtin_region(name).with_context(|| {
            format!(
                "no built-in region `{name}` (have: {})",
                testdata::names().collect::<Vec<_>>().join(", ")
            )
        });
    }
    let path = base.join(spec);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read the region {}", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("{} is not a serialized OffloadRegion", path.display()))
}

fn exit_for(report: &VerifyReport) -> ExitCode {
    match report.outcome.verdict() {
        "correct" | "compiled_not_run" => ExitCode::SUCCESS,
        _ => ExitCode::from(3),
    }
}

fn print_human(report: &VerifyReport, cand: &Path) {
    say!("{}: {}", report.region, report.summary);
    if let crate::verify::VerifyOutcome::CompileError { diagnostics } = &report.outcome {
        for d in diagnostics {
            match d.line {
                Some(l) => say!("{}:{l}: {}: {}", cand.display(), d.severity, d.message),
                None => say!("{}: {}: {}", cand.display(), d.severity, d.message),
            }
        }
    }
    say!(
        "  reward {:.3} (raw {:.3}); nvcc {} -arch={}; GPU {}; {}{}",
        report.reward,
        report.raw_reward,
        report.nvcc,
        report.arch,
        report.gpu.as_deref().unwrap_or("none"),
        if report.cached { "cached; " } else { "" },
        format_args!("{:.1} s", report.wall_s)
    );
    if let Some(g) = report.outcome.guard() {
        say!("  decided by: {g}");
    }
    say!(
        "  checked ({} shapes; repeat with --seed {}):",
        report.checked.len(),
        report.run_seed
    );
    for c in &report.checked {
        say!("    {c}");
    }
    if let Some(d) = &report.job_dir {
        say!("  job directory kept: {d}");
    }
}

#[derive(Debug, Deserialize)]
struct Manifest {
    entries: Vec<Entry>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
struct Entry {
    name: String,
    /// `builtin:NAME` or a region JSON path relative to the manifest.
    region: String,
    candidate: String,
    /// The verdict this candidate must get.
    expect: String,
    /// The guard that must decide it (`link:undefined-symbol`, `compare:edge case`, ...; a
    /// prefix such as `compare:` is enough).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    guard: Option<String>,
    /// The BENCHMARKING.md row or adversarial case it stands for.
    #[serde(default)]
    row: String,
    /// Correct but slower than serial: speedup must stay below this.
    #[serde(default)]
    max_speedup: Option<f64>,
    /// The timer must have seen at least this much work (side-stream hack).
    #[serde(default)]
    min_kernel_ms: Option<f64>,
    /// Wall-clock limit of this candidate's run, seconds.
    #[serde(default)]
    timeout_s: Option<u64>,
}

#[derive(Debug, Serialize)]
struct EntryResult {
    #[serde(flatten)]
    entry: Entry,
    pass: bool,
    why: String,
    report: Option<VerifyReport>,
    error: Option<String>,
}

fn run_manifest(
    verifier: &Verifier,
    path: &Path,
    out: Option<&Path>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the manifest {}", path.display()))?;
    let manifest: Manifest = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a verify manifest", path.display()))?;
    let base = path.parent().unwrap_or(Path::new("."));
    let mut jobs = Vec::new();
    for e in &manifest.entries {
        let region = load_region(&e.region, base)?;
        let cand = crate::analysis::read_source(&base.join(&e.candidate))
            .context("cannot read the candidate")?;
        jobs.push(VerifyJob {
            region,
            candidate: cand,
            run_timeout: e.timeout_s.map(Duration::from_secs),
        });
    }
    let start = Instant::now();
    let reports = verifier.verify_many_with(&jobs, |i, r| {
        let line = match r {
            Ok(rep) => rep.summary.clone(),
            Err(e) => format!("error: {e}"),
        };
        eprintln!(
            "[{:>6.1} s] {}: {line}",
            start.elapsed().as_secs_f64(),
            manifest.entries[i].name
        );
    });
    let wall = start.elapsed().as_secs_f64();
    let mut results = Vec::new();
    for (e, r) in manifest.entries.iter().zip(reports) {
        results.push(match r {
            Ok(rep) => {
                let (pass, why) = judge_entry(e, &rep);
                EntryResult {
                    entry: e.clone(),
                    pass,
                    why,
                    report: Some(rep),
                    error: None,
                }
            }
            Err(err) => EntryResult {
                entry: e.clone(),
                pass: false,
                why: "verifier error".into(),
                report: None,
                error: Some(err.to_string()),
            },
        });
    }
    let passed = results.iter().filter(|r| r.pass).count();
    let per_minute = results.len() as f64 / (wall / 60.0).max(1e-9);
    let table = markdown_table(&results);
    let header = format!(
        "{passed}/{} verdicts as expected; {} candidates in {wall:.1} s = {per_minute:.1} candidates/minute \
         ({} compile slots, GPU {}, nvcc {})",
        results.len(),
        results.len(),
        verifier.config().compile_jobs,
        verifier.gpu_name().unwrap_or_else(|| "none".into()),
        results
            .iter()
            .find_map(|r| r.report.as_ref().map(|x| x.nvcc.clone()))
            .unwrap_or_default()
    );
    if json {
        say!("{}", serde_json::to_string_pretty(&results)?);
    } else {
        say!("{table}\n{header}");
    }
    if let Some(dir) = out {
        std::fs::create_dir_all(dir)?;
        let doc = serde_json::json!({
            "summary": header,
            "wall_s": wall,
            "candidates_per_minute": per_minute,
            "compile_slots": verifier.config().compile_jobs,
            "gpu": verifier.gpu_name(),
            "results": results,
        });
        std::fs::write(
            dir.join("results.json"),
            serde_json::to_string_pretty(&doc)?,
        )?;
        std::fs::write(
            dir.join("report.md"),
            format!("# Verification run\n\n{header}\n\n{table}\n"),
        )?;
    }
    Ok(if passed == results.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn judge_entry(e: &Entry, rep: &VerifyReport) -> (bool, String) {
    let verdict = rep.outcome.verdict();
    if verdict != e.expect {
        return (false, format!("expected {}, got {verdict}", e.expect));
    }
    if let Some(want) = &e.guard {
        let got = rep.outcome.guard().unwrap_or_default();
        if !got.starts_with(want.as_str()) {
            return (false, format!("expected guard {want}, got `{got}`"));
        }
    }
    if let crate::verify::VerifyOutcome::Correct(t) = &rep.outcome {
        if let Some(m) = e.max_speedup
            && t.speedup >= m
        {
            return (false, format!("speedup {:.2} is not below {m}", t.speedup));
        }
        if let Some(m) = e.min_kernel_ms
            && t.kernel_ms < m
        {
            return (
                false,
                format!("kernel time {:.3} ms hides work (< {m} ms)", t.kernel_ms),
            );
        }
    }
    (true, "ok".into())
}

fn markdown_table(results: &[EntryResult]) -> String {
    let mut s = String::from(
        "| candidate | row | expected | verdict | guard | ok | kernel ms | serial ms | speedup | roofline | detail |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in results {
        let guard = r
            .report
            .as_ref()
            .and_then(|rep| rep.outcome.guard())
            .unwrap_or_default();
        let (verdict, k, ser, sp, roof, detail) = match &r.report {
            Some(rep) => {
                let (k, ser, sp, roof) = match &rep.outcome {
                    crate::verify::VerifyOutcome::Correct(t) => (
                        format!("{:.4}", t.kernel_ms),
                        format!("{:.2}", t.serial_ms),
                        format!("{:.1}x", t.speedup),
                        t.roofline_fraction
                            .map(|f| format!("{:.0}%", f * 100.0))
                            .unwrap_or_default(),
                    ),
                    _ => Default::default(),
                };
                let detail = if rep.outcome.verdict() == "correct" {
                    format!(
                        "{} samples, noise {:.2}%",
                        sample_count(rep),
                        noise(rep) * 100.0
                    )
                } else {
                    rep.summary.replace('|', "\\|").chars().take(140).collect()
                };
                (rep.outcome.verdict().to_string(), k, ser, sp, roof, detail)
            }
            None => (
                "error".into(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                r.error.clone().unwrap_or_default().replace('|', "\\|"),
            ),
        };
        s.push_str(&format!(
            "| {} | {} | {} | {verdict} | {guard} | {} | {k} | {ser} | {sp} | {roof} | {detail} |\n",
            r.entry.name,
            r.entry.row,
            r.entry.expect,
            if r.pass { "yes" } else { "**NO**" },
        ));
    }
    s
}

fn sample_count(r: &VerifyReport) -> usize {
    match &r.outcome {
        crate::verify::VerifyOutcome::Correct(t) => t.samples,
        _ => 0,
    }
}

fn noise(r: &VerifyReport) -> f64 {
    match &r.outcome {
        crate::verify::VerifyOutcome::Correct(t) => t.noise,
        _ => 0.0,
    }
}
