//! A first look at a large file: the verdicts of the loops in its leading part, ready long before
//! the whole file is parsed and analysed (tree-sitter alone needs ~55 ms for 10,000 lines, the
//! verdicts of its ~2,300 loops several times that). An editor opens a file at its top, so that
//! part is what the user sees first.
//!
//! The leading part is cut after a line that closes a top-level block (`}` in the first column)
//! and used only when it parses without errors. Only *settled* verdicts are offered: those that
//! text further down cannot change. C and C++ declare before use, so the macros, types, globals
//! and constants a loop can use are all above it; what can still change is a call to a function
//! whose body comes later (a prototype above, the definition below) or a method of a class whose
//! members are defined out of line, and a loop with such a call waits for the whole file.

use super::facts::{PURE_METHODS, is_pure_library_function};
use super::{Document, Headers, Language, LoopReport};

/// Below this size the whole file is analysed about as fast as a part of it.
const LARGE_FILE_BYTES: usize = 64 * 1024;
/// The leading part: at least this much (~600 lines of typical code, several screens).
const LEADING_BYTES: usize = 16 * 1024;

/// The analysis of the leading part of a large file.
pub struct FirstLook {
    pub document: Document,
    /// Bytes of the file the document holds (a prefix of it, ending after a newline).
    pub bytes: usize,
}

impl FirstLook {
    /// The loops of the leading part whose verdicts the rest of the file cannot change.
    pub fn settled(&self) -> impl Iterator<Item = &LoopReport> {
        self.document
            .loops()
            .filter(|l| is_settled(l, |m| self.document.defines_macro(m)))
    }
}

/// The first look at `text`, or `None` for a file small enough to analyse whole at once, or
/// one with no clean place to cut.
pub fn first_look(text: &str, lang: Language, headers: &Headers) -> Option<FirstLook> {
    if text.len() < LARGE_FILE_BYTES {
        return None;
    }
    leading_part(text, lang, headers, LEADING_BYTES)
}

/// The leading part of at least `leading` bytes, analysed.
fn leading_part(
    text: &str,
    lang: Language,
    headers: &Headers,
    leading: usize,
) -> Option<FirstLook> {
    let mut from = leading;
    // A second try when the first cut falls inside a block (a namespace around everything, a
    // brace the preprocessor balances): past that, the file is analysed whole.
    for _ in 0..2 {
        let cut = cut_after(text, from)?;
        if cut > text.len() / 2 {
            return None;
        }
        let document = Document::verdicts_only(&text[..cut], lang, headers.clone());
        if document.tree().is_some_and(|t| !t.root_node().has_error()) {
            return Some(FirstLook {
                document,
                bytes: cut,
            });
        }
        from = cut + leading / 2;
    }
    None
}

