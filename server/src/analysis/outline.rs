//! Outlining a loop nest into a self-contained serial function (the `OffloadRegion` contract in
//! docs/candidate-contract.md): typed parameters, access modes, extents, and a compilable body.
//!
//! When something cannot be expressed (a struct, a template parameter, a global, an array whose size
//! cannot be told), outlining fails with a reason instead of guessing.

use std::collections::{BTreeSet, HashMap, HashSet};

use tree_sitter::Node;

use super::facts::{INDEX_VALUE, Induction, LoopFacts, WriteKind, index_value};
use super::poly::Poly;
use super::region::{Access, InputSpec, LoopKind, OffloadRegion, RegionParam, WorkEstimate};
use super::scope::{VarDecl, function_name, is_known_scalar};
use super::syntax::{Macros, for_each_descendant, named_children, text};

pub struct OutlineRequest<'a, 't> {
    /// The enclosing function (or lambda), and whether it is a template.
    pub func: Option<Node<'t>>,
    pub in_template: bool,
    /// Parameters and locals visible at the loop.
    pub decls: &'a [VarDecl],
    pub src: &'a [u8],
    pub macros: &'a Macros,
    pub node: Node<'t>,
    pub facts: &'a LoopFacts,
    /// Counters of this loop and of the loops nested in it, outermost first.
    pub nest: &'a [Induction],
    /// Counters of the loops around this one, innermost first: a region of an inner loop takes
    /// them as sizes, which range as these loops make them.
    pub enclosing: &'a [Induction],
    pub kind: LoopKind,
    pub line: usize,
    pub end_line: usize,
    pub work: WorkEstimate,
    /// Bounds of the loop evaluated once at the call site (invariant_bounds.rs).
    pub hoisted: &'a [super::invariant_bounds::HoistedBound],
    /// The file's globals (`scope::file_globals`), which a region takes as parameters.
    pub globals: &'a [VarDecl],
}

/// The greatest value of `p` over the iteration space (`None` when it cannot be bounded).
pub fn max_over(p: &Poly, nest: &[Induction]) -> Option<Poly> {
    extreme_over(p, nest, true)
}

/// The smallest value of `p` over the iteration space (`None` when it cannot be bounded).
pub fn min_over(p: &Poly, nest: &[Induction]) -> Option<Poly> {
    extreme_over(p, nest, false)
}

/// Each counter, innermost first, at the end of its range that moves `p` the way asked.
fn extreme_over(p: &Poly, nest: &[Induction], greatest: bool) -> Option<Poly> {
    let mut p = p.clone();
    for ind in nest.iter().rev() {
        match p.sign_in(&ind.var)? {
            0 => {}
            s => {
                let end = if (s == 1) == greatest {
                    &ind.upper
                } else {
                    &ind.lower
                };
                p = p.substitute(&ind.var, end)?;
            }
        }
    }
    if nest.iter().any(|ind| p.mentions(&ind.var)) {
        return None;
    }
    Some(p)
}

/// Elements an array needs for the subscripts `subs` (1-D or the first dimension): enough for
/// every subscript whatever the sizes, as a harness allocates them.
pub fn extent_from_subscripts<'a>(
    subs: impl Iterator<Item = &'a Poly>,
    nest: &[Induction],
) -> Option<Poly> {
    extent_of(subs, nest, true)
}

/// Elements an array likely spans, for the cost model: where two subscripts' reach depends on
/// which symbol is larger (`a[i]`, `a[j]`), the one that grows faster counts alone.
pub fn extent_estimate<'a>(
    subs: impl Iterator<Item = &'a Poly>,
    nest: &[Induction],
) -> Option<Poly> {
    extent_of(subs, nest, false)
}

fn extent_of<'a>(
    subs: impl Iterator<Item = &'a Poly>,
    nest: &[Induction],
    cover_both: bool,
) -> Option<Poly> {
    // Index values, and counters whose bounds reach them (`k` below `rowstr[j+1]`).
    let mut bounded_by_index: HashSet<String> = HashSet::new();
    for ind in nest {
        let mut vs = ind.lower.vars();
        vs.extend(ind.upper.vars());
        for v in vs {
            if v.starts_with(INDEX_VALUE) {
                bounded_by_index.insert(v);
            }
        }
    }
    for ind in nest {
        let mut vs = ind.lower.vars();
        vs.extend(ind.upper.vars());
        if vs.iter().any(|v| bounded_by_index.contains(v)) {
            bounded_by_index.insert(ind.var.clone());
        }
    }
    let mut best: Option<Poly> = None;
    for s in subs {
        let max = max_over(s, nest)?;
        // A bound read from data (`rowptr[r + 1]`) says nothing about the extent, nor an index
        // value until its range is known.
        if max
            .vars()
            .iter()
            .any(|v| v.contains('[') || v.starts_with(INDEX_VALUE))
        {
            return None;
        }
        // Rounding up by dropping negative terms would reach past the caller's array where the
        // bound is a range of index values (`(R-1)*PAD + 3`, not `R*PAD + 3`): keep it exact.
        let ext = max.add(&Poly::constant(1))?;
        let ext = if s
            .vars()
            .iter()
            .any(|v| v.starts_with(INDEX_VALUE) || bounded_by_index.contains(v))
        {
            ext
        } else {
            ext.without_negative_terms()
        };
        best = match best {
            None => Some(ext),
            Some(b) => {
                // Symbols are sizes: compare the two candidates as the sizes grow. Where that
                // depends on which symbol is larger (`a[i]` and `a[j]`), take a bound of both.
                let d = ext.sub(&b)?;
                if cover_both && d.mixed_signs() {
                    best = Some(ext.termwise_max(&b));
                    continue;
                }
                let large: HashMap<String, f64> = d.vars().into_iter().map(|v| (v, 1e6)).collect();
                if d.eval(&large)? > 0.0 {
                    Some(ext)
                } else {
                    Some(b)
                }
            }
        };
    }
    best
}

struct Param {
    decl: VarDecl,
    region: RegionParam,
}

/// The values of the index array `index` lie in `0..size`, a size parameter of the region.
struct IndexRange {
    index: String,
    size: String,
    /// The values bound a counter from both ends (CSR row offsets): generated non-decreasing.
    sorted: bool,
}

/// `idx_range`, `s_atoms_iSpecies_range`: the size the values of an index array lie below.
fn range_size_name(index: &str) -> String {
    format!("{}_range", index.replace(['.', '>', '-'], "_"))
}

/// The extent of an array gathered or scattered through index arrays (`x[j*3 + 2]` with
/// `j = idx[k]`, `p[colidx[k]]`): each index array's values range over `0..R`, a size of its
/// own (`idx_range`), and the subscripts' largest value follows. `None` when a subscript is
/// neither a polynomial nor one of index values; an error when one may be negative.
/// `dims` is the number of subscripts each reference has (a flat array's rows come first); the
/// extent is that of the first.
fn gathered_extent(
    refs: &[&super::facts::ArrayRef],
    dims: usize,
    nest: &[Induction],
    decl_of: &HashMap<&str, &VarDecl>,
    ranges: &mut Vec<IndexRange>,
) -> Result<Option<String>, String> {
    let mut subs: Vec<Poly> = Vec::new();
    for r in refs {
        if r.subs.len() != dims || r.subs[1..].iter().any(Option::is_none) {
            return Ok(None);
        }
        match (&r.subs[0], r.gathered.first().and_then(Option::as_ref)) {
            (Some(p), _) => subs.push(p.clone()),
            (None, Some(g)) => subs.push(g.clone()),
            (None, None) => return Ok(None),
        }
    }
    // The values' ranges first: the counters, whose bounds may be index values, go before them.
    let mut inner: Vec<Induction> = Vec::new();
    let mut local: Vec<IndexRange> = Vec::new();
    let bound_vars: Vec<String> = nest
        .iter()
        .flat_map(|i| i.lower.vars().into_iter().chain(i.upper.vars()))
        .collect();
    for s in subs
        .iter()
        .map(Poly::vars)
        .chain([bound_vars.into_iter().collect()])
    {
        for v in s {
            let Some(index) = v.strip_prefix(INDEX_VALUE) else {
                continue;
            };
            if inner.iter().any(|i| i.var == v) {
                continue;
            }
            let size = range_size_name(index);
            if decl_of.contains_key(size.as_str()) {
                return Err(format!(
                    "the range of the values of `{index}` would be the size `{size}`, a name the function already uses"
                ));
            }
            inner.insert(
                0,
                Induction {
                    var: v.clone(),
                    lower: Poly::constant(0),
                    upper: Poly::var(&size).sub(&Poly::constant(1)).ok_or("overflow")?,
                    step: 1,
                    span: Poly::var(&size),
                    data_dependent: false,
                },
            );
            local.push(IndexRange {
                index: index.to_string(),
                size,
                sorted: false,
            });
        }
    }
    if local.is_empty() {
        return Ok(None);
    }
    inner.extend(nest.iter().cloned());
    // Values of an index array are positions from 0: a subscript that can go below 0 with them
    // (`x[idx[k] - 1]`) depends on values the code does not show.
    for (s, r) in subs.iter().zip(refs) {
        if !s.vars().iter().any(|v| v.starts_with(INDEX_VALUE)) {
            continue;
        }
        let low = min_over(s, &inner);
        if low.as_ref().is_none_or(Poly::has_negative_terms) {
            return Err(format!(
                "the subscript of `{}` (line {}) may be negative for index values from 0: the values it needs are not known",
                r.text, r.line
            ));
        }
    }
    let Some(extent) = extent_from_subscripts(subs.iter(), &inner) else {
        return Ok(None);
    };
    for l in local {
        if !ranges.iter().any(|r| r.index == l.index) {
            ranges.push(l);
        }
    }
    Ok(Some(extent.to_string()))
}

