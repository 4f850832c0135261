//! Loop analysis with tree-sitter (ARCHITECTURE.md §2). Issue #3.
//!
//! `analyze_source` parses a buffer and reports every loop: its shape (counter, bounds, trip count,
//! accesses), a verdict (parallel or not, which kind, and why), whether it is hot, an estimated GPU
//! speedup, and — for the outermost parallel loop of a hot nest — an [`OffloadRegion`]. Malformed
//! input never panics: tree-sitter's partial trees are analysed and loops holding a syntax error are
//! reported as not analysable.

mod classes;
pub mod cost;
mod dims;
mod document;
mod facts;
mod first_look;
mod headers;
mod invariant_bounds;
mod macro_expansion;
mod members;
mod outline;
mod poly;
mod private;
mod purity;
mod records;
pub mod region;
pub mod residency;
mod scope;
mod syntax;
mod templates;
mod units;
mod verdict;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Parser, Tree};

pub use cost::Estimate;
pub use document::Document;
pub use facts::LoopForm;
pub use first_look::{FirstLook, first_look};
pub use headers::Headers;
pub use region::{
    Access, DeclaredSizes, InputSpec, LoopKind, OffloadRegion, RecordField, RegionParam,
    RegionRecord, RegionTypes, SizeTable, WorkEstimate,
};
pub use syntax::{conjuncts, mentions_word, strip_comments_and_literals, whole_words};

use facts::{Extractor, Induction, LoopFacts};
use syntax::{Macros, end_line_of, for_each_descendant, line_of, text};

/// The grammar a file is parsed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// C files get the C grammar: C code may use C++ keywords as names (`new`, `class`).
    C,
    Cpp,
    Cuda,
}

impl Language {
    /// `.c` is C, `.cpp/.cc/.cxx/.c++/.h/.hpp/.hh/.hxx` are C++ (a `.h` may be either; C++ reads
    /// most C headers), `.cu/.cuh` are CUDA; anything else is not ours.
    pub fn from_path(path: &Path) -> Option<Language> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "cpp" | "cc" | "cxx" | "c++" | "cp" | "h" | "hpp" | "hh" | "hxx" | "h++" | "ipp"
            | "inl" => Some(Language::Cpp),
            "c" => Some(Language::C),
            "cu" | "cuh" => Some(Language::Cuda),
            _ => None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    // The message holds the cause: no `source` (it would be printed twice).
    #[error("{path}: {cause}")]
    Outline { path: String, cause: OutlineError },
    #[error(
        "{path}: not UTF-8 text (the first invalid byte is at byte offset {offset}, line {line}); save it as UTF-8 to offload from it"
    )]
    NotUtf8 {
        path: String,
        offset: usize,
        line: usize,
    },
    #[error(
        "{path}: not a C, C++ or CUDA file (expected .c, .cpp, .cc, .cxx, .h, .hpp, .cu or .cuh)"
    )]
    UnknownLanguage { path: String },
}

/// Everything the analysis found in one file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FileReport {
    pub loops: Vec<LoopReport>,
    /// True when the parser had to recover from syntax errors somewhere in the file.
    #[serde(default)]
    pub has_syntax_errors: bool,
}

impl FileReport {
    /// The outermost loop whose lines contain `line` (1-based).
    pub fn loop_at_line(&self, line: usize) -> Option<&LoopReport> {
        self.loops
            .iter()
            .filter(|l| l.line <= line && line <= l.end_line)
            .min_by_key(|l| l.depth)
    }
}

/// One array access: the array and its subscripts as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessReport {
    pub array: String,
    pub subscripts: Vec<String>,
    pub read: bool,
    pub write: bool,
    pub line: usize,
}

/// The analysis of one loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoopReport {
    /// 1-based lines of the loop statement's first and last character.
    pub line: usize,
    pub end_line: usize,
    /// Number of loops around this one.
    pub depth: usize,
    pub kind: LoopKind,
    pub parallel: bool,
    pub hot: bool,
    pub reason: String,
    /// Estimated end-to-end speedup (transfers included) of offloading this nest; `None` for loops
    /// that are not parallel or whose iteration count is unknown.
    pub estimated_speedup: Option<f64>,
    pub region: Option<OffloadRegion>,
    /// Why there is no region when the loop is parallel and hot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region_note: Option<String>,
    pub form: LoopForm,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub induction: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lower: Option<String>,
    /// Inclusive upper value of the counter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upper: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trip_count: Option<String>,
    pub accesses: Vec<AccessReport>,
    pub scalars_written: Vec<String>,
    pub calls: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pragma: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<Estimate>,
}

