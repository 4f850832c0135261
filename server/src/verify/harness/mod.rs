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
/// The system-call filter the harness installs before it first calls the candidate.
pub const LOCKDOWN: &str = include_str!("lockdown.h");
/// The harness's exit when the filter cannot be installed (the candidate never ran).
pub const EXIT_NO_FILTER: i32 = 21;

/// The name the candidate's file has in compiler messages.
pub const CANDIDATE_FILE: &str = "candidate.cu";

/// Repetitions of the serial timing, the median of which is every speedup's denominator.
pub const SERIAL_REPS: u32 = 5;
/// Once the serial timing has taken this long, it stops after its third repetition: slow serial
/// code is steady at that length, and the machine is held alone for every repetition.
pub const SERIAL_BUDGET_MS: u32 = 10_000;

/// `plan.txt`, the same for the reference and the candidate: it names no timed sample that will
/// be compared (the harness sends every one; the verifier draws which while they arrive).
pub fn plan_text(plan: &Plan, budget_s: f64) -> String {
    let sizes = |c: &super::plan::Case| {
        let mut s = format!("{}", c.sizes.len());
        for (_, v) in &c.sizes {
            let _ = write!(s, " {v}");
        }
        s
    };
    let mut out = String::new();
    for i in plan.live_cases() {
        let c = &plan.cases[i];
        let _ = writeln!(out, "case c{i} {} {} {}", c.seed, c.dist, sizes(c));
    }
    let _ = writeln!(
        out,
        "timed {} {} {} {} {budget_s} {}",
        plan.timed.seed,
        plan.warmups,
        plan.min_samples,
        plan.max_samples,
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
    for r in &region.types.records {
        if !ty(&r.name) {
            return Err(format!("struct type `{}` is not usable", r.name));
        }
        for f in &r.fields {
            let path_ok = !f.path.is_empty()
                && f.path
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.[]".contains(c));
            if !path_ok || !ty(&f.ty) || f.count == 0 {
                return Err(format!("field `{}` of `{}` is not usable", f.path, r.name));
            }
        }
    }
    if region.params.iter().all(|p| !is_output(p)) {
        return Err("the region writes no array: nothing to compare".into());
    }
    Ok(())
}

/// An identifier for a struct type's helpers (`struct cell` → `struct_cell`).
fn rec_ident(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Per struct type of the region: `co_rec_fill_<T>` (seeded values for every leaf, in declaration
/// order, chunked over threads like `co_fill`) and `co_rec_garbage_<T>` (outputs' start values),
/// shared by both programs so both generate the same bytes.
fn records_code(region: &OffloadRegion) -> String {
    let mut s = String::new();
    for r in &region.types.records {
        let id = rec_ident(&r.name);
        let draws: Vec<String> = r
            .fields
            .iter()
            .map(|f| {
                format!(
                    "co_draws<{t}>(dist, false, false) * {c}",
                    t = f.ty,
                    c = f.count
                )
            })
            .collect();
        let _ = writeln!(
            s,
            "static long long co_rec_draws_{id}(int dist) {{ (void)dist; return {}; }}",
            draws.join(" + ")
        );
        let fill_head = format!(
            "static void co_rec_fill_{id}({t}* p, long long len, CoRng r, int dist) {{\n    long long draws = co_rec_draws_{id}(dist);",
            t = r.name
        );
        per_field_loop(&mut s, &fill_head, "draws", &r.fields, |ty| {
            format!("co_value<{ty}>(rr, dist, false, 0, false, 0)")
        });
        let total: usize = r.fields.iter().map(|f| f.count).sum();
        let garbage_head = format!(
            "static void co_rec_garbage_{id}({t}* p, long long len, CoRng r) {{",
            t = r.name
        );
        per_field_loop(&mut s, &garbage_head, &total.to_string(), &r.fields, |ty| {
            if is_float_type(ty) {
                format!("({ty})(-7777.0 - 1000.0 * rr.unit())")
            } else {
                format!("({ty})(rr.next() | 1ULL)")
            }
        });
        s.push('\n');
    }
    s
}

/// `head` (a function's opening), then a loop over `p[0..len)` chunked like `co_fill` that sets
/// every scalar of every field to `value(field type)`, the random stream skipped `stride` draws
/// per element.
fn per_field_loop(
    s: &mut String,
    head: &str,
    stride: &str,
    fields: &[crate::analysis::region::RecordField],
    value: impl Fn(&str) -> String,
) {
    let _ = writeln!(
        s,
        "{head}
    co_chunked(len, [=](long long a, long long b) {{
        CoRng rr = co_skip(r, a * {stride});
        for (long long i = a; i < b; ++i) {{"
    );
    for f in fields {
        let _ = writeln!(
            s,
            "            {{ {t}* q = ({t}*)&p[i].{path}; for (int k = 0; k < {c}; ++k) q[k] = {v}; }}",
            t = f.ty,
            path = f.path,
            c = f.count,
            v = value(&f.ty)
        );
    }
    s.push_str(
        "        }
    });
}
",
    );
}

/// Code that hands each leaf of the struct array output `p` to `sink(name, data, len)`:
/// `co_write` in the reference, `co_send` in the harness.
fn leaf_outputs_code(
    region: &OffloadRegion,
    p: &RegionParam,
    sink: &dyn Fn(&str, &str) -> String,
) -> Option<String> {
    let r = region.types.record(&p.elem_type)?;
    let mut s = String::new();
    for f in &r.fields {
        let out_name = format!("{}__{}", p.name, f.output_suffix());
        // `std::vector<bool>` has no `data()`: a bool leaf travels as bytes of 0 and 1.
        let store = if f.ty == "bool" {
            "unsigned char"
        } else {
            f.ty.as_str()
        };
        let _ = writeln!(
            s,
            "    {{ std::vector<{store}> co_l((size_t)A.co_ext_{n} * {c}); for (long long e = 0; e < A.co_ext_{n}; ++e) {{ const {t}* q = (const {t}*)&A.{n}[(size_t)e].{path}; for (int k = 0; k < {c}; ++k) co_l[(size_t)e * {c} + k] = q[k]; }}
      {} }}",
            sink(&out_name, "co_l.data(), (long long)co_l.size()"),
            t = f.ty,
            n = p.name,
            c = f.count,
            path = f.path
        );
    }
    Some(s)
}

/// `struct CoArgs` and `co_make`, shared by both programs.
fn args_code(region: &OffloadRegion) -> String {
    let mut s = records_code(region);
    s.push_str("struct CoArgs {\n");
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
        if !p.is_size && !p.is_array && region.types.record(&p.elem_type).is_some() {
            let _ = writeln!(
                s,
                "    {t} {n}{{}}; co_rec_fill_{id}(&{n}, 1, co_rng(co_seed, {i}), co_dist);",
                t = p.elem_type,
                n = p.name,
                id = rec_ident(&p.elem_type)
            );
        } else if !p.is_size && !p.is_array {
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
        if let Some(r) = region.types.record(&p.elem_type) {
            let id = rec_ident(&r.name);
            if p.access == Access::Write {
                let _ = writeln!(
                    s,
                    "    co_rec_garbage_{id}(A.{n}.data(), A.co_ext_{n}, co_rng(co_seed, {g}));",
                    n = p.name,
                    g = 1000 + i
                );
            } else {
                let _ = writeln!(
                    s,
                    "    co_rec_fill_{id}(A.{n}.data(), A.co_ext_{n}, co_rng(co_seed, {i}), co_dist);",
                    n = p.name
                );
            }
        } else if p.access == Access::Write {
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
    s.push_str(&region.types.definitions);
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
        let sink = |name: &str, data: &str| {
            format!("ok = ok && co_write(co_prefix + \"_{name}.bin\", {data});")
        };
        if let Some(code) = leaf_outputs_code(region, p, &sink) {
            s.push_str(&code);
            continue;
        }
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
    // `sample I J ..` writes the outputs of those timed samples only: which ones are compared is
    // drawn by the verifier while the candidate's samples arrive, so they are asked for after.
    std::vector<int> co_samples;
    if (co_only == "sample")
        for (int a = 3; a < argc; ++a) co_samples.push_back(std::atoi(argv[a]));
    std::vector<CoItem> items = co_read_plan("plan.txt");
    for (const CoItem& it : items) {{
        if (it.sizes.size() != CO_NSIZES) {{ std::fprintf(stderr, "PLAN wrong number of sizes\n"); return 12; }}
        if (co_only == "sample") {{
            if (it.kind != "timed") continue;
            for (int i : co_samples) {{
                CoArgs A; co_make(A, it.sizes, it.seed + (unsigned long long)i, i % 2);
                if (!co_run_and_write(A, co_out + "/t" + std::to_string(i))) {{ std::fprintf(stderr, "WRITE failed\n"); return 13; }}
            }}
            continue;
        }}
        if (!co_only.empty() && (co_only == "serial") != (it.kind == "serial")) continue;
        if (it.kind == "case") {{
            CoArgs A; co_make(A, it.sizes, it.seed, it.dist);
            if (!co_run_and_write(A, co_out + "/" + it.tag)) {{ std::fprintf(stderr, "WRITE failed\n"); return 13; }}
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

/// The candidate's translation unit: the CUDA runtime, the region's includes and the entry's
/// declaration, then the candidate verbatim after `#line 1 "candidate.cu"` (compiler messages
/// count its own lines). It is compiled on its own: none of the harness's names are visible to
/// it, and its macros cannot reach the harness.
pub fn candidate_source(region: &OffloadRegion, candidate: &str) -> String {
    let mut s = String::from(CANDIDATE_PRELUDE);
    for inc in &region.includes {
        let _ = writeln!(s, "{}", inc.trim());
    }
    s.push_str(&region.types.definitions);
    let _ = writeln!(s, "{};", region.signature_named(&region.gpu_entry_name()));
    let _ = write!(s, "#line 1 \"{CANDIDATE_FILE}\"\n{candidate}\n");
    s
}

/// Headers every candidate may rely on (they declare nothing a candidate could misuse that the
/// link check would not refuse).
const CANDIDATE_PRELUDE: &str = "#include <cuda_runtime.h>\n#include <cstdint>\n#include <cstddef>\n#include <cmath>\n#include <cfloat>\n#include <climits>\n#include <algorithm>\n";

/// The harness's translation unit: inputs, device buffers, the timed loop and the channel to the
/// verifier. Linked with the candidate's object; everything here is `static` except `main` and
/// the memcpy guards, which only the candidate's renamed references reach.
pub fn harness_program(region: &OffloadRegion) -> String {
    let mut s =
        String::from("#include <cuda_runtime.h>\n#include <unistd.h>\n#include <dlfcn.h>\n");
    for inc in &region.includes {
        let _ = writeln!(s, "{}", inc.trim());
    }
    s.push_str(COMMON);
    s.push('\n');
    s.push_str(LOCKDOWN);
    s.push('\n');
    s.push_str(&region.types.definitions);
    let _ = writeln!(s, "{};\n", region.signature_named(&region.gpu_entry_name()));
    s.push_str(&args_code(region));
    s.push_str(
        r#"#define CO_CK(call) do { cudaError_t co_e = (call); if (co_e != cudaSuccess) { \
    std::fprintf(stderr, "CUDA_ERROR %d %s in harness: %s\n", (int)co_e, cudaGetErrorString(co_e), #call); std::_Exit(10); } } while (0)

static void co_after_candidate(const char* what) {
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::fprintf(stderr, "CUDA_ERROR %d %s after the candidate (%s)\n", (int)e, cudaGetErrorString(e), what);
        std::_Exit(10);
    }
}

"#,
    );
    s.push_str(HARNESS_CHANNEL);
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
    s.push_str("    (void)D; (void)A;\n    return nullptr;\n}\n\nstatic bool co_send_outputs(const CoArgs& A, const std::string& co_tag) {\n    bool ok = true;\n");
    for p in region.params.iter().filter(|p| is_output(p)) {
        let sink =
            |name: &str, data: &str| format!("ok = ok && co_send(co_tag, \"{name}\", {data});");
        if let Some(code) = leaf_outputs_code(region, p, &sink) {
            s.push_str(&code);
            continue;
        }
        let _ = writeln!(
            s,
            "    ok = ok && co_send(co_tag, \"{n}\", A.{n}.data(), A.co_ext_{n});",
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
    s.push_str("static long long co_array_bytes(const CoArgs& A) {\n    long long b = 0;\n");
    for p in region.params.iter().filter(|p| p.is_array) {
        let _ = writeln!(
            s,
            "    b += A.co_ext_{n} * (long long)sizeof({t});",
            n = p.name,
            t = p.elem_type
        );
    }
    s.push_str("    (void)A;\n    return b;\n}\n\n");
    s.push_str(HARNESS_MAIN);
    s
}

/// The memcpy family the candidate's references are renamed to (`objcopy --redefine-sym`) so
/// that the harness sees every copy the candidate makes: copies to host memory while the
/// candidate runs are how a host fallback reads its inputs.
pub const GUARDED_COPIES: &[&str] = &[
    "cudaMemcpy",
    "cudaMemcpyAsync",
    "cudaMemcpy2D",
    "cudaMemcpy2DAsync",
    "cudaMemcpyFromSymbol",
    "cudaMemcpyFromSymbolAsync",
    // CCCL (CUB, Thrust, libcu++) opens the CUDA driver itself in some versions (CUDA 13.0.88):
    // the guards let it open libcuda and look up driver functions, nothing else.
    "dlopen",
    "dlsym",
    "dlvsym",
];

/// The name a guarded copy's references get in the candidate's object.
pub fn guarded_name(name: &str) -> String {
    format!("co_guard_{name}")
}

/// File descriptor of the channel to the verifier (a pipe the sandbox opens before exec).
pub const CHANNEL_FD: i32 = 3;

/// Exit code of a candidate that copied too much device data to the host while it ran.
pub const EXIT_HOST_COPY: i32 = 14;

const HARNESS_CHANNEL: &str = r#"// The channel: every output and timing goes to the verifier through fd 3, a pipe it opened
// before this process started. Nothing is read back from files this process could write.
static void co_channel_write(const void* p, size_t n) {
    const char* c = (const char*)p;
    while (n > 0) {
        ssize_t w = ::write(3, c, n);
        if (w <= 0) { std::fprintf(stderr, "CHANNEL closed\n"); std::_Exit(13); }
        c += w; n -= (size_t)w;
    }
}

static void co_channel_line(const std::string& s) { co_channel_write(s.data(), s.size()); }

// B <tag> <name> <f|i|u> <bytes per element> <count>\n then the raw elements.
template <class T>
static bool co_send(const std::string& tag, const char* name, const T* p, long long len) {
    char head[256];
    if (sizeof(T) > 8) {
        // long double travels as double: the comparison is in float64 anyway.
        std::vector<double> d(p, p + len);
        std::snprintf(head, sizeof head, "B %s %s f 8 %lld\n", tag.c_str(), name, len);
        co_channel_line(head);
        co_channel_write(d.data(), d.size() * sizeof(double));
        return true;
    }
    char kind = std::is_floating_point<T>::value ? 'f' : (std::is_signed<T>::value ? 'i' : 'u');
    std::snprintf(head, sizeof head, "B %s %s %c %zu %lld\n", tag.c_str(), name, kind, sizeof(T), len);
    co_channel_line(head);
    co_channel_write(p, (size_t)len * sizeof(T));
    return true;
}

// The copy guard: counts bytes the candidate copies into host memory while co_guard_on.
static bool co_guard_on = false;
static unsigned long long co_guard_bytes = 0;

static bool co_is_host(const void* p) {
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) { cudaGetLastError(); return true; }
    return a.type != cudaMemoryTypeDevice;
}

static void co_guard_note(void* dst, size_t n, cudaMemcpyKind k) {
    if (co_guard_on && (k == cudaMemcpyDeviceToHost || co_is_host(dst))) co_guard_bytes += n;
}

extern "C" cudaError_t co_guard_cudaMemcpy(void* d, const void* s, size_t n, cudaMemcpyKind k) {
    co_guard_note(d, n, k); return cudaMemcpy(d, s, n, k);
}
extern "C" cudaError_t co_guard_cudaMemcpyAsync(void* d, const void* s, size_t n, cudaMemcpyKind k, cudaStream_t st) {
    co_guard_note(d, n, k); return cudaMemcpyAsync(d, s, n, k, st);
}
extern "C" cudaError_t co_guard_cudaMemcpy2D(void* d, size_t dp, const void* s, size_t sp, size_t w, size_t h, cudaMemcpyKind k) {
    co_guard_note(d, w * h, k); return cudaMemcpy2D(d, dp, s, sp, w, h, k);
}
extern "C" cudaError_t co_guard_cudaMemcpy2DAsync(void* d, size_t dp, const void* s, size_t sp, size_t w, size_t h, cudaMemcpyKind k, cudaStream_t st) {
    co_guard_note(d, w * h, k); return cudaMemcpy2DAsync(d, dp, s, sp, w, h, k, st);
}
extern "C" cudaError_t co_guard_cudaMemcpyFromSymbol(void* d, const void* sym, size_t n, size_t off, cudaMemcpyKind k) {
    co_guard_note(d, n, k); return cudaMemcpyFromSymbol(d, sym, n, off, k);
}
extern "C" cudaError_t co_guard_cudaMemcpyFromSymbolAsync(void* d, const void* sym, size_t n, size_t off, cudaMemcpyKind k, cudaStream_t st) {
    co_guard_note(d, n, k); return cudaMemcpyFromSymbolAsync(d, sym, n, off, k, st);
}

static bool co_driver_library(const char* file) {
    if (!file) return false;
    const char* base = std::strrchr(file, '/');
    base = base ? base + 1 : file;
    return std::strncmp(base, "libcuda.so", 10) == 0;
}

// Driver API names only (`cuInit`, `cuGetProcAddress_v2`): not the runtime, not libc.
static bool co_driver_symbol(const char* name) {
    return name && name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z';
}

extern "C" void* co_guard_dlopen(const char* file, int mode) {
    return co_driver_library(file) ? dlopen(file, mode) : nullptr;
}
extern "C" void* co_guard_dlsym(void* h, const char* name) {
    return co_driver_symbol(name) ? dlsym(h, name) : nullptr;
}
extern "C" void* co_guard_dlvsym(void* h, const char* name, const char* version) {
    return co_driver_symbol(name) ? dlvsym(h, name, version) : nullptr;
}

"#;

const HARNESS_MAIN: &str = r#"// A kernel's host code may read back a few results (a count, partial sums), not its inputs: more
// than 4 KiB plus a sixteenth of the arrays is a host fallback.
static void co_guarded_call(CoDev& D, const CoArgs& A) {
    co_guard_bytes = 0;
    co_guard_on = true;
    co_call(D, A);
    co_guard_on = false;
    unsigned long long limit = 4096ULL + (unsigned long long)co_array_bytes(A) / 16;
    if (co_guard_bytes > limit) {
        std::fprintf(stderr, "HOST_COPY %llu bytes copied to the host by the candidate (limit %llu)\n", co_guard_bytes, limit);
        std::_Exit(14);
    }
}

static void co_check_inputs(CoDev& D, const CoArgs& A) {
    const char* changed = co_inputs_changed(D, A);
    if (changed) { std::fprintf(stderr, "INPUT_MODIFIED %s\n", changed); std::_Exit(11); }
}

int main(int argc, char** argv) {
    bool co_filter = !(argc > 2 && std::strcmp(argv[2], "--no-syscall-filter") == 0);
    std::vector<CoItem> items = co_read_plan("plan.txt");
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        std::fprintf(stderr, "NO_GPU %d %s\n", (int)e, cudaGetErrorString(e));
        return 20;
    }
    // The context (and the driver's device files) exists before the filter closes the doors.
    CO_CK(cudaFree(0));
    if (co_filter) {
        int why = co_lock_down();
        if (why != 0) {
            std::fprintf(stderr, "LOCKDOWN %s\n", std::strerror(why));
            return 21;
        }
    }
    for (const CoItem& it : items) {
        if (it.sizes.size() != CO_NSIZES) { std::fprintf(stderr, "PLAN wrong number of sizes\n"); return 12; }
        if (it.kind == "case") {
            CoArgs A; co_make(A, it.sizes, it.seed, it.dist);
            CoDev D; co_alloc(D, A);
            co_upload(D, A, 0); co_upload(D, A, 1);
            CO_CK(cudaDeviceSynchronize());
            co_guarded_call(D, A);
            co_after_candidate(it.tag.c_str());
            co_check_inputs(D, A);
            co_download(D, A);
            co_send_outputs(A, it.tag);
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
                co_guarded_call(D, A);
                co_after_candidate("warm-up");
            }
            cudaEvent_t e0, k0, k1, e1;
            CO_CK(cudaEventCreate(&e0)); CO_CK(cudaEventCreate(&k0));
            CO_CK(cudaEventCreate(&k1)); CO_CK(cudaEventCreate(&e1));
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
                co_guarded_call(D, A);
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
                char line[128];
                std::snprintf(line, sizeof line, "T %d %.6f %.6f %.6f\n", i, kms, ems, wall);
                co_channel_line(line);
                // Every sample's inputs are checked and its outputs sent: which ones the verifier
                // compares with the reference is decided there, unseen from here.
                co_check_inputs(D, A);
                co_send_outputs(A, "t" + std::to_string(i));
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
            cudaFree(flush);
            co_free(D);
        }
    }
    co_channel_line("E\n");
    return 0;
}
"#;
