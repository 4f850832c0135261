//! Test-only Ollama: serves `/api/tags`, `/api/show` and `/api/chat` by forwarding to a real
//! llama-server's `/v1/chat/completions`, so the Ollama backend (ollama-rs) is tested against a
//! real model. It also keeps the chat requests it saw, to check the options the backend sent.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::http::{Request, TestServer, respond, serve};

pub struct Adapter {
    pub server: TestServer,
    pub chats: Arc<Mutex<Vec<Value>>>,
}

/// Serves `models` (Ollama names) in front of the llama-server at `llama_v1`.
pub async fn start(llama_v1: String, models: Vec<String>) -> Adapter {
    let chats = Arc::new(Mutex::new(Vec::new()));
    let seen = chats.clone();
    let client = reqwest::Client::new();
    let server = serve(move |req: Request, stream| {
        let (client, llama_v1, models, seen) = (
            client.clone(),
            llama_v1.clone(),
            models.clone(),
            seen.clone(),
        );
        async move {
            let (status, body) = route(&client, &llama_v1, &models, &seen, req).await;
            respond(
                stream,
                status,
                "application/json",
                body.to_string().as_bytes(),
            )
            .await;
        }
    })
    .await;
    Adapter { server, chats }
}

async fn route(
    client: &reqwest::Client,
    llama_v1: &str,
    models: &[String],
    seen: &Mutex<Vec<Value>>,
    req: Request,
) -> (u16, Value) {
    match (req.method.as_str(), req.path.as_str()) {
        ("GET", "/api/tags") => (
            200,
            json!({"models": models.iter().map(|m| json!({
                "name": m, "model": m, "modified_at": "2026-12-02T00:00:00Z", "size": 0, "digest": ""
            })).collect::<Vec<_>>()}),
        ),
        ("POST", "/api/show") => {
            let name = req.json()["name"].as_str().unwrap_or_default().to_string();
            if models.contains(&name) {
                (
                    200,
                    json!({"modelfile": "", "parameters": "", "template": "", "model_info": {}, "capabilities": ["completion"]}),
                )
            } else {
                (404, json!({"error": format!("model '{name}' not found")}))
            }
        }
        ("POST", "/api/chat") => chat(client, llama_v1, models, seen, req.json()).await,
        _ => (404, json!({"error": "not found"})),
    }
}

async fn chat(
    client: &reqwest::Client,
    llama_v1: &str,
    models: &[String],
    seen: &Mutex<Vec<Value>>,
    body: Value,
) -> (u16, Value) {
    seen.lock().unwrap().push(body.clone());
    let model = body["model"].as_str().unwrap_or_default().to_string();
    if !models.contains(&model) {
        return (404, json!({"error": format!("model '{model}' not found")}));
    }
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    if messages.is_empty() {
        // Ollama's answer to a load request.
        return (
            200,
            json!({
                "model": model, "created_at": "2026-12-02T00:00:00Z",
                "message": {"role": "assistant", "content": ""}, "done_reason": "load", "done": true
            }),
        );
    }
    let options = &body["options"];
    let forwarded = json!({
        "messages": messages.iter().map(|m| json!({"role": m["role"], "content": m["content"]})).collect::<Vec<_>>(),
        "temperature": options["temperature"],
        "seed": options["seed"],
        "max_tokens": options["num_predict"],
        "stream": false,
    });
    let resp = match client
        .post(format!("{llama_v1}/chat/completions"))
        .json(&forwarded)
        .send()
        .await
    {
        Ok(r) => r,
        Err(e) => return (502, json!({"error": e.to_string()})),
    };
    let status = resp.status().as_u16();
    let answer: Value = resp.json().await.unwrap_or_default();
    if status != 200 {
        return (status, json!({"error": answer.to_string()}));
    }
    let choice = &answer["choices"][0];
    (
        200,
        json!({
            "model": model,
            "created_at": "2026-12-02T00:00:00Z",
            "message": {"role": "assistant", "content": choice["message"]["content"]},
            "done_reason": choice["finish_reason"],
            "done": true,
            "total_duration": 0, "load_duration": 0,
            "prompt_eval_count": answer["usage"]["prompt_tokens"], "prompt_eval_duration": 0,
            "eval_count": answer["usage"]["completion_tokens"], "eval_duration": 0
        }),
    )
}
