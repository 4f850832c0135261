//! Verification: compile, check against the serial reference, time on the GPU (ARCHITECTURE.md §5).
//! Issue #6.

pub mod gpu;
pub mod toolchain;
