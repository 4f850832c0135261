//! Re-verification on save over the real binary: an accepted kernel (offloaded with the recorded
//! answers of tests/cassettes/lsp-saxpy.jsonl and written to disk as the editor would) is
//! re-verified when its source or kernel file is saved, and a kernel that stops compiling turns
//! its diagnostic into a Warning.

mod lsp_support;
mod workspace_copy;

use std::path::{Path, PathBuf};
use std::time::Duration;

use lsp_support::Client;
use serde_json::{Value, json};

const T: Duration = Duration::from_secs(30);
const SEARCH: Duration = Duration::from_secs(240);

fn cassette() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cassettes/lsp-saxpy.jsonl")
}

/// The search the cassette was recorded with, from its header line (model) and README.
fn cassette_options() -> Value {
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(cassette())
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    json!({"backend": "replay", "cassette": cassette(), "model": header["model"], "strategy": "enumerate", "budget": 1})
}

/// Writes what a `workspace/applyEdit` created or changed, as an editor would on save.
fn apply_to_disk(edit: &Value) {
    for change in edit["params"]["edit"]["documentChanges"]
        .as_array()
        .unwrap()
    {
        let Some(uri) = change["textDocument"]["uri"].as_str() else {
            continue;
        };
        let path = uri.strip_prefix("file://").unwrap();
        if change["textDocument"]["version"].is_null() {
            let text = change["edits"][0]["newText"].as_str().unwrap();
            std::fs::write(path, text).unwrap();
        }
    }
}

fn diagnostic_with_code<'a>(diags: &'a [Value], code: &str) -> Option<&'a Value> {
    diags.iter().find(|d| d["code"] == code)
}

#[test]
fn saving_reverifies_accepted_kernels_and_warns_when_one_breaks() {
    let dir = workspace_copy::copy("saxpy");
    let root = dir.path().canonicalize().unwrap();
    let file = root.join("saxpy.cpp");
    let uri = format!("file://{}", file.display());
    let mut c = Client::spawn(&[]);
    c.initialize(&root, cassette_options(), true);
    c.open(&uri, &std::fs::read_to_string(&file).unwrap());
    c.diagnostics(&uri, Some(1), T);

    let resp = c.request(
        "workspace/executeCommand",
        json!({"command": "cuda-offload.offload", "arguments": [{"uri": uri, "line": 6}]}),
        SEARCH,
    );
    assert_eq!(resp["result"]["applied"], true, "{resp}");
    let edit = c
        .seen
        .iter()
        .find(|m| m["method"] == "workspace/applyEdit")
        .cloned()
        .expect("an applyEdit request");
    apply_to_disk(&edit);
    let kernel = root.join("saxpy_cuda.cu");
    assert!(
        std::fs::read_to_string(&kernel)
            .unwrap()
            .contains("void saxpy_gpu(")
    );

    // Save the source: the accepted kernel is re-verified (compile-only here: no GPU).
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    );
    let diags = loop {
        let d = c.diagnostics(&uri, None, SEARCH);
        if d.iter()
            .any(|x| x["message"].as_str().unwrap_or("").contains("re-verified"))
        {
            break d;
        }
    };
    let ok = diagnostic_with_code(&diags, "offloaded").expect("an offloaded diagnostic");
    assert!(ok["message"].as_str().unwrap().contains("not run"), "{ok}");

    // Break the kernel file and save it: the source's diagnostic becomes a Warning.
    std::fs::write(
        &kernel,
        "void saxpy_gpu(int n, float a, const float* x, float* y) { this does not compile }\n",
    )
    .unwrap();
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": format!("file://{}", kernel.display())}}),
    );
    let diags = loop {
        let d = c.diagnostics(&uri, None, SEARCH);
        if diagnostic_with_code(&d, "offload-failed-reverify").is_some() {
            break d;
        }
    };
    let warn = diagnostic_with_code(&diags, "offload-failed-reverify").unwrap();
    assert_eq!(warn["severity"], 2, "{warn}");
    assert!(
        warn["message"]
            .as_str()
            .unwrap()
            .contains("no longer verifies"),
        "{warn}"
    );
    assert!(c.shutdown().success());
}
