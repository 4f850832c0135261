//! `cuda-offload graph` end to end: the real binary on the shipped graph data and on copies of it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn graph(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cuda-offload"))
        .arg("graph")
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A copy of the shipped graph-data in a temporary directory, to build into and to corrupt.
fn data_copy() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("graph-data");
    let src = repo().join("graph-data");
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(&src).unwrap();
        let dst = data.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dst).unwrap();
        } else if rel != Path::new("regraph.json") {
            std::fs::copy(entry.path(), &dst).unwrap();
        }
    }
    (tmp, data)
}

/// Steps a build with --include-unverified merges: a step measured as failing, and every step
/// after it in its trajectory, never enters the graph.
fn mergeable_steps(data: &Path) -> usize {
    let mut steps = 0;
    for entry in std::fs::read_dir(data.join("trajectories")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let t: serde_json::Value = serde_json::from_str(line).unwrap();
            steps += t["steps"]
                .as_array()
                .unwrap()
                .iter()
                .take_while(|s| s["measured"]["correct"] != false)
                .count();
        }
    }
    steps
}

#[test]
fn shipped_regraph_is_what_build_produces() {
    let data = repo().join("graph-data");
    let header = std::fs::read_to_string(data.join("regraph.json")).unwrap();
    let unverified = header.contains("\"include_unverified\": true");
    let mut args = vec!["--data", data.to_str().unwrap(), "build", "--check"];
    if unverified {
        args.push("--include-unverified");
    }
    let out = graph(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("is up to date"), "{}", stderr(&out));
}

