//! `graph build`: relabel each step's technique onto the vocabulary and merge the trajectories into the
//! graph from `init`, step by step (ARCHITECTURE.md §3).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::Serialize;

use super::model::{Example, FORMAT, Header, Node, ReGraph};
use super::tasks::Task;
use super::trajectory::{Located, Step};
use super::vocab::{MatchKind, Vocabulary};

/// Which steps may enter the graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BuildOptions {
    /// Also merge steps the verifier has not measured yet (`measured: null`); their examples say
    /// `verified: false`. Steps measured as incorrect are never merged.
    pub include_unverified: bool,
}

/// Why the rest of a trajectory was left out. Every later step builds on the one left out, so the
/// trajectory stops there.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum StopReason {
    UnknownTask,
    UnmatchedTechnique { technique: String },
    NotMeasured,
    MeasuredIncorrect,
}

/// A trajectory (or its tail) that did not enter the graph.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stopped {
    pub file: PathBuf,
    pub line: usize,
    pub task: String,
    /// 1-based step where merging stopped.
    pub step: usize,
    /// Steps of this trajectory left out (this one and all after it).
    pub steps_left_out: usize,
    #[serde(flatten)]
    pub reason: StopReason,
}

/// A name that was placed by similarity, worth an alias in techniques.toml.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FuzzyMatch {
    pub technique: String,
    pub relabelled_to: String,
    pub score: f64,
}

/// What a build did, for the user and for tests.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BuildReport {
    pub trajectories: usize,
    pub steps: usize,
    pub merged_steps: usize,
    pub verified_steps: usize,
    pub new_nodes: usize,
    pub new_edges: usize,
    pub appended_examples: usize,
    pub tasks: BTreeSet<String>,
    pub stopped: Vec<Stopped>,
    pub fuzzy: Vec<FuzzyMatch>,
}

impl BuildReport {
    /// Free-form names no technique matched, with how often each occurred.
    pub fn unmatched(&self) -> BTreeMap<&str, usize> {
        let mut out = BTreeMap::new();
        for s in &self.stopped {
            if let StopReason::UnmatchedTechnique { technique } = &s.reason {
                *out.entry(technique.as_str()).or_insert(0) += 1;
            }
        }
        out
    }
}

pub fn header(options: BuildOptions, techniques: usize) -> Header {
    let note = if options.include_unverified {
        "Built with --include-unverified: examples with \"verified\": false were compile-checked only and have \
         no GPU measurement yet; rebuild without the flag once the trajectories are verified on the H200."
    } else {
        "Only steps verified on the GPU (measured.correct == true) were merged."
    };
    Header {
        format: FORMAT,
        generated_by: "cuda-offload graph build".into(),
        include_unverified: options.include_unverified,
        techniques,
        note: note.into(),
    }
}

/// Merges the trajectories into a new graph.
pub fn build(
    vocab: &Vocabulary,
    tasks: &BTreeMap<String, Task>,
    trajectories: &[Located],
    options: BuildOptions,
) -> (ReGraph, BuildReport) {
    let mut graph = ReGraph::new(
        header(options, vocab.len().saturating_sub(1)),
        Node::from(&vocab.techniques()[0]),
    );
    let mut report = BuildReport::default();
    for located in trajectories {
        merge_one(&mut graph, &mut report, vocab, tasks, located, options);
    }
    graph.sort_examples();
    (graph, report)
}

