//! The shape of a region's serial function as the port needs it: what comes before the function
//! (macros, helpers), the declarations before the loop, the counted loop (or a perfect nest of two)
//! and the body, as byte ranges into `region.source` so that the kinds can rewrite parts of it.

use std::ops::Range;

use tree_sitter::{Node, Parser, Tree};

use super::NoPort;
use crate::analysis::OffloadRegion;

/// A parsed serial function; node ranges index `src`.
pub struct Parsed<'s> {
    pub src: &'s str,
    tree: Tree,
}

impl<'s> Parsed<'s> {
    pub fn new(src: &'s str) -> Result<Parsed<'s>, NoPort> {
        let mut parser = Parser::new();
        parser
            .set_language(&tree_sitter_cpp::LANGUAGE.into())
            .map_err(|e| NoPort::new(format!("the C++ grammar does not load: {e}")))?;
        let tree = parser
            .parse(src, None)
            .ok_or_else(|| NoPort::new("the serial function does not parse"))?;
        Ok(Parsed { src, tree })
    }

    pub fn root(&self) -> Node<'_> {
        self.tree.root_node()
    }

    pub fn text(&self, n: Node) -> &'s str {
        &self.src[n.byte_range()]
    }
}

/// A loop counter `var` taking `trips` values `start + t * step`, `t` in `0..trips`.
#[derive(Debug, Clone)]
pub struct Counted {
    pub var: String,
    /// The counter's declared type when the loop declares it (`int i = 0`); `None` when the loop
    /// assigns a counter declared before it.
    pub decl_type: Option<String>,
    pub start: String,
    pub step: i64,
    /// Number of iterations as a C expression (evaluated in `long long`, never negative).
    pub trips: String,
    /// Identifiers the start and the bound read.
    pub reads: Vec<String>,
    /// Variables the header advances with the counter (`ii++, iOff++`), each by a constant step.
    pub companions: Vec<Companion>,
}

/// A variable a loop header starts and steps beside its counter: `iOff` of
/// `for (int iOff = 64*iBox, ii = 0; ii < n; ii++, iOff++)`, `start + t * step` in iteration `t`.
#[derive(Debug, Clone)]
pub struct Companion {
    pub var: String,
    pub decl_type: Option<String>,
    pub start: String,
    pub step: i64,
}

/// The region's function, split where the port needs it.
pub struct Nest {
    /// Text before the function (the macros and pure helpers the region carries).
    pub before: Range<usize>,
    /// Declarations before the loop, in order.
    pub prelude: Vec<Range<usize>>,
    /// Statements after the loop (a reduction's write-out of local accumulators).
    pub after: Vec<Range<usize>>,
    pub outer: Counted,
    /// The inner loop of a perfect, rectangular nest of two independent loops (a 2-D mapping).
    pub inner: Option<Counted>,
    /// The body of the outer loop (a statement, braces included).
    pub body: Range<usize>,
    /// The body of the inner loop of a 2-D nest.
    pub inner_body: Option<Range<usize>>,
    /// Byte range of the outer loop statement.
    pub outer_loop: Range<usize>,
    /// Lines (1-based, in the source) of the outer and inner loop, to find them in an analysis.
    pub outer_line: usize,
    pub inner_line: Option<usize>,
}

