//! A region whose parameters are arrays of plain-data structs (issue #17): its reference program
//! compiles as written and promoted to high precision, runs, fills every field from the seed (the
//! same bytes twice), writes one output per leaf of the output struct (`out__id`, `out__pos_x`..,
//! a bool leaf as 0/1);
//! the candidate harness and a candidate using the same struct compile with nvcc (no GPU needed).

use std::path::Path;
use std::process::Command;

use cuda_offload::analysis::{self, OffloadRegion};
use cuda_offload::testing::{Needs, skip};
use cuda_offload::verify::compare::{read_f64, read_i64};
use cuda_offload::verify::harness::{
    candidate_source, harness_program, plan_text, reference_program, validate_region,
};
use cuda_offload::verify::plan::{is_float_type, outputs, plan_for};

const SOURCE: &str = "\
typedef float real;
struct Vec3 { real x, y, z; };
struct Body { Vec3 pos; real w[2]; real mass; int id; unsigned char tag; bool alive; };

void step(int n, const Body* in, Body* out, real dt) {
    for (int i = 0; i < n; ++i) {
        out[i].id = in[i].id * 2 + in[i].tag;
        out[i].mass = in[i].pos.y * dt + in[i].w[1];
        out[i].alive = in[i].mass > 0;
    }
}
";

fn region() -> OffloadRegion {
    let (_, r) = analysis::outline_at(
        SOURCE.as_bytes(),
        analysis::Language::Cpp,
        6,
        &analysis::Headers::default(),
    )
    .expect("the loop is outlined");
    r
}

#[test]
fn struct_region_has_one_output_per_leaf() {
    let r = region();
    validate_region(&r).unwrap();
    let names: Vec<&str> = outputs(&r).map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "out__pos_x",
            "out__pos_y",
            "out__pos_z",
            "out__w",
            "out__mass",
            "out__id",
            "out__tag",
            "out__alive"
        ]
    );
    let w = outputs(&r).find(|p| p.name == "out__w").unwrap();
    assert_eq!(w.extent.as_deref(), Some("(n) * 2"));
    assert_eq!(w.elem_type, "float");
}

fn build_and_run(dir: &Path, hp: bool, plan: &str, run: &str) -> std::path::PathBuf {
    let exe = dir.join(format!("ref{}", hp as u8));
    let out = Command::new("g++")
        .args(["-O1", "-std=c++17", &format!("-DCO_HP={}", hp as u8), "-o"])
        .arg(&exe)
        .arg(dir.join("reference.cpp"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "reference (hp={hp}) does not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let at = dir.join(format!("{run}{}", hp as u8));
    std::fs::create_dir_all(&at).unwrap();
    std::fs::write(at.join("plan.txt"), plan).unwrap();
    let st = Command::new(&exe)
        .arg(".")
        .current_dir(&at)
        .status()
        .unwrap();
    assert!(st.success(), "reference (hp={hp}) failed");
    at
}

#[test]
fn struct_reference_compiles_runs_and_writes_every_leaf() {
    if Command::new("g++").arg("--version").output().is_err() {
        skip(Needs::Toolchain, "g++ not found");
        return;
    }
    let r = region();
    let mut plan = plan_for(&r, 1);
    plan.timed = plan.cases[0].clone();
    let text = plan_text(&plan, 1.0).replace("serial 1 0 5", "serial 1 0 1");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("reference.cpp"), reference_program(&r)).unwrap();
    let a = build_and_run(dir.path(), false, &text, "a");
    let b = build_and_run(dir.path(), false, &text, "b");
    let hp = build_and_run(dir.path(), true, &text, "h");
    for (i, case) in plan.cases.iter().enumerate() {
        let n = case.sizes[0].1 as usize;
        for p in outputs(&r) {
            let file = format!("c{i}_{}.bin", p.name);
            let count = if p.name == "out__w" { 2 * n } else { n };
            if is_float_type(&p.elem_type) {
                let x = read_f64(&a.join(&file)).unwrap();
                assert_eq!(x.len(), count.max(1), "{file}");
                assert_eq!(
                    x,
                    read_f64(&b.join(&file)).unwrap(),
                    "{file} differs run to run"
                );
                assert_eq!(read_f64(&hp.join(&file)).unwrap().len(), x.len());
            } else {
                let x = read_i64(&a.join(&file)).unwrap();
                assert_eq!(x.len(), count.max(1), "{file}");
                assert_eq!(
                    x,
                    read_i64(&b.join(&file)).unwrap(),
                    "{file} differs run to run"
                );
            }
        }
        // The loop's writes are there: `id` is twice the input's plus its tag, so it is not the
        // odd garbage an untouched element keeps; the fields it never writes keep the garbage.
        let ids = read_i64(&a.join(format!("c{i}_out__id.bin"))).unwrap();
        let untouched = read_f64(&a.join(format!("c{i}_out__pos_x.bin"))).unwrap();
        // A bool leaf travels as 0 and 1, both present when the masses have both signs.
        let alive = read_i64(&a.join(format!("c{i}_out__alive.bin"))).unwrap();
        assert!(alive.iter().all(|v| *v == 0 || *v == 1), "{alive:?}");
        if n > 0 {
            assert!(untouched.iter().all(|v| *v <= -7777.0), "{untouched:?}");
            assert!(ids.iter().any(|v| v % 2 == 0) || n < 4, "{ids:?}");
        }
    }
}

#[test]
fn struct_harness_and_candidate_compile_with_nvcc() {
    let Ok(nvcc) = cuda_offload::verify::toolchain::find_nvcc(
        None,
        &cuda_offload::verify::toolchain::default_project_roots(),
    ) else {
        skip(Needs::Toolchain, "no nvcc (run scripts/setup)");
        return;
    };
    let r = region();
    let args: Vec<&str> = r.params.iter().map(|p| p.name.as_str()).collect();
    let candidate = format!(
        "__global__ void co_k({sig}) {{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) {{ out[i].id = in[i].id * 2 + in[i].tag; out[i].mass = in[i].pos.y * dt + in[i].w[1]; out[i].alive = in[i].mass > 0; }}\n}}\n{entry} {{ if (n > 0) co_k<<<(n + 255) / 256, 256>>>({args}); }}\n",
        sig = r
            .signature_named("co_k")
            .trim_start_matches("void co_k(")
            .trim_end_matches(')'),
        entry = r.signature_named(&r.gpu_entry_name()),
        args = args.join(", ")
    );
    let dir = tempfile::tempdir().unwrap();
    for (file, text) in [
        ("harness.cu", harness_program(&r)),
        ("candidate.cu", candidate_source(&r, &candidate)),
    ] {
        std::fs::write(dir.path().join(file), &text).unwrap();
        let out = Command::new(&nvcc.path)
            .args(["-std=c++17", "-c", file, "-o"])
            .arg(format!("{file}.o"))
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "nvcc rejects {file}:\n{}\n{text}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
