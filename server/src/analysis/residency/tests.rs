use super::*;
use crate::analysis::{Headers, outline_at};

/// The stencil2d workspace's program: the loops (lines 7 and 17) are called from main's
/// convergence loop (line 29).
fn stencil() -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../test-workspaces/stencil2d/jacobi.cpp"),
    )
    .unwrap()
}

fn region(src: &str, line: usize) -> OffloadRegion {
    outline_at(src.as_bytes(), Language::Cpp, line, &Headers::default())
        .unwrap()
        .1
}

/// The plan for `src` with the loops at `lines` about to be offloaded; the one loop it reports.
fn only(src: &str, lines: &[usize]) -> Residency {
    let pending: Vec<OffloadRegion> = lines.iter().map(|l| region(src, *l)).collect();
    let mut plan = plan(src, &pending);
    assert_eq!(plan.len(), 1, "{plan:#?}");
    plan.remove(0)
}

/// stencil2d's main loop with its body replaced.
fn with_body(body: &str) -> String {
    let src = stencil();
    let start = src
        .find("        jacobi_step(n, m, u.data(), v.data());")
        .unwrap();
    let end = src.find("        ++iter;").unwrap();
    format!("{}{body}{}", &src[..start], &src[end..])
}

#[test]
fn both_loops_offloaded_keep_u_and_v_resident_across_the_convergence_loop() {
    let r = only(&stencil(), &[7, 17]);
    assert_eq!(r.verdict, Verdict::Resident);
    assert_eq!((r.function.as_str(), r.line, r.end_line), ("main", 29, 34));
    assert_eq!(r.arrays, ["u", "v"]);
    assert_eq!(
        r.pointers,
        ["u.data()", "v.data()"],
        "what the session keeps"
    );
    assert_eq!(r.calls, ["jacobi_step", "max_change"]);
    assert_eq!(
        r.describe(),
        "arrays u, v kept on the device across the loop at line 29 of main (calls of jacobi_step, max_change): copied in once, out once"
    );
}

#[test]
fn one_loop_offloaded_names_the_other_function_to_offload() {
    let r = only(&stencil(), &[17]);
    assert_eq!(r.verdict, Verdict::NeedsOffload(vec!["jacobi_step".into()]));
    assert!(
        r.describe().contains("needs jacobi_step offloaded too"),
        "{}",
        r.describe()
    );
    let r = only(&stencil(), &[7]);
    assert_eq!(r.verdict, Verdict::NeedsOffload(vec!["max_change".into()]));
}

fn not_resident(src: &str) -> String {
    match only(src, &[7, 17]).verdict {
        Verdict::NotResident(why) => why,
        other => panic!("resident: {other:?}"),
    }
}

#[test]
fn a_host_read_between_the_calls_keeps_the_copies() {
    let src = with_body(
        "        jacobi_step(n, m, u.data(), v.data());\n        float probe = v[5];\n        change = max_change(n, m, u.data(), v.data()) + probe;\n        u.swap(v);\n",
    );
    let why = not_resident(&src);
    assert!(
        why.contains("`float probe = v[5];` uses `v` on the host"),
        "{why}"
    );
}

#[test]
fn io_with_an_array_keeps_the_copies() {
    let src = with_body(
        "        jacobi_step(n, m, u.data(), v.data());\n        change = max_change(n, m, u.data(), v.data());\n        std::printf(\"%g\\n\", u[0]);\n        u.swap(v);\n",
    );
    let why = not_resident(&src);
    assert!(why.contains("does I/O (std::printf)"), "{why}");
}

#[test]
fn passing_an_array_to_a_function_that_is_not_offloaded_keeps_the_copies() {
    let src = with_body(
        "        jacobi_step(n, m, u.data(), v.data());\n        change = max_change(n, m, u.data(), v.data());\n        dump_grid(u.data());\n        u.swap(v);\n",
    );
    let why = not_resident(&src);
    assert!(
        why.contains("passes `u` to dump_grid, which is not offloaded"),
        "{why}"
    );
}

#[test]
fn a_return_inside_the_loop_would_skip_the_copy_back() {
    let src = with_body(
        "        jacobi_step(n, m, u.data(), v.data());\n        change = max_change(n, m, u.data(), v.data());\n        if (change < 0) return 1;\n        u.swap(v);\n",
    );
    assert!(not_resident(&src).contains("`return` leaves the loop"));
}

