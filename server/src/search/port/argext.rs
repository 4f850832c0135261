//! Conditional updates whose serial answer depends on which iteration ran them last or first:
//! an extremum with values carried along (`if (d < best) { best = d; at = i; }`: arg-min,
//! arg-max, a guard beside the comparison allowed), a guarded assignment (`if (c) last = i;`:
//! the last iteration whose guard held) and a search that stops at its first find
//! (`if (c) { found = 1; break; }`). Each thread runs the body on private copies, noting the
//! serial ordinal of the iteration that last set them (a thread of a search stops at its first
//! find: its later iterations come later in the serial order too); the block's and then the
//! grid's partials fold by a rule that gives the serial answer exactly: for an extremum the better
//! value wins, and between equal values the earlier iteration for a strict comparison (`<`, `>`)
//! or the later one for `<=`/`>=`; for a guarded assignment the later iteration, for a search the
//! earlier. A partial that never updated keeps the start values and loses to any that did.
//! Several independent updates in one body (`if (x[i] == v) in_x = 1; if (y[i] == v) in_y = 1;`)
//! fold group by group.

use tree_sitter::Node;

use super::NoPort;
use super::kernel::{BLOCK, Context};
use super::nest::{Parsed, op_of, squash, walk};
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

/// Which of the iterations that ran a group's update the serial loop's final values come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// `if (v < best) { best = v; at = i; }`: the best value; between equal values the earlier
    /// iteration for a strict comparison, the later one for `<=`/`>=`.
    Extremum { max: bool, strict: bool },
    /// `if (cond) last = i;`: the values of the last iteration whose guard held.
    Last,
    /// `if (cond) { at = i; break; }`: the first one's; each thread stops at its own first.
    First,
}

struct Group<'t> {
    update: Node<'t>,
    /// The extremum first (for [`Rule::Extremum`]), then the carried values.
    members: Vec<Member>,
    rule: Rule,
}

impl Group<'_> {
    fn describe(&self) -> String {
        let names: Vec<String> = self
            .members
            .iter()
            .map(|m| format!("`{}`", m.name))
            .collect();
        match self.rule {
            Rule::Extremum { max, .. } => {
                let carried = &names[1..];
                format!(
                    "arg-{} of {} carrying {}",
                    if max { "max" } else { "min" },
                    names[0],
                    carried.join(", ")
                )
            }
            Rule::Last => format!("last guarded assignment of {}", names.join(", ")),
            Rule::First => format!(
                "first guarded assignment of {} (each thread stops at its first)",
                names.join(", ")
            ),
        }
    }

    /// Whether partial `b` replaces partial `a` (both found), in C over `a`, `b` and group `k`.
    fn replaces(&self, k: usize) -> String {
        let later = format!("b.at_{k} > a.at_{k}");
        let earlier = format!("b.at_{k} < a.at_{k}");
        match self.rule {
            Rule::Last => later,
            Rule::First => earlier,
            Rule::Extremum { max, strict } => {
                let e = &self.members[0].name;
                let cmp = if max { ">" } else { "<" };
                let tie = if strict { earlier } else { later };
                // NaN-safe as the serial comparisons: neither better means a tie.
                format!("(b.v_{e} {cmp} a.v_{e}) || (!(a.v_{e} {cmp} b.v_{e}) && {tie})")
            }
        }
    }
}

