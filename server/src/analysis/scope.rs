//! The variables a loop can see: parameters and locals of its enclosing function, with their types
//! as far as an outlined function needs them.

use tree_sitter::Node;

use super::facts::{declarator_name, is_integer_type};
use super::syntax::{for_each_descendant, named_children, text, unparen};

#[derive(Debug, Clone)]
pub struct VarDecl {
    pub name: String,
    /// Element type for arrays, pointers and vectors; the type itself for scalars.
    pub ty: String,
    pub pointer: usize,
    pub reference: bool,
    pub vector: bool,
    /// `T a[N]`: the `N`.
    pub array_size: Option<String>,
    /// `T a[R][C]` (or the parameter `T a[][C]`): every dimension, outermost first, `None` where
    /// the declaration gives no size; empty unless there are two or more and no pointer level.
    pub dims: Vec<Option<String>>,
    pub is_const: bool,
    pub is_param: bool,
    /// Initializer text (`= value`), or the constructor's first argument for vectors.
    pub init: Option<String>,
    /// The initializer is a literal (number, or arithmetic on numbers).
    pub literal_init: bool,
    pub start_byte: usize,
}

impl VarDecl {
    /// A read-only scalar parameter the outliner adds (a global passed in, a hoisted bound, an
    /// array's size).
    pub fn scalar_param(name: &str, ty: &str, start_byte: usize) -> VarDecl {
        VarDecl {
            name: name.to_string(),
            ty: ty.to_string(),
            pointer: 0,
            reference: false,
            vector: false,
            array_size: None,
            dims: Vec::new(),
            is_const: true,
            is_param: true,
            init: None,
            literal_init: false,
            start_byte,
        }
    }

    pub fn is_array(&self) -> bool {
        self.vector || self.pointer == 1 || self.array_size.is_some()
    }

    pub fn is_integer(&self) -> bool {
        !self.is_array() && self.pointer == 0 && is_integer_type(&self.ty)
    }

    pub fn elem_size(&self) -> f64 {
        elem_size(&self.ty)
    }
}

pub fn elem_size(ty: &str) -> f64 {
    let t = ty.trim_start_matches("std::");
    match t {
        "double" | "long" | "long long" | "unsigned long" | "unsigned long long" | "size_t"
        | "int64_t" | "uint64_t" | "ptrdiff_t" | "long int" | "long long int" | "intptr_t"
        | "uintptr_t" | "ssize_t" => 8.0,
        "long double" => 16.0,
        "short" | "unsigned short" | "int16_t" | "uint16_t" | "half" | "__half" => 2.0,
        "char" | "unsigned char" | "signed char" | "bool" | "int8_t" | "uint8_t" => 1.0,
        _ => 4.0,
    }
}

/// Types a generated test harness can fill with values.
pub fn is_known_scalar(ty: &str) -> bool {
    is_integer_type(ty)
        || matches!(
            ty.trim_start_matches("std::"),
            "float" | "double" | "long double" | "bool"
        )
}

pub fn function_name(func: Node, src: &[u8]) -> Option<String> {
    let mut d = func.child_by_field_name("declarator")?;
    for _ in 0..16 {
        match d.kind() {
            "function_declarator" => {
                let name = d.child_by_field_name("declarator")?;
                return Some(text(name, src).to_string());
            }
            "pointer_declarator" | "reference_declarator" => {
                d = d
                    .child_by_field_name("declarator")
                    .or_else(|| d.named_child(0))?;
            }
            _ => return None,
        }
    }
    None
}

pub fn function_params<'t>(func: Node<'t>) -> Vec<Node<'t>> {
    let mut d = func.child_by_field_name("declarator");
    for _ in 0..16 {
        let Some(n) = d else { break };
        if n.kind() == "function_declarator" || n.kind() == "abstract_function_declarator" {
            return n
                .child_by_field_name("parameters")
                .map(named_children)
                .unwrap_or_default();
        }
        d = n
            .child_by_field_name("declarator")
            .or_else(|| n.named_child(0));
    }
    Vec::new()
}

