//! A histogram: each block counts into its own copy of the bins in shared memory, then adds its
//! copy to the bins in global memory; bins too large for shared memory are counted with global
//! atomics directly.

use tree_sitter::Node;

use super::NoPort;
use super::kernel::{BLOCK, Context};
use super::nest::{Parsed, op_of, squash, walk};
use super::types::Scalar;
use crate::analysis::Access;

/// Shared memory a block may use without opting in.
const SHARED_BYTES: u32 = 48 * 1024;

struct Target {
    name: String,
    ty: String,
    extent: String,
}

/// One increment `bins[e]++`, `bins[e] += v` or `bins[e] = bins[e] + v`.
struct Increment<'t> {
    array: String,
    index: String,
    value: String,
    node: Node<'t>,
    /// How often the increment itself names the array: 2 where it is read back (`= bins[e] +`).
    names: usize,
}

/// The increments of arrays in `body` (the caller drops those whose subscript is the counter).
fn increments<'t>(p: &Parsed, body: Node<'t>) -> Vec<Increment<'t>> {
    let mut out = Vec::new();
    walk(body, &mut |n| {
        let names = if n.kind() == "assignment_expression" && op_of(p, n) == "=" {
            2
        } else {
            1
        };
        let (target, value) = match n.kind() {
            "update_expression" => {
                let v = if op_of(p, n) == "++" { "1" } else { "-1" };
                (n.child_by_field_name("argument"), v.to_string())
            }
            "assignment_expression" => {
                let l = n.child_by_field_name("left");
                let r = n.child_by_field_name("right");
                match (op_of(p, n).as_str(), l, r) {
                    ("+=", Some(l), Some(r)) => (Some(l), format!("({})", p.text(r))),
                    ("-=", Some(l), Some(r)) => (Some(l), format!("-({})", p.text(r))),
                    ("=", Some(l), Some(r)) if r.kind() == "binary_expression" => {
                        let a = r.child_by_field_name("left");
                        let b = r.child_by_field_name("right");
                        let lt = squash(p.text(l));
                        match (op_of(p, r).as_str(), a, b) {
                            ("+", Some(a), Some(b)) if squash(p.text(a)) == lt => {
                                (Some(l), format!("({})", p.text(b)))
                            }
                            ("+", Some(a), Some(b)) if squash(p.text(b)) == lt => {
                                (Some(l), format!("({})", p.text(a)))
                            }
                            ("-", Some(a), Some(b)) if squash(p.text(a)) == lt => {
                                (Some(l), format!("-({})", p.text(b)))
                            }
                            _ => (None, String::new()),
                        }
                    }
                    _ => (None, String::new()),
                }
            }
            _ => (None, String::new()),
        };
        let Some(t) = target.filter(|t| t.kind() == "subscript_expression") else {
            return;
        };
        let (Some(arr), Some(idx)) = (
            t.child_by_field_name("argument"),
            t.child_by_field_name("indices")
                .or_else(|| t.child_by_field_name("index")),
        ) else {
            return;
        };
        let idx = p.text(idx).trim();
        let idx = idx
            .strip_prefix('[')
            .and_then(|s| s.strip_suffix(']'))
            .unwrap_or(idx);
        out.push(Increment {
            array: p.text(arr).to_string(),
            index: idx.to_string(),
            value,
            node: n,
            names,
        });
    });
    out
}

