//! Incremental analysis: a file is analysed unit by unit (a top-level function, or a loop outside
//! any function), and each unit's reports are cached under what they depend on — the unit's text
//! (its whole lines), a `#pragma` right before it, and a fingerprint of the file's context (its
//! macros, types, pure helpers, classes and top-level declarations, with what its headers add).
//! Not under its position: a unit that only moved (lines added or removed above it) is re-based
//! (its line numbers shifted), not re-analysed.
//!
//! Outlining a region (`outline.rs`) is the dearest part of a unit's analysis and only the code
//! action needs the region itself; [`Outlining`] says how much of it a pass does.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use tree_sitter::{Node, Tree};

use super::syntax::{Macros, holds_file_level_items, is_loop};
use super::{FileReport, Headers, LoopReport, analyze_unit, file_macros};

/// How much outlining a unit's analysis does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Outlining {
    /// Verdicts only: no region and no "not outlined" note (the diagnostics' first pass).
    None,
    /// Regions are built but only why a loop cannot be outlined is kept (`region_note`); the
    /// region itself is dropped (the code action outlines its loop again on demand).
    Notes,
    /// Regions and notes, as `analyze_source` reports them.
    Full,
}

/// The reports of one unit as analysed at `row`.
#[derive(Debug)]
pub(crate) struct Unit {
    /// Distinct for every `Unit` made (so a cache of what was derived from one can trust it).
    id: u64,
    /// 0-based row of the unit's first line when it was analysed.
    row: usize,
    /// 1-based first and last lines of the unit when it was analysed.
    lines: (usize, usize),
    pub reports: Vec<LoopReport>,
    pub outlining: Outlining,
}

static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Unit {
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The same reports for the unit moved to `row`: lines shifted, line numbers in reasons and
    /// notes shifted. `None` where that cannot be done faithfully (a region names its line).
    fn moved_to(&self, row: usize) -> Option<Unit> {
        if self.reports.iter().any(|r| r.region.is_some()) {
            return None;
        }
        // A line a report names outside the unit (a syntax error found just past a loop at the
        // file's top level) may or may not move with it: such a unit is analysed again.
        let (first, last) = self.lines;
        let outside =
            |t: &str| shift_line_refs(t, first, last, 1) != shift_line_refs(t, 0, usize::MAX, 1);
        if self
            .reports
            .iter()
            .any(|r| outside(&r.reason) || r.region_note.as_deref().is_some_and(outside))
        {
            return None;
        }
        let delta = row as i64 - self.row as i64;
        let shift = |l: usize| (l as i64 + delta).max(0) as usize;
        let reports = self
            .reports
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r.line = shift(r.line);
                r.end_line = shift(r.end_line);
                for a in &mut r.accesses {
                    a.line = shift(a.line);
                }
                r.reason = shift_line_refs(&r.reason, first, last, delta);
                r.region_note = r
                    .region_note
                    .map(|n| shift_line_refs(&n, first, last, delta));
                r
            })
            .collect();
        Some(Unit {
            id: next_id(),
            row,
            lines: (shift(first), shift(last)),
            reports,
            outlining: self.outlining,
        })
    }
}

