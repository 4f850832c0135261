//! Generates the two programs of a verification job from an `OffloadRegion`:
//! the reference (host compiler, serial `region.source`, built twice: as written and with every
//! floating type promoted, `float`→`double`→`long double`, for a high-precision reference), and the
//! candidate harness (nvcc; the candidate file appended after `#line 1 "candidate.cu"` so that
//! compiler messages point at the candidate's own lines, and so that its macros cannot reach the
//! harness). Both read the same `plan.txt` and generate the same seeded inputs.

use std::fmt::Write as _;

use crate::analysis::{Access, OffloadRegion, RegionParam};

use super::plan::{Plan, is_float_type};

pub const COMMON: &str = include_str!("common.h");

/// The name the candidate's file has in compiler messages.
pub const CANDIDATE_FILE: &str = "candidate.cu";

/// Repetitions of the serial timing, the median of which is every speedup's denominator.
pub const SERIAL_REPS: u32 = 5;
/// Once the serial timing has taken this long, it stops after its third repetition: slow serial
/// code is steady at that length, and the machine is held alone for every repetition.
pub const SERIAL_BUDGET_MS: u32 = 10_000;

/// `plan.txt` for both programs.
pub fn plan_text(plan: &Plan, budget_s: f64) -> String {
    let sizes = |c: &super::plan::Case| {
        let mut s = format!("{}", c.sizes.len());
        for (_, v) in &c.sizes {
            let _ = write!(s, " {v}");
        }
        s
    };
    let mut out = String::new();
    for (i, c) in plan.cases.iter().enumerate() {
        let _ = writeln!(out, "case c{i} {} {} {}", c.seed, c.dist, sizes(c));
    }
    let checked: Vec<String> = plan.checked_samples.iter().map(|i| i.to_string()).collect();
    let _ = writeln!(
        out,
        "timed {} {} {} {} {budget_s} {} {} {}",
        plan.timed.seed,
        plan.warmups,
        plan.min_samples,
        plan.max_samples,
        checked.len(),
        checked.join(" "),
        sizes(&plan.timed)
    );
    let _ = writeln!(
        out,
        "serial {} 0 {SERIAL_REPS} {SERIAL_BUDGET_MS} {}",
        plan.timed.seed,
        sizes(&plan.timed)
    );
    out
}

fn is_output(p: &RegionParam) -> bool {
    p.is_array && p.access != Access::Read
}

fn c_expr(e: &str) -> String {
    // Extents come from our own analysis or a region file the user wrote; refuse anything that is
    // not a plain arithmetic expression before it reaches a compiler.
    format!("({e})")
}

/// Checks the region is something we can generate C from: identifiers, types and expressions.
pub fn validate_region(region: &OffloadRegion) -> Result<(), String> {
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !s.starts_with(|c: char| c.is_ascii_digit())
    };
    let ty = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == ' ')
    };
    let expr = |s: &str| {
        s.chars()
            .all(|c| c.is_ascii_alphanumeric() || " _+-*/%()".contains(c))
    };
    if !ident(&region.name) {
        return Err(format!(
            "region name `{}` is not an identifier",
            region.name
        ));
    }
    for p in &region.params {
        if !ident(&p.name) || p.name.starts_with("co_") {
            return Err(format!("parameter name `{}` is not usable", p.name));
        }
        if !ty(&p.elem_type) {
            return Err(format!(
                "type `{}` of `{}` is not usable",
                p.elem_type, p.name
            ));
        }
        let exprs = [
            p.extent.as_deref(),
            p.input.as_ref().and_then(|i| i.min.as_deref()),
            p.input.as_ref().and_then(|i| i.max.as_deref()),
        ];
        for e in exprs.into_iter().flatten() {
            if !expr(e) {
                return Err(format!(
                    "expression `{e}` of `{}` is not plain arithmetic",
                    p.name
                ));
            }
        }
        if p.is_array && p.extent.is_none() {
            return Err(format!("array `{}` has no extent", p.name));
        }
        if !p.is_array && p.access != Access::Read {
            return Err(format!(
                "written scalar `{}` must be passed as a one-element array",
                p.name
            ));
        }
    }
    if region.params.iter().all(|p| !is_output(p)) {
        return Err("the region writes no array: nothing to compare".into());
    }
    Ok(())
}

