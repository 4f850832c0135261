//! Bounds a loop reads from data once (`ii < s->boxes->nAtoms[iBox]`, `k = rowstr[j]; k <
//! rowstr[j + 1]`, `k < *nzv`): the analysis proved the element invariant in the loop (nothing the loop does
//! writes what it reads, `facts.rs`'s `invariant_symbol`), so evaluating it once where the loop
//! was gives the same iterations as evaluating it before each one. The outliner then passes it as
//! an integer parameter (`ii_end`, the call site passing `s->boxes->nAtoms[iBox]`), the region's
//! header tests that parameter, and the counter's range, the trip count and the extents follow.
//!
//! Only the counted loop's own bounds are hoisted: a nested loop's data bound changes with the
//! outer counter, so a region holding that nest stays refused.

use tree_sitter::Node;

use super::facts::Induction;
use super::poly::Poly;
use super::syntax::{for_each_descendant, text};

/// One bound expression evaluated at the call site.
#[derive(Debug, Clone)]
pub struct HoistedBound {
    /// The region's integer parameter standing for it.
    pub symbol: String,
    /// Its type: the counter's, so the header compares as it did.
    pub ty: String,
    /// The expression as the caller spells it, passed for `symbol`.
    pub call_arg: String,
    /// Where the header spells it, replaced by `symbol` in the region's body.
    pub ranges: Vec<(usize, usize)>,
}

/// The counter of `node` with its data bounds replaced by parameters, and those parameters;
/// `None` when a bound is not found as written in the header, or something else in the counter's
/// range is still read from data. `taken` says which names the region already uses;
/// `declared` is the counter's type where it is declared before the loop.
pub fn hoist(
    node: Node,
    src: &[u8],
    ind: &Induction,
    declared: Option<&str>,
    taken: impl Fn(&str) -> bool,
) -> Option<(Induction, Vec<HoistedBound>)> {
    if node.kind() != "for_statement" {
        return None;
    }
    let header: Vec<Node> = ["initializer", "condition"]
        .into_iter()
        .filter_map(|f| node.child_by_field_name(f))
        .collect();
    let ty = counter_type(node, src, declared);
    let mut lower = ind.lower.clone();
    let mut upper = ind.upper.clone();
    let mut hoisted: Vec<HoistedBound> = Vec::new();
    for (poly_is_lower, var) in ind
        .lower
        .vars()
        .into_iter()
        .map(|v| (true, v))
        .chain(ind.upper.vars().into_iter().map(|v| (false, v)))
    {
        if !is_read_through(&var) || hoisted.iter().any(|h| squash(&h.call_arg) == var) {
            continue;
        }
        let ranges = spelled_in(&header, src, &var);
        let first = ranges.first()?;
        let call_arg = String::from_utf8_lossy(&src[first.0..first.1]).into_owned();
        let base = format!(
            "{}_{}",
            ind.var,
            if poly_is_lower { "begin" } else { "end" }
        );
        let mut symbol = base.clone();
        let mut k = 2;
        while taken(&symbol) || hoisted.iter().any(|h| h.symbol == symbol) {
            symbol = format!("{base}{k}");
            k += 1;
        }
        let by = Poly::var(&symbol);
        lower = lower.substitute(&var, &by)?;
        upper = upper.substitute(&var, &by)?;
        hoisted.push(HoistedBound {
            symbol,
            ty: ty.clone(),
            call_arg,
            ranges,
        });
    }
    let still_data = lower
        .vars()
        .iter()
        .chain(upper.vars().iter())
        .any(|v| v.contains('['));
    if hoisted.is_empty() || still_data {
        return None;
    }
    let span = upper.sub(&lower)?.add(&Poly::constant(1))?;
    Some((
        Induction {
            var: ind.var.clone(),
            lower,
            upper,
            step: ind.step,
            span,
            data_dependent: false,
        },
        hoisted,
    ))
}

/// A bound symbol that reads memory a plain size parameter cannot stand for: an element
/// (`rowstr[j]`), what a pointer points to (`*nzv`), or what an accessor returns
/// (`g.num_nodes()`, a method the analysis judged read-only on an object the loop leaves alone).
fn is_read_through(var: &str) -> bool {
    var.contains('[') || var.starts_with('*') || var.contains('(')
}

/// Byte ranges of the outermost expressions under `roots` spelled `squashed` (spaces aside).
fn spelled_in(roots: &[Node], src: &[u8], squashed: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for root in roots {
        for_each_descendant(*root, |n| {
            if n.is_named() && squash(&text(n, src)) == squashed {
                out.push((n.start_byte(), n.end_byte()));
                return false;
            }
            true
        });
    }
    out
}

/// The counter's integer type, from the header (`int ii = 0`) or its declaration; else `long`.
fn counter_type(node: Node, src: &[u8], declared: Option<&str>) -> String {
    node.child_by_field_name("initializer")
        .filter(|i| i.kind() == "declaration")
        .and_then(|d| d.child_by_field_name("type"))
        .map(|t| text(t, src).to_string())
        .or(declared.map(str::to_string))
        .filter(|t| super::facts::is_integer_type(t))
        .unwrap_or_else(|| "long".into())
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}
