//! End-to-end tests of `cuda-offload lsp`: the real binary over stdio, real framing, the real
//! analysis of the test workspaces.

mod lsp_support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use lsp_support::{Client, frame, uri_of};
use serde_json::{Value, json};

const T: Duration = Duration::from_secs(30);

fn workspace(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../test-workspaces")
        .join(name)
        .canonicalize()
        .unwrap()
}

/// A server on workspace `ws` with `file` open: the client, the file's uri and text, and its
/// first diagnostics.
fn open_file(ws: &str, file: &str, utf8: bool) -> (Client, String, String, Vec<Value>) {
    let root = workspace(ws);
    let path = root.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let uri = uri_of(&path);
    let mut c = Client::spawn(&[]);
    c.initialize(&root, json!({}), utf8);
    c.open(&uri, &text);
    let diags = c.diagnostics(&uri, Some(1), T);
    (c, uri, text, diags)
}

fn codes(diags: &[Value]) -> Vec<(u64, String)> {
    diags
        .iter()
        .map(|d| {
            (
                d["range"]["start"]["line"].as_u64().unwrap(),
                d["code"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn negotiates_utf8_when_offered_and_utf16_otherwise() {
    let root = workspace("saxpy");
    let mut c = Client::spawn(&[]);
    let init = c.initialize(&root, json!({}), true);
    assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-8");
    assert!(c.shutdown().success());

    let mut c = Client::spawn(&[]);
    let init = c.initialize(&root, json!({}), false);
    assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-16");
    let caps = &init["result"]["capabilities"];
    assert_eq!(
        caps["executeCommandProvider"]["commands"][0],
        "cuda-offload.offload"
    );
    assert!(c.shutdown().success());
}

#[test]
fn diagnoses_hot_loops_with_kind_and_reason() {
    let (c, _uri, text, diags) = open_file("sequential", "sequential.cpp", true);
    assert!(!diags.is_empty());
    for d in &diags {
        assert_eq!(d["source"], "cuda-offload");
        assert_eq!(d["code"], "not-offloadable", "{d}");
        assert!(
            d["message"]
                .as_str()
                .unwrap()
                .starts_with("Not offloaded: "),
            "{d}"
        );
    }
    // The recurrence says which iteration's value it needs.
    let rec_line = text
        .lines()
        .position(|l| l.contains("u[i] = 0.5f * u[i - 1]"))
        .unwrap() as u64
        - 1;
    let rec = diags
        .iter()
        .find(|d| d["range"]["start"]["line"] == rec_line)
        .expect("recurrence diagnosed");
    assert!(
        rec["message"].as_str().unwrap().contains("u[i - 1]")
            || rec["message"].as_str().unwrap().contains("u[i-1]"),
        "{rec}"
    );
    // The three-iteration loop is not hot: no diagnostic.
    let tiny = text.lines().position(|l| l.contains("k < 3")).unwrap() as u64;
    assert!(diags.iter().all(|d| d["range"]["start"]["line"] != tiny));
    assert!(c.shutdown().success());
}

#[test]
fn incremental_edits_move_diagnostics_and_hover_explains() {
    let (mut c, uri, _text, diags) = open_file("saxpy", "saxpy.cpp", false);
    let before = codes(&diags);
    assert!(
        before.contains(&(6, "offload-map".to_string())),
        "{before:?}"
    );

    // Two lines inserted above the function: the loop's diagnostic moves down by two.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 5, "character": 0}, "end": {"line": 5, "character": 0}},
                                   "text": "// é 😀 comment\n\n"}]}),
    );
    let after = codes(&c.diagnostics(&uri, Some(2), T));
    assert!(after.contains(&(8, "offload-map".to_string())), "{after:?}");

    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 8, "character": 8}}),
        T,
    );
    let md = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(md.contains("**Offloadable**") && md.contains("map"), "{md}");

    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 8, "character": 0}, "end": {"line": 8, "character": 0}},
               "context": {"diagnostics": []}}),
        T,
    );
    let titles: Vec<&str> = actions["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, vec!["Offload to CUDA"]);
    assert_eq!(actions["result"][0]["kind"], "refactor.rewrite");
    assert!(c.shutdown().success());
}

