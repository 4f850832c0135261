//! User settings, merged in layers: built-in defaults < `cuda-offload.toml` (the nearest one walking
//! up from the file or working directory) < environment (`CUDA_OFFLOAD_*`) < command-line flags.
//! The LSP merges the editor's settings last, as one more [`SettingsLayer`].

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::llm::{BackendConfig, BackendKind, Timeouts};

pub const CONFIG_FILE: &str = "cuda-offload.toml";

pub use crate::search::offload::Strategy;
pub use crate::search::port::Start;

/// The resolved settings every command and the LSP work from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    pub backend: BackendKind,
    /// `None`: the backend's default URL.
    pub url: Option<String>,
    pub model: String,
    pub api_key: Option<String>,
    pub temperature: f32,
    pub seed: u64,
    pub max_tokens: u32,
    /// Context window asked of Ollama (`num_ctx`).
    pub num_ctx: u64,
    pub connect_timeout_s: f64,
    /// Until the first token, including a cold model load.
    pub first_token_timeout_s: f64,
    /// From the first token to the end of the answer.
    pub total_timeout_s: f64,
    /// LLM calls one search may make.
    pub budget: u32,
    /// MCGS rollouts in flight at once (model calls and verification overlap); raise it for a
    /// model server that serves several requests at a time (llama-server `--parallel N`).
    pub parallel: u32,
    /// Screening runs of a search's candidates that may share one GPU; 1 times each alone. The
    /// answer is always timed again alone, and serial references are always timed alone.
    pub screening_runs: u32,
    /// Nsight Compute profiles an MCGS search takes of its kernels (the start, then each new
    /// best) to rank the techniques tried on them; 0: the graph's priors alone.
    pub profiles: u32,
    pub strategy: Strategy,
    /// Where a search starts: the generated port (verified first) or, as in the paper, the
    /// serial code.
    pub start: Start,
    pub nvcc: Option<PathBuf>,
    /// e.g. `sm_90`; `None`: the detected GPU's, else `sm_90`.
    pub gpu_arch: Option<String>,
    /// Replay answers from (backend `replay`) or record them into (`record = true`) this file.
    pub cassette: Option<PathBuf>,
    pub record: bool,
    /// After a search, build the project with the offload's edit in a scratch copy (and on a GPU
    /// run it against the serial build), where the project's build is one cuda-offload recognises.
    pub check_build: bool,
}

impl Settings {
    /// Ollama's name of the model the README suggests pulling.
    pub const DEFAULT_MODEL: &str = "qwen2.5-coder:7b";
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            backend: BackendKind::Ollama,
            url: None,
            model: Settings::DEFAULT_MODEL.into(),
            api_key: None,
            temperature: 0.0,
            seed: 0,
            max_tokens: 2048,
            num_ctx: 8192,
            connect_timeout_s: 5.0,
            first_token_timeout_s: 300.0,
            total_timeout_s: 300.0,
            budget: 32,
            parallel: 1,
            screening_runs: 4,
            profiles: 3,
            strategy: Strategy::Mcgs,
            start: Start::Port,
            nvcc: None,
            gpu_arch: None,
            cassette: None,
            record: false,
            check_build: true,
        }
    }
}

/// One source of settings: every field optional, unset fields leave the lower layers alone.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SettingsLayer {
    pub backend: Option<BackendKind>,
    pub url: Option<String>,
    pub model: Option<String>,
    pub api_key: Option<String>,
    pub temperature: Option<f32>,
    pub seed: Option<u64>,
    pub max_tokens: Option<u32>,
    pub num_ctx: Option<u64>,
    pub connect_timeout_s: Option<f64>,
    pub first_token_timeout_s: Option<f64>,
    pub total_timeout_s: Option<f64>,
    pub budget: Option<u32>,
    pub parallel: Option<u32>,
    pub screening_runs: Option<u32>,
    pub profiles: Option<u32>,
    pub strategy: Option<Strategy>,
    pub start: Option<Start>,
    pub nvcc: Option<PathBuf>,
    pub gpu_arch: Option<String>,
    pub cassette: Option<PathBuf>,
    pub record: Option<bool>,
    pub check_build: Option<bool>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {message}", path.display())]
    Parse { path: PathBuf, message: String },
    #[error("environment variable {var}={value:?}: {reason}")]
    Env {
        var: String,
        value: String,
        reason: String,
    },
    #[error("setting `{key}`: {reason}")]
    Invalid { key: &'static str, reason: String },
}

