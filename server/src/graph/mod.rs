//! The reasoning graph of CUDA optimization techniques (ARCHITECTURE.md §3). Issue #4.