/// An enclosing loop's counter that became a size ranges as its loop makes it (`k` of
/// `y_min..=y_max`): the harness draws it there, as the subscripts may rely on it (`k - y_min`).
fn enclosing_ranges(params: &mut [Param], enclosing: &[Induction]) {
    let sizes: HashSet<String> = params
        .iter()
        .filter(|p| p.region.is_size)
        .map(|p| p.region.name.clone())
        .collect();
    // A bound over the region's sizes only: `y_max` may not be one (no subscript needs it).
    let over_sizes = |b: &Poly| {
        b.vars()
            .iter()
            .all(|v| sizes.contains(v))
            .then(|| b.to_string())
    };
    for ind in enclosing.iter().filter(|ind| !ind.data_dependent) {
        let (min, max) = (over_sizes(&ind.lower), over_sizes(&ind.upper));
        if min.is_none() && max.is_none() {
            continue;
        }
        if let Some(p) = params
            .iter_mut()
            .find(|p| p.region.is_size && p.region.name == ind.var && p.region.input.is_none())
        {
            p.region.input = Some(InputSpec {
                min,
                max,
                ..InputSpec::default()
            });
        }
    }
}

/// `v + c` for a size `v`.
fn single_size(p: &Poly) -> Option<(String, i64)> {
    let vars = p.vars();
    let v = vars.iter().next().filter(|_| vars.len() == 1)?;
    let c = p.sub(&Poly::var(v))?;
    c.as_constant().map(|c| (v.clone(), c))
}

/// How many elements before index 0 the subscripts of `r` may reach (`None`: none), with every
/// size at least 1 (the harness's sizes are) and every range of the nest non-empty (the loop
/// runs): `stride` for `i - stride` from `i = 0`; none for `j - 1` from `j = x_min`, nor for
/// `y_max - y_min + 4` below `k <= y_max + 2` from `k = y_min`.
fn reaches_before_start(
    r: &super::facts::ArrayRef,
    nest: &[Induction],
    enclosing: &[Induction],
) -> Option<Poly> {
    let subs = subscript_polys(&[r])?;
    let width_of = |v: &str| Poly::var(&format!("{INDEX_VALUE}width_{v}"));
    // Where a range runs from one size to another (`k = y_min ..= y_max + 2`), the upper size is
    // the lower one plus a width of at least 0 (`y_max = y_min - 2 + w`) wherever the loop runs.
    let mut ranged: Vec<(String, Poly)> = Vec::new();
    // An enclosing loop's counter, a size of the region, is at least its loop's lower bound
    // (the harness keeps it in that range: `enclosing_ranges`).
    for ind in enclosing {
        if !ind.data_dependent
            && let Some(by) = ind.lower.add(&width_of(&ind.var))
        {
            ranged.push((ind.var.clone(), by));
        }
    }
    for ind in nest.iter().chain(enclosing) {
        let (Some((u, cu)), Some((l, cl))) = (single_size(&ind.upper), single_size(&ind.lower))
        else {
            continue;
        };
        if u == l || ranged.iter().any(|(v, _)| *v == u || *v == l) {
            continue;
        }
        if let Some(by) = Poly::var(&l)
            .add(&width_of(&u))
            .and_then(|p| p.add(&Poly::constant(cl - cu)))
        {
            ranged.push((u, by));
        }
    }
    let mut widths: Vec<Poly> = vec![Poly::constant(0)];
    widths.extend(nest.iter().filter_map(|ind| ind.upper.sub(&ind.lower)));
    // Sizes are at least 1, widths at least 0: no negative term left means never negative.
    let nonnegative = |p: &Poly| {
        let p = ranged
            .iter()
            .try_fold(p.clone(), |q, (v, by)| q.substitute(v, by));
        let shifted = p.and_then(|p| {
            p.vars()
                .iter()
                .filter(|v| !v.starts_with(INDEX_VALUE))
                .try_fold(p.clone(), |q, v| {
                    q.substitute(v, &Poly::var(v).add(&Poly::constant(1))?)
                })
        });
        shifted.is_some_and(|q| !q.has_negative_terms())
    };
    // How far below 0 each subscript may reach: its minimum's negative terms, negated.
    let mut before: Option<Poly> = None;
    for s in subs {
        let Some(min) = min_over(s, nest) else {
            continue;
        };
        if min
            .vars()
            .iter()
            .any(|v| v.contains('[') || v.starts_with(INDEX_VALUE))
        {
            continue;
        }
        if widths
            .iter()
            .any(|w| min.sub(w).is_some_and(|rest| nonnegative(&rest)))
        {
            continue;
        }
        let below = min.scale(-1)?.without_negative_terms();
        if below.has_negative_terms() {
            continue;
        }
        before = Some(match before {
            None => below,
            Some(b) => b.termwise_max(&below),
        });
    }
    before
}

/// Every polynomial the one-subscript references `refs` may take (each alternative of a
/// subscript that is one of a few, [`super::facts::ArrayRef::choices`]); `None` if there are no
/// references or one is neither.
fn subscript_polys<'a>(refs: &[&'a super::facts::ArrayRef]) -> Option<Vec<&'a Poly>> {
    let mut out = Vec::new();
    for r in refs {
        if r.subs.len() != 1 {
            return None;
        }
        match (&r.subs[0], r.choices.first().and_then(Option::as_ref)) {
            (Some(p), _) => out.push(p),
            (None, Some(c)) => out.extend(c),
            (None, None) => return None,
        }
    }
    (!out.is_empty()).then_some(out)
}

/// `r` of a flattened array as one subscript, its row-major offset (the gathered form where its
/// first subscript is read from an index array); `None` where a subscript after the first is no
/// polynomial.
fn flat_ref(
    r: &super::facts::ArrayRef,
    shape: &super::dims::FlatShape,
) -> Option<super::facts::ArrayRef> {
    let first_gathered = r.gathered.first().cloned().flatten();
    let (subs, gathered) = match (&r.subs.first()?, first_gathered) {
        (Some(_), _) => (vec![shape.offset(&r.subs)], vec![None]),
        (None, Some(g)) => {
            let mut subs = r.subs.clone();
            subs[0] = Some(g);
            (vec![None], vec![shape.offset(&subs)])
        }
        (None, None) => return None,
    };
    if subs[0].is_none() && gathered[0].is_none() {
        return None;
    }
    Some(super::facts::ArrayRef {
        subs,
        gathered,
        bounded: vec![None],
        choices: vec![None],
        ..r.clone()
    })
}

