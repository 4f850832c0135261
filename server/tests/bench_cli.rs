//! `cuda-offload bench` end to end with the real binary on one shipped task: with an unreachable model
//! server the search fails and the record says so honestly (no kernel, not correct, the reason); the
//! report and plot are written; a rerun finds the record and contacts nobody; `--report-only` rewrites
//! the report from the records alone.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cuda-offload"))
}

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/tasks/pareval")
}

/// Whether the verifier finds an nvcc; without one the calling test is skipped (a failure where
/// scripts/test demands the live tests).
fn have_nvcc() -> bool {
    match cuda_offload::verify::toolchain::find_nvcc(
        None,
        &cuda_offload::verify::toolchain::default_project_roots(),
    ) {
        Ok(_) => true,
        Err(e) => {
            cuda_offload::testing::skip_live(&format!(
                "no nvcc (the verifier needs it to build candidates): {e}"
            ));
            false
        }
    }
}

/// `bench` of the axpy task with `cot`, budget 2, seed 0, no OpenMP baseline, into `out`.
fn bench_axpy_cot(out: &Path) -> Command {
    let mut c = bin();
    c.arg("bench")
        .arg("--suite-dir")
        .arg(suite_dir())
        .args([
            "--tasks",
            "axpy",
            "--strategy",
            "cot",
            "--budget",
            "2",
            "--seed",
            "0",
            "--no-omp",
            "--out",
        ])
        .arg(out);
    c
}

fn bench(out: &Path, url: &str, extra: &[&str]) -> (bool, String) {
    let o = bench_axpy_cot(out)
        .args([
            "--backend",
            "openai",
            "--model",
            "bench-test-model",
            "--url",
            url,
        ])
        .args(extra)
        .env("CUDA_OFFLOAD_LOG", "warn")
        .output()
        .unwrap();
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

#[test]
fn an_unreachable_model_gives_an_honest_record_and_a_rerun_contacts_nobody() {
    if !have_nvcc() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    // A port nothing listens on: bind, note it, close.
    let dead = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", l.local_addr().unwrap())
    };
    let (ok, stderr) = bench(out.path(), &dead, &[]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("[1/1] axpy cot:"), "{stderr}");
    let text = std::fs::read_to_string(out.path().join("records.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1);
    let r = &lines[0];
    assert_eq!(r["task"], "axpy");
    assert_eq!(r["strategy"], "cot");
    assert_eq!(r["model"], "bench-test-model");
    assert_eq!(r["correct"], false);
    assert_eq!(r["tier"], "easy");
    assert!(r["speedup_vs_serial"].is_null());
    assert!(
        r["detail"].as_str().unwrap().contains("not reachable"),
        "{r}"
    );
    let report = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(report.contains("| axpy | easy |"), "{report}");
    assert!(report.contains("| cot | all | 1 | 0 | 0.00 |"), "{report}");
    assert!(out.path().join("plot.svg").is_file());

    // Rerun against a live listener: the record exists, so nothing connects to it.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let live = format!("http://{}/v1", listener.local_addr().unwrap());
    std::fs::remove_file(out.path().join("report.md")).unwrap();
    let (ok, stderr) = bench(out.path(), &live, &[]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("nothing to run"), "{stderr}");
    assert!(
        listener.accept().is_err(),
        "a finished suite contacted the model server"
    );
    assert_eq!(
        std::fs::read_to_string(out.path().join("records.jsonl")).unwrap(),
        text
    );
    assert_eq!(
        std::fs::read_to_string(out.path().join("report.md")).unwrap(),
        report
    );

    // --report-only needs neither tasks nor a model: the records alone.
    std::fs::remove_file(out.path().join("plot.svg")).unwrap();
    let (ok, stderr) = bench(out.path(), &dead, &["--report-only"]);
    assert!(ok, "{stderr}");
    assert!(out.path().join("plot.svg").is_file());
    assert_eq!(
        std::fs::read_to_string(out.path().join("report.md")).unwrap(),
        report
    );
}

/// The cassette's recorded answers (line 1 is the header).
fn cassette() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cassettes/bench-axpy-cot.jsonl")
}

#[test]
fn a_recorded_model_drives_the_search_through_the_real_binary() {
    if !have_nvcc() {
        return;
    }
    let text = std::fs::read_to_string(cassette()).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let model = header["model"].as_str().unwrap();
    let answers = text
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .count();
    let out = tempfile::tempdir().unwrap();
    let o = bench_axpy_cot(out.path())
        .args([
            "--max-tokens",
            "512",
            "--backend",
            "replay",
            "--model",
            model,
        ])
        .arg("--cassette")
        .arg(cassette())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let records = std::fs::read_to_string(out.path().join("records.jsonl")).unwrap();
    let r: serde_json::Value = serde_json::from_str(records.trim()).unwrap();
    // Every recorded answer was asked for, and nothing else (an unrecorded request fails the call).
    assert_eq!(r["llm_calls"], answers, "{r}");
    assert_eq!(r["model"], model);
    // No GPU here: whatever the answers were, nothing can count as correct.
    assert_eq!(r["correct"], false, "{r}");
    assert!(r["speedup_vs_serial"].is_null());
    assert!(!r["detail"].as_str().unwrap().is_empty());
    let report = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(report.contains(&format!("| model | {model} |")), "{report}");
}

/// `--check-tasks` verifies each task's own reference.cu (here: compiles it; on a GPU: checks and
/// times it) and names the tasks that pass, which scripts/bench-gpu benchmarks when others fail.
#[test]
fn check_tasks_verifies_the_references_and_names_the_passing_tasks() {
    if !have_nvcc() {
        return;
    }
    let o = bin()
        .arg("bench")
        .arg("--suite-dir")
        .arg(suite_dir())
        .args(["--check-tasks", "--tasks", "axpy,relu"])
        .env("CUDA_OFFLOAD_LOG", "warn")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("passing tasks: axpy,relu"),
        "{stdout}\n{stderr}"
    );
    assert!(stdout.contains("2 of 2 task references pass"), "{stdout}");
    for task in ["axpy", "relu"] {
        assert!(
            stderr.contains(&format!("{task}: ")),
            "no verdict for {task}: {stderr}"
        );
    }
}
