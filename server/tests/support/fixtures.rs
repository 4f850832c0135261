//! The saxpy and histogram regions of test-workspaces/, written by hand as analysis would outline
//! them, and the prompts the cassettes were recorded for.

use cuda_offload::analysis::{
    Access, InputSpec, LoopKind, OffloadRegion, RegionParam, WorkEstimate,
};
use cuda_offload::llm::prompt::{Baseline, Failure, Repair, TechniqueExample, TechniqueStep};
use cuda_offload::llm::{ChatRequest, Message, prompt};

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

pub fn saxpy() -> OffloadRegion {
    OffloadRegion {
        name: "saxpy".into(),
        params: vec![
            param("n", "int", false, Access::Read, None, true),
            param("a", "float", false, Access::Read, None, false),
            param("x", "float", true, Access::Read, Some("n"), false),
            param("y", "float", true, Access::ReadWrite, Some("n"), false),
        ],
        source: "void saxpy(int n, float a, const float* x, float* y) {\n    for (int i = 0; i < n; ++i) {\n        y[i] = a * x[i] + y[i];\n    }\n}\n".into(),
        includes: vec![],
        kind: LoopKind::Map,
        whole_function: true,
        line: 7,
        end_line: 9,
        sizes: None,
        work: WorkEstimate { iterations: "n".into(), ops_per_iteration: 2.0, bytes_per_iteration: 12.0 },
        types: Default::default(),
    }
}

pub fn histogram() -> OffloadRegion {
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
        work: WorkEstimate { iterations: "n".into(), ops_per_iteration: 1.0, bytes_per_iteration: 8.0 },
        types: Default::default(),
    }
}

/// The edge example shown with the first technique (init → one thread per element).
fn thread_per_element_example() -> TechniqueExample {
    TechniqueExample {
        before: "void scale(int n, float s, float* v) {\n    for (int i = 0; i < n; ++i) v[i] *= s;\n}".into(),
        after: "__global__ void scale_kernel(int n, float s, float* v) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) v[i] *= s;\n}\n\nvoid scale_gpu(int n, float s, float* v) {\n    scale_kernel<<<(n + 255) / 256, 256>>>(n, s, v);\n}".into(),
    }
}

fn privatization_example() -> TechniqueExample {
    TechniqueExample {
        before: "__global__ void count_kernel(int n, const int* key, int* count) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) atomicAdd(&count[key[i]], 1);\n}".into(),
        after: "__global__ void count_kernel(int n, const int* key, int* count) {\n    __shared__ int local[64];\n    for (int b = threadIdx.x; b < 64; b += blockDim.x) local[b] = 0;\n    __syncthreads();\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) atomicAdd(&local[key[i]], 1);\n    __syncthreads();\n    for (int b = threadIdx.x; b < 64; b += blockDim.x) atomicAdd(&count[b], local[b]);\n}".into(),
    }
}

/// A first CUDA version of histogram, as the thread-per-element step would produce.
pub const HISTOGRAM_NAIVE: &str = "__global__ void histogram_kernel(int n, const int* data, int* bins) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) atomicAdd(&bins[data[i]], 1);\n}\n\nvoid histogram_gpu(int n, int nbins, const int* data, int* bins) {\n    histogram_kernel<<<(n + 255) / 256, 256>>>(n, data, bins);\n}\n";

pub const SEED: u64 = 42;
pub const MAX_TOKENS: u32 = 512;

