//! The benchmark (`cuda-offload bench`): suites of serial tasks (`bench/tasks/<suite>/<id>/`), one search
//! per task × strategy through the same `Offloader` as `cuda-offload offload`, raw records, a report
//! and a plot (design/BENCHMARKING.md).

pub mod convert;
pub mod environment;
pub mod omp;
pub mod plot;
pub mod records;
pub mod report;
pub mod runner;
pub mod task;

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("task {path}: {message}")]
    Task { path: PathBuf, message: String },
    #[error("{0}")]
    Convert(String),
}
