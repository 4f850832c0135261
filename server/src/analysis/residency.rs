//! Data residency: can the arrays of offloaded loops stay on the device across an enclosing loop?
//!
//! An offloaded loop's host wrapper copies its arrays in and out on every call. Where the calls sit
//! inside an enclosing loop (a time or convergence loop) and the host never touches those arrays
//! between calls, the copies can be made once before the loop and once after. This pass decides
//! that, from the source alone and failing safe: every statement of the enclosing loop that
//! mentions one of the arrays (by name, through a pointer alias declared in the function) must be
//! a call of an offloaded function that passes it straight to its device code, or a pointer or
//! container swap (`u.swap(v)`, `std::swap(a, b)`, `tmp = a; a = b; b = tmp;`). Anything else (a
//! host read or write, I/O, passing the array to a function that is not offloaded, a `return` that
//! would skip the copy back) keeps the per-call copies, with the reason.
//!
//! Offloaded code is found two ways: the loops already replaced in the text (a call marked
//! `// CUDA version in X_cuda.cu`, whose `X_cuda` declaration gives the parameter types), and the
//! regions about to be offloaded (`pending`, not yet replaced).
//!
//! Limits (fail safe where they can be, documented where they cannot): only calls in the same file
//! are seen; an array reached through a global or a struct field is never kept resident; code in
//! another file that runs inside the loop and touches the arrays through a pointer it kept is not
//! seen.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde::Serialize;
use tree_sitter::Node;

use super::syntax::{end_line_of, for_each_descendant, is_loop, line_of, text};
use super::{Language, OffloadRegion, RegionParam};

/// Marks the call that replaced an offloaded loop (written by the offload's edit).
pub const CALL_MARK: &str = "// CUDA version in ";
/// The functions the edited source calls around a loop whose arrays stay on the device (defined
/// by the registry every kernel file carries).
pub const BEGIN: &str = "cuda_offload_resident_begin";
pub const END: &str = "cuda_offload_resident_end";
/// Names one host array the session keeps on the device (the session line calls it per array).
pub const KEEP: &str = "cuda_offload_resident_keep";
/// Ends the comment of the session lines the edit inserts (`check-build` removes them).
pub const SESSION_MARK: &str = "// cuda-offload session";

/// Marks the declaration of an offload's host wrapper (written by the offload's edit).
pub const DECL_MARK: &str = "// defined in ";
/// Follows the kernel file's name in the declaration of a wrapper that has the residency
/// registry (the version of `search::resident_runtime`); older wrappers have none.
pub const RESIDENCY_TAG: &str = ", with residency v1";

/// Whether a wrapper keeps this parameter on the device in a session: an array the caller passed
/// on. A written scalar (`&acc`, a one-element array made anew by every call) is copied each call:
/// the caller reads it right after (a convergence test's value).
pub fn kept_resident(p: &RegionParam) -> bool {
    p.is_array
        && !p
            .call_arg
            .as_deref()
            .is_some_and(|a| a.trim_start().starts_with('&'))
}

/// An enclosing loop whose body calls offloaded code, and whether its arrays can stay resident.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Residency {
    /// The function the loop is in.
    pub function: String,
    /// 1-based first and last line of the loop statement.
    pub line: usize,
    pub end_line: usize,
    /// The arrays the offloaded calls pass (their names in `function`), sorted.
    pub arrays: Vec<String>,
    /// For each array, the expression that gives its host pointer (`u.data()`, `a`): what the
    /// session names as kept on the device.
    pub pointers: Vec<String>,
    /// The offloaded functions called in the loop (or `loop at line N` for a loop of the body).
    pub calls: Vec<String>,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "detail")]
pub enum Verdict {
    /// The arrays can stay on the device for the whole loop.
    Resident,
    /// They could, once these functions (called with the arrays, offloadable) are offloaded too.
    NeedsOffload(Vec<String>),
    /// They cannot: why.
    NotResident(String),
}

impl Residency {
    pub fn is_resident(&self) -> bool {
        self.verdict == Verdict::Resident
    }

    /// "arrays u, v kept on the device across the while loop at line 28; copied in once, out once".
    pub fn describe(&self) -> String {
        let arrays = self.arrays.join(", ");
        let what = format!("the loop at line {} of {}", self.line, self.function);
        match &self.verdict {
            Verdict::Resident => format!(
                "arrays {arrays} kept on the device across {what} (calls of {}): copied in once, out once",
                self.calls.join(", ")
            ),
            Verdict::NeedsOffload(fns) => format!(
                "called in {what}: keeping {arrays} on the device across it needs {} offloaded too",
                fns.join(", ")
            ),
            Verdict::NotResident(why) => {
                format!("{arrays} copied on every call in {what}: {why}")
            }
        }
    }
}

