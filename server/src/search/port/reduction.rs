//! A reduction: each thread folds its iterations into a private copy of every accumulator
//! (started at the operator's identity), the block combines the copies with warp shuffles, and
//! one thread per block folds the block's value into the accumulator with one atomic.

use tree_sitter::Node;

use super::NoPort;
use super::kernel::{BLOCK, Context};
use super::nest::{op_of, squash, walk};
use super::types::Scalar;
use crate::analysis::Access;

/// The associative operator of an accumulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Mul,
    Max,
    Min,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
}

impl Op {
    /// `a op b` in C.
    pub fn apply(self, a: &str, b: &str) -> String {
        match self {
            Op::Add => format!("{a} + {b}"),
            Op::Mul => format!("{a} * {b}"),
            Op::Max => format!("({a} < {b}) ? {b} : {a}"),
            Op::Min => format!("({b} < {a}) ? {b} : {a}"),
            Op::And => format!("{a} && {b}"),
            Op::Or => format!("{a} || {b}"),
            Op::BitAnd => format!("{a} & {b}"),
            Op::BitOr => format!("{a} | {b}"),
            Op::BitXor => format!("{a} ^ {b}"),
        }
    }

    fn identity(self, ty: &str, s: Scalar) -> String {
        let lim = format!("cuda::std::numeric_limits<{ty}>");
        match (self, s.is_float()) {
            (Op::Add | Op::Or | Op::BitOr | Op::BitXor, _) => format!("({ty})0"),
            (Op::Mul | Op::And, _) => format!("({ty})1"),
            (Op::BitAnd, _) => format!("({ty})(~({ty})0)"),
            (Op::Max, true) => format!("-{lim}::infinity()"),
            (Op::Max, false) => format!("{lim}::lowest()"),
            (Op::Min, true) => format!("{lim}::infinity()"),
            (Op::Min, false) => format!("{lim}::max()"),
        }
    }

    fn from_compound(op: &str) -> Option<Op> {
        Some(match op {
            "+=" | "-=" => Op::Add,
            "*=" => Op::Mul,
            "&=" => Op::BitAnd,
            "|=" => Op::BitOr,
            "^=" => Op::BitXor,
            _ => return None,
        })
    }

    fn from_binary(op: &str, acc_on_left: bool) -> Option<Op> {
        Some(match op {
            "+" => Op::Add,
            "-" if acc_on_left => Op::Add,
            "*" => Op::Mul,
            "&&" => Op::And,
            "||" => Op::Or,
            "&" => Op::BitAnd,
            "|" => Op::BitOr,
            "^" => Op::BitXor,
            _ => return None,
        })
    }

    /// A two-parameter macro of `src` that is a min or max: `#define MIN(a, b) ((a < b) ? a : b)`
    /// and its mirror images, parentheses aside.
    pub fn from_macro(src: &str, name: &str) -> Option<Op> {
        let head = format!("#define {name}(");
        let line = src.lines().find(|l| l.trim_start().starts_with(&head))?;
        let rest = &line.trim_start()[head.len()..];
        let (params, body) = rest.split_once(')')?;
        let params: Vec<&str> = params.split(',').map(str::trim).collect();
        let [a, b] = params.as_slice() else {
            return None;
        };
        let body: String = body
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '(' && *c != ')')
            .collect();
        for (cmp, less) in [("<", true), ("<=", true), (">", false), (">=", false)] {
            for (x, y) in [(a, b), (b, a)] {
                // `x < y ? x : y` keeps the smaller; `x < y ? y : x` the larger.
                if body == format!("{x}{cmp}{y}?{x}:{y}") {
                    return Some(if less { Op::Min } else { Op::Max });
                }
                if body == format!("{x}{cmp}{y}?{y}:{x}") {
                    return Some(if less { Op::Max } else { Op::Min });
                }
            }
        }
        None
    }

    /// `max`/`min` as the usual spellings call them.
    pub fn from_call(name: &str) -> Option<Op> {
        let base = name.rsplit("::").next().unwrap_or(name);
        match base {
            "max" | "fmax" | "fmaxf" | "fmaxl" | "MAX" | "port_max" => Some(Op::Max),
            "min" | "fmin" | "fminf" | "fminl" | "MIN" | "port_min" => Some(Op::Min),
            _ => None,
        }
    }
}