/// Finds the loop nest of `region` in its parsed source.
pub fn nest(p: &Parsed, region: &OffloadRegion) -> Result<Nest, NoPort> {
    let func = function_named(p.root(), p, &region.name)
        .ok_or_else(|| NoPort::new(format!("no function `{}` in the source", region.name)))?;
    let body = func
        .child_by_field_name("body")
        .ok_or_else(|| NoPort::new("the function has no body"))?;
    let mut prelude = Vec::new();
    let mut after = Vec::new();
    let mut the_loop = None;
    let mut cursor = body.walk();
    for stmt in body.named_children(&mut cursor) {
        match stmt.kind() {
            "comment" => {}
            "declaration" if the_loop.is_none() => prelude.push(stmt.byte_range()),
            "for_statement" if the_loop.is_none() => the_loop = Some(stmt),
            _ if the_loop.is_none() => {
                return Err(NoPort::new(format!(
                    "a statement before the loop (`{}`) would run in every thread",
                    first_line(p.text(stmt))
                )));
            }
            _ => after.push(stmt.byte_range()),
        }
    }
    let outer_node =
        the_loop.ok_or_else(|| NoPort::new("the function has no counted `for` loop"))?;
    let outer = counted(p, outer_node)?;
    let outer_body = outer_node
        .child_by_field_name("body")
        .ok_or_else(|| NoPort::new("the loop has no body"))?;
    let inner_node = only_statement(outer_body).filter(|s| s.kind() == "for_statement");
    let inner = inner_node.and_then(|n| counted(p, n).ok().map(|c| (n, c)));
    let (inner, inner_body, inner_line) = match inner {
        Some((n, c)) if !c.reads.contains(&outer.var) => {
            let b = n
                .child_by_field_name("body")
                .ok_or_else(|| NoPort::new("the inner loop has no body"))?;
            (
                Some(c),
                Some(b.byte_range()),
                Some(n.start_position().row + 1),
            )
        }
        _ => (None, None, None),
    };
    Ok(Nest {
        before: 0..func.start_byte(),
        prelude,
        after,
        outer,
        inner,
        body: outer_body.byte_range(),
        inner_body,
        outer_loop: outer_node.byte_range(),
        outer_line: outer_node.start_position().row + 1,
        inner_line,
    })
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("").trim()
}

/// The statement a loop body consists of, braces or not.
fn only_statement(body: Node) -> Option<Node> {
    if body.kind() != "compound_statement" {
        return Some(body);
    }
    let mut cursor = body.walk();
    let stmts: Vec<Node> = body
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect();
    (stmts.len() == 1).then(|| stmts[0])
}

/// The last definition of a function called `name` (helpers come first).
pub fn function_named<'t>(root: Node<'t>, p: &Parsed, name: &str) -> Option<Node<'t>> {
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|n| n.kind() == "function_definition")
        .filter(|n| {
            let mut d = n.child_by_field_name("declarator");
            while let Some(x) = d {
                if x.kind() == "function_declarator" {
                    return x
                        .child_by_field_name("declarator")
                        .is_some_and(|id| p.text(id) == name);
                }
                d = x.child_by_field_name("declarator");
            }
            false
        })
        .last()
}

/// Identifiers read by `n` (field names and called functions excluded).
pub fn identifiers(p: &Parsed, n: Node) -> Vec<String> {
    let mut out = Vec::new();
    walk(n, &mut |x| {
        if x.kind() == "identifier" {
            let call = x
                .parent()
                .filter(|pa| pa.kind() == "call_expression")
                .and_then(|pa| pa.child_by_field_name("function"))
                .is_some_and(|f| f.id() == x.id());
            if !call {
                out.push(p.text(x).to_string());
            }
        }
    });
    out.sort();
    out.dedup();
    out
}

/// Calls `f` on `n` and every node below it, in source order.
pub fn walk<'t>(n: Node<'t>, f: &mut dyn FnMut(Node<'t>)) {
    f(n);
    let mut cursor = n.walk();
    for c in n.children(&mut cursor) {
        walk(c, f);
    }
}

