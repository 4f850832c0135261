//! A validating framing layer in front of tower-lsp-server.
//!
//! tower-lsp-server 0.23 answers a message whose body does not decode with a parse error, but
//! tokio-util's `FramedRead` then yields `None` once, which ends the server's read loop: one
//! malformed message shuts the whole server down. So we parse the `Content-Length` frames
//! ourselves, answer bad ones here, and hand the service only messages it can decode. Both
//! directions go through whole frames, so our error answers never interleave with its output.

use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;
use tower_lsp_server::jsonrpc::{Request, Response};

/// Largest message body accepted (a whole-file sync of a huge file still fits).
const MAX_BODY: usize = 64 * 1024 * 1024;

/// What one frame turned out to be.
#[derive(Debug, PartialEq)]
pub enum Frame {
    /// A body that decodes as a JSON-RPC request, notification or response.
    Valid(Vec<u8>),
    /// A frame the service cannot decode; the text is the JSON-RPC error answer to send back.
    Invalid(String),
}

/// Incremental parser of `Content-Length` framed messages.
#[derive(Default)]
pub struct FrameParser {
    buf: Vec<u8>,
}

impl FrameParser {
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next complete frame, if one is buffered. Garbage before a header is skipped and
    /// reported once as a parse error.
    pub fn next_frame(&mut self) -> Option<Frame> {
        loop {
            match self.next_body()? {
                Ok(body) if body.is_empty() => continue,
                Ok(body) => return Some(classify(body)),
                Err(answer) => return Some(Frame::Invalid(answer)),
            }
        }
    }

    /// The next frame's body, unchecked (`Err` holds the answer to a bad header).
    fn next_body(&mut self) -> Option<Result<Vec<u8>, String>> {
        let header_end = find(&self.buf, b"\r\n\r\n")?;
        let header = String::from_utf8_lossy(&self.buf[..header_end]).to_string();
        let length = header.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        });
        let Some(length) = length.filter(|&l| l <= MAX_BODY) else {
            // No usable header: drop up to the next header start, answer once.
            let skip = find(&self.buf[1..], b"Content-Length")
                .map(|i| i + 1)
                .unwrap_or(header_end + 4);
            self.buf.drain(..skip);
            return Some(Err(error_answer(
                -32700,
                "Parse error: bad or missing Content-Length header",
            )));
        };
        let body_start = header_end + 4;
        if self.buf.len() < body_start + length {
            return None;
        }
        let body: Vec<u8> = self.buf[body_start..body_start + length].to_vec();
        self.buf.drain(..body_start + length);
        Some(Ok(body))
    }

    /// The next whole frame's body, for the service's own (trusted) output.
    pub fn next_trusted(&mut self) -> Option<Vec<u8>> {
        loop {
            match self.next_body()? {
                Ok(body) if !body.is_empty() => return Some(body),
                _ => continue,
            }
        }
    }
}

fn classify(body: Vec<u8>) -> Frame {
    // Most messages decode at once; only a bad one is parsed again to find its id. (A whole
    // file's `didOpen` is large: no intermediate `Value` and no copies of it.)
    if serde_json::from_slice::<Request>(&body).is_ok()
        || serde_json::from_slice::<Response>(&body).is_ok()
    {
        return Frame::Valid(body);
    }
    if let Err(e) = std::str::from_utf8(&body) {
        return Frame::Invalid(not_utf8_answer(&body, e.valid_up_to()));
    }
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(&body) else {
        return Frame::Invalid(error_answer(
            -32700,
            "Parse error: the message body is not JSON",
        ));
    };
    let decodes = serde_json::from_value::<Request>(value.clone()).is_ok()
        || serde_json::from_value::<Response>(value.clone()).is_ok();
    if decodes {
        Frame::Valid(body)
    } else {
        let id = value.get("id").cloned().unwrap_or(serde_json::Value::Null);
        let id = if id.is_string() || id.is_number() {
            id
        } else {
            serde_json::Value::Null
        };
        Frame::Invalid(
            serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32600, "message": "Invalid request: not a JSON-RPC 2.0 message"}})
                .to_string(),
        )
    }
}

