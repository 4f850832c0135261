//! The syntax the residency pass reads: functions and their parameters, the calls the offload's
//! edit marked and the wrapper declarations, arguments, mentions of names, declarations.

use std::collections::{BTreeSet, HashMap, HashSet};

use tree_sitter::Node;

use super::{CALL_MARK, DECL_MARK, Function, RANGE_HELPER_TAG, RESIDENCY_TAG, Unit};
use crate::analysis::Language;
use crate::analysis::syntax::{end_line_of, for_each_descendant, is_loop, line_of, text};

pub(super) fn functions<'t>(root: Node<'t>, src: &[u8]) -> Vec<Function<'t>> {
    let mut out = Vec::new();
    for_each_descendant(root, |n| {
        if n.kind() != "function_definition" {
            return true;
        }
        let (Some(decl), Some(body)) = (
            n.child_by_field_name("declarator"),
            n.child_by_field_name("body"),
        ) else {
            return false;
        };
        let Some(fdecl) = find_kind(decl, "function_declarator") else {
            return false;
        };
        let name = fdecl
            .child_by_field_name("declarator")
            .map(|d| text(d, src).into_owned())
            .unwrap_or_default();
        let mut params = Vec::new();
        if let Some(list) = fdecl.child_by_field_name("parameters") {
            let mut cursor = list.walk();
            for p in list.named_children(&mut cursor) {
                params.push(
                    p.child_by_field_name("declarator")
                        .and_then(|d| declared_name(d, src))
                        .unwrap_or_default(),
                );
            }
        }
        out.push(Function {
            name,
            params,
            node: n,
            body,
        });
        false
    });
    out
}

pub(super) fn find_kind<'t>(n: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut found = None;
    for_each_descendant(n, |x| {
        if found.is_none() && x.kind() == kind {
            found = Some(x);
        }
        found.is_none()
    });
    found
}

/// The name a declarator declares (through `*`, `&`, `[]`, initialisers).
pub(super) fn declared_name(d: Node, src: &[u8]) -> Option<String> {
    let mut n = d;
    loop {
        match n.kind() {
            "identifier" => return Some(text(n, src).into_owned()),
            _ => {
                n = n
                    .child_by_field_name("declarator")
                    .or_else(|| n.named_child(0))?
            }
        }
    }
}

/// `X_cuda` → its parameters, "is a pointer" each, from the declarations the offload's edit wrote.
pub(super) fn wrapper_declarations(source: &str) -> HashMap<String, (Vec<bool>, bool)> {
    let mut out = HashMap::new();
    for l in source.lines() {
        if !(l.contains(DECL_MARK) && l.trim_end().ends_with("(cuda-offload)"))
            || l.contains(RANGE_HELPER_TAG)
        {
            continue;
        }
        let code = l.split("//").next().unwrap_or("");
        let (Some(open), Some(close)) = (code.find('('), code.rfind(')')) else {
            continue;
        };
        let Some(name) = code[..open].split_whitespace().last() else {
            continue;
        };
        let params = code[open + 1..close]
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .map(|p| p.contains('*') || p.contains('['))
            .collect();
        out.insert(name.to_string(), (params, l.contains(RESIDENCY_TAG)));
    }
    out
}

