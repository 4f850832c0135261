//! Does the user's program still build, give the same results and run faster? In two scratch
//! copies of the project (before and after the offload's edit): configure and build with the
//! real toolchain, then, on a GPU, run its tests (`ctest`) or its program, compare the outputs
//! (text, numbers within a tolerance) and time both. The project itself is never touched, and
//! everything built from generated code runs in the sandbox.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use super::BuildSystem;
use crate::verify::sandbox::{self, Exit, Limits};
use crate::verify::toolchain::Nvcc;

/// The tools a check builds with.
#[derive(Debug, Clone)]
pub struct Tools {
    pub cmake: Option<PathBuf>,
    pub nvcc: Nvcc,
}

impl Tools {
    /// nvcc (the setting, else found from `dir` and the usual places) and cmake, for `dir`.
    pub fn find(dir: &Path, nvcc: Option<&Path>) -> Result<Tools, String> {
        let mut roots = vec![dir.to_path_buf()];
        roots.extend(crate::verify::toolchain::default_project_roots());
        let nvcc = crate::verify::toolchain::find_nvcc(nvcc, &roots).map_err(|e| e.to_string())?;
        Ok(Tools {
            cmake: find_cmake(&roots),
            nvcc,
        })
    }
}

impl CheckSettings {
    /// The defaults, with the GPU of this machine or why there is none.
    pub fn on_this_machine() -> CheckSettings {
        CheckSettings {
            gpu: crate::verify::gpu::detect_gpus()
                .map(|g| g.first().map(|g| g.name.clone()).unwrap_or_default())
                .map_err(|e| format!("no GPU here ({})", e.reason)),
            ..CheckSettings::default()
        }
    }
}

/// The check that follows a search (`check_build`, on by default): the project with the offload's
/// edit, built (and on a GPU run and timed) against the project as it is, in scratch copies.
/// `None` where the project has no build this recognises.
pub fn after_offload(
    file: &Path,
    source: &str,
    region: &crate::analysis::OffloadRegion,
    summary: &crate::search::offload::OffloadSummary,
    build: &super::BuildEdit,
    nvcc: Option<&Path>,
) -> Option<Result<CheckReport, String>> {
    let root = build.root.clone()?;
    if build.system == BuildSystem::Other {
        return None;
    }
    let run = || -> Result<CheckReport, String> {
        let writes = super::offload_writes(
            file,
            source,
            region,
            &summary.kernel_file,
            &summary.kernel_source,
            build,
        )
        .map_err(|e| format!("cannot read a build file: {e}"))?;
        let job = CheckJob::for_edit(build, writes).ok_or_else(|| build.note.clone())?;
        let tools = Tools::find(&root, nvcc)?;
        check(&job, &tools, &CheckSettings::on_this_machine()).map_err(|e| e.to_string())
    };
    Some(run())
}

/// `cmake` on PATH, else the one `scripts/setup` pins into `.toolchain/cmake`.
pub fn find_cmake(project_roots: &[PathBuf]) -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("cmake"))
            .find(|c| c.is_file())
    });
    on_path.or_else(|| {
        project_roots
            .iter()
            .map(|r| r.join(".toolchain/cmake/bin/cmake"))
            .find(|c| c.is_file())
    })
}

#[derive(Debug, Clone)]
pub struct CheckSettings {
    /// The program to run (and its arguments), relative to the build directory; `None`: ctest
    /// when the project has tests, else the executable target that compiles the patched file.
    pub command: Option<Vec<String>>,
    /// Timed runs of each program (the median is reported).
    pub runs: usize,
    pub rtol: f64,
    pub atol: f64,
    /// Limit of each configure, build or run.
    pub timeout: Duration,
    /// The GPU the programs run on, or why they are not run.
    pub gpu: Result<String, String>,
    /// Environment of the program runs (the sandbox starts from an empty one): both versions
    /// get the same.
    pub env: Vec<(String, String)>,
}

impl Default for CheckSettings {
    fn default() -> Self {
        CheckSettings {
            command: None,
            runs: 3,
            rtol: 1e-4,
            atol: 1e-6,
            timeout: Duration::from_secs(600),
            gpu: Err("no GPU".into()),
            env: Vec::new(),
        }
    }
}

