//! `workspace/executeCommand`: start, cancel and apply searches; show the optimization path.
//!
//! `cuda-offload.offload` answers when its search ends, so that `$/cancelRequest` on it cancels
//! the search (a drop guard); the progress cancel button and `cuda-offload.cancel` do too.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Deserialize;
use tokio_util::sync::CancellationToken;
use tower_lsp_server::Client;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

use super::publish;
use crate::lsp::jobs::JobInfo;
use crate::lsp::state::{LoopResult, State};
use crate::search::Progress;
use crate::search::offload::{LineEdit, OffloadRequest, SearchFailure};

pub const OFFLOAD: &str = "cuda-offload.offload";
pub const CANCEL: &str = "cuda-offload.cancel";
pub const APPLY_KEPT: &str = "cuda-offload.applyKept";
pub const SHOW_PATH: &str = "cuda-offload.showPath";
pub const COMMANDS: [&str; 4] = [OFFLOAD, CANCEL, APPLY_KEPT, SHOW_PATH];

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LoopArg {
    uri: String,
    line: u32,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct JobArg {
    job_id: String,
}

pub async fn handle(
    client: &Client,
    state: &Arc<State>,
    params: ExecuteCommandParams,
) -> Result<Option<LSPAny>> {
    let first = params.arguments.into_iter().next();
    match params.command.as_str() {
        OFFLOAD => offload(client, state, parse(first)?).await,
        CANCEL => Ok(Some(cancel(state, first))),
        APPLY_KEPT => apply_kept(client, state, parse(first)?).await,
        SHOW_PATH => show_path(state, parse(first)?),
        other => Err(Error::invalid_params(format!("unknown command {other}"))),
    }
}

fn parse<T: for<'de> Deserialize<'de>>(arg: Option<LSPAny>) -> Result<T> {
    let arg = arg.ok_or_else(|| Error::invalid_params("missing argument"))?;
    serde_json::from_value(arg).map_err(|e| Error::invalid_params(format!("bad argument: {e}")))
}

fn parse_uri(s: &str) -> Result<Uri> {
    s.parse::<Uri>()
        .map_err(|e| Error::invalid_params(format!("bad uri {s}: {e}")))
}

/// Ends the job when the request future ends or is dropped (`$/cancelRequest`): cancels its
/// search and frees its slot, so the loop can be offloaded again.
struct JobGuard {
    state: Arc<State>,
    job_id: String,
    cancel: CancellationToken,
}

impl Drop for JobGuard {
    fn drop(&mut self) {
        self.cancel.cancel();
        self.state.jobs.remove(&self.job_id);
    }
}

async fn offload(client: &Client, state: &Arc<State>, arg: LoopArg) -> Result<Option<LSPAny>> {
    let uri = parse_uri(&arg.uri)?;
    let (outlined, source, version) = {
        let doc = state
            .documents
            .get(&uri)
            .ok_or_else(|| Error::invalid_params("document is not open"))?;
        (doc.outline(arg.line as usize + 1), doc.text(), doc.version)
    };
    let (report, region) = outlined.map_err(|e| Error::invalid_params(e.to_string()))?;
    if let Some(existing) = state.jobs.running_on(&uri, report.line as u32 - 1) {
        return Err(Error::invalid_params(format!(
            "a search is already running on this loop ({existing})"
        )));
    }
    let file = uri
        .to_file_path()
        .map(|p| PathBuf::from(p.as_ref()))
        .ok_or_else(|| Error::invalid_params("only file:// documents can be offloaded"))?;
    let settings = state.settings();
    let job_id = state.next_id("search");
    let cancel = CancellationToken::new();
    let _guard = JobGuard {
        state: state.clone(),
        job_id: job_id.clone(),
        cancel: cancel.clone(),
    };

    let progress_token = if *state.client_supports_progress.read().expect("lock") {
        let token = NumberOrString::String(job_id.clone());
        client
            .create_work_done_progress(token)
            .await
            .ok()
            .map(|_| job_id.clone())
    } else {
        None
    };
    state.jobs.insert(
        job_id.clone(),
        JobInfo {
            uri: uri.clone(),
            line: report.line as u32 - 1,
            cancel: cancel.clone(),
            progress_token: progress_token.clone(),
        },
    );
    let ongoing = match &progress_token {
        Some(t) => Some(
            client
                .progress(
                    NumberOrString::String(t.clone()),
                    format!("Offloading loop at line {}", report.line),
                )
                .with_message("starting".to_string())
                .with_cancel_button()
                .begin()
                .await,
        ),
        None => None,
    };
    let mut last = Progress {
        iteration: 0,
        llm_calls: 0,
        budget: settings.budget.unwrap_or(0),
        best_reward: None,
        current_path: Vec::new(),
        call: None,
    };
    send_status(client, &job_id, &uri, report.line, &last, "running").await;

    // The runner reports from its own task; progress goes to the client from here, in order.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Progress>();
    let sink = Box::new(move |p: &Progress| {
        let _ = tx.send(p.clone());
    });
    let request = OffloadRequest {
        file: file.clone(),
        source: source.clone(),
        region: region.clone(),
        strategy: settings.strategy,
        budget: settings.budget,
        seed: settings.seed,
    };
    let slots = state.jobs.slots(settings.max_concurrent_searches);
    let runner = match state.runner() {
        Ok(r) => r,
        Err(e) => {
            if let Some(o) = ongoing {
                o.finish_with_message(format!("cannot start: {e}")).await;
            }
            return Err(Error::invalid_params(format!("cannot start a search: {e}")));
        }
    };
    let task_cancel = cancel.clone();
    let mut task = tokio::spawn(async move {
        let _permit = slots.acquire_owned().await;
        if task_cancel.is_cancelled() {
            return Err(SearchFailure::from("cancelled"));
        }
        runner.offload(request, sink, task_cancel).await
    });
    let outcome = loop {
        tokio::select! {
            Some(p) = rx.recv() => {
                if let Some(c) = &p.call {
                    // Each model call as it ends: minutes of calls are not one silent wait.
                    if let Some(o) = &ongoing {
                        o.report_with_message(
                            format!("model call {}/{}: {}", p.llm_calls, p.budget, c.describe()),
                            Some(true),
                        ).await;
                    }
                    continue;
                }
                if let Some(o) = &ongoing {
                    let best = p.best_reward.map(|r| format!(", best reward {r:.3}")).unwrap_or_default();
                    o.report_with_message(
                        format!("iteration {}: {}/{} model calls{best} — {}", p.iteration, p.llm_calls, p.budget, p.current_path.join(" → ")),
                        Some(true),
                    ).await;
                }
                send_status(client, &job_id, &uri, report.line, &p, "running").await;
                last = p;
            }
            joined = &mut task => break joined.map_err(|e| SearchFailure::from(format!("search task failed: {e}"))).and_then(|r| r),
        }
    };
    state.jobs.remove(&job_id);
    let cancelled = cancel.is_cancelled();
    let summary = match outcome {
        Ok(s) => s,
        Err(msg) => {
            let state_name = if cancelled { "cancelled" } else { "failed" };
            if let Some(o) = ongoing {
                o.finish_with_message(format!("search {state_name}: {msg}"))
                    .await;
            }
            send_status(client, &job_id, &uri, report.line, &last, state_name).await;
            if !cancelled {
                client
                    .show_message(
                        MessageType::ERROR,
                        format!("cuda-offload: search failed: {msg}"),
                    )
                    .await;
            }
            return Ok(Some(
                serde_json::json!({"jobId": job_id, "state": state_name, "message": msg.message}),
            ));
        }
    };
    if let Some(o) = ongoing {
        o.finish_with_message(summary.verdict.clone()).await;
    }
    send_status(client, &job_id, &uri, report.line, &last, "done").await;

    let loop_text = crate::lsp::state::lines_of(&source, report.line, report.end_line);
    let (now_text, now_version) = state
        .documents
        .get(&uri)
        .map(|d| (d.text(), d.version))
        .unzip();
    let changed = now_version != Some(version);
    // The document may have changed during the search: the result goes where its loop is now.
    let line = now_text
        .and_then(|text| crate::lsp::state::relocate(&text, &loop_text, report.line))
        .unwrap_or(report.line);
    let region_for_check = region.clone();
    store_result(
        state,
        &uri,
        LoopResult {
            job_id: job_id.clone(),
            line,
            version,
            region,
            summary: summary.clone(),
            applied: false,
            stale: changed,
            reverify: None,
            loop_text,
        },
    );
    let applied = if changed {
        client
            .show_message(
                MessageType::INFO,
                format!(
                    "cuda-offload: the document changed during the search; the kernel ({}) is kept: use the code action \"Apply kept CUDA kernel\"",
                    summary.verdict
                ),
            )
            .await;
        false
    } else {
        apply(client, state, &uri, &job_id).await
    };
    publish::diagnostics(client, state, &uri).await;
    if settings.check_build.unwrap_or(true) {
        check_build_after(
            client.clone(),
            file,
            source,
            region_for_check,
            summary.clone(),
            settings.clone(),
        );
    }
    Ok(Some(serde_json::json!({
        "jobId": job_id,
        "state": "done",
        "applied": applied,
        "verified": summary.verified,
        "verdict": summary.verdict,
        "speedup": summary.speedup,
        "rooflineFraction": summary.roofline_fraction,
        "path": summary.path,
        "kernelFile": summary.kernel_file,
    })))
}

/// The project built with the offload's edit in scratch copies (on a GPU also run, compared and
/// timed against its serial build), in the background: its verdict arrives as a message.
fn check_build_after(
    client: Client,
    file: PathBuf,
    source: String,
    region: crate::analysis::OffloadRegion,
    summary: crate::search::offload::OffloadSummary,
    settings: crate::lsp::state::LspSettings,
) {
    tokio::spawn(async move {
        let kernel = summary.kernel_file.clone();
        let checked = tokio::task::spawn_blocking(move || {
            let build = crate::project::build_edit(
                &file,
                &summary.kernel_file,
                // The architecture the applied edit names, so the check builds what the user gets.
                &crate::project::CudaArch::choose(settings.gpu_arch.as_deref()),
                &crate::project::read_from_disk,
            );
            crate::project::check::after_offload(
                &file,
                &source,
                &region,
                &summary,
                &build,
                settings.nvcc_path.as_deref().map(std::path::Path::new),
            )
        })
        .await;
        let (kind, text) = match checked {
            Ok(Some(Ok(report))) => (MessageType::INFO, report.summary),
            Ok(Some(Err(e))) => (
                MessageType::WARNING,
                format!("the build check did not run: {e}"),
            ),
            Ok(None) => return,
            Err(e) => (MessageType::WARNING, format!("the build check failed: {e}")),
        };
        client
            .show_message(kind, format!("cuda-offload: {kernel}: {text}"))
            .await;
    });
}

fn store_result(state: &State, uri: &Uri, result: LoopResult) {
    let mut results = state.results.lock().expect("results lock");
    let list = results.entry(uri.clone()).or_default();
    list.retain(|r| r.line != result.line || r.applied);
    list.push(result);
}

/// Sends the workspace edit for a kept result: the new `.cu` file and the call site.
async fn apply(client: &Client, state: &State, uri: &Uri, job_id: &str) -> bool {
    let Some(result) = state
        .results_for(uri)
        .into_iter()
        .find(|r| r.job_id == job_id)
    else {
        return false;
    };
    let Some(source_path) = uri.to_file_path().map(|p| PathBuf::from(p.as_ref())) else {
        return false;
    };
    let kernel_path = source_path.with_file_name(&result.summary.kernel_file);
    let Some(kernel_uri) = Uri::from_file_path(&kernel_path) else {
        return false;
    };
    let (version, edits, kernel_text, residency) = {
        let Some(doc) = state.documents.get(uri) else {
            return false;
        };
        // The edits are recomputed against the text as it is now: the user may have edited
        // around the loop since the search, but never the loop itself.
        let text = doc.text();
        let Some(line) = crate::lsp::state::relocate(&text, &result.loop_text, result.line) else {
            drop(doc);
            client
                .show_message(
                    MessageType::WARNING,
                    "cuda-offload: the loop changed since the search, so its kernel was not applied; run \"Offload to CUDA\" again",
                )
                .await;
            return false;
        };
        let mut region = result.region.clone();
        region.end_line = line + (region.end_line - region.line);
        region.line = line;
        let enc = state.encoding();
        // The call, and a residency session where this offload completes one.
        let (source_edits, plan) =
            crate::search::workspace_edit::offload_source_edits(&[&region], &text);
        let residency: Vec<String> = plan.iter().map(|r| r.describe()).collect();
        let edits: Vec<OneOf<TextEdit, AnnotatedTextEdit>> = source_edits
            .iter()
            .map(|e| OneOf::Left(line_edit(&doc.rope, e, enc)))
            .collect();
        let kernel_text = crate::search::workspace_edit::with_replaced_lines(
            &result.summary.kernel_source,
            &region,
            &text,
        );
        (doc.version, edits, kernel_text, residency)
    };
    let whole_new_file = Range {
        start: Position {
            line: 0,
            character: 0,
        },
        end: Position {
            line: 0,
            character: 0,
        },
    };
    let changes = vec![
        DocumentChangeOperation::Op(ResourceOp::Create(CreateFile {
            uri: kernel_uri.clone(),
            options: Some(CreateFileOptions {
                overwrite: Some(true),
                ignore_if_exists: None,
            }),
            annotation_id: None,
        })),
        DocumentChangeOperation::Edit(TextDocumentEdit {
            text_document: OptionalVersionedTextDocumentIdentifier {
                uri: kernel_uri,
                version: None,
            },
            edits: vec![OneOf::Left(TextEdit {
                range: whole_new_file,
                new_text: kernel_text,
            })],
        }),
        DocumentChangeOperation::Edit(TextDocumentEdit {
            text_document: OptionalVersionedTextDocumentIdentifier {
                uri: uri.clone(),
                version: Some(version),
            },
            edits,
        }),
    ];
    let mut changes = changes;
    let (build_changes, build_note) =
        build_file_changes(state, &source_path, &result.summary.kernel_file);
    changes.extend(build_changes);
    let edit = WorkspaceEdit {
        document_changes: Some(DocumentChanges::Operations(changes)),
        ..WorkspaceEdit::default()
    };
    match client.apply_edit(edit).await {
        Ok(resp) if resp.applied => {
            if let Some(r) = state
                .results
                .lock()
                .expect("lock")
                .get_mut(uri)
                .and_then(|v| v.iter_mut().find(|r| r.job_id == job_id))
            {
                r.applied = true;
                r.stale = false;
            }
            // What happened to the build (or how to build the kernel by hand) is the user's next step.
            let mut note = format!("cuda-offload: {build_note}");
            for r in &residency {
                note.push_str(&format!("; {r}"));
            }
            client.show_message(MessageType::INFO, note).await;
            true
        }
        Ok(resp) => {
            let why = resp
                .failure_reason
                .unwrap_or_else(|| "the editor refused it".into());
            client
                .show_message(
                    MessageType::WARNING,
                    format!("cuda-offload: edit not applied: {why}"),
                )
                .await;
            false
        }
        Err(e) => {
            client
                .show_message(
                    MessageType::WARNING,
                    format!("cuda-offload: edit not applied: {e}"),
                )
                .await;
            false
        }
    }
}

/// The build files' part of the same edit (CMakeLists.txt, Makefile), against the editor's
/// buffer where one is open, so that one undo takes back the kernel, the call and the build.
fn build_file_changes(
    state: &State,
    source: &std::path::Path,
    kernel_file: &str,
) -> (Vec<DocumentChangeOperation>, String) {
    let open = |path: &std::path::Path| {
        let uri = Uri::from_file_path(path)?;
        let doc = state.documents.get(&uri)?;
        Some((doc.text(), doc.version))
    };
    let arch = crate::project::CudaArch::choose(state.settings().gpu_arch.as_deref());
    let read = |p: &std::path::Path| {
        open(p)
            .map(|(text, _)| text)
            .or_else(|| crate::project::read_from_disk(p))
    };
    let build = crate::project::build_edit(source, kernel_file, &arch, &read);
    let enc = state.encoding();
    let ops = build
        .files
        .iter()
        .filter_map(|f| {
            let uri = Uri::from_file_path(&f.path)?;
            let (text, version) = match open(&f.path) {
                Some((text, version)) => (text, Some(version)),
                None => (crate::project::read_from_disk(&f.path)?, None),
            };
            let rope = ropey::Rope::from_str(&text);
            Some(DocumentChangeOperation::Edit(TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier { uri, version },
                edits: f
                    .edits
                    .iter()
                    .map(|e| OneOf::Left(line_edit(&rope, e, enc)))
                    .collect(),
            }))
        })
        .collect();
    (ops, build.note)
}

