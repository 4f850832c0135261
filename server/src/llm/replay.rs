//! Cassettes: answers of a real model, recorded once, replayed in tests and demos.
//!
//! A cassette is a JSONL file. The first line is a header naming the model, the server that ran it
//! and the date; every other line is one call:
//!
//! ```text
//! {"cassette":1,"model":"qwen2.5-coder-0.5b-instruct-q4_k_m","server":"llama.cpp b0-unknown","date":"2026-12-02"}
//! {"key":"<sha256>","request":{...},"response":{"text":...,"prompt_tokens":..,"completion_tokens":..,"finish":"stop"}}
//! ```
//!
//! The key is the lowercase hex sha256 of the canonical request: the compact JSON (serde_json,
//! fields in this order, no whitespace) of
//! `{"model":..,"messages":[{"role":..,"content":..},..],"temperature":..,"seed":..,"max_tokens":..}`.
//! The model is the name the recording backend was configured with; nothing else (URL, timeouts,
//! backend kind) is part of it, so a cassette recorded through Ollama replays for llama-server too.
//! Any change to a prompt template changes the keys: re-record then.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{CallControl, ChatModel, ChatRequest, ChatResponse, LlmError, Message};

pub const CASSETTE_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CassetteHeader {
    pub cassette: u32,
    pub model: String,
    /// The server and build that produced the answers (e.g. `llama.cpp b0-unknown`).
    pub server: String,
    /// UTC date of the recording, `YYYY-MM-DD`.
    pub date: String,
}

/// The request as it enters the key: field order is part of the format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CanonicalRequest {
    pub model: String,
    pub messages: Vec<Message>,
    pub temperature: f32,
    pub seed: u64,
    pub max_tokens: u32,
}

impl CanonicalRequest {
    pub fn new(model: &str, request: &ChatRequest) -> Self {
        CanonicalRequest {
            model: model.to_string(),
            messages: request.messages.clone(),
            temperature: request.temperature,
            seed: request.seed,
            max_tokens: request.max_tokens,
        }
    }

    pub fn key(&self) -> String {
        let json = serde_json::to_vec(self).expect("plain data always serializes");
        hex::encode(Sha256::digest(&json))
    }
}

/// The replay key of `request` sent to `model`.
pub fn request_key(model: &str, request: &ChatRequest) -> String {
    CanonicalRequest::new(model, request).key()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub key: String,
    pub request: CanonicalRequest,
    pub response: ChatResponse,
}

/// A whole cassette file in memory.
#[derive(Debug, Clone)]
pub struct Cassette {
    pub path: PathBuf,
    pub header: CassetteHeader,
    pub entries: Vec<Entry>,
}

impl Cassette {
    pub fn load(path: &Path) -> Result<Self, LlmError> {
        let bad = |reason: String| LlmError::Cassette {
            path: path.to_path_buf(),
            reason,
        };
        let file = File::open(path).map_err(|e| bad(format!("cannot open: {e}")))?;
        let mut lines = BufReader::new(file).lines().enumerate();
        let header: CassetteHeader = match lines.next() {
            Some((_, Ok(line))) => serde_json::from_str(&line)
                .map_err(|e| bad(format!("line 1 is not a cassette header ({e})")))?,
            Some((_, Err(e))) => return Err(bad(format!("cannot read: {e}"))),
            None => return Err(bad("empty file (no header line)".into())),
        };
        if header.cassette != CASSETTE_VERSION {
            return Err(bad(format!(
                "cassette format {} (this build reads {CASSETTE_VERSION})",
                header.cassette
            )));
        }
        let mut entries = Vec::new();
        for (i, line) in lines {
            let line = line.map_err(|e| bad(format!("cannot read: {e}")))?;
            if line.trim().is_empty() {
                continue;
            }
            let entry: Entry = serde_json::from_str(&line)
                .map_err(|e| bad(format!("line {} is not an entry ({e})", i + 1)))?;
            if entry.request.key() != entry.key {
                return Err(bad(format!(
                    "line {}: key {} does not match its request (edited by hand?)",
                    i + 1,
                    entry.key
                )));
            }
            entries.push(entry);
        }
        Ok(Cassette {
            path: path.to_path_buf(),
            header,
            entries,
        })
    }
}

/// Answers from a cassette; never talks to a server.
pub struct Replay {
    cassette: PathBuf,
    model: String,
    answers: HashMap<String, ChatResponse>,
}

impl Replay {
    /// Opens `path`; requests are keyed with the model its header names.
    pub fn open(path: &Path) -> Result<Self, LlmError> {
        let cassette = Cassette::load(path)?;
        let mut answers = HashMap::new();
        for entry in cassette.entries {
            // The first recording of a request wins; later duplicates are re-recordings.
            answers.entry(entry.key).or_insert(entry.response);
        }
        Ok(Replay {
            cassette: path.to_path_buf(),
            model: cassette.header.model,
            answers,
        })
    }

    pub fn len(&self) -> usize {
        self.answers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }

    pub fn lookup(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let key = request_key(&self.model, request);
        self.answers
            .get(&key)
            .cloned()
            .ok_or_else(|| LlmError::CassetteMiss {
                key,
                cassette: self.cassette.clone(),
                model: self.model.clone(),
            })
    }
}

impl ChatModel for Replay {
    fn model(&self) -> &str {
        &self.model
    }