impl Settings {
    /// Overwrites every field the layer sets.
    pub fn merge(&mut self, layer: &SettingsLayer) {
        macro_rules! take {
            ($($field:ident),*) => {$(
                if let Some(v) = &layer.$field {
                    self.$field = v.clone();
                }
            )*};
        }
        macro_rules! take_optional {
            ($($field:ident),*) => {$(
                if let Some(v) = &layer.$field {
                    self.$field = Some(v.clone());
                }
            )*};
        }
        if let Some(backend) = layer.backend
            && backend != self.backend
            && layer.url.is_none()
        {
            // A URL set for the other protocol is wrong for this one.
            self.url = None;
        }
        take!(
            backend,
            model,
            temperature,
            seed,
            max_tokens,
            num_ctx,
            budget,
            parallel,
            screening_runs,
            profiles,
            strategy,
            start,
            record,
            check_build
        );
        take!(connect_timeout_s, first_token_timeout_s, total_timeout_s);
        take_optional!(url, api_key, nvcc, gpu_arch, cassette);
    }

    /// Defaults, then the config file found from `start`, then `env`, then `flags`. Also returns
    /// the file that was read.
    pub fn load(
        start: &Path,
        env: impl Fn(&str) -> Option<String>,
        flags: &SettingsLayer,
    ) -> Result<(Settings, Option<PathBuf>), ConfigError> {
        let mut settings = Settings::default();
        let file = find_config_file(start);
        if let Some(path) = &file {
            settings.merge(&read_config_file(path)?);
        }
        settings.merge(&from_env(env)?);
        settings.merge(flags);
        settings.validate()?;
        Ok((settings, file))
    }

    /// The URL the backend talks to.
    pub fn effective_url(&self) -> String {
        self.url
            .clone()
            .unwrap_or_else(|| self.backend.default_url().to_string())
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        let invalid = |key, reason: &str| {
            Err(ConfigError::Invalid {
                key,
                reason: reason.to_string(),
            })
        };
        if !(0.0..=2.0).contains(&self.temperature) {
            return invalid("temperature", "must be between 0 and 2");
        }
        if self.max_tokens == 0 {
            return invalid("max_tokens", "must be at least 1");
        }
        if self.parallel == 0 {
            return invalid("parallel", "must be at least 1 rollout");
        }
        if let Some(arch) = &self.gpu_arch
            && !valid_arch(arch)
        {
            return invalid(
                "gpu_arch",
                "must name a real architecture, e.g. sm_90 or sm_90a",
            );
        }
        if self.screening_runs == 0 {
            return invalid("screening_runs", "must be at least 1 run per GPU");
        }
        if self.budget == 0 {
            return invalid("budget", "must be at least 1 LLM call");
        }
        for (key, v) in [
            ("connect_timeout_s", self.connect_timeout_s),
            ("first_token_timeout_s", self.first_token_timeout_s),
            ("total_timeout_s", self.total_timeout_s),
        ] {
            if !(v.is_finite() && v > 0.0 && v < 1e7) {
                return invalid(key, "must be a positive number of seconds");
            }
        }
        if self.backend == BackendKind::Replay && self.cassette.is_none() {
            return invalid(
                "cassette",
                "the replay backend needs a cassette file to answer from",
            );
        }
        if self.record && self.cassette.is_none() {
            return invalid("cassette", "recording needs a cassette file to append to");
        }
        Ok(())
    }

