//! Every graph-building task's serial reference builds as the verifier builds it (as written and
//! promoted to high precision) and runs at the task's own correctness shapes (`[sizes].test`, which
//! the verifier now uses): every output has the length its extent gives at that shape, in both
//! builds, and every floating output is finite. Catches a declared shape that breaks a task before
//! any GPU time is spent on it. Needs only g++.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use cuda_offload::graph::tasks::{Task, load_tasks};
use cuda_offload::testing::{Needs, skip};
use cuda_offload::verify::compare::{read_f64, read_i64};
use cuda_offload::verify::harness::{plan_text, reference_program};
use cuda_offload::verify::plan::{eval, is_float_type, outputs, plan_for};

fn have_gxx() -> bool {
    Command::new("g++").arg("--version").output().is_ok()
}

fn build(dir: &Path, src: &Path, hp: bool) -> Result<PathBuf, String> {
    let exe = dir.join(if hp { "ref_hp" } else { "ref_native" });
    let out = Command::new("g++")
        .args([
            "-O1",
            "-std=c++17",
            "-pthread",
            &format!("-DCO_HP={}", hp as u8),
            "-o",
        ])
        .arg(&exe)
        .arg(src)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "does not compile (hp={hp}): {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(exe)
}

fn run_outputs(exe: &Path, dir: &Path, plan: &str) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("plan.txt"), plan).map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .args([".", "outputs"])
        .current_dir(dir)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "{} failed ({}): {}",
            exe.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

/// Everything wrong with one task, or nothing.
fn check(task: &Task) -> Result<(), String> {
    let region = task.region_with_sizes();
    let mut plan = plan_for(&region, 1);
    // The correctness shapes only: the timed shape is the GPU run's business.
    plan.timed = plan.cases[0].clone();
    let text = plan_text(&plan, 1.0);
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let src = dir.path().join("reference.cpp");
    std::fs::write(&src, reference_program(&region)).map_err(|e| e.to_string())?;
    let native = dir.path().join("native");
    run_outputs(&build(dir.path(), &src, false)?, &native, &text)?;
    let needs_hp = outputs(&region).any(|p| is_float_type(&p.elem_type));
    let hp = dir.path().join("hp");
    if needs_hp {
        run_outputs(&build(dir.path(), &src, true)?, &hp, &text)?;
    }
    for (i, case) in plan.cases.iter().enumerate() {
        let declared = &task.sizes.test[i / 2];
        let shape: Vec<(String, i64)> = declared.iter().map(|(k, v)| (k.clone(), *v)).collect();
        if case.sizes.iter().collect::<std::collections::BTreeSet<_>>()
            != shape.iter().collect::<std::collections::BTreeSet<_>>()
        {
            return Err(format!(
                "case {i} is {}, not {declared:?}",
                case.describe_size()
            ));
        }
        let mut vars: HashMap<String, f64> = case
            .sizes
            .iter()
            .map(|(k, v)| (k.clone(), *v as f64))
            .collect();
        for p in region.params.iter().filter(|p| !p.is_array && !p.is_size) {
            vars.entry(p.name.clone()).or_insert(1.0);
        }
        for p in outputs(&region) {
            let file = format!("c{i}_{}.bin", p.name);
            let what = format!("{file} ({})", case.describe_size());
            let extent = p.extent.as_deref().unwrap_or("1");
            // Extents over a drawn scalar (a bin count) are not known here: only checked when
            // they depend on the sizes alone.
            let expected = extent
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty() && !w.starts_with(|c: char| c.is_ascii_digit()))
                .all(|w| case.sizes.iter().any(|(n, _)| n == w))
                .then(|| eval(extent, &vars).map(|v| v as usize))
                .transpose()
                .map_err(|e| e.to_string())?;
            if is_float_type(&p.elem_type) {
                let n = read_f64(&native.join(&file)).map_err(|e| format!("{what}: {e}"))?;
                let h = read_f64(&hp.join(&file)).map_err(|e| format!("{what}: {e}"))?;
                if expected.is_some_and(|e| e != n.len()) {
                    return Err(format!("{what}: {} elements, extent {expected:?}", n.len()));
                }
                // A shape outside what the code handles shows as NaN or infinity (garbage reads).
                if let Some(k) = n.iter().chain(&h).position(|x| !x.is_finite()) {
                    return Err(format!("{what}: element {k} is not finite"));
                }
                if n.len() != h.len() {
                    return Err(format!(
                        "{what}: {} elements as written, {} promoted",
                        n.len(),
                        h.len()
                    ));
                }
            } else {
                let v = read_i64(&native.join(&file)).map_err(|e| format!("{what}: {e}"))?;
                if expected.is_some_and(|e| e != v.len()) {
                    return Err(format!("{what}: {} elements, extent {expected:?}", v.len()));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn every_task_runs_at_its_declared_shapes() {
    if !have_gxx() {
        skip(Needs::Toolchain, "g++ not found");
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../graph-data/tasks");
    let tasks: Vec<Task> = load_tasks(&dir).unwrap().into_values().collect();
    assert!(tasks.len() >= 60, "{} tasks", tasks.len());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = tasks
            .chunks(tasks.len().div_ceil(threads))
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .filter_map(|t| check(t).err().map(|e| format!("{}: {e}", t.id)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A tool, not a test (`cargo test --release --test graph_task_references -- --ignored --nocapture`):
/// times each task's serial code once at its declared timed shape on this machine, and shows that
/// the shape runs at all, to plan a GPU run's time.
#[test]
#[ignore = "a planning tool: runs every task's serial code at its timed shape"]
fn serial_time_at_the_timed_shapes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../graph-data/tasks");
    let only: Option<String> = std::env::var("TASKS").ok();
    for task in load_tasks(&dir).unwrap().into_values() {
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|t| t == task.id))
        {
            continue;
        }
        let region = task.region_with_sizes();
        let mut plan = plan_for(&region, 1);
        plan.cases.clear();
        let text = plan_text(&plan, 1.0).replace(
            &format!("serial {} 0 5 ", plan.timed.seed),
            &format!("serial {} 0 1 ", plan.timed.seed),
        );
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("reference.cpp");
        std::fs::write(&src, reference_program(&region)).unwrap();
        let exe = tmp.path().join("ref_native");
        let out = Command::new("g++")
            .args([
                "-O3",
                "-march=native",
                "-std=c++17",
                "-pthread",
                "-DCO_HP=0",
                "-o",
            ])
            .arg(&exe)
            .arg(&src)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let run_dir = tmp.path().join("run");
        std::fs::create_dir_all(&run_dir).unwrap();
        std::fs::write(run_dir.join("plan.txt"), &text).unwrap();
        let started = std::time::Instant::now();
        let st = Command::new(&exe)
            .args([".", "serial"])
            .current_dir(&run_dir)
            .status()
            .unwrap();
        let serial = std::fs::read_to_string(run_dir.join("serial.txt")).unwrap_or_default();
        eprintln!(
            "{:<26} {:<40} ok={} serial_ms={} wall_s={:.1}",
            task.id,
            plan.timed.describe_size(),
            st.success(),
            serial.trim(),
            started.elapsed().as_secs_f64()
        );
    }
}
