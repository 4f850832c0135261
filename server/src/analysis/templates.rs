//! What the outliner makes of templates: a loop inside a function template (or a member of a class
//! template) is outlined like any other when it names none of the template's parameters, since its
//! code then means the same in every instantiation. A value parameter of integral type that the
//! loop only reads as a value (`if (EVFLAG)`, `GHOST_NEWTON || j < n`) means what a read-only
//! integer would: the region takes it as one, and the call site, inside the instantiation, passes
//! it by name. A loop that names any other is refused with that parameter's name: its types or
//! values are only known per instantiation.

use tree_sitter::Node;

use super::syntax::{for_each_descendant, named_children, text};

/// Names of the template parameters in scope at `func` (its own and those of enclosing class
/// templates); `Err` when a parameter's form is not one this reads.
pub fn parameters_in_scope(func: Node, src: &[u8]) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    let mut node = func.parent();
    while let Some(n) = node {
        if n.kind() == "template_declaration"
            && let Some(list) = n.child_by_field_name("parameters")
        {
            for p in named_children(list) {
                if p.kind() == "comment" {
                    continue;
                }
                names.push(parameter_name(p, src).ok_or_else(|| {
                    format!(
                        "the template parameter `{}` has a form the outliner does not read",
                        text(p, src)
                    )
                })?);
            }
        }
        node = n.parent();
    }
    Ok(names)
}

/// `T` of `typename T`, `class T = int`, `typename... Ts`; `N` of `int N`, `int N = 4`.
fn parameter_name(p: Node, src: &[u8]) -> Option<String> {
    let by_field = |f: &str| p.child_by_field_name(f).map(|n| declared_name(n, src));
    match p.kind() {
        "parameter_declaration" | "optional_parameter_declaration" => {
            by_field("declarator").flatten()
        }
        "optional_type_parameter_declaration" => by_field("name").flatten(),
        "type_parameter_declaration" | "variadic_type_parameter_declaration" => named_children(p)
            .into_iter()
            .rfind(|c| c.kind() == "type_identifier")
            .map(|c| text(c, src).to_string()),
        "variadic_parameter_declaration" => by_field("declarator").flatten(),
        _ => None,
    }
}

/// The identifier a declarator declares (`N` of `N`, `&N`, `...Ns`).
fn declared_name(d: Node, src: &[u8]) -> Option<String> {
    if d.kind() == "identifier" {
        return Some(text(d, src).to_string());
    }
    let mut found = None;
    for_each_descendant(d, |n| {
        if found.is_none() && n.kind() == "identifier" {
            found = Some(text(n, src).to_string());
        }
        found.is_none()
    });
    found
}

/// The first of `params` that `node` names (as a type, a value or inside a template argument).
pub fn first_named<'p>(node: Node, src: &[u8], params: &'p [String]) -> Option<&'p String> {
    let mut found = None;
    for_each_descendant(node, |n| {
        if found.is_none()
            && matches!(n.kind(), "identifier" | "type_identifier")
            && let Some(p) = params.iter().find(|p| **p == text(n, src))
        {
            found = Some(p);
        }
        found.is_none()
    });
    found
}

/// The value parameters of integral type in scope at `func` (`int N`, `bool B = true`), with
/// their types.
pub fn integral_value_parameters(func: Node, src: &[u8]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut node = func.parent();
    while let Some(n) = node {
        if n.kind() == "template_declaration"
            && let Some(list) = n.child_by_field_name("parameters")
        {
            for p in named_children(list) {
                if !matches!(
                    p.kind(),
                    "parameter_declaration" | "optional_parameter_declaration"
                ) {
                    continue;
                }
                let ty = p
                    .child_by_field_name("type")
                    .map(|t| text(t, src).to_string())
                    .unwrap_or_default();
                let plain = p
                    .child_by_field_name("declarator")
                    .filter(|d| d.kind() == "identifier");
                if let Some(d) = plain
                    && (ty == "bool" || super::facts::is_integer_type(&ty))
                {
                    out.push((text(d, src).to_string(), ty));
                }
            }
        }
        node = n.parent();
    }
    out
}

/// Whether `node` names `name` only as a value in expressions: never as a type, inside a
/// template argument list, as an array size, or where a constant is required (`if constexpr`,
/// `static_assert`, a `case` label), which a run-time integer could not stand for.
pub fn named_only_as_value(node: Node, src: &[u8], name: &str) -> bool {
    let mut ok = true;
    for_each_descendant(node, |n| {
        if !ok {
            return false;
        }
        match n.kind() {
            "type_identifier" if text(n, src) == name => ok = false,
            "identifier" if text(n, src) == name => {
                let mut up = n.parent();
                while let Some(p) = up {
                    let constant_context = match p.kind() {
                        "template_argument_list"
                        | "array_declarator"
                        | "static_assert_declaration"
                        | "case_statement"
                        | "enumerator"
                        | "bitfield_clause" => true,
                        "if_statement" => named_children(p).first().is_some_and(|_| {
                            let mut c = p.walk();
                            p.children(&mut c).any(|k| k.kind() == "constexpr")
                        }),
                        _ => false,
                    };
                    if constant_context {
                        ok = false;
                        break;
                    }
                    if p.id() == node.id() {
                        break;
                    }
                    up = p.parent();
                }
            }
            _ => {}
        }
        ok
    });
    ok
}