/// Every enclosing loop of `source` (C++) that calls offloaded code, with its verdict. `pending`:
/// regions of `source` about to be offloaded, treated as offloaded.
pub fn plan(source: &str, pending: &[OffloadRegion]) -> Vec<Residency> {
    let src = source.as_bytes();
    let Some(tree) = super::parse(src, Language::Cpp, None) else {
        return Vec::new();
    };
    let root = tree.root_node();
    let functions = functions(root, src);
    let decls = wrapper_declarations(source);
    let mut units = marked_units(root, src, &decls);
    for region in pending {
        let exprs: Vec<String> = region
            .params
            .iter()
            .filter(|p| kept_resident(p))
            .map(|p| p.call_arg.clone().unwrap_or_else(|| p.name.clone()))
            .collect();
        units.push(Unit {
            lines: (region.line, region.end_line),
            roots: exprs
                .iter()
                .map(|a| plain_root(a).unwrap_or_else(|| a.clone()))
                .collect(),
            exprs,
            name: region.name.clone(),
            predates_residency: false,
        });
    }
    let offloadable = offloadable_functions(src);
    let ctx = Context::new(&functions, &units, offloadable, src);
    let mut out: Vec<Residency> = Vec::new();
    for (g, func) in functions.iter().enumerate() {
        let mut seen = HashSet::new();
        for site in ctx.device_sites(g) {
            let loops = enclosing_loops(site, func.body);
            let Some(innermost) = loops.first().copied() else {
                continue;
            };
            // The outermost loop that can keep the arrays resident saves the most copies.
            let chosen = loops
                .iter()
                .rev()
                .map(|l| ctx.check_loop(g, *l))
                .find(Residency::is_resident)
                .unwrap_or_else(|| ctx.check_loop(g, innermost));
            if seen.insert(chosen.line) {
                out.push(chosen);
            }
        }
    }
    out.sort_by_key(|r| r.line);
    out.dedup_by_key(|r| r.line);
    out
}

/// The loops an edit opened a session around (`cuda_offload_resident_begin();` just before,
/// marked) whose arrays can no longer stay on the device, each with why: the user changed the loop
/// since. Their results would go wrong (the host would read stale data), so the editor warns.
pub fn broken_sessions(source: &str) -> Vec<Residency> {
    if !source.contains(SESSION_MARK) {
        return Vec::new();
    }
    let lines: Vec<&str> = source.lines().collect();
    let begin = format!("{BEGIN}();");
    plan(source, &[])
        .into_iter()
        .filter(|r| !r.is_resident())
        .filter(|r| {
            r.line >= 2
                && lines
                    .get(r.line - 2)
                    .is_some_and(|l| l.contains(SESSION_MARK) && l.contains(&begin))
        })
        .collect()
}

/// One function definition.
struct Function<'t> {
    name: String,
    params: Vec<String>,
    node: Node<'t>,
    body: Node<'t>,
}

/// Offloaded code: a marked call line or a pending region, and the names of the arrays it keeps
/// on the device (in the scope it sits in).
struct Unit {
    lines: (usize, usize),
    roots: Vec<String>,
    /// The argument each root was passed as (`u.data()`), in the same order.
    exprs: Vec<String>,
    name: String,
    /// A marked call of a wrapper generated before residency (no registry in its kernel file).
    predates_residency: bool,
}

struct Context<'a, 't> {
    functions: &'a [Function<'t>],
    units: &'a [Unit],
    offloadable: HashSet<String>,
    src: &'a [u8],
    /// Per function with offloaded code called from elsewhere: the parameter positions its device
    /// code keeps resident, or why a call to it cannot be part of a residency session.
    callee: HashMap<String, Result<Vec<usize>, String>>,
}

