//! OpenAI-compatible servers (llama.cpp's llama-server, vLLM, LM Studio): `POST {base}/chat/completions`
//! with `stream: true`, read as server-sent events so the first-token and total timeouts can be
//! told apart.

use futures::StreamExt;
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::json;
use tokio::time::{Instant, timeout_at};

use super::chat::secs;
use super::http::{self, excerpt, root_cause};
use super::retry::{Backoff, retry};
use super::{
    BackendConfig, BackendKind, CallControl, ChatModel, ChatRequest, ChatResponse, FinishReason,
    LlmError, Timeouts,
};

pub struct OpenAiChat {
    client: reqwest::Client,
    base: String,
    model: String,
    api_key: Option<String>,
    timeouts: Timeouts,
    backoff: Backoff,
}

impl OpenAiChat {
    pub fn new(config: &BackendConfig) -> Result<Self, LlmError> {
        let base = config.url.trim_end_matches('/').to_string();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(LlmError::Config {
                reason: format!(
                    "`{base}` is not an http(s) URL; pass the server's /v1 base URL, e.g. http://127.0.0.1:8080/v1"
                ),
            });
        }
        Ok(OpenAiChat {
            client: http::client(config.timeouts.connect)?,
            base,
            model: config.model.clone(),
            api_key: config.api_key.clone().filter(|k| !k.is_empty()),
            timeouts: config.timeouts,
            backoff: Backoff::default(),
        })
    }

    fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base)
    }

    async fn chat_once(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let url = self.endpoint();
        let body = json!({
            "model": self.model,
            "messages": request.messages,
            "temperature": request.temperature,
            "seed": request.seed,
            "max_tokens": request.max_tokens,
            "stream": true,
            "stream_options": {"include_usage": true},
        });
        let mut builder = self.client.post(&url).json(&body);
        if let Some(key) = &self.api_key {
            builder = builder.bearer_auth(key);
        }
        let first_deadline = Instant::now() + self.timeouts.first_token;
        let first_timeout = || LlmError::FirstTokenTimeout {
            url: url.clone(),
            secs: secs(self.timeouts.first_token),
        };
        let resp = timeout_at(first_deadline, builder.send())
            .await
            .map_err(|_| first_timeout())?
            .map_err(|e| http::send_error(e, BackendKind::Openai, &url, &self.model))?;
        let status = resp.status();
        if !status.is_success() {
            let text = timeout_at(first_deadline, resp.text())
                .await
                .ok()
                .and_then(Result::ok)
                .unwrap_or_default();
            if status.as_u16() == 404 && text.contains("model") {
                return Err(LlmError::ModelMissing {
                    backend: BackendKind::Openai,
                    url: self.base.clone(),
                    model: self.model.clone(),
                    available: "see GET /v1/models".into(),
                    fix: format!("start the server with the model `{}`", self.model),
                });
            }
            return Err(LlmError::Http {
                url,
                status: status.as_u16(),
                body: excerpt(&text),
            });
        }
        let is_sse = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains("text/event-stream"));
        if !is_sse {
            // Some servers ignore `stream: true` and answer in one JSON document.
            let deadline = first_deadline + self.timeouts.total;
            let bytes = timeout_at(deadline, resp.bytes())
                .await
                .map_err(|_| first_timeout())?
                .map_err(|e| LlmError::Truncated {
                    url: url.clone(),
                    reason: root_cause(&e),
                    received: 0,
                })?;
            return parse_whole(&url, &bytes);
        }

        let mut stream = resp.bytes_stream();
        let mut events = SseLines::default();
        let mut answer = Accumulated::default();
        let mut total_deadline: Option<Instant> = None;
        loop {
            let limit = total_deadline.unwrap_or(first_deadline);
            let next = match timeout_at(limit, stream.next()).await {
                Ok(next) => next,
                Err(_) if total_deadline.is_some() => {
                    return Err(LlmError::Timeout {
                        url,
                        secs: secs(self.timeouts.total),
                    });
                }
                Err(_) => return Err(first_timeout()),
            };
            let chunk = match next {
                None => break,
                Some(Ok(chunk)) => chunk,
                Some(Err(e)) => {
                    return Err(LlmError::Truncated {
                        url,
                        reason: root_cause(&e),
                        received: answer.text.len(),
                    });
                }
            };
            for data in events.push(&chunk) {
                answer.take(&url, &data)?;
            }
            if answer.started && total_deadline.is_none() {
                total_deadline = Some(Instant::now() + self.timeouts.total);
            }
            if answer.done {
                break;
            }
        }
        if let Some(rest) = events.finish() {
            answer.take(&url, &rest)?;
        }
        answer.into_response(&url)
    }
}

