//! Serial source tasks (`graph-data/tasks/<id>/task.toml`): a region the verifier can build a harness
//! around, its sizes and tolerance, and where it sits in the collection (category, tier).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::GraphError;
use super::vocab::is_snake_case;
use crate::analysis::{Access, OffloadRegion};

/// What kind of computation a task is, for coverage of the collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    Blas,
    Stencil,
    Reduction,
    Histogram,
    Scan,
    SortSearch,
    Sparse,
    Image,
    Physics,
    Statistics,
    Graph,
    String,
}

/// How many optimization steps a strong solution needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Easy,
    Medium,
    Hard,
}

/// A task's `[sizes]`: the region carries the same, for the verifier (`Task::region_with_sizes`).
pub use crate::analysis::{DeclaredSizes as Sizes, SizeTable};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    pub rtol: f64,
    pub atol: f64,
}

/// One task of the collection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Task {
    pub id: String,
    pub category: Category,
    pub description: String,
    pub tier: Tier,
    pub region: OffloadRegion,
    pub sizes: Sizes,
    pub tolerance: Tolerance,
    /// Benchmark tasks only (`bench/tasks/<suite>/<id>/task.toml`); graph-building tasks have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bench: Option<BenchInfo>,
}

/// Where a benchmark task comes from and its multi-threaded CPU baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchInfo {
    /// `pareval:<problem name>`.
    pub origin: String,
    /// The suite's own problem type (`dense_la`, `histogram`, ...).
    pub problem_type: String,
    /// The serial function with an OpenMP pragma, same name and parameters (the 16-thread baseline).
    pub openmp_source: String,
}

impl Task {
    /// The region as the verifier should check it: with the task's own shapes.
    pub fn region_with_sizes(&self) -> OffloadRegion {
        OffloadRegion {
            sizes: Some(self.sizes.clone()),
            ..self.region.clone()
        }
    }

    /// The serial reference as one compilable C++ file: includes, then the function.
    pub fn serial_file(&self) -> String {
        let mut out = String::new();
        for include in &self.region.includes {
            out.push_str(include);
            out.push('\n');
        }
        out.push('\n');
        out.push_str(self.region.source.trim_end());
        out.push('\n');
        out
    }

    /// Parses and validates one task file. `dir_name`, when given, must equal the id.
    pub fn from_toml(text: &str, dir_name: Option<&str>) -> Result<Self, (String, String)> {
        let task: Task = toml::from_str(text).map_err(|e| {
            let field = e
                .span()
                .and_then(|span| key_at(text, span.start))
                .unwrap_or_else(|| "(syntax)".to_string());
            (field, e.to_string().trim_end().to_string())
        })?;
        task.validate(dir_name)?;
        Ok(task)
    }

    /// Checks what the harness relies on; the error is `(field, message)`.
    fn validate(&self, dir_name: Option<&str>) -> Result<(), (String, String)> {
        let err = |field: &str, message: String| Err((field.to_string(), message));
        if !is_snake_case(&self.id) {
            return err("id", format!("`{}` is not a snake_case id", self.id));
        }
        if let Some(dir) = dir_name
            && dir != self.id
        {
            return err(
                "id",
                format!("`{}` differs from its directory `{dir}`", self.id),
            );
        }
        if self.description.trim().is_empty() {
            return err("description", "is empty".into());
        }
        let region = &self.region;
        if region.name != self.id {
            return err(
                "region.name",
                format!("`{}` must equal the task id `{}`", region.name, self.id),
            );
        }
        if !region.source.contains(&format!("void {}(", region.name)) {
            return err(
                "region.source",
                format!("must define `void {}(...)`", region.name),
            );
        }
        if region.params.is_empty() {
            return err("region.params", "is empty".into());
        }
        let mut size_params = Vec::new();
        for p in &region.params {
            let field = format!("region.params.{}", p.name);
            if p.is_array && p.extent.as_deref().is_none_or(|e| e.trim().is_empty()) {
                return err(&field, "an array needs an `extent`".into());
            }
            if !p.is_array && p.access != Access::Read {
                return err(
                    &field,
                    "a written scalar must be a one-element array (is_array = true, extent = \"1\")"
                        .into(),
                );
            }
            if p.is_size {
                if p.is_array {
                    return err(&field, "a size parameter must be a scalar".into());
                }
                size_params.push(p.name.as_str());
            }
        }
        if self.region.sizes.is_some() {
            return err("region.sizes", "the shapes go in the task's [sizes]".into());
        }
        if self.sizes.test.len() < 3 {
            return err(
                "sizes.test",
                format!("needs at least 3 sizes, has {}", self.sizes.test.len()),
            );
        }
        let tables = self
            .sizes
            .test
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("sizes.test[{i}]"), t))
            .chain(std::iter::once((
                "sizes.timed".to_string(),
                &self.sizes.timed,
            )));
        for (field, table) in tables {
            for name in &size_params {
                match table.get(*name) {
                    None => return err(&field, format!("lacks the size parameter `{name}`")),
                    Some(v) if *v <= 0 => {
                        return err(&field, format!("`{name}` = {v} must be positive"));
                    }
                    Some(_) => {}
                }
            }
            if let Some(extra) = table.keys().find(|k| !size_params.contains(&k.as_str())) {
                return err(
                    &field,
                    format!("`{extra}` is not a size parameter (is_size = true)"),
                );
            }
        }
        let has_ragged = self
            .sizes
            .test
            .iter()
            .any(|t| t.values().any(|v| v % 32 != 0));
        if !size_params.is_empty() && !has_ragged {
            return err(
                "sizes.test",
                "at least one size must not be a multiple of 32".into(),
            );
        }
        let Tolerance { rtol, atol } = self.tolerance;
        if !(rtol.is_finite() && rtol >= 0.0 && atol.is_finite() && atol >= 0.0) {
            return err(
                "tolerance",
                "rtol and atol must be finite and non-negative".into(),
            );
        }
        Ok(())
    }
}

