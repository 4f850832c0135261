//! Benchmark tasks: `bench/tasks/<suite>/<id>/task.toml` in the graph tasks' format
//! (`crate::graph::tasks::Task`) with its `[bench]` table (origin, OpenMP baseline), plus
//! `reference.cu`, a plain correct CUDA candidate that validates the task on a GPU.

use std::path::{Path, PathBuf};

use super::BenchError;
use crate::graph::tasks::{BenchInfo, Task, load_tasks};

/// One loaded benchmark task.
#[derive(Debug, Clone)]
pub struct BenchTask {
    pub task: Task,
    pub dir: PathBuf,
}

impl BenchTask {
    pub fn id(&self) -> &str {
        &self.task.id
    }

    pub fn info(&self) -> &BenchInfo {
        self.task
            .bench
            .as_ref()
            .expect("load_suite keeps only tasks with a [bench] table")
    }

    /// The plain CUDA candidate shipped with the task.
    pub fn reference_cu(&self) -> PathBuf {
        self.dir.join("reference.cu")
    }

    /// The C++ file the search is told the loop lives in (the serial function alone).
    pub fn serial_path(&self) -> PathBuf {
        self.dir.join(format!("{}.cpp", self.task.id))
    }
}

/// `bench/tasks/<suite>` of the nearest checkout above `start`.
pub fn find_suite_dir(start: &Path, suite: &str) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|a| a.join("bench/tasks").join(suite))
        .find(|d| d.is_dir())
}

/// Every task of a suite directory, sorted by id. Each must have a `[bench]` table whose OpenMP source
/// defines the same function, and a `reference.cu` defining `<name>_gpu`.
pub fn load_suite(dir: &Path) -> Result<Vec<BenchTask>, BenchError> {
    let tasks = load_tasks(dir).map_err(|e| BenchError::Task {
        path: dir.to_path_buf(),
        message: e.to_string(),
    })?;
    let mut out = Vec::new();
    for (id, task) in tasks {
        let tdir = dir.join(&id);
        let bad = |message: String| BenchError::Task {
            path: tdir.join("task.toml"),
            message,
        };
        let Some(info) = &task.bench else {
            return Err(bad("has no [bench] table".into()));
        };
        let define = format!("void {}(", task.region.name);
        if !info.openmp_source.contains(&define) {
            return Err(bad(format!(
                "bench.openmp_source must define `{define}...)` with the serial function's parameters"
            )));
        }
        if !info.openmp_source.contains("#pragma omp") {
            return Err(bad("bench.openmp_source has no `#pragma omp`".into()));
        }
        let reference = tdir.join("reference.cu");
        let cu = std::fs::read_to_string(&reference).map_err(|source| BenchError::Read {
            path: reference.clone(),
            source,
        })?;
        let entry = format!("void {}(", task.region.gpu_entry_name());
        if !cu.contains(&entry) {
            return Err(bad(format!("reference.cu must define `{entry}...)`")));
        }
        out.push(BenchTask { task, dir: tdir });
    }
    Ok(out)
}

/// Keeps the tasks named in `only` (all when empty); a name that is not in the suite is an error.
pub fn select(tasks: Vec<BenchTask>, only: &[String]) -> Result<Vec<BenchTask>, BenchError> {
    if only.is_empty() {
        return Ok(tasks);
    }
    if let Some(missing) = only.iter().find(|o| !tasks.iter().any(|t| t.id() == *o)) {
        return Err(BenchError::Task {
            path: PathBuf::from(missing),
            message: "no such task in the suite".into(),
        });
    }
    Ok(tasks
        .into_iter()
        .filter(|t| only.iter().any(|o| o == t.id()))
        .collect())
}
