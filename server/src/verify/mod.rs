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
pub mod ceilings;
pub mod channel;
pub mod compare;
pub mod diagnostics;
pub mod gpu;
pub mod harness;
pub mod ncu;
pub mod object_check;
pub mod outcome;
pub mod plan;
pub mod pool;
pub mod profile;
pub mod sandbox;
pub mod static_check;
pub mod testdata;
pub mod toolchain;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

pub use ceilings::Ceilings;

use crate::analysis::OffloadRegion;

pub use outcome::{Diagnostic, RewardForm, Timing, VerifyOutcome, judged_reward, reward};
pub use sandbox::SandboxInfo;

/// Bumped whenever the harness or the judging changes, so cached outcomes are not reused.
const VERIFIER_VERSION: &str = "verify-5";

/// Relative standard error above which a final timing is taken again, then reported as noisy.
pub const NOISE_BOUND: f64 = 0.02;

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
    /// The harness's system-call filter (harness/lockdown.h). Where it cannot be installed the
    /// candidate is not run (a verifier error) unless this is off: `CUDA_OFFLOAD_NO_SYSCALL_FILTER=1`.
    pub syscall_filter: bool,
    /// Seconds of timed samples after the first `min_samples`.
    pub timed_budget_s: f64,
    /// The roofline ceilings; `None`: those measured on this GPU (`ceilings.rs`), else the H200's.
    pub ceilings: Option<Ceilings>,
    /// Resident-set cap of the GPU harness (it gets no RLIMIT_AS; see `sandbox`).
    pub gpu_resident_cap: u64,
    /// Timing protocol of `verify` and `verify_many`.
    pub protocol: Protocol,
    /// Screening runs that may share one GPU (1: timed alone, like every other run). Only a
    /// search's ranking sees their noise; its answer is timed again, alone, with `Full`.
    pub screening_runs: usize,
    /// `-arch` of every compile, e.g. `sm_90`; `None`: the first detected GPU's, else `sm_90`.
    pub gpu_arch: Option<String>,
    /// Seed of every input, shape and re-checked sample of this verifier's runs; `None`: drawn
    /// at random when the verifier starts (reported with every outcome, so a run can be repeated).
    pub seed: Option<u64>,
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
            syscall_filter: std::env::var_os("CUDA_OFFLOAD_NO_SYSCALL_FILTER")
                .is_none_or(|v| v.is_empty() || v == "0"),
            timed_budget_s: 10.0,
            ceilings: None,
            gpu_resident_cap: 32 << 30,
            protocol: Protocol::Full,
            screening_runs: 1,
            gpu_arch: None,
            seed: None,
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
    /// The seed every input, shape and re-checked sample came from (`--seed` repeats the run).
    pub run_seed: u64,
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
    #[error("the generated harness does not compile (a verifier bug, not the candidate's): {0}")]
    Harness(String),
    #[error(transparent)]
    ObjectTools(#[from] object_check::ToolError),
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
    run_seed: u64,
}

struct ReferenceDirs {
    native: PathBuf,
    hp: Option<PathBuf>,
    /// Cases the serial code itself fails on (it is not defined there): dropped, with why.
    dropped: Vec<(usize, String)>,
}

