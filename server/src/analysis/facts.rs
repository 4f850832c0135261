//! What one loop does, read off its syntax tree: counter and bounds, array accesses with their
//! subscripts, scalars written, calls made, and everything that forces serial execution.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use super::macro_expansion::{Expansions, key_of};
use super::poly::Poly;
use super::syntax::{
    Macros, for_each_descendant, line_of, mentions_word, parse_int_literal, subscript_index, text,
    unparen,
};

/// Expressions nested deeper than this are not analysed (the loop is then called sequential):
/// generated or hostile input must not overflow the stack.
const MAX_EXPR_DEPTH: usize = 256;

/// Math functions that read only their arguments and write nothing.
pub const PURE_FUNCTIONS: &[&str] = &[
    "sqrt", "sqrtf", "cbrt", "cbrtf", "fabs", "fabsf", "abs", "labs", "exp", "expf", "exp2",
    "exp2f", "expm1", "log", "logf", "log2", "log2f", "log10", "log10f", "log1p", "pow", "powf",
    "sin", "sinf", "cos", "cosf", "tan", "tanf", "asin", "acos", "atan", "atan2", "atan2f", "sinh",
    "cosh", "tanh", "tanhf", "erf", "erff", "erfc", "hypot", "hypotf", "fmin", "fminf", "fmax",
    "fmaxf", "min", "max", "floor", "floorf", "ceil", "ceilf", "round", "roundf", "trunc",
    "truncf", "fma", "fmaf", "fmod", "fmodf", "copysign", "rsqrt", "rsqrtf", "isnan", "isinf",
    "isfinite", "signbit", "clamp",
];

/// Calls that do input or output.
const IO_FUNCTIONS: &[&str] = &[
    "printf", "fprintf", "puts", "fputs", "putchar", "fputc", "putc", "scanf", "fscanf", "fgets",
    "getchar", "fread", "fwrite", "fopen", "fclose", "fflush", "perror", "write", "read", "print",
    "println", "getline", "getc", "fgetc", "ungetc", "sscanf", "sprintf", "snprintf", "vprintf",
    "vfprintf", "fseek", "ftell", "rewind", "remove", "rename", "system", "exit", "abort",
];

const STREAMS: &[&str] = &[
    "cout",
    "cerr",
    "clog",
    "cin",
    "std::cout",
    "std::cerr",
    "std::clog",
    "std::cin",
];

/// Methods of standard containers that only read them.
pub(crate) const PURE_METHODS: &[&str] = &["size", "data", "length", "empty"];

/// Library functions that read only their arguments (and strings they point to) and write
/// nothing, by the header that declares them.
pub const LIBRARY_HEADERS: &[(&str, &[&str])] = &[
    (
        "cctype",
        &[
            "tolower", "toupper", "isdigit", "isalpha", "isalnum", "isspace", "isupper", "islower",
            "isxdigit", "ispunct", "isprint", "iscntrl", "isgraph",
        ],
    ),
    ("cstdlib", &["atof", "atoi", "atol", "atoll"]),
    // A check that stops the program when it fails, and otherwise does nothing.
    ("cassert", &["assert"]),
    ("cstring", &["strlen", "strcmp", "strncmp", "memcmp"]),
    ("utility", &["make_pair"]),
    (
        "cmath",
        &[
            "ldexp",
            "lround",
            "llround",
            "lrint",
            "rint",
            "nearbyint",
            "sqrtl",
            "fabsl",
            "expl",
            "logl",
            "powl",
            "floorl",
            "ceill",
            "remainder",
            "remainderf",
        ],
    ),
];

/// A standard-library function with no side effects, by name (`std::` and `::` prefixes and the
/// upper-case spelling that headers define as macros, `FABS`, `SQRT`, `MAX`, included).
pub fn is_pure_library_function(name: &str) -> bool {
    let base = name.strip_prefix("std::").unwrap_or(name);
    let base = base.strip_prefix("::").unwrap_or(base);
    let known = |b: &str| {
        PURE_FUNCTIONS.contains(&b) || LIBRARY_HEADERS.iter().any(|(_, names)| names.contains(&b))
    };
    known(base)
        || (base.len() > 2
            && base
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
            && known(&base.to_ascii_lowercase()))
}

pub fn is_pure_function(name: &str, macros: &Macros) -> bool {
    // A macro defined in the file is judged by its body, not by its name.
    if macros.definitions.contains_key(name) {
        return macros.pure_functions.iter().any(|m| m == name);
    }
    is_pure_library_function(name) || macros.helpers.iter().any(|(h, _)| h == name)
}

