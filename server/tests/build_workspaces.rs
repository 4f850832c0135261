//! Issue #20: each test workspace with an offloadable loop, after the offload's edit (the kernel
//! file of a candidate the verifier accepted on the H200, the call site, the build integration),
//! configures and builds with its own CMake and nvcc; `cuda-offload check-build` then finds the
//! serial version from the edit's marks and builds both (and, on a GPU, runs and compares them).

mod workspace_copy;

use std::path::{Path, PathBuf};
use std::process::Command;

use cuda_offload::analysis;
use cuda_offload::project::{self, BuildSystem, CudaArch};
use cuda_offload::search::workspace_edit::{
    apply_line_edits, kernel_file_name, kernel_source, source_edits, with_replaced_lines,
};
use cuda_offload::testing::{Needs, skip};
use cuda_offload::verify::toolchain::{default_project_roots, find_nvcc};

/// (workspace, source file, a line of the loop, verified candidate in verify/testdata).
const WORKSPACES: &[(&str, &str, usize, &str)] = &[
    ("saxpy", "saxpy.cpp", 8, "saxpy_correct.cu"),
    ("histogram", "histogram.cpp", 8, "histogram_correct.cu"),
    ("nbody", "nbody.cpp", 11, "compute_forces_correct.cu"),
    ("stencil2d", "jacobi.cpp", 9, "jacobi_step_correct.cu"),
];

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn tools_found() -> bool {
    let roots = default_project_roots();
    if let Err(e) = find_nvcc(None, &roots) {
        skip(Needs::Toolchain, &format!("no nvcc ({e})"));
        return false;
    }
    if project::check::find_cmake(&roots).is_none() {
        skip(
            Needs::Toolchain,
            "no cmake (scripts/setup pins it into .toolchain/cmake)",
        );
        return false;
    }
    true
}

/// A copy of the workspace with the offload applied as the editor's workspace edit does it.
fn offloaded_copy(ws: &str, file: &str, line: usize, candidate: &str) -> tempfile::TempDir {
    let dir = workspace_copy::copy(ws);
    let path = dir.path().join(file);
    let (source, _, region) = analysis::outline_in_file(&path, line).unwrap();
    let candidate = std::fs::read_to_string(
        manifest()
            .join("src/verify/testdata/candidates")
            .join(candidate),
    )
    .unwrap();
    let kernel_file = kernel_file_name(&region);
    std::fs::write(
        dir.path().join(&kernel_file),
        with_replaced_lines(
            &kernel_source(&region, &candidate, "verified on NVIDIA H200", &[]),
            &region,
            &source,
        ),
    )
    .unwrap();
    let build = project::build_edit(
        &path,
        &kernel_file,
        &CudaArch::from_setting("sm_90"),
        &project::read_from_disk,
    );
    assert_eq!(build.system, BuildSystem::Cmake, "{ws}: {}", build.note);
    assert_eq!(build.files.len(), 1, "{ws}: {build:?}");
    for f in &build.files {
        let text = std::fs::read_to_string(&f.path).unwrap();
        std::fs::write(&f.path, apply_line_edits(&text, &f.edits)).unwrap();
    }
    std::fs::write(
        &path,
        apply_line_edits(&source, &source_edits(&region, &source)),
    )
    .unwrap();
    dir
}

fn check_build(dir: &Path) -> (serde_json::Value, std::process::Output) {
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-offload"))
        .args(["check-build", "--json", "--runs", "1"])
        .arg(dir)
        .output()
        .unwrap();
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (report, out)
}

#[test]
fn every_offloaded_workspace_builds_before_and_after_the_edit() {
    if !tools_found() {
        return;
    }
    for &(ws, file, line, candidate) in WORKSPACES {
        let dir = offloaded_copy(ws, file, line, candidate);
        let (report, out) = check_build(dir.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            report["before"]["built"], true,
            "{ws}: {report:#}\n{stderr}"
        );
        assert_eq!(report["after"]["built"], true, "{ws}: {report:#}\n{stderr}");
        if cuda_offload::verify::gpu::detect_gpus().is_ok() {
            // scripts/e2e-workspaces measures them; here only that they ran the same.
            assert_eq!(
                report["same_output"]["Ok"],
                serde_json::Value::Null,
                "{ws}: {report:#}"
            );
            assert!(out.status.success(), "{ws}: {report:#}");
        } else {
            let summary = report["summary"].as_str().unwrap();
            assert!(
                summary
                    .starts_with("project builds before and after the edit; not run: no GPU here"),
                "{ws}: {summary}"
            );
            assert!(out.status.success(), "{ws}: {report:#}\n{stderr}");
        }
        // The user's copy is untouched by the check: no build tree appears in it.
        assert!(!dir.path().join("_cuda_offload_build").exists());
    }
}

#[test]
fn a_kernel_that_breaks_the_build_is_reported_with_the_compiler_s_words() {
    if !tools_found() {
        return;
    }
    let dir = offloaded_copy("saxpy", "saxpy.cpp", 8, "saxpy_correct.cu");
    let kernel = dir.path().join("saxpy_cuda.cu");
    let text = std::fs::read_to_string(&kernel).unwrap();
    std::fs::write(
        &kernel,
        text.replace("saxpy_gpu(n, a, d_x, d_y);", "saxpy_gpu(n, a, d_x);"),
    )
    .unwrap();
    let (report, out) = check_build(dir.path());
    assert!(!out.status.success());
    assert_eq!(report["before"]["built"], true, "{report:#}");
    assert_eq!(report["after"]["built"], false, "{report:#}");
    let summary = report["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("the project does not build after the edit"),
        "{summary}"
    );
    assert!(
        report["after"]["log_tail"]
            .as_str()
            .unwrap()
            .contains("saxpy_cuda.cu"),
        "{report:#}"
    );
}

#[test]
fn check_build_without_an_offload_says_what_to_do() {
    let ws: PathBuf = manifest().join("../test-workspaces/sequential");
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-offload"))
        .arg("check-build")
        .arg(&ws)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no kernel file generated by cuda-offload") && err.contains("--apply"),
        "{err}"
    );
}

#[test]
fn a_kernel_not_applied_yet_is_checked_in_the_scratch_copy_only() {
    if !tools_found() {
        return;
    }
    let ws = manifest().join("../test-workspaces/saxpy");
    let before: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&ws)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    let candidate = manifest().join("src/verify/testdata/candidates/saxpy_correct.cu");
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-offload"))
        .args(["check-build", "--json", "--runs", "1", "--line", "8"])
        .arg(&ws)
        .arg("--file")
        .arg(ws.join("saxpy.cpp"))
        .arg("--candidate")
        .arg(&candidate)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(report["before"]["built"], true, "{report:#}");
    assert_eq!(report["after"]["built"], true, "{report:#}");
    // The workspace is as it was: same files, same bytes.
    for (path, bytes) in before {
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{}", path.display());
    }
    assert_eq!(std::fs::read_dir(&ws).unwrap().count(), 3);
}
