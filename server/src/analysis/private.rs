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
pub fn privatise<'t>(
    facts: &mut LoopFacts,
    node: Node,
    outermost: Option<Node>,
    func: Node<'t>,
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
        if local
            && (assigned_first
                || in_private_child
                || reads_follow_writes(facts, &w.name, node, src))
        {
            candidates.push(w.name.clone());
        }
    }
    if candidates.is_empty() {
        return;
    }
    // Read after the loop, or elsewhere in an enclosing loop (its next iteration runs after this
    // loop): the last value matters, unless the next mention assigns it afresh.
    let (lo, hi) = (node.start_byte(), node.end_byte());
    let outer = outermost.map(|o| o.byte_range()).unwrap_or(lo..hi);
    // Mentions in the enclosing loops, in the order they run after this loop (the rest of this
    // iteration of the outermost loop, then the start of its next one), and after them.
    let mut around: Vec<(String, Node)> = Vec::new();
    let mut wrapped: Vec<(String, Node)> = Vec::new();
    let mut after: Vec<(String, Node)> = Vec::new();
    for_each_descendant(func, |n| {
        // Before the loop and outside every loop around it.
        if n.end_byte() <= outer.start {
            return false;
        }
        if n.start_byte() >= lo && n.end_byte() <= hi {
            return false;
        }
        if n.kind() == "identifier" {
            let name = text(n, src);
            if !candidates.iter().any(|c| c == name.as_ref()) {
                return true;
            }
            let at = n.start_byte();
            let list = if !outer.contains(&at) {
                &mut after
            } else if at >= hi {
                &mut around
            } else {
                &mut wrapped
            };
            list.push((name.to_string(), n));
        }
        true
    });
    around.extend(wrapped);
    let mut live: Vec<String> = Vec::new();
    for c in &candidates {
        let of = |list: &[(String, Node<'t>)]| -> Vec<Node<'t>> {
            list.iter()
                .filter(|(n, _)| n == c)
                .map(|(_, n)| *n)
                .collect()
        };
        let (inside, later) = (of(&around), of(&after));
        if !killed_first(&inside, c, src) || !killed_first(&later, c, src) {
            live.push(c.clone());
        }
    }
    for name in candidates.into_iter().filter(|c| !live.contains(c)) {
        facts.scalar_writes.retain(|w| w.name != name);
        facts.scalar_reads.retain(|(n, _, _)| *n != name);
        facts.private_scalars.push(name);
    }
}

/// Whether no mention of `mentions` (in the order they run) reads the value they find: each one
/// before the first that reads it assigns it (`t = e`), and one of those assigns it afresh in a
/// block holding every later mention (`t = e;` at the top of another loop's body). No mention:
/// nothing reads it.
fn killed_first(mentions: &[Node], name: &str, src: &[u8]) -> bool {
    for (k, m) in mentions.iter().enumerate() {
        let Some(st) = m
            .parent()
            .filter(|a| {
                a.kind() == "assignment_expression"
                    && a.child_by_field_name("left").is_some_and(|l| l == *m)
            })
            .and_then(|a| a.parent().map(|st| (a, st)))
            .filter(|(a, st)| {
                (st.kind() == "expression_statement" && defines(*st, name, src))
                    || for_init_defines(*st, *a, name, src)
            })
            .map(|(_, st)| st)
        else {
            return false;
        };
        let kills = st
            .parent()
            .filter(|b| matches!(b.kind(), "compound_statement" | "case_statement"))
            .is_some_and(|block| {
                mentions[k + 1..]
                    .iter()
                    .all(|m| block.byte_range().contains(&m.start_byte()))
            });
        if kills {
            return true;
        }
    }
    true
}

/// Whether every read of `name` in the loop comes after a plain assignment to it that is a
/// statement of a block holding the read (`if (c) { t = x; y = t; }`): each iteration that reads
/// it has just written it, whichever branches it takes.
fn reads_follow_writes(facts: &LoopFacts, name: &str, node: Node, src: &[u8]) -> bool {
    // (block range, write end) of the assignments that are whole statements of a block.
    let mut defs: Vec<(std::ops::Range<usize>, usize)> = Vec::new();
    for w in facts.scalar_writes.iter().filter(|w| w.name == name) {
        if w.accumulate.is_some() || w.pointer_chase || w.byte == 0 {
            continue;
        }
        let Some(mut n) = node.descendant_for_byte_range(w.byte - 1, w.byte - 1) else {
            continue;
        };
        while n.kind() != "assignment_expression" {
            match n.parent() {
                Some(p) if p.start_byte() >= node.start_byte() => n = p,
                _ => break,
            }
        }
        let plain = n.kind() == "assignment_expression"
            && n.end_byte() == w.byte
            && n.child_by_field_name("operator")
                .is_some_and(|o| text(o, src) == "=")
            && n.child_by_field_name("left")
                .is_some_and(|l| text(l, src) == name);
        let Some(stmt) = n
            .parent()
            .filter(|s| plain && s.kind() == "expression_statement")
        else {
            continue;
        };
        let Some(block) = stmt
            .parent()
            .filter(|b| matches!(b.kind(), "compound_statement" | "case_statement"))
        else {
            continue;
        };
        defs.push((block.byte_range(), w.byte));
    }
    // An `if`/`else` whose every branch assigns it defines it for what follows in its block.
    for_each_descendant(node, |n| {
        if n.kind() == "if_statement"
            && defines(n, name, src)
            && let Some(block) = n
                .parent()
                .filter(|b| matches!(b.kind(), "compound_statement" | "case_statement"))
        {
            defs.push((block.byte_range(), n.end_byte()));
        }
        true
    });
    let reads: Vec<usize> = facts
        .scalar_reads
        .iter()
        .filter(|(n, _, _)| n == name)
        .map(|(_, _, b)| *b)
        .collect();
    !reads.is_empty()
        && reads.iter().all(|r| {
            defs.iter()
                .any(|(block, end)| block.contains(r) && end <= r)
        })
}

/// Whether `assign` is the initializer of the `for` statement `st` and sets `name` afresh
/// (`for (j = 1; ...)`): it runs whenever the statement does, before anything reads `name`.
fn for_init_defines(st: Node, assign: Node, name: &str, src: &[u8]) -> bool {
    st.kind() == "for_statement"
        && st.child_by_field_name("initializer") == Some(assign)
        && assign
            .child_by_field_name("operator")
            .is_some_and(|o| text(o, src) == "=")
        && assign.child_by_field_name("right").is_some_and(|r| {
            let mut mentions = false;
            for_each_descendant(r, |x| {
                mentions |= x.kind() == "identifier" && text(x, src) == name;
                !mentions
            });
            !mentions
        })
}

/// Whether statement `st` assigns `name` (plainly, with `=`) on every path through it.
fn defines(st: Node, name: &str, src: &[u8]) -> bool {
    match st.kind() {
        "expression_statement" => st.named_child(0).is_some_and(|e| {
            e.kind() == "assignment_expression"
                && e.child_by_field_name("operator")
                    .is_some_and(|o| text(o, src) == "=")
                && e.child_by_field_name("left")
                    .is_some_and(|l| text(l, src) == name)
                && e.child_by_field_name("right").is_some_and(|r| {
                    let mut mentions = false;
                    for_each_descendant(r, |x| {
                        mentions |= x.kind() == "identifier" && text(x, src) == name;
                        !mentions
                    });
                    !mentions
                })
        }),
        "compound_statement" => {
            let mut c = st.walk();
            st.named_children(&mut c).any(|x| defines(x, name, src))
        }
        "if_statement" => {
            let alt = st.child_by_field_name("alternative").map(|a| {
                if a.kind() == "else_clause" {
                    a.named_child(0)
                } else {
                    Some(a)
                }
            });
            match (st.child_by_field_name("consequence"), alt) {
                (Some(c), Some(Some(a))) => defines(c, name, src) && defines(a, name, src),
                _ => false,
            }
        }
        _ => false,
    }
}
