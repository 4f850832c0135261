//! The analysis measured on real third-party code (issue #17): every loop of `tests/corpus/*/src`
//! was labelled by hand before the analysis saw it (`tests/corpus/README.md`). This test computes
//! precision, recall, kind agreement and offer rate per project and fails below the targets.
//!
//! `CORPUS_VERBOSE=1 cargo test --test corpus_eval -- --nocapture` lists every disagreement.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cuda_offload::analysis::{self, LoopKind};
use serde::Deserialize;

/// Issue #17's done-when figures, printed beside the measured ones.
const TARGET_RECALL: f64 = 0.85;
const TARGET_KIND_AGREEMENT: f64 = 0.95;
const TARGET_OFFER_RATE: f64 = 0.80;
/// Floors at or just below the figures last measured (2026-12-07d: recall 0.866 (285/329), kind
/// 0.979, offer 0.809 (266/329); docs/reports/analysis): the test fails on any regression, and
/// below the targets. Arrays whose subscripts may reach below index 0 (`z[i - stride]`,
/// TeaLeaf's halo packing) count only because the region takes them by a base pointer: the
/// harness allocates from 0.
const MIN_RECALL: f64 = TARGET_RECALL;
const MIN_KIND_AGREEMENT: f64 = 0.97;
const MIN_OFFER_RATE: f64 = TARGET_OFFER_RATE;
const MIN_LOOPS: usize = 300;
const MIN_PROJECTS: usize = 6;

#[derive(Deserialize)]
struct Labels {
    origin: Origin,
    #[serde(rename = "loop", default)]
    loops: Vec<Label>,
}