    fn describe(&self) -> String {
        format!("replay {} ({})", self.cassette.display(), self.model)
    }

    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
        control: &'a CallControl,
    ) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        Box::pin(control.guard(async move { self.lookup(request) }))
    }
}

/// Wraps a real backend and appends each new answer to a cassette. Requests the cassette already
/// answers are replayed, not sent again, so recording is idempotent and resumes where it stopped.
pub struct Recorder {
    inner: Arc<dyn ChatModel>,
    path: PathBuf,
    file: Mutex<File>,
    known: Mutex<HashMap<String, ChatResponse>>,
}

impl Recorder {
    /// Appends to `path`, writing a header first if the file is new or empty. `server` names the
    /// server and its build for the header.
    pub fn create(inner: Arc<dyn ChatModel>, path: &Path, server: &str) -> Result<Self, LlmError> {
        let bad = |reason: String| LlmError::Cassette {
            path: path.to_path_buf(),
            reason,
        };
        let fresh = std::fs::metadata(path)
            .map(|m| m.len() == 0)
            .unwrap_or(true);
        let mut known = HashMap::new();
        if !fresh {
            let existing = Cassette::load(path)?;
            if existing.header.model != inner.model() {
                return Err(bad(format!(
                    "records answers of `{}`, not of `{}`; use another cassette",
                    existing.header.model,
                    inner.model()
                )));
            }
            for entry in existing.entries {
                known.entry(entry.key).or_insert(entry.response);
            }
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| bad(format!("cannot create: {e}")))?;
        }
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| bad(format!("cannot open for appending: {e}")))?;
        if fresh {
            let header = CassetteHeader {
                cassette: CASSETTE_VERSION,
                model: inner.model().to_string(),
                server: server.to_string(),
                date: utc_date_today(),
            };
            let line = serde_json::to_string(&header).expect("plain data always serializes");
            writeln!(file, "{line}").map_err(|e| bad(format!("cannot write: {e}")))?;
        }
        Ok(Recorder {
            inner,
            path: path.to_path_buf(),
            file: Mutex::new(file),
            known: Mutex::new(known),
        })
    }

    /// Recording through [`super::connect`]: the header names the backend it wraps.
    pub fn new(inner: Arc<dyn ChatModel>, path: &Path) -> Result<Self, LlmError> {
        let server = inner.describe();
        Self::create(inner, path, &server)
    }

    fn recorded(&self, request: &ChatRequest) -> Option<ChatResponse> {
        let key = request_key(self.inner.model(), request);
        let known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        known.get(&key).cloned()
    }

    fn append(&self, request: &ChatRequest, response: &ChatResponse) -> Result<(), LlmError> {
        let canonical = CanonicalRequest::new(self.inner.model(), request);
        self.known
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(canonical.key())
            .or_insert_with(|| response.clone());
        let entry = Entry {
            key: canonical.key(),
            request: canonical,
            response: response.clone(),
        };
        let line = serde_json::to_string(&entry).expect("plain data always serializes");
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        writeln!(file, "{line}").map_err(|e| LlmError::Cassette {
            path: self.path.clone(),
            reason: format!("cannot append: {e}"),
        })
    }
}

impl ChatModel for Recorder {
    fn model(&self) -> &str {
        self.inner.model()
    }

    fn describe(&self) -> String {
        format!(
            "recording {} into {}",
            self.inner.describe(),
            self.path.display()
        )
    }

    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
        control: &'a CallControl,
    ) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        Box::pin(async move {
            if let Some(response) = self.recorded(request) {
                return Ok(response);
            }
            let response = self.inner.chat(request, control).await?;
            self.append(request, &response)?;
            Ok(response)
        })
    }
}

/// Today's UTC date as `YYYY-MM-DD` (days-to-civil conversion, proleptic Gregorian).
fn utc_date_today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_stable_and_documented() {
        let request = ChatRequest {
            messages: vec![Message::system("s"), Message::user("u")],
            temperature: 0.0,
            seed: 7,
            max_tokens: 16,
        };
        let canonical = CanonicalRequest::new("m", &request);
        let json = serde_json::to_string(&canonical).unwrap();
        assert_eq!(
            json,
            r#"{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}],"temperature":0.0,"seed":7,"max_tokens":16}"#
        );
        // Computed independently: printf '%s' "$json" | sha256sum
        assert_eq!(
            canonical.key(),
            hex::encode(Sha256::digest(json.as_bytes()))
        );
        let mut other = request.clone();
        other.seed = 8;
        assert_ne!(request_key("m", &other), canonical.key());
        assert_ne!(request_key("m2", &request), canonical.key());
    }

    #[test]
    fn dates_convert() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_424), (2025, 12, 2));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn bad_cassettes_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.jsonl");
        std::fs::write(&p, "not json\n").unwrap();
        let e = Replay::open(&p).err().unwrap().to_string();
        assert!(e.contains("line 1 is not a cassette header"), "{e}");
        std::fs::write(
            &p,
            "{\"cassette\":1,\"model\":\"m\",\"server\":\"s\",\"date\":\"d\"}\n{\"key\":\"x\"}\n",
        )
        .unwrap();
        let e = Replay::open(&p).err().unwrap().to_string();
        assert!(e.contains("line 2 is not an entry"), "{e}");
        let e = Replay::open(&dir.path().join("missing.jsonl"))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("cannot open"), "{e}");
    }
}