pub(super) struct Accumulator {
    /// As the loop writes it: `sum`, or an element `cov[0]`.
    name: String,
    ty: String,
    scalar: Scalar,
    op: Op,
    /// Where the blocks combine into: the pointer parameter, or `&cov[0]`.
    pub(super) at: String,
    /// The thread's private copy.
    pub(super) local: String,
}

impl Accumulator {
    pub(super) fn new(name: &str, ty: &str, scalar: Scalar, op: Op) -> Accumulator {
        Accumulator {
            name: name.to_string(),
            ty: ty.to_string(),
            scalar,
            op,
            at: name.to_string(),
            local: format!("port_acc_{name}"),
        }
    }

    fn local(&self) -> String {
        self.local.clone()
    }

    /// The block's value `v` folded into `*p` by one thread.
    pub(super) fn combine(&self, p: &str, v: &str) -> Result<String, NoPort> {
        let (s, ty) = (self.scalar, &self.ty);
        let native = |f: &str| format!("{f}({p}, {v});");
        let wide = |f: &str| {
            format!("{f}(reinterpret_cast<unsigned long long*>({p}), (unsigned long long){v});")
        };
        Ok(match (self.op, s) {
            (Op::Add, _) if s.atomic_add(ty, p, v).is_some() => {
                format!("{};", s.atomic_add(ty, p, v).expect("checked"))
            }
            (Op::Max, Scalar::Signed(4) | Scalar::Unsigned(4)) => native("atomicMax"),
            (Op::Min, Scalar::Signed(4) | Scalar::Unsigned(4)) => native("atomicMin"),
            (Op::Max, Scalar::Signed(8)) => {
                format!("atomicMax(reinterpret_cast<long long*>({p}), (long long){v});")
            }
            (Op::Min, Scalar::Signed(8)) => {
                format!("atomicMin(reinterpret_cast<long long*>({p}), (long long){v});")
            }
            (Op::Max, Scalar::Unsigned(8)) => wide("atomicMax"),
            (Op::Min, Scalar::Unsigned(8)) => wide("atomicMin"),
            (Op::BitAnd, Scalar::Signed(4) | Scalar::Unsigned(4)) => native("atomicAnd"),
            (Op::BitOr, Scalar::Signed(4) | Scalar::Unsigned(4)) => native("atomicOr"),
            (Op::BitXor, Scalar::Signed(4) | Scalar::Unsigned(4)) => native("atomicXor"),
            (Op::BitAnd, Scalar::Signed(8) | Scalar::Unsigned(8)) => wide("atomicAnd"),
            (Op::BitOr, Scalar::Signed(8) | Scalar::Unsigned(8)) => wide("atomicOr"),
            (Op::BitXor, Scalar::Signed(8) | Scalar::Unsigned(8)) => wide("atomicXor"),
            // The absorbing value is the only one any block writes: the stores do not race.
            (Op::And, Scalar::Bool) => format!("if (!{v}) *{p} = false;"),
            (Op::Or, Scalar::Bool) => format!("if ({v}) *{p} = true;"),
            (op, _) if matches!(s.bytes(), 4 | 8) => {
                let w = if s.bytes() == 4 {
                    "unsigned int"
                } else {
                    "unsigned long long"
                };
                format!(
                    "{w}* port_w = reinterpret_cast<{w}*>({p});\n            {w} port_old = *port_w, port_seen;\n            do {{\n                port_seen = port_old;\n                {ty} port_cur, port_next;\n                memcpy(&port_cur, &port_seen, sizeof port_cur);\n                port_next = {next};\n                {w} port_bits;\n                memcpy(&port_bits, &port_next, sizeof port_bits);\n                port_old = atomicCAS(port_w, port_seen, port_bits);\n            }} while (port_old != port_seen);",
                    next = op.apply("port_cur", v)
                )
            }
            (op, _) => {
                return Err(NoPort::new(format!(
                    "no atomic for a {op:?} reduction of `{ty}` `{}`",
                    self.name
                )));
            }
        })
    }
}

