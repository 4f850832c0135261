//! `cuda-offload lsp`: the language server on stdin/stdout.

use std::process::ExitCode;
use std::sync::Arc;

use clap::ValueEnum;

use crate::config::{Settings, SettingsLayer};
use crate::llm::BackendKind;
use crate::lsp::{LspSettings, RunnerFactory};
use crate::search::judge::LazyVerifierJudge;
use crate::search::offload::OffloadRunner;
use crate::search::offloader::{Offloader, load_graph};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Accepted for editors that pass it; stdio is the only transport
    #[arg(long)]
    stdio: bool,
}

pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir()?;
    let graph = Arc::new(load_graph(Some(&cwd)).map_err(anyhow::Error::msg)?);
    let factory: RunnerFactory = Arc::new(move |editor: &LspSettings| {
        // Defaults < cuda-offload.toml < environment < the editor's settings.
        let (settings, _) = Settings::load(&cwd, |k| std::env::var(k).ok(), &editor_layer(editor)?)
            .map_err(|e| e.to_string())?;
        let judge = LazyVerifierJudge::new(settings.verify_config());
        let runner: Arc<dyn OffloadRunner> = Arc::new(Offloader {
            backend: settings.backend_config(),
            judge: Arc::new(judge),
            graph: graph.clone(),
            settings: settings.search_settings(),
        });
        Ok(runner)
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(crate::lsp::serve(
        tokio::io::stdin(),
        tokio::io::stdout(),
        factory,
    ));
    Ok(ExitCode::SUCCESS)
}

fn editor_layer(e: &LspSettings) -> Result<SettingsLayer, String> {
    let backend = match &e.backend {
        Some(b) => Some(
            BackendKind::from_str(b, true)
                .map_err(|_| format!("unknown backend `{b}` (ollama, openai, replay)"))?,
        ),
        None => None,
    };
    Ok(SettingsLayer {
        backend,
        url: e.url.clone(),
        model: e.model.clone(),
        api_key: e.api_key.clone(),
        cassette: e.cassette.clone().map(Into::into),
        seed: e.seed,
        budget: e.budget.map(|b| b as u32),
        parallel: e.parallel,
        strategy: e.strategy,
        start: e.start,
        nvcc: e.nvcc_path.clone().map(Into::into),
        gpu_arch: e.gpu_arch.clone(),
        ..SettingsLayer::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_editors_settings_reach_the_search() {
        let editor: LspSettings = serde_json::from_value(serde_json::json!({
            "backend": "openai", "budget": 12, "parallel": 4, "strategy": "enumerate", "seed": 3
        }))
        .unwrap();
        let layer = editor_layer(&editor).unwrap();
        let mut settings = Settings::default();
        settings.merge(&layer);
        let search = settings.search_settings();
        assert_eq!(search.mcgs.parallel, 4);
        assert_eq!((search.budget, search.seed), (12, 3));
        assert_eq!(search.strategy, crate::search::offload::Strategy::Enumerate);
        assert_eq!(settings.backend, BackendKind::Openai);
    }
}