fn line_edit(rope: &ropey::Rope, e: &LineEdit, enc: crate::lsp::position::Encoding) -> TextEdit {
    let at_line_start = |line_1based: usize| {
        let line = line_1based.saturating_sub(1);
        if line >= rope.len_lines() {
            crate::lsp::position::to_position(rope, rope.len_bytes(), enc)
        } else {
            Position {
                line: line as u32,
                character: 0,
            }
        }
    };
    let start = at_line_start(e.start_line);
    // `end_line < start_line` is an insertion before `start_line`.
    let end = if e.end_line < e.start_line {
        start
    } else {
        at_line_start(e.end_line + 1)
    };
    TextEdit {
        range: Range { start, end },
        new_text: e.new_text.clone(),
    }
}

fn cancel(state: &State, arg: Option<LSPAny>) -> LSPAny {
    let n = match arg {
        None => state.jobs.cancel_where(|_, _| true),
        Some(v) => {
            if let Ok(JobArg { job_id }) = serde_json::from_value::<JobArg>(v.clone()) {
                state.jobs.cancel_where(|id, _| id == job_id)
            } else if let Ok(LoopArg { uri, line }) = serde_json::from_value::<LoopArg>(v) {
                state
                    .jobs
                    .cancel_where(|_, j| j.uri.as_str() == uri && j.line == line)
            } else {
                0
            }
        }
    };
    serde_json::json!({"cancelled": n})
}

