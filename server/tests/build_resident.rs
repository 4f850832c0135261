//! Issue #20, data residency: several loops of one file offloaded together, with a residency
//! session inserted around the enclosing loop where the analysis allows it. Here (compile only):
//! stencil2d with `jacobi_step` and `max_change` offloaded builds with its CMake and nvcc, and the
//! serial program check-build rebuilds from the edit's marks is the original source; a small
//! program whose two offloaded loops share one session compiles and links (each kernel file
//! carries the registry, weakly) and, on a GPU, prints what its serial build prints.

mod workspace_copy;

use std::path::{Path, PathBuf};
use std::process::Command;

use cuda_offload::analysis;
use cuda_offload::project::{self, CudaArch, KernelFile};
use cuda_offload::search::port::port;
use cuda_offload::search::workspace_edit::{SESSION_MARK, kernel_file_name, kernel_source};
use cuda_offload::testing::{Needs, skip};
use cuda_offload::verify::toolchain::{Nvcc, default_project_roots, find_nvcc};

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn nvcc() -> Option<Nvcc> {
    match find_nvcc(None, &default_project_roots()) {
        Ok(n) => Some(n),
        Err(e) => {
            skip(Needs::Toolchain, &format!("no nvcc ({e})"));
            None
        }
    }
}

/// `dir/file` with the loops at `lines` offloaded (each with its candidate's code), as one edit.
fn offload_together(
    dir: &Path,
    file: &str,
    loops: &[(usize, String)],
    resident: bool,
) -> project::ManyWrites {
    let path = dir.join(file);
    let source = std::fs::read_to_string(&path).unwrap();
    let regions: Vec<analysis::OffloadRegion> = loops
        .iter()
        .map(|(line, _)| analysis::outline_in_file(&path, *line).unwrap().2)
        .collect();
    let kernels: Vec<KernelFile> = regions
        .iter()
        .zip(loops)
        .map(|(region, (_, code))| KernelFile {
            region,
            name: kernel_file_name(region),
            text: kernel_source(region, code, "compiled; not run: no GPU", &[]),
        })
        .collect();
    let many = project::offload_writes_many(
        &path,
        &source,
        &kernels,
        &CudaArch::from_setting("sm_90"),
        &project::read_from_disk,
        resident,
    )
    .unwrap();
    for (p, text) in &many.writes {
        std::fs::write(p, text).unwrap();
    }
    many
}

fn candidate(name: &str) -> String {
    std::fs::read_to_string(manifest().join("src/verify/testdata/candidates").join(name)).unwrap()
}

#[test]
fn stencil2d_with_both_loops_resident_builds_and_its_serial_version_is_the_original() {
    if nvcc().is_none() {
        return;
    }
    if project::check::find_cmake(&default_project_roots()).is_none() {
        skip(Needs::Toolchain, "no cmake (scripts/setup pins it)");
        return;
    }
    let dir = workspace_copy::copy("stencil2d");
    let original = std::fs::read_to_string(dir.path().join("jacobi.cpp")).unwrap();
    let many = offload_together(
        dir.path(),
        "jacobi.cpp",
        &[
            (9, candidate("jacobi_step_correct.cu")),
            (18, candidate("max_change_port.cu")),
        ],
        true,
    );
    assert_eq!(many.residency.len(), 1, "{:#?}", many.residency);
    let r = &many.residency[0];
    assert!(r.is_resident(), "{r:#?}");
    assert_eq!(
        (r.line, r.end_line),
        (29, 34),
        "lines of the file as it was"
    );
    assert_eq!(r.arrays, ["u", "v"]);

    // The session wraps the while loop, with the loop's indentation.
    let patched = std::fs::read_to_string(dir.path().join("jacobi.cpp")).unwrap();
    let lines: Vec<&str> = patched.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with("while (change"))
        .unwrap();
    assert!(
        lines[at - 1].starts_with("    cuda_offload_resident_begin(); cuda_offload_resident_keep(u.data()); cuda_offload_resident_keep(v.data());  // cuda-offload session"),
        "{patched}"
    );
    let close = lines[at..].iter().position(|l| *l == "    }").unwrap() + at;
    assert!(
        lines[close + 1].starts_with("    cuda_offload_resident_end();  // cuda-offload session"),
        "{patched}"
    );
    assert!(patched.contains("void cuda_offload_resident_begin();"));
    assert_eq!(
        patched.matches(SESSION_MARK).count(),
        2,
        "one session: {patched}"
    );

    // The build edits chain: CUDA enabled once, both kernel files added.
    let lists = std::fs::read_to_string(dir.path().join("CMakeLists.txt")).unwrap();
    assert_eq!(lists.matches("enable_language(CUDA)").count(), 1, "{lists}");
    assert_eq!(
        lists.matches("target_sources(jacobi PRIVATE").count(),
        2,
        "{lists}"
    );

    // check-build's serial version of the edited copy is the program before the edit, exactly.
    let (serial, kernels) = project::revert::serial_version(dir.path());
    assert_eq!(
        kernels,
        ["jacobi_step_cuda.cu", "max_change_loop17_cuda.cu"]
    );
    let back = serial
        .iter()
        .find(|(p, _)| p == Path::new("jacobi.cpp"))
        .map(|(_, t)| t.clone())
        .unwrap();
    assert_eq!(back, original);

    // Both versions configure and build with CMake + nvcc (and run, compared, on a GPU).
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-offload"))
        .args(["check-build", "--json", "--runs", "1"])
        .arg(dir.path())
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    assert_eq!(report["before"]["built"], true, "{report:#}");
    assert_eq!(report["after"]["built"], true, "{report:#}");
    // The session as check-build reads it back: the loop's line in the edited file.
    assert_eq!(
        report["residency"][0],
        format!(
            "jacobi.cpp:{}: u, v stay on the device across this loop",
            at + 1
        )
        .as_str(),
        "{report:#}"
    );
    assert!(out.status.success(), "{report:#}");
}

