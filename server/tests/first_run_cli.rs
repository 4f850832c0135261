//! What a new user trips over (issue #21), through the real binary: a model server that is not
//! running is said before the search, with what to start; `doctor --backend openai` speaks only of
//! that backend; a file that is not UTF-8 is named with the offset of its first bad byte; every
//! model call prints a line as it ends, and the result names the returned kernel's path.

mod workspace_copy;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cuda-offload"));
    c.env_remove("CUDA_OFFLOAD_BACKEND")
        .env_remove("CUDA_OFFLOAD_URL")
        .env_remove("CUDA_OFFLOAD_MODEL");
    c
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// The verifier needs nvcc before anything else; without one the calling test is skipped.
fn have_nvcc() -> bool {
    use cuda_offload::verify::toolchain::{default_project_roots, find_nvcc};
    match find_nvcc(None, &default_project_roots()) {
        Ok(_) => true,
        Err(e) => {
            cuda_offload::testing::skip_live(&format!("no nvcc for the verifier: {e}"));
            false
        }
    }
}

/// A URL nothing listens on: bind, note the port, close.
fn dead_url() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}/v1", l.local_addr().unwrap())
}

/// A private copy of test-workspaces/saxpy (an `--out` or a bad file must not land in the repo).
fn saxpy_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = workspace_copy::copy("saxpy");
    let file = dir.path().join("saxpy.cpp");
    (dir, file)
}

#[test]
fn a_model_server_that_is_not_running_is_said_before_the_search() {
    if !have_nvcc() {
        return;
    }
    let (dir, file) = saxpy_copy();
    let url = dead_url();
    let started = Instant::now();
    let o = bin()
        .current_dir(dir.path())
        .arg("offload")
        .arg(&file)
        .args([
            "--line",
            "7",
            "--budget",
            "4",
            "--backend",
            "openai",
            "--url",
        ])
        .arg(&url)
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
    assert!(
        err.contains(&format!("openai server at {url} is not reachable")),
        "{err}"
    );
    // What to start, for this backend only, on the URL's port; and no search was run.
    let port = url.rsplit(':').next().unwrap().trim_end_matches("/v1");
    assert!(
        err.contains("llama-server") && err.contains(&format!("--port {port}")),
        "{err}"
    );
    assert!(!err.to_lowercase().contains("ollama"), "{err}");
    assert!(
        !err.contains("no candidate passed") && !err.contains("call 1/"),
        "{err}"
    );
}

#[test]
fn doctor_for_an_openai_server_never_suggests_ollama() {
    let dir = tempfile::tempdir().unwrap();
    let url = dead_url();
    let o = bin()
        .current_dir(dir.path())
        .args(["doctor", "--backend", "openai", "--url"])
        .arg(&url)
        .output()
        .unwrap();
    let out = stdout(&o);
    assert!(!o.status.success(), "{out}");
    let llm = out
        .lines()
        .skip_while(|l| !l.contains("model server"))
        .take(2)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(llm.contains("MISSING") && llm.contains(&url), "{out}");
    assert!(
        llm.contains("fix:") && llm.contains("llama-server"),
        "{llm}"
    );
    assert!(!out.to_lowercase().contains("ollama"), "{out}");

    // Without a backend both are tried, and both are named.
    let o = bin()
        .current_dir(dir.path())
        .args(["doctor", "--url"])
        .arg(url.trim_end_matches("/v1"))
        .output()
        .unwrap();
    let out = stdout(&o);
    assert!(
        out.contains("ollama serve") && out.contains("llama-server"),
        "{out}"
    );
}

#[test]
fn a_file_that_is_not_utf8_is_named_with_its_offset() {
    let (dir, file) = saxpy_copy();
    let mut text = std::fs::read(&file).unwrap();
    // A Latin-1 "é" in a comment on line 2 (byte offset of the comment start + 3).
    let first_line = text.iter().position(|b| *b == b'\n').unwrap() + 1;
    let mut bad = b"// \xe9t\xe9\n".to_vec();
    let offset = first_line + 3;
    bad.extend(text.split_off(first_line));
    text.extend(bad);
    let latin = dir.path().join("latin.cpp");
    std::fs::write(&latin, &text).unwrap();
    let named = format!(
        "{}: not UTF-8 text (the first invalid byte is at byte offset {offset}, line 2)",
        latin.display()
    );

    // scan still lists the loops, and warns.
    let o = bin().arg("scan").arg(&latin).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains(&named), "{}", stderr(&o));
    assert!(stdout(&o).contains("map"), "{}", stdout(&o));

    // offload refuses before anything else.
    let o = bin()
        .arg("offload")
        .arg(&latin)
        .args(["--line", "8", "--backend", "openai", "--url", &dead_url()])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains(&named), "{}", stderr(&o));

    if !have_nvcc() {
        return;
    }
    // verify names a candidate that is not UTF-8.
    let o = bin()
        .arg("verify")
        .arg(&file)
        .args(["--line", "7", "--candidate"])
        .arg(&latin)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains(&named) && stderr(&o).contains("cannot read the candidate"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn each_model_call_prints_a_line_and_the_result_names_the_kernels_path() {
    if !have_nvcc() {
        return;
    }
    let cassette = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cassettes/lsp-saxpy.jsonl");
    let model = cuda_offload::llm::replay::Cassette::load(&cassette)
        .unwrap()
        .header
        .model;
    let (dir, file) = saxpy_copy();
    let out = dir.path().join("out");
    // The search the cassette was recorded with (tests/cassettes/README.md).
    let o = bin()
        .current_dir(dir.path())
        .arg("offload")
        .arg(&file)
        .args([
            "--line",
            "7",
            "--strategy",
            "enumerate",
            "--budget",
            "1",
            "--start",
            "serial",
        ])
        .args(["--backend", "replay", "--model"])
        .arg(&model)
        .arg("--cassette")
        .arg(&cassette)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    let call = err
        .lines()
        .find(|l| l.starts_with("  call 1/1: "))
        .unwrap_or_else(|| panic!("no line for the model call: {err}"));
    // Technique, attempt, tokens, seconds, verdict.
    let technique = call
        .trim_start_matches("  call 1/1: ")
        .split(' ')
        .next()
        .unwrap();
    assert!(
        call.contains("(first answer), ") && call.contains(" tokens, ") && call.contains(" s: "),
        "{call}"
    );
    assert!(
        err.contains(&format!("tried: {technique}")),
        "the iteration line names what it tried: {err}"
    );
    let result = stdout(&o);
    assert!(
        result.contains(&format!("path:   {technique} ("))
            && result.contains("cost:   1 model call,"),
        "{result}"
    );
    // The project is built with the edit in a scratch copy (check_build, on by default).
    assert!(
        result.contains("check:  project builds before and after the edit;"),
        "{result}"
    );
    let cu = std::fs::read_to_string(out.join("saxpy_cuda.cu")).unwrap();
    let header = cu.lines().take(2).collect::<Vec<_>>().join("\n");
    assert!(
        !header.contains("verified against it") && header.contains("What its verification found"),
        "{header}"
    );
}
