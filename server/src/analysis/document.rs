//! One open buffer with its syntax tree, re-parsed incrementally on each edit (`Tree::edit` + parse
//! with the old tree) and re-analysed only where it changed: each top-level function's report is
//! cached under its text and the file's context (macros, types, helpers, globals), not under its
//! position, so a one-character edit re-analyses one function and lines added above a function
//! only move its reports (`units.rs`).
//!
//! A document is either *full* ([`Document::new`]: its report is `analyze_source`'s, regions
//! included) or *lazy* ([`Document::lazy`], for the language server): regions are outlined only
//! for the code action ([`Document::outline_at`]); why a parallel loop cannot be outlined (the
//! `region_note` a diagnostic shows) is found at once for the functions an edit touched and
//! otherwise later, by [`Document::outline_pending`].

use tree_sitter::{InputEdit, Point, Tree};

use super::units::{self, Analysed, Outlining, Plan};
use super::{FileReport, Headers, Language, LoopReport, OffloadRegion, OutlineError, parse};

/// A lazy document outlines (for the notes) at once when an edit leaves at most this many
/// functions to analyse; above it they are left to `outline_pending`.
const LAZY_OUTLINE_AT_MOST: usize = 16;

pub struct Document {
    text: String,
    lang: Language,
    headers: Headers,
    tree: Option<Tree>,
    state: Analysed,
    plan: Plan,
    /// Edits queued since the last analysis.
    dirty: bool,
    edits: Vec<units::TextEdit>,
}

impl std::fmt::Debug for Document {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Document")
            .field("lang", &self.lang)
            .field("bytes", &self.text.len())
            .field("units", &self.state.units.units.len())
            .finish()
    }
}

/// The reports of one unit (a top-level function, or a loop outside any function) of a document.
#[derive(Debug, Clone, Copy)]
pub struct UnitView<'d> {
    /// Changes whenever the unit's reports do (an edit in it, a move, outlining).
    pub id: u64,
    pub reports: &'d [LoopReport],
}

impl Document {
    /// A full document: its report is [`super::analyze_source_with`]'s after every edit.
    pub fn new(text: &str, lang: Language) -> Self {
        Self::with_headers(text, lang, Headers::default())
    }

    /// A full document whose loops are read with what its project headers define.
    pub fn with_headers(text: &str, lang: Language, headers: Headers) -> Self {
        Self::build(text, lang, headers, Plan::FULL)
    }

    /// A lazy document: verdicts at once, regions never stored, the notes of why a parallel loop
    /// has no region for the functions an edit touched (all of them in a small file) and for the
    /// rest through [`Document::outline_pending`].
    pub fn lazy(text: &str, lang: Language, headers: Headers) -> Self {
        Self::with_notes_for(text, lang, headers, LAZY_OUTLINE_AT_MOST)
    }

    /// Verdicts only, nothing outlined and nothing left pending for later: a first look
    /// (`first_look.rs`) that is thrown away once the whole file is analysed.
    pub(crate) fn verdicts_only(text: &str, lang: Language, headers: Headers) -> Self {
        Self::with_notes_for(text, lang, headers, 0)
    }

    /// Notes at once when at most `at_most` functions are analysed, otherwise left pending.
    fn with_notes_for(text: &str, lang: Language, headers: Headers, at_most: usize) -> Self {
        Self::build(
            text,
            lang,
            headers,
            Plan {
                level: Outlining::Notes,
                outline_at_most: at_most,
            },
        )
    }

    fn build(text: &str, lang: Language, headers: Headers, plan: Plan) -> Self {
        let mut doc = Document {
            text: text.to_string(),
            lang,
            headers,
            tree: None,
            state: Analysed::default(),
            plan,
            dirty: false,
            edits: Vec::new(),
        };
        doc.tree = parse(doc.text.as_bytes(), lang, None);
        doc.reanalyse();
        doc
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn language(&self) -> Language {
        self.lang
    }

    pub fn headers(&self) -> &Headers {
        &self.headers
    }

    pub fn tree(&self) -> Option<&Tree> {
        self.tree.as_ref()
    }

    /// The analysis of the current text. It is computed on edit; this assembles (clones) the
    /// reports of all functions.
    pub fn report(&self) -> FileReport {
        self.state.units.to_file_report()
    }

    /// The report of the current tree analysed from scratch (no cache, regions included): what
    /// the cached, re-based, lazily outlined report must equal (regions aside). For tests and
    /// the fuzzer; an incremental re-parse of a broken text may build another tree than a fresh
    /// parse, so this is the reference for the caches, not `analyze_source`.
    pub fn report_from_scratch(&self) -> FileReport {
        match &self.tree {
            Some(tree) => super::analyze_tree(tree, self.text.as_bytes(), &self.headers),
            None => FileReport::default(),
        }
    }

    #[cfg(test)]
    pub(crate) fn context_reads(&self) -> usize {
        self.state.context_reads
    }

    /// True when the file (or a header it includes) defines `name` as a macro.
    pub(crate) fn defines_macro(&self, name: &str) -> bool {
        self.state
            .macros
            .as_ref()
            .is_some_and(|m| m.definitions.contains_key(name))
    }

    /// True when the parser had to recover from syntax errors somewhere in the file.
    pub fn has_syntax_errors(&self) -> bool {
        self.state.units.has_syntax_errors
    }

    /// The reports unit by unit, in document order, without copying them.
    pub fn units(&self) -> impl Iterator<Item = UnitView<'_>> {
        self.state.units.units.iter().map(|p| UnitView {
            id: p.unit.id(),
            reports: &p.unit.reports,
        })
    }