/// Reads a `for` header `init; var op bound; step`.
fn counted(p: &Parsed, node: Node) -> Result<Counted, NoPort> {
    let field = |name: &str| node.child_by_field_name(name);
    let (init, cond, update) = match (field("initializer"), field("condition"), field("update")) {
        (Some(i), Some(c), Some(u)) => (i, c, u),
        _ => {
            return Err(NoPort::new(
                "the loop header is not `init; condition; step`",
            ));
        }
    };
    let starts = starts_of(p, init)?;
    let steps: Vec<Node> = comma_parts(update);
    let var = counter_of(p, cond, &starts)?;
    let (decl_type, start) = starts
        .iter()
        .find(|s| s.var == var)
        .map(|s| (s.decl_type.clone(), s.value.clone()))
        .ok_or_else(|| NoPort::new(format!("the loop does not start its counter `{var}`")))?;
    let step_of_var = |v: &str| steps.iter().find_map(|u| step_of(p, *u, v));
    let step = step_of_var(&var).ok_or_else(|| {
        NoPort::new(format!(
            "the step `{}` is not a constant step of `{var}`",
            p.text(update)
        ))
    })?;
    let mut companions = Vec::new();
    for s in starts.iter().filter(|s| s.var != var) {
        // Each thread computes the start of its iteration from the header's values, so a start
        // must not read what the header itself starts.
        if let Some(x) = s.reads.iter().find(|x| starts.iter().any(|o| &o.var == *x)) {
            return Err(NoPort::new(format!(
                "the header starts `{}` from `{x}`, which it starts too",
                s.var
            )));
        }
        let step = step_of_var(&s.var).ok_or_else(|| {
            NoPort::new(format!(
                "the header starts `{}` beside the counter `{var}` but does not step it by a constant",
                s.var
            ))
        })?;
        companions.push(Companion {
            var: s.var.clone(),
            decl_type: s.decl_type.clone(),
            start: s.value.clone(),
            step,
        });
    }
    if steps.len() != 1 + companions.len() {
        return Err(NoPort::new(format!(
            "the step `{}` updates a variable the header does not start",
            p.text(update)
        )));
    }
    if cond.kind() != "binary_expression" {
        return Err(NoPort::new(format!(
            "the condition `{}` is not a comparison",
            p.text(cond)
        )));
    }
    let (l, r) = (
        cond.child_by_field_name("left"),
        cond.child_by_field_name("right"),
    );
    let (Some(l), Some(r)) = (l, r) else {
        return Err(NoPort::new("the condition has no two sides"));
    };
    let op = op_of(p, cond);
    let (op, bound) = if p.text(l) == var {
        (op, r)
    } else if p.text(r) == var {
        (flip(&op), l)
    } else {
        return Err(NoPort::new(format!(
            "the condition `{}` does not compare the counter `{var}`",
            p.text(cond)
        )));
    };
    let (s, b) = (
        format!("(long long)({start})"),
        format!("(long long)({})", p.text(bound)),
    );
    let a = step.unsigned_abs();
    let trips = match (op.as_str(), step > 0) {
        ("<", true) => format!("({b} > {s} ? ({b} - {s} + {}) / {a} : 0LL)", a - 1),
        ("<=", true) => format!("({b} >= {s} ? ({b} - {s}) / {a} + 1 : 0LL)"),
        (">", false) => format!("({s} > {b} ? ({s} - {b} + {}) / {a} : 0LL)", a - 1),
        (">=", false) => format!("({s} >= {b} ? ({s} - {b}) / {a} + 1 : 0LL)"),
        ("!=", _) if a == 1 => {
            if step > 0 {
                format!("({b} > {s} ? {b} - {s} : 0LL)")
            } else {
                format!("({s} > {b} ? {s} - {b} : 0LL)")
            }
        }
        _ => {
            return Err(NoPort::new(format!(
                "the condition `{}` does not match the step {step}",
                p.text(cond)
            )));
        }
    };
    let mut reads = identifiers(p, bound);
    reads.extend(
        starts
            .iter()
            .flat_map(|s| s.reads.iter())
            .filter(|x| starts.iter().all(|s| &s.var != *x))
            .cloned(),
    );
    reads.sort();
    reads.dedup();
    Ok(Counted {
        var,
        decl_type,
        start,
        step,
        trips,
        reads,
        companions,
    })
}

/// A variable a `for` header's initializer starts.
struct Start {
    var: String,
    decl_type: Option<String>,
    value: String,
    reads: Vec<String>,
}