/// A hash of this program's own executable, once: a changed verifier never reuses an outcome.
fn verifier_code_hash() -> &'static str {
    static HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HASH.get_or_init(|| {
        std::env::current_exe()
            .and_then(std::fs::read)
            .map(|b| cache::hash(&[&b]))
            .unwrap_or_else(|_| VERIFIER_VERSION.to_string())
    })
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
            run_seed: cfg.seed.unwrap_or_else(rand::random),
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

    /// The roofline ceilings of this machine's GPU: configured, else measured on a card of its
    /// name; `None` when neither is known.
    pub fn ceilings(&self) -> Option<Ceilings> {
        self.cfg.ceilings.or_else(|| {
            let gpus = self.gpus.as_ref().ok()?;
            Ceilings::measured(&gpus.first()?.name)
        })
    }

    pub fn config(&self) -> &VerifyConfig {
        &self.cfg
    }

    pub fn run_seed(&self) -> u64 {
        self.run_seed
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
            uid: sandbox::NOBODY,
            cancel: None,
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
            let r = self.verify_hinted(
                &j.region,
                &j.candidate,
                j.run_timeout,
                i,
                self.cfg.protocol,
                None,
            );
            on_done(i, &r);
            r
        })
    }

    pub fn verify(
        &self,
        region: &OffloadRegion,
        candidate: &str,
    ) -> Result<VerifyReport, VerifyError> {
        self.verify_hinted(region, candidate, None, 0, self.cfg.protocol, None)
    }

    /// `verify` with another timing protocol than the configured one (a search screens its
    /// candidates, then verifies its answer in full).
    pub fn verify_with(
        &self,
        region: &OffloadRegion,
        candidate: &str,
        protocol: Protocol,
    ) -> Result<VerifyReport, VerifyError> {
        self.verify_hinted(region, candidate, None, 0, protocol, None)
    }

    /// `verify_with` that stops (killing whatever runs) once `cancel` is set: `Cancelled`.
    pub fn verify_cancellable(
        &self,
        region: &OffloadRegion,
        candidate: &str,
        protocol: Protocol,
        cancel: Arc<std::sync::atomic::AtomicBool>,
    ) -> Result<VerifyReport, VerifyError> {
        self.verify_hinted(region, candidate, None, 0, protocol, Some(cancel))
    }

    fn verify_hinted(
        &self,
        region: &OffloadRegion,
        candidate: &str,
        run_timeout: Option<Duration>,
        hint: usize,
        protocol: Protocol,
        cancel: Option<Arc<std::sync::atomic::AtomicBool>>,
    ) -> Result<VerifyReport, VerifyError> {
        let start = Instant::now();
        harness::validate_region(region).map_err(VerifyError::BadRegion)?;
        let mut plan = plan::plan_for(region, self.run_seed);
        let mut budget_s = self.cfg.timed_budget_s;
        if protocol == Protocol::Screening {
            plan.screening();
            budget_s = budget_s.min(1.0);
        }
        let cand_src = harness::candidate_source(region, candidate);
        let harness_src = harness::harness_program(region);
        let ref_prog = harness::reference_program(region);
        let gpu_id = self.gpu_name().unwrap_or_else(|| "none".into());
        let key = cache::hash(&[
            VERIFIER_VERSION.as_bytes(),
            verifier_code_hash().as_bytes(),
            cand_src.as_bytes(),
            harness_src.as_bytes(),
            ref_prog.as_bytes(),
            harness::plan_text(&plan, budget_s).as_bytes(),
            self.nvcc.version.as_bytes(),
            self.nvcc.path.as_os_str().as_encoded_bytes(),
            self.arch.as_bytes(),
            gpu_id.as_bytes(),
            &[self.cfg.force_run as u8],
        ]);
        let checked = describe_checks(&plan);
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
            run_seed: self.run_seed,
            job_dir,
        };
        if let Some(reason) = static_check::check(region, candidate) {
            return Ok(report(
                VerifyOutcome::Rejected {
                    guard: "static:source".into(),
                    reason,
                },
                false,
                None,
            ));
        }
        if let Some(c) = &self.cache
            && let Some(o) = c.get(&key)
        {
            return Ok(report(o, true, None));
        }
        let job = tempfile::Builder::new()
            .prefix("cuda-offload-verify-")
            .tempdir()?;
        let sources = Sources {
            candidate: &cand_src,
            harness: &harness_src,
            reference: &ref_prog,
        };
        let run = RunSettings {
            timeout: run_timeout,
            hint,
            protocol,
            budget_s,
            cancel,
        };
        let outcome = self.run_job(region, &sources, &mut plan, job.path(), &run)?;
        if let Some(c) = &self.cache
            && !matches!(
                outcome,
                VerifyOutcome::Timeout { .. } | VerifyOutcome::Cancelled
            )
        {
            c.put(&key, &outcome);
        }
        let kept = if self.cfg.keep_dirs {
            let p = job.keep();
            Some(p.display().to_string())
        } else {
            None
        };
        let mut r = report(outcome, false, kept);
        // Cases the serial code is not defined on were dropped: say so beside what was checked.
        r.checked = describe_checks(&plan);
        Ok(r)
    }

    fn run_job(
        &self,
        region: &OffloadRegion,
        src: &Sources,
        plan: &mut plan::Plan,
        job: &Path,
        run: &RunSettings,
    ) -> Result<VerifyOutcome, VerifyError> {
        use std::os::unix::fs::PermissionsExt;
        // Others (the unprivileged uid of the runs) may pass through the job directory to the
        // directory handed to them, but not list it or read the build.
        std::fs::set_permissions(job, std::fs::Permissions::from_mode(0o711))?;
        let build = job.join("build");
        std::fs::create_dir_all(&build)?;
        std::fs::set_permissions(&build, std::fs::Permissions::from_mode(0o700))?;
        let exe = match self.build_candidate(region, src, &build)? {
            Ok(exe) => exe,
            Err(outcome) => return Ok(outcome),
        };
        if let Err(no) = &self.gpus
            && !self.cfg.force_run
        {
            return Ok(VerifyOutcome::CompiledNotRun {
                reason: "no GPU".into(),
                detail: no.reason.clone(),
            });
        }
        if run.cancelled() {
            return Ok(VerifyOutcome::Cancelled);
        }
        let refs = self.reference(region, src.reference, plan, run.budget_s, job)?;
        plan.dropped = refs.dropped.clone();
        let plan_txt = harness::plan_text(plan, run.budget_s);
        let alone = run.protocol == Protocol::Full;
        let mut retakes = 0;
        loop {
            let name = format!("run{retakes}");
            let (got, r) = self.run_candidate(&exe, job, &name, &plan_txt, plan, alone, run)?;
            if let Some(o) = candidate_exit(&r) {
                return Ok(o);
            }
            if let Some(e) = got.as_ref().and_then(|g| g.write_error.clone()) {
                return Ok(VerifyOutcome::VerifierError { detail: e });
            }
            let got = match got {
                Some(g) if g.ended && g.malformed.is_none() => g,
                Some(g) => {
                    return Ok(VerifyOutcome::Crash {
                        reason: g
                            .malformed
                            .unwrap_or_else(|| "the harness ended without its end record".into()),
                        stderr: tail(&r.stderr, 2000),
                    });
                }
                None => {
                    return Ok(VerifyOutcome::Crash {
                        reason: "the harness's channel stayed open after it ended".into(),
                        stderr: tail(&r.stderr, 2000),
                    });
                }
            };
            let outputs = job.join(&name).join("outputs");
            if let Some(o) = self.compare(region, plan, &outputs, &got, &refs, job)? {
                return Ok(o);
            }
            let outcome = self.judge_timing(region, plan, &got, &refs)?;
            let rejected = matches!(outcome, VerifyOutcome::Rejected { .. });
            let noisy = matches!(&outcome, VerifyOutcome::Correct(t) if t.noisy);
            if !alone && rejected && retakes == 0 {
                // A rejection says the timing was dishonest: only said of a run that had the
                // machine alone. Beside other runs the host waits while other contexts hold the
                // GPU, which the stream's events do not see, and a correct small kernel looks
                // like one that hides work.
                retakes += 1;
                continue;
            }
            if alone && noisy && retakes == 0 {
                // Something else used the GPU or the host meanwhile: take the timing again once,
                // then report what it is.
                retakes += 1;
                continue;
            }
            return Ok(outcome);
        }
    }

    /// Compiles the harness (cached per region) and the candidate as separate objects, checks the
    /// candidate's object, redirects its copies to the guards and links the two. `Ok(Err(_))` is
    /// the candidate's failure.
    fn build_candidate(
        &self,
        region: &OffloadRegion,
        src: &Sources,
        build: &Path,
    ) -> Result<Result<PathBuf, VerifyOutcome>, VerifyError> {
        std::fs::write(build.join(harness::CANDIDATE_FILE), src.candidate)?;
        std::fs::write(build.join("harness.cu"), src.harness)?;
        let _compiling = self.compile_turn();
        let common = |out: &str, input: &str, compile_only: bool| {
            let mut a = vec![
                "-O3".to_string(),
                "-std=c++17".into(),
                format!("-arch={}", self.arch),
            ];
            if compile_only {
                a.push("-c".into());
            }
            a.extend(["-o".to_string(), out.to_string(), input.to_string()]);
            a
        };
        // The harness object: the same for every candidate of a region and toolchain.
        let harness_key = cache::hash(&[
            VERIFIER_VERSION.as_bytes(),
            src.harness.as_bytes(),
            self.nvcc.version.as_bytes(),
            self.nvcc.path.as_os_str().as_encoded_bytes(),
            self.arch.as_bytes(),
        ]);
        let harness_obj = build.join("harness.o");
        match self.cache.as_ref().and_then(|c| c.object(&harness_key)) {
            Some(cached) => {
                std::fs::copy(cached, &harness_obj)?;
            }
            None => {
                let r = sandbox::run(
                    &self.nvcc.path,
                    &common("harness.o", "harness.cu", true),
                    build,
                    &[],
                    &self.compile_limits(),
                )?;
                if r.exit != sandbox::Exit::Code(0) {
                    return Err(VerifyError::Harness(tail(&r.stderr, 2000)));
                }
                if let Some(c) = &self.cache {
                    c.store_object(&harness_key, &harness_obj);
                }
            }
        }
        let failed = |r: &sandbox::RunResult, stage: &str| match r.exit {
            sandbox::Exit::TimedOut => VerifyOutcome::Timeout {
                seconds: r.wall.as_secs_f64(),
                stage: stage.into(),
            },
            _ => VerifyOutcome::CompileError {
                diagnostics: diagnostics::parse(
                    &format!("{}\n{}", r.stdout, r.stderr),
                    &region.gpu_entry_name(),
                    &region.signature_named(&region.gpu_entry_name()),
                ),
            },
        };
        let r = sandbox::run(
            &self.nvcc.path,
            &common("candidate.o", harness::CANDIDATE_FILE, true),
            build,
            &[],
            &self.compile_limits(),
        )?;
        if r.exit != sandbox::Exit::Code(0) {
            return Ok(Err(failed(&r, "compile")));
        }
        if let Some(refusal) = object_check::check(&build.join("candidate.o"))? {
            return Ok(Err(VerifyOutcome::Rejected {
                guard: refusal.guard.into(),
                reason: refusal.reason,
            }));
        }
        object_check::redirect_copies(&build.join("candidate.o"), &build.join("guarded.o"))?;
        // The harness's object first: where both hold a copy of the same inline function, the
        // linker keeps the harness's.
        let mut args = vec![
            format!("-arch={}", self.arch),
            "-o".into(),
            "candidate".into(),
            "harness.o".into(),
            "guarded.o".into(),
            // The dl guards (glibc before 2.34 keeps them out of libc).
            "-ldl".into(),
        ];
        let lib = self.nvcc.cuda_home.join("lib");
        if lib.is_dir() {
            args.push(format!("-L{}", lib.display()));
        }
        let r = sandbox::run(&self.nvcc.path, &args, build, &[], &self.compile_limits())?;
        if r.exit != sandbox::Exit::Code(0) {
            return Ok(Err(failed(&r, "link")));
        }
        Ok(Ok(build.join("candidate")))
    }

    /// Runs the built candidate in `job/<name>` (sandboxed, as the unprivileged uid), alone on the
    /// machine or as a screening run that may share a GPU. Its outputs and timings arrive over
    /// the channel into `job/<name>/outputs`, a directory the candidate's uid cannot enter.
    #[allow(clippy::too_many_arguments)]
    fn run_candidate(
        &self,
        exe: &Path,
        job: &Path,
        name: &str,
        plan_txt: &str,
        plan: &plan::Plan,
        alone: bool,
        run: &RunSettings,
    ) -> Result<(Option<channel::Received>, sandbox::RunResult), VerifyError> {
        use std::os::unix::fs::PermissionsExt;
        let dir = job.join(name);
        let cwd = dir.join("cwd");
        let outputs = dir.join("outputs");
        std::fs::create_dir_all(&cwd)?;
        std::fs::create_dir_all(&outputs)?;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o711))?;
        std::fs::set_permissions(&outputs, std::fs::Permissions::from_mode(0o700))?;
        let bin = cwd.join("candidate");
        std::fs::copy(exe, &bin)?;
        std::fs::write(cwd.join("plan.txt"), plan_txt)?;
        // A uid of its own: candidates verified side by side cannot reach each other.
        let uid = sandbox::fresh_uid();
        sandbox::hand_over_to(&cwd, uid)?;
        let detected = self.gpus.is_ok();
        let (gpu_index, _use) = if alone {
            self.machine.timed_run()
        } else {
            self.machine.screening_run(run.hint)
        };
        let env = vec![("CUDA_VISIBLE_DEVICES".to_string(), gpu_index.to_string())];
        let mut args = vec![".".to_string()];
        if !self.cfg.syscall_filter {
            args.push("--no-syscall-filter".into());
        }
        let mut limits = self.run_limits();
        limits.uid = uid;
        limits.cancel = run.cancel.clone();
        if let Some(t) = run.timeout {
            limits.wall = t;
            limits.cpu_seconds = Some(cpu_limit(t));
        }
        let slots = plan.drawn_samples();
        let go = |limits: &sandbox::Limits| {
            let out = outputs.clone();
            sandbox::run_with_channel(&bin, &args, &cwd, &env, limits, move |f| {
                // The verifier's own entropy, not the plan's seed: a repeated run draws anew.
                let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::from_os_rng();
                channel::consume(f, out, slots, &mut rng)
            })
        };
        let (mut r, mut got) = go(&limits)?;
        // Some drivers only open their device nodes to root: then run without the uid drop
        // rather than report a GPU that is there as missing.
        if detected
            && r.exit == sandbox::Exit::Code(20)
            && limits.drop_privileges
            && sandbox::is_root()
        {
            tracing::warn!("GPU not usable as an unprivileged uid; running the candidate as root");
            limits.drop_privileges = false;
            (r, got) = go(&limits)?;
        }
        Ok((got, r))
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
            uid: sandbox::NOBODY,
            cancel: None,
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
            uid: sandbox::NOBODY,
            cancel: None,
        }
    }

    /// Compiles and runs the reference (as written and promoted), or takes it from the cache.
    /// Cases the serial code fails on (a crash at size 1) are dropped, each with its reason.
    fn reference(
        &self,
        region: &OffloadRegion,
        ref_prog: &str,
        plan: &plan::Plan,
        budget_s: f64,
        job: &Path,
    ) -> Result<ReferenceDirs, VerifyError> {
        let plan_txt = harness::plan_text(plan, budget_s);
        let key = cache::hash(&[
            VERIFIER_VERSION.as_bytes(),
            verifier_code_hash().as_bytes(),
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
            let dropped = read_dropped(&native);
            return Ok(ReferenceDirs {
                native,
                hp: c.reference(&format!("{key}-hp")),
                dropped,
            });
        }
        let dir = job.join("reference");
        std::fs::create_dir_all(&dir)?;
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o711))?;
        }
        std::fs::write(dir.join("reference.cpp"), ref_prog)?;
        let native_exe = self.build_reference(&dir, false)?;
        let mut plan = plan.clone();
        let native =
            self.run_reference_outputs(region, &native_exe, &dir, "native", &mut plan, budget_s)?;
        let plan_txt = harness::plan_text(&plan, budget_s);
        {
            let _alone = self.machine.timed_run().1;
            self.run_reference(&native, &["serial"])?;
        }
        let needs_hp = plan::outputs(region).any(|p| plan::is_float_type(&p.elem_type));
        let hp = if needs_hp {
            let built = self.build_reference(&dir, true).and_then(|exe| {
                let out = self.reference_dir(&dir, "hp", &exe, &plan_txt)?;
                let _use = self.machine.shared();
                self.run_reference(&out, &["outputs"])?;
                Ok(out)
            });
            match built {
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
        let dropped_text: String = plan
            .dropped
            .iter()
            .map(|(i, why)| format!("{i}\t{why}\n"))
            .collect();
        std::fs::write(native.join("dropped.txt"), dropped_text)?;
        let dropped = plan.dropped.clone();
        let Some(c) = &self.cache else {
            return Ok(ReferenceDirs {
                native,
                hp,
                dropped,
            });
        };
        let native = c
            .store_reference(&format!("{key}-native"), &native)
            .unwrap_or(native);
        let hp = hp.map(|h| c.store_reference(&format!("{key}-hp"), &h).unwrap_or(h));
        Ok(ReferenceDirs {
            native,
            hp,
            dropped,
        })
    }

    /// Runs the reference's outputs, dropping each case the serial code itself fails on (at most
    /// all but three): the first case without outputs is the one it died in.
    fn run_reference_outputs(
        &self,
        region: &OffloadRegion,
        exe: &Path,
        dir: &Path,
        name: &str,
        plan: &mut plan::Plan,
        budget_s: f64,
    ) -> Result<PathBuf, VerifyError> {
        loop {
            let out = self.reference_dir(dir, name, exe, &harness::plan_text(plan, budget_s))?;
            let err = {
                let _use = self.machine.shared();
                match self.run_reference(&out, &["outputs"]) {
                    Ok(()) => return Ok(out),
                    Err(e) => e,
                }
            };
            let live: Vec<usize> = plan.live_cases().collect();
            let first_missing = live.iter().copied().find(|i| {
                !plan::outputs(region).all(|p| out.join(format!("c{i}_{}.bin", p.name)).is_file())
            });
            match first_missing {
                Some(i) if live.len() > 3 => {
                    let why = match &err {
                        VerifyError::Reference { stage, detail } => {
                            let first = detail.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                            format!("the serial code fails there ({stage}) {first}")
                        }
                        other => other.to_string(),
                    };
                    tracing::info!("dropping case c{i}: {why}");
                    plan.dropped.push((i, why));
                    let _ = std::fs::remove_dir_all(&out);
                }
                _ => return Err(err),
            }
        }
    }

    fn build_reference(&self, dir: &Path, hp: bool) -> Result<PathBuf, VerifyError> {
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
        Ok(exe)
    }

    /// A fresh directory `dir/name` with the reference and its plan, handed to the run's uid.
    fn reference_dir(
        &self,
        dir: &Path,
        name: &str,
        exe: &Path,
        plan_txt: &str,
    ) -> Result<PathBuf, VerifyError> {
        let out = dir.join(name);
        std::fs::create_dir_all(&out)?;
        std::fs::copy(exe, out.join("reference"))?;
        std::fs::write(out.join("plan.txt"), plan_txt)?;
        sandbox::hand_over(&out)?;
        Ok(out)
    }

    fn run_reference(&self, out: &Path, mode: &[&str]) -> Result<(), VerifyError> {
        let mut args = vec![".".to_string()];
        args.extend(mode.iter().map(|m| m.to_string()));
        let r = sandbox::run(
            &out.join("reference"),
            &args,
            out,
            &[],
            &self.reference_limits(),
        )?;
        if r.exit != sandbox::Exit::Code(0) {
            return Err(VerifyError::Reference {
                stage: format!("run ({}): {:?}", mode.join(" "), r.exit),
                detail: tail(&r.stderr, 2000),
            });
        }
        Ok(())
    }

    /// The reference's outputs of the timed samples `wanted` (drawn while the candidate ran),
    /// computed now in `job/reference-samples`: the samples split over a few reference processes
    /// run side by side, each writing its share into the same directory.
    fn reference_samples(
        &self,
        refs: &ReferenceDirs,
        wanted: &[usize],
        job: &Path,
    ) -> Result<(PathBuf, Option<PathBuf>), VerifyError> {
        let dir = job.join("reference-samples");
        std::fs::create_dir_all(&dir)?;
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o711))?;
        }
        let plan_txt = std::fs::read_to_string(refs.native.join("plan.txt"))?;
        let mut builds =
            vec![self.reference_dir(&dir, "native", &refs.native.join("reference"), &plan_txt)?];
        if let Some(h) = &refs.hp {
            builds.push(self.reference_dir(&dir, "hp", &h.join("reference"), &plan_txt)?);
        }
        let processes = sample_processes().clamp(1, wanted.len().max(1));
        let shares: Vec<Vec<String>> = (0..processes)
            .map(|p| {
                wanted
                    .iter()
                    .skip(p)
                    .step_by(processes)
                    .map(|i| i.to_string())
                    .collect()
            })
            .filter(|s: &Vec<String>| !s.is_empty())
            .collect();
        let _use = self.machine.shared();
        std::thread::scope(|scope| {
            let runs: Vec<_> = builds
                .iter()
                .flat_map(|out| shares.iter().map(move |share| (out, share)))
                .map(|(out, share)| {
                    scope.spawn(move || {
                        let mut mode = vec!["sample"];
                        mode.extend(share.iter().map(String::as_str));
                        self.run_reference(out, &mode)
                    })
                })
                .collect();
            runs.into_iter()
                .try_for_each(|r| r.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
        })?;
        let mut builds = builds.into_iter();
        let native = builds.next().expect("the native reference");
        Ok((native, builds.next()))
    }

    fn compare(
        &self,
        region: &OffloadRegion,
        plan: &plan::Plan,
        got_dir: &Path,
        got: &channel::Received,
        refs: &ReferenceDirs,
        job: &Path,
    ) -> Result<Option<VerifyOutcome>, VerifyError> {
        struct Check<'p> {
            tag: String,
            case: &'p plan::Case,
            seed: u64,
            what: String,
            native: PathBuf,
            hp: Option<PathBuf>,
        }
        let check = |checks: Vec<Check>| -> Result<Option<VerifyOutcome>, VerifyError> {
            for ch in checks {
                let terms = terms_per_output(region, ch.case);
                for p in plan::outputs(region) {
                    let file = format!("{}_{}.bin", ch.tag, p.name);
                    let got_path = got_dir.join(&file);
                    if !got_path.is_file() {
                        return Ok(Some(VerifyOutcome::Crash {
                            reason: format!(
                                "the harness sent no output `{}` for {}",
                                p.name, ch.what
                            ),
                            stderr: String::new(),
                        }));
                    }
                    let mismatch = if plan::is_float_type(&p.elem_type) {
                        let native = read(&ch.native.join(&file))?;
                        let hp = match &ch.hp {
                            Some(h) => read(&h.join(&file))?,
                            None => native.clone(),
                        };
                        if hp.len() != native.len() {
                            // Two references disagreeing in length is the verifier's failure.
                            return Err(VerifyError::Reference {
                                stage: format!("outputs of {}", ch.what),
                                detail: format!(
                                    "`{file}`: {} elements as written, {} in high precision",
                                    native.len(),
                                    hp.len()
                                ),
                            });
                        }
                        let got = read(&got_path)?;
                        let tol = compare::Tolerance::for_output(&p.elem_type, terms, &hp);
                        compare::compare_floats(&native, &hp, &got, tol)
                    } else {
                        let expected =
                            compare::read_i64(&ch.native.join(&file)).map_err(ref_err)?;
                        let got = compare::read_i64(&got_path).map_err(ref_err)?;
                        compare::compare_ints(&expected, &got)
                    };
                    if let Some(m) = mismatch {
                        let held_out = ch.case.role == plan::Role::HeldOut;
                        return Ok(Some(VerifyOutcome::Wrong {
                            param: p.name.clone(),
                            index: m.index,
                            expected: m.expected,
                            got: m.got,
                            size: if held_out {
                                "held-out shape".into()
                            } else {
                                ch.case.describe_size()
                            },
                            seed: ch.seed,
                            check: ch.what,
                        }));
                    }
                }
            }
            Ok(None)
        };
        let cases: Vec<Check> = plan
            .live_cases()
            .map(|i| {
                let c = &plan.cases[i];
                Check {
                    tag: format!("c{i}"),
                    case: c,
                    seed: c.seed,
                    what: match c.role {
                        plan::Role::Standard => "case".into(),
                        plan::Role::Edge => "edge case".into(),
                        plan::Role::Special => "special values".into(),
                        plan::Role::HeldOut => "held-out shape".into(),
                    },
                    native: refs.native.clone(),
                    hp: refs.hp.clone(),
                }
            })
            .collect();
        let ran = got.samples.len();
        let mut samples: Vec<usize> = got.drawn.iter().copied().filter(|i| *i < ran).collect();
        if let Some(last) = got.last_sample
            && !samples.contains(&last)
        {
            samples.push(last);
        }
        if let Some(o) = check(cases)? {
            return Ok(Some(o));
        }
        // The reference's outputs of the drawn samples, a few at a time (each group's files
        // removed once compared): disk stays within SAMPLE_DISK_BUDGET, whatever the sizes.
        let refs_per_sample = 1 + refs.hp.is_some() as usize;
        let group = ((plan::SAMPLE_DISK_BUDGET
            / (plan.sample_output_bytes.max(1.0) * refs_per_sample as f64))
            as usize)
            .clamp(1, sample_processes());
        for (g, chunk) in samples.chunks(group).enumerate() {
            let (native, hp) = self.reference_samples(refs, chunk, &job.join(format!("g{g}")))?;
            let checks = chunk
                .iter()
                .map(|&i| Check {
                    tag: format!("t{i}"),
                    case: &plan.timed,
                    seed: plan.timed.seed + i as u64,
                    what: format!("timed sample {i}"),
                    native: native.clone(),
                    hp: hp.clone(),
                })
                .collect();
            let found = check(checks)?;
            let _ = std::fs::remove_dir_all(job.join(format!("g{g}")));
            if found.is_some() {
                return Ok(found);
            }
        }
        Ok(None)
    }

    fn judge_timing(
        &self,
        region: &OffloadRegion,
        plan: &plan::Plan,
        got: &channel::Received,
        refs: &ReferenceDirs,
    ) -> Result<VerifyOutcome, VerifyError> {
        let mut kernel: Vec<f64> = got.samples.iter().map(|s| s.1).collect();
        let mut e2e: Vec<f64> = got.samples.iter().map(|s| s.2).collect();
        let mut wall: Vec<f64> = got.samples.iter().map(|s| s.3).collect();
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
        if serial.is_empty() {
            return Err(VerifyError::Reference {
                stage: "serial timing".into(),
                detail: "no serial times were recorded".into(),
            });
        }
        let serial_ms = percentile(&mut serial, 0.5);
        let known = self.ceilings();
        let ceilings = known.unwrap_or_default();
        let floor_s = plan::work_at(region, &plan.timed)
            .map(|(bytes, flops)| (bytes / ceilings.bytes_per_s).max(flops / ceilings.flops_per_s));
        let k = Stats::of(&mut kernel);
        let e = Stats::of(&mut e2e);
        let w = percentile(&mut wall, 0.5);
        let roofline_fraction = floor_s.map(|f| f * 1e3 / k.median.max(1e-9));
        // Against another card's ceilings a fraction above 1 proves nothing.
        let guarded = roofline_fraction.filter(|_| known.is_some());
        if let Some((guard, reason)) = judge(k.median, w, guarded) {
            return Ok(VerifyOutcome::Rejected {
                guard: guard.into(),
                reason,
            });
        }
        // Noisy: a high standard error, or samples in two clusters (work that changes between
        // calls, or another process on the GPU).
        let noisy = k.rse > NOISE_BOUND || k.p90 > 1.5 * k.p10.max(1e-9);
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
            noisy,
            size: plan.timed.describe_size(),
        }))
    }
}