/// The groups' kernels when the body has conditional updates of this kind; `None` when not.
pub fn write(ctx: &mut Context) -> Option<Result<(String, String), NoPort>> {
    let groups = match find(ctx) {
        Ok(g) if g.is_empty() => return None,
        Ok(g) => g,
        Err(e) => return Some(Err(e)),
    };
    Some(generate(ctx, groups))
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

/// The accumulator groups of the body: every `if` (no else) whose branch only assigns
/// accumulator candidates (and may end with `break`), with the values and guard free of them
/// except an extremum's own comparison.
fn find<'t>(ctx: &Context<'t>) -> Result<Vec<Group<'t>>, NoPort> {
    let p = ctx.parsed;
    let cands = candidates(ctx);
    let body = ctx.body_node();
    let mut ifs = Vec::new();
    walk(body, &mut |n| {
        if n.kind() == "if_statement" {
            ifs.push(n);
        }
    });
    let mut groups: Vec<Group> = Vec::new();
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
        let mut stmts = statements(branch);
        let exits = stmts
            .last()
            .is_some_and(|l| ctx.exits.contains(&l.start_byte()));
        if exits {
            stmts.pop();
        }
        let assigned: Vec<Option<(usize, Node)>> = stmts
            .into_iter()
            .map(|st| assignment(p, st, &cands))
            .collect();
        if assigned.is_empty() || assigned.iter().any(Option::is_none) {
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
        let mut extremum = None;
        for c in &conjuncts {
            for &(k, value) in &assigned {
                let v = squash(p.text(value));
                let same = |n: Node| squash(p.text(n)) == v;
                if let Some(op) = compared_op(p, *c, &cands[k].name, &same) {
                    let strict = matches!(op_of(p, *c).as_str(), "<" | ">");
                    extremum = Some((k, *c, op == super::reduction::Op::Max, strict));
                }
            }
        }
        let (rule, order, compared) = match extremum {
            // One assignment under a comparison is a plain min/max: the reduction's.
            Some(_) if assigned.len() < 2 || exits => continue,
            Some((m, compared, max, strict)) => {
                let mut order: Vec<usize> = vec![m];
                order.extend(assigned.iter().map(|(k, _)| *k).filter(|k| *k != m));
                (Rule::Extremum { max, strict }, order, Some((m, compared)))
            }
            None => {
                let order: Vec<usize> = assigned.iter().map(|(k, _)| *k).collect();
                (if exits { Rule::First } else { Rule::Last }, order, None)
            }
        };
        let names: Vec<&str> = order.iter().map(|k| cands[*k].name.as_str()).collect();
        if let Some(g) = groups
            .iter()
            .find(|g| g.members.iter().any(|m| names.contains(&m.name.as_str())))
        {
            return Err(NoPort::new(format!(
                "`{}` is updated by two conditional assignments",
                g.members[0].name
            )));
        }
        // Every use of the group in the body is this update: the comparison's accumulator side
        // and the assignments' targets. Anything else (the guard, a value, another statement)
        // reads a thread's partial as if it were the serial value.
        let mut stray = None;
        walk(body, &mut |n| {
            if n.kind() != "identifier" || !names.contains(&p.text(n)) {
                return;
            }
            let in_compared = compared.is_some_and(|(m, c)| {
                n.start_byte() >= c.start_byte()
                    && n.end_byte() <= c.end_byte()
                    && p.text(n) == cands[m].name
            });
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
        match stray {
            // A guarded assignment that reads itself (`if (c) s = s + x[i];`) is the
            // reduction's to read.
            Some(_) if compared.is_none() => continue,
            Some(name) => {
                return Err(NoPort::new(format!(
                    "`{name}` is used in the loop outside its arg-min/arg-max update"
                )));
            }
            None => {}
        }
        let members = order
            .iter()
            .map(|k| Member {
                name: cands[*k].name.clone(),
                ty: cands[*k].ty.clone(),
                param: cands[*k].param,
            })
            .collect();
        groups.push(Group {
            update: u,
            members,
            rule,
        });
    }
    if groups.is_empty() {
        return Ok(groups);
    }
    let firsts = groups.iter().filter(|g| g.rule == Rule::First).count();
    if firsts != ctx.exits.len() {
        return Err(NoPort::new(
            "the loop body leaves the loop early, not right after assigning what the loop finds",
        ));
    }
    if firsts > 0 && groups.len() > 1 {
        return Err(NoPort::new(
            "a loop that stops at its first find updates other values too",
        ));
    }
    for m in groups.iter().flat_map(|g| &g.members) {
        if Scalar::of(&m.ty).is_none() {
            return Err(NoPort::new(format!(
                "`{}` is of type `{}`, not a builtin scalar",
                m.name, m.ty
            )));
        }
    }
    // Another accumulator beside the groups is not this shape: a parameter used, or a local
    // written, in the body.
    let member = |name: &str| {
        groups
            .iter()
            .flat_map(|g| &g.members)
            .any(|m| m.name == name)
    };
    for o in cands.iter().filter(|c| !member(&c.name)) {
        let used = if o.param {
            crate::analysis::mentions_word(p.text(body), &o.name)
        } else {
            written_in(p, body, &o.name)
        };
        if used {
            return Err(NoPort::new(format!(
                "the accumulator `{}` beside a conditional update",
                o.name
            )));
        }
    }
    if firsts > 0 {
        // Stopping early is the serial answer only if nothing else happens in the iterations
        // skipped: the body is declarations and the update.
        let mut c = body.walk();
        if let Some(other) = body.named_children(&mut c).find(|st| {
            st.kind() != "declaration" && st.kind() != "comment" && st.id() != groups[0].update.id()
        }) {
            return Err(NoPort::new(format!(
                "a loop that stops at its first find also runs `{}`",
                p.text(other).lines().next().unwrap_or("").trim()
            )));
        }
    }
    Ok(groups)
}

/// Whether `name` is assigned or incremented anywhere in `body`.
fn written_in(p: &Parsed, body: Node, name: &str) -> bool {
    let mut written = false;
    walk(body, &mut |n| {
        let target = match n.kind() {
            "assignment_expression" => n.child_by_field_name("left"),
            "update_expression" => n.child_by_field_name("argument"),
            _ => None,
        };
        if target.is_some_and(|t| is_deref_of(p, t, name)) {
            written = true;
        }
    });
    written
}

fn generate(ctx: &mut Context, groups: Vec<Group>) -> Result<(String, String), NoPort> {
    let p = ctx.parsed;
    let members: Vec<&Member> = groups.iter().flat_map(|g| &g.members).collect();
    // The body on private copies, noting the ordinal of each update.
    for m in members.iter().filter(|m| m.param) {
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
    for (k, g) in groups.iter().enumerate() {
        let branch = g
            .update
            .child_by_field_name("consequence")
            .expect("found with a consequence");
        // Noted before the branch runs: it only assigns (and may leave the loop).
        ctx.edits.replace(
            branch.start_byte()..branch.start_byte(),
            format!("{{ port_at_{k} = port_t; port_found_{k} = 1; "),
        );
        ctx.edits
            .replace(branch.end_byte()..branch.end_byte(), " }");
    }
    let mut fields: String = members
        .iter()
        .map(|m| format!(" {} v_{};", m.ty, m.name))
        .collect();
    for k in 0..groups.len() {
        fields.push_str(&format!(" long long at_{k}; int found_{k};"));
    }
    let t = format!("{}_port_arg", ctx.region.name);
    let mut picks = String::new();
    for (k, g) in groups.iter().enumerate() {
        let take: String = g
            .members
            .iter()
            .map(|m| format!(" r.v_{n} = b.v_{n};", n = m.name))
            .collect();
        picks.push_str(&format!(
            "    if (b.found_{k} && (!a.found_{k} || {replaces})) {{{take} r.at_{k} = b.at_{k}; r.found_{k} = 1; }}\n",
            replaces = g.replaces(k)
        ));
    }
    let pick = format!(
        "struct {t} {{{fields} }};\n\n// The serial answer of two partials, group by group (see the port's notes). A selection by a\n// total order (distinct iterations): associative, commutative and idempotent, so partials fold\n// in any order.\n__device__ __forceinline__ {t} {t}_pick(const {t}& a, const {t}& b) {{\n    {t} r = a;\n{picks}    return r;\n}}\n"
    );
    let all_decls = ctx.prelude();
    let starts: String = members
        .iter()
        .filter(|m| m.param)
        .map(|m| format!("    {} {} = *{};\n", m.ty, m.private(), m.name))
        .collect();
    let mut notes = String::new();
    let mut save: String = members
        .iter()
        .map(|m| format!(" port_mine.v_{} = {};", m.name, m.private()))
        .collect();
    for k in 0..groups.len() {
        notes.push_str(&format!(
            "    long long port_at_{k} = 0;\n    int port_found_{k} = 0;\n"
        ));
        save.push_str(&format!(
            " port_mine.at_{k} = port_at_{k}; port_mine.found_{k} = port_found_{k};"
        ));
    }
    let restore: String = members
        .iter()
        .map(|m| {
            if m.param {
                format!("        *{} = port_best.v_{};\n", m.name, m.name)
            } else {
                format!("        {} = port_best.v_{};\n", m.name, m.name)
            }
        })
        .collect();
    let after: String = ctx.after().lines().map(|l| format!("    {l}\n")).collect();
    let params = format!("{}, {t}* port_parts", ctx.params());
    let args = format!("{}, port_parts", ctx.args());
    let (main, done) = (ctx.kernel_name("kernel"), ctx.kernel_name("finish"));
    let body = ctx.body();
    let blocks = ctx.reduction_blocks();
    let lp = ctx.grid_stride(&format!("        {body}\n"));
    let tree = format!(
        "    port_block[threadIdx.x] = port_mine;\n    __syncthreads();\n    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {{\n        if (threadIdx.x < s) port_block[threadIdx.x] = {t}_pick(port_block[threadIdx.x], port_block[threadIdx.x + s]);\n        __syncthreads();\n    }}\n"
    );
    // The grid-stride loop declares the ordinal `port_t`; the updates note it.
    let code = format!(
        "{pick}
__global__ void {main}({params}) {{
{all_decls}{starts}{notes}{lp}    {t} port_mine;{save}
    __shared__ {t} port_block[{BLOCK}];
{tree}    if (threadIdx.x == 0) port_parts[blockIdx.x] = port_block[0];
}}

__global__ void {done}({params}, long long port_nblocks) {{
{all_decls}    {t} port_mine = port_parts[0];
    for (long long b = threadIdx.x; b < port_nblocks; b += blockDim.x) port_mine = {t}_pick(port_mine, port_parts[b]);
    __shared__ {t} port_block[{BLOCK}];
{tree}    if (threadIdx.x == 0) {{
        {t} port_best = port_block[0];
{restore}{after}    }}
}}

{entry} {{
{blocks}    {t}* port_parts = nullptr;
    if (cudaMalloc(&port_parts, (size_t)port_blocks * sizeof({t})) != cudaSuccess) return;
    {main}<<<(unsigned)port_blocks, {BLOCK}>>>({args});
    {done}<<<1, {BLOCK}>>>({args}, port_blocks);
    cudaFree(port_parts);
}}
",
        entry = ctx.entry(),
    );
    let shapes: Vec<String> = groups.iter().map(Group::describe).collect();
    Ok((
        code,
        format!(
            "{} (per-thread partials folded in serial order)",
            shapes.join("; ")
        ),
    ))
}
