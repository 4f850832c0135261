//! A real LSP client for end-to-end tests: spawns `cuda-offload lsp`, speaks Content-Length
//! framed JSON-RPC over its stdio, answers the server's own requests, and records notifications.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Notifications and server requests seen so far, in order.
    pub seen: Vec<Value>,
    backlog: VecDeque<Value>,
    /// How to answer `workspace/applyEdit` (true: applied).
    pub accept_edits: bool,
    /// Answer to `workspace/configuration`.
    pub configuration: Value,
}

/// A path's `file://` URI, as the tests' files have plain ASCII paths.
pub fn uri_of(path: &std::path::Path) -> String {
    format!("file://{}", path.display())
}

/// Applies LSP text edits (line/character, ASCII text) to `text`.
pub fn apply_edits(text: &str, edits: &[Value]) -> String {
    let offset = |pos: &Value| {
        let line = pos["line"].as_u64().unwrap() as usize;
        let ch = pos["character"].as_u64().unwrap() as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        start + ch
    };
    let mut spans: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (start, end, new) in spans {
        out.replace_range(start..end, new);
    }
    out
}

pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

impl Client {
    pub fn spawn(envs: &[(&str, &str)]) -> Client {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cuda-offload"));
        cmd.arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn cuda-offload lsp");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length:") {
                        length = v.trim().parse::<usize>().ok();
                    }
                }
                let Some(len) = length else { return };
                let mut body = vec![0; len];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let Ok(v) = serde_json::from_slice::<Value>(&body) else {
                    return;
                };
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        Client {
            child,
            stdin,
            incoming: rx,
            next_id: 1,
            seen: Vec::new(),
            backlog: VecDeque::new(),
            accept_edits: true,
            configuration: Value::Null,
        }
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn send(&mut self, msg: &Value) {
        let body = serde_json::to_vec(msg).unwrap();
        self.send_raw(&frame(&body));
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns its id without waiting.
    pub fn request_async(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    pub fn request(&mut self, method: &str, params: Value, timeout: Duration) -> Value {
        let id = self.request_async(method, params);
        self.response(id, timeout)
    }

    /// Waits for the response with this id (answering server requests meanwhile).
    pub fn response(&mut self, id: i64, timeout: Duration) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            let msg = self
                .next_message(deadline)
                .unwrap_or_else(|| panic!("no response to request {id} in {timeout:?}"));
            if msg.get("id") == Some(&json!(id)) && msg.get("method").is_none() {
                return msg;
            }
            self.backlog.push_back(msg);
        }
    }

    /// Waits for a notification (or server request) matching `pred`, returning it.
    pub fn wait_for(&mut self, timeout: Duration, pred: impl Fn(&Value) -> bool) -> Option<Value> {
        if let Some(pos) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(pos);
        }
        let deadline = Instant::now() + timeout;
        loop {
            let msg = self.next_message(deadline)?;
            if pred(&msg) {
                return Some(msg);
            }
            self.backlog.push_back(msg);
        }
    }

    fn next_message(&mut self, deadline: Instant) -> Option<Value> {
        let left = deadline.saturating_duration_since(Instant::now());
        let msg = match self.incoming.recv_timeout(left) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => {
                return None;
            }
        };
        self.seen.push(msg.clone());
        if let (Some(method), Some(id)) = (
            msg.get("method").and_then(Value::as_str),
            msg.get("id").cloned(),
        ) {
            let result = match method {
                "workspace/configuration" => json!([self.configuration.clone()]),
                "window/workDoneProgress/create" => Value::Null,
                "workspace/applyEdit" => json!({"applied": self.accept_edits}),
                _ => Value::Null,
            };
            self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
        }
        Some(msg)
    }

    pub fn initialize(&mut self, root: &std::path::Path, options: Value, utf8: bool) -> Value {
        let encodings = if utf8 {
            json!(["utf-8", "utf-16"])
        } else {
            json!(["utf-16"])
        };
        let resp = self.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": format!("file://{}", root.display()),
                "capabilities": {
                    "general": {"positionEncodings": encodings},
                    "window": {"workDoneProgress": true},
                    "workspace": {"configuration": true, "applyEdit": true,
                                  "workspaceEdit": {"documentChanges": true, "resourceOperations": ["create"]}},
                    "textDocument": {"hover": {"contentFormat": ["markdown"]}}
                },
                "initializationOptions": options
            }),
            Duration::from_secs(20),
        );
        self.notify("initialized", json!({}));
        resp
    }

    pub fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "cpp", "version": 1, "text": text}}),
        );
    }

    /// The next publishDiagnostics for `uri` (optionally of a given version).
    pub fn diagnostics(
        &mut self,
        uri: &str,
        version: Option<i64>,
        timeout: Duration,
    ) -> Vec<Value> {
        let msg = self
            .wait_for(timeout, |m| {
                m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["uri"] == uri
                    && version.is_none_or(|v| m["params"]["version"] == v)
            })
            .unwrap_or_else(|| panic!("no diagnostics for {uri} (version {version:?})"));
        msg["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Closes the server's stdin (the client vanished) and waits for it to exit.
    pub fn close_stdin_and_wait(mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let (_, dead) = std::io::pipe().expect("pipe");
        // Replacing our end drops the real pipe: the server reads EOF.
        self.stdin = ChildStdin::from(std::os::fd::OwnedFd::from(dead));
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    pub fn shutdown(mut self) -> std::process::ExitStatus {
        let _ = self.request("shutdown", Value::Null, Duration::from_secs(10));
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("server did not exit after `exit`");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}
