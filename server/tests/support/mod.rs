//! Test support for the llm tests: a real llama-server (started here or named by
//! CUDA_OFFLOAD_TEST_LLAMA_URL), a test-only Ollama adapter in front of it, a minimal HTTP server for
//! fault injection, and the hand-written saxpy/histogram regions the cassettes were recorded for.
#![allow(dead_code)]

pub mod fixtures;
pub mod http;
pub mod llama;
pub mod ollama_adapter;

/// The model the live tests and cassettes use, as our backends name it (llama-server ignores it).
pub const MODEL: &str = "qwen2.5-coder-0.5b-instruct-q4_k_m";

/// The larger model, recorded for the answer shapes the 0.5B one never produces.
pub const MODEL_1_5B: &str = "qwen2.5-coder-1.5b-instruct-q4_k_m";

pub fn cassette_1_5b_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cassettes/qwen2.5-coder-1.5b.jsonl")
}

/// The committed cassette of real answers of [`MODEL`].
pub fn cassette_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cassettes/qwen2.5-coder-0.5b.jsonl")
}

/// A live test that cannot run here says so (and is counted as skipped), and fails where live tests
/// are required (CUDA_OFFLOAD_REQUIRE_LIVE=1) or CI installed the toolchain.
pub fn skip(reason: &str) {
    cuda_offload::testing::skip_live(reason);
}
