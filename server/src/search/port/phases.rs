//! A function of several steps — loops one after another, and plain statements between them
//! (`y[i] *= beta` over the rows, then a scatter-add over the non-zeros; `out[0] = x[0]` before a
//! scan) — is ported step by step: each loop as a region of its own with the kind the analysis
//! gives it, each run of plain statements as a one-thread kernel, launched in order on the same
//! stream so that each step sees the memory the one before it left.
//!
//! What cannot be split that way is refused with the reason: a local value that one step computes
//! and a later one reads (it would not survive between kernels), a declaration that reads memory
//! an earlier step changes, a loop the analysis finds sequential.

use std::collections::BTreeSet;
use std::ops::Range;

use tree_sitter::Node;

use super::NoPort;
use super::nest::{Parsed, walk};
use crate::analysis::{Access, LoopKind, OffloadRegion};

enum Step {
    Loop(Range<usize>),
    Serial(Vec<Range<usize>>),
}

/// The function's steps, when it has more than one that is not a declaration: `None` for a
/// function of one loop (and the write-out after it), which the kinds port as a whole.
pub fn split(p: &Parsed, region: &OffloadRegion) -> Result<Option<Vec<Part>>, NoPort> {
    let Some(func) = super::nest::function_named(p.root(), p, &region.name) else {
        return Ok(None);
    };
    let Some(body) = func.child_by_field_name("body") else {
        return Ok(None);
    };
    let mut cursor = body.walk();
    let stmts: Vec<Node> = body
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect();
    let loops = stmts.iter().filter(|s| s.kind() == "for_statement").count();
    let first_loop = stmts.iter().position(|s| s.kind() == "for_statement");
    let serial_first =
        first_loop.is_some_and(|f| stmts[..f].iter().any(|s| s.kind() != "declaration"));
    if loops < 2 && !serial_first {
        return Ok(None);
    }
    let last_loop = stmts
        .iter()
        .rposition(|s| s.kind() == "for_statement")
        .unwrap_or(0);
    // Declarations so far (their ranges) and the steps, each with the declarations before it.
    let mut decls: Vec<Range<usize>> = Vec::new();
    let mut parts: Vec<Part> = Vec::new();
    let mut serial: Vec<Range<usize>> = Vec::new();
    let flush =
        |serial: &mut Vec<Range<usize>>, decls: &Vec<Range<usize>>, parts: &mut Vec<Part>| {
            if !serial.is_empty() {
                parts.push(Part {
                    step: Step::Serial(std::mem::take(serial)),
                    decls: decls.clone(),
                });
            }
        };
    for (k, s) in stmts.iter().enumerate() {
        match s.kind() {
            "declaration" if k < last_loop => {
                flush(&mut serial, &decls, &mut parts);
                decls.push(s.byte_range());
            }
            "for_statement" => {
                flush(&mut serial, &decls, &mut parts);
                let mut range = s.byte_range();
                if k == last_loop {
                    // The write-out after the last loop belongs to it (a reduction's `*out = s`).
                    range.end = stmts.last().map_or(range.end, |l| l.end_byte());
                }
                parts.push(Part {
                    step: Step::Loop(range),
                    decls: decls.clone(),
                });
                if k == last_loop {
                    break;
                }
            }
            _ => serial.push(s.byte_range()),
        }
    }
    check_carried(p, region, &stmts, &parts)?;
    Ok(Some(parts))
}

pub struct Part {
    step: Step,
    /// The function's declarations before this step.
    decls: Vec<Range<usize>>,
}

/// Names the function declares at its own level.
fn declared_names(p: &Parsed, stmts: &[Node]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in stmts.iter().filter(|s| s.kind() == "declaration") {
        let mut cur = s.walk();
        for d in s.children_by_field_name("declarator", &mut cur) {
            let mut d = d;
            while let Some(inner) = d.child_by_field_name("declarator") {
                d = inner;
            }
            out.insert(p.text(d).to_string());
        }
    }
    out
}

/// Identifiers a step assigns or increments.
pub(super) fn written(p: &Parsed, n: Node) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    walk(n, &mut |x| {
        let target = match x.kind() {
            "assignment_expression" => x.child_by_field_name("left"),
            "update_expression" => x.child_by_field_name("argument"),
            _ => None,
        };
        if let Some(t) = target.filter(|t| t.kind() == "identifier") {
            out.insert(p.text(t).to_string());
        }
    });
    out
}

fn check_carried(
    p: &Parsed,
    region: &OffloadRegion,
    stmts: &[Node],
    parts: &[Part],
) -> Result<(), NoPort> {
    let locals = declared_names(p, stmts);
    let node = |r: &Range<usize>| p.root().descendant_for_byte_range(r.start, r.end);
    let written_arrays: Vec<&str> = region
        .params
        .iter()
        .filter(|q| q.is_array && q.access != Access::Read)
        .map(|q| q.name.as_str())
        .collect();
    for (k, part) in parts.iter().enumerate() {
        let ranges = match &part.step {
            Step::Loop(r) => vec![r.clone()],
            Step::Serial(v) => v.clone(),
        };
        if k + 1 < parts.len() {
            for r in &ranges {
                let Some(n) = node(r) else { continue };
                if let Some(v) = written(p, n).into_iter().find(|w| locals.contains(w)) {
                    return Err(NoPort::new(format!(
                        "step {} of the function sets the local `{v}`, which would not survive into the next kernel",
                        k + 1
                    )));
                }
            }
        }
    }
    // A declaration is evaluated again by every later step: it must not read memory a step
    // between changes.
    for (k, part) in parts.iter().enumerate().skip(1) {
        for d in &part.decls {
            let text = &p.src[d.clone()];
            let earlier_changes = parts[..k].iter().any(|q| !q.decls.contains(d));
            if earlier_changes
                && let Some(a) = written_arrays
                    .iter()
                    .find(|a| crate::analysis::mentions_word(text, a))
            {
                return Err(NoPort::new(format!(
                    "the declaration `{}` reads `{a}`, which an earlier step of the function changes",
                    text.trim()
                )));
            }
        }
    }
    Ok(())
}

