//! What can go wrong talking to a model, each case with what the user should do next.

use std::path::PathBuf;

use super::BackendKind;

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("{backend} server at {url} is not reachable ({reason}). {hint}")]
    ServerDown {
        backend: BackendKind,
        url: String,
        reason: String,
        hint: String,
    },
    #[error(
        "{backend} server at {url} does not have model `{model}` (it has: {available}). Fix: {fix}"
    )]
    ModelMissing {
        backend: BackendKind,
        url: String,
        model: String,
        available: String,
        fix: String,
    },
    #[error("{url} answered HTTP {status}: {body}")]
    Http {
        url: String,
        status: u16,
        body: String,
    },
    #[error("{url} reported an error: {message}")]
    ServerError { url: String, message: String },
    #[error("{url} answered something that is not a chat completion: {reason}")]
    Garbage { url: String, reason: String },
    #[error(
        "{url} closed the answer before it was complete ({reason}; {received} characters received)"
    )]
    Truncated {
        url: String,
        reason: String,
        received: usize,
    },
    #[error(
        "{url} sent no first token within {secs}s (is the model still loading? raise the first-token timeout)"
    )]
    FirstTokenTimeout { url: String, secs: f64 },
    #[error(
        "{url} did not finish the answer within {secs}s after the first token (raise the total timeout or lower max_tokens)"
    )]
    Timeout { url: String, secs: f64 },
    #[error("the model call was cancelled")]
    Cancelled,
    #[error("the deadline passed before the model answered")]
    DeadlineExceeded,
    #[error(
        "no recorded answer for request key {key} in cassette {} (model `{model}`); record it with the real model (`record = true`)",
        cassette.display()
    )]
    CassetteMiss {
        key: String,
        cassette: PathBuf,
        model: String,
    },
    #[error("cassette {}: {reason}", path.display())]
    Cassette { path: PathBuf, reason: String },
    #[error("model backend configuration: {reason}")]
    Config { reason: String },
}

impl LlmError {
    /// Errors a second attempt may cure: the server was not there (yet), or the connection broke
    /// before anything was answered. Everything else (HTTP errors, garbage) would repeat.
    pub fn is_connection(&self) -> bool {
        matches!(self, LlmError::ServerDown { .. })
    }
}
