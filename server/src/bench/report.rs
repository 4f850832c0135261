//! Aggregates over records (pass@1, geometric-mean speedups and roofline fraction, by strategy and tier)
//! and the Markdown report.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::records::Record;
use crate::geomean::geomean;
use crate::graph::tasks::Tier;

/// The aggregate of one group of records (one strategy, one tier or all tiers).
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregate {
    pub tasks: usize,
    pub correct: usize,
    /// Records whose kernel compiled but could not be run (no GPU): neither correct nor wrong.
    pub not_run: usize,
    /// correct / tasks.
    pub pass_at_1: f64,
    /// Over the correct records that have the number; `None` when none has.
    pub geomean_speedup_serial: Option<f64>,
    pub geomean_speedup_omp16: Option<f64>,
    pub geomean_roofline: Option<f64>,
    pub tokens: u64,
    pub llm_calls: usize,
    pub wall_s: f64,
}

/// Geometric mean of the positive finite values; `None` for none.
pub fn aggregate<'a>(records: impl IntoIterator<Item = &'a Record>) -> Aggregate {
    let records: Vec<&Record> = records.into_iter().collect();
    let correct: Vec<&&Record> = records.iter().filter(|r| r.correct).collect();
    let tasks = records.len();
    Aggregate {
        tasks,
        correct: correct.len(),
        not_run: records
            .iter()
            .filter(|r| r.verdict == "compiled_not_run")
            .count(),
        pass_at_1: if tasks == 0 {
            0.0
        } else {
            correct.len() as f64 / tasks as f64
        },
        geomean_speedup_serial: geomean(correct.iter().filter_map(|r| r.speedup_vs_serial)),
        geomean_speedup_omp16: geomean(correct.iter().filter_map(|r| r.speedup_vs_omp16)),
        geomean_roofline: geomean(correct.iter().filter_map(|r| r.roofline_fraction)),
        tokens: records.iter().map(|r| r.tokens).sum(),
        llm_calls: records.iter().map(|r| r.llm_calls).sum(),
        wall_s: records.iter().map(|r| r.wall_s).sum(),
    }
}

/// Per strategy: the aggregate of each tier present and of all of them (`None` key).
pub fn by_strategy_and_tier(
    records: &[Record],
) -> BTreeMap<String, BTreeMap<Option<Tier>, Aggregate>> {
    let mut out: BTreeMap<String, BTreeMap<Option<Tier>, Aggregate>> = BTreeMap::new();
    let strategies: BTreeSet<&str> = records.iter().map(|r| r.strategy.as_str()).collect();
    for s in strategies {
        let of_strategy: Vec<&Record> = records.iter().filter(|r| r.strategy == s).collect();
        let mut tiers = BTreeMap::new();
        let present: BTreeSet<Tier> = of_strategy.iter().map(|r| r.tier).collect();
        for t in present {
            tiers.insert(
                Some(t),
                aggregate(of_strategy.iter().copied().filter(|r| r.tier == t)),
            );
        }
        tiers.insert(None, aggregate(of_strategy.iter().copied()));
        out.insert(s.to_string(), tiers);
    }
    out
}

fn tier_name(t: Option<Tier>) -> &'static str {
    match t {
        Some(Tier::Easy) => "easy",
        Some(Tier::Medium) => "medium",
        Some(Tier::Hard) => "hard",
        None => "all",
    }
}

fn num(v: Option<f64>, unit: &str) -> String {
    match v {
        Some(x) if x >= 100.0 => format!("{x:.0}{unit}"),
        Some(x) if x >= 10.0 => format!("{x:.1}{unit}"),
        Some(x) => format!("{x:.2}{unit}"),
        None => "–".into(),
    }
}

fn pct(v: Option<f64>) -> String {
    v.map(|x| format!("{:.1}%", x * 100.0))
        .unwrap_or_else(|| "–".into())
}

/// The distinct values of one field over all records, joined (`H200` or `H200, none`).
fn distinct(records: &[Record], f: impl Fn(&Record) -> Option<String>) -> String {
    let set: BTreeSet<String> = records
        .iter()
        .map(|r| f(r).unwrap_or_else(|| "none".into()))
        .collect();
    if set.is_empty() {
        "–".into()
    } else {
        set.into_iter().collect::<Vec<_>>().join(", ")
    }
}