/// The accumulators' uses in the body: each dereference becomes the thread's private copy; the
/// operator is read off the updates.
fn accumulators(ctx: &mut Context) -> Result<Vec<Accumulator>, NoPort> {
    let p = ctx.parsed;
    let body = ctx.body_node();
    let mut out = Vec::new();
    let candidates: Vec<_> = ctx
        .region
        .params
        .iter()
        .filter(|q| q.is_array && q.access != Access::Read && q.extent.as_deref() == Some("1"))
        .cloned()
        .collect();
    for q in candidates {
        let local = format!("port_acc_{}", q.name);
        let mut ops = Vec::new();
        let mut problem = None;
        let mut derefs = Vec::new();
        walk(body, &mut |n| {
            if n.kind() != "identifier" || p.text(n) != q.name {
                return;
            }
            match deref_of(p, n) {
                Some(d) => derefs.push(d),
                None => problem = Some(format!("`{}` is used as a pointer", q.name)),
            }
        });
        if let Some(pr) = problem {
            return Err(NoPort::new(pr));
        }
        if derefs.is_empty() {
            // Written after the loop, from local accumulators.
            continue;
        }
        let scalar = Scalar::of(&q.elem_type).ok_or_else(|| {
            NoPort::new(format!(
                "the accumulator `{}` is of type `{}`, not a builtin scalar",
                q.name, q.elem_type
            ))
        })?;
        for d in &derefs {
            ctx.edits.replace(d.byte_range(), local.clone());
            if let Some(op) = update_op(p, *d, &q.name) {
                ops.push(op?);
            }
        }
        let op = one_op(ops, &q.name)?;
        out.push(Accumulator::new(&q.name, &q.elem_type, scalar, op));
    }
    out.extend(super::elements::accumulators(ctx)?);
    for r in &ctx.nest.prelude {
        let text = &ctx.parsed.src[r.clone()];
        if let Some(a) = out
            .iter()
            .find(|a| crate::analysis::mentions_word(text, word_of(&a.name)))
        {
            return Err(NoPort::new(format!(
                "a declaration before the loop reads the accumulator `{}`",
                a.name
            )));
        }
    }
    Ok(out)
}

/// The variable an accumulator belongs to: `cov` of `cov[0]`.
fn word_of(name: &str) -> &str {
    name.split('[').next().unwrap_or(name)
}

pub(super) fn one_op(mut ops: Vec<Op>, name: &str) -> Result<Op, NoPort> {
    ops.dedup();
    match ops.as_slice() {
        [op] => Ok(*op),
        [] => Err(NoPort::new(format!(
            "no update of the accumulator `{name}` found"
        ))),
        _ => Err(NoPort::new(format!(
            "the accumulator `{name}` is updated with different operators"
        ))),
    }
}

