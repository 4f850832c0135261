//! Work estimate and *estimated* GPU speedup of a loop nest from a roofline model.
//!
//! Assumptions (also written into every estimate's `assumptions` field):
//! - GPU: NVIDIA H200, 4.3e12 B/s HBM bandwidth and 60.9e12 FLOP/s FP32 FMA throughput (measured on the
//!   project's machine: copy 4.23 TB/s, saxpy 4.34 TB/s), plus 5 µs of launch overhead per kernel.
//! - Host↔device link: 10e9 B/s, what plain `cudaMemcpy` from pageable memory (with `cudaMalloc` and
//!   the copies' synchronisation) reached on the H200 machine: 7–11e9 B/s over nine ParEval ports'
//!   end-to-end minus kernel times (docs/reports/bench/h200-2026-12-04-port/); pinned memory would do
//!   several times better. As the generated wrapper does, every array is copied in and every array the
//!   nest writes is copied out as well, once per call.
//! - Serial CPU: one core, 4e9 simple operations per second and 15e9 B/s of memory bandwidth
//!   (a ~4 GHz core without SIMD; single-core STREAM on a server socket).
//! - Time on either side is the larger of compute time and memory time (roofline); bytes are the
//!   compulsory traffic (each element of each array touched once, twice when read and written).
//! - Symbolic sizes: each size symbol of the iteration count gets 2^(24/d), d the degree of the count
//!   (`n` → 2^24, `n*m` → 4096 each), so every nest is compared at about 16.7 M iterations; other
//!   symbols (bin counts, strides outside the count) get 1024; constants are used as written.
//! - An inner loop whose count is unknown before it runs (a `while`, bounds read from data such as
//!   CSR row offsets) counts as one iteration: the estimate is then a lower bound on the work.
//! - A scan moves its data twice (up-sweep and down-sweep); a histogram's atomics are assumed
//!   uncontended.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::poly::Poly;
use super::region::LoopKind;

pub const GPU_BYTES_PER_S: f64 = 4.3e12;
pub const GPU_FLOPS: f64 = 60.9e12;
pub const LAUNCH_S: f64 = 5e-6;
pub const LINK_BYTES_PER_S: f64 = 10e9;
pub const CPU_OPS_PER_S: f64 = 4e9;
pub const CPU_BYTES_PER_S: f64 = 15e9;
pub const ASSUMED_ITERATIONS_LOG2: f64 = 24.0;
pub const OTHER_SYMBOL: f64 = 1024.0;

pub const ASSUMPTIONS: &str = "roofline: H200 4.3e12 B/s and 60.9e12 FLOP/s plus 5 us launch; \
host<->device 10e9 B/s (pageable cudaMemcpy as measured on the H200 machine), every array copied in and \
every written one out, once per call; \
serial CPU one core at 4e9 op/s and 15e9 B/s; compulsory bytes only; symbolic sizes chosen so the nest \
runs ~2^24 iterations (see assumed_sizes), other symbols 1024; inner loops of unknown count \
count one iteration";

/// The estimate of one loop nest, with the sizes it was evaluated at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Total iterations of the nest as an expression (`n*m`).
    pub iterations: String,
    pub assumed_sizes: std::collections::BTreeMap<String, f64>,
    pub total_iterations: f64,
    pub ops: f64,
    pub bytes: f64,
    pub transfer_bytes: f64,
    pub cpu_seconds: f64,
    pub gpu_kernel_seconds: f64,
    pub transfer_seconds: f64,
    /// CPU time over kernel time alone (data already on the device).
    pub kernel_speedup: f64,
    /// CPU time over kernel plus transfers: what offloading this nest alone gains.
    pub speedup: f64,
    /// Shared text: every estimate states the same assumptions, so it is not copied per loop.
    pub assumptions: std::borrow::Cow<'static, str>,
}

/// Sizes at which symbolic expressions are evaluated: known constants as they are, symbols of the
/// iteration count chosen so the nest runs about 2^24 iterations.
pub fn assumed_values(
    iterations: Option<&Poly>,
    known: &HashMap<String, f64>,
) -> HashMap<String, f64> {
    let mut values = known.clone();
    if let Some(iter) = iterations {
        let unknown: Vec<String> = iter
            .vars()
            .into_iter()
            .filter(|v| !known.contains_key(v))
            .collect();
        if !unknown.is_empty() {
            let degree = iter.degree().max(1) as f64;
            let each = 2f64.powf((ASSUMED_ITERATIONS_LOG2 / degree).round());
            for v in unknown {
                values.insert(v, each);
            }
        }
    }
    values
}

pub struct NestWork {
    pub iterations_text: String,
    pub total_iterations: f64,
    pub ops: f64,
    pub bytes: f64,
    pub transfer_bytes: f64,
}

