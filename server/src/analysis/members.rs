//! What the outliner makes of structs: member paths a loop uses (`chunk->u[i]`, `s.n`, and in a
//! member function `x[i]` for `this->x[i]`) become parameters of their own, and a POD struct
//! (scalar and fixed-array fields, nested POD structs) becomes a harness type filled field by
//! field.
//!
//! A path is a parameter only when the loop names its root through paths alone (never the bare
//! object, which a call could change), every step is a field of a struct the file or its headers
//! define (`.` on an object, `->` on a pointer), and the field at its end is a scalar, a flat
//! array or a pointer to scalars. The loop may write the elements a pointer field points to, or
//! the scalar field itself (then it is passed by address like any written scalar); it may not
//! take its address or change a pointer field.

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use super::records::{Field, Record};
use super::region::{RecordField, RegionRecord};
use super::scope::{VarDecl, is_known_scalar};
use super::syntax::{
    Macros, for_each_descendant, parse_int_literal, subscript_index, text, unparen,
};

/// One member path used by the loop, as a parameter.
#[derive(Debug, Clone)]
pub struct MemberPath {
    /// The parameter's name (`chunk_u`, `box_xprd`; a field of `this` keeps its own name).
    pub param: String,
    /// The spellings the analysis knows it by, without spaces (`chunk->u`, `this->x`, `x`).
    pub texts: HashSet<String>,
    /// What to pass where the loop was (`chunk->u`, `box.xprd`).
    pub call_arg: String,
    /// The field at the end, its type resolved to a builtin scalar.
    pub field: Field,
    /// The loop assigns the field itself (a scalar accumulator).
    pub written: bool,
    /// Byte ranges of its occurrences in the loop.
    pub ranges: Vec<(usize, usize)>,
    /// For an element accessor (`domain.x(i)`, passed as `domain_x[i]`): the bytes of the
    /// parentheses around each call's index, which become brackets.
    pub brackets: Vec<(usize, usize)>,
    pub first_byte: usize,
}

impl MemberPath {
    /// A field of rows: a pointer to fixed arrays (`real3* p` with `typedef double real3[3]`) or
    /// a fixed 2-D array. The outliner passes it flat (dims.rs), so it is declared as the 2-D
    /// array it is, its first dimension unknown behind a pointer.
    fn is_rows(&self) -> bool {
        self.field.pointer + self.field.dims.len() > 1
    }

    fn rows_dims(&self) -> Vec<Option<String>> {
        if !self.is_rows() {
            return Vec::new();
        }
        let declared = self.field.dims.iter().map(|d| Some(d.clone()));
        match self.field.pointer {
            0 => declared.collect(),
            _ => std::iter::once(None).chain(declared).collect(),
        }
    }

    /// The declaration the outliner treats the path as.
    pub fn decl(&self) -> VarDecl {
        VarDecl {
            name: self.param.clone(),
            ty: self.field.ty.clone(),
            pointer: if self.is_rows() {
                0
            } else {
                self.field.pointer
            },
            reference: false,
            vector: false,
            array_size: if self.is_rows() {
                None
            } else {
                self.field.dims.first().cloned()
            },
            dims: self.rows_dims(),
            is_const: false,
            is_param: true,
            init: None,
            literal_init: false,
            start_byte: self.first_byte,
        }
    }
}

#[derive(Debug, Default)]
pub struct PathScan {
    pub paths: Vec<MemberPath>,
    /// Ids of the outermost `field_expression` (or implicit-`this` identifier) nodes of each
    /// path occurrence, with the path's parameter.
    pub nodes: HashMap<usize, String>,
    /// Roots passed through paths (their identifiers are not variables of the region).
    pub roots: HashSet<String>,
    /// Why a struct-typed root could not be passed by its paths.
    pub refused: HashMap<String, String>,
}

/// The record a type names, through typedefs and `struct`/`class` keywords; `None` for anything
/// else (a builtin, a pointer typedef, a template).
pub fn record_of<'m>(ty: &str, macros: &'m Macros) -> Option<(String, &'m Record)> {
    let mut t = ty.trim().to_string();
    for _ in 0..8 {
        let bare = t
            .strip_prefix("struct ")
            .or_else(|| t.strip_prefix("class "))
            .or_else(|| t.strip_prefix("union "))
            .unwrap_or(&t)
            .trim()
            .to_string();
        if let Some(r) = macros.records.get(&bare) {
            return Some((bare, r));
        }
        match macros.typedefs.get(&bare) {
            Some(next) if !next.contains('*') && *next != t => t = next.clone(),
            _ => return None,
        }
    }
    None
}

