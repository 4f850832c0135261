//! cuda-offload: turns hot C++ loops into verified CUDA kernels with a small local model.
//!
//! The modules follow the pipeline (ARCHITECTURE.md §1): a module may use the ones before it,
//! never the ones after it. Only `lsp` knows LSP types; only `cli` and `lsp` read user configuration.

pub mod analysis;
pub mod bench;
pub mod cli;
pub mod config;
pub mod geomean;
pub mod graph;
pub mod llm;
pub mod lsp;
pub mod plural;
pub mod project;
pub mod search;
#[doc(hidden)]
pub mod testing;
pub mod verify;
