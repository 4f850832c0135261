//! Monte Carlo Graph Search and the baselines (ARCHITECTURE.md §4). Issue #7.
