//! `graph build --relabel-with-llm` end to end: the real binary asks a model (replayed from answers
//! Qwen2.5-Coder-1.5B gave to these very questions: tests/cassettes/relabel-qwen2.5-coder-1.5b.jsonl)
//! about the names the vocabulary can only guess, keeps its decisions in relabel.json, and every
//! later build relabels with them, model or not.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn manifest_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// A copy of the fixture graph-data: the shipped vocabulary and four shipped trajectories with
/// their tasks, frozen as they were when the cassette was recorded.
fn data_copy() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let src = manifest_dir().join("tests/fixtures/relabel-data");
    let data = tmp.path().join("graph-data");
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.unwrap();
        let dst = data.join(entry.path().strip_prefix(&src).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dst).unwrap();
        } else {
            std::fs::copy(entry.path(), &dst).unwrap();
        }
    }
    (tmp, data)
}

fn graph(data: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cuda-offload"))
        .arg("graph")
        .arg("--data")
        .arg(data)
        .args(args)
        .env_remove("CUDA_OFFLOAD_BACKEND")
        .env_remove("CUDA_OFFLOAD_URL")
        .env_remove("CUDA_OFFLOAD_MODEL")
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn replayed(data: &Path, extra: &[&str]) -> Output {
    let cassette = manifest_dir().join("tests/cassettes/relabel-qwen2.5-coder-1.5b.jsonl");
    let mut args = vec![
        "build",
        "--relabel-with-llm",
        "--backend",
        "replay",
        "--model",
        "qwen2.5-coder-1.5b",
        "--cassette",
        cassette.to_str().unwrap(),
        "--include-unverified",
    ];
    args.extend_from_slice(extra);
    graph(data, &args)
}

#[test]
fn decisions_are_kept_and_every_later_build_uses_them() {
    let (_tmp, data) = data_copy();
    let o = replayed(&data, &[]);
    let log = stderr(&o);
    assert!(o.status.success(), "{log}");
    assert!(log.contains("about 12 name(s)"), "{log}");

    let labels: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data.join("relabel.json")).unwrap()).unwrap();
    let labels = labels.as_object().unwrap();
    assert_eq!(labels.len(), 12, "{labels:?}");
    let vocab = std::fs::read_to_string(data.join("techniques.toml")).unwrap();
    for (name, label) in labels {
        assert_eq!(label["model"], "qwen2.5-coder-1.5b");
        assert_eq!(label["date"].as_str().unwrap().len(), 10);
        if let Some(t) = label["technique"].as_str() {
            assert!(vocab.contains(&format!("name = \"{t}\"")), "{name} → {t}");
        }
    }
    // What the model answered, as recorded.
    assert_eq!(
        labels["shared memory tile transpose"]["technique"],
        "shared_memory_tiling"
    );
    assert_eq!(
        labels["naive one thread per element"]["technique"],
        serde_json::Value::Null
    );
    // "None fits" is a decision too: the similarity guess no longer places that name.
    assert!(
        log.contains("unmatched technique name: `naive one thread per element`"),
        "{log}"
    );
    let first = std::fs::read(data.join("regraph.json")).unwrap();

    // A plain build, no model: the same graph from relabel.json.
    let o = graph(&data, &["build", "--include-unverified"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(first, std::fs::read(data.join("regraph.json")).unwrap());
    let o = graph(&data, &["relabel", "float4 vectorization"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("vectorized_loads") && out.contains("learned"),
        "{out}"
    );

    // Decided names are not asked again.
    let o = replayed(&data, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("nothing to ask"), "{}", stderr(&o));
}

#[test]
fn a_model_that_is_down_stops_before_the_build_and_writes_nothing() {
    let (_tmp, data) = data_copy();
    let o = graph(
        &data,
        &[
            "build",
            "--relabel-with-llm",
            "--backend",
            "openai",
            "--url",
            "http://127.0.0.1:1/v1",
            "--model",
            "m",
        ],
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("not reachable"), "{}", stderr(&o));
    assert!(!data.join("relabel.json").exists());
    assert!(!data.join("regraph.json").exists());
}
