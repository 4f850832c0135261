//! Verification: compile, check against the serial reference, time on the GPU (ARCHITECTURE.md §5).
//! Issue #6.
//!
//! One job: static checks on the candidate → nvcc (harness + candidate, one program) → on a GPU:
//! run the candidate alone in a sandbox (correctness cases, then timed samples on fresh inputs) →
//! only then run the serial reference in another sandboxed process (as written and in high
//! precision) → compare every output → judge the timing (roofline cap, timer check). Every failure
//! of the candidate is a `VerifyOutcome`; `VerifyError` is only for problems of the region, the
//! toolchain or this machine.

pub mod cache;
pub mod compare;
pub mod diagnostics;
pub mod gpu;
pub mod harness;
pub mod outcome;
pub mod plan;
pub mod pool;
pub mod sandbox;
pub mod static_check;
pub mod testdata;
pub mod toolchain;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::analysis::OffloadRegion;

pub use outcome::{Diagnostic, RewardForm, Timing, VerifyOutcome, reward};
pub use sandbox::SandboxInfo;

/// Bumped whenever the harness or the judging changes, so cached outcomes are not reused.
const VERIFIER_VERSION: &str = "verify-3";

/// Roofline ceilings; the defaults were measured on the H200 (ENVIRONMENT.md).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ceilings {
    pub bytes_per_s: f64,
    pub flops_per_s: f64,
}

impl Default for Ceilings {
    fn default() -> Self {
        Ceilings {
            bytes_per_s: 4.3e12,
            flops_per_s: 60.9e12,
        }
    }
}

#[derive(Debug, Clone)]
pub struct VerifyConfig {
    /// nvcc from the user's configuration (file or CUDA root).
    pub nvcc: Option<PathBuf>,
    pub host_cxx: PathBuf,
    /// Compiles at a time (default: the cores).
    pub compile_jobs: usize,
    pub compile_timeout: Duration,
    pub run_timeout: Duration,
    pub reference_timeout: Duration,
    /// Where outcomes and references are cached; `None` disables the cache.
    pub cache_dir: Option<PathBuf>,
    pub keep_dirs: bool,
    /// Run the compiled harness even when no GPU was detected (tests the "no GPU" path for real).
    pub force_run: bool,
    pub drop_privileges: bool,
    /// Seconds of timed samples after the first `min_samples`.
    pub timed_budget_s: f64,
    pub ceilings: Ceilings,
    /// Resident-set cap of the GPU harness (it gets no RLIMIT_AS; see `sandbox`).
    pub gpu_resident_cap: u64,
    /// Timing protocol of `verify` and `verify_many`.
    pub protocol: Protocol,
    /// Screening runs that may share one GPU (1: timed alone, like every other run). Only a
    /// search's ranking sees their noise; its answer is timed again, alone, with `Full`.
    pub screening_runs: usize,
    /// `-arch` of every compile, e.g. `sm_90`; `None`: the first detected GPU's, else `sm_90`.
    pub gpu_arch: Option<String>,
}

impl Default for VerifyConfig {
    fn default() -> Self {
        VerifyConfig {
            nvcc: None,
            host_cxx: PathBuf::from("g++"),
            compile_jobs: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            compile_timeout: Duration::from_secs(180),
            run_timeout: Duration::from_secs(120),
            reference_timeout: Duration::from_secs(300),
            cache_dir: cache::default_dir(),
            keep_dirs: false,
            force_run: false,
            drop_privileges: true,
            timed_budget_s: 10.0,
            ceilings: Ceilings::default(),
            gpu_resident_cap: 32 << 30,
            protocol: Protocol::Full,
            screening_runs: 1,
            gpu_arch: None,
        }
    }
}

/// How thoroughly a correct candidate is timed. Correctness is checked the same way in both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Protocol {
    #[default]
    /// BENCHMARKING.md's protocol: 3 warm-ups, 10 to 30 samples until the noise is under 0.5 %.
    Full,
    /// Enough to rank candidates inside a search (2 warm-ups, 5 to 10 samples, about a second):
    /// each timed sample regenerates hundreds of MB of inputs, which makes full timing the cost of
    /// a search step. The search's answer is verified again with `Full`.
    Screening,
}

/// One candidate for one region, as the pool takes them.
#[derive(Debug, Clone)]
pub struct VerifyJob {
    pub region: OffloadRegion,
    pub candidate: String,
    /// Overrides the configured wall-clock limit of the candidate's run.
    pub run_timeout: Option<Duration>,
}

