//! End-to-end tests of "Offload to CUDA" over the real binary: `cuda-offload.offload` on the saxpy
//! loop with recorded answers of a real model (tests/cassettes/lsp-saxpy.jsonl), through progress,
//! status notifications and `workspace/applyEdit`; an edit during the search keeping the result for
//! the "Apply kept CUDA kernel" action; and cancellation by the progress cancel button. The last two
//! talk to a local OpenAI-style server that holds the recorded answer until the test releases it.

#[allow(dead_code)]
#[path = "support/http.rs"]
mod http;
mod lsp_support;
mod workspace_copy;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use lsp_support::{Client, apply_edits, uri_of};
use serde_json::{Value, json};
use tokio::sync::Semaphore;

const T: Duration = Duration::from_secs(30);
/// A search compiles its candidate with nvcc; on a loaded 2-core machine that takes a while.
const SEARCH: Duration = Duration::from_secs(240);
/// The search the cassette was recorded with (tests/cassettes/README.md).
const STRATEGY: &str = "enumerate";
/// The cassette was recorded from the serial code (tests/cassettes/README.md).
const START: &str = "serial";
const BUDGET: u64 = 1;
/// The loop `for (int i = 0; i < n; ++i)` in saxpy.cpp, 0-based.
const LOOP_LINE: u64 = 6;

fn cassette() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cassettes/lsp-saxpy.jsonl")
}

/// The cassette's header line names the model its answers came from.
fn cassette_lines() -> Vec<Value> {
    std::fs::read_to_string(cassette())
        .expect("tests/cassettes/lsp-saxpy.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("cassette line is JSON"))
        .collect()
}

fn cassette_model() -> String {
    cassette_lines()[0]["model"].as_str().unwrap().to_string()
}

/// A private copy of test-workspaces/saxpy, so applied edits and kernel files stay out of the repo.
fn saxpy_copy() -> (tempfile::TempDir, PathBuf, String) {
    let dir = workspace_copy::copy("saxpy");
    let root = dir.path().canonicalize().unwrap();
    let file = root.join("saxpy.cpp");
    let text = std::fs::read_to_string(&file).unwrap();
    (dir, root, text)
}

/// The searches compile their candidate with nvcc: without one they cannot succeed here.
fn nvcc_found() -> bool {
    use cuda_offload::verify::toolchain::{default_project_roots, find_nvcc};
    match find_nvcc(None, &default_project_roots()) {
        Ok(_) => true,
        Err(e) => {
            cuda_offload::testing::skip_live(&format!(
                "no nvcc to compile the candidate with ({e})"
            ));
            false
        }
    }
}

fn offload_args(uri: &str) -> Value {
    json!({"command": "cuda-offload.offload", "arguments": [{"uri": uri, "line": LOOP_LINE}]})
}

/// Opens saxpy.cpp and waits for its first diagnostics, which must mark the loop.
fn open_saxpy(c: &mut Client, uri: &str, text: &str) {
    c.open(uri, text);
    let diags = c.diagnostics(uri, Some(1), T);
    assert!(
        diags
            .iter()
            .any(|d| d["range"]["start"]["line"] == LOOP_LINE && d["code"] == "offload-map"),
        "{diags:?}"
    );
}

fn messages<'a>(c: &'a Client, method: &str) -> Vec<&'a Value> {
    c.seen.iter().filter(|m| m["method"] == method).collect()
}

