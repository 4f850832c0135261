//! Server state shared by the handlers: open documents, the negotiated encoding, settings, jobs.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use dashmap::DashMap;
use serde::{Deserialize, Serialize};
use tower_lsp_server::ls_types::Uri;

use super::document::OpenDocument;
use super::jobs::Jobs;
use super::position::Encoding;
use crate::analysis::OffloadRegion;
use crate::search::offload::{OffloadRunner, OffloadSummary, Strategy};
use crate::search::port::Start;

/// The editor-facing configuration (docs/lsp-protocol.md), from initializationOptions and
/// `workspace/configuration` section `cudaOffload`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct LspSettings {
    pub backend: Option<String>,
    pub url: Option<String>,
    pub model: Option<String>,
    pub api_key: Option<String>,
    pub cassette: Option<String>,
    pub budget: Option<usize>,
    /// MCGS rollouts in flight at once.
    pub parallel: Option<u32>,
    pub strategy: Option<Strategy>,
    /// What an mcgs/enumerate search starts from (the verified port, or the serial code).
    pub start: Option<Start>,
    pub seed: Option<u64>,
    pub nvcc_path: Option<String>,
    pub gpu_arch: Option<String>,
    pub max_concurrent_searches: usize,
    /// After a search, build the project with the edit in a scratch copy (default true).
    pub check_build: Option<bool>,
}

impl Default for LspSettings {
    fn default() -> Self {
        LspSettings {
            backend: None,
            url: None,
            model: None,
            api_key: None,
            cassette: None,
            budget: None,
            parallel: None,
            strategy: None,
            start: None,
            seed: None,
            nvcc_path: None,
            gpu_arch: None,
            max_concurrent_searches: 2,
            check_build: None,
        }
    }
}

/// Builds the offload runner (model backend, verifier, graph) for the editor's settings.
pub type RunnerFactory =
    Arc<dyn Fn(&LspSettings) -> Result<Arc<dyn OffloadRunner>, String> + Send + Sync>;

/// A finished search for one loop of one document.
#[derive(Debug, Clone)]
pub struct LoopResult {
    pub job_id: String,
    /// 1-based first line of the loop when the search started.
    pub line: usize,
    pub version: i32,
    pub region: OffloadRegion,
    pub summary: OffloadSummary,
    /// True once the edit was applied to the workspace (the kernel is "accepted").
    pub applied: bool,
    /// Set after an edit to the document since the search: the numbers may no longer hold.
    pub stale: bool,
    /// Result of the latest re-verification on save, if any.
    pub reverify: Option<(bool, String)>,
    /// The loop's lines when the search started: a kept result follows them through edits and
    /// is applied only where they still stand unchanged.
    pub loop_text: String,
}

/// Where the loop `loop_text` (whole lines) stands now: the 1-based line of the occurrence
/// nearest to `old_line`, if it is still there unchanged.
pub fn relocate(text: &str, loop_text: &str, old_line: usize) -> Option<usize> {
    if loop_text.is_empty() {
        return None;
    }
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    starts
        .iter()
        .enumerate()
        .filter(|&(_, &at)| text[at..].starts_with(loop_text))
        .map(|(i, _)| i + 1)
        .min_by_key(|&line| line.abs_diff(old_line))
}

/// The whole lines `first..=last` (1-based) of `text`.
pub fn lines_of(text: &str, first: usize, last: usize) -> String {
    text.split_inclusive('\n')
        .skip(first.saturating_sub(1))
        .take(last + 1 - first.max(1))
        .collect()
}

pub struct State {
    pub documents: DashMap<Uri, OpenDocument>,
    pub encoding: RwLock<Encoding>,
    pub settings: RwLock<LspSettings>,
    pub results: Mutex<HashMap<Uri, Vec<LoopResult>>>,
    pub jobs: Jobs,
    runner: RwLock<Option<Arc<dyn OffloadRunner>>>,
    factory: RunnerFactory,
    /// Bumped on every save: a re-verification that finishes under an older generation is dropped.
    pub save_generation: DashMap<Uri, u64>,
    /// The running re-verification per source document, cancelled when a newer save arrives.
    pub reverify_runs: DashMap<Uri, tokio_util::sync::CancellationToken>,
    /// Where `publishDiagnostics` goes as bytes serialized here (see `framing::RawSender`); unset,
    /// it goes through the client.
    pub raw_out: std::sync::OnceLock<super::framing::RawSender>,
    /// Documents whose background outlining pass runs (`publish::outline_in_background`).
    pub outlining: DashMap<Uri, ()>,
    next_id: AtomicU64,
    pub client_supports_progress: RwLock<bool>,
    pub client_supports_configuration: RwLock<bool>,
}

impl State {
    pub fn new(factory: RunnerFactory) -> Self {
        State {
            documents: DashMap::new(),
            encoding: RwLock::new(Encoding::Utf16),
            settings: RwLock::new(LspSettings::default()),
            results: Mutex::new(HashMap::new()),
            jobs: Jobs::default(),
            runner: RwLock::new(None),
            factory,
            save_generation: DashMap::new(),
            reverify_runs: DashMap::new(),
            outlining: DashMap::new(),
            raw_out: std::sync::OnceLock::new(),
            next_id: AtomicU64::new(1),
            client_supports_progress: RwLock::new(false),
            client_supports_configuration: RwLock::new(false),
        }
    }

    /// The runner for the current settings, built on first use and after each settings change.
    pub fn runner(&self) -> Result<Arc<dyn OffloadRunner>, String> {
        if let Some(r) = self.runner.read().expect("runner lock").clone() {
            return Ok(r);
        }
        let built = (self.factory)(&self.settings())?;
        *self.runner.write().expect("runner lock") = Some(built.clone());
        Ok(built)
    }

    /// Drops the runner so that the next use builds one from the new settings.
    pub fn settings_changed(&self) {
        *self.runner.write().expect("runner lock") = None;
    }

    pub fn encoding(&self) -> Encoding {
        *self.encoding.read().expect("encoding lock")
    }

    pub fn settings(&self) -> LspSettings {
        self.settings.read().expect("settings lock").clone()
    }

    pub fn next_id(&self, prefix: &str) -> String {
        format!("{prefix}-{}", self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    pub fn results_for(&self, uri: &Uri) -> Vec<LoopResult> {
        self.results
            .lock()
            .expect("results lock")
            .get(uri)
            .cloned()
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_loop_is_found_where_it_moved_and_not_where_it_changed() {
        let before =
            "void f() {\n    for (int i = 0; i < n; ++i) {\n        y[i] = x[i];\n    }\n}\n";
        let loop_text = lines_of(before, 2, 4);
        assert_eq!(
            loop_text,
            "    for (int i = 0; i < n; ++i) {\n        y[i] = x[i];\n    }\n"
        );
        assert_eq!(relocate(before, &loop_text, 2), Some(2));
        let moved = format!("// a\n// b\n{before}");
        assert_eq!(relocate(&moved, &loop_text, 2), Some(4));
        let changed = before.replace("y[i] = x[i]", "y[i] = 2 * x[i]");
        assert_eq!(relocate(&changed, &loop_text, 2), None);
        // Two identical loops: the nearest one to where it was.
        let twice = format!("{before}{before}");
        assert_eq!(relocate(&twice, &loop_text, 7), Some(7));
    }
}
