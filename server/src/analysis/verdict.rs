//! The verdict on one loop: can its iterations run in parallel, what kind of computation is it, and
//! why — in one sentence a user understands.
//!
//! Conservative by design: a wrong "parallel" costs a user a broken program, a missed one only a
//! speedup. Anything the analysis cannot prove (unknown calls, writes through pointers, subscripts it
//! cannot compare) makes the loop sequential and says so. Distinct arrays are assumed not to alias
//! (as if declared `__restrict__`), and a row stride (`m` in `a[i*m + j]`) is assumed to be at least
//! the extent of the inner counter.

use std::collections::{BTreeMap, BTreeSet};

use super::outline::{max_over, min_over};

use super::facts::{ArrayRef, Induction, LoopFacts, LoopForm, WriteKind};
use super::poly::Poly;
use super::region::LoopKind;

#[derive(Debug, Clone)]
pub struct Verdict {
    pub kind: LoopKind,
    pub reason: String,
}

impl Verdict {
    fn seq(reason: impl Into<String>) -> Self {
        Verdict {
            kind: LoopKind::Sequential,
            reason: reason.into(),
        }
    }
}

/// `induction_vars`: the counters of this loop and of every loop nested in it.
pub fn classify(f: &LoopFacts) -> Verdict {
    if f.too_complex {
        return Verdict::seq("the loop body is nested too deeply to analyse");
    }
    if let Some(v) = control_hazards(f) {
        return v;
    }
    let counter = match &f.induction {
        Some(ind) => ind.var.clone(),
        None => return Verdict::seq("the loop has no counter the analysis recognises"),
    };
    let mut nest_vars = vec![counter.clone()];
    nest_vars.extend(f.inner_inductions.iter().cloned());

    let mut reductions: Vec<String> = Vec::new();
    if let Some(v) = scalar_verdict(f, &mut reductions) {
        return v;
    }

    let mut by_array: BTreeMap<&str, Vec<&ArrayRef>> = BTreeMap::new();
    for r in &f.arrays {
        by_array.entry(r.array.as_str()).or_default().push(r);
    }
    let mut scans = Vec::new();
    let mut histograms = Vec::new();
    let mut writes = Vec::new();
    for (array, refs) in &by_array {
        let ws: Vec<&&ArrayRef> = refs.iter().filter(|r| r.write.is_some()).collect();
        if ws.is_empty() {
            continue;
        }
        // Every touch of the array adds into it with one operator, some at data-dependent
        // positions (miniMD's `f[i*PAD] += ..; f[j*PAD] -= ..` with `j = neighs[k]`): the
        // updates commute, whichever iterations meet, so the loop is a histogram (atomics).
        if let Some(indirect) = commuting_updates(refs) {
            histograms.push(indirect.text.clone());
            continue;
        }
        for w in &ws {
            let direct = w.subs.iter().all(Option::is_some);
            if !direct {
                match &w.write {
                    Some(WriteKind::Accumulate(_)) => {
                        let others_ok = refs
                            .iter()
                            .all(|r| matches!(r.write, Some(WriteKind::Accumulate(_))) || !r.read)
                            && refs.iter().all(|r| r.write.is_some());
                        if !others_ok {
                            return Verdict::seq(format!(
                                "`{}` is updated at a data-dependent position and also read elsewhere in the loop (line {})",
                                w.text, w.line
                            ));
                        }
                        histograms.push(w.text.clone());
                        continue;
                    }
                    _ => {
                        return Verdict::seq(format!(
                            "`{}` is written at a data-dependent position (line {}): two iterations may write the same element",
                            w.text, w.line
                        ));
                    }
                }
            }
            let subs: Vec<&Poly> = w.subs.iter().flatten().collect();
            if !subs.iter().any(|p| p.mentions(&counter)) {
                match &w.write {
                    Some(WriteKind::Accumulate(op))
                        if refs.iter().all(|r| {
                            r.write.is_some() || never_meets(r, w, &nest_vars, f.induction.as_ref())
                        }) && refs.iter().all(|r| {
                            matches!(&r.write, Some(WriteKind::Accumulate(o)) if o == op)
                                || !may_overlap(&r.text, &w.text)
                                || (r.write.is_none()
                                    && never_meets(r, w, &nest_vars, f.induction.as_ref()))
                        }) =>
                    {
                        reductions.push(format!("`{}` with `{op}`", w.text));
                        continue;
                    }
                    _ => {
                        return Verdict::seq(format!(
                            "every iteration writes the same element `{}` (line {})",
                            w.text, w.line
                        ));
                    }
                }
            }
            if let Some(v) = collision(w, &counter, &nest_vars) {
                return v;
            }
            writes.push(w.text.clone());
            for r in refs.iter() {
                if std::ptr::eq(*r, **w) {
                    continue;
                }
                match dependence(w, r, &counter, &nest_vars, f.induction.as_ref()) {
                    Dep::Carried(_) if apart_everywhere(w, r, f) => {}
                    Dep::None => {}
                    Dep::Scan => scans.push(format!("`{}`", w.text)),
                    Dep::Carried(why) => return Verdict::seq(why),
                }
            }
        }
        let _ = array;
    }

    let kind;
    let reason;
    if !scans.is_empty() {
        kind = LoopKind::Scan;
        reason = format!(
            "{} combines the previous element with an associative operator: a prefix scan, offloadable as a parallel scan",
            scans[0]
        );
    } else if !histograms.is_empty() {
        kind = LoopKind::Histogram;
        reason = format!(
            "`{}` is incremented at data-dependent positions: offloadable with atomic updates",
            histograms[0]
        );
    } else if !reductions.is_empty() {
        kind = LoopKind::Reduction;
        let verb = if reductions.len() > 1 { "are" } else { "is" };
        reason = format!(
            "{} {verb} accumulated across iterations with an associative operator: partial results can be combined in any order",
            reductions.join(" and ")
        );
    } else if let Some((array, count, sample)) = stencil_reads(&by_array, &counter, &nest_vars) {
        kind = LoopKind::Stencil;
        let written = writes.first().cloned().unwrap_or_default();
        reason = format!(
            "each iteration writes its own `{written}` from {count} neighbouring elements of `{array}` (such as `{sample}`), which the loop never writes"
        );
    } else {
        kind = LoopKind::Map;
        reason = if writes.is_empty() {
            "iterations are independent: the loop writes nothing another iteration reads"
                .to_string()
        } else {
            if let Some((_, container)) = &f.range_elem {
                return Verdict {
                    kind: LoopKind::Map,
                    reason: format!(
                        "each iteration writes only its own element of `{container}` and reads nothing another iteration writes"
                    ),
                };
            }
            let list: Vec<String> = writes.iter().take(3).map(|w| format!("`{w}`")).collect();
            format!(
                "each iteration {counter} writes only its own {} and reads nothing another iteration writes",
                list.join(", ")
            )
        };
    }
    Verdict { kind, reason }
}

