//! Ollama through ollama-rs: checks once that the model is there (`/api/tags`), loads it under the
//! generous first-token timeout (an empty chat is Ollama's documented "load the model" request), then
//! chats with temperature, seed, `num_ctx` and `keep_alive` set.

use std::time::Duration;

use futures::future::BoxFuture;
use ollama_rs::Ollama;
use ollama_rs::error::OllamaError;
use ollama_rs::generation::chat::request::ChatMessageRequest;
use ollama_rs::generation::chat::{ChatMessage, ChatMessageResponse, MessageRole};
use ollama_rs::generation::parameters::{KeepAlive, TimeUnit};
use ollama_rs::models::ModelOptions;
use tokio::sync::OnceCell;
use tokio::time::timeout;

use super::chat::secs;
use super::http::{self, excerpt, root_cause};
use super::retry::{Backoff, retry};
use super::{
    BackendConfig, BackendKind, CallControl, ChatModel, ChatRequest, ChatResponse, FinishReason,
    LlmError, Role, Timeouts,
};

pub struct OllamaChat {
    client: Ollama,
    url: String,
    model: String,
    timeouts: Timeouts,
    num_ctx: u64,
    keep_alive: Duration,
    backoff: Backoff,
    ready: OnceCell<()>,
}

impl OllamaChat {
    pub fn new(config: &BackendConfig) -> Result<Self, LlmError> {
        // ollama-rs appends `api/...` to the URL as is: it must end with a slash.
        let mut url = config.url.trim().to_string();
        if !url.ends_with('/') {
            url.push('/');
        }
        let client = Ollama::builder()
            .url(reqwest::Url::parse(&url).map_err(|e| LlmError::Config {
                reason: format!(
                    "`{}` is not a URL ({e}); Ollama's default is http://localhost:11434",
                    config.url
                ),
            })?)
            .reqwest_client(http::client(config.timeouts.connect)?)
            .build();
        Ok(OllamaChat {
            client,
            url: url.trim_end_matches('/').to_string(),
            model: config.model.clone(),
            timeouts: config.timeouts,
            num_ctx: config.num_ctx,
            keep_alive: config.keep_alive,
            backoff: Backoff::default(),
            ready: OnceCell::new(),
        })
    }

    fn keep_alive(&self) -> KeepAlive {
        KeepAlive::Until {
            time: self.keep_alive.as_secs().max(1),
            unit: TimeUnit::Seconds,
        }
    }

    /// Model present and loaded; done once per backend, retried on connection errors.
    async fn ensure_ready(&self) -> Result<(), LlmError> {
        self.ready
            .get_or_try_init(|| async {
                retry(self.backoff, || self.check_model()).await?;
                retry(self.backoff, || self.load_model()).await
            })
            .await
            .map(|_| ())
    }

    async fn check_model(&self) -> Result<(), LlmError> {
        let tags = format!("{}/api/tags", self.url);
        let models = timeout(
            self.timeouts.connect + Duration::from_secs(10),
            self.client.list_local_models(),
        )
        .await
        .map_err(|_| LlmError::ServerDown {
            backend: BackendKind::Ollama,
            url: self.url.clone(),
            reason: "no answer to GET /api/tags".into(),
            hint: super::setup_hint::start_hint(BackendKind::Ollama, &self.url, &self.model),
        })?
        .map_err(|e| self.error(e, &tags))?;
        let names: Vec<String> = models.into_iter().map(|m| m.name).collect();
        if names.iter().any(|have| model_matches(have, &self.model)) {
            Ok(())
        } else {
            Err(LlmError::ModelMissing {
                backend: BackendKind::Ollama,
                url: self.url.clone(),
                model: self.model.clone(),
                available: if names.is_empty() {
                    "no models".into()
                } else {
                    names.join(", ")
                },
                fix: format!("ollama pull {}", self.model),
            })
        }
    }

    async fn load_model(&self) -> Result<(), LlmError> {
        let chat = format!("{}/api/chat", self.url);
        let request =
            ChatMessageRequest::new(self.model.clone(), Vec::new()).keep_alive(self.keep_alive());
        timeout(
            self.timeouts.first_token,
            self.client.send_chat_messages(request),
        )
        .await
        .map_err(|_| LlmError::FirstTokenTimeout {
            url: chat.clone(),
            secs: secs(self.timeouts.first_token),
        })?
        .map_err(|e| self.error(e, &chat))?;
        Ok(())
    }

