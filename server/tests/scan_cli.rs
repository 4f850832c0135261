//! End-to-end tests of `cuda-offload scan` on the test workspaces: the real binary, its JSON and
//! its table. Expected verdicts come from the workspaces' comments and READMEs, loop by loop.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cuda_offload::testing::{Needs, skip};
use serde_json::Value;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn scan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cuda-offload"))
        .arg("scan")
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("run cuda-offload")
}

fn scan_json(args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = scan(&all);
    assert!(
        out.status.success(),
        "scan failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("scan --json prints JSON")
}

/// (line, end_line, kind, hot, has region, substring of the reason)
type Want = (u64, u64, &'static str, bool, bool, &'static str);

fn check_workspace(dir: &str, want: &[Want]) -> Value {
    let json = scan_json(&[&format!("test-workspaces/{dir}")]);
    let files = json["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{dir}: one source file");
    let loops = files[0]["loops"].as_array().unwrap();
    let got: Vec<(u64, u64)> = loops
        .iter()
        .map(|l| (l["line"].as_u64().unwrap(), l["end_line"].as_u64().unwrap()))
        .collect();
    let expected: Vec<(u64, u64)> = want.iter().map(|w| (w.0, w.1)).collect();
    assert_eq!(got, expected, "{dir}: loop lines");
    for (l, w) in loops.iter().zip(want) {
        let at = format!("{dir}:{}", w.0);
        assert_eq!(l["kind"], w.2, "{at}: kind ({})", l["reason"]);
        assert_eq!(l["parallel"], w.2 != "sequential", "{at}: parallel");
        assert_eq!(l["hot"], w.3, "{at}: hot");
        assert_eq!(
            !l["region"].is_null(),
            w.4,
            "{at}: region ({})",
            l["region_note"]
        );
        let reason = l["reason"].as_str().unwrap();
        assert!(
            reason.contains(w.5),
            "{at}: reason {reason:?} lacks {:?}",
            w.5
        );
        if l["parallel"] == true && l["depth"] == 0 {
            assert!(l["estimated_speedup"].as_f64().is_some(), "{at}: speedup");
        } else if l["parallel"] == false {
            assert!(
                l["estimated_speedup"].is_null(),
                "{at}: no speedup for serial loops"
            );
        }
    }
    json
}

/// What a reviewer needs to see of a scan, without the bulky access lists.
fn condensed(json: &Value) -> Value {
    let loops: Vec<Value> = json["files"][0]["loops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let region = if l["region"].is_null() {
                Value::Null
            } else {
                let r = &l["region"];
                serde_json::json!({
                    "name": r["name"],
                    "whole_function": r["whole_function"],
                    "params": r["params"],
                    "includes": r["includes"],
                    "source": r["source"].as_str().unwrap().lines().collect::<Vec<_>>(),
                    "work": r["work"],
                })
            };
            serde_json::json!({
                "lines": format!("{}-{}", l["line"], l["end_line"]),
                "depth": l["depth"],
                "kind": l["kind"],
                "parallel": l["parallel"],
                "hot": l["hot"],
                "reason": l["reason"],
                "trip_count": l["trip_count"],
                "estimated_speedup": l["estimated_speedup"],
                "region": region,
                "region_note": l["region_note"],
            })
        })
        .collect();
    Value::Array(loops)
}

#[test]
fn saxpy_workspace() {
    let json = check_workspace(
        "saxpy",
        &[
            (7, 9, "map", true, true, "writes only its own `y[i]`"),
            (15, 18, "map", true, true, "`x[i]`, `y[i]`"),
            (21, 21, "reduction", true, true, "`checksum`"),
        ],
    );
    let saxpy = &json["files"][0]["loops"][0]["region"];
    assert_eq!(saxpy["name"], "saxpy");
    assert_eq!(saxpy["whole_function"], true);
    insta::assert_json_snapshot!("saxpy", condensed(&json));
}

