//! The port of small regions, as the analysis outlines them: the generated code's shape here;
//! that it compiles against the real harness is `tests/port_compile.rs`.

use super::*;
use crate::analysis::{Language, analyze_source};

fn regions(src: &str) -> Vec<OffloadRegion> {
    analyze_source(src.as_bytes(), Language::Cpp)
        .loops
        .into_iter()
        .filter_map(|l| l.region)
        .collect()
}

fn one(src: &str) -> OffloadRegion {
    let mut r = regions(src);
    assert_eq!(r.len(), 1, "one region in {src}");
    r.remove(0)
}

#[test]
fn a_map_becomes_a_grid_stride_kernel() {
    let r = one(
        "void saxpy(int n, float a, const float* x, float* y) {\n    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];\n}\n",
    );
    let p = port(&r).unwrap();
    assert_eq!(p.shape, "1-D grid-stride map");
    assert!(
        p.code
            .contains("void saxpy_gpu(int n, float a, const float* x, float* y)"),
        "{}",
        p.code
    );
    assert!(p.code.contains("gridDim.x * blockDim.x"), "{}", p.code);
    assert!(
        p.code.contains("int i = (int)((0) + port_t * (1LL));"),
        "{}",
        p.code
    );
}

#[test]
fn a_perfect_nest_of_independent_loops_is_mapped_in_2d() {
    let r = one(
        "void jacobi(int n, int m, const float* in, float* out) {\n    for (int i = 1; i < n - 1; ++i)\n        for (int j = 1; j < m - 1; ++j)\n            out[i * m + j] = 0.25f * (in[(i - 1) * m + j] + in[(i + 1) * m + j] + in[i * m + j - 1] + in[i * m + j + 1]);\n}\n",
    );
    let p = port(&r).unwrap();
    assert_eq!(p.shape, "2-D grid-stride stencil");
    assert!(p.code.contains("dim3(32, 8)"), "{}", p.code);
}

#[test]
fn a_nest_with_an_inner_reduction_maps_only_the_outer_loop() {
    let r = one(
        "void rowsum(int n, int m, const float* a, float* s) {\n    for (int i = 0; i < n; ++i) {\n        float t = 0.0f;\n        for (int j = 0; j < m; ++j) t += a[i * m + j];\n        s[i] = t;\n    }\n}\n",
    );
    let p = port(&r).unwrap();
    assert_eq!(p.shape, "1-D grid-stride map");
}

#[test]
fn a_countdown_runs_over_the_same_iterations() {
    let r = one(
        "void countdown(int n, const float* b, float* a) {\n    for (int i = n - 1; i >= 0; --i) a[i] = 2.0f * b[i];\n}\n",
    );
    let p = port(&r).unwrap();
    assert!(p.code.contains("(n - 1) + port_t * (-1LL)"), "{}", p.code);
}

#[test]
fn a_sum_becomes_a_block_reduction_with_one_atomic() {
    let r = one(
        "double dot(int n, const double* x, const double* y) {\n    double acc = 0.0;\n    for (int i = 0; i < n; ++i) acc += x[i] * y[i];\n    return acc;\n}\n",
    );
    let p = port(&r).unwrap();
    assert!(p.shape.contains("add of `acc`"), "{}", p.shape);
    assert!(
        p.code.contains("(port_acc_acc) += x[i] * y[i]"),
        "{}",
        p.code
    );
    assert!(p.code.contains("__shfl_down_sync"), "{}", p.code);
    assert!(
        p.code.contains("atomicAdd(acc, (double)(port_acc_acc))"),
        "{}",
        p.code
    );
}

