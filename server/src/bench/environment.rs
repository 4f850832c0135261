//! What a record says about where it was measured: GPU, driver, nvcc, commit, cores, time.

use std::path::Path;
use std::process::Command;

/// Splits the verifier's `NAME (driver X)` into the name and the driver.
pub fn split_gpu_name(gpu: Option<&str>) -> (Option<String>, Option<String>) {
    let Some(g) = gpu else {
        return (None, None);
    };
    match g.rsplit_once(" (driver ") {
        Some((name, rest)) => (
            Some(name.to_string()),
            Some(rest.trim_end_matches(')').to_string()),
        ),
        None => (Some(g.to_string()), None),
    }
}

/// `git rev-parse --short HEAD` of the checkout holding `dir`, with `-dirty` when it has changes;
/// `unknown` outside a checkout.
pub fn git_commit(dir: &Path) -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(dir)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(c) if !c.is_empty() => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty { format!("{c}-dirty") } else { c }
        }
        _ => "unknown".into(),
    }
}

pub fn cpu_cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// Now in UTC, RFC 3339 to the second.
pub fn timestamp_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let day = crate::graph::verification::today_utc();
    let t = secs % 86_400;
    format!("{day}T{:02}:{:02}:{:02}Z", t / 3600, t / 60 % 60, t % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verifier_gpu_name_splits_into_name_and_driver() {
        assert_eq!(
            split_gpu_name(Some("NVIDIA H200 (driver 570.1)")),
            (Some("NVIDIA H200".into()), Some("570.1".into()))
        );
        assert_eq!(split_gpu_name(None), (None, None));
    }

    #[test]
    fn timestamps_look_like_rfc_3339() {
        let t = timestamp_utc();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.ends_with('Z') && t.as_bytes()[10] == b'T', "{t}");
    }
}