/// A scalar declared before the loop with a start value and updated in the loop with one
/// associative operator: `double sum = 0; for (...) sum += x[i];`, with its declaration.
fn local_accumulators(ctx: &Context) -> Result<Vec<(Accumulator, usize)>, NoPort> {
    let p = ctx.parsed;
    let body = ctx.body_node();
    let mut out = Vec::new();
    for (k, r) in ctx.nest.prelude.iter().enumerate() {
        let Some(decl) = p.root().descendant_for_byte_range(r.start, r.end) else {
            continue;
        };
        let Some(ty) = decl
            .child_by_field_name("type")
            .map(|t| p.text(t).to_string())
        else {
            continue;
        };
        let mut cur = decl.walk();
        let declarators: Vec<Node> = decl
            .children_by_field_name("declarator", &mut cur)
            .collect();
        let [d] = declarators.as_slice() else {
            continue;
        };
        if d.kind() != "init_declarator" {
            continue;
        }
        let Some(name) = d
            .child_by_field_name("declarator")
            .filter(|n| n.kind() == "identifier")
            .map(|n| p.text(n).to_string())
        else {
            continue;
        };
        let mut ops = Vec::new();
        let mut err = None;
        walk(body, &mut |n| {
            if n.kind() == "identifier" && p.text(n) == name {
                match update_op(p, n, &name) {
                    Some(Ok(op)) => ops.push(op),
                    Some(Err(e)) => err = Some(e),
                    None if !read_in_own_update(p, n, &name) => {
                        err = Some(NoPort::new(format!(
                            "`{name}` is read in the loop outside its own update: a running value, not a reduction"
                        )))
                    }
                    None => {}
                }
            }
        });
        if let Some(e) = err {
            return Err(e);
        }
        if ops.is_empty() {
            continue;
        }
        let scalar = Scalar::of(&ty).ok_or_else(|| {
            NoPort::new(format!(
                "the accumulator `{name}` is of type `{ty}`, not a builtin scalar"
            ))
        })?;
        let op = one_op(ops, &name)?;
        out.push((Accumulator::new(&name, &ty, scalar, op), k));
    }
    Ok(out)
}

/// Whether a read of `name` is part of its own update (`m = max(m, x)`) or of the condition of
/// one (`if (x < m) m = x;`), where the partial value it reads is the thread's own.
pub(super) fn read_in_own_update(p: &super::nest::Parsed, n: Node, name: &str) -> bool {
    let mut up = n.parent();
    while let Some(u) = up {
        match u.kind() {
            "assignment_expression" => {
                return u
                    .child_by_field_name("left")
                    .is_some_and(|l| squash(p.text(l)) == name);
            }
            // Only the condition of the if that updates it: `if (acc > 0) { if (v < acc) .. }`
            // would read the thread's partial where the serial code reads the whole value.
            "condition_clause" => return guards_an_update(p, u, name),
            "compound_statement" | "expression_statement" | "for_statement" => return false,
            _ => up = u.parent(),
        }
    }
    false
}

/// Whether the if statement of `condition` assigns `name` in a statement of its own branch.
fn guards_an_update(p: &super::nest::Parsed, condition: Node, name: &str) -> bool {
    let Some(branch) = condition
        .parent()
        .filter(|i| i.kind() == "if_statement")
        .and_then(|i| i.child_by_field_name("consequence"))
    else {
        return false;
    };
    let assigns = |st: Node| {
        st.kind() == "expression_statement"
            && st.named_child(0).is_some_and(|e| {
                e.kind() == "assignment_expression"
                    && e.child_by_field_name("left")
                        .is_some_and(|l| is_deref_of(p, l, name))
            })
    };
    if branch.kind() == "compound_statement" {
        let mut c = branch.walk();
        branch.named_children(&mut c).any(assigns)
    } else {
        assigns(branch)
    }
}

/// `*acc`, `(*acc)` or `acc[0]` around the identifier `n`.
pub(super) fn deref_of<'t>(p: &super::nest::Parsed, n: Node<'t>) -> Option<Node<'t>> {
    let parent = n.parent()?;
    let d = match parent.kind() {
        "pointer_expression" if op_of(p, parent) == "*" => parent,
        "subscript_expression"
            if parent
                .child_by_field_name("argument")
                .is_some_and(|a| a.id() == n.id())
                && subscript_text(p, parent).as_deref() == Some("0") =>
        {
            parent
        }
        _ => return None,
    };
    // `(*acc)` as a whole, so that the rewrite reads `(port_acc)`.
    Some(d)
}

