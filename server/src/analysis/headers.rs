//! The project headers a file includes with `#include "..."`: their macros (index macros such as
//! `FTNREF2D`, constants such as `PAD`), types and pure helpers are what the file's loops are
//! written in, so the analysis reads them the way a compiler without `-I` flags finds them:
//! relative to the including file, recursively.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::syntax::Macros;
use super::{Language, macros_in, parse};

/// How deep included headers are followed.
const MAX_DEPTH: usize = 12;
/// Headers larger than this are not read (generated tables, amalgamations).
const MAX_HEADER_BYTES: u64 = 2 << 20;

/// What the headers of a file define. `Headers::default()` is "none".
#[derive(Debug, Clone, Default)]
pub struct Headers {
    pub(crate) macros: Macros,
}

impl Headers {
    /// The headers `src` (the text of a file in `dir`) includes with quotes, and theirs.
    pub fn for_source(src: &[u8], dir: &Path) -> Headers {
        let mut h = Headers::default();
        let mut seen = HashSet::new();
        h.read_includes(src, dir, 0, &mut seen);
        h
    }

    /// [`Headers::for_source`] for the text `src` of the file at `path`.
    pub fn beside(path: &Path, src: &[u8]) -> Headers {
        path.parent()
            .map(|dir| Headers::for_source(src, dir))
            .unwrap_or_default()
    }

    fn read_includes(&mut self, src: &[u8], dir: &Path, depth: usize, seen: &mut HashSet<PathBuf>) {
        if depth >= MAX_DEPTH {
            return;
        }
        for name in quoted_includes(src) {
            let path = dir.join(&name);
            let Ok(canon) = path.canonicalize() else {
                continue;
            };
            if !seen.insert(canon.clone()) {
                continue;
            }
            let small =
                std::fs::metadata(&canon).is_ok_and(|m| m.is_file() && m.len() <= MAX_HEADER_BYTES);
            let Some(text) = small.then(|| std::fs::read(&canon).ok()).flatten() else {
                continue;
            };
            // What a header includes comes first, as the preprocessor sees it: its classes
            // and helpers are judged knowing the types of the headers it includes.
            let sub = canon.parent().map(Path::to_path_buf).unwrap_or_default();
            self.read_includes(&text, &sub, depth + 1, seen);
            let lang = Language::from_path(&canon).unwrap_or(Language::Cpp);
            if let Some(tree) = parse(&text, lang, None) {
                self.macros = macros_in(tree.root_node(), &text, &self.macros);
            }
        }
    }
}

/// The names in `#include "name"` lines.
fn quoted_includes(src: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(src)
        .lines()
        .filter_map(|l| {
            let l = l.trim_start().strip_prefix('#')?.trim_start();
            let rest = l.strip_prefix("include")?.trim_start().strip_prefix('"')?;
            rest.split('"').next().map(str::to_string)
        })
        .filter(|n| !n.is_empty())
        .collect()
}
