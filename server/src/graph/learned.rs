//! `graph-data/relabel.json`: technique names a model placed in the vocabulary (`graph build
//! --relabel-with-llm`). Kept as data so that every later build, with or without a model, relabels
//! the same way, and so that a person can read and overrule each decision.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::GraphError;

/// One decision: the technique a free-form name denotes, or `None` where the model said no
/// technique of the vocabulary fits (the name then stays unmatched instead of being guessed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LearnedLabel {
    pub technique: Option<String>,
    /// The model that decided, as its server names it.
    pub model: String,
    /// `YYYY-MM-DD` of the decision.
    pub date: String,
}

/// Decisions by free-form name (as written in the trajectories), in name order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LearnedLabels(pub BTreeMap<String, LearnedLabel>);

impl LearnedLabels {
    /// The file's decisions; none when there is no file yet.
    pub fn load(path: &Path) -> Result<Self, GraphError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(source) => {
                return Err(GraphError::Read {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        serde_json::from_str(&text).map_err(|e| GraphError::Vocabulary {
            path: path.to_path_buf(),
            message: format!("invalid learned labels: {e}"),
        })
    }

    /// Writes the decisions in name order, one stable text for the same decisions.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let mut text = serde_json::to_string_pretty(self).expect("labels serialize");
        text.push('\n');
        std::fs::write(path, text)
    }

    pub fn get(&self, name: &str) -> Option<&LearnedLabel> {
        self.0.get(name)
    }

    pub fn insert(&mut self, name: String, label: LearnedLabel) {
        self.0.insert(name, label);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_in_name_order_and_a_missing_file_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("relabel.json");
        assert!(LearnedLabels::load(&path).unwrap().is_empty());
        let mut l = LearnedLabels::default();
        let label = |t: Option<&str>| LearnedLabel {
            technique: t.map(String::from),
            model: "m".into(),
            date: "2026-12-02".into(),
        };
        l.insert("z step".into(), label(None));
        l.insert("a step".into(), label(Some("loop_unrolling")));
        l.save(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.find("a step").unwrap() < text.find("z step").unwrap());
        assert_eq!(LearnedLabels::load(&path).unwrap(), l);
        std::fs::write(&path, "{\"x\": {\"technique\": 3}}").unwrap();
        let err = LearnedLabels::load(&path).unwrap_err().to_string();
        assert!(err.contains("relabel.json"), "{err}");
    }
}
