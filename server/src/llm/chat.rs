//! The one interface the search uses to talk to a model.

use std::time::Duration;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::LlmError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Message {
            role: Role::System,
            content: content.into(),
        }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: content.into(),
        }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Message {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// One completion request. The backend's model name completes it (and is part of the replay key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    pub messages: Vec<Message>,
    /// 0 makes the answer (nearly) deterministic; ARCHITECTURE.md §4 asks for 0 by default.
    pub temperature: f32,
    pub seed: u64,
    pub max_tokens: u32,
}

impl ChatRequest {
    pub fn new(messages: Vec<Message>) -> Self {
        ChatRequest {
            messages,
            temperature: 0.0,
            seed: 0,
            max_tokens: 1024,
        }
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FinishReason {
    /// The model ended its answer.
    Stop,
    /// `max_tokens` cut the answer off: the code in it may be incomplete.
    Length,
    Other,
}

impl FinishReason {
    pub(crate) fn from_wire(reason: Option<&str>) -> Self {
        match reason {
            Some("stop") | Some("eos") => FinishReason::Stop,
            Some("length") | Some("limit") => FinishReason::Length,
            _ => FinishReason::Other,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    pub text: String,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub finish: FinishReason,
}

/// How long each phase of a call may take.
///
/// `total` counts from the first token on, so a cold model load (Ollama loading a 7B model from
/// disk can take a minute) only has to fit `first_token`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timeouts {
    pub connect: Duration,
    pub first_token: Duration,
    pub total: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(5),
            first_token: Duration::from_secs(300),
            total: Duration::from_secs(300),
        }
    }
}

/// Who may stop a call early: the user (cancellation) or the search budget (deadline).
#[derive(Debug, Clone, Default)]
pub struct CallControl {
    pub cancel: CancellationToken,
    pub deadline: Option<Instant>,
}

impl CallControl {
    pub fn with_deadline(deadline: Instant) -> Self {
        CallControl {
            cancel: CancellationToken::new(),
            deadline: Some(deadline),
        }
    }

    /// Runs `work` until it ends, the token is cancelled or the deadline passes.
    pub async fn guard<T>(
        &self,
        work: impl std::future::Future<Output = Result<T, LlmError>>,
    ) -> Result<T, LlmError> {
        if self.cancel.is_cancelled() {
            return Err(LlmError::Cancelled);
        }
        let deadline = async {
            match self.deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            _ = self.cancel.cancelled() => Err(LlmError::Cancelled),
            _ = deadline => Err(LlmError::DeadlineExceeded),
            r = work => r,
        }
    }
}

/// A chat model: messages in, text out.
///
/// Object-safe (boxed futures) so that the backend can be chosen at run time.
pub trait ChatModel: Send + Sync {
    /// The model name as the server knows it (part of the replay key).
    fn model(&self) -> &str;

    /// A short description for logs and errors, e.g. `openai http://127.0.0.1:8080/v1`.
    fn describe(&self) -> String;

    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
        control: &'a CallControl,
    ) -> BoxFuture<'a, Result<ChatResponse, LlmError>>;
}

pub(crate) fn secs(d: Duration) -> f64 {
    (d.as_secs_f64() * 10.0).round() / 10.0
}
