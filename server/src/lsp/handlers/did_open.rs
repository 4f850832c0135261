//! `textDocument/didOpen`: parse, analyse, publish.

use std::path::PathBuf;

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{DidOpenTextDocumentParams, Uri};

use super::publish;
use crate::analysis::Language;
use crate::lsp::document::OpenDocument;
use crate::lsp::state::State;

pub async fn handle(client: &Client, state: &State, params: DidOpenTextDocumentParams) {
    let doc = params.text_document;
    let Some(language) = language_of(&doc.uri, &doc.language_id) else {
        tracing::debug!("not a C++/CUDA document: {}", doc.uri.as_str());
        return;
    };
    state.documents.insert(
        doc.uri.clone(),
        OpenDocument::new(&doc.text, doc.version, language),
    );
    publish::diagnostics(client, state, &doc.uri).await;
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
