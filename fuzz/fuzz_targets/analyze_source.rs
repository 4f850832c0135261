//! Arbitrary bytes through the analysis (both grammars) and through an incremental edit: nothing
//! may panic, overflow the stack or hang.
#![no_main]

use cuda_offload::analysis::{Document, Language, analyze_source};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for lang in [Language::Cpp, Language::Cuda] {
        let report = analyze_source(data, lang);
        for l in &report.loops {
            assert!(!l.reason.is_empty());
            assert!(l.line <= l.end_line);
        }
    }
    // The first byte picks an edit position; the text is the rest, made valid UTF-8.
    if let Some((&pick, rest)) = data.split_first() {
        let text = String::from_utf8_lossy(rest);
        let mut doc = Document::new(&text, Language::Cpp);
        let at = (pick as usize * text.len()) / 256;
        doc.edit(at, at + 1, "[i-1]");
        assert_eq!(doc.report(), analyze_source(doc.text().as_bytes(), Language::Cpp));
    }
});