/// Checks one `workspace/applyEdit`: the kernel file created with its text, and the loop in
/// saxpy.cpp replaced by a call. Returns saxpy.cpp after the edit.
fn check_apply_edit(edit: &Value, root: &Path, uri: &str, text: &str) -> String {
    let kernel_uri = uri_of(&root.join("saxpy_cuda.cu"));
    let ops = edit["params"]["edit"]["documentChanges"]
        .as_array()
        .unwrap_or_else(|| panic!("documentChanges in {edit}"));
    assert!(
        ops.iter()
            .any(|o| o["kind"] == "create" && o["uri"] == kernel_uri),
        "CreateFile of saxpy_cuda.cu in {edit}"
    );
    let kernel_text: String = ops
        .iter()
        .filter(|o| o["textDocument"]["uri"] == kernel_uri)
        .flat_map(|o| o["edits"].as_array().unwrap().iter())
        .map(|e| e["newText"].as_str().unwrap().to_string())
        .collect();
    assert!(kernel_text.contains("__global__"), "{kernel_text}");
    assert!(kernel_text.contains("saxpy_gpu("), "{kernel_text}");
    assert!(
        kernel_text.contains("void saxpy_cuda(int n, float a, const float* x, float* y)")
            || kernel_text.contains("saxpy_cuda("),
        "{kernel_text}"
    );
    let source_edits: Vec<Value> = ops
        .iter()
        .filter(|o| o["textDocument"]["uri"] == uri)
        .flat_map(|o| o["edits"].as_array().unwrap().iter().cloned())
        .collect();
    assert!(!source_edits.is_empty(), "no edit of saxpy.cpp in {edit}");
    let after = apply_edits(text, &source_edits);
    assert!(after.contains("saxpy_cuda(n, a, x, y);"), "{after}");
    assert!(
        !after.contains("y[i] = a * x[i] + y[i];"),
        "loop kept:\n{after}"
    );
    // The rest of the file is untouched: main still calls saxpy.
    assert!(
        after.contains("saxpy(n, 2.0f, x.data(), y.data());"),
        "{after}"
    );
    // The same edit builds the kernel: CUDA enabled and the .cu in the saxpy target (issue #20).
    let lists = root.join("CMakeLists.txt");
    let lists_edits: Vec<Value> = ops
        .iter()
        .filter(|o| o["textDocument"]["uri"] == uri_of(&lists))
        .flat_map(|o| o["edits"].as_array().unwrap().iter().cloned())
        .collect();
    let lists_after = apply_edits(&std::fs::read_to_string(&lists).unwrap(), &lists_edits);
    assert!(
        lists_after.contains("enable_language(CUDA)\n")
            && lists_after.contains("target_sources(saxpy PRIVATE saxpy_cuda.cu)"),
        "{lists_after}"
    );
    // The kernel file keeps the lines it replaced, for check-build's serial version.
    assert!(
        kernel_text.contains("//|         y[i] = a * x[i] + y[i];"),
        "{kernel_text}"
    );
    after
}

#[test]
fn offload_with_recorded_answers_reports_progress_and_applies_the_kernel() {
    if !nvcc_found() {
        return;
    }
    let (_dir, root, text) = saxpy_copy();
    let uri = uri_of(&root.join("saxpy.cpp"));
    let mut c = Client::spawn(&[]);
    c.initialize(
        &root,
        json!({"backend": "replay", "cassette": cassette(), "model": cassette_model(),
               "strategy": STRATEGY, "budget": BUDGET, "start": START}),
        true,
    );
    open_saxpy(&mut c, &uri, &text);

    let resp = c.request("workspace/executeCommand", offload_args(&uri), SEARCH);
    let result = &resp["result"];
    assert_eq!(result["state"], "done", "{resp}");
    assert_eq!(result["applied"], true, "{resp}");
    assert_eq!(result["kernelFile"], "saxpy_cuda.cu", "{resp}");
    // No GPU here: the kernel was compiled, not run, so it is not verified.
    assert!(
        result["verdict"].as_str().unwrap().contains("not run"),
        "{resp}"
    );
    let job = result["jobId"].as_str().unwrap().to_string();
    // The project is then built with the edit in scratch copies, in the background.
    let checked = |m: &Value| {
        m["method"] == "window/showMessage"
            && m["params"]["message"].as_str().is_some_and(|t| {
                t.starts_with(
                    "cuda-offload: saxpy_cuda.cu: project builds before and after the edit",
                )
            })
    };
    assert!(
        c.seen.iter().any(checked) || c.wait_for(SEARCH, checked).is_some(),
        "{:?}",
        messages(&c, "window/showMessage")
    );

    let created = messages(&c, "window/workDoneProgress/create");
    assert_eq!(created.len(), 1, "{created:?}");
    let token = created[0]["params"]["token"].clone();
    let kinds: Vec<&str> = messages(&c, "$/progress")
        .into_iter()
        .filter(|m| m["params"]["token"] == token)
        .map(|m| m["params"]["value"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"begin"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"end"), "{kinds:?}");
    // One report per model call as it ends, with its technique, tokens, seconds and verdict.
    let calls: Vec<String> = messages(&c, "$/progress")
        .into_iter()
        .filter(|m| m["params"]["token"] == token)
        .filter_map(|m| m["params"]["value"]["message"].as_str().map(str::to_string))
        .filter(|m| m.starts_with("model call "))
        .collect();
    assert_eq!(calls.len(), BUDGET as usize, "{calls:?}");
    assert!(
        calls[0].starts_with(&format!("model call 1/{BUDGET}: "))
            && calls[0].contains(" tokens, ")
            && calls[0].contains(" s: "),
        "{calls:?}"
    );

    let states: Vec<String> = messages(&c, "cuda-offload/status")
        .into_iter()
        .flat_map(|m| m["params"]["jobs"].as_array().unwrap().clone())
        .filter(|j| j["jobId"] == job.as_str())
        .map(|j| {
            assert_eq!(j["uri"], uri.as_str());
            assert_eq!(j["line"], LOOP_LINE);
            j["state"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(states.first().map(String::as_str), Some("running"));
    assert_eq!(
        states.last().map(String::as_str),
        Some("done"),
        "{states:?}"
    );

    let edits = messages(&c, "workspace/applyEdit");
    assert_eq!(edits.len(), 1, "{edits:?}");
    let edit = edits[0].clone();
    check_apply_edit(&edit, &root, &uri, &text);

    let offloaded = c
        .wait_for(T, |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri.as_str()
                && m["params"]["diagnostics"]
                    .as_array()
                    .is_some_and(|d| d.iter().any(|d| d["code"] == "offloaded"))
        })
        .expect("a diagnostic with code `offloaded`");
    let d = offloaded["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "offloaded")
        .unwrap()
        .clone();
    assert!(
        d["message"].as_str().unwrap().contains("saxpy_cuda.cu"),
        "{d}"
    );
    assert!(c.shutdown().success());
}

/// An OpenAI-style server answering each request with the cassette's recorded answer to it, one
/// answer per permit added to the returned semaphore. A request the cassette does not hold gets a 400.
fn held_model_server(rt: &tokio::runtime::Runtime) -> (http::TestServer, Arc<Semaphore>) {
    let entries: Arc<Vec<Value>> = Arc::new(cassette_lines().split_off(1));
    let gate = Arc::new(Semaphore::new(0));
    let held = gate.clone();
    let server = rt.block_on(http::serve(move |req, stream| {
        let entries = entries.clone();
        let held = held.clone();
        async move {
            // The search first checks that the server is up: llama-server's model list.
            if req.method == "GET" && req.path.ends_with("/models") {
                let list = json!({"object": "list", "data": [{"id": cassette_model(), "object": "model"}]});
                http::respond(stream, 200, "application/json", list.to_string().as_bytes()).await;
                return;
            }
            let asked = req.json();
            let Some(entry) = entries
                .iter()
                .find(|e| e["request"]["messages"] == asked["messages"])
            else {
                let why = format!("not a recorded request: {asked}");
                http::respond(stream, 400, "text/plain", why.as_bytes()).await;
                return;
            };
            let Ok(permit) = held.acquire().await else {
                return;
            };
            permit.forget();
            let r = &entry["response"];
            let body = json!({
                "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": r["text"]},
                             "finish_reason": r["finish"]}],
                "usage": {"prompt_tokens": r["prompt_tokens"], "completion_tokens": r["completion_tokens"]},
            });
            http::respond(stream, 200, "application/json", body.to_string().as_bytes()).await;
        }
    }));
    (server, gate)
}

