//! `Offloader`: the real `OffloadRunner` over the model, the verifier and the reasoning graph.
//! The CLI's `offload` and the LSP's code action both go through it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::baselines;
use super::env::{CandidateRecord, GraphView, Judge, ModelEnv};
use super::mcgs::{Mcgs, McgsConfig, OneShotStyle, SearchOutcome};
use super::offload::{
    BoxFuture, OffloadRequest, OffloadRunner, OffloadSummary, PathSuggestion, ProgressSink,
    ReverifyOutcome, SearchFailure, Strategy,
};
use super::port::Start;
use super::start::starting_point;
use super::workspace_edit;
use crate::analysis::OffloadRegion;
use crate::graph::ReGraph;
use crate::graph::query::PathQuery;
use crate::llm::{BackendConfig, connect};
use crate::verify::{Protocol, RewardForm, VerifyOutcome};

/// The graph shipped with the binary (graph-data/regraph.json at build time).
const SHIPPED_GRAPH: &str = include_str!("../../../graph-data/regraph.json");

/// Search knobs that are not part of a request.
#[derive(Debug, Clone)]
pub struct SearchSettings {
    pub mcgs: McgsConfig,
    pub max_tokens: u32,
    /// Temperature of first attempts; retries sample (see `llm::prompt::retry_request`).
    pub temperature: f32,
    pub repairs: usize,
    pub reward_form: RewardForm,
    pub deadline: Option<Duration>,
    /// Where `mcgs` and `enumerate` start (the one-shot baselines always see the serial code).
    pub start: Start,
    /// Used where a request leaves them open.
    pub strategy: Strategy,
    pub budget: usize,
    pub seed: u64,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings {
            mcgs: McgsConfig::default(),
            max_tokens: 1536,
            temperature: 0.0,
            repairs: 1,
            reward_form: RewardForm::default(),
            deadline: None,
            start: Start::Port,
            strategy: Strategy::Mcgs,
            budget: 32,
            seed: 0,
        }
    }
}

pub struct Offloader {
    pub backend: BackendConfig,
    pub judge: Arc<dyn Judge>,
    pub graph: Arc<ReGraph>,
    pub settings: SearchSettings,
}

/// Loads graph-data/regraph.json from the nearest checkout above `start`, else the shipped one.
pub fn load_graph(start: Option<&std::path::Path>) -> Result<ReGraph, String> {
    if let Some(data) = start.and_then(crate::graph::GraphData::discover)
        && let Ok(g) = ReGraph::load(&data.regraph())
    {
        return Ok(g);
    }
    ReGraph::from_json(SHIPPED_GRAPH)
        .map_err(|e| format!("the shipped reasoning graph is unreadable: {e}"))
}