#[test]
fn reduction_operators_are_read_off_the_updates() {
    let cases = [
        ("m = std::max(m, x[i]);", "float", "max"),
        ("if (x[i] < m) m = x[i];", "float", "min"),
        ("m = m * x[i];", "double", "mul"),
        ("m = m && x[i] > 0;", "bool", "and"),
        ("m |= x[i];", "int", "bitor"),
    ];
    for (update, ty, op) in cases {
        let elem = if ty == "bool" { "int" } else { ty };
        let src = format!(
            "{ty} f(int n, const {elem}* x) {{\n    {ty} m = x[0];\n    for (int i = 1; i < n; ++i) {update}\n    return m;\n}}\n"
        );
        let r = one(&src);
        let p = port(&r).unwrap_or_else(|e| panic!("{update}: {e}"));
        assert!(
            p.shape.contains(&format!("{op} of `m`")),
            "{update}: {}",
            p.shape
        );
    }
}

#[test]
fn a_histogram_counts_in_shared_memory() {
    let r = one(
        "void histogram(int n, int nbins, const int* data, int* bins) {\n    for (int i = 0; i < n; ++i) bins[data[i]]++;\n}\n",
    );
    let p = port(&r).unwrap();
    assert!(
        p.shape.starts_with("privatised shared-memory histogram"),
        "{}",
        p.shape
    );
    assert!(
        p.code
            .contains("atomicAdd(&port_bins_bins[data[i]], (int)(1))"),
        "{}",
        p.code
    );
    assert!(p.code.contains("extern __shared__"), "{}", p.code);
}

#[test]
fn a_bin_read_back_in_its_own_update_is_an_increment() {
    // NPB CG's row count: `rowstr[j] = rowstr[j] + arow[i]`, the bins named twice by one update.
    let r = one(
        "void count(int n, const int* col, const int* w, int* rows) {\n    for (int i = 0; i < n; ++i) {\n        int j = col[i] + 1;\n        rows[j] = rows[j] + w[i];\n    }\n}\n",
    );
    let p = port(&r).unwrap();
    assert!(p.shape.contains("histogram"), "{}", p.shape);
    assert!(
        p.code
            .contains("atomicAdd(&port_bins_rows[j], (int)((w[i])))"),
        "{}",
        p.code
    );
    // Another bin read in the update would see a partial count: not even offered.
    assert!(
        regions(
            "void count(int n, const int* col, int* rows) {\n    for (int i = 0; i < n; ++i) {\n        int j = col[i] + 1;\n        rows[j] = rows[j] + rows[0];\n    }\n}\n",
        )
        .is_empty()
    );
}

#[test]
fn a_scan_goes_through_cub() {
    let r = one(
        "void prefix(int n, const int* in, long long* out) {\n    out[0] = in[0];\n    for (int i = 1; i < n; ++i) out[i] = out[i - 1] + in[i];\n}\n",
    );
    let p = port(&r).unwrap();
    assert_eq!(p.shape, "cub device-wide inclusive scan (add)");
    assert!(
        p.code.contains("#include <cub/device/device_scan.cuh>"),
        "{}",
        p.code
    );
    assert!(
        p.code
            .contains("port_tmp[port_t + 1] = (long long)(in[i]);"),
        "{}",
        p.code
    );
    assert!(
        p.code.contains("port_tmp[0] = out[(1) - (1LL)];"),
        "{}",
        p.code
    );
}

/// A whole-function scan as a task declares one (the analysis would outline the loop alone).
fn whole_scan(sig: &str, body: &str) -> OffloadRegion {
    let src = format!("{sig} {{\n{body}}}\n");
    let mut r = one(&format!(
        "{sig} {{\n    for (int i = 0; i < n; ++i) {};\n}}\n",
        if sig.contains("output") {
            "output[i] = x[i]"
        } else {
            "x[i] = 0"
        }
    ));
    r.kind = LoopKind::Scan;
    r.whole_function = true;
    r.name = sig["void ".len()..sig.find('(').unwrap()].to_string();
    r.source = src;
    r
}

