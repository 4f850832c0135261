//! One open document: its text (a rope, for cheap edits and position conversion), its version,
//! and its incrementally re-parsed, lazily outlined analysis, with the diagnostics of each
//! function kept until that function's reports change.

use std::collections::HashMap;
use std::sync::Arc;

use ropey::Rope;
use tower_lsp_server::ls_types::Diagnostic;

use super::position::Encoding;
use super::to_proto;
use crate::analysis::{self, Language, LoopReport, OffloadRegion, OutlineError};

/// The diagnostics of one function: (1-based loop line, diagnostic, its JSON) per hot loop, and
/// their JSON joined (what a keystroke elsewhere sends again unchanged).
struct FunctionDiagnostics {
    each: Vec<(usize, Diagnostic, String)>,
    joined: String,
}

type UnitDiagnostics = Arc<FunctionDiagnostics>;

/// The diagnostics of the hot loops of a document, as values and as JSON (the same ones).
#[derive(Debug, Default)]
pub struct LoopDiagnostics {
    pub diagnostics: Vec<Diagnostic>,
    /// A comma-separated list of the JSON of each diagnostic (no brackets).
    pub json: String,
}

pub struct OpenDocument {
    pub rope: Rope,
    pub version: i32,
    pub language: Language,
    analysis: analysis::Document,
    /// By unit id (which changes with the unit's reports) and encoding.
    diagnostics: HashMap<(u64, Encoding), UnitDiagnostics>,
    /// The length of the last diagnostics' JSON, to size the next.
    json_len: usize,
}

impl OpenDocument {
    pub fn new(text: &str, version: i32, language: Language) -> Self {
        Self::with_headers(text, version, language, analysis::Headers::default())
    }

    /// A document whose loops are read with what its project headers define.
    pub fn with_headers(
        text: &str,
        version: i32,
        language: Language,
        headers: analysis::Headers,
    ) -> Self {
        OpenDocument {
            rope: Rope::from_str(text),
            version,
            language,
            analysis: analysis::Document::lazy(text, language, headers),
            diagnostics: HashMap::new(),
            json_len: 0,
        }
    }

    /// The diagnostics (as a comma-separated JSON list) of a first look at a large file: the
    /// settled verdicts of its leading part, sent before the whole file is analysed.
    /// `None` for a file small enough to analyse whole at once.
    pub fn first_look(
        text: &str,
        language: Language,
        headers: &analysis::Headers,
        enc: Encoding,
    ) -> Option<String> {
        let look = analysis::first_look(text, language, headers)?;
        let rope = Rope::from_str(&text[..look.bytes]);
        let mut json = String::new();
        for l in look.settled().filter(|l| l.hot) {
            if !json.is_empty() {
                json.push(',');
            }
            let d = to_proto::loop_diagnostic(&rope, l, enc);
            json.push_str(&serde_json::to_string(&d).unwrap_or_default());
        }
        Some(json)
    }

    /// Applies one edit given in bytes (the caller converted positions in the negotiated
    /// encoding). The analysis follows on [`OpenDocument::refresh`].
    pub fn edit(&mut self, start: usize, old_end: usize, new_text: &str) {
        let start = start.min(self.rope.len_bytes());
        let old_end = old_end.clamp(start, self.rope.len_bytes());
        let (cs, ce) = (
            self.rope.byte_to_char(start),
            self.rope.byte_to_char(old_end),
        );
        self.rope.remove(cs..ce);
        self.rope.insert(cs, new_text);
        self.analysis.queue_edit(start, old_end, new_text);
    }

    pub fn replace_all(&mut self, text: &str) {
        self.rope = Rope::from_str(text);
        let headers = self.analysis.headers().clone();
        self.analysis = analysis::Document::lazy(text, self.language, headers);
    }

    /// Re-parses and re-analyses after a batch of edits (once per notification, not per edit).
    pub fn refresh(&mut self) {
        self.analysis.refresh();
    }

    /// Every loop's report, in document order.
    pub fn loops(&self) -> impl Iterator<Item = &LoopReport> {
        self.analysis.loops()
    }

    /// The outermost loop whose lines contain the 1-based `line`.
    pub fn loop_at_line(&self, line: usize) -> Option<&LoopReport> {
        self.analysis.loop_at_line(line)
    }

    /// The loop an offload of the 1-based `line` means.
    pub fn loop_for_line(&self, line: usize) -> Option<&LoopReport> {
        self.analysis.loop_for_line(line)
    }

    pub fn text(&self) -> String {
        self.rope.to_string()
    }

    /// The loop an offload of the 1-based `line` means, with its region, outlined on demand (the
    /// diagnostics never need it).
    pub fn outline(&self, line: usize) -> Result<(LoopReport, OffloadRegion), OutlineError> {
        self.analysis.outline_at(line)
    }

    /// Functions whose notes (why a parallel loop cannot be outlined) are still to be found.
    pub fn pending_outlines(&self) -> usize {
        self.analysis.pending_outlines()
    }

    /// Finds the notes of up to `max` functions; how many remain and whether a report changed.
    pub fn outline_pending(&mut self, max: usize) -> (usize, bool) {
        self.analysis.outline_pending(max, None)
    }

    /// The diagnostics of the hot loops (except those on `skip_lines`, 1-based), built only for
    /// the functions whose reports changed since the last call: as values when `values`, and
    /// always as JSON.
    pub fn loop_diagnostics(
        &mut self,
        enc: Encoding,
        skip_lines: &[usize],
        values: bool,
    ) -> LoopDiagnostics {
        let mut kept = HashMap::with_capacity(self.diagnostics.len());
        let mut out = LoopDiagnostics {
            json: String::with_capacity(self.json_len + 64),
            ..LoopDiagnostics::default()
        };
        for unit in self.analysis.units() {
            let key = (unit.id, enc);
            let diags = self.diagnostics.remove(&key).unwrap_or_else(|| {
                let each: Vec<(usize, Diagnostic, String)> = unit
                    .reports
                    .iter()
                    .filter(|l| l.hot)
                    .map(|l| {
                        let d = to_proto::loop_diagnostic(&self.rope, l, enc);
                        let json = serde_json::to_string(&d).unwrap_or_default();
                        (l.line, d, json)
                    })
                    .collect();
                let joined = each
                    .iter()
                    .map(|(_, _, j)| j.as_str())
                    .collect::<Vec<_>>()
                    .join(",");
                Arc::new(FunctionDiagnostics { each, joined })
            });
            let skips = diags
                .each
                .iter()
                .any(|(line, _, _)| skip_lines.contains(line));
            if !skips && !values {
                if !diags.joined.is_empty() {
                    if !out.json.is_empty() {
                        out.json.push(',');
                    }
                    out.json.push_str(&diags.joined);
                }
                kept.insert(key, diags);
                continue;
            }
            for (line, d, json) in diags.each.iter() {
                if skip_lines.contains(line) {
                    continue;
                }
                if values {
                    out.diagnostics.push(d.clone());
                }
                if !out.json.is_empty() {
                    out.json.push(',');
                }
                out.json.push_str(json);
            }
            kept.insert(key, diags);
        }
        self.diagnostics = kept;
        self.json_len = out.json.len();
        out
    }
}
