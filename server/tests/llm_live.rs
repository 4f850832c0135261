//! Both backends against a real model: llama-server with Qwen2.5-Coder-0.5B, directly (OpenAI
//! protocol) and through the test-only Ollama adapter (ollama-rs). Prints `SKIP:` without a server,
//! fails instead when CUDA_OFFLOAD_REQUIRE_LIVE=1.

mod support;

use std::time::Duration;

use cuda_offload::llm::{
    BackendConfig, BackendKind, CallControl, ChatRequest, LlmError, Message, connect,
};

fn short_request() -> ChatRequest {
    ChatRequest {
        messages: vec![
            Message::system("You are a CUDA expert. Answer with code only."),
            Message::user("Write a CUDA __global__ function that sets y[i] = 0 for i < n."),
        ],
        temperature: 0.0,
        seed: 1,
        max_tokens: 24,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_backends_answer_from_the_real_model() {
    let Some(llama) = tokio::task::spawn_blocking(support::llama::start)
        .await
        .unwrap()
    else {
        return;
    };
    let request = short_request();
    let control = CallControl::default();

    let openai = connect(&BackendConfig::new(
        BackendKind::Openai,
        llama.v1(),
        support::MODEL,
    ))
    .unwrap();
    let started = std::time::Instant::now();
    let a = openai.chat(&request, &control).await.unwrap();
    eprintln!(
        "openai: {} + {} tokens in {:.1}s: {:?}",
        a.prompt_tokens,
        a.completion_tokens,
        started.elapsed().as_secs_f64(),
        a.text
    );
    assert!(a.text.contains("__global__"), "{}", a.text);
    assert!(a.prompt_tokens > 10 && a.completion_tokens > 0 && a.completion_tokens <= 24);

    let ollama_name = "qwen2.5-coder:0.5b";
    let adapter = support::ollama_adapter::start(llama.v1(), vec![ollama_name.to_string()]).await;
    let mut config = BackendConfig::new(BackendKind::Ollama, adapter.server.url(), ollama_name);
    config.num_ctx = 4096;
    config.keep_alive = Duration::from_secs(600);
    let ollama = connect(&config).unwrap();
    let b = ollama.chat(&request, &control).await.unwrap();
    eprintln!(
        "ollama: {} + {} tokens: {:?}",
        b.prompt_tokens, b.completion_tokens, b.text
    );
    assert!(b.text.contains("__global__"), "{}", b.text);
    assert!(b.prompt_tokens > 10 && b.completion_tokens > 0);
    // Same model, same seed, temperature 0: the same answer by either protocol.
    assert_eq!(a.text, b.text);
    let chats = adapter.chats.lock().unwrap().clone();
    assert_eq!(chats.len(), 2, "one load request, then the chat: {chats:?}");
    assert_eq!(chats[0]["messages"].as_array().map(Vec::len), Some(0));
    assert_eq!(chats[1]["options"]["temperature"], 0.0);
    assert_eq!(chats[1]["options"]["seed"], 1);
    assert_eq!(chats[1]["options"]["num_ctx"], 4096);
    assert_eq!(chats[1]["options"]["num_predict"], 24);
    assert_eq!(chats[1]["keep_alive"], "600s");

    // A model the server lacks is named, with the command that fixes it.
    let missing = connect(&BackendConfig::new(
        BackendKind::Ollama,
        adapter.server.url(),
        "qwen2.5-coder:7b",
    ))
    .unwrap();
    let err = missing.chat(&request, &control).await.unwrap_err();
    assert!(matches!(err, LlmError::ModelMissing { .. }), "{err}");
    assert!(
        err.to_string().contains("ollama pull qwen2.5-coder:7b"),
        "{err}"
    );
}
