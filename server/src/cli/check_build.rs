//! `cuda-offload check-build [DIR]`: does the project, with its applied offloads, still build,
//! print the same results as its serial version and run faster end to end? With `--file`,
//! `--line` and `--candidate`: the same for a kernel not applied yet, whose edit is made in the
//! scratch copy only; `--line`/`--candidate` repeated, for several loops of the file at once, with
//! their arrays kept on the device where the residency analysis allows it (`--per-call` not).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;

use crate::analysis;
use crate::project::check::{self, CheckJob, CheckSettings, Tools};
use crate::project::{self, CudaArch};
use crate::search::workspace_edit;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project (where its CMakeLists.txt or Makefile is)
    #[arg(default_value = ".")]
    dir: PathBuf,
    /// The program to run and time, relative to the build directory, with its arguments
    /// (default: ctest when the project has tests, else the target that builds the kernel)
    #[arg(long, value_name = "COMMAND", num_args = 1.., allow_hyphen_values = true)]
    command: Option<Vec<String>>,
    /// Timed runs of each version (after one warm-up)
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Relative tolerance for numbers in the outputs
    #[arg(long, default_value_t = 1e-4)]
    rtol: f64,
    /// Limit of each configure, build and run, in seconds
    #[arg(long, default_value_t = 600)]
    timeout: u64,
    /// nvcc to build with (file or CUDA root)
    #[arg(long)]
    nvcc: Option<PathBuf>,
    /// Print the whole report as JSON
    #[arg(long)]
    json: bool,
    /// Check this kernel (a .cu defining `<name>_gpu`, as `verify --candidate` takes) for the loop
    /// at --file/--line, applied to the scratch copy only; repeat --line and --candidate (in pairs)
    /// to offload several loops of the file together
    #[arg(long, requires_all = ["file", "line"])]
    candidate: Vec<PathBuf>,
    /// The C++ file of the loops (with --candidate)
    #[arg(long, requires = "candidate")]
    file: Option<PathBuf>,
    /// A line of the loop (with --candidate; once per --candidate, in the same order)
    #[arg(long, requires = "candidate")]
    line: Vec<usize>,
    /// Keep the per-call copies: no residency session even where the arrays could stay on the device
    /// (to measure what residency saves)
    #[arg(long, requires = "candidate")]
    per_call: bool,
    /// KEY=VALUE in the environment of both programs' runs, repeatable (they run with an empty
    /// one otherwise)
    #[arg(long = "env", value_name = "KEY=VALUE", value_parser = key_value)]
    env: Vec<(String, String)>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let dir = args
        .dir
        .canonicalize()
        .with_context(|| format!("cannot open {}", args.dir.display()))?;
    let job = match &args.file {
        Some(file) if !args.candidate.is_empty() => {
            anyhow::ensure!(
                args.line.len() == args.candidate.len(),
                "give one --line per --candidate ({} lines, {} candidates)",
                args.line.len(),
                args.candidate.len()
            );
            let pairs: Vec<(usize, &std::path::Path)> = args
                .line
                .iter()
                .copied()
                .zip(args.candidate.iter().map(PathBuf::as_path))
                .collect();
            unapplied(&dir, file, &pairs, !args.per_call)?
        }
        _ => CheckJob::for_applied(&dir).map_err(anyhow::Error::msg)?,
    };
    for r in &job.residency {
        eprintln!("residency: {r}");
    }
    let tools = Tools::find(&dir, args.nvcc.as_deref()).map_err(anyhow::Error::msg)?;
    let settings = CheckSettings {
        command: args.command,
        runs: args.runs,
        rtol: args.rtol,
        timeout: Duration::from_secs(args.timeout),
        env: args.env,
        ..CheckSettings::on_this_machine()
    };
    eprintln!(
        "checking {} ({:?}): before vs. after the edit, {}",
        dir.display(),
        job.system,
        match &settings.gpu {
            Ok(name) => format!("run on {name}"),
            Err(why) => format!("build only: {why}"),
        }
    );
    let report = check::check(&job, &tools, &settings)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("{}", report.summary);
        for (name, stage) in [("before", &report.before), ("after", &report.after)] {
            if !stage.built {
                println!("\n{name} the edit, the build failed:\n{}", stage.log_tail);
            }
        }
    }
    let good = report.before.built
        && report.after.built
        && report.same_output.as_ref().is_none_or(Result::is_ok)
        && report.after.run.as_ref().is_none_or(|r| r.ok);
    Ok(if good {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// DIR as it is against DIR with the candidates' offload edit (kernel files, calls, residency
/// sessions, build files).
fn unapplied(
    dir: &std::path::Path,
    file: &std::path::Path,
    candidates: &[(usize, &std::path::Path)],
    resident: bool,
) -> anyhow::Result<CheckJob> {
    let file = file
        .canonicalize()
        .with_context(|| format!("cannot open {}", file.display()))?;
    anyhow::ensure!(
        file.starts_with(dir),
        "{} is not inside {}",
        file.display(),
        dir.display()
    );
    let source = analysis::read_source(&file)?;
    let mut regions = Vec::new();
    for (line, candidate) in candidates {
        let (_, _, region) = analysis::outline_in_file(&file, *line)?;
        let code = std::fs::read_to_string(candidate)
            .with_context(|| format!("cannot read {}", candidate.display()))?;
        regions.push((region, code, candidate));
    }
    let kernels: Vec<project::KernelFile> = regions
        .iter()
        .map(|(region, code, candidate)| project::KernelFile {
            region,
            name: workspace_edit::kernel_file_name(region),
            text: workspace_edit::kernel_source(
                region,
                code,
                &format!(
                    "checked by cuda-offload check-build ({})",
                    candidate.display()
                ),
                &[],
            ),
        })
        .collect();
    let many = project::offload_writes_many(
        &file,
        &source,
        &kernels,
        &CudaArch::choose(None),
        &project::read_from_disk,
        resident,
    )?;
    let build = many.builds.first().context("no kernel to check")?;
    let mut job =
        CheckJob::for_edit(build, many.writes).ok_or_else(|| anyhow::anyhow!("{}", build.note))?;
    job.residency = many.residency.iter().map(|r| r.describe()).collect();
    Ok(job)
}

fn key_value(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!("`{s}` is not KEY=VALUE")),
    }
}