/// Offloaded units of the text: the marked call lines.
pub(super) fn marked_units(
    root: Node,
    src: &[u8],
    decls: &HashMap<String, (Vec<bool>, bool)>,
) -> Vec<Unit> {
    let lines: Vec<&str> = std::str::from_utf8(src).unwrap_or("").lines().collect();
    let mut out = Vec::new();
    for_each_descendant(root, |n| {
        if n.kind() == "call_expression" {
            let name = call_name(n, src);
            let line = line_of(n);
            let marked = lines
                .get(line - 1)
                .is_some_and(|l| l.contains(CALL_MARK) && l.contains(&format!("{name}(")));
            if let (true, Some((pointers, tagged))) = (marked, decls.get(&name)) {
                let exprs: Vec<String> = arguments(n)
                    .into_iter()
                    .zip(pointers)
                    .filter(|(_, p)| **p)
                    .map(|(a, _)| text(a, src).trim().to_string())
                    .filter(|a| !a.starts_with('&') || plain_root(a).is_some())
                    .collect();
                out.push(Unit {
                    lines: (line, end_line_of(n)),
                    roots: exprs
                        .iter()
                        .map(|a| plain_root(a).unwrap_or_else(|| a.clone()))
                        .collect(),
                    exprs,
                    name: name.trim_end_matches("_cuda").to_string(),
                    predates_residency: !tagged,
                });
            }
        }
        true
    });
    out
}

/// Functions with a parallel loop that has a region: what a user could offload next.
pub(super) fn offloadable_functions(src: &[u8]) -> HashSet<String> {
    crate::analysis::analyze_source(src, Language::Cpp)
        .loops
        .into_iter()
        .filter(|l| l.parallel && l.region.is_some())
        .filter_map(|l| l.function)
        .collect()
}

pub(super) fn call_name(call: Node, src: &[u8]) -> String {
    call.child_by_field_name("function")
        .map(|f| text(f, src).into_owned())
        .unwrap_or_default()
}

pub(super) fn arguments(call: Node) -> Vec<Node> {
    call.child_by_field_name("arguments")
        .map(|a| {
            let mut cursor = a.walk();
            a.named_children(&mut cursor)
                .filter(|c| c.kind() != "comment")
                .collect()
        })
        .unwrap_or_default()
}

/// `u`, `u.data()`, `&u[0]` → `u`: an argument that passes an array as it is and reads nothing.
pub(super) fn plain_root(arg: &str) -> Option<String> {
    let a: String = arg.chars().filter(|c| !c.is_whitespace()).collect();
    let ident = |s: &str| {
        let mut chars = s.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let root = if let Some(r) = a.strip_suffix(".data()") {
        r
    } else if let Some(r) = a.strip_prefix('&').and_then(|r| r.strip_suffix("[0]")) {
        r
    } else {
        a.as_str()
    };
    ident(root).then(|| root.to_string())
}

/// Identifier nodes under `n` naming `name` (fields of other objects are `field_identifier`s).
pub(super) fn mentions<'t>(n: Node<'t>, name: &str, src: &[u8]) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    for_each_descendant(n, |x| {
        if x.kind() == "identifier" && text(x, src) == name {
            out.push(x);
        }
        true
    });
    out
}

pub(super) fn mentions_all<'t>(n: Node<'t>, names: &BTreeSet<String>, src: &[u8]) -> Vec<Node<'t>> {
    names.iter().flat_map(|t| mentions(n, t, src)).collect()
}

pub(super) fn calls_in(n: Node) -> Vec<Node> {
    let mut out = Vec::new();
    for_each_descendant(n, |x| {
        if x.kind() == "call_expression" {
            out.push(x);
        }
        true
    });
    out
}

pub(super) fn has_throw(n: Node) -> bool {
    find_kind(n, "throw_expression").is_some() || find_kind(n, "throw_statement").is_some()
}

pub(super) fn inside(n: Node, outer: Node) -> bool {
    outer.start_byte() <= n.start_byte() && n.end_byte() <= outer.end_byte()
}

/// Loops around `n` inside `body`, innermost first.
pub(super) fn enclosing_loops<'t>(n: Node<'t>, body: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut cur = n.parent();
    while let Some(p) = cur {
        if !inside(p, body) {
            break;
        }
        if is_loop(p.kind()) {
            out.push(p);
        }
        cur = p.parent();
    }
    out
}

