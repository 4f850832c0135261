//! The algorithm on small hand-made graphs with a scripted environment: rewards are a fixed
//! function of the technique path, so every selection is predictable.

use super::*;
use crate::search::testing::{Graph, Scripted};

fn config(budget: usize, max_depth: usize, epsilon: f64) -> McgsConfig {
    McgsConfig {
        budget,
        max_depth,
        epsilon,
        ..McgsConfig::default()
    }
}

async fn run(graph: &Graph, cfg: McgsConfig, env: &Scripted) -> SearchOutcome<String> {
    let cancel = CancellationToken::new();
    Mcgs::new(graph, cfg)
        .run(env, "0".to_string(), &cancel, &mut |_| {})
        .await
}

fn iteration_paths(out: &SearchOutcome<String>) -> Vec<Vec<String>> {
    out.trace
        .iterations
        .iter()
        .map(|it| {
            it.path
                .iter()
                .skip(1)
                .map(|&id| out.trace.nodes[id].technique_name.clone())
                .collect()
        })
        .collect()
}

// init(0) -> A(1, prior .9), B(2, prior .5); A -> C(3); B -> C.
fn diamond() -> Graph {
    Graph::new(
        &["init", "A", "B", "C"],
        &[(0, 1, 0.9), (0, 2, 0.5), (1, 3, 0.5), (2, 3, 0.5)],
    )
}

#[tokio::test]
async fn selection_sequence_is_exact() {
    let graph = diamond();
    let env = Scripted::new(
        &[("0>1", 0.2), ("0>1>3", 0.3), ("0>2", 0.6), ("0>2>3", 0.8)],
        -1.0,
    );
    let out = run(&graph, config(100, 3, 0.0), &env).await;

    // Untried children by prior (A before B), each followed by its rollout to C; then P-UCB prefers
    // B (Q 0.8 vs 0.3 at equal visits) and keeps re-selecting its finished leaf.
    let paths = iteration_paths(&out);
    assert_eq!(paths[0], vec!["A", "C"]);
    assert_eq!(paths[1], vec!["B", "C"]);
    assert_eq!(paths[2], vec!["B", "C"]);
    assert_eq!(paths[3], vec!["B", "C"]);
    assert_eq!(
        env.log(),
        vec!["0>1", "0>1>3", "0>2", "0>2>3"],
        "each path is applied exactly once"
    );
    assert_eq!(out.trace.stop, StopReason::Exhausted);
    assert_eq!(out.trace.llm_calls, 4);

    let best = out.best.expect("a best candidate");
    assert_eq!(best.state, "0>2>3");
    assert_eq!(best.path, vec!["B", "C"]);
    assert_eq!(best.step_rewards, vec![0.6, 0.8]);
    assert_eq!(best.reward, 0.8);
}

#[tokio::test]
async fn p_ucb_explores_the_less_visited_child() {
    // With a huge exploration constant the less visited child wins; at equal visits the higher Q (B).
    let graph = diamond();
    let env = Scripted::new(
        &[("0>1", 0.2), ("0>1>3", 0.3), ("0>2", 0.6), ("0>2>3", 0.8)],
        -1.0,
    );
    let cfg = McgsConfig {
        exploration: 100.0,
        ..config(100, 3, 0.0)
    };
    let out = run(&graph, cfg, &env).await;
    let firsts: Vec<String> = iteration_paths(&out)
        .iter()
        .take(6)
        .map(|p| p[0].clone())
        .collect();
    assert_eq!(firsts, vec!["A", "B", "B", "A", "B", "A"]);
}