pub fn estimate(work: &NestWork, kind: LoopKind, values: &HashMap<String, f64>) -> Estimate {
    let scan_factor = if kind == LoopKind::Scan { 2.0 } else { 1.0 };
    let cpu = (work.ops / CPU_OPS_PER_S).max(work.bytes / CPU_BYTES_PER_S);
    let gpu = (work.ops / GPU_FLOPS).max(scan_factor * work.bytes / GPU_BYTES_PER_S)
        + LAUNCH_S * scan_factor;
    let transfer = work.transfer_bytes / LINK_BYTES_PER_S;
    let round = |x: f64| (x * 100.0).round() / 100.0;
    Estimate {
        iterations: work.iterations_text.clone(),
        assumed_sizes: values.iter().map(|(k, v)| (k.clone(), *v)).collect(),
        total_iterations: work.total_iterations,
        ops: work.ops,
        bytes: work.bytes,
        transfer_bytes: work.transfer_bytes,
        cpu_seconds: cpu,
        gpu_kernel_seconds: gpu,
        transfer_seconds: transfer,
        kernel_speedup: round(cpu / gpu),
        speedup: round(cpu / (gpu + transfer)),
        assumptions: std::borrow::Cow::Borrowed(ASSUMPTIONS),
    }
}

impl Estimate {
    /// Share of the offloaded loop's time spent copying its data in and out.
    pub fn copy_share(&self) -> f64 {
        let gpu = self.gpu_kernel_seconds + self.transfer_seconds;
        if gpu > 0.0 {
            self.transfer_seconds / gpu
        } else {
            0.0
        }
    }

    /// The end-to-end figure first, then what the copies cost: [`end_to_end_phrase`].
    pub fn end_to_end(&self) -> String {
        end_to_end_phrase(self.speedup, self.kernel_speedup, self.copy_share())
    }
}

/// What a user's program gains from an offload, led by the end-to-end figure (copies included),
/// then the share of the GPU time spent copying and the kernel alone. Shared by the estimate
/// (diagnostics, hover) and the measured verdict.
pub fn end_to_end_phrase(end_to_end: f64, kernel: f64, copy_share: f64) -> String {
    let lead = if end_to_end >= 1.0 {
        format!("{end_to_end:.1}× faster end to end")
    } else if end_to_end > 0.0 {
        format!(
            "{:.1}× slower end to end than the serial loop",
            1.0 / end_to_end
        )
    } else {
        "no end-to-end figure".to_string()
    };
    format!(
        "{lead} ({:.0} % of the GPU time copying data; the kernel alone {kernel:.1}×)",
        copy_share * 100.0
    )
}

/// When the copies dominate (three quarters of the GPU time or more), what would remove them; a
/// hover or a result has room for it, a diagnostic on every loop does not.
pub fn copies_advice(copy_share: f64) -> Option<&'static str> {
    (copy_share >= 0.75).then_some(
        "the copies dominate: keep the arrays on the device across calls (offload every offloadable call in the loop around it, and the edit keeps them resident) or give each call more work",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_end_to_end_figure_leads_and_dominating_copies_say_what_would_remove_them() {
        assert_eq!(
            end_to_end_phrase(0.25, 150.0, 0.99),
            "4.0× slower end to end than the serial loop (99 % of the GPU time copying data; the kernel alone 150.0×)"
        );
        assert_eq!(
            end_to_end_phrase(13.5, 20.0, 0.3),
            "13.5× faster end to end (30 % of the GPU time copying data; the kernel alone 20.0×)"
        );
        assert!(copies_advice(0.99).is_some_and(|a| a.contains("resident")));
        assert_eq!(copies_advice(0.5), None);
    }

    #[test]
    fn saxpy_is_transfer_bound_end_to_end_but_fast_on_device() {
        // 2^24 floats: read x, y; write y.
        let n = 16_777_216.0;
        let work = NestWork {
            iterations_text: "n".into(),
            total_iterations: n,
            ops: 2.0 * n,
            bytes: 12.0 * n,
            transfer_bytes: 12.0 * n,
        };
        let e = estimate(&work, LoopKind::Map, &HashMap::new());
        assert!(e.kernel_speedup > 100.0, "{e:?}");
        // Slower end to end with per-call copies, as measured on the H200 (square_each 0.40x,
        // relu 0.68x at 2^25 elements; docs/reports/bench/h200-2026-12-04-port/).
        assert!(e.speedup > 0.3 && e.speedup < 1.0, "{e:?}");
    }

    #[test]
    fn sizes_are_chosen_per_degree() {
        let nm = Poly::var("n").mul(&Poly::var("m")).unwrap();
        let v = assumed_values(Some(&nm), &HashMap::new());
        assert_eq!(v["n"], 4096.0);
        let mut known = HashMap::new();
        known.insert("m".to_string(), 2048.0);
        let v = assumed_values(Some(&Poly::var("n")), &known);
        assert_eq!(v["n"], 16_777_216.0);
        assert_eq!(v["m"], 2048.0);
    }
}