fn wait_until(what: &str, f: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + T;
    while !f() {
        assert!(std::time::Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn start_held(root: &Path, server: &http::TestServer) -> Client {
    let mut c = Client::spawn(&[]);
    c.initialize(
        root,
        json!({"backend": "openai", "url": format!("{}/v1", server.url()), "model": cassette_model(),
               "strategy": STRATEGY, "budget": BUDGET, "start": START, "checkBuild": false}),
        true,
    );
    c
}

#[test]
fn an_edit_during_the_search_keeps_the_result_for_the_apply_kept_action() {
    if !nvcc_found() {
        return;
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (server, gate) = held_model_server(&rt);
    let (_dir, root, text) = saxpy_copy();
    let uri = uri_of(&root.join("saxpy.cpp"));
    let mut c = start_held(&root, &server);
    open_saxpy(&mut c, &uri, &text);

    let id = c.request_async("workspace/executeCommand", offload_args(&uri));
    c.wait_for(T, |m| m["method"] == "cuda-offload/status")
        .expect("the job is announced");
    wait_until("the search asks the model", || server.hits() >= 2);

    // The user adds a line above the loop while the model is still answering: the kept result
    // must follow the loop down one line.
    let main_line = text
        .lines()
        .position(|l| l.contains("void saxpy("))
        .unwrap();
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": main_line, "character": 0},
                                             "end": {"line": main_line, "character": 0}},
                                   "text": "// edited during the search\n"}]}),
    );
    c.diagnostics(&uri, Some(2), T);
    let edited = format!(
        "{}// edited during the search\n{}",
        text.split_inclusive('\n')
            .take(main_line)
            .collect::<String>(),
        text.split_inclusive('\n')
            .skip(main_line)
            .collect::<String>()
    );
    gate.add_permits(BUDGET as usize);

    let resp = c.response(id, SEARCH);
    assert_eq!(resp["result"]["state"], "done", "{resp}");
    assert_eq!(resp["result"]["applied"], false, "{resp}");
    assert!(messages(&c, "workspace/applyEdit").is_empty());
    // Server notifications and responses travel on two streams: the message may follow the
    // response.
    let kept = |m: &Value| {
        m["method"] == "window/showMessage"
            && m["params"]["message"]
                .as_str()
                .is_some_and(|t| t.contains("Apply kept CUDA kernel"))
    };
    let told = c.seen.iter().any(kept) || c.wait_for(T, kept).is_some();
    assert!(told, "{:?}", messages(&c, "window/showMessage"));

    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri},
               "range": {"start": {"line": LOOP_LINE + 1, "character": 0}, "end": {"line": LOOP_LINE + 1, "character": 0}},
               "context": {"diagnostics": []}}),
        T,
    );
    let kept = actions["result"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| {
            a["title"]
                .as_str()
                .unwrap()
                .starts_with("Apply kept CUDA kernel")
        })
        .unwrap_or_else(|| panic!("no \"Apply kept CUDA kernel\" in {actions}"))
        .clone();
    let command = &kept["command"];
    assert_eq!(command["command"], "cuda-offload.applyKept");
    let applied = c.request(
        "workspace/executeCommand",
        json!({"command": command["command"], "arguments": command["arguments"]}),
        T,
    );
    assert_eq!(applied["result"]["applied"], true, "{applied}");
    let edits = messages(&c, "workspace/applyEdit");
    assert_eq!(edits.len(), 1, "{edits:?}");
    let edit = edits[0].clone();
    let after = check_apply_edit(&edit, &root, &uri, &edited);
    assert!(after.contains("// edited during the search"), "{after}");
    assert!(c.shutdown().success());
}

