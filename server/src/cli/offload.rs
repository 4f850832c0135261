//! `cuda-offload offload FILE --line N`: search for a verified CUDA kernel for one loop.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use tokio_util::sync::CancellationToken;

use crate::analysis;
use crate::config::{Settings, SettingsArgs, SettingsLayer, Strategy};
use crate::plural::count;
use crate::project::{self, BuildEdit};
use crate::search::judge::VerifierJudge;
use crate::search::offload::{LineEdit, OffloadRequest, OffloadRunner, OffloadSummary};
use crate::search::offloader::{Offloader, SearchSettings, load_graph};
use crate::search::workspace_edit;
use crate::verify::Verifier;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The C++ file holding the loop
    file: PathBuf,
    /// A line of the loop (1-based; any line inside the nest)
    #[arg(long)]
    line: usize,
    /// Search strategy
    #[arg(long, value_enum)]
    strategy: Option<Strategy>,
    #[command(flatten)]
    settings: SettingsArgs,
    /// Wall-clock limit of the whole search, in seconds
    #[arg(long)]
    deadline: Option<f64>,
    /// Print the result (and the whole search trace) as JSON
    #[arg(long)]
    json: bool,
    /// Write the .cu file, a patch for FILE, the search trace and every candidate (candidates/) into
    /// DIR; a failed search still writes its trace and candidates
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Write the .cu file next to FILE and replace the loop in FILE by a call
    #[arg(long)]
    apply: bool,
    /// Skip building the project with the edit after the search (the `check_build` setting)
    #[arg(long)]
    no_check_build: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let file = args
        .file
        .canonicalize()
        .with_context(|| format!("cannot open {}", args.file.display()))?;
    let flags = SettingsLayer {
        strategy: args.strategy,
        check_build: args.no_check_build.then_some(false),
        ..args.settings.layer()
    };
    let (settings, config_file) = Settings::load(&file, |k| std::env::var(k).ok(), &flags)?;
    if let Some(path) = &config_file {
        eprintln!("settings from {}", path.display());
    }

    let (source, lp, region) = match analysis::outline_in_file(&file, args.line) {
        Ok(found) => found,
        Err(analysis::AnalysisError::Outline {
            cause: analysis::OutlineError::NoLoop(_),
            ..
        }) => bail!(
            "no loop at {}:{} (run `cuda-offload scan {}` to list them)",
            file.display(),
            args.line,
            file.display()
        ),
        Err(e) => return Err(e.into()),
    };

    let verifier = Verifier::new(settings.verify_config()).context("the verifier needs nvcc")?;
    let gpu = verifier.gpu_name();
    let graph = load_graph(file.parent()).map_err(anyhow::Error::msg)?;
    let offloader = Offloader {
        backend: settings.backend_config(),
        judge: Arc::new(VerifierJudge(Arc::new(verifier))),
        graph: Arc::new(graph),
        settings: SearchSettings {
            deadline: args.deadline.map(Duration::from_secs_f64),
            ..settings.search_settings()
        },
    };
    eprintln!(
        "offloading {} loop at {}:{}-{} as `{}` — {} search, budget {}, {} {} ({}), GPU: {}",
        lp.kind.as_str(),
        file.display(),
        lp.line,
        lp.end_line,
        region.signature(),
        settings.strategy.as_str(),
        count(settings.budget as usize, "model call", "model calls"),
        settings.backend.as_str(),
        settings.model,
        match settings.backend {
            crate::llm::BackendKind::Replay => settings
                .cassette
                .as_ref()
                .map(|c| c.display().to_string())
                .unwrap_or_default(),
            _ => settings.effective_url(),
        },
        gpu.as_deref()
            .unwrap_or("none (candidates are compiled, not run)"),
    );
    let request = OffloadRequest {
        file: file.clone(),
        source: source.clone(),
        region: region.clone(),
        strategy: Some(settings.strategy),
        budget: Some(settings.budget as usize),
        seed: Some(settings.seed),
    };

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let cancel = CancellationToken::new();
    let ctrl_c = cancel.clone();
    let summary = runtime.block_on(async move {
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("cancelling…");
                ctrl_c.cancel();
            }
        });
        let progress = Box::new(|p: &crate::search::Progress| eprintln!("{}", progress_line(p)));
        offloader.offload(request, progress, cancel).await
    });
    let summary = match summary {
        Ok(s) => s,
        Err(failure) => {
            // What a failed search tried is what its user most needs to read.
            let mut written = Vec::new();
            if let (Some(dir), Some(trace)) = (&args.out, &failure.trace) {
                written = write_trace(dir, trace)?;
            }
            if args.json {
                let out = serde_json::json!({"loop": {"file": file, "line": lp.line, "end_line": lp.end_line, "kind": lp.kind},
                                             "region": region, "gpu": gpu, "error": failure.message,
                                             "trace": failure.trace, "written": written});
                println!("{}", serde_json::to_string_pretty(&out)?);
            } else if !written.is_empty() {
                eprintln!(
                    "the search's trace and candidates: {}",
                    args.out
                        .as_ref()
                        .map(|d| d.display().to_string())
                        .unwrap_or_default()
                );
            }
            bail!("search failed: {failure}");
        }
    };

    let build = project::build_edit(
        &file,
        &summary.kernel_file,
        &project::CudaArch::choose(settings.gpu_arch.as_deref()),
        &project::read_from_disk,
    );
    // Does the user's program still build (and on a GPU give the same results, faster)? Checked
    // in scratch copies of the project as it is now, so before --apply writes anything.
    let check = if settings.check_build {
        project::check::after_offload(
            &file,
            &source,
            &region,
            &summary,
            &build,
            settings.nvcc.as_deref(),
        )
    } else {
        None
    };
    let mut written = Vec::new();
    if let Some(dir) = &args.out {
        written.extend(write_out(dir, &file, &source, &region, &summary, &build)?);
    }
    if args.apply {
        written.extend(apply(&file, &source, &region, &summary, &build)?);
    }
    // What residency this offload completes, or what it still needs.
    let residency = workspace_edit::offload_source_edits(&[&region], &source).1;
    if args.json {
        let out = serde_json::json!({"loop": {"file": file, "line": lp.line, "end_line": lp.end_line, "kind": lp.kind},
                                     "region": region, "gpu": gpu, "result": summary, "build": build,
                                     "check": check.as_ref().map(|c| match c {
                                         Ok(report) => serde_json::to_value(report).unwrap_or_default(),
                                         Err(e) => serde_json::json!({"error": e}),
                                     }),
                                     "residency": residency, "written": written});
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print_human(&summary, &build, check.as_ref(), &written);
        for r in &residency {
            println!("residency: {}", r.describe());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One line per model call as it ends, and one per search iteration: the path it tried (the
/// kernel returned may sit higher on it, where a later step did not pass or did no better).
fn progress_line(p: &crate::search::Progress) -> String {
    if let Some(c) = &p.call {
        return format!("  call {}/{}: {}", p.llm_calls, p.budget, c.describe());
    }
    let best = p
        .best_reward
        .map(|r| format!("{r:.3}"))
        .unwrap_or_else(|| "-".into());
    let tried = if p.current_path.is_empty() {
        "-".to_string()
    } else {
        p.current_path.join(" → ")
    };
    format!(
        "[{:>3}] {}/{} model calls, best reward {best}, tried: {tried}",
        p.iteration, p.llm_calls, p.budget
    )
}

fn write_out(
    dir: &Path,
    file: &Path,
    source: &str,
    region: &analysis::OffloadRegion,
    s: &OffloadSummary,
    build: &BuildEdit,
) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let kernel = dir.join(&s.kernel_file);
    std::fs::write(
        &kernel,
        workspace_edit::with_replaced_lines(&s.kernel_source, region, source),
    )?;
    let base = file.parent().unwrap_or(Path::new("."));
    let mut diff = unified_diff(base, file, source, &s.source_edits);
    for f in &build.files {
        let text = std::fs::read_to_string(&f.path)
            .with_context(|| format!("cannot read {}", f.path.display()))?;
        diff.push_str(&unified_diff(base, &f.path, &text, &f.edits));
    }
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let patch = dir.join(format!("{name}.patch"));
    std::fs::write(&patch, diff)?;
    let mut written = vec![kernel, patch];
    written.extend(write_trace(dir, &s.trace)?);
    Ok(written)
}

/// `trace.json` and, under `candidates/`, every candidate the search judged (`NN-technique.cu`)
/// or could not use (`NN-technique.answer.txt`, the model's whole answer), in the search's order.
fn write_trace(dir: &Path, trace: &serde_json::Value) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join("trace.json");
    std::fs::write(&path, serde_json::to_string_pretty(trace)?)
        .with_context(|| format!("cannot write {}", path.display()))?;
    let mut written = vec![path];
    let candidates = trace["candidates"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if candidates.is_empty() {
        return Ok(written);
    }
    let folder = dir.join("candidates");
    // A rerun into the same folder must not leave an earlier search's candidates beside these.
    if folder.exists() {
        std::fs::remove_dir_all(&folder)
            .with_context(|| format!("cannot clear {}", folder.display()))?;
    }
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("cannot create {}", folder.display()))?;
    for (i, c) in candidates.iter().enumerate() {
        let technique: String = c["technique"]
            .as_str()
            .unwrap_or("candidate")
            .chars()
            .map(|ch| {
                if ch.is_ascii_alphanumeric() || ch == '_' {
                    ch
                } else {
                    '-'
                }
            })
            .collect();
        let (name, text) = match (c["code"].as_str(), c["answer"].as_str()) {
            (Some(code), _) => (format!("{:02}-{technique}.cu", i + 1), code),
            (None, Some(answer)) => (format!("{:02}-{technique}.answer.txt", i + 1), answer),
            (None, None) => continue,
        };
        let path = folder.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// A unified diff of `path` (named relative to `base`, as `patch -p1` in `base` wants it).
fn unified_diff(base: &Path, path: &Path, text: &str, edits: &[LineEdit]) -> String {
    let new_text = workspace_edit::apply_line_edits(text, edits);
    let name = path
        .strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string();
    similar::TextDiff::from_lines(text, &new_text)
        .unified_diff()
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}

fn apply(
    file: &Path,
    source: &str,
    region: &analysis::OffloadRegion,
    s: &OffloadSummary,
    build: &BuildEdit,
) -> anyhow::Result<Vec<PathBuf>> {
    let writes = project::offload_writes(
        file,
        source,
        region,
        &s.kernel_file,
        &s.kernel_source,
        build,
    )
    .context("cannot read a build file")?;
    let mut written = Vec::new();
    for (path, text) in writes {
        // Write to a sibling and rename, so a failure never leaves a half-written file.
        let tmp = path.with_extension("cuda-offload.tmp");
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &path)?;
        written.push(path);
    }
    Ok(written)
}

fn print_human(
    s: &OffloadSummary,
    build: &BuildEdit,
    check: Option<&Result<project::check::CheckReport, String>>,
    written: &[PathBuf],
) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "result: {}", s.verdict);
    let _ = writeln!(out, "build:  {}", build.note);
    match check {
        Some(Ok(report)) => {
            let _ = writeln!(out, "check:  {}", report.summary);
        }
        Some(Err(e)) => {
            let _ = writeln!(out, "check:  not done: {e}");
        }
        None => {}
    }
    if !s.verified {
        let _ = writeln!(
            out,
            "        (unverified: the kernel was compiled but not checked against the loop or timed)"
        );
    }
    if !s.path.is_empty() {
        let steps: Vec<String> = s
            .path
            .iter()
            .zip(&s.step_rewards)
            .map(|(t, r)| format!("{t} ({r:.3})"))
            .collect();
        // The returned kernel's own path: where a later step tried on it failed or did no better,
        // that step is in the progress lines, not here.
        let _ = writeln!(out, "path:   {}, the returned kernel's", steps.join(" → "));
    }
    for p in &s.profiles {
        let _ = writeln!(out, "profile: {p}");
    }
    let _ = writeln!(
        out,
        "cost:   {}, {} tokens",
        count(s.llm_calls, "model call", "model calls"),
        s.tokens
    );
    let _ = writeln!(
        out,
        "\n{}",
        crate::search::workspace_edit::candidate_part(&s.kernel_source).trim_end()
    );
    for w in written {
        let _ = writeln!(out, "wrote {}", w.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trace_and_every_candidate_are_written_and_an_earlier_run_is_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir.path().join("candidates/09-old.cu");
        std::fs::create_dir_all(stale.parent().unwrap()).unwrap();
        std::fs::write(&stale, "old").unwrap();
        let trace = serde_json::json!({"candidates": [
            {"technique": "port", "code": "__global__ void k() {}"},
            {"technique": "loop_unrolling", "answer": "Sure! Here is ..."},
            {"technique": "shared_memory_tiling"},
            {"technique": "../escape", "code": "x"},
        ]});
        let written = write_trace(dir.path(), &trace).unwrap();
        let names: Vec<String> = written
            .iter()
            .map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "trace.json",
                "candidates/01-port.cu",
                "candidates/02-loop_unrolling.answer.txt",
                "candidates/04----escape.cu"
            ]
        );
        assert!(!stale.exists(), "an earlier search's candidate is gone");
        let read = |n: &str| std::fs::read_to_string(dir.path().join(n)).unwrap();
        assert_eq!(read("candidates/01-port.cu"), "__global__ void k() {}");
        assert_eq!(
            read("candidates/02-loop_unrolling.answer.txt"),
            "Sure! Here is ..."
        );
        let back: serde_json::Value = serde_json::from_str(&read("trace.json")).unwrap();
        assert_eq!(back, trace);
    }
}