/// The dotted key (`region.kind`, `region.params.rgb.access`) of the value at byte `offset`, for
/// error messages: the table header above it, the key of its line, and inside an inline table of a
/// parameter list, the parameter's `name`.
fn key_at(text: &str, offset: usize) -> Option<String> {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next()?;
    let column = offset - line_start;
    let table = text[..line_start].lines().rev().find_map(|l| {
        let l = l.trim();
        (l.starts_with('[') && !l.starts_with("[[")).then(|| l.trim_matches(['[', ']']).to_string())
    });
    let (line_key, _) = line.split_once('=')?;
    let line_key = line_key.trim();
    let key = if line_key.starts_with('{') {
        // `{ name = "rgb", ..., access = "readonly" }`: the key just before the offending value.
        let before = &line[..column.min(line.len())];
        let inner = before
            .rsplit_once('=')
            .map(|(k, _)| k.rsplit([',', '{']).next().unwrap_or(k).trim().to_string())?;
        let param = line
            .split_once("name")
            .and_then(|(_, rest)| rest.split('"').nth(1))
            .unwrap_or("?");
        format!("params.{param}.{inner}")
    } else if line_key.is_empty() || line_key.contains(['"', '[']) {
        return None;
    } else {
        line_key.to_string()
    };
    Some(match table {
        Some(t) => format!("{t}.{key}"),
        None => key,
    })
}

/// Loads `<dir>/task.toml`.
pub fn load_task(dir: &Path) -> Result<Task, GraphError> {
    let path = dir.join("task.toml");
    let text = std::fs::read_to_string(&path).map_err(|source| GraphError::Read {
        path: path.clone(),
        source,
    })?;
    let dir_name = dir.file_name().and_then(|n| n.to_str());
    Task::from_toml(&text, dir_name).map_err(|(field, message)| GraphError::Task {
        path,
        field,
        message,
    })
}

/// Loads every `<tasks_dir>/*/task.toml`, sorted by id. A missing directory is an empty collection.
pub fn load_tasks(tasks_dir: &Path) -> Result<BTreeMap<String, Task>, GraphError> {
    let mut tasks = BTreeMap::new();
    if !tasks_dir.is_dir() {
        return Ok(tasks);
    }
    for dir in sorted_subdirs(tasks_dir)? {
        let task = load_task(&dir)?;
        tasks.insert(task.id.clone(), task);
    }
    Ok(tasks)
}

