//! Every shipped benchmark task loads and validates; its serial reference builds as the verifier builds it
//! (as written and promoted to high precision) and runs on the verifier's correctness cases; its OpenMP
//! baseline builds with `-fopenmp` and computes the same outputs with 16 threads. Needs only g++.

use std::path::{Path, PathBuf};
use std::process::Command;

use cuda_offload::bench::omp::openmp_region;
use cuda_offload::bench::task::{BenchTask, load_suite};
use cuda_offload::testing::{Needs, skip};
use cuda_offload::verify::compare::{Tolerance, compare_floats, read_f64, read_i64};
use cuda_offload::verify::harness::{plan_text, reference_program};
use cuda_offload::verify::plan::{is_float_type, outputs, plan_for};

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/tasks/pareval")
}

fn have_gxx() -> bool {
    Command::new("g++").arg("--version").output().is_ok()
}

fn build(dir: &Path, src: &str, name: &str, flags: &[&str]) -> PathBuf {
    let file = dir.join(format!("{name}.cpp"));
    std::fs::write(&file, src).unwrap();
    let exe = dir.join(name);
    let out = Command::new("g++")
        .args(["-O1", "-std=c++17"])
        .args(flags)
        .arg("-o")
        .arg(&exe)
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} does not compile:\n{}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

fn run(exe: &Path, dir: &Path, plan: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("plan.txt"), plan).unwrap();
    let out = Command::new(exe)
        .arg(".")
        .current_dir(dir)
        .env("OMP_NUM_THREADS", "16")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} failed: {}",
        exe.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    dir.to_path_buf()
}

#[test]
fn shipped_tasks_build_and_their_openmp_versions_agree_with_the_serial_code() {
    let tasks = load_suite(&suite_dir()).expect("the shipped suite loads");
    assert!(tasks.len() >= 24, "only {} tasks", tasks.len());
    let types: std::collections::BTreeSet<&str> = tasks
        .iter()
        .map(|t| t.info().problem_type.as_str())
        .collect();
    assert!(types.len() >= 10, "problem types: {types:?}");
    for t in &tasks {
        assert!(t.info().origin.starts_with("pareval:"), "{}", t.id());
        assert!(t.dir.join("pareval.cpp").is_file(), "{}", t.id());
        cuda_offload::verify::harness::validate_region(&t.task.region)
            .unwrap_or_else(|e| panic!("{}: {e}", t.id()));
    }
    if !have_gxx() {
        skip(Needs::Toolchain, "g++ not found");
        return;
    }
    // Two builds and a run per task: spread over the cores.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = tasks.len().div_ceil(threads);
    std::thread::scope(|s| {
        for part in tasks.chunks(chunk) {
            s.spawn(move || part.iter().for_each(check_task));
        }
    });
}

/// Builds the task's serial (as written, promoted) and OpenMP programs and compares their outputs on the
/// verifier's correctness cases.
fn check_task(t: &BenchTask) {
    let region = &t.task.region;
    let mut plan = plan_for(region, 1);
    // Correctness cases only: the timed size is the GPU run's business.
    plan.timed = plan.cases[0].clone();
    let text = plan_text(&plan, 1.0).replace("serial 1 0 5", "serial 1 0 1");
    let dir = tempfile::tempdir().unwrap();
    let serial_src = reference_program(region);
    let native = build(dir.path(), &serial_src, "native", &["-DCO_HP=0"]);
    build(dir.path(), &serial_src, "hp", &["-DCO_HP=1"]);
    let omp_src = reference_program(&openmp_region(region, &t.info().openmp_source));
    let omp = build(dir.path(), &omp_src, "omp", &["-DCO_HP=0", "-fopenmp"]);
    let a = run(&native, &dir.path().join("native-out"), &text);
    let b = run(&omp, &dir.path().join("omp-out"), &text);
    for (i, case) in plan.cases.iter().enumerate() {
        for p in outputs(region) {
            let file = format!("c{i}_{}.bin", p.name);
            let what = format!("{} {file} ({})", t.id(), case.describe_size());
            if is_float_type(&p.elem_type) {
                let s = read_f64(&a.join(&file)).unwrap();
                let o = read_f64(&b.join(&file)).unwrap();
                // The OpenMP version may reorder sums: judged like a candidate against the serial code.
                let terms = case.sizes.iter().map(|(_, v)| *v as f64).product::<f64>();
                let tol = Tolerance::for_output(&p.elem_type, terms, &s);
                assert_eq!(compare_floats(&s, &s, &o, tol), None, "{what}");
            } else {
                let s = read_i64(&a.join(&file)).unwrap();
                let o = read_i64(&b.join(&file)).unwrap();
                assert!(!s.is_empty(), "{what}");
                assert_eq!(s, o, "{what}");
            }
        }
    }
}
