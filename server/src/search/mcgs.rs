//! Monte Carlo Graph Search (ARCHITECTURE.md §4), made concrete:
//!
//! 1. Selection from the root by P-UCB, `Q(s) + c·sqrt(2 ln N(parent) / N(s))`, over children that
//!    were already tried; an untried child is taken first (highest graph prior first).
//! 2. Expansion: the first time a node is passed through, all its graph successors become children.
//! 3. Rollout from the new child: with probability 1-ε the successor maximizing
//!    `Q(s,a) - λ·N(s,a)` (edge statistics over the whole search, the graph prior before any visit;
//!    the visit penalty keeps cycles finite), else a random successor; until the depth limit, a
//!    failed step, or the budget. Rollout steps become tree nodes too: each one cost a model call
//!    and is a possible answer.
//! 4. Backpropagation of the *maximum* reward seen on the iteration along the path.
//!
//! The search tree is over technique *sequences*, so cycles in the graph only make paths longer.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::{Guidance, INIT, Progress, StepResult, TechniqueGraph, TechniqueId};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct McgsConfig {
    /// P-UCB exploration constant `c`.
    pub exploration: f64,
    /// Probability of a random rollout action.
    pub epsilon: f64,
    /// Visit penalty `λ` of the rollout policy.
    pub visit_penalty: f64,
    /// Longest technique path (init excluded).
    pub max_depth: usize,
    /// Model calls the whole search may spend.
    pub budget: usize,
    /// Wall-clock limit, checked between steps.
    pub deadline: Option<Duration>,
    pub seed: u64,
    /// Rollouts in flight at once: selection picks this many leaves (a virtual loss on each
    /// selected path steers the next selection elsewhere), their rollouts run concurrently (model
    /// calls and verification overlap), and their results are backed up in selection order, so a
    /// seed still reproduces the run. 1 is the sequential algorithm.
    #[serde(default = "one")]
    pub parallel: usize,
    /// Profiles of verified kernels the search may take (the start and each new best): their
    /// diagnosis ranks the techniques tried below that kernel. 0: the graph's priors alone.
    #[serde(default = "three")]
    pub profiles: usize,
}

fn three() -> usize {
    3
}

fn one() -> usize {
    1
}

impl Default for McgsConfig {
    fn default() -> Self {
        McgsConfig {
            exploration: 1.0,
            epsilon: 0.1,
            visit_penalty: 0.1,
            max_depth: 6,
            budget: 32,
            deadline: None,
            seed: 0,
            parallel: 1,
            profiles: three(),
        }
    }
}

/// Applies one technique to a state: the model rewrites the code, the verifier grades it.
pub trait SearchEnv {
    type State: Clone;
    /// `path` is the technique sequence leading to `from` (starting with `INIT`); `calls_left` is
    /// the most model calls this step may spend (a repair attempt needs two).
    fn apply(
        &self,
        from: &Self::State,
        path: &[TechniqueId],
        technique: TechniqueId,
        calls_left: usize,
    ) -> impl std::future::Future<Output = StepResult<Self::State>>;

    /// What limits a verified kernel and so which techniques to try on it (issue #19); `Err`
    /// says why there is none (no GPU, no profiler).
    fn profile(
        &self,
        _state: &Self::State,
    ) -> impl std::future::Future<Output = Result<Guidance, String>> {
        async { Err("no profiler".to_string()) }
    }

    /// One model call that writes the whole kernel at once (the `standard` and `cot` baselines).
    fn one_shot(
        &mut self,
        initial: &Self::State,
        style: OneShotStyle,
        calls_left: usize,
    ) -> impl std::future::Future<Output = StepResult<Self::State>>;
}

/// How a one-shot baseline prompts the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OneShotStyle {
    /// "Write a CUDA version of this function."
    Standard,
    /// The same, asking the model to reason step by step first.
    ChainOfThought,
}

/// Why the search stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    Budget,
    Deadline,
    Cancelled,
    /// Every reachable path was tried to the depth limit (failed steps are tried again).
    Exhausted,
    /// A kernel reached the roofline: nothing is left to gain.
    Roofline,
}