impl ChatModel for OpenAiChat {
    fn model(&self) -> &str {
        &self.model
    }

    fn describe(&self) -> String {
        format!("openai {} ({})", self.base, self.model)
    }

    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
        control: &'a CallControl,
    ) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        Box::pin(control.guard(retry(self.backoff, move || self.chat_once(request))))
    }
}

/// Splits a byte stream into the payloads of `data:` lines (the only SSE field these servers use).
#[derive(Default)]
struct SseLines {
    pending: Vec<u8>,
}

impl SseLines {
    fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        self.pending.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(pos) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=pos).collect();
            if let Some(data) = data_of(&line) {
                out.push(data);
            }
        }
        out
    }

    /// A last line without its newline: kept only if it is a whole event.
    fn finish(&mut self) -> Option<String> {
        let line = std::mem::take(&mut self.pending);
        data_of(&line)
            .filter(|d| d == "[DONE]" || serde_json::from_str::<serde_json::Value>(d).is_ok())
    }
}

fn data_of(line: &[u8]) -> Option<String> {
    let line = String::from_utf8_lossy(line);
    let line = line.trim_end_matches(['\r', '\n']);
    let data = line.strip_prefix("data:")?;
    Some(data.trim_start().to_string())
}

#[derive(Debug, Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<ChunkChoice>,
    usage: Option<Usage>,
}