#[test]
fn swaps_of_containers_and_of_pointers_are_allowed() {
    for swap in ["std::swap(u, v);", "swap(u, v);", "u.swap(v);"] {
        let src = with_body(&format!(
            "        jacobi_step(n, m, u.data(), v.data());\n        change = max_change(n, m, u.data(), v.data());\n        {swap}\n"
        ));
        assert_eq!(only(&src, &[7, 17]).verdict, Verdict::Resident, "{swap}");
    }
    let src = stencil().replace(
        "    int iter = 0;",
        "    float* a = u.data();\n    float* b = v.data();\n    int iter = 0;",
    );
    let start = src
        .find("        jacobi_step(n, m, u.data(), v.data());")
        .unwrap();
    let end = src.find("        ++iter;").unwrap();
    let src = format!(
        "{}        jacobi_step(n, m, a, b);\n        change = max_change(n, m, a, b);\n        float* tmp = a;\n        a = b;\n        b = tmp;\n{}",
        &src[..start],
        &src[end..]
    );
    let r = only(&src, &[7, 17]);
    assert_eq!(r.verdict, Verdict::Resident, "{src}");
    assert_eq!(r.arrays, ["a", "b"]);
    assert_eq!(r.pointers, ["a", "b"]);
}

#[test]
fn an_alias_declared_before_the_loop_counts_as_the_array() {
    let src = stencil().replace(
        "    int iter = 0;",
        "    float* top = u.data();\n    int iter = 0;",
    );
    let src = src.replace(
        "        u.swap(v);\n",
        "        u.swap(v);\n        top[0] = 1.0f;\n",
    );
    assert!(not_resident(&src).contains("uses `top` on the host"));
}

#[test]
fn a_callee_that_touches_its_array_on_the_host_keeps_the_copies() {
    let src = stencil().replace("    return worst;\n", "    return worst + a[0];\n");
    let why = not_resident(&src);
    assert!(
        why.contains("max_change uses `a` on the host outside its offloaded loop"),
        "{why}"
    );
}

#[test]
fn an_array_made_inside_the_loop_is_not_kept() {
    let src = with_body(
        "        std::vector<float> w(n * m);\n        jacobi_step(n, m, u.data(), w.data());\n        change = max_change(n, m, u.data(), w.data());\n        u.swap(w);\n",
    );
    assert!(not_resident(&src).contains("`w` is declared inside the loop"));
}

