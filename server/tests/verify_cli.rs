//! `cuda-offload verify` end to end with the real nvcc from `.toolchain` (no GPU needed): a
//! candidate compiles and stops at "no GPU", a broken one gets diagnostics on its own lines, a
//! hacking one is refused, bad input is a clear error.

use std::path::{Path, PathBuf};
use std::process::Command;

use cuda_offload::testing::{Needs, skip};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cuda-offload"))
}

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/verify/testdata")
}

/// Whether the verifier finds an nvcc (without one the tests skip).
fn have_nvcc() -> bool {
    cuda_offload::verify::toolchain::find_nvcc(
        None,
        &cuda_offload::verify::toolchain::default_project_roots(),
    )
    .is_ok()
}

fn verify_json(candidate: &str, extra: &[&str]) -> (serde_json::Value, i32) {
    verify_json_at(&testdata().join("candidates").join(candidate), extra)
}

fn verify_json_at(candidate: &Path, extra: &[&str]) -> (serde_json::Value, i32) {
    let cache = tempfile::tempdir().unwrap();
    let out = bin()
        .args([
            "verify",
            "--region",
            "builtin:saxpy",
            "--json",
            "--cache-dir",
        ])
        .arg(cache.path())
        .arg("--candidate")
        .arg(candidate)
        .args(extra)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (v, out.status.code().unwrap_or(-1))
}

#[test]
fn a_good_candidate_compiles_and_is_not_run_without_a_gpu() {
    if !have_nvcc() {
        skip(Needs::Toolchain, "no nvcc (run scripts/setup)");
        return;
    }
    if Command::new("nvidia-smi")
        .arg("-L")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        skip(
            Needs::NoGpu,
            "this machine has a GPU; scripts/gpu-test covers it",
        );
        return;
    }
    let (v, code) = verify_json("saxpy_correct.cu", &[]);
    assert_eq!(v["verdict"], "compiled_not_run", "{v}");
    assert_eq!(v["reason"], "no GPU");
    assert_eq!(v["reward"], 0.0);
    assert_eq!(code, 0);
    // Forcing the run reaches the CUDA runtime, which answers for itself.
    let (v, _) = verify_json("saxpy_correct.cu", &["--force-run"]);
    assert_eq!(v["verdict"], "compiled_not_run", "{v}");
    assert!(v["detail"].as_str().unwrap().starts_with("NO_GPU"), "{v}");
}

