//! Which GPU (if any) candidates can run on.

use std::process::Command;

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gpu {
    pub index: u32,
    pub name: String,
    /// `9.0` for the H200.
    pub compute_capability: String,
    pub driver: String,
    pub memory_mib: Option<u64>,
}

impl Gpu {
    /// `sm_90` for compute capability 9.0.
    pub fn arch(&self) -> String {
        format!("sm_{}", self.compute_capability.replace('.', ""))
    }
}

/// Why no GPU can be used; the text is shown to users as is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NoGpu {
    pub reason: String,
}

/// Asks `nvidia-smi`; no driver or no device both mean "no GPU".
pub fn detect_gpus() -> Result<Vec<Gpu>, NoGpu> {
    let out = Command::new("nvidia-smi")
        .args([
            "--query-gpu=index,name,compute_cap,driver_version,memory.total",
            "--format=csv,noheader,nounits",
        ])
        .output();
    let out = match out {
        Ok(o) => o,
        Err(_) => {
            return Err(NoGpu {
                reason: "nvidia-smi not found (no NVIDIA driver on this machine)".into(),
            });
        }
    };
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stdout).trim().to_string();
        return Err(NoGpu {
            reason: format!("nvidia-smi failed: {msg}"),
        });
    }
    let gpus = parse_nvidia_smi(&String::from_utf8_lossy(&out.stdout));
    if gpus.is_empty() {
        return Err(NoGpu {
            reason: "nvidia-smi lists no GPU".into(),
        });
    }
    Ok(gpus)
}

pub fn parse_nvidia_smi(csv: &str) -> Vec<Gpu> {
    csv.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split(',').map(str::trim).collect();
            if f.len() < 4 {
                return None;
            }
            Some(Gpu {
                index: f[0].parse().ok()?,
                name: f[1].to_string(),
                compute_capability: f[2].to_string(),
                driver: f[3].to_string(),
                memory_mib: f.get(4).and_then(|m| m.parse().ok()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_an_h200_line() {
        let gpus = parse_nvidia_smi("0, NVIDIA H200, 9.0, 580.82.07, 143771\n");
        assert_eq!(gpus.len(), 1);
        assert_eq!(gpus[0].name, "NVIDIA H200");
        assert_eq!(gpus[0].arch(), "sm_90");
        assert_eq!(gpus[0].memory_mib, Some(143771));
    }

    #[test]
    fn ignores_noise() {
        assert!(parse_nvidia_smi("No devices were found\n").is_empty());
    }
}