/// Parameters and locals declared before `before` (byte offset) among `all` (from
/// [`function_vars`]); a later declaration of the same name wins (the nearest one in scope,
/// approximately).
pub fn visible_at(all: &[VarDecl], before: usize) -> Vec<VarDecl> {
    let mut vars: Vec<VarDecl> = Vec::new();
    for v in all.iter().filter(|v| v.is_param || v.start_byte < before) {
        vars.retain(|x| x.name != v.name);
        vars.push(v.clone());
    }
    vars
}

/// Every parameter and local of a function (outside nested lambdas), in source order.
pub fn function_vars(func: Node, src: &[u8]) -> Vec<VarDecl> {
    visible_vars(func, usize::MAX, src)
}

fn visible_vars(func: Node, before: usize, src: &[u8]) -> Vec<VarDecl> {
    let mut vars: Vec<VarDecl> = Vec::new();
    for p in function_params(func) {
        if matches!(
            p.kind(),
            "parameter_declaration" | "optional_parameter_declaration"
        ) && let Some(d) = p.child_by_field_name("declarator")
            && let Some(v) = var_decl(p, d, true, src)
        {
            vars.push(v);
        }
    }
    if let Some(body) = func.child_by_field_name("body") {
        for_each_descendant(body, |n| {
            if n.start_byte() >= before || n.kind() == "lambda_expression" {
                return false;
            }
            if n.kind() == "declaration" {
                let mut cursor = n.walk();
                let decls: Vec<Node> = n
                    .children_by_field_name("declarator", &mut cursor)
                    .collect();
                for d in decls {
                    if let Some(v) = var_decl(n, d, false, src) {
                        vars.push(v);
                    }
                }
                return false;
            }
            true
        });
    }
    vars
}

/// Variables declared at file scope (inside preprocessor branches too), for loops that use
/// globals: an outlined function takes them as parameters. A name declared more than once
/// (`#if` branches) is kept only when the declarations agree on its shape (one scalar type, or
/// flat arrays of one element type, then without a fixed size).
pub fn file_globals(root: Node, src: &[u8]) -> Vec<VarDecl> {
    let mut all: Vec<VarDecl> = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "translation_unit" | "preproc_if" | "preproc_ifdef" | "preproc_else"
            | "preproc_elif" | "preproc_elifdef" => stack.extend(named_children(n)),
            "declaration" => {
                let t = text(n, src);
                if t.trim_start().starts_with("extern") || t.trim_start().starts_with("typedef") {
                    continue;
                }
                let mut cursor = n.walk();
                let decls: Vec<Node> = n
                    .children_by_field_name("declarator", &mut cursor)
                    .collect();
                for d in decls {
                    if let Some(v) = var_decl(n, d, false, src) {
                        all.push(v);
                    }
                }
            }
            _ => {}
        }
    }
    all.sort_by_key(|v| v.start_byte);
    let mut out: Vec<VarDecl> = Vec::new();
    let mut ambiguous: Vec<String> = Vec::new();
    for v in all {
        if ambiguous.contains(&v.name) {
            continue;
        }
        let Some(prev) = out.iter_mut().find(|p| p.name == v.name) else {
            out.push(v);
            continue;
        };
        let flat = |d: &VarDecl| {
            !d.vector
                && !d.reference
                && ((d.pointer == 1 && d.array_size.is_none())
                    || (d.pointer == 0 && d.array_size.is_some()))
        };
        let scalar =
            |d: &VarDecl| !d.vector && !d.reference && d.pointer == 0 && d.array_size.is_none();
        if prev.ty == v.ty && flat(prev) && flat(&v) {
            if prev.array_size != v.array_size || prev.pointer != v.pointer {
                prev.pointer = 1;
                prev.array_size = None;
                prev.init = None;
                prev.literal_init = false;
            }
        } else if !(prev.ty == v.ty && scalar(prev) && scalar(&v) && prev.init == v.init) {
            ambiguous.push(v.name.clone());
            out.retain(|p| p.name != v.name);
        }
    }
    out
}