#[tokio::test]
async fn cycles_terminate_at_the_depth_limit() {
    // init -> A -> B -> A -> ...: a cycle in the graph is a longer path in the tree.
    let graph = Graph::new(
        &["init", "A", "B"],
        &[(0, 1, 0.5), (1, 2, 0.5), (2, 1, 0.5)],
    );
    let env = Scripted::new(&[], 0.5);
    let out = run(&graph, config(1000, 5, 0.0), &env).await;
    assert_eq!(out.trace.stop, StopReason::Exhausted);
    assert_eq!(
        env.log(),
        vec!["0>1", "0>1>2", "0>1>2>1", "0>1>2>1>2", "0>1>2>1>2>1"]
    );
    assert!(out.trace.nodes.iter().all(|n| n.depth <= 5));
}

#[tokio::test]
async fn backpropagation_takes_the_maximum_and_a_failed_step_ends_the_rollout() {
    // init -> A -> B -> C -> D; C fails verification, so D is never tried.
    let graph = Graph::new(
        &["init", "A", "B", "C", "D"],
        &[(0, 1, 0.5), (1, 2, 0.5), (2, 3, 0.5), (3, 4, 0.5)],
    );
    let env = Scripted::new(&[("0>1", 0.1), ("0>1>2", 0.9), ("0>1>2>3", -1.0)], 0.4);
    let cfg = config(3, 6, 0.0);
    let out = run(&graph, cfg, &env).await;
    assert_eq!(env.log(), vec!["0>1", "0>1>2", "0>1>2>3"]);
    let it = &out.trace.iterations[0];
    assert_eq!(it.value, 0.9);
    for &id in &it.path {
        assert_eq!(
            out.trace.nodes[id].q, 0.9,
            "node {id} backs up the max, not the last or mean"
        );
    }
    let failed = out
        .trace
        .nodes
        .iter()
        .find(|n| n.technique_name == "C")
        .unwrap();
    assert!(!failed.passed);
    assert_eq!(out.best.unwrap().path, vec!["A", "B"]);
}

#[tokio::test]
async fn budget_is_never_exceeded_even_with_repairs() {
    let graph = diamond();
    let mut env = Scripted::new(&[], 0.5);
    env.calls_per_step = 2; // every step needs a repair
    let out = run(&graph, config(5, 6, 0.0), &env).await;
    assert_eq!(out.trace.stop, StopReason::Budget);
    assert_eq!(out.trace.llm_calls, 5);
    let spent: usize = out.trace.nodes.iter().map(|n| n.llm_calls).sum();
    assert_eq!(spent, 5);
}

#[tokio::test]
async fn same_seed_same_search() {
    // A denser graph with random rollouts: the seed fixes every choice.
    let edges: Vec<(usize, usize, f64)> = (0..6)
        .flat_map(|a| {
            (1..6)
                .filter(move |&b| b != a)
                .map(move |b| (a, b, 0.1 * b as f64))
        })
        .collect();
    let graph = Graph::new(&["init", "a", "b", "c", "d", "e"], &edges);
    let rewards = [("0>3", 0.4), ("0>5>2", 0.7), ("0>1>4", 0.9)];
    let trace = |seed: u64| {
        let graph = &graph;
        async move {
            let env = Scripted::new(&rewards, 0.2);
            let cfg = McgsConfig {
                seed,
                ..config(24, 4, 0.5)
            };
            let out = run(graph, cfg, &env).await;
            (env.log(), iteration_paths(&out))
        }
    };
    assert_eq!(trace(7).await, trace(7).await);
}

#[tokio::test]
async fn cancellation_stops_between_steps() {
    let graph = Graph::new(
        &["init", "A", "B"],
        &[(0, 1, 0.5), (1, 2, 0.5), (2, 1, 0.5)],
    );
    let cancel = CancellationToken::new();
    let mut env = Scripted::new(&[], 0.5);
    env.cancel_after = Some((2, cancel.clone()));
    let out = Mcgs::new(&graph, config(100, 10, 0.0))
        .run(&env, "0".into(), &cancel, &mut |_| {})
        .await;
    assert_eq!(out.trace.stop, StopReason::Cancelled);
    assert_eq!(env.log().len(), 2, "no step starts after cancellation");
}