/// Every request the cassette holds, by a readable name.
pub fn recorded_requests() -> Vec<(&'static str, ChatRequest)> {
    let saxpy = saxpy();
    let histogram = histogram();
    let step_examples = [thread_per_element_example()];
    let private_examples = [privatization_example(), thread_per_element_example()];
    let req = |m| prompt::request(m, SEED, MAX_TOKENS);
    vec![
        ("saxpy/standard", req(Baseline::Standard.messages(&saxpy))),
        ("saxpy/cot", req(Baseline::ChainOfThought.messages(&saxpy))),
        (
            "saxpy/technique",
            req(TechniqueStep {
                region: &saxpy,
                technique: "thread per element",
                description: "Launch one GPU thread per loop iteration; guard the index against the size.",
                examples: &step_examples,
                code: &saxpy.source,
            }
            .messages()),
        ),
        (
            "saxpy/repair",
            req(Repair {
                region: &saxpy,
                code: include_str!("fixtures/saxpy_bad.cu"),
                failure: Failure::Compile,
                error: include_str!("fixtures/saxpy_bad.nvcc.txt"),
            }
            .messages()),
        ),
        ("histogram/standard", req(Baseline::Standard.messages(&histogram))),
        ("histogram/cot", req(Baseline::ChainOfThought.messages(&histogram))),
        (
            "histogram/technique",
            req(TechniqueStep {
                region: &histogram,
                technique: "shared memory privatization",
                description: "Each block counts into a private copy of the bins in shared memory, then adds it to the global bins with one atomic per bin.",
                examples: &private_examples,
                code: HISTOGRAM_NAIVE,
            }
            .messages()),
        ),
        // Answers in the shapes small models produce without our system prompt (prose, several
        // blocks, `cpp` tags, a demo main, no fences): the answer parser is tested on these.
        (
            "shapes/saxpy-plain",
            req(vec![Message::user(format!(
                "Convert this C++ function to CUDA. Write a kernel and a host function `void saxpy_gpu(int n, float a, const float* x, float* y)` (device pointers) that launches it, and a main that tests it.\n```cpp\n{}```",
                saxpy.source
            ))]),
        ),
        (
            "shapes/saxpy-no-markdown",
            req(vec![Message::user(format!(
                "Convert this C++ function to CUDA with a host function `void saxpy_gpu(int n, float a, const float* x, float* y)` that launches a kernel. Reply with raw source code only, no markdown, no code fences.\n{}",
                saxpy.source
            ))]),
        ),
        (
            "shapes/histogram-explained",
            req(vec![Message::user(format!(
                "Explain how to parallelize this histogram on a GPU, then give the CUDA code: a kernel using atomicAdd in one block and the host function `void histogram_gpu(int n, int nbins, const int* data, int* bins)` in another.\n{}",
                histogram.source
            ))]),
        ),
        (
            "shapes/saxpy-two-blocks",
            req(vec![Message::user(format!(
                "Port this function to CUDA. First give the kernel `saxpy_kernel` in one ```cuda code block, then, in a second ```cuda code block, the host function `void saxpy_gpu(int n, float a, const float* x, float* y)` (device pointers) that launches it. Explain each block in one sentence.\n{}",
                saxpy.source
            ))]),
        ),
        (
            "shapes/histogram-with-main",
            req(vec![Message::user(format!(
                "Write CUDA code for this function: a kernel using atomicAdd, the host function `void histogram_gpu(int n, int nbins, const int* data, int* bins)` (device pointers) that launches it, and a main() that allocates device memory and calls histogram_gpu.\n{}",
                histogram.source
            ))]),
        ),
        (
            "shapes/saxpy-raw",
            req(vec![
                Message::system("You output only raw C++/CUDA source code. Never use markdown and never use ``` fences."),
                Message::user(format!(
                    "A CUDA kernel and the host function `void saxpy_gpu(int n, float a, const float* x, float* y)` that launches it, for:\n{}",
                    saxpy.source
                )),
            ]),
        ),
        (
            "histogram/repair",
            req(Repair {
                region: &histogram,
                code: include_str!("fixtures/histogram_bad.cu"),
                failure: Failure::Compile,
                error: include_str!("fixtures/histogram_bad.nvcc.txt"),
            }
            .messages()),
        ),
    ]
}

/// One call of a recorded chain and what the parser made of its answer.
pub struct ChainStep {
    pub request: ChatRequest,
    pub response: cuda_offload::llm::ChatResponse,
    pub parsed:
        Result<cuda_offload::llm::answer::Extracted, cuda_offload::llm::answer::AnswerError>,
}

/// A miniature search: the standard prompt, then up to two repairs fed the parser's complaint.
/// The recorder runs it against the real model; replay tests run it again from the cassette.
pub async fn answer_repair_chain(
    model: &dyn cuda_offload::llm::ChatModel,
    region: &OffloadRegion,
) -> Result<Vec<ChainStep>, cuda_offload::llm::LlmError> {
    use cuda_offload::llm::answer::{code_of, extract_kernel};
    let control = cuda_offload::llm::CallControl::default();
    let entry = region.gpu_entry_name();
    let mut steps: Vec<ChainStep> = Vec::new();
    let mut request = prompt::request(Baseline::Standard.messages(region), SEED, MAX_TOKENS);
    for _ in 0..3 {
        let response = model.chat(&request, &control).await?;
        let parsed = extract_kernel(&response.text, &entry);
        let next = match &parsed {
            Ok(_) => None,
            Err(e) => Some(prompt::request(
                Repair {
                    region,
                    code: &code_of(&response.text),
                    failure: Failure::Answer,
                    error: &e.to_string(),
                }
                .messages(),
                SEED,
                MAX_TOKENS,
            )),
        };
        steps.push(ChainStep {
            request,
            response,
            parsed,
        });
        match next {
            Some(r) => request = r,
            None => break,
        }
    }
    Ok(steps)
}

/// The requests recorded from the 1.5B model: the answer shapes and the standard prompt.
pub fn recorded_requests_1_5b() -> Vec<(&'static str, ChatRequest)> {
    const WANTED: [&str; 4] = [
        "saxpy/standard",
        "shapes/saxpy-two-blocks",
        "shapes/histogram-with-main",
        "shapes/saxpy-raw",
    ];
    recorded_requests()
        .into_iter()
        .filter(|(name, _)| WANTED.contains(name))
        .collect()
}