fn subscript_text(p: &super::nest::Parsed, s: Node) -> Option<String> {
    let idx = s
        .child_by_field_name("indices")
        .or_else(|| s.child_by_field_name("index"))?;
    let t = squash(p.text(idx));
    Some(t.trim_start_matches('[').trim_end_matches(']').to_string())
}

/// Skips parentheses upwards.
fn unparen(n: Node) -> Node {
    let mut cur = n;
    while let Some(pa) = cur.parent() {
        if pa.kind() != "parenthesized_expression" {
            break;
        }
        cur = pa;
    }
    cur
}

pub(super) fn is_deref_of(p: &super::nest::Parsed, n: Node, name: &str) -> bool {
    let mut cur = n;
    while cur.kind() == "parenthesized_expression" {
        match cur.named_child(0) {
            Some(c) => cur = c,
            None => return false,
        }
    }
    let text = squash(p.text(cur));
    text == format!("*{name}") || text == format!("{name}[0]") || text == name
}

/// The operator of the update whose target is the dereference `d`, or `None` where `d` is read.
pub(super) fn update_op(
    p: &super::nest::Parsed,
    d: Node,
    name: &str,
) -> Option<Result<Op, NoPort>> {
    let target = unparen(d);
    let parent = target.parent()?;
    let unknown = || {
        Some(Err(NoPort::new(format!(
            "the update `{}` of `{name}` is not an associative operator",
            p.text(parent)
        ))))
    };
    match parent.kind() {
        "update_expression" => Some(Ok(Op::Add)),
        "assignment_expression"
            if parent
                .child_by_field_name("left")
                .is_some_and(|l| l.id() == target.id()) =>
        {
            let op = op_of(p, parent);
            if op != "=" {
                return Op::from_compound(&op).map(Ok).or_else(unknown);
            }
            let Some(right) = parent.child_by_field_name("right") else {
                return unknown();
            };
            let mut right = right;
            while right.kind() == "parenthesized_expression" {
                right = right.named_child(0)?;
            }
            match right.kind() {
                "binary_expression" => {
                    let l = right.child_by_field_name("left")?;
                    let r = right.child_by_field_name("right")?;
                    let (ld, rd) = (is_deref_of(p, l, name), is_deref_of(p, r, name));
                    if !ld && !rd {
                        return unknown();
                    }
                    Op::from_binary(&op_of(p, right), ld)
                        .map(Ok)
                        .or_else(unknown)
                }
                "call_expression" => {
                    let f = right.child_by_field_name("function")?;
                    let args = right.child_by_field_name("arguments")?;
                    let mut c = args.walk();
                    let has = args.named_children(&mut c).any(|a| is_deref_of(p, a, name));
                    let op = Op::from_call(p.text(f)).or_else(|| Op::from_macro(p.src, p.text(f)));
                    match op {
                        Some(op) if has => Some(Ok(op)),
                        _ => unknown(),
                    }
                }
                _ => conditional_update(p, parent, name).or_else(unknown),
            }
        }
        _ => None,
    }
}

/// `if (v > acc) acc = v;` (a max) or `if (v < acc) acc = v;` (a min), also under a guard that
/// does not read the accumulator (`if (x[i] % 2 == 1 && x[i] < acc) acc = x[i];`): each thread's
/// private copy runs the same body, so its value is the min/max over the iterations the guard
/// lets through, and those combine like any min/max.
fn conditional_update(
    p: &super::nest::Parsed,
    assign: Node,
    name: &str,
) -> Option<Result<Op, NoPort>> {
    let value = assign.child_by_field_name("right")?;
    let vtext: String = p.text(value).split_whitespace().collect();
    let mut inner = assign;
    let mut up = assign.parent();
    while let Some(u) = up {
        if u.kind() == "if_statement" {
            // In the else branch the comparison means the opposite: not read as either.
            if u.child_by_field_name("consequence")
                .is_none_or(|c| c.id() != inner.id())
            {
                return None;
            }
            let mut cond = u.child_by_field_name("condition")?;
            while matches!(cond.kind(), "condition_clause" | "parenthesized_expression") {
                cond = cond.named_child(0)?;
            }
            let mut conjuncts = Vec::new();
            split_conjunction(p, cond, &mut conjuncts);
            let same = |n: Node| p.text(n).split_whitespace().collect::<String>() == vtext;
            let mut found = None;
            for c in conjuncts {
                let compared = compared_op(p, c, name, &same);
                match compared {
                    Some(op) if found.is_none() => found = Some(op),
                    // Two comparisons with the accumulator: not one min/max.
                    Some(_) => return None,
                    None if crate::analysis::mentions_word(p.text(c), name) => return None,
                    None => {}
                }
            }
            return found.map(Ok);
        }
        if matches!(u.kind(), "compound_statement" | "expression_statement") {
            inner = u;
            up = u.parent();
            continue;
        }
        return None;
    }
    None
}

