//! What limits a verified kernel, from Nsight Compute's counters, and so which techniques to try
//! on it next (issue #19: profile-guided choice). The counters come from one run of the
//! candidate's harness at the timed size under `ncu --clock-control none`; the diagnosis reads
//! the kernel that took most of the time.

use serde::Serialize;

/// The counters asked of `ncu` (sm_70 and later names; every one exists on sm_90).
pub const METRICS: &[&str] = &[
    "gpu__time_duration.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__maximum_warps_per_active_cycle_pct",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "launch__grid_size",
    "launch__block_size",
    "launch__registers_per_thread",
];

/// The warp stall reasons, one counter each (stalled warps per issued instruction).
pub const STALL_METRICS: &str =
    r"regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio";
const STALL_PREFIX: &str = "smsp__average_warps_issue_stalled_";
const STALL_SUFFIX: &str = "_per_issue_active.ratio";

/// One kernel launch's counters (percentages are of the GPU's peak).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct KernelMetrics {
    pub kernel: String,
    pub duration_ns: f64,
    pub dram_pct: Option<f64>,
    pub sm_pct: Option<f64>,
    /// The busiest memory unit (L1, L2 or DRAM).
    pub memory_pct: Option<f64>,
    pub achieved_occupancy_pct: Option<f64>,
    pub theoretical_occupancy_pct: Option<f64>,
    /// Global-load sectors and requests (see [`KernelMetrics::sectors_per_load`]).
    pub load_sectors: Option<f64>,
    pub load_requests: Option<f64>,
    pub grid_size: Option<f64>,
    pub block_size: Option<f64>,
    pub registers: Option<f64>,
    /// Stall reasons, the largest first.
    pub stalls: Vec<(String, f64)>,
}

/// What limits the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bottleneck {
    /// DRAM near its peak: only moving fewer bytes helps.
    Bandwidth,
    /// Memory-bound below DRAM's peak because warps read scattered sectors.
    Uncoalesced,
    /// L1/L2 busier than DRAM: the data is re-read from cache.
    Cache,
    /// The SMs' pipelines near their peak.
    Compute,
    /// Neither memory nor compute busy: warps wait (latency), or too few of them run.
    Latency,
}

/// A diagnosis and the techniques it favours, in order, each with its reason.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Profile {
    pub bottleneck: Bottleneck,
    /// One line: "memory-bound at 31 % of DRAM bandwidth, 16.0 sectors per load (uncoalesced)".
    pub summary: String,
    pub favoured: Vec<Favoured>,
    pub kernels: Vec<KernelMetrics>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Favoured {
    pub technique: String,
    pub reason: String,
}

/// DRAM or SM throughput at or above this share of peak is "at the ceiling".
const NEAR_PEAK: f64 = 60.0;
/// Sectors per global-load request from which loads are called scattered (4 is ideal for 4-byte
/// elements, 8 for 8-byte ones).
const SCATTERED: f64 = 12.0;
/// Achieved occupancy below this is too few warps to hide latency.
const LOW_OCCUPANCY: f64 = 35.0;

/// Parses `ncu --csv --print-units base --metrics ...` (one row per kernel and metric).
pub fn parse_csv(text: &str) -> Result<Vec<KernelMetrics>, String> {
    let mut lines = text.lines().filter(|l| l.starts_with('"'));
    let header = lines
        .next()
        .ok_or_else(|| "ncu printed no CSV (no kernel was profiled)".to_string())?;
    let header = split_csv(header);
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| format!("ncu's CSV has no column `{name}`"))
    };
    let (id, kernel, metric, value) = (
        col("ID")?,
        col("Kernel Name")?,
        col("Metric Name")?,
        col("Metric Value")?,
    );
    let mut kernels: Vec<(String, KernelMetrics)> = Vec::new();
    for line in lines {
        let f = split_csv(line);
        let (Some(i), Some(k), Some(m), Some(v)) =
            (f.get(id), f.get(kernel), f.get(metric), f.get(value))
        else {
            continue;
        };
        let Some(v) = number(v) else { continue };
        let at = match kernels.iter().position(|(key, _)| key == i) {
            Some(at) => at,
            None => {
                kernels.push((
                    i.clone(),
                    KernelMetrics {
                        kernel: k.clone(),
                        ..KernelMetrics::default()
                    },
                ));
                kernels.len() - 1
            }
        };
        set_metric(&mut kernels[at].1, m, v);
    }
    if kernels.is_empty() {
        return Err("ncu profiled no kernel".into());
    }
    Ok(kernels
        .into_iter()
        .map(|(_, mut k)| {
            k.stalls.sort_by(|a, b| b.1.total_cmp(&a.1));
            k
        })
        .collect())
}

