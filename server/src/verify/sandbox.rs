//! Runs one untrusted program: own directory, own session and process group (killed whole on
//! timeout and after exit), rlimits, no network where the kernel lets us, scrubbed environment,
//! capped stdout/stderr, and (when we are root) an unprivileged uid.
//!
//! Memory: the GPU harness is not given `RLIMIT_AS` because CUDA reserves a huge virtual address
//! range at start; instead its resident set is watched and the group is killed above a cap. Host-only
//! programs (the reference) get `RLIMIT_AS`.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// The uid/gid the reference runs as when the server runs as root.
pub const NOBODY: u32 = 65534;

/// Candidates run as root get a uid/gid of their own from this range (no passwd entry needed):
/// two runs side by side cannot touch each other's files or processes.
const RUN_UIDS: std::ops::Range<u32> = 1_900_000_000..1_900_100_000;

/// A uid no other live run of this process has (the range wraps after 100,000 runs).
pub fn fresh_uid() -> u32 {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    // Processes of the same machine start at different offsets, so their runs differ too.
    let offset = std::process::id().wrapping_mul(7919);
    RUN_UIDS.start + n.wrapping_add(offset) % (RUN_UIDS.end - RUN_UIDS.start)
}

#[derive(Debug, Clone)]
pub struct Limits {
    pub wall: Duration,
    pub cpu_seconds: Option<u64>,
    /// `RLIMIT_AS` in bytes; `None` for CUDA programs (see the module docs).
    pub address_space: Option<u64>,
    /// Resident-set cap enforced by polling, in bytes.
    pub resident: Option<u64>,
    pub processes: Option<u64>,
    pub file_size: Option<u64>,
    /// Bytes kept from each of stdout and stderr.
    pub output_cap: usize,
    pub no_network: bool,
    pub drop_privileges: bool,
    /// The uid and gid after the drop (as root only).
    pub uid: u32,
    /// Set by the caller to stop the run: the whole process group is killed.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            wall: Duration::from_secs(60),
            cpu_seconds: Some(120),
            address_space: Some(16 << 30),
            resident: None,
            processes: Some(256),
            file_size: Some(4 << 30),
            output_cap: 64 * 1024,
            no_network: true,
            drop_privileges: true,
            uid: NOBODY,
            cancel: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exit {
    Code(i32),
    Signal(i32),
    TimedOut,
    /// Killed by the resident-memory watchdog.
    OutOfMemory,
    /// Killed because the caller cancelled the run.
    Cancelled,
}

#[derive(Debug, Clone)]
pub struct RunResult {
    pub exit: Exit,
    pub stdout: String,
    pub stderr: String,
    pub wall: Duration,
    pub truncated: bool,
}

/// How the network is taken away, detected once per process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetIsolation {
    /// `unshare(CLONE_NEWNET)` as root.
    NetNamespace,
    /// `unshare(CLONE_NEWUSER | CLONE_NEWNET)` without root.
    UserAndNetNamespace,
    /// Neither works here: the candidate could reach the network.
    None,
}

/// What the sandbox could apply on this machine (reported with every outcome).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SandboxInfo {
    pub network: NetIsolation,
    pub uid: u32,
    pub rlimits: Vec<String>,
    pub gpu_memory_limit: String,
}

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("cannot start {program}: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("cannot prepare the job directory {dir}: {source}")]
    Dir { dir: String, source: std::io::Error },
}

