//! `textDocument/didSave`: re-verify accepted kernels in the background (the rust-analyzer
//! flycheck pattern): debounce, cancel the previous run, drop results of older generations.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{DidSaveTextDocumentParams, Uri};

use super::publish;
use crate::lsp::state::State;

const DEBOUNCE: Duration = Duration::from_millis(200);

pub async fn handle(client: &Client, state: &Arc<State>, params: DidSaveTextDocumentParams) {
    let saved = params.text_document.uri;
    let Some(saved_path) = saved.to_file_path().map(|p| PathBuf::from(p.as_ref())) else {
        return;
    };
    // Saving the source or one of its kernel files re-verifies that source's accepted kernels.
    let sources: Vec<Uri> = {
        let results = state.results.lock().expect("results lock");
        results
            .iter()
            .filter(|(uri, list)| {
                list.iter().any(|r| {
                    r.applied
                        && (*uri == &saved
                            || kernel_path(uri, &r.summary.kernel_file).as_deref()
                                == Some(saved_path.as_path()))
                })
            })
            .map(|(u, _)| u.clone())
            .collect()
    };
    for source in sources {
        let generation = {
            let mut g = state.save_generation.entry(source.clone()).or_insert(0);
            *g += 1;
            *g
        };
        let cancel = CancellationToken::new();
        if let Some(previous) = state.reverify_runs.insert(source.clone(), cancel.clone()) {
            previous.cancel();
        }
        let (client, state) = (client.clone(), state.clone());
        tokio::spawn(async move { reverify(client, state, source, generation, cancel).await });
    }
}

fn kernel_path(source: &Uri, kernel_file: &str) -> Option<PathBuf> {
    let p = PathBuf::from(source.to_file_path()?.as_ref());
    Some(p.with_file_name(kernel_file))
}

async fn reverify(
    client: Client,
    state: Arc<State>,
    source: Uri,
    generation: u64,
    cancel: CancellationToken,
) {
    tokio::select! {
        _ = tokio::time::sleep(DEBOUNCE) => {}
        _ = cancel.cancelled() => return,
    }
    let accepted: Vec<_> = state
        .results_for(&source)
        .into_iter()
        .filter(|r| r.applied)
        .collect();
    for result in accepted {
        let Some(path) = kernel_path(&source, &result.summary.kernel_file) else {
            continue;
        };
        let outcome = match read(&path) {
            Ok(text) => match state.runner() {
                Ok(runner) => {
                    runner
                        .reverify(result.region.clone(), text, cancel.clone())
                        .await
                }
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        };
        if cancel.is_cancelled()
            || state.save_generation.get(&source).map(|g| *g) != Some(generation)
        {
            return; // a newer save owns the diagnostics now
        }
        let verdict = match outcome {
            Ok(o) => (o.ok, o.verdict),
            Err(e) => (false, e),
        };
        if let Some(r) = state
            .results
            .lock()
            .expect("results lock")
            .get_mut(&source)
            .and_then(|v| v.iter_mut().find(|r| r.job_id == result.job_id))
        {
            r.reverify = Some(verdict);
        }
    }
    publish::diagnostics(&client, &state, &source).await;
}

fn read(path: &Path) -> Result<String, String> {
    crate::analysis::read_source(path).map_err(|e| e.to_string())
}