/// `struct CoArgs` and `co_make`, shared by both programs.
fn args_code(region: &OffloadRegion) -> String {
    let mut s = String::from("struct CoArgs {\n");
    for p in &region.params {
        if p.is_array {
            let _ = writeln!(
                s,
                "    std::vector<{t}> {n};\n    long long co_ext_{n} = 1;",
                t = p.elem_type,
                n = p.name
            );
        } else {
            let _ = writeln!(s, "    {} {};", p.elem_type, p.name);
        }
    }
    s.push_str("};\n\n");
    let nsizes = region.params.iter().filter(|p| p.is_size).count();
    let _ = writeln!(s, "static const size_t CO_NSIZES = {nsizes};");
    s.push_str(
        "static void co_make(CoArgs& A, const std::vector<long long>& co_sizes, unsigned long long co_seed, int co_dist) {\n",
    );
    s.push_str("    (void)co_sizes; (void)co_seed; (void)co_dist;\n");
    for (k, p) in region.params.iter().filter(|p| p.is_size).enumerate() {
        let _ = writeln!(
            s,
            "    {t} {n} = ({t})co_sizes[{k}];",
            t = p.elem_type,
            n = p.name
        );
    }
    let spec = |p: &RegionParam| {
        let i = p.input.clone().unwrap_or_default();
        let lo = i.min.as_deref().map(c_expr);
        let hi = i.max.as_deref().map(c_expr);
        format!(
            "{}, (double){}, {}, (double){}",
            lo.is_some(),
            lo.unwrap_or("0".into()),
            hi.is_some(),
            hi.unwrap_or("0".into())
        )
    };
    for (i, p) in region.params.iter().enumerate() {
        if !p.is_size && !p.is_array {
            let _ = writeln!(
                s,
                "    CoRng co_r_{n} = co_rng(co_seed, {i});\n    {t} {n} = co_value<{t}>(co_r_{n}, co_dist, {spec});",
                t = p.elem_type,
                n = p.name,
                spec = spec(p)
            );
        }
    }
    for (i, p) in region.params.iter().enumerate() {
        if !p.is_array {
            continue;
        }
        let ext = c_expr(p.extent.as_deref().unwrap_or("1"));
        let _ = writeln!(
            s,
            "    A.co_ext_{n} = co_ext((long long){ext});\n    A.{n}.resize((size_t)A.co_ext_{n});",
            n = p.name
        );
        if p.access == Access::Write {
            let _ = writeln!(
                s,
                "    co_garbage(A.{n}.data(), A.co_ext_{n}, co_rng(co_seed, {g}));",
                n = p.name,
                g = 1000 + i
            );
        } else {
            let i_spec = p.input.clone().unwrap_or_default();
            let _ = writeln!(
                s,
                "    co_fill(A.{n}.data(), A.co_ext_{n}, co_rng(co_seed, {i}), co_dist, {spec}, {sorted}, {perm});",
                n = p.name,
                spec = spec(p),
                sorted = i_spec.sorted,
                perm = i_spec.permutation
            );
        }
    }
    for p in region.params.iter().filter(|p| !p.is_array) {
        let _ = writeln!(s, "    A.{n} = {n};", n = p.name);
    }
    s.push_str("}\n\n");
    s
}