fn try_isolation(flags: libc::c_int) -> bool {
    let mut cmd = Command::new("/bin/true");
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if libc::unshare(flags) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

pub fn net_isolation() -> NetIsolation {
    static DETECTED: OnceLock<NetIsolation> = OnceLock::new();
    *DETECTED.get_or_init(|| {
        if try_isolation(libc::CLONE_NEWNET) {
            NetIsolation::NetNamespace
        } else if try_isolation(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) {
            NetIsolation::UserAndNetNamespace
        } else {
            tracing::warn!("no network namespace available: candidates run with network access");
            NetIsolation::None
        }
    })
}

pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Lets the unprivileged uid write in `dir` (and only there).
pub fn hand_over(dir: &Path) -> Result<(), SandboxError> {
    hand_over_to(dir, NOBODY)
}

/// Lets `uid` write in `dir` (and only there).
pub fn hand_over_to(dir: &Path, uid: u32) -> Result<(), SandboxError> {
    if !is_root() {
        return Ok(());
    }
    std::os::unix::fs::chown(dir, Some(uid), Some(uid)).map_err(|e| SandboxError::Dir {
        dir: dir.display().to_string(),
        source: e,
    })
}

pub fn info(limits: &Limits) -> SandboxInfo {
    let mut rl = Vec::new();
    if let Some(c) = limits.cpu_seconds {
        rl.push(format!("cpu={c}s"));
    }
    if let Some(a) = limits.address_space {
        rl.push(format!("as={}MiB", a >> 20));
    }
    if let Some(p) = limits.processes {
        rl.push(format!("nproc={p}"));
    }
    if let Some(f) = limits.file_size {
        rl.push(format!("fsize={}MiB", f >> 20));
    }
    SandboxInfo {
        network: if limits.no_network {
            net_isolation()
        } else {
            NetIsolation::None
        },
        uid: if limits.drop_privileges && is_root() {
            limits.uid
        } else {
            // SAFETY: no preconditions.
            unsafe { libc::geteuid() }
        },
        rlimits: rl,
        gpu_memory_limit: match limits.resident {
            Some(r) => format!(
                "no RLIMIT_AS (CUDA reserves address space); resident set watched, cap {} MiB",
                r >> 20
            ),
            None => "address space limited by RLIMIT_AS".into(),
        },
    }
}

fn set_limit(resource: libc::__rlimit_resource_t, value: u64) -> std::io::Result<()> {
    let lim = libc::rlimit {
        rlim_cur: value as libc::rlim_t,
        rlim_max: value as libc::rlim_t,
    };
    // SAFETY: plain syscall with a valid pointer.
    if unsafe { libc::setrlimit(resource, &lim) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

fn capped_reader<R: Read + Send + 'static>(
    mut r: R,
    cap: usize,
) -> std::thread::JoinHandle<(Vec<u8>, bool)> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut truncated = false;
        let mut buf = [0u8; 8192];
        // Keep draining past the cap so the child never blocks on a full pipe.
        while let Ok(n) = r.read(&mut buf) {
            if n == 0 {
                break;
            }
            let room = cap.saturating_sub(kept.len());
            if room < n {
                truncated = true;
            }
            kept.extend_from_slice(&buf[..n.min(room)]);
        }
        (kept, truncated)
    })
}

/// Spawns, retrying while the executable is "busy": a program just copied into place can still be
/// open for writing in a child that another thread forked meanwhile (until that child execs), and
/// executing it then fails with ETXTBSY. Seen with many verifications in parallel.
fn spawn_retrying_busy(cmd: &mut Command) -> std::io::Result<std::process::Child> {
    let mut wait = Duration::from_millis(20);
    for _ in 0..8 {
        match cmd.spawn() {
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) => {
                std::thread::sleep(wait);
                wait *= 2;
            }
            other => return other,
        }
    }
    cmd.spawn()
}