fn set_metric(k: &mut KernelMetrics, name: &str, v: f64) {
    match name {
        "gpu__time_duration.sum" => k.duration_ns = v,
        "dram__throughput.avg.pct_of_peak_sustained_elapsed" => k.dram_pct = Some(v),
        "sm__throughput.avg.pct_of_peak_sustained_elapsed" => k.sm_pct = Some(v),
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed" => {
            k.memory_pct = Some(v)
        }
        "sm__warps_active.avg.pct_of_peak_sustained_active" => k.achieved_occupancy_pct = Some(v),
        "sm__maximum_warps_per_active_cycle_pct" => k.theoretical_occupancy_pct = Some(v),
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum" => k.load_sectors = Some(v),
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum" => k.load_requests = Some(v),
        "launch__grid_size" => k.grid_size = Some(v),
        "launch__block_size" => k.block_size = Some(v),
        "launch__registers_per_thread" => k.registers = Some(v),
        other => {
            if let Some(reason) = other
                .strip_prefix(STALL_PREFIX)
                .and_then(|r| r.strip_suffix(STALL_SUFFIX))
            {
                k.stalls.push((reason.to_string(), v));
            }
        }
    }
}

impl KernelMetrics {
    /// Global-load sectors per request: 4 is a warp reading 128 consecutive bytes, 32 a warp
    /// whose every thread reads a sector of its own. `None` for a kernel without global loads.
    pub fn sectors_per_load(&self) -> Option<f64> {
        match (self.load_sectors, self.load_requests) {
            (Some(s), Some(r)) if r > 0.0 => Some(s / r),
            _ => None,
        }
    }
}

/// Splits one CSV line of ncu's (every field quoted, `""` inside a field is a quote).
fn split_csv(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    fields.push(cur);
    fields
}

/// A metric value as ncu prints it ("1,048,576", "87.53", "n/a").
fn number(v: &str) -> Option<f64> {
    v.replace(',', "").trim().parse().ok()
}

