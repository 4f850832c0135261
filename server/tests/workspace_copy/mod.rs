//! A private copy of a test workspace, so that a test's edits, kernel files and builds stay out of
//! the repository.
#![allow(dead_code)]

use std::path::Path;

/// `test-workspaces/<ws>` copied into a temporary directory that is its own repository (a `.git`
/// folder), so that the search for build files stops there.
pub fn copy(ws: &str) -> tempfile::TempDir {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../test-workspaces")
        .join(ws);
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(&src).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    dir
}
