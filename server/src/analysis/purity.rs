//! Helper functions of the same file that are pure (read only their by-value arguments and locals,
//! call only pure functions): a loop may call them and stay parallel, and an outlined region
//! carries their definitions along.

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use super::facts::{declarator_name, declared_names};
use super::syntax::{
    Macros, for_each_descendant, holds_file_level_items, named_children, text, unparen,
};

/// Pure helpers by name, with their definitions in source order.
pub fn pure_helpers(root: Node, src: &[u8], macros: &Macros) -> Vec<(String, String)> {
    let mut candidates: Vec<(String, Node)> = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        match n.kind() {
            // A helper defined in two branches of a conditional is defined twice and not trusted.
            // `#ifdef __cplusplus` / `extern "C" {` / `#endif` leaves a brace the parser cannot
            // match, and the rest of the file lands in an ERROR node (stb's headers): a function
            // inside it that parses cleanly is still a definition (is_pure refuses any with an
            // error of its own).
            k if holds_file_level_items(k) || k == "ERROR" => {
                stack.extend(named_children(n));
            }
            "function_definition" => {
                if let Some(name) = helper_name(n, src) {
                    candidates.push((name, n));
                }
            }
            _ => {}
        }
    }
    candidates.sort_by_key(|(_, n)| n.start_byte());
    // Names defined more than once (overloads) are not trusted.
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for (name, _) in &candidates {
        *counts.entry(name.as_str()).or_default() += 1;
    }
    let mut pure: HashSet<String> = HashSet::new();
    for _round in 0..4 {
        let mut changed = false;
        for (name, node) in &candidates {
            if pure.contains(name) || counts[name.as_str()] > 1 {
                continue;
            }
            if is_pure(*node, src, macros, &pure) {
                pure.insert(name.clone());
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    candidates
        .iter()
        .filter(|(name, _)| pure.contains(name))
        .map(|(name, node)| (name.clone(), text(*node, src).to_string()))
        .collect()
}

/// A plain free function with by-value scalar parameters and a non-void result.
fn helper_name(func: Node, src: &[u8]) -> Option<String> {
    let ret = func.child_by_field_name("type")?;
    // Templates are never candidates: the walk does not enter `template_declaration`.
    if text(ret, src).trim() == "void" {
        return None;
    }
    let decl = func.child_by_field_name("declarator")?;
    if decl.kind() != "function_declarator" {
        return None;
    }
    let name = decl.child_by_field_name("declarator")?;
    if name.kind() != "identifier" {
        return None;
    }
    let params = decl.child_by_field_name("parameters")?;
    for p in named_children(params) {
        if p.kind() != "parameter_declaration" {
            return None;
        }
        let d = p.child_by_field_name("declarator")?;
        if d.kind() != "identifier" {
            return None;
        }
    }
    Some(text(name, src).to_string())
}

fn is_pure(func: Node, src: &[u8], macros: &Macros, pure: &HashSet<String>) -> bool {
    let Some(body) = func.child_by_field_name("body") else {
        return false;
    };
    let mut locals: HashSet<String> = HashSet::new();
    if let Some(params) = func
        .child_by_field_name("declarator")
        .and_then(|d| d.child_by_field_name("parameters"))
    {
        for p in named_children(params) {
            if let Some(name) = p
                .child_by_field_name("declarator")
                .and_then(|d| declarator_name(d, src))
            {
                locals.insert(name);
            }
        }
    }
    let callees = super::outline::callee_ids(body);
    let mut ok = !func.has_error();
    for_each_descendant(body, |n| {
        if !ok {
            return false;
        }
        match n.kind() {
            "declaration" => {
                if text(n, src).contains("static") {
                    ok = false;
                }
                locals.extend(declared_names(n, src));
            }
            "for_range_loop" => ok = false,
            "qualified_identifier" => {
                // `std::sqrt` as a callee was judged with its call; a qualified global is not pure.
                ok = callees.contains(&n.id());
                return false;
            }
            "assignment_expression" | "update_expression" => {
                let target = n
                    .child_by_field_name("left")
                    .or_else(|| n.child_by_field_name("argument"))
                    .map(unparen);
                ok = target.is_some_and(|t| {
                    t.kind() == "identifier" && locals.contains(text(t, src).as_ref())
                });
            }
            "call_expression" => {
                let f = n
                    .child_by_field_name("function")
                    .map(|f| text(f, src).to_string())
                    .unwrap_or_default();
                ok = super::facts::is_pure_function(&f, macros) || pure.contains(&f);
            }
            "identifier" => {
                let name = text(n, src);
                let is_callee = callees.contains(&n.id());
                ok = is_callee
                    || locals.contains(name.as_ref())
                    || macros.definitions.contains_key(name.as_ref())
                    || in_directive_condition(n);
            }
            "pointer_expression"
            | "field_expression"
            | "subscript_expression"
            | "new_expression"
            | "delete_expression"
            | "throw_statement"
            | "lambda_expression"
            | "asm_statement"
            | "gnu_asm_expression"
            | "goto_statement"
            | "ERROR" => ok = false,
            _ => {}
        }
        ok
    });
    ok
}

/// Whether `n` is part of what an `#if`/`#ifdef`/`#elif` tests (`STB_DXT_USE_ROUNDING_BIAS`): a
/// name the preprocessor reads, not a variable. The branches themselves are judged like the rest
/// of the body, so a helper is pure only when every branch is.
fn in_directive_condition(n: Node) -> bool {
    let mut cur = n;
    while let Some(p) = cur.parent() {
        let tested = match p.kind() {
            "preproc_ifdef" | "preproc_elifdef" => p.child_by_field_name("name"),
            "preproc_if" | "preproc_elif" => p.child_by_field_name("condition"),
            "function_definition" | "compound_statement" => return false,
            _ => None,
        };
        if tested.is_some_and(|t| t.id() == cur.id()) {
            return true;
        }
        cur = p;
    }
    false
}