impl<'a, 't> Context<'a, 't> {
    fn new(
        functions: &'a [Function<'t>],
        units: &'a [Unit],
        offloadable: HashSet<String>,
        src: &'a [u8],
    ) -> Self {
        let mut ctx = Context {
            functions,
            units,
            offloadable,
            src,
            callee: HashMap::new(),
        };
        for f in functions {
            let mine: Vec<&Unit> = units.iter().filter(|u| ctx.unit_in(u, f)).collect();
            if !mine.is_empty() {
                let verdict = ctx.callee_positions(f, &mine);
                ctx.callee.insert(f.name.clone(), verdict);
            }
        }
        ctx
    }

    fn unit_in(&self, u: &Unit, f: &Function) -> bool {
        line_of(f.body) <= u.lines.0 && u.lines.1 <= end_line_of(f.body)
    }

    /// Which parameters of `f` its offloaded code keeps resident: those it passes on untouched.
    fn callee_positions(&self, f: &Function, mine: &[&Unit]) -> Result<Vec<usize>, String> {
        let mut positions = BTreeSet::new();
        if let Some(u) = mine.iter().find(|u| u.predates_residency) {
            return Err(old_wrapper(&u.name));
        }
        for u in mine {
            for root in &u.roots {
                match f.params.iter().position(|p| p == root) {
                    Some(i) => {
                        positions.insert(i);
                    }
                    None => {
                        return Err(format!(
                            "the offloaded loop of {} uses `{root}`, which is not an array its caller passes",
                            f.name
                        ));
                    }
                }
            }
        }
        let in_unit = |line: usize| mine.iter().any(|u| u.lines.0 <= line && line <= u.lines.1);
        for &i in &positions {
            let name = &f.params[i];
            if let Some(line) = mentions(f.body, name, self.src)
                .into_iter()
                .map(line_of)
                .find(|l| !in_unit(*l))
            {
                return Err(format!(
                    "{} uses `{name}` on the host outside its offloaded loop (line {line})",
                    f.name
                ));
            }
        }
        Ok(positions.into_iter().collect())
    }

    /// Calls of functions with offloaded code and offloaded units, inside function `g`.
    fn device_sites(&self, g: usize) -> Vec<Node<'t>> {
        let f = &self.functions[g];
        let mut sites = Vec::new();
        for_each_descendant(f.body, |n| {
            if n.kind() == "call_expression" {
                let callee = call_name(n, self.src);
                if self.callee.get(&callee).is_some_and(Result::is_ok) {
                    sites.push(n);
                }
            }
            true
        });
        for u in self.units.iter().filter(|u| self.unit_in(u, f)) {
            if let Some(n) = statement_at(f.body, u.lines.0) {
                sites.push(n);
            }
        }
        sites
    }

    /// Whether `n` is offloaded code (a marked call, a pending region).
    fn covered(&self, n: Node) -> bool {
        let (a, b) = (line_of(n), end_line_of(n));
        self.units.iter().any(|u| u.lines.0 <= a && b <= u.lines.1)
    }

    fn check_loop(&self, g: usize, lp: Node<'t>) -> Residency {
        let func = &self.functions[g];
        let (line, end_line) = (line_of(lp), end_line_of(lp));
        let mut walk = Walk {
            ctx: self,
            func,
            tracked: BTreeSet::new(),
            arrays: BTreeSet::new(),
            calls: BTreeSet::new(),
            needs: BTreeSet::new(),
            failure: None,
        };
        // The arrays: what the offloaded code in the loop is passed.
        let mut pointers: HashMap<String, String> = HashMap::new();
        for_each_descendant(lp, |n| {
            if n.kind() == "call_expression" {
                let name = call_name(n, self.src);
                if let Some(Ok(positions)) = self.callee.get(&name) {
                    let args = arguments(n);
                    for &i in positions {
                        let Some(arg) = args.get(i).map(|a| text(*a, self.src).trim().to_string())
                        else {
                            continue;
                        };
                        if let Some(root) = plain_root(&arg) {
                            pointers.entry(root.clone()).or_insert(arg);
                            walk.arrays.insert(root);
                        }
                    }
                    walk.calls.insert(name);
                }
            }
            true
        });
        for u in self
            .units
            .iter()
            .filter(|u| line < u.lines.0 && u.lines.1 <= end_line)
        {
            if self.unit_in(u, func) {
                if u.predates_residency {
                    walk.fail(old_wrapper(&u.name));
                }
                for (root, expr) in u.roots.iter().zip(&u.exprs) {
                    pointers.entry(root.clone()).or_insert_with(|| expr.clone());
                }
                walk.arrays.extend(u.roots.iter().cloned());
                walk.calls.insert(u.name.clone());
            }
        }
        walk.tracked = walk.arrays.clone();
        // Aliases made in the function outside the loop: `float* p = u.data();`, `g.p = u.data();`,
        // a lambda that captures `u`: whatever takes a value that mentions an array may reach it.
        for _ in 0..3 {
            for_each_descendant(func.body, |n| {
                let (target, value) = match n.kind() {
                    "init_declarator" => (
                        n.child_by_field_name("declarator")
                            .and_then(|d| declared_name(d, self.src)),
                        n.child_by_field_name("value"),
                    ),
                    "assignment_expression" => (
                        n.child_by_field_name("left")
                            .and_then(|l| find_kind(l, "identifier").or(Some(l)))
                            .filter(|l| l.kind() == "identifier")
                            .map(|l| text(l, self.src).into_owned()),
                        n.child_by_field_name("right"),
                    ),
                    _ => (None, None),
                };
                if let (Some(target), Some(value)) = (target, value)
                    && !inside(n, lp)
                    && walk
                        .tracked
                        .iter()
                        .any(|t| !mentions(value, t, self.src).is_empty())
                {
                    walk.tracked.insert(target);
                }
                true
            });
        }
        for a in walk.arrays.clone() {
            if let Err(why) = declared_before(func, &a, lp, self.src) {
                walk.fail(why);
            }
        }
        walk.header(lp);
        if let Some(body) = lp.child_by_field_name("body") {
            walk.statement(body);
        }
        let verdict = match (walk.failure, walk.needs.is_empty()) {
            (Some(why), _) => Verdict::NotResident(why),
            (None, false) => Verdict::NeedsOffload(walk.needs.into_iter().collect()),
            (None, true) if walk.arrays.is_empty() => {
                Verdict::NotResident("the offloaded code in it is passed no arrays".into())
            }
            (None, true) => Verdict::Resident,
        };
        Residency {
            function: func.name.clone(),
            line,
            end_line,
            pointers: walk
                .arrays
                .iter()
                .map(|a| pointers.get(a).cloned().unwrap_or_else(|| a.clone()))
                .collect(),
            arrays: walk.arrays.into_iter().collect(),
            calls: walk.calls.into_iter().collect(),
            verdict,
        }
    }
}

