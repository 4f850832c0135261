//! Small helpers over tree-sitter nodes shared by the analysis passes.

use std::borrow::Cow;
use std::collections::HashMap;

use tree_sitter::Node;

use super::Language;

/// The source text of a node; invalid UTF-8 is replaced, never a panic.
pub fn text<'a>(node: Node, src: &'a [u8]) -> Cow<'a, str> {
    let range = node.byte_range();
    match src.get(range) {
        Some(bytes) => String::from_utf8_lossy(bytes),
        None => Cow::Borrowed(""),
    }
}

pub fn is_loop(kind: &str) -> bool {
    matches!(
        kind,
        "for_statement" | "for_range_loop" | "while_statement" | "do_statement"
    )
}

pub fn line_of(node: Node) -> usize {
    node.start_position().row + 1
}

pub fn end_line_of(node: Node) -> usize {
    let end = node.end_position();
    // A node that ends at column 0 ended on the previous line's newline.
    if end.column == 0 && end.row > node.start_position().row {
        end.row
    } else {
        end.row + 1
    }
}

/// Strips parentheses around an expression.
pub fn unparen(mut node: Node) -> Node {
    while node.kind() == "parenthesized_expression" {
        match node.named_child(0) {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}

/// The index of `a[i]`: tree-sitter-cpp wraps it in an argument list (`indices`), tree-sitter-c
/// names it `index`.
pub fn subscript_index(node: Node) -> Option<Node> {
    match node.child_by_field_name("indices") {
        Some(list) => list.named_child(0),
        None => node.child_by_field_name("index"),
    }
}

pub fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// Preorder traversal of all nodes under `node` (inclusive), without recursion on the Rust stack
/// (deeply nested garbage input must not overflow it).
/// Nodes whose children stand at file level: the file, a namespace, `extern "C"`, and the
/// branches of a preprocessor conditional (single-header libraries keep their implementation
/// behind `#ifdef LIB_IMPLEMENTATION`).
pub fn holds_file_level_items(kind: &str) -> bool {
    matches!(
        kind,
        "translation_unit"
            | "declaration_list"
            | "namespace_definition"
            | "linkage_specification"
            | "preproc_if"
            | "preproc_ifdef"
            | "preproc_else"
            | "preproc_elif"
            | "preproc_elifdef"
    )
}

pub fn for_each_descendant<'t>(node: Node<'t>, mut f: impl FnMut(Node<'t>) -> bool) {
    let mut cursor = node.walk();
    let mut descend = f(cursor.node());
    loop {
        if descend && cursor.goto_first_child() {
            descend = f(cursor.node());
            continue;
        }
        loop {
            if cursor.node() == node {
                return;
            }
            if cursor.goto_next_sibling() {
                descend = f(cursor.node());
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// Object-like macros with an integer value (`#define N 1024`), and every macro's definition line,
/// so an outlined function can carry the macros it uses.
#[derive(Debug, Default, Clone)]
pub struct Macros {
    pub values: HashMap<String, i64>,
    pub definitions: HashMap<String, String>,
    /// Function-like macros whose body has no assignment, increment or statement: safe in a loop.
    pub pure_functions: Vec<String>,
    /// Pure helper functions defined in the file (name, definition), in source order.
    pub helpers: Vec<(String, String)>,
    /// Names the file declares as types (typedefs, structs, classes, enums, macros that expand to
    /// a type): `(T)(x)` and `T(x)` with such a name are casts, not calls.
    pub types: std::collections::HashSet<String>,
    /// Those of them that stand for a builtin type (`DATA_TYPE` → `double`, `real_t` → `float`).
    pub type_aliases: HashMap<String, String>,
    /// Function-like macros whose body is an integer polynomial of their parameters (index
    /// macros: `FTNREF2D(i, j, nx, lx, ly)` → `nx*(j - ly) + i - lx`), parameters named `$0`, `$1`..
    pub function_polys: HashMap<String, (usize, super::poly::Poly)>,
    /// Typedef name → the type it stands for (`Graph` → `CSRGraph<NodeID>`), `*` per pointer.
    pub typedefs: HashMap<String, String>,
    /// Classes and structs with their inline methods judged (`classes.rs`).
    pub classes: HashMap<String, super::classes::ClassInfo>,
    /// Structs, classes and unions with their fields (`records.rs`), for the outliner.
    pub records: HashMap<String, super::records::Record>,
    /// Pointer and array typedefs and aliases (`using Buf = double*`, `typedef double v3[3]`).
    pub type_shapes: HashMap<String, super::records::TypeShape>,
}

/// Builtin type words a macro may expand to (`#define DATA_TYPE double`).
const TYPE_WORDS: &[&str] = &[
    "void",
    "bool",
    "char",
    "short",
    "int",
    "long",
    "float",
    "double",
    "signed",
    "unsigned",
    "const",
    "size_t",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "ptrdiff_t",
    "_Bool",
];

/// Words written like calls that compute nothing at run time.
const OPERATOR_WORDS: &[&str] = &[
    "sizeof",
    "alignof",
    "_Alignof",
    "decltype",
    "typeof",
    "__typeof__",
];

impl Macros {
    /// Whether `name` spells a type: one the file declares, a builtin, or a `_t` name (the C and
    /// POSIX convention for typedefs, which often come from headers the file does not show).
    pub fn is_type_name(&self, name: &str) -> bool {
        let base = name.strip_prefix("std::").unwrap_or(name);
        self.types.contains(name)
            || TYPE_WORDS.contains(&base)
            || (base.ends_with("_t") && base.len() > 2)
    }
}

impl Macros {
    /// Adds what `other` (a header) defines, where this file does not define it itself.
    pub fn absorb(&mut self, other: Macros) {
        for (k, v) in other.values {
            self.values.entry(k).or_insert(v);
        }
        for (k, v) in other.definitions {
            self.definitions.entry(k).or_insert(v);
        }
        for f in other.pure_functions {
            if !self.pure_functions.contains(&f) {
                self.pure_functions.push(f);
            }
        }
        for (name, def) in other.helpers {
            if !self.helpers.iter().any(|(h, _)| *h == name) {
                self.helpers.push((name, def));
            }
        }
        self.types.extend(other.types);
        for (k, v) in other.type_aliases {
            self.type_aliases.entry(k).or_insert(v);
        }
        for (k, v) in other.function_polys {
            self.function_polys.entry(k).or_insert(v);
        }
        for (k, v) in other.typedefs {
            self.typedefs.entry(k).or_insert(v);
        }
        for (k, v) in other.classes {
            self.classes.entry(k).or_insert(v);
        }
        for (k, v) in other.records {
            self.records.entry(k).or_insert(v);
        }
        for (k, v) in other.type_shapes {
            self.type_shapes.entry(k).or_insert(v);
        }
    }

    pub fn collect(root: Node, src: &[u8]) -> Self {
        let mut m = Macros {
            records: super::records::collect(root, src),
            type_shapes: super::records::collect_shapes(root, src),
            ..Macros::default()
        };
        // A file-scope enum's constants are carried like object-like macros: the definition of
        // `N` in `enum { N = 32 };` is the whole enum (the outliner writes each text once).
        for (name, (def, value)) in super::records::collect_enumerators(root, src) {
            if let Some(v) = value {
                m.values.insert(name.clone(), v);
            }
            m.definitions.insert(name, def);
        }
        let mut function_macros: Vec<(String, Node)> = Vec::new();
        let mut cursor = root.walk();
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            match node.kind() {
                "preproc_def" | "preproc_function_def" => {
                    let Some(name) = node.child_by_field_name("name") else {
                        continue;
                    };
                    let name = text(name, src).to_string();
                    let value = node
                        .child_by_field_name("value")
                        .map(|v| text(v, src).trim().to_string())
                        .unwrap_or_default();
                    let def = text(node, src).trim_end().to_string();
                    if node.kind() == "preproc_def" {
                        if let Some(v) = parse_int_literal(&value) {
                            m.values.insert(name.clone(), v);
                        } else if !value.is_empty()
                            && value.split_whitespace().all(|w| TYPE_WORDS.contains(&w))
                        {
                            m.types.insert(name.clone());
                            m.type_aliases.insert(name.clone(), value.clone());
                        }
                    } else {
                        function_macros.push((name.clone(), node));
                    }
                    m.definitions.insert(name, def);
                }
                "type_definition" => {
                    let target = node
                        .child_by_field_name("type")
                        .map(|t| {
                            text(t, src)
                                .split_whitespace()
                                .collect::<Vec<_>>()
                                .join(" ")
                        })
                        .unwrap_or_default();
                    let builtin =
                        !target.is_empty() && target.split(' ').all(|w| TYPE_WORDS.contains(&w));
                    let mut cursor = node.walk();
                    for d in node.children_by_field_name("declarator", &mut cursor) {
                        if let Some(n) = declared_type_name(d, src) {
                            let mut levels = 0;
                            let mut x = Some(d);
                            while let Some(k) = x.filter(|k| k.kind() == "pointer_declarator") {
                                levels += 1;
                                x = k.child_by_field_name("declarator");
                            }
                            m.typedefs.insert(
                                n.clone(),
                                format!("{}{}", squash_type(&node, src), "*".repeat(levels)),
                            );
                            m.types.insert(n.clone());
                            // The outliner carries the typedef along like a macro.
                            m.definitions
                                .insert(n.clone(), text(node, src).trim().to_string());
                            if builtin && matches!(d.kind(), "type_identifier" | "primitive_type") {
                                m.type_aliases.insert(n, target.clone());
                            }
                        }
                    }
                    stack.extend(named_children(node));
                }
                "struct_specifier" | "class_specifier" | "union_specifier" | "enum_specifier" => {
                    if let Some(n) = node.child_by_field_name("name") {
                        m.types.insert(text(n, src).to_string());
                    }
                    stack.extend(named_children(node));
                }
                "function_definition" => {}
                "declaration" => {
                    // File-level `const int N = 512;` is as good as a macro.
                    let t = text(node, src);
                    let is_const = t.trim_start().starts_with("const ")
                        || t.trim_start().starts_with("constexpr ")
                        || t.trim_start().starts_with("static const ");
                    let mut cursor = node.walk();
                    let decls: Vec<Node> = node
                        .children_by_field_name("declarator", &mut cursor)
                        .collect();
                    if is_const && decls.len() == 1 && decls[0].kind() == "init_declarator" {
                        let name = decls[0].child_by_field_name("declarator");
                        let value = decls[0].child_by_field_name("value");
                        if let (Some(name), Some(value)) = (name, value)
                            && name.kind() == "identifier"
                            && let Some(v) = parse_int_literal(&text(value, src))
                        {
                            let name = text(name, src).to_string();
                            m.values.insert(name.clone(), v);
                            m.definitions.insert(name, t.trim().to_string());
                        }
                    }
                }
                _ => {
                    for child in node.named_children(&mut cursor) {
                        stack.push(child);
                    }
                }
            }
        }
        // A function-like macro is pure when its whole body (comments and continuation lines
        // included) has no side-effect token and calls only pure functions or pure macros.
        let bodies: Vec<(String, String, Vec<String>)> = function_macros
            .iter()
            .map(|(name, node)| {
                let params = node
                    .child_by_field_name("parameters")
                    .map(|p| {
                        named_children(p)
                            .iter()
                            .map(|c| text(*c, src).to_string())
                            .collect()
                    })
                    .unwrap_or_default();
                let start = node
                    .child_by_field_name("parameters")
                    .map(|p| p.end_byte())
                    .unwrap_or(node.end_byte());
                let body = String::from_utf8_lossy(&src[start..node.end_byte()]).to_string();
                (name.clone(), strip_comments_and_literals(&body), params)
            })
            .collect();
        for (name, body, params) in &bodies {
            if let Some(p) = macro_poly(body, params, &m.values) {
                m.function_polys.insert(name.clone(), (params.len(), p));
            }
        }
        for _round in 0..4 {
            let mut changed = false;
            for (name, body, params) in &bodies {
                if m.pure_functions.contains(name) || has_side_effect_tokens(body) {
                    continue;
                }
                let calls_ok = called_names(body).iter().all(|c| {
                    OPERATOR_WORDS.contains(&c.as_str())
                        || (!params.contains(c)
                            && (super::facts::is_pure_library_function(c)
                                || m.pure_functions.contains(c)
                                || m.is_type_name(c)))
                });
                if calls_ok {
                    m.pure_functions.push(name.clone());
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        m
    }
}

/// A macro body as an integer polynomial of its parameters (`$0`, `$1`, ..) and of other names.
fn macro_poly(
    body: &str,
    params: &[String],
    values: &HashMap<String, i64>,
) -> Option<super::poly::Poly> {
    use super::poly::Poly;
    let body = body.trim();
    if body.is_empty() || body.len() > 2000 {
        return None;
    }
    let wrapped = format!("long __v = ({body});");
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_cpp::LANGUAGE.into())
        .ok()?;
    let tree = parser.parse(wrapped.as_bytes(), None)?;
    if tree.root_node().has_error() {
        return None;
    }
    let src = wrapped.as_bytes();
    let mut value = None;
    for_each_descendant(tree.root_node(), |n| {
        if value.is_none() && n.kind() == "init_declarator" {
            value = n.child_by_field_name("value");
        }
        value.is_none()
    });
    fn eval(
        n: Node,
        src: &[u8],
        params: &[String],
        values: &HashMap<String, i64>,
        depth: usize,
    ) -> Option<Poly> {
        if depth > 64 {
            return None;
        }
        let n = unparen(n);
        let operand = |field: &str| {
            eval(
                n.child_by_field_name(field)?,
                src,
                params,
                values,
                depth + 1,
            )
        };
        match n.kind() {
            "number_literal" => parse_int_literal(&text(n, src)).map(Poly::constant),
            "identifier" => {
                let name = text(n, src);
                match params.iter().position(|p| *p == name) {
                    Some(k) => Some(Poly::var(&format!("${k}"))),
                    None => Some(
                        values
                            .get(name.as_ref())
                            .map(|v| Poly::constant(*v))
                            .unwrap_or_else(|| Poly::var(&name)),
                    ),
                }
            }
            "binary_expression" => {
                let l = operand("left")?;
                let r = operand("right")?;
                match text(n.child_by_field_name("operator")?, src).as_ref() {
                    "+" => l.add(&r),
                    "-" => l.sub(&r),
                    "*" => l.mul(&r),
                    _ => None,
                }
            }
            "unary_expression" => {
                let a = operand("argument")?;
                match text(n.child_by_field_name("operator")?, src).as_ref() {
                    "-" => a.scale(-1),
                    "+" => Some(a),
                    _ => None,
                }
            }
            _ => None,
        }
    }
    let p = eval(value?, src, params, values, 0)?;
    // Only index arithmetic of the arguments: a constant body is an object, not an index macro.
    p.vars().iter().any(|v| v.starts_with('$')).then_some(p)
}

/// A typedef's target type as written (`CSRGraph<NodeID>`), spaces collapsed.
fn squash_type(node: &Node, src: &[u8]) -> String {
    node.child_by_field_name("type")
        .map(|t| {
            text(t, src)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

/// The type name a typedef's declarator introduces (`T` in `typedef struct {..} *T;`).
fn declared_type_name(mut d: Node, src: &[u8]) -> Option<String> {
    for _ in 0..16 {
        match d.kind() {
            "type_identifier" | "identifier" | "primitive_type" => {
                return Some(text(d, src).to_string());
            }
            _ => {
                d = d
                    .child_by_field_name("declarator")
                    .or_else(|| d.named_child(0))?
            }
        }
    }
    None
}

/// Blanks comments, string and character literals, keeping newlines so lines still count.
pub fn strip_comments_and_literals(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                if b[i] == b'\n' {
                    out.push(b'\n');
                }
                i += 1;
            }
            i += 2;
            out.push(b' ');
        } else if b[i] == b'"' || b[i] == b'\'' {
            let q = b[i];
            i += 1;
            while i < b.len() && b[i] != q {
                if b[i] == b'\\' {
                    i += 1;
                }
                if i < b.len() && b[i] == b'\n' {
                    out.push(b'\n');
                }
                i += 1;
            }
            i += 1;
            out.extend_from_slice(b"\"\"");
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Identifiers directly followed by `(` (after optional spaces).
pub fn called_names(code: &str) -> Vec<String> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b':')
            {
                i += 1;
            }
            let mut j = i;
            while j < bytes.len() && bytes[j] == b' ' {
                j += 1;
            }
            if j < bytes.len() && bytes[j] == b'(' {
                out.push(code[start..i].to_string());
            }
        } else if b.is_ascii_digit() {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

fn has_side_effect_tokens(body: &str) -> bool {
    let stripped = body
        .replace("==", "")
        .replace("!=", "")
        .replace("<=", "")
        .replace(">=", "");
    stripped.contains('=')
        || body.contains("++")
        || body.contains("--")
        || body.contains(';')
        || body.contains("printf")
        || body.contains("<<")
}

/// A line holding nothing but an upper-case macro name between two statements, right before a
/// statement (`OMPFORSCHEDULE` above a `for`: it expands to a `#pragma` or to nothing), is not
/// C++ the parser can read; such lines are blanked (same length, so every position stays).
/// `None` when there is none.
pub fn blank_statement_macros(src: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(src).ok()?;
    let is_macro_line = |l: &str| {
        let t = l.trim();
        t.len() > 2
            && t.starts_with(|c: char| c.is_ascii_uppercase())
            && t.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    };
    let mut out: Option<Vec<u8>> = None;
    let mut start = 0;
    // Every parse passes here: lines are tested by their first character before anything else,
    // and only a candidate looks at its neighbours.
    while start < src.len() {
        let end = memchr::memchr(b'\n', &src[start..]).map_or(src.len(), |i| start + i + 1);
        let line = &text[start..end];
        let first = line.bytes().find(|b| !b.is_ascii_whitespace());
        if first.is_some_and(|b| b.is_ascii_uppercase()) && is_macro_line(line) {
            let prev = text[..start].lines().rev().map(str::trim).find(|l| {
                !l.is_empty() && !l.starts_with("//") && !l.starts_with("/*") && !l.starts_with('*')
            });
            let next = text[end..].lines().map(str::trim).find(|l| !l.is_empty());
            let after_statement =
                prev.is_none_or(|p| p.ends_with([';', '{', '}']) || p.starts_with('#'));
            let before_statement = next.is_some_and(|n| {
                ["for", "while", "do", "if", "{"].iter().any(|k| {
                    n.strip_prefix(k)
                        .is_some_and(|rest| *k == "{" || rest.starts_with([' ', '(', '{', '\t']))
                })
            });
            if after_statement && before_statement {
                let buf = out.get_or_insert_with(|| src.to_vec());
                let len = line.trim_end_matches(['\n', '\r']).len();
                for b in &mut buf[start..start + len] {
                    *b = b' ';
                }
            }
        }
        start = end;
    }
    out
}

/// What `n` assigns or increments: the left side of an assignment, the operand of `++`/`--`.
pub fn assigned_target(n: Node) -> Option<Node> {
    match n.kind() {
        "assignment_expression" => n.child_by_field_name("left"),
        "update_expression" => n.child_by_field_name("argument"),
        _ => None,
    }
}

/// Byte offsets of `ident` in `text` where it stands as a whole identifier.
pub fn whole_words<'t>(text: &'t str, ident: &'t str) -> impl Iterator<Item = usize> + 't {
    let is_ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    text.match_indices(ident).map(|(i, _)| i).filter(move |&i| {
        !is_ident(text[..i].chars().next_back())
            && !is_ident(text[i + ident.len()..].chars().next())
    })
}

/// Whether `ident` occurs in `text` as a whole identifier.
pub fn mentions_word(text: &str, ident: &str) -> bool {
    whole_words(text, ident).next().is_some()
}

/// Integer literal value: decimal, hex, octal, binary, with `'` separators and `uUlL` suffixes.
pub fn parse_int_literal(s: &str) -> Option<i64> {
    let s: String = s.trim().chars().filter(|c| *c != '\'').collect();
    let s = s.trim_end_matches(['u', 'U', 'l', 'L']);
    if s.is_empty() {
        return None;
    }
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        return i64::from_str_radix(hex, 16).ok();
    }
    if let Some(bin) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        return i64::from_str_radix(bin, 2).ok();
    }
    if s.len() > 1 && s.starts_with('0') {
        return i64::from_str_radix(&s[1..], 8).ok();
    }
    s.parse().ok()
}

pub fn parser_language(lang: Language) -> tree_sitter::Language {
    match lang {
        Language::C => tree_sitter_c::LANGUAGE.into(),
        Language::Cpp => tree_sitter_cpp::LANGUAGE.into(),
        Language::Cuda => tree_sitter_cuda::LANGUAGE.into(),
    }
}

/// A loop with what the analysis needs about its surroundings, found in one walk: tree-sitter's
/// `Node::parent` re-descends from the root, which is linear in the file's top-level items, so
/// ancestry is tracked here instead of asked for.
#[derive(Debug, Clone, Copy)]
pub struct LoopSite<'t> {
    pub node: Node<'t>,
    /// Index of the nearest enclosing loop in the returned list.
    pub parent: Option<usize>,
    pub depth: usize,
    /// Nearest enclosing function definition or lambda.
    pub func: Option<Node<'t>>,
    /// The enclosing function is a template.
    pub in_template: bool,
    /// The previous named sibling that is not a comment (a `#pragma` line).
    pub prev_named: Option<Node<'t>>,
}

pub fn loop_sites<'t>(unit: Node<'t>) -> Vec<LoopSite<'t>> {
    let mut sites: Vec<LoopSite<'t>> = Vec::new();
    // Ancestors of the current node, with the site index of those that are loops.
    let mut ancestors: Vec<(Node<'t>, Option<usize>)> = Vec::new();
    // Previous named sibling at each depth.
    let mut prev: Vec<Option<Node<'t>>> = vec![None];
    let mut cursor = unit.walk();
    loop {
        let node = cursor.node();
        let mut site_idx = None;
        if is_loop(node.kind()) {
            let parent = ancestors.iter().rev().find_map(|(_, s)| *s);
            let depth = ancestors.iter().filter(|(_, s)| s.is_some()).count();
            let func_pos = ancestors.iter().rposition(|(a, _)| {
                matches!(a.kind(), "function_definition" | "lambda_expression")
            });
            let func = func_pos.map(|p| ancestors[p].0);
            let in_template = func_pos
                .is_some_and(|p| p > 0 && ancestors[p - 1].0.kind() == "template_declaration");
            sites.push(LoopSite {
                node,
                parent,
                depth,
                func,
                in_template,
                prev_named: prev.last().copied().flatten(),
            });
            site_idx = Some(sites.len() - 1);
        }
        if node.is_named()
            && node.kind() != "comment"
            && let Some(p) = prev.last_mut()
        {
            *p = Some(node);
        }
        if cursor.goto_first_child() {
            ancestors.push((node, site_idx));
            prev.push(None);
            continue;
        }
        loop {
            if cursor.node() == unit {
                return sites;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return sites;
            }
            ancestors.pop();
            prev.pop();
        }
    }
}

/// The operands of a chain of `&&` (parentheses skipped), in order; `n` itself otherwise.
pub fn conjuncts<'t>(n: Node<'t>, src: &[u8], out: &mut Vec<Node<'t>>) {
    let n = unparen(n);
    if n.kind() == "binary_expression"
        && n.child_by_field_name("operator")
            .is_some_and(|o| text(o, src) == "&&")
        && let (Some(l), Some(r)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        )
    {
        conjuncts(l, src, out);
        conjuncts(r, src, out);
        return;
    }
    out.push(n);
}