    /// Every loop's report in document order, without copying them.
    pub fn loops(&self) -> impl Iterator<Item = &LoopReport> {
        self.units().flat_map(|u| u.reports.iter())
    }

    /// Number of loops in the current report, without assembling it.
    pub fn loop_count(&self) -> usize {
        self.state
            .units
            .units
            .iter()
            .map(|p| p.unit.reports.len())
            .sum()
    }

    /// The loop an offload of the 1-based `line` means (see [`super::loop_for_line`]).
    pub fn loop_for_line(&self, line: usize) -> Option<&LoopReport> {
        self.loops()
            .filter(|l| l.line == line)
            .min_by_key(|l| l.depth)
            .or_else(|| self.loop_at_line(line))
    }

    /// The outermost loop whose lines contain the 1-based `line`.
    pub fn loop_at_line(&self, line: usize) -> Option<&LoopReport> {
        self.loops()
            .filter(|l| l.line <= line && line <= l.end_line)
            .min_by_key(|l| l.depth)
    }

    /// How many functions still lack the notes of why their parallel loops cannot be outlined.
    pub fn pending_outlines(&self) -> usize {
        match self.plan.level {
            Outlining::Full => 0,
            level => self.state.units.pending(level),
        }
    }

    /// Finds the notes of up to `max` functions that lack them (those nearest the 1-based line
    /// `near` first); returns how many remain and whether any report changed (got a note).
    pub fn outline_pending(&mut self, max: usize, near: Option<usize>) -> (usize, bool) {
        let Some(tree) = &self.tree else {
            return (0, false);
        };
        if self.plan.level == Outlining::Full {
            return (0, false);
        }
        units::outline_pending(
            tree,
            self.text.as_bytes(),
            &mut self.state,
            self.plan.level,
            max,
            near,
        )
    }

    /// The loop an offload of the 1-based `line` means with its region, outlined now from the
    /// current tree (only the function holding the line is analysed).
    pub fn outline_at(&self, line: usize) -> Result<(LoopReport, OffloadRegion), OutlineError> {
        if let Some(lp) = self.loop_for_line(line)
            && let Some(region) = lp.region.clone().filter(|_| lp.parallel)
        {
            return Ok((lp.clone(), region));
        }
        let (Some(tree), Some(macros)) = (&self.tree, &self.state.macros) else {
            return Err(OutlineError::NoLoop(line));
        };
        super::outline_in_tree(tree, self.text.as_bytes(), macros, line)
    }

    /// Replaces the bytes `start_byte..old_end_byte` with `new_text`. Offsets beyond the end are
    /// clamped and offsets inside a UTF-8 character move back to its start, so a confused client
    /// cannot make this panic.
    pub fn edit(&mut self, start_byte: usize, old_end_byte: usize, new_text: &str) {
        self.queue_edit(start_byte, old_end_byte, new_text);
        self.refresh();
    }

    /// [`Document::edit`] without the re-analysis: several edits (each in the coordinates the
    /// previous ones left) and then one [`Document::refresh`] parse and analyse once.
    pub fn queue_edit(&mut self, start_byte: usize, old_end_byte: usize, new_text: &str) {
        self.dirty = true;
        let start = floor_boundary(&self.text, start_byte);
        let old_end = floor_boundary(&self.text, old_end_byte.max(start));
        // The file is scanned once, up to the edit; the other two points follow from it.
        let start_position = point_at(&self.text, start);
        let old_end_position = point_after(start_position, &self.text.as_bytes()[start..old_end]);
        self.text.replace_range(start..old_end, new_text);
        let new_end = start + new_text.len();
        let new_end_position = point_after(start_position, new_text.as_bytes());
        self.edits.push(units::TextEdit {
            start,
            old_end,
            new_end,
        });
        let edit = InputEdit {
            start_byte: start,
            old_end_byte: old_end,
            new_end_byte: new_end,
            start_position,
            old_end_position,
            new_end_position,
        };
        if let Some(tree) = self.tree.as_mut() {
            tree.edit(&edit);
        }
    }

    /// Parses again (reusing what the queued edits left of the old tree) and re-analyses what
    /// changed; nothing when no edit is queued.
    pub fn refresh(&mut self) {
        if !std::mem::take(&mut self.dirty) {
            return;
        }
        let started = std::time::Instant::now();
        self.tree = parse(self.text.as_bytes(), self.lang, self.tree.as_ref());
        let parsed = started.elapsed();
        self.reanalyse();
        tracing::trace!(
            parse_ms = parsed.as_secs_f64() * 1e3,
            total_ms = started.elapsed().as_secs_f64() * 1e3,
            "refresh"
        );
    }

    fn reanalyse(&mut self) {
        let edits = std::mem::take(&mut self.edits);
        match &self.tree {
            Some(tree) => units::analyze_units(
                tree,
                self.text.as_bytes(),
                &self.headers,
                &mut self.state,
                self.plan,
                &edits,
            ),
            None => self.state = Analysed::default(),
        }
    }
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Row and byte column of a byte offset.
fn point_at(s: &str, byte: usize) -> Point {
    point_after(Point::new(0, 0), &s.as_bytes()[..byte])
}

/// The point reached from `from` after the bytes `text`.
fn point_after(from: Point, text: &[u8]) -> Point {
    match memchr::memrchr(b'\n', text) {
        Some(last) => Point::new(
            from.row + memchr::memchr_iter(b'\n', text).count(),
            text.len() - last - 1,
        ),
        None => Point::new(from.row, from.column + text.len()),
    }
}