impl Offloader {
    async fn run(
        &self,
        req: OffloadRequest,
        progress: ProgressSink,
        cancel: CancellationToken,
    ) -> Result<OffloadSummary, SearchFailure> {
        self.judge
            .ready()
            .map_err(|e| format!("cannot verify candidates: {e}"))?;
        let strategy = req.strategy.unwrap_or(self.settings.strategy);
        let budget = req.budget.unwrap_or(self.settings.budget);
        let seed = req.seed.unwrap_or(self.settings.seed);
        let candidates: Arc<Mutex<Vec<CandidateRecord>>> = Arc::default();
        let outcomes: Arc<Mutex<HashMap<String, VerifyOutcome>>> = Arc::default();
        let judge: Arc<dyn Judge> = Arc::new(Remembering {
            inner: self.judge.clone(),
            seen: outcomes.clone(),
        });
        // The one-shot baselines write the whole kernel from the serial code, as in the paper.
        let asked = match strategy {
            Strategy::Port => Start::Port,
            Strategy::Mcgs | Strategy::Enumerate => self.settings.start,
            Strategy::Cot | Strategy::Standard => Start::Serial,
        };
        let start = starting_point(
            &req.region,
            judge.as_ref(),
            asked,
            self.settings.reward_form,
            &cancel,
            &candidates,
        )
        .await;
        let root = start.root();
        if strategy != Strategy::Port {
            // A server that is not running is said now, with what to start, not after the search.
            crate::llm::probe::preflight(&self.backend)
                .await
                .map_err(|e| e.to_string())?;
        }
        let initial = start.state.clone();
        let outcome: SearchOutcome<String> = if strategy == Strategy::Port {
            baselines::start_only(initial, root)
        } else {
            let model = connect(&self.backend).map_err(|e| e.to_string())?;
            let deadline = self
                .settings
                .deadline
                .map(|d| tokio::time::Instant::now() + d);
            let progress: Arc<ProgressSink> = Arc::new(progress);
            let calls_made = Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let on_call: super::env::CallSink = {
                let progress = progress.clone();
                Arc::new(move |record: &CandidateRecord| {
                    let made = calls_made.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                    progress(&super::Progress {
                        iteration: 0,
                        llm_calls: made,
                        budget,
                        best_reward: None,
                        current_path: Vec::new(),
                        call: Some(record.call_report()),
                    });
                })
            };
            let mut env = ModelEnv {
                graph: GraphView {
                    graph: &self.graph,
                    kind: Some(req.region.kind),
                },
                model,
                judge,
                region: req.region.clone(),
                seed,
                max_tokens: self.settings.max_tokens,
                temperature: self.settings.temperature,
                repairs: self.settings.repairs,
                reward_form: self.settings.reward_form,
                cancel: cancel.clone(),
                deadline,
                candidates: candidates.clone(),
                applied: Mutex::default(),
                on_call: Some(on_call),
            };
            let mut config = self.settings.mcgs.clone();
            config.budget = budget;
            config.seed = seed;
            config.deadline = self.settings.deadline;
            let mut report = |p: &super::Progress| progress(p);
            let view = GraphView {
                graph: &self.graph,
                kind: Some(req.region.kind),
            };
            match strategy {
                Strategy::Mcgs => {
                    let mut mcgs = Mcgs::new(&view, config);
                    if let Some((reward, note)) = root {
                        mcgs = mcgs.from_kernel(reward, note);
                    }
                    mcgs.run(&env, initial, &cancel, &mut report).await
                }
                Strategy::Enumerate => {
                    baselines::enumerate(
                        &view,
                        &mut env,
                        initial,
                        &config,
                        root,
                        &cancel,
                        &mut report,
                    )
                    .await
                }
                Strategy::Cot | Strategy::Standard | Strategy::Port => {
                    let (style, label) = if strategy == Strategy::Cot {
                        (OneShotStyle::ChainOfThought, "cot")
                    } else {
                        (OneShotStyle::Standard, "standard")
                    };
                    baselines::one_shot(&mut env, initial, style, budget, label).await
                }
            }
        };
        let trace = serde_json::json!({
            "strategy": strategy.as_str(),
            "start": start.report,
            "search": outcome.trace,
            "candidates": *candidates.lock().expect("candidates lock"),
        });
        let failed = |message: String| {
            SearchFailure::with_trace(
                message,
                trace.clone(),
                outcome.trace.llm_calls,
                outcome.trace.tokens,
            )
        };
        // A cancelled search edits nothing, even where it had a kernel (the verified port): the
        // user asked it to stop, not to apply what it had.
        if cancel.is_cancelled() {
            return Err(failed("cancelled".into()));
        }
        let Some(best) = outcome.best else {
            let tried = candidates.lock().expect("candidates lock").len();
            let last = outcome
                .trace
                .nodes
                .iter()
                .rev()
                .find(|n| n.reward.is_some())
                .map(|n| n.note.clone())
                .unwrap_or_default();
            return Err(failed(format!(
                "no candidate passed verification ({tried} tried, {} model calls, {} tokens); last: {last}; started from the {} code: {}",
                outcome.trace.llm_calls,
                outcome.trace.tokens,
                start.report.from.as_str(),
                start.report.note
            )));
        };
        let screened = outcomes
            .lock()
            .expect("outcomes lock")
            .get(&best.state)
            .cloned();
        // The search timed its candidates briefly; the answer is timed by the full protocol (and
        // checked once more on fresh seeds' timed samples) before anyone reads its numbers.
        let verify_outcome = match &screened {
            Some(VerifyOutcome::Correct(_)) => Some(
                self.judge
                    .judge(&req.region, &best.state, Protocol::Full, &cancel)
                    .await,
            ),
            _ => screened,
        };
        if let Some(o) = &verify_outcome
            && !matches!(
                o,
                VerifyOutcome::Correct(_) | VerifyOutcome::CompiledNotRun { .. }
            )
        {
            // Passed screening, failed the full protocol (a re-checked sample, a timeout): no kernel
            // that failed a check reaches anyone's source.
            return Err(failed(format!(
                "the best candidate ({}) passed the search's checks but failed its full verification: {}",
                best.path.join(" → "),
                o.summary()
            )));
        }
        let (verified, verdict, speedup, roofline) = describe(verify_outcome.as_ref());
        let kernel_source =
            workspace_edit::kernel_source(&req.region, &best.state, &verdict, &best.path);
        Ok(OffloadSummary {
            kernel_file: workspace_edit::kernel_file_name(&req.region),
            kernel_source,
            source_edits: workspace_edit::offload_source_edits(&[&req.region], &req.source).0,
            verified,
            verdict,
            speedup,
            roofline_fraction: roofline,
            path: best.path,
            step_rewards: best.step_rewards,
            llm_calls: outcome.trace.llm_calls,
            tokens: outcome.trace.tokens,
            trace,
            start: Some(start.report),
            profiles: profile_lines(&outcome.trace),
            best_outcome: verify_outcome,
        })
    }
}

