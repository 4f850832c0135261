//! An extremum with values carried along: `if (d < best) { best = d; at = i; }` (arg-min,
//! arg-max, and a guard beside the comparison). Each thread runs the body on private copies,
//! noting the serial ordinal of the iteration that last set them; the block's and then the
//! grid's partials are folded in a fixed order by a rule that gives the serial answer exactly:
//! the better value wins, and between equal values the earlier iteration for a strict
//! comparison (`<`, `>`: the first one found stays) or the later one for `<=`/`>=`. A partial
//! that never updated keeps the start values and loses to any that did.

use tree_sitter::Node;

use super::NoPort;
use super::kernel::{BLOCK, Context};
use super::nest::{Parsed, op_of, walk};
use super::reduction::{compared_op, deref_of, is_deref_of, split_conjunction};
use super::types::Scalar;
use crate::analysis::Access;

/// One accumulator of the group: the extremum or a value carried with it.
struct Member {
    name: String,
    ty: String,
    /// A pointer parameter (`*best`); else a local declared before the loop.
    param: bool,
}

impl Member {
    fn private(&self) -> String {
        if self.param {
            format!("port_v_{}", self.name)
        } else {
            self.name.clone()
        }
    }
}

struct Group<'t> {
    update: Node<'t>,
    /// The extremum first, then the carried values.
    members: Vec<Member>,
    max: bool,
    strict: bool,
}

/// The group's kernels when the body is one arg-extremum update; `None` when it is not one.
pub fn write(ctx: &mut Context) -> Option<Result<(String, String), NoPort>> {
    let group = match find(ctx) {
        Ok(Some(g)) => g,
        Ok(None) => return None,
        Err(e) => return Some(Err(e)),
    };
    Some(generate(ctx, group))
}

/// Accumulator candidates: output pointers of one element and locals declared before the loop.
fn candidates(ctx: &Context) -> Vec<Member> {
    let p = ctx.parsed;
    let mut out: Vec<Member> = ctx
        .region
        .params
        .iter()
        .filter(|q| q.is_array && q.access != Access::Read && q.extent.as_deref() == Some("1"))
        .map(|q| Member {
            name: q.name.clone(),
            ty: q.elem_type.clone(),
            param: true,
        })
        .collect();
    for r in &ctx.nest.prelude {
        let Some(decl) = p.root().descendant_for_byte_range(r.start, r.end) else {
            continue;
        };
        let Some(ty) = decl.child_by_field_name("type").map(|t| p.text(t)) else {
            continue;
        };
        let mut c = decl.walk();
        for d in decl.children_by_field_name("declarator", &mut c) {
            let name = if d.kind() == "init_declarator" {
                d.child_by_field_name("declarator")
            } else {
                Some(d)
            };
            if let Some(n) = name.filter(|n| n.kind() == "identifier") {
                out.push(Member {
                    name: p.text(n).to_string(),
                    ty: ty.to_string(),
                    param: false,
                });
            }
        }
    }
    out
}

/// The statements of a branch: a block's children, or the one statement.
fn statements(branch: Node) -> Vec<Node> {
    if branch.kind() == "compound_statement" {
        let mut c = branch.walk();
        branch.named_children(&mut c).collect()
    } else {
        vec![branch]
    }
}

/// `target = value;` with the target an accumulator candidate: (its index, the value).
fn assignment<'t>(p: &Parsed, st: Node<'t>, cands: &[Member]) -> Option<(usize, Node<'t>)> {
    if st.kind() != "expression_statement" {
        return None;
    }
    let e = st.named_child(0)?;
    if e.kind() != "assignment_expression" || op_of(p, e) != "=" {
        return None;
    }
    let left = e.child_by_field_name("left")?;
    let k = cands.iter().position(|c| is_deref_of(p, left, &c.name))?;
    Some((k, e.child_by_field_name("right")?))
}

