//! Outcomes by content hash (harness + candidate + toolchain + GPU), one JSON file each, so that
//! re-verification and repeated searches are cheap. Also the reference's outputs per region and
//! plan, which every candidate of a region shares.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::outcome::VerifyOutcome;

/// `$XDG_CACHE_HOME/cuda-offload`, else `~/.cache/cuda-offload`.
pub fn default_dir() -> Option<PathBuf> {
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(x).join("cuda-offload"));
    }
    std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .map(|h| PathBuf::from(h).join(".cache/cuda-offload"))
}

pub fn hash(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        // Length-prefixed so that moving bytes between parts changes the key.
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    hex::encode(h.finalize())
}

/// Largest reference run kept in the cache.
pub const MAX_REFERENCE_BYTES: u64 = 2 << 30;

#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    pub fn new(dir: PathBuf) -> Cache {
        Cache { dir }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn outcome_path(&self, key: &str) -> PathBuf {
        self.dir.join("outcomes").join(format!("{key}.json"))
    }

    pub fn get(&self, key: &str) -> Option<VerifyOutcome> {
        let text = std::fs::read_to_string(self.outcome_path(key)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Best effort: a cache that cannot be written only costs time.
    pub fn put(&self, key: &str, outcome: &VerifyOutcome) {
        let path = self.outcome_path(key);
        let Some(parent) = path.parent() else { return };
        if std::fs::create_dir_all(parent).is_err() {
            return;
        }
        let Ok(text) = serde_json::to_string_pretty(outcome) else {
            return;
        };
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, text).is_ok() {
            let _ = std::fs::rename(&tmp, &path);
        }
    }

    /// A compiled harness object for `key` (every candidate of a region links the same one).
    pub fn object(&self, key: &str) -> Option<PathBuf> {
        let p = self.dir.join("objects").join(format!("{key}.o"));
        p.is_file().then_some(p)
    }

    /// Best effort, like `put`.
    pub fn store_object(&self, key: &str, from: &Path) {
        let dir = self.dir.join("objects");
        if std::fs::create_dir_all(&dir).is_err() {
            return;
        }
        let tmp = dir.join(format!("{key}.tmp{}", std::process::id()));
        if std::fs::copy(from, &tmp).is_ok() {
            let _ = std::fs::rename(&tmp, dir.join(format!("{key}.o")));
        }
    }

    /// Directory holding a finished reference run for `key`, if there is one.
    pub fn reference(&self, key: &str) -> Option<PathBuf> {
        let d = self.dir.join("references").join(key);
        d.join("done").is_file().then_some(d)
    }

    /// Copies a finished reference run into the cache (shared by every candidate of a search, so the
    /// serial time is measured once); returns where it now is. Runs larger than
    /// `MAX_REFERENCE_BYTES` (the timed size of a memory-bound loop writes hundreds of MB) are not
    /// kept: recomputing them costs seconds, keeping them would fill the user's cache.
    pub fn store_reference(&self, key: &str, from: &Path) -> Option<PathBuf> {
        let size: u64 = std::fs::read_dir(from)
            .ok()?
            .flatten()
            .filter_map(|e| e.metadata().ok())
            .map(|m| m.len())
            .sum();
        if size > MAX_REFERENCE_BYTES {
            return None;
        }
        let root = self.dir.join("references");
        let stage = root.join(format!("stage-{key}-{}", std::process::id()));
        std::fs::create_dir_all(&stage).ok()?;
        for entry in std::fs::read_dir(from).ok()?.flatten() {
            if entry.file_type().ok()?.is_file() {
                std::fs::copy(entry.path(), stage.join(entry.file_name())).ok()?;
            }
        }
        std::fs::write(stage.join("done"), b"").ok()?;
        let dest = root.join(key);
        // Another job may have stored the same reference first: then use that one.
        if std::fs::rename(&stage, &dest).is_err() {
            let _ = std::fs::remove_dir_all(&stage);
            if !dest.join("done").is_file() {
                return None;
            }
        }
        Some(dest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_an_outcome() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::new(dir.path().to_path_buf());
        let key = hash(&[b"a", b"b"]);
        assert_ne!(key, hash(&[b"ab", b""]));
        assert!(c.get(&key).is_none());
        let o = VerifyOutcome::Rejected {
            guard: "static:test".into(),
            reason: "r".into(),
        };
        c.put(&key, &o);
        assert_eq!(c.get(&key), Some(o));
    }
}
