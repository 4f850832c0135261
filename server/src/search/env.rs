//! The search environment over the real parts: the model rewrites the code by applying one
//! technique (with examples from the graph edge), the verifier grades the answer, and one repair
//! attempt gets the compiler or test error.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::time::Instant as Deadline;

use petgraph::graph::NodeIndex;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::mcgs::{OneShotStyle, SearchEnv};
use super::offload::BoxFuture;
use super::{Guidance, StepResult, TechniqueGraph, TechniqueId};
use crate::analysis::{LoopKind, OffloadRegion};
use crate::graph::ReGraph;
use crate::llm::answer::{Launch, extract_kernel_or_launch};
use crate::llm::prompt::{self, Baseline, Failure, Repair, TechniqueExample, TechniqueStep};
use crate::llm::{CallControl, ChatModel};
use crate::verify::profile::Profile;
use crate::verify::{Protocol, RewardForm, VerifyOutcome, judged_reward, reward};

/// Grades one candidate for one region (the verifier, or its compile-only form without a GPU).
pub trait Judge: Send + Sync {
    /// Whether judging can work at all (nvcc found): checked before a search spends model calls.
    fn ready(&self) -> Result<(), String> {
        Ok(())
    }

    /// Grades a candidate: the search's own with `Protocol::Screening`, the kernel a user gets (the
    /// search's answer, a kernel re-verified on save) with `Protocol::Full`.
    fn judge<'a>(
        &'a self,
        region: &'a OffloadRegion,
        candidate: &'a str,
        protocol: Protocol,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, VerifyOutcome>;

    /// Held while the model answers. A model server on the GPU that times candidates must not
    /// decode beside a timed run: the verifier's judge makes the answer wait for one, and a timed
    /// run wait for the answers being decoded. `None`: nothing to hold.
    fn hold_for_model(&self) -> BoxFuture<'_, Option<Held>> {
        Box::pin(async { None })
    }

    /// The machine alone until dropped, for a timing made outside the judge (a CPU baseline).
    fn hold_alone(&self) -> BoxFuture<'_, Option<Held>> {
        Box::pin(async { None })
    }

    /// What limits a verified candidate on the GPU (Nsight Compute counters); `Err` says why
    /// there is no profile.
    fn profile<'a>(
        &'a self,
        _region: &'a OffloadRegion,
        _candidate: &'a str,
    ) -> BoxFuture<'a, Result<Profile, String>> {
        Box::pin(async { Err("this judge does not profile".to_string()) })
    }
}

/// Something held until dropped (a use of the machine).
pub type Held = Box<dyn std::any::Any + Send>;

/// Every candidate the search produced, for the trace and for `--json`.
#[derive(Debug, Clone, Serialize)]
pub struct CandidateRecord {
    pub technique: String,
    pub attempt: usize,
    pub outcome: Option<VerifyOutcome>,
    /// Why the answer could not be used, when it could not.
    pub answer_error: Option<String>,
    /// The candidate as judged (the kernel taken from the answer, or the generated port).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The model's whole answer where no kernel could be taken from it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// `None` where the candidate was not judged (a verifier error, a cancel, no usable answer).
    pub reward: Option<f64>,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub seconds: f64,
}

impl CandidateRecord {
    pub fn call_report(&self) -> super::CallReport {
        let verdict = match (&self.outcome, &self.answer_error) {
            (Some(outcome), _) => outcome.summary(),
            (None, Some(why)) => format!("no usable answer: {why}"),
            (None, None) => "no answer".into(),
        };
        super::CallReport {
            technique: self.technique.clone(),
            attempt: self.attempt,
            tokens: self.prompt_tokens + self.completion_tokens,
            seconds: self.seconds,
            verdict,
        }
    }
}

/// Told of every model call as it ends, for progress.
pub type CallSink = Arc<dyn Fn(&CandidateRecord) + Send + Sync>;

/// The reasoning graph seen by the search: node ids are petgraph indices, priors come from the
/// measured speedups of each edge's examples (example counts where nothing was measured).
pub struct GraphView<'g> {
    pub graph: &'g ReGraph,
    pub kind: Option<LoopKind>,
}

impl GraphView<'_> {
    pub fn name_of(&self, id: TechniqueId) -> String {
        self.graph.technique(NodeIndex::new(id)).technique.clone()
    }

    pub fn description_of(&self, id: TechniqueId) -> String {
        self.graph.technique(NodeIndex::new(id)).description.clone()
    }
}

/// Fewer successors than this with examples of the loop's kind get the best of the others added
/// (at half their prior): one failed step must not leave a search nothing else to try, as a
/// stencil's single `init` successor did on the H200.
const MIN_CHOICES: usize = 3;