fn is_io_function(name: &str) -> bool {
    let base = name.rsplit("::").next().unwrap_or(name);
    IO_FUNCTIONS.contains(&base)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoopForm {
    For,
    RangeFor,
    While,
    Do,
}

/// The loop counter of a counted loop.
#[derive(Debug, Clone)]
pub struct Induction {
    pub var: String,
    /// Smallest and largest value the counter takes (inclusive).
    pub lower: Poly,
    pub upper: Poly,
    pub step: i64,
    /// Number of iterations before dividing by the step: `upper - lower + 1`.
    pub span: Poly,
    /// A bound reads an array (`rowptr[r + 1]`): the count is only known at run time.
    pub data_dependent: bool,
}

impl Induction {
    pub fn trip_text(&self) -> String {
        if self.step == 1 {
            self.span.to_string()
        } else {
            format!("({} + {}) / {}", self.span, self.step - 1, self.step)
        }
    }

    pub fn trip_value(&self, values: &HashMap<String, f64>) -> Option<f64> {
        if self.data_dependent {
            return None;
        }
        let span = self.span.eval(values)?;
        Some((span / self.step as f64).ceil().max(0.0))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteKind {
    Assign,
    /// Updated with an associative operator (`+=`, `++`, `= x op x`, `= max(x, ..)`).
    Accumulate(String),
}

#[derive(Debug, Clone)]
pub struct ArrayRef {
    pub array: String,
    /// One entry per `[]`; `None` when the subscript is not a polynomial of known variables.
    pub subs: Vec<Option<Poly>>,
    pub text: String,
    /// Arrays whose elements are used as a subscript, directly (`idx` in `a[idx[i]]`) or through a
    /// local read once from them (`j = idx[k]; a[j*3+1]`).
    pub index_arrays: Vec<String>,
    /// Per subscript that is not a polynomial: the subscript as one in which every value read from
    /// an index array is a variable [`index_value`] of that array (`@idx*3 + 1`), where it is one.
    pub gathered: Vec<Option<Poly>>,
    /// Per subscript that is not a polynomial: the constant interval its form keeps it in, where
    /// there is one (`freq & 0xFF` is in 0..=255, `256 + (x >> 8 & 0xFF)` in 256..=511).
    pub bounded: Vec<Option<(i64, i64)>>,
    /// Per subscript that is not a polynomial: the polynomials it is one of, where it names
    /// scalars that [`LoopFacts`] found assigned one of a few positions (`FTNREF2D(j, donor, ..)`
    /// with `donor` either `k - 1` or `k`).
    pub choices: Vec<Option<Vec<Poly>>>,
    pub write: Option<WriteKind>,
    pub read: bool,
    pub line: usize,
    /// For `a[s] = a[t] op x`: the operator and `t`, the shape of a scan.
    pub scan_operand: Option<(String, Vec<Option<Poly>>)>,
    /// For a read: the byte offset of the write it is the operand of, to recognise scans.
    pub operand_of_write: Option<usize>,
    /// In the header of a nested loop (its bounds), not in the computation.
    pub in_header: bool,
    /// Where the reference starts in the source (in the expanded text for one a macro makes).
    pub start: usize,
}

/// Marks a variable of [`ArrayRef::gathered`] as a value read from the array that follows.
pub const INDEX_VALUE: &str = "@";

/// The variable that stands for a value read from the index array `array`.
pub fn index_value(array: &str) -> String {
    format!("{INDEX_VALUE}{array}")
}

#[derive(Debug, Clone)]
pub struct ScalarWrite {
    pub name: String,
    pub accumulate: Option<String>,
    pub pointer_chase: bool,
    pub line: usize,
    pub text: String,
    /// Where the write takes effect (the end of its assignment), to order it against reads.
    pub byte: usize,
    /// Inside a branch or a nested loop: it may not happen in every iteration.
    pub conditional: bool,
    /// For `x = e`: `e` without spaces.
    pub assigned: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Hazard {
    pub what: String,
    pub line: usize,
}

#[derive(Debug, Clone)]
pub struct LoopFacts {
    pub form: LoopForm,
    pub induction: Option<Induction>,
    /// Why a `for` loop has no usable counter.
    pub induction_problem: Option<String>,
    pub inner_inductions: Vec<String>,
    /// Counters of the enclosing loops (outermost first) and of the loops nested in this one,
    /// with their ranges: the dependence test's iteration space. Filled once every loop of the
    /// unit has its facts (mod.rs).
    pub outer_ranges: Vec<Induction>,
    pub inner_ranges: Vec<Induction>,
    pub locals: HashSet<String>,
    pub arrays: Vec<ArrayRef>,
    pub scalar_writes: Vec<ScalarWrite>,
    /// (name, line, byte offset) of reads that are not part of an accumulation.
    pub scalar_reads: Vec<(String, usize, usize)>,
    pub calls: Vec<(String, usize)>,
    pub unknown_calls: Vec<(String, usize)>,
    pub io: Option<Hazard>,
    pub alloc: Option<Hazard>,
    pub exit: Option<Hazard>,
    pub opaque_write: Option<Hazard>,
    /// Reads through a local pointer or reference, which may see another iteration's writes.
    pub alias_read: Option<Hazard>,
    pub condition: Option<String>,
    pub condition_vars: Vec<String>,
    /// Arithmetic operations in the body outside nested loops.
    pub own_ops: f64,
    pub trivial: bool,
    pub too_complex: bool,
    /// For range-for loops: (element variable, container).
    pub range_elem: Option<(String, String)>,
    /// Method calls `v.size()` / `v.data()` on arrays (the outliner rewrites them).
    pub method_calls: Vec<(String, String, usize, usize)>,
    /// Scalars declared before the loop that every iteration writes before reading them and that
    /// nothing reads after the loop: private to each iteration.
    pub private_scalars: Vec<String>,
    /// Counters the header advances beside the loop counter, as polynomials of it (`iOff` is
    /// `MAXATOMS*iBox + ii` in `for (int iOff = MAXATOMS*iBox, ii = 0; ...; ii++, iOff++)`).
    pub derived_counters: Vec<(String, Poly)>,
}

/// The names a loop body reads or writes, collected before the main pass so that a subscript using
/// a variable written later in the body is not mistaken for a loop invariant.
struct Prepass {
    written: HashSet<String>,
    /// Names assigned as a whole (`p = ...`, `p++`), not only through (`p[i] = ...`).
    reassigned: HashSet<String>,
    /// What is written, as member paths without the trailing subscripts (`atom.v` for
    /// `atom.v[i] = ..`, `ll->nAtoms`, `*p`).
    written_paths: HashSet<String>,
    locals: HashSet<String>,
    inner_inductions: Vec<String>,
    shapes: HashMap<String, Shape>,
}

/// How a local declared inside the loop holds its value: private storage, or an alias of memory
/// other iterations may share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Value,
    /// A local array or container: private to the iteration.
    Storage,
    Pointer,
    Reference,
    /// `auto x = ...`: may be a pointer.
    Auto,
}

fn declarator_shape(mut d: Node) -> Shape {
    for _ in 0..32 {
        match d.kind() {
            "init_declarator" => match d.child_by_field_name("declarator") {
                Some(x) => d = x,
                None => break,
            },
            "pointer_declarator" => return Shape::Pointer,
            "reference_declarator" => return Shape::Reference,
            "array_declarator" => return Shape::Storage,
            _ => break,
        }
    }
    Shape::Value
}

pub struct Extractor<'a> {
    pub src: &'a [u8],
    pub macros: &'a Macros,
    /// Variables of the enclosing function whose `[]` inserts a missing key (`std::map`,
    /// `std::unordered_map`): subscripting them changes the container.
    pub keyed: &'a HashSet<String>,
    /// The declared type of each variable of the enclosing function (names declared once).
    pub var_types: &'a HashMap<String, String>,
}

impl<'a> Extractor<'a> {
    pub fn loop_facts(&self, node: Node) -> LoopFacts {
        let form = match node.kind() {
            "for_range_loop" => LoopForm::RangeFor,
            "while_statement" => LoopForm::While,
            "do_statement" => LoopForm::Do,
            _ => LoopForm::For,
        };
        let pre = self.prepass(node);
        let expansions = Expansions::collect(node, self.src, self.macros);
        let mut c = Collector {
            expansions: &expansions,
            macro_site: None,
            shapes: pre.shapes,
            src: self.src,
            macros: self.macros,
            own_induction: None,
            inductions: pre.inner_inductions.iter().cloned().collect(),
            written: pre.written,
            reassigned: pre.reassigned,
            written_paths: pre.written_paths,
            locals: pre.locals,
            local_defs: HashMap::new(),
            index_locals: HashMap::new(),
            alternatives: HashMap::new(),
            range_elem: None,
            facts: LoopFacts {
                form,
                induction: None,
                induction_problem: None,
                inner_inductions: pre.inner_inductions,
                outer_ranges: Vec::new(),
                inner_ranges: Vec::new(),
                locals: HashSet::new(),
                arrays: Vec::new(),
                scalar_writes: Vec::new(),
                scalar_reads: Vec::new(),
                calls: Vec::new(),
                unknown_calls: Vec::new(),
                io: None,
                alloc: None,
                exit: None,
                opaque_write: None,
                alias_read: None,
                condition: None,
                condition_vars: Vec::new(),
                own_ops: 0.0,
                trivial: true,
                too_complex: false,
                range_elem: None,
                method_calls: Vec::new(),
                private_scalars: Vec::new(),
                derived_counters: Vec::new(),
            },
            loop_nesting: 0,
            switch_nesting: 0,
            write_context: None,
            current_write: None,
            data_bound: std::cell::Cell::new(false),
            in_header: 0,
            conditional: 0,
            minmax: None,
            pointer_defs: HashMap::new(),
            discarded: HashSet::new(),
            keyed: self.keyed,
            var_types: self.var_types,
        };
        let own = match form {
            LoopForm::For => header_counter(node, self.src),
            LoopForm::RangeFor => node
                .child_by_field_name("declarator")
                .and_then(|d| declarator_name(d, self.src)),
            _ => None,
        };
        if let Some(own) = own {
            c.inductions.insert(own);
        }
        c.collect_local_defs(node);
        c.collect_index_assignments(node);
        c.collect_alternatives(node);
        let body = node.child_by_field_name("body");
        match form {
            LoopForm::For => {
                match c.induction_of(node) {
                    Ok(ind) => {
                        let derived = c.derived_counters(node, &ind);
                        // Other updates of the header (`i++, c <<= 8`) run every iteration: unless
                        // they advance a derived counter they are part of the body.
                        if let Some(u) = node.child_by_field_name("update").map(unparen)
                            && u.kind() == "comma_expression"
                        {
                            for part in comma_parts(u) {
                                let advances = |name: &str| c.step_of(part, name).is_some();
                                if advances(&ind.var) || derived.iter().any(|(n, _)| advances(n)) {
                                    continue;
                                }
                                c.visit(part, 0);
                            }
                        }
                        for (name, p) in derived {
                            c.facts.derived_counters.push((name.clone(), p.clone()));
                            c.local_defs.insert(name, Some(p));
                        }
                        c.own_induction = Some(ind.var.clone());
                        c.inductions.insert(ind.var.clone());
                        c.facts.induction = Some(ind);
                    }
                    Err(why) => {
                        c.facts.induction_problem = Some(why);
                        for field in ["initializer", "update"] {
                            if let Some(n) = node.child_by_field_name(field) {
                                c.visit(n, 0);
                            }
                        }
                    }
                }
                if let Some(cond) = node.child_by_field_name("condition") {
                    c.facts.condition = Some(text(cond, self.src).to_string());
                    c.visit(cond, 0);
                }
            }
            LoopForm::RangeFor => {
                let elem = node
                    .child_by_field_name("declarator")
                    .and_then(|d| declarator_name(d, self.src));
                let container = node.child_by_field_name("right");
                match (elem, container) {
                    (Some(elem), Some(container)) if unparen(container).kind() == "identifier" => {
                        let cont = text(container, self.src).to_string();
                        c.locals.remove(&elem);
                        c.inductions.insert(elem.clone());
                        c.own_induction = Some(elem.clone());
                        c.range_elem = Some((elem.clone(), cont.clone()));
                        c.facts.range_elem = Some((elem.clone(), cont.clone()));
                        let size = Poly::var(&format!("{cont}.size()"));
                        c.facts.induction = Some(Induction {
                            var: elem,
                            lower: Poly::constant(0),
                            upper: size.sub(&Poly::constant(1)).unwrap_or_default(),
                            step: 1,
                            span: size,
                            data_dependent: false,
                        });
                    }
                    (Some(elem), Some(container))
                        if c.iterable_call(container)
                            && node
                                .child_by_field_name("declarator")
                                .is_some_and(|d| d.kind() != "reference_declarator") =>
                    {
                        // The elements of an object a read-only method returns: values, not
                        // positions (the element stays a local, so subscripts through it are
                        // data-dependent), and a count known only at run time.
                        c.inductions.remove(&elem);
                        let size = Poly::var(&squash(&text(container, self.src)));
                        c.facts.induction = Some(Induction {
                            var: elem,
                            lower: Poly::constant(0),
                            upper: size.sub(&Poly::constant(1)).unwrap_or_default(),
                            step: 1,
                            span: size,
                            data_dependent: true,
                        });
                        c.visit(container, 0);
                    }
                    _ => {
                        c.facts.induction_problem = Some(
                            "the range it iterates over is not a plain array or container".into(),
                        );
                        if let Some(container) = container {
                            c.visit(container, 0);
                        }
                    }
                }
            }
            LoopForm::While | LoopForm::Do => {
                if let Some(cond) = node.child_by_field_name("condition") {
                    let cond_text = text(cond, self.src).to_string();
                    let cond_text = cond_text
                        .trim()
                        .trim_start_matches('(')
                        .trim_end_matches(')')
                        .trim()
                        .to_string();
                    c.facts.condition = Some(cond_text);
                    let mut vars = Vec::new();
                    for_each_descendant(cond, |n| {
                        if n.kind() == "identifier" {
                            vars.push(text(n, self.src).to_string());
                        }
                        true
                    });
                    c.facts.condition_vars = vars;
                    c.visit(cond, 0);
                }
            }
        }
        if let Some(body) = body {
            c.visit(body, 0);
            c.facts.own_ops = count_ops(body, self.src, self.macros);
        }
        c.facts.locals = c.locals;
        c.facts
    }

    fn prepass(&self, node: Node) -> Prepass {
        let mut p = Prepass {
            written: HashSet::new(),
            reassigned: HashSet::new(),
            written_paths: HashSet::new(),
            locals: HashSet::new(),
            inner_inductions: Vec::new(),
            shapes: HashMap::new(),
        };
        let src = self.src;
        for_each_descendant(node, |n| {
            match n.kind() {
                kind @ ("assignment_expression" | "update_expression") => {
                    let target = if kind == "assignment_expression" {
                        "left"
                    } else {
                        "argument"
                    };
                    if let Some(t) = n.child_by_field_name(target)
                        && let Some(name) = written_root(t, src)
                    {
                        if unparen(t).kind() == "identifier" {
                            p.reassigned.insert(name.clone());
                        }
                        p.written_paths.insert(member_path(t, src));
                        p.written.insert(name);
                    }
                }
                "declaration" if text(n, src).trim_start().starts_with("static") => {}
                "declaration" => {
                    let ty = n
                        .child_by_field_name("type")
                        .map(|t| text(t, src).to_string())
                        .unwrap_or_default();
                    let container = ty.contains("vector") || ty.contains("array<");
                    let mut cursor = n.walk();
                    let decls: Vec<Node> = n
                        .children_by_field_name("declarator", &mut cursor)
                        .collect();
                    for d in decls {
                        let Some(name) = declarator_name(d, src) else {
                            continue;
                        };
                        // `real3 dr;` with `typedef double real3[3]` is an array.
                        let array_typedef = self
                            .macros
                            .type_shapes
                            .get(ty.trim())
                            .is_some_and(|s| s.pointer == 0 && !s.dims.is_empty());
                        let shape = match declarator_shape(d) {
                            Shape::Value if container || array_typedef => Shape::Storage,
                            Shape::Value if ty.trim() == "auto" => Shape::Auto,
                            other => other,
                        };
                        p.shapes.insert(name.clone(), shape);
                        p.locals.insert(name);
                    }
                }
                // A range-for's variable, and lambda parameters inside the loop, are private.
                "for_range_loop" | "parameter_declaration" => {
                    if let Some(d) = n.child_by_field_name("declarator")
                        && let Some(name) = declarator_name(d, src)
                    {
                        p.locals.insert(name);
                    }
                }
                _ => {}
            }
            if n != node && n.kind() == "for_statement" {
                // `for (int iOff = base, ii = 0; ii < n; ii++, iOff++)` advances both: each is a
                // counter of the nest.
                p.inner_inductions.extend(header_counters(n, src));
            }
            true
        });
        p
    }
}

/// The counter a `for` header assigns in its initializer, if any: the one its condition tests
/// (`ii` in `for (int iOff = base, ii = 0; ii < n; ...)`), else the first.
fn header_counter(node: Node, src: &[u8]) -> Option<String> {
    header_counters(node, src).into_iter().next()
}

/// The names a `for` header initialises, the tested counter first; beyond the first, only those
/// its update advances.
fn header_counters(node: Node, src: &[u8]) -> Vec<String> {
    let Some(init) = node.child_by_field_name("initializer") else {
        return Vec::new();
    };
    let mut names = match init.kind() {
        "declaration" => declared_names(init, src),
        "assignment_expression" => init
            .child_by_field_name("left")
            .map(unparen)
            .filter(|l| l.kind() == "identifier")
            .map(|l| vec![text(l, src).to_string()])
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let tested = node
        .child_by_field_name("condition")
        .map(|c| text(c, src).to_string())
        .unwrap_or_default();
    if let Some(k) = names.iter().position(|n| mentions_word(&tested, n)) {
        let first = names.remove(k);
        names.insert(0, first);
    }
    let update = node
        .child_by_field_name("update")
        .map(|u| text(u, src).to_string())
        .unwrap_or_default();
    let mut out: Vec<String> = names.drain(..1.min(names.len())).collect();
    out.extend(names.into_iter().filter(|n| mentions_word(&update, n)));
    out
}

/// Whether anything under `node` assigns or increments the variable `name` itself.
fn assigns_name(node: Node, name: &str, src: &[u8]) -> bool {
    let mut found = false;
    for_each_descendant(node, |n| {
        if super::syntax::assigned_target(n).is_some_and(|t| {
            let t = unparen(t);
            t.kind() == "identifier" && text(t, src) == name
        }) {
            found = true;
        }
        !found
    });
    found
}

/// Names declared by a declaration node (`int a = 0, *b;` → a, b).
pub fn declared_names(decl: Node, src: &[u8]) -> Vec<String> {
    let mut cursor = decl.walk();
    decl.children_by_field_name("declarator", &mut cursor)
        .filter_map(|d| declarator_name(d, src))
        .collect()
}

/// The identifier inside a (possibly pointer/reference/array/init) declarator.
pub fn declarator_name(mut d: Node, src: &[u8]) -> Option<String> {
    for _ in 0..64 {
        match d.kind() {
            "identifier" | "field_identifier" => return Some(text(d, src).to_string()),
            "init_declarator"
            | "pointer_declarator"
            | "array_declarator"
            | "function_declarator"
            | "parenthesized_declarator" => {
                d = d
                    .child_by_field_name("declarator")
                    .or_else(|| d.named_child(0))?;
            }
            "reference_declarator" => {
                d = d.named_child(0)?;
            }
            "structured_binding_declarator" => return None,
            _ => return None,
        }
    }
    None
}

/// An lvalue as a member path without its trailing subscripts, spaces removed.
fn member_path(node: Node, src: &[u8]) -> String {
    let mut n = unparen(node);
    while n.kind() == "subscript_expression" {
        match n.child_by_field_name("argument") {
            Some(a) => n = unparen(a),
            None => break,
        }
    }
    squash(&text(n, src))
}

/// Whether writing `w` can change the member path `p` (`atom.nlocal` is not changed by a write
/// to `atom.v`, but is by one to `atom` or `atom.nlocal`).
fn path_conflict(w: &str, p: &str) -> bool {
    let within = |long: &str, short: &str| {
        long == short
            || [".", "->", "["]
                .iter()
                .any(|sep| long.starts_with(&format!("{short}{sep}")))
    };
    within(p, w) || within(w, p) || w.starts_with('*') || w.contains('(')
}

/// The variable an lvalue ultimately writes to (`a` for `a[i].x`, `p` for `*p`).
fn written_root(node: Node, src: &[u8]) -> Option<String> {
    let node = unparen(node);
    match node.kind() {
        "identifier" => Some(text(node, src).to_string()),
        "subscript_expression" | "field_expression" => {
            written_root(node.child_by_field_name("argument")?, src)
        }
        "pointer_expression" => written_root(node.child_by_field_name("argument")?, src),
        _ => None,
    }
}

struct Collector<'a> {
    /// The pure macros called in the loop, expanded (`expand.rs`).
    expansions: &'a Expansions,
    /// Inside an expansion: the line and byte of the call in the file.
    macro_site: Option<(usize, usize)>,
    shapes: HashMap<String, Shape>,
    src: &'a [u8],
    macros: &'a Macros,
    own_induction: Option<String>,
    inductions: HashSet<String>,
    written: HashSet<String>,
    reassigned: HashSet<String>,
    written_paths: HashSet<String>,
    locals: HashSet<String>,
    local_defs: HashMap<String, Option<Poly>>,
    /// Locals declared with one element of a shared array, or a polynomial of such values, and
    /// never reassigned (`j` in `const int j = neighs[k]`): their value as in [`ArrayRef::gathered`].
    index_locals: HashMap<String, Poly>,
    /// Scalars that one of a few positions is assigned to in the branches of an `if` (CloverLeaf's
    /// `donor` is `k - 1` or `k`): those positions, for [`ArrayRef::choices`].
    alternatives: HashMap<String, Vec<Poly>>,
    range_elem: Option<(String, String)>,
    facts: LoopFacts,
    loop_nesting: usize,
    switch_nesting: usize,
    /// Byte offset of the array write whose right-hand side is being visited.
    write_context: Option<usize>,
    /// Text and end of the assignment or increment being visited.
    current_write: Option<(String, usize)>,
    /// Set when a bound read an array element.
    data_bound: std::cell::Cell<bool>,
    /// Inside the header (initializer, condition, update) of a nested loop.
    in_header: usize,
    /// Inside a branch: what is written here may not be written in every iteration.
    conditional: usize,
    /// Inside the body of `if (e > m) { m = e; ... }`: (m, e without spaces, "max"/"min").
    minmax: Option<(String, String, String)>,
    /// Local pointers into an outer array, never reassigned: `row` in `const T* row = a + i*n`.
    pointer_defs: HashMap<String, (String, Poly)>,
    /// Increments whose value is thrown away.
    discarded: HashSet<usize>,
    /// Variables whose `[]` inserts (maps and sets).
    keyed: &'a HashSet<String>,
    var_types: &'a HashMap<String, String>,
}

impl Collector<'_> {
    fn t(&self, node: Node) -> String {
        text(node, self.src).to_string()
    }

    /// Variables declared in the body with an affine initializer and never reassigned can be
    /// substituted into subscripts (`int row = i * m; a[row + j]`).
    fn collect_local_defs(&mut self, node: Node) {
        let mut decls = Vec::new();
        for_each_descendant(node, |n| {
            if n.kind() == "init_declarator" {
                decls.push(n);
            }
            true
        });
        for d in decls {
            let Some(name) = d
                .child_by_field_name("declarator")
                .and_then(|x| declarator_name(x, self.src))
            else {
                continue;
            };
            if self.inductions.contains(&name) {
                continue;
            }
            if self.shapes.get(&name) == Some(&Shape::Pointer) {
                if !self.reassigned.contains(&name)
                    && let Some(def) = d
                        .child_by_field_name("value")
                        .and_then(|v| self.pointer_into_outer(v))
                {
                    self.pointer_defs.insert(name, def);
                }
                continue;
            }
            let def = if self.written.contains(&name) {
                None
            } else {
                d.child_by_field_name("value").and_then(|v| self.poly(v))
            };
            if def.is_none()
                && !self.written.contains(&name)
                && let Some(v) = d.child_by_field_name("value")
            {
                // `type_ij = type_i * ntypes + type_j` with `type_j = type[j]`: a position made of
                // index values is one too.
                if let Some(a) = self.index_array_of(v) {
                    self.index_locals
                        .insert(name.clone(), Poly::var(&index_value(&a)));
                } else if let Some(g) = self.gather_poly(v, 0) {
                    self.index_locals.insert(name.clone(), g);
                }
            }
            self.local_defs.insert(name, def);
        }
    }

    /// How many assignments and increments of the scalar `name` `scope` holds.
    fn assignments_of(&self, scope: Node, name: &str) -> usize {
        let mut count = 0;
        for_each_descendant(scope, |n| {
            if super::syntax::assigned_target(n)
                .is_some_and(|t| unparen(t).kind() == "identifier" && self.t(unparen(t)) == name)
            {
                count += 1;
            }
            true
        });
        count
    }

    /// A scalar declared before the loop that every branch of an `if` of the loop's body assigns
    /// a position (`donor = k - 1;` or `donor = k;`, `upwind = MIN(k + 1, y_max + 2)`), that no
    /// earlier statement names and nothing else assigns: from there on it is one of those
    /// positions, whichever branch ran.
    fn collect_alternatives(&mut self, node: Node) {
        for (stmt, earlier) in statements_in_order(node) {
            if stmt.kind() == "if_statement"
                && let Some(found) = self.branch_positions(stmt)
            {
                for (name, values) in found {
                    let named_before = earlier
                        .iter()
                        .any(|n| super::syntax::mentions_word(&self.t(*n), &name));
                    let only_there =
                        self.assignments_of(node, &name) == self.assignments_of(stmt, &name);
                    if !named_before
                        && only_there
                        && !self.locals.contains(&name)
                        && !self.inductions.contains(&name)
                    {
                        self.alternatives.insert(name, values);
                    }
                }
            }
        }
    }

    /// The scalars every branch of `if_stmt` (an `else if` chain ending in `else`) assigns a
    /// position, with the positions of all branches.
    fn branch_positions(&self, if_stmt: Node) -> Option<HashMap<String, Vec<Poly>>> {
        let then = self.assigned_positions(if_stmt.child_by_field_name("consequence")?)?;
        let alternative = if_stmt.child_by_field_name("alternative")?;
        let otherwise = unparen(alternative.named_child(0)?);
        let otherwise = if otherwise.kind() == "if_statement" {
            self.branch_positions(otherwise)?
        } else {
            self.assigned_positions(otherwise)?
        };
        let mut both = HashMap::new();
        for (name, mut values) in then {
            let Some(more) = otherwise.get(&name) else {
                continue;
            };
            for v in more {
                if !values.contains(v) {
                    values.push(v.clone());
                }
            }
            both.insert(name, values);
        }
        Some(both)
    }

    /// The scalars a branch assigns positions at its top level (`upwind = k - 2; dif = donor;`,
    /// later ones through earlier ones), less any it also assigns otherwise.
    fn assigned_positions(&self, branch: Node) -> Option<HashMap<String, Vec<Poly>>> {
        let stmts = if branch.kind() == "compound_statement" {
            super::syntax::named_children(branch)
        } else {
            vec![branch]
        };
        let mut env: HashMap<String, Vec<Poly>> = HashMap::new();
        let mut spoilt: HashSet<String> = HashSet::new();
        for st in stmts {
            let e = st.named_child(0).map(unparen);
            if st.kind() == "expression_statement"
                && let Some(e) = e
                && e.kind() == "assignment_expression"
                && e.child_by_field_name("operator")
                    .is_some_and(|o| self.t(o) == "=")
                && let (Some(l), Some(r)) = (
                    e.child_by_field_name("left").map(unparen),
                    e.child_by_field_name("right"),
                )
                && l.kind() == "identifier"
            {
                let name = self.t(l);
                match self.positions(r, &env, 0) {
                    Some(values) => {
                        env.insert(name, values);
                    }
                    None => {
                        spoilt.insert(name);
                    }
                }
                continue;
            }
            for_each_descendant(st, |n| {
                if let Some(t) = super::syntax::assigned_target(n).map(unparen) {
                    spoilt.insert(self.t(t));
                }
                true
            });
        }
        env.retain(|name, _| !spoilt.contains(name));
        Some(env)
    }

    /// The polynomials `node` may be: one where it is a polynomial, one per alternative of a
    /// scalar it names (from `env`, else [`Self::alternatives`]), either operand of a min or max,
    /// either branch of `?:`.
    /// At most 16.
    fn positions(
        &self,
        node: Node,
        env: &HashMap<String, Vec<Poly>>,
        depth: usize,
    ) -> Option<Vec<Poly>> {
        if depth > MAX_EXPR_DEPTH {
            return None;
        }
        let node = unparen(node);
        match node.kind() {
            "identifier" => {
                let name = self.t(node);
                if let Some(v) = env.get(&name).or_else(|| self.alternatives.get(&name)) {
                    return Some(v.clone());
                }
            }
            // An index macro (`FTNREF2D(j, donor, ...)`) at each of its arguments' positions.
            "call_expression" if self.index_macro(node).is_some() => {
                let (arity, body) = self.index_macro(node)?;
                let args = super::syntax::named_children(node.child_by_field_name("arguments")?);
                if args.len() != *arity {
                    return None;
                }
                let mut out = vec![body.clone()];
                for v in body.vars() {
                    let by = match v.strip_prefix('$') {
                        Some(k) => {
                            self.positions(*args.get(k.parse::<usize>().ok()?)?, env, depth + 1)?
                        }
                        None => vec![self.sym(&v)?],
                    };
                    let mut next: Vec<Poly> = Vec::new();
                    for p in &out {
                        for b in &by {
                            let q = p.substitute(&v, b)?;
                            if !next.contains(&q) {
                                next.push(q);
                            }
                        }
                    }
                    if next.len() > MAX_POSITIONS {
                        return None;
                    }
                    out = next;
                }
                return Some(out);
            }
            "call_expression" => {
                let f = self.t(node.child_by_field_name("function")?);
                let base = f.trim_start_matches("std::");
                let is_minmax = match self.macros.definitions.get(base) {
                    Some(def) => minmax_macro(def).is_some(),
                    None => matches!(base, "max" | "min" | "MAX" | "MIN"),
                };
                if is_minmax {
                    let args =
                        super::syntax::named_children(node.child_by_field_name("arguments")?);
                    let [a, b] = args.as_slice() else {
                        return None;
                    };
                    return union_of_positions(
                        self.positions(*a, env, depth + 1)?,
                        self.positions(*b, env, depth + 1)?,
                    );
                }
                return None;
            }
            // Either branch's value (a min or max macro, expanded).
            "conditional_expression" => {
                return union_of_positions(
                    self.positions(node.child_by_field_name("consequence")?, env, depth + 1)?,
                    self.positions(node.child_by_field_name("alternative")?, env, depth + 1)?,
                );
            }
            "binary_expression" => {
                let op = self.t(node.child_by_field_name("operator")?);
                if matches!(op.as_str(), "+" | "-" | "*") {
                    let l = self.positions(node.child_by_field_name("left")?, env, depth + 1)?;
                    let r = self.positions(node.child_by_field_name("right")?, env, depth + 1)?;
                    if l.len() * r.len() > MAX_POSITIONS {
                        return None;
                    }
                    let mut out = Vec::new();
                    for a in &l {
                        for b in &r {
                            let p = match op.as_str() {
                                "+" => a.add(b)?,
                                "-" => a.sub(b)?,
                                _ => a.mul(b)?,
                            };
                            if !out.contains(&p) {
                                out.push(p);
                            }
                        }
                    }
                    return Some(out);
                }
            }
            _ => {}
        }
        self.poly(node).map(|p| vec![p])
    }

    /// A scalar declared before the loop that a statement of the loop's body, or of a loop nested
    /// in it, assigns one element of a shared array (`j = list[i];`) or a position made of one
    /// (`j = acol[i][k] + 1;`), assigned nowhere else in the loop and named by no earlier
    /// statement: in the iteration it is that index value, like a local declared with it.
    fn collect_index_assignments(&mut self, node: Node) {
        for (stmt, earlier) in statements_in_order(node) {
            let e = stmt.named_child(0).map(unparen);
            if stmt.kind() == "expression_statement"
                && let Some(e) = e
                && e.kind() == "assignment_expression"
                && e.child_by_field_name("operator")
                    .map(|o| self.t(o))
                    .as_deref()
                    == Some("=")
                && let (Some(l), Some(v)) = (
                    e.child_by_field_name("left").map(unparen),
                    e.child_by_field_name("right"),
                )
                && l.kind() == "identifier"
            {
                let name = self.t(l);
                let named_before = earlier
                    .iter()
                    .any(|n| super::syntax::mentions_word(&self.t(*n), &name));
                let assignments = self.assignments_of(node, &name);
                // `j = acol[i][k] + 1;` is a position made of an index value, as is `j = idx[i];`.
                let gathered = self
                    .index_array_of(v)
                    .map(|a| Poly::var(&index_value(&a)))
                    .or_else(|| {
                        self.gather_poly(v, 0)
                            .filter(|g| g.vars().iter().any(|x| x.starts_with(INDEX_VALUE)))
                    });
                if !named_before
                    && assignments == 1
                    && !self.locals.contains(&name)
                    && !self.inductions.contains(&name)
                    && let Some(g) = gathered
                {
                    self.index_locals.insert(name, g);
                }
            }
        }
    }

    /// The shared array `value` reads one element of (`idx[k]`, `s->atoms->iSpecies[iOff]`, `p[k]`
    /// for a local pointer `p` into a member array): where a value read from data is a position.
    fn index_array_of(&self, value: Node) -> Option<String> {
        let v = unparen(value);
        if v.kind() != "subscript_expression" {
            return None;
        }
        let mut base = unparen(v.child_by_field_name("argument")?);
        // An element of a multi-dimensional index array (`acol[i][k]`): its values are that
        // array's, which travels flat.
        while base.kind() == "subscript_expression" {
            base = unparen(base.child_by_field_name("argument")?);
        }
        let name = self.t(base);
        if let Some((outer, _)) = self.pointer_defs.get(&name) {
            return Some(outer.clone());
        }
        let plain = match base.kind() {
            "identifier" => !self.locals.contains(&name) && !self.inductions.contains(&name),
            // A member array whose path the loop does not change (`s->atoms->iSpecies` while it
            // writes `s->atoms->r`); a write of its elements is the outliner's to refuse.
            "field_expression" => {
                let path = squash(&name);
                path.chars()
                    .all(|c| c.is_alphanumeric() || "_.->".contains(c))
                    && written_root(base, self.src)
                        .is_some_and(|r| !self.locals.contains(&r) && !self.inductions.contains(&r))
                    && !self
                        .written_paths
                        .iter()
                        .any(|w| path_conflict(w, &path) && !w.starts_with(&path))
            }
            _ => false,
        };
        plain.then_some(name)
    }

    /// A subscript as a polynomial in which each value read from an index array (directly,
    /// `idx[k]`, or through an index local) is the variable [`index_value`] of that array: the
    /// positions a gather or scatter reaches, once the values' range is known.
    fn gather_poly(&self, node: Node, depth: usize) -> Option<Poly> {
        if depth > MAX_EXPR_DEPTH {
            return None;
        }
        let node = unparen(node);
        match node.kind() {
            "number_literal" => parse_int_literal(&self.t(node)).map(Poly::constant),
            "identifier" => {
                let name = self.t(node);
                match self.index_locals.get(&name) {
                    Some(g) => Some(g.clone()),
                    None => self.sym(&name),
                }
            }
            "subscript_expression" => self
                .index_array_of(node)
                .map(|a| Poly::var(&index_value(&a))),
            k if is_arithmetic(k) => {
                self.arithmetic(node, false, |n| self.gather_poly(n, depth + 1))
            }
            _ => None,
        }
    }

    /// The class method `object.method` (or `object->method`) resolves to, when `object` is a
    /// variable the loop never writes: `(class info, method)`.
    fn method_of(
        &self,
        function: Node,
    ) -> Option<(&super::classes::ClassInfo, &super::classes::Method)> {
        if function.kind() != "field_expression" {
            return None;
        }
        let object = unparen(function.child_by_field_name("argument")?);
        let method = self.t(function.child_by_field_name("field")?);
        if object.kind() != "identifier" {
            return None;
        }
        let name = self.t(object);
        if self.written.contains(&name) {
            return None;
        }
        let ty = self.var_types.get(&name)?;
        let (_, class) = super::classes::class_of(ty, self.macros, None)?;
        Some((class, class.methods.get(&method)?))
    }

    /// `domain.x(i)` with `x` an element accessor of `domain`'s class (`ClassInfo::elements`):
    /// the element `domain.m_x[i]`, as (array named by the object and field, the index).
    fn element_accessor<'n>(&self, call: Node<'n>) -> Option<(String, Node<'n>)> {
        let c = super::classes::index_call(call, self.src)?;
        let (class, _) = self.method_of(c.function)?;
        let field = class.elements.get(&c.method)?;
        Some((format!("{}.{field}", c.object), c.index))
    }

    /// A call of a method that writes nothing, on an object the loop does not write.
    fn is_read_only_method(&self, function: Node) -> bool {
        self.method_of(unparen(function))
            .is_some_and(|(_, m)| m.effect == super::classes::Effect::ReadOnly)
    }

    /// `g.neighbours(u)`: a read-only method returning an object a range-for can walk without
    /// side effects.
    fn iterable_call(&self, container: Node) -> bool {
        let c = unparen(container);
        if c.kind() != "call_expression" {
            return false;
        }
        let Some(f) = c.child_by_field_name("function").map(unparen) else {
            return false;
        };
        match self.method_of(f) {
            Some((class, m)) if m.effect == super::classes::Effect::ReadOnly => {
                !m.ret.is_empty()
                    && super::classes::iterable_by_value(&m.ret, self.macros, Some(class))
            }
            _ => false,
        }
    }

    /// The polynomial body of an index macro called by `call` (`FTNREF2D(j, k, ...)`).
    fn index_macro(&self, call: Node) -> Option<&(usize, Poly)> {
        let f = unparen(call.child_by_field_name("function")?);
        (f.kind() == "identifier")
            .then(|| self.macros.function_polys.get(self.t(f).as_str()))
            .flatten()
    }

    /// `a + e`, `e + a`, `&a[e]` or `a`, with `a` an array from outside the loop: (a, e).
    fn pointer_into_outer(&self, value: Node) -> Option<(String, Poly)> {
        let v = unparen(value);
        let outer = |n: Node| {
            let n = unparen(n);
            // Through a cast (`(const unsigned char*) block + ch`) the offsets count elements of
            // another type than the array's own references do: only an array the loop never
            // writes may be read that way, where no write can be compared with them.
            let (n, cast) = match n.kind() {
                "cast_expression" => (unparen(n.child_by_field_name("value")?), true),
                _ => (n, false),
            };
            let shared = |name: &str| {
                let declared_here = self.locals.contains(name) || self.inductions.contains(name);
                let written_under_cast = cast && self.written.contains(name);
                !(declared_here || written_under_cast)
            };
            match n.kind() {
                "identifier" => shared(&self.t(n)).then(|| self.t(n)),
                // A member array (`&neighbor.neighbors[i * maxneighs]`) whose path the loop
                // does not change, nor any element of: reads through the pointer are reads of it.
                "field_expression" => {
                    let path = squash(&self.t(n));
                    let plain = path
                        .chars()
                        .all(|c| c.is_alphanumeric() || "_.->".contains(c));
                    let root = written_root(n, self.src)?;
                    (plain
                        && shared(&root)
                        && !self.written_paths.iter().any(|w| path_conflict(w, &path)))
                    .then(|| self.t(n))
                }
                _ => None,
            }
        };
        match v.kind() {
            "identifier" => Some((outer(v)?, Poly::constant(0))),
            "binary_expression" => {
                if self.t(v.child_by_field_name("operator")?) != "+" {
                    return None;
                }
                let (l, r) = (
                    v.child_by_field_name("left")?,
                    v.child_by_field_name("right")?,
                );
                if let Some(a) = outer(l)
                    && let Some(e) = self.offset_poly(r)
                {
                    return Some((a, e));
                }
                Some((outer(r)?, self.offset_poly(l)?))
            }
            "pointer_expression" => {
                if self.t(v.child_by_field_name("operator")?) != "&" {
                    return None;
                }
                let sub = unparen(v.child_by_field_name("argument")?);
                if sub.kind() != "subscript_expression" {
                    return None;
                }
                let a = outer(sub.child_by_field_name("argument")?)?;
                Some((a, self.offset_poly(subscript_index(sub)?)?))
            }
            _ => None,
        }
    }

    /// A pointer's offset into its array: a polynomial whose symbols may include sizes the loop
    /// cannot change (`i * neighbor.maxneighs`), but no element read from data.
    fn offset_poly(&self, node: Node) -> Option<Poly> {
        if let Some(p) = self.poly(node) {
            return Some(p);
        }
        // Reading the offset is no bound of the loop: leave the data-bound flag as it was.
        let before = self.data_bound.get();
        let p = self.poly_at(node, 0, true);
        self.data_bound.set(before);
        p.filter(|p| {
            p.vars()
                .iter()
                .all(|v| !v.contains('[') && !v.contains('('))
        })
    }

    fn sym(&self, name: &str) -> Option<Poly> {
        // A range-for's element is a value of the container, not a position: `out[k]` for each
        // `k` of `keys` may meet the same element twice.
        if self
            .range_elem
            .as_ref()
            .is_some_and(|(elem, _)| elem == name)
        {
            return None;
        }
        if self.inductions.contains(name) {
            return Some(Poly::var(name));
        }
        if let Some(def) = self.local_defs.get(name) {
            return def.clone();
        }
        if self.locals.contains(name) || self.written.contains(name) {
            return None;
        }
        if let Some(v) = self.macros.values.get(name) {
            return Some(Poly::constant(*v));
        }
        Some(Poly::var(name))
    }

    /// The constant interval an integer expression lies in whatever its variables hold, from its
    /// form: a mask with a non-negative constant, shifts, sums and products of such.
    fn interval(&self, node: Node, depth: usize) -> Option<(i64, i64)> {
        if depth > MAX_EXPR_DEPTH {
            return None;
        }
        let node = unparen(node);
        if let Some(c) = self.poly(node).and_then(|p| p.as_constant()) {
            return Some((c, c));
        }
        if node.kind() != "binary_expression" {
            return None;
        }
        let op = self.t(node.child_by_field_name("operator")?);
        let (l, r) = (
            node.child_by_field_name("left")?,
            node.child_by_field_name("right")?,
        );
        let constant = |n: Node| self.poly(n).and_then(|p| p.as_constant());
        match op.as_str() {
            // `x & c` with `c >= 0` is in 0..=c, even for a negative x in two's complement.
            "&" => match (constant(l), constant(r)) {
                (Some(c), _) | (_, Some(c)) if c >= 0 => Some((0, c)),
                _ => None,
            },
            "+" | "-" | "*" | ">>" => {
                let (a, b) = (self.interval(l, depth + 1)?, self.interval(r, depth + 1)?);
                match op.as_str() {
                    "+" => Some((a.0.checked_add(b.0)?, a.1.checked_add(b.1)?)),
                    "-" => Some((a.0.checked_sub(b.1)?, a.1.checked_sub(b.0)?)),
                    "*" if a.0 >= 0 && b.0 >= 0 => {
                        Some((a.0.checked_mul(b.0)?, a.1.checked_mul(b.1)?))
                    }
                    ">>" if a.0 >= 0 && b.0 == b.1 && (0..63).contains(&b.0) => {
                        Some((a.0 >> b.0, a.1 >> b.0))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// An expression as a polynomial of loop counters and loop invariants.
    fn poly(&self, node: Node) -> Option<Poly> {
        self.poly_at(node, 0, false)
    }

    fn poly_at(&self, node: Node, depth: usize, opaque_ok: bool) -> Option<Poly> {
        if depth > MAX_EXPR_DEPTH {
            return None;
        }
        let node = unparen(node);
        let direct = self.poly_direct(node, depth, opaque_ok);
        match direct {
            None if opaque_ok && depth == 0 => self.invariant_symbol(node),
            d => d,
        }
    }

    fn poly_direct(&self, node: Node, depth: usize, opaque_ok: bool) -> Option<Poly> {
        match node.kind() {
            "call_expression" if self.index_macro(node).is_some() => {
                let (arity, body) = self.index_macro(node)?;
                let args = node.child_by_field_name("arguments")?;
                let args: Vec<Node> = super::syntax::named_children(args);
                if args.len() != *arity {
                    return None;
                }
                let mut p = body.clone();
                for v in body.vars() {
                    let by = match v.strip_prefix('$') {
                        Some(k) => {
                            self.poly_at(args[k.parse::<usize>().ok()?], depth + 1, opaque_ok)?
                        }
                        None => self.sym(&v)?,
                    };
                    p = p.substitute(&v, &by)?;
                }
                Some(p)
            }
            "number_literal" => parse_int_literal(&self.t(node)).map(Poly::constant),
            "identifier" => self.sym(&self.t(node)),
            k if is_arithmetic(k) => {
                self.arithmetic(node, true, |n| self.poly_at(n, depth + 1, opaque_ok))
            }
            _ if opaque_ok => self.invariant_symbol(node),
            _ => None,
        }
    }

    /// The polynomial of an arithmetic node ([`is_arithmetic`]) from its operands' (`operand`):
    /// `+ - *`, `<<` by a constant when `shifts`, unary `-`/`+`, casts to an integer type.
    fn arithmetic(
        &self,
        node: Node,
        shifts: bool,
        operand: impl Fn(Node) -> Option<Poly>,
    ) -> Option<Poly> {
        match node.kind() {
            "binary_expression" => {
                let l = operand(node.child_by_field_name("left")?)?;
                let r = operand(node.child_by_field_name("right")?)?;
                match self.t(node.child_by_field_name("operator")?).as_str() {
                    "+" => l.add(&r),
                    "-" => l.sub(&r),
                    "*" => l.mul(&r),
                    "<<" if shifts => {
                        let k = r.as_constant()?;
                        (0..=40).contains(&k).then(|| l.scale(1 << k)).flatten()
                    }
                    _ => None,
                }
            }
            "unary_expression" => {
                let arg = operand(node.child_by_field_name("argument")?)?;
                match self.t(node.child_by_field_name("operator")?).as_str() {
                    "-" => arg.scale(-1),
                    "+" => Some(arg),
                    _ => None,
                }
            }
            "cast_expression" => {
                let ty = self.t(node.child_by_field_name("type")?);
                if is_integer_type(&ty) {
                    operand(node.child_by_field_name("value")?)
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// A bound the loop cannot change, as one opaque symbol: `in.lookups`, `tree->n`, `*dimX`,
    /// `n / block`, `v.size()`, `numElem()`, `rowptr[r + 1]` (data: known only at run time).
    /// Invariant when nothing it reads is written or declared in the loop and it calls nothing
    /// but pure functions and argument-less accessors (methods that would change the object make
    /// the loop sequential anyway).
    fn invariant_symbol(&self, node: Node) -> Option<Poly> {
        let mut ok = true;
        let mut data = false;
        let callees = super::outline::callee_ids(node);
        for_each_descendant(node, |n| {
            match n.kind() {
                "field_expression" => {
                    // A member is invariant unless the loop writes it (or all of its object).
                    let path = squash(&self.t(n));
                    let plain = path
                        .chars()
                        .all(|c| c.is_alphanumeric() || "_.->".contains(c));
                    if plain {
                        let root = written_root(n, self.src).unwrap_or_default();
                        if self.locals.contains(&root)
                            || self.inductions.contains(&root)
                            || self.written_paths.iter().any(|w| path_conflict(w, &path))
                        {
                            ok = false;
                        }
                        return false;
                    }
                }
                // A callee's name is not a variable.
                "identifier" if !callees.contains(&n.id()) => {
                    let name = self.t(n);
                    if self.written.contains(&name)
                        || self.locals.contains(&name)
                        || self.inductions.contains(&name)
                    {
                        ok = false;
                    }
                }
                "assignment_expression"
                | "update_expression"
                | "new_expression"
                | "lambda_expression"
                | "comma_expression" => ok = false,
                "subscript_expression" => data = true,
                "call_expression" => {
                    let args = n
                        .child_by_field_name("arguments")
                        .map(|a| a.named_child_count())
                        .unwrap_or(0);
                    let f = n
                        .child_by_field_name("function")
                        .map(|f| self.t(f))
                        .unwrap_or_default();
                    if args > 0 && !is_pure_function(&f, self.macros) {
                        ok = false;
                    }
                    // `v.size()`, `d.numElem()`: writing elements does not change them, and a
                    // method that would (push_back, resize) makes the loop sequential anyway.
                    if args == 0 {
                        return false;
                    }
                }
                _ => {}
            }
            ok
        });
        if !ok {
            return None;
        }
        if data {
            self.data_bound.set(true);
        }
        Some(Poly::var(&squash(&self.t(node))))
    }

    fn induction_of(&self, node: Node) -> Result<Induction, String> {
        let init = node
            .child_by_field_name("initializer")
            .ok_or("it has no counter initialisation")?;
        let (var, start) = match init.kind() {
            "declaration" => {
                // `int iOff = base, ii = 0`: the counter is the one the condition tests.
                let tested = node
                    .child_by_field_name("condition")
                    .map(|c| self.t(c))
                    .unwrap_or_default();
                let mut cursor = init.walk();
                let decls: Vec<Node> = init
                    .children_by_field_name("declarator", &mut cursor)
                    .collect();
                let d = decls
                    .iter()
                    .copied()
                    .find(|d| {
                        declarator_name(*d, self.src).is_some_and(|n| mentions_word(&tested, &n))
                    })
                    .or_else(|| decls.first().copied())
                    .ok_or("no counter")?;
                if d.kind() != "init_declarator" {
                    return Err("its counter has no start value".into());
                }
                let name = declarator_name(d, self.src).ok_or("no counter")?;
                let value = d.child_by_field_name("value").ok_or("no start value")?;
                (name, value)
            }
            "assignment_expression" => {
                let left = unparen(init.child_by_field_name("left").ok_or("no counter")?);
                if left.kind() != "identifier" {
                    return Err("its counter is not a plain variable".into());
                }
                (
                    self.t(left),
                    init.child_by_field_name("right").ok_or("no start")?,
                )
            }
            _ => return Err("it has no recognisable counter".into()),
        };
        if let Some(update) = node.child_by_field_name("update")
            && let Some(chase) = self.pointer_chase_in(update)
        {
            return Err(chase);
        }
        let start = self
            .poly_at(start, 0, true)
            .ok_or_else(|| format!("the start value of `{var}` is not a simple expression"))?;
        let cond = unparen(
            node.child_by_field_name("condition")
                .ok_or("it has no exit condition")?,
        );
        if cond.kind() != "binary_expression" {
            return Err(format!(
                "its exit condition `{}` is not a comparison of `{var}`",
                self.t(cond)
            ));
        }
        let (Some(cl), Some(cop), Some(cr)) = (
            cond.child_by_field_name("left"),
            cond.child_by_field_name("operator"),
            cond.child_by_field_name("right"),
        ) else {
            return Err("its exit condition is incomplete".into());
        };
        let mut op = self.t(cop);
        // `i + K < n` tests `i < n - K`: the side holding the counter may add an invariant.
        let offset_of = |side: Node| -> Option<Poly> {
            let p = self.poly_at(side, 0, true)?;
            (p.coefficient_of(&var)?.as_constant() == Some(1))
                .then(|| p.sub(&Poly::var(&var)))
                .flatten()
                .filter(|rest| !rest.mentions(&var))
        };
        let (bound_node, counter_left, offset) = if self.t(unparen(cl)) == var {
            (cr, true, None)
        } else if self.t(unparen(cr)) == var {
            (cl, false, None)
        } else if let Some(off) = offset_of(cl) {
            (cr, true, Some(off))
        } else if let Some(off) = offset_of(cr) {
            (cl, false, Some(off))
        } else {
            return Err(format!(
                "its exit condition `{}` does not test `{var}`",
                self.t(cond)
            ));
        };
        if !counter_left {
            op = match op.as_str() {
                "<" => ">",
                ">" => "<",
                "<=" => ">=",
                ">=" => "<=",
                other => other,
            }
            .to_string();
        }
        let bound = self.poly_at(bound_node, 0, true).ok_or_else(|| {
            format!(
                "its bound `{}` changes inside the loop or is not a simple expression",
                self.t(bound_node)
            )
        })?;
        let bound = match offset {
            Some(off) if !bound.mentions(&var) => bound.sub(&off).ok_or("overflow")?,
            Some(_) => {
                return Err(format!(
                    "its exit condition `{}` is not linear in `{var}`",
                    self.t(cond)
                ));
            }
            None => bound,
        };
        let update = node
            .child_by_field_name("update")
            .ok_or("it has no counter update")?;
        let step = self.step_in(update, &var).ok_or_else(|| {
            format!(
                "its update `{}` is not a constant step of `{var}`",
                self.t(update)
            )
        })?;
        let one = Poly::constant(1);
        let (lower, upper) = match (op.as_str(), step > 0) {
            ("<", true) | ("!=", true) => (start, bound.sub(&one).ok_or("overflow")?),
            ("<=", true) => (start, bound),
            (">", false) | ("!=", false) => (bound.add(&one).ok_or("overflow")?, start),
            (">=", false) => (bound, start),
            _ => {
                return Err(format!(
                    "its condition `{}` does not match the direction of its step",
                    self.t(cond)
                ));
            }
        };
        let span = upper
            .sub(&lower)
            .and_then(|d| d.add(&one))
            .ok_or("overflow")?;
        Ok(Induction {
            var,
            lower,
            upper,
            step: step.abs(),
            span,
            data_dependent: self.data_bound.get(),
        })
    }

    /// The step of `var` in an update that may advance other counters too (`ii++, iOff++`).
    fn step_in(&self, update: Node, var: &str) -> Option<i64> {
        let u = unparen(update);
        if u.kind() == "comma_expression" {
            return super::syntax::named_children(u)
                .into_iter()
                .find_map(|part| self.step_in(part, var));
        }
        self.step_of(u, var)
    }

    /// Counters advanced beside the loop counter, as polynomials of it: `iOff` in
    /// `for (int iOff = base, ii = 0; ii < n; ii++, iOff++)` is `base + ii`, and `j` in
    /// `for (i = n - 1, j = 0; i >= 0; i--, j++)` is `n - 1 - i`. One the body also changes is
    /// not derived.
    fn derived_counters(&self, node: Node, ind: &Induction) -> Vec<(String, Poly)> {
        let (Some(init), Some(update)) = (
            node.child_by_field_name("initializer"),
            node.child_by_field_name("update"),
        ) else {
            return Vec::new();
        };
        let mut starts: Vec<(String, Node)> = Vec::new();
        if init.kind() == "declaration" {
            let mut cursor = init.walk();
            for d in init.children_by_field_name("declarator", &mut cursor) {
                if let (Some(name), Some(v)) =
                    (declarator_name(d, self.src), d.child_by_field_name("value"))
                {
                    starts.push((name, v));
                }
            }
        }
        let Some(own_start) = starts
            .iter()
            .find(|(n, _)| *n == ind.var)
            .and_then(|(_, v)| self.poly_at(*v, 0, true))
        else {
            return Vec::new();
        };
        let Some(own_step) = self.step_in(update, &ind.var) else {
            return Vec::new();
        };
        let body = node.child_by_field_name("body");
        let mut out = Vec::new();
        for (name, value) in starts {
            if name == ind.var || body.is_some_and(|b| assigns_name(b, &name, self.src)) {
                continue;
            }
            let (Some(start), Some(step)) =
                (self.poly_at(value, 0, false), self.step_in(update, &name))
            else {
                continue;
            };
            if step % own_step != 0 {
                continue;
            }
            let rel = Poly::var(&ind.var)
                .sub(&own_start)
                .and_then(|d| d.scale(step / own_step));
            if let Some(p) = rel.and_then(|r| start.add(&r)) {
                out.push((name, p));
            }
        }
        out
    }

    fn step_of(&self, update: Node, var: &str) -> Option<i64> {
        let update = unparen(update);
        match update.kind() {
            "update_expression" => {
                if self.t(unparen(update.child_by_field_name("argument")?)) != var {
                    return None;
                }
                match self.t(update.child_by_field_name("operator")?).as_str() {
                    "++" => Some(1),
                    "--" => Some(-1),
                    _ => None,
                }
            }
            "assignment_expression" => {
                if self.t(unparen(update.child_by_field_name("left")?)) != var {
                    return None;
                }
                let right = update.child_by_field_name("right")?;
                match self.t(update.child_by_field_name("operator")?).as_str() {
                    "+=" => self.poly(right)?.as_constant(),
                    "-=" => self.poly(right)?.as_constant().map(|c| -c),
                    "=" => {
                        let p = self.poly(right)?.sub(&Poly::var(var))?;
                        p.as_constant()
                    }
                    _ => None,
                }
                .filter(|s| *s != 0)
            }
            _ => None,
        }
    }

    fn pointer_chase_in(&self, node: Node) -> Option<String> {
        let node = unparen(node);
        if node.kind() != "assignment_expression" {
            return None;
        }
        let left = unparen(node.child_by_field_name("left")?);
        let right = unparen(node.child_by_field_name("right")?);
        if left.kind() == "identifier" && right.kind() == "field_expression" {
            let base = unparen(right.child_by_field_name("argument")?);
            if self.t(base) == self.t(left) {
                return Some(format!(
                    "pointer chasing: `{}` needs the node the previous iteration reached",
                    self.t(node)
                ));
            }
        }
        None
    }

    fn visit(&mut self, node: Node, depth: usize) {
        if depth > MAX_EXPR_DEPTH {
            self.facts.too_complex = true;
            return;
        }
        match node.kind() {
            "assignment_expression" => self.assignment(node, depth),
            "update_expression" => {
                self.facts.trivial = false;
                self.current_write = Some((self.t(node), node.end_byte()));
                if let Some(arg) = node.child_by_field_name("argument") {
                    if !self.discarded.contains(&node.id()) {
                        // `x = count++`, `next_code[len]++` as a value: each iteration sees
                        // what the earlier ones left, not an accumulation.
                        match unparen(arg).kind() {
                            "identifier" => self.scalar_read(unparen(arg)),
                            "subscript_expression" => {
                                self.array_ref(unparen(arg), None, None, depth)
                            }
                            _ => {}
                        }
                    }
                    self.write_target(arg, WriteKind::Accumulate("+".into()), None, depth);
                }
            }
            "subscript_expression" => self.array_ref(node, None, None, depth),
            "identifier" => self.scalar_read(node),
            "call_expression" => self.call(node, depth),
            "field_expression" => {
                if let Some(arg) = node.child_by_field_name("argument") {
                    self.visit(arg, depth + 1);
                }
            }
            "declaration" => {
                let mut cursor = node.walk();
                let decls: Vec<Node> = node
                    .children_by_field_name("declarator", &mut cursor)
                    .collect();
                for d in decls {
                    if let Some(v) = d.child_by_field_name("value") {
                        self.visit(v, depth + 1);
                    }
                    if d.kind() == "array_declarator"
                        && let Some(s) = d.child_by_field_name("size")
                    {
                        self.visit(s, depth + 1);
                    }
                }
            }
            "for_statement" | "while_statement" | "do_statement" | "for_range_loop" => {
                self.loop_nesting += 1;
                let body = node.child_by_field_name("body");
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                if let Some(u) = node.child_by_field_name("update") {
                    self.mark_discarded(u);
                }
                for child in children {
                    if Some(child) == body {
                        self.visit(child, depth + 1);
                    } else {
                        self.in_header += 1;
                        self.visit(child, depth + 1);
                        self.in_header -= 1;
                    }
                }
                self.loop_nesting -= 1;
            }
            "switch_statement" => {
                self.switch_nesting += 1;
                self.conditional += 1;
                self.visit_children(node, depth);
                self.conditional -= 1;
                self.switch_nesting -= 1;
            }
            "if_statement" => self.if_statement(node, depth),
            "conditional_expression" => {
                if let Some(c) = node.child_by_field_name("condition") {
                    self.visit(c, depth + 1);
                }
                self.conditional += 1;
                for field in ["consequence", "alternative"] {
                    if let Some(b) = node.child_by_field_name(field) {
                        self.visit(b, depth + 1);
                    }
                }
                self.conditional -= 1;
            }
            "break_statement" if self.loop_nesting == 0 && self.switch_nesting == 0 => {
                self.hazard_exit(node, "`break`");
            }
            "return_statement" => self.hazard_exit(node, "`return`"),
            "goto_statement" => self.hazard_exit(node, "`goto`"),
            "throw_statement" | "throw_expression" => self.hazard_exit(node, "`throw`"),
            "new_expression" | "delete_expression" => {
                let what = if node.kind() == "new_expression" {
                    "`new`"
                } else {
                    "`delete`"
                };
                self.facts.alloc.get_or_insert(Hazard {
                    what: what.into(),
                    line: line_of(node),
                });
                self.visit_children(node, depth);
            }
            "expression_statement" => {
                if let Some(e) = node.named_child(0) {
                    self.mark_discarded(e);
                }
                // A shift whose value is thrown away only makes sense on a stream (`file << x;`,
                // `in >> a[i];`), whatever the stream is called.
                if let Some(e) = node.named_child(0).map(unparen)
                    && e.kind() == "binary_expression"
                    && e.child_by_field_name("operator")
                        .is_some_and(|o| matches!(text(o, self.src).as_ref(), "<<" | ">>"))
                {
                    self.facts.trivial = false;
                    self.facts.io.get_or_insert(Hazard {
                        what: "stream input/output".into(),
                        line: line_of(node),
                    });
                }
                self.visit_children(node, depth);
            }
            "binary_expression" => {
                let op = node
                    .child_by_field_name("operator")
                    .map(|o| self.t(o))
                    .unwrap_or_default();
                if (op == "<<" || op == ">>") && self.is_stream_chain(node) {
                    self.facts.trivial = false;
                    self.facts.io.get_or_insert(Hazard {
                        what: "stream output".into(),
                        line: line_of(node),
                    });
                }
                self.visit_children(node, depth);
            }
            "pointer_expression" => {
                let op = node
                    .child_by_field_name("operator")
                    .map(|o| self.t(o))
                    .unwrap_or_default();
                let arg = node.child_by_field_name("argument").map(unparen);
                if op == "*" {
                    self.deref(node, None, depth);
                } else if let Some(a) =
                    arg.filter(|a| op == "&" && a.kind() == "subscript_expression")
                {
                    // `&a[i]` takes an address and reads no element: only the subscripts are read.
                    let mut n = a;
                    while n.kind() == "subscript_expression" {
                        if let Some(i) = subscript_index(n) {
                            self.visit(i, depth + 1);
                        }
                        match n.child_by_field_name("argument") {
                            Some(b) => n = unparen(b),
                            None => break,
                        }
                    }
                } else {
                    self.visit_children(node, depth);
                }
            }
            "lambda_expression" => {
                if let Some(body) = node.child_by_field_name("body") {
                    self.visit(body, depth + 1);
                }
            }
            "qualified_identifier"
            | "field_identifier"
            | "type_identifier"
            | "primitive_type"
            | "namespace_identifier"
            | "number_literal"
            | "string_literal"
            | "char_literal"
            | "comment"
            | "raw_string_literal"
            | "concatenated_string" => {}
            "asm_statement" | "gnu_asm_expression" => {
                self.facts.opaque_write.get_or_insert(Hazard {
                    what: "inline assembly".into(),
                    line: line_of(node),
                });
            }
            _ => self.visit_children(node, depth),
        }
    }

    /// `(T)(x)` parses as a call of `(T)`, and `T(x)` is a functional cast: a cast when `T` names
    /// a type (or, parenthesised, is an upper-case macro the file does not show: a type from a
    /// header, since a variable would be declared where the analysis sees it).
    fn is_cast(&self, function: Node) -> bool {
        let inner = unparen(function);
        if !matches!(
            inner.kind(),
            "identifier" | "type_identifier" | "primitive_type" | "qualified_identifier"
        ) {
            return false;
        }
        let name = self.t(inner);
        if self.macros.is_type_name(&name) || inner.kind() == "primitive_type" {
            return true;
        }
        let parenthesised = function.kind() == "parenthesized_expression";
        parenthesised
            && !self.macros.definitions.contains_key(&name)
            && !self.locals.contains(&name)
            && name
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    }

    fn visit_children(&mut self, node: Node, depth: usize) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            self.visit(child, depth + 1);
        }
    }

    fn hazard_exit(&mut self, node: Node, what: &str) {
        self.facts.trivial = false;
        self.facts.exit.get_or_insert(Hazard {
            what: what.into(),
            line: line_of(node),
        });
    }

    fn is_stream_chain(&self, node: Node) -> bool {
        let mut n = unparen(node);
        for _ in 0..MAX_EXPR_DEPTH {
            if n.kind() == "binary_expression" {
                match n.child_by_field_name("left") {
                    Some(l) => n = unparen(l),
                    None => return false,
                }
            } else {
                return STREAMS.contains(&self.t(n).as_str());
            }
        }
        false
    }

    fn assignment(&mut self, node: Node, depth: usize) {
        self.facts.trivial = false;
        self.current_write = Some((self.t(node), node.end_byte()));
        let (Some(left), Some(op), Some(right)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("operator"),
            node.child_by_field_name("right"),
        ) else {
            self.visit_children(node, depth);
            return;
        };
        let left = unparen(left);
        let op = self.t(op);
        match op.as_str() {
            "=" if left.kind() == "identifier" && self.minmax.is_some() => {
                let name = self.t(left);
                let (m, value, kind) = self.minmax.clone().unwrap_or_default();
                let op = if name == m && squash(&self.t(right)) == value {
                    kind
                } else {
                    // Carried along with the extremum (the index of an argmax).
                    format!("arg{kind}")
                };
                self.write_target(left, WriteKind::Accumulate(op), None, depth);
                self.visit(right, depth + 1);
            }
            "=" => {
                // `m = MAX(m, e)` on a fixed element's field (`chunks[c].eigmin`): a reduction
                // of that element.
                if left.kind() == "field_expression"
                    && let Some((red, other)) = self
                        .self_update(&squash(&self.t(left)), right)
                        .filter(|(red, _)| red == "min" || red == "max")
                {
                    self.write_target(left, WriteKind::Accumulate(red), None, depth);
                    self.visit(other, depth + 1);
                    return;
                }
                if left.kind() == "identifier" {
                    let name = self.t(left);
                    if let Some((red, other)) = self.self_update(&name, right) {
                        let r = unparen(right);
                        if r.kind() == "call_expression"
                            && let Some(f) = r.child_by_field_name("function")
                        {
                            self.facts.calls.push((self.t(f), line_of(r)));
                        }
                        self.write_target(left, WriteKind::Accumulate(red), None, depth);
                        self.visit(other, depth + 1);
                        return;
                    }
                    if self.pointer_chase_in(node).is_some() {
                        self.scalar_write(&name, None, true, node);
                        return;
                    }
                } else if left.kind() == "subscript_expression"
                    && let Some((red, operand, same)) = self.array_self_operand(left, right)
                {
                    // `a[j] = a[j] + a[j-1]` is `a[j] += a[j-1]`: an in-place scan.
                    let in_place = same
                        .then(|| self.other_operand(right, operand))
                        .flatten()
                        .filter(|o| {
                            o.kind() == "subscript_expression"
                                && member_path(*o, self.src) == member_path(left, self.src)
                        });
                    if let Some(prev) = in_place {
                        let subs = self.subscripts(prev);
                        self.write_target(
                            left,
                            WriteKind::Accumulate(red.clone()),
                            Some((red, subs)),
                            depth,
                        );
                        let saved = self.write_context.replace(left.start_byte());
                        self.visit(prev, depth + 1);
                        self.write_context = saved;
                    } else if same {
                        self.write_target(left, WriteKind::Accumulate(red), None, depth);
                        self.visit_except(right, operand, depth);
                    } else {
                        let subs = self.subscripts(operand);
                        self.write_target(left, WriteKind::Assign, Some((red, subs)), depth);
                        let saved = self.write_context.replace(left.start_byte());
                        self.visit(right, depth + 1);
                        self.write_context = saved;
                    }
                    return;
                }
                self.write_target(left, WriteKind::Assign, None, depth);
                self.visit(right, depth + 1);
            }
            "+=" | "-=" | "*=" | "|=" | "&=" | "^=" => {
                let red = if op == "-=" {
                    "+"
                } else {
                    op.trim_end_matches('=')
                };
                let op_text = red.to_string();
                if left.kind() == "subscript_expression"
                    && let Some((_, operand, false)) = self.array_self_operand(left, right)
                {
                    // `a[i] += a[i-1]`: an in-place scan.
                    let subs = self.subscripts(operand);
                    self.write_target(
                        left,
                        WriteKind::Accumulate(op_text),
                        Some((red.into(), subs)),
                        depth,
                    );
                    let saved = self.write_context.replace(left.start_byte());
                    self.visit(right, depth + 1);
                    self.write_context = saved;
                    return;
                }
                self.write_target(left, WriteKind::Accumulate(op_text), None, depth);
                self.visit(right, depth + 1);
            }
            _ => {
                // `/=`, `%=`, shifts: not associative, the old value is read.
                self.write_target(left, WriteKind::Assign, None, depth);
                if left.kind() == "identifier" {
                    self.scalar_read(left);
                } else if left.kind() == "subscript_expression" {
                    self.array_ref(left, None, None, depth);
                }
                self.visit(right, depth + 1);
            }
        }
    }

    /// Increments whose value nobody uses (`i++;`, `i++, j++` in a header).
    fn mark_discarded(&mut self, e: Node) {
        let e = unparen(e);
        match e.kind() {
            "update_expression" => {
                self.discarded.insert(e.id());
            }
            "comma_expression" => {
                for c in super::syntax::named_children(e) {
                    self.mark_discarded(c);
                }
            }
            _ => {}
        }
    }

    fn if_statement(&mut self, node: Node, depth: usize) {
        let cond = node.child_by_field_name("condition");
        let pattern = cond.and_then(|c| self.minmax_pattern(node, c));
        match (cond, &pattern) {
            (Some(c), Some((_, skip))) => self.visit_except(c, *skip, depth),
            (Some(c), None) => self.visit(c, depth + 1),
            _ => {}
        }
        let saved = self.minmax.take();
        if let Some((m, _)) = pattern {
            self.minmax = Some(m);
        }
        self.conditional += 1;
        for field in ["consequence", "alternative"] {
            if let Some(b) = node.child_by_field_name(field) {
                self.visit(b, depth + 1);
            }
        }
        self.conditional -= 1;
        self.minmax = saved;
    }

    /// `if (e > m) { m = e; k = i; }` (any of `<`, `>`, `<=`, `>=`, either side, no `else`): a
    /// max (min) reduction of `m`, with `k` carried along (argmax). Returns the pattern and the
    /// `m` of the condition, whose read is part of the reduction.
    fn minmax_pattern<'t>(
        &self,
        node: Node<'t>,
        cond: Node<'t>,
    ) -> Option<((String, String, String), Node<'t>)> {
        if node.child_by_field_name("alternative").is_some() {
            return None;
        }
        let mut c = unparen(cond);
        if c.kind() == "condition_clause" {
            c = unparen(
                c.child_by_field_name("value")
                    .or_else(|| c.named_child(0))?,
            );
        }
        // A guard beside the comparison (`if (x[i] % 2 == 1 && x[i] < m) m = x[i];`): the min of
        // the elements it lets through, provided the guard does not read the accumulator.
        let mut conjuncts = Vec::new();
        super::syntax::conjuncts(c, self.src, &mut conjuncts);
        let found: Vec<_> = conjuncts
            .iter()
            .filter_map(|&k| self.compared_minmax(node, k).map(|f| (k, f)))
            .collect();
        let [(compared, (pattern, acc))] = found.as_slice() else {
            return None;
        };
        let guards_read_it = conjuncts
            .iter()
            .any(|k| k.id() != compared.id() && super::mentions_word(&self.t(*k), &pattern.0));
        if guards_read_it {
            return None;
        }
        Some((pattern.clone(), *acc))
    }

    /// One comparison `e > m` / `m < e` whose `m` the if's body assigns `e`.
    fn compared_minmax<'t>(
        &self,
        node: Node<'t>,
        c: Node<'t>,
    ) -> Option<((String, String, String), Node<'t>)> {
        if c.kind() != "binary_expression" {
            return None;
        }
        let op = self.t(c.child_by_field_name("operator")?);
        let (l, r) = (
            unparen(c.child_by_field_name("left")?),
            unparen(c.child_by_field_name("right")?),
        );
        // Which side is the accumulator: the one assigned the other side in the body.
        let body = node.child_by_field_name("consequence")?;
        for (acc, other, greater_when_left) in [(r, l, true), (l, r, false)] {
            if acc.kind() != "identifier" {
                continue;
            }
            let name = self.t(acc);
            if self.locals.contains(&name) || self.inductions.contains(&name) {
                continue;
            }
            let value = squash(&self.t(other));
            if !self.assigns_in(body, &name, &value) {
                continue;
            }
            // `e > m` with m on the right: m takes larger values, a max.
            let kind = match (op.as_str(), greater_when_left) {
                (">" | ">=", true) | ("<" | "<=", false) => "max",
                ("<" | "<=", true) | (">" | ">=", false) => "min",
                _ => return None,
            };
            return Some(((name, value, kind.to_string()), acc));
        }
        None
    }

    /// Whether `body` holds the statement `name = value;` at its top level.
    fn assigns_in(&self, body: Node, name: &str, value: &str) -> bool {
        let stmts = if body.kind() == "compound_statement" {
            super::syntax::named_children(body)
        } else {
            vec![body]
        };
        stmts.iter().any(|st| {
            st.kind() == "expression_statement"
                && st.named_child(0).is_some_and(|e| {
                    e.kind() == "assignment_expression"
                        && e.child_by_field_name("operator")
                            .is_some_and(|o| text(o, self.src) == "=")
                        && e.child_by_field_name("left")
                            .is_some_and(|l| self.t(unparen(l)) == name)
                        && e.child_by_field_name("right")
                            .is_some_and(|r| squash(&self.t(r)) == value)
                })
        })
    }

    /// Visits `node` but not its descendant `skip` (the operand already accounted for).
    fn visit_except(&mut self, node: Node, skip: Node, depth: usize) {
        if node == skip {
            return;
        }
        if node.byte_range().contains(&skip.start_byte()) && node.kind() != "subscript_expression" {
            let mut cursor = node.walk();
            let children: Vec<Node> = node.named_children(&mut cursor).collect();
            for child in children {
                self.visit_except(child, skip, depth + 1);
            }
        } else {
            self.visit(node, depth + 1);
        }
    }

    /// For `s = s op e` / `s = e op s` / `s = max(s, e)`: the operator and `e`.
    fn self_update<'t>(&self, name: &str, right: Node<'t>) -> Option<(String, Node<'t>)> {
        let r = unparen(right);
        match r.kind() {
            "binary_expression" => {
                let op = self.t(r.child_by_field_name("operator")?);
                let l = r.child_by_field_name("left")?;
                let rr = r.child_by_field_name("right")?;
                let assoc = matches!(op.as_str(), "+" | "*" | "&" | "|" | "^" | "&&" | "||");
                if self.t(unparen(l)) == name && !self.mentions(rr, name) && (assoc || op == "-") {
                    let red = if op == "-" { "+".to_string() } else { op };
                    return Some((red, rr));
                }
                if assoc && self.t(unparen(rr)) == name && !self.mentions(l, name) {
                    return Some((op, l));
                }
                None
            }
            "call_expression" => {
                let f = self.t(r.child_by_field_name("function")?);
                let base = f.trim_start_matches("std::");
                let red = match self.macros.definitions.get(base) {
                    // A macro is what its body computes.
                    Some(def) => minmax_macro(def)?,
                    None => match base {
                        "max" | "fmax" | "fmaxf" | "MAX" => "max",
                        "min" | "fmin" | "fminf" | "MIN" => "min",
                        _ => return None,
                    },
                };
                let args = r.child_by_field_name("arguments")?;
                let mut cursor = args.walk();
                let list: Vec<Node> = args.named_children(&mut cursor).collect();
                if list.len() != 2 {
                    return None;
                }
                let (a, b) = (list[0], list[1]);
                if squash(&self.t(unparen(a))) == name && !self.mentions(b, name) {
                    Some((red.into(), b))
                } else if squash(&self.t(unparen(b))) == name && !self.mentions(a, name) {
                    Some((red.into(), a))
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// For `a[s] = a[t] op e` (or `e op a[t]`): the operator, the `a[t]` node and whether t == s.
    fn array_self_operand<'t>(
        &self,
        left: Node<'t>,
        right: Node<'t>,
    ) -> Option<(String, Node<'t>, bool)> {
        let r = unparen(right);
        let base = member_path(left, self.src);
        if r.kind() == "subscript_expression" {
            // `a[s] += a[t]`: the compound operator is the scan's.
            if member_path(r, self.src) == base {
                let same = squash(&self.t(r)) == squash(&self.t(left));
                return Some(("+".into(), r, same));
            }
            return None;
        }
        if r.kind() != "binary_expression" {
            return None;
        }
        let op = self.t(r.child_by_field_name("operator")?);
        if !matches!(op.as_str(), "+" | "*" | "&" | "|" | "^") {
            return None;
        }
        for operand in [
            r.child_by_field_name("left")?,
            r.child_by_field_name("right")?,
        ] {
            let o = unparen(operand);
            if o.kind() == "subscript_expression" && member_path(o, self.src) == base {
                let same = squash(&self.t(o)) == squash(&self.t(left));
                return Some((op, o, same));
            }
        }
        None
    }

    /// The operand of the binary expression `expr` that is not `one`.
    fn other_operand<'t>(&self, expr: Node<'t>, one: Node<'t>) -> Option<Node<'t>> {
        let e = unparen(expr);
        if e.kind() != "binary_expression" {
            return None;
        }
        let (l, r) = (
            unparen(e.child_by_field_name("left")?),
            unparen(e.child_by_field_name("right")?),
        );
        if l.id() == one.id() {
            Some(r)
        } else if r.id() == one.id() {
            Some(l)
        } else {
            None
        }
    }

    fn mentions(&self, node: Node, name: &str) -> bool {
        let mut found = false;
        for_each_descendant(node, |n| {
            if n.kind() == "identifier" && text(n, self.src) == name {
                found = true;
            }
            !found
        });
        found
    }

    fn subscripts(&self, node: Node) -> Vec<Option<Poly>> {
        let mut subs = Vec::new();
        let mut n = unparen(node);
        while n.kind() == "subscript_expression" {
            let idx = subscript_index(n).and_then(|e| self.poly(e));
            subs.push(idx);
            match n.child_by_field_name("argument") {
                Some(a) => n = unparen(a),
                None => break,
            }
        }
        subs.reverse();
        subs
    }

    fn write_target(
        &mut self,
        lv: Node,
        kind: WriteKind,
        scan: Option<(String, Vec<Option<Poly>>)>,
        depth: usize,
    ) {
        let lv = unparen(lv);
        match lv.kind() {
            "identifier" => {
                let name = self.t(lv);
                if let Some((elem, container)) = self.range_elem.clone()
                    && name == elem
                {
                    self.facts.arrays.push(ArrayRef {
                        array: container,
                        subs: vec![Some(Poly::var(&elem))],
                        text: name,
                        index_arrays: Vec::new(),
                        gathered: Vec::new(),
                        bounded: Vec::new(),
                        choices: Vec::new(),
                        read: matches!(kind, WriteKind::Accumulate(_)),
                        write: Some(kind),
                        line: line_of(lv),
                        scan_operand: None,
                        operand_of_write: None,
                        in_header: self.in_header > 0,
                        start: lv.start_byte(),
                    });
                    return;
                }
                if Some(&name) == self.own_induction.as_ref() {
                    self.facts
                        .induction_problem
                        .get_or_insert(format!("the body changes the loop counter `{name}`"));
                    return;
                }
                if self.shapes.get(&name) == Some(&Shape::Reference) {
                    self.facts.opaque_write.get_or_insert(Hazard {
                        what: format!("the local reference `{name}`"),
                        line: line_of(lv),
                    });
                    return;
                }
                if self.locals.contains(&name) || self.inductions.contains(&name) {
                    return;
                }
                let acc = match kind {
                    WriteKind::Accumulate(op) => Some(op),
                    WriteKind::Assign => None,
                };
                self.scalar_write(&name, acc, false, lv);
            }
            "subscript_expression" => self.array_ref(lv, Some(kind), scan, depth),
            "call_expression" if self.element_accessor(lv).is_some() => {
                self.array_ref(lv, Some(kind), scan, depth)
            }
            "field_expression" => {
                let Some(base) = lv.child_by_field_name("argument").map(unparen) else {
                    return;
                };
                let arrow = lv
                    .child_by_field_name("operator")
                    .is_some_and(|o| text(o, self.src) == "->");
                if base.kind() == "subscript_expression" && !arrow {
                    let at = self.facts.arrays.len();
                    self.array_ref(base, Some(kind), scan, depth);
                    // The field written, not the whole element: `c[k].lo` and `c[k].hi` are
                    // apart.
                    if self.facts.arrays.len() > at
                        && let Some(r) = self.facts.arrays.last_mut()
                    {
                        r.text = text(lv, self.src).to_string();
                    }
                } else if base.kind() == "identifier" && !arrow {
                    let root = self.t(base);
                    if self.locals.contains(&root) {
                        return;
                    }
                    let acc = match kind {
                        WriteKind::Accumulate(op) => Some(op),
                        WriteKind::Assign => None,
                    };
                    self.scalar_write(&self.t(lv), acc, false, lv);
                } else {
                    let root = written_root(lv, self.src).unwrap_or_default();
                    if !self.locals.contains(&root) {
                        self.facts.opaque_write.get_or_insert(Hazard {
                            what: format!("`{}`", self.t(lv)),
                            line: line_of(lv),
                        });
                    }
                    self.visit(base, depth + 1);
                }
            }
            "pointer_expression"
                if lv
                    .child_by_field_name("operator")
                    .is_some_and(|o| text(o, self.src) == "*") =>
            {
                self.deref(lv, Some(kind), depth);
            }
            _ => {
                let root = written_root(lv, self.src).unwrap_or_default();
                if !self.locals.contains(&root) {
                    self.facts.opaque_write.get_or_insert(Hazard {
                        what: format!("`{}`", self.t(lv)),
                        line: line_of(lv),
                    });
                }
                self.visit(lv, depth + 1);
            }
        }
    }

    /// `*p` is `p[0]` and `*(p + e)` is `p[e]` when `p` is a pointer from outside the loop;
    /// anything else is a write (or read) the analysis cannot place.
    fn deref(&mut self, node: Node, write: Option<WriteKind>, depth: usize) {
        let Some(arg) = node.child_by_field_name("argument").map(unparen) else {
            return;
        };
        let outer = |c: &Self, n: Node| {
            n.kind() == "identifier" && {
                let name = c.t(n);
                !c.locals.contains(&name) && !c.inductions.contains(&name)
            }
        };
        let via_local = |c: &Self, n: Node| {
            (n.kind() == "identifier")
                .then(|| c.pointer_defs.get(&c.t(n)).cloned())
                .flatten()
        };
        let placed = if let Some((a, off)) = via_local(self, arg) {
            Some((a, Some(off), None))
        } else if outer(self, arg) {
            Some((self.t(arg), Some(Poly::constant(0)), None))
        } else if arg.kind() == "binary_expression"
            && arg
                .child_by_field_name("operator")
                .is_some_and(|o| text(o, self.src) == "+")
        {
            let (l, r) = (
                arg.child_by_field_name("left").map(unparen),
                arg.child_by_field_name("right").map(unparen),
            );
            match (l, r) {
                (Some(l), Some(r)) if via_local(self, l).is_some() => {
                    let (a, off) = via_local(self, l).unwrap_or_default();
                    Some((a, self.poly(r).and_then(|p| p.add(&off)), Some(r)))
                }
                (Some(l), Some(r)) if outer(self, l) => Some((self.t(l), self.poly(r), Some(r))),
                (Some(l), Some(r)) if outer(self, r) => Some((self.t(r), self.poly(l), Some(l))),
                _ => None,
            }
        } else {
            None
        };
        let Some((array, sub, offset)) = placed else {
            let hazard = Hazard {
                what: format!("`{}`", self.t(node)),
                line: line_of(node),
            };
            if write.is_some() {
                self.facts.opaque_write.get_or_insert(hazard);
            } else {
                self.facts.alias_read.get_or_insert(hazard);
            }
            self.visit(arg, depth + 1);
            return;
        };
        if let Some(o) = offset {
            self.visit(o, depth + 1);
        }
        if write.is_some() {
            self.facts.trivial = false;
        }
        let read = !matches!(write, Some(WriteKind::Assign));
        self.facts.arrays.push(ArrayRef {
            array,
            subs: vec![sub],
            text: self.t(node),
            index_arrays: Vec::new(),
            gathered: Vec::new(),
            bounded: Vec::new(),
            choices: Vec::new(),
            write,
            read,
            line: line_of(node),
            scan_operand: None,
            operand_of_write: self.write_context,
            in_header: self.in_header > 0,
            start: node.start_byte(),
        });
    }

    fn scalar_write(
        &mut self,
        name: &str,
        accumulate: Option<String>,
        pointer_chase: bool,
        node: Node,
    ) {
        self.facts.trivial = false;
        let (stmt_text, end) = self
            .current_write
            .clone()
            .unwrap_or_else(|| (self.t(node), node.end_byte()));
        let assigned = stmt_text
            .split_once('=')
            .filter(|(l, r)| {
                !l.ends_with(['+', '-', '*', '/', '%', '&', '|', '^', '<', '>', '!'])
                    && !r.starts_with('=')
            })
            .map(|(_, r)| squash(r).trim_end_matches(';').to_string());
        self.facts.scalar_writes.push(ScalarWrite {
            name: name.to_string(),
            accumulate,
            pointer_chase,
            line: line_of(node),
            text: stmt_text.trim().to_string(),
            byte: end,
            conditional: self.conditional > 0 || self.loop_nesting > 0,
            assigned,
        });
    }

    fn scalar_read(&mut self, node: Node) {
        let name = self.t(node);
        if let Some((elem, container)) = self.range_elem.clone()
            && name == elem
        {
            self.facts.arrays.push(ArrayRef {
                array: container,
                subs: vec![Some(Poly::var(&elem))],
                text: name,
                index_arrays: Vec::new(),
                gathered: Vec::new(),
                bounded: Vec::new(),
                choices: Vec::new(),
                write: None,
                read: true,
                line: line_of(node),
                scan_operand: None,
                operand_of_write: None,
                in_header: self.in_header > 0,
                start: node.start_byte(),
            });
            return;
        }
        if self.shapes.get(&name) == Some(&Shape::Reference) {
            self.facts.alias_read.get_or_insert(Hazard {
                what: format!("the local reference `{name}`"),
                line: line_of(node),
            });
            return;
        }
        if self.locals.contains(&name) || self.inductions.contains(&name) {
            return;
        }
        if self.macros.values.contains_key(&name) || self.macros.definitions.contains_key(&name) {
            return;
        }
        self.facts
            .scalar_reads
            .push((name, line_of(node), node.start_byte()));
    }

    fn array_ref(
        &mut self,
        node: Node,
        write: Option<WriteKind>,
        scan: Option<(String, Vec<Option<Poly>>)>,
        depth: usize,
    ) {
        let mut subs_nodes = Vec::new();
        let mut n = unparen(node);
        // An element accessor's call is its field's element (`domain.x(i)` is `domain.m_x[i]`).
        let accessed = self.element_accessor(n);
        if let Some((_, index)) = &accessed {
            subs_nodes.push(*index);
            n = unparen(
                n.child_by_field_name("function")
                    .and_then(|f| f.child_by_field_name("argument"))
                    .unwrap_or(n),
            );
        }
        while accessed.is_none() && n.kind() == "subscript_expression" {
            if let Some(idx) = subscript_index(n) {
                subs_nodes.push(idx);
            }
            match n.child_by_field_name("argument") {
                Some(a) => n = unparen(a),
                None => break,
            }
        }
        subs_nodes.reverse();
        let base = n;
        let mut array = accessed.map_or_else(|| self.t(base), |(a, _)| a);
        let mut offset = None;
        if subs_nodes.len() == 1
            && let Some((outer, off)) = self.pointer_defs.get(&array)
        {
            offset = Some(off.clone());
            array = outer.clone();
        }
        if base.kind() == "identifier" && self.keyed.contains(&array) {
            self.facts.opaque_write.get_or_insert(Hazard {
                what: format!("`{}` (`[]` on a map inserts missing keys)", self.t(node)),
                line: line_of(node),
            });
        }
        let is_local =
            offset.is_none() && base.kind() == "identifier" && self.locals.contains(&array);
        let is_private = is_local && self.shapes.get(&array) == Some(&Shape::Storage);
        if is_local && !is_private {
            // Subscripting a local pointer: it may point into any shared array.
            let hazard = Hazard {
                what: format!("`{}` (through the local pointer `{array}`)", self.t(node)),
                line: line_of(node),
            };
            if write.is_some() {
                self.facts.opaque_write.get_or_insert(hazard);
            } else {
                self.facts.alias_read.get_or_insert(hazard);
            }
        }
        if base.kind() != "identifier" {
            // `s.v[i]`, `f()[i]`: visit what the base reads.
            self.visit(base, depth + 1);
        }
        for s in &subs_nodes {
            self.visit(*s, depth + 1);
        }
        if write.is_some() {
            self.facts.trivial = false;
        }
        if is_local {
            return;
        }
        let mut subs: Vec<Option<Poly>> = subs_nodes.iter().map(|s| self.poly(*s)).collect();
        if let Some(off) = offset {
            subs[0] = subs[0].as_ref().and_then(|s| s.add(&off));
        }
        let mut index_arrays: Vec<String> = subs_nodes
            .iter()
            .filter_map(|s| {
                let s = unparen(*s);
                (s.kind() == "subscript_expression")
                    .then(|| {
                        s.child_by_field_name("argument")
                            .map(|a| self.t(unparen(a)))
                    })
                    .flatten()
            })
            .collect();
        // What a subscript that is no polynomial still tells: its index values, its interval.
        let (gathered, bounded): (Vec<_>, Vec<_>) = subs_nodes
            .iter()
            .zip(&subs)
            .map(|(n, p)| match p {
                Some(_) => (None, None),
                None => (self.gather_poly(*n, 0), self.interval(*n, 0)),
            })
            .unzip();
        let choices: Vec<Option<Vec<Poly>>> = subs_nodes
            .iter()
            .zip(&subs)
            .map(|(n, p)| match p {
                Some(_) => None,
                None if self.alternatives.is_empty() => None,
                None => self.positions(*n, &HashMap::new(), 0),
            })
            .collect();
        for g in gathered.iter().flatten() {
            for v in g.vars() {
                if let Some(a) = v.strip_prefix(INDEX_VALUE)
                    && !index_arrays.iter().any(|x| x == a)
                {
                    index_arrays.push(a.to_string());
                }
            }
        }
        let read = match &write {
            None => true,
            Some(WriteKind::Accumulate(_)) => true,
            Some(WriteKind::Assign) => false,
        };
        self.facts.arrays.push(ArrayRef {
            array,
            subs,
            text: self.t(node),
            index_arrays,
            gathered,
            bounded,
            choices,
            write,
            read,
            line: line_of(node),
            scan_operand: scan,
            operand_of_write: self.write_context,
            in_header: self.in_header > 0,
            start: node.start_byte(),
        });
    }

    fn call(&mut self, node: Node, depth: usize) {
        let Some(function) = node.child_by_field_name("function") else {
            return;
        };
        let line = line_of(node);
        if let Some(expansion) = self.expansions.get(key_of(self.src, node)) {
            self.macro_call(node, function, expansion, depth);
            return;
        }
        if self.is_cast(function) {
            if let Some(args) = node.child_by_field_name("arguments") {
                self.visit(args, depth + 1);
            }
            return;
        }
        if self.element_accessor(node).is_some() {
            self.array_ref(node, None, None, depth);
            return;
        }
        let function = unparen(function);
        let name = match function.kind() {
            "field_expression" => {
                let object = function.child_by_field_name("argument");
                let method = function
                    .child_by_field_name("field")
                    .map(|f| self.t(f))
                    .unwrap_or_default();
                if let Some(object) = object {
                    let obj = self.t(unparen(object));
                    if PURE_METHODS.contains(&method.as_str()) {
                        self.facts.method_calls.push((
                            obj.clone(),
                            method.clone(),
                            node.start_byte(),
                            node.end_byte(),
                        ));
                    }
                    self.visit(object, depth + 1);
                    format!("{obj}.{method}")
                } else {
                    method
                }
            }
            "template_function" => function
                .child_by_field_name("name")
                .map(|n| self.t(n))
                .unwrap_or_else(|| self.t(function)),
            _ => {
                if function.kind() != "identifier" && function.kind() != "qualified_identifier" {
                    self.visit(function, depth + 1);
                }
                self.t(function)
            }
        };
        let method = name.rsplit('.').next().unwrap_or("");
        let is_method = name.contains('.');
        if is_io_function(&name) && !is_method {
            self.facts.trivial = false;
            self.facts.io.get_or_insert(Hazard {
                what: format!("`{name}`"),
                line,
            });
        } else if is_method
            && (PURE_METHODS.contains(&method) || self.is_read_only_method(function))
        {
        } else if !is_pure_function(&name, self.macros) {
            self.facts.unknown_calls.push((name.clone(), line));
        }
        self.facts.trivial = false;
        self.facts.calls.push((name, line));
        if let Some(args) = node.child_by_field_name("arguments") {
            self.visit(args, depth + 1);
        }
    }
}

impl<'a> Collector<'a> {
    /// A pure macro's call: its expansion is what the loop runs, read in the call's place (at
    /// its line); one that cannot be expanded is an unknown call.
    fn macro_call(
        &mut self,
        node: Node,
        function: Node,
        expansion: Option<(&'a str, Node<'a>)>,
        depth: usize,
    ) {
        let name = self.t(unparen(function));
        let site = self
            .macro_site
            .unwrap_or((line_of(node), node.start_byte()));
        self.facts.trivial = false;
        self.facts.calls.push((name.clone(), site.0));
        let Some((text, expr)) = expansion else {
            self.facts.unknown_calls.push((name, site.0));
            return;
        };
        if self.macro_site.is_some() {
            let saved = std::mem::replace(&mut self.src, text.as_bytes());
            self.visit(expr, depth + 1);
            self.src = saved;
            return;
        }
        let f = &self.facts;
        let before = (
            f.arrays.len(),
            f.scalar_reads.len(),
            f.scalar_writes.len(),
            f.calls.len(),
            f.unknown_calls.len(),
            f.method_calls.len(),
        );
        let hazards_before = [
            f.io.is_some(),
            f.alloc.is_some(),
            f.exit.is_some(),
            f.opaque_write.is_some(),
            f.alias_read.is_some(),
        ];
        self.macro_site = Some(site);
        let saved = std::mem::replace(&mut self.src, text.as_bytes());
        self.visit(expr, depth + 1);
        self.src = saved;
        self.macro_site = None;
        let (line, byte) = site;
        let f = &mut self.facts;
        f.arrays[before.0..].iter_mut().for_each(|a| a.line = line);
        f.scalar_reads[before.1..].iter_mut().for_each(|r| {
            r.1 = line;
            r.2 = byte;
        });
        f.scalar_writes[before.2..].iter_mut().for_each(|w| {
            w.line = line;
            w.byte = byte;
        });
        f.calls[before.3..].iter_mut().for_each(|c| c.1 = line);
        f.unknown_calls[before.4..]
            .iter_mut()
            .for_each(|c| c.1 = line);
        // Byte ranges of the expansion are not the file's: nothing to rewrite there.
        f.method_calls.truncate(before.5);
        for (had, h) in hazards_before.into_iter().zip([
            &mut f.io,
            &mut f.alloc,
            &mut f.exit,
            &mut f.opaque_write,
            &mut f.alias_read,
        ]) {
            if let Some(h) = h.as_mut().filter(|_| !had) {
                h.line = line;
            }
        }
    }
}

/// `min` or `max` when a two-parameter macro's body is the conditional that picks the smaller
/// or larger argument (`#define MIN(a, b) ((a < b) ? a : b)`).
fn minmax_macro(def: &str) -> Option<&'static str> {
    let m = super::macro_expansion::FunctionMacro::parse(def)?;
    let [_, _] = m.params.as_slice() else {
        return None;
    };
    let body = m.expand(&["$a".into(), "$b".into()])?;
    let shape: String = body
        .chars()
        .filter(|c| !c.is_whitespace() && !"()".contains(*c))
        .collect();
    match shape.as_str() {
        "$a<$b?$a:$b" | "$a<=$b?$a:$b" | "$a>$b?$b:$a" | "$a>=$b?$b:$a" => Some("min"),
        "$a>$b?$a:$b" | "$a>=$b?$a:$b" | "$a<$b?$b:$a" | "$a<=$b?$b:$a" => Some("max"),
        _ => None,
    }
}

/// The most positions [`Collector::positions`] lists for one expression.
const MAX_POSITIONS: usize = 16;

/// The positions of `a` and then those of `b` not among them; `None` beyond [`MAX_POSITIONS`].
fn union_of_positions(mut a: Vec<Poly>, b: Vec<Poly>) -> Option<Vec<Poly>> {
    for p in b {
        if !a.contains(&p) {
            a.push(p);
        }
    }
    (a.len() <= MAX_POSITIONS).then_some(a)
}

/// The statements of the body of the loop `node` and of the `for` loops nested in it (through
/// their bodies' statements), each with the statements and headers that run before it in an
/// iteration.
fn statements_in_order(node: Node) -> Vec<(Node, Vec<Node>)> {
    fn walk<'n>(
        lp: Node<'n>,
        mut earlier: Vec<Node<'n>>,
        out: &mut Vec<(Node<'n>, Vec<Node<'n>>)>,
    ) {
        let Some(body) = lp.child_by_field_name("body") else {
            return;
        };
        if body.kind() != "compound_statement" {
            return;
        }
        for stmt in super::syntax::named_children(body) {
            if stmt.kind() == "for_statement" {
                let mut before = earlier.clone();
                before.extend(loop_header(stmt));
                walk(stmt, before, out);
            }
            out.push((stmt, earlier.clone()));
            earlier.push(stmt);
        }
    }
    let mut out = Vec::new();
    walk(node, Vec::new(), &mut out);
    out
}

/// The parts of a `for` statement that run before its body does.
fn loop_header(stmt: Node) -> Vec<Node> {
    ["initializer", "condition", "update"]
        .iter()
        .filter_map(|f| stmt.child_by_field_name(f))
        .collect()
}

/// The operands of a (nested) comma expression, left to right.
fn comma_parts(e: Node) -> Vec<Node> {
    let e = unparen(e);
    if e.kind() != "comma_expression" {
        return vec![e];
    }
    super::syntax::named_children(e)
        .into_iter()
        .flat_map(comma_parts)
        .collect()
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Node kinds [`Collector::arithmetic`] reads.
fn is_arithmetic(kind: &str) -> bool {
    matches!(
        kind,
        "binary_expression" | "unary_expression" | "cast_expression"
    )
}

pub fn is_integer_type(ty: &str) -> bool {
    let t = ty.trim().trim_start_matches("const ").trim();
    let t = t.strip_prefix("std::").unwrap_or(t);
    matches!(
        t,
        "int"
            | "unsigned"
            | "unsigned int"
            | "signed"
            | "signed int"
            | "long"
            | "long int"
            | "unsigned long"
            | "long long"
            | "unsigned long long"
            | "short"
            | "unsigned short"
            | "char"
            | "unsigned char"
            | "signed char"
            | "size_t"
            | "ptrdiff_t"
            | "int8_t"
            | "int16_t"
            | "int32_t"
            | "int64_t"
            | "uint8_t"
            | "uint16_t"
            | "uint32_t"
            | "uint64_t"
            | "long unsigned int"
            | "unsigned long int"
            | "long long int"
            | "ssize_t"
            | "intptr_t"
            | "uintptr_t"
    )
}

/// Arithmetic operations of a body, outside nested loops (those count for themselves): each binary
/// arithmetic operator or compound assignment is one operation, a pure math call four.
pub fn count_ops(body: Node, src: &[u8], macros: &Macros) -> f64 {
    let mut ops = 0.0;
    for_each_descendant(body, |n| {
        // Nested loops count for themselves; index arithmetic is address computation, not work.
        if super::syntax::is_loop(n.kind()) || n.kind() == "subscript_argument_list" {
            return false;
        }
        match n.kind() {
            "binary_expression" => {
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| text(o, src).to_string())
                    .unwrap_or_default();
                if matches!(
                    op.as_str(),
                    "+" | "-" | "*" | "/" | "%" | "&" | "|" | "^" | "<<" | ">>"
                ) {
                    ops += 1.0;
                }
            }
            "assignment_expression" => {
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| text(o, src).to_string())
                    .unwrap_or_default();
                if op != "=" {
                    ops += 1.0;
                }
            }
            "update_expression" => ops += 1.0,
            "call_expression" => {
                if let Some(f) = n.child_by_field_name("function")
                    && is_pure_function(&text(f, src), macros)
                {
                    ops += 4.0;
                }
            }
            _ => {}
        }
        true
    });
    ops
}
