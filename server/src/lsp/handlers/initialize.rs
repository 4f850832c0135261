//! `initialize`: negotiate the position encoding, read initializationOptions, declare capabilities.

use tower_lsp_server::ls_types::*;

use super::execute_command::COMMANDS;
use crate::lsp::position::Encoding;
use crate::lsp::state::{LspSettings, State};

pub fn handle(state: &State, params: InitializeParams) -> InitializeResult {
    let offered = params
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_deref());
    let encoding = Encoding::negotiate(offered);
    *state.encoding.write().expect("encoding lock") = encoding;

    if let Some(options) = params.initialization_options {
        // Editors may nest the section or send it flat.
        let section = options.get("cudaOffload").cloned().unwrap_or(options);
        match super::configuration::merge(&LspSettings::default(), &section) {
            Ok(s) => *state.settings.write().expect("settings lock") = s,
            Err(e) => tracing::warn!("ignoring initializationOptions: {e}"),
        }
    }
    let window = params.capabilities.window.as_ref();
    *state.client_supports_progress.write().expect("lock") =
        window.and_then(|w| w.work_done_progress).unwrap_or(false);
    *state.client_supports_configuration.write().expect("lock") = params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.configuration)
        .unwrap_or(false);

    InitializeResult {
        capabilities: ServerCapabilities {
            position_encoding: Some(encoding.kind()),
            text_document_sync: Some(TextDocumentSyncCapability::Options(
                TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::INCREMENTAL),
                    save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                        include_text: Some(false),
                    })),
                    ..TextDocumentSyncOptions::default()
                },
            )),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                code_action_kinds: Some(vec![CodeActionKind::REFACTOR_REWRITE]),
                ..CodeActionOptions::default()
            })),
            execute_command_provider: Some(ExecuteCommandOptions {
                commands: COMMANDS.iter().map(|c| c.to_string()).collect(),
                ..ExecuteCommandOptions::default()
            }),
            ..ServerCapabilities::default()
        },
        server_info: Some(ServerInfo {
            name: "cuda-offload".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
        offset_encoding: None,
    }
}