/// A builtin scalar type for `ty` (through `#define` and typedef aliases), if it is one.
pub fn scalar_of(ty: &str, macros: &Macros) -> Option<String> {
    let mut t = ty.trim().to_string();
    for _ in 0..8 {
        if is_known_scalar(&t) {
            return Some(t);
        }
        t = macros.type_aliases.get(&t)?.clone();
    }
    None
}

/// `[(operator, field)]` of a member path, from its root.
type Segments = Vec<(String, String)>;

/// `(root node, [(operator, field)])` of a chain of member accesses on an identifier or `this`.
fn chain_of<'t>(node: Node<'t>, src: &[u8]) -> Option<(Node<'t>, Segments)> {
    let mut segs = Vec::new();
    let mut n = node;
    loop {
        match n.kind() {
            "field_expression" => {
                let field = n.child_by_field_name("field")?;
                if field.kind() != "field_identifier" {
                    return None;
                }
                let op = text(n.child_by_field_name("operator")?, src).to_string();
                segs.push((op, text(field, src).to_string()));
                n = unparen(n.child_by_field_name("argument")?);
            }
            "identifier" | "this" => break,
            // One element of an array of structs at an index the loop leaves alone
            // (`chunks[cc].cg_alphas[ii]`, checked by the caller).
            "subscript_expression"
                if !segs.is_empty()
                    && unparen(n.child_by_field_name("argument")?).kind() == "identifier"
                    && matches!(
                        unparen(subscript_index(n)?).kind(),
                        "identifier" | "number_literal"
                    ) =>
            {
                break;
            }
            _ => return None,
        }
    }
    segs.reverse();
    Some((n, segs))
}

/// The array and index of an element root (`chunks[cc]`).
fn element_root<'t>(root: Node<'t>, src: &[u8]) -> Option<(String, String)> {
    (root.kind() == "subscript_expression").then(|| {
        let array = unparen(root.child_by_field_name("argument")?);
        let index = unparen(subscript_index(root)?);
        Some((text(array, src).to_string(), text(index, src).to_string()))
    })?
}

/// `chunks` of the root `chunks[cc]`.
fn element_array(root: &str) -> Option<&str> {
    root.strip_suffix(']')
        .and_then(|r| r.split_once('['))
        .map(|(a, _)| a)
}

/// Whether the loop assigns, increments or declares `name`.
fn changed_in(node: Node, src: &[u8], name: &str) -> bool {
    let mut changed = false;
    for_each_descendant(node, |n| {
        let target = match n.kind() {
            "init_declarator" => n.child_by_field_name("declarator"),
            _ => super::syntax::assigned_target(n),
        };
        if target.is_some_and(|t| text(unparen(t), src) == name) {
            changed = true;
        }
        !changed
    });
    changed
}