fn kill_group(pgid: i32) {
    // SAFETY: signalling our own child's process group.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

fn resident_bytes(pid: u32) -> Option<u64> {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Runs `program args` in `dir` under `limits`. `env` is the whole environment the program gets
/// besides PATH, HOME and TMPDIR.
pub fn run(
    program: &Path,
    args: &[String],
    dir: &Path,
    env: &[(String, String)],
    limits: &Limits,
) -> Result<RunResult, SandboxError> {
    run_inner(program, args, dir, env, limits, None::<fn(std::fs::File)>).map(|(r, _)| r)
}

/// `run`, with a pipe the program finds open as fd `channel::FD` (3) for writing; `consume`
/// reads the other end on its own thread while the program runs and returns what it made of it
/// (`None` if it did not finish in time after the program ended).
pub fn run_with_channel<R: Send + 'static>(
    program: &Path,
    args: &[String],
    dir: &Path,
    env: &[(String, String)],
    limits: &Limits,
    consume: impl FnOnce(std::fs::File) -> R + Send + 'static,
) -> Result<(RunResult, Option<R>), SandboxError> {
    run_inner(program, args, dir, env, limits, Some(consume))
}

fn channel_pipe() -> std::io::Result<(i32, i32)> {
    let mut fds = [0i32; 2];
    // SAFETY: a valid two-element array; O_CLOEXEC so that no other child inherits either end.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((fds[0], fds[1]))
}

fn run_inner<R: Send + 'static>(
    program: &Path,
    args: &[String],
    dir: &Path,
    env: &[(String, String)],
    limits: &Limits,
    consume: Option<impl FnOnce(std::fs::File) -> R + Send + 'static>,
) -> Result<(RunResult, Option<R>), SandboxError> {
    use std::os::fd::FromRawFd;
    let channel = match &consume {
        Some(_) => Some(channel_pipe().map_err(|e| SandboxError::Spawn {
            program: program.display().to_string(),
            source: e,
        })?),
        None => None,
    };
    let child_end = channel.map(|(_, w)| w);
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", dir)
        .env("TMPDIR", dir)
        .env("LANG", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let net = if limits.no_network {
        net_isolation()
    } else {
        NetIsolation::None
    };
    let drop = limits.drop_privileges && is_root();
    let l = limits.clone();
    // SAFETY: only async-signal-safe calls (setsid, unshare, setrlimit, set*id) between fork and
    // exec; nothing allocates.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            // dup2 clears close-on-exec on the copy: the program finds the channel as fd 3.
            if let Some(w) = child_end
                && libc::dup2(w, 3) < 0
            {
                return Err(std::io::Error::last_os_error());
            }
            let flags = match net {
                NetIsolation::NetNamespace => libc::CLONE_NEWNET,
                NetIsolation::UserAndNetNamespace if !drop => {
                    libc::CLONE_NEWUSER | libc::CLONE_NEWNET
                }
                _ => 0,
            };
            if flags != 0 && libc::unshare(flags) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if let Some(c) = l.cpu_seconds {
                set_limit(libc::RLIMIT_CPU, c)?;
            }
            if let Some(a) = l.address_space {
                set_limit(libc::RLIMIT_AS, a)?;
            }
            if let Some(f) = l.file_size {
                set_limit(libc::RLIMIT_FSIZE, f)?;
            }
            set_limit(libc::RLIMIT_CORE, 0)?;
            if drop {
                let gid = l.uid as libc::gid_t;
                if libc::setgroups(1, &gid) != 0
                    || libc::setgid(gid) != 0
                    || libc::setuid(l.uid as libc::uid_t) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
            }
            // RLIMIT_NPROC counts per user and root ignores it: it only means something after
            // the uid drop.
            if let Some(p) = l.processes
                && (drop || libc::geteuid() != 0)
            {
                set_limit(libc::RLIMIT_NPROC, p)?;
            }
            // If the server dies (its client vanished, a crash), the candidate dies with it instead
            // of running on as an orphan. Set last: a credential change clears it.
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let start = Instant::now();
    let spawned = spawn_retrying_busy(&mut cmd);
    let reader = channel.map(|(r, w)| {
        // SAFETY: both ends are ours; the write end belongs to the child from here on.
        unsafe {
            libc::close(w);
        }
        // SAFETY: `r` is an open descriptor nobody else owns.
        unsafe { std::fs::File::from_raw_fd(r) }
    });
    let mut child = spawned.map_err(|e| SandboxError::Spawn {
        program: program.display().to_string(),
        source: e,
    })?;
    let consumer = match (reader, consume) {
        (Some(file), Some(f)) => Some(std::thread::spawn(move || f(file))),
        _ => None,
    };
    let pgid = child.id() as i32;
    let out = capped_reader(child.stdout.take().expect("piped"), limits.output_cap);
    let err = capped_reader(child.stderr.take().expect("piped"), limits.output_cap);
    let pid = child.id();
    // The exit is timed where it happens (a thread blocked in wait), not when the polling below
    // next looks: a check-build timing is an end-to-end measurement and must not step by the poll.
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        (status, Instant::now())
    });
    let mut poll = Duration::from_millis(2);
    let mut stopped = None;
    loop {
        if waiter.is_finished() {
            break;
        }
        if limits
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
        {
            stopped = Some(Exit::Cancelled);
        } else if start.elapsed() > limits.wall {
            stopped = Some(Exit::TimedOut);
        } else if let Some(cap) = limits.resident
            && resident_bytes(pid).is_some_and(|r| r > cap)
        {
            stopped = Some(Exit::OutOfMemory);
        }
        if stopped.is_some() {
            kill_group(pgid);
            break;
        }
        std::thread::sleep(poll);
        poll = (poll * 2).min(Duration::from_millis(50));
    }
    let (status, ended) = waiter.join().unwrap_or_else(|_| {
        (
            Err(std::io::Error::other("waiter panicked")),
            Instant::now(),
        )
    });
    let exit = stopped.unwrap_or_else(|| match status {
        Ok(status) => {
            use std::os::unix::process::ExitStatusExt;
            match (status.code(), status.signal()) {
                (Some(c), _) => Exit::Code(c),
                (None, Some(s)) => Exit::Signal(s),
                _ => Exit::Code(-1),
            }
        }
        Err(_) => Exit::Code(-1),
    });
    // Whatever the program left behind in its group dies with it.
    kill_group(pgid);
    let wall = ended.duration_since(start);
    // A grandchild that escaped the group could hold the pipes open: do not wait forever.
    let join = |h: std::thread::JoinHandle<(Vec<u8>, bool)>| {
        let deadline = Instant::now() + Duration::from_secs(2);
        while !h.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        if h.is_finished() {
            h.join().unwrap_or_default()
        } else {
            (
                b"<output pipe held open by an escaped process>".to_vec(),
                true,
            )
        }
    };
    let (so, t1) = join(out);
    let (se, t2) = join(err);
    let consumed = consumer.and_then(|h| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !h.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        if h.is_finished() { h.join().ok() } else { None }
    });
    Ok((
        RunResult {
            exit,
            stdout: String::from_utf8_lossy(&so).into_owned(),
            stderr: String::from_utf8_lossy(&se).into_owned(),
            wall,
            truncated: t1 || t2,
        },
        consumed,
    ))
}