/// The diagnosis of a profiled run: the kernel with the longest time decides.
pub fn diagnose(kernels: Vec<KernelMetrics>) -> Option<Profile> {
    let main = kernels
        .iter()
        .max_by(|a, b| a.duration_ns.total_cmp(&b.duration_ns))?
        .clone();
    let pct = |v: Option<f64>| v.unwrap_or(0.0);
    let (dram, sm, mem) = (pct(main.dram_pct), pct(main.sm_pct), pct(main.memory_pct));
    let spl = main.sectors_per_load();
    let scattered = spl.is_some_and(|s| s >= SCATTERED);
    let occupancy = main.achieved_occupancy_pct;
    let top_stall = main.stalls.first().map(|(r, _)| r.as_str());
    let mut favoured = Vec::new();
    let mut favour = |technique: &str, reason: &str| {
        if !favoured.iter().any(|f: &Favoured| f.technique == technique) {
            favoured.push(Favoured {
                technique: technique.into(),
                reason: reason.into(),
            });
        }
    };
    let spl_text = spl
        .map(|s| format!(", {s:.1} sectors per load"))
        .unwrap_or_default();
    let (bottleneck, summary) = if dram >= NEAR_PEAK {
        favour(
            "kernel_fusion",
            "DRAM is near its peak: only moving fewer bytes helps",
        );
        favour(
            "shared_memory_tiling",
            "DRAM is near its peak: reuse data on chip",
        );
        favour(
            "register_blocking",
            "DRAM is near its peak: reuse data in registers",
        );
        (
            Bottleneck::Bandwidth,
            format!("memory-bound at {dram:.0} % of DRAM bandwidth{spl_text}"),
        )
    } else if scattered && (mem >= NEAR_PEAK || sm < NEAR_PEAK) {
        let why = "loads are scattered: a warp's threads read sectors of their own";
        favour("coalesced_access", why);
        favour("warp_per_row", why);
        favour("shared_memory_tiling", why);
        favour("vectorized_loads", why);
        (
            Bottleneck::Uncoalesced,
            format!(
                "memory-bound with uncoalesced loads{spl_text}, DRAM at {dram:.0} % of its bandwidth"
            ),
        )
    } else if mem >= NEAR_PEAK {
        let why = "L1/L2 are busier than DRAM: data is re-read from cache";
        favour("shared_memory_tiling", why);
        favour("register_blocking", why);
        favour("readonly_cache_loads", why);
        if top_stall == Some("mio_throttle") || top_stall == Some("short_scoreboard") {
            favour(
                "bank_conflict_padding",
                "shared-memory instructions stall the warps",
            );
        }
        (
            Bottleneck::Cache,
            format!("cache-bound: memory units at {mem:.0} %, DRAM at {dram:.0} %{spl_text}"),
        )
    } else if sm >= NEAR_PEAK {
        let why = "the SMs' pipelines are near their peak: do less arithmetic per result";
        favour("fast_math_intrinsics", why);
        favour("strength_reduction", why);
        favour("tensor_cores", why);
        favour(
            "loop_unrolling",
            "the SMs are busy: unrolling removes loop overhead",
        );
        (
            Bottleneck::Compute,
            format!("compute-bound: SM throughput {sm:.0} %, DRAM at {dram:.0} %"),
        )
    } else {
        let few_blocks = main.grid_size.is_some_and(|g| g < FEW_BLOCKS);
        if few_blocks {
            let why = "too few blocks to fill the GPU";
            favour("grid_stride_loop", why);
            favour("thread_mapping_2d", why);
            favour("load_balancing", why);
        }
        if occupancy.is_some_and(|o| o < LOW_OCCUPANCY) {
            let why = "few warps are active to hide latency";
            favour("launch_bounds_tuning", why);
            favour("thread_coarsening", why);
        }
        match top_stall {
            Some("long_scoreboard") => {
                let why = "warps wait on global memory (long scoreboard)";
                favour("loop_unrolling", why);
                favour("vectorized_loads", why);
                favour("readonly_cache_loads", why);
                favour("async_copy_pipeline", why);
            }
            Some("barrier") => {
                favour("warp_shuffle_reduction", "warps wait at barriers");
            }
            Some("lg_throttle") => {
                favour(
                    "vectorized_loads",
                    "the load/store queue is full (lg throttle)",
                );
            }
            Some("membar") | Some("drain") => {
                favour(
                    "warp_aggregated_atomics",
                    "warps wait for memory operations to finish",
                );
                favour(
                    "block_reduction_atomics",
                    "warps wait for memory operations to finish",
                );
            }
            Some("branch_resolving") => {
                favour("divergence_removal", "warps wait on branches");
            }
            Some("math_pipe_throttle") | Some("wait") => {
                favour(
                    "loop_unrolling",
                    "dependent instructions wait on each other",
                );
                favour(
                    "fast_math_intrinsics",
                    "dependent instructions wait on each other",
                );
            }
            _ => {}
        }
        if scattered {
            favour("coalesced_access", "loads are scattered");
        }
        let occ = occupancy
            .map(|o| format!(", occupancy {o:.0} %"))
            .unwrap_or_default();
        let stall = top_stall
            .map(|s| format!(", mostly stalled on {}", s.replace('_', " ")))
            .unwrap_or_default();
        (
            Bottleneck::Latency,
            format!(
                "latency-bound: DRAM at {dram:.0} %, SM at {sm:.0} %{occ}{stall}{}",
                if few_blocks { ", too few blocks" } else { "" }
            ),
        )
    };
    Some(Profile {
        bottleneck,
        summary,
        favoured,
        kernels,
    })
}

