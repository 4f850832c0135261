//! The baselines behind the same interface as MCGS (ARCHITECTURE.md §4): `standard` and `cot`
//! (one model call each) and `enumerate` (the paper's graph walk without MCGS: the best-ranked
//! successors, depth first, within the budget).

use std::time::Instant;

use tokio_util::sync::CancellationToken;

use super::mcgs::{
    IterationTrace, McgsConfig, OneShotStyle, SearchEnv, SearchOutcome, SearchTrace, StopReason,
    TraceNode, best_candidate, best_in, chain_to,
};
use super::{INIT, Progress, StepResult, TechniqueGraph, TechniqueId};

/// One model call with the standard or chain-of-thought prompt; the answer is the result.
pub async fn one_shot<E: SearchEnv>(
    env: &mut E,
    initial: E::State,
    style: OneShotStyle,
    budget: usize,
    label: &str,
) -> SearchOutcome<E::State> {
    let mut rec = Recorder::new(initial);
    if budget == 0 {
        return rec.finish(StopReason::Budget);
    }
    let root_state = rec.states[0].clone().expect("root state");
    let step = env.one_shot(&root_state, style, budget).await;
    rec.add(0, usize::MAX, label.to_string(), step);
    rec.finish(StopReason::Budget)
}

/// No search: the starting state is the answer (the `port` strategy, a verified port's root).
pub fn start_only<S: Clone>(initial: S, root: Option<(f64, String)>) -> SearchOutcome<S> {
    let mut rec = Recorder::new(initial);
    rec.set_root(root);
    rec.finish(StopReason::Budget)
}

/// Depth-first walk over the graph's best-ranked successors: apply the best successor, go deeper
/// while steps pass, and on a failure or at the depth limit back up to the next-best sibling.
pub async fn enumerate<E: SearchEnv, G: TechniqueGraph>(
    graph: &G,
    env: &mut E,
    initial: E::State,
    config: &McgsConfig,
    root: Option<(f64, String)>,
    cancel: &CancellationToken,
    progress: &mut (dyn FnMut(&Progress) + Send),
) -> SearchOutcome<E::State> {
    let started = Instant::now();
    let mut rec = Recorder::new(initial);
    rec.set_root(root);
    // (parent record id, technique, path of techniques to the parent)
    let mut stack: Vec<(usize, TechniqueId, Vec<TechniqueId>)> = Vec::new();
    push_successors(graph, &mut stack, 0, vec![INIT]);
    let stop = loop {
        if cancel.is_cancelled() {
            break StopReason::Cancelled;
        }
        if rec.calls >= config.budget {
            break StopReason::Budget;
        }
        if config.deadline.is_some_and(|d| started.elapsed() >= d) {
            break StopReason::Deadline;
        }
        let Some((parent, technique, path)) = stack.pop() else {
            break StopReason::Exhausted;
        };
        let from = rec.states[parent]
            .clone()
            .expect("only passed nodes get children");
        let step = env
            .apply(&from, &path, technique, config.budget - rec.calls)
            .await;
        let at_roofline = step.at_roofline && step.passed && step.judged;
        let id = rec.add(parent, technique, graph.name(technique), step);
        let depth = path.len();
        if rec.nodes[id].passed && depth < config.max_depth {
            let mut next = path.clone();
            next.push(technique);
            push_successors(graph, &mut stack, id, next);
        }
        progress(&Progress {
            iteration: rec.iterations.len(),
            llm_calls: rec.calls,
            budget: config.budget,
            best_reward: best_in(&rec.nodes).map(|b| rec.nodes[b].reward.unwrap_or(-1.0)),
            current_path: rec.path_names(id),
            call: None,
        });
        if at_roofline {
            break StopReason::Roofline;
        }
    };
    rec.finish(stop)
}

fn push_successors<G: TechniqueGraph>(
    graph: &G,
    stack: &mut Vec<(usize, TechniqueId, Vec<TechniqueId>)>,
    parent: usize,
    path: Vec<TechniqueId>,
) {
    let mut succ = graph.successors(*path.last().expect("path starts at init"));
    // Best prior first (equal priors keep the graph's order), pushed last so it is popped first.
    succ.sort_by(|a, b| b.1.total_cmp(&a.1));
    for (t, _) in succ.into_iter().rev() {
        stack.push((parent, t, path.clone()));
    }
}

/// Collects applied steps into the same trace shape MCGS produces.
struct Recorder<S> {
    nodes: Vec<TraceNode>,
    states: Vec<Option<S>>,
    iterations: Vec<IterationTrace>,
    calls: usize,
    tokens: u64,
}

impl<S: Clone> Recorder<S> {
    fn new(initial: S) -> Self {
        let root = TraceNode {
            id: 0,
            parent: None,
            technique: INIT,
            technique_name: "init".into(),
            depth: 0,
            visits: 1,
            q: 0.0,
            reward: None,
            passed: true,
            credited: true,
            note: String::new(),
            llm_calls: 0,
        };
        Recorder {
            nodes: vec![root],
            states: vec![Some(initial)],
            iterations: Vec::new(),
            calls: 0,
            tokens: 0,
        }
    }