#[test]
fn offloaded_calls_already_in_the_text_count_as_offloaded() {
    let src = offloaded_stencil();
    let plan = plan_of(&src);
    assert_eq!(plan.len(), 1, "{src}\n{plan:#?}");
    assert_eq!(plan[0].verdict, Verdict::Resident, "{src}");
    assert_eq!(plan[0].arrays, ["u", "v"]);
    assert_eq!(plan[0].pointers, ["u.data()", "v.data()"]);
    // A kernel file written before residency has no registry: no session with it.
    let older = src.replacen(", with residency v1 (cuda-offload)", " (cuda-offload)", 1);
    match &plan_of(&older)[0].verdict {
        Verdict::NotResident(why) => assert_eq!(
            why,
            "jacobi_step_cuda.cu was generated before residency (its wrapper has no registry): offload that loop again"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn arguments_that_pass_an_array_as_it_is() {
    assert_eq!(plain_root("u.data()").as_deref(), Some("u"));
    assert_eq!(plain_root("&u[0]").as_deref(), Some("u"));
    assert_eq!(plain_root(" a ").as_deref(), Some("a"));
    assert_eq!(plain_root("u.data() + m"), None);
    assert_eq!(plain_root("u[0]"), None);
}

#[test]
fn nbody_keeps_its_ten_arrays_once_both_loops_are_offloaded() {
    let src = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-workspaces/nbody/nbody.cpp"),
    )
    .unwrap();
    // `std::vector<float> px(n), ..., fx(n)`: every declarator declares an array before the loop.
    let r = only(&src, &[10, 30]);
    assert_eq!(r.verdict, Verdict::Resident, "{r:#?}");
    assert_eq!(
        r.arrays,
        ["fx", "fy", "fz", "mass", "px", "py", "pz", "vx", "vy", "vz"]
    );
    let r = only(&src, &[10]);
    assert_eq!(r.verdict, Verdict::NeedsOffload(vec!["integrate".into()]));
}

#[test]
fn a_loop_offloaded_where_it_stands_in_the_time_loop_keeps_its_array() {
    let src = "#include <cstdio>\n#include <vector>\n\nint main() {\n    const int n = 100000;\n    std::vector<float> a(n, 0.0f);\n    for (int t = 0; t < 50; ++t) {\n        for (int i = 0; i < n; ++i) {\n            a[i] = a[i] * 0.5f + 1.0f;\n        }\n    }\n    std::printf(\"%g\\n\", a[0]);\n    return 0;\n}\n";
    let r = only(src, &[8]);
    assert_eq!(r.verdict, Verdict::Resident, "{r:#?}");
    assert_eq!((r.line, r.arrays.as_slice()), (7, &["a".to_string()][..]));
    assert_eq!(r.pointers, ["a.data()"]);
    // A host write in the same time loop keeps the copies.
    let src = src.replace(
        "        }\n    }\n",
        "        }\n        a[0] = 0.0f;\n    }\n",
    );
    assert!(not_resident_at(&src, 8).contains("`a[0] = 0.0f;` uses `a` on the host"));
}

fn not_resident_at(src: &str, line: usize) -> String {
    match only(src, &[line]).verdict {
        Verdict::NotResident(why) => why,
        other => panic!("resident: {other:?}"),
    }
}

#[test]
fn copying_or_swapping_data_on_the_host_keeps_the_copies() {
    // `u = v` on vectors copies the elements on the host.
    let src = with_body(
        "        jacobi_step(n, m, u.data(), v.data());\n        change = max_change(n, m, u.data(), v.data());\n        u = v;\n",
    );
    assert!(not_resident(&src).contains("`u = v;` uses `u` on the host"));
    // std::swap of fixed arrays exchanges their elements.
    let src = stencil()
        .replace(
            "    std::vector<float> u(n * m, 0.0f), v(n * m, 0.0f);",
            "    static float u[2048 * 2048], v[2048 * 2048];",
        )
        .replace("u.data()", "u")
        .replace("v.data()", "v")
        .replace("u.swap(v);", "std::swap(u, v);");
    let why = not_resident(&src);
    assert!(
        why.contains("`std::swap(u, v);` passes `u` to std::swap, which is not offloaded"),
        "{why}"
    );
}

#[test]
fn a_struct_that_holds_an_array_counts_as_the_array() {
    let src = stencil()
        .replace(
            "    int iter = 0;",
            "    struct View { float* p; } view;\n    view.p = u.data();\n    int iter = 0;",
        )
        .replace(
            "        ++iter;\n",
            "        ++iter;\n        view.p[0] = 1.0f;\n",
        );
    assert!(not_resident(&src).contains("uses `view` on the host"));
}

fn plan_of(src: &str) -> Vec<Residency> {
    plan(src, &[])
}

/// stencil2d after both offloads' edits: the loops replaced by marked calls.
fn offloaded_stencil() -> String {
    // The program after both offloads' edits: the loops replaced by marked calls.
    let src = stencil()
        .replace(
            "#include <vector>\n",
            "#include <vector>\nvoid jacobi_step_cuda(int n, int m, const float* in, float* out);  // defined in jacobi_step_cuda.cu, with residency v1 (cuda-offload)\nvoid max_change_loop17_cuda(int n, int m, const float* a, const float* b, float* worst);  // defined in max_change_loop17_cuda.cu, with residency v1 (cuda-offload)\n",
        );
    let a = src.find("    for (int i = 1; i < n - 1; ++i) {").unwrap();
    let b = src[a..].find("\n    }\n").unwrap() + a + 7;
    let src = format!(
        "{}    jacobi_step_cuda(n, m, in, out);  // CUDA version in jacobi_step_cuda.cu\n{}",
        &src[..a],
        &src[b..]
    );
    let a = src.find("    for (int k = 0;").unwrap();
    let b = src[a..].find("\n    }\n").unwrap() + a + 7;
    let src = format!(
        "{}    max_change_loop17_cuda(n, m, a, b, &worst);  // CUDA version in max_change_loop17_cuda.cu\n{}",
        &src[..a],
        &src[b..]
    );
    src
}

#[test]
fn a_session_broken_by_a_later_host_use_is_found() {
    let open = "    cuda_offload_resident_begin(); cuda_offload_resident_keep(u.data()); cuda_offload_resident_keep(v.data());  // cuda-offload session: u, v stay on the device across this loop\n";
    let src = offloaded_stencil().replace("    while (change", &format!("{open}    while (change"));
    assert!(broken_sessions(&src).is_empty(), "the session holds");
    let src = src.replace(
        "        ++iter;\n",
        "        ++iter;\n        std::printf(\"%g\\n\", v[1]);\n",
    );
    let broken = broken_sessions(&src);
    assert_eq!(broken.len(), 1, "{broken:#?}");
    assert!(
        matches!(&broken[0].verdict, Verdict::NotResident(why) if why.contains("does I/O (std::printf) with `v`")),
        "{broken:#?}"
    );
}
