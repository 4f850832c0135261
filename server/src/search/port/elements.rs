//! Reductions into array elements. An element whose position does not change over the loop
//! (`cov[0] += r*r`, `counts[k] += counts[i]`) is an accumulator like a scalar one: each thread
//! folds into a private copy and every block combines into the element once. Elements at
//! positions that change with the iteration (`p[3*iOff] *= s` where the analysis cannot prove
//! two iterations apart) are updated in place with one atomic per update.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::NoPort;
use super::kernel::Context;
use super::nest::{Parsed, identifiers, op_of, squash, walk};
use super::reduction::{Accumulator, Op, one_op, read_in_own_update, update_op};
use super::types::Scalar;
use crate::analysis::{Access, RegionParam};

/// One use of an array in the loop body: `array[index]`.
struct Use<'t> {
    subscript: Node<'t>,
    /// The subscript, whitespace removed: `cov[0]`.
    text: String,
    /// Whether the index is the same in every iteration.
    fixed: bool,
}

/// The uses of a written array in the loop body, each with what it does; `None` for an array
/// used other than by subscript (passed on, or as a pointer).
fn uses<'t>(ctx: &Context<'t>, q: &RegionParam) -> Option<Vec<(Use<'t>, Role)>> {
    let p = ctx.parsed;
    let varying = varying_names(ctx);
    let mut out = Vec::new();
    let mut plain = true;
    walk(ctx.body_node(), &mut |n| {
        if n.kind() != "identifier" || p.text(n) != q.name {
            return;
        }
        let Some(s) = n.parent().filter(|s| {
            s.kind() == "subscript_expression"
                && s.child_by_field_name("argument")
                    .is_some_and(|a| a.id() == n.id())
        }) else {
            plain = false;
            return;
        };
        let Some(index) = s
            .child_by_field_name("indices")
            .or_else(|| s.child_by_field_name("index"))
        else {
            plain = false;
            return;
        };
        let u = Use {
            subscript: s,
            text: squash(p.text(s)),
            fixed: fixed_index(ctx, index, &varying),
        };
        let r = role(p, &u);
        out.push((u, r));
    });
    plain.then_some(out)
}

/// What a use does: folds into the element, stores into it otherwise, or reads it.
enum Role {
    Update(Op),
    Store(NoPort),
    Read,
}

fn role(p: &Parsed, u: &Use) -> Role {
    match update_op(p, u.subscript, &u.text) {
        Some(Ok(op)) => Role::Update(op),
        Some(Err(e)) => Role::Store(e),
        None => Role::Read,
    }
}

/// Names whose value may differ between iterations: the counters and every variable the loop
/// declares or assigns.
fn varying_names(ctx: &Context) -> BTreeSet<String> {
    let p = ctx.parsed;
    let mut out: BTreeSet<String> = BTreeSet::new();
    out.insert(ctx.nest.outer.var.clone());
    out.extend(ctx.nest.outer.companions.iter().map(|c| c.var.clone()));
    let Some(lp) = p
        .root()
        .descendant_for_byte_range(ctx.nest.outer_loop.start, ctx.nest.outer_loop.end)
    else {
        return out;
    };
    out.extend(super::phases::written(p, lp));
    walk(lp, &mut |n| {
        let declared = match n.kind() {
            "init_declarator" => n.child_by_field_name("declarator"),
            "declaration" => n.child_by_field_name("declarator"),
            _ => None,
        };
        if let Some(t) = declared.filter(|t| t.kind() == "identifier") {
            out.insert(p.text(t).to_string());
        }
    });
    out
}

/// An index that reads only names the loop never changes, no array, no call.
fn fixed_index(ctx: &Context, index: Node, varying: &BTreeSet<String>) -> bool {
    let p = ctx.parsed;
    let mut plain = true;
    walk(index, &mut |n| {
        if matches!(
            n.kind(),
            "call_expression"
                | "subscript_expression"
                | "pointer_expression"
                | "field_expression"
                | "assignment_expression"
                | "update_expression"
        ) {
            plain = false;
        }
    });
    plain
        && identifiers(p, index).iter().all(|x| {
            !varying.contains(x)
                && !ctx
                    .region
                    .params
                    .iter()
                    .any(|q| &q.name == x && (q.is_array || q.access != Access::Read))
        })
}

/// The written arrays an element reduction may be about: builtin scalars, not a one-element
/// accumulator (a pointer parameter, handled as a scalar one).
fn candidates(ctx: &Context) -> Vec<(RegionParam, Scalar)> {
    ctx.region
        .params
        .iter()
        .filter(|q| q.is_array && q.access != Access::Read && q.extent.as_deref() != Some("1"))
        .filter_map(|q| Scalar::of(&q.elem_type).map(|s| (q.clone(), s)))
        .collect()
}