/// What the initializer starts: `int i = 0, j = n`, `i = 0` or `i = 0, j = n`.
fn starts_of(p: &Parsed, init: Node) -> Result<Vec<Start>, NoPort> {
    let mut out = Vec::new();
    match init.kind() {
        "declaration" => {
            let ty = init
                .child_by_field_name("type")
                .map(|t| p.text(t).to_string())
                .ok_or_else(|| NoPort::new("the counter has no type"))?;
            let mut cursor = init.walk();
            for d in init.children_by_field_name("declarator", &mut cursor) {
                if d.kind() != "init_declarator" {
                    return Err(NoPort::new("the loop declares a variable without a value"));
                }
                let name = d.child_by_field_name("declarator");
                let value = d.child_by_field_name("value");
                match (name, value) {
                    (Some(n), Some(v)) if n.kind() == "identifier" => out.push(Start {
                        var: p.text(n).to_string(),
                        decl_type: Some(ty.clone()),
                        value: p.text(v).to_string(),
                        reads: identifiers(p, v),
                    }),
                    _ => return Err(NoPort::new("the counter has no start value")),
                }
            }
        }
        _ => {
            for a in comma_parts(init) {
                if a.kind() != "assignment_expression" || op_of(p, a) != "=" {
                    return Err(NoPort::new("the loop does not start a single counter"));
                }
                let l = a.child_by_field_name("left");
                let r = a.child_by_field_name("right");
                match (l, r) {
                    (Some(l), Some(r)) if l.kind() == "identifier" => out.push(Start {
                        var: p.text(l).to_string(),
                        decl_type: None,
                        value: p.text(r).to_string(),
                        reads: identifiers(p, r),
                    }),
                    _ => return Err(NoPort::new("the counter has no start value")),
                }
            }
        }
    }
    if out.is_empty() {
        return Err(NoPort::new("the loop does not start a counter"));
    }
    Ok(out)
}

/// The variable the condition compares: the counter, one of those the header starts.
fn counter_of(p: &Parsed, cond: Node, starts: &[Start]) -> Result<String, NoPort> {
    if starts.len() == 1 {
        return Ok(starts[0].var.clone());
    }
    let sides = [
        cond.child_by_field_name("left"),
        cond.child_by_field_name("right"),
    ];
    sides
        .into_iter()
        .flatten()
        .find_map(|n| starts.iter().find(|s| s.var == p.text(n)))
        .map(|s| s.var.clone())
        .ok_or_else(|| {
            NoPort::new(format!(
                "the condition `{}` compares none of the variables the header starts",
                p.text(cond)
            ))
        })
}

/// The operands of a comma expression, left to right (the node itself when it is none).
fn comma_parts(n: Node) -> Vec<Node> {
    if n.kind() != "comma_expression" {
        return vec![n];
    }
    let mut out = Vec::new();
    if let Some(l) = n.child_by_field_name("left") {
        out.extend(comma_parts(l));
    }
    if let Some(r) = n.child_by_field_name("right") {
        out.extend(comma_parts(r));
    }
    out
}

fn flip(op: &str) -> String {
    match op {
        "<" => ">",
        ">" => "<",
        "<=" => ">=",
        ">=" => "<=",
        o => o,
    }
    .to_string()
}

/// The operator token of a binary, assignment or update expression.
pub fn op_of(p: &Parsed, n: Node) -> String {
    n.child_by_field_name("operator")
        .map(|o| p.text(o).to_string())
        .unwrap_or_default()
}

fn step_of(p: &Parsed, update: Node, var: &str) -> Option<i64> {
    let int = |n: Node| int_literal(p.text(n));
    match update.kind() {
        "update_expression" => {
            let arg = update.child_by_field_name("argument")?;
            if p.text(arg) != var {
                return None;
            }
            match op_of(p, update).as_str() {
                "++" => Some(1),
                "--" => Some(-1),
                _ => None,
            }
        }
        "assignment_expression" => {
            let l = update.child_by_field_name("left")?;
            let r = update.child_by_field_name("right")?;
            if p.text(l) != var {
                return None;
            }
            match op_of(p, update).as_str() {
                "+=" => int(r),
                "-=" => int(r).map(|v| -v),
                "=" if r.kind() == "binary_expression" => {
                    let (a, b) = (
                        r.child_by_field_name("left")?,
                        r.child_by_field_name("right")?,
                    );
                    match (op_of(p, r).as_str(), p.text(a) == var, p.text(b) == var) {
                        ("+", true, _) => int(b),
                        ("+", _, true) => int(a),
                        ("-", true, _) => int(b).map(|v| -v),
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        _ => None,
    }
    .filter(|&s| s != 0)
}

/// `s` without its whitespace: how the ports compare expressions as the code spells them.
pub fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// A decimal or hexadecimal integer literal, suffixes allowed.
fn int_literal(s: &str) -> Option<i64> {
    let t = s.trim().trim_end_matches(['u', 'U', 'l', 'L']);
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => i64::from_str_radix(h, 16).ok(),
        None => t.parse().ok(),
    }
}
