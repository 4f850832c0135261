//! The replay backend against the committed cassette of real Qwen2.5-Coder-0.5B answers: every
//! recorded prompt still renders to its recorded key, answers parse as they did, recording
//! round-trips, and a recorded standard → repair chain replays exactly.

mod support;

use std::sync::Arc;

use cuda_offload::config::{Settings, SettingsLayer};
use cuda_offload::llm::answer::{AnswerError, extract_kernel};
use cuda_offload::llm::replay::{Cassette, Recorder, Replay, request_key};
use cuda_offload::llm::{
    BackendKind, CallControl, ChatModel, ChatRequest, LlmError, Message, connect,
};
use support::fixtures::{answer_repair_chain, histogram, recorded_requests, saxpy};

fn replay() -> Replay {
    Replay::open(&support::cassette_path()).expect("the committed cassette loads")
}

#[test]
fn the_cassette_names_model_server_and_date() {
    let cassette = Cassette::load(&support::cassette_path()).unwrap();
    assert_eq!(cassette.header.model, support::MODEL);
    assert!(
        cassette.header.server.starts_with("llama.cpp"),
        "{}",
        cassette.header.server
    );
    assert_eq!(cassette.header.date.len(), "2026-12-02".len());
}

#[tokio::test]
async fn every_recorded_prompt_still_has_its_recorded_key() {
    let model = replay();
    for (name, request) in recorded_requests() {
        let answer = model
            .chat(&request, &CallControl::default())
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!answer.text.is_empty(), "{name}");
        assert!(
            answer.prompt_tokens > 0 && answer.completion_tokens > 0,
            "{name}"
        );
    }
}

#[tokio::test]
async fn a_miss_names_the_key_and_the_cassette() {
    let model = replay();
    let request = ChatRequest::new(vec![Message::user("never recorded")]);
    let err = model
        .chat(&request, &CallControl::default())
        .await
        .unwrap_err();
    let key = request_key(support::MODEL, &request);
    assert!(matches!(err, LlmError::CassetteMiss { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains(&key) && text.contains("qwen2.5-coder-0.5b.jsonl"),
        "{text}"
    );
}

#[tokio::test]
async fn replay_is_reached_through_the_settings() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = support::cassette_path().display().to_string();
    let env = move |k: &str| match k {
        "CUDA_OFFLOAD_BACKEND" => Some("replay".to_string()),
        "CUDA_OFFLOAD_CASSETTE" => Some(cassette.clone()),
        _ => None,
    };
    let (settings, _) = Settings::load(dir.path(), env, &SettingsLayer::default()).unwrap();
    assert_eq!(settings.backend, BackendKind::Replay);
    let model = connect(&settings.backend_config()).unwrap();
    let (_, request) = recorded_requests().into_iter().next().unwrap();
    let direct = replay().lookup(&request).unwrap();
    assert_eq!(
        model.chat(&request, &CallControl::default()).await.unwrap(),
        direct
    );
}

#[tokio::test]
async fn recording_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.jsonl");
    let source: Arc<dyn ChatModel> = Arc::new(replay());
    let recorder =
        Recorder::create(source.clone(), &copy, "replay of the committed cassette").unwrap();
    for (_, request) in recorded_requests() {
        recorder
            .chat(&request, &CallControl::default())
            .await
            .unwrap();
    }
    let again = Replay::open(&copy).unwrap();
    assert_eq!(again.model(), support::MODEL);
    for (name, request) in recorded_requests() {
        assert_eq!(
            again.lookup(&request).unwrap(),
            source
                .chat(&request, &CallControl::default())
                .await
                .unwrap(),
            "{name}"
        );
    }
    // Appending to a cassette of another model is refused.
    let other = Arc::new(again);
    std::fs::write(
        dir.path().join("x.jsonl"),
        "{\"cassette\":1,\"model\":\"other\",\"server\":\"s\",\"date\":\"d\"}\n",
    )
    .unwrap();
    assert!(Recorder::create(other, &dir.path().join("x.jsonl"), "s").is_err());
}

/// What the parser makes of each recorded answer. The expectations were read off the recorded
/// answers (see the cassette): the 0.5B model often makes the entry point a `__global__` kernel,
/// sometimes forgets it, adds prose, `cpp` tags and a demo `main`.
#[derive(Debug)]
enum Parsed {
    /// Extracted: blocks in the answer, blocks merged, `main` dropped, names the code must define.
    Kernel(usize, usize, bool, &'static [&'static str]),
    EntryIsKernel,
    Missing(&'static [&'static str]),
    NoCode,
}