#[derive(Deserialize)]
struct Origin {
    repo: String,
    commit: String,
    licence: String,
    files: BTreeMap<String, String>,
    /// Project headers the files include, copied so that the includes resolve as in the project.
    #[serde(default)]
    headers: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct Label {
    file: String,
    line: usize,
    parallel: bool,
    kind: String,
    reason: String,
    #[serde(default = "yes")]
    visible: bool,
}

fn yes() -> bool {
    true
}

#[derive(Default, Clone, Copy)]
struct Counts {
    loops: usize,
    parallel: usize,
    true_pos: usize,
    false_pos: usize,
    kind_agree: usize,
    offered: usize,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.loops += o.loops;
        self.parallel += o.parallel;
        self.true_pos += o.true_pos;
        self.false_pos += o.false_pos;
        self.kind_agree += o.kind_agree;
        self.offered += o.offered;
    }
    fn recall(&self) -> f64 {
        ratio(self.true_pos, self.parallel)
    }
    fn kind_agreement(&self) -> f64 {
        ratio(self.kind_agree, self.true_pos)
    }
    fn offer_rate(&self) -> f64 {
        ratio(self.offered, self.parallel)
    }
    fn precision(&self) -> f64 {
        ratio(self.true_pos, self.true_pos + self.false_pos)
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn projects() -> Vec<(String, Labels)> {
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(corpus_dir())
        .expect("tests/corpus exists")
        .filter_map(Result::ok)
        .filter(|e| e.path().join("labels.toml").is_file())
        .collect();
    dirs.sort_by_key(|e| e.file_name());
    for d in dirs {
        let path = d.path().join("labels.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        let labels: Labels =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        out.push((d.file_name().to_string_lossy().into_owned(), labels));
    }
    out
}

fn kind_of(label: &str) -> LoopKind {
    match label {
        "map" => LoopKind::Map,
        "reduction" => LoopKind::Reduction,
        "histogram" => LoopKind::Histogram,
        "stencil" => LoopKind::Stencil,
        "scan" => LoopKind::Scan,
        "sequential" => LoopKind::Sequential,
        other => panic!("unknown kind `{other}` in a label"),
    }
}

#[test]
fn corpus_is_labelled_completely_with_origin_and_licence() {
    let projects = projects();
    assert!(
        projects.len() >= MIN_PROJECTS,
        "{} projects, want {MIN_PROJECTS}",
        projects.len()
    );
    let mut total = 0;
    for (name, labels) in &projects {
        let dir = corpus_dir().join(name);
        assert!(dir.join("LICENSE").is_file(), "{name}: LICENSE missing");
        assert_eq!(
            labels.origin.commit.len(),
            40,
            "{name}: commit is not 40 hex"
        );
        assert!(
            labels.origin.repo.contains('/'),
            "{name}: repo is owner/name"
        );
        assert!(!labels.origin.licence.is_empty(), "{name}: licence missing");
        for h in labels.origin.headers.keys() {
            assert!(dir.join(h).is_file(), "{name}: header {h} missing");
        }
        let mut seen = std::collections::HashSet::new();
        for l in &labels.loops {
            assert!(
                labels.origin.files.contains_key(&l.file),
                "{name}: {} is not in origin.files",
                l.file
            );
            assert!(
                seen.insert((l.file.clone(), l.line)),
                "{name}: {}:{} labelled twice",
                l.file,
                l.line
            );
            assert_eq!(
                l.parallel,
                kind_of(&l.kind).is_parallel(),
                "{name}: {}:{} parallel/kind disagree",
                l.file,
                l.line
            );
            assert!(
                !l.reason.trim().is_empty(),
                "{name}: {}:{} has no reason",
                l.file,
                l.line
            );
        }
        // Every loop statement of every file has a label, and every label names a loop.
        for file in labels.origin.files.keys() {
            let report =
                analysis::analyze_file(&dir.join(file)).unwrap_or_else(|e| panic!("{name}: {e}"));
            let found: std::collections::BTreeSet<usize> =
                report.loops.iter().map(|l| l.line).collect();
            let labelled: std::collections::BTreeSet<usize> = labels
                .loops
                .iter()
                .filter(|l| &l.file == file)
                .map(|l| l.line)
                .collect();
            let unlabelled: Vec<_> = found.difference(&labelled).collect();
            let phantom: Vec<_> = labelled.difference(&found).collect();
            assert!(
                unlabelled.is_empty() && phantom.is_empty(),
                "{name}/{file}: loops without a label at lines {unlabelled:?}; labels without a loop at lines {phantom:?}"
            );
        }
        total += labels.loops.len();
    }
    assert!(
        total >= MIN_LOOPS,
        "{total} labelled loops, want {MIN_LOOPS}"
    );
}

#[test]
fn analysis_meets_the_targets_on_real_code() {
    let verbose = std::env::var_os("CORPUS_VERBOSE").is_some();
    let mut all = Counts::default();
    let mut rows = Vec::new();
    let mut false_positives = Vec::new();
    for (name, labels) in projects() {
        let dir = corpus_dir().join(&name);
        let mut c = Counts::default();
        let mut reports = BTreeMap::new();
        for file in labels.origin.files.keys() {
            let path = dir.join(file);
            let src = std::fs::read(&path).unwrap();
            reports.insert(file.clone(), (analysis::analyze_file(&path).unwrap(), src));
        }
        for l in &labels.loops {
            let (report, src) = &reports[&l.file];
            let Some(found) = report.loops.iter().find(|r| r.line == l.line) else {
                continue;
            };
            c.loops += 1;
            let want = kind_of(&l.kind);
            if l.parallel {
                c.parallel += 1;
            }
            let where_ = format!("{name}/{}:{}", l.file, l.line);
            match (l.parallel, found.parallel) {
                (true, true) => {
                    c.true_pos += 1;
                    if found.kind == want {
                        c.kind_agree += 1;
                    } else if verbose {
                        eprintln!(
                            "KIND {where_}: labelled {}, analysis {} — {}",
                            l.kind,
                            found.kind.as_str(),
                            found.reason
                        );
                    }
                    let lang = analysis::Language::from_path(Path::new(&l.file)).unwrap();
                    let headers =
                        analysis::Headers::for_source(src, dir.join(&l.file).parent().unwrap());
                    match analysis::outline_at(src, lang, l.line, &headers) {
                        Ok(_) => c.offered += 1,
                        Err(why) if verbose => eprintln!("NO REGION {where_}: {why}"),
                        Err(_) => {}
                    }
                }
                (false, true) => {
                    c.false_pos += 1;
                    false_positives.push(format!(
                        "{where_}: labelled sequential ({}), analysis says {} — {}",
                        l.reason,
                        found.kind.as_str(),
                        found.reason
                    ));
                }
                (true, false) if verbose => eprintln!(
                    "MISS {where_}{}: labelled {} ({}); analysis: {}",
                    if l.visible {
                        ""
                    } else {
                        " (needs other files)"
                    },
                    l.kind,
                    l.reason,
                    found.reason
                ),
                _ => {}
            }
        }
        rows.push((name, c));
        all.add(&c);
    }
    eprintln!("project        loops parallel  recall  precision  kind  offer");
    for (name, c) in rows
        .iter()
        .chain(std::iter::once(&("all".to_string(), all)))
    {
        eprintln!(
            "{name:<14} {:>5} {:>8}  {:>6.2}  {:>9.2}  {:>4.2}  {:>5.2}",
            c.loops,
            c.parallel,
            c.recall(),
            c.precision(),
            c.kind_agreement(),
            c.offer_rate()
        );
    }
    eprintln!(
        "targets (issue #17): recall {TARGET_RECALL}, kind {TARGET_KIND_AGREEMENT}, offer {TARGET_OFFER_RATE}, 0 false positives"
    );
    for fp in &false_positives {
        eprintln!("FALSE POSITIVE {fp}");
    }
    // A false positive breaks a user's program: none is ever accepted.
    assert!(
        false_positives.is_empty(),
        "{} false positives (listed above)",
        false_positives.len()
    );
    assert!(
        all.recall() >= MIN_RECALL,
        "recall {:.3} < {MIN_RECALL}",
        all.recall()
    );
    assert!(
        all.kind_agreement() >= MIN_KIND_AGREEMENT,
        "kind agreement {:.3} < {MIN_KIND_AGREEMENT}",
        all.kind_agreement()
    );
    assert!(
        all.offer_rate() >= MIN_OFFER_RATE,
        "offer rate {:.3} < {MIN_OFFER_RATE}",
        all.offer_rate()
    );
}
