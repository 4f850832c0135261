//! Is a model server reachable, and which models does it serve? Used by `doctor` and at start-up.

use std::time::Duration;

use serde::Serialize;

use super::BackendKind;

#[derive(Debug, Clone, Serialize)]
pub struct ProbeReport {
    pub backend: BackendKind,
    pub url: String,
    pub models: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("{} server at {url} is not reachable ({reason}). {hint}", label(*backend))]
    Unreachable {
        backend: BackendKind,
        url: String,
        reason: String,
        hint: &'static str,
    },
    #[error("{url} answered HTTP {status}: is this really an {} server?", label(*backend))]
    Http {
        backend: BackendKind,
        url: String,
        status: u16,
    },
    #[error("{url} answered something that is not a model list: {reason}")]
    Garbage { url: String, reason: String },
}

/// Lists the models of the server at `url` (`/api/tags` for Ollama, `/models` under an
/// OpenAI-compatible base URL).
pub async fn probe(
    backend: BackendKind,
    url: &str,
    timeout: Duration,
) -> Result<ProbeReport, ProbeError> {
    let base = url.trim_end_matches('/');
    let endpoint = match backend {
        BackendKind::Ollama => format!("{base}/api/tags"),
        BackendKind::Openai => format!("{base}/models"),
        BackendKind::Replay => {
            return Ok(ProbeReport {
                backend,
                url: url.to_string(),
                models: Vec::new(),
            });
        }
    };
    let hint = match backend {
        BackendKind::Ollama => "Start Ollama: `ollama serve`, then `ollama pull qwen2.5-coder:7b`",
        _ => {
            "Start your server, e.g. `llama-server -m model.gguf --port 8080`, and pass its /v1 URL"
        }
    };
    let client = reqwest::Client::builder()
        .connect_timeout(timeout)
        .timeout(timeout)
        .build()
        .map_err(|e| ProbeError::Unreachable {
            backend,
            url: url.into(),
            reason: e.to_string(),
            hint,
        })?;
    let resp = client
        .get(&endpoint)
        .send()
        .await
        .map_err(|e| ProbeError::Unreachable {
            backend,
            url: url.into(),
            reason: root_cause(&e),
            hint,
        })?;
    if !resp.status().is_success() {
        return Err(ProbeError::Http {
            backend,
            url: endpoint,
            status: resp.status().as_u16(),
        });
    }
    let body: serde_json::Value = resp.json().await.map_err(|e| ProbeError::Garbage {
        url: endpoint.clone(),
        reason: e.to_string(),
    })?;
    let models = parse_model_list(backend, &body).ok_or_else(|| ProbeError::Garbage {
        url: endpoint.clone(),
        reason: "no model list in the answer".into(),
    })?;
    Ok(ProbeReport {
        backend,
        url: url.to_string(),
        models,
    })
}

fn parse_model_list(backend: BackendKind, body: &serde_json::Value) -> Option<Vec<String>> {
    let (list, key) = match backend {
        BackendKind::Ollama => (body.get("models")?.as_array()?, "name"),
        _ => (body.get("data")?.as_array()?, "id"),
    };
    Some(
        list.iter()
            .filter_map(|m| m.get(key)?.as_str().map(str::to_string))
            .collect(),
    )
}

fn label(b: BackendKind) -> &'static str {
    match b {
        BackendKind::Ollama => "Ollama",
        BackendKind::Openai => "OpenAI-compatible",
        BackendKind::Replay => "replay",
    }
}

fn root_cause(e: &dyn std::error::Error) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_model_list_shapes() {
        let ollama = serde_json::json!({"models":[{"name":"qwen2.5-coder:7b"}]});
        assert_eq!(
            parse_model_list(BackendKind::Ollama, &ollama).unwrap(),
            vec!["qwen2.5-coder:7b"]
        );
        let openai = serde_json::json!({"object":"list","data":[{"id":"m.gguf","object":"model"}]});
        assert_eq!(
            parse_model_list(BackendKind::Openai, &openai).unwrap(),
            vec!["m.gguf"]
        );
        assert!(parse_model_list(BackendKind::Openai, &serde_json::json!({"x":1})).is_none());
    }

    #[tokio::test]
    async fn closed_port_is_unreachable_with_a_hint() {
        // Bind then drop to get a port nothing listens on.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let err = probe(
            BackendKind::Ollama,
            &format!("http://127.0.0.1:{port}"),
            Duration::from_secs(2),
        )
        .await
        .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("not reachable") && text.contains("ollama serve"),
            "{text}"
        );
    }
}
