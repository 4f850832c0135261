//! What a record says about where it was measured: GPU, driver, nvcc, commit, cores, time.

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

/// The commit this binary was built from (`-dirty` if tracked files differed), `unknown` if it was
/// built outside git: what ran, not the checkout it runs in.
pub fn build_commit() -> &'static str {
    env!("CUDA_OFFLOAD_COMMIT")
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
    fn the_build_commit_is_a_short_hash_or_unknown() {
        let c = build_commit();
        let hash = c.strip_suffix("-dirty").unwrap_or(c);
        assert!(
            c == "unknown" || (hash.len() == 12 && hash.bytes().all(|b| b.is_ascii_hexdigit())),
            "{c}"
        );
    }

    #[test]
    fn timestamps_look_like_rfc_3339() {
        let t = timestamp_utc();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.ends_with('Z') && t.as_bytes()[10] == b'T', "{t}");
    }
}