#[test]
fn stencil2d_workspace() {
    let json = check_workspace(
        "stencil2d",
        &[
            (
                7,
                12,
                "stencil",
                true,
                true,
                "neighbouring elements of `in`",
            ),
            (
                8,
                11,
                "stencil",
                true,
                false,
                "neighbouring elements of `in`",
            ),
            (17, 19, "reduction", true, true, "`worst` (with `max`)"),
            (26, 26, "map", true, true, "`u[j]`, `v[j]`"),
            (29, 34, "sequential", true, false, "data-dependent exit"),
        ],
    );
    let jacobi = &json["files"][0]["loops"][0]["region"];
    assert_eq!(jacobi["name"], "jacobi_step");
    let extents: Vec<&Value> = jacobi["params"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["extent"])
        .collect();
    assert_eq!(extents[2], "m*n");
    insta::assert_json_snapshot!("stencil2d", condensed(&json));
}

#[test]
fn nbody_workspace() {
    let json = check_workspace(
        "nbody",
        &[
            (10, 25, "map", true, true, "`fx[i]`, `fy[i]`, `fz[i]`"),
            (12, 21, "reduction", true, false, "`ax`"),
            (30, 37, "map", true, true, "writes only its own"),
            (43, 47, "map", true, true, "writes only its own"),
            (48, 52, "sequential", false, false, "calls `compute_forces`"),
        ],
    );
    let forces = &json["files"][0]["loops"][0];
    // O(n^2) work on O(n) data: far more compute-bound than the O(n) update.
    let integrate = &json["files"][0]["loops"][2];
    assert!(
        forces["estimated_speedup"].as_f64().unwrap()
            > 10.0 * integrate["estimated_speedup"].as_f64().unwrap()
    );
    assert_eq!(forces["region"]["whole_function"], true);
    insta::assert_json_snapshot!("nbody", condensed(&json));
}

#[test]
fn histogram_workspace() {
    let json = check_workspace(
        "histogram",
        &[
            (7, 9, "histogram", true, true, "`bins[data[i]]`"),
            (14, 16, "reduction", true, true, "`acc` (with `+`)"),
            (22, 24, "scan", true, true, "prefix scan"),
            (32, 32, "sequential", true, false, "calls `std::rand`"),
        ],
    );
    let params = &json["files"][0]["loops"][0]["region"]["params"];
    let data = params
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "data")
        .unwrap();
    assert_eq!(data["input"]["min"], "0");
    assert_eq!(data["input"]["max"], "nbins - 1");
    let dot = &json["files"][0]["loops"][1]["region"];
    let acc = dot["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "acc")
        .unwrap();
    assert_eq!(acc["is_array"], true);
    assert_eq!(acc["extent"], "1");
    assert!(
        dot["source"]
            .as_str()
            .unwrap()
            .contains("(*acc) += x[i] * y[i];")
    );
    insta::assert_json_snapshot!("histogram", condensed(&json));
}

#[test]
fn sequential_workspace() {
    let json = check_workspace(
        "sequential",
        &[
            (
                12,
                14,
                "sequential",
                true,
                false,
                "iteration i reads u[i - 1], written by iteration i - 1",
            ),
            (
                19,
                21,
                "sequential",
                true,
                false,
                "iteration i reads a[i + 1], which iteration i + 1 overwrites",
            ),
            (27, 30, "sequential", true, false, "pointer chasing"),
            (36, 38, "sequential", true, false, "I/O"),
            (44, 46, "sequential", true, false, "data-dependent exit"),
            (52, 54, "map", false, false, "not hot: only 3 iterations"),
        ],
    );
    insta::assert_json_snapshot!("sequential", condensed(&json));
}

/// Every region in the workspaces compiles on its own with g++ (the verifier's host compiler).
#[test]
fn workspace_regions_compile_with_gxx() {
    if Command::new("g++").arg("--version").output().is_err() {
        skip(Needs::Toolchain, "g++ not found");
        return;
    }
    let json = scan_json(&["test-workspaces"]);
    let dir = tempfile::tempdir().unwrap();
    let mut count = 0;
    for file in json["files"].as_array().unwrap() {
        for l in file["loops"].as_array().unwrap() {
            let r = &l["region"];
            if r.is_null() {
                continue;
            }
            let includes: Vec<&str> = r["includes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_str().unwrap())
                .collect();
            let code = format!("{}\n{}", includes.join("\n"), r["source"].as_str().unwrap());
            let path = dir.path().join(format!("region{count}.cpp"));
            std::fs::write(&path, &code).unwrap();
            let out = Command::new("g++")
                .args(["-std=c++17", "-fsyntax-only", "-Wall", "-Werror"])
                .arg(&path)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}:{}\n{code}\n{}",
                file["path"],
                l["line"],
                String::from_utf8_lossy(&out.stderr)
            );
            count += 1;
        }
    }
    assert_eq!(count, 12, "regions in the five workspaces");
}