/// The operands of a chain of `&&`, in order.
pub(super) fn split_conjunction<'t>(p: &super::nest::Parsed, n: Node<'t>, out: &mut Vec<Node<'t>>) {
    crate::analysis::conjuncts(n, p.src.as_bytes(), out);
}

/// `v < acc` / `acc > v` (a min) or `v > acc` / `acc < v` (a max), where `v` is the assigned value.
pub(super) fn compared_op(
    p: &super::nest::Parsed,
    cond: Node,
    name: &str,
    same: &dyn Fn(Node) -> bool,
) -> Option<Op> {
    if cond.kind() != "binary_expression" {
        return None;
    }
    let l = cond.child_by_field_name("left")?;
    let r = cond.child_by_field_name("right")?;
    let greater = match op_of(p, cond).as_str() {
        ">" | ">=" => true,
        "<" | "<=" => false,
        _ => return None,
    };
    let max = if same(l) && is_deref_of(p, r, name) {
        greater
    } else if is_deref_of(p, l, name) && same(r) {
        !greater
    } else {
        return None;
    };
    Some(if max { Op::Max } else { Op::Min })
}

/// Per-thread partials, the block's combination and one atomic per block.
pub fn write(ctx: &mut Context) -> Result<(String, String), NoPort> {
    if let Some(arg) = super::argext::write(ctx) {
        return arg;
    }
    if !ctx.exits.is_empty() {
        return Err(NoPort::new(
            "the loop body leaves the loop early, not right after assigning what the loop finds",
        ));
    }
    let locals = local_accumulators(ctx)?;
    let accs = accumulators(ctx)?;
    let scattered = super::elements::atomics(ctx)?;
    if !locals.is_empty() {
        return write_locals(ctx, &accs, &locals);
    }
    if let Some(r) = ctx.nest.after.first() {
        return Err(NoPort::new(format!(
            "a statement after the loop (`{}`) and no local accumulator",
            ctx.parsed.src[r.clone()]
                .lines()
                .next()
                .unwrap_or("")
                .trim()
        )));
    }
    if accs.is_empty() && scattered > 0 {
        return Ok((
            ctx.map(false),
            "1-D grid-stride map with an atomic update per element update".to_string(),
        ));
    }
    if accs.is_empty() {
        return Err(NoPort::new(
            "the reduction has no accumulator the port can find (neither a scalar nor an array element)",
        ));
    }
    ctx.include("cuda/std/limits");
    let k = ctx.kernel_name("kernel");
    let mut locals = String::new();
    let mut finish = String::new();
    for a in &accs {
        let id = a.op.identity(&a.ty, a.scalar);
        locals.push_str(&format!("    {} {} = {id};\n", a.ty, a.local()));
        let combine = a.combine(&a.at, &a.local())?;
        finish.push_str(&format!(
            "    {local} = port_block_reduce<{ty}>({local}, {id}, [](const {ty}& a, const {ty}& b) -> {ty} {{ return {op}; }});\n    if (threadIdx.x == 0) {{\n            {combine}\n    }}\n",
            local = a.local(),
            ty = a.ty,
            op = a.op.apply("a", "b"),
        ));
    }
    let body = ctx.body();
    let kernel = format!(
        "__global__ void {k}({params}) {{\n{prelude}{locals}{lp}{finish}}}\n",
        params = ctx.params(),
        prelude = ctx.prelude(),
        lp = ctx.grid_stride(&format!("        {body}\n")),
    );
    let launch = format!(
        "{}    {k}<<<(unsigned)port_blocks, {BLOCK}>>>({args});\n",
        ctx.blocks(&ctx.nest.outer, BLOCK, 132 * 8),
        args = ctx.args()
    );
    let ops: Vec<String> = accs
        .iter()
        .map(|a| format!("{:?} of `{}`", a.op, a.name).to_lowercase())
        .collect();
    let code = format!("{BLOCK_REDUCE}\n{kernel}\n{} {{\n{launch}}}\n", ctx.entry());
    Ok((
        code,
        format!(
            "block reduction with warp shuffles and one atomic per block ({})",
            ops.join(", ")
        ),
    ))
}