/// A document whose text is not UTF-8 (a Latin-1 file sent as is): the answer names it and the
/// offset of its first bad byte. A request gets it as its parse error; a notification (`didOpen`,
/// `didChange`) has no answer, so the user is told in a message.
fn not_utf8_answer(body: &[u8], body_offset: usize) -> String {
    let value: serde_json::Value =
        serde_json::from_str(&String::from_utf8_lossy(body)).unwrap_or_default();
    let params = &value["params"];
    let text = params["textDocument"]["text"]
        .as_str()
        .or_else(|| params["contentChanges"][0]["text"].as_str());
    // The text before the first replacement character came through unchanged.
    let place = match text.and_then(|t| t.find('\u{FFFD}')) {
        Some(at) => format!("at byte offset {at} of its text"),
        None => format!("at byte offset {body_offset} of the message"),
    };
    let message = match params["textDocument"]["uri"].as_str() {
        Some(uri) => format!(
            "cuda-offload: {uri} is not UTF-8 (first invalid byte {place}); the message was dropped: save the file as UTF-8"
        ),
        None => format!(
            "cuda-offload: a message is not UTF-8 (first invalid byte {place}); it was dropped"
        ),
    };
    let id = value
        .get("id")
        .filter(|id| id.is_string() || id.is_number());
    if id.is_none() && value.get("method").is_some() {
        serde_json::json!({"jsonrpc": "2.0", "method": "window/showMessage",
                           "params": {"type": 1, "message": message}})
        .to_string()
    } else {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32700, "message": message}})
            .to_string()
    }
}

fn error_answer(code: i64, message: &str) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}})
        .to_string()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

pub fn encode(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// Message bodies the server serialized itself, written to the client as whole frames beside the
/// service's output (`publishDiagnostics` of a large file: tower-lsp-server would build a
/// `serde_json::Value` of every diagnostic first).
pub type RawSender = tokio::sync::mpsc::UnboundedSender<Vec<u8>>;

/// Streams between the real client and the service: returns the (reader, writer) pair to give
/// `tower_lsp_server::Server::new`, the sender of raw messages, and a signal that fires once the
/// client sent `exit` or closed its input. Three tasks pump frames until then.
pub fn validate<R, W>(
    client_in: R,
    client_out: W,
) -> (
    tokio::io::DuplexStream,
    tokio::io::DuplexStream,
    RawSender,
    tokio::sync::oneshot::Receiver<()>,
)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (service_in, mut to_service) = tokio::io::duplex(1 << 20);
    let (from_service, service_out) = tokio::io::duplex(1 << 20);
    let out = Arc::new(Mutex::new(client_out));

    let answers = out.clone();
    let raw_out = out.clone();
    let (raw_tx, mut raw_rx) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
    tokio::spawn(async move {
        while let Some(body) = raw_rx.recv().await {
            let mut w = raw_out.lock().await;
            // Header and body apart: a large body is not copied again.
            let header = format!("Content-Length: {}\r\n\r\n", body.len());
            if w.write_all(header.as_bytes()).await.is_err() || w.write_all(&body).await.is_err() {
                return;
            }
            let _ = w.flush().await;
        }
    });
    let (exit_tx, exit_rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let mut client_in = client_in;
        let mut parser = FrameParser::default();
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            let n = match client_in.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            parser.push(&chunk[..n]);
            while let Some(frame) = parser.next_frame() {
                match frame {
                    Frame::Valid(body) => {
                        let exit = is_exit(&body);
                        if to_service.write_all(&encode(&body)).await.is_err() {
                            return;
                        }
                        if exit {
                            let _ = exit_tx.send(());
                            return;
                        }
                    }
                    Frame::Invalid(answer) => {
                        tracing::warn!("dropped a malformed message from the client");
                        let mut w = answers.lock().await;
                        let _ = w.write_all(&encode(answer.as_bytes())).await;
                        let _ = w.flush().await;
                    }
                }
            }
        }
        // Closing the service's input lets it shut down as it would on a closed stdin.
        drop(to_service);
        let _ = exit_tx.send(());
    });

    tokio::spawn(async move {
        let mut from_service = from_service;
        let mut parser = FrameParser::default();
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            let n = match from_service.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            parser.push(&chunk[..n]);
            while let Some(body) = parser.next_trusted() {
                let mut w = out.lock().await;
                if w.write_all(&encode(&body)).await.is_err() {
                    return;
                }
                let _ = w.flush().await;
            }
        }
    });

    (service_in, service_out, raw_tx, exit_rx)
}

