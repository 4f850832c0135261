//! `textDocument/didOpen`: a large file's leading part first, then parse, analyse, publish (and
//! find the rest of the notes later).

use std::path::PathBuf;
use std::sync::Arc;

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{DidOpenTextDocumentParams, Uri};

use super::publish;
use crate::analysis::{Headers, Language};
use crate::lsp::document::OpenDocument;
use crate::lsp::state::State;

pub async fn handle(client: &Client, state: &Arc<State>, params: DidOpenTextDocumentParams) {
    let doc = params.text_document;
    let Some(language) = language_of(&doc.uri, &doc.language_id) else {
        tracing::debug!("not a C++/CUDA document: {}", doc.uri.as_str());
        return;
    };
    // The project headers it includes (index macros, constants, helpers) shape its verdicts.
    let headers = doc
        .uri
        .to_file_path()
        .map(|p| Headers::beside(&PathBuf::from(p.as_ref()), doc.text.as_bytes()))
        .unwrap_or_default();
    // A large file's leading part first: the whole file's verdicts take a multiple of the time.
    publish::first_look(state, &doc.uri, doc.version, || {
        OpenDocument::first_look(&doc.text, language, &headers, state.encoding())
    });
    state.documents.insert(
        doc.uri.clone(),
        OpenDocument::with_headers(&doc.text, doc.version, language, headers),
    );
    publish::diagnostics(client, state, &doc.uri).await;
    publish::outline_in_background(client, state, &doc.uri);
}

pub fn language_of(uri: &Uri, language_id: &str) -> Option<Language> {
    let by_path = uri
        .to_file_path()
        .and_then(|p| Language::from_path(&PathBuf::from(p.as_ref())));
    by_path.or(match language_id {
        "c" => Some(Language::C),
        "cpp" => Some(Language::Cpp),
        "cuda" | "cuda-cpp" => Some(Language::Cuda),
        _ => None,
    })
}