/// The block's combination of one value per thread (blockDim.x a multiple of 32); the result is
/// in thread 0. Types narrower than 4 bytes travel through an int in the shuffle.
const BLOCK_REDUCE: &str = "
template <typename T> __device__ __forceinline__ T port_shfl_down(T v, int offset) {
    if constexpr (sizeof(T) < 4) {
        return (T)__shfl_down_sync(0xffffffffu, (int)v, offset);
    } else {
        return __shfl_down_sync(0xffffffffu, v, offset);
    }
}

template <typename T, typename Op> __device__ T port_block_reduce(T v, T identity, Op op) {
    __shared__ T port_warps[32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int offset = 16; offset > 0; offset /= 2) v = op(v, port_shfl_down(v, offset));
    __syncthreads();
    if (lane == 0) port_warps[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? port_warps[lane] : identity;
        for (int offset = 16; offset > 0; offset /= 2) v = op(v, port_shfl_down(v, offset));
    }
    return v;
}
";

/// The partial of a local accumulator narrower than CUDA's atomics (`unsigned char r; r ^= x[i]`):
/// a 4-byte one the blocks combine into, read back into the accumulator's type at the end. The
/// narrow results of `+ * & | ^` are the wide ones truncated (modular, so in unsigned arithmetic);
/// a min or max of a signed type is the same in `int`.
fn part_type(a: &Accumulator) -> Option<Accumulator> {
    if a.scalar.bytes() >= 4 || a.scalar.is_float() {
        return None;
    }
    if a.scalar == Scalar::Bool && matches!(a.op, Op::And | Op::Or) {
        // The bool's own stores do not race (see `combine`).
        return None;
    }
    let signed_order = matches!(a.scalar, Scalar::Signed(_)) && matches!(a.op, Op::Max | Op::Min);
    let (ty, scalar) = if signed_order {
        ("int", Scalar::Signed(4))
    } else {
        ("unsigned int", Scalar::Unsigned(4))
    };
    Some(Accumulator::new(&a.name, ty, scalar, a.op))
}