fn is_exit(body: &[u8]) -> bool {
    /// Only the two fields that matter, without building the rest of the message.
    #[derive(serde::Deserialize)]
    struct Head<'a> {
        #[serde(borrow, default)]
        method: Option<std::borrow::Cow<'a, str>>,
        #[serde(default)]
        id: Option<serde::de::IgnoredAny>,
    }
    // A mention of `exit` in the text of a document is no reason to parse it.
    if !body.windows(6).any(|w| w == b"\"exit\"") {
        return false;
    }
    serde_json::from_slice::<Head>(body)
        .ok()
        .is_some_and(|h| h.method.as_deref() == Some("exit") && h.id.is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<Frame> {
        let mut p = FrameParser::default();
        p.push(input);
        std::iter::from_fn(|| p.next_frame()).collect()
    }

    #[test]
    fn passes_valid_messages_in_pieces() {
        let msg = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
        let framed = encode(msg);
        let mut p = FrameParser::default();
        for b in &framed[..framed.len() - 1] {
            p.push(std::slice::from_ref(b));
            assert_eq!(p.next_frame(), None);
        }
        p.push(&framed[framed.len() - 1..]);
        assert_eq!(p.next_frame(), Some(Frame::Valid(msg.to_vec())));
    }

    #[test]
    fn answers_bad_json_and_keeps_going() {
        let good = br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        let mut input = encode(b"{not json");
        input.extend(encode(good));
        let got = frames(&input);
        assert_eq!(got.len(), 2);
        assert!(matches!(&got[0], Frame::Invalid(a) if a.contains("-32700")));
        assert_eq!(got[1], Frame::Valid(good.to_vec()));
    }

    #[test]
    fn answers_json_that_is_not_jsonrpc_with_its_id() {
        let got = frames(&encode(br#"{"id":7,"hello":"world"}"#));
        assert!(
            matches!(&got[0], Frame::Invalid(a) if a.contains("-32600") && a.contains("\"id\":7")),
            "{got:?}"
        );
    }

    #[test]
    fn skips_garbage_headers() {
        let good = br#"{"jsonrpc":"2.0","method":"exit"}"#;
        let mut input = b"Content-Type: text/plain\r\n\r\n".to_vec();
        input.extend(encode(good));
        let got = frames(&input);
        assert!(matches!(&got[0], Frame::Invalid(_)));
        assert_eq!(got[1], Frame::Valid(good.to_vec()));
    }

    #[test]
    fn non_utf8_body_is_a_parse_error() {
        let got = frames(&encode(&[0xff, 0xfe, 0x00]));
        assert!(matches!(&got[0], Frame::Invalid(a) if a.contains("-32700")));
    }

    #[test]
    fn a_latin1_document_is_named_with_its_offset() {
        let mut open = br#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///w/latin.cpp","languageId":"cpp","version":1,"text":"// \n"#.to_vec();
        open.extend(b"\xe9t\xe9\"}}}");
        let got = frames(&encode(&open));
        let Frame::Invalid(answer) = &got[0] else {
            panic!("{got:?}")
        };
        let v: serde_json::Value = serde_json::from_str(answer).unwrap();
        assert_eq!(v["method"], "window/showMessage", "{v}");
        let message = v["params"]["message"].as_str().unwrap();
        assert!(
            message.contains("file:///w/latin.cpp is not UTF-8")
                && message.contains("byte offset 4 of its text"),
            "{message}"
        );
    }
}
