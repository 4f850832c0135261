//! `cuda-offload scan [--json] PATH...`: the loops of C++/CUDA files, whether each can run on a
//! GPU, and why.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use serde::Serialize;

use crate::analysis::{FileReport, Headers, Language, LoopReport, analyze_source_with};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print JSON (`{"files":[{"path":..,"loops":[..]}]}`) instead of a table
    #[arg(long)]
    json: bool,
    /// Files or directories (searched recursively; a directory's compile_commands.json, or its
    /// build/compile_commands.json, lists the files to scan when present)
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
}

#[derive(Debug, Serialize)]
struct ScanOutput {
    files: Vec<FileOutput>,
}

#[derive(Debug, Serialize)]
struct FileOutput {
    path: String,
    loops: Vec<LoopReport>,
    has_syntax_errors: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut missing = false;
    let mut files: Vec<PathBuf> = Vec::new();
    for path in &args.paths {
        if path.is_dir() {
            files.extend(files_in_dir(path));
        } else if path.exists() {
            files.push(path.clone());
        } else {
            eprintln!(
                "cuda-offload scan: {}: no such file or directory",
                path.display()
            );
            missing = true;
        }
    }
    let mut seen = BTreeSet::new();
    files.retain(|f| seen.insert(f.clone()));

    let mut out = ScanOutput { files: Vec::new() };
    for file in files {
        let Some(lang) = Language::from_path(&file) else {
            eprintln!(
                "cuda-offload scan: {}: skipped, not a C++ or CUDA file (.cpp .cc .cxx .h .hpp .cu .cuh)",
                file.display()
            );
            continue;
        };
        let src = match std::fs::read(&file) {
            Ok(s) => s,
            Err(e) => {
                eprintln!(
                    "cuda-offload scan: {}: skipped, cannot read it: {e}",
                    file.display()
                );
                continue;
            }
        };
        if let Err(e) = std::str::from_utf8(&src) {
            eprintln!(
                "cuda-offload scan: warning: {}; scanned with the invalid bytes replaced",
                crate::analysis::not_utf8(&file, &src, e)
            );
        }
        // Quoted project headers beside the file (index macros, constants, types), as the language
        // server reads them.
        let headers = Headers::beside(&file, &src);
        let report: FileReport = analyze_source_with(&src, lang, &headers);
        out.files.push(FileOutput {
            path: file.display().to_string(),
            loops: report.loops,
            has_syntax_errors: report.has_syntax_errors,
        });
    }

    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    if args.json {
        serde_json::to_writer_pretty(&mut w, &out).context("writing JSON")?;
        writeln!(w)?;
    } else {
        write!(w, "{}", table(&out))?;
    }
    w.flush()?;
    Ok(if missing {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The files a directory asks to be scanned: those of its compilation database when it has one,
/// else every C++/CUDA file below it (hidden directories and build trees skipped).
fn files_in_dir(dir: &Path) -> Vec<PathBuf> {
    for db in [
        dir.join("compile_commands.json"),
        dir.join("build").join("compile_commands.json"),
    ] {
        if db.is_file() {
            match compile_commands(&db) {
                Ok(files) => return files,
                Err(e) => eprintln!(
                    "cuda-offload scan: {}: ignored ({e:#}); scanning the directory instead",
                    db.display()
                ),
            }
        }
    }
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0 || !(name.starts_with('.') || name == "target" || name == "node_modules")
        })
        .filter_map(|e| match e {
            Ok(e) => Some(e),
            Err(err) => {
                eprintln!("cuda-offload scan: skipped: {err}");
                None
            }
        })
        .filter(|e| e.file_type().is_file() && Language::from_path(e.path()).is_some())
        .map(|e| e.into_path())
        .collect();
    files.sort();
    files
}

fn compile_commands(db: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let text = std::fs::read_to_string(db).context("cannot read it")?;
    let entries: Vec<serde_json::Value> =
        serde_json::from_str(&text).context("not a JSON array")?;
    let base = db.parent().unwrap_or(Path::new("."));
    let mut files = Vec::new();
    for e in entries {
        let Some(file) = e.get("file").and_then(|f| f.as_str()) else {
            continue;
        };
        let dir = e
            .get("directory")
            .and_then(|d| d.as_str())
            .map(PathBuf::from)
            .unwrap_or_else(|| base.to_path_buf());
        let dir = if dir.is_absolute() {
            dir
        } else {
            base.join(dir)
        };
        let path = if Path::new(file).is_absolute() {
            PathBuf::from(file)
        } else {
            dir.join(file)
        };
        if !files.contains(&path) {
            files.push(path);
        }
    }
    Ok(files)
}

fn table(out: &ScanOutput) -> String {
    let mut s = String::new();
    for file in &out.files {
        s.push_str(&file.path);
        if file.has_syntax_errors {
            s.push_str("  (syntax errors: loops containing them are not analysed)");
        }
        s.push('\n');
        if file.loops.is_empty() {
            s.push_str("  no loops\n\n");
            continue;
        }
        let rows: Vec<[String; 7]> = file
            .loops
            .iter()
            .map(|l| {
                [
                    format!("{}-{}", l.line, l.end_line),
                    format!("{}{}", "  ".repeat(l.depth), l.kind.as_str()),
                    if l.parallel { "yes" } else { "no" }.to_string(),
                    if l.hot { "yes" } else { "no" }.to_string(),
                    l.estimated_speedup
                        .map(|x| format!("{x:.1}x"))
                        .unwrap_or_else(|| "-".into()),
                    l.region
                        .as_ref()
                        .map(|r| r.name.clone())
                        .unwrap_or_else(|| "-".into()),
                    l.reason.clone(),
                ]
            })
            .collect();
        let header = [
            "LINES",
            "KIND",
            "PARALLEL",
            "HOT",
            "EST.SPEEDUP",
            "REGION",
            "REASON",
        ];
        let mut widths = header.map(str::len);
        for r in &rows {
            for (w, c) in widths.iter_mut().zip(r.iter()) {
                *w = (*w).max(c.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut l = String::from(" ");
            for (i, c) in cells.iter().enumerate() {
                l.push(' ');
                if i + 1 == cells.len() {
                    l.push_str(c);
                } else {
                    l.push_str(&format!("{c:<w$}", w = widths[i]));
                    l.push(' ');
                }
            }
            l.trim_end().to_string() + "\n"
        };
        s.push_str(&line(&header.map(String::from)));
        for r in &rows {
            s.push_str(&line(r));
        }
        s.push('\n');
    }
    s
}