/// `text` with every "line N" whose N lies in `first..=last` moved by `delta`.
pub(crate) fn shift_line_refs(text: &str, first: usize, last: usize, delta: i64) -> String {
    const WORD: &str = "line ";
    if delta == 0 || !text.contains(WORD) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(at) = rest.find(WORD) {
        let before_ok = rest[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric() && c != '_');
        let after = &rest[at + WORD.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        out.push_str(&rest[..at + WORD.len()]);
        rest = after;
        if before_ok
            && digits > 0
            && let Ok(n) = after[..digits].parse::<usize>()
            && (first..=last).contains(&n)
        {
            out.push_str(&((n as i64 + delta).max(0)).to_string());
            rest = &after[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// Units by key, with the key of the context they were analysed in.
#[derive(Debug, Default)]
pub(crate) struct UnitCache {
    map: HashMap<u64, Arc<Unit>>,
}

/// A unit of the current tree: its cache key, where it starts now, and its reports.
#[derive(Debug, Clone)]
pub(crate) struct Placed {
    pub key: u64,
    /// The unit node's first byte in the current text (two units may start on one row).
    pub start_byte: usize,
    pub unit: Arc<Unit>,
}

/// The reports of a tree, unit by unit in document order (so already sorted by line).
#[derive(Debug, Default)]
pub(crate) struct UnitReports {
    /// Each unit with loops.
    pub units: Vec<Placed>,
    pub has_syntax_errors: bool,
}

impl UnitReports {
    pub fn to_file_report(&self) -> FileReport {
        FileReport {
            loops: self
                .units
                .iter()
                .flat_map(|p| p.unit.reports.iter().cloned())
                .collect(),
            has_syntax_errors: self.has_syntax_errors,
        }
    }

    /// Without copying the reports when nothing else holds them.
    pub fn into_file_report(self) -> FileReport {
        let mut loops = Vec::new();
        for p in self.units {
            match Arc::try_unwrap(p.unit) {
                Ok(v) => loops.extend(v.reports),
                Err(shared) => loops.extend(shared.reports.iter().cloned()),
            }
        }
        FileReport {
            loops,
            has_syntax_errors: self.has_syntax_errors,
        }
    }

    /// Units not outlined to at least `level`.
    pub fn pending(&self, level: Outlining) -> usize {
        self.units
            .iter()
            .filter(|p| p.unit.outlining < level)
            .count()
    }
}

/// What every unit's verdicts and regions depend on besides its own text: the file's macros,
/// types, typedefs, pure helpers and classes (headers included), and its top-level declarations
/// and type definitions (the globals a region passes as parameters, the structs it fills).
fn context_key(root: Node, src: &[u8], macros: &Macros) -> u64 {
    fn sorted<K: Ord + std::fmt::Debug, V: std::fmt::Debug>(
        m: impl Iterator<Item = (K, V)>,
    ) -> Vec<String> {
        let mut v: Vec<(K, V)> = m.collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v.iter().map(|e| format!("{e:?}")).collect()
    }
    let mut h = key_hasher();
    sorted(macros.values.iter()).hash(&mut h);
    sorted(macros.definitions.iter()).hash(&mut h);
    macros.pure_functions.hash(&mut h);
    macros.helpers.hash(&mut h);
    let mut types: Vec<&String> = macros.types.iter().collect();
    types.sort();
    types.hash(&mut h);
    sorted(macros.type_aliases.iter()).hash(&mut h);
    sorted(macros.function_polys.iter()).hash(&mut h);
    sorted(macros.typedefs.iter()).hash(&mut h);
    let mut classes: Vec<_> = macros.classes.iter().collect();
    classes.sort_by(|a, b| a.0.cmp(b.0));
    for (name, info) in classes {
        name.hash(&mut h);
        sorted(info.methods.iter()).hash(&mut h);
        sorted(info.typedefs.iter()).hash(&mut h);
    }
    // Top-level declarations (also inside preprocessor blocks), as `scope::file_globals` reads them.
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "translation_unit" | "preproc_if" | "preproc_ifdef" | "preproc_else"
            | "preproc_elif" | "preproc_elifdef" => {
                let mut cursor = n.walk();
                stack.extend(n.named_children(&mut cursor));
            }
            // A function template is a unit of its own; a class template's body gives the class
            // model (`ClassInfo`: its accessors, whether it is a flat array), hashed below.
            "template_declaration" if has_function_child(n) => {}
            // Text the parser could not place still gives records and types to the context
            // (`file_macros` walks the whole tree): a struct inside an ERROR node counts.
            "namespace_definition" | "declaration_list" | "linkage_specification" | "ERROR" => {
                let mut cursor = n.walk();
                stack.extend(n.named_children(&mut cursor));
            }
            // Units have keys of their own, and comments give nothing.
            "function_definition" | "comment" => {}
            k if is_loop(k) => {}
            // Anything else the context may read: globals, the types whose fields a region's
            // harness fills, class templates, what the parser could make nothing of. A change
            // of it is a change of the context.
            _ => src[n.byte_range()].hash(&mut h),
        }
    }
    h.finish()
}

/// The units a file is analysed in: top-level functions (templates with their header) and loops
/// outside any function.
pub(crate) fn units_of<'t>(root: Node<'t>, src: &[u8]) -> Vec<Node<'t>> {
    unit_sites(root, src).into_iter().map(|s| s.node).collect()
}

/// A unit with what its key and the kept context (`edits_keep_the_context`) need to know of
/// where it stands.
#[derive(Clone, Copy)]
struct Site<'t> {
    node: Node<'t>,
    /// The named node right before it (a `#pragma` or a comment that its key includes).
    previous: Option<Node<'t>>,
    /// Directly in the file, a namespace, `extern "C"` or a preprocessor block: not in a class
    /// (whose methods' bodies the context reads).
    at_file_level: bool,
    /// A hash of the parameter lists of the class templates around it, which its analysis reads
    /// (a member of `template <typename T> struct S` names `T`) but its own text does not hold.
    templates: u64,
}