fn control_hazards(f: &LoopFacts) -> Option<Verdict> {
    if matches!(f.form, LoopForm::While | LoopForm::Do) {
        if let Some(w) = f
            .scalar_writes
            .iter()
            .find(|w| w.pointer_chase && f.condition_vars.contains(&w.name))
        {
            return Some(Verdict::seq(format!(
                "pointer chasing: `{}` needs the node the previous iteration reached",
                w.text.trim_end_matches(';')
            )));
        }
        let cond = f.condition.clone().unwrap_or_default();
        if let Some(w) = f
            .scalar_writes
            .iter()
            .find(|w| f.condition_vars.contains(&w.name))
        {
            return Some(Verdict::seq(format!(
                "data-dependent exit: the loop runs while `{cond}` holds, and `{}` is computed in the body (line {})",
                w.name, w.line
            )));
        }
        return Some(Verdict::seq(format!(
            "a `while` loop: the number of iterations of `{cond}` is not known before it starts"
        )));
    }
    if let Some(problem) = &f.induction_problem {
        return Some(Verdict::seq(if problem.starts_with("pointer chasing") {
            problem.clone()
        } else {
            format!("no countable iteration space: {problem}")
        }));
    }
    if let Some(e) = &f.exit {
        return Some(Verdict::seq(format!(
            "the loop may stop early ({} at line {}), so whether an iteration runs depends on earlier ones",
            e.what, e.line
        )));
    }
    if let Some(io) = &f.io {
        return Some(Verdict::seq(format!(
            "it does I/O ({} at line {}), which must happen in order",
            io.what, io.line
        )));
    }
    if let Some(a) = &f.alloc {
        return Some(Verdict::seq(format!(
            "it allocates or frees memory ({} at line {})",
            a.what, a.line
        )));
    }
    if let Some((name, line)) = f.unknown_calls.first() {
        return Some(Verdict::seq(format!(
            "it calls `{name}` (line {line}), which may have side effects; only known pure math functions are allowed"
        )));
    }
    if let Some(r) = &f.alias_read {
        let writes_shared =
            !f.scalar_writes.is_empty() || f.arrays.iter().any(|a| a.write.is_some());
        if writes_shared {
            return Some(Verdict::seq(format!(
                "it reads {} (line {}), which may alias data the loop writes",
                r.what, r.line
            )));
        }
    }
    if let Some(w) = &f.opaque_write {
        return Some(Verdict::seq(format!(
            "it writes through {} (line {}), which the analysis cannot track",
            w.what, w.line
        )));
    }
    None
}

