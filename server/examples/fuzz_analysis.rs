//! A deterministic mutation fuzzer for the loop analysis, on a stable toolchain (cargo-fuzz needs
//! nightly; `fuzz/` holds that target). It mutates real C/C++ files (the real-world corpus, the
//! test workspaces, the analysis test data), and runs each mutant through everything the
//! language server and the command line do with a buffer:
//!
//! * `analyze_source` with the C, C++ and CUDA grammars (verdicts, regions, notes);
//! * a lazy `Document` (the server's): open, a few random edits, the background outlining, and the
//!   result compared with a fresh analysis (regions aside) — a cached or re-based report that
//!   differs from a fresh one is a finding too;
//! * `outline_at` on some loops (the code action).
//!
//! Panics are caught (`catch_unwind`) and the input saved; an abort (stack overflow) leaves the
//! input it died on in `<out>/current.bin`.
//!
//! ```text
//! cargo run --release --example fuzz_analysis -- --seconds 600 --seed 1 --out target/fuzz-analysis
//! ```
//! Prints a JSON summary (and writes it to `<out>/summary.json`).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cuda_offload::analysis::{Document, FileReport, Headers, Language, analyze_source, outline_at};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

const TOKENS: &[&str] = &[
    "for (",
    "for (int i = 0; i < n; ++i) ",
    "while (",
    "do {",
    "} while (",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    ";",
    "+=",
    "++",
    "--",
    "i",
    "j",
    "a[i]",
    "a[i - 1]",
    "x[idx[i]]",
    "#define X ",
    "#define F(a, b) ((a) * (b))\n",
    "#pragma omp parallel for\n",
    "#ifdef A\n",
    "#endif\n",
    "->",
    "*",
    "&",
    "\u{ff}",
    "é",
    "\n",
    "\n\n\n",
    "template <typename T>",
    "[&](){",
    "0x",
    "'",
    "\"",
    "/*",
    "*/",
    "//",
    "\\\n",
    "return ",
    "break;",
    "continue;",
    "goto l;",
    "static ",
    "const ",
    "struct S { int a; float b[4]; };\n",
    "class C { int f() const { return 1; } };\n",
    "__global__ ",
    "__device__ ",
    "std::vector<float> ",
    "auto ",
    "::",
    ".",
    ",",
    "?",
    ":",
    "sizeof(",
    "new ",
    "delete ",
    "printf(\"%d\", i);",
    "double g;",
    "extern int e;",
];

struct Finding {
    kind: &'static str,
    message: String,
    file: String,
}

fn seeds(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for dir in [
        "server/tests/corpus",
        "test-workspaces",
        "server/src/analysis/testdata",
    ] {
        for e in walkdir::WalkDir::new(root.join(dir))
            .sort_by_file_name()
            .into_iter()
            .flatten()
        {
            let p = e.path();
            if e.file_type().is_file()
                && Language::from_path(p).is_some()
                && let Ok(b) = std::fs::read(p)
            {
                out.push((p.strip_prefix(root).unwrap_or(p).to_path_buf(), b));
            }
        }
    }
    out
}

