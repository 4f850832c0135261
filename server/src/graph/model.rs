//! The reasoning graph in memory (petgraph) and on disk (`graph-data/regraph.json`, stable order).

use std::collections::BTreeMap;
use std::path::Path;

use petgraph::Direction;
use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use serde::{Deserialize, Serialize};

use super::GraphError;
use super::tasks::Category;
use super::trajectory::Measured;
use super::vocab::{INIT, Technique};
use crate::analysis::LoopKind;

/// Version of the regraph.json layout.
pub const FORMAT: u32 = 1;

/// How the file was made; written first so a reader sees at once whether it holds unverified steps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub format: u32,
    pub generated_by: String,
    /// True when steps without an H200 measurement were merged (their examples say `verified: false`).
    pub include_unverified: bool,
    /// Techniques in the vocabulary the graph was built with, `init` not counted.
    pub techniques: usize,
    pub note: String,
}

/// One technique node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub technique: String,
    pub title: String,
    pub description: String,
}

impl From<&Technique> for Node {
    fn from(t: &Technique) -> Self {
        Self {
            technique: t.name.clone(),
            title: t.title.clone(),
            description: t.description.clone(),
        }
    }
}

/// One application of a technique: the code before and after, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Example {
    pub task: String,
    pub category: Category,
    pub kind: LoopKind,
    /// 1-based index of the step in its trajectory.
    pub step: usize,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub author: String,
    /// The trajectory's own name for the technique, when it differs from the canonical one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relabelled_from: Option<String>,
    pub reasoning: String,
    pub detail: String,
    /// True when the step passed the verifier on the GPU (`measured.correct`).
    pub verified: bool,
    pub measured: Option<Measured>,
    pub before: String,
    pub after: String,
}

impl Example {
    /// The measured kernel speedup of a verified example.
    pub fn speedup(&self) -> Option<f64> {
        self.measured
            .as_ref()
            .filter(|m| m.correct)
            .and_then(|m| m.speedup)
            .filter(|s| s.is_finite())
    }

    fn sort_key(&self) -> (&str, &str, usize) {
        (&self.task, &self.author, self.step)
    }
}

/// The examples of one edge.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Edge {
    pub examples: Vec<Example>,
}

#[derive(Debug, Serialize, Deserialize)]
struct EdgeRecord {
    from: String,
    to: String,
    examples: Vec<Example>,
}

#[derive(Debug, Serialize, Deserialize)]
struct ReGraphFile {
    header: Header,
    nodes: Vec<Node>,
    edges: Vec<EdgeRecord>,
}

/// The reasoning graph: node 0 is `init`; nodes keep vocabulary order, which fixes the file order.
#[derive(Debug, Clone)]
pub struct ReGraph {
    pub header: Header,
    graph: DiGraph<Node, Edge>,
    /// Node by technique name, and its rank (vocabulary position) for ordering.
    index: BTreeMap<String, (NodeIndex, usize)>,
}

impl ReGraph {
    /// A graph with only the `init` node.
    pub fn new(header: Header, init: Node) -> Self {
        let mut g = Self {
            header,
            graph: DiGraph::new(),
            index: BTreeMap::new(),
        };
        g.add_node(init, 0);
        g
    }

    pub fn petgraph(&self) -> &DiGraph<Node, Edge> {
        &self.graph
    }

    pub fn node(&self, technique: &str) -> Option<NodeIndex> {
        self.index.get(technique).map(|&(i, _)| i)
    }

    pub fn init(&self) -> NodeIndex {
        self.node(INIT).expect("a ReGraph always has init")
    }

    pub fn technique(&self, node: NodeIndex) -> &Node {
        &self.graph[node]
    }

    /// Title and one-line description of a technique that is a node (for prompts and hovers).
    pub fn node_info(&self, technique: &str) -> Option<&Node> {
        self.node(technique).map(|n| &self.graph[n])
    }

    /// Adds a node unless one exists for the technique; `rank` orders nodes in the file.
    pub fn add_node(&mut self, node: Node, rank: usize) -> (NodeIndex, bool) {
        if let Some(&(i, _)) = self.index.get(&node.technique) {
            return (i, false);
        }
        let name = node.technique.clone();
        let i = self.graph.add_node(node);
        self.index.insert(name, (i, rank));
        (i, true)
    }