/// The member paths of the loop `node` (see the module comment). `this_class` is the class of a
/// member function the loop is in.
pub fn member_paths(
    node: Node,
    src: &[u8],
    macros: &Macros,
    decl_of: &HashMap<&str, &VarDecl>,
    locals: &HashSet<String>,
    this_class: Option<&Record>,
    skip: impl Fn(Node) -> bool,
) -> Result<PathScan, String> {
    let mut scan = PathScan::default();
    // (node, root name or "this", segments starting from the root's record, implicit this)
    let mut found: Vec<(Node, String, Segments, bool)> = Vec::new();
    let is_this_field = |name: &str| {
        this_class.is_some_and(|c| c.field(name).is_some())
            && !decl_of.contains_key(name)
            && !locals.contains(name)
    };
    let accessors = element_accessor_calls(node, src, macros, decl_of, locals, &skip);
    let accessor_fns: HashSet<usize> = accessors.iter().map(|a| a.function.id()).collect();
    for_each_descendant(node, |n| {
        if skip(n) || accessor_fns.contains(&n.id()) {
            return false;
        }
        // (`parent()` walks down from the file's root: asked only of the nodes it matters for.)
        let outermost = || {
            !n.parent().is_some_and(|p| {
                p.kind() == "field_expression"
                    && p.child_by_field_name("argument").map(|a| a.id()) == Some(n.id())
            })
        };
        if n.kind() == "field_expression" && outermost() {
            if let Some((root, segs)) = chain_of(n, src) {
                if let Some((array, index)) = element_root(root, src) {
                    let invariant = !locals.contains(&index)
                        && !changed_in(node, src, &index)
                        && !locals.contains(&array);
                    if invariant && segs.first().is_some_and(|(op, _)| op == ".") {
                        found.push((n, format!("{array}[{index}]"), segs, false));
                        return false;
                    }
                    return true;
                }
                let name = text(root, src).to_string();
                if root.kind() == "this" {
                    found.push((n, "this".into(), segs, false));
                    return false;
                }
                if is_this_field(&name) {
                    let mut all = vec![("->".to_string(), name)];
                    all.extend(segs);
                    found.push((n, "this".into(), all, true));
                    return false;
                }
                if decl_of.contains_key(name.as_str()) && !locals.contains(&name) {
                    found.push((n, name, segs, false));
                    return false;
                }
            }
            return true;
        }
        if n.kind() == "identifier" && is_this_field(&text(n, src)) {
            let is_callee = n.parent().is_some_and(|p| {
                p.kind() == "call_expression"
                    && p.child_by_field_name("function").map(|f| f.id()) == Some(n.id())
            });
            if !is_callee {
                let name = text(n, src).to_string();
                found.push((n, "this".into(), vec![("->".into(), name)], true));
            }
        }
        true
    });

    // Roots whose every use is a path (checked below) and whose paths all resolve.
    let mut failed: HashMap<String, String> = HashMap::new();
    let mut resolved: Vec<(Node, String, Field, String, String, bool)> = Vec::new();
    for (n, root, segs, implicit) in &found {
        let start = if root == "this" {
            match this_class {
                Some(c) => Ok(c),
                None => Err("`this` outside a member function of a visible class".to_string()),
            }
        } else if let Some(array) = element_array(root) {
            match decl_of.get(array) {
                Some(d)
                    if d.vector
                        || (d.pointer == 1 && d.array_size.is_none())
                        || (d.pointer == 0 && d.array_size.is_some() && d.dims.len() <= 1) =>
                {
                    record_of(&d.ty, macros)
                        .map(|(_, r)| r)
                        .ok_or_else(|| format!("`{}` is not a struct this file defines", d.ty))
                }
                _ => Err(format!("`{array}` is not a flat array of structs")),
            }
        } else {
            let d = decl_of[root.as_str()];
            let via_pointer = segs.first().is_some_and(|(op, _)| op == "->");
            if d.vector || d.array_size.is_some() || d.pointer != usize::from(via_pointer) {
                Err(format!("`{root}` is not one struct"))
            } else {
                record_of(&d.ty, macros)
                    .map(|(_, r)| r)
                    .ok_or_else(|| format!("`{}` is not a struct this file defines", d.ty))
            }
        };
        let walked = start.and_then(|rec| walk(rec, segs, macros));
        match walked {
            Ok(field) => {
                let written = path_written(*n);
                if let Some(why) = written.as_ref().err() {
                    failed.entry(root.clone()).or_insert(why.clone());
                    continue;
                }
                let fields: Vec<&str> = segs.iter().map(|(_, f)| f.as_str()).collect();
                let param = if root == "this" {
                    fields.join("_")
                } else {
                    format!(
                        "{}_{}",
                        element_array(root).unwrap_or(root),
                        fields.join("_")
                    )
                };
                let spelled: String = text(*n, src).split_whitespace().collect();
                let call_arg = if *implicit || root != "this" {
                    spelled.clone()
                } else {
                    spelled.trim_start_matches("this->").to_string()
                };
                resolved.push((
                    *n,
                    root.clone(),
                    field,
                    param,
                    call_arg,
                    written.unwrap_or(false),
                ));
            }
            Err(why) => {
                failed.entry(root.clone()).or_insert(why);
            }
        }
    }
    // One array's elements at two indices would be one parameter: neither is passed.
    let mut element_of: HashMap<&str, &str> = HashMap::new();
    for (_, root, ..) in &resolved {
        let array = element_array(root).unwrap_or(root);
        if let Some(other) = element_of.insert(array, root)
            && other != root
        {
            failed.entry(root.clone()).or_insert(format!(
                "the loop uses `{other}` and `{root}`, two elements of one array"
            ));
            failed
                .entry(other.to_string())
                .or_insert(format!("the loop uses `{other}` and `{root}`"));
        }
    }
    // A root also used on its own (`f(chunk)`, `a[i]`) is not passed by its paths.
    let path_node_ids: HashSet<usize> = found.iter().map(|(n, ..)| n.id()).collect();
    let by_array: HashMap<&str, &str> = resolved
        .iter()
        .filter(|r| r.1 != "this")
        .map(|r| (element_array(&r.1).unwrap_or(&r.1), r.1.as_str()))
        .collect();
    for_each_descendant(node, |n| {
        if path_node_ids.contains(&n.id()) || accessor_fns.contains(&n.id()) || skip(n) {
            return false;
        }
        if n.kind() == "identifier" {
            let name = text(n, src).to_string();
            if let Some(root) = by_array.get(name.as_str()) {
                failed.entry(root.to_string()).or_insert(format!(
                    "the loop uses `{name}` itself, not only its fields"
                ));
            }
        }
        true
    });
    for (root, why) in &failed {
        if root == "this" {
            return Err(format!("a field of `this`: {why}"));
        }
    }
    let mut by_param: Vec<MemberPath> = Vec::new();
    for (n, root, field, param, call_arg, written) in resolved {
        if failed.contains_key(&root) {
            continue;
        }
        if root != "this" && decl_of.contains_key(param.as_str()) {
            return Err(format!(
                "the field path `{call_arg}` would be the parameter `{param}`, a name the function already uses"
            ));
        }
        let spelled: String = text(n, src).split_whitespace().collect();
        let this_spelled = if root == "this" && !spelled.starts_with("this->") {
            Some(format!("this->{spelled}"))
        } else {
            None
        };
        scan.nodes.insert(n.id(), param.clone());
        match by_param.iter_mut().find(|p| p.param == param) {
            Some(p) => {
                p.texts.insert(spelled);
                p.texts.extend(this_spelled);
                p.written |= written;
                p.ranges.push((n.start_byte(), n.end_byte()));
            }
            None => {
                let mut texts: HashSet<String> = HashSet::new();
                texts.insert(spelled);
                texts.extend(this_spelled);
                by_param.push(MemberPath {
                    param,
                    texts,
                    call_arg,
                    field,
                    written,
                    ranges: vec![(n.start_byte(), n.end_byte())],
                    brackets: Vec::new(),
                    first_byte: n.start_byte(),
                });
            }
        }
        if root != "this" {
            scan.roots
                .insert(element_array(&root).unwrap_or(&root).to_string());
        }
    }
    scan.paths = by_param;
    for a in accessors {
        let param = format!("{}_{}", a.root, a.method);
        let taken = || {
            Err(format!(
                "the accessor `{}.{}` would be the parameter `{param}`, a name already used",
                a.root, a.method
            ))
        };
        if decl_of.contains_key(param.as_str()) {
            return taken();
        }
        scan.nodes.insert(a.function.id(), param.clone());
        let range = (a.function.start_byte(), a.function.end_byte());
        let parens = (a.arguments.start_byte(), a.arguments.end_byte() - 1);
        match scan.paths.iter_mut().find(|p| p.param == param) {
            // Another call of the same accessor.
            Some(p) if !p.brackets.is_empty() => {
                p.ranges.push(range);
                p.brackets.push(parens);
            }
            Some(_) => return taken(),
            None => scan.paths.push(MemberPath {
                param,
                texts: HashSet::from([format!("{}.{}", a.root, a.field)]),
                call_arg: format!("&{}.{}(0)", a.root, a.method),
                field: Field::plain(&a.field, &a.elem_ty, 1),
                written: false,
                ranges: vec![range],
                brackets: vec![parens],
                first_byte: a.function.start_byte(),
            }),
        }
    }
    scan.refused = failed;
    deref_paths(node, src, decl_of, locals, &mut scan);
    Ok(scan)
}