fn find<'t>(ctx: &Context<'t>) -> Result<Option<Group<'t>>, NoPort> {
    let p = ctx.parsed;
    let cands = candidates(ctx);
    let body = ctx.body_node();
    let mut ifs = Vec::new();
    walk(body, &mut |n| {
        if n.kind() == "if_statement" {
            ifs.push(n);
        }
    });
    let mut found: Option<Group> = None;
    for u in ifs {
        if u.child_by_field_name("alternative").is_some() {
            continue;
        }
        let (Some(cond), Some(branch)) = (
            u.child_by_field_name("condition"),
            u.child_by_field_name("consequence"),
        ) else {
            continue;
        };
        let assigned: Vec<Option<(usize, Node)>> = statements(branch)
            .into_iter()
            .map(|st| assignment(p, st, &cands))
            .collect();
        if assigned.len() < 2 || assigned.iter().any(Option::is_none) {
            continue;
        }
        let assigned: Vec<(usize, Node)> = assigned.into_iter().flatten().collect();
        let mut cond = cond;
        while matches!(cond.kind(), "condition_clause" | "parenthesized_expression") {
            match cond.named_child(0) {
                Some(c) => cond = c,
                None => break,
            }
        }
        let mut conjuncts = Vec::new();
        split_conjunction(p, cond, &mut conjuncts);
        let squash = |n: Node| p.text(n).split_whitespace().collect::<String>();
        let mut extremum = None;
        for c in &conjuncts {
            for &(k, value) in &assigned {
                let v = squash(value);
                let same = |n: Node| squash(n) == v;
                if let Some(op) = compared_op(p, *c, &cands[k].name, &same) {
                    let strict = matches!(op_of(p, *c).as_str(), "<" | ">");
                    extremum = Some((k, *c, op == super::reduction::Op::Max, strict));
                }
            }
        }
        let Some((m, compared, max, strict)) = extremum else {
            continue;
        };
        if found.is_some() {
            return Err(NoPort::new("two arg-min/arg-max updates in one loop"));
        }
        let mut order: Vec<usize> = vec![m];
        order.extend(assigned.iter().map(|(k, _)| *k).filter(|k| *k != m));
        let names: Vec<&str> = order.iter().map(|k| cands[*k].name.as_str()).collect();
        // Every use of the group in the body is this update: the comparison's accumulator side
        // and the assignments' targets. Anything else reads a thread's partial as if it were
        // the serial value.
        let mut stray = None;
        walk(body, &mut |n| {
            if n.kind() != "identifier" || !names.contains(&p.text(n)) {
                return;
            }
            let in_compared = n.start_byte() >= compared.start_byte()
                && n.end_byte() <= compared.end_byte()
                && p.text(n) == cands[m].name;
            let is_target = assigned.iter().any(|(_, value)| {
                value
                    .parent()
                    .and_then(|a| a.child_by_field_name("left"))
                    .is_some_and(|l| {
                        n.start_byte() >= l.start_byte() && n.end_byte() <= l.end_byte()
                    })
            });
            if !(in_compared || is_target) {
                stray = Some(p.text(n).to_string());
            }
        });
        if let Some(name) = stray {
            return Err(NoPort::new(format!(
                "`{name}` is used in the loop outside its arg-min/arg-max update"
            )));
        }
        let members = order
            .iter()
            .map(|k| Member {
                name: cands[*k].name.clone(),
                ty: cands[*k].ty.clone(),
                param: cands[*k].param,
            })
            .collect();
        found = Some(Group {
            update: u,
            members,
            max,
            strict,
        });
    }
    let Some(g) = found else {
        return Ok(None);
    };
    for m in &g.members {
        if Scalar::of(&m.ty).is_none() {
            return Err(NoPort::new(format!(
                "`{}` is of type `{}`, not a builtin scalar",
                m.name, m.ty
            )));
        }
    }
    // Another accumulator beside the group is not this shape.
    let others: Vec<&Member> = cands
        .iter()
        .filter(|c| c.param && !g.members.iter().any(|m| m.name == c.name))
        .collect();
    if let Some(o) = others
        .iter()
        .find(|o| crate::analysis::mentions_word(ctx.parsed.text(body), &o.name))
    {
        return Err(NoPort::new(format!(
            "the accumulator `{}` beside an arg-min/arg-max",
            o.name
        )));
    }
    Ok(Some(g))
}

