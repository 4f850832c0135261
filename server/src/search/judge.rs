//! The verifier as the search's judge. Verification blocks (compiles, sandboxed runs), so it runs
//! on the blocking pool; the verifier bounds compiles and gives timed runs the machine alone.

use std::sync::{Arc, OnceLock};

use tokio_util::sync::CancellationToken;

use super::env::{Held, Judge};
use super::offload::BoxFuture;
use crate::analysis::OffloadRegion;
use crate::verify::profile::Profile;
use crate::verify::{Protocol, Verifier, VerifyConfig, VerifyOutcome};

pub struct VerifierJudge(pub Arc<Verifier>);

/// `hold_shared` or `hold_alone` of a verifier, waited for on the blocking pool.
async fn hold(verifier: Arc<Verifier>, alone: bool) -> Option<Held> {
    tokio::task::spawn_blocking(move || {
        let held: Held = if alone {
            Box::new(verifier.hold_alone())
        } else {
            Box::new(verifier.hold_shared())
        };
        held
    })
    .await
    .ok()
}

impl Judge for VerifierJudge {
    fn hold_for_model(&self) -> BoxFuture<'_, Option<Held>> {
        Box::pin(hold(self.0.clone(), false))
    }

    fn profile<'a>(
        &'a self,
        region: &'a OffloadRegion,
        candidate: &'a str,
    ) -> BoxFuture<'a, Result<Profile, String>> {
        let verifier = self.0.clone();
        let (region, candidate) = (region.clone(), candidate.to_string());
        Box::pin(async move {
            tokio::task::spawn_blocking(move || verifier.profile(&region, &candidate))
                .await
                .unwrap_or_else(|e| Err(format!("profiling task failed: {e}")))
        })
    }

    fn hold_alone(&self) -> BoxFuture<'_, Option<Held>> {
        Box::pin(hold(self.0.clone(), true))
    }

    fn judge<'a>(
        &'a self,
        region: &'a OffloadRegion,
        candidate: &'a str,
        protocol: Protocol,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, VerifyOutcome> {
        let verifier = self.0.clone();
        let (region, candidate) = (region.clone(), candidate.to_string());
        Box::pin(async move {
            let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let flag = stop.clone();
            let job = tokio::task::spawn_blocking(move || {
                verifier.verify_cancellable(&region, &candidate, protocol, flag)
            });
            tokio::select! {
                joined = job => match joined {
                    Ok(Ok(report)) => report.outcome,
                    // Not the candidate's fault: no reward, nothing to repair.
                    Ok(Err(e)) => VerifyOutcome::VerifierError { detail: e.to_string() },
                    Err(e) => VerifyOutcome::VerifierError { detail: format!("verifier task failed: {e}") },
                },
                // The running compile or candidate is killed (its process group) by the flag.
                _ = cancel.cancelled() => {
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    VerifyOutcome::Cancelled
                }
            }
        })
    }
}

/// A verifier created on first use, so that a server without nvcc still starts (and says why
/// it cannot offload when asked to).
pub struct LazyVerifierJudge {
    config: VerifyConfig,
    verifier: OnceLock<Result<Arc<Verifier>, String>>,
}

impl LazyVerifierJudge {
    pub fn new(config: VerifyConfig) -> Self {
        LazyVerifierJudge {
            config,
            verifier: OnceLock::new(),
        }
    }

    fn verifier(&self) -> Result<Arc<Verifier>, String> {
        self.verifier
            .get_or_init(|| {
                Verifier::new(self.config.clone())
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .clone()
    }

    pub fn gpu_name(&self) -> Option<String> {
        self.verifier().ok().and_then(|v| v.gpu_name())
    }
}

impl Judge for LazyVerifierJudge {
    fn ready(&self) -> Result<(), String> {
        self.verifier().map(|_| ())
    }

    fn hold_for_model(&self) -> BoxFuture<'_, Option<Held>> {
        let verifier = self.verifier().ok();
        Box::pin(async move { hold(verifier?, false).await })
    }

    fn hold_alone(&self) -> BoxFuture<'_, Option<Held>> {
        let verifier = self.verifier().ok();
        Box::pin(async move { hold(verifier?, true).await })
    }

    fn profile<'a>(
        &'a self,
        region: &'a OffloadRegion,
        candidate: &'a str,
    ) -> BoxFuture<'a, Result<Profile, String>> {
        Box::pin(async move {
            match self.verifier() {
                Ok(v) => VerifierJudge(v).profile(region, candidate).await,
                Err(e) => Err(format!("verifier unavailable: {e}")),
            }
        })
    }

    fn judge<'a>(
        &'a self,
        region: &'a OffloadRegion,
        candidate: &'a str,
        protocol: Protocol,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, VerifyOutcome> {
        Box::pin(async move {
            match self.verifier() {
                Ok(v) => {
                    VerifierJudge(v)
                        .judge(region, candidate, protocol, cancel)
                        .await
                }
                Err(e) => VerifyOutcome::VerifierError {
                    detail: format!("verifier unavailable: {e}"),
                },
            }
        })
    }
}
