//! Verifying the trajectories on the GPU with the project's own verifier (issue #4): every step
//! becomes an entry of a `verify --manifest` batch, and the batch's `results.json` is written back
//! into the trajectories as each step's `measured`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::trajectory::{Located, Measured};
use super::{GraphData, GraphError, tasks};
use crate::verify::{VerifyOutcome, VerifyReport, harness};

/// `verify --manifest` input, as `cli::verify` reads it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// `<task>#<step>`, the step 1-based.
    pub name: String,
    /// Path of the region JSON, relative to the manifest.
    pub region: String,
    /// Path of the candidate file, relative to the manifest.
    pub candidate: String,
    pub expect: String,
}

/// What `graph manifest` wrote.
#[derive(Debug, Default)]
pub struct ManifestSummary {
    pub entries: usize,
    pub tasks: usize,
    /// `(entry name or task, why)` of steps not put in the manifest.
    pub skipped: Vec<(String, String)>,
}

pub fn entry_name(task: &str, step: usize) -> String {
    format!("{task}#{step}")
}

fn parse_entry_name(name: &str) -> Option<(&str, usize)> {
    let (task, step) = name.rsplit_once('#')?;
    let step: usize = step.parse().ok()?;
    (step >= 1).then_some((task, step))
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> GraphError + '_ {
    move |source| GraphError::Read {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `out/manifest.json`, `out/regions/<task>.json`, `out/candidates/<task>__<step>.cu` and
/// `out/skipped.txt` for every step of every trajectory (of `only` when given).
///
/// With `parts > 1` the entries are also split, in order, into `out/manifest.<i>.json` (1-based), so
/// that a time-bounded run can verify them part by part and stop between parts.
pub fn write_manifest(
    data: &GraphData,
    out: &Path,
    only: Option<&BTreeSet<String>>,
    parts: usize,
    unmeasured_only: bool,
) -> Result<ManifestSummary, GraphError> {
    let tasks = tasks::load_tasks(&data.tasks())?;
    let trajectories = super::trajectory::load_dir(&data.trajectories())?;
    if let Some(only) = only
        && let Some(missing) = only.iter().find(|t| !tasks.contains_key(*t))
    {
        return Err(GraphError::Task {
            path: data.tasks().join(missing),
            field: "id".into(),
            message: format!("no task `{missing}` under {}", data.tasks().display()),
        });
    }
    for sub in ["regions", "candidates"] {
        let dir = out.join(sub);
        std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    }
    let mut summary = ManifestSummary::default();
    let mut entries = Vec::new();
    let mut seen_tasks = BTreeSet::new();
    for Located { trajectory, .. } in &trajectories {
        let id = &trajectory.task;
        if only.is_some_and(|o| !o.contains(id)) {
            continue;
        }
        let Some(task) = tasks.get(id) else {
            summary
                .skipped
                .push((id.clone(), "no such task under graph-data/tasks".into()));
            continue;
        };
        if let Err(why) = harness::validate_region(&task.region) {
            for k in 1..=trajectory.steps.len() {
                summary
                    .skipped
                    .push((entry_name(id, k), format!("region refused: {why}")));
            }
            continue;
        }
        // A measurement taken at another shape (before the verifier used the task's own) is due
        // again like a missing one.
        let timed_shape = crate::verify::plan::plan_for(&task.region_with_sizes(), 0)
            .timed
            .describe_size();
        if seen_tasks.insert(id.clone()) {
            let path = out.join("regions").join(format!("{id}.json"));
            // With the task's shapes: a step is checked and timed on what the task describes.
            let json = serde_json::to_string_pretty(&task.region_with_sizes())
                .expect("a region serializes");
            std::fs::write(&path, json).map_err(io_err(&path))?;
        }
        for (k, step) in trajectory.steps.iter().enumerate() {
            if unmeasured_only
                && step
                    .measured
                    .as_ref()
                    .is_some_and(|m| m.size.as_deref() == Some(timed_shape.as_str()))
            {
                continue;
            }
            let file = format!("candidates/{id}__{}.cu", k + 1);
            let path = out.join(&file);
            std::fs::write(&path, &step.code).map_err(io_err(&path))?;
            entries.push(ManifestEntry {
                name: entry_name(id, k + 1),
                region: format!("regions/{id}.json"),
                candidate: file,
                expect: "correct".into(),
            });
        }
    }
    summary.entries = entries.len();
    summary.tasks = seen_tasks.len();
    let write = |name: String, entries: &[ManifestEntry]| {
        let path = out.join(name);
        let manifest = serde_json::json!({ "entries": entries });
        std::fs::write(
            &path,
            serde_json::to_string_pretty(&manifest).expect("json"),
        )
        .map_err(io_err(&path))
    };
    write("manifest.json".into(), &entries)?;
    if parts > 1 && !entries.is_empty() {
        let per_part = entries.len().div_ceil(parts);
        for (i, chunk) in entries.chunks(per_part).enumerate() {
            write(format!("manifest.{}.json", i + 1), chunk)?;
        }
    }
    let mut skipped = String::new();
    for (name, why) in &summary.skipped {
        skipped.push_str(&format!("{name}\t{why}\n"));
    }
    let path = out.join("skipped.txt");
    std::fs::write(&path, skipped).map_err(io_err(&path))?;
    Ok(summary)
}

/// One entry of the `results.json` that `verify --manifest --out` writes (the fields used here).
#[derive(Debug, Deserialize)]
struct ResultEntry {
    name: String,
    #[serde(default)]
    candidate: String,
    report: Option<VerifyReport>,
    #[serde(default)]
    error: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ResultsFile {
    #[serde(default)]
    gpu: Option<String>,
    results: Vec<ResultEntry>,
}

fn read_results(path: &Path) -> Result<serde_json::Value, GraphError> {
    let text = std::fs::read_to_string(path).map_err(io_err(path))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| GraphError::Trajectory {
            path: path.to_path_buf(),
            line: e.line(),
            message: format!("not a `verify --manifest` results.json: {e}"),
        })?;
    if !value["results"].is_array() {
        return Err(GraphError::Trajectory {
            path: path.to_path_buf(),
            line: 1,
            message: "no `results` array: not a `verify --manifest` results.json".into(),
        });
    }
    Ok(value)
}

/// Several `results.json` of a run done in parts as one: the results concatenated, the first
/// part's GPU, the summed wall time, each part's summary line kept.
pub fn merge_results(paths: &[PathBuf]) -> Result<serde_json::Value, GraphError> {
    let mut results = Vec::new();
    let mut summaries = Vec::new();
    let mut wall = 0.0;
    let mut gpu = serde_json::Value::Null;
    for path in paths {
        let mut v = read_results(path)?;
        if gpu.is_null() {
            gpu = v["gpu"].take();
        }
        wall += v["wall_s"].as_f64().unwrap_or(0.0);
        summaries.push(v["summary"].take());
        if let serde_json::Value::Array(r) = v["results"].take() {
            results.extend(r);
        }
    }
    Ok(serde_json::json!({
        "summary": summaries,
        "wall_s": wall,
        "gpu": gpu,
        "results": results,
    }))
}

/// A markdown table of verdict counts per task category over the given results files.
pub fn verdict_table(data: &GraphData, paths: &[PathBuf]) -> Result<String, GraphError> {
    let tasks = tasks::load_tasks(&data.tasks())?;
    let mut counts: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let mut verdicts = BTreeSet::new();
    for path in paths {
        let v = read_results(path)?;
        for r in v["results"].as_array().into_iter().flatten() {
            let name = r["name"].as_str().unwrap_or_default();
            let category = parse_entry_name(name)
                .and_then(|(t, _)| tasks.get(t))
                .map(|t| {
                    serde_json::to_value(t.category)
                        .ok()
                        .and_then(|c| c.as_str().map(str::to_string))
                        .unwrap_or_default()
                })
                .unwrap_or_else(|| "?".into());
            let verdict = r["report"]["verdict"]
                .as_str()
                .unwrap_or("verifier_error")
                .to_string();
            verdicts.insert(verdict.clone());
            for c in [category, "all".to_string()] {
                *counts
                    .entry(c)
                    .or_default()
                    .entry(verdict.clone())
                    .or_default() += 1;
            }
        }
    }
    let mut s = String::from("| category |");
    for v in &verdicts {
        s.push_str(&format!(" {v} |"));
    }
    s.push_str("\n|---|");
    s.push_str(&"---|".repeat(verdicts.len()));
    s.push('\n');
    let all = counts.remove("all").map(|r| ("all".to_string(), r));
    for (c, row) in counts.iter().chain(all.iter().map(|(c, r)| (c, r))) {
        s.push_str(&format!("| {c} |"));
        for v in &verdicts {
            s.push_str(&format!(" {} |", row.get(v).copied().unwrap_or(0)));
        }
        s.push('\n');
    }
    Ok(s)
}

/// Overrides and context for `record`.
#[derive(Debug, Clone, Default)]
pub struct RecordOptions {
    pub gpu: Option<String>,
    pub nvcc: Option<String>,
    /// `YYYY-MM-DD` of the run.
    pub date: String,
}

/// What `record` did, per entry name.
#[derive(Debug, Default, Serialize)]
pub struct RecordSummary {
    /// Steps now `measured.correct == true`.
    pub correct: Vec<String>,
    /// Steps now `measured.correct == false`, with the verdict.
    pub failed: Vec<(String, String)>,
    /// Entries left as they were, with why (no GPU run, verifier error, code changed since).
    pub unrecorded: Vec<(String, String)>,
    pub files_written: Vec<PathBuf>,
}

impl RecordSummary {
    pub fn absorb(&mut self, other: RecordSummary) {
        self.correct.extend(other.correct);
        self.failed.extend(other.failed);
        self.unrecorded.extend(other.unrecorded);
        for f in other.files_written {
            if !self.files_written.contains(&f) {
                self.files_written.push(f);
            }
        }
    }
}

/// Writes the measurements of `results` (a `verify --manifest` results.json) into the trajectory
/// files of `data`. A step is only touched when its code is still the code that was verified.
pub fn record(
    data: &GraphData,
    results_path: &Path,
    opts: &RecordOptions,
) -> Result<RecordSummary, GraphError> {
    let text = std::fs::read_to_string(results_path).map_err(io_err(results_path))?;
    let results: ResultsFile = serde_json::from_str(&text).map_err(|e| GraphError::Trajectory {
        path: results_path.to_path_buf(),
        line: e.line(),
        message: format!("not a `verify --manifest` results.json: {e}"),
    })?;
    let base = results_path.parent().unwrap_or(Path::new("."));
    let mut files: BTreeMap<PathBuf, Vec<Located>> = BTreeMap::new();
    for located in super::trajectory::load_dir(&data.trajectories())? {
        files.entry(located.file.clone()).or_default().push(located);
    }
    let mut summary = RecordSummary::default();
    let mut changed = BTreeSet::new();
    for r in &results.results {
        let Some((task, step)) = parse_entry_name(&r.name) else {
            summary
                .unrecorded
                .push((r.name.clone(), "not a `<task>#<step>` name".into()));
            continue;
        };
        let target = files.iter_mut().find_map(|(file, ts)| {
            ts.iter_mut()
                .find(|l| l.trajectory.task == task)
                .map(|l| (file.clone(), l))
        });
        let Some((file, located)) = target else {
            summary
                .unrecorded
                .push((r.name.clone(), "no trajectory for this task".into()));
            continue;
        };
        let Some(s) = located.trajectory.steps.get_mut(step - 1) else {
            summary
                .unrecorded
                .push((r.name.clone(), "the trajectory has fewer steps".into()));
            continue;
        };
        // The manifest is next to results.json or one folder up (`verify-trajectories` parts).
        let code = [Some(base), base.parent()]
            .into_iter()
            .flatten()
            .find_map(|dir| std::fs::read_to_string(dir.join(&r.candidate)).ok());
        match code {
            None => {
                summary.unrecorded.push((
                    r.name.clone(),
                    format!(
                        "candidate `{}` not found next to the results or one folder up: \
                         cannot tell it is the step's code",
                        r.candidate
                    ),
                ));
                continue;
            }
            Some(code) if code != s.code => {
                summary.unrecorded.push((
                    r.name.clone(),
                    "the step's code changed since it was verified".into(),
                ));
                continue;
            }
            Some(_) => {}
        }
        let Some(report) = &r.report else {
            let why = r.error.clone().unwrap_or_else(|| "no report".into());
            summary
                .unrecorded
                .push((r.name.clone(), format!("verifier error: {why}")));
            continue;
        };
        let Some(measured) = measured_from(report, results.gpu.as_deref(), opts) else {
            summary
                .unrecorded
                .push((r.name.clone(), report.summary.clone()));
            continue;
        };
        if measured.correct {
            summary.correct.push(r.name.clone());
        } else {
            summary
                .failed
                .push((r.name.clone(), report.summary.clone()));
        }
        s.measured = Some(measured);
        changed.insert(file);
    }
    for file in changed {
        let mut text = String::new();
        for l in &files[&file] {
            text.push_str(&to_jsonl_line(&l.trajectory));
            text.push('\n');
        }
        std::fs::write(&file, text).map_err(io_err(&file))?;
        summary.files_written.push(file);
    }
    Ok(summary)
}

/// The measurement of one report; `None` when nothing ran on a GPU (no verdict to record).
fn measured_from(
    report: &VerifyReport,
    results_gpu: Option<&str>,
    opts: &RecordOptions,
) -> Option<Measured> {
    let outcome = &report.outcome;
    if matches!(outcome, VerifyOutcome::CompiledNotRun { .. }) {
        return None;
    }
    let gpu = opts
        .gpu
        .clone()
        .or_else(|| report.gpu.clone())
        .or_else(|| results_gpu.map(str::to_string));
    let mut m = Measured {
        correct: false,
        verdict: Some(outcome.verdict().to_string()),
        kernel_ms: None,
        end_to_end_ms: None,
        serial_ms: None,
        speedup: None,
        end_to_end_speedup: None,
        roofline_fraction: None,
        samples: None,
        noise: None,
        size: None,
        gpu,
        nvcc: opts.nvcc.clone().or_else(|| Some(report.nvcc.clone())),
        date: Some(opts.date.clone()).filter(|d| !d.is_empty()),
        extra: BTreeMap::new(),
    };
    if let VerifyOutcome::Correct(t) = outcome {
        m.correct = true;
        m.kernel_ms = Some(t.kernel_ms);
        m.end_to_end_ms = Some(t.end_to_end_ms);
        m.serial_ms = Some(t.serial_ms);
        m.speedup = Some(t.speedup);
        m.end_to_end_speedup = Some(t.end_to_end_speedup);
        m.roofline_fraction = t.roofline_fraction;
        m.samples = Some(t.samples);
        m.noise = Some(t.noise);
        m.size = Some(t.size.clone());
    }
    Some(m)
}

/// One trajectory as one JSONL line, in the separators of the shipped files (`", "`, `": "`), so
/// that recording a measurement changes only that step's `measured`.
pub fn to_jsonl_line<T: Serialize>(value: &T) -> String {
    let mut buf = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, SpacedFormatter);
    value
        .serialize(&mut ser)
        .expect("a trajectory serializes to JSON");
    String::from_utf8(buf).expect("serde_json writes UTF-8")
}

struct SpacedFormatter;

/// `", "` before every array element and object key but the first.
fn comma_space<W: ?Sized + std::io::Write>(writer: &mut W, first: bool) -> std::io::Result<()> {
    if first {
        Ok(())
    } else {
        writer.write_all(b", ")
    }
}

impl serde_json::ser::Formatter for SpacedFormatter {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        comma_space(writer, first)
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        comma_space(writer, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(b": ")
    }
}

/// Today's date (UTC) as `YYYY-MM-DD`, from the system clock.
pub fn today_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = (secs / 86_400) as i64;
    // Civil-from-days (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_trajectories_round_trip_byte_for_byte() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../graph-data/trajectories");
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, line) in text.lines().enumerate() {
                let t: super::super::Trajectory = serde_json::from_str(line).unwrap();
                assert_eq!(to_jsonl_line(&t), line, "{}:{}", path.display(), i + 1);
            }
        }
    }

    #[test]
    fn entry_names_parse_back() {
        assert_eq!(parse_entry_name(&entry_name("a_b", 3)), Some(("a_b", 3)));
        assert_eq!(parse_entry_name("a_b#0"), None);
        assert_eq!(parse_entry_name("a_b"), None);
        assert_eq!(parse_entry_name("a_b#x"), None);
    }

    #[test]
    fn today_is_a_plausible_date() {
        let d = today_utc();
        assert_eq!(d.len(), 10);
        assert!(d.as_str() > "2024-01-01", "{d}");
    }
}
