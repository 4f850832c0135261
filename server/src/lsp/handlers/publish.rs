//! Builds and publishes the diagnostics of one document: its hot loops, then search results.

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::Uri;

use crate::lsp::state::State;
use crate::lsp::to_proto;

pub async fn diagnostics(client: &Client, state: &State, uri: &Uri) {
    let enc = state.encoding();
    let results = state.results_for(uri);
    let (diags, version) = {
        let Some(doc) = state.documents.get(uri) else {
            return;
        };
        let mut diags = Vec::new();
        for report in doc.report().loops.iter().filter(|l| l.hot) {
            // A loop with a search result shows the result instead of the estimate.
            if results.iter().any(|r| r.line == report.line) {
                continue;
            }
            diags.push(to_proto::loop_diagnostic(&doc.rope, report, enc));
        }
        for r in &results {
            diags.push(to_proto::result_diagnostic(&doc.rope, r, enc));
        }
        (diags, doc.version)
    };
    client
        .publish_diagnostics(uri.clone(), diags, Some(version))
        .await;
}