/// The Markdown report over `records` (as read back from records.jsonl).
pub fn markdown(suite: &str, records: &[Record]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Benchmark: {suite}\n");
    let _ = writeln!(s, "| | |\n|---|---|");
    let env: [(&str, String); 10] = [
        ("GPU", distinct(records, |r| r.gpu.clone())),
        ("driver", distinct(records, |r| r.driver.clone())),
        ("nvcc", distinct(records, |r| Some(r.nvcc.clone()))),
        (
            "model",
            distinct(records, |r| {
                Some(match &r.model_id {
                    Some(id) if *id != r.model => format!("{} ({id})", r.model),
                    _ => r.model.clone(),
                })
            }),
        ),
        (
            "budget (model calls)",
            distinct(records, |r| Some(r.budget.to_string())),
        ),
        ("seed", distinct(records, |r| Some(r.seed.to_string()))),
        (
            "MCGS rollouts in flight",
            distinct(records, |r| Some(r.parallel.to_string())),
        ),
        ("commit", distinct(records, |r| Some(r.commit.clone()))),
        (
            "CPU cores (OpenMP runs 16 threads)",
            distinct(records, |r| Some(r.cpu_cores.to_string())),
        ),
        ("records", records.len().to_string()),
    ];
    for (k, v) in env {
        let _ = writeln!(s, "| {k} | {v} |");
    }
    s.push('\n');
    if records.is_empty() {
        s.push_str("No records yet.\n");
        return s;
    }
    let not_run = records
        .iter()
        .filter(|r| r.verdict == "compiled_not_run")
        .count();
    if not_run > 0 {
        let _ = writeln!(
            s,
            "**{not_run} of {} records ran without a GPU: their kernels were compiled but never checked or \
             timed, so they count as not correct and have no speedups.**\n",
            records.len()
        );
    }
    s.push_str(
        "pass@1: fraction of tasks whose returned kernel is correct. Speedups and roofline fraction: geometric \
         means over the correct tasks; speedup = median serial (or 16-thread OpenMP) CPU time / median kernel \
         time at the timed size; roofline fraction = roofline floor / measured kernel time, the floor from the \
         ceilings measured on this GPU's model (scripts/ceilings.cu; the H200's where none is on record).\n\n",
    );
    s.push_str("## By strategy and tier\n\n");
    s.push_str("| strategy | tier | tasks | correct | pass@1 | speedup vs serial | speedup vs OMP16 | roofline | LLM calls | tokens | wall |\n");
    s.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (strategy, tiers) in by_strategy_and_tier(records) {
        // Tiers first, then all of them.
        let (all, per_tier): (Vec<_>, Vec<_>) = tiers.into_iter().partition(|(t, _)| t.is_none());
        for (tier, a) in per_tier.into_iter().chain(all) {
            let _ = writeln!(
                s,
                "| {strategy} | {} | {} | {} | {:.2} | {} | {} | {} | {} | {} | {:.0} s |",
                tier_name(tier),
                a.tasks,
                a.correct,
                a.pass_at_1,
                num(a.geomean_speedup_serial, "×"),
                num(a.geomean_speedup_omp16, "×"),
                pct(a.geomean_roofline),
                a.llm_calls,
                a.tokens,
                a.wall_s
            );
        }
    }
    s.push_str("\n## Per task\n\n");
    let strategies: BTreeSet<&str> = records.iter().map(|r| r.strategy.as_str()).collect();
    let mut header = String::from("| task | tier |");
    let mut rule = String::from("|---|---|");
    for st in &strategies {
        let _ = write!(header, " {st} |");
        rule.push_str("---|");
    }
    let _ = writeln!(s, "{header}\n{rule}");
    let mut by_task: BTreeMap<&str, BTreeMap<&str, &Record>> = BTreeMap::new();
    for r in records {
        by_task
            .entry(r.task.as_str())
            .or_default()
            .insert(r.strategy.as_str(), r);
    }
    for (task, per) in &by_task {
        let tier = per
            .values()
            .next()
            .map(|r| tier_name(Some(r.tier)))
            .unwrap_or("");
        let mut row = format!("| {task} | {tier} |");
        for st in &strategies {
            let cell = match per.get(st) {
                Some(r) if r.correct => format!(
                    "{} serial, {} OMP16, {} roof",
                    num(r.speedup_vs_serial, "×"),
                    num(r.speedup_vs_omp16, "×"),
                    pct(r.roofline_fraction)
                ),
                Some(r) => r.verdict.replace('_', " "),
                None => "–".into(),
            };
            let _ = write!(row, " {cell} |");
        }
        let _ = writeln!(s, "{row}");
    }
    profiles_section(&mut s, records);
    s.push_str(
        "\nRaw records: `records.jsonl` (one JSON object per task × strategy); plot: `plot.svg`.\n",
    );
    s
}

