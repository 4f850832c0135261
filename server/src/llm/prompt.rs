//! Prompts, rendered from the template files in `server/prompts/` (compiled in).
//!
//! Templates hold `{{name}}` placeholders; each prompt is a typed struct that supplies exactly the
//! values its template uses (the tests check that every template is fully rendered). Prompts stay
//! short: small models run with 4–16k tokens of context, and the answer needs room too.

use crate::analysis::{Access, OffloadRegion, RegionParam};

use super::{ChatRequest, Message};

const SYSTEM: &str = include_str!("../../prompts/system.txt");
const CONTRACT: &str = include_str!("../../prompts/contract.txt");
const TECHNIQUE_STEP: &str = include_str!("../../prompts/technique_step.txt");
const EXAMPLE: &str = include_str!("../../prompts/example.txt");
const REPAIR: &str = include_str!("../../prompts/repair.txt");
const STANDARD: &str = include_str!("../../prompts/standard.txt");
const COT: &str = include_str!("../../prompts/cot.txt");

/// At most this many edge examples go into a technique prompt.
pub const MAX_EXAMPLES: usize = 3;
/// Examples are dropped (last first) while the prompt is longer than this (about 3k tokens).
pub const PROMPT_CHAR_BUDGET: usize = 10_000;
/// Compiler and test output is cut to its head; the first errors are the useful ones.
const ERROR_LINES: usize = 30;
const ERROR_CHARS: usize = 2_500;

/// One before/after pair from a graph edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TechniqueExample {
    pub before: String,
    pub after: String,
}

/// Apply one technique of the graph to the current code.
#[derive(Debug, Clone)]
pub struct TechniqueStep<'a> {
    pub region: &'a OffloadRegion,
    pub technique: &'a str,
    pub description: &'a str,
    /// 1–3 examples of the edge; more are ignored.
    pub examples: &'a [TechniqueExample],
    /// The current kernel, or the serial reference at the root.
    pub code: &'a str,
}

/// Which check the previous code failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    Compile,
    Test,
    /// The answer could not be used (no code, no entry point).
    Answer,
}

/// Fix the previous code, given the compiler or test error.
#[derive(Debug, Clone)]
pub struct Repair<'a> {
    pub region: &'a OffloadRegion,
    pub code: &'a str,
    pub failure: Failure,
    pub error: &'a str,
}

/// The one-shot baselines of the paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Baseline {
    Standard,
    ChainOfThought,
}

impl TechniqueStep<'_> {
    pub fn messages(&self) -> Vec<Message> {
        let contract = contract(self.region);
        let mut shown = self.examples.len().min(MAX_EXAMPLES);
        loop {
            let examples: String = self.examples[..shown]
                .iter()
                .enumerate()
                .map(|(i, ex)| {
                    render(
                        EXAMPLE,
                        &[
                            ("number", &(i + 1).to_string()),
                            ("technique", self.technique),
                            ("before", ex.before.trim_end()),
                            ("after", ex.after.trim_end()),
                        ],
                    )
                })
                .collect();
            let user = render(
                TECHNIQUE_STEP,
                &[
                    ("technique", self.technique),
                    ("description", self.description.trim()),
                    ("examples", &examples),
                    ("code", self.code.trim_end()),
                    ("contract", &contract),
                ],
            );
            if user.len() <= PROMPT_CHAR_BUDGET || shown == 0 {
                return with_system(user);
            }
            shown -= 1;
        }
    }
}

impl Repair<'_> {
    pub fn messages(&self) -> Vec<Message> {
        let (failure, stage) = match self.failure {
            Failure::Compile => ("it does not compile", "Compiler"),
            Failure::Test => ("its results differ from the serial code", "Test"),
            Failure::Answer => ("it is not usable as an answer", "Checker"),
        };
        with_system(render(
            REPAIR,
            &[
                ("name", &self.region.name),
                ("failure", failure),
                ("code", self.code.trim_end()),
                ("stage", stage),
                ("error", &head(self.error)),
                ("contract", &contract(self.region)),
            ],
        ))
    }
}

impl Baseline {
    pub fn messages(self, region: &OffloadRegion) -> Vec<Message> {
        let template = match self {
            Baseline::Standard => STANDARD,
            Baseline::ChainOfThought => COT,
        };
        with_system(render(
            template,
            &[
                ("code", &serial_code(region)),
                ("contract", &contract(region)),
            ],
        ))
    }
}

/// Temperature of a retry: greedy decoding repeats the answer that just failed.
pub const RETRY_TEMPERATURE: f32 = 0.7;