/// The end (after its newline) of the first line at or after byte `from` that starts with `}`.
fn cut_after(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut line_start = text[..from.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    while line_start < bytes.len() {
        let line_end = text[line_start..].find('\n').map(|i| line_start + i + 1)?;
        if line_start >= from && bytes[line_start] == b'}' {
            return Some(line_end);
        }
        line_start = line_end;
    }
    None
}

/// True when nothing below the loop can change its report: it calls only macros (defined before
/// use), the standard library's pure functions and the container methods known by name.
fn is_settled(report: &LoopReport, is_macro: impl Fn(&str) -> bool) -> bool {
    report.calls.iter().all(|call| match call.rsplit_once('.') {
        Some((_, method)) => PURE_METHODS.contains(&method),
        None => is_macro(call) || is_pure_library_function(call),
    })
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;

    fn without_outlining(mut r: LoopReport) -> LoopReport {
        r.region = None;
        r.region_note = None;
        r
    }

    /// The promise the first look makes: a settled verdict is the one the whole file gives.
    /// Checked on real third-party code (the analysis corpus) and the test workspaces, cut at
    /// many places, not only where a large file would be cut.
    #[test]
    fn settled_verdicts_of_the_leading_part_are_those_of_the_whole_file() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files: Vec<PathBuf> = Vec::new();
        for dir in [root.join("tests/corpus"), root.join("../test-workspaces")] {
            let mut stack = vec![dir];
            while let Some(d) = stack.pop() {
                for e in std::fs::read_dir(&d).expect("corpus folder").flatten() {
                    let p = e.path();
                    if p.is_dir() {
                        stack.push(p);
                    } else if Language::from_path(&p).is_some() {
                        files.push(p);
                    }
                }
            }
        }
        files.sort();
        let (mut looks, mut settled, mut waiting) = (0, 0, 0);
        for path in &files {
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            let lang = Language::from_path(path).expect("a C/C++ file");
            let headers = Headers::beside(path, text.as_bytes());
            let whole = Document::verdicts_only(&text, lang, headers.clone());
            let full: Vec<LoopReport> = whole.loops().cloned().map(without_outlining).collect();
            let mut leading = 512;
            while leading < text.len() {
                if let Some(look) = leading_part(&text, lang, &headers, leading) {
                    looks += 1;
                    assert!(text[..look.bytes].ends_with('\n'));
                    for l in look.document.loops() {
                        if !look.settled().any(|s| std::ptr::eq(s, l)) {
                            waiting += 1;
                            continue;
                        }
                        settled += 1;
                        let mine = without_outlining(l.clone());
                        let same = full
                            .iter()
                            .find(|f| f.line == mine.line && f.depth == mine.depth);
                        assert_eq!(
                            same,
                            Some(&mine),
                            "{}: the loop at line {} cut after {} bytes",
                            path.display(),
                            l.line,
                            look.bytes
                        );
                    }
                }
                leading = leading * 3 / 2;
            }
        }
        println!(
            "{} files, {looks} leading parts: {settled} settled verdicts equal the whole file's, {waiting} wait for it",
            files.len()
        );
        assert!(looks >= 30, "only {looks} leading parts were cut");
        assert!(settled >= 200, "only {settled} settled verdicts compared");
    }

    #[test]
    fn a_small_file_is_analysed_whole() {
        let text = "void f(int n, float* y) {\n    for (int i = 0; i < n; ++i) y[i] = 0;\n}\n";
        assert!(first_look(text, Language::Cpp, &Headers::default()).is_none());
    }

    #[test]
    fn a_large_file_is_cut_after_a_top_level_block_and_calls_to_later_bodies_wait() {
        let mut text = String::from("float later(float x);\n");
        for k in 0..2000 {
            text.push_str(&format!(
                "void f{k}(int n, float* y) {{\n    for (int i = 0; i < n; ++i) y[i] = later(y[i]);\n    for (int i = 0; i < n; ++i) y[i] = std::sqrt(y[i]);\n}}\n"
            ));
        }
        text.push_str("float later(float x) { return 2 * x; }\n");
        let look = first_look(&text, Language::Cpp, &Headers::default()).expect("a first look");
        assert!(look.bytes >= LEADING_BYTES && look.bytes < text.len() / 2);
        assert!(text[..look.bytes].ends_with("}\n"));
        let loops: Vec<&LoopReport> = look.document.loops().collect();
        let settled: Vec<&LoopReport> = look.settled().collect();
        assert!(!loops.is_empty());
        // The `later` loops wait for the whole file (its body makes them parallel); the `sqrt`
        // ones are settled.
        assert_eq!(settled.len() * 2, loops.len());
        assert!(
            settled
                .iter()
                .all(|l| l.calls.iter().all(|c| c.contains("sqrt")))
        );
        let whole = Document::verdicts_only(&text, Language::Cpp, Headers::default());
        let first_later = loops
            .iter()
            .find(|l| l.calls.iter().any(|c| c == "later"))
            .unwrap();
        let in_whole = whole.loops().find(|l| l.line == first_later.line).unwrap();
        assert_ne!(
            first_later.parallel, in_whole.parallel,
            "the body below changes the verdict"
        );
    }

    #[test]
    fn a_file_inside_one_namespace_has_no_clean_cut() {
        let mut text = String::from("namespace app {\n");
        for k in 0..3000 {
            text.push_str(&format!(
                "void f{k}(int n, float* y) {{\n    for (int i = 0; i < n; ++i) y[i] = 0;\n}}\n"
            ));
        }
        text.push_str("}\n");
        // Its functions close at column 0 but the namespace stays open: no leading part parses.
        assert!(first_look(&text, Language::Cpp, &Headers::default()).is_none());
    }
}