/// The project and the two versions of it to compare.
#[derive(Debug, Clone)]
pub struct CheckJob {
    pub system: BuildSystem,
    /// The directory configured (`cmake -S`) or made (`make -C`).
    pub root: PathBuf,
    /// The CMake executable target that compiles the patched file (run when there is no ctest).
    pub program: Option<String>,
    /// Files (relative to `root`) written over the copy, for each version.
    pub before: Vec<(PathBuf, String)>,
    pub after: Vec<(PathBuf, String)>,
    /// What the edit keeps on the device (residency sessions), for the report.
    pub residency: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Stage {
    pub built: bool,
    pub build_seconds: f64,
    /// The end of the configure/build log when it failed.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub log_tail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<RunStats>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunStats {
    pub ok: bool,
    /// `ctest`: passed and total.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tests: Option<(u32, u32)>,
    pub command: String,
    /// Median wall time of the runs, and each run.
    pub seconds: f64,
    pub samples: Vec<f64>,
    pub output: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub before: Stage,
    pub after: Stage,
    /// Whether both programs printed the same (numbers within the tolerance); why not, if not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub same_output: Option<Result<(), String>>,
    /// Before's time over after's, end to end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speedup: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_skipped: Option<String>,
    /// The residency sessions of the edited version ("arrays u, v kept on the device across ...").
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub residency: Vec<String>,
    /// "project builds; ctest 3/3 pass; program 4.1× faster end to end (was 0.9 s, now 0.22 s)".
    pub summary: String,
}

#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("cannot make a scratch copy of {root}: {source}")]
    Copy {
        root: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Sandbox(#[from] sandbox::SandboxError),
    #[error(
        "cmake not found: run `scripts/setup` (it pins cmake into .toolchain/cmake) or install cmake"
    )]
    NoCmake,
    #[error("{0:?} projects are not built by cuda-offload; build them yourself")]
    Unsupported(BuildSystem),
}

impl CheckJob {
    /// The check after a search: the project as it is, then with the offload's edit written.
    /// `None` where the build is not one we recognise. `writes` are absolute paths.
    pub fn for_edit(build: &super::BuildEdit, writes: Vec<(PathBuf, String)>) -> Option<CheckJob> {
        let root = build.root.clone()?;
        if build.system == BuildSystem::Other {
            return None;
        }
        let after = writes
            .into_iter()
            .map(|(p, t)| (p.strip_prefix(&root).map(Path::to_path_buf).unwrap_or(p), t))
            .collect();
        Some(CheckJob {
            system: build.system,
            root,
            program: build.program.clone(),
            before: Vec::new(),
            after,
            residency: Vec::new(),
        })
    }

    /// `check-build DIR`: DIR as it is (an offload applied) against its serial version.
    pub fn for_applied(dir: &Path) -> Result<CheckJob, String> {
        let (serial, kernels) = super::revert::serial_version(dir);
        if kernels.is_empty() {
            return Err(format!(
                "no kernel file generated by cuda-offload in {}: apply an offload first (`cuda-offload offload FILE --line N --apply`)",
                dir.display()
            ));
        }
        let lists = dir.join("CMakeLists.txt");
        let (system, program) = if let Ok(text) = std::fs::read_to_string(&lists) {
            let commands =
                super::cmake::parse(&text).map_err(|e| format!("{}: {e}", lists.display()))?;
            let program = kernels.iter().find_map(|k| {
                super::cmake::target_compiling(&commands, dir, &dir.join(k))
                    .map(|m| m.target)
                    .filter(|t| super::cmake::executable(&commands, t))
            });
            (BuildSystem::Cmake, program)
        } else if ["GNUmakefile", "makefile", "Makefile"]
            .iter()
            .any(|m| dir.join(m).is_file())
        {
            (BuildSystem::Make, None)
        } else {
            return Err(format!(
                "no CMakeLists.txt or Makefile in {}: check-build builds those only",
                dir.display()
            ));
        };
        Ok(CheckJob {
            system,
            root: dir.to_path_buf(),
            program,
            before: serial,
            after: Vec::new(),
            residency: super::revert::sessions(dir),
        })
    }
}

