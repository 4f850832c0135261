//! Calls of pure function-like macros, expanded the way the preprocessor would: a loop that
//! writes `u[i]` from `NB(u)` with `#define NB(a) (a[i-1] + a[i+1])` reads its neighbours, and
//! only the expansion shows it. Each expansion is parsed once per loop and visited in place of
//! the call; one that cannot be expanded (stringising, pasting, variadic, not an expression) is
//! an unknown call.

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use super::syntax::{Macros, for_each_descendant, named_children, text, unparen};

/// Expansions nest at most this deep (a macro whose body calls another macro).
const MAX_NESTING: usize = 8;
/// Bodies longer than this are not expanded.
const MAX_BODY: usize = 4000;

/// Where a call sits: the text it belongs to (the file or an expansion) and its byte range.
pub type CallKey = (usize, usize, usize);

pub fn key_of(src: &[u8], node: Node) -> CallKey {
    (src.as_ptr() as usize, node.start_byte(), node.end_byte())
}

/// The expansions of the macro calls under one loop.
#[derive(Default)]
pub struct Expansions {
    trees: Vec<(String, Tree)>,
    /// A call → its expansion, or `None` when it cannot be expanded.
    at: HashMap<CallKey, Option<usize>>,
}

impl Expansions {
    /// Expands every call under `node` of a macro the file judged pure, and the calls inside
    /// those expansions.
    pub fn collect(node: Node, src: &[u8], macros: &Macros) -> Expansions {
        let mut e = Expansions::default();
        let mut calls = Vec::new();
        gather_calls(node, src, macros, &mut calls);
        let mut pending: Vec<(CallKey, Option<String>, usize)> =
            calls.into_iter().map(|(k, text)| (k, text, 0)).collect();
        while let Some((key, expansion, depth)) = pending.pop() {
            let Some(expansion) = expansion.filter(|_| depth < MAX_NESTING) else {
                e.at.insert(key, None);
                continue;
            };
            // The tree's offsets are those of the text the collector reads: keep the same bytes.
            let wrapped = format!("({expansion});");
            let Some(tree) = parse_expression(&wrapped) else {
                e.at.insert(key, None);
                continue;
            };
            e.at.insert(key, Some(e.trees.len()));
            e.trees.push((wrapped, tree));
            let (text, tree) = e.trees.last().expect("just pushed");
            let mut inner = Vec::new();
            gather_calls(tree.root_node(), text.as_bytes(), macros, &mut inner);
            pending.extend(inner.into_iter().map(|(k, t)| (k, t, depth + 1)));
        }
        e
    }

    /// Whether the call at `key` is a macro call this loop expanded (or failed to).
    pub fn get(&self, key: CallKey) -> Option<Option<(&str, Node<'_>)>> {
        let slot = self.at.get(&key)?;
        Some(slot.map(|i| {
            let (text, tree) = &self.trees[i];
            (text.as_str(), expression_of(tree.root_node()))
        }))
    }
}

/// The calls under `node` of pure function-like macros with their expansions.
fn gather_calls(node: Node, src: &[u8], macros: &Macros, out: &mut Vec<(CallKey, Option<String>)>) {
    for_each_descendant(node, |n| {
        if n.kind() == "call_expression"
            && let Some(f) = n.child_by_field_name("function").map(unparen)
            && f.kind() == "identifier"
        {
            let name = text(f, src);
            if let Some(expansion) = expansion_of(&name, n, src, macros) {
                out.push((key_of(src, n), expansion));
            }
        }
        true
    });
}

/// For a call of a pure function-like macro (not an index macro, which subscripts read as a
/// polynomial already): `Some(expansion)`, or `Some(None)` when it cannot be expanded.
fn expansion_of(name: &str, call: Node, src: &[u8], macros: &Macros) -> Option<Option<String>> {
    if !macros.pure_functions.iter().any(|m| m == name) || macros.function_polys.contains_key(name)
    {
        return None;
    }
    let def = macros.definitions.get(name)?;
    let Some((params, body)) = function_macro(def) else {
        return Some(None);
    };
    let args: Vec<String> = call
        .child_by_field_name("arguments")
        .map(|a| {
            named_children(a)
                .into_iter()
                .filter(|c| c.kind() != "comment")
                .map(|c| text(c, src).to_string())
                .collect()
        })
        .unwrap_or_default();
    Some(substitute(&params, &body, &args))
}

/// `#define NAME(a, b) body` → the parameters and the body (continuation lines joined, comments
/// removed). `None` for an object-like or variadic macro.
pub fn function_macro(def: &str) -> Option<(Vec<String>, String)> {
    let rest = def.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("define")?.trim_start();
    let name_end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let rest = rest[name_end..].strip_prefix('(')?;
    let close = rest.find(')')?;
    let params: Vec<String> = rest[..close]
        .split(',')
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect();
    if params.iter().any(|p| p.contains("...")) {
        return None;
    }
    let body = rest[close + 1..]
        .replace("\\\r\n", " ")
        .replace("\\\n", " ");
    let body = super::syntax::strip_comments_and_literals(&body);
    if body.len() > MAX_BODY {
        return None;
    }
    Some((params, body.trim().to_string()))
}

/// The body with each parameter token replaced by its argument, as the preprocessor does it.
pub fn substitute(params: &[String], body: &str, args: &[String]) -> Option<String> {
    if args.len() != params.len() || body.contains('#') {
        return None;
    }
    let bytes = body.as_bytes();
    let mut out = String::with_capacity(body.len() * 2);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &body[start..i];
            match params.iter().position(|p| p == word) {
                Some(k) => out.push_str(&args[k]),
                None => out.push_str(word),
            }
        } else if b.is_ascii_digit() {
            // A number's suffix (`1.0f`, `0x1F`) is not a parameter.
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                i += 1;
            }
            out.push_str(&body[start..i]);
        } else {
            let start = i;
            i += 1;
            while i < bytes.len() && !bytes[i].is_ascii_alphanumeric() && bytes[i] != b'_' {
                i += 1;
            }
            out.push_str(&body[start..i]);
        }
    }
    Some(out)
}

/// `(expansion);` parsed; `None` when it is not one expression statement.
fn parse_expression(wrapped: &str) -> Option<Tree> {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_cpp::LANGUAGE.into())
        .ok()?;
    let tree = parser.parse(wrapped.as_bytes(), None)?;
    let root = tree.root_node();
    let ok = !root.has_error()
        && root.named_child_count() == 1
        && root
            .named_child(0)
            .is_some_and(|s| s.kind() == "expression_statement");
    ok.then_some(tree)
}

fn expression_of(root: Node) -> Node {
    root.named_child(0)
        .and_then(|s| s.named_child(0))
        .unwrap_or(root)
}