/// The statements of one enclosing loop, checked in order.
struct Walk<'c, 'a, 't> {
    ctx: &'c Context<'a, 't>,
    /// The function the loop is in (for the declared types of the names).
    func: &'c Function<'t>,
    /// The arrays and every pointer that may point into them.
    tracked: BTreeSet<String>,
    arrays: BTreeSet<String>,
    calls: BTreeSet<String>,
    needs: BTreeSet<String>,
    failure: Option<String>,
}

impl Walk<'_, '_, '_> {
    fn fail(&mut self, why: String) {
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
    fn header(&mut self, lp: Node) {
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

    fn statement(&mut self, n: Node) {
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

fn functions<'t>(root: Node<'t>, src: &[u8]) -> Vec<Function<'t>> {
    let mut out = Vec::new();
    for_each_descendant(root, |n| {
        if n.kind() != "function_definition" {
            return true;
        }
        let (Some(decl), Some(body)) = (
            n.child_by_field_name("declarator"),
            n.child_by_field_name("body"),
        ) else {
            return false;
        };
        let Some(fdecl) = find_kind(decl, "function_declarator") else {
            return false;
        };
        let name = fdecl
            .child_by_field_name("declarator")
            .map(|d| text(d, src).into_owned())
            .unwrap_or_default();
        let mut params = Vec::new();
        if let Some(list) = fdecl.child_by_field_name("parameters") {
            let mut cursor = list.walk();
            for p in list.named_children(&mut cursor) {
                params.push(
                    p.child_by_field_name("declarator")
                        .and_then(|d| declared_name(d, src))
                        .unwrap_or_default(),
                );
            }
        }
        out.push(Function {
            name,
            params,
            node: n,
            body,
        });
        false
    });
    out
}

fn find_kind<'t>(n: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut found = None;
    for_each_descendant(n, |x| {
        if found.is_none() && x.kind() == kind {
            found = Some(x);
        }
        found.is_none()
    });
    found
}

/// The name a declarator declares (through `*`, `&`, `[]`, initialisers).
fn declared_name(d: Node, src: &[u8]) -> Option<String> {
    let mut n = d;
    loop {
        match n.kind() {
            "identifier" => return Some(text(n, src).into_owned()),
            _ => {
                n = n
                    .child_by_field_name("declarator")
                    .or_else(|| n.named_child(0))?
            }
        }
    }
}