/// [`units_of`] with their [`Site`]s, in one walk: tree-sitter finds a previous sibling by
/// walking the parent's children from the first, which is quadratic over a file's hundreds of
/// top-level functions.
fn unit_sites<'t>(root: Node<'t>, src: &[u8]) -> Vec<Site<'t>> {
    let mut units = Vec::new();
    let mut cursor = root.walk();
    // Per depth of the walk: the last named node seen, whether that depth is at file level, and
    // the enclosing templates' parameters.
    let mut previous: Vec<(Option<Node>, bool, u64)> = vec![(None, false, 0)];
    'walk: loop {
        let n = cursor.node();
        let is_unit = (n.kind() == "template_declaration" && has_function_child(n))
            || n.kind() == "function_definition"
            || is_loop(n.kind());
        if is_unit {
            let &(before, at_file_level, templates) = previous.last().expect("a depth");
            units.push(Site {
                node: n,
                previous: before,
                at_file_level,
                templates,
            });
        }
        if !is_unit && cursor.goto_first_child() {
            let file_level = holds_file_level_items(n.kind());
            let mut templates = previous.last().map_or(0, |p| p.2);
            if n.kind() == "template_declaration"
                && let Some(params) = n.child_by_field_name("parameters")
            {
                let mut h = key_hasher();
                (templates, &src[params.byte_range()]).hash(&mut h);
                templates = h.finish();
            }
            previous.push((None, file_level, templates));
            continue;
        }
        loop {
            let current = cursor.node();
            if current == root {
                break 'walk;
            }
            if current.is_named()
                && let Some(last) = previous.last_mut()
            {
                last.0 = Some(current);
            }
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
            previous.pop();
        }
    }
    units
}

/// Byte ranges of the [`inert_body`]s of a tree, in document order.
fn inert_bodies(root: Node, units: &[Site], src: &[u8]) -> Vec<(usize, usize)> {
    let fields = FunctionFields::of(root);
    units
        .iter()
        .filter_map(|s| inert_body(s, &fields, src))
        .map(|b| (b.start_byte(), b.end_byte()))
        .collect()
}

/// True when `edits` (each in the coordinates the previous ones left) all fell inside the
/// braces of inert bodies, which are inert still: the text the file's context is read from
/// (`file_macros`: whole-tree walks for macros, records, classes and helpers, most of a
/// keystroke's cost) is then as it was. `inert` follows the edits.
fn edits_keep_the_context(
    inert: &mut [(usize, usize)],
    edits: &[TextEdit],
    root: Node,
    src: &[u8],
) -> bool {
    if edits.is_empty() {
        return false;
    }
    let mut touched = Vec::new();
    for e in edits {
        let i = inert.partition_point(|b| b.1 <= e.start);
        let Some(body) = inert.get(i) else {
            return false;
        };
        if !(body.0 < e.start && e.old_end < body.1) {
            return false;
        }
        let delta = e.new_end as isize - e.old_end as isize;
        let shift = |x: usize| x.saturating_add_signed(delta);
        inert[i].1 = shift(inert[i].1);
        for b in &mut inert[i + 1..] {
            *b = (shift(b.0), shift(b.1));
        }
        touched.push(i);
    }
    let fields = FunctionFields::of(root);
    touched.iter().all(|&i| {
        let (start, end) = inert[i];
        // Still a whole body of the same function (a typed `}` or `{` would move its end).
        root.descendant_for_byte_range(start, end)
            .filter(|b| b.start_byte() == start && b.end_byte() == end)
            .and_then(|b| b.parent())
            .is_some_and(|f| {
                let site = Site {
                    node: f,
                    previous: None,
                    at_file_level: true,
                    templates: 0,
                };
                inert_body(&site, &fields, src).is_some_and(|b| b.byte_range() == (start..end))
            })
    })
}

/// One replacement of the text: bytes `start..old_end` became `start..new_end`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TextEdit {
    pub start: usize,
    pub old_end: usize,
    pub new_end: usize,
}