/// The sources of one job.
struct Sources<'a> {
    candidate: &'a str,
    harness: &'a str,
    reference: &'a str,
}

/// How one job runs the candidate.
struct RunSettings {
    timeout: Option<Duration>,
    hint: usize,
    protocol: Protocol,
    budget_s: f64,
    cancel: Option<Arc<std::sync::atomic::AtomicBool>>,
}

impl RunSettings {
    fn cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
    }
}

/// Reference processes recomputing timed samples side by side: half the cores.
fn sample_processes() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get().div_ceil(2))
        .unwrap_or(1)
}

fn read_dropped(native: &Path) -> Vec<(usize, String)> {
    std::fs::read_to_string(native.join("dropped.txt"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (i, why) = l.split_once('\t')?;
            Some((i.parse().ok()?, why.to_string()))
        })
        .collect()
}

/// What a plan checks, one line each (`n=37 seed=… dist=0 (edge case)`).
fn describe_checks(plan: &plan::Plan) -> Vec<String> {
    let mut out: Vec<String> = plan
        .cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let dropped = plan
                .dropped
                .iter()
                .find(|(d, _)| *d == i)
                .map(|(_, why)| format!(" — dropped: {why}"))
                .unwrap_or_default();
            format!(
                "{} seed={} dist={} ({:?}){dropped}",
                c.describe_size(),
                c.seed,
                c.dist,
                c.role
            )
        })
        .collect();
    out.push(format!(
        "{} seed={}+i: {} timed samples drawn at random while they ran (all, if fewer ran) and the last one re-checked (the candidate is not told which)",
        plan.timed.describe_size(),
        plan.timed.seed,
        plan.drawn_samples()
    ));
    out
}

