//! Fixed-size multi-dimensional arrays (`unsigned char data[16][4]`, the parameter
//! `int acol[][NONZER + 1]`): a region passes them flat, as `&a[0][0]` with `R*C` elements, and
//! its body indexes them row-major (`a[i][j]` becomes `a[((i) * (C) + (j))]`). Only arrays whose
//! every dimension after the first is a known constant, used element by element, are flattened.

use tree_sitter::Node;

use super::poly::Poly;
use super::scope::VarDecl;
use super::syntax::{
    Macros, for_each_descendant, parse_int_literal, subscript_index, text, unparen,
};

/// The shape of a flattened array: its first dimension (when declared) and the others' sizes,
/// each a constant or an expression over constants of a header the file does not have
/// (`NONZER + 1`), which the region takes as size parameters of the same names.
#[derive(Debug, Clone)]
pub struct FlatShape {
    pub outer: Option<String>,
    pub inner: Vec<Poly>,
}

impl FlatShape {
    /// Elements of one row (the product of the inner dimensions).
    pub fn row(&self) -> Poly {
        product(&self.inner).unwrap_or_default()
    }

    /// The row-major offset of the element `subs` (one per dimension); `None` if one is unknown.
    pub fn offset(&self, subs: &[Option<Poly>]) -> Option<Poly> {
        if subs.len() != self.inner.len() + 1 {
            return None;
        }
        let mut offset = Poly::constant(0);
        for (k, s) in subs.iter().enumerate() {
            let stride = product(&self.inner[k..])?;
            offset = offset.add(&s.as_ref()?.mul(&stride)?)?;
        }
        Some(offset)
    }
}

fn product(dims: &[Poly]) -> Option<Poly> {
    dims.iter().try_fold(Poly::constant(1), |acc, d| acc.mul(d))
}

/// The flat shape of `d`, if it is a fixed multi-dimensional array.
pub fn flat_shape(d: &VarDecl, macros: &Macros) -> Option<FlatShape> {
    let (first, rest) = d.dims.split_first()?;
    let inner = rest
        .iter()
        .map(|s| {
            let p = dimension(s.as_deref()?, macros)?;
            match p.as_constant() {
                Some(n) => (1..=1 << 20).contains(&n).then_some(p),
                None => Some(p),
            }
        })
        .collect::<Option<Vec<Poly>>>()?;
    let shape = FlatShape {
        outer: first.clone().filter(|s| !s.trim().is_empty()),
        inner,
    };
    let small = shape.row().as_constant().is_none_or(|n| n <= 1 << 20);
    small.then_some(shape)
}

/// A dimension as a polynomial: sums and products of literals, of macros with known values and
/// of [`unseen_constant`]s (`NONZER + 1`, `2*NK`).
fn dimension(s: &str, macros: &Macros) -> Option<Poly> {
    let s = s.trim();
    let s = match s.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        Some(inner) if !inner.contains(['(', ')']) => inner,
        _ => s,
    };
    if s.contains(['(', ')']) {
        return None;
    }
    let mut total = Poly::constant(0);
    for (sign, term) in signed_terms(s)? {
        let mut product = Poly::constant(sign);
        for factor in term.split('*').map(str::trim) {
            let f = if let Some(n) = parse_int_literal(factor) {
                Poly::constant(n)
            } else if let Some(n) = macros.values.get(factor) {
                Poly::constant(*n)
            } else if unseen_constant(factor, macros) {
                Poly::var(factor)
            } else {
                return None;
            };
            product = product.mul(&f)?;
        }
        total = total.add(&product)?;
    }
    Some(total)
}

/// `a + b - c` as `[(1, "a"), (1, "b"), (-1, "c")]`; `None` where a term is empty.
fn signed_terms(s: &str) -> Option<Vec<(i64, &str)>> {
    let mut out = Vec::new();
    let mut sign = 1;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if c == '+' || c == '-' {
            out.push((sign, s[start..i].trim()));
            sign = if c == '-' { -1 } else { 1 };
            start = i + 1;
        }
    }
    out.push((sign, s[start..].trim()));
    out.iter().all(|(_, t)| !t.is_empty()).then_some(out)
}

