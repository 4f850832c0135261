//! `cuda-offload doctor`: checks each part the product needs and says how to fix what is missing.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use serde::Serialize;

use crate::llm::BackendKind;
use crate::llm::probe::{ProbeError, ProbeReport, probe};
use crate::llm::setup_hint::start_hint;
use crate::verify::{gpu, toolchain};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print the report as JSON (keys `llm`, `nvcc`, `gpu`, each with `ok` and `detail`)
    #[arg(long)]
    json: bool,
    /// Model server protocol; without it, Ollama's default URL is tried, then llama-server's
    #[arg(long, env = "CUDA_OFFLOAD_BACKEND", value_enum)]
    backend: Option<BackendKind>,
    /// Model server URL (Ollama: http://localhost:11434; OpenAI-compatible: the /v1 base URL)
    #[arg(long, env = "CUDA_OFFLOAD_URL")]
    url: Option<String>,
    /// Model the search will use; checked against the server's list
    #[arg(long, env = "CUDA_OFFLOAD_MODEL")]
    model: Option<String>,
    /// nvcc to use (file, or a CUDA root containing bin/nvcc)
    #[arg(long, env = "CUDA_OFFLOAD_NVCC")]
    nvcc: Option<PathBuf>,
}

#[derive(Debug, Serialize)]
struct Check {
    ok: bool,
    detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<String>,
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    info: serde_json::Value,
}

#[derive(Debug, Serialize)]
struct Report {
    llm: Check,
    nvcc: Check,
    gpu: Check,
}

