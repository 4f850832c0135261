//! A scripted environment and hand-made graphs for testing the search algorithms: rewards are a
//! fixed function of the technique path, so every choice is predictable.

use std::collections::HashMap;
use std::sync::Mutex;

use tokio_util::sync::CancellationToken;

use super::mcgs::{OneShotStyle, SearchEnv};
use super::{Guidance, StepResult, TechniqueGraph, TechniqueId};

pub struct Graph {
    names: Vec<&'static str>,
    succ: HashMap<TechniqueId, Vec<(TechniqueId, f64)>>,
}

impl Graph {
    pub fn new(names: &[&'static str], edges: &[(TechniqueId, TechniqueId, f64)]) -> Self {
        let mut succ: HashMap<TechniqueId, Vec<(TechniqueId, f64)>> = HashMap::new();
        for &(a, b, p) in edges {
            succ.entry(a).or_default().push((b, p));
        }
        Graph {
            names: names.to_vec(),
            succ,
        }
    }
}

impl TechniqueGraph for Graph {
    fn successors(&self, node: TechniqueId) -> Vec<(TechniqueId, f64)> {
        self.succ.get(&node).cloned().unwrap_or_default()
    }
    fn name(&self, node: TechniqueId) -> String {
        self.names[node].to_string()
    }
}

/// The state is the path as text; the reward of a step is looked up by the full path string.
pub struct Scripted {
    pub rewards: HashMap<String, f64>,
    pub default: f64,
    pub calls_per_step: usize,
    pub log: Mutex<Vec<String>>,
    pub cancel_after: Option<(usize, CancellationToken)>,
    /// States whose verification is a verifier error (no judgement).
    pub unjudged: std::collections::HashSet<String>,
    /// The state that is a kernel at the roofline.
    pub at_roofline: Option<String>,
    /// What profiling a state says (absent: "no profiler").
    pub guidance: HashMap<String, Result<Guidance, String>>,
    /// The states profiled so far, in order.
    pub profiled: Mutex<Vec<String>>,
}

impl Scripted {
    pub fn new(rewards: &[(&str, f64)], default: f64) -> Self {
        Scripted {
            rewards: rewards.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            default,
            calls_per_step: 1,
            log: Mutex::default(),
            cancel_after: None,
            unjudged: Default::default(),
            at_roofline: None,
            guidance: HashMap::new(),
            profiled: Mutex::default(),
        }
    }
}

impl Scripted {
    /// The steps applied so far, in the order they started.
    pub fn log(&self) -> Vec<String> {
        self.log.lock().expect("log lock").clone()
    }
}

impl SearchEnv for Scripted {
    type State = String;
    async fn apply(
        &self,
        from: &String,
        _path: &[TechniqueId],
        technique: TechniqueId,
        calls_left: usize,
    ) -> StepResult<String> {
        let state = format!("{from}>{technique}");
        let logged = {
            let mut log = self.log.lock().expect("log lock");
            log.push(state.clone());
            log.len()
        };
        if let Some((n, token)) = &self.cancel_after
            && logged >= *n
        {
            token.cancel();
        }
        let reward = self.rewards.get(&state).copied().unwrap_or(self.default);
        let judged = !self.unjudged.contains(&state);
        let at_roofline = self.at_roofline.as_deref() == Some(state.as_str());
        StepResult {
            state: Some(state),
            reward,
            passed: reward > -1.0 && judged,
            judged,
            at_roofline,
            credited: true,
            llm_calls: self.calls_per_step.min(calls_left),
            tokens: 10,
            note: String::new(),
        }
    }
    async fn profile(&self, state: &String) -> Result<Guidance, String> {
        self.profiled
            .lock()
            .expect("profiled lock")
            .push(state.clone());
        self.guidance
            .get(state)
            .cloned()
            .unwrap_or_else(|| Err("no profiler".into()))
    }
    async fn one_shot(
        &mut self,
        initial: &String,
        style: OneShotStyle,
        calls_left: usize,
    ) -> StepResult<String> {
        let label = match style {
            OneShotStyle::Standard => "standard",
            OneShotStyle::ChainOfThought => "cot",
        };
        let state = format!("{initial}>{label}");
        self.log.lock().expect("log lock").push(state.clone());
        let reward = self.rewards.get(&state).copied().unwrap_or(self.default);
        StepResult {
            state: Some(state),
            reward,
            passed: reward > -1.0,
            judged: true,
            at_roofline: false,
            credited: true,
            llm_calls: 1.min(calls_left),
            tokens: 10,
            note: String::new(),
        }
    }
}
