//! A scan `a[i] = a[i - 1] op f(i)`, or one through a running value (`s op= f(i); out[i] = s;`,
//! `if (x[i] < m) m = x[i];`): a kernel gathers the value before the first iteration and every
//! `f(i)` into a buffer, CUB's device-wide inclusive scan combines them, a second kernel runs the
//! rest of the body with the running value read from the buffer (the entry before an iteration's
//! update where a statement reads it before, the entry after where it reads it after: inclusive
//! and exclusive scans alike).

use std::ops::Range;

use tree_sitter::Node;

use super::NoPort;
use super::kernel::{BLOCK, Context, MAX_BLOCKS};
use super::nest::{Counted, Parsed, op_of, squash};
use super::reduction::Op;
use super::types::Scalar;

fn strip_parens(mut n: Node) -> Node {
    while n.kind() == "parenthesized_expression" {
        match n.named_child(0) {
            Some(c) => n = c,
            None => break,
        }
    }
    n
}

/// `array[index]` as text pairs.
fn subscript(p: &Parsed, n: Node) -> Option<(String, String)> {
    let n = strip_parens(n);
    if n.kind() != "subscript_expression" {
        return None;
    }
    let a = n.child_by_field_name("argument")?;
    let i = n
        .child_by_field_name("indices")
        .or_else(|| n.child_by_field_name("index"))?;
    let i = squash(p.text(i));
    let i = i
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .map(str::to_string)
        .unwrap_or(i);
    Some((p.text(a).to_string(), i))
}

struct Recurrence {
    array: String,
    op: Op,
    /// `f(i)`, the value combined at iteration `i`.
    term: String,
}

fn recurrence(ctx: &Context) -> Result<Recurrence, NoPort> {
    let p = ctx.parsed;
    let c = &ctx.nest.outer;
    if c.step.abs() != 1 {
        return Err(NoPort::new("a scan with a step other than 1"));
    }
    let var = &c.var;
    let prev = if c.step > 0 {
        format!("{var}-1")
    } else {
        format!("{var}+1")
    };
    let mut body = ctx.body_node();
    if body.kind() == "compound_statement" {
        let mut cur = body.walk();
        let stmts: Vec<Node> = body
            .named_children(&mut cur)
            .filter(|n| n.kind() != "comment")
            .collect();
        if stmts.len() != 1 {
            return Err(NoPort::new("the scan's body is more than one statement"));
        }
        body = stmts[0];
    }
    let not_one = || NoPort::new("the scan's body is not `a[i] = a[i - 1] op f(i)`");
    if body.kind() != "expression_statement" {
        return Err(not_one());
    }
    let e = body.named_child(0).ok_or_else(not_one)?;
    if e.kind() != "assignment_expression" {
        return Err(not_one());
    }
    let left = e.child_by_field_name("left").ok_or_else(not_one)?;
    let right = strip_parens(e.child_by_field_name("right").ok_or_else(not_one)?);
    let (array, idx) = subscript(p, left).ok_or_else(not_one)?;
    if &idx != var {
        return Err(not_one());
    }
    let is_prev = |n: Node| subscript(p, n).is_some_and(|(a, i)| a == array && i == prev);
    let (op, term) = match op_of(p, e).as_str() {
        "+=" if is_prev(right) => (Op::Add, p.text(left).to_string()),
        "*=" if is_prev(right) => (Op::Mul, p.text(left).to_string()),
        "=" => match right.kind() {
            "binary_expression" => {
                let a = right.child_by_field_name("left").ok_or_else(not_one)?;
                let b = right.child_by_field_name("right").ok_or_else(not_one)?;
                let op = match op_of(p, right).as_str() {
                    "+" => Op::Add,
                    "*" => Op::Mul,
                    _ => return Err(not_one()),
                };
                if is_prev(a) {
                    (op, p.text(b).to_string())
                } else if is_prev(b) {
                    (op, p.text(a).to_string())
                } else {
                    return Err(not_one());
                }
            }
            "call_expression" => {
                let f = right.child_by_field_name("function").ok_or_else(not_one)?;
                let op = Op::from_call(p.text(f)).ok_or_else(not_one)?;
                let args = right.child_by_field_name("arguments").ok_or_else(not_one)?;
                let mut cur = args.walk();
                let args: Vec<Node> = args.named_children(&mut cur).collect();
                match args.as_slice() {
                    [a, b] if is_prev(*a) => (op, p.text(*b).to_string()),
                    [a, b] if is_prev(*b) => (op, p.text(*a).to_string()),
                    _ => return Err(not_one()),
                }
            }
            _ => return Err(not_one()),
        },
        _ => return Err(not_one()),
    };
    if term != p.text(left) && crate::analysis::mentions_word(&term, &array) {
        return Err(NoPort::new(format!(
            "the combined value `{term}` reads `{array}` itself"
        )));
    }
    Ok(Recurrence { array, op, term })
}