#[tokio::test]
async fn progress_reports_every_iteration() {
    let graph = diamond();
    let env = Scripted::new(&[("0>2", 0.6)], 0.1);
    let cancel = CancellationToken::new();
    let mut seen = Vec::new();
    let out = Mcgs::new(&graph, config(3, 3, 0.0))
        .run(&env, "0".into(), &cancel, &mut |p| {
            seen.push((p.iteration, p.llm_calls, p.best_reward))
        })
        .await;
    assert_eq!(seen.len(), out.trace.iterations.len());
    assert_eq!(seen[0], (1, 2, Some(0.1)));
    assert_eq!(seen.last().unwrap().2, Some(0.6));
}

/// Scripted rewards, but each step yields to the runtime first, as a model call would: rollouts of
/// one batch then really are in flight together.
struct Overlapping {
    inner: Scripted,
    in_flight: std::sync::atomic::AtomicUsize,
    most_in_flight: std::sync::atomic::AtomicUsize,
    /// Steps that started after this token was cancelled.
    watch: Option<(CancellationToken, std::sync::atomic::AtomicUsize)>,
}

impl SearchEnv for Overlapping {
    type State = String;
    async fn apply(
        &self,
        from: &String,
        path: &[TechniqueId],
        technique: TechniqueId,
        calls_left: usize,
    ) -> StepResult<String> {
        use std::sync::atomic::Ordering::SeqCst;
        if let Some((token, late)) = &self.watch
            && token.is_cancelled()
        {
            late.fetch_add(1, SeqCst);
        }
        let now = self.in_flight.fetch_add(1, SeqCst) + 1;
        self.most_in_flight.fetch_max(now, SeqCst);
        tokio::task::yield_now().await;
        let r = self.inner.apply(from, path, technique, calls_left).await;
        self.in_flight.fetch_sub(1, SeqCst);
        r
    }
    async fn one_shot(
        &mut self,
        initial: &String,
        style: OneShotStyle,
        calls_left: usize,
    ) -> StepResult<String> {
        self.inner.one_shot(initial, style, calls_left).await
    }
}

// init -> A, B, C, D (priors .9 .8 .7 .6); each -> E; E -> nothing.
fn fan() -> Graph {
    Graph::new(
        &["init", "A", "B", "C", "D", "E"],
        &[
            (0, 1, 0.9),
            (0, 2, 0.8),
            (0, 3, 0.7),
            (0, 4, 0.6),
            (1, 5, 0.5),
            (2, 5, 0.5),
            (3, 5, 0.5),
            (4, 5, 0.5),
        ],
    )
}

async fn run_parallel(parallel: usize, budget: usize) -> (SearchOutcome<String>, Overlapping) {
    let env = Overlapping {
        inner: Scripted::new(&[("0>3>5", 0.9), ("0>2", 0.4)], 0.1),
        in_flight: Default::default(),
        most_in_flight: Default::default(),
        watch: None,
    };
    let cfg = McgsConfig {
        parallel,
        ..config(budget, 3, 0.0)
    };
    let cancel = CancellationToken::new();
    let out = Mcgs::new(&fan(), cfg)
        .run(&env, "0".to_string(), &cancel, &mut |_| {})
        .await;
    (out, env)
}

#[tokio::test]
async fn parallel_rollouts_take_distinct_leaves_and_overlap() {
    let (out, env) = run_parallel(4, 8).await;
    // The virtual loss sends the batch's four selections to the four untried children, in prior
    // order; each rollout continues to E.
    let paths = iteration_paths(&out);
    assert_eq!(
        paths[..4],
        [
            vec!["A", "E"],
            vec!["B", "E"],
            vec!["C", "E"],
            vec!["D", "E"]
        ]
    );
    assert_eq!(
        env.most_in_flight.load(std::sync::atomic::Ordering::SeqCst),
        4,
        "the four rollouts were in flight together"
    );
    assert_eq!(out.trace.llm_calls, 8);
    let best = out.best.unwrap();
    assert_eq!(best.path, vec!["C", "E"]);
    assert_eq!(best.reward, 0.9);
    // Virtual losses are all taken back: the root's visits are the iterations.
    assert_eq!(
        out.trace.nodes[0].visits as usize,
        out.trace.iterations.len()
    );
    assert!(out.trace.nodes.iter().all(|n| n.q <= 0.9 && n.q >= -1.0));
}

