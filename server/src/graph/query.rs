//! Questions the search and the hover ask the graph, answered as plain data.

use std::collections::BTreeSet;

use petgraph::graph::NodeIndex;
use serde::Serialize;

use super::model::{Edge, Example, ReGraph};
use super::similarity::{code_set, jaccard};
use crate::analysis::LoopKind;

/// A technique that some trajectory applied right after the current one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Successor {
    pub technique: String,
    pub title: String,
    pub examples: usize,
    pub verified_examples: usize,
    /// Geometric mean of the verified examples' measured kernel speedups over serial; `None` before any.
    pub mean_speedup: Option<f64>,
}

/// An example and how similar its `before` code is to the code being optimized.
#[derive(Debug, Clone, Serialize)]
pub struct ScoredExample<'g> {
    pub similarity: f64,
    pub example: &'g Example,
}

/// How to rank paths from `init`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PathRank {
    /// Highest geometric-mean measured speedup after the last step first (paths without measurements last).
    #[default]
    MeanSpeedup,
    /// Most supported first: the smallest example count along the path, then the longer path.
    ExampleCount,
}

/// A suggested optimization path from `init`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PathSuggestion {
    /// Techniques after `init`, in order.
    pub techniques: Vec<String>,
    /// Smallest example count of the path's edges.
    pub support: usize,
    /// Geometric mean of the measured speedups of the last edge's verified examples.
    pub mean_speedup: Option<f64>,
}

/// Parameters of [`ReGraph::top_paths`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathQuery {
    pub k: usize,
    pub max_depth: usize,
    /// Only count examples from tasks of this loop kind.
    pub kind: Option<LoopKind>,
    pub rank: PathRank,
}

impl Default for PathQuery {
    fn default() -> Self {
        Self {
            k: 3,
            max_depth: 4,
            kind: None,
            rank: PathRank::MeanSpeedup,
        }
    }
}

/// Stops path enumeration on a dense graph; far above what a hover needs.
const MAX_PATHS_VISITED: usize = 100_000;

fn of_kind(examples: &[Example], kind: Option<LoopKind>) -> impl Iterator<Item = &Example> {
    examples
        .iter()
        .filter(move |e| kind.is_none_or(|k| e.kind == k))
}

/// Geometric, not arithmetic: an edge's examples come from tasks whose serial baselines differ by
/// orders of magnitude, and one task at 5000× would otherwise outrank a technique that helps
/// everywhere (measured at the tasks' own shapes, the arithmetic mean put `fast_math_intrinsics`
/// first after `parallelize_outer_loop` on three examples).
fn mean_speedup<'a>(examples: impl Iterator<Item = &'a Example>) -> Option<f64> {
    crate::geomean::geomean(examples.filter_map(Example::speedup))
}

/// Descending order of optional speedups, `None` last.
fn by_speedup_desc(a: Option<f64>, b: Option<f64>) -> std::cmp::Ordering {
    b.unwrap_or(f64::NEG_INFINITY)
        .total_cmp(&a.unwrap_or(f64::NEG_INFINITY))
}

impl ReGraph {
    fn successor(&self, target: NodeIndex, edge: &Edge, kind: Option<LoopKind>) -> Successor {
        let node = self.technique(target);
        Successor {
            technique: node.technique.clone(),
            title: node.title.clone(),
            examples: of_kind(&edge.examples, kind).count(),
            verified_examples: of_kind(&edge.examples, kind).filter(|e| e.verified).count(),
            mean_speedup: mean_speedup(of_kind(&edge.examples, kind)),
        }
    }

    /// Successors of a technique in graph order, with example counts and geometric-mean measured speedups;
    /// with `kind`, only examples from tasks of that loop kind count (successors without any drop out).
    /// `None` when the technique is not a node.
    pub fn successors(&self, technique: &str, kind: Option<LoopKind>) -> Option<Vec<Successor>> {
        let node = self.node(technique)?;
        Some(
            self.out_edges(node)
                .into_iter()
                .map(|(t, e)| self.successor(t, e, kind))
                .filter(|s| s.examples > 0)
                .collect(),
        )
    }

    /// Successors best first: highest geometric-mean speedup, then most examples, then graph order.
    pub fn ranked_successors(
        &self,
        technique: &str,
        kind: Option<LoopKind>,
    ) -> Option<Vec<Successor>> {
        let mut out = self.successors(technique, kind)?;
        out.sort_by(|a, b| {
            by_speedup_desc(a.mean_speedup, b.mean_speedup).then(b.examples.cmp(&a.examples))
        });
        Some(out)
    }