fn scalar_verdict(f: &LoopFacts, reductions: &mut Vec<String>) -> Option<Verdict> {
    let mut names: Vec<&str> = f.scalar_writes.iter().map(|w| w.name.as_str()).collect();
    names.sort();
    names.dedup();
    for name in names {
        let writes: Vec<_> = f.scalar_writes.iter().filter(|w| w.name == name).collect();
        if let Some(w) = writes.iter().find(|w| w.pointer_chase) {
            return Some(Verdict::seq(format!(
                "pointer chasing: `{}` needs the node the previous iteration reached",
                w.text.trim_end_matches(';')
            )));
        }
        let ops: Vec<Option<&String>> = writes.iter().map(|w| w.accumulate.as_ref()).collect();
        let read_elsewhere = f
            .scalar_reads
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, line, byte)| (*line, *byte));
        let single_op = ops.iter().all(|o| o.is_some() && *o == ops[0]);
        if single_op && read_elsewhere.is_none() {
            let op = ops[0].cloned().unwrap_or_default();
            reductions.push(format!("`{name}` (with `{op}`)"));
            continue;
        }
        // A flag: every write stores the same constant and the loop never reads it, so the
        // result is the same whichever iterations write it (an `or` reduction).
        let flag_value = writes[0]
            .assigned
            .as_deref()
            .filter(|v| is_constant_text(v));
        if let Some(v) = flag_value
            && read_elsewhere.is_none()
            && writes
                .iter()
                .all(|w| w.accumulate.is_none() && w.assigned.as_deref() == Some(v))
        {
            reductions.push(format!("the flag `{name}` (set to `{v}`)"));
            continue;
        }
        let w = writes[0];
        if let Some((line, byte)) = read_elsewhere {
            let first_write = writes.iter().map(|w| w.byte).min().unwrap_or(usize::MAX);
            let first_read = f
                .scalar_reads
                .iter()
                .filter(|(n, _, _)| n == name)
                .map(|(_, _, b)| *b)
                .min()
                .unwrap_or(byte);
            if first_write < first_read && writes.iter().all(|w| w.accumulate.is_none()) {
                return Some(Verdict::seq(format!(
                    "`{name}` is declared outside the loop and written by every iteration (line {}); declare it inside the loop so each iteration has its own",
                    w.line
                )));
            }
            return Some(Verdict::seq(format!(
                "`{name}` is written in one iteration and read in the next (written line {}, read line {line})",
                w.line
            )));
        }
        if single_op {
            continue;
        }
        return Some(Verdict::seq(format!(
            "every iteration overwrites `{name}` (line {}), so only the last value survives; declare it inside the loop if it is a temporary",
            w.line
        )));
    }
    None
}

