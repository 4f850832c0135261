//! Every way a model server can fail yields its own error, quickly, without hanging: local servers
//! that refuse, stall, drop the connection, answer 500 or garbage, or cut a stream short.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use cuda_offload::llm::{
    BackendConfig, BackendKind, CallControl, ChatModel, ChatRequest, LlmError, Message, Timeouts,
    connect,
};
use support::http::{TestServer, respond, send_event, serve, start_sse};
use tokio::io::AsyncWriteExt;

fn request() -> ChatRequest {
    ChatRequest::new(vec![Message::user("write a kernel")])
}

fn fast() -> Timeouts {
    Timeouts {
        connect: Duration::from_secs(1),
        first_token: Duration::from_millis(800),
        total: Duration::from_millis(800),
    }
}

fn openai(server: &TestServer) -> Arc<dyn ChatModel> {
    let mut c = BackendConfig::new(BackendKind::Openai, format!("{}/v1", server.url()), "m");
    c.timeouts = fast();
    connect(&c).unwrap()
}

fn ollama(server: &TestServer) -> Arc<dyn ChatModel> {
    let mut c = BackendConfig::new(BackendKind::Ollama, server.url(), "m:latest");
    c.timeouts = fast();
    connect(&c).unwrap()
}

async fn call(model: &Arc<dyn ChatModel>) -> (LlmError, Duration) {
    let started = Instant::now();
    let err = model
        .chat(&request(), &CallControl::default())
        .await
        .expect_err("the fault must be an error");
    (err, started.elapsed())
}

const TAGS: &str = r#"{"models":[{"name":"m:latest","modified_at":"","size":0}]}"#;
const LOADED: &str = r#"{"model":"m:latest","created_at":"","message":{"role":"assistant","content":""},"done":true}"#;

/// An Ollama that lists the model and loads it, then answers chats with `chat`.
async fn ollama_with<F, Fut>(chat: F) -> TestServer
where
    F: Fn(tokio::net::TcpStream) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let chat = Arc::new(chat);
    serve(move |req, stream| {
        let chat = chat.clone();
        async move {
            match req.path.as_str() {
                "/api/tags" => respond(stream, 200, "application/json", TAGS.as_bytes()).await,
                "/api/chat" if req.json()["messages"].as_array().is_some_and(Vec::is_empty) => {
                    respond(stream, 200, "application/json", LOADED.as_bytes()).await
                }
                _ => chat(stream).await,
            }
        }
    })
    .await
}

#[tokio::test]
async fn nothing_listening_is_server_down_with_a_hint() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    for (kind, url) in [
        (BackendKind::Openai, format!("http://127.0.0.1:{port}/v1")),
        (BackendKind::Ollama, format!("http://127.0.0.1:{port}")),
    ] {
        let mut c = BackendConfig::new(kind, url, "qwen2.5-coder:7b");
        c.timeouts = fast();
        let (err, took) = call(&connect(&c).unwrap()).await;
        assert!(matches!(err, LlmError::ServerDown { .. }), "{err}");
        let text = err.to_string();
        assert!(text.contains("not reachable"), "{text}");
        if kind == BackendKind::Ollama {
            assert!(text.contains("ollama serve"), "{text}");
        }
        assert!(took < Duration::from_secs(5), "{took:?}");
    }
}

#[tokio::test]
async fn a_stalled_server_hits_the_first_token_timeout() {
    let server = serve(|_req, stream| async move {
        tokio::time::sleep(Duration::from_secs(60)).await;
        drop(stream);
    })
    .await;
    let (err, took) = call(&openai(&server)).await;
    assert!(matches!(err, LlmError::FirstTokenTimeout { .. }), "{err}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert_eq!(server.hits(), 1, "a timeout is not retried");
}

#[tokio::test]
async fn a_stream_that_stalls_after_the_first_token_hits_the_total_timeout() {
    let server = serve(|_req, mut stream| async move {
        start_sse(&mut stream).await;
        send_event(
            &mut stream,
            r#"{"choices":[{"delta":{"content":"__global__"},"finish_reason":null}]}"#,
        )
        .await;
        tokio::time::sleep(Duration::from_secs(60)).await;
    })
    .await;
    let (err, took) = call(&openai(&server)).await;
    assert!(matches!(err, LlmError::Timeout { .. }), "{err}");
    assert!(took < Duration::from_secs(3), "{took:?}");
}

#[tokio::test]
async fn a_dropped_connection_is_retried_then_reported() {
    let server = serve(|_req, stream| async move { drop(stream) }).await;
    let (err, took) = call(&openai(&server)).await;
    assert!(matches!(err, LlmError::ServerDown { .. }), "{err}");
    assert_eq!(
        server.hits(),
        3,
        "connection errors are retried (3 attempts)"
    );
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[tokio::test]
async fn http_500_is_reported_once_with_its_body() {
    let server = serve(|_req, stream| async move {
        respond(
            stream,
            500,
            "application/json",
            br#"{"error":{"message":"boom"}}"#,
        )
        .await
    })
    .await;
    let (err, _) = call(&openai(&server)).await;
    match &err {
        LlmError::Http { status, body, .. } => {
            assert_eq!(*status, 500);
            assert!(body.contains("boom"), "{body}");
        }
        other => panic!("expected Http, got {other}"),
    }
    assert_eq!(server.hits(), 1, "HTTP errors are not retried");
}

#[tokio::test]
async fn garbage_is_reported_as_garbage() {
    let sse = serve(|_req, mut stream| async move {
        start_sse(&mut stream).await;
        send_event(&mut stream, "<html>proxy error</html>").await;
    })
    .await;
    let (err, _) = call(&openai(&sse)).await;
    assert!(matches!(err, LlmError::Garbage { .. }), "{err}");
    assert!(err.to_string().contains("proxy error"), "{err}");

    let json = serve(|_req, stream| async move {
        respond(stream, 200, "application/json", b"{\"hello\": \"world\"}").await
    })
    .await;
    let (err, _) = call(&openai(&json)).await;
    assert!(matches!(err, LlmError::Garbage { .. }), "{err}");
}

#[tokio::test]
async fn a_truncated_stream_is_reported_as_truncated() {
    let server = serve(|_req, mut stream| async move {
        start_sse(&mut stream).await;
        send_event(
            &mut stream,
            r#"{"choices":[{"delta":{"content":"__global__ void k("},"finish_reason":null}]}"#,
        )
        .await;
        let _ = stream.write_all(b"data: {\"choices\":[{\"del").await;
        let _ = stream.shutdown().await;
    })
    .await;
    let (err, _) = call(&openai(&server)).await;
    match &err {
        LlmError::Truncated { received, .. } => assert_eq!(*received, "__global__ void k(".len()),
        other => panic!("expected Truncated, got {other}"),
    }
}

#[tokio::test]
async fn cancellation_and_deadline_stop_a_stalled_call() {
    let server = serve(|_req, stream| async move {
        tokio::time::sleep(Duration::from_secs(60)).await;
        drop(stream);
    })
    .await;
    let mut c = BackendConfig::new(BackendKind::Openai, format!("{}/v1", server.url()), "m");
    c.timeouts.first_token = Duration::from_secs(60);
    let model = connect(&c).unwrap();

    let control = CallControl::default();
    let cancel = control.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        cancel.cancel();
    });
    let started = Instant::now();
    let err = model.chat(&request(), &control).await.unwrap_err();
    assert!(matches!(err, LlmError::Cancelled), "{err}");
    assert!(started.elapsed() < Duration::from_secs(2));

    let control =
        CallControl::with_deadline(tokio::time::Instant::now() + Duration::from_millis(300));
    let err = model.chat(&request(), &control).await.unwrap_err();
    assert!(matches!(err, LlmError::DeadlineExceeded), "{err}");
}