/// One verification with its context.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VerifyReport {
    pub region: String,
    #[serde(flatten)]
    pub outcome: VerifyOutcome,
    pub summary: String,
    /// The default (normalized) reward.
    pub reward: f64,
    pub raw_reward: f64,
    pub cached: bool,
    pub key: String,
    pub wall_s: f64,
    pub nvcc: String,
    pub arch: String,
    pub gpu: Option<String>,
    pub sandbox: SandboxInfo,
    /// The sizes/seeds checked, `n=37 seed=1 dist=0`.
    pub checked: Vec<String>,
    /// Kept job directory (with `--keep`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_dir: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error(transparent)]
    Nvcc(#[from] toolchain::NvccError),
    #[error("this region cannot be verified: {0}")]
    BadRegion(String),
    #[error("the serial reference failed ({stage}): {detail}")]
    Reference { stage: String, detail: String },
    #[error(transparent)]
    Sandbox(#[from] sandbox::SandboxError),
    #[error("job directory: {0}")]
    Io(#[from] std::io::Error),
}

pub struct Verifier {
    cfg: VerifyConfig,
    nvcc: toolchain::Nvcc,
    gpus: Result<Vec<gpu::Gpu>, gpu::NoGpu>,
    arch: String,
    cache: Option<cache::Cache>,
    compile_slots: pool::Semaphore,
    machine: Arc<pool::Machine>,
    reference_locks: Mutex<HashMap<String, Arc<Mutex<()>>>>,
}

struct ReferenceDirs {
    native: PathBuf,
    hp: Option<PathBuf>,
}

impl Verifier {
    pub fn new(cfg: VerifyConfig) -> Result<Verifier, VerifyError> {
        let nvcc = toolchain::find_nvcc(cfg.nvcc.as_deref(), &toolchain::default_project_roots())?;
        let gpus = gpu::detect_gpus();
        Ok(Self::with_parts(cfg, nvcc, gpus))
    }

    pub fn with_parts(
        cfg: VerifyConfig,
        nvcc: toolchain::Nvcc,
        gpus: Result<Vec<gpu::Gpu>, gpu::NoGpu>,
    ) -> Verifier {
        let arch = cfg.gpu_arch.clone().unwrap_or_else(|| {
            gpus.as_ref()
                .ok()
                .and_then(|g| g.first())
                .map(gpu::Gpu::arch)
                .unwrap_or_else(|| "sm_90".into())
        });
        let indices: Vec<u32> = gpus
            .as_ref()
            .map(|g| g.iter().map(|x| x.index).collect())
            .unwrap_or_default();
        Verifier {
            cache: cfg.cache_dir.clone().map(cache::Cache::new),
            compile_slots: pool::Semaphore::new(cfg.compile_jobs),
            machine: Arc::new(pool::Machine::new(&indices, cfg.screening_runs)),
            reference_locks: Mutex::new(HashMap::new()),
            cfg,
            nvcc,
            gpus,
            arch,
        }
    }

    pub fn gpu_name(&self) -> Option<String> {
        self.gpus
            .as_ref()
            .ok()
            .and_then(|g| g.first())
            .map(|g| format!("{} (driver {})", g.name, g.driver))
    }

    pub fn config(&self) -> &VerifyConfig {
        &self.cfg
    }

    /// Blocks until no timed run holds or waits for the machine, then shares it until dropped:
    /// for work beside compiles but never beside a timing, such as a model server on the same GPU
    /// decoding an answer.
    pub fn hold_shared(&self) -> pool::OwnedUse {
        self.machine.shared_owned()
    }

    /// The machine alone until dropped: for a timing made outside the verifier (a CPU baseline).
    pub fn hold_alone(&self) -> pool::OwnedUse {
        self.machine.exclusive_owned()
    }

    fn run_limits(&self) -> sandbox::Limits {
        sandbox::Limits {
            wall: self.cfg.run_timeout,
            cpu_seconds: Some(cpu_limit(self.cfg.run_timeout)),
            address_space: None,
            resident: Some(self.cfg.gpu_resident_cap),
            processes: Some(64),
            file_size: Some(4 << 30),
            output_cap: 64 * 1024,
            no_network: true,
            drop_privileges: self.cfg.drop_privileges,
        }
    }

    /// Verifies many candidates: compiles in parallel, each run timed alone ([`pool::Machine`]).
    pub fn verify_many(&self, jobs: &[VerifyJob]) -> Vec<Result<VerifyReport, VerifyError>> {
        self.verify_many_with(jobs, |_, _| {})
    }

    /// `verify_many`, calling `on_done(index, result)` as each job finishes (progress).
    pub fn verify_many_with(
        &self,
        jobs: &[VerifyJob],
        on_done: impl Fn(usize, &Result<VerifyReport, VerifyError>) + Sync,
    ) -> Vec<Result<VerifyReport, VerifyError>> {
        let workers = self.cfg.compile_jobs.max(1) + self.machine.gpu_count();
        pool::map_parallel(jobs, workers, |i, j| {
            let r =
                self.verify_hinted(&j.region, &j.candidate, j.run_timeout, i, self.cfg.protocol);
            on_done(i, &r);
            r
        })
    }

    pub fn verify(
        &self,
        region: &OffloadRegion,
        candidate: &str,
    ) -> Result<VerifyReport, VerifyError> {
        self.verify_hinted(region, candidate, None, 0, self.cfg.protocol)
    }

    /// `verify` with another timing protocol than the configured one (a search screens its
    /// candidates, then verifies its answer in full).
    pub fn verify_with(
        &self,
        region: &OffloadRegion,
        candidate: &str,
        protocol: Protocol,
    ) -> Result<VerifyReport, VerifyError> {
        self.verify_hinted(region, candidate, None, 0, protocol)
    }

    fn verify_hinted(
        &self,
        region: &OffloadRegion,
        candidate: &str,
        run_timeout: Option<Duration>,
        hint: usize,
        protocol: Protocol,
    ) -> Result<VerifyReport, VerifyError> {
        let start = Instant::now();
        harness::validate_region(region).map_err(VerifyError::BadRegion)?;
        let mut plan = plan::plan_for(
            region,
            u64::from_str_radix(&cache::hash(&[region.source.as_bytes()])[..15], 16).unwrap_or(7),
        );
        let mut budget_s = self.cfg.timed_budget_s;
        if protocol == Protocol::Screening {
            plan.screening();
            budget_s = budget_s.min(1.0);
        }
        let plan_txt = harness::plan_text(&plan, budget_s);
        let cand_prog = harness::candidate_program(region, candidate);
        let ref_prog = harness::reference_program(region);
        let gpu_id = self.gpu_name().unwrap_or_else(|| "none".into());
        let key = cache::hash(&[
            VERIFIER_VERSION.as_bytes(),
            cand_prog.as_bytes(),
            ref_prog.as_bytes(),
            plan_txt.as_bytes(),
            self.nvcc.version.as_bytes(),
            self.nvcc.path.as_os_str().as_encoded_bytes(),
            self.arch.as_bytes(),
            gpu_id.as_bytes(),
            &[self.cfg.force_run as u8],
        ]);
        let mut checked: Vec<String> = plan
            .cases
            .iter()
            .map(|c| format!("{} seed={} dist={}", c.describe_size(), c.seed, c.dist))
            .collect();
        for i in &plan.checked_samples {
            checked.push(format!(
                "{} seed={} dist={} (timed sample {i})",
                plan.timed.describe_size(),
                plan.timed.seed + *i as u64,
                i % 2
            ));
        }
        let report = |outcome: VerifyOutcome, cached: bool, job_dir: Option<String>| VerifyReport {
            region: region.name.clone(),
            summary: outcome.summary(),
            reward: reward(&outcome, RewardForm::default()),
            raw_reward: reward(&outcome, RewardForm::Raw),
            outcome,
            cached,
            key: key.clone(),
            wall_s: start.elapsed().as_secs_f64(),
            nvcc: format!("{} ({})", self.nvcc.version, self.nvcc.path.display()),
            arch: self.arch.clone(),
            gpu: self.gpu_name(),
            sandbox: sandbox::info(&self.run_limits()),
            checked: checked.clone(),
            job_dir,
        };
        if let Some(reason) = static_check::check(region, candidate) {
            return Ok(report(VerifyOutcome::Rejected { reason }, false, None));
        }
        if let Some(c) = &self.cache
            && let Some(o) = c.get(&key)
        {
            return Ok(report(o, true, None));
        }
        let job = tempfile::Builder::new()
            .prefix("cuda-offload-verify-")
            .tempdir()?;
        let outcome = self.run_job(
            region,
            &cand_prog,
            &ref_prog,
            &plan,
            &plan_txt,
            job.path(),
            run_timeout,
            hint,
            protocol,
        )?;
        if let Some(c) = &self.cache
            && !matches!(outcome, VerifyOutcome::Timeout { .. })
        {
            c.put(&key, &outcome);
        }
        let kept = if self.cfg.keep_dirs {
            let p = job.keep();
            Some(p.display().to_string())
        } else {
            None
        };
        Ok(report(outcome, false, kept))
    }

    #[allow(clippy::too_many_arguments)]
    fn run_job(
        &self,
        region: &OffloadRegion,
        cand_prog: &str,
        ref_prog: &str,
        plan: &plan::Plan,
        plan_txt: &str,
        job: &Path,
        run_timeout: Option<Duration>,
        hint: usize,
        protocol: Protocol,
    ) -> Result<VerifyOutcome, VerifyError> {
        use std::os::unix::fs::PermissionsExt;
        // Others (the unprivileged uid of the runs) may pass through the job directory to the
        // directory handed to them, but not list it or read the build.
        std::fs::set_permissions(job, std::fs::Permissions::from_mode(0o711))?;
        let build = job.join("build");
        std::fs::create_dir_all(&build)?;
        std::fs::set_permissions(&build, std::fs::Permissions::from_mode(0o700))?;
        std::fs::write(build.join("harness.cu"), cand_prog)?;
        let exe = build.join("candidate");
        {
            let _compiling = self.compile_turn();
            let lib = self.nvcc.cuda_home.join("lib");
            let mut args = vec![
                "-O3".to_string(),
                "-std=c++17".into(),
                format!("-arch={}", self.arch),
                "-o".into(),
                exe.display().to_string(),
                "harness.cu".into(),
            ];
            if lib.is_dir() {
                args.push(format!("-L{}", lib.display()));
            }
            let r = sandbox::run(&self.nvcc.path, &args, &build, &[], &self.compile_limits())?;
            match r.exit {
                sandbox::Exit::Code(0) => {}
                sandbox::Exit::TimedOut => {
                    return Ok(VerifyOutcome::Timeout {
                        seconds: r.wall.as_secs_f64(),
                        stage: "compile".into(),
                    });
                }
                _ => {
                    let text = format!("{}\n{}", r.stdout, r.stderr);
                    return Ok(VerifyOutcome::CompileError {
                        diagnostics: diagnostics::parse(
                            &text,
                            &region.gpu_entry_name(),
                            &region.signature_named(&region.gpu_entry_name()),
                        ),
                    });
                }
            }
        }
        if let Err(no) = &self.gpus
            && !self.cfg.force_run
        {
            return Ok(VerifyOutcome::CompiledNotRun {
                reason: "no GPU".into(),
                detail: no.reason.clone(),
            });
        }

        let alone = protocol == Protocol::Full;
        let (run, r) = self.run_candidate(&exe, job, "run", plan_txt, alone, hint, run_timeout)?;
        if let Some(o) = candidate_exit(&r) {
            return Ok(o);
        }

        let refs = self.reference(region, ref_prog, plan_txt, job)?;
        if let Some(o) = self.compare(region, plan, &run, &refs)? {
            return Ok(o);
        }
        let outcome = self.judge_timing(region, plan, &run, &refs)?;
        if alone || !matches!(outcome, VerifyOutcome::Rejected { .. }) {
            return Ok(outcome);
        }
        // A rejection says the timing was dishonest: only said of a run that had the machine
        // alone. Beside other runs the host waits while other contexts hold the GPU, which the
        // stream's events do not see, and a correct small kernel looks like one that hides work.
        let (run, r) = self.run_candidate(&exe, job, "rerun", plan_txt, true, hint, run_timeout)?;
        if let Some(o) = candidate_exit(&r) {
            return Ok(o);
        }
        if let Some(o) = self.compare(region, plan, &run, &refs)? {
            return Ok(o);
        }
        self.judge_timing(region, plan, &run, &refs)
    }

    /// Runs the built candidate in `job/<name>` (sandboxed, as the unprivileged uid), alone on the
    /// machine or as a screening run that may share a GPU.
    #[allow(clippy::too_many_arguments)]
    fn run_candidate(
        &self,
        exe: &Path,
        job: &Path,
        name: &str,
        plan_txt: &str,
        alone: bool,
        hint: usize,
        run_timeout: Option<Duration>,
    ) -> Result<(PathBuf, sandbox::RunResult), VerifyError> {
        let run = job.join(name);
        std::fs::create_dir_all(&run)?;
        let bin = run.join("candidate");
        std::fs::copy(exe, &bin)?;
        std::fs::write(run.join("plan.txt"), plan_txt)?;
        sandbox::hand_over(&run)?;
        let detected = self.gpus.is_ok();
        let (gpu_index, _use) = if alone {
            self.machine.timed_run()
        } else {
            self.machine.screening_run(hint)
        };
        let env = vec![("CUDA_VISIBLE_DEVICES".to_string(), gpu_index.to_string())];
        let args = vec![".".to_string()];
        let mut limits = self.run_limits();
        if let Some(t) = run_timeout {
            limits.wall = t;
            limits.cpu_seconds = Some(cpu_limit(t));
        }
        let mut r = sandbox::run(&bin, &args, &run, &env, &limits)?;
        // Some drivers only open their device nodes to root: then run without the uid drop
        // rather than report a GPU that is there as missing.
        if detected
            && r.exit == sandbox::Exit::Code(20)
            && limits.drop_privileges
            && sandbox::is_root()
        {
            tracing::warn!("GPU not usable as an unprivileged uid; running the candidate as root");
            limits.drop_privileges = false;
            r = sandbox::run(&bin, &args, &run, &env, &limits)?;
        }
        Ok((run, r))
    }

    /// A compile slot (bounded by the cores) and a shared use of the machine, held while compiling.
    fn compile_turn(&self) -> (pool::Permit<'_>, pool::Use<&pool::Machine>) {
        (self.compile_slots.acquire(), self.machine.shared())
    }

    fn compile_limits(&self) -> sandbox::Limits {
        sandbox::Limits {
            wall: self.cfg.compile_timeout,
            cpu_seconds: Some(self.cfg.compile_timeout.as_secs() + 10),
            address_space: None,
            resident: Some(8 << 30),
            processes: None,
            file_size: Some(1 << 30),
            output_cap: 64 * 1024,
            no_network: true,
            drop_privileges: false,
        }
    }

    fn reference_limits(&self) -> sandbox::Limits {
        sandbox::Limits {
            wall: self.cfg.reference_timeout,
            cpu_seconds: Some(cpu_limit(self.cfg.reference_timeout)),
            address_space: Some(32 << 30),
            resident: None,
            processes: Some(64),
            file_size: Some(4 << 30),
            output_cap: 64 * 1024,
            no_network: true,
            drop_privileges: self.cfg.drop_privileges,
        }
    }

    /// Compiles and runs the reference (as written and promoted), or takes it from the cache.
    fn reference(
        &self,
        region: &OffloadRegion,
        ref_prog: &str,
        plan_txt: &str,
        job: &Path,
    ) -> Result<ReferenceDirs, VerifyError> {
        let key = cache::hash(&[
            VERIFIER_VERSION.as_bytes(),
            ref_prog.as_bytes(),
            plan_txt.as_bytes(),
            self.cfg.host_cxx.as_os_str().as_encoded_bytes(),
        ]);
        let lock = {
            let mut m = self
                .reference_locks
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            m.entry(key.clone()).or_default().clone()
        };
        let _held = lock.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = &self.cache
            && let Some(native) = c.reference(&format!("{key}-native"))
        {
            return Ok(ReferenceDirs {
                native,
                hp: c.reference(&format!("{key}-hp")),
            });
        }
        let dir = job.join("reference");
        std::fs::create_dir_all(&dir)?;
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o711))?;
        }
        std::fs::write(dir.join("reference.cpp"), ref_prog)?;
        let native = self.build_and_run_reference(&dir, false, plan_txt)?;
        let needs_hp = plan::outputs(region).any(|p| plan::is_float_type(&p.elem_type));
        let hp = if needs_hp {
            match self.build_and_run_reference(&dir, true, plan_txt) {
                Ok(d) => Some(d),
                Err(e) => {
                    tracing::warn!(
                        "high-precision reference unavailable, comparing with the serial code as written: {e}"
                    );
                    None
                }
            }
        } else {
            None
        };
        let Some(c) = &self.cache else {
            return Ok(ReferenceDirs { native, hp });
        };
        let native = c
            .store_reference(&format!("{key}-native"), &native)
            .unwrap_or(native);
        let hp = hp.map(|h| c.store_reference(&format!("{key}-hp"), &h).unwrap_or(h));
        Ok(ReferenceDirs { native, hp })
    }

    fn build_and_run_reference(
        &self,
        dir: &Path,
        hp: bool,
        plan_txt: &str,
    ) -> Result<PathBuf, VerifyError> {
        let name = if hp { "hp" } else { "native" };
        let exe = dir.join(format!("reference_{name}"));
        let mut args: Vec<String> = if hp {
            vec!["-O2".into()]
        } else {
            // The serial baseline gets the host compiler's best: an honest speedup.
            vec!["-O3".into(), "-march=native".into()]
        };
        args.extend([
            "-std=c++17".into(),
            // The input generator fills large inputs on threads (harness/common.h).
            "-pthread".into(),
            format!("-DCO_HP={}", hp as u8),
            "-o".into(),
            exe.display().to_string(),
            "reference.cpp".into(),
        ]);
        let r = {
            let _compiling = self.compile_turn();
            sandbox::run(&self.cfg.host_cxx, &args, dir, &[], &self.compile_limits())?
        };
        if r.exit != sandbox::Exit::Code(0) {
            return Err(VerifyError::Reference {
                stage: format!("compile ({name})"),
                detail: tail(&r.stderr, 2000),
            });
        }
        let out = dir.join(name);
        std::fs::create_dir_all(&out)?;
        std::fs::copy(&exe, out.join("reference"))?;
        std::fs::write(out.join("plan.txt"), plan_txt)?;
        sandbox::hand_over(&out)?;
        // The outputs are not timed and share the machine (for slow serial code they take longer
        // than the timing: the checked timed samples run at the timed size). The serial time is
        // the denominator of every speedup: measured alone, on a quiet machine.
        let run = |part: &str| -> Result<(), VerifyError> {
            let r = sandbox::run(
                &out.join("reference"),
                &[".".to_string(), part.to_string()],
                &out,
                &[],
                &self.reference_limits(),
            )?;
            if r.exit != sandbox::Exit::Code(0) {
                return Err(VerifyError::Reference {
                    stage: format!("run ({name}, {part}): {:?}", r.exit),
                    detail: tail(&r.stderr, 2000),
                });
            }
            Ok(())
        };
        {
            let _use = self.machine.shared();
            run("outputs")?;
        }
        if !hp {
            let _alone = self.machine.timed_run().1;
            run("serial")?;
        }
        Ok(out)
    }

    fn compare(
        &self,
        region: &OffloadRegion,
        plan: &plan::Plan,
        run: &Path,
        refs: &ReferenceDirs,
    ) -> Result<Option<VerifyOutcome>, VerifyError> {
        let mut checks: Vec<(String, &plan::Case, u64)> = plan
            .cases
            .iter()
            .enumerate()
            .map(|(i, c)| (format!("c{i}"), c, c.seed))
            .collect();
        for i in &plan.checked_samples {
            checks.push((format!("t{i}"), &plan.timed, plan.timed.seed + *i as u64));
        }
        for (tag, case, seed) in checks {
            let terms = terms_per_output(region, case);
            for p in plan::outputs(region) {
                let file = format!("{tag}_{}.bin", p.name);
                let got_path = run.join(&file);
                if !got_path.is_file() {
                    return Ok(Some(VerifyOutcome::Crash {
                        reason: format!("the harness wrote no {file}"),
                        stderr: String::new(),
                    }));
                }
                let mismatch = if plan::is_float_type(&p.elem_type) {
                    let native = read(&refs.native.join(&file))?;
                    let hp = match &refs.hp {
                        Some(h) => read(&h.join(&file))?,
                        None => native.clone(),
                    };
                    let got = read(&got_path)?;
                    let tol = compare::Tolerance::for_output(&p.elem_type, terms, &hp);
                    compare::compare_floats(&native, &hp, &got, tol)
                } else {
                    let expected = compare::read_i64(&refs.native.join(&file)).map_err(ref_err)?;
                    let got = compare::read_i64(&got_path).map_err(ref_err)?;
                    compare::compare_ints(&expected, &got)
                };
                if let Some(m) = mismatch {
                    return Ok(Some(VerifyOutcome::Wrong {
                        param: p.name.clone(),
                        index: m.index,
                        expected: m.expected,
                        got: m.got,
                        size: case.describe_size(),
                        seed,
                    }));
                }
            }
        }
        Ok(None)
    }

    fn judge_timing(
        &self,
        region: &OffloadRegion,
        plan: &plan::Plan,
        run: &Path,
        refs: &ReferenceDirs,
    ) -> Result<VerifyOutcome, VerifyError> {
        let timing = std::fs::read_to_string(run.join("timing.txt")).unwrap_or_default();
        let mut kernel = Vec::new();
        let mut e2e = Vec::new();
        let mut wall = Vec::new();
        for line in timing.lines() {
            let v: Vec<f64> = line
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            if v.len() == 3 {
                kernel.push(v[0]);
                e2e.push(v[1]);
                wall.push(v[2]);
            }
        }
        if kernel.is_empty() {
            return Ok(VerifyOutcome::Crash {
                reason: "no timed samples were recorded".into(),
                stderr: String::new(),
            });
        }
        let serial_text =
            std::fs::read_to_string(refs.native.join("serial.txt")).unwrap_or_default();
        let mut serial: Vec<f64> = serial_text
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect();
        let serial_ms = percentile(&mut serial, 0.5);
        let floor_s = plan::work_at(region, &plan.timed).map(|(bytes, flops)| {
            (bytes / self.cfg.ceilings.bytes_per_s).max(flops / self.cfg.ceilings.flops_per_s)
        });
        let k = Stats::of(&mut kernel);
        let e = Stats::of(&mut e2e);
        let w = percentile(&mut wall, 0.5);
        let roofline_fraction = floor_s.map(|f| f * 1e3 / k.median.max(1e-9));
        if let Some(reason) = judge(k.median, w, roofline_fraction) {
            return Ok(VerifyOutcome::Rejected { reason });
        }
        Ok(VerifyOutcome::Correct(Timing {
            kernel_ms: k.median,
            kernel_p10_ms: k.p10,
            kernel_p90_ms: k.p90,
            end_to_end_ms: e.median,
            end_to_end_p10_ms: e.p10,
            end_to_end_p90_ms: e.p90,
            serial_ms,
            speedup: serial_ms / k.median.max(1e-9),
            end_to_end_speedup: serial_ms / e.median.max(1e-9),
            roofline_fraction,
            samples: kernel.len(),
            noise: k.rse,
            size: plan.timed.describe_size(),
        }))
    }
}

