//! The generated reference program for every built-in region: it compiles (as written and promoted
//! to high precision), runs on the plan's correctness cases, is deterministic, and the two builds
//! agree within the fp32 tolerance. Needs only g++.

use std::path::Path;
use std::process::Command;

use cuda_offload::testing::{Needs, skip};
use cuda_offload::verify::compare::{Tolerance, compare_floats, read_f64, read_i64};
use cuda_offload::verify::harness::{SERIAL_BUDGET_MS, SERIAL_REPS, plan_text, reference_program};
use cuda_offload::verify::plan::{is_float_type, outputs, plan_for};
use cuda_offload::verify::testdata::{builtin_region, names};

fn have_gxx() -> bool {
    Command::new("g++").arg("--version").output().is_ok()
}

fn build_and_run(dir: &Path, hp: bool, plan: &str) -> std::path::PathBuf {
    let exe = dir.join(if hp { "ref_hp" } else { "ref_native" });
    let st = Command::new("g++")
        .args(["-O1", "-std=c++17", &format!("-DCO_HP={}", hp as u8), "-o"])
        .arg(&exe)
        .arg(dir.join("reference.cpp"))
        .status()
        .unwrap();
    assert!(
        st.success(),
        "reference (hp={hp}) does not compile in {}",
        dir.display()
    );
    let out = dir.join(if hp { "hp" } else { "native" });
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("plan.txt"), plan).unwrap();
    let st = Command::new(&exe)
        .arg(".")
        .current_dir(&out)
        .status()
        .unwrap();
    assert!(st.success(), "reference (hp={hp}) failed");
    out
}

#[test]
fn references_build_run_and_agree_in_both_precisions() {
    if !have_gxx() {
        skip(Needs::Toolchain, "g++ not found");
        return;
    }
    for name in names() {
        let region = builtin_region(name).unwrap();
        let mut plan = plan_for(&region, 1);
        // Correctness cases only: the timed size is the GPU run's business.
        plan.timed = plan.cases[0].clone();
        let text = plan_text(&plan, 1.0).replace("serial 1 0 5", "serial 1 0 1");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("reference.cpp"), reference_program(&region)).unwrap();
        let native = build_and_run(dir.path(), false, &text);
        let needs_hp = outputs(&region).any(|p| is_float_type(&p.elem_type));
        let hp = needs_hp.then(|| build_and_run(dir.path(), true, &text));
        assert!(
            native.join("serial.txt").is_file(),
            "{name}: no serial timing"
        );
        for (i, _case) in plan.cases.iter().enumerate() {
            for p in outputs(&region) {
                let file = format!("c{i}_{}.bin", p.name);
                if is_float_type(&p.elem_type) {
                    let n = read_f64(&native.join(&file)).unwrap();
                    let h = read_f64(&hp.as_ref().unwrap().join(&file)).unwrap();
                    assert!(!n.is_empty());
                    // The serial fp32 code is itself within the tolerance of the float64 reference.
                    let tol = Tolerance::for_type(&p.elem_type, 1.0);
                    assert_eq!(compare_floats(&n, &h, &n, tol), None, "{name} {file}");
                    // And garbage is not: a changed element is caught.
                    let mut bad = n.clone();
                    bad[n.len() / 2] += 1.0 + n[n.len() / 2].abs();
                    assert!(compare_floats(&n, &h, &bad, tol).is_some(), "{name} {file}");
                } else {
                    let v = read_i64(&native.join(&file)).unwrap();
                    assert!(!v.is_empty(), "{name} {file}");
                }
            }
        }
        // Deterministic: a second run writes the same bytes.
        let again = dir.path().join("again");
        std::fs::create_dir_all(&again).unwrap();
        std::fs::write(again.join("plan.txt"), &text).unwrap();
        let st = Command::new(dir.path().join("ref_native"))
            .arg(".")
            .current_dir(&again)
            .status()
            .unwrap();
        assert!(st.success());
        let p = outputs(&region).next().unwrap();
        let f = format!("c3_{}.bin", p.name);
        assert_eq!(
            std::fs::read(native.join(&f)).unwrap(),
            std::fs::read(again.join(&f)).unwrap(),
            "{name}: inputs are not reproducible"
        );
    }
}