/// A literal or an upper-case constant (`1`, `true`, `-1`, `'x'`, `FOUND`).
fn is_constant_text(v: &str) -> bool {
    let v = v.trim_start_matches('-');
    !v.is_empty()
        && (v
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == 'f' || c == 'u' || c == 'l')
            && v.starts_with(|c: char| c.is_ascii_digit())
            || matches!(v, "true" | "false" | "NULL" | "nullptr")
            || (v.starts_with('\'') && v.ends_with('\'') && v.len() >= 3)
            || v.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                && v.starts_with(|c: char| c.is_ascii_uppercase()))
}

/// Whether two iterations of the counter can write the same element through `w` alone: `a[i + j]`
/// in an `i, j` nest can, `a[i*m + j]` cannot (row stride assumed at least the row length).
fn collision(w: &ArrayRef, counter: &str, nest_vars: &[String]) -> Option<Verdict> {
    for p in w.subs.iter().flatten() {
        if !p.mentions(counter) {
            continue;
        }
        let Some(ci) = p.coefficient_of(counter) else {
            return Some(Verdict::seq(format!(
                "`{}` is not linear in `{counter}` (line {}), so iterations may write the same element",
                w.text, w.line
            )));
        };
        if ci.as_constant().is_some() {
            for v in nest_vars.iter().filter(|v| *v != counter) {
                if let Some(cv) = p.coefficient_of(v)
                    && !cv.is_zero()
                    && cv.as_constant().is_some()
                {
                    return Some(Verdict::seq(format!(
                        "`{}` can be written by two different iterations (line {}): `{counter}` and `{v}` both shift it by a constant",
                        w.text, w.line
                    )));
                }
            }
        }
    }
    None
}

/// Whether the read `r` can never reach the fixed element `w` writes (`p[i]` for `i` from
/// `m + 1` against `p[m]`): along one dimension their distance is a non-zero constant, or moves
/// with the counter alone and starts (or ends) on the far side of zero.
fn never_meets(r: &ArrayRef, w: &ArrayRef, nest_vars: &[String], ind: Option<&Induction>) -> bool {
    if r.subs.len() != w.subs.len() {
        return false;
    }
    r.subs.iter().zip(&w.subs).any(|(rs, ws)| {
        let (Some(rs), Some(ws)) = (rs, ws) else {
            return false;
        };
        let Some(d) = rs.sub(ws) else {
            return false;
        };
        if let Some(c) = d.as_constant() {
            return c != 0;
        }
        let Some(ind) = ind else {
            return false;
        };
        let counter = ind.var.as_str();
        if nest_vars.iter().any(|v| v != counter && d.mentions(v)) {
            return false;
        }
        let Some(slope) = d.coefficient_of(counter).and_then(|c| c.as_constant()) else {
            return false;
        };
        let at = |p: &Poly| d.substitute(counter, p).and_then(|v| v.as_constant());
        match slope.signum() {
            1 => at(&ind.lower).is_some_and(|v| v > 0) || at(&ind.upper).is_some_and(|v| v < 0),
            -1 => at(&ind.upper).is_some_and(|v| v > 0) || at(&ind.lower).is_some_and(|v| v < 0),
            _ => false,
        }
    })
}

/// The first data-dependent update when every reference of an array is an update with one
/// associative operator (`-=` counts as `+`) that reads nothing else of it, and at least one
/// lands at a data-dependent position.
fn commuting_updates<'r>(refs: &[&'r ArrayRef]) -> Option<&'r ArrayRef> {
    let mut op = None;
    for r in refs {
        let Some(WriteKind::Accumulate(o)) = &r.write else {
            return None;
        };
        if r.scan_operand.is_some() || op.is_some_and(|p: &String| p != o) {
            return None;
        }
        op = Some(o);
    }
    refs.iter()
        .copied()
        .find(|r| r.subs.iter().any(Option::is_none))
}

