//! Calls of function-like macros, expanded the way the preprocessor would. Only the expansion
//! shows what a call reads: `u[i] = NB(u)` with `#define NB(a) (a[i-1] + a[i+1])` reads its
//! neighbours, and TeaLeaf's `tealeaf_SMVP(u)` subscripts `u[index - x]` and `kx[index + 1]`,
//! arrays the outliner must size although the loop never names an element of them.
//!
//! One expander, two readers: the dependence analysis parses each expansion of a pure macro once
//! per loop and visits it in place of the call ([`Expansions`]); the outliner reads the array
//! references of the loop with every subscripting macro call expanded ([`expanded_array_refs`]).
//! A call that cannot be expanded (stringising, pasting, variadic, not one expression, a count of
//! arguments that does not match) is an unknown call to the first and no subscript to the second.

use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, Parser, Tree};

use super::facts::{ArrayRef, Extractor};
use super::syntax::{
    Macros, for_each_descendant, named_children, strip_comments_and_literals, text, unparen,
};

/// Expansions nest at most this deep (a macro whose body calls another macro).
const MAX_NESTING: usize = 8;
/// Bodies longer than this are not expanded.
const MAX_BODY: usize = 4000;

/// `#define NAME(a, b) body`: the parameters and the body, continuation lines joined and comments
/// removed.
pub struct FunctionMacro {
    pub params: Vec<String>,
    pub body: String,
}

impl FunctionMacro {
    /// `None` for an object-like macro, a variadic one, or a body too long to expand.
    pub fn parse(def: &str) -> Option<FunctionMacro> {
        let rest = def.trim_start().strip_prefix('#')?.trim_start();
        let rest = rest.strip_prefix("define")?.trim_start();
        let name_end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        // `#define F (x)` is object-like: the parameter list must touch the name.
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
        let body = strip_comments_and_literals(&body);
        if body.len() > MAX_BODY {
            return None;
        }
        Some(FunctionMacro {
            params,
            body: body.trim().to_string(),
        })
    }

    /// The body with each parameter token replaced by its argument's text, as the preprocessor
    /// does it (no parentheses added: `M(i+1)` with body `a[x*2]` reads `a[i+1*2]`, as g++ does).
    /// `None` for stringising or pasting, or a count of arguments that does not match.
    pub fn expand(&self, args: &[String]) -> Option<String> {
        if args.len() != self.params.len() || self.body.contains('#') {
            return None;
        }
        let body = self.body.as_str();
        let bytes = body.as_bytes();
        let mut out = String::with_capacity(body.len() * 2);
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            let start = i;
            if b.is_ascii_alphabetic() || b == b'_' {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let word = &body[start..i];
                match self.params.iter().position(|p| p == word) {
                    Some(k) => out.push_str(&args[k]),
                    None => out.push_str(word),
                }
            } else if b.is_ascii_digit() {
                // A number's suffix (`1.0f`, `0x1F`) is not a parameter.
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                    i += 1;
                }
                out.push_str(&body[start..i]);
            } else {
                i += 1;
                while i < bytes.len() && !bytes[i].is_ascii_alphanumeric() && bytes[i] != b'_' {
                    i += 1;
                }
                out.push_str(&body[start..i]);
            }
        }
        Some(out)
    }
}