    /// A verified starting kernel is an answer in its own right.
    fn set_root(&mut self, root: Option<(f64, String)>) {
        if let Some((reward, note)) = root {
            self.nodes[0].reward = Some(reward);
            self.nodes[0].q = reward;
            self.nodes[0].note = note;
        }
    }

    fn add(
        &mut self,
        parent: usize,
        technique: TechniqueId,
        name: String,
        step: StepResult<S>,
    ) -> usize {
        let id = self.nodes.len();
        let passed = step.passed && step.state.is_some();
        // A step nothing judged (a verifier error) gets no reward: it is not the code's failure.
        let reward = if passed {
            Some(step.reward)
        } else {
            step.judged.then_some(-1.0)
        };
        self.calls += step.llm_calls;
        self.tokens += step.tokens;
        self.nodes.push(TraceNode {
            id,
            parent: Some(parent),
            technique,
            technique_name: name,
            depth: self.nodes[parent].depth + 1,
            visits: 1,
            q: reward.unwrap_or(0.0),
            reward,
            passed,
            credited: step.credited,
            note: step.note,
            llm_calls: step.llm_calls,
        });
        self.states.push(step.state);
        let path = std::iter::once(0)
            .chain(chain_to(&self.nodes, id))
            .collect();
        self.iterations.push(IterationTrace {
            iteration: self.iterations.len() + 1,
            path,
            applied: vec![id],
            value: reward.unwrap_or(0.0),
        });
        id
    }

    fn path_names(&self, id: usize) -> Vec<String> {
        chain_to(&self.nodes, id)
            .iter()
            .map(|&c| self.nodes[c].technique_name.clone())
            .collect()
    }

    fn finish(self, stop: StopReason) -> SearchOutcome<S> {
        let best = best_candidate(&self.nodes, |id| self.states[id].clone());
        SearchOutcome {
            best,
            trace: SearchTrace {
                nodes: self.nodes,
                iterations: self.iterations,
                profiles: Vec::new(),
                llm_calls: self.calls,
                tokens: self.tokens,
                stop,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::testing::{Graph, Scripted};

    #[tokio::test]
    async fn enumerate_walks_best_first_depth_first_and_backtracks_on_failure() {
        // init -> A(.9), B(.5); A -> C(.8), D(.2); C fails, so D is next, then B.
        let graph = Graph::new(
            &["init", "A", "B", "C", "D"],
            &[(0, 1, 0.9), (0, 2, 0.5), (1, 3, 0.8), (1, 4, 0.2)],
        );
        let mut env = Scripted::new(&[("0>1>3", -1.0), ("0>1>4", 0.7)], 0.3);
        let cfg = McgsConfig {
            budget: 10,
            max_depth: 3,
            ..McgsConfig::default()
        };
        let out = enumerate(
            &graph,
            &mut env,
            "0".into(),
            &cfg,
            None,
            &CancellationToken::new(),
            &mut |_| {},
        )
        .await;
        assert_eq!(env.log(), vec!["0>1", "0>1>3", "0>1>4", "0>2"]);
        assert_eq!(out.trace.stop, StopReason::Exhausted);
        let best = out.best.unwrap();
        assert_eq!(best.path, vec!["A", "D"]);
        assert_eq!(best.step_rewards, vec![0.3, 0.7]);
    }

    #[tokio::test]
    async fn enumerate_respects_budget_and_depth_in_cycles() {
        let graph = Graph::new(
            &["init", "A", "B"],
            &[(0, 1, 0.5), (1, 2, 0.5), (2, 1, 0.5)],
        );
        let mut env = Scripted::new(&[], 0.5);
        let cfg = McgsConfig {
            budget: 3,
            max_depth: 10,
            ..McgsConfig::default()
        };
        let out = enumerate(
            &graph,
            &mut env,
            "0".into(),
            &cfg,
            None,
            &CancellationToken::new(),
            &mut |_| {},
        )
        .await;
        assert_eq!(out.trace.stop, StopReason::Budget);
        assert_eq!(out.trace.llm_calls, 3);
        assert_eq!(env.log(), vec!["0>1", "0>1>2", "0>1>2>1"]);
    }

    #[tokio::test]
    async fn one_shot_is_one_call_and_its_answer() {
        let mut env = Scripted::new(&[("0>cot", 0.4)], -1.0);
        let out = one_shot(
            &mut env,
            "0".into(),
            OneShotStyle::ChainOfThought,
            32,
            "cot",
        )
        .await;
        assert_eq!(out.trace.llm_calls, 1);
        let best = out.best.unwrap();
        assert_eq!(best.path, vec!["cot"]);
        assert_eq!(best.reward, 0.4);

        let mut env = Scripted::new(&[], -1.0);
        let out = one_shot(&mut env, "0".into(), OneShotStyle::Standard, 32, "standard").await;
        assert!(out.best.is_none(), "a failed one-shot answer is no result");
    }
}