#[tokio::test]
async fn parallel_search_respects_the_budget_and_is_reproducible() {
    for budget in [1, 3, 5, 7, 9] {
        let (a, _) = run_parallel(3, budget).await;
        let (b, _) = run_parallel(3, budget).await;
        assert_eq!(a.trace.llm_calls, budget.min(8));
        let spent: usize = a.trace.nodes.iter().map(|n| n.llm_calls).sum();
        assert_eq!(spent, a.trace.llm_calls);
        assert_eq!(iteration_paths(&a), iteration_paths(&b));
    }
}

#[tokio::test]
async fn cancellation_lets_the_steps_in_flight_finish_and_starts_no_other() {
    let cancel = CancellationToken::new();
    let mut inner = Scripted::new(&[], 0.5);
    inner.cancel_after = Some((2, cancel.clone()));
    let env = Overlapping {
        inner,
        in_flight: Default::default(),
        most_in_flight: Default::default(),
        watch: Some((cancel.clone(), Default::default())),
    };
    let cfg = McgsConfig {
        parallel: 3,
        ..config(100, 3, 0.0)
    };
    let out = Mcgs::new(&fan(), cfg)
        .run(&env, "0".to_string(), &cancel, &mut |_| {})
        .await;
    assert_eq!(out.trace.stop, StopReason::Cancelled);
    let late = env
        .watch
        .as_ref()
        .unwrap()
        .1
        .load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(late, 0, "no step started after cancellation");
    // The batch's three leaves were in flight when the second step finished and cancelled; what
    // they had started finished and was backed up, one iteration each.
    let log = env.inner.log();
    assert_eq!(log[..3], ["0>1", "0>2", "0>3"]);
    assert!(
        log.len() <= 6,
        "at most one further step per rollout was in flight: {log:?}"
    );
    assert_eq!(out.trace.iterations.len(), 3);
    let applied: usize = out.trace.iterations.iter().map(|i| i.applied.len()).sum();
    assert_eq!(applied, log.len(), "every step that ran is in the tree");
}

#[tokio::test]
async fn a_failed_node_is_tried_again_and_the_whole_budget_is_spent() {
    // init -> A, B; A always fails, B passes at the depth limit: the search does not stop when
    // it has tried each once, it retries A (a retry is sampled: see `SearchEnv::apply`).
    let graph = Graph::new(&["init", "A", "B"], &[(0, 1, 0.9), (0, 2, 0.5)]);
    let env = Scripted::new(&[("0>1", -1.0), ("0>2", 0.3)], -1.0);
    let out = run(&graph, config(6, 1, 0.0), &env).await;
    assert_eq!(
        out.trace.stop,
        StopReason::Budget,
        "{:?} {:?}",
        env.log(),
        iteration_paths(&out)
    );
    assert_eq!(out.trace.llm_calls, 6);
    let log = env.log();
    assert!(
        log.iter().filter(|s| *s == "0>1").count() >= 2,
        "A tried again: {log:?}"
    );
    let a = out
        .trace
        .nodes
        .iter()
        .find(|n| n.technique_name == "A")
        .unwrap();
    assert_eq!(
        a.llm_calls,
        log.iter().filter(|s| *s == "0>1").count(),
        "the node keeps the calls of every try"
    );
}