/// A window of whole lines of `src` (big files would make each run slow), sometimes all of it.
fn window(src: &[u8], rng: &mut ChaCha8Rng) -> Vec<u8> {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(
            src.iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .collect();
    if starts.len() < 300 && rng.random_bool(0.5) {
        return src.to_vec();
    }
    let len = rng.random_range(10..300).min(starts.len());
    let first = rng.random_range(0..=starts.len() - len);
    let a = starts[first];
    let b = starts.get(first + len).copied().unwrap_or(src.len());
    src[a..b].to_vec()
}

fn mutate(mut v: Vec<u8>, all: &[(PathBuf, Vec<u8>)], rng: &mut ChaCha8Rng) -> Vec<u8> {
    let rounds = rng.random_range(1..8);
    for _ in 0..rounds {
        let len = v.len();
        let at = if len == 0 {
            0
        } else {
            rng.random_range(0..=len)
        };
        match rng.random_range(0..9) {
            0 if len > 0 => {
                let i = rng.random_range(0..len);
                v[i] ^= 1 << rng.random_range(0..8);
            }
            1 => {
                let end = (at + rng.random_range(0..64)).min(len);
                v.drain(at..end);
            }
            2 => {
                let end = (at + rng.random_range(0..128)).min(len);
                let piece = v[at..end].to_vec();
                let to = rng.random_range(0..=v.len());
                v.splice(to..to, piece);
            }
            3 | 4 => {
                let t = TOKENS[rng.random_range(0..TOKENS.len())];
                v.splice(at..at, t.bytes());
            }
            5 => {
                // Splice a piece of another file.
                let other = &all[rng.random_range(0..all.len())].1;
                if !other.is_empty() {
                    let a = rng.random_range(0..other.len());
                    let b = (a + rng.random_range(0..400)).min(other.len());
                    v.splice(at..at, other[a..b].iter().copied());
                }
            }
            6 => v.truncate(at),
            7 => {
                let n = rng.random_range(1..16);
                let mut bytes = vec![0u8; n];
                rng.fill_bytes(&mut bytes);
                v.splice(at..at, bytes);
            }
            _ => {
                // Swap the bracket kinds of one character.
                if let Some(i) = (at..len).find(|&i| b"{}()[]".contains(&v[i])) {
                    v[i] = b"{}()[]"[rng.random_range(0..6)];
                }
            }
        }
    }
    v
}

fn without_regions(mut r: FileReport) -> FileReport {
    for l in &mut r.loops {
        l.region = None;
    }
    r
}

/// Everything run on one input; `Err` is a finding that is not a panic.
fn exercise(input: &[u8], rng: &mut ChaCha8Rng) -> Result<(), String> {
    for lang in [Language::Cpp, Language::C, Language::Cuda] {
        let report = analyze_source(input, lang);
        for l in &report.loops {
            if l.reason.is_empty() || l.line > l.end_line {
                return Err(format!("bad report for the loop at line {}: {l:?}", l.line));
            }
        }
    }
    let text = String::from_utf8_lossy(input).into_owned();
    let mut doc = Document::lazy(&text, Language::Cpp, Headers::default());
    for _ in 0..rng.random_range(0..4) {
        let len = doc.text().len();
        let start = rng.random_range(0..=len);
        let end = (start + rng.random_range(0..12)).min(len);
        let piece = match rng.random_range(0..4) {
            0 => "\n".to_string(),
            1 => String::new(),
            _ => TOKENS[rng.random_range(0..TOKENS.len())].to_string(),
        };
        doc.edit(start, end, &piece);
    }
    while doc.outline_pending(8, None).0 > 0 {}
    // The caches: the same tree analysed from scratch.
    let fresh = without_regions(doc.report_from_scratch());
    let lazy = without_regions(doc.report());
    if lazy != fresh {
        let first = lazy
            .loops
            .iter()
            .zip(&fresh.loops)
            .find(|(a, b)| a != b)
            .map(|(a, b)| format!("lazy {a:?}\nfresh {b:?}"))
            .unwrap_or_else(|| format!("{} loops vs {}", lazy.loops.len(), fresh.loops.len()));
        return Err(format!(
            "the edited document's report differs from its tree analysed from scratch: {first}"
        ));
    }
    // Incremental re-parsing: only a text with syntax errors may parse differently.
    if !doc.has_syntax_errors()
        && without_regions(analyze_source(doc.text().as_bytes(), Language::Cpp)) != fresh
    {
        return Err("an incrementally re-parsed text without syntax errors reads differently from a fresh parse".into());
    }
    let lines: Vec<usize> = doc.loops().map(|l| l.line).take(4).collect();
    for line in lines {
        let _ = doc.outline_at(line);
        let _ = outline_at(
            doc.text().as_bytes(),
            Language::Cpp,
            line,
            &Headers::default(),
        );
    }
    Ok(())
}

fn main() {
    let mut seconds = 600u64;
    let mut seed = 1u64;
    let mut out = PathBuf::from("target/fuzz-analysis");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().expect("a value after the flag");
        match a.as_str() {
            "--seconds" => seconds = value().parse().expect("seconds"),
            "--seed" => seed = value().parse().expect("seed"),
            "--out" => out = PathBuf::from(value()),
            other => panic!("unknown argument {other} (--seconds N --seed S --out DIR)"),
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("repository root")
        .to_path_buf();
    std::fs::create_dir_all(&out).expect("output directory");
    let all = seeds(&root);
    assert!(
        !all.is_empty(),
        "no seed files found under {}",
        root.display()
    );
    // Panics are findings: keep their message, do not print them.
    let last_panic = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let hook_msg = last_panic.clone();
    std::panic::set_hook(Box::new(move |info| {
        *hook_msg.lock().unwrap() = info.to_string();
    }));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let start = Instant::now();
    let deadline = Duration::from_secs(seconds);
    let (mut inputs, mut bytes) = (0u64, 0u64);
    let mut slowest = (Duration::ZERO, String::new());
    let mut findings: Vec<Finding> = Vec::new();
    while start.elapsed() < deadline {
        let (path, src) = &all[rng.random_range(0..all.len())];
        let base = window(src, &mut rng);
        let input = mutate(base, &all, &mut rng);
        std::fs::write(out.join("current.bin"), &input).expect("write current input");
        let mut case_rng = ChaCha8Rng::seed_from_u64(rng.next_u64());
        let t = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| exercise(&input, &mut case_rng)));
        let took = t.elapsed();
        if took > slowest.0 {
            slowest = (took, path.display().to_string());
        }
        inputs += 1;
        bytes += input.len() as u64;
        let finding = match result {
            Ok(Ok(())) => None,
            Ok(Err(msg)) => Some(("mismatch", msg)),
            Err(_) => Some(("panic", last_panic.lock().unwrap().clone())),
        };
        if let Some((kind, message)) = finding {
            let file = out.join(format!("{kind}-{}.bin", findings.len()));
            std::fs::write(&file, &input).expect("write finding");
            eprintln!("{kind} on a mutant of {}: {message}", path.display());
            findings.push(Finding {
                kind,
                message,
                file: file.display().to_string(),
            });
            if findings.len() >= 50 {
                break;
            }
        }
    }
    let _ = std::fs::remove_file(out.join("current.bin"));
    let summary = serde_json::json!({
        "seconds": start.elapsed().as_secs_f64().round(),
        "seed": seed,
        "seed_files": all.len(),
        "inputs": inputs,
        "input_bytes": bytes,
        "inputs_per_second": (inputs as f64 / start.elapsed().as_secs_f64() * 10.0).round() / 10.0,
        "slowest_input_ms": (slowest.0.as_secs_f64() * 1000.0).round(),
        "slowest_input_from": slowest.1,
        "panics": findings.iter().filter(|f| f.kind == "panic").count(),
        "mismatches": findings.iter().filter(|f| f.kind == "mismatch").count(),
        "findings": findings.iter().map(|f| serde_json::json!({"kind": f.kind, "message": f.message, "input": f.file})).collect::<Vec<_>>(),
    });
    let text = serde_json::to_string_pretty(&summary).expect("json");
    std::fs::write(out.join("summary.json"), &text).expect("write summary");
    println!("{text}");
}
