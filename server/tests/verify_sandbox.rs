//! The sandbox contains hostile programs: each is a small C++ program built with g++ and run
//! through `verify::sandbox::run` the way candidate harnesses are.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use cuda_offload::testing::{Needs, skip};
use cuda_offload::verify::sandbox::{self, Exit, Limits, NetIsolation};

/// The program built with g++, or None where there is no g++ (a program that does not compile fails).
fn build(dir: &Path, name: &str, src: &str) -> Option<PathBuf> {
    let cpp = dir.join(format!("{name}.cpp"));
    std::fs::write(&cpp, src).unwrap();
    let exe = dir.join(name);
    let status = Command::new("g++")
        .args(["-O1", "-o"])
        .arg(&exe)
        .arg(&cpp)
        .status()
        .ok()?;
    assert!(
        status.success(),
        "g++ does not compile {name}.cpp: {status}"
    );
    Some(exe)
}

fn job(name: &str, src: &str) -> Option<(tempfile::TempDir, PathBuf)> {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = build(dir.path(), name, src) else {
        skip(Needs::Toolchain, "g++ not available");
        return None;
    };
    sandbox::hand_over(dir.path()).unwrap();
    Some((dir, exe))
}

fn limits(wall_ms: u64) -> Limits {
    Limits {
        wall: Duration::from_millis(wall_ms),
        ..Limits::default()
    }
}

#[test]
fn infinite_loop_times_out() {
    let Some((dir, exe)) = job("spin", "int main() { volatile int x = 1; while (x) {} }") else {
        return;
    };
    let r = sandbox::run(&exe, &[], dir.path(), &[], &limits(500)).unwrap();
    assert_eq!(r.exit, Exit::TimedOut);
    assert!(r.wall < Duration::from_secs(5), "{:?}", r.wall);
}

#[test]
fn fork_bomb_is_contained_and_its_group_killed() {
    // Forks until it cannot, every child sleeping: the process limit (after the uid drop) stops
    // the growth and the group kill on timeout takes all of them.
    let src = r#"
        #include <unistd.h>
        #include <cstdio>
        int main() {
            int made = 0;
            for (int i = 0; i < 100000; ++i) { pid_t p = fork(); if (p == 0) { pause(); _exit(0); } if (p > 0) ++made; }
            std::printf("forked %d\n", made); std::fflush(stdout);
            pause();
        }"#;
    let Some((dir, exe)) = job("bomb", src) else {
        return;
    };
    let mut l = limits(1500);
    l.processes = Some(32);
    let r = sandbox::run(&exe, &[], dir.path(), &[], &l).unwrap();
    assert_eq!(r.exit, Exit::TimedOut);
    if sandbox::is_root() {
        let forked: usize = r
            .stdout
            .trim()
            .strip_prefix("forked ")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        assert!(forked < 32, "process limit did not hold: {}", r.stdout);
    }
    // Nothing of the group is left running: the harness's binary name no longer appears.
    std::thread::sleep(Duration::from_millis(200));
    let ps = Command::new("pgrep")
        .args(["-f", &exe.display().to_string()])
        .output();
    if let Ok(ps) = ps {
        assert!(
            ps.stdout.is_empty(),
            "survivors: {}",
            String::from_utf8_lossy(&ps.stdout)
        );
    }
}

#[test]
fn huge_output_is_capped() {
    let src = r#"
        #include <cstdio>
        int main() { for (long i = 0; i < 20000000; ++i) std::printf("line %ld of a flood\n", i); }"#;
    let Some((dir, exe)) = job("flood", src) else {
        return;
    };
    let mut l = limits(20_000);
    l.output_cap = 4096;
    let r = sandbox::run(&exe, &[], dir.path(), &[], &l).unwrap();
    assert!(r.truncated);
    assert!(r.stdout.len() <= 4096);
}

#[test]
fn segfault_is_a_signal_not_a_crash_of_ours() {
    let Some((dir, exe)) = job("segv", "int main() { volatile int* p = nullptr; *p = 1; }") else {
        return;
    };
    let r = sandbox::run(&exe, &[], dir.path(), &[], &limits(5000)).unwrap();
    assert_eq!(r.exit, Exit::Signal(11));
}

#[test]
fn writing_outside_the_job_dir_fails_when_the_uid_is_dropped() {
    if !sandbox::is_root() {
        skip(Needs::Privilege, "not root, so no uid drop to test");
        return;
    }
    let target = std::env::temp_dir().join(format!("co-sandbox-outside-{}", std::process::id()));
    let root_owned = tempfile::tempdir().unwrap();
    let victim = root_owned.path().join("victim");
    let src = format!(
        r#"
        #include <cstdio>
        int main() {{
            FILE* a = std::fopen("{}", "w");
            FILE* b = std::fopen("inside.txt", "w");
            std::printf("outside=%d inside=%d\n", a != nullptr, b != nullptr);
        }}"#,
        victim.display()
    );
    let Some((dir, exe)) = job("escape", &src) else {
        return;
    };
    let r = sandbox::run(&exe, &[], dir.path(), &[], &limits(5000)).unwrap();
    assert_eq!(r.stdout.trim(), "outside=0 inside=1", "{r:?}");
    assert!(!victim.exists());
    let _ = std::fs::remove_file(target);
}