/// `X_cuda` → its parameters, "is a pointer" each, from the declarations the offload's edit wrote.
fn wrapper_declarations(source: &str) -> HashMap<String, (Vec<bool>, bool)> {
    let mut out = HashMap::new();
    for l in source.lines() {
        if !(l.contains(DECL_MARK) && l.trim_end().ends_with("(cuda-offload)")) {
            continue;
        }
        let code = l.split("//").next().unwrap_or("");
        let (Some(open), Some(close)) = (code.find('('), code.rfind(')')) else {
            continue;
        };
        let Some(name) = code[..open].split_whitespace().last() else {
            continue;
        };
        let params = code[open + 1..close]
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .map(|p| p.contains('*') || p.contains('['))
            .collect();
        out.insert(name.to_string(), (params, l.contains(RESIDENCY_TAG)));
    }
    out
}

/// Offloaded units of the text: the marked call lines.
fn marked_units(root: Node, src: &[u8], decls: &HashMap<String, (Vec<bool>, bool)>) -> Vec<Unit> {
    let lines: Vec<&str> = std::str::from_utf8(src).unwrap_or("").lines().collect();
    let mut out = Vec::new();
    for_each_descendant(root, |n| {
        if n.kind() == "call_expression" {
            let name = call_name(n, src);
            let line = line_of(n);
            let marked = lines
                .get(line - 1)
                .is_some_and(|l| l.contains(CALL_MARK) && l.contains(&format!("{name}(")));
            if let (true, Some((pointers, tagged))) = (marked, decls.get(&name)) {
                let exprs: Vec<String> = arguments(n)
                    .into_iter()
                    .zip(pointers)
                    .filter(|(_, p)| **p)
                    .map(|(a, _)| text(a, src).trim().to_string())
                    .filter(|a| !a.starts_with('&') || plain_root(a).is_some())
                    .collect();
                out.push(Unit {
                    lines: (line, end_line_of(n)),
                    roots: exprs
                        .iter()
                        .map(|a| plain_root(a).unwrap_or_else(|| a.clone()))
                        .collect(),
                    exprs,
                    name: name.trim_end_matches("_cuda").to_string(),
                    predates_residency: !tagged,
                });
            }
        }
        true
    });
    out
}

/// Functions with a parallel loop that has a region: what a user could offload next.
fn offloadable_functions(src: &[u8]) -> HashSet<String> {
    super::analyze_source(src, Language::Cpp)
        .loops
        .into_iter()
        .filter(|l| l.parallel && l.region.is_some())
        .filter_map(|l| l.function)
        .collect()
}

fn call_name(call: Node, src: &[u8]) -> String {
    call.child_by_field_name("function")
        .map(|f| text(f, src).into_owned())
        .unwrap_or_default()
}

fn arguments(call: Node) -> Vec<Node> {
    call.child_by_field_name("arguments")
        .map(|a| {
            let mut cursor = a.walk();
            a.named_children(&mut cursor)
                .filter(|c| c.kind() != "comment")
                .collect()
        })
        .unwrap_or_default()
}

/// `u`, `u.data()`, `&u[0]` → `u`: an argument that passes an array as it is and reads nothing.
fn plain_root(arg: &str) -> Option<String> {
    let a: String = arg.chars().filter(|c| !c.is_whitespace()).collect();
    let ident = |s: &str| {
        let mut chars = s.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let root = if let Some(r) = a.strip_suffix(".data()") {
        r
    } else if let Some(r) = a.strip_prefix('&').and_then(|r| r.strip_suffix("[0]")) {
        r
    } else {
        a.as_str()
    };
    ident(root).then(|| root.to_string())
}

/// Identifier nodes under `n` naming `name` (fields of other objects are `field_identifier`s).
fn mentions<'t>(n: Node<'t>, name: &str, src: &[u8]) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    for_each_descendant(n, |x| {
        if x.kind() == "identifier" && text(x, src) == name {
            out.push(x);
        }
        true
    });
    out
}

fn mentions_all<'t>(n: Node<'t>, names: &BTreeSet<String>, src: &[u8]) -> Vec<Node<'t>> {
    names.iter().flat_map(|t| mentions(n, t, src)).collect()
}

fn calls_in(n: Node) -> Vec<Node> {
    let mut out = Vec::new();
    for_each_descendant(n, |x| {
        if x.kind() == "call_expression" {
            out.push(x);
        }
        true
    });
    out
}

fn has_throw(n: Node) -> bool {
    find_kind(n, "throw_expression").is_some() || find_kind(n, "throw_statement").is_some()
}