#[tokio::test]
async fn a_step_nothing_judged_gets_no_reward() {
    let graph = Graph::new(&["init", "A", "B"], &[(0, 1, 0.9), (0, 2, 0.5)]);
    let mut env = Scripted::new(&[("0>2", 0.3)], 0.5);
    env.unjudged.insert("0>1".into());
    let out = run(&graph, config(3, 1, 0.0), &env).await;
    let a = out
        .trace
        .nodes
        .iter()
        .find(|n| n.technique_name == "A")
        .unwrap();
    assert_eq!(a.reward, None, "a verifier error is not the candidate's -1");
    assert!(
        out.trace.iterations.iter().all(|it| it.value > -1.0),
        "nothing backed up for it: {:?}",
        out.trace.iterations
    );
}

#[tokio::test]
async fn a_kernel_at_the_roofline_ends_the_search() {
    let graph = diamond();
    let mut env = Scripted::new(&[("0>1", 0.2), ("0>1>3", 0.95)], 0.1);
    env.at_roofline = Some("0>1>3".into());
    let out = run(&graph, config(30, 3, 0.0), &env).await;
    assert_eq!(out.trace.stop, StopReason::Roofline);
    assert_eq!(env.log(), vec!["0>1", "0>1>3"]);
}

#[tokio::test]
async fn a_verified_start_is_an_answer_the_steps_must_beat() {
    let graph = diamond();
    let env = Scripted::new(&[], 0.1);
    let cancel = CancellationToken::new();
    let out = Mcgs::new(&graph, config(2, 3, 0.0))
        .from_kernel(0.4, "port".into())
        .run(&env, "0".to_string(), &cancel, &mut |_| {})
        .await;
    let best = out.best.unwrap();
    assert_eq!(best.node, 0, "no step beat the start");
    assert!(best.path.is_empty());
    assert_eq!(best.reward, 0.4);
}

#[tokio::test]
async fn a_path_names_only_the_techniques_the_code_shows() {
    // A step whose code did not apply its technique stays a kernel (here the best one) but is no
    // step of the reported path.
    struct Uncredited(Scripted);
    impl SearchEnv for Uncredited {
        type State = String;
        async fn apply(
            &self,
            from: &String,
            path: &[TechniqueId],
            technique: TechniqueId,
            calls_left: usize,
        ) -> StepResult<String> {
            let mut r = self.0.apply(from, path, technique, calls_left).await;
            r.credited = technique != 1;
            r
        }
        async fn one_shot(
            &mut self,
            initial: &String,
            style: OneShotStyle,
            calls_left: usize,
        ) -> StepResult<String> {
            self.0.one_shot(initial, style, calls_left).await
        }
    }
    let graph = diamond();
    let env = Uncredited(Scripted::new(&[("0>1", 0.2), ("0>1>3", 0.9)], 0.1));
    let cancel = CancellationToken::new();
    let out = Mcgs::new(&graph, config(2, 3, 0.0))
        .run(&env, "0".to_string(), &cancel, &mut |_| {})
        .await;
    let best = out.best.unwrap();
    assert_eq!(best.state, "0>1>3");
    assert_eq!(best.path, vec!["C"], "A was not applied by its code");
    assert_eq!(best.step_rewards, vec![0.9]);
}

fn favouring(technique: &str) -> Result<Guidance, String> {
    Ok(Guidance {
        summary: "memory-bound with uncoalesced loads".into(),
        favoured: vec![(technique.to_string(), "loads are scattered".into())],
    })
}

// init(0) -> A(1, prior .9), B(2, prior .5), C(3, prior .2); each of them -> D(4).
fn three_ways() -> Graph {
    Graph::new(
        &["init", "A", "B", "C", "D"],
        &[
            (0, 1, 0.9),
            (0, 2, 0.5),
            (0, 3, 0.2),
            (1, 4, 0.5),
            (2, 4, 0.5),
            (3, 4, 0.5),
        ],
    )
}

async fn run_from_kernel(graph: &Graph, cfg: McgsConfig, env: &Scripted) -> SearchOutcome<String> {
    let cancel = CancellationToken::new();
    Mcgs::new(graph, cfg)
        .from_kernel(0.1, "the port".into())
        .run(env, "0".to_string(), &cancel, &mut |_| {})
        .await
}

