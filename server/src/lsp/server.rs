//! The dispatch table: which handler serves which request or notification. Handlers are quick:
//! long work (searches, re-verification) runs in background tasks that report back.

use std::sync::Arc;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use super::handlers;
use super::state::RunnerFactory;
use super::state::State;

pub struct Backend {
    pub client: Client,
    pub state: Arc<State>,
}

impl Backend {
    pub fn new(client: Client, factory: RunnerFactory, raw: super::framing::RawSender) -> Self {
        let state = State::new(factory);
        let _ = state.raw_out.set(raw);
        Backend {
            client,
            state: Arc::new(state),
        }
    }

    /// `window/workDoneProgress/cancel`: the progress cancel button.
    pub async fn work_done_progress_cancel(&self, params: WorkDoneProgressCancelParams) {
        handlers::progress_cancel::handle(&self.state, params);
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        Ok(handlers::initialize::handle(&self.state, params))
    }

    async fn initialized(&self, _: InitializedParams) {
        handlers::configuration::pull(&self.client, &self.state).await;
    }

    async fn shutdown(&self) -> Result<()> {
        self.state.jobs.cancel_where(|_, _| true);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        handlers::did_open::handle(&self.client, &self.state, params).await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        handlers::did_change::handle(&self.client, &self.state, params).await;
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        handlers::did_save::handle(&self.client, &self.state, params).await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        handlers::did_close::handle(&self.client, &self.state, params).await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        handlers::configuration::changed(&self.client, &self.state, params).await;
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        Ok(handlers::hover::handle(&self.state, params))
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        Ok(handlers::code_action::handle(&self.state, params))
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        handlers::execute_command::handle(&self.client, &self.state, params).await
    }
}