pub fn run(mut args: Args) -> anyhow::Result<ExitCode> {
    // Flags and CUDA_OFFLOAD_* win; the nearest cuda-offload.toml fills in what they leave open.
    if let Some(path) = crate::config::find_config_file(&std::env::current_dir()?) {
        let file = crate::config::read_config_file(&path)?;
        args.backend = args.backend.or(file.backend);
        args.url = args.url.or(file.url);
        args.model = args.model.or(file.model);
        args.nvcc = args.nvcc.or(file.nvcc);
        if !args.json {
            println!("settings from {}", path.display());
        }
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let llm = runtime.block_on(check_llm(&args));
    let report = Report {
        llm,
        nvcc: check_nvcc(&args),
        gpu: check_gpu(),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_human(&report);
    }
    // The GPU is optional (results are then compiled but unverified); the model and nvcc are not.
    Ok(if report.llm.ok && report.nvcc.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

async fn check_llm(args: &Args) -> Check {
    let timeout = Duration::from_secs(3);
    let attempts: Vec<(BackendKind, String)> = match (args.backend, &args.url) {
        (Some(b), Some(u)) => vec![(b, u.clone())],
        (Some(b), None) => vec![(b, b.default_url().to_string())],
        (None, Some(u)) if u.trim_end_matches('/').ends_with("/v1") => {
            vec![(BackendKind::Openai, u.clone())]
        }
        (None, Some(u)) => vec![
            (BackendKind::Ollama, u.clone()),
            (BackendKind::Openai, format!("{u}/v1")),
        ],
        (None, None) => vec![
            (
                BackendKind::Ollama,
                BackendKind::Ollama.default_url().to_string(),
            ),
            (
                BackendKind::Openai,
                BackendKind::Openai.default_url().to_string(),
            ),
        ],
    };
    let model = args
        .model
        .clone()
        .unwrap_or_else(|| crate::config::Settings::DEFAULT_MODEL.into());
    let mut failures: Vec<ProbeError> = Vec::new();
    let mut fixes: Vec<String> = Vec::new();
    for (backend, url) in attempts {
        if backend == BackendKind::Replay {
            return Check {
                ok: true,
                detail: "replay backend: answers come from a cassette file, no server needed"
                    .into(),
                fix: None,
                info: serde_json::Value::Null,
            };
        }
        match probe(backend, &url, &model, timeout).await {
            Ok(report) => return llm_found(report, args.model.as_deref()),
            Err(e) => {
                // Only what the backend tried needs: `--backend openai` never hears of Ollama.
                fixes.push(start_hint(backend, &url, &model));
                failures.push(e);
            }
        }
    }
    Check {
        ok: false,
        detail: failures
            .iter()
            .map(|e| match e {
                ProbeError::Unreachable {
                    backend,
                    url,
                    reason,
                    ..
                } => format!("{backend} server at {url} is not reachable ({reason})"),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" | "),
        fix: Some(fixes.join("; or: ")),
        info: serde_json::Value::Null,
    }
}

fn llm_found(report: ProbeReport, wanted: Option<&str>) -> Check {
    let info =
        serde_json::json!({"backend": report.backend, "url": report.url, "models": report.models});
    let listing = if report.models.is_empty() {
        "no models".to_string()
    } else {
        report.models.join(", ")
    };
    let backend = match report.backend {
        BackendKind::Ollama => "Ollama",
        _ => "OpenAI-compatible server",
    };
    match wanted {
        Some(m) if !report.models.iter().any(|have| model_matches(have, m)) => Check {
            ok: false,
            detail: format!(
                "{backend} at {} is up but does not serve model `{m}` (it serves: {listing})",
                report.url
            ),
            fix: Some(match report.backend {
                BackendKind::Ollama => format!("ollama pull {m}"),
                _ => format!("start the server with the model `{m}`, or pick one of: {listing}"),
            }),
            info,
        },
        _ if report.models.is_empty() && report.backend == BackendKind::Ollama => Check {
            ok: false,
            detail: format!("Ollama at {} is up but has no models", report.url),
            fix: Some("ollama pull qwen2.5-coder:7b".into()),
            info,
        },
        _ => Check {
            ok: true,
            detail: format!("{backend} at {}: {listing}", report.url),
            fix: None,
            info,
        },
    }
}

/// Ollama names carry a tag (`qwen2.5-coder:7b`, `x:latest`); a bare name matches `:latest`.
fn model_matches(have: &str, want: &str) -> bool {
    have == want || have == format!("{want}:latest") || have.rsplit('/').next() == Some(want)
}

fn check_nvcc(args: &Args) -> Check {
    match toolchain::find_nvcc(args.nvcc.as_deref(), &toolchain::default_project_roots()) {
        Ok(nvcc) => Check {
            ok: true,
            detail: format!(
                "nvcc {} at {} (found by {})",
                nvcc.version,
                nvcc.path.display(),
                nvcc.found_by
            ),
            fix: None,
            info: serde_json::to_value(&nvcc).unwrap_or_default(),
        },
        Err(e) => Check {
            ok: false,
            detail: e.to_string(),
            fix: Some(
                "run `scripts/setup` (installs nvcc 13.0 into .toolchain/), or set CUDA_HOME"
                    .into(),
            ),
            info: serde_json::Value::Null,
        },
    }
}

fn check_gpu() -> Check {
    match gpu::detect_gpus() {
        Ok(gpus) => Check {
            ok: true,
            detail: gpus
                .iter()
                .map(|g| {
                    format!(
                        "GPU {}: {} (compute {}, {}), driver {}",
                        g.index,
                        g.name,
                        g.compute_capability,
                        g.arch(),
                        g.driver
                    )
                })
                .collect::<Vec<_>>()
                .join("; "),
            fix: None,
            info: serde_json::to_value(&gpus).unwrap_or_default(),
        },
        Err(no) => Check {
            ok: false,
            detail: format!(
                "no GPU: verification will stop after compilation ({})",
                no.reason
            ),
            fix: Some(
                "run on a machine with an NVIDIA GPU and driver to verify and time kernels".into(),
            ),
            info: serde_json::Value::Null,
        },
    }
}

fn print_human(r: &Report) {
    for (name, c) in [("model server", &r.llm), ("nvcc", &r.nvcc), ("GPU", &r.gpu)] {
        let mark = if c.ok { "ok  " } else { "MISSING" };
        println!("{mark:8} {name:13} {}", c.detail);
        if let Some(fix) = &c.fix {
            println!("{:8} {:13} fix: {fix}", "", "");
        }
    }
}
