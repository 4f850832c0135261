//! `graph manifest` → `verify --manifest` (compile-only here, real nvcc) → `graph record` → `graph
//! build`, on a copy of the shipped graph data.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cuda-offload"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

use cuda_offload::graph::trajectory::Trajectory;
use cuda_offload::graph::verification::to_jsonl_line;
use cuda_offload::testing::{Needs, skip};

fn data_copy(dir: &Path) -> PathBuf {
    let data = dir.join("graph-data");
    let src = repo().join("graph-data");
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(&src).unwrap();
        let dst = data.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dst).unwrap();
        } else if rel.starts_with("trajectories") {
            // As if nothing were measured yet, whatever the shipped steps carry.
            let text = std::fs::read_to_string(entry.path()).unwrap();
            let mut out = String::new();
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let mut t: Trajectory = serde_json::from_str(line).unwrap();
                for step in &mut t.steps {
                    step.measured = None;
                }
                out.push_str(&to_jsonl_line(&t));
                out.push('\n');
            }
            std::fs::write(&dst, out).unwrap();
        } else if rel != Path::new("regraph.json") {
            std::fs::copy(entry.path(), &dst).unwrap();
        }
    }
    data
}

fn have_nvcc() -> bool {
    cuda_offload::verify::toolchain::find_nvcc(
        None,
        &cuda_offload::verify::toolchain::default_project_roots(),
    )
    .is_ok()
}

fn steps_of(data: &Path, task: &str) -> Vec<serde_json::Value> {
    for entry in std::fs::read_dir(data.join("trajectories")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for line in text.lines() {
            let t: serde_json::Value = serde_json::from_str(line).unwrap();
            if t["task"] == task {
                return t["steps"].as_array().unwrap().clone();
            }
        }
    }
    panic!("no trajectory for {task}")
}

const A: &str = "ger_rank1_update";
const B: &str = "row_l2_norms";