/// Analyses a buffer. Never panics; a buffer tree-sitter cannot parse at all yields no loops.
pub fn analyze_source(src: &[u8], lang: Language) -> FileReport {
    analyze_source_with(src, lang, &Headers::default())
}

/// [`analyze_source`] with what the file's project headers define.
pub fn analyze_source_with(src: &[u8], lang: Language, headers: &Headers) -> FileReport {
    match parse(src, lang, None) {
        Some(tree) => analyze_tree(&tree, src, headers),
        None => FileReport::default(),
    }
}

pub fn analyze_file(path: &Path) -> Result<FileReport, AnalysisError> {
    let lang = Language::from_path(path).ok_or_else(|| AnalysisError::UnknownLanguage {
        path: path.display().to_string(),
    })?;
    let src = std::fs::read(path).map_err(|source| AnalysisError::Read {
        path: path.display().to_string(),
        source,
    })?;
    Ok(analyze_source_with(
        &src,
        lang,
        &Headers::beside(path, &src),
    ))
}

/// A source file as text, for the edits an offload makes to it.
pub fn read_source(path: &Path) -> Result<String, AnalysisError> {
    let bytes = std::fs::read(path).map_err(|source| AnalysisError::Read {
        path: path.display().to_string(),
        source,
    })?;
    String::from_utf8(bytes).map_err(|e| not_utf8(path, e.as_bytes(), e.utf8_error()))
}

/// Where `bytes` (the text of `path`) stop being UTF-8, as an error that names the file.
pub fn not_utf8(path: &Path, bytes: &[u8], e: std::str::Utf8Error) -> AnalysisError {
    let offset = e.valid_up_to();
    let line = 1 + bytes[..offset].iter().filter(|b| **b == b'\n').count();
    AnalysisError::NotUtf8 {
        path: path.display().to_string(),
        offset,
        line,
    }
}

/// [`outline_at`] on a file: its text, the loop and its region.
pub fn outline_in_file(
    path: &Path,
    line: usize,
) -> Result<(String, LoopReport, OffloadRegion), AnalysisError> {
    let lang = Language::from_path(path).ok_or_else(|| AnalysisError::UnknownLanguage {
        path: path.display().to_string(),
    })?;
    let text = read_source(path)?;
    let headers = Headers::beside(path, text.as_bytes());
    let (report, region) = outline_at(text.as_bytes(), lang, line, &headers).map_err(|cause| {
        AnalysisError::Outline {
            path: path.display().to_string(),
            cause,
        }
    })?;
    Ok((text, report, region))
}

pub(crate) fn parse(src: &[u8], lang: Language, old: Option<&Tree>) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&syntax::parser_language(lang)).ok()?;
    match syntax::blank_statement_macros(src) {
        Some(blanked) => parser.parse(&blanked, old),
        None => parser.parse(src, old),
    }
}

fn analyze_tree(tree: &Tree, src: &[u8], headers: &Headers) -> FileReport {
    let mut state = units::Analysed::default();
    units::analyze_units(tree, src, headers, &mut state, units::Plan::FULL, &[]);
    std::mem::take(&mut state.units).into_file_report()
}

/// The file's macros, types and pure helpers, with what its headers add.
fn file_macros(root: Node, src: &[u8], headers: &Headers) -> Macros {
    macros_in(root, src, &headers.macros)
}

/// What a file defines, on top of `context` (what the files it includes define): its own
/// definitions win, and its helpers are judged knowing the context's.
fn macros_in(root: Node, src: &[u8], context: &Macros) -> Macros {
    let mut macros = Macros::collect(root, src);
    macros.absorb(context.clone());
    let own = purity::pure_helpers(root, src, &macros);
    macros
        .helpers
        .retain(|(h, _)| !own.iter().any(|(o, _)| o == h));
    macros.helpers.extend(own);
    let own_classes = classes::collect(root, src, &macros, &context.classes);
    macros.classes.extend(own_classes);
    macros
}

#[derive(Clone)]
struct LoopInfo<'t> {
    node: Node<'t>,
    site: syntax::LoopSite<'t>,
    parent: Option<usize>,
    depth: usize,
    facts: LoopFacts,
    verdict: verdict::Verdict,
}