#[test]
fn a_running_sum_stored_each_iteration_is_an_inclusive_scan() {
    let r = whole_scan(
        "void rps(int n, const int* x, int* output)",
        "    int run = 0;\n    for (int j = 0; j < n; ++j) {\n        run += x[n - 1 - j];\n        output[j] = run;\n    }\n",
    );
    let p = port(&r).unwrap();
    assert_eq!(p.shape, "cub device-wide scan of `run` (add)");
    assert!(p.code.contains("port_tmp[0] = run;"), "{}", p.code);
    assert!(
        p.code
            .contains("port_tmp[port_t + 1] = (int)(x[n - 1 - j]);"),
        "{}",
        p.code
    );
    assert!(
        p.code
            .contains("run = port_tmp[port_t + 1];\n        output[j] = run;"),
        "{}",
        p.code
    );
}

#[test]
fn a_guarded_running_minimum_is_a_min_scan_seeded_by_its_declaration() {
    let r = whole_scan(
        "void running_minimum(int n, float* x)",
        "    float m = x[0];\n    for (int i = 0; i < n; ++i) {\n        if (x[i] < m) {\n            m = x[i];\n        }\n        x[i] = m;\n    }\n",
    );
    let p = port(&r).unwrap();
    assert_eq!(p.shape, "cub device-wide scan of `m` (min)");
    assert!(p.code.contains("float m = x[0];"), "{}", p.code);
    assert!(
        p.code.contains("port_tmp[port_t + 1] = (float)(x[i]);"),
        "{}",
        p.code
    );
}

#[test]
fn a_store_before_the_update_reads_the_exclusive_value() {
    let r = whole_scan(
        "void offsets(int n, const int* x, int* output)",
        "    int at = 0;\n    for (int i = 0; i < n; ++i) {\n        output[i] = at;\n        at += x[i];\n    }\n",
    );
    let p = port(&r).unwrap();
    assert!(
        p.code
            .contains("at = port_tmp[port_t];\n        {\n        output[i] = at;\n        at = port_tmp[port_t + 1];"),
        "{}",
        p.code
    );
}

#[test]
fn a_running_value_written_twice_has_no_scan_port() {
    let r = whole_scan(
        "void twice(int n, const int* x, int* output)",
        "    int s = 0;\n    for (int i = 0; i < n; ++i) {\n        s += x[i];\n        output[i] = s;\n        s = s / 2;\n    }\n",
    );
    let e = port(&r).unwrap_err();
    assert!(e.reason.contains("`s` is written"), "{e}");
}

/// A whole function of a zeroing map and a scatter-add, as ParEval's COO SpMV is written.
fn spmv_coo() -> OffloadRegion {
    let mut r = one(
        "void spmv(int m, int nnz, const int* row, const double* val, double* y) {\n    for (int i = 0; i < m; ++i) y[i] = val[i] + row[i] + nnz;\n}\n",
    );
    r.name = "spmv".into();
    r.whole_function = true;
    r.kind = LoopKind::Histogram;
    r
}

#[test]
fn loops_one_after_another_are_ported_step_by_step_in_order() {
    let mut r = spmv_coo();
    r.source = "void spmv(int m, int nnz, const int* row, const double* val, double* y) {\n    for (int i = 0; i < m; ++i) {\n        y[i] *= 0.5;\n    }\n    for (int k = 0; k < nnz; ++k) {\n        y[row[k]] += val[k];\n    }\n}\n".into();
    let p = port(&r).unwrap();
    assert!(
        p.shape
            .starts_with("2 steps: map (1-D grid-stride map), then histogram"),
        "{}",
        p.shape
    );
    let first = p
        .code
        .find("    spmv_step1_gpu(m, nnz, row, val, y);")
        .expect(&p.code);
    let second = p
        .code
        .find("    spmv_step2_gpu(m, nnz, row, val, y);")
        .expect(&p.code);
    assert!(first < second, "{}", p.code);
    assert!(p.code.contains("static void spmv_step1_gpu("), "{}", p.code);
    assert_eq!(
        p.code.matches("port_max(const T& a").count(),
        1,
        "{}",
        p.code
    );
}