/// The ports of the steps and a launcher that runs them in order.
pub fn port(p: &Parsed, region: &OffloadRegion, parts: Vec<Part>) -> Result<super::Port, NoPort> {
    let func = super::nest::function_named(p.root(), p, &region.name)
        .ok_or_else(|| NoPort::new(format!("no function `{}` in the source", region.name)))?;
    let body = func
        .child_by_field_name("body")
        .ok_or_else(|| NoPort::new("the function has no body"))?;
    let name_node = function_name(func).ok_or_else(|| NoPort::new("the function has no name"))?;
    let mut edits = super::device::Edits::default();
    super::device::make_device(p, &(0..func.start_byte()), &mut edits);
    let mut includes: BTreeSet<String> = BTreeSet::new();
    let mut before = String::new();
    let mut code = String::new();
    let mut calls = String::new();
    let mut shapes = Vec::new();
    for (k, part) in parts.iter().enumerate() {
        let step_name = format!("{}_step{}", region.name, k + 1);
        let decls: String = part
            .decls
            .iter()
            .map(|d| format!("    {}\n", &p.src[d.clone()]))
            .collect();
        match &part.step {
            Step::Loop(r) => {
                let head = format!(
                    "{}{step_name}{} {{\n{decls}    ",
                    &p.src[..name_node.start_byte()],
                    p.src[name_node.end_byte()..body.start_byte()].trim_end(),
                );
                let line = head.matches('\n').count() + 1;
                let src = format!("{head}{}\n}}\n", &p.src[r.clone()]);
                let report =
                    crate::analysis::analyze_source(src.as_bytes(), crate::analysis::Language::Cpp);
                let l = report
                    .loops
                    .iter()
                    .find(|l| l.line == line)
                    .ok_or_else(|| {
                        NoPort::new(format!("step {}: the analysis sees no loop", k + 1))
                    })?;
                if !l.parallel || l.kind == LoopKind::Sequential {
                    return Err(NoPort::new(format!(
                        "step {} of the function (the loop `{}`) is sequential: {}",
                        k + 1,
                        first_line(&p.src[r.clone()]),
                        l.reason
                    )));
                }
                let mut sub = region.clone();
                sub.name = step_name.clone();
                sub.source = src;
                sub.kind = l.kind;
                let parts = super::port_parts(&sub)?;
                includes.extend(parts.includes.lines().map(str::to_string));
                if before.is_empty() {
                    before = parts.before;
                }
                let entry = format!("void {}(", sub.gpu_entry_name());
                code.push_str(&parts.body.replacen(&entry, &format!("static {entry}"), 1));
                shapes.push(format!("{} ({})", l.kind.as_str(), parts.shape));
                calls.push_str(&format!(
                    "    {}({});\n",
                    sub.gpu_entry_name(),
                    args(region)
                ));
            }
            Step::Serial(stmts) => {
                let text: String = stmts
                    .iter()
                    .map(|s| format!("    {}\n", edits.apply(p.src, s.clone())))
                    .collect();
                let k_name = format!("{}_port_serial", step_name);
                code.push_str(&format!(
                    "\n// One thread: statements between the function's loops, in order.\n__global__ void {k_name}({params}) {{\n{decls}{text}}}\n",
                    params = params(region),
                ));
                shapes.push("one thread".to_string());
                calls.push_str(&format!("    {k_name}<<<1, 1>>>({});\n", args(region)));
            }
        }
    }
    let shape = format!("{} steps: {}", parts.len(), shapes.join(", then "));
    let mut out = format!(
        "// Starting kernel written by cuda-offload's port generator (not a model): {shape}.\n"
    );
    for i in &includes {
        out.push_str(i);
        out.push('\n');
    }
    out.push_str(super::device::HELPERS);
    out.push_str(&before);
    out.push_str(&code);
    out.push_str(&format!(
        "\n{} {{\n{calls}}}\n",
        region.signature_named(&region.gpu_entry_name())
    ));
    Ok(super::Port { code: out, shape })
}

fn function_name(func: Node) -> Option<Node> {
    let mut d = func.child_by_field_name("declarator");
    while let Some(x) = d {
        if x.kind() == "function_declarator" {
            return x.child_by_field_name("declarator");
        }
        d = x.child_by_field_name("declarator");
    }
    None
}

fn params(region: &OffloadRegion) -> String {
    region
        .signature_named("co")
        .trim_start_matches("void co(")
        .trim_end_matches(')')
        .to_string()
}

fn args(region: &OffloadRegion) -> String {
    region
        .params
        .iter()
        .map(|q| q.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("").trim()
}