pub fn write(ctx: &mut Context) -> Result<(String, String), NoPort> {
    let c = ctx.nest.outer.clone();
    if !ctx.host_computable(&c) {
        return Err(NoPort::new("the scan's length is only known on the device"));
    }
    let r = match recurrence(ctx) {
        Ok(r) => r,
        Err(array_form) => match carried(ctx) {
            Ok(k) => return write_carried(ctx, &c, k),
            Err(e) if e.reason.starts_with("the scan's body is neither") => return Err(array_form),
            Err(e) => return Err(e),
        },
    };
    let q = ctx
        .region
        .params
        .iter()
        .find(|q| q.name == r.array && q.is_array)
        .ok_or_else(|| NoPort::new(format!("`{}` is not a parameter", r.array)))?;
    let ty = q.elem_type.clone();
    let before = format!("({start}) - ({step}LL)", start = c.start, step = c.step);
    let code = emit(
        ctx,
        &c,
        &ty,
        r.op,
        &format!("{}[{before}]", r.array),
        &format!("port_tmp[port_t + 1] = ({ty})({});", r.term),
        &format!("{}[{}] = port_tmp[port_t + 1];", r.array, c.var),
    )?;
    Ok((
        code,
        format!("CUB device-wide inclusive scan ({:?})", r.op).to_lowercase(),
    ))
}

fn write_carried(ctx: &mut Context, c: &Counted, k: Carried) -> Result<(String, String), NoPort> {
    let p = ctx.parsed;
    let locals: String = k
        .locals
        .iter()
        .map(|r| ctx.edits.apply(p.src, r.clone()))
        .filter(|d| !crate::analysis::mentions_word(d, &k.var))
        .map(|d| format!("{d}\n        "))
        .collect();
    let term = ctx.edits.apply(p.src, k.term.clone());
    let body = ctx.nest.body.clone();
    let uses = format!(
        "{var} = port_tmp[port_t];\n        {head}{var} = port_tmp[port_t + 1];{tail}",
        var = k.var,
        head = ctx.edits.apply(p.src, body.start..k.update.start),
        tail = ctx.edits.apply(p.src, k.update.end..body.end),
    );
    let code = emit(
        ctx,
        c,
        &k.ty,
        k.op,
        &k.var,
        &format!("{locals}port_tmp[port_t + 1] = ({ty})({term});", ty = k.ty),
        &uses,
    )?;
    Ok((
        code,
        format!("CUB device-wide scan of `{}` ({:?})", k.var, k.op).to_lowercase(),
    ))
}