#[derive(Debug, Deserialize)]
struct ChunkChoice {
    #[serde(default)]
    delta: Option<Delta>,
    finish_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Delta {
    content: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
struct Usage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

#[derive(Default)]
struct Accumulated {
    text: String,
    chunks: u64,
    started: bool,
    finish: Option<String>,
    usage: Option<Usage>,
    done: bool,
}

impl Accumulated {
    fn take(&mut self, url: &str, data: &str) -> Result<(), LlmError> {
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let value: serde_json::Value =
            serde_json::from_str(data).map_err(|e| LlmError::Garbage {
                url: url.into(),
                reason: format!("event is not JSON ({e}): {}", excerpt(data)),
            })?;
        if let Some(err) = value.get("error") {
            return Err(LlmError::Garbage {
                url: url.into(),
                reason: format!(
                    "the server reported an error mid-stream: {}",
                    excerpt(&err.to_string())
                ),
            });
        }
        let chunk: Chunk = serde_json::from_value(value).map_err(|e| LlmError::Garbage {
            url: url.into(),
            reason: format!("event is not a completion chunk ({e}): {}", excerpt(data)),
        })?;
        if chunk.usage.is_some() {
            self.usage = chunk.usage;
        }
        for choice in chunk.choices {
            if let Some(content) = choice.delta.and_then(|d| d.content) {
                self.started = true;
                self.chunks += 1;
                self.text.push_str(&content);
            }
            if choice.finish_reason.is_some() {
                self.finish = choice.finish_reason;
            }
        }
        Ok(())
    }

    fn into_response(self, url: &str) -> Result<ChatResponse, LlmError> {
        if !self.done && self.finish.is_none() {
            return Err(LlmError::Truncated {
                url: url.into(),
                reason: "the stream ended without a finish reason or [DONE]".into(),
                received: self.text.len(),
            });
        }
        let usage = self.usage.unwrap_or(Usage {
            prompt_tokens: 0,
            // Without a usage record each content event is about one token.
            completion_tokens: self.chunks,
        });
        Ok(ChatResponse {
            text: self.text,
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            finish: FinishReason::from_wire(self.finish.as_deref()),
        })
    }
}

#[derive(Debug, Deserialize)]
struct Whole {
    choices: Vec<WholeChoice>,
    usage: Option<Usage>,
}

#[derive(Debug, Deserialize)]
struct WholeChoice {
    message: WholeMessage,
    finish_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct WholeMessage {
    content: Option<String>,
}

fn parse_whole(url: &str, bytes: &[u8]) -> Result<ChatResponse, LlmError> {
    let whole: Whole = serde_json::from_slice(bytes).map_err(|e| {
        let text = String::from_utf8_lossy(bytes);
        if e.is_eof() {
            LlmError::Truncated {
                url: url.into(),
                reason: format!("JSON answer cut off ({e})"),
                received: bytes.len(),
            }
        } else {
            LlmError::Garbage {
                url: url.into(),
                reason: format!("not a chat completion ({e}): {}", excerpt(&text)),
            }
        }
    })?;
    let choice = whole
        .choices
        .into_iter()
        .next()
        .ok_or_else(|| LlmError::Garbage {
            url: url.into(),
            reason: "the answer has no choices".into(),
        })?;
    let usage = whole.usage.unwrap_or(Usage {
        prompt_tokens: 0,
        completion_tokens: 0,
    });
    Ok(ChatResponse {
        text: choice.message.content.unwrap_or_default(),
        prompt_tokens: usage.prompt_tokens,
        completion_tokens: usage.completion_tokens,
        finish: FinishReason::from_wire(choice.finish_reason.as_deref()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Event shapes as llama-server (llama.cpp, Dec 2026 build) sends them.
    const LLAMA_SERVER_TAIL: &str = concat!(
        "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"content\":\"__global__\"}}],\"object\":\"chat.completion.chunk\"}\n\n",
        "data: {\"choices\":[{\"finish_reason\":\"length\",\"index\":0,\"delta\":{}}],\"object\":\"chat.completion.chunk\"}\n\n",
        "data: {\"choices\":[],\"object\":\"chat.completion.chunk\",\"usage\":{\"completion_tokens\":60,\"prompt_tokens\":39,\"total_tokens\":99}}\n\n",
        "data: [DONE]\n\n",
    );

    #[test]
    fn reads_content_finish_and_usage_across_split_chunks() {
        let mut lines = SseLines::default();
        let mut acc = Accumulated::default();
        // Split at awkward places, as TCP may.
        let bytes = LLAMA_SERVER_TAIL.as_bytes();
        for piece in bytes.chunks(17) {
            for data in lines.push(piece) {
                acc.take("u", &data).unwrap();
            }
        }
        assert!(acc.done);
        let r = acc.into_response("u").unwrap();
        assert_eq!(r.text, "__global__");
        assert_eq!((r.prompt_tokens, r.completion_tokens), (39, 60));
        assert_eq!(r.finish, FinishReason::Length);
    }

    #[test]
    fn a_stream_without_end_is_truncated_and_junk_is_garbage() {
        let mut acc = Accumulated::default();
        acc.take(
            "u",
            r#"{"choices":[{"finish_reason":null,"delta":{"content":"void"}}]}"#,
        )
        .unwrap();
        assert!(matches!(
            acc.into_response("u"),
            Err(LlmError::Truncated { received: 4, .. })
        ));
        let mut acc = Accumulated::default();
        assert!(matches!(
            acc.take("u", "<html>oops</html>"),
            Err(LlmError::Garbage { .. })
        ));
    }
}
