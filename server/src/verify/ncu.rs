//! Profiling a verified candidate with Nsight Compute (`ncu`): the candidate's own harness, built
//! as for verification, runs one sample at the timed size under `ncu --clock-control none`, in the
//! same sandbox as every candidate run (its own uid, limits, no network), with the machine alone
//! so that the counters see only this kernel.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::profile::{self, Profile};
use super::{Sources, Verifier, harness, plan, sandbox};
use crate::analysis::OffloadRegion;

/// Kernel launches profiled at most (a candidate may launch a kernel per row).
const LAUNCHES: &str = "16";

/// `ncu` from `CUDA_OFFLOAD_NCU`, beside nvcc, on PATH, or where CUDA installs it.
pub fn find_ncu(nvcc: &Path) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CUDA_OFFLOAD_NCU").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let beside = nvcc.parent().map(|d| d.join("ncu"));
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join("ncu"));
    beside
        .into_iter()
        .chain(on_path)
        .chain([PathBuf::from("/usr/local/cuda/bin/ncu")])
        .find(|p| p.is_file())
}

impl Verifier {
    /// The counters of `candidate` (already verified correct) and what they say limits it.
    /// `Err` says why there is no profile (no GPU, no ncu, counters not permitted, ...): the
    /// search then ranks by the graph alone.
    pub fn profile(&self, region: &OffloadRegion, candidate: &str) -> Result<Profile, String> {
        if let Err(no) = &self.gpus {
            return Err(format!("no GPU to profile on ({})", no.reason));
        }
        let ncu = find_ncu(&self.nvcc.path)
            .ok_or("Nsight Compute (ncu) not found: set CUDA_OFFLOAD_NCU to its path")?;
        let err = |e: &dyn std::fmt::Display| format!("profiling failed: {e}");
        let job = tempfile::Builder::new()
            .prefix("cuda-offload-profile-")
            .tempdir()
            .map_err(|e| err(&e))?;
        self.profile_in(region, candidate, &ncu, job.path())
            .map_err(|e| err(&e))?
    }

    fn profile_in(
        &self,
        region: &OffloadRegion,
        candidate: &str,
        ncu: &Path,
        job: &Path,
    ) -> Result<Result<Profile, String>, super::VerifyError> {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(job, std::fs::Permissions::from_mode(0o711))?;
        let build = job.join("build");
        std::fs::create_dir_all(&build)?;
        std::fs::set_permissions(&build, std::fs::Permissions::from_mode(0o700))?;
        let cand_src = harness::candidate_source(region, candidate);
        let harness_src = harness::harness_program(region);
        let ref_prog = harness::reference_program(region);
        let sources = Sources {
            candidate: &cand_src,
            harness: &harness_src,
            reference: &ref_prog,
        };
        let exe = match self.build_candidate(region, &sources, &build)? {
            Ok(exe) => exe,
            Err(outcome) => return Ok(Err(format!("it did not build: {}", outcome.summary()))),
        };
        let cwd = job.join("run").join("cwd");
        std::fs::create_dir_all(&cwd)?;
        std::fs::set_permissions(job.join("run"), std::fs::Permissions::from_mode(0o711))?;
        let bin = cwd.join("candidate");
        std::fs::copy(&exe, &bin)?;
        std::fs::write(cwd.join("plan.txt"), profile_plan(region, self.run_seed))?;
        let uid = sandbox::fresh_uid();
        sandbox::hand_over_to(&cwd, uid)?;
        let mut limits = self.run_limits();
        limits.uid = uid;
        limits.output_cap = 1 << 20;
        limits.wall = Duration::from_secs(90);
        limits.cpu_seconds = Some(600);
        let metrics = format!("{},{}", profile::METRICS.join(","), profile::STALL_METRICS);
        let args = vec![
            "--clock-control".to_string(),
            "none".into(),
            "--csv".into(),
            "--print-units".into(),
            "base".into(),
            "--launch-count".into(),
            LAUNCHES.into(),
            "--metrics".into(),
            metrics,
            bin.display().to_string(),
            ".".into(),
            // ncu's injected library talks to its front end over sockets, which the harness's
            // filter forbids; the run keeps the sandbox's uid, limits and network isolation.
            "--no-syscall-filter".into(),
        ];
        let (gpu_index, _alone) = self.machine.timed_run();
        let env = vec![("CUDA_VISIBLE_DEVICES".to_string(), gpu_index.to_string())];
        let go = |limits: &sandbox::Limits| {
            sandbox::run_with_channel(ncu, &args, &cwd, &env, limits, |mut f| {
                std::io::copy(&mut f, &mut std::io::sink()).ok()
            })
        };
        let (mut r, _) = go(&limits)?;
        let text = |r: &sandbox::RunResult| format!("{}\n{}", r.stdout, r.stderr);
        if text(&r).contains("ERR_NVGPUCTRPERM") && limits.drop_privileges && sandbox::is_root() {
            // The driver keeps the counters to administrators: the candidate (verified, built
            // from checked objects) is profiled without the uid drop, as a GPU whose device
            // nodes only root may open is used for verification.
            tracing::warn!("GPU performance counters are restricted to root: profiling as root");
            limits.drop_privileges = false;
            (r, _) = go(&limits)?;
        }
        let all = text(&r);
        if all.contains("ERR_NVGPUCTRPERM") {
            return Ok(Err(
                "the driver does not give this user the GPU's performance counters \
                 (ERR_NVGPUCTRPERM; see NVreg_RestrictProfilingToAdminUsers)"
                    .into(),
            ));
        }
        if r.exit == sandbox::Exit::TimedOut {
            return Ok(Err(format!("ncu ran past {} s", limits.wall.as_secs())));
        }
        let kernels = match profile::parse_csv(&r.stdout) {
            Ok(k) => k,
            Err(e) => {
                let tail: String = all
                    .lines()
                    .filter(|l| l.contains("==ERROR==") || l.contains("==WARNING=="))
                    .take(3)
                    .collect::<Vec<_>>()
                    .join("; ");
                return Ok(Err(if tail.is_empty() {
                    e
                } else {
                    format!("{e}: {tail}")
                }));
            }
        };
        Ok(profile::diagnose(kernels).ok_or_else(|| "ncu profiled no kernel".to_string()))
    }
}

/// One sample at the timed size, no warm-up, no correctness case: the run ncu profiles.
fn profile_plan(region: &OffloadRegion, run_seed: u64) -> String {
    let mut p = plan::plan_for(region, run_seed);
    p.cases.clear();
    p.warmups = 0;
    p.min_samples = 1;
    p.max_samples = 1;
    harness::plan_text(&p, 0.0)
}