fn analyze_unit(
    unit: Node,
    src: &[u8],
    macros: &Macros,
    outlining: units::Outlining,
) -> Vec<LoopReport> {
    let mut scopes = Scopes::default();
    let infos = loop_infos(unit, src, macros, &mut scopes);
    let outline = outlining > units::Outlining::None;
    unit_reports(unit, &infos, src, macros, &mut scopes, outline)
}

/// The reports of the loops of one unit, from their facts and verdicts.
fn unit_reports(
    unit: Node,
    infos: &[LoopInfo],
    src: &[u8],
    macros: &Macros,
    scopes: &mut Scopes,
    outline: bool,
) -> Vec<LoopReport> {
    let shared = UnitShared::of(unit, src, macros);
    (0..infos.len())
        .map(|idx| {
            let decls = scopes.visible_at(&infos[idx], src);
            report_for(idx, infos, src, macros, &shared, &decls, outline)
        })
        .collect()
}

/// What the loops of one unit share: the values its constants are known to have, and the file's
/// globals (read once per unit: walking the file's top level once per loop was a measurable part
/// of a keystroke in a large file).
struct UnitShared {
    known: HashMap<String, f64>,
    globals: Vec<scope::VarDecl>,
}

impl UnitShared {
    fn of(unit: Node, src: &[u8], macros: &Macros) -> Self {
        let mut root = unit;
        while let Some(p) = root.parent() {
            root = p;
        }
        UnitShared {
            known: known_values(unit, src, macros),
            globals: scope::file_globals(root, src),
        }
    }
}

/// The variables of each function of a unit, read once.
#[derive(Default)]
struct Scopes {
    /// By function node: its variables, those whose `[]` inserts (maps), and the declared type
    /// of each name declared with one type only.
    vars: HashMap<usize, FunctionVars>,
    none: FunctionVars,
}

type FunctionVars = (
    Vec<scope::VarDecl>,
    HashSet<String>,
    HashMap<String, String>,
);

impl Scopes {
    fn of(&mut self, func: Option<Node>, src: &[u8]) -> &FunctionVars {
        let Some(f) = func else {
            return &self.none;
        };
        self.vars.entry(f.id()).or_insert_with(|| {
            let v = scope::function_vars(f, src);
            let keyed = v
                .iter()
                .filter(|d| d.pointer == 0 && d.ty.contains("map<"))
                .map(|d| d.name.clone())
                .collect();
            let mut types: HashMap<String, String> = HashMap::new();
            let mut twice: HashSet<String> = HashSet::new();
            for d in &v {
                if types
                    .insert(d.name.clone(), d.ty.clone())
                    .is_some_and(|t| t != d.ty)
                {
                    twice.insert(d.name.clone());
                }
            }
            types.retain(|k, _| !twice.contains(k));
            (v, keyed, types)
        })
    }

    /// The variables visible at a loop.
    fn visible_at(&mut self, info: &LoopInfo, src: &[u8]) -> Vec<scope::VarDecl> {
        match info.site.func {
            Some(_) => scope::visible_at(&self.of(info.site.func, src).0, info.node.start_byte()),
            None => Vec::new(),
        }
    }
}

