//! A scan `a[i] = a[i - 1] op f(i)`: a kernel gathers the element before the first iteration and
//! every `f(i)` into a buffer, CUB's device-wide inclusive scan combines them, a second kernel
//! writes the results back.

use tree_sitter::Node;

use super::NoPort;
use super::kernel::{BLOCK, Context, MAX_BLOCKS};
use super::nest::{Parsed, op_of};
use super::reduction::Op;
use super::types::Scalar;

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

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
    let r = recurrence(ctx)?;
    let c = ctx.nest.outer.clone();
    if !ctx.host_computable(&c) {
        return Err(NoPort::new("the scan's length is only known on the device"));
    }
    let q = ctx
        .region
        .params
        .iter()
        .find(|q| q.name == r.array && q.is_array)
        .ok_or_else(|| NoPort::new(format!("`{}` is not a parameter", r.array)))?;
    let ty = q.elem_type.clone();
    if Scalar::of(&ty).is_none() {
        return Err(NoPort::new(format!(
            "a scan of `{ty}`, not a builtin scalar"
        )));
    }
    ctx.include("cub/device/device_scan.cuh");
    let gather = ctx.kernel_name("gather");
    let scatter = ctx.kernel_name("scatter");
    let params = ctx.params();
    let prelude = ctx.prelude();
    let counter = Context::counter(&c, "port_t");
    let stride = |inside: &str| {
        format!(
            "    const long long port_trips = {trips};\n    for (long long port_t = (long long)blockIdx.x * blockDim.x + threadIdx.x; port_t < port_trips; port_t += (long long)gridDim.x * blockDim.x) {{\n        {counter}\n        {inside}\n    }}\n",
            trips = c.trips
        )
    };
    let before = format!("({start}) - ({step}LL)", start = c.start, step = c.step);
    let code = format!(
        "
struct port_scan_op {{
    __device__ {ty} operator()(const {ty}& a, const {ty}& b) const {{ return {op}; }}
}};

// port_tmp[0]: the element before the first iteration; port_tmp[t + 1]: what iteration t combines.
__global__ void {gather}({params}, {ty}* port_tmp) {{
{prelude}    if (blockIdx.x == 0 && threadIdx.x == 0) port_tmp[0] = {array}[{before}];
{g}}}

__global__ void {scatter}({params}, const {ty}* port_tmp) {{
{prelude}{s}}}

{entry} {{
{blocks}    {ty}* port_tmp = nullptr;
    if (cudaMalloc(&port_tmp, (size_t)(port_trips + 1) * sizeof({ty})) != cudaSuccess) return;
    {gather}<<<(unsigned)port_blocks, {BLOCK}>>>({args}, port_tmp);
    size_t port_bytes = 0;
    cub::DeviceScan::InclusiveScan(nullptr, port_bytes, port_tmp, port_tmp, port_scan_op(), port_trips + 1);
    void* port_work = nullptr;
    if (cudaMalloc(&port_work, port_bytes) == cudaSuccess) {{
        cub::DeviceScan::InclusiveScan(port_work, port_bytes, port_tmp, port_tmp, port_scan_op(), port_trips + 1);
        {scatter}<<<(unsigned)port_blocks, {BLOCK}>>>({args}, port_tmp);
        cudaFree(port_work);
    }}
    cudaFree(port_tmp);
}}
",
        op = r.op.apply("a", "b"),
        array = r.array,
        g = stride(&format!("port_tmp[port_t + 1] = ({ty})({});", r.term)),
        s = stride(&format!("{}[{}] = port_tmp[port_t + 1];", r.array, c.var)),
        entry = ctx.entry(),
        blocks = ctx.blocks(&c, BLOCK, MAX_BLOCKS * 16),
        args = ctx.args(),
    );
    Ok((
        code,
        format!("CUB device-wide inclusive scan ({:?})", r.op).to_lowercase(),
    ))
}