#[test]
fn without_residency_the_same_offload_has_no_session() {
    let dir = workspace_copy::copy("stencil2d");
    let many = offload_together(
        dir.path(),
        "jacobi.cpp",
        &[
            (9, candidate("jacobi_step_correct.cu")),
            (18, candidate("max_change_port.cu")),
        ],
        false,
    );
    assert!(many.residency.is_empty());
    let patched = std::fs::read_to_string(dir.path().join("jacobi.cpp")).unwrap();
    assert!(!patched.contains("cuda_offload_resident"), "{patched}");
    assert!(patched.contains("jacobi_step_cuda(n, m, in, out);"));
    assert!(patched.contains("max_change_loop17_cuda(n, m, a, b, &worst);"));
}

/// Two offloaded loops of a small program, called from one time loop: `bump` writes `a`, `total`
/// reads it and returns a sum (a scalar copied every call) that the loop tests.
const PROGRAM: &str = r#"#include <cstdio>
#include <vector>

void bump(int n, float* a) {
    for (int i = 0; i < n; ++i) {
        a[i] = a[i] + 1.0f;
    }
}

float total(int n, const float* a) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i) {
        s += a[i];
    }
    return s;
}

int main() {
    const int n = 1000;
    std::vector<float> a(n, 0.0f);
    float sum = 0.0f;
    int steps = 0;
    while (sum < 5000.0f) {
        bump(n, a.data());
        sum = total(n, a.data());
        ++steps;
    }
    std::printf("%d steps, sum %g, a[7] %g\n", steps, sum, a[7]);
    return 0;
}
"#;

#[test]
fn two_wrappers_and_the_registry_link_into_one_program() {
    let Some(nvcc) = nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("prog.cpp"), PROGRAM).unwrap();
    let path = dir.path().join("prog.cpp");
    let ports: Vec<(usize, String)> = [6usize, 13]
        .iter()
        .map(|l| {
            let region = analysis::outline_in_file(&path, *l).unwrap().2;
            (*l, port(&region).unwrap().code)
        })
        .collect();
    let many = offload_together(dir.path(), "prog.cpp", &ports, true);
    assert!(
        many.residency.len() == 1 && many.residency[0].is_resident(),
        "{:#?}",
        many.residency
    );
    assert_eq!(many.residency[0].arrays, ["a"]);
    let cu: Vec<PathBuf> = many
        .writes
        .iter()
        .map(|(p, _)| p.clone())
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    assert_eq!(cu.len(), 2);
    for k in &cu {
        let text = std::fs::read_to_string(k).unwrap();
        assert!(text.contains("__attribute__((weak)) void cuda_offload_resident_begin()"));
    }
    let exe = dir.path().join("prog");
    let out = Command::new(&nvcc.path)
        .args(["-O2", "-std=c++17", "-arch=sm_90", "-o"])
        .arg(&exe)
        .arg(&path)
        .args(&cu)
        .arg(format!("-L{}/lib", nvcc.cuda_home.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "nvcc: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The same registry symbols in both objects, and the link kept one of each.
    let nm = Command::new("nm").arg("-C").arg(&exe).output();
    if let Ok(nm) = nm {
        let syms = String::from_utf8_lossy(&nm.stdout);
        let begins = syms
            .lines()
            .filter(|l| l.ends_with(" cuda_offload_resident_begin()"))
            .count();
        assert_eq!(begins, 1, "{syms}");
    }
    if cuda_offload::verify::gpu::detect_gpus().is_err() {
        skip(Needs::Gpu, "the linked program runs on a GPU only");
        return;
    }
    let run = Command::new(&exe).output().unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "5 steps, sum 5000, a[7] 5\n"
    );
}