#[test]
fn a_statement_before_a_scan_runs_in_one_thread_first() {
    let mut r = whole_scan(
        "void prefix_sum(int n, const double* x, double* output)",
        "    output[0] = x[0];\n    for (int i = 1; i < n; ++i) {\n        output[i] = output[i - 1] + x[i];\n    }\n",
    );
    r.kind = LoopKind::Scan;
    let p = port(&r).unwrap();
    assert!(
        p.shape.starts_with("2 steps: one thread, then scan"),
        "{}",
        p.shape
    );
    assert!(
        p.code
            .contains("prefix_sum_step1_port_serial<<<1, 1>>>(n, x, output);"),
        "{}",
        p.code
    );
}

#[test]
fn a_local_set_by_one_step_and_read_by_the_next_is_refused() {
    let mut r = spmv_coo();
    r.source = "void spmv(int m, int nnz, const int* row, const double* val, double* y) {\n    double s = 0;\n    for (int k = 0; k < nnz; ++k) s += val[k];\n    for (int i = 0; i < m; ++i) y[i] = s;\n}\n".into();
    let e = port(&r).unwrap_err();
    assert!(e.reason.contains("sets the local `s`"), "{e}");
}

#[test]
fn a_declaration_reading_memory_an_earlier_step_changed_is_refused() {
    let mut r = spmv_coo();
    r.source = "void spmv(int m, int nnz, const int* row, const double* val, double* y) {\n    for (int i = 0; i < m; ++i) y[i] = 0;\n    double first = y[0];\n    for (int k = 0; k < nnz; ++k) y[row[k]] += val[k] * first;\n}\n".into();
    let e = port(&r).unwrap_err();
    assert!(e.reason.contains("reads `y`"), "{e}");
}

#[test]
fn std_max_in_device_code_is_the_ports_own() {
    let r = one(
        "void clampit(int n, const float* x, float* y) {\n    for (int i = 0; i < n; ++i) y[i] = std::max(x[i], 0.0f);\n}\n",
    );
    let p = port(&r).unwrap();
    assert!(
        p.code.contains("y[i] = port_max(x[i], 0.0f);"),
        "{}",
        p.code
    );
}

#[test]
fn what_cannot_be_ported_says_why() {
    let mut r = one(
        "void saxpy(int n, float a, const float* x, float* y) {\n    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];\n}\n",
    );
    r.kind = LoopKind::Sequential;
    assert!(port(&r).unwrap_err().reason.contains("sequential"));
    let mut r = one(
        "void saxpy(int n, float a, const float* x, float* y) {\n    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];\n}\n",
    );
    r.kind = LoopKind::Reduction;
    r.source = r.source.replace("a * x[i] + y[i]", "a * x[i]");
    let e = port(&r).unwrap_err();
    assert!(e.reason.contains("no accumulator the port can find"), "{e}");
}

/// A whole-function reduction `void f(int n, const double* x, double* result)` with `body`, as a
/// task declares one (the analysis outlines the loop alone).
fn whole_reduction(body: &str) -> OffloadRegion {
    let mut r = one(
        "void f(int n, const double* x, double* result) {\n    for (int i = 0; i < n; ++i) result[i] = x[i];\n}\n",
    );
    r.params[2].extent = Some("1".into());
    r.kind = LoopKind::Reduction;
    r.whole_function = true;
    r.source = format!("void f(int n, const double* x, double* result) {{\n{body}}}\n");
    r
}

#[test]
fn a_local_accumulator_is_reduced_and_written_out_after_the_loop() {
    let r = whole_reduction(
        "    double sum = 0.0;\n    for (int i = 0; i < n; ++i) sum += x[i];\n    *result = sum / n;\n",
    );
    let p = port(&r).unwrap();
    assert!(p.shape.contains("add of `sum`"), "{}", p.shape);
    assert!(p.code.contains("*port_part_sum = sum;"), "{}", p.code);
    assert!(
        p.code
            .contains("double sum = *port_part_sum;\n    *result = sum / n;"),
        "{}",
        p.code
    );
}

#[test]
fn a_running_value_is_no_reduction() {
    let r = whole_reduction(
        "    double total = 0.0;\n    double run = 0.0;\n    for (int i = 0; i < n; ++i) {\n        run += x[i];\n        total += run;\n    }\n    *result = total;\n",
    );
    let e = port(&r).unwrap_err();
    assert!(e.reason.contains("`run` is read in the loop"), "{e}");
}

