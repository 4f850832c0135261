//! The statements of one enclosing loop, checked in order against the arrays the offloaded calls
//! in it keep on the device: what may touch them (offloaded calls, swaps and pointer copies that
//! move no data) and why anything else keeps the per-call copies.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::source::{
    Shape, arguments, call_name, calls_in, declared_name, declared_shape, first_word, has_throw,
    is_io, mentions, mentions_all, plain_root, squash,
};
use super::{Context, Function};
use crate::analysis::syntax::{is_loop, line_of, text};

/// The statements of one enclosing loop, checked in order.
pub(super) struct Walk<'c, 'a, 't> {
    pub(super) ctx: &'c Context<'a, 't>,
    /// The function the loop is in (for the declared types of the names).
    pub(super) func: &'c Function<'t>,
    /// The arrays and every pointer that may point into them.
    pub(super) tracked: BTreeSet<String>,
    pub(super) arrays: BTreeSet<String>,
    pub(super) calls: BTreeSet<String>,
    pub(super) needs: BTreeSet<String>,
    pub(super) failure: Option<String>,
}

impl Walk<'_, '_, '_> {
    pub(super) fn fail(&mut self, why: String) {
        if self.failure.is_none() {
            self.failure = Some(why);
        }
    }

    fn mentioned(&self, n: Node) -> Option<String> {
        self.tracked
            .iter()
            .find(|t| !mentions(n, t, self.ctx.src).is_empty())
            .cloned()
    }

    /// A loop's condition, initialiser and update (everything but its body).
    pub(super) fn header(&mut self, lp: Node) {
        let body = lp.child_by_field_name("body");
        let mut cursor = lp.walk();
        for part in lp.named_children(&mut cursor) {
            if Some(part) == body {
                continue;
            }
            if let Some(name) = self.mentioned(part) {
                self.fail(format!(
                    "line {}: the loop's own condition or step uses `{name}` on the host",
                    line_of(part)
                ));
            }
        }
    }

    pub(super) fn statement(&mut self, n: Node) {
        if self.failure.is_some() || self.ctx.covered(n) {
            return;
        }
        match n.kind() {
            "compound_statement" => {
                let mut cursor = n.walk();
                for s in n.named_children(&mut cursor) {
                    self.statement(s);
                }
            }
            "if_statement" => {
                if let Some(c) = n.child_by_field_name("condition") {
                    self.leaf_mention(c);
                }
                for field in ["consequence", "alternative"] {
                    if let Some(s) = n.child_by_field_name(field) {
                        self.statement(s);
                    }
                }
            }
            "else_clause" => {
                let mut cursor = n.walk();
                for s in n.named_children(&mut cursor) {
                    self.statement(s);
                }
            }
            k if is_loop(k) => {
                self.header(n);
                if let Some(b) = n.child_by_field_name("body") {
                    self.statement(b);
                }
            }
            "return_statement" | "goto_statement" | "co_return_statement" => self.fail(format!(
                "line {}: `{}` leaves the loop past the copy back of the arrays",
                line_of(n),
                first_word(&text(n, self.ctx.src))
            )),
            "break_statement" | "continue_statement" | "comment" => {}
            _ => self.leaf(n),
        }
    }

    /// A condition: it may use no tracked array.
    fn leaf_mention(&mut self, n: Node) {
        if let Some(name) = self.mentioned(n) {
            self.fail(format!(
                "line {}: `{}` uses `{name}` on the host",
                line_of(n),
                squash(&text(n, self.ctx.src))
            ));
        }
    }

    fn leaf(&mut self, n: Node) {
        let src = self.ctx.src;
        let line = line_of(n);
        if has_throw(n) {
            return self.fail(format!(
                "line {line}: a `throw` leaves the loop past the copy back of the arrays"
            ));
        }
        let calls = calls_in(n);
        // Any call of offloaded code that cannot join a session breaks it, mentioned arrays or not:
        // its wrapper would keep arrays the session knows nothing of.
        for c in &calls {
            let name = call_name(*c, src);
            if let Some(Err(why)) = self.ctx.callee.get(&name) {
                return self.fail(why.clone());
            }
        }
        let Some(name) = self.mentioned(n) else {
            return;
        };
        if let Some(alias) = self.pointer_copy(n) {
            if let Some(a) = alias {
                self.tracked.insert(a);
            }
            return;
        }
        if self.is_swap(n, &calls) {
            return;
        }
        // Offloaded calls: every use of a tracked name is an argument the device code keeps.
        let mut uses: Vec<usize> = mentions_all(n, &self.tracked, src)
            .iter()
            .map(|m| m.start_byte())
            .collect();
        let mut unexplained = None;
        for c in &calls {
            let callee = call_name(*c, src);
            match self.ctx.callee.get(&callee) {
                Some(Ok(positions)) => {
                    for (i, a) in arguments(*c).into_iter().enumerate() {
                        let used = mentions_all(a, &self.tracked, src);
                        if used.is_empty() {
                            continue;
                        }
                        if positions.contains(&i) && plain_root(&text(a, src)).is_some() {
                            uses.retain(|b| !used.iter().any(|u| u.start_byte() == *b));
                        } else {
                            unexplained.get_or_insert_with(|| {
                                format!(
                                    "line {line}: `{}` is passed to {callee} in a way its offloaded loop does not take",
                                    squash(&text(a, src))
                                )
                            });
                        }
                    }
                }
                _ => {
                    let passes = arguments(*c)
                        .into_iter()
                        .any(|a| self.mentioned(a).is_some());
                    if passes && self.ctx.offloadable.contains(&callee) {
                        self.needs.insert(callee.clone());
                        let used: Vec<usize> = arguments(*c)
                            .into_iter()
                            .flat_map(|a| mentions_all(a, &self.tracked, src))
                            .map(|m| m.start_byte())
                            .collect();
                        uses.retain(|b| !used.contains(b));
                    }
                }
            }
        }
        if let Some(why) = unexplained {
            return self.fail(why);
        }
        if uses.is_empty() {
            return;
        }
        let stmt = squash(&text(n, src));
        let io = calls
            .iter()
            .map(|c| call_name(*c, src))
            .find(|c| is_io(c))
            .or_else(|| (stmt.contains("<<") || stmt.contains(">>")).then(|| "a stream".into()));
        let why = match io {
            Some(f) => format!("line {line}: `{stmt}` does I/O ({f}) with `{name}` on the host"),
            None => match calls
                .iter()
                .find(|c| {
                    arguments(**c)
                        .into_iter()
                        .any(|a| self.mentioned(a).is_some())
                })
                .map(|c| call_name(*c, src))
            {
                Some(f) if !self.ctx.callee.contains_key(&f) => {
                    format!("line {line}: `{stmt}` passes `{name}` to {f}, which is not offloaded")
                }
                _ => format!("line {line}: `{stmt}` uses `{name}` on the host"),
            },
        };
        self.fail(why);
    }

    /// `a = b;` or `T* tmp = a;` between tracked pointers (a swap's parts): allowed, the data stays
    /// where it is. `Some(Some(tmp))` when it declares a new alias.
    fn pointer_copy(&self, n: Node) -> Option<Option<String>> {
        let src = self.ctx.src;
        let plain = |x: Option<Node>| {
            x.filter(|x| x.kind() == "identifier")
                .map(|x| text(x, src).into_owned())
        };
        match n.kind() {
            "expression_statement" => {
                let e = n.named_child(0)?;
                if e.kind() != "assignment_expression"
                    || text(e.child_by_field_name("operator")?, src) != "="
                {
                    return None;
                }
                let (l, r) = (
                    plain(e.child_by_field_name("left"))?,
                    plain(e.child_by_field_name("right"))?,
                );
                // Raw pointers only: `u = v` on containers copies the data on the host.
                let pointers = [&l, &r]
                    .iter()
                    .all(|x| declared_shape(self.func, x, src) == Shape::Pointer);
                (self.tracked.contains(&l) && self.tracked.contains(&r) && pointers).then_some(None)
            }
            "declaration" => {
                let mut cursor = n.walk();
                let decls: Vec<Node> = n
                    .children_by_field_name("declarator", &mut cursor)
                    .collect();
                let [d] = decls.as_slice() else { return None };
                if d.kind() != "init_declarator" {
                    return None;
                }
                let inner = d.child_by_field_name("declarator")?;
                if inner.kind() != "pointer_declarator" {
                    return None;
                }
                let r = plain(d.child_by_field_name("value"))?;
                self.tracked.contains(&r).then(|| declared_name(inner, src))
            }
            _ => None,
        }
    }

    /// `u.swap(v)`, `std::swap(u, v)`, `swap(u, v)` on two tracked names.
    fn is_swap(&self, n: Node, calls: &[Node]) -> bool {
        let src = self.ctx.src;
        if n.kind() != "expression_statement" || calls.len() != 1 {
            return false;
        }
        let c = calls[0];
        if n.named_child(0) != Some(c) {
            return false;
        }
        let tracked_ident =
            |x: Node| x.kind() == "identifier" && self.tracked.contains(text(x, src).as_ref());
        // Swapping two vectors or two raw pointers exchanges buffers; swapping fixed arrays
        // (`float a[N]`, `std::array`) exchanges their elements on the host.
        let shape = |x: Node| declared_shape(self.func, &text(x, src), src);
        let args = arguments(c);
        let Some(f) = c.child_by_field_name("function") else {
            return false;
        };
        match f.kind() {
            "field_expression" => {
                let (Some(obj), Some(field)) = (
                    f.child_by_field_name("argument"),
                    f.child_by_field_name("field"),
                ) else {
                    return false;
                };
                text(field, src) == "swap"
                    && tracked_ident(obj)
                    && args.len() == 1
                    && tracked_ident(args[0])
                    && shape(obj) == Shape::Vector
                    && shape(args[0]) == Shape::Vector
            }
            "identifier" | "qualified_identifier" => {
                let name = text(f, src);
                (name == "swap" || name == "std::swap")
                    && args.len() == 2
                    && args.iter().all(|a| tracked_ident(*a))
                    && (args.iter().all(|a| shape(*a) == Shape::Vector)
                        || args.iter().all(|a| shape(*a) == Shape::Pointer))
            }
            _ => false,
        }
    }
}
