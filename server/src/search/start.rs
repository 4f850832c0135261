//! Where a search starts: the generated port, verified like any candidate, or the serial code
//! (asked for, or because no port could be written or the port failed its checks).

use std::sync::Mutex;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::env::{CandidateRecord, Judge};
use super::port::{Start, port};
use crate::analysis::OffloadRegion;
use crate::verify::{Protocol, RewardForm, VerifyOutcome, reward};

/// What a search started from, for the trace, the summary and the hover.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StartReport {
    /// What the settings asked for.
    pub asked: Start,
    /// What the search started from.
    pub from: Start,
    /// How the port mapped the loop, when there is a port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<String>,
    /// The port's verdict, or why the search starts from the serial code.
    pub note: String,
    /// The port's reward when the search starts from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reward: Option<f64>,
}

/// The starting state of a search and what it is.
pub struct Starting {
    pub state: String,
    pub report: StartReport,
}

impl Starting {
    /// The root's reward and note for a search that starts from a verified kernel.
    pub fn root(&self) -> Option<(f64, String)> {
        self.report
            .reward
            .filter(|_| self.report.from == Start::Port)
            .map(|r| (r, self.report.note.clone()))
    }
}

/// The serial code, or the port when asked for and it passes the search's checks; the port's
/// verification is recorded among the candidates.
pub async fn starting_point(
    region: &OffloadRegion,
    judge: &dyn Judge,
    asked: Start,
    form: RewardForm,
    cancel: &CancellationToken,
    candidates: &Mutex<Vec<CandidateRecord>>,
) -> Starting {
    let serial = |note: String, shape: Option<String>| Starting {
        state: region.source.clone(),
        report: StartReport {
            asked,
            from: Start::Serial,
            shape,
            note,
            reward: None,
        },
    };
    if asked == Start::Serial {
        return serial("the serial code, as asked (--start serial)".into(), None);
    }
    let generated = match port(region) {
        Ok(p) => p,
        Err(e) => {
            tracing::info!(region = %region.name, "no port: {e}");
            return serial(format!("no port: {e}"), None);
        }
    };
    let started = Instant::now();
    let outcome = judge
        .judge(region, &generated.code, Protocol::Screening, cancel)
        .await;
    let value = reward(&outcome, form);
    candidates
        .lock()
        .expect("candidates lock")
        .push(CandidateRecord {
            technique: "port".into(),
            attempt: 0,
            outcome: Some(outcome.clone()),
            answer_error: None,
            code: Some(generated.code.clone()),
            answer: None,
            reward: outcome.is_judgement().then_some(value),
            prompt_tokens: 0,
            completion_tokens: 0,
            seconds: started.elapsed().as_secs_f64(),
        });
    let passed = matches!(
        outcome,
        VerifyOutcome::Correct(_) | VerifyOutcome::CompiledNotRun { .. }
    );
    if !passed {
        // A port that fails is a bug of the generator (or of the analysis that chose the kind).
        tracing::warn!(region = %region.name, "the port failed verification: {}", outcome.summary());
        return serial(
            format!("the port failed verification: {}", outcome.summary()),
            Some(generated.shape),
        );
    }
    Starting {
        state: generated.code,
        report: StartReport {
            asked,
            from: Start::Port,
            shape: Some(generated.shape),
            note: outcome.summary(),
            reward: Some(value),
        },
    }
}
