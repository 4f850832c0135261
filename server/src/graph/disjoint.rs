//! The task collection must not overlap ParEval, the benchmark the product is measured on: no task may
//! share a ParEval problem's name or its computation. Test-only: it reads ParEval's data from the
//! shared benchmarks folder.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::tasks::load_tasks;

/// Above this similarity of structural 4-grams (identifiers and types abstracted) a serial body counts
/// as ParEval's computation under other names. Measured: a renamed pointer version of ParEval's gemv
/// scores above it, our closest task (row_l2_norms, a row-wise reduction like gemv) 0.52. Renamed copies of
/// one-line maps (axpy 0.51, 3-point jacobi 0.54) stay below any useful limit, so the names are
/// checked separately and the closest pairs are printed for review.
const BODY_SIMILARITY_LIMIT: f64 = 0.6;

const NAME_STOP_WORDS: &[&str] = &[
    "a", "an", "the", "of", "by", "to", "for", "with", "in", "and",
];

#[derive(Debug, Deserialize)]
struct ParEvalEntry {
    problem_type: String,
    name: String,
    parallelism_model: String,
    #[serde(default)]
    correct_output: Option<String>,
}

/// A ParEval problem: its short name (`03_dense_la_axpy` → `axpy`) and its serial code.
#[derive(Debug)]
struct Problem {
    name: String,
    short: String,
    serial: String,
}

fn pareval_dir() -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("CUDA_OFFLOAD_PAREVAL") {
        return Some(PathBuf::from(dir));
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|a| a.join("shared/benchmarks/pareval"))
        .find(|d| d.join("results/correct-outputs.json").is_file())
}

fn short_name(name: &str, problem_type: &str) -> String {
    let without_number = name.split_once('_').map_or(name, |(_, rest)| rest);
    without_number
        .strip_prefix(&format!("{problem_type}_"))
        .unwrap_or(without_number)
        .to_string()
}

fn name_tokens(name: &str) -> BTreeSet<String> {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::to_ascii_lowercase)
        .filter(|t| !t.is_empty() && !NAME_STOP_WORDS.contains(&t.as_str()))
        .collect()
}

const KEEP_WORDS: &[&str] = &[
    "for", "while", "if", "else", "return", "do", "break", "continue", "std", "min", "max", "abs",
    "sqrt", "exp", "log", "pow",
];
const TYPE_WORDS: &[&str] = &[
    "int", "double", "float", "size_t", "auto", "long", "unsigned", "char", "bool", "const",
    "int64_t", "uint32_t", "uint8_t", "int32_t",
];

/// The body of the first function in `code` (between its first `{` and last `}`) as a token stream in
/// which identifiers become `ID`, types `T` and numbers `NUM`: names and containers (`std::vector` vs
/// pointers) no longer matter, the shape of the computation does.
fn structure(code: &str) -> Vec<String> {
    let body = match (code.find('{'), code.rfind('}')) {
        (Some(a), Some(b)) if a < b => &code[a + 1..b],
        _ => code,
    };
    let mut text = String::new();
    let mut rest = body;
    while let Some(i) = rest.find("/*") {
        text.push_str(&rest[..i]);
        rest = rest[i..].find("*/").map_or("", |j| &rest[i + j + 2..]);
    }
    text.push_str(rest);
    let mut tokens = Vec::new();
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or_default();
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c.is_whitespace() {
                i += 1;
            } else if c.is_ascii_alphabetic() || c == '_' {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                tokens.push(if KEEP_WORDS.contains(&word.as_str()) {
                    word
                } else if TYPE_WORDS.contains(&word.as_str()) {
                    "T".into()
                } else {
                    "ID".into()
                });
            } else if c.is_ascii_digit() {
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                    i += 1;
                }
                tokens.push("NUM".into());
            } else {
                let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
                let op = [
                    "++", "--", "+=", "-=", "*=", "/=", "<=", ">=", "==", "!=", "&&", "||", "::",
                ]
                .iter()
                .find(|o| **o == two);
                match op {
                    Some(o) => {
                        tokens.push((*o).into());
                        i += 2;
                    }
                    None => {
                        tokens.push(c.to_string());
                        i += 1;
                    }
                }
            }
        }
    }
    tokens
}

