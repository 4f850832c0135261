//! Classes and structs the file and its headers define, with what each inline method does: a loop
//! may call a method that writes nothing (`g.num_nodes()`, `g.out_degree(v)` on a graph the loop
//! does not change) and stay parallel, and may iterate over an object such a method returns
//! (`for (int v : g.neighbours(u))`) when the object's `begin`/`end` and its iterator's operators
//! touch nothing but the object itself.
//!
//! A method is judged by its body: it reads only its parameters, its locals and the fields of its
//! class (no globals, which the loop might write), writes only its locals (`ReadOnly`) or also its
//! own fields (`OwnFields`, what an iterator's `++` or a constructor does), and calls only pure
//! functions, methods of its class and constructors of such classes. Anything else, a method that
//! is only declared, or a name defined twice, is `Other`: not callable from a parallel loop.

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use super::facts::declarator_name;
use super::syntax::{Macros, for_each_descendant, named_children, text, unparen};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Effect {
    ReadOnly,
    OwnFields,
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Method {
    pub effect: Effect,
    /// The declared result type, `*` appended per pointer level.
    pub ret: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassInfo {
    /// By name (`operator*`, the class name for constructors); overloads are merged into the
    /// worst effect of them all.
    pub methods: HashMap<String, Method>,
    /// Typedefs declared inside the class (`typedef T* iterator;`).
    pub typedefs: HashMap<String, String>,
    /// `T` of a `template <typename T>` class that is a flat array of `T`s, as `std::vector` is:
    /// every `operator[]` returns `p[i]` and every `data()` returns `p`, for one field `p`. A
    /// variable of it is passed like a vector, by `data()`.
    pub element: Option<String>,
    /// Element accessors: a method of one parameter that returns `f[i]` for that parameter `i`
    /// and a pointer, fixed-array or `std::vector` field `f` (LULESH's `Real_t& x(Index_t i)
    /// { return m_x[i]; }`), by method name, with that field.
    pub elements: HashMap<String, String>,
}

/// The classes of a tree whose name is defined once, with their methods judged (knowing the
/// classes `context` already holds, from the headers).
pub fn collect(
    root: Node,
    src: &[u8],
    macros: &Macros,
    context: &HashMap<String, ClassInfo>,
) -> HashMap<String, ClassInfo> {
    // (name, specifier node) of every class with a body, nested ones included.
    let mut found: Vec<(String, Node)> = Vec::new();
    for_each_descendant(root, |n| {
        if matches!(n.kind(), "class_specifier" | "struct_specifier")
            && let (Some(name), Some(_)) =
                (n.child_by_field_name("name"), n.child_by_field_name("body"))
        {
            found.push((text(name, src).to_string(), n));
        }
        !matches!(n.kind(), "function_definition" | "compound_statement")
            || n.kind() == "translation_unit"
    });
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for (name, _) in &found {
        *counts.entry(name.as_str()).or_default() += 1;
    }
    let found: Vec<(String, Node)> = found
        .iter()
        .filter(|(n, _)| counts[n.as_str()] == 1 && !context.contains_key(n))
        .cloned()
        .collect();

    struct Raw<'t> {
        fields: HashSet<String>,
        /// (name, definition or None when only declared, result type)
        methods: Vec<(String, Option<Node<'t>>, String)>,
        typedefs: HashMap<String, String>,
        based: bool,
        element: Option<String>,
        /// Fields whose elements lie one after another (pointers, fixed arrays, vectors).
        contiguous: HashSet<String>,
    }
    let mut raws: Vec<(String, Raw)> = Vec::new();
    for (name, spec) in &found {
        let mut raw = Raw {
            fields: HashSet::new(),
            methods: Vec::new(),
            typedefs: HashMap::new(),
            based: named_children(*spec)
                .iter()
                .any(|c| c.kind() == "base_class_clause"),
            element: None,
            contiguous: HashSet::new(),
        };
        let Some(body) = spec.child_by_field_name("body") else {
            continue;
        };
        let mut items = named_children(body);
        while let Some(item) = items.pop() {
            match item.kind() {
                "preproc_if" | "preproc_ifdef" | "preproc_else" | "preproc_elif" => {
                    items.extend(named_children(item));
                }
                "template_declaration" => items.extend(named_children(item)),
                "field_declaration" => {
                    let ty = item
                        .child_by_field_name("type")
                        .map(|t| text(t, src).to_string())
                        .unwrap_or_default();
                    let mut cursor = item.walk();
                    for d in item.children_by_field_name("declarator", &mut cursor) {
                        if let Some(fname) = method_name(d, src) {
                            raw.methods.push((fname, None, ty.clone()));
                        } else if let Some(f) = declarator_name(d, src) {
                            let squashed: String = ty.split_whitespace().collect();
                            let vector = squashed.starts_with("std::vector<")
                                || squashed.starts_with("vector<");
                            let flat = match d.kind() {
                                "pointer_declarator" | "array_declarator" => d
                                    .child_by_field_name("declarator")
                                    .is_some_and(|x| x.kind() == "field_identifier"),
                                "field_identifier" => vector,
                                _ => false,
                            };
                            if flat {
                                raw.contiguous.insert(f.clone());
                            }
                            raw.fields.insert(f);
                        }
                    }
                }
                "declaration" => {
                    // A constructor or destructor only declared here.
                    let mut cursor = item.walk();
                    for d in item.children_by_field_name("declarator", &mut cursor) {
                        if let Some(fname) = method_name(d, src) {
                            raw.methods.push((fname, None, String::new()));
                        }
                    }
                }
                "function_definition" => {
                    let Some(d) = item.child_by_field_name("declarator") else {
                        continue;
                    };
                    let Some(fname) = method_name(d, src) else {
                        continue;
                    };
                    let ret = item
                        .child_by_field_name("type")
                        .map(|t| format!("{}{}", text(t, src), "*".repeat(pointer_levels(d))))
                        .unwrap_or_default();
                    raw.methods.push((fname, Some(item), ret));
                }
                "type_definition" => {
                    let target = item
                        .child_by_field_name("type")
                        .map(|t| text(t, src).to_string())
                        .unwrap_or_default();
                    let mut cursor = item.walk();
                    for d in item.children_by_field_name("declarator", &mut cursor) {
                        if let Some(tn) = typedef_name(d, src) {
                            raw.typedefs
                                .insert(tn, format!("{target}{}", "*".repeat(pointer_levels(d))));
                        }
                    }
                }
                _ => {}
            }
        }
        raw.element = array_element(*spec, src, &raw.methods, &raw.fields);
        raws.push((name.clone(), raw));
    }

    // Effects by fixpoint: start from the best and lower until nothing changes.
    let mut out: HashMap<String, ClassInfo> = HashMap::new();
    for (name, raw) in &raws {
        let mut info = ClassInfo {
            typedefs: raw.typedefs.clone(),
            element: raw.element.clone().filter(|_| !raw.based),
            elements: element_accessors(src, &raw.methods, &raw.contiguous),
            ..ClassInfo::default()
        };
        for (m, def, ret) in &raw.methods {
            let effect = if def.is_some() && !raw.based {
                Effect::ReadOnly
            } else {
                Effect::Other
            };
            let e = info.methods.entry(m.clone()).or_insert(Method {
                effect,
                ret: ret.clone(),
            });
            e.effect = e.effect.max(effect);
            if e.ret != *ret {
                e.ret.clear();
            }
        }
        out.insert(name.clone(), info);
    }
    for _round in 0..8 {
        let mut changed = false;
        for (name, raw) in &raws {
            for (m, def, _) in &raw.methods {
                let Some(def) = def else { continue };
                let current = out[name].methods[m].effect;
                if current == Effect::Other {
                    continue;
                }
                let judged = {
                    let judge = Judge {
                        src,
                        macros,
                        class: name,
                        fields: &raw.fields,
                        classes: &out,
                        context,
                    };
                    judge.effect(*def)
                };
                if judged > current {
                    if let Some(info) = out.get_mut(name)
                        && let Some(meth) = info.methods.get_mut(m)
                    {
                        meth.effect = judged;
                    }
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    out
}

/// `object.method(index)`: a method called with `.` on a plain name, with one argument, the
/// shape of an element accessor's call (`domain.x(i)`).
pub struct IndexCall<'t> {
    /// `object.method`, the callee.
    pub function: Node<'t>,
    /// `(index)`.
    pub arguments: Node<'t>,
    pub object: String,
    pub method: String,
    pub index: Node<'t>,
}

pub fn index_call<'t>(call: Node<'t>, src: &[u8]) -> Option<IndexCall<'t>> {
    let call = unparen(call);
    if call.kind() != "call_expression" {
        return None;
    }
    let function = unparen(call.child_by_field_name("function")?);
    if function.kind() != "field_expression"
        || text(function.child_by_field_name("operator")?, src) != "."
    {
        return None;
    }
    let object = unparen(function.child_by_field_name("argument")?);
    if object.kind() != "identifier" {
        return None;
    }
    let arguments = call.child_by_field_name("arguments")?;
    let args = named_children(arguments);
    let [index] = args.as_slice() else {
        return None;
    };
    Some(IndexCall {
        function,
        arguments,
        object: text(object, src).to_string(),
        method: text(function.child_by_field_name("field")?, src).to_string(),
        index: *index,
    })
}

/// The one expression a method's body returns, if returning it is all the body does.
fn sole_return(def: Node) -> Option<Node> {
    let body = named_children(def.child_by_field_name("body")?);
    let [ret] = body.as_slice() else {
        return None;
    };
    (ret.kind() == "return_statement")
        .then(|| ret.named_child(0).map(unparen))
        .flatten()
}

/// The field among `fields` that `n` names inside a method: `f` or `this->f`.
fn own_field(n: Node, src: &[u8], fields: &HashSet<String>) -> Option<String> {
    let name = match n.kind() {
        "identifier" | "field_identifier" => text(n, src).to_string(),
        "field_expression" if n.child_by_field_name("argument")?.kind() == "this" => {
            text(n.child_by_field_name("field")?, src).to_string()
        }
        _ => return None,
    };
    fields.contains(&name).then_some(name)
}

/// The type parameter of a class template that is a flat array of it (`ClassInfo::element`).
fn array_element<'t>(
    spec: Node<'t>,
    src: &[u8],
    methods: &[(String, Option<Node<'t>>, String)],
    fields: &HashSet<String>,
) -> Option<String> {
    let template = spec
        .parent()
        .filter(|p| p.kind() == "template_declaration")?;
    let params = named_children(template.child_by_field_name("parameters")?);
    let [param] = params.as_slice() else {
        return None;
    };
    if param.kind() != "type_parameter_declaration" {
        return None;
    }
    let element = named_children(*param)
        .into_iter()
        .find(|c| c.kind() == "type_identifier")
        .map(|c| text(c, src).to_string())?;
    let mut storage: Option<String> = None;
    let mut same = |f: String| match &storage {
        Some(s) => *s == f,
        None => {
            storage = Some(f);
            true
        }
    };
    let (mut subscripts, mut datas) = (0, 0);
    for (name, def, _) in methods {
        let expected = match name.as_str() {
            "operator[]" => "subscript_expression",
            "data" => "",
            _ => continue,
        };
        let value = sole_return((*def)?)?;
        let f = if expected.is_empty() {
            datas += 1;
            own_field(value, src, fields)?
        } else {
            subscripts += 1;
            if value.kind() != expected {
                return None;
            }
            own_field(unparen(value.named_child(0)?), src, fields)?
        };
        if !same(f) {
            return None;
        }
    }
    (subscripts > 0 && datas > 0).then_some(element)
}

/// The element accessors among `methods` (`ClassInfo::elements`): every overload of the name
/// returns `f[i]` for its one parameter `i` and one contiguous field `f`.
fn element_accessors(
    src: &[u8],
    methods: &[(String, Option<Node>, String)],
    contiguous: &HashSet<String>,
) -> HashMap<String, String> {
    let accessed = |def: Node| -> Option<String> {
        let mut d = def.child_by_field_name("declarator")?;
        while d.kind() != "function_declarator" {
            d = d
                .child_by_field_name("declarator")
                .or_else(|| d.named_child(0))?;
        }
        let params = named_children(d.child_by_field_name("parameters")?);
        let [param] = params.as_slice() else {
            return None;
        };
        let pname = declarator_name(param.child_by_field_name("declarator")?, src)?;
        let value = sole_return(def)?;
        if value.kind() != "subscript_expression" {
            return None;
        }
        let field = own_field(
            unparen(value.child_by_field_name("argument")?),
            src,
            contiguous,
        )?;
        let index = unparen(super::syntax::subscript_index(value)?);
        (index.kind() == "identifier" && text(index, src) == pname).then_some(field)
    };
    let mut out: HashMap<String, Option<String>> = HashMap::new();
    for (name, def, _) in methods {
        let got = def.and_then(accessed);
        let entry = out.entry(name.clone()).or_insert(got.clone());
        if *entry != got {
            *entry = None;
        }
    }
    out.into_iter().filter_map(|(m, f)| Some((m, f?))).collect()
}

/// The name a method declarator declares (`num_nodes`, `operator*`, the class name for a
/// constructor); `None` for a field.
fn method_name(mut d: Node, src: &[u8]) -> Option<String> {
    for _ in 0..16 {
        match d.kind() {
            "function_declarator" => {
                let n = d.child_by_field_name("declarator")?;
                return match n.kind() {
                    "identifier" | "field_identifier" | "operator_name" | "destructor_name" => {
                        Some(text(n, src).split_whitespace().collect())
                    }
                    _ => None,
                };
            }
            "pointer_declarator" | "reference_declarator" | "init_declarator" => {
                d = d
                    .child_by_field_name("declarator")
                    .or_else(|| d.named_child(0))?;
            }
            _ => return None,
        }
    }
    None
}

fn pointer_levels(mut d: Node) -> usize {
    let mut n = 0;
    for _ in 0..16 {
        match d.kind() {
            "pointer_declarator" => n += 1,
            "reference_declarator" | "init_declarator" | "parenthesized_declarator" => {}
            _ => break,
        }
        match d
            .child_by_field_name("declarator")
            .or_else(|| d.named_child(0))
        {
            Some(x) => d = x,
            None => break,
        }
    }
    n
}

fn typedef_name(mut d: Node, src: &[u8]) -> Option<String> {
    for _ in 0..16 {
        match d.kind() {
            "type_identifier" | "identifier" => return Some(text(d, src).to_string()),
            "pointer_declarator" | "reference_declarator" | "parenthesized_declarator" => {
                d = d
                    .child_by_field_name("declarator")
                    .or_else(|| d.named_child(0))?;
            }
            _ => return None,
        }
    }
    None
}

/// The class a type names: qualifiers, template arguments, `&`/`*` and namespaces stripped, then
/// typedefs followed (the file's, and those inside `within`, the class the type is written in).
pub fn class_of<'m>(
    ty: &str,
    macros: &'m Macros,
    within: Option<&'m ClassInfo>,
) -> Option<(&'m str, &'m ClassInfo)> {
    let mut ty = ty.to_string();
    for _ in 0..8 {
        let base = base_name(&ty);
        if let Some((k, c)) = macros.classes.get_key_value(base.as_str()) {
            return Some((k.as_str(), c));
        }
        ty = within
            .and_then(|w| w.typedefs.get(&base))
            .or_else(|| macros.typedefs.get(&base))?
            .clone();
    }
    None
}

/// `const ns::Graph<int>&` → `Graph`.
pub fn base_name(ty: &str) -> String {
    let mut t = ty.trim();
    for q in ["const ", "struct ", "class ", "typename ", "volatile "] {
        t = t.strip_prefix(q).unwrap_or(t).trim_start();
    }
    let t = t.split('<').next().unwrap_or(t);
    let t = t.trim_end_matches(|c: char| c == '&' || c == '*' || c.is_whitespace());
    let t = t.trim_end_matches(" const").trim();
    t.rsplit("::").next().unwrap_or(t).trim().to_string()
}

/// Whether a temporary of type `ty` can be iterated by a range-for without touching anything
/// but itself: its `begin`/`end` and, unless the iterator is a pointer, the iterator's `*`, `++`
/// and `!=` write at most their own object's fields.
pub fn iterable_by_value(ty: &str, macros: &Macros, within: Option<&ClassInfo>) -> bool {
    let Some((_, range)) = class_of(ty, macros, within) else {
        return false;
    };
    let ok = |c: &ClassInfo, m: &str| {
        c.methods
            .get(m)
            .is_some_and(|x| x.effect <= Effect::OwnFields)
    };
    if !ok(range, "begin") || !ok(range, "end") {
        return false;
    }
    let mut it = range.methods["begin"].ret.clone();
    for _ in 0..8 {
        if it.trim_end().ends_with('*') {
            return true;
        }
        match range.typedefs.get(&base_name(&it)) {
            Some(t) => it = t.clone(),
            None => break,
        }
    }
    let Some((_, iter)) = class_of(&it, macros, Some(range)) else {
        return false;
    };
    ["operator*", "operator++", "operator!="]
        .iter()
        .all(|m| ok(iter, m))
}

struct Judge<'a> {
    src: &'a [u8],
    macros: &'a Macros,
    class: &'a str,
    fields: &'a HashSet<String>,
    classes: &'a HashMap<String, ClassInfo>,
    context: &'a HashMap<String, ClassInfo>,
}

impl Judge<'_> {
    fn class(&self, name: &str) -> Option<&ClassInfo> {
        self.classes.get(name).or_else(|| self.context.get(name))
    }

    /// What constructing a temporary of `name` does to the world outside it.
    fn construct(&self, name: &str) -> Effect {
        if self.macros.type_aliases.contains_key(name)
            || matches!(
                name,
                "int" | "long" | "float" | "double" | "char" | "bool" | "unsigned" | "short"
            )
        {
            return Effect::ReadOnly;
        }
        match self.class(name).and_then(|c| c.methods.get(name)) {
            Some(m) if m.effect <= Effect::OwnFields => Effect::ReadOnly,
            Some(_) => Effect::Other,
            // No constructor written: members are copied from the arguments.
            None if self.class(name).is_some() => Effect::ReadOnly,
            None => Effect::Other,
        }
    }

    fn effect(&self, func: Node) -> Effect {
        if func.has_error() {
            return Effect::Other;
        }
        let src = self.src;
        let Some(body) = func.child_by_field_name("body") else {
            return Effect::Other;
        };
        // Parameters: readable; by-value ones are writable copies.
        let mut readable: HashSet<String> = HashSet::new();
        let mut writable: HashSet<String> = HashSet::new();
        if let Some(params) = func
            .child_by_field_name("declarator")
            .and_then(function_declarator)
            .and_then(|d| d.child_by_field_name("parameters"))
        {
            for p in named_children(params) {
                let Some(d) = p.child_by_field_name("declarator") else {
                    continue;
                };
                let Some(name) = declarator_name(d, src) else {
                    continue;
                };
                if d.kind() != "reference_declarator" {
                    writable.insert(name.clone());
                }
                readable.insert(name);
            }
        }
        let mut effect = Effect::ReadOnly;
        // Member initialisers write the object's own fields from readable values.
        let mut roots = vec![body];
        for c in named_children(func) {
            if c.kind() == "field_initializer_list" {
                effect = effect.max(Effect::OwnFields);
                for init in named_children(c) {
                    if let Some(args) = named_children(init)
                        .into_iter()
                        .find(|a| matches!(a.kind(), "argument_list" | "initializer_list"))
                    {
                        roots.push(args);
                    }
                }
            }
        }
        for root in roots {
            let callees = super::outline::callee_ids(root);
            for_each_descendant(root, |n| {
                if effect == Effect::Other {
                    return false;
                }
                if callees.contains(&n.id()) {
                    // A callee's name is judged with its call, not read as a variable.
                    return false;
                }
                match n.kind() {
                    "static_assert_declaration" | "comment" => return false,
                    "declaration" => {
                        if text(n, src).contains("static") {
                            effect = Effect::Other;
                        }
                        let mut cursor = n.walk();
                        for d in n.children_by_field_name("declarator", &mut cursor) {
                            if let Some(name) = declarator_name(d, src) {
                                let is_ref = d.kind() == "reference_declarator"
                                    || d.child_by_field_name("declarator")
                                        .is_some_and(|x| x.kind() == "reference_declarator");
                                if !is_ref {
                                    writable.insert(name.clone());
                                }
                                readable.insert(name);
                            }
                        }
                    }
                    "assignment_expression" | "update_expression" => {
                        let target = n
                            .child_by_field_name("left")
                            .or_else(|| n.child_by_field_name("argument"))
                            .map(unparen);
                        effect = effect.max(self.write_effect(target, &writable, &readable));
                    }
                    "call_expression" => {
                        effect = effect.max(self.call_effect(n, &readable));
                    }
                    "identifier" => {
                        let name = text(n, src);
                        let known = readable.contains(name.as_ref())
                            || self.fields.contains(name.as_ref())
                            || self.macros.definitions.contains_key(name.as_ref())
                            || self.macros.values.contains_key(name.as_ref());
                        if !known {
                            effect = Effect::Other;
                        }
                    }
                    "qualified_identifier" => {
                        effect = Effect::Other;
                    }
                    "new_expression" | "delete_expression" | "throw_statement"
                    | "throw_expression" | "lambda_expression" | "asm_statement"
                    | "gnu_asm_expression" | "goto_statement" | "for_range_loop" | "ERROR" => {
                        effect = Effect::Other;
                    }
                    _ => {}
                }
                effect != Effect::Other
            });
        }
        effect
    }

    fn write_effect(
        &self,
        target: Option<Node>,
        writable: &HashSet<String>,
        readable: &HashSet<String>,
    ) -> Effect {
        let Some(t) = target else {
            return Effect::Other;
        };
        let src = self.src;
        match t.kind() {
            "identifier" => {
                let name = text(t, src);
                if writable.contains(name.as_ref()) {
                    Effect::ReadOnly
                } else if !readable.contains(name.as_ref()) && self.fields.contains(name.as_ref()) {
                    Effect::OwnFields
                } else {
                    Effect::Other
                }
            }
            "field_expression" => {
                let this = t
                    .child_by_field_name("argument")
                    .is_some_and(|a| unparen(a).kind() == "this");
                let field = t
                    .child_by_field_name("field")
                    .is_some_and(|f| self.fields.contains(text(f, src).as_ref()));
                if this && field {
                    Effect::OwnFields
                } else {
                    Effect::Other
                }
            }
            _ => Effect::Other,
        }
    }

    fn call_effect(&self, call: Node, readable: &HashSet<String>) -> Effect {
        let src = self.src;
        let Some(f) = call.child_by_field_name("function").map(unparen) else {
            return Effect::Other;
        };
        let own = |name: &str| {
            self.classes
                .get(self.class)
                .and_then(|c| c.methods.get(name))
                .map(|m| m.effect)
        };
        match f.kind() {
            "identifier" | "template_function" | "type_identifier" | "primitive_type" => {
                let name = match f.kind() {
                    "template_function" => f
                        .child_by_field_name("name")
                        .map(|n| text(n, src).to_string())
                        .unwrap_or_default(),
                    _ => text(f, src).to_string(),
                };
                if readable.contains(&name) {
                    return Effect::Other;
                }
                if let Some(e) = own(&name) {
                    return e;
                }
                if self.class(&name).is_some() || self.macros.type_aliases.contains_key(&name) {
                    return self.construct(&name);
                }
                if f.kind() == "primitive_type" {
                    return Effect::ReadOnly;
                }
                if super::facts::is_pure_function(&name, self.macros) {
                    Effect::ReadOnly
                } else {
                    Effect::Other
                }
            }
            "qualified_identifier" => {
                if super::facts::is_pure_function(&text(f, src), self.macros) {
                    Effect::ReadOnly
                } else {
                    Effect::Other
                }
            }
            "field_expression" => {
                let this = f
                    .child_by_field_name("argument")
                    .is_some_and(|a| unparen(a).kind() == "this");
                let name = f
                    .child_by_field_name("field")
                    .map(|n| text(n, src).to_string())
                    .unwrap_or_default();
                match own(&name) {
                    Some(e) if this => e,
                    _ => Effect::Other,
                }
            }
            _ => Effect::Other,
        }
    }
}

fn function_declarator(mut d: Node) -> Option<Node> {
    for _ in 0..16 {
        if d.kind() == "function_declarator" {
            return Some(d);
        }
        d = d
            .child_by_field_name("declarator")
            .or_else(|| d.named_child(0))?;
    }
    None
}