/// Builds (and on a GPU runs and times) both versions. A version that does not build is a
/// result, not an error.
pub fn check(
    job: &CheckJob,
    tools: &Tools,
    settings: &CheckSettings,
) -> Result<CheckReport, CheckError> {
    if job.system == BuildSystem::Other {
        return Err(CheckError::Unsupported(job.system));
    }
    if job.system == BuildSystem::Cmake && tools.cmake.is_none() {
        return Err(CheckError::NoCmake);
    }
    let scratch = tempfile::Builder::new()
        .prefix("cuda-offload-check-")
        .tempdir()
        .map_err(|source| CheckError::Copy {
            root: job.root.display().to_string(),
            source,
        })?;
    let before = build_version(
        job,
        tools,
        settings,
        &scratch.path().join("before"),
        &job.before,
    )?;
    let after = build_version(
        job,
        tools,
        settings,
        &scratch.path().join("after"),
        &job.after,
    )?;
    let (mut before_stage, before_dir) = before;
    let (mut after_stage, after_dir) = after;
    let mut report = CheckReport {
        before: before_stage.clone(),
        after: after_stage.clone(),
        same_output: None,
        speedup: None,
        run_skipped: None,
        residency: job.residency.clone(),
        summary: String::new(),
    };
    if !(before_stage.built && after_stage.built) {
        report.summary = if after_stage.built {
            "the project did not build before the edit either".into()
        } else {
            format!(
                "the project does not build after the edit: {}",
                last_line(&after_stage.log_tail)
            )
        };
        return Ok(report);
    }
    match &settings.gpu {
        Err(why) => {
            report.run_skipped = Some(format!("not run: {why}"));
            report.summary = format!("project builds before and after the edit; not run: {why}");
        }
        Ok(_) => {
            before_stage.run = Some(run_program(job, tools, settings, &before_dir)?);
            after_stage.run = Some(run_program(job, tools, settings, &after_dir)?);
            let (b, a) = (before_stage.run.as_ref(), after_stage.run.as_ref());
            if let (Some(b), Some(a)) = (b, a) {
                report.same_output = Some(if b.tests.is_some() {
                    Ok(())
                } else {
                    compare_text(&b.output, &a.output, settings.rtol, settings.atol)
                });
                if a.ok && b.ok && a.seconds > 0.0 {
                    report.speedup = Some(b.seconds / a.seconds);
                }
            }
            report.before = before_stage;
            report.after = after_stage;
            report.summary = summary(&report);
        }
    }
    // Keep the copies for a look at what failed (their path is in the log); else clean up.
    if report.same_output.as_ref().is_some_and(Result::is_err) {
        let kept = scratch.keep();
        tracing::info!(dir = %kept.display(), "kept the scratch copies of a failed check");
    }
    Ok(report)
}

fn summary(r: &CheckReport) -> String {
    let mut parts = vec!["project builds".to_string()];
    let a = r.after.run.as_ref();
    if let Some((pass, total)) = a.and_then(|a| a.tests) {
        parts.push(format!("ctest {pass}/{total} pass"));
    }
    match &r.same_output {
        Some(Err(why)) => parts.push(format!("output differs from the serial build's: {why}")),
        Some(Ok(())) if a.is_some_and(|a| a.tests.is_none()) => {
            parts.push("same output as the serial build".into())
        }
        _ => {}
    }
    if let (Some(s), Some(a)) = (r.speedup, a) {
        let b = r.before.run.as_ref().map_or(0.0, |b| b.seconds);
        let word = if s >= 1.0 { "faster" } else { "slower" };
        let factor = if s >= 1.0 { s } else { 1.0 / s };
        parts.push(format!(
            "program {factor:.1}× {word} end to end (was {}, now {})",
            seconds(b),
            seconds(a.seconds)
        ));
    } else if a.is_some_and(|a| !a.ok) {
        parts.push(format!(
            "the program failed after the edit: {}",
            last_line(a.map(|a| a.output.as_str()).unwrap_or_default())
        ));
    }
    parts.join("; ")
}