#[test]
fn a_malformed_message_gets_an_error_and_the_server_keeps_serving() {
    let root = workspace("saxpy");
    let file = root.join("saxpy.cpp");
    let uri = uri_of(&file);
    let mut c = Client::spawn(&[]);
    c.initialize(&root, json!({}), true);
    c.send_raw(&frame(b"{this is not json"));
    let err = c
        .wait_for(T, |m| m["error"]["code"] == -32700)
        .expect("a parse error answer");
    assert_eq!(err["id"], Value::Null);
    c.send_raw(&frame(br#"{"id": 99, "no": "jsonrpc"}"#));
    c.wait_for(T, |m| m["error"]["code"] == -32600)
        .expect("an invalid request answer");
    // Still alive: a document opened afterwards is analysed.
    c.open(&uri, &std::fs::read_to_string(&file).unwrap());
    assert!(!c.diagnostics(&uri, Some(1), T).is_empty());
    assert!(c.shutdown().success());
}

#[test]
fn offloading_a_sequential_loop_is_refused_with_the_reason() {
    let (mut c, uri, text, _) = open_file("sequential", "sequential.cpp", true);
    let line = text
        .lines()
        .position(|l| l.contains("for (int i = 1; i < n; ++i)"))
        .unwrap();
    let resp = c.request(
        "workspace/executeCommand",
        json!({"command": "cuda-offload.offload", "arguments": [{"uri": uri, "line": line}]}),
        T,
    );
    let msg = resp["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("cannot run in parallel"), "{resp}");
    assert!(msg.contains("written by iteration i - 1"), "{resp}");
    assert!(c.shutdown().success());
}

#[test]
fn unknown_methods_out_of_range_positions_and_huge_files_are_handled() {
    let root = workspace("saxpy");
    let file = root.join("saxpy.cpp");
    let uri = uri_of(&file);
    let mut c = Client::spawn(&[]);
    c.initialize(&root, json!({}), false);
    let resp = c.request("cuda-offload/noSuchMethod", json!({}), T);
    assert_eq!(resp["error"]["code"], -32601, "{resp}");

    c.open(&uri, &std::fs::read_to_string(&file).unwrap());
    c.diagnostics(&uri, Some(1), T);
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 100000, "character": 9999}}),
        T,
    );
    assert!(
        hover["error"].is_null() && hover["result"].is_null(),
        "{hover}"
    );
    // An edit whose range lies past the end is clamped, not a crash.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 5000, "character": 3}, "end": {"line": 6000, "character": 0}},
                                   "text": "\n// appended\n"}]}),
    );
    assert!(!c.diagnostics(&uri, Some(2), T).is_empty());

    // A 20k-line file of loops: analysed, every hot loop diagnosed.
    let big_uri = uri_of(&root.join("big.cpp"));
    let mut big = String::new();
    for k in 0..2000 {
        big.push_str(&format!(
            "void f{k}(int n, const float* x, float* y) {{\n    for (int i = 0; i < n; ++i) {{\n        y[i] = 2.0f * x[i];\n    }}\n}}\n\n\n\n\n\n"
        ));
    }
    c.open(&big_uri, &big);
    // First the leading part of the file (what an editor shows on opening it), each diagnostic
    // already the one the whole file gives; then all of them.
    let first = c.diagnostics(&big_uri, Some(1), Duration::from_secs(60));
    assert!(!first.is_empty() && first.len() < 2000, "{}", first.len());
    let diags = c.diagnostics(&big_uri, Some(1), Duration::from_secs(60));
    assert_eq!(diags.len(), 2000);
    assert!(first.iter().all(|d| diags.contains(d)));
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": big_uri}}),
    );
    assert!(
        c.diagnostics(&big_uri, None, T).is_empty(),
        "closing clears the diagnostics"
    );
    assert!(c.shutdown().success());
}

#[test]
fn a_client_that_disappears_ends_the_server() {
    let root = workspace("saxpy");
    let mut c = Client::spawn(&[]);
    c.initialize(&root, json!({}), true);
    let status = c.close_stdin_and_wait(Duration::from_secs(10));
    assert!(
        status.is_some(),
        "the server kept running after its client went away"
    );
}

/// What a user sees on every test workspace: one line per diagnostic (line, code, severity,
/// message), reviewed by hand in tests/snapshots/.
#[test]
fn workspace_diagnostics_snapshot() {
    let mut seen = Vec::new();
    for (ws, file) in [
        ("saxpy", "saxpy.cpp"),
        ("stencil2d", "jacobi.cpp"),
        ("nbody", "nbody.cpp"),
        ("histogram", "histogram.cpp"),
        ("sequential", "sequential.cpp"),
    ] {
        let (c, _, _, diags) = open_file(ws, file, true);
        for d in diags {
            seen.push(format!(
                "{ws}/{file}:{} [{}] sev {} — {}",
                d["range"]["start"]["line"].as_u64().unwrap() + 1,
                d["code"].as_str().unwrap(),
                d["severity"],
                d["message"].as_str().unwrap()
            ));
        }
        assert!(c.shutdown().success());
    }
    insta::assert_snapshot!(seen.join("\n"));
}

/// Issue #20: a loop whose function is called from a convergence loop says what keeping its
/// arrays on the device across that loop needs.
#[test]
fn hover_says_which_other_function_residency_needs() {
    let (mut c, uri, text, _diags) = open_file("stencil2d", "jacobi.cpp", true);
    let line = text
        .lines()
        .position(|l| l.contains("worst = std::fmax"))
        .unwrap();
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 8}}),
        T,
    );
    let md = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        md.contains("**Data residency**\n\n- called in the loop at line 29 of main: keeping u, v on the device across it needs jacobi_step offloaded too"),
        "{md}"
    );
    assert!(c.shutdown().success());
}