/// The outermost statement of `body` starting on `line`.
pub(super) fn statement_at<'t>(body: Node<'t>, line: usize) -> Option<Node<'t>> {
    let mut found = None;
    for_each_descendant(body, |x| {
        if found.is_some() {
            return false;
        }
        if line_of(x) == line && x.kind().ends_with("statement") && x != body {
            found = Some(x);
            return false;
        }
        line_of(x) <= line && line <= end_line_of(x)
    });
    found
}

/// An array kept resident must outlive the loop (the copy back writes into it after the loop) and
/// be the same variable in every iteration: a parameter or a local declared before the loop.
pub(super) fn declared_before(
    f: &Function,
    name: &str,
    lp: Node,
    src: &[u8],
) -> Result<(), String> {
    if f.params.iter().any(|p| p == name) {
        return Ok(());
    }
    let mut before = false;
    let mut within = false;
    for_each_descendant(f.node, |x| {
        if x.kind() == "declaration" {
            let mut cursor = x.walk();
            // Every declarator: `std::vector<float> px(n), fx(n);` (which tree-sitter may read as
            // function declarators) declares both.
            let declares = x
                .children_by_field_name("declarator", &mut cursor)
                .any(|d| declared_name(d, src).as_deref() == Some(name));
            if declares {
                if inside(x, lp) {
                    within = true;
                } else if x.start_byte() < lp.start_byte() {
                    before = true;
                }
            }
        }
        true
    });
    match (before, within) {
        (_, true) => Err(format!(
            "`{name}` is declared inside the loop at line {}: a new array each iteration",
            line_of(lp)
        )),
        (true, false) => Ok(()),
        (false, false) => Err(format!(
            "`{name}` is not a local or parameter of {}: only those are kept on the device",
            f.name
        )),
    }
}

/// How a name is declared in a function, as far as swaps and pointer copies care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// `float* p`: copying or swapping it moves no data.
    Pointer,
    /// A `std::vector` (or a reference to one): `swap` exchanges buffers.
    Vector,
    /// Anything else, or declared more than one way.
    Other,
}

pub(super) fn declared_shape(f: &Function, name: &str, src: &[u8]) -> Shape {
    let mut shapes = Vec::new();
    for_each_descendant(f.node, |x| {
        if matches!(x.kind(), "declaration" | "parameter_declaration") {
            let ty = x
                .child_by_field_name("type")
                .map(|t| text(t, src).into_owned())
                .unwrap_or_default();
            let mut cursor = x.walk();
            for d in x.children_by_field_name("declarator", &mut cursor) {
                if declared_name(d, src).as_deref() != Some(name) {
                    continue;
                }
                let mut d = d;
                while d.kind() == "init_declarator" {
                    match d.child_by_field_name("declarator") {
                        Some(inner) => d = inner,
                        None => break,
                    }
                }
                shapes.push(match d.kind() {
                    "pointer_declarator" => Shape::Pointer,
                    "identifier" | "reference_declarator" | "function_declarator"
                        if ty.contains("vector") =>
                    {
                        Shape::Vector
                    }
                    _ => Shape::Other,
                });
            }
        }
        true
    });
    match shapes.split_first() {
        Some((first, rest)) if rest.iter().all(|s| s == first) => *first,
        _ => Shape::Other,
    }
}

pub(super) fn old_wrapper(name: &str) -> String {
    format!(
        "{name}_cuda.cu was generated before residency (its wrapper has no registry): offload that loop again"
    )
}

pub(super) fn is_io(name: &str) -> bool {
    let base = name.rsplit("::").next().unwrap_or(name);
    matches!(
        base,
        "printf"
            | "fprintf"
            | "puts"
            | "fputs"
            | "fwrite"
            | "fread"
            | "scanf"
            | "fscanf"
            | "write"
            | "read"
    ) || name.starts_with("std::cout")
}

pub(super) fn first_word(s: &str) -> String {
    s.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next()
        .unwrap_or("")
        .to_string()
}

pub(super) fn squash(s: &str) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 60 {
        format!("{}…", one.chars().take(57).collect::<String>())
    } else {
        one
    }
}