pub fn outline(req: &OutlineRequest) -> Result<OffloadRegion, String> {
    let src = req.src;
    let func = req.func.ok_or("the loop is not inside a function")?;
    if func.kind() == "lambda_expression" {
        return Err("loops inside lambdas are not outlined".into());
    }
    let func_name = function_name(func, src).ok_or("the enclosing function has no plain name")?;
    // A member function of a class the file or its headers define: its fields are passed as
    // parameters of their own (members.rs).
    let this_class = match func_name.split_once("::") {
        Some((class, method))
            if !class.contains("::")
                && !method.contains("::")
                && !func_name.contains('<')
                && !func_name.contains('~')
                && !func_name.contains("operator") =>
        {
            let rec = req.macros.records.get(class).ok_or_else(|| {
                format!("`{func_name}` is a member function of `{class}`, whose definition this file and its headers do not show")
            })?;
            Some(rec.with_inherited(&req.macros.records))
        }
        Some(_) => {
            return Err(format!(
                "`{func_name}` is a nested member, template or destructor; outline a free function"
            ));
        }
        None if func_name.contains('<') || func_name.contains('~') => {
            return Err(format!(
                "`{func_name}` is a template specialisation; outline a free function"
            ));
        }
        None => None,
    };
    let func_name = func_name.replace("::", "_");
    // Parameters of the templates around the function: the loop may not name them, except an
    // integral value it only reads, which becomes a parameter (templates.rs).
    let template_params = super::templates::parameters_in_scope(func, src)?;
    let value_params: Vec<(String, String)> =
        super::templates::integral_value_parameters(func, src)
            .into_iter()
            .filter(|(n, _)| super::templates::named_only_as_value(req.node, src, n))
            .collect();
    let in_known_template = !template_params.is_empty();
    let template_params: Vec<String> = template_params
        .into_iter()
        .filter(|t| !value_params.iter().any(|(v, _)| v == t))
        .collect();
    if req.in_template && !in_known_template {
        return Err(format!(
            "`{func_name}` is a template: its types are only known per instantiation"
        ));
    }
    if let Some(t) = super::templates::first_named(req.node, src, &template_params) {
        return Err(format!(
            "the loop uses `{t}`, a template parameter of `{func_name}`: its types and values are only known per instantiation"
        ));
    }
    // `DATA_TYPE x` with `#define DATA_TYPE double` is a `double` to the harness.
    let resolved: Vec<VarDecl> = req
        .decls
        .iter()
        .map(|d| match req.macros.type_aliases.get(&d.ty) {
            Some(t) => VarDecl {
                ty: t.clone(),
                ..d.clone()
            },
            None => super::dims::through_array_typedef(d, req.macros).unwrap_or(d.clone()),
        })
        .collect();
    // A variable of a class template that is a flat array (`pvector<float>`) travels as a vector.
    let resolved: Vec<VarDecl> = resolved
        .into_iter()
        .map(|d| as_vector(&d, req.macros).unwrap_or(d))
        .collect();
    // Globals the function does not shadow are passed as parameters of their own.
    let mut resolved = resolved;
    for (name, ty) in &value_params {
        resolved.push(VarDecl::scalar_param(name, ty, func.start_byte()));
    }
    for g in req.globals.iter().cloned() {
        if !resolved.iter().any(|d| d.name == g.name) {
            let ty = req.macros.type_aliases.get(&g.ty).cloned();
            resolved.push(VarDecl {
                ty: ty.unwrap_or(g.ty.clone()),
                ..g
            });
        }
    }
    // A constant from a header the analysis does not have (`i < NA + 1` with NA from a generated
    // npbparams.h): named in upper case as macros are, read only as a counter's bound, it is a
    // size parameter the call site passes by that name, whatever the header defines.
    // So is one in an array's inner dimension (`int acol[][NONZER + 1]`), which its flat extent
    // and subscripts name.
    let in_dims: Vec<String> = resolved
        .iter()
        .flat_map(|d| super::dims::unseen_dimension_constants(d, req.macros))
        .collect();
    for v in req
        .nest
        .iter()
        .flat_map(|i| i.lower.vars().into_iter().chain(i.upper.vars()))
        .chain(in_dims)
    {
        if super::dims::unseen_constant(&v, req.macros)
            && !resolved.iter().any(|d| d.name == v)
            && !req.facts.locals.contains(&v)
            && !req.facts.scalar_writes.iter().any(|w| w.name == v)
        {
            resolved.push(VarDecl::scalar_param(&v, "long", func.start_byte()));
        }
    }
    // A hoisted bound is one parameter: what it reads is not the region's.
    let in_hoisted = |n: Node| {
        req.hoisted.iter().any(|h| {
            h.ranges
                .iter()
                .any(|&(s, e)| n.start_byte() >= s && n.end_byte() <= e)
        })
    };
    // Member paths (`chunk->u`, `s.n`, a field of `this`) become variables of their own.
    let paths: super::members::PathScan = {
        let decl_of: HashMap<&str, &VarDecl> =
            resolved.iter().map(|d| (d.name.as_str(), d)).collect();
        super::members::member_paths(
            req.node,
            src,
            req.macros,
            &decl_of,
            &req.facts.locals,
            this_class.as_ref(),
            in_hoisted,
        )?
    };
    for p in &paths.paths {
        if p.written && p.field.pointer + p.field.dims.len() > 0 {
            return Err(format!(
                "the loop changes the pointer field `{}` itself",
                p.call_arg
            ));
        }
        resolved.retain(|d| d.name != p.param);
        resolved.push(p.decl());
    }
    // The spellings of each path (`chunk->u`, `this->x`) as the analysis names them.
    let path_names: HashMap<String, String> = paths
        .paths
        .iter()
        .flat_map(|p| p.texts.iter().map(|t| (t.clone(), p.param.clone())))
        .collect();
    let path_name = |s: &str| -> Option<String> {
        let squashed: String = s.split_whitespace().collect();
        path_names.get(&squashed).cloned()
    };
    let rename_paths = |p: &Poly| -> Poly {
        let mut out = p.clone();
        for v in p.vars() {
            if let Some(name) = path_names.get(&v)
                && let Some(q) = out.substitute(&v, &Poly::var(name))
            {
                out = q;
            }
        }
        out
    };
    let renamed = |r: &super::facts::ArrayRef| {
        let mut r = r.clone();
        if let Some(p) = path_name(&r.array) {
            r.array = p;
        }
        r.subs = r
            .subs
            .iter()
            .map(|s| s.as_ref().map(&rename_paths))
            .collect();
        r.index_arrays = r
            .index_arrays
            .iter()
            .map(|a| path_name(a).unwrap_or(a.clone()))
            .collect();
        r.gathered = r
            .gathered
            .iter()
            .map(|g| {
                g.as_ref().and_then(|g| {
                    let mut out = rename_paths(g);
                    for v in g.vars() {
                        if let Some(a) = v.strip_prefix(INDEX_VALUE)
                            && let Some(name) = path_name(a)
                        {
                            out = out.substitute(&v, &Poly::var(&index_value(&name)))?;
                        }
                    }
                    Some(out)
                })
            })
            .collect();
        r
    };
    let mut arrays: Vec<super::facts::ArrayRef> = req.facts.arrays.iter().map(renamed).collect();
    let decls = &resolved[..];
    let decl_of: HashMap<&str, &VarDecl> = decls.iter().map(|d| (d.name.as_str(), d)).collect();
    let nest_vars: HashSet<&str> = req.nest.iter().map(|i| i.var.as_str()).collect();

    let callees = callee_ids(req.node);
    // Free identifiers of the nest, in order of first use.
    let mut used: Vec<String> = Vec::new();
    let mut used_macros: BTreeSet<String> = BTreeSet::new();
    let mut unknown: Option<String> = None;
    for_each_descendant(req.node, |n| {
        if n.kind() == "qualified_identifier" || in_hoisted(n) {
            return false;
        }
        if let Some(p) = paths.nodes.get(&n.id()) {
            if !used.contains(p) {
                used.push(p.clone());
            }
            return false;
        }
        // tree-sitter reads `TRUE`, `FALSE` and `NULL` as literals; a file may define them.
        if matches!(n.kind(), "type_identifier" | "true" | "false" | "null") {
            let name = text(n, src).to_string();
            if req.macros.definitions.contains_key(&name) {
                used_macros.insert(name);
            }
        }
        if n.kind() == "identifier" {
            let name = text(n, src).to_string();
            let is_callee = callees.contains(&n.id());
            if req.macros.definitions.contains_key(&name) {
                used_macros.insert(name);
            } else if is_callee || req.facts.locals.contains(&name) {
            } else if decl_of.contains_key(name.as_str()) || nest_vars.contains(name.as_str()) {
                if !used.contains(&name) {
                    used.push(name);
                }
            } else if unknown.is_none() {
                unknown = Some(name);
            }
        }
        true
    });
    // A function-like macro may name the caller's variables (`#define AT(i) (buf[(i) * nx])`):
    // those are used by the loop too.
    let mut reached = used_macros.clone();
    close_macros(&mut reached, &[], req.macros)?;
    for m in &reached {
        let Some(def) = req.macros.definitions.get(m) else {
            continue;
        };
        for id in macro_free_names(def, m) {
            if req.macros.definitions.contains_key(&id) || req.facts.locals.contains(&id) {
                continue;
            }
            if paths.roots.contains(&id) {
                return Err(format!(
                    "the macro `{m}` uses `{id}`, whose fields the loop passes one by one"
                ));
            }
            if decl_of.contains_key(id.as_str()) {
                if !used.contains(&id) {
                    used.push(id);
                }
            } else if !req.macros.is_type_name(&id)
                && !super::facts::is_pure_library_function(&id)
                && !super::syntax::called_names(def).contains(&id)
                && unknown.is_none()
            {
                unknown = Some(id);
            }
        }
    }
    if let Some(name) = unknown {
        return Err(format!(
            "it uses `{name}`, which is neither a parameter nor a local of `{func_name}`"
        ));
    }
    for name in &used {
        if let Some(d) = decl_of.get(name.as_str())
            && let Some(t) = template_params
                .iter()
                .find(|t| super::syntax::mentions_word(&d.ty, t))
        {
            return Err(format!(
                "`{name}` has type `{}`, which names `{t}`, a template parameter of `{func_name}`: its types are only known per instantiation",
                d.ty
            ));
        }
    }

    // A macro the loop calls may subscript arrays (`SMVP(u)` reads `u[index - x]` and
    // `kx[index + 1]`): sizes and access modes come from the loop with its macros expanded
    // (macro_expansion.rs), which holds the direct references too.
    if !reached.is_empty()
        && let Some(all) = super::macro_expansion::expanded_array_refs(req.node, src, req.macros)
    {
        arrays = all.iter().map(renamed).collect();
    }

    // The reads of a hoisted bound happen at the call site; the same element read in the body
    // (`arow[i]` in `nza < arow[i]` and in `+ arow[i]`) is the region's.
    arrays.retain(|r| {
        !req.hoisted
            .iter()
            .any(|h| h.ranges.iter().any(|&(s, e)| r.start >= s && r.start < e))
    });

    let written_scalars: HashSet<String> = req
        .facts
        .scalar_writes
        .iter()
        .map(|w| path_name(&w.name).unwrap_or(w.name.clone()))
        .chain(
            paths
                .paths
                .iter()
                .filter(|p| p.written)
                .map(|p| p.param.clone()),
        )
        .collect();
    let mut size_methods: HashSet<&str> = req
        .facts
        .method_calls
        .iter()
        .filter(|(_, m, _, _)| m == "size" || m == "length")
        .map(|(o, _, _, _)| o.as_str())
        .collect();
    // A range-for becomes a counted loop over `<container>_size` elements.
    if let Some((_, container)) = &req.facts.range_elem {
        size_methods.insert(container.as_str());
    }

    let mut params: Vec<Param> = Vec::new();
    let mut local_lines: Vec<String> = Vec::new();
    let mut extra_sizes: Vec<String> = Vec::new();
    let mut records: Vec<super::region::RegionRecord> = Vec::new();
    let mut flat_arrays: HashMap<String, super::dims::FlatShape> = HashMap::new();
    let mut record_defs: Vec<String> = Vec::new();
    for name in &used {
        let Some(decl) = decl_of.get(name.as_str()).copied() else {
            continue;
        };
        if !is_known_scalar(&decl.ty) {
            // A plain-data struct (or an array of them): the harness fills it field by field.
            match super::members::pod_layout(&decl.ty, req.macros) {
                Ok((record, defs)) => {
                    if !records
                        .iter()
                        .any(|r: &super::region::RegionRecord| r.name == record.name)
                    {
                        records.push(record);
                    }
                    for d in defs {
                        if !record_defs.contains(&d) {
                            record_defs.push(d);
                        }
                    }
                }
                Err(why) => {
                    let by_paths = paths
                        .refused
                        .get(name)
                        .map(|p| format!("; its fields cannot be passed one by one either: {p}"))
                        .unwrap_or_default();
                    return Err(format!(
                        "`{name}` has type `{}`, which a generated test harness cannot fill: {why}{by_paths}",
                        decl.ty
                    ));
                }
            }
        }
        if nest_vars.contains(name.as_str()) || req.facts.private_scalars.contains(name) {
            // A counter or a per-iteration temporary declared before the loop: a local of the
            // outlined function.
            local_lines.push(format!("    {} {name};", decl.ty));
            continue;
        }
        // A fixed multi-dimensional array travels flat (dims.rs).
        let flat = super::dims::flat_shape(decl, req.macros);
        if let Some(shape) = &flat {
            flat_arrays.insert(name.clone(), shape.clone());
        } else if decl.pointer > 1
            || (decl.pointer == 1 && (decl.vector || decl.array_size.is_some()))
        {
            let what = if decl.dims.is_empty() {
                "a pointer to pointers"
            } else {
                "an array whose inner dimensions are not known constants"
            };
            return Err(format!(
                "`{name}` is {what}; only flat arrays and fixed-size ones are outlined"
            ));
        }
        if decl.is_array() || flat.is_some() {
            let refs: Vec<_> = arrays.iter().filter(|r| r.array == *name).collect();
            let written = refs.iter().any(|r| r.write.is_some());
            let read = refs.iter().any(|r| r.read) || refs.is_empty();
            let access = match (read, written) {
                (true, true) => Access::ReadWrite,
                (false, true) => Access::Write,
                _ => Access::Read,
            };
            let readwrite_by_accumulate = refs
                .iter()
                .any(|r| matches!(r.write, Some(WriteKind::Accumulate(_))));
            let access = if readwrite_by_accumulate {
                Access::ReadWrite
            } else {
                access
            };
            params.push(Param {
                // A flattened array is a plain pointer inside the region.
                decl: match flat {
                    Some(_) => VarDecl {
                        pointer: 1,
                        array_size: None,
                        ..decl.clone()
                    },
                    None => decl.clone(),
                },
                region: RegionParam {
                    name: name.clone(),
                    elem_type: decl.ty.clone(),
                    is_array: true,
                    access,
                    extent: None,
                    is_size: false,
                    input: None,
                    // A vector is passed by its data pointer at the call site.
                    call_arg: if flat.is_some() {
                        Some(format!("&{name}{}", "[0]".repeat(decl.dims.len())))
                    } else {
                        decl.vector.then(|| format!("{name}.data()"))
                    },
                    range_of: None,
                },
            });
            if size_methods.contains(name.as_str()) {
                extra_sizes.push(format!("{name}_size"));
            }
        } else if written_scalars.contains(name) {
            params.push(Param {
                decl: decl.clone(),
                region: RegionParam {
                    name: name.clone(),
                    elem_type: decl.ty.clone(),
                    is_array: true,
                    access: Access::ReadWrite,
                    extent: Some("1".into()),
                    is_size: false,
                    input: None,
                    // A written scalar travels as a one-element array: pass its address.
                    call_arg: Some(format!("&{name}")),
                    range_of: None,
                },
            });
        } else if decl.literal_init && decl.is_const && !decl.is_param && !decl.is_integer() {
            local_lines.push(format!(
                "    const {} {name} = {};",
                decl.ty,
                decl.init.clone().unwrap_or_default()
            ));
        } else {
            params.push(Param {
                decl: decl.clone(),
                region: RegionParam {
                    name: name.clone(),
                    elem_type: decl.ty.clone(),
                    is_array: false,
                    access: Access::Read,
                    extent: None,
                    is_size: false,
                    input: None,
                    call_arg: None,
                    range_of: None,
                },
            });
        }
    }

    for h in req.hoisted {
        params.push(Param {
            decl: VarDecl::scalar_param(&h.symbol, &h.ty, h.ranges.first().map_or(0, |r| r.0)),
            region: RegionParam {
                name: h.symbol.clone(),
                elem_type: h.ty.clone(),
                is_array: false,
                access: Access::Read,
                extent: None,
                is_size: true,
                input: None,
                call_arg: Some(h.call_arg.clone()),
                range_of: None,
            },
        });
    }

    // Sizes of `v.size()` become parameters of their own.
    for size in &extra_sizes {
        params.push(Param {
            decl: VarDecl::scalar_param(size, "std::size_t", 0),
            region: RegionParam {
                name: size.clone(),
                elem_type: "std::size_t".into(),
                is_array: false,
                access: Access::Read,
                extent: None,
                is_size: true,
                input: None,
                call_arg: size
                    .strip_suffix("_size")
                    .map(|obj| format!("{obj}.size()")),
                range_of: None,
            },
        });
    }
    let rename_size = |p: &Poly| -> Poly {
        let mut out = p.clone();
        for v in p.vars() {
            if let Some(obj) = v
                .strip_suffix(".size()")
                .or_else(|| v.strip_suffix(".length()"))
                && let Some(q) = out.substitute(&v, &Poly::var(&format!("{obj}_size")))
            {
                out = q;
            }
        }
        out
    };
    let nest: Vec<Induction> = req
        .nest
        .iter()
        .map(|i| Induction {
            var: i.var.clone(),
            lower: rename_size(&rename_paths(&i.lower)),
            upper: rename_size(&rename_paths(&i.upper)),
            step: i.step,
            span: rename_size(&rename_paths(&i.span)),
            data_dependent: i.data_dependent,
        })
        .collect();
    // An inner loop's bound read from an array (`k < rowstr[j+1]`, `ii < nAtoms[iBox]`) is one of
    // that array's values: the counter stays below the values' range, a size of its own, as for
    // a gather (the index array's input held inside it).
    let mut ranges: Vec<IndexRange> = Vec::new();
    let nest: Vec<Induction> = nest
        .into_iter()
        .map(|mut ind| {
            let mut lower_arrays = Vec::new();
            let mut upper_arrays = Vec::new();
            for (p, seen) in [
                (&mut ind.lower, &mut lower_arrays),
                (&mut ind.upper, &mut upper_arrays),
            ] {
                for v in p.vars() {
                    let Some((base, _)) = v.split_once('[') else {
                        continue;
                    };
                    let base = path_name(base).unwrap_or_else(|| base.trim().to_string());
                    if !base.chars().all(|c| c.is_alphanumeric() || c == '_') {
                        continue;
                    }
                    if let Some(q) = p.substitute(&v, &Poly::var(&index_value(&base))) {
                        *p = q;
                        seen.push(base);
                    }
                }
            }
            for a in lower_arrays.iter().chain(&upper_arrays) {
                // Row offsets (`k` from `rowstr[j]` below `rowstr[j+1]`) are generated
                // non-decreasing, so the rows share out the range instead of each spanning it.
                let sorted = lower_arrays.contains(a) && upper_arrays.contains(a);
                match ranges.iter_mut().find(|r| r.index == *a) {
                    Some(r) => r.sorted |= sorted,
                    None => ranges.push(IndexRange {
                        index: a.clone(),
                        size: range_size_name(a),
                        sorted,
                    }),
                }
            }
            ind
        })
        .collect();

    // Extents of arrays.
    let int_params: Vec<String> = decls
        .iter()
        .filter(|d| d.is_integer())
        .map(|d| d.name.clone())
        .collect();
    let mut extents: HashMap<String, String> = HashMap::new();
    let mut index_specs: Vec<(String, String)> = Vec::new();
    // Index arrays whose values' range became a size parameter (above, and in gathers), and
    // the arrays indexed so.
    let mut gathered_arrays: HashSet<String> = HashSet::new();
    // Arrays reached below index 0, with how far: passed from that far before their start.
    let mut based: Vec<(String, String)> = Vec::new();
    for p in params
        .iter()
        .filter(|p| p.region.is_array && p.region.extent.is_none())
    {
        let name = &p.region.name;
        let refs: Vec<_> = arrays.iter().filter(|r| r.array == *name).collect();
        let extent = if let Some(shape) = flat_arrays.get(name) {
            // The elements the subscripts reach at their flat offsets (`a[i][j]` at `i*C + j`),
            // which covers a loop that runs past a row (`j < m` in rows of 4) as the region's
            // flat indexing does; else the rows as declared.
            let flat: Option<Vec<super::facts::ArrayRef>> =
                refs.iter().map(|r| flat_ref(r, shape)).collect();
            let reach = match flat {
                Some(flat) if !flat.is_empty() => {
                    let flat: Vec<&super::facts::ArrayRef> = flat.iter().collect();
                    let direct = subscript_polys(&flat)
                        .and_then(|subs| extent_from_subscripts(subs.into_iter(), &nest));
                    match direct {
                        Some(e) => Some(rename_size(&e).to_string()),
                        None => {
                            let e = gathered_extent(&flat, 1, &nest, &decl_of, &mut ranges)?;
                            if e.is_some() {
                                gathered_arrays.insert(name.clone());
                            }
                            e
                        }
                    }
                }
                _ => None,
            };
            reach.or_else(|| {
                let row = shape.row();
                shape.outer.as_ref().map(|o| format!("({o})*({row})"))
            })
        } else if size_methods.contains(name.as_str()) {
            Some(format!("{name}_size"))
        } else if let Some(e) =
            subscript_polys(&refs).and_then(|subs| extent_from_subscripts(subs.into_iter(), &nest))
        {
            // What the subscripts reach, even in an array of declared size: a harness that
            // allocated fewer (`buf[16]` written below `n`) would be written past its end.
            Some(rename_size(&e).to_string())
        } else if let Some(n) = &p.decl.array_size {
            Some(n.clone())
        } else if p.decl.vector && p.decl.init.is_some() {
            p.decl.init.clone()
        } else {
            None
        };
        let extent = match extent {
            Some(e) => e,
            None => {
                // Indexed through data (`bins[data[i]]`): only a size parameter named after the
                // array can tell its extent.
                let candidates = [
                    format!("n{name}"),
                    format!("n_{name}"),
                    format!("num_{name}"),
                    format!("{name}_size"),
                    format!("{name}_len"),
                    format!("len_{name}"),
                ];
                // A size parameter bounds the index values only where they are the subscripts.
                let bare = refs.iter().all(|r| {
                    r.gathered
                        .iter()
                        .flatten()
                        .all(|g| g.vars().iter().any(|v| *g == Poly::var(v)))
                });
                let found = candidates.iter().find(|c| int_params.contains(c)).cloned();
                match found {
                    Some(f) if bare => f,
                    _ => match gathered_extent(&refs, 1, &nest, &decl_of, &mut ranges)? {
                        Some(e) => {
                            gathered_arrays.insert(name.clone());
                            e
                        }
                        None => {
                            return Err(format!(
                                "cannot tell how many elements `{name}` has; pass its size as a parameter named `n{name}`"
                            ));
                        }
                    },
                }
            }
        };
        // The harness allocates from index 0: a subscript below it (`z[i - stride]`, a pointer
        // into the middle of an image) would read outside what it filled.
        let flat: Option<Vec<super::facts::ArrayRef>> = flat_arrays
            .get(name)
            .and_then(|shape| refs.iter().map(|r| flat_ref(r, shape)).collect());
        let reach: Vec<&super::facts::ArrayRef> = match &flat {
            Some(f) => f.iter().collect(),
            None => refs.clone(),
        };
        let before = reach
            .iter()
            .filter_map(|r| reaches_before_start(r, &nest, req.enclosing).map(|b| (r, b)))
            .reduce(|(r, a), (_, b)| (r, a.termwise_max(&b)));
        let extent = match before {
            // Taken by a base pointer that far before (`based`): the region sees an array from 0.
            Some((_, b))
                if flat.is_none()
                    && !gathered_arrays.contains(name)
                    && refs.iter().all(|r| r.index_arrays.is_empty())
                    && p.decl.pointer == 1
                    && !p.decl.vector
                    && p.decl.array_size.is_none() =>
            {
                let b = rename_size(&b);
                based.push((name.clone(), b.to_string()));
                format!("{b} + {extent}")
            }
            Some((r, _)) => {
                return Err(format!(
                    "`{}` (line {}) reads before the start of `{name}` (a pointer into a larger buffer); a region's arrays start at index 0",
                    r.text, r.line
                ));
            }
            None => extent,
        };
        for r in &refs {
            if !gathered_arrays.contains(name) {
                for ia in &r.index_arrays {
                    index_specs.push((ia.clone(), extent.clone()));
                }
            }
            let indirect = r.subs.iter().any(Option::is_none);
            // A subscript whose form keeps it inside a fixed array (`hist[x & 0xFF]` of 512).
            let kept_inside = r.subs.len() == 1
                && r.bounded
                    .first()
                    .copied()
                    .flatten()
                    .is_some_and(|(lo, hi)| {
                        lo >= 0 && constant_value(&extent).is_some_and(|n| hi < n)
                    });
            let chosen = r.subs.len() == 1 && r.choices.first().is_some_and(Option::is_some);
            if indirect && r.index_arrays.is_empty() && !kept_inside && !chosen {
                return Err(format!(
                    "cannot bound the data-dependent subscript of `{}` (line {})",
                    r.text, r.line
                ));
            }
        }
        extents.insert(name.clone(), extent);
    }
    for p in params.iter_mut() {
        if let Some(e) = extents.get(&p.region.name) {
            p.region.extent = Some(e.clone());
        }
    }
    let mut sorted_indices: HashSet<String> = HashSet::new();
    for range in &ranges {
        let Some(index) = params.iter().find(|p| p.region.name == range.index) else {
            return Err(format!(
                "the index array `{}` is not a parameter of the loop (a local or a pointer into another array): the range of its values cannot be told",
                range.index
            ));
        };
        if !is_integer_like(&index.region.elem_type) {
            return Err(format!(
                "the index array `{}` holds `{}` values, not integers",
                range.index, index.region.elem_type
            ));
        }
        let ty = index.region.elem_type.clone();
        index_specs.push((range.index.clone(), range.size.clone()));
        if range.sorted {
            sorted_indices.insert(range.index.clone());
        }
        params.push(Param {
            decl: VarDecl::scalar_param(&range.size, &ty, index.decl.start_byte),
            region: RegionParam {
                name: range.size.clone(),
                elem_type: ty,
                is_array: false,
                access: Access::Read,
                extent: None,
                is_size: true,
                input: None,
                call_arg: None,
                range_of: Some(range.index.clone()),
            },
        });
    }
    for (ia, bound) in index_specs {
        let Some(p) = params.iter_mut().find(|p| p.region.name == ia) else {
            return Err(format!("the index array `{ia}` is not a parameter"));
        };
        if p.region.access != Access::Read {
            return Err(format!(
                "the index array `{ia}` is also written in the loop"
            ));
        }
        p.region.input = Some(InputSpec {
            min: Some("0".into()),
            max: Some(format!("{bound} - 1")),
            sorted: sorted_indices.contains(&ia),
            ..InputSpec::default()
        });
    }

    // Symbols of extents and bounds must be parameters: integer locals/params are added as sizes.
    let mut size_symbols: BTreeSet<String> = BTreeSet::new();
    for ind in &nest {
        for p in [&ind.lower, &ind.upper] {
            // Index values are the harness's to generate below their range.
            size_symbols.extend(p.vars().into_iter().filter(|v| !v.starts_with(INDEX_VALUE)));
        }
    }
    for p in &params {
        if let Some(e) = &p.region.extent {
            size_symbols.extend(identifiers_in(e));
        }
    }
    // A scalar a subscript names is one too, even where the extent lost it (`k - y_min`, with
    // `y_min` dropped as a negative term): left to the harness's random values it would send
    // the subscript anywhere.
    for r in &arrays {
        let polys = r
            .subs
            .iter()
            .flatten()
            .chain(r.choices.iter().flatten().flatten());
        for p in polys {
            size_symbols.extend(
                p.vars()
                    .into_iter()
                    .filter(|v| !v.starts_with(INDEX_VALUE) && !v.contains(['[', '.', '>'])),
            );
        }
    }
    for sym in &size_symbols {
        if nest_vars.contains(sym.as_str()) || req.macros.definitions.contains_key(sym) {
            if req.macros.definitions.contains_key(sym) {
                used_macros.insert(sym.clone());
            }
            continue;
        }
        if let Some(p) = params.iter_mut().find(|p| p.region.name == *sym) {
            if !p.region.is_array && is_integer_like(&p.region.elem_type) {
                p.region.is_size = true;
            }
            continue;
        }
        match decl_of.get(sym.as_str()) {
            Some(d) if d.is_integer() => params.push(Param {
                decl: (*d).clone(),
                region: RegionParam {
                    name: sym.clone(),
                    elem_type: d.ty.clone(),
                    is_array: false,
                    access: Access::Read,
                    extent: None,
                    is_size: true,
                    input: None,
                    call_arg: None,
                    range_of: None,
                },
            }),
            _ if req.facts.inner_inductions.contains(sym) => {
                return Err(format!(
                    "the size `{sym}` is a counter of an inner loop that does not advance in step with its loop's counter: its range cannot be told"
                ));
            }
            _ => {
                return Err(format!(
                    "the size `{sym}` is not an integer parameter or local of `{func_name}`"
                ));
            }
        }
    }

    enclosing_ranges(&mut params, req.enclosing);

    // The whole function is the region when its body is the nest (plus constants) and its
    // parameters already have the contract's shape.
    // A hoisted bound is evaluated where the loop was, which a whole function has no place for.
    // So is an array taken by a base pointer, which the prelude names back.
    let whole = if this_class.is_some() || !req.hoisted.is_empty() || !based.is_empty() {
        None
    } else {
        whole_function_params(func, req, decls, &params)
    };
    let (name, ordered): (String, Vec<Param>) = match whole {
        Some(order) => {
            let mut ordered = Vec::new();
            for pname in order {
                if let Some(idx) = params.iter().position(|p| p.region.name == pname) {
                    ordered.push(params.remove(idx));
                } else if let Some(d) = decl_of.get(pname.as_str()) {
                    ordered.push(Param {
                        decl: (*d).clone(),
                        region: RegionParam {
                            name: pname.clone(),
                            elem_type: d.ty.clone(),
                            is_array: false,
                            access: Access::Read,
                            extent: None,
                            is_size: false,
                            input: None,
                            call_arg: None,
                            range_of: None,
                        },
                    });
                }
            }
            (func_name.clone(), ordered)
        }
        None => {
            params.sort_by_key(|p| (p.decl.is_param as u8 == 0, p.decl.start_byte));
            (format!("{func_name}_loop{}", req.line), params)
        }
    };
    let whole_function = name == func_name;

    // The body: rewrite written scalars to `(*x)` and container methods to plain pointers/sizes.
    let range_for = req.node.kind() == "for_range_loop";
    let (body_node, mut prelude) = if whole_function {
        (
            func.child_by_field_name("body").ok_or("no body")?,
            Vec::new(),
        )
    } else if range_for {
        (
            req.node.child_by_field_name("body").ok_or("no body")?,
            local_lines,
        )
    } else {
        (req.node, local_lines)
    };
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let pointer_scalars: HashSet<&str> = ordered
        .iter()
        .filter(|p| p.region.is_array && !p.decl.is_array())
        .map(|p| p.region.name.as_str())
        .collect();
    for_each_descendant(body_node, |n| {
        if n.kind() == "identifier" && pointer_scalars.contains(text(n, src).as_ref()) {
            edits.push((n.start_byte(), n.end_byte(), format!("(*{})", text(n, src))));
        }
        true
    });
    for p in &paths.paths {
        let replacement = if pointer_scalars.contains(p.param.as_str()) {
            format!("(*{})", p.param)
        } else {
            p.param.clone()
        };
        for &(s, e) in &p.ranges {
            if s >= body_node.start_byte()
                && e <= body_node.end_byte()
                && String::from_utf8_lossy(&src[s..e]) != replacement
            {
                edits.push((s, e, replacement.clone()));
            }
        }
        // `domain.x(i)` becomes `domain_x[i]`.
        for &(open, close) in &p.brackets {
            if open >= body_node.start_byte() && close < body_node.end_byte() {
                edits.push((open, open + 1, "[".into()));
                edits.push((close, close + 1, "]".into()));
            }
        }
    }
    for (name, shape) in &flat_arrays {
        let via_path = paths.paths.iter().any(|p| p.param == *name);
        let is_use = |n: Node| {
            if via_path {
                paths.nodes.get(&n.id()) == Some(name)
            } else {
                n.kind() == "identifier" && text(n, src) == name.as_str()
            }
        };
        edits.extend(super::dims::flatten_edits(
            body_node, src, name, shape, is_use,
        )?);
    }
    for (obj, method, start, end) in &req.facts.method_calls {
        if start < &body_node.start_byte() || end > &body_node.end_byte() {
            continue;
        }
        let replacement = match method.as_str() {
            "size" | "length" => format!("{obj}_size"),
            "data" => obj.clone(),
            _ => continue,
        };
        edits.retain(|(s, e, _)| !(s >= start && e <= end));
        edits.push((*start, *end, replacement));
    }
    for h in req.hoisted {
        for &(s, e) in &h.ranges {
            edits.retain(|(a, b, _)| *b <= s || *a >= e);
            edits.push((s, e, h.symbol.clone()));
        }
    }
    edits.sort_by_key(|e| e.0);
    let mut body = String::new();
    let mut pos = body_node.start_byte();
    for (s, e, r) in &edits {
        if *s < pos {
            continue;
        }
        body.push_str(&String::from_utf8_lossy(&src[pos..*s]));
        body.push_str(r);
        pos = *e;
    }
    body.push_str(&String::from_utf8_lossy(&src[pos..body_node.end_byte()]));
    if range_for && !whole_function {
        body = range_for_as_counted(req, &body)?;
    }

    // A path is passed as the caller spells it (`chunk->u`, `&s.sum` for a written field).
    let mut ordered = ordered;
    for p in ordered.iter_mut() {
        if let Some(path) = paths.paths.iter().find(|m| m.param == p.region.name) {
            let by_address = p.region.is_array && !p.decl.is_array();
            p.region.call_arg = if let Some(shape) = flat_arrays.get(&p.region.name) {
                // Rows travel flat from their first element.
                Some(format!(
                    "&{}{}",
                    path.call_arg,
                    "[0]".repeat(shape.inner.len() + 1)
                ))
            } else if by_address {
                Some(format!("&{}", path.call_arg))
            } else {
                (path.call_arg != path.param).then(|| path.call_arg.clone())
            };
        }
    }
    // A based array is passed from `before` elements ahead of where the loop's pointer points
    // and named back in the prelude, so the loop's code reads it as written.
    // (A region with such an array is never the whole function: `whole` above.)
    for (name, before) in &based {
        let Some(p) = ordered.iter_mut().find(|p| p.region.name == *name) else {
            continue;
        };
        let base = format!("{name}_base");
        let arg = p.region.call_arg.clone().unwrap_or_else(|| name.clone());
        p.region.call_arg = Some(format!("({arg}) - ({before})"));
        let qualifier = if p.region.access == Access::Read {
            "const "
        } else {
            ""
        };
        prelude.insert(
            0,
            format!(
                "    {qualifier}{ty}* {name} = {base} + ({before});",
                ty = p.region.elem_type
            ),
        );
        p.region.name = base;
    }
    let region_params: Vec<RegionParam> = ordered.into_iter().map(|p| p.region).collect();
    let mut region = OffloadRegion {
        name: name.clone(),
        params: region_params,
        source: String::new(),
        includes: Vec::new(),
        kind: req.kind,
        whole_function,
        line: req.line,
        end_line: req.end_line,
        work: req.work.clone(),
        sizes: None,
        types: Default::default(),
    };
    let signature = region.signature();
    let helper_defs: Vec<&str> = helpers_used(req).iter().map(|(_, d)| d.as_str()).collect();
    close_macros(&mut used_macros, &helper_defs, req.macros)?;
    // The structs' definitions, the macros the extents name (the harness sizes arrays with
    // them) and what those name come first, once, outside the source.
    let extent_macros: BTreeSet<String> = region
        .params
        .iter()
        .flat_map(|p| {
            let input = p.input.clone().unwrap_or_default();
            [p.extent.clone(), input.min, input.max]
        })
        .flatten()
        .flat_map(|e| identifiers_in(&e))
        .filter(|id| req.macros.definitions.contains_key(id))
        .collect();
    if !records.is_empty() || !extent_macros.is_empty() {
        let mut type_macros: BTreeSet<String> = extent_macros.clone();
        close_macros(&mut type_macros, &[], req.macros)?;
        let def_refs: Vec<&str> = record_defs.iter().map(String::as_str).collect();
        close_macros(&mut type_macros, &def_refs, req.macros)?;
        let record_names: HashSet<String> = records
            .iter()
            .filter_map(|r| super::members::record_of(&r.name, req.macros).map(|(n, _)| n))
            .collect();
        type_macros.retain(|m| {
            !record_names.contains(m)
                && req
                    .macros
                    .definitions
                    .get(m)
                    .is_none_or(|d| !record_defs.iter().any(|r| r.trim() == d.trim()))
        });
        let mut definitions = String::new();
        let mut written: HashSet<&str> = HashSet::new();
        for m in dependency_order(&type_macros, req.macros) {
            let def = req.macros.definitions[&m].as_str();
            if written.insert(def) {
                definitions.push_str(def);
                definitions.push('\n');
            }
        }
        for d in &record_defs {
            definitions.push_str(d);
            definitions.push('\n');
        }
        used_macros.retain(|m| !type_macros.contains(m) && !record_names.contains(m));
        region.types = super::region::RegionTypes::new(definitions, records.clone());
    }
    let mut source = String::new();
    // A typedef or macro after those it names (`typedef real_t real3[3]` after `real_t`); an
    // enum once, whichever of its constants are used.
    let mut written: HashSet<&str> = HashSet::new();
    for m in &dependency_order(&used_macros, req.macros) {
        if let Some(def) = req.macros.definitions.get(m)
            && written.insert(def.as_str())
        {
            source.push_str(def);
            source.push('\n');
        }
    }
    for (_, def) in helpers_used(req) {
        source.push_str(def);
        source.push_str("\n\n");
    }
    // Upper-case spellings of math functions that the file takes from a header it does not show
    // (the analysis read them as the function they name).
    let mut aliases: Vec<&str> = req
        .facts
        .calls
        .iter()
        .map(|(c, _)| c.as_str())
        .filter(|c| {
            !req.macros.definitions.contains_key(*c)
                && c.chars().any(|ch| ch.is_ascii_uppercase())
                && super::facts::is_pure_library_function(c)
        })
        .collect();
    aliases.sort();
    aliases.dedup();
    for a in aliases {
        let body = match a {
            "MAX" => "(a, b) ((a) > (b) ? (a) : (b))".to_string(),
            "MIN" => "(a, b) ((a) < (b) ? (a) : (b))".to_string(),
            _ => format!("(...) {}(__VA_ARGS__)", a.to_ascii_lowercase()),
        };
        source.push_str(&format!(
            "#ifndef {a}  // assumed: the header defining `{a}` is not in this file\n#define {a}{body}\n#endif\n"
        ));
    }
    // `max(a, b)` in a file that says `using namespace std;` means `std::max`.
    if uses_std_unqualified(req) {
        source.push_str("using namespace std;\n");
    }
    source.push_str(&signature);
    if whole_function {
        source.push(' ');
        source.push_str(&body);
        source.push('\n');
    } else {
        source.push_str(" {\n");
        for l in &prelude {
            source.push_str(l);
            source.push('\n');
        }
        let indent = " ".repeat(req.node.start_position().column);
        source.push_str("    ");
        source.push_str(&reindent(&body, &indent, "    "));
        source.push_str("\n}\n");
    }
    region.includes = includes_for(&source, &req.facts.calls);
    region.source = source;
    Ok(region)
}

