//! Privatisation: a scalar declared before a loop that each iteration assigns before it reads it,
//! and that nothing reads once the loop is done, is a per-iteration temporary (`double t;` above
//! `for (...) { t = a[i] * 2; b[i] = t * t; }`), not a value carried between iterations.

use tree_sitter::Node;

use super::facts::LoopFacts;
use super::scope::VarDecl;
use super::syntax::{for_each_descendant, text};

/// Moves the loop's privatisable scalars from its writes and reads to `private_scalars`.
///
/// `outermost` is the outermost loop around this one (its other iterations would read what this
/// loop leaves behind), `vars` the enclosing function's variables.
/// `children` are the loops directly inside this one, with the scalars already private to them.
pub fn privatise(
    facts: &mut LoopFacts,
    node: Node,
    outermost: Option<Node>,
    func: Node,
    vars: &[VarDecl],
    children: &[(std::ops::Range<usize>, Vec<String>)],
    src: &[u8],
) {
    let mut candidates: Vec<String> = Vec::new();
    for w in &facts.scalar_writes {
        if candidates.contains(&w.name) {
            continue;
        }
        let first = facts
            .scalar_writes
            .iter()
            .filter(|x| x.name == w.name)
            .min_by_key(|x| x.byte)
            .expect("one write at least");
        let first_read = facts
            .scalar_reads
            .iter()
            .filter(|(n, _, _)| *n == w.name)
            .map(|(_, _, b)| *b)
            .min()
            .unwrap_or(usize::MAX);
        // Only a plain local (not a reference, pointer or array: those reach other storage).
        let local = vars
            .iter()
            .rev()
            .find(|v| v.name == w.name)
            .is_some_and(|v| {
                v.pointer == 0 && !v.reference && !v.is_array() && v.start_byte < node.start_byte()
            });
        let assigned_first = first.accumulate.is_none()
            && !first.conditional
            && !first.pointer_chase
            && first.byte < first_read;
        // Every use inside one inner loop, to which it is private.
        let in_private_child = children.iter().any(|(range, private)| {
            private.contains(&w.name)
                && facts
                    .scalar_writes
                    .iter()
                    .filter(|x| x.name == w.name)
                    .all(|x| range.contains(&x.byte.saturating_sub(1)))
                && facts
                    .scalar_reads
                    .iter()
                    .filter(|(n, _, _)| *n == w.name)
                    .all(|(_, _, b)| range.contains(b))
        });
        if local && (assigned_first || in_private_child) {
            candidates.push(w.name.clone());
        }
    }
    if candidates.is_empty() {
        return;
    }
    // Read after the loop, or elsewhere in an enclosing loop (its next iteration runs after this
    // loop): the last value matters.
    let (lo, hi) = (node.start_byte(), node.end_byte());
    let outer = outermost.map(|o| o.byte_range()).unwrap_or(lo..hi);
    let mut live: Vec<String> = Vec::new();
    for_each_descendant(func, |n| {
        // Before the loop and outside every loop around it.
        if n.end_byte() <= outer.start {
            return false;
        }
        if n.start_byte() >= lo && n.end_byte() <= hi {
            return false;
        }
        if n.kind() == "identifier" {
            let after = n.start_byte() >= hi;
            let in_outer = outer.contains(&n.start_byte());
            let name = text(n, src);
            if (after || in_outer) && candidates.iter().any(|c| c == name.as_ref()) {
                live.push(name.to_string());
            }
        }
        true
    });
    for name in candidates.into_iter().filter(|c| !live.contains(c)) {
        facts.scalar_writes.retain(|w| w.name != name);
        facts.scalar_reads.retain(|(n, _, _)| *n != name);
        facts.private_scalars.push(name);
    }
}
