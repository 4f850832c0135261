//! Loop analysis with tree-sitter (ARCHITECTURE.md §2). Issue #3.

pub mod region;

pub use region::{Access, InputSpec, LoopKind, OffloadRegion, RegionParam, WorkEstimate};