    async fn chat_once(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        self.ensure_ready().await?;
        let chat = format!("{}/api/chat", self.url);
        let messages = request
            .messages
            .iter()
            .map(|m| {
                let role = match m.role {
                    Role::System => MessageRole::System,
                    Role::User => MessageRole::User,
                    Role::Assistant => MessageRole::Assistant,
                };
                ChatMessage::new(role, m.content.clone())
            })
            .collect();
        let options = ModelOptions::default()
            .temperature(request.temperature)
            // Ollama's seed is an int; keep it non-negative and stable.
            .seed((request.seed & 0x7fff_ffff) as i32)
            .num_ctx(self.num_ctx)
            .num_predict(i32::try_from(request.max_tokens).unwrap_or(i32::MAX));
        let wire = ChatMessageRequest::new(self.model.clone(), messages)
            .options(options)
            .keep_alive(self.keep_alive());
        // Without streaming there is no first-token signal; the model is loaded by now, so prompt
        // evaluation gets the first-token budget and generation the total one.
        let limit = self.timeouts.first_token + self.timeouts.total;
        let resp: ChatMessageResponse = timeout(limit, self.client.send_chat_messages(wire))
            .await
            .map_err(|_| LlmError::Timeout {
                url: chat.clone(),
                secs: secs(limit),
            })?
            .map_err(|e| self.error(e, &chat))?;
        let (prompt_tokens, completion_tokens) = resp
            .final_data
            .as_ref()
            .map_or((0, 0), |d| (d.prompt_eval_count, d.eval_count));
        if !resp.done {
            return Err(LlmError::Truncated {
                url: chat,
                reason: "the answer is not marked done".into(),
                received: resp.message.content.len(),
            });
        }
        let finish = if completion_tokens >= u64::from(request.max_tokens) {
            FinishReason::Length
        } else {
            FinishReason::Stop
        };
        Ok(ChatResponse {
            text: resp.message.content,
            prompt_tokens,
            completion_tokens,
            finish,
        })
    }

    fn error(&self, e: OllamaError, url: &str) -> LlmError {
        match e {
            OllamaError::ReqwestError(e) if e.is_decode() || e.is_body() => LlmError::Truncated {
                url: url.into(),
                reason: root_cause(&e),
                received: 0,
            },
            OllamaError::ReqwestError(e) => {
                http::send_error(e, BackendKind::Ollama, url, &self.model)
            }
            OllamaError::JsonError(e) if e.is_eof() => LlmError::Truncated {
                url: url.into(),
                reason: format!("JSON answer cut off ({e})"),
                received: 0,
            },
            OllamaError::JsonError(e) => LlmError::Garbage {
                url: url.into(),
                reason: format!("not an Ollama answer ({e})"),
            },
            // ollama-rs keeps only the body of a non-2xx answer.
            OllamaError::Other(body) => {
                if body.contains("not found") && body.contains("model") {
                    LlmError::ModelMissing {
                        backend: BackendKind::Ollama,
                        url: self.url.clone(),
                        model: self.model.clone(),
                        available: "see `ollama list`".into(),
                        fix: format!("ollama pull {}", self.model),
                    }
                } else {
                    LlmError::ServerError {
                        url: url.into(),
                        message: excerpt(&body),
                    }
                }
            }
            other => LlmError::ServerError {
                url: url.into(),
                message: other.to_string(),
            },
        }
    }
}

impl ChatModel for OllamaChat {
    fn model(&self) -> &str {
        &self.model
    }

    fn describe(&self) -> String {
        format!("ollama {} ({})", self.url, self.model)
    }

    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
        control: &'a CallControl,
    ) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        Box::pin(control.guard(retry(self.backoff, move || self.chat_once(request))))
    }
}

/// Ollama names carry a tag (`qwen2.5-coder:7b`); a bare name means `:latest`.
pub fn model_matches(have: &str, want: &str) -> bool {
    have == want || have == format!("{want}:latest") || want == format!("{have}:latest")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_match_like_ollama() {
        assert!(model_matches("qwen2.5-coder:7b", "qwen2.5-coder:7b"));
        assert!(model_matches("llama3:latest", "llama3"));
        assert!(!model_matches("qwen2.5-coder:1.5b", "qwen2.5-coder:7b"));
    }

    #[test]
    fn a_bad_url_is_a_config_error_not_a_panic() {
        let cfg = BackendConfig::new(BackendKind::Ollama, "not a url", "m");
        assert!(matches!(
            OllamaChat::new(&cfg),
            Err(LlmError::Config { .. })
        ));
    }
}