/// Rejects timings that cannot be honest: faster than the roofline allows, or a GPU timer that
/// disagrees with the host's wall clock around the same call.
pub fn judge(kernel_ms: f64, host_wall_ms: f64, roofline_fraction: Option<f64>) -> Option<String> {
    if let Some(r) = roofline_fraction
        && r > 1.05
    {
        return Some(format!(
            "impossible speed: {:.0}% of the roofline floor (above 105%): a bug or a hack",
            r * 100.0
        ));
    }
    if kernel_ms <= 0.0 || kernel_ms < 0.5 * host_wall_ms - 0.05 {
        return Some(format!(
            "the GPU timer says {kernel_ms:.4} ms but the host saw {host_wall_ms:.4} ms around the same call"
        ));
    }
    None
}

/// CPU seconds a harness program may use in `wall`: its input generator runs on up to 16 threads
/// besides the main one (harness/common.h), so CPU time runs ahead of the wall clock. The wall
/// limit is the real bound; this one only stops a runaway that the wall limit would also stop.
fn cpu_limit(wall: Duration) -> u64 {
    (wall.as_secs() + 10) * 17
}

fn ref_err(e: compare::ReadError) -> VerifyError {
    VerifyError::Reference {
        stage: "read outputs".into(),
        detail: e.to_string(),
    }
}

