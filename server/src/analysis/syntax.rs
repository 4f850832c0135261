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
}

impl Macros {
    pub fn collect(root: Node, src: &[u8]) -> Self {
        let mut m = Macros::default();
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
                        }
                    } else if !has_side_effect_tokens(&value) {
                        m.pure_functions.push(name.clone());
                    }
                    m.definitions.insert(name, def);
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
        m
    }
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
