//! `cuda-offload graph`: build the reasoning graph from the trajectories and inspect it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Subcommand, ValueEnum};

use crate::analysis::LoopKind;
use crate::config::ModelArgs;
use crate::graph::build::StopReason;
use crate::graph::verification;
use crate::graph::{BuildOptions, BuildReport, GraphData, PathQuery, PathRank, ReGraph};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The graph-data directory (default: the nearest `graph-data/` from the current directory up)
    #[arg(long, global = true, value_name = "DIR")]
    data: Option<PathBuf>,
    #[command(subcommand)]
    command: GraphCommand,
}

#[derive(Debug, Subcommand)]
enum GraphCommand {
    /// Merge graph-data/trajectories/*.jsonl into graph-data/regraph.json
    #[command(
        long_about = "Relabels every step's technique onto graph-data/techniques.toml (exact name, \
        alias, normalized phrase, then token-set similarity over aliases and descriptions) and merges the \
        trajectories from `init`, step by step: an existing edge gets the example appended, an existing node \
        gets a new edge, an unknown technique becomes a new node. Only steps verified on the GPU \
        (measured.correct == true) are merged unless --include-unverified is given. A trajectory stops at \
        its first step that cannot be merged; each such stop is reported. Names that no alias matches are \
        reported: add them as aliases to techniques.toml, or let a model decide with --relabel-with-llm \
        (its decisions are kept in graph-data/relabel.json and used by every later build, between the \
        vocabulary's own names and the similarity guess)."
    )]
    Build {
        /// Where to write the graph (default: <data>/regraph.json)
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Also merge steps without a GPU measurement; their examples say `verified: false`
        #[arg(long)]
        include_unverified: bool,
        /// Do not write: fail if the existing file differs from what would be written
        #[arg(long)]
        check: bool,
        /// Fail when a trajectory names an unknown task or a technique that cannot be relabelled
        #[arg(long)]
        strict: bool,
        /// Print the build report as JSON on stdout
        #[arg(long)]
        json: bool,
        /// First ask a model (the --backend/--url/--model flags, cuda-offload.toml, the environment)
        /// which technique each name means that the vocabulary can only guess (similarity) or cannot
        /// place; its decisions go to graph-data/relabel.json, which every build reads
        #[arg(long)]
        relabel_with_llm: bool,
        #[command(flatten)]
        model: ModelArgs,
    },
    /// Print node, edge and example counts, per-node out-degree and the verified fraction
    Stats {
        /// The graph file (default: <data>/regraph.json)
        #[arg(long, value_name = "FILE")]
        graph: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Export the graph
    Export {
        /// Graphviz dot (the only format so far)
        #[arg(long, required = true)]
        dot: bool,
        #[arg(long, value_name = "FILE")]
        graph: Option<PathBuf>,
        /// Write here instead of stdout
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Show a technique's successors with example counts and geometric-mean measured speedups
    Show {
        technique: String,
        #[arg(long, value_name = "FILE")]
        graph: Option<PathBuf>,
        /// Only count examples from tasks of this loop kind
        #[arg(long, value_enum)]
        kind: Option<Kind>,
        #[arg(long)]
        json: bool,
    },
    /// The best optimization paths from init
    Paths {
        #[arg(long, value_name = "FILE")]
        graph: Option<PathBuf>,
        #[arg(long, value_enum)]
        kind: Option<Kind>,
        #[arg(short, long, default_value_t = 5)]
        k: usize,
        #[arg(long, default_value_t = 4)]
        max_depth: usize,
        #[arg(long, value_enum, default_value_t = Rank::Speedup)]
        rank: Rank,
        #[arg(long)]
        json: bool,
    },
    /// Write a `verify --manifest` batch of every trajectory step (regions, candidates, manifest.json)
    Manifest {
        /// Directory to write manifest.json, regions/, candidates/ and skipped.txt into
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Only these tasks (comma-separated ids)
        #[arg(long, value_delimiter = ',')]
        tasks: Vec<String>,
        /// Also split the entries into DIR/manifest.<i>.json, i = 1..=PARTS, for a run that may stop between parts
        #[arg(long, default_value_t = 1)]
        parts: usize,
        /// Only steps without a measurement at the task's timed shape yet (to finish a verification
        /// done in several runs)
        #[arg(long)]
        unmeasured: bool,
    },
    /// Write the measurements of a `verify --manifest` results.json into the trajectories
    #[command(
        long_about = "Reads the results.json of `verify --manifest` run on a `graph manifest` batch and \
        writes each step's `measured` into graph-data/trajectories/*.jsonl. A step whose verdict is not \
        `correct` gets `measured.correct = false` (graph build then drops it and the rest of its \
        trajectory). Steps that did not run on a GPU (compiled_not_run), verifier errors and steps whose \
        code changed since the manifest was written are left as they are and listed."
    )]
    Record {
        /// results.json of `verify --manifest --out DIR` (repeat for a run done in parts)
        #[arg(long, value_name = "FILE", required = true)]
        results: Vec<PathBuf>,
        /// GPU name to record (default: the one the verifier reported)
        #[arg(long)]
        gpu: Option<String>,
        /// nvcc version to record (default: the one the verifier reported)
        #[arg(long)]
        nvcc: Option<String>,
        /// Date of the run, YYYY-MM-DD (default: today, UTC)
        #[arg(long)]
        date: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Merge the results.json of a `verify --manifest` run done in parts, or print its verdicts per category
    MergeResults {
        #[arg(required = true)]
        results: Vec<PathBuf>,
        /// Write the merged results.json here
        #[arg(long, value_name = "FILE", required_unless_present = "summary")]
        out: Option<PathBuf>,
        /// Print a markdown table of verdict counts per task category
        #[arg(long)]
        summary: bool,
    },
    /// Show which canonical technique each free-form name maps to, and how
    Relabel {
        #[arg(required = true)]
        names: Vec<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Kind {
    Map,
    Reduction,
    Histogram,
    Stencil,
    Scan,
    Sequential,
}

impl From<Kind> for LoopKind {
    fn from(k: Kind) -> Self {
        match k {
            Kind::Map => LoopKind::Map,
            Kind::Reduction => LoopKind::Reduction,
            Kind::Histogram => LoopKind::Histogram,
            Kind::Stencil => LoopKind::Stencil,
            Kind::Scan => LoopKind::Scan,
            Kind::Sequential => LoopKind::Sequential,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Rank {
    Speedup,
    Examples,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let data = match &args.data {
        Some(dir) => GraphData::new(dir),
        None => {
            let cwd = std::env::current_dir()?;
            GraphData::discover(&cwd).with_context(|| {
                format!(
                    "no graph-data/techniques.toml in {} or above; pass --data DIR",
                    cwd.display()
                )
            })?
        }
    };
    let graph_path = |given: &Option<PathBuf>| given.clone().unwrap_or_else(|| data.regraph());
    match args.command {
        GraphCommand::Build {
            out,
            include_unverified,
            check,
            strict,
            json,
            relabel_with_llm,
            model,
        } => {
            if relabel_with_llm {
                super::graph_relabel::relabel_with_llm(&data, &model)?;
            }
            let out = out.unwrap_or_else(|| data.regraph());
            build(
                &data,
                &out,
                BuildOptions { include_unverified },
                check,
                strict,
                json,
            )
        }
        GraphCommand::Stats { graph, json } => {
            let g = load(&graph_path(&graph))?;
            print_stats(&g, json)?;
            Ok(ExitCode::SUCCESS)
        }
        GraphCommand::Export { dot: _, graph, out } => {
            let g = load(&graph_path(&graph))?;
            match out {
                Some(path) => std::fs::write(&path, g.to_dot())
                    .with_context(|| format!("cannot write {}", path.display()))?,
                None => print!("{}", g.to_dot()),
            }
            Ok(ExitCode::SUCCESS)
        }
        GraphCommand::Show {
            technique,
            graph,
            kind,
            json,
        } => {
            let g = load(&graph_path(&graph))?;
            show(&g, &technique, kind.map(Into::into), json)
        }
        GraphCommand::Paths {
            graph,
            kind,
            k,
            max_depth,
            rank,
            json,
        } => {
            let g = load(&graph_path(&graph))?;
            let query = PathQuery {
                k,
                max_depth,
                kind: kind.map(Into::into),
                rank: match rank {
                    Rank::Speedup => PathRank::MeanSpeedup,
                    Rank::Examples => PathRank::ExampleCount,
                },
            };
            let paths = g.top_paths(query);
            if json {
                println!("{}", serde_json::to_string_pretty(&paths)?);
            } else {
                for p in &paths {
                    println!(
                        "init → {}  ({} examples{})",
                        p.techniques.join(" → "),
                        p.support,
                        speedup_text(p.mean_speedup)
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        GraphCommand::Manifest {
            out,
            tasks,
            parts,
            unmeasured,
        } => {
            let only: Option<BTreeSet<String>> =
                (!tasks.is_empty()).then(|| tasks.into_iter().collect());
            let summary =
                verification::write_manifest(&data, &out, only.as_ref(), parts, unmeasured)?;
            for (name, why) in &summary.skipped {
                eprintln!("skipped {name}: {why}");
            }
            eprintln!(
                "wrote {}: {} steps of {} tasks ({} skipped)",
                out.join("manifest.json").display(),
                summary.entries,
                summary.tasks,
                summary.skipped.len()
            );
            Ok(if summary.entries > 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        GraphCommand::Record {
            results,
            gpu,
            nvcc,
            date,
            json,
        } => {
            if let Some(d) = &date
                && !is_date(d)
            {
                bail!("--date `{d}` is not YYYY-MM-DD");
            }
            let opts = verification::RecordOptions {
                gpu,
                nvcc,
                date: date.unwrap_or_else(verification::today_utc),
            };
            let mut summary = verification::RecordSummary::default();
            for file in &results {
                let part = verification::record(&data, file, &opts)
                    .with_context(|| format!("cannot record {}", file.display()))?;
                summary.absorb(part);
            }
            for (name, why) in &summary.failed {
                eprintln!("{name}: not correct: {why}");
            }
            for (name, why) in &summary.unrecorded {
                eprintln!("{name}: not recorded: {why}");
            }
            eprintln!(
                "recorded {} correct and {} failed step(s) into {} file(s); {} left unrecorded",
                summary.correct.len(),
                summary.failed.len(),
                summary.files_written.len(),
                summary.unrecorded.len()
            );
            if json {
                println!("{}", serde_json::to_string_pretty(&summary)?);
            }
            Ok(ExitCode::SUCCESS)
        }
        GraphCommand::MergeResults {
            results,
            out,
            summary,
        } => {
            if let Some(out) = out {
                let merged = verification::merge_results(&results)?;
                std::fs::write(&out, serde_json::to_string_pretty(&merged)?)
                    .with_context(|| format!("cannot write {}", out.display()))?;
                eprintln!(
                    "wrote {}: {} results",
                    out.display(),
                    merged["results"].as_array().map_or(0, Vec::len)
                );
            }
            if summary {
                print!("{}", verification::verdict_table(&data, &results)?);
            }
            Ok(ExitCode::SUCCESS)
        }
        GraphCommand::Relabel { names, json } => {
            let vocab = data.vocabulary()?;
            let rows: Vec<serde_json::Value> = names
                .iter()
                .map(|n| match vocab.relabel(n) {
                    Some(r) => serde_json::json!({
                        "name": n,
                        "technique": vocab.techniques()[r.index].name,
                        "match": r.how,
                    }),
                    None => serde_json::json!({
                        "name": n,
                        "technique": null,
                        "closest": vocab.closest(n).map(|(i, score)| serde_json::json!({
                            "technique": vocab.techniques()[i].name,
                            "score": score,
                        })),
                    }),
                })
                .collect();
            if json {
                println!("{}", serde_json::to_string_pretty(&rows)?);
            } else {
                for row in &rows {
                    println!(
                        "{} → {} {}",
                        row["name"].as_str().unwrap_or_default(),
                        row["technique"].as_str().unwrap_or("(unmatched)"),
                        if row["match"].is_null() {
                            String::new()
                        } else {
                            row["match"].to_string()
                        }
                    );
                }
            }
            let all = rows.iter().all(|r| !r["technique"].is_null());
            Ok(if all {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
    }
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
}

fn load(path: &Path) -> anyhow::Result<ReGraph> {
    ReGraph::load(path).with_context(|| {
        format!(
            "cannot load the graph from {}; build it with `cuda-offload graph build`",
            path.display()
        )
    })
}

fn build(
    data: &GraphData,
    out: &Path,
    options: BuildOptions,
    check: bool,
    strict: bool,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let (graph, report) = data.build(options)?;
    report_build(&report, json)?;
    let text = graph.to_json();
    let mut failed = false;
    if check {
        let existing = std::fs::read_to_string(out).unwrap_or_default();
        if existing != text {
            let flag = if options.include_unverified {
                " --include-unverified"
            } else {
                ""
            };
            eprintln!(
                "{} is stale: it differs from what the trajectories build; run `cuda-offload graph build{flag}`",
                out.display()
            );
            failed = true;
        } else {
            eprintln!("{} is up to date", out.display());
        }
    } else {
        std::fs::write(out, &text).with_context(|| format!("cannot write {}", out.display()))?;
        let s = graph.stats();
        eprintln!(
            "wrote {}: {} nodes, {} edges, {} examples ({} verified) from {} tasks",
            out.display(),
            s.nodes,
            s.edges,
            s.examples,
            s.verified_examples,
            s.tasks
        );
    }
    let unplaceable = report.stopped.iter().any(|s| {
        matches!(
            s.reason,
            StopReason::UnknownTask | StopReason::UnmatchedTechnique { .. }
        )
    });
    if strict && unplaceable {
        eprintln!("--strict: some trajectories name unknown tasks or techniques (see above)");
        failed = true;
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn report_build(report: &BuildReport, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(report)?);
    }
    let mut not_measured = 0;
    for s in &report.stopped {
        let why = match &s.reason {
            StopReason::UnknownTask => "no such task under graph-data/tasks".to_string(),
            StopReason::UnmatchedTechnique { technique } => {
                format!(
                    "technique `{technique}` matches no technique of techniques.toml (add an alias)"
                )
            }
            StopReason::MeasuredIncorrect => {
                "failed verification (measured.correct == false)".into()
            }
            StopReason::NotMeasured => {
                // One summary line instead of one per trajectory: before verification that is all of them.
                not_measured += 1;
                continue;
            }
        };
        eprintln!(
            "{}:{}: task `{}`, step {}: {why}; {} step(s) left out",
            s.file.display(),
            s.line,
            s.task,
            s.step,
            s.steps_left_out
        );
    }
    if not_measured > 0 {
        eprintln!(
            "{not_measured} trajectorie(s) stop at a step not verified on the GPU yet; \
             --include-unverified merges such steps as unverified examples"
        );
    }
    for (name, count) in report.unmatched() {
        eprintln!("unmatched technique name: `{name}` ({count}×)");
    }
    let mut fuzzy: BTreeMap<(&str, &str), (f64, usize)> = BTreeMap::new();
    for f in &report.fuzzy {
        let entry = fuzzy
            .entry((f.technique.as_str(), f.relabelled_to.as_str()))
            .or_insert((f.score, 0));
        entry.1 += 1;
    }
    for ((name, to), (score, count)) in fuzzy {
        eprintln!("relabelled by similarity {score:.2}: `{name}` → {to} ({count}×)");
    }
    Ok(())
}

fn print_stats(g: &ReGraph, json: bool) -> anyhow::Result<()> {
    let s = g.stats();
    if json {
        let mut value = serde_json::to_value(&s)?;
        value["out_degree"] = s
            .out_degree
            .iter()
            .map(|(n, d)| (n.clone(), serde_json::json!(d)))
            .collect::<serde_json::Map<_, _>>()
            .into();
        println!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(());
    }
    println!("techniques         {}", s.techniques);
    println!("nodes              {}", s.nodes);
    println!("edges              {}", s.edges);
    println!("examples           {}", s.examples);
    println!(
        "verified examples  {} ({:.0} %)",
        s.verified_examples,
        100.0 * s.verified_fraction
    );
    println!("measured examples  {}", s.measured_examples);
    println!("tasks              {}", s.tasks);
    if g.header.include_unverified {
        println!("note               {}", g.header.note);
    }
    println!("out-degree:");
    for (name, degree) in &s.out_degree {
        println!("  {name:<28} {degree}");
    }
    Ok(())
}

fn show(
    g: &ReGraph,
    technique: &str,
    kind: Option<LoopKind>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let Some(successors) = g.ranked_successors(technique, kind) else {
        bail!(
            "`{technique}` is not a node of the graph; `cuda-offload graph stats` lists the nodes"
        );
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&successors)?);
        return Ok(ExitCode::SUCCESS);
    }
    let node = g.technique(g.node(technique).expect("checked above"));
    println!("{} — {}", node.technique, node.description);
    if successors.is_empty() {
        println!("  no successors");
    }
    for s in &successors {
        println!(
            "  → {:<28} {} examples ({} verified){}",
            s.technique,
            s.examples,
            s.verified_examples,
            speedup_text(s.mean_speedup)
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn speedup_text(speedup: Option<f64>) -> String {
    speedup.map_or_else(
        || ", no measurement yet".to_string(),
        |s| format!(", geomean speedup {s:.1}×"),
    )
}