fn shingles(tokens: &[String]) -> BTreeSet<String> {
    tokens.windows(4).map(|w| w.join(" ")).collect()
}

fn similarity(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

fn load_problems(dir: &Path) -> Vec<Problem> {
    let text = std::fs::read_to_string(dir.join("results/correct-outputs.json"))
        .expect("ParEval correct-outputs.json is readable");
    let entries: Vec<ParEvalEntry> = serde_json::from_str(&text).expect("ParEval JSON parses");
    entries
        .into_iter()
        .filter(|e| e.parallelism_model == "serial")
        .map(|e| Problem {
            short: short_name(&e.name, &e.problem_type),
            serial: e.correct_output.unwrap_or_default(),
            name: e.name,
        })
        .collect()
}

#[test]
fn short_names_and_normalization() {
    assert_eq!(short_name("03_dense_la_axpy", "dense_la"), "axpy");
    assert_eq!(
        short_name("54_stencil_game_of_life", "stencil"),
        "game_of_life"
    );
    assert_eq!(name_tokens("game_of_life"), name_tokens("life-game"));
    let a =
        structure("void f(int n, float* y) { for (int i = 0; i < n; ++i) y[i] = 2.0f; /* c */ }");
    let b = structure(
        "void g(std::size_t m, double* z) {\n// other names\n for (int k = 0; k < m; ++k) z[k] = 3; }",
    );
    assert_eq!(
        a.join(" "),
        "for ( T ID = NUM ; ID < ID ; ++ ID ) ID [ ID ] = NUM ;"
    );
    assert_eq!(a, b);
    assert_eq!(similarity(&shingles(&a), &shingles(&b)), 1.0);
}

#[test]
fn no_task_is_a_pareval_problem() {
    let Some(dir) = pareval_dir() else {
        crate::testing::skip(
            crate::testing::Needs::Data,
            "ParEval data not found (set CUDA_OFFLOAD_PAREVAL to its folder)",
        );
        return;
    };
    let problems = load_problems(&dir);
    assert_eq!(problems.len(), 60, "ParEval has 60 serial problems");
    // The detector itself: ParEval's gemv rewritten with pointers and other names must be caught.
    let renamed_gemv = "void matvec(int m, int n, const double* a, const double* x, double* y) {
        for (int i = 0; i < m; ++i) { double s = 0.0;
            for (int j = 0; j < n; ++j) s += a[i * n + j] * x[j];
            y[i] = s; } }";
    let gemv = problems
        .iter()
        .find(|p| p.short == "gemv")
        .expect("ParEval has gemv");
    let caught = similarity(
        &shingles(&structure(renamed_gemv)),
        &shingles(&structure(&gemv.serial)),
    );
    assert!(
        caught >= BODY_SIMILARITY_LIMIT,
        "renamed gemv scores only {caught:.2}"
    );
    let tasks = load_tasks(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../graph-data/tasks"))
        .expect("shipped tasks load");
    assert!(!tasks.is_empty());
    let mut closest = Vec::new();
    for task in tasks.values() {
        let id_tokens = name_tokens(&task.id);
        let shape = structure(&task.region.source);
        let ours = shingles(&shape);
        for p in &problems {
            let short_tokens = name_tokens(&p.short);
            assert!(
                !short_tokens.is_subset(&id_tokens),
                "task `{}` carries the name of ParEval's `{}`",
                task.id,
                p.name
            );
            let theirs = structure(&p.serial);
            assert!(
                shape != theirs,
                "task `{}` is ParEval's `{}` with other names",
                task.id,
                p.name
            );
            let s = similarity(&ours, &shingles(&theirs));
            assert!(
                s < BODY_SIMILARITY_LIMIT,
                "task `{}` computes like ParEval's `{}` (structural similarity {s:.2})",
                task.id,
                p.name
            );
            closest.push((s, format!("{} ~ {}", task.id, p.name)));
        }
    }
    closest.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (s, pair) in closest.iter().take(5) {
        println!("closest: {pair} ({s:.2})");
    }
}
