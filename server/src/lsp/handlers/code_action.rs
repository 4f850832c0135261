//! `textDocument/codeAction`: "Offload to CUDA" on offloadable loops, "Apply kept CUDA kernel"
//! where a finished search could not be applied.

use tower_lsp_server::ls_types::*;

use super::execute_command::{APPLY_KEPT, OFFLOAD};
use crate::lsp::state::State;

pub fn handle(state: &State, params: CodeActionParams) -> Option<CodeActionResponse> {
    let uri = params.text_document.uri;
    let line0 = params.range.start.line;
    let doc = state.documents.get(&uri)?;
    let report = doc.loop_for_line(line0 as usize + 1)?.clone();
    let offerable = report.parallel && doc.outline(report.line).is_ok();
    drop(doc);
    let mut actions = Vec::new();
    if offerable {
        let arg = serde_json::json!({"uri": uri.as_str(), "line": report.line - 1});
        actions.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: "Offload to CUDA".into(),
            kind: Some(CodeActionKind::REFACTOR_REWRITE),
            command: Some(Command {
                title: "Offload to CUDA".into(),
                command: OFFLOAD.into(),
                arguments: Some(vec![arg]),
            }),
            ..CodeAction::default()
        }));
    }
    for kept in state
        .results_for(&uri)
        .into_iter()
        .filter(|r| !r.applied && r.line == report.line)
    {
        let arg = serde_json::json!({"jobId": kept.job_id});
        actions.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: format!("Apply kept CUDA kernel ({})", kept.summary.verdict),
            kind: Some(CodeActionKind::REFACTOR_REWRITE),
            command: Some(Command {
                title: "Apply kept CUDA kernel".into(),
                command: APPLY_KEPT.into(),
                arguments: Some(vec![arg]),
            }),
            ..CodeAction::default()
        }));
    }
    (!actions.is_empty()).then_some(actions)
}