/// The reference program. Compile with `-DCO_HP=0` (as written, used for timing and for integer
/// outputs) and `-DCO_HP=1` (floating types promoted, used for floating outputs).
pub fn reference_program(region: &OffloadRegion) -> String {
    let mut s = String::new();
    for inc in &region.includes {
        let _ = writeln!(s, "{}", inc.trim());
    }
    s.push_str(COMMON);
    s.push('\n');
    s.push_str(&args_code(region));
    s.push_str("#if CO_HP\n#define float double\n#define double long double\n#endif\n");
    s.push_str(&region.source);
    s.push_str("\n#if CO_HP\n#undef float\n#undef double\n#endif\n\n");

    // Run and write: in HP mode floating arrays and scalars are copied to long double first.
    s.push_str("static bool co_run_and_write(CoArgs& A, const std::string& co_prefix) {\n");
    let mut call_args = Vec::new();
    for p in &region.params {
        let promoted = is_float_type(&p.elem_type);
        if p.is_array && promoted {
            let _ = writeln!(
                s,
                "#if CO_HP\n    std::vector<long double> co_hp_{n}(A.{n}.begin(), A.{n}.end());\n    long double* co_p_{n} = co_hp_{n}.data();\n#else\n    {t}* co_p_{n} = A.{n}.data();\n#endif",
                n = p.name,
                t = p.elem_type
            );
            call_args.push(format!("co_p_{}", p.name));
        } else if p.is_array {
            call_args.push(format!("A.{}.data()", p.name));
        } else if promoted {
            let _ = writeln!(
                s,
                "#if CO_HP\n    long double co_p_{n} = (long double)A.{n};\n#else\n    {t} co_p_{n} = A.{n};\n#endif",
                n = p.name,
                t = p.elem_type
            );
            call_args.push(format!("co_p_{}", p.name));
        } else {
            call_args.push(format!("A.{}", p.name));
        }
    }
    let _ = writeln!(s, "    {}({});", region.name, call_args.join(", "));
    s.push_str("    bool ok = true;\n");
    for p in region.params.iter().filter(|p| is_output(p)) {
        let ptr = if is_float_type(&p.elem_type) {
            format!("co_p_{}", p.name)
        } else {
            format!("A.{}.data()", p.name)
        };
        let _ = writeln!(
            s,
            "    ok = ok && co_write(co_prefix + \"_{n}.bin\", {ptr}, A.co_ext_{n});",
            n = p.name
        );
    }
    s.push_str("    return ok;\n}\n\n");

    let mut time_args = Vec::new();
    for p in &region.params {
        time_args.push(if p.is_array {
            format!("A.{}.data()", p.name)
        } else {
            format!("A.{}", p.name)
        });
    }
    let _ = write!(
        s,
        r#"int main(int argc, char** argv) {{
    std::string co_out = argc > 1 ? argv[1] : ".";
    // `outputs` writes the reference outputs only, `serial` only times the serial code: the verifier
    // runs the first beside other work and the second alone. Without it, both.
    std::string co_only = argc > 2 ? argv[2] : "";
    std::vector<CoItem> items = co_read_plan("plan.txt");
    for (const CoItem& it : items) {{
        if (it.sizes.size() != CO_NSIZES) {{ std::fprintf(stderr, "PLAN wrong number of sizes\n"); return 12; }}
        if (!co_only.empty() && (co_only == "serial") != (it.kind == "serial")) continue;
        if (it.kind == "case") {{
            CoArgs A; co_make(A, it.sizes, it.seed, it.dist);
            if (!co_run_and_write(A, co_out + "/" + it.tag)) {{ std::fprintf(stderr, "WRITE failed\n"); return 13; }}
        }} else if (it.kind == "timed") {{
            for (int i : it.checked) {{
                CoArgs A; co_make(A, it.sizes, it.seed + (unsigned long long)i, i % 2);
                if (!co_run_and_write(A, co_out + "/t" + std::to_string(i))) {{ std::fprintf(stderr, "WRITE failed\n"); return 13; }}
            }}
        }} else if (it.kind == "serial") {{
#if !CO_HP
            std::vector<double> times;
            double co_total_ms = 0;
            for (int r = 0; r < it.reps; ++r) {{
                if (r >= 3 && co_total_ms >= it.budget_ms) break;
                CoArgs A; co_make(A, it.sizes, it.seed + 500 + (unsigned long long)r, it.dist);
                auto t0 = std::chrono::steady_clock::now();
                {name}({targs});
                times.push_back(co_ms_since(t0));
                co_total_ms += times.back();
            }}
            FILE* f = std::fopen((co_out + "/serial.txt").c_str(), "w");
            if (!f) return 13;
            for (double t : times) std::fprintf(f, "%.6f\n", t);
            std::fclose(f);
#endif
        }}
    }}
    return 0;
}}
"#,
        name = region.name,
        targs = time_args.join(", ")
    );
    s
}