fn profile_lines(trace: &super::mcgs::SearchTrace) -> Vec<String> {
    trace
        .profiles
        .iter()
        .map(|p| p.line(&trace.nodes))
        .collect()
}

fn describe(outcome: Option<&VerifyOutcome>) -> (bool, String, Option<f64>, Option<f64>) {
    match outcome {
        Some(VerifyOutcome::Correct(t)) => {
            let roof = t
                .roofline_fraction
                .map(|r| format!(", {:.0}% of roofline", r * 100.0))
                .unwrap_or_default();
            (
                true,
                format!(
                    "verified: {} (kernel {:.4} ms, end to end {:.3} ms, serial {:.3} ms){roof}{}",
                    crate::analysis::cost::end_to_end_phrase(
                        t.end_to_end_speedup,
                        t.speedup,
                        copy_share(t)
                    ),
                    t.kernel_ms,
                    t.end_to_end_ms,
                    t.serial_ms,
                    crate::analysis::cost::copies_advice(copy_share(t))
                        .map(|a| format!("; {a}"))
                        .unwrap_or_default()
                ),
                Some(t.speedup),
                t.roofline_fraction,
            )
        }
        Some(o @ VerifyOutcome::CompiledNotRun { .. }) => (false, o.summary(), None, None),
        Some(o) => (false, o.summary(), None, None),
        None => (false, "unverified".into(), None, None),
    }
}

/// Share of the measured end-to-end time not spent in the kernel (copies, allocation).
fn copy_share(t: &crate::verify::outcome::Timing) -> f64 {
    if t.end_to_end_ms > 0.0 {
        ((t.end_to_end_ms - t.kernel_ms) / t.end_to_end_ms).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Remembers the outcome of each candidate so the summary can quote the best one's numbers.
struct Remembering {
    inner: Arc<dyn Judge>,
    seen: Arc<Mutex<HashMap<String, VerifyOutcome>>>,
}

impl Judge for Remembering {
    fn ready(&self) -> Result<(), String> {
        self.inner.ready()
    }

    fn hold_for_model(&self) -> BoxFuture<'_, Option<super::env::Held>> {
        self.inner.hold_for_model()
    }

    fn hold_alone(&self) -> BoxFuture<'_, Option<super::env::Held>> {
        self.inner.hold_alone()
    }

    fn judge<'a>(
        &'a self,
        region: &'a OffloadRegion,
        candidate: &'a str,
        protocol: Protocol,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, VerifyOutcome> {
        Box::pin(async move {
            let outcome = self.inner.judge(region, candidate, protocol, cancel).await;
            self.seen
                .lock()
                .expect("outcomes lock")
                .insert(candidate.to_string(), outcome.clone());
            outcome
        })
    }
}

