//! One open document: its text (a rope, for cheap edits and position conversion), its version,
//! and its incrementally re-parsed analysis.

use ropey::Rope;

use crate::analysis::{self, FileReport, Language, LoopReport, OffloadRegion, OutlineError};

pub struct OpenDocument {
    pub rope: Rope,
    pub version: i32,
    pub language: Language,
    analysis: analysis::Document,
    report: FileReport,
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
        let analysis = analysis::Document::with_headers(text, language, headers);
        let report = analysis.report();
        OpenDocument {
            rope: Rope::from_str(text),
            version,
            language,
            analysis,
            report,
        }
    }

    /// Applies one edit given in bytes (the caller converted positions in the negotiated encoding).
    pub fn edit(&mut self, start: usize, old_end: usize, new_text: &str) {
        let start = start.min(self.rope.len_bytes());
        let old_end = old_end.clamp(start, self.rope.len_bytes());
        let (cs, ce) = (
            self.rope.byte_to_char(start),
            self.rope.byte_to_char(old_end),
        );
        self.rope.remove(cs..ce);
        self.rope.insert(cs, new_text);
        self.analysis.edit(start, old_end, new_text);
    }

    pub fn replace_all(&mut self, text: &str) {
        self.rope = Rope::from_str(text);
        let headers = self.analysis.headers().clone();
        self.analysis = analysis::Document::with_headers(text, self.language, headers);
    }

    /// Re-analyses after a batch of edits (once per notification, not once per edit).
    pub fn refresh(&mut self) {
        self.report = self.analysis.report();
    }

    pub fn report(&self) -> &FileReport {
        &self.report
    }

    pub fn text(&self) -> String {
        self.rope.to_string()
    }

    /// The loop an offload of the 1-based `line` means, with its region, outlined on demand (the
    /// diagnostics never need it).
    pub fn outline(&self, line: usize) -> Result<(LoopReport, OffloadRegion), OutlineError> {
        if let Some(lp) = analysis::loop_for_line(&self.report, line)
            && let Some(region) = lp.region.clone().filter(|_| lp.parallel)
        {
            return Ok((lp.clone(), region));
        }
        analysis::outline_at(
            self.text().as_bytes(),
            self.language,
            line,
            self.analysis.headers(),
        )
    }
}
