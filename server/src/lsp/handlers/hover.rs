//! `textDocument/hover` on a loop: verdict, reason, suggested paths, and the path taken.

use tower_lsp_server::ls_types::{
    Hover, HoverContents, HoverParams, MarkupContent, MarkupKind, Uri,
};

use crate::lsp::state::State;
use crate::lsp::to_proto;

pub fn handle(state: &State, params: HoverParams) -> Option<Hover> {
    let pos = params.text_document_position_params;
    let markdown = loop_markdown(
        state,
        &pos.text_document.uri,
        pos.position.line as usize + 1,
        3,
    )?;
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: markdown,
        }),
        range: None,
    })
}

/// The Markdown shown for the loop containing a 1-based line (hover, `cuda-offload.showPath`):
/// verdict, up to `paths` suggested paths from the graph, and the search result if any.
pub fn loop_markdown(state: &State, uri: &Uri, line: usize, paths: usize) -> Option<String> {
    let (report, outlined) = {
        let doc = state.documents.get(uri)?;
        let report = doc.loop_at_line(line)?.clone();
        let outlined = report.parallel.then(|| doc.outline(report.line));
        (report, outlined)
    };
    let suggestions = match (&outlined, state.runner()) {
        (Some(Ok((_, region))), Ok(runner)) => runner.suggested_paths(region, paths),
        _ => Vec::new(),
    };
    let refusal = match outlined {
        Some(Err(e)) => Some(e.to_string()),
        _ => None,
    };
    let results = state.results_for(uri);
    let result = results.iter().find(|r| r.line == report.line);
    Some(to_proto::hover_markdown(
        &report,
        refusal.as_deref(),
        &suggestions,
        result,
    ))
}