/// The request of a retry (a repair, or a technique applied again to a node that failed):
/// sampled at `temperature` (at least [`RETRY_TEMPERATURE`]) with a seed of its own.
pub fn retry_request(
    messages: Vec<Message>,
    seed: u64,
    retry: u64,
    max_tokens: u32,
    temperature: f32,
) -> ChatRequest {
    ChatRequest {
        temperature: temperature.max(RETRY_TEMPERATURE),
        // A different, reproducible seed per retry (splitmix64's increment spreads them).
        seed: seed.wrapping_add(retry.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        ..request(messages, seed, max_tokens)
    }
}

/// A request with the defaults the search uses (temperature 0, given seed and token limit).
pub fn request(messages: Vec<Message>, seed: u64, max_tokens: u32) -> ChatRequest {
    ChatRequest {
        messages,
        temperature: 0.0,
        seed,
        max_tokens,
    }
}

fn with_system(user: String) -> Vec<Message> {
    vec![Message::system(SYSTEM.trim_end()), Message::user(user)]
}

/// The serial reference as the model sees it: includes, then the function.
fn serial_code(region: &OffloadRegion) -> String {
    let mut code = String::new();
    for include in &region.includes {
        code.push_str(include.trim());
        code.push('\n');
    }
    // The structs the parameters are made of (and what they name), defined once for all.
    code.push_str(&region.types.definitions);
    code.push_str(region.source.trim_end());
    code
}

fn contract(region: &OffloadRegion) -> String {
    let params: Vec<String> = region.params.iter().map(describe_param).collect();
    render(
        CONTRACT,
        &[
            (
                "gpu_signature",
                &format!("{};", region.signature_named(&region.gpu_entry_name())),
            ),
            ("params", &params.join("\n")),
            ("name", &region.name),
        ],
    )
    .trim_end()
    .to_string()
}

fn describe_param(p: &RegionParam) -> String {
    let mut line = if p.is_array {
        let extent = p.extent.as_deref().unwrap_or("?");
        let role = match p.access {
            Access::Read => "read only",
            Access::Write => "written",
            Access::ReadWrite => "read and written",
        };
        if extent == "1" && p.access != Access::Read {
            format!(
                "- {} {}: device pointer to one {}, {role}",
                p.elem_type, p.name, p.elem_type
            )
        } else {
            format!(
                "- {}* {}: device array of {extent} elements, {role}",
                p.elem_type, p.name
            )
        }
    } else if p.is_size {
        format!(
            "- {} {}: a size (any value >= 0, often not a multiple of the block size)",
            p.elem_type, p.name
        )
    } else {
        format!("- {} {}: a value", p.elem_type, p.name)
    };
    if let Some(spec) = &p.input {
        let mut notes = Vec::new();
        match (&spec.min, &spec.max) {
            (Some(lo), Some(hi)) => notes.push(format!("values in [{lo}, {hi}]")),
            (Some(lo), None) => notes.push(format!("values >= {lo}")),
            (None, Some(hi)) => notes.push(format!("values <= {hi}")),
            (None, None) => {}
        }
        if spec.sorted {
            notes.push("sorted".into());
        }
        if spec.permutation {
            notes.push("a permutation, no repeated values".into());
        }
        if !notes.is_empty() {
            line.push_str(&format!(" ({})", notes.join(", ")));
        }
    }
    line
}

/// The first lines of a long error.
fn head(error: &str) -> String {
    let mut out: String = error
        .trim()
        .lines()
        .take(ERROR_LINES)
        .collect::<Vec<_>>()
        .join("\n");
    if out.len() > ERROR_CHARS {
        let mut cut = ERROR_CHARS;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
    }
    if out.len() < error.trim().len() {
        out.push_str("\n[...]");
    }
    out
}

/// Replaces each `{{name}}` with its value. Values are inserted verbatim (never re-scanned), so
/// code that happens to contain `{{` cannot inject placeholders.
fn render(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 256);
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        match after.find("}}") {
            Some(close) => {
                let name = after[..close].trim();
                match values.iter().find(|(n, _)| *n == name) {
                    Some((_, v)) => out.push_str(v),
                    None => out.push_str(&rest[open..open + 2 + close + 2]),
                }
                rest = &after[close + 2..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The placeholder names a template uses, in order.
#[cfg(test)]
fn placeholders(template: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else { break };
        names.push(after[..close].trim().to_string());
        rest = &after[close + 2..];
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_are_sampled_each_with_a_seed_of_its_own() {
        let m = || vec![Message::user("x")];
        let first = request(m(), 7, 100);
        assert_eq!(first.temperature, 0.0);
        let seeds: Vec<u64> = (1..5)
            .map(|r| {
                let q = retry_request(m(), 7, r, 100, 0.0);
                assert!(q.temperature >= RETRY_TEMPERATURE);
                q.seed
            })
            .collect();
        let mut unique = seeds.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), seeds.len());
        assert!(!seeds.contains(&7));
        assert_eq!(
            retry_request(m(), 7, 2, 100, 0.0).seed,
            seeds[1],
            "reproducible"
        );
        assert_eq!(retry_request(m(), 7, 1, 100, 1.2).temperature, 1.2);
    }
    use crate::analysis::{InputSpec, LoopKind, WorkEstimate};

    fn param(
        name: &str,
        ty: &str,
        array: bool,
        access: Access,
        extent: Option<&str>,
        size: bool,
    ) -> RegionParam {
        RegionParam {
            name: name.into(),
            elem_type: ty.into(),
            is_array: array,
            access,
            extent: extent.map(Into::into),
            is_size: size,
            input: None,
            call_arg: None,
            range_of: None,
        }
    }

    fn histogram() -> OffloadRegion {
        let mut data = param("data", "int", true, Access::Read, Some("n"), false);
        data.input = Some(InputSpec {
            min: Some("0".into()),
            max: Some("nbins-1".into()),
            ..InputSpec::default()
        });
        OffloadRegion {
            name: "histogram".into(),
            params: vec![
                param("n", "int", false, Access::Read, None, true),
                param("nbins", "int", false, Access::Read, None, true),
                data,
                param("bins", "int", true, Access::ReadWrite, Some("nbins"), false),
            ],
            source: "void histogram(int n, int nbins, const int* data, int* bins) {\n    for (int i = 0; i < n; ++i) {\n        bins[data[i]]++;\n    }\n}\n".into(),
            includes: vec![],
            kind: LoopKind::Histogram,
            whole_function: true,
            line: 7,
            end_line: 9,
            sizes: None,
            work: WorkEstimate {
                iterations: "n".into(),
                ops_per_iteration: 1.0,
                bytes_per_iteration: 8.0,
            },
            types: Default::default(),
        }
    }

    fn assert_rendered(messages: &[Message]) {
        for m in messages {
            assert!(
                !m.content.contains("{{"),
                "unrendered placeholder in:\n{}",
                m.content
            );
        }
    }

    #[test]
    fn every_template_placeholder_is_supplied() {
        let region = histogram();
        let examples = vec![TechniqueExample {
            before: "__global__ void k(float* y) { y[threadIdx.x] = 0; }".into(),
            after: "__global__ void k(float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 0; }".into(),
        }];
        let step = TechniqueStep {
            region: &region,
            technique: "shared memory privatization",
            description: "Each block accumulates into its own copy in shared memory, then merges.",
            examples: &examples,
            code: &region.source,
        }
        .messages();
        assert_rendered(&step);
        let user = &step[1].content;
        assert!(user.contains("void histogram_gpu(int n, int nbins, const int* data, int* bins);"));
        assert!(
            user.contains(
                "int* data: device array of n elements, read only (values in [0, nbins-1])"
            )
        );
        assert!(user.contains("Example 1 of \"shared memory privatization\""));
        let repair = Repair {
            region: &region,
            code: "__global__ void k() {}",
            failure: Failure::Compile,
            error: "k.cu(3): error: expected a \";\"",
        }
        .messages();
        assert_rendered(&repair);
        assert!(repair[1].content.contains("Compiler output:"));
        for b in [Baseline::Standard, Baseline::ChainOfThought] {
            let m = b.messages(&region);
            assert_rendered(&m);
            assert!(m[1].content.contains("bins[data[i]]++"));
        }
        // Each placeholder of each template is one the typed prompts supply.
        for (t, known) in [
            (
                TECHNIQUE_STEP,
                &["technique", "description", "examples", "code", "contract"][..],
            ),
            (EXAMPLE, &["number", "technique", "before", "after"][..]),
            (
                REPAIR,
                &["name", "failure", "code", "stage", "error", "contract"][..],
            ),
            (STANDARD, &["code", "contract"][..]),
            (COT, &["code", "contract"][..]),
            (CONTRACT, &["gpu_signature", "params", "name"][..]),
        ] {
            for p in placeholders(t) {
                assert!(known.contains(&p.as_str()), "unknown placeholder {p}");
            }
        }
    }

    #[test]
    fn long_prompts_drop_examples_and_long_errors_are_cut() {
        let region = histogram();
        let big = "x[i] = y[i];\n".repeat(400);
        let examples = vec![
            TechniqueExample {
                before: big.clone(),
                after: big.clone()
            };
            5
        ];
        let m = TechniqueStep {
            region: &region,
            technique: "t",
            description: "d",
            examples: &examples,
            code: &region.source,
        }
        .messages();
        assert!(!m[1].content.contains("Example 1"));
        let error = "error line\n".repeat(100);
        let m = Repair {
            region: &region,
            code: "c",
            failure: Failure::Test,
            error: &error,
        }
        .messages();
        assert_eq!(m[1].content.matches("error line").count(), ERROR_LINES);
        assert!(m[1].content.contains("[...]"));
    }

    #[test]
    fn values_are_not_rescanned() {
        assert_eq!(render("a {{x}} b", &[("x", "{{x}}")]), "a {{x}} b");
        assert_eq!(render("{{unknown}} {{x", &[]), "{{unknown}} {{x");
    }
}