/// `for (T& x : v) body` → `for (std::size_t v_i = 0; v_i < v_size; ++v_i) { T& x = v[v_i]; body }`.
fn range_for_as_counted(req: &OutlineRequest, body: &str) -> Result<String, String> {
    let src = req.src;
    let (_, container) = req
        .facts
        .range_elem
        .as_ref()
        .ok_or("the range-for loop iterates over an expression")?;
    let node = req.node;
    let declarator = node
        .child_by_field_name("declarator")
        .map(|d| text(d, src).to_string())
        .ok_or("no loop variable")?;
    let ty = node
        .child_by_field_name("type")
        .map(|t| text(t, src).to_string())
        .ok_or("no loop variable type")?;
    let body_start = node
        .child_by_field_name("body")
        .ok_or("no body")?
        .start_byte();
    let mut cursor = node.walk();
    let qualifiers: Vec<String> = node
        .children(&mut cursor)
        .filter(|c| c.kind() == "type_qualifier" && c.start_byte() < body_start)
        .map(|c| text(c, src).to_string())
        .collect();
    let qual = if qualifiers.is_empty() {
        String::new()
    } else {
        format!("{} ", qualifiers.join(" "))
    };
    let idx = format!("{container}_i");
    Ok(format!(
        "for (std::size_t {idx} = 0; {idx} < {container}_size; ++{idx}) {{\n        {qual}{ty} {declarator} = {container}[{idx}];\n        {body}\n    }}"
    ))
}

