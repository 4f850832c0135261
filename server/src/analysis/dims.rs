//! Fixed-size multi-dimensional arrays (`unsigned char data[16][4]`, the parameter
//! `int acol[][NONZER + 1]`): a region passes them flat, as `&a[0][0]` with `R*C` elements, and
//! its body indexes them row-major (`a[i][j]` becomes `a[((i) * (C) + (j))]`). Only arrays whose
//! every dimension after the first is a known constant, used element by element, are flattened.

use tree_sitter::Node;

use super::scope::VarDecl;
use super::syntax::{
    Macros, for_each_descendant, parse_int_literal, subscript_index, text, unparen,
};

/// The shape of a flattened array: its first dimension (when declared) and the others' sizes.
#[derive(Debug, Clone)]
pub struct FlatShape {
    pub outer: Option<String>,
    pub inner: Vec<i64>,
}

impl FlatShape {
    /// Elements of one row (the product of the inner dimensions).
    pub fn row(&self) -> i64 {
        self.inner.iter().product()
    }
}

/// The flat shape of `d`, if it is a fixed multi-dimensional array.
pub fn flat_shape(d: &VarDecl, macros: &Macros) -> Option<FlatShape> {
    let (first, rest) = d.dims.split_first()?;
    let inner = rest
        .iter()
        .map(|s| {
            let s = s.as_deref()?.trim();
            parse_int_literal(s)
                .or_else(|| macros.values.get(s).copied())
                .filter(|n| (1..=1 << 20).contains(n))
        })
        .collect::<Option<Vec<i64>>>()?;
    let shape = FlatShape {
        outer: first.clone().filter(|s| !s.trim().is_empty()),
        inner,
    };
    (shape.row() <= 1 << 20).then_some(shape)
}

/// Edits of `body` that index `name` row-major; `Err` where the array is used otherwise than
/// element by element (a row passed on, the array itself).
pub fn flatten_edits(
    body: Node,
    src: &[u8],
    name: &str,
    shape: &FlatShape,
) -> Result<Vec<(usize, usize, String)>, String> {
    let n = shape.inner.len() + 1;
    let mut edits = Vec::new();
    let mut bad = false;
    for_each_descendant(body, |id| {
        if id.kind() != "identifier" || text(id, src) != name {
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
        true
    });
    if bad {
        return Err(format!(
            "`{name}` is a {n}-D array the loop uses otherwise than element by element"
        ));
    }
    Ok(edits)
}