impl GraphView<'_> {
    fn with_priors(&self, succ: Vec<crate::graph::query::Successor>) -> Vec<(TechniqueId, f64)> {
        let max_examples = succ.iter().map(|s| s.examples).max().unwrap_or(1).max(1) as f64;
        succ.into_iter()
            .filter_map(|s| {
                let id = self.graph.node(&s.technique)?.index();
                let prior = match s.mean_speedup {
                    Some(sp) if sp > 1.0 => (sp.log2() / 1024f64.log2()).clamp(0.05, 1.0),
                    Some(_) => 0.05,
                    None => 0.5 * (s.examples as f64 / max_examples),
                };
                Some((id, prior))
            })
            .collect()
    }
}

impl TechniqueGraph for GraphView<'_> {
    fn successors(&self, node: TechniqueId) -> Vec<(TechniqueId, f64)> {
        let name = self.name_of(node);
        // Edges with examples of this loop's kind first; others only to make up MIN_CHOICES.
        let own = self
            .kind
            .and_then(|k| self.graph.successors(&name, Some(k)))
            .unwrap_or_default();
        let any = self.graph.successors(&name, None).unwrap_or_default();
        if own.is_empty() {
            // No example of this kind (or no kind): every edge, as it is.
            return self.with_priors(any);
        }
        let mut out = self.with_priors(own);
        if out.len() < MIN_CHOICES {
            let mut others: Vec<(TechniqueId, f64)> = self
                .with_priors(any)
                .into_iter()
                .filter(|(id, _)| !out.iter().any(|(o, _)| o == id))
                .map(|(id, prior)| (id, prior * 0.5))
                .collect();
            // Stable: equal priors keep the graph's order.
            others.sort_by(|a, b| b.1.total_cmp(&a.1));
            out.extend(others.into_iter().take(MIN_CHOICES - out.len()));
        }
        out
    }

    fn name(&self, node: TechniqueId) -> String {
        self.name_of(node)
    }
}

pub struct ModelEnv<'g> {
    pub graph: GraphView<'g>,
    pub model: Arc<dyn ChatModel>,
    pub judge: Arc<dyn Judge>,
    pub region: OffloadRegion,
    pub seed: u64,
    pub max_tokens: u32,
    /// Temperature of a first attempt (0: greedy); retries sample at least at
    /// [`prompt::RETRY_TEMPERATURE`].
    pub temperature: f32,
    /// Repair attempts after a failed step (each one more model call).
    pub repairs: usize,
    pub reward_form: RewardForm,
    pub cancel: CancellationToken,
    pub deadline: Option<Deadline>,
    pub candidates: Arc<Mutex<Vec<CandidateRecord>>>,
    pub on_call: Option<CallSink>,
    /// Applications so far of each technique at each path: a node tried again after a failure
    /// gets its retries' seeds, not the answer that failed.
    pub applied: Mutex<HashMap<(Vec<TechniqueId>, TechniqueId), u64>>,
}

/// One model call and its grading.
struct Attempt {
    code: Option<String>,
    outcome: Option<VerifyOutcome>,
    error_for_repair: Option<(Failure, String)>,
    /// Why the model gave no usable answer (server down, timeout, ...): not repairable.
    model_error: Option<String>,
    tokens: u64,
}