/// Rejects timings that cannot be honest: faster than the roofline allows, or a GPU timer that
/// disagrees with the host's wall clock around the same call. `(guard, reason)`.
pub fn judge(
    kernel_ms: f64,
    host_wall_ms: f64,
    roofline_fraction: Option<f64>,
) -> Option<(&'static str, String)> {
    if let Some(r) = roofline_fraction
        && r > 1.05
    {
        return Some((
            "timing:roofline",
            format!(
                "impossible speed: {:.0}% of the roofline floor (above 105%): a bug or a hack",
                r * 100.0
            ),
        ));
    }
    if kernel_ms <= 0.0 || kernel_ms < 0.5 * host_wall_ms - 0.05 {
        return Some((
            "timing:timer",
            format!(
                "the GPU timer says {kernel_ms:.4} ms but the host saw {host_wall_ms:.4} ms around the same call"
            ),
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
        sandbox::Exit::Signal(libc::SIGSYS) => Some(VerifyOutcome::Rejected {
            guard: "run:syscall-filter".into(),
            reason: "made a system call the sandbox forbids (a program, a process or a network connection)".into(),
        }),
        sandbox::Exit::Code(harness::EXIT_NO_FILTER) => Some(VerifyOutcome::VerifierError {
            detail: format!(
                "the system-call filter cannot be installed here ({}); the candidate was not run. Set CUDA_OFFLOAD_NO_SYSCALL_FILTER=1 to run candidates without it",
                first("LOCKDOWN").unwrap_or_default()
            ),
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
        sandbox::Exit::Cancelled => Some(VerifyOutcome::Cancelled),
        sandbox::Exit::Code(harness::EXIT_HOST_COPY) => Some(VerifyOutcome::Rejected {
            guard: "run:host-copy".into(),
            reason: format!(
                "copied device data to the host while it ran ({}): a kernel's host code must not compute the result on the host",
                first("HOST_COPY")
                    .map(|l| l.trim_start_matches("HOST_COPY ").to_string())
                    .unwrap_or_default()
            ),
        }),
        sandbox::Exit::Code(11) => Some(VerifyOutcome::Rejected {
            guard: "run:input-modified".into(),
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
        assert_eq!(judge(1.0, 1.0, Some(1.3)).unwrap().0, "timing:roofline");
        assert_eq!(judge(0.001, 5.0, Some(0.5)).unwrap().0, "timing:timer");
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
            role: plan::Role::Standard,
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