/// The order of the function's own parameters when the function can be used whole.
fn whole_function_params(
    func: Node,
    req: &OutlineRequest,
    decls: &[VarDecl],
    params: &[Param],
) -> Option<Vec<String>> {
    let src = req.src;
    let ret = func
        .child_by_field_name("type")
        .map(|t| text(t, src).to_string())?;
    if ret != "void" {
        return None;
    }
    let body = func.child_by_field_name("body")?;
    for stmt in named_children(body) {
        if stmt == req.node || stmt.kind() == "comment" {
            continue;
        }
        if stmt.kind() == "declaration" {
            let literal = decls
                .iter()
                .filter(|d| {
                    !d.is_param
                        && d.start_byte >= stmt.start_byte()
                        && d.start_byte < stmt.end_byte()
                })
                .all(|d| d.literal_init && d.is_const && !d.is_integer());
            if literal {
                continue;
            }
        }
        return None;
    }
    let mut order = Vec::new();
    for d in decls.iter().filter(|d| d.is_param) {
        if d.reference || d.vector || d.array_size.is_some() || !is_known_scalar(&d.ty) {
            return None;
        }
        match params.iter().find(|p| p.region.name == d.name) {
            Some(p) if p.region.is_array != (d.pointer == 1) => return None,
            Some(_) => {}
            None if d.pointer > 0 => return None,
            None => {}
        }
        order.push(d.name.clone());
    }
    // Every region parameter must be a function parameter.
    if params.iter().any(|p| !order.contains(&p.region.name)) {
        return None;
    }
    Some(order)
}