/// The gather kernel (`seed` into `port_tmp[0]` by one thread, `gather` per iteration), CUB's
/// inclusive scan over `port_tmp`, and the scatter kernel (`scatter` per iteration).
fn emit(
    ctx: &mut Context,
    c: &Counted,
    ty: &str,
    op: Op,
    seed: &str,
    gather: &str,
    scatter: &str,
) -> Result<String, NoPort> {
    if Scalar::of(ty).is_none() {
        return Err(NoPort::new(format!(
            "a scan of `{ty}`, not a builtin scalar"
        )));
    }
    ctx.include("cub/device/device_scan.cuh");
    let gather_k = ctx.kernel_name("gather");
    let scatter_k = ctx.kernel_name("scatter");
    let params = ctx.params();
    let prelude = ctx.prelude();
    let counter = Context::counter(c, "port_t");
    let stride = |inside: &str| {
        format!(
            "    const long long port_trips = {trips};\n    for (long long port_t = (long long)blockIdx.x * blockDim.x + threadIdx.x; port_t < port_trips; port_t += (long long)gridDim.x * blockDim.x) {{\n        {counter}\n        {inside}\n    }}\n",
            trips = c.trips
        )
    };
    Ok(format!(
        "
struct port_scan_op {{
    __device__ {ty} operator()(const {ty}& a, const {ty}& b) const {{ return {op}; }}
}};

// port_tmp[0]: the value before the first iteration; port_tmp[t + 1]: what iteration t combines.
__global__ void {gather_k}({params}, {ty}* port_tmp) {{
{prelude}    if (blockIdx.x == 0 && threadIdx.x == 0) port_tmp[0] = {seed};
{g}}}

__global__ void {scatter_k}({params}, const {ty}* port_tmp) {{
{prelude}{s}}}

{entry} {{
{blocks}    {ty}* port_tmp = nullptr;
    if (cudaMalloc(&port_tmp, (size_t)(port_trips + 1) * sizeof({ty})) != cudaSuccess) return;
    {gather_k}<<<(unsigned)port_blocks, {BLOCK}>>>({args}, port_tmp);
    size_t port_bytes = 0;
    cub::DeviceScan::InclusiveScan(nullptr, port_bytes, port_tmp, port_tmp, port_scan_op(), port_trips + 1);
    void* port_work = nullptr;
    if (cudaMalloc(&port_work, port_bytes) == cudaSuccess) {{
        cub::DeviceScan::InclusiveScan(port_work, port_bytes, port_tmp, port_tmp, port_scan_op(), port_trips + 1);
        {scatter_k}<<<(unsigned)port_blocks, {BLOCK}>>>({args}, port_tmp);
        cudaFree(port_work);
    }}
    cudaFree(port_tmp);
}}
",
        op = op.apply("a", "b"),
        g = stride(gather),
        s = stride(scatter),
        entry = ctx.entry(),
        blocks = ctx.blocks(c, BLOCK, MAX_BLOCKS * 16),
        args = ctx.args(),
    ))
}

/// A scan through a scalar: `s op= f(i);` in the body, `s` declared before the loop, and the other
/// statements reading `s` after its update (an inclusive scan) or before it (an exclusive one).
struct Carried {
    var: String,
    ty: String,
    op: Op,
    /// `f(i)`, the value combined at iteration `i`.
    term: Range<usize>,
    /// The update statement.
    update: Range<usize>,
    /// Declarations before the update (the term may read them).
    locals: Vec<Range<usize>>,
}

/// The type `name` is declared with among the declarations before the loop, if it is declared
/// there with a value.
fn declared_before(p: &Parsed, ctx: &Context, name: &str) -> Option<String> {
    for r in &ctx.nest.prelude {
        let d = p.root().descendant_for_byte_range(r.start, r.end)?;
        if d.kind() != "declaration" {
            continue;
        }
        let ty = d.child_by_field_name("type")?;
        let mut cur = d.walk();
        for init in d.children_by_field_name("declarator", &mut cur) {
            if init.kind() == "init_declarator"
                && init
                    .child_by_field_name("declarator")
                    .is_some_and(|x| p.text(x) == name)
            {
                let quals: Vec<&str> = {
                    let mut c2 = d.walk();
                    d.children(&mut c2)
                        .filter(|c| c.kind() == "type_qualifier")
                        .map(|c| p.text(c))
                        .collect()
                };
                if quals.contains(&"const") {
                    return None;
                }
                return Some(p.text(ty).to_string());
            }
        }
    }
    None
}