/// One call of an element accessor (`domain.x(i)`, `classes.rs` `ClassInfo::elements`).
struct AccessorCall<'t> {
    /// `domain.x`, the callee.
    function: Node<'t>,
    /// `(i)`.
    arguments: Node<'t>,
    root: String,
    method: String,
    field: String,
    /// The element type, a builtin scalar.
    elem_ty: String,
}

/// The element accessor calls of the loop on objects declared outside it, with one index and a
/// scalar element; the region passes each accessor's storage as an array from its element 0.
fn element_accessor_calls<'t>(
    node: Node<'t>,
    src: &[u8],
    macros: &Macros,
    decl_of: &HashMap<&str, &VarDecl>,
    locals: &HashSet<String>,
    skip: &impl Fn(Node) -> bool,
) -> Vec<AccessorCall<'t>> {
    let mut out = Vec::new();
    for_each_descendant(node, |n| {
        if skip(n) {
            return false;
        }
        if n.kind() != "call_expression" {
            return true;
        }
        let found = (|| {
            let c = super::classes::index_call(n, src)?;
            if locals.contains(&c.object) {
                return None;
            }
            let d = decl_of.get(c.object.as_str())?;
            if d.pointer > 0 || d.array_size.is_some() || d.vector {
                return None;
            }
            let (_, class) = super::classes::class_of(&d.ty, macros, None)?;
            let field = class.elements.get(&c.method)?.clone();
            let ret = class
                .methods
                .get(&c.method)?
                .ret
                .trim()
                .trim_start_matches("const ");
            let elem_ty = scalar_of(ret, macros)?;
            Some(AccessorCall {
                function: c.function,
                arguments: c.arguments,
                root: c.object,
                method: c.method,
                field,
                elem_ty,
            })
        })();
        if let Some(a) = found {
            out.push(a);
        }
        true
    });
    out
}