/// The value of a size written with integer literals, `*` and `+` only (`256 * 2`).
fn constant_value(expr: &str) -> Option<i64> {
    expr.split('+').try_fold(0i64, |sum, term| {
        let product = term.split('*').try_fold(1i64, |p, f| {
            p.checked_mul(super::syntax::parse_int_literal(f.trim())?)
        })?;
        sum.checked_add(product)
    })
}

/// The loop calls a standard algorithm by its bare name (`max`, `swap`) and the file brings `std`
/// into scope with a using-directive at file scope.
fn uses_std_unqualified(req: &OutlineRequest) -> bool {
    const BARE: [&str; 4] = ["max", "min", "swap", "clamp"];
    let root = || {
        let mut root = req.node;
        while let Some(p) = root.parent() {
            root = p;
        }
        root
    };
    req.facts
        .calls
        .iter()
        .any(|(c, _)| BARE.contains(&c.as_str()))
        && named_children(root()).iter().any(|n| {
            n.kind() == "using_declaration"
                && n.start_byte() < req.func.map_or(0, |f| f.start_byte())
                && text(*n, req.src).split_whitespace().collect::<Vec<_>>()
                    == ["using", "namespace", "std;"]
        })
}

/// `d` as a vector of its element when its type is `C<T>` for a class template `C` that is a flat
/// array of `T` (`ClassInfo::element`).
fn as_vector(d: &VarDecl, macros: &Macros) -> Option<VarDecl> {
    if d.vector || d.pointer > 0 || d.array_size.is_some() {
        return None;
    }
    let (open, close) = (d.ty.find('<')?, d.ty.rfind('>')?);
    let arg = d.ty.get(open + 1..close)?.trim();
    if arg.is_empty() || arg.contains([',', '<']) {
        return None;
    }
    let (_, class) = super::classes::class_of(&d.ty, macros, None)?;
    class.element.as_ref()?;
    let ty = macros
        .type_aliases
        .get(arg)
        .cloned()
        .unwrap_or_else(|| arg.to_string());
    // Its size comes from the subscripts unless the constructor's argument is a plain size: a
    // call or a member (`pvector<int> p(g.num_nodes())`, `= InitParent(g)`) is not the region's.
    let init = d.init.clone().filter(|i| {
        i.chars()
            .all(|c| c.is_alphanumeric() || "_ +-*".contains(c))
    });
    Some(VarDecl {
        vector: true,
        ty,
        init,
        ..d.clone()
    })
}