fn seconds(s: f64) -> String {
    if s >= 10.0 {
        format!("{s:.0} s")
    } else if s >= 0.1 {
        format!("{s:.2} s")
    } else {
        format!("{:.1} ms", s * 1e3)
    }
}

fn last_line(s: &str) -> String {
    s.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("(no output)")
        .trim()
        .to_string()
}

/// Copies the project (without its build trees and VCS data) and writes the version's files.
fn copy_project(root: &Path, to: &Path, writes: &[(PathBuf, String)]) -> std::io::Result<()> {
    let skip = |name: &str| {
        name == ".git" || name == "target" || name == "node_modules" || name.starts_with("build")
    };
    for entry in walkdir::WalkDir::new(root)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !skip(&e.file_name().to_string_lossy()))
    {
        let entry = entry.map_err(std::io::Error::other)?;
        let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest)?;
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &dest)?;
        }
    }
    for (rel, text) in writes {
        let dest = to.join(rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(dest, text)?;
    }
    Ok(())
}

/// Limits of the programs built from generated code: rlimits, no network, an unprivileged user.
fn limits(settings: &CheckSettings) -> Limits {
    Limits {
        wall: settings.timeout,
        cpu_seconds: Some(settings.timeout.as_secs() * 4),
        // nvcc and CUDA programs reserve far more address space than they use.
        address_space: None,
        processes: Some(512),
        output_cap: 256 * 1024,
        ..Limits::default()
    }
}

/// Limits of the toolchain's own steps (cmake, make, nvcc, ctest): rlimits and no network, but
/// as the user, who can read the toolchain (the unprivileged uid may not: `.toolchain` is theirs).
/// The verifier compiles candidates the same way; only what was built runs as the unprivileged uid.
fn tool_limits(settings: &CheckSettings) -> Limits {
    Limits {
        drop_privileges: false,
        ..limits(settings)
    }
}

/// The build directory of a copy (CMake) or the copy itself (make).
fn build_dir(job: &CheckJob, copy: &Path) -> PathBuf {
    match job.system {
        BuildSystem::Cmake => copy.join("_cuda_offload_build"),
        _ => copy.to_path_buf(),
    }
}

fn build_version(
    job: &CheckJob,
    tools: &Tools,
    settings: &CheckSettings,
    copy: &Path,
    writes: &[(PathBuf, String)],
) -> Result<(Stage, PathBuf), CheckError> {
    copy_project(&job.root, copy, writes).map_err(|source| CheckError::Copy {
        root: job.root.display().to_string(),
        source,
    })?;
    let bdir = build_dir(job, copy);
    std::fs::create_dir_all(&bdir).map_err(|source| CheckError::Copy {
        root: job.root.display().to_string(),
        source,
    })?;
    hand_over_tree(copy)?;
    let nvcc = tools.nvcc.path.display().to_string();
    let cuda_home = tools.nvcc.cuda_home.display().to_string();
    let steps: Vec<(PathBuf, Vec<String>)> = match job.system {
        BuildSystem::Cmake => {
            let cmake = tools.cmake.clone().ok_or(CheckError::NoCmake)?;
            vec![
                (
                    cmake.clone(),
                    vec![
                        "-S".into(),
                        copy.display().to_string(),
                        "-B".into(),
                        bdir.display().to_string(),
                        "-DCMAKE_BUILD_TYPE=Release".into(),
                        format!("-DCMAKE_CUDA_COMPILER={nvcc}"),
                        // The PyPI toolkit keeps its libraries in lib/, where nvcc does not look.
                        format!("-DCMAKE_CUDA_FLAGS=-L{cuda_home}/lib"),
                    ],
                ),
                (
                    cmake,
                    vec![
                        "--build".into(),
                        bdir.display().to_string(),
                        "-j".into(),
                        std::thread::available_parallelism()
                            .map_or(2, |n| n.get())
                            .to_string(),
                    ],
                ),
            ]
        }
        _ => vec![(
            PathBuf::from("make"),
            vec![
                "-C".into(),
                copy.display().to_string(),
                format!("NVCC={nvcc}"),
                format!("CUDA_HOME={cuda_home}"),
            ],
        )],
    };
    let start = std::time::Instant::now();
    let mut log = String::new();
    for (program, args) in steps {
        let program = which(&program);
        let r = sandbox::run(&program, &args, copy, &[], &tool_limits(settings))?;
        log.push_str(&r.stdout);
        log.push_str(&r.stderr);
        if r.exit != Exit::Code(0) {
            return Ok((
                Stage {
                    built: false,
                    build_seconds: start.elapsed().as_secs_f64(),
                    log_tail: tail(&log, 40),
                    run: None,
                },
                bdir,
            ));
        }
    }
    Ok((
        Stage {
            built: true,
            build_seconds: start.elapsed().as_secs_f64(),
            log_tail: String::new(),
            run: None,
        },
        bdir,
    ))
}