/// A pointer to a pointer the loop only dereferences to subscript (`(*a)[i]` with `double** a`,
/// the out-parameter of an allocating function) is the flat array `*a`: a parameter `a` of one
/// pointer level less, passed as `*a`.
fn deref_paths(
    node: Node,
    src: &[u8],
    decl_of: &HashMap<&str, &VarDecl>,
    locals: &HashSet<String>,
    scan: &mut PathScan,
) {
    // (root, dereference node) of each `*root` used as an array; roots used any other way.
    let mut derefs: Vec<(String, Node)> = Vec::new();
    let mut other: HashSet<String> = HashSet::new();
    for_each_descendant(node, |n| {
        if n.kind() != "identifier" {
            return true;
        }
        let name = text(n, src).to_string();
        let Some(d) = decl_of.get(name.as_str()) else {
            return true;
        };
        if d.pointer < 2 || d.vector || d.array_size.is_some() || locals.contains(&name) {
            return true;
        }
        let deref = n
            .parent()
            .filter(|p| {
                p.kind() == "pointer_expression"
                    && p.child_by_field_name("operator")
                        .is_some_and(|o| text(o, src) == "*")
            })
            .filter(|p| {
                let mut up = p.parent();
                while let Some(u) = up.filter(|u| u.kind() == "parenthesized_expression") {
                    up = u.parent();
                }
                up.is_some_and(|u| {
                    u.kind() == "subscript_expression"
                        && u.child_by_field_name("argument")
                            .is_some_and(|a| unparen(a).id() == p.id())
                })
            });
        match deref {
            Some(p) => derefs.push((name, p)),
            None => {
                other.insert(name);
            }
        }
        true
    });
    for (root, p) in derefs {
        if other.contains(&root)
            || scan.roots.contains(&root)
            || scan.paths.iter().any(|m| m.param == root)
        {
            continue;
        }
        let d = decl_of[root.as_str()];
        scan.nodes.insert(p.id(), root.clone());
        let range = (p.start_byte(), p.end_byte());
        let spelled: String = text(p, src).split_whitespace().collect();
        match scan
            .paths
            .iter_mut()
            .find(|m| m.call_arg == format!("*{root}"))
        {
            Some(m) => {
                m.texts.insert(spelled);
                m.ranges.push(range);
            }
            None => scan.paths.push(MemberPath {
                param: root.clone(),
                texts: HashSet::from([spelled]),
                call_arg: format!("*{root}"),
                field: Field::plain(&root, &d.ty, d.pointer - 1),
                written: false,
                ranges: vec![range],
                brackets: Vec::new(),
                first_byte: d.start_byte,
            }),
        }
        scan.roots.insert(root);
    }
}