/// A name spelled as macros are (`NONZER`, `NA`) that the file does not define: a constant of a
/// header the analysis does not have (npb's generated npbparams.h).
pub fn unseen_constant(name: &str, macros: &Macros) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && !macros.definitions.contains_key(name)
}

/// The header constants that the inner dimensions of `d` name.
pub fn unseen_dimension_constants(d: &VarDecl, macros: &Macros) -> Vec<String> {
    flat_shape(d, macros)
        .map(|shape| shape.inner.iter().flat_map(Poly::vars).collect())
        .unwrap_or_default()
}

/// Edits of `body` that index `name` row-major; `Err` where the array is used otherwise than
/// element by element (a row passed on, the array itself). `is_use` says which nodes name the
/// array: its identifier, or the member path (`s->atoms->p`) the region passes as `name`.
pub fn flatten_edits(
    body: Node,
    src: &[u8],
    name: &str,
    shape: &FlatShape,
    is_use: impl Fn(Node) -> bool,
) -> Result<Vec<(usize, usize, String)>, String> {
    let n = shape.inner.len() + 1;
    let mut edits = Vec::new();
    let mut bad = false;
    for_each_descendant(body, |id| {
        if !is_use(id) {
            return true;
        }
        // The subscripts from the identifier outwards: `a[i]`, then `a[i][j]`, ...
        let mut indices: Vec<Node> = Vec::new();
        let mut cur = id;
        while indices.len() < n {
            let Some(p) = cur.parent() else { break };
            let is_arg = p.kind() == "subscript_expression"
                && p.child_by_field_name("argument")
                    .is_some_and(|a| unparen(a).id() == cur.id());
            let Some(index) = subscript_index(p).filter(|_| is_arg) else {
                break;
            };
            indices.push(index);
            cur = p;
        }
        if indices.len() != n {
            bad = true;
            return false;
        }
        for (k, index) in indices.iter().enumerate() {
            let (Some(open), Some(close)) = (index.prev_sibling(), index.next_sibling()) else {
                bad = true;
                return false;
            };
            if text(open, src) != "[" || text(close, src) != "]" {
                bad = true;
                return false;
            }
            let (open_with, close_with) = match k {
                0 => (format!("[{}(", "(".repeat(n - 1)), ")".to_string()),
                _ => (
                    format!(" * ({}) + (", shape.inner[k - 1]),
                    if k == n - 1 { "))]" } else { "))" }.to_string(),
                ),
            };
            edits.push((open.start_byte(), open.end_byte(), open_with));
            edits.push((close.start_byte(), close.end_byte(), close_with));
        }
        false
    });
    if bad {
        return Err(format!(
            "`{name}` is a {n}-D array the loop uses otherwise than element by element"
        ));
    }
    Ok(edits)
}

/// `d` with an array typedef in its type spelled out: `real3 dr` with `typedef double real3[3]`
/// is `double dr[3]`, and `real3* r` is rows of three, `double r[][3]`, passed flat. `None` when
/// the type is no array typedef, or the result would be more than two dimensions deep or hold a
/// pointer level (which the outliner refuses as it would without the typedef).
pub fn through_array_typedef(d: &VarDecl, macros: &Macros) -> Option<VarDecl> {
    let bare = d.ty.trim_start_matches("struct ").trim();
    let shape = macros.type_shapes.get(bare)?;
    if shape.pointer > 0 || shape.dims.is_empty() || d.vector || !d.dims.is_empty() {
        return None;
    }
    let ty = macros
        .type_aliases
        .get(&shape.base)
        .cloned()
        .unwrap_or_else(|| shape.base.clone());
    let inner = shape.dims.iter().map(|s| Some(s.clone()));
    let base = VarDecl { ty, ..d.clone() };
    match (d.pointer, &d.array_size, shape.dims.len()) {
        (0, None, 1) => Some(VarDecl {
            array_size: shape.dims.first().cloned(),
            ..base
        }),
        (1, None, 1) => Some(VarDecl {
            pointer: 0,
            dims: std::iter::once(None).chain(inner).collect(),
            ..base
        }),
        (0, outer @ Some(_), 1) | (0, outer @ None, 2) => {
            let outer = outer.clone().map(Some);
            Some(VarDecl {
                array_size: None,
                dims: outer.into_iter().chain(inner).collect(),
                ..base
            })
        }
        _ => None,
    }
}