    /// Appends an example to the edge `from → to`, creating the edge if needed; true when it was new.
    pub fn add_example(&mut self, from: NodeIndex, to: NodeIndex, example: Example) -> bool {
        match self.graph.find_edge(from, to) {
            Some(e) => {
                self.graph[e].examples.push(example);
                false
            }
            None => {
                self.graph.add_edge(
                    from,
                    to,
                    Edge {
                        examples: vec![example],
                    },
                );
                true
            }
        }
    }

    pub fn edge(&self, from: &str, to: &str) -> Option<&Edge> {
        let e = self.graph.find_edge(self.node(from)?, self.node(to)?)?;
        Some(&self.graph[e])
    }

    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    fn rank(&self, node: NodeIndex) -> usize {
        self.index[&self.graph[node].technique].1
    }

    /// Nodes in file order.
    pub fn nodes_ordered(&self) -> Vec<NodeIndex> {
        let mut nodes: Vec<NodeIndex> = self.graph.node_indices().collect();
        nodes.sort_by_key(|&n| self.rank(n));
        nodes
    }

    /// Edges in file order: by source, then target node order.
    pub fn edges_ordered(&self) -> Vec<EdgeIndex> {
        let mut edges: Vec<EdgeIndex> = self.graph.edge_indices().collect();
        edges.sort_by_key(|&e| {
            let (a, b) = self
                .graph
                .edge_endpoints(e)
                .expect("edge index from this graph");
            (self.rank(a), self.rank(b))
        });
        edges
    }

    /// Outgoing edges of a node in file order.
    pub fn out_edges(&self, node: NodeIndex) -> Vec<(NodeIndex, &Edge)> {
        let mut out: Vec<(NodeIndex, &Edge)> = self
            .graph
            .edges_directed(node, Direction::Outgoing)
            .map(|e| (e.target(), e.weight()))
            .collect();
        out.sort_by_key(|&(t, _)| self.rank(t));
        out
    }

    /// Sorts every edge's examples so the file does not depend on the order trajectories were read.
    pub fn sort_examples(&mut self) {
        for e in self.graph.edge_weights_mut() {
            e.examples.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        }
    }

    /// The pretty, stable JSON of `graph-data/regraph.json` (ends with a newline).
    pub fn to_json(&self) -> String {
        let file = ReGraphFile {
            header: self.header.clone(),
            nodes: self
                .nodes_ordered()
                .into_iter()
                .map(|n| self.graph[n].clone())
                .collect(),
            edges: self
                .edges_ordered()
                .into_iter()
                .map(|e| {
                    let (a, b) = self
                        .graph
                        .edge_endpoints(e)
                        .expect("edge index from this graph");
                    let mut examples = self.graph[e].examples.clone();
                    examples.sort_by(|x, y| x.sort_key().cmp(&y.sort_key()));
                    EdgeRecord {
                        from: self.graph[a].technique.clone(),
                        to: self.graph[b].technique.clone(),
                        examples,
                    }
                })
                .collect(),
        };
        let mut text = serde_json::to_string_pretty(&file).expect("graph data serializes");
        text.push('\n');
        text
    }

    pub fn from_json(text: &str) -> Result<Self, String> {
        let file: ReGraphFile = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if file.header.format != FORMAT {
            return Err(format!(
                "format {} is not the supported format {FORMAT}; rebuild with `cuda-offload graph build`",
                file.header.format
            ));
        }
        let mut nodes = file.nodes.into_iter();
        let init = nodes
            .next()
            .filter(|n| n.technique == INIT)
            .ok_or_else(|| format!("the first node must be `{INIT}`"))?;
        let mut g = ReGraph::new(file.header, init);
        for (rank, node) in nodes.enumerate() {
            let name = node.technique.clone();
            if !g.add_node(node, rank + 1).1 {
                return Err(format!("node `{name}` appears twice"));
            }
        }
        for edge in file.edges {
            let endpoint = |name: &str| {
                g.node(name).ok_or_else(|| {
                    format!("edge {} → {}: unknown node `{name}`", edge.from, edge.to)
                })
            };
            let (a, b) = (endpoint(&edge.from)?, endpoint(&edge.to)?);
            if g.graph.find_edge(a, b).is_some() {
                return Err(format!("edge {} → {} appears twice", edge.from, edge.to));
            }
            g.graph.add_edge(
                a,
                b,
                Edge {
                    examples: edge.examples,
                },
            );
        }
        Ok(g)
    }

    pub fn load(path: &Path) -> Result<Self, GraphError> {
        let text = std::fs::read_to_string(path).map_err(|source| GraphError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_json(&text).map_err(|message| GraphError::Graph {
            path: path.to_path_buf(),
            message,
        })
    }
}