fn sorted_subdirs(dir: &Path) -> Result<Vec<PathBuf>, GraphError> {
    let read = |source| GraphError::Read {
        path: dir.to_path_buf(),
        source,
    };
    let mut dirs = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(read)? {
        let path = entry.map_err(read)?.path();
        if path.join("task.toml").is_file() {
            dirs.push(path);
        }
    }
    dirs.sort();
    Ok(dirs)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RGB: &str = r##"
id = "rgb_to_gray"
category = "image"
description = "Luma from interleaved 8-bit RGB"
tier = "easy"
[region]
name = "rgb_to_gray"
kind = "map"
whole_function = true
line = 0
end_line = 0
includes = ["#include <cstdint>"]
source = """
void rgb_to_gray(int n, const unsigned char* rgb, float* gray) {
    for (int i = 0; i < n; ++i)
        gray[i] = 0.299f * rgb[3 * i] + 0.587f * rgb[3 * i + 1] + 0.114f * rgb[3 * i + 2];
}
"""
params = [
  { name = "n", elem_type = "int", is_array = false, access = "read", is_size = true },
  { name = "rgb", elem_type = "unsigned char", is_array = true, access = "read", extent = "3*n", is_size = false },
  { name = "gray", elem_type = "float", is_array = true, access = "write", extent = "n", is_size = false },
]
work = { iterations = "n", ops_per_iteration = 5.0, bytes_per_iteration = 7.0 }
[sizes]
test = [{ n = 1000 }, { n = 4099 }, { n = 65537 }]
timed = { n = 67108864 }
[tolerance]
rtol = 1e-4
atol = 1e-6
"##;

    #[test]
    fn the_documented_example_loads_into_a_region() {
        let task = Task::from_toml(RGB, Some("rgb_to_gray")).unwrap();
        assert_eq!(task.category, Category::Image);
        assert_eq!(task.tier, Tier::Easy);
        assert_eq!(task.region.params.len(), 3);
        assert_eq!(
            task.region.signature(),
            "void rgb_to_gray(int n, const unsigned char* rgb, float* gray)"
        );
        assert_eq!(task.sizes.timed["n"], 67108864);
        assert_eq!(task.region.sizes, None);
        assert_eq!(task.region_with_sizes().sizes, Some(task.sizes.clone()));
        assert!(
            task.serial_file()
                .starts_with("#include <cstdint>\n\nvoid rgb_to_gray(")
        );
    }

    fn field_of(text: &str, dir: Option<&str>) -> String {
        Task::from_toml(text, dir).unwrap_err().0
    }

    #[test]
    fn validation_names_the_field() {
        assert_eq!(field_of(RGB, Some("other")), "id");
        assert_eq!(
            field_of(
                &RGB.replace("category = \"image\"", "category = \"cooking\""),
                None
            ),
            "category"
        );
        assert_eq!(
            field_of(&RGB.replace("{ n = 4099 }, ", ""), None),
            "sizes.test"
        );
        assert_eq!(
            field_of(
                &RGB.replace(
                    "{ n = 1000 }, { n = 4099 }, { n = 65537 }",
                    "{ n = 32 }, { n = 64 }, { n = 96 }"
                ),
                None
            ),
            "sizes.test"
        );
        assert_eq!(
            field_of(
                &RGB.replace("timed = { n = 67108864 }", "timed = { m = 3 }"),
                None
            ),
            "sizes.timed"
        );
        // The shapes are the task's, in one place.
        let work = RGB.lines().find(|l| l.starts_with("work = ")).unwrap();
        assert_eq!(
            field_of(
                &RGB.replace(
                    work,
                    &format!("{work}\nsizes = {{ test = [], timed = {{ n = 8 }} }}")
                ),
                None
            ),
            "region.sizes"
        );
        assert_eq!(
            field_of(&RGB.replace(", extent = \"3*n\"", ""), None),
            "region.params.rgb"
        );
        assert_eq!(
            field_of(
                &RGB.replace("void rgb_to_gray(int", "void rgb2gray(int"),
                None
            ),
            "region.source"
        );
        assert_eq!(
            field_of(&RGB.replace("kind = \"map\"", "kind = \"magic\""), None),
            "region.kind"
        );
        assert_eq!(
            field_of(
                &RGB.replace("access = \"write\"", "access = \"scribble\""),
                None
            ),
            "region.params.gray.access"
        );
        let (field, message) = Task::from_toml(
            &RGB.replace("tier = \"easy\"", "tier = \"easy\"\ncolour = 3"),
            None,
        )
        .unwrap_err();
        assert_eq!(field, "colour", "{message}");
        let (_, message) = Task::from_toml("id = ", None).unwrap_err();
        assert!(message.contains("line 1"), "{message}");
    }

    #[test]
    fn shipped_tasks_load() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../graph-data/tasks");
        let tasks = load_tasks(&dir).unwrap();
        assert!(!tasks.is_empty(), "no tasks under {}", dir.display());
    }
}