/// One node of the search tree, as the trace shows it.
#[derive(Debug, Clone, Serialize)]
pub struct TraceNode {
    pub id: usize,
    pub parent: Option<usize>,
    pub technique: TechniqueId,
    pub technique_name: String,
    pub depth: usize,
    pub visits: u32,
    pub q: f64,
    /// None for children that were never applied.
    pub reward: Option<f64>,
    pub passed: bool,
    /// False when the code does not show the technique: paths leave it out.
    pub credited: bool,
    pub note: String,
    pub llm_calls: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct IterationTrace {
    pub iteration: usize,
    /// Node ids from the root to the deepest node of the iteration.
    pub path: Vec<usize>,
    /// Nodes applied (model called) in this iteration, in order.
    pub applied: Vec<usize>,
    /// The value backed up: the maximum reward seen.
    pub value: f64,
}

/// A profile the search took of one of its kernels, and what it made of it.
#[derive(Debug, Clone, Serialize)]
pub struct ProfileTrace {
    pub node: usize,
    /// The diagnosis ("memory-bound with uncoalesced loads, ..."), or why there is none.
    pub summary: String,
    /// Techniques moved first below this node, each with its reason.
    pub favoured: Vec<(String, String)>,
    pub ok: bool,
}

impl ProfileTrace {
    /// One line for people: at which kernel, the diagnosis, and what it put first.
    pub fn line(&self, nodes: &[TraceNode]) -> String {
        let at = nodes
            .get(self.node)
            .map(|n| {
                if n.parent.is_none() {
                    "the start".to_string()
                } else {
                    format!("after {}", n.technique_name)
                }
            })
            .unwrap_or_else(|| format!("node {}", self.node));
        if !self.ok {
            return format!("{at}: no profile ({})", self.summary);
        }
        let first: Vec<&str> = self.favoured.iter().map(|(t, _)| t.as_str()).collect();
        if first.is_empty() {
            format!("{at}: {}", self.summary)
        } else {
            format!("{at}: {} → tried first: {}", self.summary, first.join(", "))
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchTrace {
    pub nodes: Vec<TraceNode>,
    pub iterations: Vec<IterationTrace>,
    /// Profiles taken (the start's, then each new best's), in order.
    pub profiles: Vec<ProfileTrace>,
    pub llm_calls: usize,
    pub tokens: u64,
    pub stop: StopReason,
}

/// The best candidate seen anywhere in the search.
#[derive(Debug, Clone, Serialize)]
pub struct Best<S> {
    pub node: usize,
    pub state: S,
    pub reward: f64,
    /// Technique names from the first technique (init excluded) to this candidate.
    pub path: Vec<String>,
    /// Reward of each step on that path.
    pub step_rewards: Vec<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchOutcome<S> {
    pub best: Option<Best<S>>,
    pub trace: SearchTrace,
}

struct Node<S> {
    technique: TechniqueId,
    parent: Option<usize>,
    children: Vec<usize>,
    expanded: bool,
    prior: f64,
    depth: usize,
    visits: u32,
    value_sum: f64,
    applied: bool,
    state: Option<S>,
    reward: Option<f64>,
    passed: bool,
    credited: bool,
    note: String,
    llm_calls: usize,
    /// Techniques a profile of this node's kernel favours (names, the most favoured first):
    /// they go first among the untried techniques below it.
    favoured: Option<Vec<String>>,
}

impl<S> Node<S> {
    fn new(technique: TechniqueId, parent: Option<usize>, prior: f64, depth: usize) -> Self {
        Node {
            technique,
            parent,
            children: Vec::new(),
            expanded: false,
            prior,
            depth,
            visits: 0,
            value_sum: 0.0,
            applied: false,
            state: None,
            reward: None,
            passed: false,
            credited: true,
            note: String::new(),
            llm_calls: 0,
            favoured: None,
        }
    }

    fn q(&self) -> f64 {
        if self.visits == 0 {
            0.0
        } else {
            self.value_sum / f64::from(self.visits)
        }
    }
}

/// Edge statistics `N(s,a)`, `Q(s,a)` of the rollout policy, keyed by technique pair.
#[derive(Default)]
struct EdgeStats {
    visits: HashMap<(TechniqueId, TechniqueId), (u32, f64)>,
}

impl EdgeStats {
    fn score(&self, from: TechniqueId, to: TechniqueId, prior: f64, penalty: f64) -> f64 {
        match self.visits.get(&(from, to)) {
            Some(&(n, sum)) if n > 0 => sum / f64::from(n) - penalty * f64::from(n),
            _ => prior,
        }
    }

    fn record(&mut self, from: TechniqueId, to: TechniqueId, value: f64) {
        let e = self.visits.entry((from, to)).or_insert((0, 0.0));
        e.0 += 1;
        e.1 += value;
    }
}

pub struct Mcgs<'g, G: TechniqueGraph> {
    graph: &'g G,
    config: McgsConfig,
    /// The reward and note of a starting state that is itself a verified kernel (the port).
    root: Option<(f64, String)>,
}

impl<'g, G: TechniqueGraph> Mcgs<'g, G> {
    pub fn new(graph: &'g G, config: McgsConfig) -> Self {
        Mcgs {
            graph,
            config,
            root: None,
        }
    }

    /// The initial state is a verified kernel with this reward: a possible answer, the value
    /// every rollout has to beat.
    pub fn from_kernel(mut self, reward: f64, note: String) -> Self {
        self.root = Some((reward, note));
        self
    }

    /// Runs the search from `initial` (the serial code) until the budget, the deadline, or
    /// cancellation; `progress` is called after every iteration.
    pub async fn run<E: SearchEnv>(
        &self,
        env: &E,
        initial: E::State,
        cancel: &CancellationToken,
        progress: &mut (dyn FnMut(&Progress) + Send),
    ) -> SearchOutcome<E::State> {
        let cfg = &self.config;
        let started = Instant::now();
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let mut tree: Vec<Node<E::State>> = vec![Node::new(INIT, None, 1.0, 0)];
        tree[0].applied = true;
        tree[0].passed = true;
        tree[0].state = Some(initial);
        if let Some((reward, note)) = &self.root {
            tree[0].reward = Some(*reward);
            tree[0].note = note.clone();
        }
        let mut edges = EdgeStats::default();
        let mut calls = 0usize;
        let mut tokens = 0u64;
        let mut iterations = Vec::new();
        // Re-selecting finished leaves costs no model call, so bound the iterations that apply nothing.
        let mut idle_iterations = 0usize;
        let mut best_reward: Option<f64> = self.root.as_ref().map(|r| r.0);
        let mut profiles = Vec::new();
        if self.root.is_some() {
            self.take_profile(env, &mut tree, 0, &mut profiles).await;
        }

        let mut at_roofline = false;
        let stop = loop {
            if cancel.is_cancelled() {
                break StopReason::Cancelled;
            }
            if at_roofline {
                break StopReason::Roofline;
            }
            if calls >= cfg.budget {
                break StopReason::Budget;
            }
            if cfg.deadline.is_some_and(|d| started.elapsed() >= d) {
                break StopReason::Deadline;
            }
            if idle_iterations > 4 * (tree.len() + 1) {
                break StopReason::Exhausted;
            }

            // 1. Selection (with 2. expansion on first pass through a node) of up to `parallel`
            //    new leaves, each under a virtual loss until its result is backed up.
            let calls_left = cfg.budget - calls;
            let mut picks: Vec<Pick<E::State>> = Vec::new();
            let mut idle_path = None;
            while picks.len() < cfg.parallel.max(1).min(calls_left) {
                let (mut path, mut leaf) = self.select(&mut tree);
                if tree[leaf].applied
                    && tree[leaf].passed
                    && let Some(retry) = retry_candidate(&tree, &picks)
                {
                    // Selection ends at a finished leaf while a failed step could be tried
                    // again: the budget goes to the retry, the least-tried first.
                    leaf = retry;
                    path = std::iter::once(0).chain(chain_of(&tree, retry)).collect();
                }
                if tree[leaf].applied && tree[leaf].passed {
                    // A finished leaf (at the depth limit): an iteration of its own. A failed
                    // leaf is applied again (sampled: see `SearchEnv::apply`).
                    if picks.is_empty() {
                        idle_path = Some(path);
                    }
                    break;
                }
                if picks.iter().any(|p| p.leaf == leaf) {
                    break;
                }
                for &id in &path {
                    tree[id].visits += 1;
                    tree[id].value_sum -= VIRTUAL_LOSS;
                }
                let parent = tree[leaf].parent.expect("a leaf below the root");
                picks.push(Pick {
                    techniques: techniques_to(&tree, parent),
                    from: tree[parent]
                        .state
                        .clone()
                        .expect("children are only applied under passed nodes"),
                    technique: tree[leaf].technique,
                    depth: tree[leaf].depth,
                    leaf,
                    path,
                    allowance: 0,
                    rng: ChaCha8Rng::seed_from_u64(rng.random()),
                    favoured: favoured_at(&tree, parent).to_vec(),
                });
            }
            let n = picks.len();
            for (i, p) in picks.iter_mut().enumerate() {
                p.allowance = calls_left / n.max(1) + usize::from(i < calls_left % n.max(1));
            }

            let mut finished: Vec<(Vec<usize>, Vec<usize>, f64)> = Vec::new();
            if let Some(path) = idle_path {
                let leaf = *path.last().expect("a path has the root");
                let value = tree[leaf].reward.unwrap_or(-1.0);
                idle_iterations += 1;
                finished.push((path, Vec::new(), value));
            } else {
                // 3. The new leaves are applied and rolled out concurrently; their results enter
                //    the tree in selection order.
                let rollouts = futures::future::join_all(
                    picks
                        .iter()
                        .map(|p| self.rollout(env, &edges, p, cancel, started)),
                )
                .await;
                for (pick, rollout) in picks.into_iter().zip(rollouts) {
                    for &id in &pick.path {
                        tree[id].visits -= 1;
                        tree[id].value_sum += VIRTUAL_LOSS;
                    }
                    let mut path = pick.path;
                    let mut cur = pick.leaf;
                    let mut used = 0;
                    let mut applied = Vec::new();
                    let mut seen = Vec::new();
                    for (i, (choice, step)) in rollout.into_iter().enumerate() {
                        if i > 0 {
                            if !tree[cur].expanded {
                                self.expand(&mut tree, cur);
                            }
                            cur = tree[cur].children[choice];
                            path.push(cur);
                        }
                        let left = pick.allowance - used;
                        tokens += step.tokens;
                        at_roofline |= step.at_roofline && step.passed && step.judged;
                        let (r, spent) = record(&mut tree[cur], step, left);
                        used += spent;
                        calls += spent;
                        if let Some(r) = r {
                            applied.push(cur);
                            seen.push(r);
                        }
                    }
                    // Nothing judged (the verifier failed, or a cancel): no value to back up.
                    if seen.is_empty() {
                        continue;
                    }
                    let value = seen.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    finished.push((path, applied, value));
                }
                idle_iterations = 0;
            }

            // 4. Backpropagation of the maximum reward seen on each iteration.
            let best_before = best_reward;
            let mut new_best: Option<(usize, f64)> = None;
            for (path, applied, value) in finished {
                for &id in &path {
                    tree[id].visits += 1;
                    tree[id].value_sum += value;
                    if let Some(p) = tree[id].parent {
                        edges.record(tree[p].technique, tree[id].technique, value);
                    }
                }
                for &id in applied.iter().filter(|&&id| tree[id].passed) {
                    let r = tree[id].reward.unwrap_or(-1.0);
                    best_reward = Some(best_reward.map_or(r, |b: f64| b.max(r)));
                    if best_before.is_none_or(|b| r > b) && new_best.is_none_or(|(_, nb)| r > nb) {
                        new_best = Some((id, r));
                    }
                }
                let iteration = iterations.len() + 1;
                progress(&Progress {
                    iteration,
                    llm_calls: calls,
                    budget: cfg.budget,
                    best_reward,
                    current_path: path
                        .iter()
                        .skip(1)
                        .map(|&id| self.graph.name(tree[id].technique))
                        .collect(),
                    call: None,
                });
                iterations.push(IterationTrace {
                    iteration,
                    path,
                    applied,
                    value,
                });
            }

            // A new best kernel: its profile ranks what is tried on it.
            // (None once the search is over: nothing would be tried on it.)
            if let Some((id, _)) = new_best
                && !cancel.is_cancelled()
                && calls < cfg.budget
                && !at_roofline
            {
                self.take_profile(env, &mut tree, id, &mut profiles).await;
            }
        };

        let nodes: Vec<TraceNode> = tree
            .iter()
            .enumerate()
            .map(|(id, n)| TraceNode {
                id,
                parent: n.parent,
                technique: n.technique,
                technique_name: self.graph.name(n.technique),
                depth: n.depth,
                visits: n.visits,
                q: n.q(),
                reward: n.reward,
                passed: n.passed,
                credited: n.credited,
                note: n.note.clone(),
                llm_calls: n.llm_calls,
            })
            .collect();
        let best = best_candidate(&nodes, |id| tree[id].state.clone());
        SearchOutcome {
            best,
            trace: SearchTrace {
                nodes,
                iterations,
                profiles,
                llm_calls: calls,
                tokens,
                stop,
            },
        }
    }

    /// Profiles the kernel of node `id` (within the search's allowance of profiles) and keeps
    /// what it favours on the node.
    async fn take_profile<E: SearchEnv>(
        &self,
        env: &E,
        tree: &mut [Node<E::State>],
        id: usize,
        profiles: &mut Vec<ProfileTrace>,
    ) {
        // A failed profile (no GPU, no profiler, no permission) fails the same way again.
        if profiles.len() >= self.config.profiles || profiles.iter().any(|p| !p.ok) {
            return;
        }
        let Some(state) = tree[id].state.clone() else {
            return;
        };
        let trace = match env.profile(&state).await {
            Ok(g) => {
                tree[id].favoured = Some(g.favoured.iter().map(|(t, _)| t.clone()).collect());
                ProfileTrace {
                    node: id,
                    summary: g.summary,
                    favoured: g.favoured,
                    ok: true,
                }
            }
            Err(why) => ProfileTrace {
                node: id,
                summary: why,
                favoured: Vec::new(),
                ok: false,
            },
        };
        tracing::info!(node = id, "profile: {}", trace.summary);
        profiles.push(trace);
    }

    /// From the root by P-UCB down to an untried child or a finished leaf, expanding each node
    /// passed through for the first time.
    fn select<S>(&self, tree: &mut Vec<Node<S>>) -> (Vec<usize>, usize) {
        let mut path = vec![0usize];
        let mut cur = 0usize;
        loop {
            if self.is_terminal(&tree[cur]) {
                break;
            }
            if !tree[cur].expanded {
                self.expand(tree, cur);
            }
            let Some(next) = self.select_child(tree, cur) else {
                break;
            };
            cur = next;
            path.push(cur);
            // An untried node, or one that failed and is tried again.
            if !tree[cur].applied || !tree[cur].passed {
                break;
            }
        }
        (path, cur)
    }

    /// Applies a picked leaf, then rolls out from it: each further step is the rollout policy's
    /// choice among the graph successors (index into them, as `expand` orders the children).
    /// Touches no tree: the nodes below a new leaf are all new, so the graph and the edge
    /// statistics of the batch's start are all a rollout needs.
    async fn rollout<E: SearchEnv>(
        &self,
        env: &E,
        edges: &EdgeStats,
        pick: &Pick<E::State>,
        cancel: &CancellationToken,
        started: Instant,
    ) -> Vec<(usize, StepResult<E::State>)> {
        let cfg = &self.config;
        let mut rng = pick.rng.clone();
        let mut techniques = pick.techniques.clone();
        let step = env
            .apply(&pick.from, &techniques, pick.technique, pick.allowance)
            .await;
        let mut used = step.llm_calls.min(pick.allowance);
        let mut state = step.state.clone().filter(|_| step.passed);
        let mut steps = vec![(0, step)];
        let (mut technique, mut depth) = (pick.technique, pick.depth);
        while let Some(from) = state.take() {
            if depth >= cfg.max_depth
                || used >= pick.allowance
                || cancel.is_cancelled()
                || cfg.deadline.is_some_and(|d| started.elapsed() >= d)
            {
                break;
            }
            let successors = self.graph.successors(technique);
            let Some(choice) =
                self.rollout_choice(&successors, edges, technique, &pick.favoured, &mut rng)
            else {
                break;
            };
            techniques.push(technique);
            technique = successors[choice].0;
            depth += 1;
            let left = pick.allowance - used;
            let step = env.apply(&from, &techniques, technique, left).await;
            used += step.llm_calls.min(left);
            state = step.state.clone().filter(|_| step.passed);
            steps.push((choice, step));
        }
        steps
    }

    fn is_terminal<S>(&self, node: &Node<S>) -> bool {
        node.depth >= self.config.max_depth
    }

    fn expand<S>(&self, tree: &mut Vec<Node<S>>, id: usize) {
        let depth = tree[id].depth + 1;
        for (technique, prior) in self.graph.successors(tree[id].technique) {
            let child = tree.len();
            tree.push(Node::new(technique, Some(id), prior, depth));
            tree[id].children.push(child);
        }
        tree[id].expanded = true;
    }

    /// P-UCB over tried children; an untried child (highest prior first) goes before any of them.
    fn select_child<S>(&self, tree: &[Node<S>], id: usize) -> Option<usize> {
        let children = &tree[id].children;
        let favoured = favoured_at(tree, id);
        let first = |c: usize| tree[c].prior + self.boost(favoured, tree[c].technique);
        let untried = children
            .iter()
            .copied()
            .filter(|&c| tree[c].visits == 0)
            .max_by(|&a, &b| first(a).total_cmp(&first(b)).then(b.cmp(&a)));
        if untried.is_some() {
            return untried;
        }
        let parent_visits = f64::from(tree[id].visits.max(1));
        children.iter().copied().max_by(|&a, &b| {
            let ucb = |c: usize| {
                tree[c].q()
                    + self.config.exploration
                        * (2.0 * parent_visits.ln() / f64::from(tree[c].visits)).sqrt()
            };
            ucb(a).total_cmp(&ucb(b)).then(b.cmp(&a))
        })
    }

    /// The rollout policy over `successors`: argmax `Q(s,a) - λN(s,a)` with probability 1-ε, else
    /// uniform.
    fn rollout_choice(
        &self,
        successors: &[(TechniqueId, f64)],
        edges: &EdgeStats,
        from: TechniqueId,
        favoured: &[String],
        rng: &mut ChaCha8Rng,
    ) -> Option<usize> {
        if successors.is_empty() {
            return None;
        }
        if rng.random::<f64>() < self.config.epsilon {
            return Some(rng.random_range(0..successors.len()));
        }
        (0..successors.len()).max_by(|&a, &b| {
            let s = |i: usize| {
                let (to, prior) = successors[i];
                let prior = prior + self.boost(favoured, to);
                edges.score(from, to, prior, self.config.visit_penalty)
            };
            s(a).total_cmp(&s(b)).then(b.cmp(&a))
        })
    }
}

impl<G: TechniqueGraph> Mcgs<'_, G> {
    /// How far a profile moves a technique up: past any graph prior (priors are in [0, 1]), the
    /// profile's own order kept.
    fn boost(&self, favoured: &[String], technique: TechniqueId) -> f64 {
        let name = self.graph.name(technique);
        favoured
            .iter()
            .position(|f| *f == name)
            .map_or(0.0, |rank| PROFILE_BOOST - 0.05 * rank as f64)
    }
}

/// See [`Mcgs::boost`].
const PROFILE_BOOST: f64 = 1.0;

/// What the profile of the nearest profiled kernel at or above `id` favours (a kernel below
/// another is a rewrite of it: the diagnosis holds until its own profile).
fn favoured_at<S>(tree: &[Node<S>], id: usize) -> &[String] {
    let mut cur = Some(id);
    while let Some(c) = cur {
        if let Some(f) = &tree[c].favoured {
            return f;
        }
        cur = tree[c].parent;
    }
    &[]
}

/// Selection pushes this much loss on each node of a path whose rollout is in flight.
const VIRTUAL_LOSS: f64 = 1.0;

/// A leaf picked for a rollout, with what the rollout needs from the tree at that moment.
struct Pick<S> {
    path: Vec<usize>,
    leaf: usize,
    technique: TechniqueId,
    depth: usize,
    /// Techniques from the root to the leaf's parent.
    techniques: Vec<TechniqueId>,
    /// The parent's code.
    from: S,
    /// Model calls this rollout may spend: its share of what the budget has left.
    allowance: usize,
    rng: ChaCha8Rng,
    /// What the nearest profile above the leaf favours (for the rollout's choices).
    favoured: Vec<String>,
}

/// The failed node tried least (by model calls; the higher prior, then the older, on ties) whose
/// parent passed, not already picked.
fn retry_candidate<S>(tree: &[Node<S>], picks: &[Pick<S>]) -> Option<usize> {
    (1..tree.len())
        .filter(|&id| tree[id].applied && !tree[id].passed)
        .filter(|&id| tree[id].parent.is_some_and(|p| tree[p].passed))
        .filter(|&id| !picks.iter().any(|p| p.leaf == id))
        .min_by(|&a, &b| {
            tree[a]
                .llm_calls
                .cmp(&tree[b].llm_calls)
                .then(tree[b].prior.total_cmp(&tree[a].prior))
                .then(a.cmp(&b))
        })
}

/// Node ids below the root down to `id`.
fn chain_of<S>(tree: &[Node<S>], id: usize) -> Vec<usize> {
    let mut chain = Vec::new();
    let mut cur = Some(id);
    while let Some(c) = cur.filter(|&c| c != 0) {
        chain.push(c);
        cur = tree[c].parent;
    }
    chain.reverse();
    chain
}

/// Techniques from the root to `id`, the root's `INIT` first.
fn techniques_to<S>(tree: &[Node<S>], id: usize) -> Vec<TechniqueId> {
    let mut techniques = Vec::new();
    let mut cur = Some(id);
    while let Some(c) = cur {
        techniques.push(tree[c].technique);
        cur = tree[c].parent;
    }
    techniques.reverse();
    techniques
}

/// Writes a step's result into its node (a node tried again keeps the calls of every try);
/// returns the node's reward (`None` when nothing judged the step: the node stays untried) and
/// the model calls counted.
fn record<S>(node: &mut Node<S>, step: StepResult<S>, calls_left: usize) -> (Option<f64>, usize) {
    let spent = step.llm_calls.min(calls_left);
    node.llm_calls += spent;
    node.note = step.note;
    if !step.judged {
        return (None, spent);
    }
    node.applied = true;
    node.credited = step.credited;
    node.passed = step.passed && step.state.is_some();
    node.reward = Some(if node.passed { step.reward } else { -1.0 });
    node.state = step.state;
    (node.reward, spent)
}

/// The passed node with the highest reward (the earliest on ties): the search's answer. The root
/// is one when it was a verified kernel (it has a reward), never as the serial code.
pub(crate) fn best_in(nodes: &[TraceNode]) -> Option<usize> {
    nodes
        .iter()
        .filter(|n| n.passed && n.reward.is_some())
        .max_by(|a, b| {
            a.reward
                .unwrap_or(-1.0)
                .total_cmp(&b.reward.unwrap_or(-1.0))
                .then(b.id.cmp(&a.id))
        })
        .map(|n| n.id)
}

/// Node ids from the first technique (init excluded) down to `id`.
pub(crate) fn chain_to(nodes: &[TraceNode], id: usize) -> Vec<usize> {
    let mut chain = Vec::new();
    let mut cur = Some(id);
    while let Some(c) = cur.filter(|&c| c != 0) {
        chain.push(c);
        cur = nodes[c].parent;
    }
    chain.reverse();
    chain
}

/// The best candidate of a finished search, with the path that led to it.
pub(crate) fn best_candidate<S>(
    nodes: &[TraceNode],
    state_of: impl Fn(usize) -> Option<S>,
) -> Option<Best<S>> {
    let id = best_in(nodes)?;
    let chain = chain_to(nodes, id);
    Some(Best {
        node: id,
        state: state_of(id).expect("a passed node has a state"),
        reward: nodes[id].reward.unwrap_or(-1.0),
        // Only what the code did: a step that did not apply its technique is no step of the path.
        path: chain
            .iter()
            .filter(|&&c| nodes[c].credited)
            .map(|&c| nodes[c].technique_name.clone())
            .collect(),
        step_rewards: chain
            .iter()
            .filter(|&&c| nodes[c].credited)
            .map(|&c| nodes[c].reward.unwrap_or(-1.0))
            .collect(),
    })
}

#[cfg(test)]
mod tests;
