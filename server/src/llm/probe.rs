//! Is a model server reachable, and which models does it serve? Used by `doctor`, and by
//! [`preflight`] before a search spends anything.

use std::time::Duration;

use serde::Serialize;

use super::setup_hint::start_hint;
use super::{BackendConfig, BackendKind, LlmError};

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
        hint: String,
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

/// Checked before a search, so that a server that is not running is said at once, with what to
/// start, instead of after the search as "no candidate passed" (issue #21): the server answers
/// its model list and, for Ollama (which refuses unknown names), lists the model.
pub async fn preflight(config: &BackendConfig) -> Result<(), LlmError> {
    if config.kind == BackendKind::Replay {
        return Ok(());
    }
    let timeout = config.timeouts.connect.max(Duration::from_secs(1)) + Duration::from_secs(5);
    let report = probe(config.kind, &config.url, &config.model, timeout)
        .await
        .map_err(|e| match e {
            ProbeError::Unreachable {
                backend,
                url,
                reason,
                hint,
            } => LlmError::ServerDown {
                backend,
                url,
                reason,
                hint,
            },
            ProbeError::Http { .. } => LlmError::Config {
                reason: e.to_string(),
            },
            ProbeError::Garbage { url, reason } => LlmError::Garbage { url, reason },
        })?;
    if config.kind == BackendKind::Ollama
        && !report
            .models
            .iter()
            .any(|have| super::ollama::model_matches(have, &config.model))
    {
        return Err(LlmError::ModelMissing {
            backend: config.kind,
            url: config.url.clone(),
            model: config.model.clone(),
            available: if report.models.is_empty() {
                "no models".into()
            } else {
                report.models.join(", ")
            },
            fix: format!("ollama pull {}", config.model),
        });
    }
    Ok(())
}

/// Lists the models of the server at `url` (`/api/tags` for Ollama, `/models` under an
/// OpenAI-compatible base URL); `model` is only named in the hint of an unreachable server.
pub async fn probe(
    backend: BackendKind,
    url: &str,
    model: &str,
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
    let hint = start_hint(backend, url, model);
    let client = reqwest::Client::builder()
        .connect_timeout(timeout)
        .timeout(timeout)
        .build()
        .map_err(|e| ProbeError::Unreachable {
            backend,
            url: url.into(),
            reason: e.to_string(),
            hint: hint.clone(),
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
            "qwen2.5-coder:7b",
            Duration::from_secs(2),
        )
        .await
        .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("not reachable") && text.contains("ollama serve"),
            "{text}"
        );
        let down = preflight(&BackendConfig::new(
            BackendKind::Openai,
            format!("http://127.0.0.1:{port}/v1"),
            "m",
        ))
        .await
        .unwrap_err();
        let text = down.to_string();
        assert!(
            down.is_connection() && text.contains("llama-server") && !text.contains("ollama"),
            "{text}"
        );
    }
}