fn read(path: &Path) -> Result<Vec<f64>, VerifyError> {
    compare::read_f64(path).map_err(ref_err)
}

fn terms_per_output(region: &OffloadRegion, case: &plan::Case) -> f64 {
    let mut vars: HashMap<String, f64> = case
        .sizes
        .iter()
        .map(|(n, v)| (n.clone(), *v as f64))
        .collect();
    for p in &region.params {
        vars.entry(p.name.clone()).or_insert(1000.0);
    }
    let iters = plan::eval(&region.work.iterations, &vars).unwrap_or(1.0);
    if region.kind == crate::analysis::LoopKind::Scan {
        // Output i of a scan accumulates every term up to i: a parallel scan reorders as many.
        return iters;
    }
    let outs: f64 = plan::outputs(region)
        .filter_map(|p| p.extent.as_deref())
        .filter_map(|e| plan::eval(e, &vars).ok())
        .sum();
    iters / outs.max(1.0)
}

/// The verdict hidden in the candidate harness's exit, if it is one.
fn candidate_exit(r: &sandbox::RunResult) -> Option<VerifyOutcome> {
    let first = |prefix: &str| {
        r.stderr
            .lines()
            .find(|l| l.starts_with(prefix))
            .map(|l| l.trim().to_string())
    };
    match r.exit {
        sandbox::Exit::Code(0) => None,
        sandbox::Exit::TimedOut => Some(VerifyOutcome::Timeout {
            seconds: r.wall.as_secs_f64(),
            stage: "candidate run".into(),
        }),
        sandbox::Exit::OutOfMemory => Some(VerifyOutcome::Crash {
            reason: "killed: host memory above the sandbox's cap".into(),
            stderr: tail(&r.stderr, 2000),
        }),
        sandbox::Exit::Signal(s) => Some(VerifyOutcome::Crash {
            reason: format!("killed by signal {s} ({})", signal_name(s)),
            stderr: tail(&r.stderr, 2000),
        }),
        sandbox::Exit::Code(20) => Some(VerifyOutcome::CompiledNotRun {
            reason: "no GPU".into(),
            detail: first("NO_GPU").unwrap_or_else(|| tail(&r.stderr, 300)),
        }),
        sandbox::Exit::Code(10) => Some(VerifyOutcome::Crash {
            reason: first("CUDA_ERROR").unwrap_or_else(|| "CUDA error".into()),
            stderr: tail(&r.stderr, 2000),
        }),
        sandbox::Exit::Code(11) => Some(VerifyOutcome::Rejected {
            reason: format!(
                "modified its input `{}` (inputs must be unchanged)",
                first("INPUT_MODIFIED")
                    .and_then(|l| l.split_whitespace().nth(1).map(str::to_string))
                    .unwrap_or_default()
            ),
        }),
        sandbox::Exit::Code(c) => Some(VerifyOutcome::Crash {
            reason: format!("exit code {c}"),
            stderr: tail(&r.stderr, 2000),
        }),
    }
}