#[test]
fn a_kernel_only_answer_with_the_added_launcher_compiles() {
    if !have_nvcc() {
        skip(Needs::Toolchain, "no nvcc (run scripts/setup)");
        return;
    }
    // The shape most `cot` failures on the H200 had (docs/reports/bench/h200-2026-12-02).
    let answer = "```cuda\n#include <cuda_runtime.h>\n\
                  __global__ void saxpy_gpu(int n, float a, const float* x, float* y) {\n\
                  int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
                  if (i < n) y[i] = a * x[i] + y[i];\n}\n```";
    let region = cuda_offload::verify::testdata::builtin_region("saxpy").unwrap();
    let launch = cuda_offload::llm::answer::Launch::for_region(&region);
    let got = cuda_offload::llm::answer::extract_kernel_or_launch(
        answer,
        &region.gpu_entry_name(),
        &launch,
    )
    .unwrap();
    assert!(got.added_launcher);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("launched.cu");
    std::fs::write(&file, &got.code).unwrap();
    let (v, _) = verify_json_at(&file, &[]);
    // Compiled (and, on a GPU, checked against the serial loop like any candidate).
    let verdict = v["verdict"].as_str().unwrap();
    assert!(
        verdict == "compiled_not_run" || verdict == "correct",
        "{v}\n{}",
        got.code
    );
}

#[test]
fn the_kernel_file_offload_writes_verifies_with_its_host_wrapper() {
    if !have_nvcc() {
        skip(Needs::Toolchain, "no nvcc (run scripts/setup)");
        return;
    }
    // What `offload` writes beside the user's file: header, kernel, and the host wrapper that
    // copies and prints errors (issue #21: the tool rejected its own output for that wrapper).
    let region = cuda_offload::verify::testdata::builtin_region("saxpy").unwrap();
    let kernel = std::fs::read_to_string(testdata().join("candidates/saxpy_correct.cu")).unwrap();
    let file_text = cuda_offload::search::workspace_edit::kernel_source(
        &region,
        &kernel,
        "compiled; not run: no GPU",
        &["parallelize_outer_loop".to_string()],
    );
    assert!(file_text.contains("fprintf"), "the wrapper reports errors");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("saxpy_cuda.cu");
    std::fs::write(&file, &file_text).unwrap();
    let (v, _) = verify_json_at(&file, &[]);
    let verdict = v["verdict"].as_str().unwrap();
    assert!(verdict == "compiled_not_run" || verdict == "correct", "{v}");
}

#[test]
fn a_compile_error_points_at_the_candidates_line() {
    if !have_nvcc() {
        skip(Needs::Toolchain, "no nvcc (run scripts/setup)");
        return;
    }
    let (v, code) = verify_json("saxpy_syntax_error.cu", &[]);
    assert_eq!(v["verdict"], "compile_error", "{v}");
    let d = &v["diagnostics"][0];
    assert_eq!(d["line"], 5, "{v}");
    assert_eq!(d["severity"], "error");
    assert!(d["message"].as_str().unwrap().contains(';'));
    assert_eq!(v["reward"], -1.0);
    assert_eq!(code, 3);
}

#[test]
fn a_wrong_signature_is_explained() {
    if !have_nvcc() {
        skip(Needs::Toolchain, "no nvcc (run scripts/setup)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cand = dir.path().join("k.cu");
    // `float* x` instead of `const float* x`: another overload, so the entry point is missing.
    std::fs::write(
        &cand,
        "__global__ void k(int n, float a, float* x, float* y) { int i = threadIdx.x; if (i < n) y[i] += a * x[i]; }\n\
         void saxpy_gpu(int n, float a, float* x, float* y) { k<<<1, 32>>>(n, a, x, y); }\n",
    )
    .unwrap();
    let out = bin()
        .args([
            "verify",
            "--region",
            "builtin:saxpy",
            "--json",
            "--no-cache",
            "--candidate",
        ])
        .arg(&cand)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "compile_error", "{v}");
    assert!(
        v.to_string()
            .contains("must define `void saxpy_gpu(int n, float a, const float* x, float* y)`"),
        "{v}"
    );
}

#[test]
fn hacks_are_refused_before_compiling() {
    // Static checks need no nvcc, but the verifier refuses to start without one.
    if !have_nvcc() {
        skip(Needs::Toolchain, "no nvcc (run scripts/setup)");
        return;
    }
    for (cand, word) in [
        ("hack_try_catch.cu", "try"),
        ("hack_call_reference.cu", "serial reference"),
        ("adv_fork_bomb.cu", "unistd.h"),
        ("adv_write_outside.cu", "file I/O"),
        ("hack_fake_timer.cu", "cudaEventElapsedTime"),
    ] {
        let (v, code) = verify_json(cand, &[]);
        assert_eq!(v["verdict"], "rejected", "{cand}: {v}");
        assert!(v["reason"].as_str().unwrap().contains(word), "{cand}: {v}");
        assert_eq!(code, 3);
    }
}

#[test]
fn the_cache_answers_the_second_time() {
    if !have_nvcc() {
        skip(Needs::Toolchain, "no nvcc (run scripts/setup)");
        return;
    }
    let cache = tempfile::tempdir().unwrap();
    let run = || {
        let out = bin()
            .args([
                "verify",
                "--region",
                "builtin:saxpy",
                "--json",
                "--seed",
                "7",
                "--cache-dir",
            ])
            .arg(cache.path())
            .arg("--candidate")
            .arg(testdata().join("candidates/saxpy_syntax_error.cu"))
            .output()
            .unwrap();
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let first = run();
    let second = run();
    assert_eq!(first["cached"], false);
    assert_eq!(second["cached"], true);
    assert_eq!(first["key"], second["key"]);
    assert_eq!(first["diagnostics"], second["diagnostics"]);
    assert_eq!(first["run_seed"], 7);
}

#[test]
fn bad_input_gets_a_clear_error() {
    let out = bin()
        .args(["verify", "loop.cpp", "--line", "3", "--candidate", "k.cu"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    // The file does not exist (or nvcc is missing): either way the error says which.
    assert!(!out.status.success());
    assert!(
        err.contains("cannot read loop.cpp") || err.contains("nvcc"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("r.json");
    std::fs::write(&bad, "{\"name\": 3}").unwrap();
    let out = bin()
        .args(["verify", "--candidate", "k.cu", "--region"])
        .arg(&bad)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(!err.contains("panicked"), "{err}");
    if have_nvcc() {
        assert!(err.contains("not a serialized OffloadRegion"), "{err}");
    }
}

#[test]
fn a_region_file_and_a_manifest_work_without_a_gpu() {
    if !have_nvcc() {
        skip(Needs::Toolchain, "no nvcc (run scripts/setup)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // --region with a hand-written region file.
    let out = bin()
        .args(["verify", "--json", "--no-cache", "--region"])
        .arg(testdata().join("regions/dot.json"))
        .arg("--candidate")
        .arg(testdata().join("candidates/dot_wrong.cu"))
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["region"], "dot");
    assert!(
        v["verdict"] == "compiled_not_run" || v["verdict"] == "wrong",
        "{v}"
    );
    // A manifest: results in order, files written, the exit code says whether all verdicts held.
    let manifest = dir.path().join("m.json");
    let cands = testdata().join("candidates");
    std::fs::write(
        &manifest,
        serde_json::json!({"entries": [
            {"name": "a", "region": "builtin:saxpy", "candidate": cands.join("saxpy_syntax_error.cu"), "expect": "compile_error"},
            {"name": "b", "region": "builtin:saxpy", "candidate": cands.join("hack_try_catch.cu"), "expect": "rejected"},
            {"name": "c", "region": "builtin:saxpy", "candidate": cands.join("adv_huge_output.cu"), "expect": "rejected"},
        ]})
        .to_string(),
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let out = bin()
        .args(["verify", "--no-cache", "--manifest"])
        .arg(&manifest)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let res: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("results.json")).unwrap())
            .unwrap();
    let names: Vec<&str> = res["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert!(
        std::fs::read_to_string(out_dir.join("report.md"))
            .unwrap()
            .contains("| a |")
    );
}

/// The GPU tests' infinite loop must really hang: ptxas deletes a side-effect-free spin (one on a
/// local, even a `volatile` one, is only a register in the PTX), and such a "hang" simply runs
/// (docs/reports/verify/README.md, 2026-12-03). A volatile load from global memory cannot go.
#[test]
fn the_infinite_loop_adversary_keeps_a_load_in_its_loop() {
    let Ok(nvcc) = cuda_offload::verify::toolchain::find_nvcc(
        None,
        &cuda_offload::verify::toolchain::default_project_roots(),
    ) else {
        skip(Needs::Toolchain, "no nvcc (run scripts/setup)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ptx = dir.path().join("loop.ptx");
    let out = Command::new(&nvcc.path)
        .args(["-O3", "-arch=sm_90", "-ptx", "-o"])
        .arg(&ptx)
        .arg(testdata().join("candidates/adv_infinite_loop.cu"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&ptx).unwrap();
    let body = text
        .split("$L__BB0_1:")
        .nth(1)
        .expect("the kernel has a loop")
        .split("bra")
        .next()
        .unwrap();
    assert!(
        body.contains("ld.volatile.global"),
        "the spin loop loads nothing from memory:\n{body}"
    );
}