pub fn write(ctx: &mut Context) -> Result<(String, String), NoPort> {
    let p = ctx.parsed;
    let body = ctx.body_node();
    let var = ctx.nest.outer.var.clone();
    let incs: Vec<_> = increments(p, body)
        .into_iter()
        .filter(|inc| squash(&inc.index) != var)
        .collect();
    let mut targets: Vec<Target> = Vec::new();
    for Increment {
        array: arr,
        index: idx,
        value,
        node,
        ..
    } in &incs
    {
        let Some(q) = ctx
            .region
            .params
            .iter()
            .find(|q| &q.name == arr && q.is_array && q.access != Access::Read)
        else {
            continue;
        };
        let scalar = Scalar::of(&q.elem_type).ok_or_else(|| {
            NoPort::new(format!(
                "the bins `{arr}` are of type `{}`, not a builtin scalar",
                q.elem_type
            ))
        })?;
        if node
            .parent()
            .is_none_or(|s| s.kind() != "expression_statement")
        {
            return Err(NoPort::new(format!(
                "the value of the increment of `{arr}` is used"
            )));
        }
        let local = format!("port_bins_{arr}");
        let add = scalar
            .atomic_add(&q.elem_type, &format!("&{local}[{idx}]"), value)
            .ok_or_else(|| NoPort::new(format!("no atomic addition for `{}` bins", q.elem_type)))?;
        ctx.edits.replace(node.byte_range(), add);
        if !targets.iter().any(|t| &t.name == arr) {
            targets.push(Target {
                name: arr.clone(),
                ty: q.elem_type.clone(),
                extent: q.extent.clone().unwrap_or_else(|| "1".into()),
            });
        }
    }
    if targets.is_empty() {
        return Err(NoPort::new(
            "no increment of an array at a data-dependent position found",
        ));
    }
    // Every other use of the bins would read a partial count.
    for t in &targets {
        let mut uses = 0;
        walk(body, &mut |n| {
            if n.kind() == "identifier" && p.text(n) == t.name {
                uses += 1;
            }
        });
        let counted: usize = incs
            .iter()
            .filter(|inc| inc.array == t.name)
            .map(|inc| inc.names)
            .sum();
        if uses != counted {
            return Err(NoPort::new(format!(
                "the bins `{}` are read in the loop, not only incremented",
                t.name
            )));
        }
    }
    // One target gets shared-memory bins; more would share the block's memory: global atomics.
    let private = targets.len() == 1;
    let k = ctx.kernel_name("kernel");
    let mut setup = String::new();
    let mut flush = String::new();
    let mut extra_params = String::new();
    let mut extra_args = String::new();
    let mut host = String::new();
    for t in &targets {
        let local = format!("port_bins_{}", t.name);
        if private {
            extra_params.push_str(", long long port_len, bool port_shared");
            extra_args.push_str(", port_len, port_shared");
            host.push_str(&format!(
                "    const long long port_len = (long long)({ext});\n    const bool port_shared = port_len > 0 && port_len * (long long)sizeof({ty}) <= {SHARED_BYTES};\n    const size_t port_smem_bytes = port_shared ? (size_t)port_len * sizeof({ty}) : 0;\n",
                ext = t.extent,
                ty = t.ty
            ));
            setup.push_str(&format!(
                "    extern __shared__ __align__(16) unsigned char port_smem[];\n    {ty}* {local} = port_shared ? reinterpret_cast<{ty}*>(port_smem) : {name};\n    if (port_shared) {{\n        for (long long port_k = threadIdx.x; port_k < port_len; port_k += blockDim.x) {local}[port_k] = ({ty})0;\n        __syncthreads();\n    }}\n",
                ty = t.ty,
                name = t.name
            ));
            let add = Scalar::of(&t.ty)
                .and_then(|s| s.atomic_add(&t.ty, &format!("&{}[port_k]", t.name), "port_v"))
                .expect("checked above");
            flush.push_str(&format!(
                "    if (port_shared) {{\n        __syncthreads();\n        for (long long port_k = threadIdx.x; port_k < port_len; port_k += blockDim.x) {{\n            const {ty} port_v = {local}[port_k];\n            if (port_v != ({ty})0) {add};\n        }}\n    }}\n",
                ty = t.ty
            ));
        } else {
            setup.push_str(&format!("    {ty}* {local} = {};\n", t.name, ty = t.ty));
        }
    }
    let body_text = ctx.body();
    let kernel = format!(
        "__global__ void {k}({params}{extra_params}) {{\n{setup}{prelude}{lp}{flush}}}\n",
        params = ctx.params(),
        prelude = ctx.prelude(),
        lp = ctx.grid_stride(&format!("        {body_text}\n")),
    );
    let smem = if private { "port_smem_bytes" } else { "0" };
    let launch = format!(
        "{}{host}    {k}<<<(unsigned)port_blocks, {BLOCK}, {smem}>>>({args}{extra_args});\n",
        ctx.blocks(&ctx.nest.outer, BLOCK, 132 * 8),
        args = ctx.args()
    );
    let shape = if private {
        "privatised shared-memory histogram (global atomics when the bins do not fit)"
    } else {
        "histogram with global atomics"
    };
    Ok((
        format!("\n{kernel}\n{} {{\n{launch}}}\n", ctx.entry()),
        shape.to_string(),
    ))
}