fn var_decl(decl: Node, declarator: Node, is_param: bool, src: &[u8]) -> Option<VarDecl> {
    let name = declarator_name(declarator, src)?;
    let ty_node = decl.child_by_field_name("type")?;
    let mut ty: String = text(ty_node, src)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let mut is_const = ty.starts_with("const ");
    ty = ty.trim_start_matches("const ").to_string();
    let mut cursor = decl.walk();
    for child in decl.children(&mut cursor) {
        if child.kind() == "type_qualifier" && text(child, src) == "const" {
            is_const = true;
        }
    }
    let mut v = VarDecl {
        name,
        ty: ty.clone(),
        pointer: 0,
        reference: false,
        vector: false,
        array_size: None,
        dims: Vec::new(),
        is_const,
        is_param,
        init: None,
        literal_init: false,
        start_byte: declarator.start_byte(),
    };
    let squashed: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    for prefix in ["std::vector<", "vector<"] {
        if let Some(inner) = squashed
            .strip_prefix(prefix)
            .and_then(|r| r.strip_suffix('>'))
            && !inner.contains(',')
        {
            v.vector = true;
            let raw = text(ty_node, src);
            let open = raw.find('<').unwrap_or(0);
            let close = raw.rfind('>').unwrap_or(raw.len());
            v.ty = raw
                .get(open + 1..close)
                .unwrap_or(inner)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .trim_start_matches("const ")
                .to_string();
        }
    }
    let mut d = declarator;
    let mut saw_pointer = false;
    for _ in 0..32 {
        match d.kind() {
            "init_declarator" => {
                if let Some(value) = d.child_by_field_name("value") {
                    if value.kind() == "argument_list" {
                        v.init = value.named_child(0).map(|a| text(a, src).to_string());
                    } else {
                        v.literal_init = is_literal(value, src);
                        v.init = Some(text(value, src).to_string());
                    }
                }
                d = match d.child_by_field_name("declarator") {
                    Some(x) => x,
                    None => break,
                };
            }
            "pointer_declarator" => {
                v.pointer += 1;
                saw_pointer = true;
                d = match d.child_by_field_name("declarator") {
                    Some(x) => x,
                    None => break,
                };
            }
            "reference_declarator" => {
                v.reference = true;
                d = match d.named_child(0) {
                    Some(x) => x,
                    None => break,
                };
            }
            "array_declarator" => {
                v.dims.insert(
                    0,
                    d.child_by_field_name("size")
                        .map(|z| text(z, src).to_string()),
                );
                match d.child_by_field_name("size") {
                    // `T a[N][M]`: a second dimension (not flat; the outliner refuses it).
                    Some(_) if v.array_size.is_some() => v.pointer += 1,
                    Some(size) if !is_param => v.array_size = Some(text(size, src).to_string()),
                    _ => v.pointer += 1,
                }
                d = match d.child_by_field_name("declarator") {
                    Some(x) => x,
                    None => break,
                };
            }
            "parenthesized_declarator" => {
                d = match d.named_child(0) {
                    Some(x) => x,
                    None => break,
                };
            }
            "function_declarator" => {
                // `std::vector<float> x(n);` can parse as a function declaration: treat the
                // "parameter" as the constructor argument.
                if v.vector {
                    if let Some(params) = d.child_by_field_name("parameters") {
                        let t = text(params, src);
                        let inner = t.trim().trim_start_matches('(').trim_end_matches(')');
                        v.init = inner.split(',').next().map(|s| s.trim().to_string());
                    }
                    d = match d.child_by_field_name("declarator") {
                        Some(x) => x,
                        None => break,
                    };
                } else {
                    return None;
                }
            }
            _ => break,
        }
    }
    if saw_pointer || v.dims.len() < 2 {
        v.dims.clear();
    }
    Some(v)
}

fn is_literal(node: Node, src: &[u8]) -> bool {
    let node = unparen(node);
    match node.kind() {
        "number_literal" | "true" | "false" => true,
        "unary_expression" | "binary_expression" => {
            let mut ok = true;
            for_each_descendant(node, |n| {
                if n.kind() == "identifier" || n.kind() == "call_expression" {
                    ok = false;
                }
                ok
            });
            ok && !text(node, src).is_empty()
        }
        _ => false,
    }
}
