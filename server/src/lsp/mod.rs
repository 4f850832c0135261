//! The language server (ARCHITECTURE.md §6). Issue #8. The only module that knows LSP types:
//! it converts the plain data of analysis/search/verify at the edge (`to_proto`).

pub mod document;
pub mod framing;
pub mod handlers;
pub mod jobs;
pub mod position;
pub mod server;
pub mod state;
pub mod to_proto;

use tower_lsp_server::{LspService, Server};

pub use jobs::{OffloadRequest, OffloadRunner, OffloadSummary};
pub use state::{LspSettings, RunnerFactory};

/// Serves LSP on the given streams until the client exits or closes them.
pub async fn serve<R, W>(input: R, output: W, factory: RunnerFactory)
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (input, output, raw, exited) = framing::validate(input, output);
    let (service, socket) =
        LspService::build(|client| server::Backend::new(client, factory.clone(), raw.clone()))
            .custom_method(
                "window/workDoneProgress/cancel",
                server::Backend::work_done_progress_cancel,
            )
            .finish();
    // Several slots: `cuda-offload.offload` requests stay pending while their search runs so that
    // `$/cancelRequest` can stop them; document notifications mutate state before their first await.
    let server = Server::new(input, output, socket)
        .concurrency_level(8)
        .serve(service);
    // Stop right after `exit` (or a closed input) even with work in flight; the grace period lets
    // the last answers reach the client.
    tokio::select! {
        _ = server => {}
        _ = async {
            let _ = exited.await;
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        } => {}
    }
}