fn generate(ctx: &mut Context, g: Group) -> Result<(String, String), NoPort> {
    let p = ctx.parsed;
    // The body on private copies, noting the ordinal of each update.
    for m in g.members.iter().filter(|m| m.param) {
        let body = ctx.body_node();
        let mut derefs = Vec::new();
        let mut bare = false;
        walk(body, &mut |n| {
            if n.kind() == "identifier" && p.text(n) == m.name {
                match deref_of(p, n) {
                    Some(d) => derefs.push(d),
                    None => bare = true,
                }
            }
        });
        if bare {
            return Err(NoPort::new(format!("`{}` is used as a pointer", m.name)));
        }
        for d in derefs {
            ctx.edits.replace(d.byte_range(), m.private());
        }
    }
    let branch = g
        .update
        .child_by_field_name("consequence")
        .expect("found with a consequence");
    ctx.edits
        .replace(branch.start_byte()..branch.start_byte(), "{ ");
    ctx.edits.replace(
        branch.end_byte()..branch.end_byte(),
        " port_at = port_t; port_found = 1; }",
    );
    let fields: String = g
        .members
        .iter()
        .map(|m| format!(" {} v_{};", m.ty, m.name))
        .collect();
    let t = format!("{}_port_arg", ctx.region.name);
    let better = |a: &str, b: &str| {
        let e = &g.members[0].name;
        if g.max {
            format!("{a}.v_{e} > {b}.v_{e}")
        } else {
            format!("{a}.v_{e} < {b}.v_{e}")
        }
    };
    let tie = if g.strict {
        "b.at < a.at"
    } else {
        "b.at > a.at"
    };
    let pick = format!(
        "struct {t} {{{fields} long long at; int found; }};\n\n// The serial answer of two partials (see the port's notes): the better value; between equal ones the {which} iteration.\n__device__ __forceinline__ {t} {t}_pick(const {t}& a, const {t}& b) {{\n    if (!a.found) return b.found ? b : a;\n    if (!b.found) return a;\n    if ({bb}) return b;\n    if ({ab}) return a;\n    return ({tie}) ? b : a;\n}}\n",
        which = if g.strict { "earlier" } else { "later" },
        bb = better("b", "a"),
        ab = better("a", "b"),
    );
    let all_decls = ctx.prelude();
    let starts: String = g
        .members
        .iter()
        .filter(|m| m.param)
        .map(|m| format!("    {} {} = *{};\n", m.ty, m.private(), m.name))
        .collect();
    let save: String = g
        .members
        .iter()
        .map(|m| format!(" port_mine.v_{} = {};", m.name, m.private()))
        .collect();
    let restore: String = g
        .members
        .iter()
        .map(|m| {
            if m.param {
                format!("    *{} = port_best.v_{};\n", m.name, m.name)
            } else {
                format!("    {} = port_best.v_{};\n", m.name, m.name)
            }
        })
        .collect();
    let after = ctx.after();
    let params = format!("{}, {t}* port_parts", ctx.params());
    let args = format!("{}, port_parts", ctx.args());
    let (main, done) = (ctx.kernel_name("kernel"), ctx.kernel_name("finish"));
    let body = ctx.body();
    let blocks = ctx.reduction_blocks();
    let lp = ctx.grid_stride(&format!("        {body}\n"));
    // The grid-stride loop declares the ordinal `port_t`; the update notes it.
    let code = format!(
        "{pick}
__global__ void {main}({params}) {{
{all_decls}{starts}    long long port_at = 0;
    int port_found = 0;
{lp}    {t} port_mine;{save} port_mine.at = port_at; port_mine.found = port_found;
    __shared__ {t} port_block[{BLOCK}];
    port_block[threadIdx.x] = port_mine;
    __syncthreads();
    if (threadIdx.x == 0) {{
        {t} port_best = port_block[0];
        for (unsigned j = 1; j < blockDim.x; ++j) port_best = {t}_pick(port_best, port_block[j]);
        port_parts[blockIdx.x] = port_best;
    }}
}}

__global__ void {done}({params}, long long port_nblocks) {{
{all_decls}    {t} port_best = port_parts[0];
    for (long long b = 1; b < port_nblocks; ++b) port_best = {t}_pick(port_best, port_parts[b]);
{restore}{after}}}

{entry} {{
{blocks}    {t}* port_parts = nullptr;
    if (cudaMalloc(&port_parts, (size_t)port_blocks * sizeof({t})) != cudaSuccess) return;
    {main}<<<(unsigned)port_blocks, {BLOCK}>>>({args});
    {done}<<<1, 1>>>({args}, port_blocks);
    cudaFree(port_parts);
}}
",
        entry = ctx.entry(),
    );
    let carried: Vec<String> = g.members[1..]
        .iter()
        .map(|m| format!("`{}`", m.name))
        .collect();
    Ok((
        code,
        format!(
            "arg-{} of `{}` carrying {} (per-thread partials folded in serial order)",
            if g.max { "max" } else { "min" },
            g.members[0].name,
            carried.join(", ")
        ),
    ))
}
