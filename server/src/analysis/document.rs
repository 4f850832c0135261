//! One open buffer with its syntax tree, re-parsed incrementally on each edit (`Tree::edit` + parse
//! with the old tree) and re-analysed only where it changed: each top-level function's report is
//! cached under its text, first line and the file's macros, so a one-character edit re-analyses one
//! function (an edit that adds or removes lines also re-analyses the functions below it, whose line
//! numbers moved).

use tree_sitter::{InputEdit, Point, Tree};

use super::{FileReport, Headers, Language, UnitCache, UnitReports, analyze_units, parse};

pub struct Document {
    text: String,
    lang: Language,
    headers: Headers,
    tree: Option<Tree>,
    cache: UnitCache,
    units: UnitReports,
}

impl std::fmt::Debug for Document {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Document")
            .field("lang", &self.lang)
            .field("bytes", &self.text.len())
            .field("units", &self.units.units.len())
            .finish()
    }
}

impl Document {
    pub fn new(text: &str, lang: Language) -> Self {
        Self::with_headers(text, lang, Headers::default())
    }

    /// A document whose loops are read with what its project headers define.
    pub fn with_headers(text: &str, lang: Language, headers: Headers) -> Self {
        let mut doc = Document {
            text: text.to_string(),
            lang,
            headers,
            tree: None,
            cache: UnitCache::new(),
            units: UnitReports {
                units: Vec::new(),
                has_syntax_errors: false,
            },
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
        self.units.to_file_report()
    }

    /// Number of loops in the current report, without assembling it.
    pub fn loop_count(&self) -> usize {
        self.units.units.iter().map(|u| u.len()).sum()
    }

    /// Replaces the bytes `start_byte..old_end_byte` with `new_text`. Offsets beyond the end are
    /// clamped and offsets inside a UTF-8 character move back to its start, so a confused client
    /// cannot make this panic.
    pub fn edit(&mut self, start_byte: usize, old_end_byte: usize, new_text: &str) {
        let start = floor_boundary(&self.text, start_byte);
        let old_end = floor_boundary(&self.text, old_end_byte.max(start));
        let start_position = point_at(&self.text, start);
        let old_end_position = point_at(&self.text, old_end);
        self.text.replace_range(start..old_end, new_text);
        let new_end = start + new_text.len();
        let new_end_position = point_at(&self.text, new_end);
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
        self.tree = parse(self.text.as_bytes(), self.lang, self.tree.as_ref());
        self.reanalyse();
    }

    fn reanalyse(&mut self) {
        self.units = match &self.tree {
            Some(tree) => analyze_units(tree, self.text.as_bytes(), &self.headers, &mut self.cache),
            None => UnitReports {
                units: Vec::new(),
                has_syntax_errors: false,
            },
        };
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
    let before = &s.as_bytes()[..byte];
    let row = before.iter().filter(|b| **b == b'\n').count();
    let col = before.iter().rev().take_while(|b| **b != b'\n').count();
    Point::new(row, col)
}