fn is_integer_like(ty: &str) -> bool {
    super::facts::is_integer_type(ty)
}

fn identifiers_in(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in expr.chars().chain(std::iter::once(' ')) {
        if c.is_alphanumeric() || c == '_' {
            cur.push(c);
        } else {
            if !cur.is_empty() && !cur.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                out.push(cur.clone());
            }
            cur.clear();
        }
    }
    out
}

/// Adds the macros and typedefs that the used ones (and the carried helpers) name in turn
/// (`#define NK_PLUS ((2*NK)+1)` needs `NK`); refuses an object-like macro whose value names
/// something the file does not define (a constant of a header that is not there).
fn close_macros(
    used: &mut BTreeSet<String>,
    helpers: &[&str],
    macros: &Macros,
) -> Result<(), String> {
    let names_in = |def: &str| identifiers_in(&super::syntax::strip_comments_and_literals(def));
    let mut todo: Vec<String> = used.iter().cloned().collect();
    for h in helpers {
        for id in names_in(h) {
            if macros.definitions.contains_key(&id) && used.insert(id.clone()) {
                todo.push(id);
            }
        }
    }
    while let Some(m) = todo.pop() {
        let Some(def) = macros.definitions.get(&m) else {
            continue;
        };
        let object_like = def
            .trim_start()
            .strip_prefix('#')
            .map(str::trim_start)
            .and_then(|d| d.strip_prefix("define"))
            .map(str::trim_start)
            .and_then(|d| d.strip_prefix(m.as_str()))
            .is_some_and(|rest| !rest.starts_with('('));
        for id in names_in(def) {
            if id == m || id == "define" || id == "typedef" {
                continue;
            }
            if macros.definitions.contains_key(&id) {
                if used.insert(id.clone()) {
                    todo.push(id);
                }
            } else if object_like
                && !macros.is_type_name(&id)
                && !super::facts::is_pure_library_function(&id)
                && !matches!(id.as_str(), "sizeof" | "struct" | "unsigned" | "signed")
            {
                return Err(format!(
                    "the macro `{m}` uses `{id}`, which this file and its headers do not define"
                ));
            }
        }
    }
    Ok(())
}