/// The body of a `void` free function that declares nothing the context collects: no macro, no
/// type, no record, class or enum, no alias. Helpers return a value; methods are read by the
/// class model; a local `struct` or `typedef` is collected like a global one.
fn inert_body<'t>(site: &Site<'t>, fields: &FunctionFields, src: &[u8]) -> Option<Node<'t>> {
    let f = site.node;
    if !site.at_file_level || f.kind() != "function_definition" {
        return None;
    }
    let field = |n: Node<'t>, id: Option<u16>| id.and_then(|id| n.child_by_field_id(id));
    let ret = field(f, fields.ty)?;
    if &src[ret.byte_range()] != b"void" {
        return None;
    }
    let declarator = field(f, fields.declarator)?;
    let name = field(declarator, fields.declarator)?;
    if declarator.kind() != "function_declarator" || name.kind() != "identifier" {
        return None;
    }
    let body = field(f, fields.body)?;
    let text = &src[body.byte_range()];
    let declares = memchr::memchr(b'#', text).is_some() || has_declaring_word(text);
    (!declares).then_some(body)
}

/// Field ids of a function definition, looked up once: by name, tree-sitter compares the name
/// with every field's on each call.
struct FunctionFields {
    ty: Option<u16>,
    declarator: Option<u16>,
    body: Option<u16>,
}

impl FunctionFields {
    fn of(node: Node) -> Self {
        let lang = node.language();
        let id = |name: &str| lang.field_id_for_name(name).map(|id| id.get());
        FunctionFields {
            ty: id("type"),
            declarator: id("declarator"),
            body: id("body"),
        }
    }
}

/// True when `text` holds, as a whole identifier, a word that starts a declaration the context
/// collects. One pass for all the words (a body is scanned on every keystroke).
fn has_declaring_word(text: &[u8]) -> bool {
    static WORDS: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    let words = WORDS.get_or_init(|| {
        aho_corasick::AhoCorasick::new([
            "typedef", "struct", "class", "union", "enum", "using", "template",
        ])
        .expect("a fixed set of words")
    });
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    words.find_iter(text).any(|m| {
        (m.start() == 0 || !is_ident(text[m.start() - 1]))
            && text.get(m.end()).is_none_or(|b| !is_ident(*b))
    })
}

fn has_function_child(n: Node) -> bool {
    let mut cursor = n.walk();
    n.named_children(&mut cursor)
        .any(|c| c.kind() == "function_definition")
}

/// The hasher of the in-memory cache keys: every refresh hashes the whole file's text, which
/// SipHash (the standard one) makes a measurable part of a keystroke.
fn key_hasher() -> impl Hasher {
    use std::hash::BuildHasher;
    foldhash::quality::FixedState::with_seed(0).build_hasher()
}

/// The key of a unit: its whole lines (what a diagnostic on them shows), a pragma right before
/// it, and the context.
fn unit_key(site: &Site, src: &[u8], context: u64) -> u64 {
    let unit = site.node;
    let start = src[..unit.start_byte()]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let end = src[unit.end_byte()..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(src.len(), |i| unit.end_byte() + i);
    let mut h = key_hasher();
    src[start..end].hash(&mut h);
    // Two units on one line differ by where they stand on it.
    (
        unit.start_byte() - start,
        unit.end_byte() - unit.start_byte(),
    )
        .hash(&mut h);
    if let Some(p) = site.previous
        && matches!(p.kind(), "preproc_call" | "comment")
    {
        src[p.byte_range()].hash(&mut h);
    }
    site.templates.hash(&mut h);
    context.hash(&mut h);
    h.finish()
}

/// How [`analyze_units`] outlines the units it has to analyse.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plan {
    /// The outlining every unit gets when few units need analysing.
    pub level: Outlining,
    /// Above this many units to analyse, they get [`Outlining::None`] and are left pending.
    pub outline_at_most: usize,
}

impl Plan {
    pub const FULL: Plan = Plan {
        level: Outlining::Full,
        outline_at_most: usize::MAX,
    };
}

/// What [`analyze_units`] keeps between calls: the cache and the file's context.
#[derive(Default)]
pub(crate) struct Analysed {
    pub cache: UnitCache,
    pub units: UnitReports,
    pub macros: Option<Arc<Macros>>,
    /// The inert bodies of the text `macros` were read from, kept up to date by the edits
    /// inside them.
    pub inert: Vec<(usize, usize)>,
    /// How many times the context was read (for tests).
    pub context_reads: usize,
}

