//! Background searches: each one has an id, a cancellation token and a slot in a bounded pool.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower_lsp_server::ls_types::Uri;

pub use crate::search::offload::{OffloadRequest, OffloadRunner, OffloadSummary};

#[derive(Debug, Clone)]
pub struct JobInfo {
    pub uri: Uri,
    /// 0-based line as the client sent it.
    pub line: u32,
    pub cancel: CancellationToken,
    pub progress_token: Option<String>,
}

pub struct Jobs {
    running: Mutex<HashMap<String, JobInfo>>,
    slots: Mutex<Option<Arc<Semaphore>>>,
}

impl Default for Jobs {
    fn default() -> Self {
        Jobs {
            running: Mutex::new(HashMap::new()),
            slots: Mutex::new(None),
        }
    }
}

impl Jobs {
    /// The pool bounding concurrent searches, created with the limit in force at first use.
    pub fn slots(&self, limit: usize) -> Arc<Semaphore> {
        self.slots
            .lock()
            .expect("slots lock")
            .get_or_insert_with(|| Arc::new(Semaphore::new(limit.max(1))))
            .clone()
    }

    pub fn insert(&self, id: String, info: JobInfo) {
        self.running.lock().expect("jobs lock").insert(id, info);
    }

    pub fn remove(&self, id: &str) -> Option<JobInfo> {
        self.running.lock().expect("jobs lock").remove(id)
    }

    pub fn running_on(&self, uri: &Uri, line: u32) -> Option<String> {
        self.running
            .lock()
            .expect("jobs lock")
            .iter()
            .find(|(_, j)| &j.uri == uri && j.line == line)
            .map(|(id, _)| id.clone())
    }

    /// Cancels the jobs matching the filter; returns how many.
    pub fn cancel_where(&self, pred: impl Fn(&str, &JobInfo) -> bool) -> usize {
        let running = self.running.lock().expect("jobs lock");
        let mut n = 0;
        for (id, job) in running.iter() {
            if pred(id, job) {
                job.cancel.cancel();
                n += 1;
            }
        }
        n
    }
}