fn merge_one(
    graph: &mut ReGraph,
    report: &mut BuildReport,
    vocab: &Vocabulary,
    tasks: &BTreeMap<String, Task>,
    located: &Located,
    options: BuildOptions,
) {
    let t = &located.trajectory;
    report.trajectories += 1;
    report.steps += t.steps.len();
    let stop = |report: &mut BuildReport, k: usize, reason: StopReason| {
        report.stopped.push(Stopped {
            file: located.file.clone(),
            line: located.line,
            task: t.task.clone(),
            step: k + 1,
            steps_left_out: t.steps.len() - k,
            reason,
        });
    };
    let Some(task) = tasks.get(&t.task) else {
        stop(report, 0, StopReason::UnknownTask);
        return;
    };
    let mut current = graph.init();
    let mut before = task.serial_file();
    for (k, step) in t.steps.iter().enumerate() {
        let verified = match eligibility(step, options) {
            Ok(verified) => verified,
            Err(reason) => return stop(report, k, reason),
        };
        // `init` is the serial code, never a step: a step named like it is as unplaceable as an
        // unknown name.
        let Some(relabel) = vocab.relabel(&step.technique).filter(|r| r.index != 0) else {
            let technique = step.technique.clone();
            return stop(report, k, StopReason::UnmatchedTechnique { technique });
        };
        let technique = &vocab.techniques()[relabel.index];
        if let MatchKind::Similar(score) = relabel.how {
            report.fuzzy.push(FuzzyMatch {
                technique: step.technique.clone(),
                relabelled_to: technique.name.clone(),
                score,
            });
        }
        let (next, new_node) = graph.add_node(Node::from(technique), relabel.index);
        let example = Example {
            task: t.task.clone(),
            category: task.category,
            kind: task.region.kind,
            step: k + 1,
            author: t.author.clone(),
            relabelled_from: (step.technique != technique.name).then(|| step.technique.clone()),
            reasoning: step.reasoning.clone(),
            detail: step.detail.clone(),
            verified,
            measured: step.measured.clone(),
            before: std::mem::take(&mut before),
            after: step.code.clone(),
        };
        let new_edge = graph.add_example(current, next, example);
        report.merged_steps += 1;
        report.verified_steps += usize::from(verified);
        report.new_nodes += usize::from(new_node);
        if new_edge {
            report.new_edges += 1;
        } else {
            report.appended_examples += 1;
        }
        report.tasks.insert(t.task.clone());
        before = step.code.clone();
        current = next;
    }
}