/// The verifier runs the reference in two parts, the outputs beside other work and the serial
/// timing alone; the parts write what a whole run writes, and the timing stops after three
/// repetitions once past its budget.
#[test]
fn reference_parts_split_outputs_from_the_serial_timing() {
    if !have_gxx() {
        skip(Needs::Toolchain, "g++ not found");
        return;
    }
    let region = builtin_region("saxpy").unwrap();
    let mut plan = plan_for(&region, 1);
    plan.timed = plan.cases[2].clone();
    let full = plan_text(&plan, 1.0);
    let seed = plan.timed.seed;
    let serial_line = format!("serial {seed} 0 {SERIAL_REPS} {SERIAL_BUDGET_MS} ");
    assert!(full.contains(&serial_line), "{full}");
    // A budget of 0 ms is spent by the first repetition.
    let text = full.replace(&serial_line, &format!("serial {seed} 0 {SERIAL_REPS} 0 "));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("reference.cpp"), reference_program(&region)).unwrap();
    let whole = build_and_run(dir.path(), false, &text);
    let part = |name: &str| {
        let out = dir.path().join(name.replace(' ', "_"));
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("plan.txt"), &text).unwrap();
        let mut args = vec!["."];
        args.extend(name.split(' '));
        let st = Command::new(dir.path().join("ref_native"))
            .args(&args)
            .current_dir(&out)
            .status()
            .unwrap();
        assert!(st.success(), "part {name} failed");
        out
    };
    let outputs_dir = part("outputs");
    let serial_dir = part("serial");
    // `sample I J` recomputes those timed samples (drawn after the candidate's run), each the
    // same in one process as alone: a sample depends on its index only.
    let samples_dir = part("sample 2 3");
    let alone_dir = part("sample 3");
    let p = outputs(&region).next().unwrap();
    let (t2, t3) = (format!("t2_{}.bin", p.name), format!("t3_{}.bin", p.name));
    assert!(samples_dir.join(&t2).is_file());
    assert_eq!(
        std::fs::read(samples_dir.join(&t3)).unwrap(),
        std::fs::read(alone_dir.join(&t3)).unwrap()
    );
    assert_ne!(
        std::fs::read(samples_dir.join(&t2)).unwrap(),
        std::fs::read(samples_dir.join(&t3)).unwrap(),
        "fresh inputs per sample"
    );
    assert!(
        !whole.join(&t2).exists(),
        "a whole run computes no timed sample"
    );
    let sample_dir = samples_dir;
    assert!(!sample_dir.join(format!("c0_{}.bin", p.name)).exists());
    for i in 0..plan.cases.len() {
        let f = format!("c{i}_{}.bin", p.name);
        assert_eq!(
            std::fs::read(whole.join(&f)).unwrap(),
            std::fs::read(outputs_dir.join(&f)).unwrap(),
            "{f}"
        );
        assert!(!serial_dir.join(&f).exists(), "the serial part wrote {f}");
    }
    assert!(!outputs_dir.join("serial.txt").exists());
    let times = std::fs::read_to_string(serial_dir.join("serial.txt")).unwrap();
    assert_eq!(times.lines().count(), 3, "{times}");
    let whole_times = std::fs::read_to_string(whole.join("serial.txt")).unwrap();
    assert_eq!(whole_times.lines().count(), 3, "{whole_times}");
}

