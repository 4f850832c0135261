//! `textDocument/hover` on a loop: verdict, reason, suggested paths, and the path taken.

use tower_lsp_server::ls_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};

use crate::lsp::state::State;
use crate::lsp::to_proto;

pub fn handle(state: &State, params: HoverParams) -> Option<Hover> {
    let pos = params.text_document_position_params;
    let uri = pos.text_document.uri;
    let line = pos.position.line as usize + 1;
    let doc = state.documents.get(&uri)?;
    let report = doc.report().loop_at_line(line)?.clone();
    drop(doc);
    let suggestions = report
        .region
        .as_ref()
        .map(|r| {
            state
                .runner()
                .map(|run| run.suggested_paths(r, 3))
                .unwrap_or_default()
        })
        .unwrap_or_default();
    let results = state.results_for(&uri);
    let result = results.iter().find(|r| r.line == report.line);
    let markdown = to_proto::hover_markdown(&report, &suggestions, result);
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: markdown,
        }),
        range: None,
    })
}