/// What the searches' profiles said, per task (profile-guided choice, issue #19).
fn profiles_section(s: &mut String, records: &[Record]) {
    let profiled: Vec<&Record> = records.iter().filter(|r| !r.profiles.is_empty()).collect();
    if profiled.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\n## Profiles (Nsight Compute)\n\n{} searches took {} profiles:\n",
        profiled.len(),
        profiled.iter().map(|r| r.profiles.len()).sum::<usize>()
    );
    for r in profiled {
        for p in &r.profiles {
            let _ = writeln!(s, "- {} ({}): {p}", r.task, r.strategy);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::records::tests::record;

    #[test]
    fn aggregates_count_pass_at_1_over_all_and_means_over_correct_only() {
        let records = vec![
            record("a", Tier::Easy, "cot", Some(2.0), Some(0.5), Some(0.1)),
            record("b", Tier::Easy, "cot", Some(8.0), Some(2.0), Some(0.4)),
            record("c", Tier::Hard, "cot", None, None, None),
            record("a", Tier::Easy, "mcgs", Some(32.0), None, Some(0.9)),
        ];
        let by = by_strategy_and_tier(&records);
        let cot = &by["cot"];
        let all = &cot[&None];
        assert_eq!((all.tasks, all.correct), (3, 2));
        assert!((all.pass_at_1 - 2.0 / 3.0).abs() < 1e-12);
        assert!((all.geomean_speedup_serial.unwrap() - 4.0).abs() < 1e-12);
        assert!((all.geomean_speedup_omp16.unwrap() - 1.0).abs() < 1e-12);
        assert!((all.geomean_roofline.unwrap() - 0.2).abs() < 1e-12);
        assert_eq!(all.tokens, 3000);
        let easy = &cot[&Some(Tier::Easy)];
        assert_eq!((easy.tasks, easy.correct), (2, 2));
        assert_eq!(easy.pass_at_1, 1.0);
        let hard = &cot[&Some(Tier::Hard)];
        assert_eq!(hard.pass_at_1, 0.0);
        assert_eq!(hard.geomean_speedup_serial, None);
        let mcgs = &by["mcgs"][&None];
        assert_eq!(mcgs.geomean_speedup_omp16, None);
        assert!((mcgs.geomean_speedup_serial.unwrap() - 32.0).abs() < 1e-12);
    }

    #[test]
    fn the_report_states_a_run_without_gpu_and_lists_every_task() {
        let mut r = record("axpy", Tier::Easy, "cot", None, None, None);
        r.verdict = "compiled_not_run".into();
        let md = markdown(
            "pareval",
            &[
                r,
                record("gemv", Tier::Medium, "cot", Some(3.0), None, None),
            ],
        );
        assert!(md.contains("ran without a GPU"), "{md}");
        assert!(md.contains("| axpy | easy | compiled not run |"), "{md}");
        assert!(md.contains("| gemv | medium | 3.00× serial"), "{md}");
        assert!(md.contains("| cot | all | 2 | 1 | 0.50 |"), "{md}");
    }

    #[test]
    fn the_report_lists_the_searches_profiles() {
        let mut r = record("gemv", Tier::Medium, "mcgs", Some(3.0), None, None);
        r.profiles = vec!["the start: latency-bound → tried first: loop_unrolling".into()];
        let md = markdown("pareval", &[r]);
        assert!(md.contains("1 searches took 1 profiles"), "{md}");
        assert!(
            md.contains("- gemv (mcgs): the start: latency-bound → tried first: loop_unrolling"),
            "{md}"
        );
        let plain = markdown(
            "pareval",
            &[record("a", Tier::Easy, "cot", None, None, None)],
        );
        assert!(!plain.contains("Profiles"), "{plain}");
    }
}