#[tokio::test]
async fn ollama_without_the_model_says_ollama_pull() {
    let server = serve(|_req, stream| async move {
        respond(
            stream,
            200,
            "application/json",
            br#"{"models":[{"name":"llama3:latest","modified_at":"","size":0}]}"#,
        )
        .await
    })
    .await;
    let (err, _) = call(&ollama(&server)).await;
    assert!(matches!(err, LlmError::ModelMissing { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("ollama pull m:latest") && text.contains("llama3:latest"),
        "{text}"
    );
}

#[tokio::test]
async fn ollama_faults_map_to_the_same_errors() {
    let server = ollama_with(|stream| async move {
        respond(
            stream,
            500,
            "application/json",
            br#"{"error":"out of memory"}"#,
        )
        .await
    })
    .await;
    let (err, _) = call(&ollama(&server)).await;
    assert!(matches!(err, LlmError::ServerError { .. }), "{err}");
    assert!(err.to_string().contains("out of memory"), "{err}");

    let server = ollama_with(|stream| async move {
        respond(stream, 200, "application/json", b"<html>hi</html>").await
    })
    .await;
    let (err, _) = call(&ollama(&server)).await;
    assert!(matches!(err, LlmError::Garbage { .. }), "{err}");

    let server = ollama_with(|stream| async move {
        respond(stream, 200, "application/json", br#"{"model":"m:latest","created_at":"","message":{"role":"assistant","content":"__glo"#).await
    })
    .await;
    let (err, _) = call(&ollama(&server)).await;
    assert!(matches!(err, LlmError::Truncated { .. }), "{err}");

    let server = ollama_with(|stream| async move {
        tokio::time::sleep(Duration::from_secs(60)).await;
        drop(stream);
    })
    .await;
    let (err, took) = call(&ollama(&server)).await;
    assert!(matches!(err, LlmError::Timeout { .. }), "{err}");
    assert!(took < Duration::from_secs(4), "{took:?}");

    let server = ollama_with(|stream| async move { drop(stream) }).await;
    let (err, _) = call(&ollama(&server)).await;
    assert!(matches!(err, LlmError::ServerDown { .. }), "{err}");
}

#[tokio::test]
async fn the_api_key_is_sent_as_a_bearer_token_and_the_request_carries_the_settings() {
    let server = serve(|req, mut stream| async move {
        let body = req.json();
        let settings_ok = body["model"] == "m"
            && body["stream"] == true
            && body["temperature"] == 0.0
            && body["seed"] == 0
            && body["max_tokens"] == 1024
            && body["messages"][0]["role"] == "user";
        if req.header("authorization") != Some("Bearer sk-test") || !settings_ok {
            respond(stream, 401, "application/json", body.to_string().as_bytes()).await;
            return;
        }
        start_sse(&mut stream).await;
        send_event(
            &mut stream,
            r#"{"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}"#,
        )
        .await;
        send_event(&mut stream, "[DONE]").await;
    })
    .await;
    let mut c = BackendConfig::new(BackendKind::Openai, format!("{}/v1/", server.url()), "m");
    c.api_key = Some("sk-test".into());
    c.timeouts = fast();
    let answer = connect(&c)
        .unwrap()
        .chat(&request(), &CallControl::default())
        .await
        .unwrap();
    assert_eq!(answer.text, "ok");
    // No usage record: one token per content event.
    assert_eq!(answer.completion_tokens, 1);

    let mut c = BackendConfig::new(BackendKind::Openai, format!("{}/v1", server.url()), "m");
    c.timeouts = fast();
    let (err, _) = call(&connect(&c).unwrap()).await;
    assert!(matches!(err, LlmError::Http { status: 401, .. }), "{err}");
}