enum Dep {
    None,
    Scan,
    Carried(String),
}

/// Whether reference `r` touches, in one iteration, what write `w` writes in another.
fn dependence(
    w: &ArrayRef,
    r: &ArrayRef,
    counter: &str,
    nest_vars: &[String],
    ind: Option<&Induction>,
) -> Dep {
    let what = if r.write.is_some() && !r.read {
        "writes"
    } else {
        "reads"
    };
    if r.subs.iter().any(Option::is_none) || r.subs.len() != w.subs.len() {
        return Dep::Carried(format!(
            "the loop {what} `{}` (line {}) at a position the analysis cannot compare with the write to `{}`",
            r.text, r.line, w.text
        ));
    }
    let mut carried_dim = None;
    for (ws, rs) in w.subs.iter().zip(&r.subs) {
        let (Some(ws), Some(rs)) = (ws, rs) else {
            continue;
        };
        let Some(d) = rs.sub(ws) else {
            return Dep::Carried(format!("`{}` and `{}` may overlap", r.text, w.text));
        };
        if d.is_zero() {
            if ws.mentions(counter) {
                // Same element along the counter's dimension: other dimensions differ only within the
                // iteration.
                return Dep::None;
            }
            continue;
        }
        carried_dim = Some((ws.clone(), d));
        if ws.mentions(counter) {
            break;
        }
    }
    let Some((ws, d)) = carried_dim else {
        return Dep::None;
    };
    if !ws.mentions(counter) {
        return Dep::None;
    }
    if let Some(ind) = ind
        && mirrored_apart(
            &ws,
            &ws.add(&d).unwrap_or_default(),
            counter,
            nest_vars,
            ind,
        )
    {
        return Dep::None;
    }
    if nest_vars.iter().any(|v| d.mentions(v)) {
        return Dep::Carried(format!(
            "the loop {what} `{}` and writes `{}` (line {}), which can be the same element in different iterations",
            r.text, w.text, w.line
        ));
    }
    let ci = ws.coefficient_of(counter).unwrap_or_default();
    // GCD test: `acc[3*i]` against `acc[3*i + 1]` — the distance is no multiple of the stride,
    // so no two iterations meet.
    if let (Some(dc), Some(cc)) = (d.as_constant(), ci.as_constant())
        && cc != 0
        && dc % cc != 0
    {
        return Dep::None;
    }
    match d.ratio_to(&ci) {
        Some(k) if k < 0 && r.write.is_none() => {
            let is_scan = w
                .scan_operand
                .as_ref()
                .is_some_and(|(_, subs)| *subs == r.subs)
                && r.operand_of_write.is_some()
                && k == -1
                && w.subs.len() == 1;
            if is_scan {
                Dep::Scan
            } else {
                Dep::Carried(format!(
                    "iteration {counter} reads {}, written by iteration {counter} - {}",
                    r.text, -k
                ))
            }
        }
        Some(k) if k > 0 && r.write.is_none() => Dep::Carried(format!(
            "iteration {counter} reads {}, which iteration {counter} + {k} overwrites",
            r.text
        )),
        Some(k) => Dep::Carried(format!(
            "`{}` and `{}` write the same element {} iteration(s) apart",
            w.text,
            r.text,
            k.abs()
        )),
        None => Dep::Carried(format!(
            "the loop {what} `{}` and writes `{}` (line {}), which may be the same element in different iterations",
            r.text, w.text, w.line
        )),
    }
}

