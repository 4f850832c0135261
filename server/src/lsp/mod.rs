//! The language server (ARCHITECTURE.md §6). Issue #8. The only module that knows LSP types.
// The server itself (server.rs, handlers/, state.rs, ...) is wired in once the analysis module's
// incremental Document lands (it is built against that API).

pub mod framing;
pub mod position;