#[test]
fn no_network_inside() {
    let src = r#"
        #include <arpa/inet.h>
        #include <cstdio>
        #include <netinet/in.h>
        #include <sys/socket.h>
        #include <unistd.h>
        int main() {
            int s = socket(AF_INET, SOCK_DGRAM, 0);
            sockaddr_in a{}; a.sin_family = AF_INET; a.sin_port = htons(53);
            inet_pton(AF_INET, "1.1.1.1", &a.sin_addr);
            int r = s < 0 ? -1 : connect(s, (sockaddr*)&a, sizeof a);
            std::printf("connect=%d\n", r);
        }"#;
    let Some((dir, exe)) = job("net", src) else {
        return;
    };
    let r = sandbox::run(&exe, &[], dir.path(), &[], &limits(5000)).unwrap();
    match sandbox::net_isolation() {
        NetIsolation::None => skip(Needs::Privilege, "no network namespace on this machine"),
        _ => assert_eq!(r.stdout.trim(), "connect=-1", "{r:?}"),
    }
}

#[test]
fn environment_is_scrubbed() {
    let src = r#"
        #include <cstdio>
        extern char** environ;
        int main() { for (char** e = environ; *e; ++e) std::printf("%s\n", *e); }"#;
    let Some((dir, exe)) = job("env", src) else {
        return;
    };
    // SAFETY: tests in this file do not read this variable concurrently.
    unsafe { std::env::set_var("CO_SECRET_TOKEN", "hunter2") };
    let r = sandbox::run(
        &exe,
        &[],
        dir.path(),
        &[("CUDA_VISIBLE_DEVICES".into(), "0".into())],
        &limits(5000),
    )
    .unwrap();
    assert!(!r.stdout.contains("hunter2"));
    assert!(r.stdout.contains("CUDA_VISIBLE_DEVICES=0"));
    assert!(r.stdout.contains("HOME="));
}

/// A program that installs the harness's system-call filter (harness/lockdown.h, as the harness
/// does before it first calls the candidate) and then does what argv[1] names.
const FILTERED: &str = r#"
    #include <cstdio>
    #include <cstring>
    #include <thread>
    #include <unistd.h>
    #include <sys/socket.h>
    #include <sys/stat.h>
    int main(int argc, char** argv) {
        int r = co_lock_down();
        if (r) { std::printf("lockdown failed %d\n", r); return 2; }
        int w = open("written.txt", O_WRONLY | O_CREAT, 0644);
        int t = open("plain.txt", O_RDWR);
        int d = mkdir("made", 0755);
        int u = unlink("plain.txt");
        int rd = open("plain.txt", O_RDONLY);
        int v = 0;
        std::thread th([&] { v = 42; });
        th.join();
        std::printf("write %d %d mkdir %d unlink %d read %d thread %d\n", w, t, d, u, rd >= 0, v);
        std::fflush(stdout);
        const char* m = argc > 1 ? argv[1] : "";
        if (!std::strcmp(m, "fork")) fork();
        if (!std::strcmp(m, "exec")) execl("/bin/true", "true", (char*)0);
        if (!std::strcmp(m, "socket")) socket(AF_UNIX, SOCK_STREAM, 0);
        std::printf("survived\n");
    }"#;

#[test]
fn the_harness_syscall_filter_keeps_threads_and_reads_and_stops_the_rest() {
    let src = format!("{}\n{FILTERED}", cuda_offload::verify::harness::LOCKDOWN);
    let Some((dir, exe)) = job("filtered", &src) else {
        return;
    };
    std::fs::write(dir.path().join("plain.txt"), "kept").unwrap();
    sandbox::hand_over(dir.path()).unwrap();
    let run = |what: &str| {
        sandbox::run(&exe, &[what.to_string()], dir.path(), &[], &limits(10_000)).unwrap()
    };
    let r = run("nothing");
    assert_eq!(r.exit, Exit::Code(0), "{} {}", r.stdout, r.stderr);
    // Every write-like call fails with EPERM; reading and a thread still work.
    assert!(
        r.stdout
            .contains("write -1 -1 mkdir -1 unlink -1 read 1 thread 42"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("survived"));
    assert!(!dir.path().join("written.txt").exists());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("plain.txt")).unwrap(),
        "kept"
    );
    // A process, a program or a socket: killed by the filter, before it could be used.
    for what in ["fork", "exec", "socket"] {
        let r = run(what);
        assert_eq!(r.exit, Exit::Signal(libc::SIGSYS), "{what}: {}", r.stdout);
        assert!(!r.stdout.contains("survived"), "{what}");
    }
}

#[test]
fn each_run_as_root_gets_a_uid_of_its_own() {
    let src = r#"
        #include <cstdio>
        #include <unistd.h>
        int main(int argc, char** argv) {
            FILE* f = std::fopen(argv[1], "w");
            std::printf("uid %u wrote %d\n", (unsigned)getuid(), f != nullptr);
        }"#;
    let Some((dir, exe)) = job("whoami", src) else {
        return;
    };
    let (a, b) = (sandbox::fresh_uid(), sandbox::fresh_uid());
    assert_ne!(a, b);
    if !sandbox::is_root() {
        skip(Needs::Privilege, "per-run uids are only given as root");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let mine = dir.path().join("a");
    std::fs::create_dir(&mine).unwrap();
    sandbox::hand_over_to(&mine, a).unwrap();
    let run = |uid: u32| {
        let mut l = limits(10_000);
        l.uid = uid;
        let target = mine.join(format!("by{uid}")).display().to_string();
        sandbox::run(&exe, &[target], dir.path(), &[], &l).unwrap()
    };
    let r = run(a);
    assert_eq!(r.stdout.trim(), format!("uid {a} wrote 1"), "{}", r.stderr);
    // Another run, side by side, cannot write where the first one may.
    let r = run(b);
    assert_eq!(r.stdout.trim(), format!("uid {b} wrote 0"), "{}", r.stderr);
}
