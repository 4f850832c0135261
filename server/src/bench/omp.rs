//! The 16-thread OpenMP CPU baseline: the task's `openmp_source` built into the verifier's own reference
//! program (same inputs, same timed size), compiled with `g++ -O3 -fopenmp` and timed by its `serial` plan
//! item (std::chrono::steady_clock, median of the runs) with `OMP_NUM_THREADS=16`.

use std::path::Path;
use std::process::Command;

use crate::analysis::OffloadRegion;
use crate::verify::harness::{SERIAL_BUDGET_MS, reference_program};
use crate::verify::plan::plan_for;

/// Threads of the baseline, whatever the machine has (the record notes the cores).
pub const OMP_THREADS: usize = 16;
/// Timed runs; the median is reported (BENCHMARKING.md: ≥5).
pub const OMP_RUNS: usize = 7;

#[derive(Debug, thiserror::Error)]
pub enum OmpError {
    #[error("cannot run {what}: {source}")]
    Spawn {
        what: String,
        source: std::io::Error,
    },
    #[error("the OpenMP version does not compile: {0}")]
    Compile(String),
    #[error("the OpenMP version failed: {0}")]
    Run(String),
    #[error("the OpenMP version wrote no timings")]
    NoTimes,
    #[error("job directory: {0}")]
    Io(#[from] std::io::Error),
}

/// The region with the OpenMP source in place of the serial one.
pub fn openmp_region(region: &OffloadRegion, openmp_source: &str) -> OffloadRegion {
    OffloadRegion {
        source: openmp_source.to_string(),
        ..region.clone()
    }
}

/// The plan line that times the function at the verifier's timed size (`serial SEED DIST RUNS BUDGET_MS K SIZES`).
pub fn timing_plan(region: &OffloadRegion) -> (String, String) {
    let plan = plan_for(region, 0);
    let t = &plan.timed;
    let mut line = format!(
        "serial {} 0 {OMP_RUNS} {SERIAL_BUDGET_MS} {}",
        t.seed,
        t.sizes.len()
    );
    for (_, v) in &t.sizes {
        line.push_str(&format!(" {v}"));
    }
    line.push('\n');
    (line, t.describe_size())
}

/// Builds the OpenMP reference in `dir` (g++, `-fopenmp`), without running it.
pub fn build(
    region: &OffloadRegion,
    openmp_source: &str,
    dir: &Path,
    opt: &str,
) -> Result<std::path::PathBuf, OmpError> {
    let omp = openmp_region(region, openmp_source);
    std::fs::write(dir.join("omp.cpp"), reference_program(&omp))?;
    let exe = dir.join("omp");
    let out = Command::new("g++")
        .args([
            opt,
            "-march=native",
            "-std=c++17",
            "-fopenmp",
            "-DCO_HP=0",
            "-o",
        ])
        .arg(&exe)
        .arg(dir.join("omp.cpp"))
        .output()
        .map_err(|source| OmpError::Spawn {
            what: "g++".into(),
            source,
        })?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(OmpError::Compile(err.chars().take(2000).collect()));
    }
    Ok(exe)
}

/// Median milliseconds of the OpenMP version with 16 threads at the timed size, and that size.
pub fn time_openmp(region: &OffloadRegion, openmp_source: &str) -> Result<(f64, String), OmpError> {
    let dir = tempfile::tempdir()?;
    let exe = build(region, openmp_source, dir.path(), "-O3")?;
    let (plan, size) = timing_plan(region);
    std::fs::write(dir.path().join("plan.txt"), plan)?;
    let out = Command::new(&exe)
        .arg(".")
        .current_dir(dir.path())
        .env("OMP_NUM_THREADS", OMP_THREADS.to_string())
        .env("OMP_PROC_BIND", "false")
        .output()
        .map_err(|source| OmpError::Spawn {
            what: exe.display().to_string(),
            source,
        })?;
    if !out.status.success() {
        return Err(OmpError::Run(format!(
            "{}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
                .chars()
                .take(2000)
                .collect::<String>()
        )));
    }
    let text = std::fs::read_to_string(dir.path().join("serial.txt"))?;
    let mut times: Vec<f64> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
    if times.is_empty() {
        return Err(OmpError::NoTimes);
    }
    times.sort_by(f64::total_cmp);
    Ok((median_sorted(&times), size))
}

fn median_sorted(v: &[f64]) -> f64 {
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::analysis::{Access, LoopKind, RegionParam, WorkEstimate};

    /// A region whose declared work makes the verifier's timed size tiny (n^4 iterations).
    fn tiny_region() -> OffloadRegion {
        let p = |name: &str, ty: &str, is_array: bool, access: Access, is_size: bool| RegionParam {
            name: name.into(),
            elem_type: ty.into(),
            is_array,
            access,
            extent: is_array.then(|| "n".to_string()),
            is_size,
            input: None,
            call_arg: None,
            range_of: None,
        };
        OffloadRegion {
            name: "scale".into(),
            params: vec![
                p("n", "int", false, Access::Read, true),
                p("x", "float", true, Access::Read, false),
                p("y", "float", true, Access::Write, false),
            ],
            source: "void scale(int n, const float* x, float* y) {\n    for (int i = 0; i < n; ++i) y[i] = 2.0f * x[i];\n}\n".into(),
            includes: vec![],
            kind: LoopKind::Map,
            whole_function: true,
            line: 0,
            end_line: 0,
            sizes: None,
            work: WorkEstimate {
                iterations: "n*n*n*n".into(),
                ops_per_iteration: 1.0,
                bytes_per_iteration: 8.0,
            },
            types: Default::default(),
        }
    }

    #[test]
    fn the_openmp_version_is_timed_at_the_verifiers_timed_size() {
        if std::process::Command::new("g++")
            .arg("--version")
            .output()
            .is_err()
        {
            crate::testing::skip(crate::testing::Needs::Toolchain, "g++ not found");
            return;
        }
        let region = tiny_region();
        let omp = "void scale(int n, const float* x, float* y) {\n    #pragma omp parallel for\n    for (int i = 0; i < n; ++i) y[i] = 2.0f * x[i];\n}\n";
        let (ms, size) = time_openmp(&region, omp).unwrap();
        assert!(ms.is_finite() && ms >= 0.0, "{ms}");
        assert_eq!(size, plan_for(&region, 0).timed.describe_size());
        // A version that does not compile is an error, not a time.
        let broken = time_openmp(&region, "void scale(int n) { #pragma omp parallel for\n }");
        assert!(matches!(broken, Err(OmpError::Compile(_))), "{broken:?}");
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median_sorted(&[1.0, 2.0, 9.0]), 2.0);
        assert_eq!(median_sorted(&[1.0, 2.0, 4.0, 9.0]), 3.0);
    }
}