#[test]
fn a_guarded_min_is_a_min_reduction() {
    let r = one(
        "int smallest_odd(int n, const int* x) {\n    int smallest = x[0];\n    for (int i = 1; i < n; ++i) {\n        if (x[i] % 2 == 1 && x[i] < smallest) smallest = x[i];\n    }\n    return smallest;\n}\n",
    );
    let p = port(&r).unwrap();
    assert!(p.shape.contains("min of `smallest`"), "{}", p.shape);
    // Each thread runs the guarded update on its own partial.
    assert!(
        p.code.contains(
            "if (x[i] % 2 == 1 && x[i] < (port_acc_smallest)) (port_acc_smallest) = x[i];"
        ),
        "{}",
        p.code
    );
}

/// A region whose kind is declared, not derived (a benchmark task's): the port reads the update
/// itself and must not take an else branch's assignment for the comparison's min.
#[test]
fn an_update_in_the_else_branch_is_not_read_as_the_comparison_says() {
    let mut r = one(
        "float lowest(int n, const float* x) {\n    float m = x[0];\n    for (int i = 0; i < n; ++i) {\n        if (x[i] < m) m = x[i];\n    }\n    return m;\n}\n",
    );
    assert!(port(&r).unwrap().shape.contains("min of `m`"));
    let update = "if (x[i] < (*m)) (*m) = x[i];";
    assert!(r.source.contains(update), "{}", r.source);
    r.source = r
        .source
        .replace(update, "if (x[i] < (*m)) { } else { (*m) = x[i]; }");
    let e = port(&r).unwrap_err();
    assert!(e.to_string().contains("not an associative operator"), "{e}");
}

#[test]
fn an_argmin_folds_partials_in_serial_order() {
    let r = one(
        "long long closest(int n, const double* x, double target) {\n    double best = 1e300;\n    long long at = -1;\n    for (int i = 0; i < n; ++i) {\n        double d = x[i] > target ? x[i] - target : target - x[i];\n        if (d < best) {\n            best = d;\n            at = i;\n        }\n    }\n    return at;\n}\n",
    );
    let p = port(&r).unwrap();
    assert!(
        p.shape.starts_with("arg-min of `best` carrying `at`"),
        "{}",
        p.shape
    );
    // Strict `<`: between equal values the earlier iteration stays, as in the serial loop.
    assert!(
        p.code
            .contains("(b.v_best < a.v_best) || (!(a.v_best < b.v_best) && b.at_0 < a.at_0)"),
        "{}",
        p.code
    );
    assert!(
        p.code.contains("{ port_at_0 = port_t; port_found_0 = 1; {"),
        "{}",
        p.code
    );
}

#[test]
fn a_non_strict_argmax_keeps_the_last_of_equal_values() {
    let r = one(
        "int last_max(int n, const int* x) {\n    int m = x[0];\n    int k = 0;\n    for (int i = 1; i < n; ++i) {\n        if (x[i] >= m) { m = x[i]; k = i; }\n    }\n    return k;\n}\n",
    );
    let p = port(&r).unwrap();
    assert!(
        p.shape.starts_with("arg-max of `m` carrying `k`"),
        "{}",
        p.shape
    );
    assert!(
        p.code
            .contains("(b.v_m > a.v_m) || (!(a.v_m > b.v_m) && b.at_0 > a.at_0)"),
        "{}",
        p.code
    );
}

#[test]
fn a_guarded_assignment_keeps_the_last_iteration_whose_guard_held() {
    let mut r = whole_reduction(
        "    long long last = 0;\n    for (int i = 0; i < n; ++i) {\n        if (x[i] < 100.0) {\n            last = i;\n        }\n    }\n    *result = last;\n",
    );
    let p = port(&r).unwrap();
    assert!(
        p.shape.starts_with("last guarded assignment of `last`"),
        "{}",
        p.shape
    );
    assert!(
        p.code
            .contains("if (b.found_0 && (!a.found_0 || b.at_0 > a.at_0))"),
        "{}",
        p.code
    );
    // A guard that reads the value is not this shape (a running value), and says so.
    r.source = r.source.replace("x[i] < 100.0", "x[i] < last");
    assert!(port(&r).is_err());
}