fn check(name: &str, entry: &str, text: &str, want: Parsed) {
    match (want, extract_kernel(text, entry)) {
        (Parsed::Kernel(blocks, merged, dropped_main, names), Ok(k)) => {
            assert_eq!(
                (k.blocks, k.merged, k.dropped_main),
                (blocks, merged, dropped_main),
                "{name}"
            );
            for n in names {
                assert!(
                    k.code.contains(&format!("{n}(")),
                    "{name}: {n} missing from\n{}",
                    k.code
                );
            }
            assert!(!k.code.contains("```"), "{name}");
            assert!(!k.code.contains("int main("), "{name}");
        }
        (Parsed::EntryIsKernel, Err(AnswerError::EntryIsKernel { entry: e })) => {
            assert_eq!(e, entry)
        }
        (Parsed::Missing(names), Err(AnswerError::MissingEntryPoint { found, .. })) => {
            assert_eq!(
                found,
                names.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                "{name}"
            );
        }
        (Parsed::NoCode, Err(AnswerError::NoCode)) => {}
        (want, got) => panic!("{name}: expected {want:?}, got {got:?}\n--- answer ---\n{text}"),
    }
}

fn expected(name: &str) -> Parsed {
    use Parsed::*;
    match name {
        "saxpy/standard" | "saxpy/cot" | "histogram/standard" | "histogram/cot" => EntryIsKernel,
        "saxpy/technique" | "saxpy/repair" => Kernel(1, 1, false, &["saxpy_kernel", "saxpy_gpu"]),
        "histogram/repair" => Kernel(1, 1, false, &["histogram_kernel", "histogram_gpu"]),
        "histogram/technique" => Missing(&["histogram_kernel"]),
        "shapes/saxpy-plain" => Missing(&["saxpy", "saxpy_test", "main"]),
        "shapes/saxpy-no-markdown" | "shapes/histogram-explained" => EntryIsKernel,
        "shapes/saxpy-two-blocks" => Missing(&["saxpy_kernel"]),
        "shapes/histogram-with-main" => Missing(&["histogram", "main"]),
        "shapes/saxpy-raw" => EntryIsKernel,
        other => panic!("no expectation for the recorded answer {other}"),
    }
}

#[tokio::test]
async fn recorded_answers_parse_as_expected() {
    let model = replay();
    for (name, request) in recorded_requests() {
        let entry = if name.contains("saxpy") {
            "saxpy_gpu"
        } else {
            "histogram_gpu"
        };
        let text = model.lookup(&request).unwrap().text;
        check(name, entry, &text, expected(name));
    }
}

#[tokio::test]
async fn a_recorded_repair_chain_replays_exactly() {
    let cassette = Cassette::load(&support::cassette_path()).unwrap();
    let model = replay();
    for region in [saxpy(), histogram()] {
        let first = answer_repair_chain(&model, &region).await.unwrap();
        let second = answer_repair_chain(&model, &region).await.unwrap();
        assert!(first.len() > 1, "{}: the chain has repairs", region.name);
        assert_eq!(first.len(), second.len());
        for (a, b) in first.iter().zip(&second) {
            assert_eq!(a.request, b.request);
            assert_eq!(a.response, b.response);
            assert_eq!(a.parsed, b.parsed);
            // Each step is a recorded call of the real model, not a fallback.
            let key = request_key(support::MODEL, &a.request);
            assert!(cassette.entries.iter().any(|e| e.key == key));
        }
        // The repair prompts carry the parser's complaint back to the model.
        if let Err(e) = &first[0].parsed {
            assert!(
                first[1].request.messages[1]
                    .content
                    .contains(&e.to_string())
            );
        }
    }
}

fn expected_1_5b(name: &str) -> Parsed {
    use Parsed::*;
    match name {
        "saxpy/standard" => EntryIsKernel,
        "shapes/saxpy-two-blocks" => NoCode,
        // Prose, a `c` tag, includes, kernel, launcher and a demo main in one block.
        "shapes/histogram-with-main" => Kernel(1, 1, true, &["histogram_kernel", "histogram_gpu"]),
        // Asked for raw code: fenced anyway, and the launcher is named after the serial function.
        "shapes/saxpy-raw" => Missing(&["saxpy_kernel", "saxpy"]),
        other => panic!("no expectation for the recorded 1.5B answer {other}"),
    }
}

#[tokio::test]
async fn recorded_answers_of_the_1_5b_model_parse_as_expected() {
    let model = Replay::open(&support::cassette_1_5b_path()).unwrap();
    assert_eq!(model.model(), support::MODEL_1_5B);
    for (name, request) in support::fixtures::recorded_requests_1_5b() {
        let entry = if name.contains("saxpy") {
            "saxpy_gpu"
        } else {
            "histogram_gpu"
        };
        let text = model
            .lookup(&request)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .text;
        check(name, entry, &text, expected_1_5b(name));
    }
}