impl ModelEnv<'_> {
    fn control(&self) -> CallControl {
        CallControl {
            cancel: self.cancel.clone(),
            deadline: self.deadline,
        }
    }

    async fn attempt(
        &self,
        label: &str,
        attempt: usize,
        retry: u64,
        messages: Vec<crate::llm::Message>,
    ) -> Attempt {
        let started = Instant::now();
        let request = if retry == 0 {
            crate::llm::ChatRequest {
                temperature: self.temperature,
                ..prompt::request(messages, self.seed, self.max_tokens)
            }
        } else {
            prompt::retry_request(
                messages,
                self.seed,
                retry,
                self.max_tokens,
                self.temperature,
            )
        };
        let entry = self.region.gpu_entry_name();
        let mut record = CandidateRecord {
            technique: label.to_string(),
            attempt,
            outcome: None,
            answer_error: None,
            code: None,
            answer: None,
            reward: None,
            prompt_tokens: 0,
            completion_tokens: 0,
            seconds: 0.0,
        };
        let held = self.judge.hold_for_model().await;
        let answer = self.model.chat(&request, &self.control()).await;
        drop(held);
        let result = match answer {
            Err(e) => {
                record.answer_error = Some(e.to_string());
                Attempt {
                    code: None,
                    outcome: None,
                    error_for_repair: None,
                    model_error: Some(e.to_string()),
                    tokens: 0,
                }
            }
            Ok(resp) => {
                record.prompt_tokens = resp.prompt_tokens;
                record.completion_tokens = resp.completion_tokens;
                let tokens = resp.prompt_tokens + resp.completion_tokens;
                match extract_kernel_or_launch(
                    &resp.text,
                    &entry,
                    &Launch::for_region(&self.region),
                ) {
                    Err(e) => {
                        record.answer_error = Some(e.to_string());
                        record.answer = Some(resp.text.clone());
                        Attempt {
                            code: None,
                            outcome: None,
                            error_for_repair: Some((
                                Failure::Answer,
                                format!("{e}\n\nYour answer was:\n{}", resp.text),
                            )),
                            model_error: None,
                            tokens,
                        }
                    }
                    Ok(extracted) => {
                        let outcome = self
                            .judge
                            .judge(
                                &self.region,
                                &extracted.code,
                                Protocol::Screening,
                                &self.cancel,
                            )
                            .await;
                        // A verifier error or a cancel is no judgement of the candidate.
                        record.reward = judged_reward(&outcome, self.reward_form);
                        let repair = match &outcome {
                            VerifyOutcome::CompileError { .. } => {
                                Some((Failure::Compile, outcome.summary()))
                            }
                            VerifyOutcome::Correct(_) | VerifyOutcome::CompiledNotRun { .. } => {
                                None
                            }
                            // No judgement of the code: nothing the model could repair.
                            VerifyOutcome::VerifierError { .. } | VerifyOutcome::Cancelled => None,
                            // Which output and how wrong, never the shapes or values.
                            other => Some((Failure::Test, other.feedback())),
                        };
                        record.outcome = Some(outcome.clone());
                        record.code = Some(extracted.code.clone());
                        Attempt {
                            code: Some(extracted.code),
                            outcome: Some(outcome),
                            error_for_repair: repair,
                            model_error: None,
                            tokens,
                        }
                    }
                }
            }
        };
        record.seconds = started.elapsed().as_secs_f64();
        if let Some(sink) = &self.on_call {
            sink(&record);
        }
        self.candidates
            .lock()
            .expect("candidates lock")
            .push(record);
        result
    }

    /// The first attempt, then repairs while the budget allows; the last attempt is the step.
    /// `tries`: how often this step was made before (a failed node tried again): its calls are
    /// all retries, sampled.
    async fn step(
        &self,
        label: &str,
        first: Vec<crate::llm::Message>,
        calls_left: usize,
        tries: u64,
    ) -> StepResult<String> {
        let mut calls = 1;
        let mut tokens = 0;
        let per_try = self.repairs as u64 + 1;
        let mut att = self.attempt(label, 0, tries * per_try, first).await;
        tokens += att.tokens;
        let mut repairs_done = 0;
        while let Some((failure, error)) = att.error_for_repair.clone() {
            if repairs_done >= self.repairs || calls >= calls_left || self.cancel.is_cancelled() {
                break;
            }
            let previous = att.code.clone().unwrap_or_default();
            let messages = Repair {
                region: &self.region,
                code: &previous,
                failure,
                error: &error,
            }
            .messages();
            att = self
                .attempt(
                    label,
                    repairs_done + 1,
                    tries * per_try + repairs_done as u64 + 1,
                    messages,
                )
                .await;
            tokens += att.tokens;
            calls += 1;
            repairs_done += 1;
        }
        let judged = att.outcome.as_ref().is_none_or(VerifyOutcome::is_judgement)
            && att.model_error.is_none();
        let at_roofline = matches!(
            &att.outcome,
            Some(VerifyOutcome::Correct(t)) if t.roofline_fraction.is_some_and(|r| r >= AT_ROOFLINE)
        );
        let (reward_value, passed, note) = match &att.outcome {
            Some(o) => {
                let passed = matches!(
                    o,
                    VerifyOutcome::Correct(_) | VerifyOutcome::CompiledNotRun { .. }
                );
                (reward(o, self.reward_form), passed, o.summary())
            }
            None => (
                -1.0,
                false,
                att.model_error
                    .or(att.error_for_repair.map(|(_, e)| first_line(&e)))
                    .unwrap_or_else(|| "no answer".into()),
            ),
        };
        StepResult {
            state: att.code,
            reward: reward_value,
            passed,
            judged,
            at_roofline,
            credited: true,
            llm_calls: calls,
            tokens,
            note,
        }
    }
}

/// A kernel at this fraction of the roofline ends the search: nothing is left to gain.
pub const AT_ROOFLINE: f64 = 0.9;

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_string()
}