/// The candidate harness; the candidate's text follows it verbatim.
pub fn candidate_program(region: &OffloadRegion, candidate: &str) -> String {
    let mut s = String::from("#include <cuda_runtime.h>\n");
    for inc in &region.includes {
        let _ = writeln!(s, "{}", inc.trim());
    }
    s.push_str(COMMON);
    s.push('\n');
    let _ = writeln!(s, "{};\n", region.signature_named(&region.gpu_entry_name()));
    s.push_str(&args_code(region));
    s.push_str(
        r#"#define CO_CK(call) do { cudaError_t co_e = (call); if (co_e != cudaSuccess) { \
    std::fprintf(stderr, "CUDA_ERROR %d %s in harness: %s\n", (int)co_e, cudaGetErrorString(co_e), #call); std::exit(10); } } while (0)

static void co_after_candidate(const char* what) {
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::fprintf(stderr, "CUDA_ERROR %d %s after the candidate (%s)\n", (int)e, cudaGetErrorString(e), what);
        std::exit(10);
    }
}

"#,
    );
    // Device buffers.
    s.push_str("struct CoDev {\n");
    for p in region.params.iter().filter(|p| p.is_array) {
        let _ = writeln!(
            s,
            "    {}* {n} = nullptr;\n    long long co_cap_{n} = 0;",
            p.elem_type,
            n = p.name
        );
    }
    s.push_str("};\n\nstatic void co_alloc(CoDev& D, const CoArgs& A) {\n");
    for p in region.params.iter().filter(|p| p.is_array) {
        let _ = writeln!(
            s,
            "    CO_CK(cudaMalloc((void**)&D.{n}, (size_t)A.co_ext_{n} * sizeof({t})));\n    D.co_cap_{n} = A.co_ext_{n};",
            n = p.name,
            t = p.elem_type
        );
    }
    // Extents may depend on drawn scalars (a bin count): timed samples re-allocate, untimed, when
    // a fresh input set no longer fits.
    s.push_str(
        "}\n\nstatic bool co_fits(const CoDev& D, const CoArgs& A) {\n    bool ok = true;\n",
    );
    for p in region.params.iter().filter(|p| p.is_array) {
        let _ = writeln!(
            s,
            "    ok = ok && A.co_ext_{n} <= D.co_cap_{n};",
            n = p.name
        );
    }
    s.push_str("    (void)D; (void)A;\n    return ok;\n");
    s.push_str("}\n\nstatic void co_free(CoDev& D) {\n");
    for p in region.params.iter().filter(|p| p.is_array) {
        let _ = writeln!(s, "    cudaFree(D.{});", p.name);
    }
    // Upload: `which` 0 = write-only outputs (garbage), 1 = everything the loop reads.
    s.push_str("}\n\nstatic void co_upload(CoDev& D, const CoArgs& A, int which) {\n");
    for p in region.params.iter().filter(|p| p.is_array) {
        let which = if p.access == Access::Write { 0 } else { 1 };
        let _ = writeln!(
            s,
            "    if (which == {which}) CO_CK(cudaMemcpy(D.{n}, A.{n}.data(), (size_t)A.co_ext_{n} * sizeof({t}), cudaMemcpyHostToDevice));",
            n = p.name,
            t = p.elem_type
        );
    }
    s.push_str("}\n\nstatic void co_download(CoDev& D, CoArgs& A) {\n");
    for p in region.params.iter().filter(|p| is_output(p)) {
        let _ = writeln!(
            s,
            "    CO_CK(cudaMemcpy(A.{n}.data(), D.{n}, (size_t)A.co_ext_{n} * sizeof({t}), cudaMemcpyDeviceToHost));",
            n = p.name,
            t = p.elem_type
        );
    }
    s.push_str("}\n\n// The name of an input the candidate changed, or nullptr.\nstatic const char* co_inputs_changed(CoDev& D, const CoArgs& A) {\n");
    for p in region
        .params
        .iter()
        .filter(|p| p.is_array && p.access == Access::Read)
    {
        let _ = writeln!(
            s,
            "    {{ std::vector<{t}> co_t((size_t)A.co_ext_{n}); CO_CK(cudaMemcpy(co_t.data(), D.{n}, co_t.size() * sizeof({t}), cudaMemcpyDeviceToHost));\n      if (std::memcmp(co_t.data(), A.{n}.data(), co_t.size() * sizeof({t})) != 0) return \"{n}\"; }}",
            n = p.name,
            t = p.elem_type
        );
    }
    s.push_str("    (void)D; (void)A;\n    return nullptr;\n}\n\nstatic bool co_write_outputs(const CoArgs& A, const std::string& co_prefix) {\n    bool ok = true;\n");
    for p in region.params.iter().filter(|p| is_output(p)) {
        let _ = writeln!(
            s,
            "    ok = ok && co_write(co_prefix + \"_{n}.bin\", A.{n}.data(), A.co_ext_{n});",
            n = p.name
        );
    }
    s.push_str("    return ok;\n}\n\nstatic void co_call(CoDev& D, const CoArgs& A) {\n");
    let args: Vec<String> = region
        .params
        .iter()
        .map(|p| {
            if p.is_array {
                format!("D.{}", p.name)
            } else {
                format!("A.{}", p.name)
            }
        })
        .collect();
    let _ = writeln!(
        s,
        "    {}({});\n}}\n",
        region.gpu_entry_name(),
        args.join(", ")
    );
    s.push_str(HARNESS_MAIN);
    let _ = write!(s, "\n#line 1 \"{CANDIDATE_FILE}\"\n{candidate}\n");
    s
}

const HARNESS_MAIN: &str = r#"static void co_check_inputs(CoDev& D, const CoArgs& A) {
    const char* changed = co_inputs_changed(D, A);
    if (changed) { std::fprintf(stderr, "INPUT_MODIFIED %s\n", changed); std::exit(11); }
}