/// A stand-in for the CUDA runtime whose "device" is host memory and which counts the copies, so
/// that the wrappers and the registry run here: the data movement they do, and the outputs.
const HOST_RUNTIME: &str = r#"#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
typedef int cudaError_t;
enum { cudaSuccess = 0 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
struct HostRuntimeCounts {
    long h2d = 0, d2h = 0, mallocs = 0, frees = 0;
    ~HostRuntimeCounts() { std::fprintf(stderr, "h2d=%ld d2h=%ld malloc=%ld free=%ld\n", h2d, d2h, mallocs, frees); }
};
inline HostRuntimeCounts& host_runtime_counts() { static HostRuntimeCounts c; return c; }
inline cudaError_t cudaMalloc(void** p, size_t n) { *p = std::malloc(n); ++host_runtime_counts().mallocs; return 0; }
// cudaFree(0) creates the context (the wrappers' early start): no buffer, not counted.
inline cudaError_t cudaFree(void* p) { if (p) { std::free(p); ++host_runtime_counts().frees; } return 0; }
inline cudaError_t cudaMemcpy(void* d, const void* s, size_t n, cudaMemcpyKind k) {
    std::memcpy(d, s, n);
    ++(k == cudaMemcpyHostToDevice ? host_runtime_counts().h2d : host_runtime_counts().d2h);
    return 0;
}
inline cudaError_t cudaGetLastError() { return 0; }
inline cudaError_t cudaDeviceSynchronize() { return 0; }
inline const char* cudaGetErrorString(cudaError_t) { return "host runtime"; }
"#;

/// The serial reference of a region as its `<name>_gpu` (host code, for the host runtime).
fn host_candidate(region: &analysis::OffloadRegion) -> String {
    let mut code = region.includes.join("\n");
    code.push('\n');
    code.push_str(&region.source.replacen(
        &format!(" {}(", region.name),
        &format!(" {}_gpu(", region.name),
        1,
    ));
    code
}

/// Builds `dir/file` (offloaded) with its kernel files against the host runtime; runs it:
/// stdout and the copy counts.
fn run_on_host_runtime(dir: &Path, file: &str, session: bool) -> Option<(String, String)> {
    std::fs::write(dir.join("cuda_runtime.h"), HOST_RUNTIME).unwrap();
    let mut source = std::fs::read_to_string(dir.join(file)).unwrap();
    if !session {
        source = source
            .lines()
            .filter(|l| !l.contains(SESSION_MARK))
            .map(|l| format!("{l}\n"))
            .collect();
    }
    let main = dir.join(format!("main-{session}.cpp"));
    std::fs::write(&main, source).unwrap();
    let exe = dir.join(format!("prog-{session}"));
    let mut cmd = Command::new("g++");
    cmd.args(["-O2", "-std=c++17", "-I"])
        .arg(dir)
        .arg("-o")
        .arg(&exe);
    cmd.arg(&main).arg("-x").arg("c++");
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "cu") {
            cmd.arg(p);
        }
    }
    let out = match cmd.output() {
        Ok(o) => o,
        Err(e) => {
            skip(Needs::Toolchain, &format!("no g++ ({e})"));
            return None;
        }
    };
    assert!(
        out.status.success(),
        "g++: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    Some((
        String::from_utf8_lossy(&run.stdout).into_owned(),
        String::from_utf8_lossy(&run.stderr).trim().to_string(),
    ))
}