fn signal_name(s: i32) -> &'static str {
    match s {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGKILL => "SIGKILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGBUS => "SIGBUS",
        libc::SIGXCPU => "SIGXCPU: CPU time limit",
        libc::SIGXFSZ => "SIGXFSZ: file size limit",
        libc::SIGILL => "SIGILL",
        _ => "signal",
    }
}

fn tail(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut start = s.len() - max;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    s[start..].to_string()
}

struct Stats {
    median: f64,
    p10: f64,
    p90: f64,
    rse: f64,
}

impl Stats {
    fn of(v: &mut [f64]) -> Stats {
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n.max(1.0);
        let var = if v.len() > 1 {
            v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        Stats {
            median: percentile(v, 0.5),
            p10: percentile(v, 0.1),
            p90: percentile(v, 0.9),
            rse: if mean > 0.0 {
                (var / n).sqrt() / mean
            } else {
                0.0
            },
        }
    }
}

/// Nearest-rank percentile (sorts `v`); 0 for an empty slice.
pub fn percentile(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let idx = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
    v[idx]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judge_rejects_impossible_speed_and_timer_tampering() {
        assert!(judge(1.0, 1.01, Some(0.9)).is_none());
        assert!(judge(1.0, 1.0, Some(1.3)).unwrap().contains("impossible"));
        assert!(judge(0.001, 5.0, Some(0.5)).unwrap().contains("host saw"));
        assert!(judge(0.0, 0.0, None).is_some());
        // Launch overhead alone does not trip the timer check.
        assert!(judge(0.01, 0.04, None).is_none());
    }

    #[test]
    fn a_configured_arch_wins_over_the_detected_gpu() {
        let nvcc = toolchain::Nvcc {
            path: "/nowhere/nvcc".into(),
            cuda_home: "/nowhere".into(),
            version: "13.0".into(),
            found_by: "config",
        };
        let none = || {
            Err(gpu::NoGpu {
                reason: "test".into(),
            })
        };
        let default = Verifier::with_parts(VerifyConfig::default(), nvcc.clone(), none());
        assert_eq!(default.arch, "sm_90");
        let cfg = VerifyConfig {
            gpu_arch: Some("sm_80".into()),
            ..VerifyConfig::default()
        };
        assert_eq!(Verifier::with_parts(cfg, nvcc, none()).arch, "sm_80");
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let mut v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(percentile(&mut v, 0.5), 5.0);
        assert_eq!(percentile(&mut v, 0.1), 1.0);
        assert_eq!(percentile(&mut v, 0.9), 9.0);
        assert_eq!(percentile(&mut [], 0.5), 0.0);
    }

    #[test]
    fn terms_per_output_sees_reductions_and_scans() {
        let case = |n: i64| plan::Case {
            sizes: vec![("n".into(), n)],
            seed: 1,
            dist: 0,
        };
        let dot = testdata::region("dot");
        assert_eq!(terms_per_output(&dot, &case(1000)), 1000.0);
        let saxpy = testdata::region("saxpy");
        assert_eq!(terms_per_output(&saxpy, &case(1000)), 1.0);
        let scan = testdata::region("prefix_sum");
        assert_eq!(scan.kind, crate::analysis::LoopKind::Scan);
        assert_eq!(terms_per_output(&scan, &case(1000)), 1000.0);
    }
}
