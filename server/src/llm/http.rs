//! reqwest plumbing shared by the HTTP backends: one client per backend, errors sorted into
//! "the server is not there" (retryable) and the rest.

use std::time::Duration;

use super::{BackendKind, LlmError};

pub(crate) fn client(connect: Duration) -> Result<reqwest::Client, LlmError> {
    reqwest::Client::builder()
        .connect_timeout(connect)
        // Idle pooled connections to a restarted server fail on reuse; keep them short-lived.
        .pool_idle_timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| LlmError::Config {
            reason: format!("cannot build an HTTP client: {}", root_cause(&e)),
        })
}

/// Sorts a failed `send()`: nothing answered (refused, reset, closed before the status line) is a
/// connection error; anything else is reported as a broken answer.
pub(crate) fn send_error(
    e: reqwest::Error,
    backend: BackendKind,
    url: &str,
    model: &str,
) -> LlmError {
    if e.is_connect() || e.is_request() || e.is_timeout() {
        LlmError::ServerDown {
            backend,
            url: url.to_string(),
            reason: root_cause(&e),
            hint: super::setup_hint::start_hint(backend, url, model),
        }
    } else {
        LlmError::Garbage {
            url: url.to_string(),
            reason: root_cause(&e),
        }
    }
}

pub(crate) fn root_cause(e: &dyn std::error::Error) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

/// Error bodies can be whole HTML pages; the first line or two is what helps.
pub(crate) fn excerpt(body: &str) -> String {
    const MAX: usize = 300;
    let body = body.trim();
    if body.chars().count() <= MAX {
        body.to_string()
    } else {
        let cut: String = body.chars().take(MAX).collect();
        format!("{cut}…")
    }
}
