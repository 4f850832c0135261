//! Re-records tests/cassettes/qwen2.5-coder-0.5b.jsonl from the real model (a tool, not a test:
//! `cargo test --test llm_record -- --ignored`). Run it after changing a prompt template.

mod support;

use std::sync::Arc;

use cuda_offload::llm::replay::{Cassette, Recorder};
use cuda_offload::llm::{BackendConfig, BackendKind, CallControl, ChatModel, openai::OpenAiChat};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "re-records the committed cassette from a real llama-server"]
async fn record_cassette() {
    let Some(llama) = tokio::task::spawn_blocking(support::llama::start).await.unwrap() else {
        return;
    };
    let path = support::cassette_path();
    let _ = std::fs::remove_file(&path);
    let real: Arc<dyn ChatModel> = Arc::new(
        OpenAiChat::new(&BackendConfig::new(BackendKind::Openai, llama.v1(), support::MODEL)).unwrap(),
    );
    let recorder = Recorder::create(real, &path, &llama.build_info()).unwrap();
    let requests = support::fixtures::recorded_requests();
    for (name, request) in &requests {
        let started = std::time::Instant::now();
        let r = recorder.chat(request, &CallControl::default()).await.unwrap();
        eprintln!(
            "{name}: {} prompt + {} completion tokens, {:?}, {:.1}s",
            r.prompt_tokens,
            r.completion_tokens,
            r.finish,
            started.elapsed().as_secs_f64()
        );
    }
    let cassette = Cassette::load(&path).unwrap();
    assert_eq!(cassette.entries.len(), requests.len());
}