/// `s op= f`, `s = s op f`, `s = min(s, f)` or `if (f < s) s = f;`: the scalar, its operator and
/// the term's node.
fn scalar_update<'t>(p: &Parsed, stmt: Node<'t>) -> Option<(String, Op, Node<'t>)> {
    if stmt.kind() == "if_statement" {
        if stmt.child_by_field_name("alternative").is_some() {
            return None;
        }
        let cond = strip_parens(stmt.child_by_field_name("condition")?);
        let cond = if cond.kind() == "condition_clause" {
            strip_parens(cond.child_by_field_name("value")?)
        } else {
            cond
        };
        if cond.kind() != "binary_expression" {
            return None;
        }
        let mut then = stmt.child_by_field_name("consequence")?;
        if then.kind() == "compound_statement" {
            let mut cur = then.walk();
            let v: Vec<Node> = then
                .named_children(&mut cur)
                .filter(|n| n.kind() != "comment")
                .collect();
            if v.len() != 1 {
                return None;
            }
            then = v[0];
        }
        let e = then
            .named_child(0)
            .filter(|_| then.kind() == "expression_statement")?;
        if e.kind() != "assignment_expression" || op_of(p, e) != "=" {
            return None;
        }
        let s = p.text(e.child_by_field_name("left")?).to_string();
        let value = strip_parens(e.child_by_field_name("right")?);
        let (a, b) = (
            strip_parens(cond.child_by_field_name("left")?),
            strip_parens(cond.child_by_field_name("right")?),
        );
        let less = match op_of(p, cond).as_str() {
            "<" | "<=" => true,
            ">" | ">=" => false,
            _ => return None,
        };
        let v = squash(p.text(value));
        // `value < s` and `s > value` keep the smaller.
        let op = if squash(p.text(a)) == v && p.text(b) == s {
            if less { Op::Min } else { Op::Max }
        } else if p.text(a) == s && squash(p.text(b)) == v {
            if less { Op::Max } else { Op::Min }
        } else {
            return None;
        };
        return Some((s, op, value));
    }
    if stmt.kind() != "expression_statement" {
        return None;
    }
    let e = stmt.named_child(0)?;
    if e.kind() != "assignment_expression" {
        return None;
    }
    let left = e.child_by_field_name("left")?;
    if left.kind() != "identifier" {
        return None;
    }
    let s = p.text(left).to_string();
    let right = strip_parens(e.child_by_field_name("right")?);
    match op_of(p, e).as_str() {
        "+=" => Some((s, Op::Add, right)),
        "*=" => Some((s, Op::Mul, right)),
        "=" => match right.kind() {
            "binary_expression" => {
                let a = strip_parens(right.child_by_field_name("left")?);
                let b = strip_parens(right.child_by_field_name("right")?);
                let op = match op_of(p, right).as_str() {
                    "+" => Op::Add,
                    "*" => Op::Mul,
                    _ => return None,
                };
                if p.text(a) == s {
                    Some((s, op, b))
                } else if p.text(b) == s {
                    Some((s, op, a))
                } else {
                    None
                }
            }
            "call_expression" => {
                let f = right.child_by_field_name("function")?;
                let op = Op::from_call(p.text(f))?;
                let args = right.child_by_field_name("arguments")?;
                let mut cur = args.walk();
                let args: Vec<Node> = args.named_children(&mut cur).collect();
                match args.as_slice() {
                    [a, b] if p.text(strip_parens(*a)) == s => Some((s, op, *b)),
                    [a, b] if p.text(strip_parens(*b)) == s => Some((s, op, *a)),
                    _ => None,
                }
            }
            _ => None,
        },
        _ => None,
    }
}

fn carried(ctx: &Context) -> Result<Carried, NoPort> {
    let p = ctx.parsed;
    let body = ctx.body_node();
    let not_one = || {
        NoPort::new(
            "the scan's body is neither `a[i] = a[i - 1] op f(i)` nor `s op= f(i)` with uses of `s`",
        )
    };
    if body.kind() != "compound_statement" {
        return Err(not_one());
    }
    let mut cur = body.walk();
    let stmts: Vec<Node> = body
        .named_children(&mut cur)
        .filter(|n| n.kind() != "comment")
        .collect();
    let mut found = None;
    for (k, s) in stmts.iter().enumerate() {
        if let Some((var, op, term)) = scalar_update(p, *s)
            && let Some(ty) = declared_before(p, ctx, &var)
        {
            if found.is_some() {
                return Err(NoPort::new(
                    "the scan's body updates more than one running value",
                ));
            }
            found = Some((k, var, op, term, ty));
        }
    }
    let (at, var, op, term, ty) = found.ok_or_else(not_one)?;
    if crate::analysis::mentions_word(p.text(term), &var) {
        return Err(NoPort::new(format!(
            "the combined value reads `{var}` itself"
        )));
    }
    let mut locals = Vec::new();
    for (k, s) in stmts.iter().enumerate() {
        if k == at {
            continue;
        }
        // Every other statement may read the running value, never write it.
        let mut writes = false;
        super::nest::walk(*s, &mut |n| {
            let target = match n.kind() {
                "assignment_expression" => n.child_by_field_name("left"),
                "update_expression" => n.child_by_field_name("argument"),
                _ => None,
            };
            if target.is_some_and(|t| p.text(t) == var) {
                writes = true;
            }
        });
        if writes {
            return Err(NoPort::new(format!(
                "`{var}` is written in the scan's body more than once"
            )));
        }
        if k < at && s.kind() == "declaration" {
            locals.push(s.byte_range());
        }
    }
    Ok(Carried {
        var,
        ty,
        op,
        term: term.byte_range(),
        update: stmts[at].byte_range(),
        locals,
    })
}