/// The field a chain of member accesses ends at, from the record of its root.
fn walk(rec: &Record, segs: &[(String, String)], macros: &Macros) -> Result<Field, String> {
    let mut rec = rec;
    for (k, (_, name)) in segs.iter().enumerate() {
        let f = rec
            .field(name)
            .ok_or_else(|| format!("`{name}` is not a field the struct's definition shows"))?;
        let declared = f;
        let f = &super::records::expand(f, &macros.type_shapes);
        if f.reference || f.bitfield {
            return Err(format!("the field `{name}` is a reference or a bitfield"));
        }
        match segs.get(k + 1) {
            Some((op, _)) => {
                let via_pointer = op == "->";
                if !f.dims.is_empty() || f.pointer != usize::from(via_pointer) {
                    return Err(format!("the field `{name}` is not one struct"));
                }
                rec = record_of(&f.ty, macros).map(|(_, r)| r).ok_or_else(|| {
                    format!("the field `{name}` is not a struct this file defines")
                })?;
            }
            None => {
                // A flat array of plain-data structs (`SpeciesData* species`) is filled like a
                // parameter of that type, field by field.
                let records = f.pointer + f.dims.len() == 1
                    && (f.pointer == 0 || declared.dims.is_empty())
                    && pod_layout(&f.ty, macros).is_ok();
                let ty = scalar_of(&f.ty, macros)
                    .or_else(|| records.then(|| f.ty.clone()))
                    .ok_or_else(|| {
                        format!(
                            "the field `{name}` has type `{}`, which a generated test harness cannot fill",
                            f.ty
                        )
                    })?;
                // Rows travel flat when their inner sizes are constants, which the outliner
                // checks (dims.rs): a fixed 2-D array, or one pointer to fixed arrays (`real3* p`
                // with `typedef double real3[3]`). An array of pointers (`double* a[6]`, whose
                // rows are allocated one by one) or a pointer to pointers never.
                let rows_behind_pointer =
                    declared.pointer == 1 && declared.dims.is_empty() && f.pointer == 1;
                if f.pointer > 0 && !f.dims.is_empty() && !rows_behind_pointer || f.pointer > 1 {
                    return Err(format!(
                        "the field `{name}` is a pointer to pointers or an array of pointers; only flat arrays are outlined"
                    ));
                }
                return Ok(Field { ty, ..f.clone() });
            }
        }
    }
    Err("an empty member path".into())
}

/// Whether the loop assigns the path itself (`s.sum += x`: true); an error where it takes its
/// address or changes a pointer field.
fn path_written(n: Node) -> Result<bool, String> {
    let Some(mut p) = n.parent() else {
        return Ok(false);
    };
    let mut child = n;
    while p.kind() == "parenthesized_expression" {
        child = p;
        match p.parent() {
            Some(q) => p = q,
            None => return Ok(false),
        }
    }
    match p.kind() {
        "assignment_expression"
            if p.child_by_field_name("left").map(|l| l.id()) == Some(child.id()) =>
        {
            Ok(true)
        }
        "update_expression" => Ok(true),
        "pointer_expression"
            if p.child_by_field_name("operator")
                .is_some_and(|o| o.kind() == "&") =>
        {
            Err("the loop takes the address of a field".into())
        }
        _ => Ok(false),
    }
}

/// The layout of a POD struct type for the harness, or why it has none: its scalar leaves, the
/// definitions of it and of the structs inside it (dependency order).
pub fn pod_layout(ty: &str, macros: &Macros) -> Result<(RegionRecord, Vec<String>), String> {
    let (name, _) = record_of(ty, macros)
        .ok_or_else(|| format!("`{ty}` is not a struct this file or its headers define"))?;
    let mut fields = Vec::new();
    let mut defs = Vec::new();
    leaves(&name, macros, "", 0, &mut fields, &mut defs)?;
    if fields.is_empty() {
        return Err(format!("`{name}` has no fields"));
    }
    Ok((
        RegionRecord {
            name: ty.trim().to_string(),
            fields,
        },
        defs,
    ))
}

