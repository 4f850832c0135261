//! The language server (ARCHITECTURE.md §6). Issue #8. The only module that knows LSP types.

pub mod framing;
pub mod position;