    pub fn timeouts(&self) -> Timeouts {
        Timeouts {
            connect: Duration::from_secs_f64(self.connect_timeout_s),
            first_token: Duration::from_secs_f64(self.first_token_timeout_s),
            total: Duration::from_secs_f64(self.total_timeout_s),
        }
    }

    /// The search knobs these settings fix (strategy, budget, seed, answer length).
    pub fn search_settings(&self) -> crate::search::offloader::SearchSettings {
        crate::search::offloader::SearchSettings {
            max_tokens: self.max_tokens,
            temperature: self.temperature,
            strategy: self.strategy,
            start: self.start,
            budget: self.budget as usize,
            seed: self.seed,
            mcgs: crate::search::mcgs::McgsConfig {
                parallel: self.parallel as usize,
                profiles: self.profiles as usize,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// The verifier's configuration for a search (offload, bench, the LSP).
    pub fn verify_config(&self) -> crate::verify::VerifyConfig {
        crate::verify::VerifyConfig {
            nvcc: self.nvcc.clone(),
            screening_runs: self.screening_runs as usize,
            gpu_arch: self.gpu_arch.clone(),
            ..Default::default()
        }
    }

    /// What `llm::connect` needs.
    pub fn backend_config(&self) -> BackendConfig {
        let mut config = BackendConfig::new(self.backend, self.effective_url(), self.model.clone());
        config.api_key = self.api_key.clone();
        config.timeouts = self.timeouts();
        config.num_ctx = self.num_ctx;
        config.cassette = self.cassette.clone();
        config.record = self.record;
        config
    }
}

/// `sm_NN`, `sm_NNa` or `sm_NNf` (what nvcc's `-arch` takes for a real GPU).
fn valid_arch(arch: &str) -> bool {
    let Some(rest) = arch.strip_prefix("sm_") else {
        return false;
    };
    let digits = rest.strip_suffix(['a', 'f']).unwrap_or(rest);
    (2..=3).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit())
}

/// The nearest `cuda-offload.toml` in `start` (a file's directory, or a directory) or above it.
pub fn find_config_file(start: &Path) -> Option<PathBuf> {
    let dir = if start.is_file() {
        start.parent()?
    } else {
        start
    };
    dir.ancestors()
        .map(|d| d.join(CONFIG_FILE))
        .find(|p| p.is_file())
}

/// Reads one config file; relative paths in it are relative to its directory.
pub fn read_config_file(path: &Path) -> Result<SettingsLayer, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut layer: SettingsLayer = toml::from_str(&text).map_err(|e| ConfigError::Parse {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    for p in [&mut layer.nvcc, &mut layer.cassette].into_iter().flatten() {
        if p.is_relative() {
            *p = dir.join(&*p);
        }
    }
    Ok(layer)
}

/// `CUDA_OFFLOAD_<FIELD>` for each field (`CUDA_OFFLOAD_MAX_TOKENS`, ...); `env` is
/// `|k| std::env::var(k).ok()` outside tests.
pub fn from_env(env: impl Fn(&str) -> Option<String>) -> Result<SettingsLayer, ConfigError> {
    fn get<T: FromStr>(
        env: &impl Fn(&str) -> Option<String>,
        field: &str,
    ) -> Result<Option<T>, ConfigError>
    where
        T::Err: std::fmt::Display,
    {
        let var = format!("CUDA_OFFLOAD_{}", field.to_ascii_uppercase());
        match env(&var).filter(|v| !v.trim().is_empty()) {
            None => Ok(None),
            Some(value) => value
                .trim()
                .parse::<T>()
                .map(Some)
                .map_err(|e| ConfigError::Env {
                    var,
                    value: value.clone(),
                    reason: e.to_string(),
                }),
        }
    }
    Ok(SettingsLayer {
        backend: get::<EnumArg<BackendKind>>(&env, "backend")?.map(|e| e.0),
        url: get(&env, "url")?,
        model: get(&env, "model")?,
        api_key: get(&env, "api_key")?,
        temperature: get(&env, "temperature")?,
        seed: get(&env, "seed")?,
        max_tokens: get(&env, "max_tokens")?,
        num_ctx: get(&env, "num_ctx")?,
        connect_timeout_s: get(&env, "connect_timeout_s")?,
        first_token_timeout_s: get(&env, "first_token_timeout_s")?,
        total_timeout_s: get(&env, "total_timeout_s")?,
        budget: get(&env, "budget")?,
        parallel: get(&env, "parallel")?,
        screening_runs: get(&env, "screening_runs")?,
        profiles: get(&env, "profiles")?,
        strategy: get::<EnumArg<Strategy>>(&env, "strategy")?.map(|e| e.0),
        start: get::<EnumArg<Start>>(&env, "start")?.map(|e| e.0),
        nvcc: get(&env, "nvcc")?,
        gpu_arch: get(&env, "gpu_arch")?,
        cassette: get(&env, "cassette")?,
        record: get(&env, "record")?,
        check_build: get(&env, "check_build")?,
    })
}

/// Parses a clap value enum case-insensitively, listing the choices on error.
struct EnumArg<T>(T);

impl<T: clap::ValueEnum> FromStr for EnumArg<T> {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        T::from_str(s, true).map(EnumArg).map_err(|_| {
            let choices: Vec<String> = T::value_variants()
                .iter()
                .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_string()))
                .collect();
            format!("expected one of: {}", choices.join(", "))
        })
    }
}