#[test]
fn manifest_verify_record_build() {
    if !have_nvcc() {
        skip(Needs::Toolchain, "no nvcc (run scripts/setup)");
        return;
    }
    if Command::new("nvidia-smi").output().is_ok() {
        skip(
            Needs::NoGpu,
            "this machine has a GPU; scripts/verify-trajectories covers it",
        );
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let data = data_copy(tmp.path());
    let data_arg = data.to_str().unwrap();
    let man = tmp.path().join("batch");
    let o = bin(&[
        "graph",
        "--data",
        data_arg,
        "manifest",
        "--out",
        man.to_str().unwrap(),
        "--tasks",
        &format!("{A},{B}"),
        "--parts",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(man.join("manifest.json")).unwrap()).unwrap();
    let entries = manifest["entries"].as_array().unwrap();
    let (na, nb) = (steps_of(&data, A).len(), steps_of(&data, B).len());
    assert_eq!(entries.len(), na + nb);
    assert_eq!(entries[0]["name"], format!("{A}#1"));
    assert_eq!(entries[0]["expect"], "correct");
    assert!(man.join("manifest.1.json").is_file() && man.join("manifest.2.json").is_file());
    let code =
        std::fs::read_to_string(man.join(entries[0]["candidate"].as_str().unwrap())).unwrap();
    assert_eq!(code, steps_of(&data, A)[0]["code"]);
    // The region carries the task's shapes: the verifier checks and times those.
    let region: cuda_offload::analysis::OffloadRegion = serde_json::from_str(
        &std::fs::read_to_string(man.join(entries[0]["region"].as_str().unwrap())).unwrap(),
    )
    .unwrap();
    let task = cuda_offload::graph::tasks::load_task(&data.join("tasks").join(A)).unwrap();
    assert_eq!(region.sizes.as_ref(), Some(&task.sizes));

    // The real verifier on the batch: every step compiles against its task's harness.
    let out = man.join("run");
    let cache = tmp.path().join("cache");
    let o = Command::new(env!("CARGO_BIN_EXE_cuda-offload"))
        .env("XDG_CACHE_HOME", &cache)
        .args(["verify", "--manifest"])
        .arg(man.join("manifest.json"))
        .arg("--out")
        .arg(&out)
        .args(["--jobs", "2"])
        .output()
        .unwrap();
    let results_path = out.join("results.json");
    let text = std::fs::read_to_string(&results_path).unwrap_or_else(|_| panic!("{}", stderr(&o)));
    let mut results: serde_json::Value = serde_json::from_str(&text).unwrap();
    for r in results["results"].as_array().unwrap() {
        assert_eq!(
            r["report"]["verdict"], "compiled_not_run",
            "{}: {}",
            r["name"], r["report"]["summary"]
        );
    }

    // Nothing ran on a GPU: recording it changes nothing.
    let before = std::fs::read_to_string(data.join("trajectories/blas.jsonl")).unwrap();
    let o = bin(&[
        "graph",
        "--data",
        data_arg,
        "record",
        "--results",
        results_path.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("recorded 0 correct and 0 failed"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(data.join("trajectories/blas.jsonl")).unwrap(),
        before
    );

    // The same real output, edited by hand into what a GPU run reports: A#1 correct, A#2 wrong,
    // B#1 correct but its code has changed since the manifest was written.
    let timing = serde_json::json!({
        "verdict": "correct", "kernel_ms": 0.5, "kernel_p10_ms": 0.49, "kernel_p90_ms": 0.52,
        "end_to_end_ms": 40.0, "end_to_end_p10_ms": 39.0, "end_to_end_p90_ms": 41.0,
        "serial_ms": 100.0, "speedup": 200.0, "end_to_end_speedup": 2.5,
        "roofline_fraction": 0.8, "samples": 10, "noise": 0.003, "size": "m=4096 n=4096"
    });
    let wrong = serde_json::json!({
        "verdict": "wrong", "param": "a", "index": 7, "expected": "1", "got": "2",
        "size": "m=37 n=37", "seed": 1
    });
    for r in results["results"].as_array_mut().unwrap() {
        let name = r["name"].as_str().unwrap().to_string();
        let patch = if name == format!("{A}#1") || name == format!("{B}#1") {
            &timing
        } else if name == format!("{A}#2") {
            &wrong
        } else {
            continue;
        };
        let report = r["report"].as_object_mut().unwrap();
        report.remove("reason");
        report.remove("detail");
        report.insert("gpu".into(), "NVIDIA H200".into());
        for (k, v) in patch.as_object().unwrap() {
            report.insert(k.clone(), v.clone());
        }
    }
    let edited = out.join("edited.json");
    std::fs::write(&edited, serde_json::to_string_pretty(&results).unwrap()).unwrap();
    std::fs::write(man.join(format!("candidates/{B}__1.cu")), "// changed\n").unwrap();
    let o = bin(&[
        "graph",
        "--data",
        data_arg,
        "record",
        "--results",
        edited.to_str().unwrap(),
        "--nvcc",
        "13.0",
        "--date",
        "2026-12-02",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("recorded 1 correct and 1 failed"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("code changed"), "{}", stderr(&o));

    let a = steps_of(&data, A);
    assert_eq!(a[0]["measured"]["correct"], true);
    assert_eq!(a[0]["measured"]["verdict"], "correct");
    assert_eq!(a[0]["measured"]["kernel_ms"], 0.5);
    assert_eq!(a[0]["measured"]["speedup"], 200.0);
    assert_eq!(a[0]["measured"]["gpu"], "NVIDIA H200");
    assert_eq!(a[0]["measured"]["nvcc"], "13.0");
    assert_eq!(a[0]["measured"]["date"], "2026-12-02");
    assert_eq!(a[1]["measured"]["correct"], false);
    assert_eq!(a[1]["measured"]["verdict"], "wrong");
    assert!(a[1]["measured"]["kernel_ms"].is_null());
    assert!(steps_of(&data, B)[0]["measured"].is_null());
    // Only A's line changed.
    let after = std::fs::read_to_string(data.join("trajectories/blas.jsonl")).unwrap();
    let changed: Vec<_> = before
        .lines()
        .zip(after.lines())
        .filter(|(x, y)| x != y)
        .map(|(x, _)| x.to_string())
        .collect();
    assert_eq!(after.lines().count(), before.lines().count());
    assert_eq!(changed.len(), 1);
    assert!(changed[0].contains(A));

    // Verified-only build: A#1 is the one verified example; A stops at its failed step 2.
    let graph_file = tmp.path().join("regraph.json");
    let o = bin(&[
        "graph",
        "--data",
        data_arg,
        "build",
        "--out",
        graph_file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("task `{A}`, step 2: failed verification")),
        "{}",
        stderr(&o)
    );
    let o = bin(&[
        "graph",
        "stats",
        "--json",
        "--graph",
        graph_file.to_str().unwrap(),
    ]);
    let stats: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(stats["verified_examples"], 1, "{stats}");
    assert_eq!(stats["tasks"], 1, "{stats}");
}

#[test]
fn record_rejects_a_file_that_is_not_a_results_json() {
    let tmp = tempfile::tempdir().unwrap();
    let data = data_copy(tmp.path());
    let bad = tmp.path().join("results.json");
    std::fs::write(&bad, "{\"entries\": []}").unwrap();
    let o = bin(&[
        "graph",
        "--data",
        data.to_str().unwrap(),
        "record",
        "--results",
        bad.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("not a `verify --manifest` results.json"),
        "{}",
        stderr(&o)
    );
}