/// The arguments of a call, as written.
fn call_args(call: Node, src: &[u8]) -> Vec<String> {
    call.child_by_field_name("arguments")
        .map(|a| {
            named_children(a)
                .into_iter()
                .filter(|c| c.kind() != "comment")
                .map(|c| text(c, src).to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The expansion of a call of the macro `name` defined in the file: `None` when `name` is no macro
/// of the file, `Some(None)` when it is one that cannot be expanded.
fn expand_call(name: &str, call: Node, src: &[u8], macros: &Macros) -> Option<Option<String>> {
    let def = macros.definitions.get(name)?;
    Some(FunctionMacro::parse(def).and_then(|m| m.expand(&call_args(call, src))))
}

/// Where a call sits: the text it belongs to (the file or an expansion) and its byte range.
pub type CallKey = (usize, usize, usize);

pub fn key_of(src: &[u8], node: Node) -> CallKey {
    (src.as_ptr() as usize, node.start_byte(), node.end_byte())
}

/// The expansions of the pure macro calls under one loop, for the dependence analysis.
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
        gather_pure_calls(node, src, macros, &mut calls);
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
            gather_pure_calls(tree.root_node(), text.as_bytes(), macros, &mut inner);
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

/// The calls under `node` of pure function-like macros with their expansions; index macros are
/// left out, since subscripts read them as a polynomial already.
fn gather_pure_calls(
    node: Node,
    src: &[u8],
    macros: &Macros,
    out: &mut Vec<(CallKey, Option<String>)>,
) {
    for_each_descendant(node, |n| {
        if n.kind() == "call_expression"
            && let Some(f) = n.child_by_field_name("function").map(unparen)
            && f.kind() == "identifier"
        {
            let name = text(f, src);
            if macros.pure_functions.iter().any(|m| *m == name)
                && !macros.function_polys.contains_key(name.as_ref())
                && let Some(expansion) = expand_call(&name, n, src, macros)
            {
                out.push((key_of(src, n), expansion));
            }
        }
        true
    });
}

/// `(expansion);` parsed; `None` when it is not one expression statement.
fn parse_expression(wrapped: &str) -> Option<Tree> {
    let mut parser = Parser::new();
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

/// Macro calls inside macro expansions are expanded again this many times at most, for the
/// outliner (each round re-parses the file).
const MAX_ROUNDS: usize = 4;

/// The array references of `node` with its function-like macro calls expanded in a copy of the
/// file, for the outliner; `None` when it calls none that subscripts anything, or the expansion
/// does not parse back into the loop.
pub fn expanded_array_refs(node: Node, src: &[u8], macros: &Macros) -> Option<Vec<ArrayRef>> {
    let mut edits = subscripting_call_edits(node, src, macros);
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
        edits = subscripting_call_edits(expanded, &code, macros);
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

/// Replacements of the outermost calls in `node` of function-like macros whose expansion
/// subscripts, pure or not: the outliner only reads which elements they reach.
fn subscripting_call_edits(node: Node, src: &[u8], macros: &Macros) -> Vec<(usize, usize, String)> {
    let mut edits = Vec::new();
    for_each_descendant(node, |n| {
        if n.kind() != "call_expression" {
            return true;
        }
        let Some(f) = n.child_by_field_name("function") else {
            return true;
        };
        match expand_call(&text(f, src), n, src, macros) {
            Some(Some(body)) if body.contains('[') => {
                edits.push((n.start_byte(), n.end_byte(), format!("({})", body.trim())));
                false
            }
            _ => true,
        }
    });
    edits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_replace_whole_parameter_tokens_only() {
        let m = FunctionMacro::parse("#define AXPY(a, x, ax) (a * x[i] + ax + 1.0f)").unwrap();
        assert_eq!(m.params, ["a", "x", "ax"]);
        assert_eq!(
            m.expand(&["2".into(), "v".into(), "w".into()]).as_deref(),
            Some("(2 * v[i] + w + 1.0f)")
        );
    }

    #[test]
    fn arguments_are_pasted_verbatim_as_the_preprocessor_does() {
        let m = FunctionMacro::parse("#define AT(k) a[k * 2]").unwrap();
        assert_eq!(m.expand(&["i + 1".into()]).as_deref(), Some("a[i + 1 * 2]"));
    }

    #[test]
    fn continuation_lines_are_joined_and_comments_dropped() {
        let m = FunctionMacro::parse("#define SUM(a) (a[0] + /* left */ \\\n a[1])").unwrap();
        assert!(!m.body.contains("left") && !m.body.contains('\\'));
        assert_eq!(
            m.expand(&["u".into()])
                .as_deref()
                .map(|s| s.replace(' ', "")),
            Some("(u[0]+u[1])".into())
        );
    }

    #[test]
    fn what_cannot_be_expanded_is_refused() {
        assert!(
            FunctionMacro::parse("#define N 10").is_none(),
            "object-like"
        );
        assert!(
            FunctionMacro::parse("#define F (x) x").is_none(),
            "object-like with parentheses"
        );
        assert!(
            FunctionMacro::parse("#define LOG(...) printf(__VA_ARGS__)").is_none(),
            "variadic"
        );
        let paste = FunctionMacro::parse("#define CAT(a, b) a##b").unwrap();
        assert!(paste.expand(&["x".into(), "y".into()]).is_none(), "pasting");
        let two = FunctionMacro::parse("#define ADD(a, b) (a + b)").unwrap();
        assert!(two.expand(&["x".into()]).is_none(), "too few arguments");
    }
}