/// The sandbox runs as an unprivileged user where we are root: it must own the copy.
fn hand_over_tree(dir: &Path) -> Result<(), CheckError> {
    for entry in walkdir::WalkDir::new(dir).into_iter().flatten() {
        sandbox::hand_over(entry.path())?;
    }
    Ok(())
}

fn which(program: &Path) -> PathBuf {
    if program.components().count() > 1 {
        return program.to_path_buf();
    }
    std::env::var_os("PATH")
        .and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(program))
                .find(|c| c.is_file())
        })
        .unwrap_or_else(|| program.to_path_buf())
}

fn tail(s: &str, lines: usize) -> String {
    let all: Vec<&str> = s.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

fn run_program(
    job: &CheckJob,
    tools: &Tools,
    settings: &CheckSettings,
    bdir: &Path,
) -> Result<RunStats, CheckError> {
    let ctest = tools
        .cmake
        .as_ref()
        .map(|c| c.with_file_name("ctest"))
        .filter(|c| c.is_file() && job.system == BuildSystem::Cmake);
    let (program, args) = match (&settings.command, &ctest) {
        (Some(cmd), _) if !cmd.is_empty() => (bdir.join(&cmd[0]), cmd[1..].to_vec()),
        (_, Some(ctest)) if has_tests(ctest, bdir, settings)? => (
            ctest.clone(),
            vec!["--test-dir".into(), bdir.display().to_string()],
        ),
        _ => (
            bdir.join(job.program.as_deref().unwrap_or("a.out")),
            Vec::new(),
        ),
    };
    let is_ctest = ctest.as_ref() == Some(&program);
    let run_limits = if is_ctest {
        tool_limits(settings)
    } else {
        limits(settings)
    };
    let mut samples = Vec::new();
    let mut output = String::new();
    let mut ok = true;
    // One warm-up run (the CUDA context, the page cache), then the timed ones.
    for i in 0..=settings.runs.max(1) {
        let r = sandbox::run(&program, &args, bdir, &settings.env, &run_limits)?;
        ok = r.exit == Exit::Code(0);
        output = r.stdout.clone();
        if !ok {
            output.push_str(&r.stderr);
            break;
        }
        if i > 0 {
            samples.push(r.wall.as_secs_f64());
        }
    }
    let mut sorted = samples.clone();
    sorted.sort_by(f64::total_cmp);
    let seconds = sorted.get(sorted.len() / 2).copied().unwrap_or(0.0);
    let tests = is_ctest.then(|| ctest_counts(&output)).flatten();
    Ok(RunStats {
        ok: ok && tests.is_none_or(|(p, t)| p == t),
        tests,
        command: std::iter::once(program.display().to_string())
            .chain(args)
            .collect::<Vec<_>>()
            .join(" "),
        seconds,
        samples,
        output,
    })
}

fn has_tests(ctest: &Path, bdir: &Path, settings: &CheckSettings) -> Result<bool, CheckError> {
    let r = sandbox::run(
        ctest,
        &["--test-dir".into(), bdir.display().to_string(), "-N".into()],
        bdir,
        &[],
        &tool_limits(settings),
    )?;
    Ok(r.stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("Total Tests:"))
        .and_then(|n| n.trim().parse::<u32>().ok())
        .is_some_and(|n| n > 0))
}

