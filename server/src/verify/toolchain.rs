//! Finding nvcc: explicit configuration first, then `CUDA_HOME`/`CUDA_PATH`, then `PATH`, then the
//! project-local `.toolchain/` that `scripts/setup` fills.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;

/// Where an nvcc was found, and how.
#[derive(Debug, Clone, Serialize)]
pub struct Nvcc {
    pub path: PathBuf,
    /// The CUDA root (parent of `bin/`), used for `-L<root>/lib` and includes.
    pub cuda_home: PathBuf,
    /// `13.0` style release, parsed from `nvcc --version`.
    pub version: String,
    /// Which rule found it: `config`, `CUDA_HOME`, `CUDA_PATH`, `PATH` or `.toolchain`.
    pub found_by: &'static str,
}

#[derive(Debug, thiserror::Error)]
pub enum NvccError {
    #[error(
        "nvcc not found (looked in: {looked}). Install the CUDA toolkit, set CUDA_HOME, or run `scripts/setup`"
    )]
    NotFound { looked: String },
    #[error("nvcc at {path} does not run: {reason}")]
    Broken { path: PathBuf, reason: String },
}

/// Looks for nvcc in order; `configured` is a path from the user's configuration (file or dir).
/// `project_root` is where `.toolchain/` may live (the workspace or the cuda-offload checkout).
pub fn find_nvcc(configured: Option<&Path>, project_roots: &[PathBuf]) -> Result<Nvcc, NvccError> {
    let mut looked = Vec::new();
    let mut candidates: Vec<(PathBuf, &'static str)> = Vec::new();
    if let Some(p) = configured {
        let p = if p.is_dir() {
            p.join("bin/nvcc")
        } else {
            p.to_path_buf()
        };
        candidates.push((p, "config"));
    }
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            let name: &'static str = if var == "CUDA_HOME" {
                "CUDA_HOME"
            } else {
                "CUDA_PATH"
            };
            candidates.push((PathBuf::from(v).join("bin/nvcc"), name));
        }
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            candidates.push((dir.join("nvcc"), "PATH"));
        }
    }
    for root in project_roots {
        for p in toolchain_nvccs(root) {
            candidates.push((p, ".toolchain"));
        }
    }
    for (path, found_by) in candidates {
        looked.push(format!("{found_by}: {}", path.display()));
        if !path.is_file() {
            // An explicit setting that points nowhere is an error the user must see, not a fallthrough.
            if found_by == "config" {
                return Err(NvccError::NotFound {
                    looked: looked.join("; "),
                });
            }
            continue;
        }
        // nvcc resolves its includes relative to its real location: a symlink breaks it.
        let real = std::fs::canonicalize(&path).unwrap_or(path.clone());
        let version = nvcc_version(&real)?;
        let cuda_home = real
            .parent()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        return Ok(Nvcc {
            path: real,
            cuda_home,
            version,
            found_by,
        });
    }
    Err(NvccError::NotFound {
        looked: if looked.is_empty() {
            "nowhere".into()
        } else {
            looked.join("; ")
        },
    })
}

/// The nvcc binaries `scripts/setup` installs under `<root>/.toolchain/cuda`.
fn toolchain_nvccs(root: &Path) -> Vec<PathBuf> {
    let lib = root.join(".toolchain/cuda/lib");
    let Ok(entries) = std::fs::read_dir(&lib) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path().join("site-packages/nvidia/cu13/bin/nvcc"))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found
}

fn nvcc_version(path: &Path) -> Result<String, NvccError> {
    let out = Command::new(path)
        .arg("--version")
        .output()
        .map_err(|e| NvccError::Broken {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
    if !out.status.success() {
        return Err(NvccError::Broken {
            path: path.to_path_buf(),
            reason: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(parse_nvcc_version(&text).unwrap_or_else(|| "unknown".to_string()))
}

/// Extracts `13.0` from nvcc's `Cuda compilation tools, release 13.0, V13.0.88`.
pub fn parse_nvcc_version(text: &str) -> Option<String> {
    let rest = text.split("release ").nth(1)?;
    Some(rest.split(',').next()?.trim().to_string())
}

/// Roots that may hold a `.toolchain/`: the current directory and its ancestors, and the checkout
/// the running binary was built in (for `target/release/cuda-offload`).
pub fn default_project_roots() -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        roots.extend(cwd.ancestors().map(Path::to_path_buf));
    }
    if let Ok(exe) = std::env::current_exe() {
        roots.extend(exe.ancestors().skip(1).map(Path::to_path_buf));
    }
    roots.dedup();
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_release_from_nvcc_banner() {
        let banner = "nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2025 NVIDIA Corporation\n\
                      Built on Wed_Aug_20_01:58:59_PM_PDT_2025\nCuda compilation tools, release 13.0, V13.0.88\n";
        assert_eq!(parse_nvcc_version(banner).as_deref(), Some("13.0"));
        assert_eq!(parse_nvcc_version("garbage"), None);
    }

    #[test]
    fn configured_path_that_does_not_exist_is_an_error() {
        let err = find_nvcc(Some(Path::new("/nonexistent/nvcc")), &[]).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/nvcc"), "{err}");
    }
}
