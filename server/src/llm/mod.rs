//! Local model backends: Ollama, OpenAI-compatible, replay (ARCHITECTURE.md §1). Issue #5.
//!
//! Everything above this module talks to a [`ChatModel`]: messages in, text out, with token counts,
//! a cancellation token and a deadline. [`prompt`] renders the prompts from the template files in
//! `server/prompts/`, [`answer`] finds the kernel in what the model said.

pub mod answer;
mod chat;
mod error;
mod http;
pub mod ollama;
pub mod openai;
pub mod probe;
pub mod prompt;
pub mod relabel;
pub mod replay;
mod retry;
pub mod setup_hint;

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use chat::{
    CallControl, ChatModel, ChatRequest, ChatResponse, FinishReason, Message, Role, Timeouts,
};
pub use error::LlmError;

/// Which protocol the model server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// Ollama's `/api/*` routes (default URL http://localhost:11434).
    Ollama,
    /// Any OpenAI-compatible server: llama.cpp's llama-server, vLLM, LM Studio (`/v1/*`).
    Openai,
    /// Answers from a recorded cassette file (tests, demos without a model).
    Replay,
}

impl BackendKind {
    pub fn default_url(self) -> &'static str {
        match self {
            BackendKind::Ollama => "http://localhost:11434",
            BackendKind::Openai => "http://127.0.0.1:8080/v1",
            BackendKind::Replay => "",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            BackendKind::Ollama => "ollama",
            BackendKind::Openai => "openai",
            BackendKind::Replay => "replay",
        }
    }
}

impl std::fmt::Display for BackendKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Everything needed to build a backend; `cli` fills it from the user's settings.
#[derive(Debug, Clone)]
pub struct BackendConfig {
    pub kind: BackendKind,
    /// Server URL (Ollama root, or the OpenAI-compatible `/v1` base URL); ignored by replay.
    pub url: String,
    pub model: String,
    /// Sent as a bearer token to OpenAI-compatible servers; local servers need none.
    pub api_key: Option<String>,
    pub timeouts: Timeouts,
    /// Ollama's context window (`num_ctx`); small models run with 4–16k.
    pub num_ctx: u64,
    /// How long Ollama keeps the model loaded after a call, so a search does not reload it.
    pub keep_alive: Duration,
    /// Replay: the cassette to answer from. With `record`, the cassette that answers of the real
    /// backend (`kind`) are appended to.
    pub cassette: Option<std::path::PathBuf>,
    pub record: bool,
}

impl BackendConfig {
    pub fn new(kind: BackendKind, url: impl Into<String>, model: impl Into<String>) -> Self {
        BackendConfig {
            kind,
            url: url.into(),
            model: model.into(),
            api_key: None,
            timeouts: Timeouts::default(),
            num_ctx: 8192,
            keep_alive: Duration::from_secs(30 * 60),
            cassette: None,
            record: false,
        }
    }
}

/// Builds the backend the configuration names; recording wraps the real backend.
pub fn connect(config: &BackendConfig) -> Result<Arc<dyn ChatModel>, LlmError> {
    let real: Arc<dyn ChatModel> = match config.kind {
        BackendKind::Ollama => Arc::new(ollama::OllamaChat::new(config)?),
        BackendKind::Openai => Arc::new(openai::OpenAiChat::new(config)?),
        BackendKind::Replay => {
            let path = config.cassette.clone().ok_or(LlmError::Config {
                reason: "the replay backend needs a cassette file (`cassette = \"...\"`)".into(),
            })?;
            return Ok(Arc::new(replay::Replay::open(&path)?));
        }
    };
    match (&config.cassette, config.record) {
        (Some(path), true) => Ok(Arc::new(replay::Recorder::new(real, path)?)),
        (None, true) => Err(LlmError::Config {
            reason: "recording needs a cassette file to append to".into(),
        }),
        _ => Ok(real),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_cassettes_are_configuration_errors() {
        let replay = BackendConfig::new(BackendKind::Replay, "", "m");
        assert!(matches!(connect(&replay), Err(LlmError::Config { .. })));
        let mut record = BackendConfig::new(BackendKind::Openai, "http://127.0.0.1:1/v1", "m");
        record.record = true;
        assert!(matches!(connect(&record), Err(LlmError::Config { .. })));
    }

    #[test]
    fn record_mode_wraps_the_real_backend() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = BackendConfig::new(BackendKind::Openai, "http://127.0.0.1:1/v1", "m");
        config.record = true;
        config.cassette = Some(dir.path().join("new.jsonl"));
        let model = connect(&config).unwrap();
        assert!(
            model.describe().starts_with("recording openai"),
            "{}",
            model.describe()
        );
        // The header is written at once, naming the wrapped backend.
        let cassette = replay::Cassette::load(&dir.path().join("new.jsonl")).unwrap();
        assert_eq!(cassette.header.model, "m");
        assert!(cassette.header.server.contains("127.0.0.1:1"));
    }
}
