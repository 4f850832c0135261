//! `graph stats` and `graph export --dot`.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde::Serialize;

use super::model::ReGraph;

/// Size and health of a graph.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    /// Techniques in the vocabulary (`init` not counted).
    pub techniques: usize,
    pub nodes: usize,
    pub edges: usize,
    pub examples: usize,
    pub verified_examples: usize,
    /// Examples that carry a GPU measurement (correct or not).
    pub measured_examples: usize,
    pub verified_fraction: f64,
    /// Distinct tasks with at least one example.
    pub tasks: usize,
    /// Out-degree of every node, in node order.
    pub out_degree: Vec<(String, usize)>,
}

impl ReGraph {
    pub fn stats(&self) -> Stats {
        let mut examples = 0;
        let mut verified = 0;
        let mut measured = 0;
        let mut tasks = BTreeSet::new();
        for e in self.petgraph().edge_weights() {
            for x in &e.examples {
                examples += 1;
                verified += usize::from(x.verified);
                measured += usize::from(x.measured.is_some());
                tasks.insert(x.task.as_str());
            }
        }
        Stats {
            techniques: self.header.techniques,
            nodes: self.node_count(),
            edges: self.edge_count(),
            examples,
            verified_examples: verified,
            measured_examples: measured,
            verified_fraction: if examples == 0 {
                0.0
            } else {
                verified as f64 / examples as f64
            },
            tasks: tasks.len(),
            out_degree: self
                .nodes_ordered()
                .into_iter()
                .map(|n| (self.technique(n).technique.clone(), self.out_edges(n).len()))
                .collect(),
        }
    }

    /// Graphviz source: one node per technique, edges labelled with their example counts (verified
    /// examples solid, unverified-only edges dashed).
    pub fn to_dot(&self) -> String {
        let mut out = String::from(
            "digraph regraph {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n",
        );
        for n in self.nodes_ordered() {
            let node = self.technique(n);
            let _ = writeln!(
                out,
                "  {} [label=\"{}\", tooltip=\"{}\"];",
                node.technique,
                escape(&node.title),
                escape(&node.description)
            );
        }
        for e in self.edges_ordered() {
            let (a, b) = self
                .petgraph()
                .edge_endpoints(e)
                .expect("edge of this graph");
            let examples = &self.petgraph()[e].examples;
            let verified = examples.iter().filter(|x| x.verified).count();
            let style = if verified == 0 { ", style=dashed" } else { "" };
            let _ = writeln!(
                out,
                "  {} -> {} [label=\"{}\"{style}];",
                self.technique(a).technique,
                self.technique(b).technique,
                examples.len()
            );
        }
        out.push_str("}\n");
        out
    }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}