#[test]
fn histogram_counts_every_element() {
    if !have_gxx() {
        skip(Needs::Toolchain, "g++ not found");
        return;
    }
    // bins starts with seeded values; the loop adds exactly n increments in total.
    let region = builtin_region("histogram").unwrap();
    let mut plan = plan_for(&region, 1);
    plan.timed = plan.cases[0].clone();
    let text = plan_text(&plan, 1.0);
    let dir = tempfile::tempdir().unwrap();
    let mut src = reference_program(&region);
    // Also dump the bins before the loop, through the same writer.
    src = src.replacen(
        "    histogram(A.n, A.nbins, A.data.data(), A.bins.data());",
        "    co_write(co_prefix + \"_before.bin\", A.bins.data(), A.co_ext_bins);\n    histogram(A.n, A.nbins, A.data.data(), A.bins.data());",
        1,
    );
    assert!(src.contains("_before.bin"), "call site changed shape");
    std::fs::write(dir.path().join("reference.cpp"), src).unwrap();
    let out = build_and_run(dir.path(), false, &text);
    for (i, case) in plan.cases.iter().enumerate() {
        let before: i64 = read_i64(&out.join(format!("c{i}_before.bin")))
            .unwrap()
            .iter()
            .sum();
        let after: i64 = read_i64(&out.join(format!("c{i}_bins.bin")))
            .unwrap()
            .iter()
            .sum();
        assert_eq!(after - before, case.sizes[0].1, "case {i}");
    }
}

/// The harness fills large inputs on threads; the values must be those of one sequential pass over
/// the stream (the reference and the candidate may run with different core counts), sorted inputs
/// included.
#[test]
fn threaded_input_generator_draws_the_sequential_stream() {
    if !have_gxx() {
        skip(Needs::Toolchain, "g++ not found");
        return;
    }
    let program = format!(
        "{}\n{}",
        cuda_offload::verify::harness::COMMON,
        r#"
template <class T>
static long long mismatches(int dist, bool lo, bool hi, bool sorted) {
    const long long n = (3LL << 20) + 17;  // over the threading threshold, not a multiple of 16
    std::vector<T> got(n), want(n);
    co_fill(got.data(), n, co_rng(42, 3), dist, lo, -5.0, hi, 70.0, sorted, false);
    CoRng r = co_rng(42, 3);
    for (long long i = 0; i < n; ++i) want[i] = co_value<T>(r, dist, lo, -5.0, hi, 70.0);
    if (sorted) std::sort(want.begin(), want.end());
    long long bad = 0;
    for (long long i = 0; i < n; ++i) bad += std::memcmp(&got[i], &want[i], sizeof(T)) != 0;
    std::vector<T> g(n), w(n);
    co_garbage(g.data(), n, co_rng(9, 1000));
    CoRng rg = co_rng(9, 1000);
    for (long long i = 0; i < n; ++i)
        w[i] = std::is_floating_point<T>::value ? (T)(-7777.0 - 1000.0 * rg.unit()) : (T)(rg.next() | 1ULL);
    for (long long i = 0; i < n; ++i) bad += std::memcmp(&g[i], &w[i], sizeof(T)) != 0;
    return bad;
}

int main() {
    long long bad = 0;
    for (int dist = 0; dist < 2; ++dist) {
        for (int lh = 0; lh < 3; ++lh) {
            bool lo = lh >= 1, hi = lh >= 2;
            for (int sorted = 0; sorted < 2; ++sorted) {
                bad += mismatches<float>(dist, lo, hi, sorted);
                bad += mismatches<double>(dist, lo, hi, sorted);
                bad += mismatches<int>(dist, lo, hi, sorted);
                bad += mismatches<unsigned char>(dist, lo, hi, sorted);
            }
        }
    }
    std::printf("%lld\n", bad);
    return bad == 0 ? 0 : 1;
}
"#
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("gen.cpp"), program).unwrap();
    let exe = dir.path().join("gen");
    let st = Command::new("g++")
        .args(["-O2", "-std=c++17", "-pthread", "-o"])
        .arg(&exe)
        .arg(dir.path().join("gen.cpp"))
        .status()
        .unwrap();
    assert!(st.success(), "the generator test does not compile");
    let out = Command::new(&exe).output().unwrap();
    assert!(
        out.status.success(),
        "threaded fills differ from the sequential stream in {} elements",
        String::from_utf8_lossy(&out.stdout).trim()
    );
}