/// The flags that pick and reach a model: every command that talks to one (`offload`, `bench`,
/// `graph build --relabel-with-llm`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ModelArgs {
    /// Model server protocol [default: ollama]
    #[arg(long, value_enum)]
    pub backend: Option<BackendKind>,
    /// Model server URL (Ollama root, or the OpenAI-compatible /v1 base URL)
    #[arg(long)]
    pub url: Option<String>,
    /// Model name [default: qwen2.5-coder:7b]
    #[arg(long)]
    pub model: Option<String>,
    /// API key for OpenAI-compatible servers that need one
    #[arg(long)]
    pub api_key: Option<String>,
    /// Cassette to replay from (with --backend replay) or record into (with --record)
    #[arg(long)]
    pub cassette: Option<PathBuf>,
    /// Append every model answer to the cassette
    #[arg(long)]
    pub record: bool,
}

impl ModelArgs {
    pub fn layer(&self) -> SettingsLayer {
        SettingsLayer {
            backend: self.backend,
            url: self.url.clone(),
            model: self.model.clone(),
            api_key: self.api_key.clone(),
            cassette: self.cassette.clone(),
            record: self.record.then_some(true),
            ..SettingsLayer::default()
        }
    }
}

/// The settings flags shared by the commands that search (`offload`, `bench`: `#[command(flatten)]`);
/// each adds its own `--strategy` (one strategy, or a list). Environment variables are read by
/// [`from_env`], not by clap, so that the layers stay in order.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SettingsArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// Sampling temperature of the model
    #[arg(long)]
    pub temperature: Option<f32>,
    /// Seed of every random choice (and the model's sampling)
    #[arg(long)]
    pub seed: Option<u64>,
    /// Longest answer, in tokens
    #[arg(long)]
    pub max_tokens: Option<u32>,
    /// Seconds until the first token (includes loading the model)
    #[arg(long)]
    pub first_token_timeout: Option<f64>,
    /// Seconds from the first token to the end of the answer
    #[arg(long)]
    pub total_timeout: Option<f64>,
    /// LLM calls one search may make
    #[arg(long)]
    pub budget: Option<u32>,
    /// MCGS rollouts in flight at once (for a model server that serves several requests at a time)
    #[arg(long)]
    pub parallel: Option<u32>,
    /// Screening runs of candidates that may share the GPU (1: each timed alone) [default: 4]
    #[arg(long)]
    pub screening_runs: Option<u32>,
    /// Nsight Compute profiles a search takes to rank techniques (0: none) [default: 3]
    #[arg(long)]
    pub profiles: Option<u32>,
    /// Where a search starts: `port` (the generated, verified port) or `serial` (the paper's setting)
    #[arg(long)]
    pub start: Option<Start>,
    /// nvcc to use (file, or a CUDA root containing bin/nvcc)
    #[arg(long)]
    pub nvcc: Option<PathBuf>,
    /// GPU architecture to compile for, e.g. sm_90
    #[arg(long)]
    pub gpu_arch: Option<String>,
}