/// A search on the saxpy loop whose model never answers (only cancelling ends it), started and
/// waiting on the model: the client, the offload request's id and the progress token.
struct HeldSearch {
    c: Client,
    id: i64,
    token: Value,
    _server: http::TestServer,
    _gate: Arc<Semaphore>,
    _dir: tempfile::TempDir,
    _rt: tokio::runtime::Runtime,
}

fn held_search() -> HeldSearch {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (server, gate) = held_model_server(&rt);
    let (dir, root, text) = saxpy_copy();
    let uri = uri_of(&root.join("saxpy.cpp"));
    let mut c = start_held(&root, &server);
    open_saxpy(&mut c, &uri, &text);
    let id = c.request_async("workspace/executeCommand", offload_args(&uri));
    // Reading on answers the server's progress request, which the search waits for.
    let created = c
        .wait_for(T, |m| m["method"] == "window/workDoneProgress/create")
        .expect("progress created");
    let token = created["params"]["token"].clone();
    wait_until("the search asks the model", || server.hits() >= 2);
    HeldSearch {
        c,
        id,
        token,
        _server: server,
        _gate: gate,
        _dir: dir,
        _rt: rt,
    }
}

#[test]
fn the_progress_cancel_button_ends_the_search_as_cancelled() {
    let HeldSearch {
        mut c, id, token, ..
    } = held_search();
    c.notify("window/workDoneProgress/cancel", json!({"token": token}));

    let resp = c.response(id, T);
    assert_eq!(resp["result"]["state"], "cancelled", "{resp}");
    let ended = messages(&c, "$/progress")
        .into_iter()
        .any(|m| m["params"]["token"] == token && m["params"]["value"]["kind"] == "end");
    assert!(ended, "progress ended");
    let last_state = c
        .wait_for(T, |m| {
            m["method"] == "cuda-offload/status" && m["params"]["jobs"][0]["state"] == "cancelled"
        })
        .is_some();
    assert!(last_state, "a cancelled status");
    assert!(messages(&c, "workspace/applyEdit").is_empty());
    assert!(c.shutdown().success());
}

#[test]
fn cancel_request_on_the_offload_command_stops_the_search_and_frees_the_loop() {
    let HeldSearch {
        mut c,
        id,
        token: _,
        _server,
        _gate,
        _dir,
        _rt,
    } = held_search();
    c.notify("$/cancelRequest", json!({"id": id}));
    let resp = c.response(id, T);
    assert_eq!(resp["error"]["code"], -32800, "{resp}");

    // The job is gone: nothing is left to cancel, and no edit was sent.
    let mut left = json!(null);
    for _ in 0..50 {
        left = c.request(
            "workspace/executeCommand",
            json!({"command": "cuda-offload.cancel", "arguments": []}),
            T,
        );
        if left["result"]["cancelled"] == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(left["result"]["cancelled"], 0, "{left}");
    assert!(messages(&c, "workspace/applyEdit").is_empty());
    assert!(c.shutdown().success());
}