/// An array the loop only reads, at two or more positions a loop-invariant distance apart that
/// two different iterations of `counter` can both read (`in[i-1]`, `in[i+1]`): the components of
/// an iteration's own block (`f[3*i]`, `f[3*i+1]`, `p[i][0]`, `p[i][1]`) are a map's gather.
fn stencil_reads(
    by_array: &BTreeMap<&str, Vec<&ArrayRef>>,
    counter: &str,
    nest_vars: &[String],
) -> Option<(String, usize, String)> {
    for (array, refs) in by_array {
        if refs.iter().any(|r| r.write.is_some()) {
            continue;
        }
        let mut distinct: Vec<(&Vec<Option<Poly>>, &str)> = Vec::new();
        for r in refs {
            if r.subs.iter().any(Option::is_none) || r.in_header {
                continue;
            }
            if !r
                .subs
                .iter()
                .flatten()
                .any(|p| nest_vars.iter().any(|v| p.mentions(v)))
            {
                continue;
            }
            if !distinct.iter().any(|(s, _)| **s == r.subs) {
                distinct.push((&r.subs, &r.text));
            }
        }
        if distinct.len() < 2 {
            continue;
        }
        let neighbours = distinct.iter().enumerate().any(|(a, (sa, _))| {
            distinct.iter().skip(a + 1).any(|(sb, _)| {
                sa.len() == sb.len()
                    && sa.iter().zip(sb.iter()).all(|(x, y)| match (x, y) {
                        (Some(x), Some(y)) => x
                            .sub(y)
                            .is_some_and(|d| !nest_vars.iter().any(|v| d.mentions(v))),
                        _ => false,
                    })
                    && shared_across_iterations(sa, sb, counter)
            })
        });
        if neighbours {
            return Some((array.to_string(), distinct.len(), distinct[0].1.to_string()));
        }
    }
    None
}

/// Whether two reads `sa`, `sb` a loop-invariant distance apart can reach one element from two
/// different iterations of `counter`: some distance `t != 0` of the counter must move every
/// dimension by exactly its difference. Unsure (symbolic strides) counts as yes.
fn shared_across_iterations(sa: &[Option<Poly>], sb: &[Option<Poly>], counter: &str) -> bool {
    let mut step: Option<i64> = None;
    for (x, y) in sa.iter().zip(sb) {
        let (Some(x), Some(y)) = (x, y) else {
            return true;
        };
        let Some(d) = x.sub(y) else {
            return true;
        };
        let c = x.coefficient_of(counter).unwrap_or_default();
        if c.is_zero() {
            if !d.is_zero() {
                // A dimension the counter does not move differs: never the same element.
                return false;
            }
            continue;
        }
        if d.is_zero() {
            if step.is_some_and(|t| t != 0) {
                return false;
            }
            step = Some(0);
            continue;
        }
        match (d.as_constant(), c.as_constant()) {
            // `3*i` against `3*i + 1`: no whole number of iterations apart.
            (Some(dc), Some(cc)) if dc % cc != 0 => return false,
            _ => {}
        }
        match d.ratio_to(&c) {
            Some(t) if step.is_none_or(|s| s == t) => step = Some(t),
            Some(_) => return false,
            None => return true,
        }
    }
    step != Some(0)
}

/// Whether two fixed-element writes may reach the same location: only distinct fields of one
/// element (`c[k].lo`, `c[k].hi`) are known apart.
fn may_overlap(a: &str, b: &str) -> bool {
    let squash = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let (a, b) = (squash(a), squash(b));
    let field = |s: &str| {
        let (path, f) = s.rsplit_once('.')?;
        (!f.contains(['[', ']', '(', '-'])).then(|| (path.to_string(), f.to_string()))
    };
    match (field(&a), field(&b)) {
        (Some((pa, fa)), Some((pb, fb))) => pa != pb || fa == fb,
        _ => true,
    }
}

