//! The command line: one binary, one subcommand per job. Only `cli` and `lsp` read configuration.

mod bench;
mod check_build;
mod doctor;
mod graph;
mod graph_relabel;
mod lsp;
mod offload;
mod scan;
mod verify;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "cuda-offload",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("CUDA_OFFLOAD_COMMIT"), ")"),
    about = "Turns hot C++ loops into verified CUDA kernels with a small local model",
    long_about = "cuda-offload finds hot loops in C++ code, says whether each can run on a GPU and why, and \
                  searches for a fast CUDA kernel with a small local language model guided by a graph of \
                  optimization techniques. Every candidate is compiled, checked against the serial loop and \
                  timed on the GPU."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the language server on stdin/stdout (for editors)
    Lsp(lsp::Args),
    /// List the loops of C++ files and whether each can be offloaded, and why
    Scan(scan::Args),
    /// Search for a verified CUDA kernel for one loop
    Offload(offload::Args),
    /// Verify a CUDA kernel against the serial loop it replaces (compile, check, time)
    Verify(verify::Args),
    /// Build the project before and after its offloads; on a GPU, compare their outputs and times
    CheckBuild(check_build::Args),
    /// Build, inspect and export the reasoning graph of optimization techniques
    Graph(graph::Args),
    /// Run a benchmark suite over tasks and search strategies
    Bench(bench::Args),
    /// Check the model server, nvcc and the GPU, and say how to fix what is missing
    Doctor(doctor::Args),
}

pub fn main() -> ExitCode {
    init_logging();
    let cli = Cli::parse();
    if !matches!(cli.command, Command::Lsp(_)) {
        // `cuda-offload graph stats --json | head` should end quietly, as other CLI tools do, not
        // panic on the closed pipe. The language server keeps Rust's default: a client that goes
        // away is noticed as a write error and handled.
        // SAFETY: no other thread exists yet; this only restores the default disposition.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    let result = match cli.command {
        Command::Lsp(a) => lsp::run(a),
        Command::Scan(a) => scan::run(a),
        Command::Offload(a) => offload::run(a),
        Command::Verify(a) => verify::run(a),
        Command::CheckBuild(a) => check_build::run(a),
        Command::Graph(a) => graph::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Doctor(a) => doctor::run(a),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Logs go to stderr: stdout is the LSP channel and the place for `--json` output.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("CUDA_OFFLOAD_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
