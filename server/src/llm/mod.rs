//! Local model backends: Ollama, OpenAI-compatible, replay (ARCHITECTURE.md §1). Issue #5.

pub mod probe;

use serde::{Deserialize, Serialize};

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
}
