//! `textDocument/didChange`: apply the edits to the rope and the tree (incremental re-parse),
//! re-analyse once, mark search results stale, publish.

use std::sync::Arc;

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::DidChangeTextDocumentParams;

use super::publish;
use crate::lsp::position::to_byte;
use crate::lsp::state::State;

pub async fn handle(client: &Client, state: &Arc<State>, params: DidChangeTextDocumentParams) {
    let started = std::time::Instant::now();
    let uri = params.text_document.uri;
    let enc = state.encoding();
    {
        // State changes happen before the first await so notifications apply in arrival order.
        let Some(mut doc) = state.documents.get_mut(&uri) else {
            return;
        };
        for change in params.content_changes {
            match change.range {
                Some(range) => {
                    let start = to_byte(&doc.rope, range.start, enc);
                    let end = to_byte(&doc.rope, range.end, enc);
                    doc.edit(start, end, &change.text);
                }
                None => doc.replace_all(&change.text),
            }
        }
        doc.version = params.text_document.version;
        doc.refresh();
    }
    if let Some(results) = state.results.lock().expect("results lock").get_mut(&uri) {
        let mut kept = results.iter_mut().filter(|r| !r.applied).peekable();
        // The text is copied only when a kept result has to follow its loop: not on every keystroke.
        if kept.peek().is_some()
            && let Some(text) = state.documents.get(&uri).map(|d| d.text())
        {
            for r in kept {
                r.stale = true;
                // A kept result follows its loop when lines are added or removed around it.
                if let Some(line) = crate::lsp::state::relocate(&text, &r.loop_text, r.line) {
                    r.line = line;
                }
            }
        }
    }
    let analysed = started.elapsed();
    publish::diagnostics(client, state, &uri).await;
    tracing::debug!(
        analysis_ms = analysed.as_secs_f64() * 1e3,
        total_ms = started.elapsed().as_secs_f64() * 1e3,
        "didChange"
    );
    publish::outline_in_background(client, state, &uri);
}
