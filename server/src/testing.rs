//! Test support: the one way a test that cannot run here says so.
//!
//! cargo captures a passing test's output, so a `SKIP:` line alone is never seen by `scripts/test`,
//! and the test counts as passed. [`skip`] prints the line and also appends one record to the file
//! named by `CUDA_OFFLOAD_SKIP_LOG`, which `scripts/test` counts. Where CI has installed the
//! toolchain (`CUDA_OFFLOAD_REQUIRE_TOOLCHAIN=1`) a missing tool is a failure, not a skip; where the
//! live tests are required (`CUDA_OFFLOAD_REQUIRE_LIVE=1`) so is anything [`skip_live`] reports.
//!
//! A test calls it once and returns:
//!
//! ```no_run
//! use cuda_offload::testing::{Needs, skip};
//! if std::process::Command::new("g++").arg("--version").output().is_err() {
//!     skip(Needs::Toolchain, "g++ not found");
//!     return;
//! }
//! ```

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What a skipped test lacks on this machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// An NVIDIA GPU.
    Gpu,
    /// The absence of a GPU: the test checks the no-GPU path, which a GPU machine never takes
    /// (scripts/gpu-test and scripts/verify-trajectories cover that machine instead).
    NoGpu,
    /// What scripts/setup installs and CI has: nvcc, g++, llama-server, the model.
    Toolchain,
    /// Optional external data, such as ParEval.
    Data,
    /// Root, or a kernel feature such as network namespaces.
    Privilege,
}

impl Needs {
    /// The name in the skip log and in scripts/test's summary.
    pub fn label(self) -> &'static str {
        match self {
            Needs::Gpu => "gpu",
            Needs::NoGpu => "no-gpu",
            Needs::Toolchain => "toolchain",
            Needs::Data => "data",
            Needs::Privilege => "privilege",
        }
    }
}

impl fmt::Display for Needs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// The environment a skip depends on, read once per call (tests never set these variables).
#[derive(Clone, Debug, Default)]
pub struct SkipEnv {
    /// `CUDA_OFFLOAD_SKIP_LOG`: the file a skip is recorded in.
    pub log: Option<PathBuf>,
    /// `CUDA_OFFLOAD_REQUIRE_TOOLCHAIN=1`: a [`Needs::Toolchain`] skip panics.
    pub require_toolchain: bool,
    /// `CUDA_OFFLOAD_REQUIRE_LIVE=1`: a [`skip_live`] panics.
    pub require_live: bool,
}

impl SkipEnv {
    pub fn from_process() -> SkipEnv {
        let on = |name| std::env::var(name).as_deref() == Ok("1");
        SkipEnv {
            log: std::env::var_os("CUDA_OFFLOAD_SKIP_LOG")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
            require_toolchain: on("CUDA_OFFLOAD_REQUIRE_TOOLCHAIN"),
            require_live: on("CUDA_OFFLOAD_REQUIRE_LIVE"),
        }
    }
}

/// The test cannot run here for want of `needs`: prints `SKIP: <reason>` to stderr and records the
/// skip; panics instead for a missing toolchain where CI installed it. The caller returns next.
pub fn skip(needs: Needs, reason: &str) {
    skip_with(
        &SkipEnv::from_process(),
        needs,
        false,
        reason,
        current_test().as_deref(),
    );
}

/// A live test (a model server, the model, or the nvcc a live search needs) cannot run here: as
/// [`skip`] with [`Needs::Toolchain`], and a failure where `CUDA_OFFLOAD_REQUIRE_LIVE=1`.
pub fn skip_live(reason: &str) {
    skip_with(
        &SkipEnv::from_process(),
        Needs::Toolchain,
        true,
        reason,
        current_test().as_deref(),
    );
}

/// [`skip`] with its environment and test name given.
pub fn skip_with(env: &SkipEnv, needs: Needs, live: bool, reason: &str, test: Option<&str>) {
    let line = match decide(env, needs, live, reason, test) {
        Ok(line) => line,
        Err(message) => panic!("{message}"),
    };
    eprintln!("SKIP: {reason}");
    if let Some(log) = &env.log
        && let Err(e) = append_line(log, &line)
    {
        panic!(
            "cannot record the skip in {} ({e}): {reason}",
            log.display()
        );
    }
}

/// The skip log's line (`<needs>\t<test, else reason>\t<reason>\n`), or the panic message where
/// this skip is not allowed.
pub fn decide(
    env: &SkipEnv,
    needs: Needs,
    live: bool,
    reason: &str,
    test: Option<&str>,
) -> Result<String, String> {
    if live && env.require_live {
        return Err(format!("CUDA_OFFLOAD_REQUIRE_LIVE=1 but: {reason}"));
    }
    if needs == Needs::Toolchain && env.require_toolchain {
        return Err(format!(
            "CI installs nvcc, g++ and the model: this test must not skip: {reason}"
        ));
    }
    let one_line = |s: &str| s.replace(['\t', '\n', '\r'], " ");
    let reason = one_line(reason);
    let test = test.map_or_else(|| reason.clone(), one_line);
    Ok(format!("{needs}\t{test}\t{reason}\n"))
}