/// Facts and verdicts of every loop of a unit, in document order.
fn loop_infos<'t>(
    unit: Node<'t>,
    src: &[u8],
    macros: &Macros,
    scopes: &mut Scopes,
) -> Vec<LoopInfo<'t>> {
    let mut infos: Vec<LoopInfo> = Vec::new();
    for site in syntax::loop_sites(unit) {
        let node = site.node;
        let parent = site.parent;
        let depth = site.depth;
        let (_, keyed, var_types) = scopes.of(site.func, src);
        let extractor = Extractor {
            src,
            macros,
            keyed,
            var_types,
        };
        let facts = extractor.loop_facts(node);
        infos.push(LoopInfo {
            node,
            site,
            parent,
            depth,
            facts,
            verdict: verdict::Verdict {
                kind: LoopKind::Sequential,
                reason: String::new(),
            },
        });
    }
    // Inner loops first: a temporary private to an inner loop that the outer loop touches
    // nowhere else is private to the outer loop too.
    for idx in (0..infos.len()).rev() {
        let Some(f) = infos[idx].site.func else {
            continue;
        };
        if infos[idx].facts.scalar_writes.is_empty() {
            continue;
        }
        let mut outermost = infos[idx].parent;
        while let Some(p) = outermost.and_then(|p| infos[p].parent) {
            outermost = Some(p);
        }
        let children: Vec<(std::ops::Range<usize>, Vec<String>)> = (idx + 1..infos.len())
            .filter(|k| infos[*k].parent == Some(idx))
            .map(|k| {
                (
                    infos[k].node.byte_range(),
                    infos[k].facts.private_scalars.clone(),
                )
            })
            .collect();
        let fvars = &scopes.of(Some(f), src).0;
        let outer_node = outermost.map(|p| infos[p].node);
        let node = infos[idx].node;
        private::privatise(
            &mut infos[idx].facts,
            node,
            outer_node,
            f,
            fvars,
            &children,
            src,
        );
    }
    for idx in 0..infos.len() {
        let own = infos[idx].facts.induction.as_ref().map(|i| i.var.clone());
        let inner: Vec<Induction> = nest_inductions(idx, &infos)
            .into_iter()
            .filter(|i| Some(&i.var) != own.as_ref())
            .collect();
        let mut outer = Vec::new();
        let mut p = infos[idx].parent;
        while let Some(a) = p {
            outer.extend(infos[a].facts.induction.clone());
            p = infos[a].parent;
        }
        outer.reverse();
        infos[idx].facts.inner_ranges = inner;
        infos[idx].facts.outer_ranges = outer;
    }
    for info in infos.iter_mut() {
        let node = info.node;
        info.verdict = if node.has_error() {
            verdict::Verdict {
                kind: LoopKind::Sequential,
                reason: format!(
                    "the loop contains a syntax error (line {}); fix it to get a verdict",
                    first_error_line(node).unwrap_or_else(|| line_of(node))
                ),
            }
        } else if in_gpu_function(info.site.func, src) {
            verdict::Verdict {
                kind: LoopKind::Sequential,
                reason:
                    "it already runs on the GPU (inside a `__global__` or `__device__` function)"
                        .into(),
            }
        } else {
            verdict::classify(&info.facts)
        };
    }
    infos
}

/// The outermost enclosing loop that is parallel itself.
fn parallel_ancestor(idx: usize, infos: &[LoopInfo]) -> Option<usize> {
    let mut p = infos[idx].parent;
    let mut found = None;
    while let Some(a) = p {
        if infos[a].verdict.kind.is_parallel() {
            found = Some(a);
        }
        p = infos[a].parent;
    }
    found
}

/// Outlines the nest of loop `idx` as a region; the reason when it cannot be.
fn outline_loop(
    idx: usize,
    infos: &[LoopInfo],
    src: &[u8],
    macros: &Macros,
    shared: &UnitShared,
    decls: &[scope::VarDecl],
) -> Result<OffloadRegion, String> {
    let known = &shared.known;
    let mut work = nest_estimate(idx, infos, known, decls).map(|(_, w)| w);
    // A bound read from data but invariant in the loop is evaluated once, at the call site.
    let mut hoisted = Vec::new();
    let mut with_hoisted: Option<Vec<LoopInfo>> = None;
    if let Some(ind) = &infos[idx].facts.induction {
        let declared = decls
            .iter()
            .find(|d| d.name == ind.var)
            .map(|d| d.ty.as_str());
        let taken = |name: &str| {
            decls.iter().any(|d| d.name == name) || macros.definitions.contains_key(name)
        };
        if let Some((counted, bounds)) =
            invariant_bounds::hoist(infos[idx].node, src, ind, declared, taken)
        {
            let mut copy = infos.to_vec();
            copy[idx].facts.induction = Some(counted);
            work = nest_estimate(idx, &copy, known, decls).map(|(_, w)| w);
            hoisted = bounds;
            with_hoisted = Some(copy);
        }
    }
    let infos = with_hoisted.as_deref().unwrap_or(infos);
    let info = &infos[idx];
    let work = work.ok_or("its iteration count is not known")?;
    let nest = with_derived_counters(idx, infos, nest_inductions(idx, infos));
    let req = outline::OutlineRequest {
        func: info.site.func,
        decls,
        in_template: info.site.in_template,
        src,
        macros,
        node: info.node,
        facts: &info.facts,
        nest: &nest,
        enclosing: &enclosing_inductions(idx, infos),
        kind: info.verdict.kind,
        line: line_of(info.node),
        end_line: end_line_of(info.node),
        work,
        hoisted: &hoisted,
        globals: &shared.globals,
    };
    outline::outline(&req)
}

/// Why a loop chosen for offloading has no region.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OutlineError {
    #[error("no loop at line {0}")]
    NoLoop(usize),
    #[error("the loop at line {line} cannot run in parallel: {reason}")]
    NotParallel { line: usize, reason: String },
    #[error("the loop at line {line} is parallel ({kind}) but cannot be outlined: {why}")]
    NotOutlined {
        line: usize,
        kind: &'static str,
        why: String,
    },
}