/// `Ok(verified)` when the step may be merged.
fn eligibility(step: &Step, options: BuildOptions) -> Result<bool, StopReason> {
    match &step.measured {
        Some(m) if m.correct => Ok(true),
        Some(_) => Err(StopReason::MeasuredIncorrect),
        None if options.include_unverified => Ok(false),
        None => Err(StopReason::NotMeasured),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::graph::query::PathQuery;
    use crate::graph::trajectory::parse_jsonl;
    use crate::graph::vocab::Vocabulary;

    const VOCAB: &str = r#"
[[technique]]
name = "init"
title = "Serial code"
description = "The serial code."
[[technique]]
name = "naive"
title = "Naive port"
aliases = ["one thread per element"]
description = "One thread per element."
[[technique]]
name = "tiling"
title = "Shared-memory tiling"
aliases = ["shared memory"]
description = "Stage tiles in shared memory."
[[technique]]
name = "unroll"
title = "Loop unrolling"
aliases = ["pragma unroll"]
description = "Unroll inner loops."
"#;

    fn task(id: &str, kind: &str) -> Task {
        let text = format!(
            r##"id = "{id}"
category = "blas"
description = "d"
tier = "easy"
[region]
name = "{id}"
kind = "{kind}"
whole_function = true
line = 0
end_line = 0
includes = []
source = "void {id}(int n, float* y) {{ for (int i = 0; i < n; ++i) y[i] = 0; }}"
params = [
  {{ name = "n", elem_type = "int", is_array = false, access = "read", is_size = true }},
  {{ name = "y", elem_type = "float", is_array = true, access = "write", extent = "n", is_size = false }},
]
work = {{ iterations = "n", ops_per_iteration = 1.0, bytes_per_iteration = 4.0 }}
[sizes]
test = [{{ n = 1 }}, {{ n = 2 }}, {{ n = 3 }}]
timed = {{ n = 4 }}
[tolerance]
rtol = 0.0
atol = 0.0
"##
        );
        Task::from_toml(&text, None).unwrap()
    }

    fn step(technique: &str, code: &str, measured: &str) -> String {
        format!(
            r#"{{"technique":"{technique}","reasoning":"why {code}","detail":"what {code}","code":"{code}","measured":{measured}}}"#
        )
    }

    fn ok(speedup: f64) -> String {
        format!(r#"{{"correct":true,"speedup":{speedup},"gpu":"H200","nvcc":"13.0"}}"#)
    }

    fn line(task: &str, steps: &[String]) -> String {
        format!(
            r#"{{"task":"{task}","author":"t","steps":[{}]}}"#,
            steps.join(",")
        )
    }

    /// Three tasks: a→naive→tiling→unroll, b→naive→tiling (appends), c→naive→unroll→tiling→unroll
    /// (new edges between existing nodes and a cycle).
    fn corpus() -> String {
        [
            line(
                "a",
                &[
                    step("one thread per element", "a1", &ok(10.0)),
                    step("shared memory", "a2", &ok(20.0)),
                    step("unroll", "a3", &ok(25.0)),
                ],
            ),
            line(
                "b",
                &[
                    step("naive", "b1", &ok(30.0)),
                    step("Shared-Memory tiling", "b2", &ok(40.0)),
                ],
            ),
            line(
                "c",
                &[
                    step("naive", "c1", &ok(5.0)),
                    step("pragma unroll", "c2", &ok(6.0)),
                    step("tiling", "c3", &ok(7.0)),
                    step("unroll", "c4", &ok(8.0)),
                ],
            ),
        ]
        .join("\n")
    }

    fn build_text(text: &str, options: BuildOptions) -> (ReGraph, BuildReport) {
        let vocab = Vocabulary::from_toml(VOCAB).unwrap();
        let tasks: BTreeMap<String, Task> = ["a", "b", "c"]
            .iter()
            .map(|id| {
                (
                    id.to_string(),
                    task(id, if *id == "c" { "stencil" } else { "map" }),
                )
            })
            .collect();
        let located = parse_jsonl(text, Path::new("t.jsonl")).unwrap();
        build(&vocab, &tasks, &located, options)
    }

    #[test]
    fn merge_appends_examples_and_adds_edges_and_nodes() {
        let (g, report) = build_text(&corpus(), BuildOptions::default());
        assert_eq!(g.node_count(), 4);
        assert_eq!(g.edge_count(), 5, "{}", g.to_dot());
        assert_eq!(report.merged_steps, 9);
        assert_eq!(report.verified_steps, 9);
        assert_eq!(report.new_nodes, 3);
        assert_eq!(report.new_edges, 5);
        assert_eq!(report.appended_examples, 4);
        assert_eq!(g.edge("init", "naive").unwrap().examples.len(), 3);
        assert_eq!(g.edge("naive", "tiling").unwrap().examples.len(), 2);
        assert_eq!(g.edge("tiling", "unroll").unwrap().examples.len(), 2);
        assert_eq!(g.edge("naive", "unroll").unwrap().examples.len(), 1);
        assert_eq!(g.edge("unroll", "tiling").unwrap().examples.len(), 1);
        let stats = g.stats();
        assert_eq!(
            (stats.examples, stats.verified_examples, stats.tasks),
            (9, 9, 3)
        );
        assert_eq!(stats.techniques, 3);
    }

    #[test]
    fn examples_chain_before_and_after_and_keep_the_original_name() {
        let (g, _) = build_text(&corpus(), BuildOptions::default());
        let first = &g.edge("init", "naive").unwrap().examples[0];
        assert_eq!(first.task, "a");
        assert!(first.before.contains("void a(int n, float* y)"));
        assert_eq!(first.after, "a1");
        assert_eq!(
            first.relabelled_from.as_deref(),
            Some("one thread per element")
        );
        let second = &g.edge("naive", "tiling").unwrap().examples[0];
        assert_eq!(
            (second.before.as_str(), second.after.as_str()),
            ("a1", "a2")
        );
        assert_eq!(
            g.edge("init", "naive").unwrap().examples[1].relabelled_from,
            None
        );
    }

    #[test]
    fn cycles_are_kept_and_paths_stay_simple() {
        let (g, _) = build_text(&corpus(), BuildOptions::default());
        assert!(petgraph::algo::is_cyclic_directed(g.petgraph()));
        let paths = g.top_paths(PathQuery {
            k: 100,
            max_depth: 10,
            ..PathQuery::default()
        });
        assert!(!paths.is_empty());
        for p in &paths {
            let unique: BTreeSet<&String> = p.techniques.iter().collect();
            assert_eq!(unique.len(), p.techniques.len(), "{p:?}");
        }
        // init→naive, naive→tiling, naive→unroll, naive→tiling→unroll, naive→unroll→tiling
        assert_eq!(paths.len(), 5);
        assert_eq!(paths[0].techniques, ["naive", "tiling"]);
        // naive→tiling: 20× and 40×, geometric mean √800.
        assert!((paths[0].mean_speedup.unwrap() - 800f64.sqrt()).abs() < 1e-9);
    }

    #[test]
    fn queries_rank_successors_and_similar_examples() {
        let (g, _) = build_text(&corpus(), BuildOptions::default());
        let succ = g.ranked_successors("naive", None).unwrap();
        let names: Vec<&str> = succ.iter().map(|s| s.technique.as_str()).collect();
        assert_eq!(names, ["tiling", "unroll"]);
        assert_eq!(succ[0].examples, 2);
        assert!((succ[0].mean_speedup.unwrap() - 800f64.sqrt()).abs() < 1e-9);
        let stencil = g.successors("naive", Some(LoopKind::Stencil)).unwrap();
        assert_eq!(stencil.len(), 1);
        assert_eq!(stencil[0].technique, "unroll");
        assert!(g.successors("nowhere", None).is_none());
        let similar = g.similar_examples("naive", "tiling", "b1", 1);
        assert_eq!(similar.len(), 1);
        assert_eq!(similar[0].example.task, "b");
        assert_eq!(similar[0].similarity, 1.0);
        assert!(g.similar_examples("init", "unroll", "x", 3).is_empty());
    }

    use crate::analysis::LoopKind;

    #[test]
    fn unverified_steps_need_the_flag_and_failed_steps_never_merge() {
        let text = [
            line(
                "a",
                &[
                    step("naive", "a1", &ok(2.0)),
                    step("tiling", "a2", "null"),
                    step("unroll", "a3", "null"),
                ],
            ),
            line(
                "b",
                &[
                    step("naive", "b1", r#"{"correct":false}"#),
                    step("tiling", "b2", &ok(1.0)),
                ],
            ),
        ]
        .join("\n");
        let (g, report) = build_text(&text, BuildOptions::default());
        assert_eq!(g.edge_count(), 1);
        assert_eq!(report.merged_steps, 1);
        assert_eq!(report.stopped.len(), 2);
        assert_eq!(report.stopped[0].reason, StopReason::NotMeasured);
        assert_eq!(
            (report.stopped[0].step, report.stopped[0].steps_left_out),
            (2, 2)
        );
        assert_eq!(report.stopped[1].reason, StopReason::MeasuredIncorrect);

        let (g, report) = build_text(
            &text,
            BuildOptions {
                include_unverified: true,
            },
        );
        assert_eq!(report.merged_steps, 3);
        assert_eq!(report.verified_steps, 1);
        let tiling = &g.edge("naive", "tiling").unwrap().examples[0];
        assert!(!tiling.verified);
        assert!(g.header.include_unverified);
        assert!(g.to_json().contains("\"verified\": false"));
    }

    #[test]
    fn unknown_tasks_and_unmatched_names_are_reported() {
        let text = [
            line("zzz", &[step("naive", "z1", &ok(2.0))]),
            line(
                "a",
                &[
                    step("naive", "a1", &ok(2.0)),
                    step("quantum annealing", "a2", &ok(3.0)),
                ],
            ),
            line(
                "b",
                &[step("naive", "b1", &ok(2.0)), step("init", "b2", &ok(3.0))],
            ),
        ]
        .join("\n");
        let (g, report) = build_text(&text, BuildOptions::default());
        assert_eq!(g.edge_count(), 1);
        assert_eq!(report.stopped[0].reason, StopReason::UnknownTask);
        assert_eq!(
            report.unmatched().into_iter().collect::<Vec<_>>(),
            [("init", 1), ("quantum annealing", 1)]
        );
        assert!(g.node("init").is_some() && g.edge("naive", "init").is_none());
    }

    #[test]
    fn output_is_stable_and_independent_of_input_order() {
        let (g1, _) = build_text(&corpus(), BuildOptions::default());
        let (g2, _) = build_text(&corpus(), BuildOptions::default());
        assert_eq!(g1.to_json(), g2.to_json());
        let text = corpus();
        let reversed: Vec<&str> = text.lines().rev().collect();
        let (g3, _) = build_text(&reversed.join("\n"), BuildOptions::default());
        assert_eq!(g1.to_json(), g3.to_json());
        let reloaded = ReGraph::from_json(&g1.to_json()).unwrap();
        assert_eq!(reloaded.to_json(), g1.to_json());
        assert_eq!(reloaded.stats(), g1.stats());
    }

    #[test]
    fn corrupt_graph_files_are_rejected() {
        let (g, _) = build_text(&corpus(), BuildOptions::default());
        let json = g.to_json();
        assert!(
            ReGraph::from_json(&json.replace("\"format\": 1", "\"format\": 9"))
                .unwrap_err()
                .contains("format")
        );
        assert!(
            ReGraph::from_json(&json.replace("\"to\": \"unroll\"", "\"to\": \"ghost\""))
                .unwrap_err()
                .contains("ghost")
        );
        assert!(ReGraph::from_json(&json[..json.len() / 2]).is_err());
    }
}