/// Forgets the measurement of `task`'s last step in a data copy (the shipped steps are all measured).
fn unmeasure_last_step(data: &Path, file: &str, task: &str) {
    let path = data.join("trajectories").join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut found = false;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let mut t: serde_json::Value = serde_json::from_str(line).unwrap();
            if t["task"] == task {
                found = true;
                let steps = t["steps"].as_array_mut().unwrap();
                steps.last_mut().unwrap()["measured"] = serde_json::Value::Null;
            }
            serde_json::to_string(&t).unwrap()
        })
        .collect();
    assert!(found, "no trajectory of {task} in {file}");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn build_twice_gives_identical_bytes_and_stats_agree() {
    let (_tmp, data) = data_copy();
    unmeasure_last_step(&data, "string.jsonl", "pattern_count");
    let d = data.to_str().unwrap();
    let out = graph(&["--data", d, "build", "--include-unverified", "--strict"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let first = std::fs::read(data.join("regraph.json")).unwrap();
    let out = graph(&["--data", d, "build", "--include-unverified"]);
    assert!(out.status.success());
    assert_eq!(first, std::fs::read(data.join("regraph.json")).unwrap());

    let out = graph(&["--data", d, "stats", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let stats: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    for key in [
        "techniques",
        "nodes",
        "edges",
        "examples",
        "verified_examples",
        "tasks",
        "out_degree",
    ] {
        assert!(stats.get(key).is_some(), "stats lack {key}: {stats}");
    }
    assert!(stats["techniques"].as_u64().unwrap() >= 20);
    assert!(stats["tasks"].as_u64().unwrap() >= 8);
    assert!(
        stats["out_degree"]["init"].as_u64().unwrap() >= 1,
        "{stats}"
    );
    // With --strict passing, every step was merged (up to a failed one): one example per step.
    assert_eq!(
        stats["examples"].as_u64().unwrap() as usize,
        mergeable_steps(&data)
    );

    // Without --include-unverified nothing unmeasured enters, and each stop is reported.
    let verified = data.join("verified.json");
    let out = graph(&["--data", d, "build", "--out", verified.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("not verified on the GPU yet"),
        "{}",
        stderr(&out)
    );
    let out = graph(&[
        "--data",
        d,
        "stats",
        "--json",
        "--graph",
        verified.to_str().unwrap(),
    ]);
    let stats: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let measured_correct = std::fs::read_dir(data.join("trajectories"))
        .unwrap()
        .map(|e| {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| {
                    let t: serde_json::Value = serde_json::from_str(l).unwrap();
                    t["steps"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter(|s| s["measured"]["correct"] == true)
                        .count()
                })
                .sum::<usize>()
        })
        .sum::<usize>();
    // Only measured, correct steps enter (fewer where an earlier step of a trajectory is missing).
    assert!(
        stats["examples"].as_u64().unwrap() as usize <= measured_correct,
        "{stats}"
    );
    if measured_correct == 0 {
        assert_eq!(stats["examples"], 0, "{stats}");
    } else {
        assert!(stats["examples"].as_u64().unwrap() > 0, "{stats}");
    }
    assert_eq!(stats["examples"], stats["verified_examples"], "{stats}");
}

#[test]
fn export_show_paths_and_relabel() {
    let data = repo().join("graph-data");
    let d = data.to_str().unwrap();
    let dot = graph(&["--data", d, "export", "--dot"]);
    assert!(dot.status.success(), "{}", stderr(&dot));
    let text = stdout(&dot);
    assert!(text.starts_with("digraph regraph {"), "{text}");
    assert!(text.contains("init -> parallelize_outer_loop"), "{text}");

    let show = graph(&["--data", d, "show", "parallelize_outer_loop", "--json"]);
    assert!(show.status.success(), "{}", stderr(&show));
    let successors: serde_json::Value = serde_json::from_str(&stdout(&show)).unwrap();
    assert!(!successors.as_array().unwrap().is_empty());
    assert!(successors[0]["examples"].as_u64().unwrap() >= 1);

    let missing = graph(&["--data", d, "show", "no_such_technique"]);
    assert!(!missing.status.success());
    assert!(
        stderr(&missing).contains("not a node"),
        "{}",
        stderr(&missing)
    );

    let paths = graph(&[
        "--data", d, "paths", "--kind", "stencil", "--json", "-k", "2",
    ]);
    assert!(paths.status.success(), "{}", stderr(&paths));
    let paths: serde_json::Value = serde_json::from_str(&stdout(&paths)).unwrap();
    assert_eq!(paths.as_array().unwrap().len(), 2);
    assert_eq!(paths[0]["techniques"][0], "parallelize_outer_loop");

    let relabel = graph(&[
        "--data",
        d,
        "relabel",
        "--json",
        "warp shuffle",
        "bake a cake",
    ]);
    assert!(
        !relabel.status.success(),
        "an unmatched name fails the command"
    );
    let rows: serde_json::Value = serde_json::from_str(&stdout(&relabel)).unwrap();
    assert_eq!(rows[0]["technique"], "warp_shuffle_reduction");
    assert!(rows[1]["technique"].is_null());
}

#[test]
fn corrupt_trajectories_fail_with_file_and_line() {
    let (_tmp, data) = data_copy();
    let file = data.join("trajectories/blas.jsonl");
    let text = std::fs::read_to_string(&file).unwrap();
    let first = text.lines().next().unwrap();
    std::fs::write(&file, format!("{first}\n{}\n", &first[..first.len() / 2])).unwrap();
    let out = graph(&[
        "--data",
        data.to_str().unwrap(),
        "build",
        "--include-unverified",
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("blas.jsonl:2: invalid trajectory"),
        "{}",
        stderr(&out)
    );
    assert!(
        !data.join("regraph.json").exists(),
        "nothing is written on bad input"
    );
}

#[test]
fn unknown_names_are_reported_and_strict_fails() {
    let (_tmp, data) = data_copy();
    let file = data.join("trajectories/stencil.jsonl");
    let text = std::fs::read_to_string(&file).unwrap();
    let mut first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    first["steps"][1]["technique"] = "interpretive dance".into();
    std::fs::write(&file, format!("{first}\n")).unwrap();
    let d = data.to_str().unwrap();
    let out = graph(&["--data", d, "build", "--include-unverified"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("unmatched technique name: `interpretive dance`"),
        "{}",
        stderr(&out)
    );
    let strict = graph(&["--data", d, "build", "--include-unverified", "--strict"]);
    assert!(!strict.status.success());
}

#[test]
fn missing_data_and_graph_say_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-offload"))
        .args(["graph", "stats"])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(stderr(&out).contains("pass --data DIR"), "{}", stderr(&out));
    let (_tmp, data) = data_copy();
    let out = graph(&["--data", data.to_str().unwrap(), "stats"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("graph build"), "{}", stderr(&out));
}

/// `manifest --unmeasured` takes the steps without a measurement at the task's own timed shape:
/// missing ones and those measured before the verifier used the task's `[sizes]`.
#[test]
fn manifest_unmeasured_wants_the_tasks_own_shape() {
    let (tmp, data) = data_copy();
    let file = data.join("trajectories/string.jsonl");
    let manifest = |name: &str| -> Vec<String> {
        let out = tmp.path().join(name);
        let o = graph(&[
            "--data",
            data.to_str().unwrap(),
            "manifest",
            "--out",
            out.to_str().unwrap(),
            "--tasks",
            "pattern_count",
            "--unmeasured",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap())
                .unwrap();
        let region: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out.join("regions/pattern_count.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(region["sizes"]["timed"]["m"], 8, "the task's own shape");
        m["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap().to_string())
            .collect()
    };
    let set_sizes = |sizes: &[Option<&str>]| {
        let text = std::fs::read_to_string(&file).unwrap();
        let mut lines = Vec::new();
        for line in text.lines() {
            let mut t: serde_json::Value = serde_json::from_str(line).unwrap();
            if t["task"] == "pattern_count" {
                for (step, size) in t["steps"].as_array_mut().unwrap().iter_mut().zip(sizes) {
                    step["measured"]["size"] = size.map_or(serde_json::Value::Null, Into::into);
                }
            }
            lines.push(serde_json::to_string(&t).unwrap());
        }
        std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    };
    let shape = "n=134217728,m=8";
    set_sizes(&[None, None, None]);
    assert_eq!(
        manifest("before"),
        ["pattern_count#1", "pattern_count#2", "pattern_count#3"]
    );
    set_sizes(&[Some(shape), Some("n=100,m=100"), Some(shape)]);
    assert_eq!(manifest("after"), ["pattern_count#2"]);
}