fn inside(n: Node, outer: Node) -> bool {
    outer.start_byte() <= n.start_byte() && n.end_byte() <= outer.end_byte()
}

/// Loops around `n` inside `body`, innermost first.
fn enclosing_loops<'t>(n: Node<'t>, body: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut cur = n.parent();
    while let Some(p) = cur {
        if !inside(p, body) {
            break;
        }
        if is_loop(p.kind()) {
            out.push(p);
        }
        cur = p.parent();
    }
    out
}

/// The outermost statement of `body` starting on `line`.
fn statement_at<'t>(body: Node<'t>, line: usize) -> Option<Node<'t>> {
    let mut found = None;
    for_each_descendant(body, |x| {
        if found.is_some() {
            return false;
        }
        if line_of(x) == line && x.kind().ends_with("statement") && x != body {
            found = Some(x);
            return false;
        }
        line_of(x) <= line && line <= end_line_of(x)
    });
    found
}

/// An array kept resident must outlive the loop (the copy back writes into it after the loop) and
/// be the same variable in every iteration: a parameter or a local declared before the loop.
fn declared_before(f: &Function, name: &str, lp: Node, src: &[u8]) -> Result<(), String> {
    if f.params.iter().any(|p| p == name) {
        return Ok(());
    }
    let mut before = false;
    let mut within = false;
    for_each_descendant(f.node, |x| {
        if x.kind() == "declaration" {
            let mut cursor = x.walk();
            // Every declarator: `std::vector<float> px(n), fx(n);` (which tree-sitter may read as
            // function declarators) declares both.
            let declares = x
                .children_by_field_name("declarator", &mut cursor)
                .any(|d| declared_name(d, src).as_deref() == Some(name));
            if declares {
                if inside(x, lp) {
                    within = true;
                } else if x.start_byte() < lp.start_byte() {
                    before = true;
                }
            }
        }
        true
    });
    match (before, within) {
        (_, true) => Err(format!(
            "`{name}` is declared inside the loop at line {}: a new array each iteration",
            line_of(lp)
        )),
        (true, false) => Ok(()),
        (false, false) => Err(format!(
            "`{name}` is not a local or parameter of {}: only those are kept on the device",
            f.name
        )),
    }
}

/// How a name is declared in a function, as far as swaps and pointer copies care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `float* p`: copying or swapping it moves no data.
    Pointer,
    /// A `std::vector` (or a reference to one): `swap` exchanges buffers.
    Vector,
    /// Anything else, or declared more than one way.
    Other,
}

fn declared_shape(f: &Function, name: &str, src: &[u8]) -> Shape {
    let mut shapes = Vec::new();
    for_each_descendant(f.node, |x| {
        if matches!(x.kind(), "declaration" | "parameter_declaration") {
            let ty = x
                .child_by_field_name("type")
                .map(|t| text(t, src).into_owned())
                .unwrap_or_default();
            let mut cursor = x.walk();
            for d in x.children_by_field_name("declarator", &mut cursor) {
                if declared_name(d, src).as_deref() != Some(name) {
                    continue;
                }
                let mut d = d;
                while d.kind() == "init_declarator" {
                    match d.child_by_field_name("declarator") {
                        Some(inner) => d = inner,
                        None => break,
                    }
                }
                shapes.push(match d.kind() {
                    "pointer_declarator" => Shape::Pointer,
                    "identifier" | "reference_declarator" | "function_declarator"
                        if ty.contains("vector") =>
                    {
                        Shape::Vector
                    }
                    _ => Shape::Other,
                });
            }
        }
        true
    });
    match shapes.split_first() {
        Some((first, rest)) if rest.iter().all(|s| s == first) => *first,
        _ => Shape::Other,
    }
}

fn old_wrapper(name: &str) -> String {
    format!(
        "{name}_cuda.cu was generated before residency (its wrapper has no registry): offload that loop again"
    )
}

fn is_io(name: &str) -> bool {
    let base = name.rsplit("::").next().unwrap_or(name);
    matches!(
        base,
        "printf"
            | "fprintf"
            | "puts"
            | "fputs"
            | "fwrite"
            | "fread"
            | "scanf"
            | "fscanf"
            | "write"
            | "read"
    ) || name.starts_with("std::cout")
}

fn first_word(s: &str) -> String {
    s.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next()
        .unwrap_or("")
        .to_string()
}

fn squash(s: &str) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 60 {
        format!("{}…", one.chars().take(57).collect::<String>())
    } else {
        one
    }
}

#[cfg(test)]
mod tests;