/// Whether `a[c*i + p]` and `a[-c*i + q]` (a halo copied from its mirror image,
/// `buf[h - k - 1] = buf[h + k]`) never meet in two different iterations: they meet where
/// `i + i' = (q - p) / c`, which two different counter values from `[lower, upper]` cannot sum
/// to when it is not a whole number, below `2*lower + 1` or above `2*upper - 1`.
fn mirrored_apart(
    ws: &Poly,
    rs: &Poly,
    counter: &str,
    nest_vars: &[String],
    ind: &Induction,
) -> bool {
    let (Some(cw), Some(cr)) = (ws.coefficient_of(counter), rs.coefficient_of(counter)) else {
        return false;
    };
    let (Some(cw), Some(cr)) = (cw.as_constant(), cr.as_constant()) else {
        return false;
    };
    if cw == 0 || cw != -cr {
        return false;
    }
    let strip = |p: &Poly, c: i64| p.sub(&Poly::var(counter).scale(c)?);
    let (Some(p), Some(q)) = (strip(ws, cw), strip(rs, cr)) else {
        return false;
    };
    if p.mentions(counter) || q.mentions(counter) {
        return false;
    }
    let Some(gap) = q.sub(&p) else {
        return false;
    };
    if nest_vars.iter().any(|v| gap.mentions(v)) {
        return false;
    }
    let Some(g) = gap.as_constant() else {
        return false;
    };
    if g % cw != 0 {
        return true;
    }
    let sum = g / cw;
    let below = ind.lower.as_constant().is_some_and(|l| sum < 2 * l + 1);
    let above = ind.upper.as_constant().is_some_and(|u| sum > 2 * u - 1);
    below || above
}

/// Banerjee's bounds test over the whole iteration space: along some dimension, the write's
/// subscript in one iteration minus the read's in any other (every counter of this loop and of
/// the loops nested in it renamed; the enclosing loops' counters shared) stays on one side of
/// zero (`buffer[(y-h+j)*x + k]` against `buffer[(y-h-1-j')*x + k']` for `k` in `h..x-h`: the
/// difference is at least `2h + 1`). Sound where every symbol is non-negative: the sizes the
/// loops' bounds name, and counters whose lower bounds are; a symbol only a subscript names (an
/// offset of either sign) or a bound read from data stops the proof.
fn apart_everywhere(w: &ArrayRef, r: &ArrayRef, f: &LoopFacts) -> bool {
    let Some(counter) = &f.induction else {
        return false;
    };
    if w.subs.len() != r.subs.len() {
        return false;
    }
    let own: Vec<&Induction> = std::iter::once(counter).chain(&f.inner_ranges).collect();
    let prime = |v: &str| format!("{v}'");
    let rename = |p: &Poly| -> Option<Poly> {
        own.iter().try_fold(p.clone(), |q, i| {
            q.substitute(&i.var, &Poly::var(&prime(&i.var)))
        })
    };
    let mut space: Vec<Induction> = f.outer_ranges.clone();
    space.extend(own.iter().map(|i| (*i).clone()));
    for i in &own {
        let (Some(lower), Some(upper)) = (rename(&i.lower), rename(&i.upper)) else {
            return false;
        };
        space.push(Induction {
            var: prime(&i.var),
            lower,
            upper,
            ..(*i).clone()
        });
    }
    let counters: BTreeSet<String> = space.iter().map(|i| i.var.clone()).collect();
    let mut sizes: BTreeSet<String> = BTreeSet::new();
    for i in &space {
        if i.data_dependent || i.lower.has_negative_terms() {
            return false;
        }
        sizes.extend(i.lower.vars().into_iter().chain(i.upper.vars()));
    }
    if sizes
        .iter()
        .any(|v| v.contains('[') || v.starts_with(super::facts::INDEX_VALUE))
    {
        return false;
    }
    w.subs.iter().zip(&r.subs).any(|(ws, rs)| {
        let (Some(ws), Some(rs)) = (ws, rs) else {
            return false;
        };
        let Some(d) = rename(rs).and_then(|rs| ws.sub(&rs)) else {
            return false;
        };
        if d.vars()
            .iter()
            .any(|v| !counters.contains(v) && !sizes.contains(v))
        {
            return false;
        }
        min_over(&d, &space).is_some_and(|m| m.surely_positive())
            || max_over(&d, &space)
                .and_then(|m| m.scale(-1))
                .is_some_and(|m| m.surely_positive())
    })
}
