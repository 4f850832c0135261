//! The reasoning graph of CUDA optimization techniques (ARCHITECTURE.md §3). Issue #4.
//!
//! `graph-data/` holds the inputs (the technique vocabulary, the serial tasks and the expert
//! trajectories) and the output `regraph.json`; this module loads them, merges trajectories into the
//! graph and answers the search's and the hover's questions as plain data.

pub mod build;
#[cfg(test)]
mod disjoint;
pub mod learned;
pub mod model;
pub mod query;
pub mod similarity;
pub mod stats;
pub mod tasks;
pub mod trajectory;
pub mod verification;
pub mod vocab;

use std::path::{Path, PathBuf};

pub use build::{BuildOptions, BuildReport, build};
pub use model::{Example, ReGraph};
pub use query::{PathQuery, PathRank, PathSuggestion, ScoredExample, Successor};
pub use stats::Stats;
pub use tasks::{Category, Task, Tier};
pub use trajectory::{Measured, Step, Trajectory};
pub use vocab::{Technique, Vocabulary};

#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: invalid technique vocabulary: {message}")]
    Vocabulary { path: PathBuf, message: String },
    #[error("{path}: field `{field}`: {message}")]
    Task {
        path: PathBuf,
        field: String,
        message: String,
    },
    #[error("{path}:{line}: invalid trajectory: {message}")]
    Trajectory {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}: invalid graph: {message}")]
    Graph { path: PathBuf, message: String },
}

/// The files of a `graph-data/` directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphData {
    pub root: PathBuf,
}

impl GraphData {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The nearest `graph-data/` with a `techniques.toml`, from `start` upwards.
    pub fn discover(start: &Path) -> Option<Self> {
        start
            .ancestors()
            .map(|dir| dir.join("graph-data"))
            .find(|dir| dir.join("techniques.toml").is_file())
            .map(Self::new)
    }

    pub fn techniques(&self) -> PathBuf {
        self.root.join("techniques.toml")
    }

    pub fn tasks(&self) -> PathBuf {
        self.root.join("tasks")
    }

    pub fn trajectories(&self) -> PathBuf {
        self.root.join("trajectories")
    }

    pub fn regraph(&self) -> PathBuf {
        self.root.join("regraph.json")
    }

    /// A model's relabel decisions (`graph build --relabel-with-llm`).
    pub fn learned_labels(&self) -> PathBuf {
        self.root.join("relabel.json")
    }

    /// The vocabulary with the recorded relabel decisions: what every build relabels with.
    pub fn vocabulary(&self) -> Result<Vocabulary, GraphError> {
        let mut vocab = Vocabulary::load(&self.techniques())?;
        let path = self.learned_labels();
        vocab
            .learn(&learned::LearnedLabels::load(&path)?)
            .map_err(|message| GraphError::Vocabulary { path, message })?;
        Ok(vocab)
    }

    /// Loads everything and merges: what `graph build` writes.
    pub fn build(&self, options: BuildOptions) -> Result<(ReGraph, BuildReport), GraphError> {
        let vocab = self.vocabulary()?;
        let tasks = tasks::load_tasks(&self.tasks())?;
        let trajectories = trajectory::load_dir(&self.trajectories())?;
        Ok(build(&vocab, &tasks, &trajectories, options))
    }
}
