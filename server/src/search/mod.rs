//! Search for a fast verified kernel: Monte Carlo Graph Search over the reasoning graph and the
//! baselines (ARCHITECTURE.md §4). The algorithm is written against two small traits so that it
//! can be tested with a scripted environment; `env` (later) binds them to the model and verifier.

pub mod baselines;
pub mod credit;
pub mod env;
pub mod judge;
pub mod mcgs;
pub mod offload;
pub mod offloader;
pub mod port;
pub mod resident_runtime;
pub mod start;
#[cfg(test)]
pub(crate) mod testing;
pub mod workspace_edit;

use serde::{Deserialize, Serialize};

/// A node of the reasoning graph: 0 is `init` (the serial code), every other one a technique.
pub type TechniqueId = usize;

/// The root technique: the serial code before any optimization.
pub const INIT: TechniqueId = 0;

/// The part of the reasoning graph the search needs.
pub trait TechniqueGraph {
    /// Techniques that trajectories applied right after `node`, with a prior in [0, 1] (how good
    /// the graph's examples say the move is; 0.5 when unknown). Order is stable.
    fn successors(&self, node: TechniqueId) -> Vec<(TechniqueId, f64)>;
    fn name(&self, node: TechniqueId) -> String;
}

/// What a profile of a verified kernel says to try next (issue #19): techniques in order, each
/// with its reason, and the one-line diagnosis they follow from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Guidance {
    pub summary: String,
    /// (technique name, why), the most favoured first.
    pub favoured: Vec<(String, String)>,
}

/// What applying one technique produced.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepResult<S> {
    /// The new code, when the step produced usable code (it may still be wrong: see `reward`).
    pub state: Option<S>,
    /// Graded reward (ARCHITECTURE.md §4): -1 when not compiled or not correct.
    pub reward: f64,
    /// True when the step passed verification (compiled and, where a GPU exists, correct).
    pub passed: bool,
    /// False when nothing judged the code (the verifier failed, the search was cancelled, the
    /// model server gave no answer): no reward, not the candidate's failure.
    #[serde(default = "yes")]
    pub judged: bool,
    /// A correct kernel at the roofline: the search has nothing left to find.
    #[serde(default)]
    pub at_roofline: bool,
    /// False when the code does not show the technique (unchanged, or without its marks): the
    /// path does not name it for this step.
    #[serde(default = "yes")]
    pub credited: bool,
    /// Model calls spent on this step (a repair attempt makes it 2).
    pub llm_calls: usize,
    pub tokens: u64,
    /// One line for traces and hovers: "speedup 312x", "nvcc: expected ';'", ...
    pub note: String,
}

fn yes() -> bool {
    true
}

/// Where the search is, reported after each iteration and after each model call (the LSP turns
/// it into `$/progress`).
#[derive(Debug, Clone, Serialize)]
pub struct Progress {
    pub iteration: usize,
    pub llm_calls: usize,
    pub budget: usize,
    pub best_reward: Option<f64>,
    pub current_path: Vec<String>,
    /// Set on the report of a model call that just ended; iteration reports leave it out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<CallReport>,
}

/// One model call and its grade, so that minutes of model calls are not silent (issue #21).
#[derive(Debug, Clone, Serialize)]
pub struct CallReport {
    pub technique: String,
    /// 0: the first answer for this step; 1 and up: repairs.
    pub attempt: usize,
    pub tokens: u64,
    pub seconds: f64,
    /// What became of the answer: the verifier's one-line summary, or why it was unusable.
    pub verdict: String,
}

impl CallReport {
    /// "fast_math_intrinsics (repair 1), 1234 tokens, 3.2 s: compile error at line 4: …"
    pub fn describe(&self) -> String {
        let attempt = match self.attempt {
            0 => "first answer".to_string(),
            n => format!("repair {n}"),
        };
        format!(
            "{} ({attempt}), {} tokens, {:.1} s: {}",
            self.technique, self.tokens, self.seconds, self.verdict
        )
    }
}