/// The elements at fixed positions that the loop accumulates into, each its own accumulator; their
/// uses in the body become the thread's private copies.
pub(super) fn accumulators(ctx: &mut Context) -> Result<Vec<Accumulator>, NoPort> {
    let p = ctx.parsed;
    let mut out: Vec<Accumulator> = Vec::new();
    for (q, scalar) in candidates(ctx) {
        let Some(uses) = uses(ctx, &q) else { continue };
        let updates: Vec<(&Use, Op)> = uses
            .iter()
            .filter_map(|(u, r)| match r {
                Role::Update(op) => Some((u, *op)),
                _ => None,
            })
            .collect();
        if updates.is_empty() || updates.iter().any(|(u, _)| !u.fixed) {
            continue;
        }
        if let Some((_, Role::Store(e))) = uses.iter().find(|(_, r)| matches!(r, Role::Store(_))) {
            return Err(e.clone());
        }
        let mut elements: Vec<String> = updates.iter().map(|(u, _)| u.text.clone()).collect();
        elements.sort();
        elements.dedup();
        let mut ops_of_array = Vec::new();
        for (k, element) in elements.iter().enumerate() {
            let own: Vec<&(Use, Role)> = uses.iter().filter(|(u, _)| &u.text == element).collect();
            if let Some((u, _)) = own.iter().find(|(u, r)| {
                matches!(r, Role::Read) && !read_in_own_update(p, u.subscript, element)
            }) {
                return Err(NoPort::new(format!(
                    "`{}` is read in the loop outside its own update: a running value, not a reduction",
                    u.text
                )));
            }
            let ops: Vec<Op> = updates
                .iter()
                .filter(|(u, _)| &u.text == element)
                .map(|(_, op)| *op)
                .collect();
            let op = one_op(ops, element)?;
            ops_of_array.push(op);
            let mut a = Accumulator::new(element, &q.elem_type, scalar, op);
            a.at = format!("&{element}");
            a.local = format!("port_acc_{}_{k}", q.name);
            for (u, _) in &own {
                ctx.edits.replace(u.subscript.byte_range(), a.local.clone());
            }
            out.push(a);
        }
        // Two positions that the program may make equal are one element: their partials combine
        // into it in any order only under one operator.
        ops_of_array.dedup();
        if ops_of_array.len() > 1 {
            return Err(NoPort::new(format!(
                "the elements of `{}` are accumulated with different operators",
                q.name
            )));
        }
    }
    Ok(out)
}

/// Rewrites each update of an element at a changing position into an atomic one; how many.
pub(super) fn atomics(ctx: &mut Context) -> Result<usize, NoPort> {
    let p = ctx.parsed;
    let mut count = 0;
    for (q, scalar) in candidates(ctx) {
        let Some(uses) = uses(ctx, &q) else { continue };
        // Only an array every use of which updates it at a changing position. One with a fixed
        // position is an accumulator (above); one also read or stored is one the analysis found
        // each iteration's own (`r[i] = ..; r[i] -= ..` beside a scalar sum): left as it is.
        if uses.is_empty()
            || uses
                .iter()
                .any(|(u, r)| u.fixed || !matches!(r, Role::Update(_)))
        {
            continue;
        }
        let mut rewrites = Vec::new();
        for (u, r) in &uses {
            let Role::Update(op) = *r else { continue };
            let (update, value) = atomic_value(p, u)?;
            rewrites.push((update, op, value, u.text.clone()));
        }
        let ops: Vec<Op> = rewrites.iter().map(|r| r.1).collect();
        one_op(ops, &q.name)?;
        for (update, op, value, element) in rewrites {
            let a = Accumulator::new(&element, &q.elem_type, scalar, op);
            let stmt = a.combine(
                &format!("&{element}"),
                &format!("({})({value})", q.elem_type),
            )?;
            ctx.edits
                .replace(update.byte_range(), format!("{{ {stmt} }}"));
            count += 1;
        }
    }
    Ok(count)
}

/// The update expression around `u` (a statement of its own) and the value it folds in.
fn atomic_value<'t>(p: &Parsed, u: &Use<'t>) -> Result<(Node<'t>, String), NoPort> {
    let mut target = u.subscript;
    while let Some(pa) = target
        .parent()
        .filter(|pa| pa.kind() == "parenthesized_expression")
    {
        target = pa;
    }
    let update = target
        .parent()
        .ok_or_else(|| NoPort::new("an update without a statement"))?;
    if update
        .parent()
        .is_none_or(|s| s.kind() != "expression_statement")
    {
        return Err(NoPort::new(format!(
            "the value of the update of `{}` is used",
            u.text
        )));
    }
    let unsupported = || {
        NoPort::new(format!(
            "the update `{}` has no atomic form",
            p.text(update).trim()
        ))
    };
    let value = match update.kind() {
        "update_expression" if op_of(p, update) == "++" => "1".to_string(),
        "update_expression" => "-1".to_string(),
        "assignment_expression" => {
            let right = update
                .child_by_field_name("right")
                .ok_or_else(unsupported)?;
            match op_of(p, update).as_str() {
                "-=" => format!("-({})", p.text(right)),
                "=" => {
                    let mut r = right;
                    while r.kind() == "parenthesized_expression" {
                        r = r.named_child(0).ok_or_else(unsupported)?;
                    }
                    let (a, b) = (
                        r.child_by_field_name("left").ok_or_else(unsupported)?,
                        r.child_by_field_name("right").ok_or_else(unsupported)?,
                    );
                    let minus = op_of(p, r) == "-";
                    if r.kind() != "binary_expression" {
                        return Err(unsupported());
                    } else if squash(p.text(a)) == u.text {
                        if minus {
                            format!("-({})", p.text(b))
                        } else {
                            p.text(b).to_string()
                        }
                    } else if squash(p.text(b)) == u.text && !minus {
                        p.text(a).to_string()
                    } else {
                        return Err(unsupported());
                    }
                }
                _ => p.text(right).to_string(),
            }
        }
        _ => return Err(unsupported()),
    };
    Ok((update, value))
}
