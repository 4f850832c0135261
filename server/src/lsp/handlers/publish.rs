//! Builds and publishes the diagnostics of one document: its hot loops, then search results.
//! Why a parallel loop cannot be outlined is found lazily in a large file: the first diagnostics
//! come from the verdicts, and a background pass publishes again once the notes are in.

use std::sync::Arc;

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{Diagnostic, Uri};

use crate::lsp::state::State;
use crate::lsp::to_proto;

/// Functions outlined per step of the background pass: the document is locked for one step.
const OUTLINE_STEP: usize = 4;

pub async fn diagnostics(client: &Client, state: &State, uri: &Uri) {
    let enc = state.encoding();
    let results = state.results_for(uri);
    let raw = state.raw_out.get();
    let (loops, extra, version) = {
        let Some(mut doc) = state.documents.get_mut(uri) else {
            return;
        };
        // A loop with a search result shows the result instead of the estimate.
        let skip: Vec<usize> = results.iter().map(|r| r.line).collect();
        let loops = doc.loop_diagnostics(enc, &skip, raw.is_none());
        let mut extra: Vec<Diagnostic> = results
            .iter()
            .map(|r| to_proto::result_diagnostic(&doc.rope, r, enc))
            .collect();
        // A residency session the user's later edits broke: the program would read stale data.
        extra.extend(
            crate::analysis::residency::broken_sessions(&doc.text())
                .iter()
                .map(|r| to_proto::broken_session_diagnostic(&doc.rope, r, enc)),
        );
        (loops, extra, doc.version)
    };
    match raw {
        // The same notification tower-lsp-server would send, from JSON built once per function.
        Some(raw) => {
            let mut list = loops.json;
            for d in &extra {
                if !list.is_empty() {
                    list.push(',');
                }
                list.push_str(&serde_json::to_string(d).unwrap_or_default());
            }
            let _ = raw.send(notification(uri, &list, Some(version)).into_bytes());
        }
        None => {
            let mut diags = loops.diagnostics;
            diags.extend(extra);
            client
                .publish_diagnostics(uri.clone(), diags, Some(version))
                .await;
        }
    }
}

/// Sends the diagnostics of a first look at a large file at once, without waiting for anything
/// (so that the opening handler can go on to analyse the whole file before its first await:
/// notifications are applied in arrival order). Only over the server's own output channel.
pub fn first_look(
    state: &State,
    uri: &Uri,
    version: i32,
    json_list: impl FnOnce() -> Option<String>,
) {
    if let Some(raw) = state.raw_out.get()
        && let Some(list) = json_list()
    {
        let _ = raw.send(notification(uri, &list, Some(version)).into_bytes());
    }
}

fn notification(uri: &Uri, json_list: &str, version: Option<i32>) -> String {
    let uri = serde_json::Value::String(uri.as_str().to_string()).to_string();
    let version = version.map_or(String::new(), |v| format!(r#","version":{v}"#));
    // Sized once: the list is the size of the file's diagnostics (~1 MB for 2,300 loops).
    let mut body = String::with_capacity(json_list.len() + uri.len() + version.len() + 100);
    body.push_str(
        r#"{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"#,
    );
    body.push_str(&uri);
    body.push_str(r#","diagnostics":["#);
    body.push_str(json_list);
    body.push(']');
    body.push_str(&version);
    body.push_str("}}");
    body
}

/// Clears the diagnostics of a closed document (through the same path as [`diagnostics`], so
/// that it cannot overtake them).
pub async fn clear(client: &Client, state: &State, uri: &Uri) {
    match state.raw_out.get() {
        Some(raw) => {
            let _ = raw.send(notification(uri, "", None).into_bytes());
        }
        None => {
            client
                .publish_diagnostics(uri.clone(), Vec::new(), None)
                .await
        }
    }
}

/// Starts the background pass that finds the notes the first diagnostics of `uri` lacked, unless
/// one runs already or nothing is pending. It works in short steps (other notifications go
/// first) and publishes once at the end, if a diagnostic changed.
pub fn outline_in_background(client: &Client, state: &Arc<State>, uri: &Uri) {
    let pending = state
        .documents
        .get(uri)
        .is_some_and(|d| d.pending_outlines() > 0);
    if !pending || state.outlining.insert(uri.clone(), ()).is_some() {
        return;
    }
    let (client, state, uri) = (client.clone(), state.clone(), uri.clone());
    tokio::spawn(async move {
        let mut changed = false;
        loop {
            tokio::task::yield_now().await;
            let step = state
                .documents
                .get_mut(&uri)
                .map(|mut d| d.outline_pending(OUTLINE_STEP));
            let Some((left, step_changed)) = step else {
                break; // closed
            };
            changed |= step_changed;
            if left == 0 {
                break;
            }
        }
        state.outlining.remove(&uri);
        if changed {
            diagnostics(&client, &state, &uri).await;
        }
        // An edit may have left new work while the last step ran.
        let again = state
            .documents
            .get(&uri)
            .is_some_and(|d| d.pending_outlines() > 0);
        if again {
            outline_in_background(&client, &state, &uri);
        }
    });
}
