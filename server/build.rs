//! Embeds the commit the binary was built from, so that a benchmark record names the code that
//! ran even where the checkout it runs in has no `.git` (the GPU machine gets a copy of the tree).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    Command::new("git")
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

fn main() {
    let commit = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(c) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some();
            if dirty { format!("{c}-dirty") } else { c }
        }
        None => "unknown".into(),
    };
    println!("cargo:rustc-env=CUDA_OFFLOAD_COMMIT={commit}");
    // The sources too: `-dirty` must follow an edit, not only a commit.
    println!("cargo:rerun-if-changed=src");
    for path in ["HEAD", "index"] {
        if let Some(p) = git(&["rev-parse", "--git-path", path]) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"])
        && let Some(p) = git(&["rev-parse", "--git-path", &head_ref])
    {
        println!("cargo:rerun-if-changed={p}");
    }
}