/// A grid of fewer blocks than this leaves SMs idle (132 SMs on the H100 and H200).
const FEW_BLOCKS: f64 = 132.0;

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(dram: f64, sm: f64, mem: f64, sectors_per_load: f64) -> KernelMetrics {
        KernelMetrics {
            kernel: "k".into(),
            duration_ns: 1000.0,
            dram_pct: Some(dram),
            sm_pct: Some(sm),
            memory_pct: Some(mem),
            achieved_occupancy_pct: Some(80.0),
            theoretical_occupancy_pct: Some(100.0),
            load_sectors: Some(sectors_per_load * 1000.0),
            load_requests: Some(1000.0),
            grid_size: Some(4096.0),
            block_size: Some(256.0),
            registers: Some(32.0),
            stalls: vec![("long_scoreboard".into(), 3.0), ("wait".into(), 1.0)],
        }
    }

    fn first(p: &Profile) -> &str {
        &p.favoured[0].technique
    }

    #[test]
    fn dram_at_its_peak_is_bandwidth_bound_and_asks_for_fewer_bytes() {
        let p = diagnose(vec![kernel(88.0, 20.0, 90.0, 4.0)]).unwrap();
        assert_eq!(p.bottleneck, Bottleneck::Bandwidth);
        assert_eq!(first(&p), "kernel_fusion");
        assert!(p.summary.contains("88 % of DRAM"), "{}", p.summary);
    }

    #[test]
    fn scattered_loads_below_peak_ask_for_coalescing() {
        let p = diagnose(vec![kernel(25.0, 10.0, 70.0, 28.0)]).unwrap();
        assert_eq!(p.bottleneck, Bottleneck::Uncoalesced);
        assert_eq!(first(&p), "coalesced_access");
        assert!(p.summary.contains("28.0 sectors per load"), "{}", p.summary);
    }

    #[test]
    fn busy_caches_over_idle_dram_ask_for_on_chip_reuse() {
        let p = diagnose(vec![kernel(20.0, 30.0, 75.0, 4.0)]).unwrap();
        assert_eq!(p.bottleneck, Bottleneck::Cache);
        assert_eq!(first(&p), "shared_memory_tiling");
    }

    #[test]
    fn busy_pipelines_ask_for_less_arithmetic() {
        let p = diagnose(vec![kernel(10.0, 85.0, 30.0, 4.0)]).unwrap();
        assert_eq!(p.bottleneck, Bottleneck::Compute);
        assert_eq!(first(&p), "fast_math_intrinsics");
    }

    #[test]
    fn an_idle_gpu_is_latency_bound_and_its_stall_reason_decides() {
        let mut k = kernel(5.0, 5.0, 10.0, 4.0);
        k.grid_size = Some(8.0);
        k.achieved_occupancy_pct = Some(12.0);
        let p = diagnose(vec![k]).unwrap();
        assert_eq!(p.bottleneck, Bottleneck::Latency);
        let names: Vec<&str> = p.favoured.iter().map(|f| f.technique.as_str()).collect();
        assert_eq!(names[0], "grid_stride_loop", "too few blocks first");
        assert!(names.contains(&"launch_bounds_tuning"));
        assert!(names.contains(&"loop_unrolling"), "long scoreboard stalls");
        assert!(p.summary.contains("too few blocks"), "{}", p.summary);
        assert!(p.summary.contains("long scoreboard"), "{}", p.summary);
    }

    #[test]
    fn the_longest_kernel_decides() {
        let mut short = kernel(90.0, 10.0, 90.0, 4.0);
        short.duration_ns = 10.0;
        let long = kernel(10.0, 85.0, 30.0, 4.0);
        let p = diagnose(vec![short, long]).unwrap();
        assert_eq!(p.bottleneck, Bottleneck::Compute);
        assert!(diagnose(Vec::new()).is_none());
    }

    /// Real `ncu` output (an H100, driver 580, ncu of CUDA 13.0, `--clock-control none`), captured
    /// by `verify --profile` on the builtin regions' reference candidates: a grid-stride dot
    /// product and an all-pairs force loop launched with 23 blocks.
    #[test]
    fn real_ncu_output_of_a_streaming_reduction_is_bandwidth_bound() {
        let text = include_str!("testdata/ncu/h100-dot.txt");
        let kernels = parse_csv(text).unwrap();
        assert_eq!(kernels.len(), 1);
        let k = &kernels[0];
        assert!(k.kernel.starts_with("dot_kernel("), "{}", k.kernel);
        assert_eq!(k.dram_pct, Some(90.31));
        assert_eq!(k.grid_size, Some(1056.0));
        assert_eq!(k.sectors_per_load(), Some(8.0));
        assert_eq!(k.stalls[0].0, "long_scoreboard");
        let p = diagnose(kernels).unwrap();
        assert_eq!(p.bottleneck, Bottleneck::Bandwidth);
        assert!(
            p.summary.starts_with("memory-bound at 90 %"),
            "{}",
            p.summary
        );
    }

    #[test]
    fn real_ncu_output_of_a_small_grid_is_latency_bound_and_asks_for_more_blocks() {
        let text = include_str!("testdata/ncu/h100-compute-forces.txt");
        let kernels = parse_csv(text).unwrap();
        assert_eq!(kernels[0].grid_size, Some(23.0));
        let p = diagnose(kernels).unwrap();
        assert_eq!(p.bottleneck, Bottleneck::Latency);
        assert!(p.summary.contains("too few blocks"), "{}", p.summary);
        assert_eq!(first(&p), "grid_stride_loop");
    }

    /// Every technique a diagnosis can favour is a node of the shipped graph's vocabulary, and
    /// none is favoured twice.
    #[test]
    fn favoured_techniques_are_in_the_vocabulary() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../graph-data/techniques.toml");
        let vocab = crate::graph::vocab::Vocabulary::load(&path).unwrap();
        let known: Vec<&str> = vocab.techniques().iter().map(|t| t.name.as_str()).collect();
        let stalls = [
            "long_scoreboard",
            "barrier",
            "lg_throttle",
            "membar",
            "drain",
            "branch_resolving",
            "math_pipe_throttle",
            "wait",
            "mio_throttle",
            "short_scoreboard",
        ];
        let shapes = [
            (88.0, 20.0, 90.0, 4.0),
            (25.0, 10.0, 70.0, 28.0),
            (20.0, 30.0, 75.0, 4.0),
            (10.0, 85.0, 30.0, 4.0),
            (5.0, 5.0, 10.0, 20.0),
        ];
        let mut seen = 0;
        for (dram, sm, mem, spl) in shapes {
            for stall in stalls {
                let mut k = kernel(dram, sm, mem, spl);
                k.stalls = vec![(stall.into(), 5.0)];
                k.grid_size = Some(4.0);
                k.achieved_occupancy_pct = Some(10.0);
                let p = diagnose(vec![k]).unwrap();
                let mut names: Vec<&str> =
                    p.favoured.iter().map(|f| f.technique.as_str()).collect();
                for n in &names {
                    assert!(known.contains(n), "{n} is not in techniques.toml");
                }
                let before = names.len();
                names.sort();
                names.dedup();
                assert_eq!(names.len(), before, "a technique favoured twice");
                seen += before;
            }
        }
        assert!(seen > 50);
    }
}