/// Analyses a parsed tree; units whose key is in the cache are reused (moved where they moved),
/// and the cache is left holding exactly the units of this tree. `edits` made the text from the
/// one `state` was analysed at (none: read everything again).
pub(crate) fn analyze_units(
    tree: &Tree,
    src: &[u8],
    headers: &Headers,
    state: &mut Analysed,
    plan: Plan,
    edits: &[TextEdit],
) {
    let root = tree.root_node();
    let sites = unit_sites(root, src);
    let macros = match &state.macros {
        Some(m) if edits_keep_the_context(&mut state.inert, edits, root, src) => m.clone(),
        _ => {
            state.context_reads += 1;
            state.inert = inert_bodies(root, &sites, src);
            Arc::new(file_macros(root, src, headers))
        }
    };
    let context = context_key(root, src, &macros);
    let keyed: Vec<(Node, u64)> = sites
        .into_iter()
        .map(|s| (s.node, unit_key(&s, src, context)))
        .collect();
    let old = std::mem::take(&mut state.cache.map);
    // What can be reused, and what has to be analysed.
    let reuse = |key: u64, row: usize, level: Outlining| -> Option<Arc<Unit>> {
        let u = old.get(&key)?;
        if u.outlining < level {
            return None;
        }
        if u.row == row {
            return Some(u.clone());
        }
        u.moved_to(row).map(Arc::new)
    };
    // A full analysis reuses only full analyses (whose regions cannot move: a region names its
    // line, so a moved one is analysed again); a lazy one reuses anything, outlined or not (the
    // units still to outline are outlined by `outline_pending`).
    let need = match plan.level {
        Outlining::Full => Outlining::Full,
        _ => Outlining::None,
    };
    let mut found: Vec<Option<Arc<Unit>>> = keyed
        .iter()
        .map(|(u, key)| reuse(*key, u.start_position().row, need))
        .collect();
    let todo: Vec<usize> = (0..keyed.len()).filter(|i| found[*i].is_none()).collect();
    let level = if todo.len() <= plan.outline_at_most {
        plan.level
    } else {
        Outlining::None
    };
    let fresh = analyse_all(&todo, &keyed, src, &macros, level);
    for (i, unit) in todo.into_iter().zip(fresh) {
        found[i] = Some(Arc::new(unit));
    }
    let mut map = HashMap::new();
    let mut out = Vec::new();
    for ((node, key), unit) in keyed.iter().zip(found) {
        let unit = unit.expect("every unit analysed or reused");
        if !unit.reports.is_empty() {
            out.push(Placed {
                key: *key,
                start_byte: node.start_byte(),
                unit: unit.clone(),
            });
        }
        map.insert(*key, unit);
    }
    state.cache.map = map;
    state.units = UnitReports {
        units: out,
        has_syntax_errors: root.has_error(),
    };
    state.macros = Some(macros);
}

/// Outlines up to `max` units of `state` that are not outlined to `level` (first those whose
/// lines are nearest `near`, a 1-based line, if given); returns how many remain and whether any
/// report changed (a parallel loop that cannot be outlined got its note).
pub(crate) fn outline_pending(
    tree: &Tree,
    src: &[u8],
    state: &mut Analysed,
    level: Outlining,
    max: usize,
    near: Option<usize>,
) -> (usize, bool) {
    let Some(macros) = state.macros.clone() else {
        return (0, false);
    };
    let mut pending: Vec<usize> = (0..state.units.units.len())
        .filter(|i| state.units.units[*i].unit.outlining < level)
        .collect();
    if let Some(line) = near {
        pending.sort_by_key(|i| {
            let u = &state.units.units[*i].unit;
            if u.lines.0 <= line && line <= u.lines.1 {
                0
            } else {
                u.lines.0.abs_diff(line)
            }
        });
    }
    let rest = pending.len().saturating_sub(max);
    pending.truncate(max);
    if pending.is_empty() {
        return (rest, false);
    }
    // The units of the tree by their first byte (the tree and the reports are of the same text;
    // a row may hold two units).
    let by_start: HashMap<usize, Node> = units_of(tree.root_node(), src)
        .into_iter()
        .map(|u| (u.start_byte(), u))
        .collect();
    let mut changed = false;
    for i in pending {
        let placed = &state.units.units[i];
        let Some(node) = by_start.get(&placed.start_byte).copied() else {
            continue;
        };
        let mut fresh = analyse_one(node, src, &macros, level);
        let same = fresh.reports == placed.unit.reports;
        if same {
            // Same reports, same place: what was built from the unit (the editor's diagnostics,
            // by unit id) still holds, and is not built again at the next keystroke.
            fresh.id = placed.unit.id;
        }
        changed |= !same;
        let fresh = Arc::new(fresh);
        state.cache.map.insert(placed.key, fresh.clone());
        state.units.units[i].unit = fresh;
    }
    (rest, changed)
}