impl SettingsArgs {
    pub fn layer(&self) -> SettingsLayer {
        SettingsLayer {
            temperature: self.temperature,
            seed: self.seed,
            max_tokens: self.max_tokens,
            first_token_timeout_s: self.first_token_timeout,
            total_timeout_s: self.total_timeout,
            budget: self.budget,
            parallel: self.parallel,
            screening_runs: self.screening_runs,
            profiles: self.profiles,
            start: self.start,
            nvcc: self.nvcc.clone(),
            gpu_arch: self.gpu_arch.clone(),
            ..self.model.layer()
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn defaults_are_ollama_with_qwen_7b() {
        let dir = tempfile::tempdir().unwrap();
        let (s, file) = Settings::load(dir.path(), env_of(&[]), &SettingsLayer::default()).unwrap();
        assert_eq!(file, None);
        assert_eq!(s.backend, BackendKind::Ollama);
        assert_eq!(s.effective_url(), "http://localhost:11434");
        assert_eq!(s.model, "qwen2.5-coder:7b");
        assert_eq!(s.temperature, 0.0);
        assert_eq!(s.budget, 32);
        assert_eq!(s.strategy, Strategy::Mcgs);
    }

    #[test]
    fn file_then_env_then_flags() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("src/deep");
        std::fs::create_dir_all(&nested).unwrap();
        let source = nested.join("saxpy.cpp");
        std::fs::write(&source, "").unwrap();
        std::fs::write(
            dir.path().join(CONFIG_FILE),
            "backend = \"openai\"\nurl = \"http://gpu-box:8080/v1\"\nmodel = \"from-file\"\nseed = 3\nbudget = 8\ncassette = \"tapes/a.jsonl\"\n",
        )
        .unwrap();
        let env = env_of(&[
            ("CUDA_OFFLOAD_MODEL", "from-env"),
            ("CUDA_OFFLOAD_SEED", "5"),
        ]);
        let flags = SettingsArgs {
            seed: Some(9),
            ..SettingsArgs::default()
        };
        let layer = SettingsLayer {
            strategy: Some(Strategy::Cot),
            ..flags.layer()
        };
        let (s, file) = Settings::load(&source, env, &layer).unwrap();
        assert_eq!(file.unwrap(), dir.path().join(CONFIG_FILE));
        assert_eq!(s.backend, BackendKind::Openai);
        assert_eq!(s.effective_url(), "http://gpu-box:8080/v1");
        assert_eq!(s.model, "from-env");
        assert_eq!(s.seed, 9);
        assert_eq!(s.budget, 8);
        assert_eq!(s.strategy, Strategy::Cot);
        assert_eq!(s.cassette.unwrap(), dir.path().join("tapes/a.jsonl"));
    }

    #[test]
    fn screening_runs_reach_the_verifier_and_zero_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (s, _) = Settings::load(dir.path(), env_of(&[]), &SettingsLayer::default()).unwrap();
        assert_eq!(s.verify_config().screening_runs, 4);
        let env = env_of(&[("CUDA_OFFLOAD_SCREENING_RUNS", "2")]);
        let (s, _) = Settings::load(dir.path(), env, &SettingsLayer::default()).unwrap();
        assert_eq!(s.verify_config().screening_runs, 2);
        let zero = SettingsLayer {
            screening_runs: Some(0),
            ..SettingsLayer::default()
        };
        let err = Settings::load(dir.path(), env_of(&[]), &zero).unwrap_err();
        assert!(err.to_string().contains("screening_runs"), "{err}");
    }