fn leaves(
    ty: &str,
    macros: &Macros,
    prefix: &str,
    depth: usize,
    out: &mut Vec<RecordField>,
    defs: &mut Vec<String>,
) -> Result<(), String> {
    if depth > 8 {
        return Err(format!("`{ty}` nests structs too deeply"));
    }
    let (name, rec) = record_of(ty, macros)
        .ok_or_else(|| format!("`{ty}` is not a struct this file or its headers define"))?;
    if rec.keyword == "union" {
        return Err(format!("`{name}` is a union"));
    }
    if rec.keyword == "enum" {
        return Err(format!("`{name}` is an enum, not a struct"));
    }
    if rec.has_virtual {
        return Err(format!("`{name}` has virtual methods"));
    }
    if rec.has_methods {
        return Err(format!(
            "`{name}` has methods, constructors or conditional fields (not plain data)"
        ));
    }
    if rec.has_base {
        return Err(format!("`{name}` has a base class"));
    }
    if rec.text.is_empty() {
        return Err(format!(
            "the definition of `{name}` also declares variables; it cannot be copied alone"
        ));
    }
    for f in &rec.fields {
        let f = &super::records::expand(f, &macros.type_shapes);
        let at = format!("{name}::{}", f.name);
        if f.is_static {
            return Err(format!("`{at}` is a static member"));
        }
        if f.bitfield {
            return Err(format!("`{at}` is a bitfield"));
        }
        if f.pointer > 0 || f.reference {
            return Err(format!(
                "`{at}` is a pointer: a harness cannot tell what it points to"
            ));
        }
        let mut count: usize = 1;
        for d in &f.dims {
            let n = parse_int_literal(d)
                .or_else(|| macros.values.get(d).copied())
                .filter(|n| (1..=1 << 20).contains(n))
                .ok_or_else(|| format!("the size of `{at}` (`{d}`) is not a known constant"))?;
            count = count.saturating_mul(n as usize);
        }
        if count > 1 << 20 {
            return Err(format!("`{at}` is too large"));
        }
        let enumeration = record_of(&f.ty, macros).filter(|(_, r)| r.keyword == "enum");
        if let Some(s) = scalar_of(&f.ty, macros) {
            out.push(RecordField {
                path: format!("{prefix}{}", f.name),
                ty: s,
                count,
            });
        } else if let Some((e, rec)) = enumeration {
            // An enum field is filled as its underlying integer; its definition travels along.
            let ty = rec
                .underlying
                .as_deref()
                .and_then(|u| scalar_of(u, macros))
                .filter(|u| is_known_scalar(u) && !u.contains("float") && !u.contains("double"))
                .ok_or_else(|| {
                    format!("the enum `{e}` has an underlying type the harness cannot fill")
                })?;
            if rec.text.is_empty() {
                return Err(format!(
                    "the definition of the enum `{e}` also declares variables; it cannot be copied alone"
                ));
            }
            if !defs.contains(&rec.text) {
                defs.push(rec.text.clone());
            }
            out.push(RecordField {
                path: format!("{prefix}{}", f.name),
                ty,
                count,
            });
        } else if record_of(&f.ty, macros).is_some() {
            if f.dims.len() > 1 || count > 64 {
                return Err(format!("`{at}` is a large or 2-D array of structs"));
            }
            if f.dims.is_empty() {
                leaves(
                    &f.ty,
                    macros,
                    &format!("{prefix}{}.", f.name),
                    depth + 1,
                    out,
                    defs,
                )?;
            } else {
                for k in 0..count {
                    let p = format!("{prefix}{}[{k}].", f.name);
                    leaves(&f.ty, macros, &p, depth + 1, out, defs)?;
                }
            }
        } else {
            return Err(format!(
                "`{at}` has type `{}`, which a generated test harness cannot fill",
                f.ty
            ));
        }
    }
    if !defs.contains(&rec.text) {
        defs.push(rec.text.clone());
    }
    Ok(())
}