/// Local accumulators: one thread runs the declarations and stores each accumulator's start
/// value; the reduction combines every block into those values; one thread reads them back and
/// runs the statements after the loop (the write-out).
fn write_locals(
    ctx: &mut Context,
    accs: &[Accumulator],
    locals: &[(Accumulator, usize)],
) -> Result<(String, String), NoPort> {
    ctx.include("cuda/std/limits");
    let src = ctx.parsed.src;
    let decl = |k: usize| ctx.edits.apply(src, ctx.nest.prelude[k].clone());
    let others: String = (0..ctx.nest.prelude.len())
        .filter(|k| !locals.iter().any(|(_, j)| j == k))
        .map(|k| format!("    {}\n", decl(k)))
        .collect();
    let all: String = (0..ctx.nest.prelude.len())
        .map(|k| format!("    {}\n", decl(k)))
        .collect();
    let parts_params: String = locals
        .iter()
        .map(|(a, _)| {
            let ty = part_type(a).map_or(a.ty.clone(), |w| w.ty);
            format!(", {ty}* port_part_{}", a.name)
        })
        .collect();
    let parts_args: String = locals
        .iter()
        .map(|(a, _)| format!(", port_part_{}", a.name))
        .collect();
    let params = format!("{}{parts_params}", ctx.params());
    let args = format!("{}{parts_args}", ctx.args());
    let mut starts = String::new();
    let mut privates = String::new();
    let mut reads = String::new();
    let mut finish = String::new();
    let mut alloc = String::new();
    let mut free = String::new();
    // `wide`: the accumulator's wider partial (see `part_type`), which the value is widened into.
    let mut reduce = |a: &Accumulator,
                      value: &str,
                      into: &str,
                      wide: Option<&Accumulator>|
     -> Result<(), NoPort> {
        let id = a.op.identity(&a.ty, a.scalar);
        let combine = match wide {
            Some(w) => w.combine(into, &format!("({})({value})", w.ty))?,
            None => a.combine(into, value)?,
        };
        finish.push_str(&format!(
            "    {value} = port_block_reduce<{ty}>({value}, {id}, [](const {ty}& a, const {ty}& b) -> {ty} {{ return {op}; }});\n    if (threadIdx.x == 0) {{\n            {combine}\n    }}\n",
            ty = a.ty,
            op = a.op.apply("a", "b"),
        ));
        privates.push_str(&format!("    {} {value} = {id};\n", a.ty));
        Ok(())
    };
    for a in accs {
        reduce(a, &a.local(), &a.at, None)?;
    }
    for (a, _) in locals {
        let part = part_type(a);
        reduce(a, &a.name, &format!("port_part_{}", a.name), part.as_ref())?;
        let part_ty = part.as_ref().map_or(a.ty.as_str(), |w| w.ty.as_str());
        let (widen, narrow) = match &part {
            Some(w) => (format!("({})", w.ty), format!("({})", a.ty)),
            None => (String::new(), String::new()),
        };
        starts.push_str(&format!("    *port_part_{n} = {widen}{n};\n", n = a.name));
        reads.push_str(&format!(
            "    {ty} {n} = {narrow}*port_part_{n};\n",
            ty = a.ty,
            n = a.name
        ));
        alloc.push_str(&format!(
            "    {part_ty}* port_part_{n} = nullptr;\n    if (cudaMalloc(&port_part_{n}, sizeof({part_ty})) != cudaSuccess) return;\n",
            n = a.name
        ));
        free.push_str(&format!("    cudaFree(port_part_{});\n", a.name));
    }
    let after = ctx.after();
    let (init, main, done) = (
        ctx.kernel_name("start"),
        ctx.kernel_name("kernel"),
        ctx.kernel_name("finish"),
    );
    let body = ctx.body();
    let blocks = ctx.reduction_blocks();
    let code = format!(
        "{BLOCK_REDUCE}
__global__ void {init}({params}) {{
{all}{starts}}}

__global__ void {main}({params}) {{
{others}{privates}{lp}{finish}}}

__global__ void {done}({params}) {{
{others}{reads}{after}}}

{entry} {{
{alloc}    {init}<<<1, 1>>>({args});
{blocks}    {main}<<<(unsigned)port_blocks, {BLOCK}>>>({args});
    {done}<<<1, 1>>>({args});
{free}}}
",
        lp = ctx.grid_stride(&format!("        {body}\n")),
        entry = ctx.entry(),
    );
    let ops: Vec<String> = accs
        .iter()
        .chain(locals.iter().map(|(a, _)| a))
        .map(|a| format!("{:?} of `{}`", a.op, a.name).to_lowercase())
        .collect();
    Ok((
        code,
        format!(
            "block reduction with warp shuffles and one atomic per block ({})",
            ops.join(", ")
        ),
    ))
}