#[tokio::test]
async fn a_profile_of_the_start_puts_its_technique_before_the_graphs_priors() {
    let graph = three_ways();
    let mut env = Scripted::new(&[("0>3", 0.5)], 0.2);
    env.guidance.insert("0".into(), favouring("C"));
    let out = run_from_kernel(&graph, config(2, 1, 0.0), &env).await;
    // C has the lowest prior, but the profile of the start favours it.
    assert_eq!(env.log(), vec!["0>3", "0>1"]);
    let p = &out.trace.profiles[0];
    assert!(p.ok);
    assert_eq!(p.node, 0);
    assert_eq!(p.favoured[0].0, "C");
    assert!(p.summary.contains("uncoalesced"), "{}", p.summary);
}

#[tokio::test]
async fn each_new_best_is_profiled_and_its_advice_holds_below_it() {
    // init -> A; A -> D (prior .9), E (prior .5), F (prior .1).
    let graph = Graph::new(
        &["init", "A", "D", "E", "F"],
        &[(0, 1, 0.9), (1, 2, 0.9), (1, 3, 0.5), (1, 4, 0.1)],
    );
    let mut env = Scripted::new(&[("0>1", 0.6), ("0>1>4", 0.7)], 0.0);
    env.guidance.insert("0".into(), favouring("A"));
    env.guidance.insert("0>1".into(), favouring("F"));
    env.guidance.insert("0>1>4".into(), favouring("D"));
    let out = run_from_kernel(&graph, config(4, 2, 0.0), &env).await;
    // The first rollout goes A -> D by prior; A is then the best kernel, and its profile puts F
    // before E among A's untried children.
    assert_eq!(env.log()[..3], ["0>1", "0>1>2", "0>1>4"]);
    let profiled = env.profiled.lock().unwrap().clone();
    assert_eq!(profiled, vec!["0", "0>1", "0>1>4"]);
    assert!(out.trace.profiles.iter().all(|p| p.ok));
    let at: Vec<&str> = out
        .trace
        .profiles
        .iter()
        .map(|p| out.trace.nodes[p.node].technique_name.as_str())
        .collect();
    assert_eq!(at, vec!["init", "A", "F"]);
}

#[tokio::test]
async fn a_failed_profile_is_not_retried_and_the_priors_decide() {
    let graph = three_ways();
    let mut env = Scripted::new(&[("0>1", 0.6)], 0.0);
    env.guidance
        .insert("0".into(), Err("Nsight Compute (ncu) not found".into()));
    let out = run_from_kernel(&graph, config(3, 1, 0.0), &env).await;
    assert_eq!(env.log(), vec!["0>1", "0>2", "0>3"], "by prior alone");
    assert_eq!(
        env.profiled.lock().unwrap().len(),
        1,
        "not retried on the new best"
    );
    assert_eq!(out.trace.profiles.len(), 1);
    assert!(!out.trace.profiles[0].ok);
    assert!(out.trace.profiles[0].summary.contains("ncu"));
}

#[tokio::test]
async fn profiles_stop_at_their_allowance() {
    let graph = three_ways();
    let mut env = Scripted::new(&[("0>1", 0.3), ("0>2", 0.4), ("0>3", 0.5)], 0.0);
    for s in ["0", "0>1", "0>2", "0>3"] {
        env.guidance.insert(s.into(), favouring("B"));
    }
    let cfg = McgsConfig {
        profiles: 2,
        ..config(3, 1, 0.0)
    };
    let out = run_from_kernel(&graph, cfg, &env).await;
    assert_eq!(out.trace.profiles.len(), 2);
    let none = McgsConfig {
        profiles: 0,
        ..config(3, 1, 0.0)
    };
    let env2 = Scripted::new(&[], 0.0);
    let out = run_from_kernel(&graph, none, &env2).await;
    assert!(out.trace.profiles.is_empty());
    assert!(env2.profiled.lock().unwrap().is_empty());
}
