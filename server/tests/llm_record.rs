//! Records into tests/cassettes/qwen2.5-coder-0.5b.jsonl what it lacks, from the real model (a tool,
//! not a test: `cargo test --test llm_record -- --ignored`). Run it after changing a prompt
//! template; CUDA_OFFLOAD_RERECORD=1 starts the cassette over.

mod support;

use std::sync::Arc;

use cuda_offload::llm::replay::{Cassette, Recorder, request_key};
use cuda_offload::llm::{BackendConfig, BackendKind, CallControl, ChatModel, openai::OpenAiChat};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "re-records the committed cassette from a real llama-server"]
async fn record_cassette() {
    let Some(llama) = tokio::task::spawn_blocking(support::llama::start)
        .await
        .unwrap()
    else {
        return;
    };
    let path = support::cassette_path();
    if std::env::var("CUDA_OFFLOAD_RERECORD").as_deref() == Ok("1") {
        let _ = std::fs::remove_file(&path);
    }
    let mut config = BackendConfig::new(BackendKind::Openai, llama.v1(), support::MODEL);
    // Two cores shared with compilers: generation can drop below 1 token/s.
    config.timeouts.total = std::time::Duration::from_secs(1800);
    let real: Arc<dyn ChatModel> = Arc::new(OpenAiChat::new(&config).unwrap());
    let recorder = Recorder::create(real, &path, &llama.build_info()).unwrap();
    let requests = support::fixtures::recorded_requests();
    for (name, request) in &requests {
        let started = std::time::Instant::now();
        let r = recorder
            .chat(request, &CallControl::default())
            .await
            .unwrap();
        eprintln!(
            "{name}: {} prompt + {} completion tokens, {:?}, {:.1}s",
            r.prompt_tokens,
            r.completion_tokens,
            r.finish,
            started.elapsed().as_secs_f64()
        );
    }
    let mut keys: Vec<String> = requests
        .iter()
        .map(|(_, r)| request_key(support::MODEL, r))
        .collect();
    for region in [support::fixtures::saxpy(), support::fixtures::histogram()] {
        let steps = support::fixtures::answer_repair_chain(&recorder, &region)
            .await
            .unwrap();
        for (i, s) in steps.iter().enumerate() {
            eprintln!(
                "{} chain step {i}: {:?}",
                region.name,
                s.parsed.as_ref().map(|e| e.merged)
            );
            keys.push(request_key(support::MODEL, &s.request));
        }
    }
    // Every call is in the cassette (a repeated prompt is recorded once).
    let cassette = Cassette::load(&path).unwrap();
    for key in keys {
        assert!(
            cassette.entries.iter().any(|e| e.key == key),
            "{key} not recorded"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "records tests/cassettes/qwen2.5-coder-1.5b.jsonl from a real llama-server"]
async fn record_cassette_1_5b() {
    let Some(llama) = tokio::task::spawn_blocking(|| {
        support::llama::start_model("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    })
    .await
    .unwrap() else {
        return;
    };
    let path = support::cassette_1_5b_path();
    let mut config = BackendConfig::new(BackendKind::Openai, llama.v1(), support::MODEL_1_5B);
    config.timeouts.total = std::time::Duration::from_secs(3600);
    let real: Arc<dyn ChatModel> = Arc::new(OpenAiChat::new(&config).unwrap());
    let recorder = Recorder::create(real, &path, &llama.build_info()).unwrap();
    let requests = support::fixtures::recorded_requests_1_5b();
    for (name, request) in &requests {
        let started = std::time::Instant::now();
        let r = recorder
            .chat(request, &CallControl::default())
            .await
            .unwrap();
        eprintln!(
            "{name}: {} + {} tokens, {:?}, {:.1}s",
            r.prompt_tokens,
            r.completion_tokens,
            r.finish,
            started.elapsed().as_secs_f64()
        );
    }
    assert_eq!(Cassette::load(&path).unwrap().entries.len(), requests.len());
}
