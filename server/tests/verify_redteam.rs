//! The red-team suite's compile-time half, with the real nvcc and binutils (no GPU needed): every
//! adversarial candidate of `gpu-manifest.json` whose guard is a `static:` or `link:` one is
//! refused by exactly that guard; every other candidate (honest ones, planted bugs, hacks that
//! only a run can expose) passes all of them and reaches "compiled; not run". The run guards'
//! half is `scripts/gpu-test` on a GPU machine (docs/reports/verify/).

use std::path::Path;
use std::process::Command;

use cuda_offload::testing::{Needs, skip};

fn have_nvcc() -> bool {
    cuda_offload::verify::toolchain::find_nvcc(
        None,
        &cuda_offload::verify::toolchain::default_project_roots(),
    )
    .is_ok()
}

fn have_gpu() -> bool {
    Command::new("nvidia-smi")
        .arg("-L")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn every_compile_time_guard_refuses_its_adversary_and_nothing_else() {
    if !have_nvcc() {
        skip(Needs::Toolchain, "no nvcc (run scripts/setup)");
        return;
    }
    if have_gpu() {
        skip(
            Needs::NoGpu,
            "this machine has a GPU; scripts/gpu-test checks every guard there",
        );
        return;
    }
    let manifest =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src/verify/testdata/gpu-manifest.json");
    let cache = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-offload"))
        .args(["verify", "--json", "--cache-dir"])
        .arg(cache.path())
        .arg("--manifest")
        .arg(&manifest)
        .output()
        .unwrap();
    let results: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)));
    let mut compile_time = 0;
    let mut failures = Vec::new();
    for r in &results {
        let name = r["name"].as_str().unwrap();
        let expect = r["expect"].as_str().unwrap();
        let want_guard = r["guard"].as_str().unwrap_or("");
        let verdict = r["report"]["verdict"].as_str().unwrap_or("error");
        let summary = r["report"]["summary"]
            .as_str()
            .or(r["error"].as_str())
            .unwrap_or("");
        let got_guard = match verdict {
            "rejected" => r["report"]["guard"].as_str().unwrap_or(""),
            _ => "",
        };
        let ok = if want_guard.starts_with("static:") || want_guard.starts_with("link:") {
            compile_time += 1;
            verdict == expect && got_guard.starts_with(want_guard)
        } else if expect == "compile_error" {
            verdict == "compile_error"
        } else {
            // Reaches the GPU stage: no compile-time guard refused it.
            verdict == "compiled_not_run"
        };
        if !ok {
            failures.push(format!(
                "{name}: expected {expect} by `{want_guard}`, got {verdict} `{got_guard}`: {summary}"
            ));
        }
    }
    assert!(
        compile_time >= 15,
        "the suite has {compile_time} compile-time adversaries"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