impl OffloadRunner for Offloader {
    fn hold_alone(&self) -> BoxFuture<'static, Option<super::env::Held>> {
        let judge = self.judge.clone();
        Box::pin(async move { judge.hold_alone().await })
    }

    fn offload(
        &self,
        request: OffloadRequest,
        progress: ProgressSink,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<OffloadSummary, SearchFailure>> {
        let this = Offloader {
            backend: self.backend.clone(),
            judge: self.judge.clone(),
            graph: self.graph.clone(),
            settings: self.settings.clone(),
        };
        Box::pin(async move { this.run(request, progress, cancel).await })
    }

    fn reverify(
        &self,
        region: OffloadRegion,
        kernel_source: String,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<ReverifyOutcome, String>> {
        let judge = self.judge.clone();
        Box::pin(async move {
            let candidate = workspace_edit::candidate_part(&kernel_source);
            let outcome = judge
                .judge(&region, candidate, Protocol::Full, &cancel)
                .await;
            let (verified, verdict, speedup, _) = describe(Some(&outcome));
            let ok = verified || matches!(outcome, VerifyOutcome::CompiledNotRun { .. });
            Ok(ReverifyOutcome {
                ok,
                verdict,
                speedup,
            })
        })
    }

    fn suggested_paths(&self, region: &OffloadRegion, k: usize) -> Vec<PathSuggestion> {
        let query = PathQuery {
            k,
            kind: Some(region.kind),
            ..PathQuery::default()
        };
        self.graph
            .top_paths(query)
            .into_iter()
            .map(|p| PathSuggestion {
                techniques: p.techniques,
                examples: p.support,
                mean_speedup: p.mean_speedup,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    //! The answer's final verification, over the real search, graph and a model cassette: the
    //! judge screens every candidate as correct and says what the full protocol finds.
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::config::Settings;
    use crate::llm::BackendKind;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    fn correct(speedup: f64) -> VerifyOutcome {
        VerifyOutcome::correct_for_tests(speedup, Some(0.5))
    }

    struct TwoStage {
        full: VerifyOutcome,
        asked: Mutex<Vec<Protocol>>,
        events: Arc<Mutex<Vec<String>>>,
    }

    /// What the judge hands out while the model answers: says when it is given back.
    struct Held(Arc<Mutex<Vec<String>>>);

    impl Drop for Held {
        fn drop(&mut self) {
            self.0.lock().unwrap().push("model answered".into());
        }
    }

    impl Judge for TwoStage {
        fn hold_for_model(&self) -> BoxFuture<'_, Option<super::super::env::Held>> {
            self.events.lock().unwrap().push("model asked".into());
            let held: super::super::env::Held = Box::new(Held(self.events.clone()));
            Box::pin(async move { Some(held) })
        }

        fn judge<'a>(
            &'a self,
            _region: &'a OffloadRegion,
            _candidate: &'a str,
            protocol: Protocol,
            _cancel: &'a CancellationToken,
        ) -> BoxFuture<'a, VerifyOutcome> {
            self.events
                .lock()
                .unwrap()
                .push(format!("judged ({protocol:?})"));
            self.asked.lock().unwrap().push(protocol);
            let outcome = match protocol {
                Protocol::Screening => correct(10.0),
                Protocol::Full => self.full.clone(),
            };
            Box::pin(async move { outcome })
        }
    }

    /// The LSP end-to-end test's search (tests/cassettes/lsp-saxpy.jsonl: enumerate, budget 1).
    async fn offload_saxpy(
        full: VerifyOutcome,
        start: Start,
    ) -> (
        Result<OffloadSummary, SearchFailure>,
        Vec<Protocol>,
        Vec<String>,
    ) {
        let cassette = root().join("server/tests/cassettes/lsp-saxpy.jsonl");
        let header: serde_json::Value = serde_json::from_str(
            std::fs::read_to_string(&cassette)
                .unwrap()
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap();
        let settings = Settings {
            backend: BackendKind::Replay,
            cassette: Some(cassette),
            model: header["model"].as_str().unwrap().to_string(),
            strategy: Strategy::Enumerate,
            budget: 1,
            start,
            ..Settings::default()
        };
        let judge = Arc::new(TwoStage {
            full,
            asked: Mutex::default(),
            events: Arc::default(),
        });
        let offloader = Offloader {
            backend: settings.backend_config(),
            judge: judge.clone(),
            graph: Arc::new(load_graph(None).unwrap()),
            settings: settings.search_settings(),
        };
        let file = root().join("test-workspaces/saxpy/saxpy.cpp");
        let report = crate::analysis::analyze_file(&file).unwrap();
        let region = report.loop_at_line(7).unwrap().region.clone().unwrap();
        let request = OffloadRequest {
            source: std::fs::read_to_string(&file).unwrap(),
            file,
            region,
            strategy: None,
            budget: None,
            seed: None,
        };
        let result = offloader
            .offload(request, Box::new(|_| {}), CancellationToken::new())
            .await;
        let asked = judge.asked.lock().unwrap().clone();
        let events = judge.events.lock().unwrap().clone();
        (result, asked, events)
    }

    #[tokio::test]
    async fn the_answer_is_timed_again_by_the_full_protocol() {
        let (result, asked, events) = offload_saxpy(correct(250.0), Start::Serial).await;
        let summary = result.expect("the cassette's kernel passes");
        assert_eq!(asked, vec![Protocol::Screening, Protocol::Full]);
        // The judge's hold covers the model's answer and is given back before any judging.
        assert_eq!(
            events,
            [
                "model asked",
                "model answered",
                "judged (Screening)",
                "judged (Full)"
            ]
        );
        assert!(summary.verified);
        assert_eq!(summary.speedup, Some(250.0), "the full protocol's numbers");
        assert!(
            summary
                .verdict
                .starts_with("verified: 125.0× faster end to end (50 % of the GPU time copying data; the kernel alone 250.0×)"),
            "{}",
            summary.verdict
        );
    }

    #[tokio::test]
    async fn an_answer_that_fails_its_full_verification_is_not_offered() {
        let wrong = VerifyOutcome::Wrong {
            param: "y".into(),
            index: 3,
            expected: "1".into(),
            got: "2".into(),
            size: "n=33554431".into(),
            seed: 1004,
            check: "timed sample 4".into(),
        };
        let (result, _, _) = offload_saxpy(wrong, Start::Serial).await;
        let err = result.expect_err("no kernel that failed a check");
        assert!(
            err.message.contains("failed its full verification"),
            "{err}"
        );
        assert!(err.message.contains("wrong"), "{err}");
        // The failure keeps what was tried, with its code, for `--out` and `--json`.
        assert_eq!((err.llm_calls, err.tokens > 0), (1, true), "{err:?}");
        let trace = err.trace.expect("a failed search keeps its trace");
        let candidates = trace["candidates"].as_array().expect("candidates");
        assert_eq!(candidates.len(), 1, "{trace}");
        let code = candidates[0]["code"].as_str().expect("the judged code");
        assert!(code.contains("__global__"), "{code}");
        assert_eq!(trace["strategy"], "enumerate");
    }

    #[tokio::test]
    async fn a_search_starts_from_the_verified_port_which_stays_the_answer_unless_beaten() {
        let (result, asked, events) = offload_saxpy(correct(250.0), Start::Port).await;
        let summary = result.expect("the port passes");
        // The port is judged before any model call. The cassette holds no answer to a prompt
        // that starts from the port, so the one model call fails: the port is the answer and is
        // timed in full.
        assert_eq!(
            events[..2],
            ["judged (Screening)".to_string(), "model asked".to_string()]
        );
        assert_eq!(asked, vec![Protocol::Screening, Protocol::Full]);
        let start = summary.start.expect("a start report");
        assert_eq!(start.from, Start::Port);
        assert_eq!(start.shape.as_deref(), Some("1-D grid-stride map"));
        assert!(
            summary.path.is_empty(),
            "no technique applied: {:?}",
            summary.path
        );
        assert!(
            summary.kernel_source.contains("port generator"),
            "{}",
            summary.kernel_source
        );
        let records = summary.trace["candidates"].as_array().unwrap();
        assert_eq!(records[0]["technique"], "port");
        assert_eq!(summary.trace["start"]["from"], "port");
    }
}