/// Appends `line` with one write: test processes run at once, and O_APPEND keeps their lines whole.
fn append_line(log: &Path, line: &str) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)?;
    let n = f.write(line.as_bytes())?;
    if n != line.len() {
        return Err(std::io::Error::other(format!(
            "short write: {n} of {} bytes",
            line.len()
        )));
    }
    Ok(())
}

/// `<test binary>::<test>`: libtest names each test's thread after the test. A skip from another
/// thread (a runtime's worker, `main` under some runners) knows only the binary, or nothing.
fn current_test() -> Option<String> {
    let thread = std::thread::current();
    let name = thread
        .name()
        .filter(|n| *n != "main" && !n.starts_with("tokio-") && !n.contains(' '));
    let binary = std::env::current_exe().ok().and_then(|p| {
        let stem = p.file_stem()?.to_str()?.to_string();
        // cargo names test binaries `<target>-<16 hex digits>`.
        Some(match stem.rsplit_once('-') {
            Some((target, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => {
                target.to_string()
            }
            _ => stem,
        })
    });
    let name = name?;
    Some(match binary {
        Some(b) => format!("{b}::{name}"),
        None => name.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(log: Option<PathBuf>, require_toolchain: bool, require_live: bool) -> SkipEnv {
        SkipEnv {
            log,
            require_toolchain,
            require_live,
        }
    }

    #[test]
    fn a_skip_is_one_line_with_its_category_and_test() {
        let e = env(None, false, false);
        assert_eq!(
            decide(
                &e,
                Needs::Data,
                false,
                "ParEval data not found",
                Some("t::x")
            ),
            Ok("data\tt::x\tParEval data not found\n".to_string())
        );
        // No test name: the reason stands in; tabs and newlines cannot split the record.
        assert_eq!(
            decide(&e, Needs::Gpu, false, "no\tGPU\nhere", None),
            Ok("gpu\tno GPU here\tno GPU here\n".to_string())
        );
    }

    #[test]
    fn a_missing_toolchain_is_a_failure_only_where_it_is_required() {
        let required = env(None, true, false);
        let err = decide(&required, Needs::Toolchain, false, "g++ not found", None).unwrap_err();
        assert_eq!(
            err,
            "CI installs nvcc, g++ and the model: this test must not skip: g++ not found"
        );
        // Other needs may still skip on CI: it has no GPU, no ParEval, maybe no root.
        for needs in [Needs::Gpu, Needs::NoGpu, Needs::Data, Needs::Privilege] {
            assert!(
                decide(&required, needs, false, "r", None).is_ok(),
                "{needs}"
            );
        }
        assert!(decide(&env(None, false, false), Needs::Toolchain, false, "r", None).is_ok());
    }

    #[test]
    fn a_live_skip_is_a_failure_where_live_tests_are_required() {
        let live = env(None, false, true);
        assert_eq!(
            decide(&live, Needs::Toolchain, true, "model missing", None),
            Err("CUDA_OFFLOAD_REQUIRE_LIVE=1 but: model missing".to_string())
        );
        // A plain toolchain skip is not a live one.
        assert!(decide(&live, Needs::Toolchain, false, "g++ not found", None).is_ok());
    }

    #[test]
    fn skips_are_appended_to_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("skips.txt");
        let e = env(Some(log.clone()), false, false);
        skip_with(&e, Needs::Privilege, false, "not root", Some("a::b"));
        skip_with(&e, Needs::Data, false, "no ParEval", None);
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            "privilege\ta::b\tnot root\ndata\tno ParEval\tno ParEval\n"
        );
    }

    #[test]
    fn lines_from_many_threads_stay_whole() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("skips.txt");
        let e = env(Some(log.clone()), false, false);
        std::thread::scope(|s| {
            for t in 0..8 {
                let e = &e;
                s.spawn(move || {
                    for i in 0..50 {
                        let test = format!("t{t}::{i}");
                        skip_with(e, Needs::Gpu, false, &"x".repeat(300), Some(&test));
                    }
                });
            }
        });
        let text = std::fs::read_to_string(&log).unwrap();
        assert_eq!(text.lines().count(), 400);
        let want = format!("\t{}", "x".repeat(300));
        assert!(
            text.lines()
                .all(|l| l.starts_with("gpu\tt") && l.ends_with(&want))
        );
    }

    #[test]
    #[should_panic(expected = "this test must not skip: nvcc not found")]
    fn skip_panics_where_the_toolchain_is_required() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("skips.txt");
        skip_with(
            &env(Some(log), true, false),
            Needs::Toolchain,
            false,
            "nvcc not found",
            None,
        );
    }

    #[test]
    fn a_required_skip_records_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("skips.txt");
        let e = env(Some(log.clone()), true, false);
        let r = std::panic::catch_unwind(|| {
            skip_with(&e, Needs::Toolchain, false, "nvcc not found", None)
        });
        assert!(r.is_err());
        assert!(!log.exists());
    }

    #[test]
    fn the_test_name_is_the_threads() {
        let name = current_test().unwrap();
        assert!(
            name.ends_with("::testing::tests::the_test_name_is_the_threads"),
            "{name}"
        );
        let other = std::thread::Builder::new()
            .name("tokio-runtime-worker".into())
            .spawn(current_test)
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(other, None);
    }
}
