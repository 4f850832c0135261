//! Issue #20 over the real binary: in stencil2d with `jacobi_step` already offloaded, "Offload to
//! CUDA" on `max_change`'s loop (the port strategy: no model) applies one workspace edit that also
//! opens a residency session around main's convergence loop, and says so.

mod lsp_support;
mod workspace_copy;

use std::path::Path;
use std::time::Duration;

use cuda_offload::analysis;
use cuda_offload::project::{self, CudaArch, KernelFile};
use cuda_offload::search::workspace_edit::{kernel_file_name, kernel_source};
use lsp_support::{Client, apply_edits, uri_of};
use serde_json::{Value, json};

const T: Duration = Duration::from_secs(30);
/// The port is compiled with nvcc; on a loaded 2-core machine that takes a while.
const SEARCH: Duration = Duration::from_secs(240);

#[test]
fn offloading_the_last_loop_opens_the_session_in_the_same_edit() {
    use cuda_offload::verify::toolchain::{default_project_roots, find_nvcc};
    if let Err(e) = find_nvcc(None, &default_project_roots()) {
        cuda_offload::testing::skip_live(&format!("no nvcc to compile the port with ({e})"));
        return;
    }
    // A copy of stencil2d with jacobi_step offloaded (its kernel, call and build edit on disk).
    let dir = workspace_copy::copy("stencil2d");
    let root = dir.path().canonicalize().unwrap();
    let file = root.join("jacobi.cpp");
    let original = std::fs::read_to_string(&file).unwrap();
    let region = analysis::outline_in_file(&file, 9).unwrap().2;
    let code = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src/verify/testdata/candidates/jacobi_step_correct.cu"),
    )
    .unwrap();
    let many = project::offload_writes_many(
        &file,
        &original,
        &[KernelFile {
            region: &region,
            name: kernel_file_name(&region),
            text: kernel_source(&region, &code, "compiled", &[]),
        }],
        &CudaArch::from_setting("sm_90"),
        &project::read_from_disk,
        true,
    )
    .unwrap();
    for (p, t) in &many.writes {
        std::fs::write(p, t).unwrap();
    }
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains("cuda_offload_resident"), "not yet: {text}");

    let uri = uri_of(&file);
    let mut c = Client::spawn(&[]);
    // The build check after the search is lsp_offload_e2e's; here it would only add load.
    c.initialize(
        &root,
        json!({"strategy": "port", "checkBuild": false}),
        true,
    );
    c.open(&uri, &text);
    c.diagnostics(&uri, Some(1), T);
    let line = text
        .lines()
        .position(|l| l.contains("worst = std::fmax"))
        .unwrap();
    let resp = c.request(
        "workspace/executeCommand",
        json!({"command": "cuda-offload.offload", "arguments": [{"uri": uri, "line": line}]}),
        SEARCH,
    );
    assert_eq!(resp["result"]["applied"], true, "{resp}");

    let edits: Vec<&Value> = c
        .seen
        .iter()
        .filter(|m| m["method"] == "workspace/applyEdit")
        .collect();
    assert_eq!(edits.len(), 1, "one edit: {edits:?}");
    let ops = edits[0]["params"]["edit"]["documentChanges"]
        .as_array()
        .unwrap();
    let source_edits: Vec<Value> = ops
        .iter()
        .filter(|o| o["textDocument"]["uri"] == uri.as_str())
        .flat_map(|o| o["edits"].as_array().unwrap().iter().cloned())
        .collect();
    let after = apply_edits(&text, &source_edits);
    assert!(after.contains("max_change_loop"), "{after}");
    assert!(
        after.contains("    cuda_offload_resident_begin(); cuda_offload_resident_keep(u.data()); cuda_offload_resident_keep(v.data());  // cuda-offload session: u, v stay on the device across this loop\n    while (change"),
        "{after}"
    );
    assert!(
        after.contains(
            "    }\n    cuda_offload_resident_end();  // cuda-offload session: u, v copied back"
        ),
        "{after}"
    );
    // Notifications and the response travel apart: the message may already be in.
    let kept = |m: &Value| {
        m["method"] == "window/showMessage"
            && m["params"]["message"]
                .as_str()
                .is_some_and(|s| s.contains("kept on the device"))
    };
    let said = c
        .seen
        .iter()
        .find(|m| kept(m))
        .cloned()
        .or_else(|| c.wait_for(T, kept))
        .expect("a message that says what stays on the device");
    assert!(
        said["params"]["message"]
            .as_str()
            .unwrap()
            .contains("arrays u, v kept on the device across the loop at line"),
        "{said}"
    );

    // The user then reads an array on the host inside the loop: the session no longer holds,
    // and the loop gets a warning.
    let broken = after.replace(
        "        ++iter;\n",
        "        ++iter;\n        std::printf(\"%g\\n\", u[1]);\n",
    );
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": broken}]}),
    );
    let diags = c.diagnostics(&uri, Some(2), T);
    let warning = diags
        .iter()
        .find(|d| d["code"] == "residency-broken")
        .unwrap_or_else(|| panic!("{diags:#?}"));
    let while_line = broken
        .lines()
        .position(|l| l.trim_start().starts_with("while (change"))
        .unwrap();
    assert_eq!(warning["range"]["start"]["line"], while_line, "{warning}");
    assert_eq!(warning["severity"], 2, "{warning}");
    assert!(
        warning["message"]
            .as_str()
            .unwrap()
            .contains("does I/O (std::printf) with `u` on the host"),
        "{warning}"
    );
    assert!(c.shutdown().success());
}
