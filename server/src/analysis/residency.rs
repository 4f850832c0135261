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

use super::syntax::{end_line_of, for_each_descendant, line_of, text};
use super::{Language, OffloadRegion, RegionParam};

mod source;
mod walk;

use source::{
    arguments, call_name, declared_before, declared_name, enclosing_loops, find_kind, functions,
    inside, marked_units, mentions, offloadable_functions, old_wrapper, plain_root, statement_at,
    wrapper_declarations,
};
use walk::Walk;

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
/// Follows the kernel file's name in the declaration of a helper that computes the range of an
/// index array's values where the loop was: not a wrapper, so no offloaded unit.
pub const RANGE_HELPER_TAG: &str = ": the range of an index array's values";

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

#[cfg(test)]
mod tests;