#[test]
fn in_a_session_the_kept_array_is_copied_in_once_and_back_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("prog.cpp");
    std::fs::write(&path, PROGRAM).unwrap();
    let loops: Vec<(usize, String)> = [6usize, 13]
        .iter()
        .map(|l| {
            let region = analysis::outline_in_file(&path, *l).unwrap().2;
            (*l, host_candidate(&region))
        })
        .collect();
    offload_together(dir.path(), "prog.cpp", &loops, true);
    let Some((resident, resident_copies)) = run_on_host_runtime(dir.path(), "prog.cpp", true)
    else {
        return;
    };
    let (per_call, per_call_copies) = run_on_host_runtime(dir.path(), "prog.cpp", false).unwrap();
    assert_eq!(resident, "5 steps, sum 5000, a[7] 5\n");
    assert_eq!(per_call, resident);
    // Five steps. Per call: bump copies `a` in and out, total copies `a` and the sum in and the
    // sum out. In the session: `a` in once and back once; the sum (a written scalar that the loop
    // tests) still in and out on every call.
    assert_eq!(per_call_copies, "h2d=15 d2h=10 malloc=15 free=15");
    // Two device buffers in all: `a`'s, and the sum's, reused by every call.
    assert_eq!(resident_copies, "h2d=6 d2h=6 malloc=2 free=2");
}

#[test]
fn stencil2d_with_its_arrays_resident_prints_what_the_serial_program_prints() {
    let dir = workspace_copy::copy("stencil2d");
    let path = dir.path().join("jacobi.cpp");
    let original = std::fs::read_to_string(&path).unwrap();
    let loops: Vec<(usize, String)> = [9usize, 18]
        .iter()
        .map(|l| {
            let region = analysis::outline_in_file(&path, *l).unwrap().2;
            (*l, host_candidate(&region))
        })
        .collect();
    offload_together(dir.path(), "jacobi.cpp", &loops, true);
    let Some((resident, copies)) = run_on_host_runtime(dir.path(), "jacobi.cpp", true) else {
        return;
    };
    // The serial program, built the same way.
    let serial_dir = tempfile::tempdir().unwrap();
    std::fs::write(serial_dir.path().join("jacobi.cpp"), &original).unwrap();
    let (serial, _) = run_on_host_runtime(serial_dir.path(), "jacobi.cpp", false).unwrap();
    assert_eq!(resident, serial);
    let iterations: usize = serial.split_whitespace().next().unwrap().parse().unwrap();
    // u and v in once each and back once each (both were written: they swap every iteration);
    // max_change's `worst` in and out every iteration.
    // Three device buffers: u's, v's and one for `worst`, reused.
    assert_eq!(
        copies,
        format!(
            "h2d={} d2h={} malloc=3 free=3",
            2 + iterations,
            2 + iterations
        )
    );
}

/// What a user runs: `offload --apply` for one loop (the result names what residency still needs),
/// then for the other (the session goes in), then `check-build` on the project.
#[test]
fn offloading_both_loops_with_the_cli_opens_the_session_and_the_project_builds() {
    if nvcc().is_none() {
        return;
    }
    if project::check::find_cmake(&default_project_roots()).is_none() {
        skip(Needs::Toolchain, "no cmake (scripts/setup pins it)");
        return;
    }
    let dir = workspace_copy::copy("stencil2d");
    let file = dir.path().join("jacobi.cpp");
    let offload = |line: usize| {
        let out = Command::new(env!("CARGO_BIN_EXE_cuda-offload"))
            .args(["offload", "--strategy", "port", "--apply", "--line"])
            .arg(line.to_string())
            .arg(&file)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    };
    let first = offload(9);
    assert!(
        first.contains("residency: called in the loop at line 29 of main: keeping u, v on the device across it needs max_change offloaded too"),
        "{first}"
    );
    let text = std::fs::read_to_string(&file).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("worst = std::fmax"))
        .unwrap()
        + 1;
    let second = offload(line);
    assert!(
        second.contains("residency: arrays u, v kept on the device across the loop at line 25 of main (calls of jacobi_step, max_change): copied in once, out once"),
        "{second}"
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.matches(SESSION_MARK).count(), 2, "{text}");

    let out = Command::new(env!("CARGO_BIN_EXE_cuda-offload"))
        .args(["check-build", "--runs", "1"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let while_line = text
        .lines()
        .position(|l| l.trim_start().starts_with("while (change"))
        .unwrap()
        + 1;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "residency: jacobi.cpp:{while_line}: u, v stay on the device across this loop"
        )),
        "{stderr}"
    );
}