    /// The `k` examples of the edge `from → to` whose `before` code is most similar (token-set
    /// Jaccard) to `code`, most similar first; ties keep file order. Empty when there is no such edge.
    pub fn similar_examples(
        &self,
        from: &str,
        to: &str,
        code: &str,
        k: usize,
    ) -> Vec<ScoredExample<'_>> {
        let Some(edge) = self.edge(from, to) else {
            return Vec::new();
        };
        let query = code_set(code);
        let mut scored: Vec<ScoredExample<'_>> = edge
            .examples
            .iter()
            .map(|example| ScoredExample {
                similarity: jaccard(&query, &code_set(&example.before)),
                example,
            })
            .collect();
        scored.sort_by(|a, b| b.similarity.total_cmp(&a.similarity));
        scored.truncate(k);
        scored
    }

    /// The best `k` simple paths from `init` (no technique twice) of at most `max_depth` steps.
    pub fn top_paths(&self, query: PathQuery) -> Vec<PathSuggestion> {
        let mut found = Vec::new();
        let mut stack = vec![self.init()];
        let mut on_path: BTreeSet<NodeIndex> = stack.iter().copied().collect();
        self.walk_paths(&query, &mut stack, &mut on_path, usize::MAX, &mut found);
        found.sort_by(|a: &PathSuggestion, b| {
            let primary = match query.rank {
                PathRank::MeanSpeedup => {
                    by_speedup_desc(a.mean_speedup, b.mean_speedup).then(b.support.cmp(&a.support))
                }
                PathRank::ExampleCount => b
                    .support
                    .cmp(&a.support)
                    .then(b.techniques.len().cmp(&a.techniques.len()))
                    .then(by_speedup_desc(a.mean_speedup, b.mean_speedup)),
            };
            primary.then_with(|| a.techniques.cmp(&b.techniques))
        });
        found.truncate(query.k);
        found
    }

    fn walk_paths(
        &self,
        query: &PathQuery,
        stack: &mut Vec<NodeIndex>,
        on_path: &mut BTreeSet<NodeIndex>,
        support: usize,
        found: &mut Vec<PathSuggestion>,
    ) {
        if stack.len() > query.max_depth || found.len() >= MAX_PATHS_VISITED {
            return;
        }
        let last = *stack.last().expect("path starts at init");
        for (next, edge) in self.out_edges(last) {
            let count = of_kind(&edge.examples, query.kind).count();
            if count == 0 || on_path.contains(&next) {
                continue;
            }
            let support = support.min(count);
            stack.push(next);
            on_path.insert(next);
            found.push(PathSuggestion {
                techniques: stack[1..]
                    .iter()
                    .map(|&n| self.technique(n).technique.clone())
                    .collect(),
                support,
                mean_speedup: mean_speedup(of_kind(&edge.examples, query.kind)),
            });
            self.walk_paths(query, stack, on_path, support, found);
            on_path.remove(&next);
            stack.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::graph::tasks::load_tasks;

    fn data() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../graph-data")
    }

    /// On the shipped graph: the serial code of a task finds that task's own example first.
    #[test]
    fn similar_examples_find_the_same_task_on_the_shipped_graph() {
        let graph = ReGraph::load(&data().join("regraph.json")).unwrap();
        let tasks = load_tasks(&data().join("tasks")).unwrap();
        let first_edge = graph.successors("init", None).unwrap();
        let port = first_edge
            .first()
            .expect("the shipped graph has edges from init (graph-data/regraph.json)");
        let covered: Vec<&String> = graph
            .edge("init", &port.technique)
            .unwrap()
            .examples
            .iter()
            .map(|e| &e.task)
            .collect();
        assert!(!covered.is_empty());
        for task in covered {
            let code = tasks[task].serial_file();
            let best = graph.similar_examples("init", &port.technique, &code, 2);
            assert_eq!(
                &best[0].example.task,
                task,
                "{:?}",
                best.iter()
                    .map(|b| (&b.example.task, b.similarity))
                    .collect::<Vec<_>>()
            );
            assert!(best[0].similarity > 0.99);
            if best.len() > 1 {
                assert!(best[1].similarity < best[0].similarity);
            }
        }
    }

    #[test]
    fn paths_for_a_kind_only_use_that_kinds_examples() {
        let graph = ReGraph::load(&data().join("regraph.json")).unwrap();
        let query = PathQuery {
            k: 50,
            max_depth: 6,
            kind: Some(LoopKind::Stencil),
            rank: PathRank::ExampleCount,
        };
        let paths = graph.top_paths(query);
        for p in &paths {
            let mut from = "init".to_string();
            for t in &p.techniques {
                let edge = graph.edge(&from, t).unwrap();
                assert!(
                    edge.examples.iter().any(|e| e.kind == LoopKind::Stencil),
                    "{p:?}"
                );
                from = t.clone();
            }
        }
        // Ranked by support: counts never increase down the list.
        assert!(paths.windows(2).all(|w| w[0].support >= w[1].support));
    }
}