/// The loop an offload of `line` means: a loop whose statement starts on that line (the
/// outermost of those), else the outermost loop containing it.
pub fn loop_for_line(report: &FileReport, line: usize) -> Option<&LoopReport> {
    report
        .loops
        .iter()
        .filter(|l| l.line == line)
        .min_by_key(|l| l.depth)
        .or_else(|| report.loop_at_line(line))
}

/// The region of the loop an offload of `line` means (see [`loop_for_line`]), outlined on
/// demand: any parallel loop, an inner one or one that is not hot included.
pub fn outline_at(
    src: &[u8],
    lang: Language,
    line: usize,
    headers: &Headers,
) -> Result<(LoopReport, OffloadRegion), OutlineError> {
    let tree = parse(src, lang, None).ok_or(OutlineError::NoLoop(line))?;
    let macros = file_macros(tree.root_node(), src, headers);
    outline_in_tree(&tree, src, &macros, line)
}

/// [`outline_at`] on a parsed tree with the file's macros: only the unit holding `line` is
/// analysed.
fn outline_in_tree(
    tree: &Tree,
    src: &[u8],
    macros: &Macros,
    line: usize,
) -> Result<(LoopReport, OffloadRegion), OutlineError> {
    let root = tree.root_node();
    // A line lies in one unit at most: only that one is analysed.
    let unit = units::units_of(root, src)
        .into_iter()
        .find(|u| line_of(*u) <= line && line <= end_line_of(*u))
        .ok_or(OutlineError::NoLoop(line))?;
    let mut scopes = Scopes::default();
    let infos = loop_infos(unit, src, macros, &mut scopes);
    let report = FileReport {
        loops: unit_reports(unit, &infos, src, macros, &mut scopes, true),
        has_syntax_errors: root.has_error(),
    };
    let target = loop_for_line(&report, line).ok_or(OutlineError::NoLoop(line))?;
    if !target.parallel {
        return Err(OutlineError::NotParallel {
            line: target.line,
            reason: target.reason.clone(),
        });
    }
    if let Some(region) = &target.region {
        return Ok((target.clone(), region.clone()));
    }
    // Reports and infos are both in document order.
    let idx = report
        .loops
        .iter()
        .position(|l| std::ptr::eq(l, target))
        .ok_or(OutlineError::NoLoop(line))?;
    let decls = scopes.visible_at(&infos[idx], src);
    let shared = UnitShared::of(unit, src, macros);
    outline_loop(idx, &infos, src, macros, &shared, &decls)
        .map(|region| (target.clone(), region))
        .map_err(|why| OutlineError::NotOutlined {
            line: target.line,
            kind: target.kind.as_str(),
            why,
        })
}

fn first_error_line(node: Node) -> Option<usize> {
    let mut line = None;
    for_each_descendant(node, |n| {
        if line.is_some() {
            return false;
        }
        if n.is_error() || n.is_missing() {
            line = Some(line_of(n));
            return false;
        }
        n.has_error()
    });
    line
}

fn in_gpu_function(func: Option<Node>, src: &[u8]) -> bool {
    let Some(func) = func else {
        return false;
    };
    let head_end = func
        .child_by_field_name("body")
        .map(|b| b.start_byte())
        .unwrap_or(func.end_byte());
    let head = String::from_utf8_lossy(&src[func.start_byte()..head_end]);
    head.contains("__global__") || head.contains("__device__")
}

/// Values known without running anything: integer macros and `const` integer locals/globals with a
/// literal initializer.
fn known_values(unit: Node, src: &[u8], macros: &Macros) -> HashMap<String, f64> {
    let mut known: HashMap<String, f64> = macros
        .values
        .iter()
        .map(|(k, v)| (k.clone(), *v as f64))
        .collect();
    for_each_descendant(unit, |n| {
        if n.kind() == "declaration" {
            let t = text(n, src);
            if t.trim_start().starts_with("const") || t.contains("constexpr") {
                let mut cursor = n.walk();
                let decls: Vec<Node> = n
                    .children_by_field_name("declarator", &mut cursor)
                    .collect();
                for d in decls {
                    if d.kind() != "init_declarator" {
                        continue;
                    }
                    let (Some(name), Some(value)) = (
                        d.child_by_field_name("declarator")
                            .and_then(|x| facts::declarator_name(x, src)),
                        d.child_by_field_name("value"),
                    ) else {
                        continue;
                    };
                    if let Some(v) = const_eval(value, src, macros) {
                        known.insert(name, v as f64);
                    }
                }
            }
            return false;
        }
        true
    });
    known
}

