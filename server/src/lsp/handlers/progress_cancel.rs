//! `window/workDoneProgress/cancel`: the cancel button of a search's progress.

use tower_lsp_server::ls_types::{NumberOrString, WorkDoneProgressCancelParams};

use crate::lsp::state::State;

pub fn handle(state: &State, params: WorkDoneProgressCancelParams) {
    let token = match params.token {
        NumberOrString::String(s) => s,
        NumberOrString::Number(n) => n.to_string(),
    };
    let n = state
        .jobs
        .cancel_where(|_, job| job.progress_token.as_deref() == Some(token.as_str()));
    tracing::info!("progress {token} cancelled ({n} job)");
}
