//! `textDocument/didClose`: forget the document and clear its diagnostics; running searches go on
//! (their result is kept for re-apply).

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::DidCloseTextDocumentParams;

use crate::lsp::state::State;

pub async fn handle(client: &Client, state: &State, params: DidCloseTextDocumentParams) {
    let uri = params.text_document.uri;
    state.documents.remove(&uri);
    super::publish::clear(client, state, &uri).await;
}
