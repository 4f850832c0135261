//! The offload service: one loop in, the best verified kernel and the edit that uses it out.
//! Plain data, shared by `cli offload` and the LSP; `Offloader` (the real implementation over the
//! model, the verifier and the graph) and test runners implement `OffloadRunner`.

use std::path::PathBuf;
use std::pin::Pin;

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::Progress;
use crate::analysis::OffloadRegion;

/// Search strategy (ARCHITECTURE.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    #[default]
    Mcgs,
    Enumerate,
    Cot,
    Standard,
    /// The generated port alone, no model call: the starting kernel every other search has.
    Port,
}

impl Strategy {
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Mcgs => "mcgs",
            Strategy::Enumerate => "enumerate",
            Strategy::Cot => "cot",
            Strategy::Standard => "standard",
            Strategy::Port => "port",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OffloadRequest {
    /// The C++ file holding the loop.
    pub file: PathBuf,
    /// The file's text when the search started (the editor's buffer, which may be unsaved).
    pub source: String,
    pub region: OffloadRegion,
    /// `None`: the runner's configured default.
    pub strategy: Option<Strategy>,
    pub budget: Option<usize>,
    pub seed: Option<u64>,
}

/// A replacement of whole lines of the source file (1-based, inclusive).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineEdit {
    pub start_line: usize,
    pub end_line: usize,
    pub new_text: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OffloadSummary {
    /// File name of the new CUDA file, next to the source (`saxpy_cuda.cu`).
    pub kernel_file: String,
    /// Its full text: the candidate plus the generated host wrapper.
    pub kernel_source: String,
    /// Edits to the source file: the loop replaced by a call, a declaration added.
    pub source_edits: Vec<LineEdit>,
    /// True when the kernel was checked against the serial loop and timed on a GPU.
    pub verified: bool,
    /// "verified on NVIDIA H200: 312x vs serial, 41% of roofline" or "compiled; not run: no GPU".
    pub verdict: String,
    pub speedup: Option<f64>,
    pub roofline_fraction: Option<f64>,
    /// Techniques applied, in order, and the reward of each step.
    pub path: Vec<String>,
    pub step_rewards: Vec<f64>,
    pub llm_calls: usize,
    pub tokens: u64,
    /// The whole search, for `--json` and debugging.
    pub trace: serde_json::Value,
    /// What the search started from (the port or the serial code, and why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<super::start::StartReport>,
    /// What the profiles of the search's kernels said and what they put first, one line each
    /// (profile-guided choice; empty where none was taken).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub profiles: Vec<String>,
    /// The verifier's outcome for the returned kernel (its timings), for the benchmark's records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_outcome: Option<crate::verify::VerifyOutcome>,
}

/// A search that returned no kernel: why, and what it tried, so that `--out` and `--json` still
/// show every candidate (a failed search is the one a user most needs to read).
#[derive(Debug, Clone, Default, Serialize)]
pub struct SearchFailure {
    pub message: String,
    /// The trace and every candidate with its code; `None` where the search never started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<serde_json::Value>,
    pub llm_calls: usize,
    pub tokens: u64,
}

impl SearchFailure {
    pub fn with_trace(
        message: String,
        trace: serde_json::Value,
        llm_calls: usize,
        tokens: u64,
    ) -> Self {
        SearchFailure {
            message,
            trace: Some(trace),
            llm_calls,
            tokens,
        }
    }
}

impl std::fmt::Display for SearchFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SearchFailure {}

/// A failure before the search had anything to show (no graph, no verifier, no model server).
impl From<String> for SearchFailure {
    fn from(message: String) -> Self {
        SearchFailure {
            message,
            ..SearchFailure::default()
        }
    }
}

impl From<&str> for SearchFailure {
    fn from(message: &str) -> Self {
        message.to_string().into()
    }
}

/// A suggested optimization path from the reasoning graph, for hovers.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PathSuggestion {
    pub techniques: Vec<String>,
    pub examples: usize,
    pub mean_speedup: Option<f64>,
}

/// Re-verification of an accepted kernel after its source changed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReverifyOutcome {
    pub ok: bool,
    pub verdict: String,
    pub speedup: Option<f64>,
}

pub type BoxFuture<'a, T> = Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;
pub type ProgressSink = Box<dyn Fn(&Progress) + Send + Sync>;

pub trait OffloadRunner: Send + Sync {
    fn offload(
        &self,
        request: OffloadRequest,
        progress: ProgressSink,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<OffloadSummary, SearchFailure>>;

    fn reverify(
        &self,
        region: OffloadRegion,
        kernel_source: String,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<ReverifyOutcome, String>>;

    fn suggested_paths(&self, region: &OffloadRegion, k: usize) -> Vec<PathSuggestion>;

    /// The machine alone until dropped, for a timing made beside the searches (a CPU baseline of
    /// the benchmark); `None` where the runner has no machine to share.
    fn hold_alone(&self) -> BoxFuture<'static, Option<super::env::Held>> {
        Box::pin(async { None })
    }
}