#[test]
fn a_search_stops_each_thread_at_its_first_find() {
    let r = whole_reduction(
        "    int f = 0;\n    for (int i = 0; i < n; ++i) {\n        if (x[i] == 3.0) {\n            f = 1;\n            break;\n        }\n    }\n    *result = f;\n",
    );
    let p = port(&r).unwrap();
    assert!(
        p.shape.starts_with("first guarded assignment of `f`"),
        "{}",
        p.shape
    );
    assert!(p.code.contains("b.at_0 < a.at_0"), "{}", p.code);
    assert!(p.code.contains("break;"), "{}", p.code);
    // A break anywhere else still has no port.
    let r = whole_reduction(
        "    double s = 0.0;\n    for (int i = 0; i < n; ++i) {\n        if (x[i] < 0.0) break;\n        s += x[i];\n    }\n    *result = s;\n",
    );
    let e = port(&r).unwrap_err();
    assert!(e.reason.contains("leaves the loop early"), "{e}");
}

#[test]
fn independent_flags_fold_group_by_group() {
    let r = whole_reduction(
        "    int in_a = 0, in_b = 0;\n    for (int i = 0; i < n; ++i) {\n        if (x[i] == 1.0) in_a = 1;\n        if (x[i] == 2.0) in_b = 1;\n    }\n    *result = in_a ^ in_b;\n",
    );
    let p = port(&r).unwrap();
    assert!(
        p.shape.contains("`in_a`") && p.shape.contains("`in_b`"),
        "{}",
        p.shape
    );
    assert!(p.code.contains("found_1"), "{}", p.code);
    assert!(p.code.contains("*result = in_a ^ in_b;"), "{}", p.code);
}

#[test]
fn a_narrow_local_accumulator_combines_through_a_wide_partial() {
    let mut r = whole_reduction(
        "    unsigned char v = 0;\n    for (int i = 0; i < n; ++i) v ^= (unsigned char)(x[i] > 0.5);\n    *result = v;\n",
    );
    let p = port(&r).unwrap();
    assert!(p.shape.contains("bitxor of `v`"), "{}", p.shape);
    assert!(
        p.code
            .contains("atomicXor(port_part_v, (unsigned int)(v));"),
        "{}",
        p.code
    );
    assert!(
        p.code
            .contains("unsigned char v = (unsigned char)*port_part_v;"),
        "{}",
        p.code
    );
    // A signed min keeps its order in an int.
    r.source = r
        .source
        .replace("unsigned char v = 0;", "signed char v = 127;")
        .replace(
            "v ^= (unsigned char)(x[i] > 0.5)",
            "v = v < (signed char)x[i] ? v : (signed char)x[i]",
        );
    let p = port(&r);
    if let Ok(p) = p {
        assert!(
            p.code.contains("atomicMin(port_part_v, (int)(v));"),
            "{}",
            p.code
        );
    }
}

/// A task's declared kind is checked against the analysis: a serial sort declared a map would
/// race in the port.
#[test]
fn a_declared_map_that_the_analysis_finds_sequential_has_no_port() {
    let mut r = one(
        "void saxpy(int n, float a, const float* x, float* y) {\n    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];\n}\n",
    );
    r.source = "void saxpy(int n, float a, const float* x, float* y) {\n    for (int i = 0; i < n; ++i)\n        for (int j = i + 1; j < n; ++j)\n            if (y[i] > y[j]) { float t = y[i]; y[i] = y[j]; y[j] = t; }\n}\n".into();
    // A user's region keeps the kind the analysis of the whole file found (it saw the enclosing
    // loops' ranges); a task's declared kind is checked.
    let user = port(&r).expect("a user's region keeps its analysed kind");
    assert!(user.shape.contains("grid-stride map"), "{}", user.shape);
    r.sizes = Some(crate::analysis::DeclaredSizes {
        test: vec![[("n".to_string(), 100)].into()],
        timed: [("n".to_string(), 1 << 20)].into(),
    });
    let e = port(&r).unwrap_err();
    assert!(e.reason.contains("finds the loop sequential"), "{e}");
}