impl SearchEnv for ModelEnv<'_> {
    type State = String;

    async fn apply(
        &self,
        from: &String,
        path: &[TechniqueId],
        technique: TechniqueId,
        calls_left: usize,
    ) -> StepResult<String> {
        let name = self.graph.name_of(technique);
        let description = self.graph.description_of(technique);
        let prev = path
            .last()
            .map(|&p| self.graph.name_of(p))
            .unwrap_or_else(|| "init".into());
        let examples: Vec<TechniqueExample> = self
            .graph
            .graph
            .similar_examples(&prev, &name, from, 2)
            .into_iter()
            .map(|s| TechniqueExample {
                before: s.example.before.clone(),
                after: s.example.after.clone(),
            })
            .collect();
        let messages = TechniqueStep {
            region: &self.region,
            technique: &name,
            description: &description,
            examples: &examples,
            code: from,
        }
        .messages();
        let tries = {
            let mut applied = self.applied.lock().expect("applied lock");
            let n = applied.entry((path.to_vec(), technique)).or_insert(0);
            *n += 1;
            *n - 1
        };
        let mut step = self.step(&name, messages, calls_left, tries).await;
        if step.passed
            && let Some(code) = &step.state
            && let Err(why) = super::credit::credited(&name, from, code)
        {
            step.credited = false;
            step.note = format!("{} (not credited with {name}: {why})", step.note);
        }
        step
    }

    async fn profile(&self, state: &String) -> Result<Guidance, String> {
        let p = self.judge.profile(&self.region, state).await?;
        Ok(Guidance {
            summary: p.summary,
            favoured: p
                .favoured
                .into_iter()
                .map(|f| (f.technique, f.reason))
                .collect(),
        })
    }

    async fn one_shot(
        &mut self,
        _initial: &String,
        style: OneShotStyle,
        calls_left: usize,
    ) -> StepResult<String> {
        let (baseline, label) = match style {
            OneShotStyle::Standard => (Baseline::Standard, "standard"),
            OneShotStyle::ChainOfThought => (Baseline::ChainOfThought, "cot"),
        };
        let messages = baseline.messages(&self.region);
        // The baselines get no repair: the paper's one-shot setting.
        let saved = self.repairs;
        self.repairs = 0;
        let r = self.step(label, messages, calls_left, 0).await;
        self.repairs = saved;
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::INIT;

    fn shipped() -> ReGraph {
        crate::search::offloader::load_graph(None).expect("the shipped graph loads")
    }

    #[test]
    fn a_kind_with_few_first_steps_gets_the_best_others_at_half_prior() {
        let graph = shipped();
        let view = GraphView {
            graph: &graph,
            kind: Some(LoopKind::Stencil),
        };
        let own = graph.successors("init", Some(LoopKind::Stencil)).unwrap();
        assert!(
            own.len() < MIN_CHOICES,
            "the shipped graph changed: pick another kind"
        );
        let succ = view.successors(INIT);
        assert_eq!(succ.len(), MIN_CHOICES);
        let names: Vec<String> = succ.iter().map(|&(id, _)| view.name_of(id)).collect();
        for (i, s) in own.iter().enumerate() {
            assert_eq!(names[i], s.technique, "the kind's own edges come first");
        }
        let best_own = succ[..own.len()].iter().map(|s| s.1).fold(0.0, f64::max);
        let any = view.kind_free_priors(INIT);
        for &(id, prior) in &succ[own.len()..] {
            assert!(prior < best_own);
            assert_eq!(prior, any[&id] * 0.5);
        }
    }

    #[test]
    fn a_kind_with_enough_first_steps_keeps_only_its_own() {
        let graph = shipped();
        let kind = [
            LoopKind::Map,
            LoopKind::Reduction,
            LoopKind::Histogram,
            LoopKind::Scan,
        ]
        .into_iter()
        .find(|&k| graph.successors("init", Some(k)).unwrap().len() >= MIN_CHOICES);
        let Some(kind) = kind else {
            panic!("no kind with {MIN_CHOICES} first steps in the shipped graph");
        };
        let view = GraphView {
            graph: &graph,
            kind: Some(kind),
        };
        let own = graph.successors("init", Some(kind)).unwrap();
        assert_eq!(view.successors(INIT).len(), own.len());
    }

    impl GraphView<'_> {
        fn kind_free_priors(
            &self,
            node: TechniqueId,
        ) -> std::collections::HashMap<TechniqueId, f64> {
            let any = self.graph.successors(&self.name_of(node), None).unwrap();
            self.with_priors(any).into_iter().collect()
        }
    }
}
