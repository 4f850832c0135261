//! Every region the outliner builds on the real-world corpus (`tests/corpus`) must give a
//! reference program that g++ accepts, as written and in the high-precision build (`CO_HP=1`,
//! where `float` and `double` are macros; built where the region names a floating type): a region that does not compile is no offer at all.
//! The programs share one precompiled header of the harness's standard headers so that the
//! whole corpus compiles in well under a minute on two cores.

use std::path::{Path, PathBuf};
use std::process::Command;

use cuda_offload::analysis;
use cuda_offload::verify::harness::{reference_program, validate_region};

#[derive(serde::Deserialize)]
struct Labels {
    origin: Origin,
    #[serde(rename = "loop", default)]
    loops: Vec<Label>,
}

#[derive(serde::Deserialize)]
struct Origin {
    files: std::collections::BTreeMap<String, String>,
}

#[derive(serde::Deserialize)]
struct Label {
    file: String,
    line: usize,
    parallel: bool,
}

fn corpus_regions() -> Vec<(String, analysis::OffloadRegion)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("labels.toml").is_file())
        .collect();
    dirs.sort();
    for dir in dirs {
        let labels: Labels =
            toml::from_str(&std::fs::read_to_string(dir.join("labels.toml")).unwrap()).unwrap();
        let _ = &labels.origin.files;
        for l in labels.loops.iter().filter(|l| l.parallel) {
            let path = dir.join(&l.file);
            let src = std::fs::read(&path).unwrap();
            let lang = analysis::Language::from_path(&path).unwrap();
            let headers = analysis::Headers::for_source(&src, path.parent().unwrap());
            if let Ok((_, region)) = analysis::outline_at(&src, lang, l.line, &headers) {
                let name = format!(
                    "{}/{}:{}",
                    dir.file_name().unwrap().to_string_lossy(),
                    l.file,
                    l.line
                );
                out.push((name, region));
            }
        }
    }
    out
}

/// About 40 s of g++ on two idle cores, 100 s on a loaded machine: run on demand with
/// `cargo test --release --test corpus_regions_compile -- --ignored` after changing the outliner.
#[test]
#[ignore = "compiles ~330 programs; run with --ignored after changing the outliner"]
fn every_corpus_region_gives_a_reference_program_gpp_accepts() {
    if Command::new("g++").arg("--version").output().is_err() {
        cuda_offload::testing::skip(
            cuda_offload::testing::Needs::Toolchain,
            "g++ not found; corpus regions not compiled",
        );
        return;
    }
    let t0 = std::time::Instant::now();
    let regions = corpus_regions();
    eprintln!(
        "{} regions outlined in {:.1} s",
        regions.len(),
        t0.elapsed().as_secs_f64()
    );
    assert!(regions.len() >= 150, "only {} regions", regions.len());
    // `CORPUS_REGION_DUMP=minimd/src/atom.cpp:109` prints that region's source and types.
    if let Ok(want) = std::env::var("CORPUS_REGION_DUMP") {
        for (at, r) in regions.iter().filter(|(at, _)| at.contains(&want)) {
            eprintln!(
                "== {at}: {}\n{}{}",
                r.signature(),
                r.types.definitions,
                r.source
            );
            for p in &r.params {
                eprintln!("   {p:?}");
            }
        }
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // The standard headers every reference includes, precompiled once.
    let pch = dir.path().join("co_std.h");
    std::fs::write(
        &pch,
        "#include <algorithm>\n#include <chrono>\n#include <cmath>\n#include <cstddef>\n#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <climits>\n#include <cfloat>\n#include <string>\n#include <thread>\n#include <limits>\n#include <type_traits>\n#include <vector>\n",
    )
    .unwrap();
    let built = Command::new("g++")
        .args(["-std=c++17", "-x", "c++-header"])
        .arg(&pch)
        .arg("-o")
        .arg(dir.path().join("co_std.h.gch"))
        .status()
        .unwrap();
    assert!(built.success(), "the precompiled header did not build");
    let mut jobs: Vec<(String, PathBuf, String)> = Vec::new();
    for (i, (at, region)) in regions.iter().enumerate() {
        validate_region(region).unwrap_or_else(|e| panic!("{at}: {e}"));
        let file = dir.path().join(format!("r{i}.cpp"));
        std::fs::write(&file, reference_program(region)).unwrap();
        // The promoted build differs from the native one only where the region names a
        // floating type.
        let floating = region.source.contains("float")
            || region.source.contains("double")
            || region.types.definitions.contains("float")
            || region.types.definitions.contains("double")
            || region
                .params
                .iter()
                .any(|p| p.elem_type.contains("float") || p.elem_type.contains("double"));
        let builds: &[&str] = if floating { &["0", "1"] } else { &["0"] };
        for hp in builds {
            jobs.push((at.clone(), file.clone(), hp.to_string()));
        }
    }
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(1, 8);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Some((at, file, hp)) = jobs.get(k) else {
                        break;
                    };
                    let out = Command::new("g++")
                        .args(["-std=c++17", "-fsyntax-only", "-include"])
                        .arg(&pch)
                        .arg(format!("-DCO_HP={hp}"))
                        .arg(file)
                        .output()
                        .unwrap();
                    if !out.status.success() {
                        let err = String::from_utf8_lossy(&out.stderr);
                        let first: String = err.lines().take(12).collect::<Vec<_>>().join("\n");
                        failures
                            .lock()
                            .unwrap()
                            .push(format!("{at} (CO_HP={hp}):\n{first}"));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    eprintln!(
        "{} programs compiled in {:.1} s in all",
        jobs.len(),
        t0.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} of {} reference programs g++ rejects:\n{}",
        failures.len(),
        jobs.len(),
        failures.join("\n\n")
    );
}