/// `100% tests passed, 0 tests failed out of 3` → (3, 3).
fn ctest_counts(out: &str) -> Option<(u32, u32)> {
    let line = out.lines().find(|l| l.contains("tests failed out of"))?;
    let failed: u32 = line
        .split(", ")
        .nth(1)?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    let total: u32 = line.rsplit(' ').next()?.trim().parse().ok()?;
    Some((total.saturating_sub(failed), total))
}

/// Compares two program outputs word by word: numbers within `atol + rtol*|b|`, other words
/// exactly. The first difference is the error.
pub fn compare_text(before: &str, after: &str, rtol: f64, atol: f64) -> Result<(), String> {
    let (b, a): (Vec<&str>, Vec<&str>) = (
        before.split_whitespace().collect(),
        after.split_whitespace().collect(),
    );
    for (i, (x, y)) in b.iter().zip(&a).enumerate() {
        let same = match (number(x), number(y)) {
            (Some(p), Some(q)) => {
                (p.is_nan() && q.is_nan()) || p == q || (p - q).abs() <= atol + rtol * p.abs()
            }
            _ => x == y,
        };
        if !same {
            return Err(format!("word {} is `{y}`, was `{x}`", i + 1));
        }
    }
    if b.len() != a.len() {
        return Err(format!("{} words, was {}", a.len(), b.len()));
    }
    Ok(())
}

/// A word as a number, without surrounding punctuation (`change 0.001,` → 0.001).
fn number(word: &str) -> Option<f64> {
    word.trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '(' | ')' | '[' | ']' | '='))
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_agree_within_the_tolerance_and_words_exactly() {
        assert_eq!(
            compare_text(
                "checksum 8396911936.000\n",
                "checksum 8396912000.5\n",
                1e-4,
                0.0
            ),
            Ok(())
        );
        assert_eq!(
            compare_text(
                "42 iterations, change 0.001",
                "43 iterations, change 0.001",
                1e-4,
                0.0
            ),
            Err("word 1 is `43`, was `42`".into())
        );
        assert_eq!(
            compare_text("done ok", "done failed", 1e-4, 0.0),
            Err("word 2 is `failed`, was `ok`".into())
        );
        assert_eq!(
            compare_text("a 1", "a 1 b", 1e-4, 0.0),
            Err("3 words, was 2".into())
        );
        assert_eq!(compare_text("nan x", "nan x", 1e-4, 0.0), Ok(()));
    }

    #[test]
    fn ctest_summary_lines_give_passed_and_total() {
        assert_eq!(
            ctest_counts("...\n100% tests passed, 0 tests failed out of 3\n"),
            Some((3, 3))
        );
        assert_eq!(
            ctest_counts("67% tests passed, 1 tests failed out of 3\n"),
            Some((2, 3))
        );
        assert_eq!(ctest_counts("No tests were found!!!\n"), None);
    }

    fn report(before: f64, after: f64, tests: Option<(u32, u32)>) -> CheckReport {
        let stage = |s: f64| Stage {
            built: true,
            build_seconds: 1.0,
            log_tail: String::new(),
            run: Some(RunStats {
                ok: true,
                tests,
                command: "x".into(),
                seconds: s,
                samples: vec![s],
                output: String::new(),
            }),
        };
        CheckReport {
            before: stage(before),
            after: stage(after),
            same_output: Some(Ok(())),
            speedup: Some(before / after),
            run_skipped: None,
            residency: Vec::new(),
            summary: String::new(),
        }
    }

    #[test]
    fn the_summary_reads_like_the_issue_asks() {
        assert_eq!(
            summary(&report(0.9, 0.22, Some((3, 3)))),
            "project builds; ctest 3/3 pass; program 4.1× faster end to end (was 0.90 s, now 0.22 s)"
        );
        assert_eq!(
            summary(&report(0.05, 0.1, None)),
            "project builds; same output as the serial build; program 2.0× slower end to end (was 50.0 ms, now 0.10 s)"
        );
    }
}