fn const_eval(node: Node, src: &[u8], macros: &Macros) -> Option<i64> {
    let node = syntax::unparen(node);
    match node.kind() {
        "number_literal" => syntax::parse_int_literal(&text(node, src)),
        "identifier" => macros.values.get(text(node, src).as_ref()).copied(),
        "binary_expression" => {
            let l = const_eval(node.child_by_field_name("left")?, src, macros)?;
            let r = const_eval(node.child_by_field_name("right")?, src, macros)?;
            match text(node.child_by_field_name("operator")?, src).as_ref() {
                "+" => l.checked_add(r),
                "-" => l.checked_sub(r),
                "*" => l.checked_mul(r),
                "/" => l.checked_div(r),
                "<<" if (0..62).contains(&r) => l.checked_mul(1 << r),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Counters of the loops around loop `idx`, innermost first.
fn enclosing_inductions(idx: usize, infos: &[LoopInfo]) -> Vec<Induction> {
    let mut out = Vec::new();
    let mut p = infos[idx].parent;
    while let Some(x) = p {
        out.extend(infos[x].facts.induction.clone());
        p = infos[x].parent;
    }
    out
}

/// The counters of a loop and of all loops nested in it, outermost first.
fn nest_inductions(idx: usize, infos: &[LoopInfo]) -> Vec<Induction> {
    let mut out: Vec<Induction> = Vec::new();
    if let Some(i) = &infos[idx].facts.induction {
        out.push(i.clone());
    }
    for (k, info) in infos.iter().enumerate() {
        if k != idx
            && is_descendant(k, idx, infos)
            && let Some(i) = &info.facts.induction
            && !out.iter().any(|o| o.var == i.var)
        {
            out.push(i.clone());
        }
    }
    out
}

/// The nest with the derived counters of its inner loops (`iOff`, `MAXATOMS*iBox + ii`) as
/// counters of their own, ranging over what their loop's counter reaches: the outer loop's
/// subscripts name them. The loop's own derived counters are already substituted in its facts.
fn with_derived_counters(
    idx: usize,
    infos: &[LoopInfo],
    mut nest: Vec<Induction>,
) -> Vec<Induction> {
    for (k, info) in infos.iter().enumerate() {
        let Some(ind) = &info.facts.induction else {
            continue;
        };
        if k == idx || !is_descendant(k, idx, infos) {
            continue;
        }
        for (name, p) in &info.facts.derived_counters {
            if nest.iter().any(|o| o.var == *name) {
                continue;
            }
            let own = std::slice::from_ref(ind);
            let (Some(lower), Some(upper)) = (outline::min_over(p, own), outline::max_over(p, own))
            else {
                continue;
            };
            nest.push(Induction {
                var: name.clone(),
                lower,
                upper,
                step: ind.step,
                span: ind.span.clone(),
                data_dependent: ind.data_dependent,
            });
        }
    }
    nest
}

fn is_descendant(k: usize, ancestor: usize, infos: &[LoopInfo]) -> bool {
    let mut p = infos[k].parent;
    while let Some(x) = p {
        if x == ancestor {
            return true;
        }
        p = infos[x].parent;
    }
    false
}

fn children(idx: usize, infos: &[LoopInfo]) -> Vec<usize> {
    (0..infos.len())
        .filter(|k| infos[*k].parent == Some(idx))
        .collect()
}

/// Iterations of the nest as a polynomial and as readable text (`(n - 2)*(m - 2)`): this loop's
/// count times its heaviest child's.
fn nest_iterations(idx: usize, infos: &[LoopInfo]) -> Option<(Poly, String)> {
    let ind = infos[idx].facts.induction.as_ref()?;
    if ind.step != 1 || ind.data_dependent {
        return None;
    }
    let mut best: Option<(Poly, String)> = None;
    for c in children(idx, infos) {
        // An inner loop of unknown count (a `while`) counts as one iteration.
        let Some(p) = nest_iterations(c, infos) else {
            continue;
        };
        if best.as_ref().is_none_or(|b| p.0.degree() > b.0.degree()) {
            best = Some(p);
        }
    }
    let own = ind.span.to_string();
    match best {
        Some((b, text)) => {
            let factor = |t: &str| {
                if t.contains(' ') {
                    format!("({t})")
                } else {
                    t.to_string()
                }
            };
            Some((
                ind.span.mul(&b)?,
                format!("{}*{}", factor(&own), factor(&text)),
            ))
        }
        None => Some((ind.span.clone(), own)),
    }
}

/// (iterations, operations) of the nest at the given sizes.
fn nest_work(idx: usize, infos: &[LoopInfo], values: &HashMap<String, f64>) -> Option<(f64, f64)> {
    let info = &infos[idx];
    let trip = info.facts.induction.as_ref()?.trip_value(values)?;
    let mut iters: f64 = 1.0;
    let mut ops = info.facts.own_ops;
    for c in children(idx, infos) {
        // An inner loop of unknown count (a `while`, data-dependent bounds) counts once.
        let Some((ci, co)) = nest_work(c, infos, values) else {
            ops += infos[c].facts.own_ops;
            continue;
        };
        iters = iters.max(ci);
        ops += co;
    }
    Some((trip * iters, trip * ops))
}

use poly::Poly;

/// (bytes touched, bytes transferred) for the arrays of a nest.
fn nest_bytes(
    info: &LoopInfo,
    nest: &[Induction],
    values: &HashMap<String, f64>,
    iterations: f64,
    decls: &[scope::VarDecl],
) -> (f64, f64) {
    let mut names: Vec<&str> = info.facts.arrays.iter().map(|r| r.array.as_str()).collect();
    names.sort();
    names.dedup();
    let mut bytes = 0.0;
    // What the generated wrapper moves: every array in, and every written one out as well (a
    // loop may write only part of an output, so outputs are copied in too).
    let mut transfer = 0.0;
    for name in names {
        let refs: Vec<_> = info
            .facts
            .arrays
            .iter()
            .filter(|r| r.array == name)
            .collect();
        let read = refs.iter().any(|r| r.read);
        let written = refs.iter().any(|r| r.write.is_some());
        let elem = decls
            .iter()
            .find(|d| d.name == name)
            .map(|d| d.elem_size())
            .unwrap_or(4.0);
        let mut elements: f64 = 1.0;
        let dims = refs.iter().map(|r| r.subs.len()).max().unwrap_or(1);
        for dim in 0..dims {
            let subs: Vec<&Poly> = refs
                .iter()
                .filter_map(|r| r.subs.get(dim)?.as_ref())
                .collect();
            let all_direct = refs
                .iter()
                .all(|r| r.subs.get(dim).is_some_and(Option::is_some));
            let ext = if all_direct {
                outline::extent_estimate(subs.into_iter(), nest).and_then(|e| {
                    let mut v = values.clone();
                    for s in e.vars() {
                        v.entry(s).or_insert(cost::OTHER_SYMBOL);
                    }
                    e.eval(&v)
                })
            } else {
                None
            };
            elements *= ext.unwrap_or(iterations).max(1.0);
        }
        let elements = elements.min(iterations.max(1.0) * 8.0);
        let factor = if read && written { 2.0 } else { 1.0 };
        bytes += elements * elem * factor;
        transfer += elements * elem * if written { 2.0 } else { 1.0 };
    }
    (bytes, transfer)
}

/// The estimated speedup and the work of loop `idx`'s nest; `None` when its iteration count is
/// not known.
fn nest_estimate(
    idx: usize,
    infos: &[LoopInfo],
    known: &HashMap<String, f64>,
    decls: &[scope::VarDecl],
) -> Option<(Estimate, WorkEstimate)> {
    let info = &infos[idx];
    let nest = nest_inductions(idx, infos);
    let (iter_poly, iter_text) = nest_iterations(idx, infos).unzip();
    let mut values = cost::assumed_values(iter_poly.as_ref(), known);
    let (iters, ops) = nest_work(idx, infos, &values)?;
    for v in iter_poly.iter().flat_map(|p| p.vars()) {
        values.entry(v).or_insert(cost::OTHER_SYMBOL);
    }
    let (bytes, transfer_bytes) = nest_bytes(info, &nest, &values, iters, decls);
    let text = iter_text.unwrap_or_else(|| "?".into());
    let nw = cost::NestWork {
        iterations_text: text.clone(),
        total_iterations: iters,
        ops,
        bytes,
        transfer_bytes,
    };
    let per = |x: f64| if iters > 0.0 { round3(x / iters) } else { 0.0 };
    Some((
        cost::estimate(&nw, info.verdict.kind, &values),
        WorkEstimate {
            iterations: text,
            ops_per_iteration: per(ops),
            bytes_per_iteration: per(bytes),
        },
    ))
}

fn report_for(
    idx: usize,
    infos: &[LoopInfo],
    src: &[u8],
    macros: &Macros,
    shared: &UnitShared,
    decls: &[scope::VarDecl],
    outline: bool,
) -> LoopReport {
    let known = &shared.known;
    let info = &infos[idx];
    let f = &info.facts;
    let kind = info.verdict.kind;
    let parallel = kind.is_parallel();
    let line = line_of(info.node);
    let end_line = end_line_of(info.node);
    let iter_poly = nest_iterations(idx, infos).map(|(p, _)| p);

    // Hot: large (or unknown) iteration count and a body that does something.
    let constant_iters = iter_poly
        .as_ref()
        .filter(|p| p.vars().iter().all(|v| known.contains_key(v)))
        .and_then(|p| p.eval(known));
    let in_gpu = in_gpu_function(info.site.func, src);
    let mut not_hot = None;
    if in_gpu {
        not_hot = Some(String::new());
    } else if let Some(n) = constant_iters
        && n < 64.0
    {
        not_hot = Some(format!(
            "only {n} iterations in total, not worth a GPU launch"
        ));
    }
    if not_hot.is_none() && f.trivial {
        not_hot = Some("its body does no work".into());
    }
    let hot = not_hot.is_none();

    let mut reason = info.verdict.reason.clone();
    let pragma = omp_pragma(info.site.prev_named, src);
    if let Some(p) = &pragma {
        if parallel {
            reason.push_str(&format!(" (`{p}` agrees)"));
        } else {
            reason.push_str(&format!(
                "; `{p}` claims otherwise, but a pragma is a hint, not a proof"
            ));
        }
    }
    if let Some(why) = not_hot.as_ref().filter(|w| !w.is_empty()) {
        reason.push_str(&format!("; not hot: {why}"));
    }

    let estimate = match parallel {
        true => nest_estimate(idx, infos, known, decls).map(|(e, _)| e),
        false => None,
    };

    // The region: for the outermost parallel loop of a hot nest.
    let parallel_ancestor = parallel_ancestor(idx, infos);
    let mut region = None;
    let mut region_note = None;
    if parallel && hot {
        if let Some(a) = parallel_ancestor {
            region_note = Some(format!(
                "part of the nest at line {}, which is outlined as a whole",
                line_of(infos[a].node)
            ));
        } else if outline {
            match outline_loop(idx, infos, src, macros, shared, decls) {
                Ok(r) => region = Some(r),
                Err(why) => region_note = Some(format!("not outlined: {why}")),
            }
        }
    }

    let function = info
        .site
        .func
        .and_then(|fun| scope::function_name(fun, src));
    let ind = f.induction.as_ref();
    LoopReport {
        line,
        end_line,
        depth: info.depth,
        kind,
        parallel,
        hot,
        reason,
        estimated_speedup: estimate.as_ref().map(|e| e.speedup),
        region,
        region_note,
        form: f.form,
        function,
        induction: ind.map(|i| i.var.clone()),
        lower: ind.map(|i| i.lower.to_string()),
        upper: ind.map(|i| i.upper.to_string()),
        trip_count: ind.map(Induction::trip_text),
        accesses: f
            .arrays
            .iter()
            .map(|r| AccessReport {
                array: r.array.clone(),
                subscripts: r
                    .subs
                    .iter()
                    .map(|s| {
                        s.as_ref()
                            .map(|p| p.to_string())
                            .unwrap_or_else(|| "?".into())
                    })
                    .collect(),
                read: r.read,
                write: r.write.is_some(),
                line: r.line,
            })
            .collect(),
        scalars_written: {
            let mut s: Vec<String> = f.scalar_writes.iter().map(|w| w.name.clone()).collect();
            s.dedup();
            s
        },
        calls: {
            let mut c: Vec<String> = f.calls.iter().map(|(n, _)| n.clone()).collect();
            c.dedup();
            c
        },
        pragma,
        estimate,
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// A `#pragma omp ...` line right before the loop.
fn omp_pragma(prev: Option<Node>, src: &[u8]) -> Option<String> {
    let p = prev?;
    let t = text(p, src);
    let t = t.trim();
    ((p.kind() == "preproc_call" || t.starts_with("#pragma")) && t.contains("omp"))
        .then(|| t.split_whitespace().collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests;
