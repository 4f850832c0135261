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
    let (report, outlined, residency) = {
        let doc = state.documents.get(uri)?;
        let report = doc.loop_at_line(line)?.clone();
        let outlined = report.parallel.then(|| doc.outline(report.line));
        // Where this loop's function is called in a loop: could its arrays stay on the device?
        let residency = match (&outlined, &report.function) {
            (Some(Ok((_, region))), Some(function)) => {
                crate::analysis::residency::plan(&doc.text(), std::slice::from_ref(region))
                    .into_iter()
                    .filter(|r| r.calls.iter().any(|c| c == function || *c == region.name))
                    .map(|r| r.describe())
                    .collect()
            }
            _ => Vec::new(),
        };
        (report, outlined, residency)
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
    let mut md = to_proto::hover_markdown(&report, refusal.as_deref(), &suggestions, result);
    if !residency.is_empty() {
        md.push_str("**Data residency**\n\n");
        for r in residency {
            md.push_str(&format!("- {r}\n"));
        }
        md.push('\n');
    }
    Some(md)
}