async fn apply_kept(client: &Client, state: &State, arg: JobArg) -> Result<Option<LSPAny>> {
    let uri = {
        let results = state.results.lock().expect("lock");
        results
            .iter()
            .find(|(_, v)| v.iter().any(|r| r.job_id == arg.job_id))
            .map(|(u, _)| u.clone())
            .ok_or_else(|| Error::invalid_params(format!("no kept result {}", arg.job_id)))?
    };
    let applied = apply(client, state, &uri, &arg.job_id).await;
    publish::diagnostics(client, state, &uri).await;
    Ok(Some(serde_json::json!({"applied": applied})))
}

fn show_path(state: &State, arg: LoopArg) -> Result<Option<LSPAny>> {
    let uri = parse_uri(&arg.uri)?;
    if !state.documents.contains_key(&uri) {
        return Err(Error::invalid_params("document is not open"));
    }
    let md = super::hover::loop_markdown(state, &uri, arg.line as usize + 1, 5)
        .ok_or_else(|| Error::invalid_params(format!("no loop at line {}", arg.line + 1)))?;
    Ok(Some(serde_json::json!({"markdown": md})))
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct JobStatus<'a> {
    job_id: &'a str,
    uri: &'a str,
    line: usize,
    iteration: usize,
    llm_calls: usize,
    budget: usize,
    best_reward: Option<f64>,
    state: &'a str,
}

async fn send_status(client: &Client, job: &str, uri: &Uri, line: usize, p: &Progress, st: &str) {
    let status = JobStatus {
        job_id: job,
        uri: uri.as_str(),
        line: line - 1,
        iteration: p.iteration,
        llm_calls: p.llm_calls,
        budget: p.budget,
        best_reward: p.best_reward,
        state: st,
    };
    notify_status(client, status).await;
}

async fn notify_status(client: &Client, status: JobStatus<'_>) {
    let mut params = HashMap::new();
    params.insert("jobs", vec![status]);
    client
        .send_notification::<StatusNotification>(serde_json::to_value(params).unwrap_or_default())
        .await;
}

/// `cuda-offload/status` (docs/lsp-protocol.md).
enum StatusNotification {}

impl notification::Notification for StatusNotification {
    type Params = serde_json::Value;
    const METHOD: &'static str = "cuda-offload/status";
}
