//! Subscripts a loop makes through function-like macros (`tealeaf_SMVP(u)` reading `u[index - x]`
//! and `kx[index + 1]`): the analysis sees the call, not the elements, so an array the loop reaches
//! only through a macro has no subscript to size it by. The outliner expands the macro calls of the
//! loop in a copy of the file, parses it again and reads the loop's array references from there.

use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, Parser};

use super::facts::{ArrayRef, Extractor};
use super::syntax::{
    Macros, for_each_descendant, named_children, strip_comments_and_literals, text,
};

/// Macro calls inside macro expansions are expanded again this many times at most.
const MAX_ROUNDS: usize = 4;

/// The array references of `node` with its function-like macro calls expanded; `None` when it
/// calls none that subscripts anything, or the expansion does not parse back into the loop.
pub fn expanded_array_refs(node: Node, src: &[u8], macros: &Macros) -> Option<Vec<ArrayRef>> {
    let mut edits = macro_call_edits(node, src, macros);
    if edits.is_empty() {
        return None;
    }
    let mut parser = Parser::new();
    parser.set_language(&node.language()).ok()?;
    let (start, mut end) = (node.start_byte(), node.end_byte());
    let mut code = src.to_vec();
    for _ in 0..MAX_ROUNDS {
        // Later edits first, so earlier offsets stay valid.
        for (s, e, with) in edits.into_iter().rev() {
            end = end + with.len() - (e - s);
            code.splice(s..e, with.into_bytes());
        }
        let tree = parser.parse(&code, None)?;
        let expanded = loop_at(tree.root_node(), start, end, node.kind())?;
        if expanded.has_error() {
            return None;
        }
        edits = macro_call_edits(expanded, &code, macros);
        if edits.is_empty() {
            let keyed = HashSet::new();
            let var_types = HashMap::new();
            let ex = Extractor {
                src: &code,
                macros,
                keyed: &keyed,
                var_types: &var_types,
            };
            return Some(ex.loop_facts(expanded).arrays);
        }
    }
    None
}

/// The loop of `kind` spanning exactly `start..end`.
fn loop_at<'t>(root: Node<'t>, start: usize, end: usize, kind: &str) -> Option<Node<'t>> {
    let mut n = root.descendant_for_byte_range(start, end)?;
    loop {
        if n.kind() == kind && n.start_byte() == start && n.end_byte() == end {
            return Some(n);
        }
        n = n.parent()?;
    }
}

/// Replacements of the outermost calls in `node` of function-like macros whose body subscripts.
fn macro_call_edits(node: Node, src: &[u8], macros: &Macros) -> Vec<(usize, usize, String)> {
    let mut edits = Vec::new();
    for_each_descendant(node, |n| {
        if n.kind() != "call_expression" {
            return true;
        }
        let Some(f) = n.child_by_field_name("function") else {
            return true;
        };
        let name = text(f, src);
        let Some(def) = macros.definitions.get(name.as_ref()) else {
            return true;
        };
        let Some(args) = n.child_by_field_name("arguments") else {
            return true;
        };
        let args: Vec<String> = named_children(args)
            .into_iter()
            .filter(|a| a.kind() != "comment")
            .map(|a| text(a, src).to_string())
            .collect();
        match expand(def, &name, &args) {
            Some(body) if body.contains('[') => {
                edits.push((n.start_byte(), n.end_byte(), format!("({body})")));
                false
            }
            _ => true,
        }
    });
    edits
}

/// The body of `#define name(params) body` with each parameter replaced by its argument
/// (parenthesised); `None` for an object-like macro, a variadic one, stringising or pasting, or
/// a count of arguments that does not match.
pub fn expand(def: &str, name: &str, args: &[String]) -> Option<String> {
    let joined = def.replace("\\\r\n", " ").replace("\\\n", " ");
    let d = strip_comments_and_literals(&joined);
    let rest = d
        .trim_start()
        .strip_prefix('#')?
        .trim_start()
        .strip_prefix("define")?
        .trim_start()
        .strip_prefix(name)?
        .strip_prefix('(')?;
    let (params, body) = rest.split_once(')')?;
    if body.contains('#') || params.contains("...") {
        return None;
    }
    let params: Vec<&str> = params
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    if params.len() != args.len() {
        return None;
    }
    let mut out = String::new();
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &body[s..i];
            match params.iter().position(|p| *p == word) {
                Some(k) => {
                    out.push('(');
                    out.push_str(&args[k]);
                    out.push(')');
                }
                None => out.push_str(word),
            }
        } else {
            out.push(c as char);
            i += 1;
        }
    }
    Some(out.trim().to_string())
}