int main(int argc, char** argv) {
    std::string co_out = argc > 1 ? argv[1] : ".";
    std::vector<CoItem> items = co_read_plan("plan.txt");
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        std::fprintf(stderr, "NO_GPU %d %s\n", (int)e, cudaGetErrorString(e));
        return 20;
    }
    for (const CoItem& it : items) {
        if (it.sizes.size() != CO_NSIZES) { std::fprintf(stderr, "PLAN wrong number of sizes\n"); return 12; }
        if (it.kind == "case") {
            CoArgs A; co_make(A, it.sizes, it.seed, it.dist);
            CoDev D; co_alloc(D, A);
            co_upload(D, A, 0); co_upload(D, A, 1);
            CO_CK(cudaDeviceSynchronize());
            co_call(D, A);
            co_after_candidate(it.tag.c_str());
            co_check_inputs(D, A);
            co_download(D, A);
            if (!co_write_outputs(A, co_out + "/" + it.tag)) { std::fprintf(stderr, "WRITE failed\n"); return 13; }
            co_free(D);
        } else if (it.kind == "timed") {
            CoArgs A; co_make(A, it.sizes, it.seed + 100000ULL, 0);
            CoDev D; co_alloc(D, A);
            // L2 flush: one 256 MB write before each sample (L2 is 60 MB on the H200).
            size_t flush_bytes = (size_t)256 << 20;
            void* flush = nullptr;
            CO_CK(cudaMalloc(&flush, flush_bytes));
            for (int w = 0; w < it.warmups; ++w) {
                co_make(A, it.sizes, it.seed + 100000ULL + (unsigned long long)w, w % 2);
                if (!co_fits(D, A)) { co_free(D); co_alloc(D, A); }
                co_upload(D, A, 0); co_upload(D, A, 1);
                co_call(D, A);
                co_after_candidate("warm-up");
            }
            cudaEvent_t e0, k0, k1, e1;
            CO_CK(cudaEventCreate(&e0)); CO_CK(cudaEventCreate(&k0));
            CO_CK(cudaEventCreate(&k1)); CO_CK(cudaEventCreate(&e1));
            FILE* tf = std::fopen((co_out + "/timing.txt").c_str(), "w");
            if (!tf) return 13;
            auto t_start = std::chrono::steady_clock::now();
            std::vector<double> ks;
            for (int i = 0; i < it.max_samples; ++i) {
                // Fresh inputs every sample: nothing can be cached across samples.
                co_make(A, it.sizes, it.seed + (unsigned long long)i, i % 2);
                if (!co_fits(D, A)) { co_free(D); co_alloc(D, A); }
                CO_CK(cudaMemset(flush, i & 0xff, flush_bytes));
                co_upload(D, A, 0);
                CO_CK(cudaDeviceSynchronize());
                CO_CK(cudaEventRecord(e0));
                co_upload(D, A, 1);
                CO_CK(cudaEventRecord(k0));
                auto w0 = std::chrono::steady_clock::now();
                co_call(D, A);
                // The whole device, every stream, is done before the end event.
                co_after_candidate("timed");
                double wall = co_ms_since(w0);
                CO_CK(cudaEventRecord(k1));
                co_download(D, A);
                CO_CK(cudaEventRecord(e1));
                CO_CK(cudaEventSynchronize(e1));
                float kms = 0, ems = 0;
                CO_CK(cudaEventElapsedTime(&kms, k0, k1));
                CO_CK(cudaEventElapsedTime(&ems, e0, e1));
                std::fprintf(tf, "%.6f %.6f %.6f\n", kms, ems, wall);
                std::fflush(tf);
                if (std::find(it.checked.begin(), it.checked.end(), i) != it.checked.end()) {
                    co_check_inputs(D, A);
                    if (!co_write_outputs(A, co_out + "/t" + std::to_string(i))) { std::fprintf(stderr, "WRITE failed\n"); return 13; }
                }
                ks.push_back(kms);
                int n = i + 1;
                if (n < it.min_samples) continue;
                double mean = 0, var = 0;
                for (double k : ks) mean += k;
                mean /= n;
                for (double k : ks) var += (k - mean) * (k - mean);
                var /= (n - 1);
                double rse = mean > 0 ? std::sqrt(var / n) / mean : 0;
                if (rse < 0.005 || co_ms_since(t_start) > it.budget_s * 1000.0) break;
            }
            std::fclose(tf);
            cudaFree(flush);
            co_free(D);
        }
    }
    return 0;
}
"#;
