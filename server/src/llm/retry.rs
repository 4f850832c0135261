//! Retry with exponential backoff, for connection errors only: an HTTP error or a garbled answer
//! would only repeat, and a second generation costs as much as the first.

use std::future::Future;
use std::time::Duration;

use super::LlmError;

#[derive(Debug, Clone, Copy)]
pub(crate) struct Backoff {
    pub attempts: u32,
    pub first_delay: Duration,
    pub max_delay: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            attempts: 3,
            first_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(2),
        }
    }
}

pub(crate) async fn retry<T, F, Fut>(policy: Backoff, mut call: F) -> Result<T, LlmError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, LlmError>>,
{
    let mut delay = policy.first_delay;
    let mut attempt = 1;
    loop {
        match call().await {
            Err(e) if e.is_connection() && attempt < policy.attempts => {
                tracing::debug!(attempt, error = %e, "model server connection failed; retrying");
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(policy.max_delay);
                attempt += 1;
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;
    use crate::llm::BackendKind;

    const FAST: Backoff = Backoff {
        attempts: 3,
        first_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(2),
    };

    fn down() -> LlmError {
        LlmError::ServerDown {
            backend: BackendKind::Openai,
            url: "u".into(),
            reason: "refused".into(),
            hint: String::new(),
        }
    }

    #[tokio::test]
    async fn retries_connection_errors_then_gives_up() {
        let calls = AtomicU32::new(0);
        let r: Result<(), _> = retry(FAST, || async {
            calls.fetch_add(1, Ordering::SeqCst);
            Err(down())
        })
        .await;
        assert!(matches!(r, Err(LlmError::ServerDown { .. })));
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn does_not_retry_http_errors_and_recovers_after_a_blip() {
        let calls = AtomicU32::new(0);
        let r: Result<(), _> = retry(FAST, || async {
            calls.fetch_add(1, Ordering::SeqCst);
            Err(LlmError::Http {
                url: "u".into(),
                status: 500,
                body: String::new(),
            })
        })
        .await;
        assert!(matches!(r, Err(LlmError::Http { status: 500, .. })));
        assert_eq!(calls.load(Ordering::SeqCst), 1);

        let calls = AtomicU32::new(0);
        let r = retry(FAST, || async {
            if calls.fetch_add(1, Ordering::SeqCst) == 0 {
                Err(down())
            } else {
                Ok(7)
            }
        })
        .await;
        assert_eq!(r.unwrap(), 7);
    }
}