fn analyse_one(unit: Node, src: &[u8], macros: &Macros, level: Outlining) -> Unit {
    let mut reports = analyze_unit(unit, src, macros, level);
    if level == Outlining::Notes {
        for r in &mut reports {
            r.region = None;
        }
    }
    let first = unit.start_position().row + 1;
    Unit {
        id: next_id(),
        row: unit.start_position().row,
        lines: (first, super::syntax::end_line_of(unit).max(first)),
        reports,
        outlining: level,
    }
}

/// Analyses the units `todo` (indices into `keyed`), on as many threads as the machine has when
/// there are many.
fn analyse_all(
    todo: &[usize],
    keyed: &[(Node, u64)],
    src: &[u8],
    macros: &Macros,
    level: Outlining,
) -> Vec<Unit> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(8);
    if threads < 2 || todo.len() < 32 {
        return todo
            .iter()
            .map(|i| analyse_one(keyed[*i].0, src, macros, level))
            .collect();
    }
    // Contiguous chunks, balanced by bytes (the work is roughly proportional to the text).
    let total: usize = todo.iter().map(|i| keyed[*i].0.byte_range().len()).sum();
    let per = total.div_ceil(threads).max(1);
    let mut chunks: Vec<Vec<usize>> = vec![Vec::new()];
    let mut acc = 0;
    for &i in todo {
        if acc >= per && chunks.len() < threads {
            chunks.push(Vec::new());
            acc = 0;
        }
        acc += keyed[i].0.byte_range().len();
        chunks.last_mut().expect("a chunk").push(i);
    }
    let analysed: Vec<std::thread::Result<Vec<Unit>>> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|i| analyse_one(keyed[*i].0, src, macros, level))
                        .collect::<Vec<Unit>>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join()).collect()
    });
    let mut out = Vec::with_capacity(todo.len());
    for r in analysed {
        match r {
            Ok(units) => out.extend(units),
            // A panic in a worker is the analysis's bug; re-raise it on the caller's thread.
            Err(p) => std::panic::resume_unwind(p),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Document, Language};

    fn without_regions(mut r: FileReport) -> FileReport {
        for l in &mut r.loops {
            l.region = None;
        }
        r
    }

    /// Enough functions that a lazy document leaves them to `outline_pending`.
    fn many_functions(n: usize) -> String {
        (0..n)
            .map(|k| {
                format!(
                    "void f{k}(int n, const float* x, float* y) {{\n    for (int i = 0; i < n; ++i) {{\n        y[i] = 2.0f * x[i];\n    }}\n}}\n\n"
                )
            })
            .collect()
    }

    /// Found by `examples/fuzz_analysis`: two units on one row (a function, then a loop outside
    /// any function) — the background pass outlined the first one in place of the second.
    #[test]
    fn background_outlining_keeps_two_units_on_one_row_apart() {
        let src = format!(
            "{}void g(int n, float* a) {{ for (int i = 0; i < n; ++i) a[i] = 0; }} for (int j = 0; j < 9; ++j) h(j);\n",
            many_functions(20)
        );
        let mut doc = Document::lazy(&src, Language::Cpp, Headers::default());
        assert!(doc.pending_outlines() > 0);
        while doc.outline_pending(3, None).0 > 0 {}
        assert_eq!(
            without_regions(doc.report()),
            without_regions(doc.report_from_scratch())
        );
    }

    /// Found by `examples/fuzz_analysis`: a struct's fields changed while the function using it
    /// did not, and its cached note (why its loop has no region) was kept.
    #[test]
    fn a_changed_struct_invalidates_the_functions_that_use_it() {
        let src = format!(
            "struct Particle {{ float x; float v; }};\n{}void move(int n, Particle* p) {{\n    for (int i = 0; i < n; ++i) p[i].x += p[i].v;\n}}\n",
            many_functions(20)
        );
        let mut doc = Document::lazy(&src, Language::Cpp, Headers::default());
        while doc.outline_pending(64, None).0 > 0 {}
        let at = doc.text().find("float v;").unwrap();
        doc.edit(at, at + "float".len(), "jx");
        while doc.outline_pending(64, None).0 > 0 {}
        assert_eq!(
            without_regions(doc.report()),
            without_regions(doc.report_from_scratch())
        );
    }

    /// Three inputs of the fuzzer (testdata/fuzz/README.md) with the edits that made the cached
    /// analysis disagree with the same tree analysed from scratch.
    #[test]
    fn fuzzed_edits_agree_with_a_fresh_analysis() {
        type Edit = (usize, usize, &'static str);
        let cases: [(&str, &[Edit]); 3] = [
            (
                "struct-in-error.cpp.txt",
                &[(502, 513, "\n"), (2618, 2628, ""), (1577, 1583, "")],
            ),
            ("error-past-loop.cpp.txt", &[(665, 672, "\n")]),
            (
                "class-template-edit.cpp.txt",
                &[
                    (2865, 2870, ""),
                    (405, 416, "a[i - 1]"),
                    (1826, 1829, "struct S { int a; float b[4]; };\n"),
                ],
            ),
        ];
        for (name, edits) in cases {
            // Mutants hold bytes that are no UTF-8, read as the fuzzer reads them.
            let bytes = std::fs::read(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("src/analysis/testdata/fuzz")
                    .join(name),
            )
            .unwrap();
            let text = String::from_utf8_lossy(&bytes);
            let mut doc = Document::lazy(&text, Language::Cpp, Headers::default());
            for &(start, end, with) in edits {
                doc.edit(start, end, with);
            }
            while doc.outline_pending(8, None).0 > 0 {}
            assert_eq!(
                without_regions(doc.report()),
                without_regions(doc.report_from_scratch()),
                "{name}"
            );
        }
    }

    /// Lines added above functions move their reports (reasons included) without re-analysis,
    /// and the result is what a fresh analysis says.
    #[test]
    fn moved_functions_are_rebased_like_a_fresh_analysis() {
        let base = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("src/analysis/testdata/kinds.cpp"),
        )
        .unwrap();
        let src = format!("{base}{}", many_functions(20));
        let mut doc = Document::lazy(&src, Language::Cpp, Headers::default());
        while doc.outline_pending(64, None).0 > 0 {}
        let ids: Vec<u64> = doc.units().map(|u| u.id).collect();
        doc.edit(0, 0, "// one\n// two\n\n");
        assert_eq!(doc.pending_outlines(), 0, "moved units keep their notes");
        assert!(doc.units().zip(&ids).all(|(u, old)| u.id != *old));
        assert_eq!(
            without_regions(doc.report()),
            without_regions(doc.report_from_scratch())
        );
        // And back up again (a stray `one` at the top: text the context reads, so the notes are
        // found again).
        doc.edit(0, 3, "");
        while doc.outline_pending(64, None).0 > 0 {}
        assert_eq!(
            without_regions(doc.report()),
            without_regions(doc.report_from_scratch())
        );
    }

    #[test]
    fn line_references_in_the_unit_move_and_others_do_not() {
        assert_eq!(
            shift_line_refs("reads a (line 12), written line 14; inline 13", 10, 20, 3),
            "reads a (line 15), written line 17; inline 13"
        );
        assert_eq!(
            shift_line_refs("at line 9 and line 21", 10, 20, 5),
            "at line 9 and line 21"
        );
        assert_eq!(shift_line_refs("no lines here", 1, 9, 2), "no lines here");
        assert_eq!(shift_line_refs("line 5", 1, 9, -4), "line 1");
    }

    #[test]
    fn each_unit_comes_with_the_named_node_before_it() {
        let src = "#include <cmath>\n#pragma omp parallel for\nvoid a(int n, float* y) { for (int i = 0; i < n; ++i) y[i] = 0; }\n\
namespace ns {\n// scale\nvoid b(int n, float* y) { for (int i = 0; i < n; ++i) y[i] *= 2; }\n\
template <typename T> void c(int n, T* y) { for (int i = 0; i < n; ++i) y[i] = 1; }\n}\n\
#ifdef FAST\nvoid d(int n, float* y) { while (n--) y[n] = 0; }\n#endif\n\
for (int i = 0; i < 3; ++i) {}\nstruct S { int x; };\nvoid e() {}\n";
        let tree = crate::analysis::parse(src.as_bytes(), crate::analysis::Language::Cpp, None)
            .expect("parsed");
        let found = unit_sites(tree.root_node(), src.as_bytes());
        assert_eq!(found.len(), 6);
        for s in &found {
            assert_eq!(s.previous, s.node.prev_named_sibling(), "{}", s.node.kind());
        }
        let kinds: Vec<Option<&str>> = found.iter().map(|s| s.previous.map(|p| p.kind())).collect();
        assert_eq!(kinds[0], Some("preproc_call"));
        assert_eq!(kinds[1], Some("comment"));
    }

    /// A keystroke inside a `void` function's body keeps the file's context; a body that starts
    /// to declare what the context collects (a macro, a typedef, a record) has it read again,
    /// and the incremental reports stay those of a fresh analysis.
    #[test]
    fn the_context_is_read_again_only_when_a_body_can_add_to_it() {
        let src = "void setup(int n, float* y) {\n    for (int i = 0; i < n; ++i) y[i] = 0;\n}\n\
void use(float* y, int* c) {\n    for (int i = 0; i < 64 * N; ++i) y[i] = (real)c[i];\n}\n";
        let mut doc = Document::new(src, Language::Cpp);
        let reads = doc.context_reads();
        let inside = src.find("y[i] = 0").unwrap();
        doc.edit(inside, inside, " ");
        doc.edit(inside, inside + 1, "");
        assert_eq!(doc.context_reads(), reads, "keystrokes in a body");
        // Between functions: read again.
        let between = src.find("}\n").unwrap() + 2;
        doc.edit(between, between, "\n");
        assert_eq!(doc.context_reads(), reads + 1);
        doc.edit(between, between + 1, "");
        // A brace typed in a body: whether the parser's recovery keeps the body whole or not,
        // the reports are a fresh analysis's.
        doc.edit(inside, inside, "}");
        assert_eq!(
            without_regions(doc.report()),
            without_regions(doc.report_from_scratch())
        );
        doc.edit(inside, inside + 1, "");
        for added in [
            "#define N 2\n",
            "typedef float real;\n",
            "struct real { float v; };\n",
            "enum { N = 4 };\n",
        ] {
            let reads = doc.context_reads();
            let at = doc.text().find("    for").unwrap();
            doc.edit(at, at, added);
            assert_eq!(doc.context_reads(), reads + 1, "{added}");
            assert_eq!(
                without_regions(doc.report()),
                without_regions(doc.report_from_scratch()),
                "{added}"
            );
            doc.edit(at, at + added.len(), "");
            assert_eq!(doc.context_reads(), reads + 2, "{added} removed");
            assert_eq!(
                without_regions(doc.report()),
                without_regions(doc.report_from_scratch())
            );
        }
        // A helper (it returns a value) is read by the context whatever its body holds.
        let mut doc = Document::new(
            "float twice(float x) {\n    return 2 * x;\n}\n",
            Language::Cpp,
        );
        let reads = doc.context_reads();
        doc.edit(24, 24, " ");
        assert_eq!(doc.context_reads(), reads + 1);
    }

    /// A member of a class template reads the template's parameters, which are not in its own
    /// text: editing them analyses it again (found by the fuzzer: a stale note named a parameter
    /// the text no longer had).
    #[test]
    fn editing_a_class_template_s_parameters_analyses_its_members_again() {
        let src = "template <typename T, typename W = T>\nstruct S {\n    void f(int n, float* y) {\n        for (int i = 0; i < n; ++i) y[i] = 0;\n    }\n};\n";
        let mut doc = Document::lazy(src, Language::Cpp, crate::analysis::Headers::default());
        let at = src.find("W = T").unwrap();
        doc.edit(at, at + 1, "V");
        let strip = |r: FileReport| without_regions(r);
        assert_eq!(strip(doc.report()), strip(doc.report_from_scratch()));
        let ids: Vec<u64> = doc.units().map(|u| u.id).collect();
        doc.edit(at, at + 1, "W");
        assert!(doc.units().zip(&ids).all(|(u, old)| u.id != *old));
        assert_eq!(strip(doc.report()), strip(doc.report_from_scratch()));
    }
}