    #[test]
    fn gpu_arch_reaches_the_verifier_and_a_wrong_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let env = env_of(&[("CUDA_OFFLOAD_GPU_ARCH", "sm_90a")]);
        let (s, _) = Settings::load(dir.path(), env, &SettingsLayer::default()).unwrap();
        assert_eq!(s.verify_config().gpu_arch.as_deref(), Some("sm_90a"));
        for bad in ["90", "sm_", "compute_90", "sm_9x", "-arch=sm_90"] {
            let layer = SettingsLayer {
                gpu_arch: Some(bad.into()),
                ..SettingsLayer::default()
            };
            let err = Settings::load(dir.path(), env_of(&[]), &layer).unwrap_err();
            assert!(err.to_string().contains("gpu_arch"), "{bad}: {err}");
        }
    }

    #[test]
    fn switching_backend_drops_the_other_backends_url() {
        let mut s = Settings::default();
        s.merge(&SettingsLayer {
            url: Some("http://box:11434".into()),
            ..SettingsLayer::default()
        });
        s.merge(&SettingsLayer {
            backend: Some(BackendKind::Openai),
            ..SettingsLayer::default()
        });
        assert_eq!(s.effective_url(), "http://127.0.0.1:8080/v1");
        let config = s.backend_config();
        assert_eq!(config.kind, BackendKind::Openai);
        assert_eq!(config.timeouts.first_token, Duration::from_secs(300));
    }

    #[test]
    fn bad_input_names_where_it_came_from() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CONFIG_FILE);
        std::fs::write(&path, "modle = \"x\"\n").unwrap();
        let e = Settings::load(dir.path(), env_of(&[]), &SettingsLayer::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("cuda-offload.toml") && e.contains("modle"),
            "{e}"
        );

        std::fs::write(&path, "temperature = \"hot\"\n").unwrap();
        let e = Settings::load(dir.path(), env_of(&[]), &SettingsLayer::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("temperature"), "{e}");

        std::fs::remove_file(&path).unwrap();
        let e = Settings::load(
            dir.path(),
            env_of(&[("CUDA_OFFLOAD_BACKEND", "llamafile")]),
            &SettingsLayer::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("CUDA_OFFLOAD_BACKEND") && e.contains("ollama, openai, replay"),
            "{e}"
        );

        let e = Settings::load(
            dir.path(),
            env_of(&[("CUDA_OFFLOAD_MAX_TOKENS", "-1")]),
            &SettingsLayer::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("CUDA_OFFLOAD_MAX_TOKENS"), "{e}");

        let e = Settings::load(
            dir.path(),
            env_of(&[("CUDA_OFFLOAD_BACKEND", "replay")]),
            &SettingsLayer::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("cassette"), "{e}");
    }

    #[test]
    fn settings_round_trip_through_toml_for_the_editor() {
        let mut s = Settings {
            gpu_arch: Some("sm_90".into()),
            ..Settings::default()
        };
        let text = toml::to_string(&s).unwrap();
        let back: Settings = toml::from_str(&text).unwrap();
        assert_eq!(back, s);
        // The editor sends a partial object; unset fields keep their values.
        let layer: SettingsLayer = serde_json::from_str(r#"{"model":"m","budget":4}"#).unwrap();
        s.merge(&layer);
        assert_eq!((s.model.as_str(), s.budget, s.seed), ("m", 4, 0));
    }
}