/// The macros and typedefs of `names`, each after those of them its definition names.
fn dependency_order(names: &BTreeSet<String>, macros: &Macros) -> Vec<String> {
    fn visit(
        m: &str,
        names: &BTreeSet<String>,
        macros: &Macros,
        seen: &mut HashSet<String>,
        out: &mut Vec<String>,
    ) {
        if !seen.insert(m.to_string()) {
            return;
        }
        if let Some(def) = macros.definitions.get(m) {
            for id in identifiers_in(&super::syntax::strip_comments_and_literals(def)) {
                if id != m && names.contains(&id) {
                    visit(&id, names, macros, seen, out);
                }
            }
            out.push(m.to_string());
        }
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for m in names {
        visit(m, names, macros, &mut seen, &mut out);
    }
    out
}

/// The names a function-like macro's body uses that are not its parameters (empty for an
/// object-like macro or a typedef).
fn macro_free_names(def: &str, name: &str) -> Vec<String> {
    let d = super::syntax::strip_comments_and_literals(def);
    let Some(rest) = d
        .trim_start()
        .strip_prefix('#')
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix("define"))
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix(name))
        .and_then(|r| r.strip_prefix('('))
    else {
        return Vec::new();
    };
    let Some((params, body)) = rest.split_once(')') else {
        return Vec::new();
    };
    let params: Vec<&str> = params.split(',').map(str::trim).collect();
    identifiers_in(body)
        .into_iter()
        .filter(|id| !params.contains(&id.as_str()) && id != "__VA_ARGS__")
        .collect()
}

/// Moves a block of code from one indentation to another, line by line.
fn reindent(code: &str, from: &str, to: &str) -> String {
    let mut lines = code.lines();
    let mut out = String::new();
    if let Some(first) = lines.next() {
        out.push_str(first);
    }
    for l in lines {
        out.push('\n');
        out.push_str(to);
        out.push_str(l.strip_prefix(from).unwrap_or(l.trim_start()));
    }
    out
}

fn includes_for(source: &str, calls: &[(String, usize)]) -> Vec<String> {
    let mut inc = Vec::new();
    // Names followed by `(` in the source (helpers and macros may call what the loop does not).
    let in_text = super::syntax::called_names(source);
    let called: HashSet<&str> = calls
        .iter()
        .map(|(c, _)| c.as_str())
        .chain(in_text.iter().map(String::as_str))
        .map(|c| c.trim_start_matches("std::").trim_start_matches("::"))
        .collect();
    let calls_any = |names: &[&str]| names.iter().any(|n| called.contains(n));
    if calls_any(super::facts::PURE_FUNCTIONS) {
        inc.push("#include <cmath>".to_string());
    }
    if calls_any(&["min", "max", "clamp"]) {
        inc.push("#include <algorithm>".to_string());
    }
    for (header, names) in super::facts::LIBRARY_HEADERS {
        if calls_any(names) {
            inc.push(format!("#include <{header}>"));
        }
    }
    if source.contains("size_t") || source.contains("ptrdiff_t") {
        inc.push("#include <cstddef>".to_string());
    }
    if source.contains("int8_t")
        || source.contains("int16_t")
        || source.contains("int32_t")
        || source.contains("int64_t")
    {
        inc.push("#include <cstdint>".to_string());
    }
    inc
}

/// Whether `name(` occurs in `source` as a whole identifier (`max(` but not `fmax(`).
fn calls_in_text(source: &str, name: &str) -> bool {
    super::syntax::whole_words(source, name).any(|at| source[at + name.len()..].starts_with('('))
}

/// Definitions of the file's pure helpers the nest calls, directly or through each other, in
/// source order.
fn helpers_used<'a>(req: &'a OutlineRequest) -> Vec<&'a (String, String)> {
    let helpers = &req.macros.helpers;
    let mut needed: HashSet<&str> = req
        .facts
        .calls
        .iter()
        .filter(|(c, _)| helpers.iter().any(|(h, _)| h == c))
        .map(|(c, _)| c.as_str())
        .collect();
    loop {
        let before = needed.len();
        for (name, def) in helpers {
            if needed.contains(name.as_str()) {
                for (other, _) in helpers {
                    if calls_in_text(def, other) {
                        needed.insert(other.as_str());
                    }
                }
            }
        }
        if needed.len() == before {
            break;
        }
    }
    helpers
        .iter()
        .filter(|(h, _)| needed.contains(h.as_str()))
        .collect()
}

/// Ids of the nodes that name the function of a call (`f` in `f(x)`): those are not variables.
pub fn callee_ids(root: Node) -> HashSet<usize> {
    let mut ids = HashSet::new();
    for_each_descendant(root, |n| {
        if n.kind() == "call_expression"
            && let Some(f) = n.child_by_field_name("function")
        {
            ids.insert(f.id());
        }
        true
    });
    ids
}