#[test]
fn a_min_or_max_macro_is_read_off_its_definition() {
    let cases = [
        ("#define SMALLER(a, b) ((a < b) ? a : b)", "SMALLER", "min"),
        (
            "#define BIGGER(a, b) (((a) > (b)) ? (a) : (b))",
            "BIGGER",
            "max",
        ),
        ("#define LARGEST(x, y) ((x < y) ? y : x)", "LARGEST", "max"),
    ];
    for (def, name, op) in cases {
        let src = format!(
            "{def}\ndouble f(int n, const double* x) {{\n    double m = x[0];\n    for (int i = 1; i < n; ++i) m = {name}(m, x[i]);\n    return m;\n}}\n"
        );
        let r = one(&src);
        let p = port(&r).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            p.shape.contains(&format!("{op} of `m`")),
            "{name}: {}",
            p.shape
        );
    }
    // Not a min or a max.
    let mix = "#define MIX(a, b) ((a < b) ? b : 2 * a)\n";
    assert!(reduction::Op::from_macro(mix, "MIX").is_none());
    assert!(reduction::Op::from_macro(mix, "OTHER").is_none());
}

#[test]
fn a_variable_stepped_beside_the_counter_is_set_from_the_iteration() {
    let r = one(
        "void scale(int n, int base, const float* f, float* p) {\n    for (int iOff = 64 * base, ii = 0; ii < n; ii++, iOff++) p[iOff] = 2.0f * f[iOff];\n}\n",
    );
    let p = port(&r).unwrap();
    assert!(
        p.code.contains(
            "int ii = (int)((0) + port_t * (1LL)); int iOff = (int)((64 * base) + port_t * (1LL));"
        ),
        "{}",
        p.code
    );
}

#[test]
fn elements_at_fixed_positions_are_accumulators_and_others_atomic_updates() {
    let mut r = one(
        "void cov(int n, const int* x, int* c) {\n    for (int i = 0; i < n; ++i) {\n        c[0] += x[i] * x[i];\n        c[1] += x[i];\n    }\n}\n",
    );
    r.kind = LoopKind::Reduction;
    let p = port(&r).unwrap();
    assert!(p.shape.contains("block reduction"), "{}", p.shape);
    assert!(
        p.code.contains("port_acc_c_0 += x[i] * x[i];"),
        "{}",
        p.code
    );
    assert!(
        p.code.contains("atomicAdd(&c[1], (int)(port_acc_c_1));"),
        "{}",
        p.code
    );

    let mut r = one(
        "void push(int n, const int* cell, const float* f, float* p) {\n    for (int i = 0; i < n; ++i) {\n        p[3 * cell[i]] *= f[i];\n    }\n}\n",
    );
    r.kind = LoopKind::Reduction;
    let p = port(&r).unwrap();
    assert!(p.shape.contains("atomic update"), "{}", p.shape);
    assert!(p.code.contains("atomicCAS"), "{}", p.code);
    assert!(p.code.contains("port_cur * (float)(f[i])"), "{}", p.code);
}

#[test]
fn an_array_stored_and_updated_beside_a_sum_stays_as_the_loop_has_it() {
    let r = one(
        "double res(int n, const double* u, const double* w, double* r) {\n    double rro = 0.0;\n    for (int i = 0; i < n; ++i) {\n        r[i] = u[i];\n        r[i] -= w[i];\n        rro += r[i] * r[i];\n    }\n    return rro;\n}\n",
    );
    let p = port(&r).unwrap();
    assert!(p.code.contains("r[i] -= w[i];"), "{}", p.code);
    assert!(!p.code.contains("atomicCAS"), "{}", p.code);
}
