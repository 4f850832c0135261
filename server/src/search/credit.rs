//! Whether a step really applied its technique: its code changed (comments and whitespace aside)
//! and carries the technique's marks. A step that did not is still a kernel (it may even be the
//! answer), but the path, hover and statistics do not name the technique for it.

use crate::analysis::strip_comments_and_literals;

/// What the code of a technique shows, any one of the alternatives (graph-data/techniques.toml).
/// Techniques without a mark here are credited on a changed code alone.
const MARKS: &[(&str, &[&str])] = &[
    ("shared_memory_tiling", &["__shared__"]),
    ("privatized_histogram", &["__shared__"]),
    ("bank_conflict_padding", &["__shared__"]),
    (
        "vectorized_loads",
        &[
            "float2",
            "float4",
            "double2",
            "double4",
            "int2",
            "int4",
            "uint4",
            "longlong2",
        ],
    ),
    ("readonly_cache_loads", &["__ldg", "__restrict__"]),
    ("warp_shuffle_reduction", &["__shfl"]),
    (
        "warp_per_row",
        &["__shfl", "warpSize", "% 32", "& 31", "/ 32", ">> 5"],
    ),
    ("loop_unrolling", &["#pragma unroll"]),
    ("block_reduction_atomics", &["atomic"]),
    (
        "warp_aggregated_atomics",
        &[
            "__ballot_sync",
            "__activemask",
            "coalesced_threads",
            "__match_any_sync",
        ],
    ),
    (
        "parallel_scan",
        &[
            "cub::",
            "thrust::",
            "__shfl_up",
            "InclusiveSum",
            "ExclusiveSum",
            "InclusiveScan",
            "ExclusiveScan",
        ],
    ),
    (
        "library_call",
        &["cub::", "thrust::", "cublas", "cusparse", "cufft"],
    ),
    (
        "fast_math_intrinsics",
        &[
            "__expf",
            "__logf",
            "__sinf",
            "__cosf",
            "__powf",
            "__fdividef",
            "rsqrt",
            "__fmul",
            "__fadd",
            "__fmaf",
            "__frcp",
            "__fsqrt",
        ],
    ),
    ("launch_bounds_tuning", &["__launch_bounds__"]),
    ("constant_memory", &["__constant__"]),
    ("tensor_cores", &["wmma", "mma.sync", "mma_sync"]),
    ("streams_overlap", &["cudaStream"]),
    (
        "async_copy_pipeline",
        &["cp.async", "memcpy_async", "cuda::pipeline", "__pipeline"],
    ),
    ("grid_stride_loop", &["gridDim"]),
    ("thread_mapping_2d", &["threadIdx.y", "blockIdx.y", "dim3"]),
];

/// Code as compared: comments, literals and whitespace removed.
fn normalized(code: &str) -> String {
    strip_comments_and_literals(code)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// `Ok` when `after` applies `technique` to `before`, else why not.
pub fn credited(technique: &str, before: &str, after: &str) -> Result<(), String> {
    if normalized(before) == normalized(after) {
        return Err("the code is unchanged".into());
    }
    if technique == "kernel_fusion" && kernels(before) == kernels(after) {
        return Err("the number of kernels is unchanged".into());
    }
    let Some((_, marks)) = MARKS.iter().find(|(t, _)| *t == technique) else {
        return Ok(());
    };
    // Comments are no code: a kernel that only says it tiles does not.
    let code = strip_comments_and_literals(after);
    let unroll = technique == "loop_unrolling" && code.contains("#pragma unroll");
    if unroll || marks.iter().any(|m| code.contains(m)) {
        Ok(())
    } else {
        Err(format!(
            "none of the marks of {technique} ({}) is in the code",
            marks.join(", ")
        ))
    }
}

/// A second kernel is what fusion removes or (for a split) adds: the count of kernels changed.
fn kernels(code: &str) -> usize {
    strip_comments_and_literals(code)
        .matches("__global__")
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAIVE: &str = "__global__ void k(int n, const float* x, float* y) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = 2.0f * x[i];\n}\n";

    #[test]
    fn an_unchanged_code_is_credited_with_nothing() {
        let same = format!(
            "// tiled with shared memory\n{}",
            NAIVE.replace("    ", "  ")
        );
        assert_eq!(
            credited("shared_memory_tiling", NAIVE, &same).unwrap_err(),
            "the code is unchanged"
        );
    }

    #[test]
    fn a_technique_needs_its_marks_in_code_not_comments() {
        let renamed = NAIVE.replace("y[i] = 2.0f", "/* __shared__ */ y[i] = 2.f");
        let e = credited("shared_memory_tiling", NAIVE, &renamed).unwrap_err();
        assert!(e.contains("__shared__"), "{e}");
        let tiled = NAIVE.replace("int i =", "__shared__ float t[256];\n    int i =");
        assert!(credited("shared_memory_tiling", NAIVE, &tiled).is_ok());
        let unrolled = NAIVE.replace("if (i < n)", "#pragma unroll\n    if (i < n)");
        assert!(credited("loop_unrolling", NAIVE, &unrolled).is_ok());
        assert!(credited("warp_shuffle_reduction", NAIVE, &tiled).is_err());
    }

    #[test]
    fn every_mark_names_a_technique_of_the_vocabulary() {
        let vocab = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../graph-data/techniques.toml"),
        )
        .unwrap();
        for (t, _) in MARKS {
            assert!(vocab.contains(&format!("name = \"{t}\"")), "{t}");
        }
    }
}