#[test]
fn human_table_lists_every_loop() {
    let out = scan(&["test-workspaces/sequential", "test-workspaces/saxpy"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("test-workspaces/sequential/sequential.cpp"));
    assert!(text.contains("LINES"));
    assert!(text.contains("REASON"));
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| {
            l.trim_start()
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        })
        .collect();
    assert_eq!(rows.len(), 9, "{text}");
    // Columns line up: the KIND column starts at the same offset in every row of a file.
    let header = text.lines().find(|l| l.contains("LINES")).unwrap();
    let kind_col = header.find("KIND").unwrap();
    let first_rows: Vec<&&str> = rows.iter().take(6).collect();
    for r in first_rows {
        assert!(
            r[kind_col..].starts_with(|c: char| c.is_ascii_alphabetic()),
            "{r}"
        );
    }
}

#[test]
fn missing_paths_fail_and_bad_files_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.cpp"), b"").unwrap();
    std::fs::write(
        dir.path().join("latin1.cpp"),
        b"// \xe9t\xe9\nvoid f(int n, float* a) { for (int i = 0; i < n; ++i) a[i] = 1.0f; }\n\xff\xfe",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("broken.cu"),
        b"__global__ void k( { for (int i = 0; i < ; ++i) {",
    )
    .unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"for (;;) {}").unwrap();
    let socket_path = dir.path().join("socket.cpp");
    let _listener = std::os::unix::net::UnixListener::bind(&socket_path).unwrap();

    let d = dir.path().to_str().unwrap();
    let s = socket_path.to_str().unwrap();
    let out = scan(&["--json", d, s]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("socket.cpp: skipped, cannot read it"),
        "{stderr}"
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let paths: Vec<&str> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths.len(), 3, "{paths:?}");
    assert!(paths.iter().all(|p| !p.ends_with("notes.txt")));
    let latin = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"].as_str().unwrap().ends_with("latin1.cpp"))
        .unwrap();
    assert_eq!(latin["loops"][0]["kind"], "map");

    let out = scan(&["does/not/exist.cpp"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such file"));
}

#[test]
fn compile_commands_json_selects_the_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let listed = dir.path().join("src/listed.cpp");
    std::fs::write(
        &listed,
        "void f(int n, float* a) { for (int i = 0; i < n; ++i) a[i] = 0; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("src/unlisted.cpp"),
        "void g(int n, float* a) { for (int i = 0; i < n; ++i) a[i] = 1; }\n",
    )
    .unwrap();
    let db = serde_json::json!([
        {"directory": dir.path().join("src"), "file": "listed.cpp", "command": "g++ -c listed.cpp"}
    ]);
    std::fs::create_dir(dir.path().join("build")).unwrap();
    std::fs::write(
        dir.path().join("build/compile_commands.json"),
        serde_json::to_string(&db).unwrap(),
    )
    .unwrap();
    let json = scan_json(&[dir.path().to_str().unwrap()]);
    let files = json["files"].as_array().unwrap();
    assert_eq!(files.len(), 1);
    assert!(files[0]["path"].as_str().unwrap().ends_with("listed.cpp"));
}

/// `scan` reads the quoted project headers beside a file, as the language server does: an index
/// macro and a constant defined in a header make its loops analysable.
#[test]
fn scan_reads_the_project_headers_beside_the_file() {
    // A copy of the analysis tests' fixture, so that the header can be taken away.
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/analysis/testdata/project_headers");
    let dir = tempfile::tempdir().unwrap();
    for name in ["grid.h", "relax.c"] {
        std::fs::copy(fixture.join(name), dir.path().join(name)).unwrap();
    }
    let path = dir.path().join("relax.c");
    let json = scan_json(&[path.to_str().unwrap()]);
    let kinds: Vec<&str> = json["files"][0]["loops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["stencil", "stencil", "map"], "{json:#}");
    // Without the header the macro is an unknown call and nothing is parallel.
    std::fs::remove_file(dir.path().join("grid.h")).unwrap();
    let json = scan_json(&[path.to_str().unwrap()]);
    let loops = json["files"][0]["loops"].as_array().unwrap();
    assert!(loops.iter().all(|l| l["parallel"] == false), "{json:#}");
}
