//! Structs, classes, unions and enums the file and its headers define, with their fields' types: what the
//! outliner needs to pass a struct to a region (a POD struct the harness can fill field by field)
//! or to pass the fields a loop uses as parameters of their own (`chunk->u[i]`, `this->x[i]`).

use std::collections::HashMap;

use tree_sitter::Node;

use super::syntax::{for_each_descendant, named_children, text};

/// One field of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    /// The type as written, qualifiers dropped and spaces squashed (`double`, `struct Box`, `real3`).
    pub ty: String,
    /// Pointer levels of the declarator (`double* x` is 1).
    pub pointer: usize,
    /// Fixed array sizes, outermost first (`int a[4][N]` is `["4", "N"]`).
    pub dims: Vec<String>,
    /// A bitfield (`int flag : 1`).
    pub bitfield: bool,
    /// A reference member (`Box& b`).
    pub reference: bool,
    pub is_static: bool,
}

impl Field {
    /// A field of `ty` behind `pointer` levels, with no fixed dimensions or qualifiers.
    pub fn plain(name: &str, ty: &str, pointer: usize) -> Field {
        Field {
            name: name.to_string(),
            ty: ty.to_string(),
            pointer,
            dims: Vec::new(),
            bitfield: false,
            reference: false,
            is_static: false,
        }
    }
}

/// One struct, class or union with a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// `struct`, `class` or `union`.
    pub keyword: String,
    pub fields: Vec<Field>,
    /// Methods, constructors, destructors, operators, friends or nested templates.
    pub has_methods: bool,
    pub has_virtual: bool,
    pub has_base: bool,
    /// An enum's underlying type (`int` unless it names one): the harness fills it as that.
    pub underlying: Option<String>,
    /// The base classes as the clause names them (`Force` of `class ForceLJ : public Force`).
    pub bases: Vec<String>,
    /// The definition as it stands in the source: `struct S { .. };` or `typedef struct { .. } S;`.
    pub text: String,
    /// The definition names a type only through a typedef (`typedef struct { .. } S;`).
    pub anonymous: bool,
}

impl Record {
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The record with the fields it inherits from the bases `records` defines (a member
    /// function's `ntypes` may be a field of the base class); a field of its own hides a base's.
    pub fn with_inherited(&self, records: &HashMap<String, Record>) -> Record {
        let mut out = self.clone();
        let mut pending: Vec<&str> = self.bases.iter().map(String::as_str).collect();
        let mut seen: Vec<&str> = Vec::new();
        while let Some(b) = pending.pop() {
            if seen.contains(&b) || seen.len() > 16 {
                continue;
            }
            seen.push(b);
            let Some(base) = records.get(b) else {
                continue;
            };
            for f in &base.fields {
                if out.field(&f.name).is_none() {
                    out.fields.push(f.clone());
                }
            }
            pending.extend(base.bases.iter().map(String::as_str));
        }
        out
    }
}

/// The records of a tree, by name (a typedef of an anonymous struct is its name); a name defined
/// twice (two `#ifdef` branches, two scopes) is left out: which one a loop sees is not known.
pub fn collect(root: Node, src: &[u8]) -> HashMap<String, Record> {
    let mut found: Vec<(String, Record)> = Vec::new();
    for_each_descendant(root, |n| {
        if matches!(
            n.kind(),
            "struct_specifier" | "class_specifier" | "union_specifier" | "enum_specifier"
        ) && let Some(body) = n.child_by_field_name("body")
        {
            let keyword = match n.kind() {
                "struct_specifier" => "struct",
                "class_specifier" => "class",
                "enum_specifier" => "enum",
                _ => "union",
            };
            let mut names: Vec<(String, bool)> = Vec::new();
            if let Some(name) = n.child_by_field_name("name") {
                names.push((text(name, src).to_string(), false));
            }
            let parent = n.parent();
            let typedef = parent.filter(|p| p.kind() == "type_definition");
            if let Some(td) = typedef {
                let mut cursor = td.walk();
                for d in td.children_by_field_name("declarator", &mut cursor) {
                    if d.kind() == "type_identifier" {
                        let anonymous = n.child_by_field_name("name").is_none();
                        names.push((text(d, src).to_string(), anonymous));
                    }
                }
            }
            // The statement that holds the definition: `struct S {..};` or the typedef.
            let holder_text = match typedef {
                Some(td) => Some(text(td, src).trim().to_string()),
                None => match parent {
                    Some(p)
                        if p.kind() == "declaration"
                            && p.child_by_field_name("declarator").is_none() =>
                    {
                        Some(text(p, src).trim().to_string())
                    }
                    Some(p) if p.kind() == "declaration" || p.kind() == "field_declaration" => None,
                    _ => n
                        .next_sibling()
                        .filter(|s| s.kind() == ";")
                        .map(|_| format!("{};", text(n, src).trim())),
                },
            };
            let mut rec = Record {
                keyword: keyword.into(),
                fields: Vec::new(),
                has_methods: false,
                has_virtual: false,
                has_base: named_children(n)
                    .iter()
                    .any(|c| c.kind() == "base_class_clause"),
                bases: named_children(n)
                    .into_iter()
                    .filter(|c| c.kind() == "base_class_clause")
                    .flat_map(named_children)
                    .filter(|b| {
                        matches!(
                            b.kind(),
                            "type_identifier" | "qualified_identifier" | "template_type"
                        )
                    })
                    .map(|b| text(b, src).to_string())
                    .collect(),
                text: holder_text.unwrap_or_default(),
                anonymous: false,
                underlying: (keyword == "enum").then(|| {
                    n.child_by_field_name("base")
                        .map(|b| squash(&text(b, src)))
                        .unwrap_or_else(|| "int".into())
                }),
            };
            if keyword != "enum" {
                read_body(body, src, &mut rec);
            }
            for (name, anonymous) in names {
                let mut r = rec.clone();
                r.anonymous = anonymous;
                found.push((name, r));
            }
        }
        // Records inside functions are local to them.
        n.kind() != "function_definition"
    });
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for (name, _) in &found {
        *counts.entry(name.as_str()).or_default() += 1;
    }
    let once: Vec<String> = counts
        .iter()
        .filter(|(_, c)| **c == 1)
        .map(|(n, _)| n.to_string())
        .collect();
    found
        .into_iter()
        .filter(|(n, _)| once.contains(n))
        .collect()
}

fn read_body(body: Node, src: &[u8], rec: &mut Record) {
    let mut items = named_children(body);
    items.reverse();
    while let Some(item) = items.pop() {
        match item.kind() {
            "preproc_if" | "preproc_ifdef" | "preproc_else" | "preproc_elif" => {
                // Fields behind a condition: which ones exist is not known.
                rec.has_methods = true;
            }
            "field_declaration" => {
                let head = text(item, src);
                if head.contains("virtual") {
                    rec.has_virtual = true;
                }
                let is_static = named_children(item)
                    .iter()
                    .any(|c| c.kind() == "storage_class_specifier");
                let ty = item
                    .child_by_field_name("type")
                    .map(|t| squash(&text(t, src)))
                    .unwrap_or_default();
                let bitfield = named_children(item)
                    .iter()
                    .any(|c| c.kind() == "bitfield_clause");
                let mut cursor = item.walk();
                let decls: Vec<Node> = item
                    .children_by_field_name("declarator", &mut cursor)
                    .collect();
                if decls.is_empty() {
                    // An anonymous struct or union member: its fields are not named by a path.
                    rec.has_methods = true;
                }
                for d in decls {
                    match field_of(d, src, &ty) {
                        Some(mut f) => {
                            f.bitfield = bitfield;
                            f.is_static = is_static;
                            rec.fields.push(f);
                        }
                        None => rec.has_methods = true,
                    }
                }
            }
            "access_specifier" | "comment" => {}
            _ => {
                // Methods, constructors, `friend`, `using`, nested templates, static asserts.
                if text(item, src).contains("virtual") {
                    rec.has_virtual = true;
                }
                rec.has_methods = true;
            }
        }
    }
}

/// A field's declarator: its name, pointer levels and fixed sizes; `None` for a method.
fn field_of(mut d: Node, src: &[u8], ty: &str) -> Option<Field> {
    let mut f = Field {
        name: String::new(),
        ty: ty.to_string(),
        pointer: 0,
        dims: Vec::new(),
        bitfield: false,
        reference: false,
        is_static: false,
    };
    for _ in 0..16 {
        match d.kind() {
            // A typedef's declarator names a type (`typedef real_t real3[3]`).
            "field_identifier" | "identifier" | "type_identifier" => {
                f.name = text(d, src).to_string();
                return Some(f);
            }
            "pointer_declarator" => f.pointer += 1,
            "reference_declarator" => f.reference = true,
            "array_declarator" => {
                let size = d
                    .child_by_field_name("size")
                    .map(|s| squash(&text(s, src)))
                    .unwrap_or_default();
                // Declarators nest outside in: `a[2][3]` is array(array(a, 2), 3).
                f.dims.insert(0, size);
            }
            "init_declarator" => {}
            _ => return None,
        }
        d = d
            .child_by_field_name("declarator")
            .or_else(|| d.named_child(0))?;
    }
    None
}

fn squash(s: &str) -> String {
    s.split_whitespace()
        .filter(|w| !matches!(*w, "const" | "volatile" | "mutable"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What a typedef or alias that is not a plain name stands for: `typedef double* buf_t`,
/// `using buf_t = double*` (a pointer), `typedef double vec3[3]` (a fixed array).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeShape {
    pub base: String,
    pub pointer: usize,
    pub dims: Vec<String>,
}

/// The pointer and array typedefs and aliases of a tree, by name (one defined twice is left out).
pub fn collect_shapes(root: Node, src: &[u8]) -> HashMap<String, TypeShape> {
    let mut found: Vec<(String, TypeShape)> = Vec::new();
    for_each_descendant(root, |n| {
        match n.kind() {
            "type_definition" => {
                let base = n
                    .child_by_field_name("type")
                    .map(|t| squash(&text(t, src)))
                    .unwrap_or_default();
                let mut cursor = n.walk();
                for d in n.children_by_field_name("declarator", &mut cursor) {
                    if d.kind() == "type_identifier" {
                        continue;
                    }
                    if let Some(f) = field_of(d, src, &base)
                        && (f.pointer > 0 || !f.dims.is_empty())
                        && !f.reference
                    {
                        found.push((
                            f.name.clone(),
                            TypeShape {
                                base: f.ty,
                                pointer: f.pointer,
                                dims: f.dims,
                            },
                        ));
                    }
                }
            }
            "alias_declaration" => {
                let name = n
                    .child_by_field_name("name")
                    .map(|x| text(x, src).to_string());
                let ty = n
                    .child_by_field_name("type")
                    .map(|x| text(x, src).to_string());
                if let (Some(name), Some(ty)) = (name, ty) {
                    let pointer = ty.matches('*').count();
                    let base = squash(&ty.replace('*', " "));
                    if pointer > 0 && !ty.contains(['[', '(', '&', '<']) {
                        found.push((
                            name,
                            TypeShape {
                                base,
                                pointer,
                                dims: Vec::new(),
                            },
                        ));
                    }
                }
            }
            _ => {}
        }
        n.kind() != "function_definition"
    });
    let mut counts: HashMap<String, usize> = HashMap::new();
    for (name, _) in &found {
        *counts.entry(name.clone()).or_default() += 1;
    }
    found.into_iter().filter(|(n, _)| counts[n] == 1).collect()
}

/// `f` with a pointer or array typedef in its type spelled out (`FieldBuffer u` is `double* u`,
/// `vec3 a[2]` is `double a[2][3]`).
pub fn expand(f: &Field, shapes: &HashMap<String, TypeShape>) -> Field {
    let mut f = f.clone();
    for _ in 0..8 {
        let bare = f.ty.trim_start_matches("struct ").to_string();
        let Some(s) = shapes.get(&bare) else {
            break;
        };
        if f.pointer > 0 && !s.dims.is_empty() {
            // A pointer to a fixed array: keep it as its own shape (refused as 2-D).
            f.dims.extend(s.dims.iter().cloned());
            f.ty = s.base.clone();
            f.pointer += s.pointer;
            break;
        }
        f.ty = s.base.clone();
        f.pointer += s.pointer;
        f.dims.extend(s.dims.iter().cloned());
    }
    f
}

/// The constants of enums defined at file scope (outside functions and classes), with the
/// statement that defines their enum and their value where it is a literal (`enum { N = 32 };`).
/// A name two enums define is left out.
pub fn collect_enumerators(root: Node, src: &[u8]) -> HashMap<String, (String, Option<i64>)> {
    let mut found: Vec<(String, (String, Option<i64>))> = Vec::new();
    for_each_descendant(root, |n| {
        if matches!(
            n.kind(),
            "function_definition" | "class_specifier" | "struct_specifier" | "union_specifier"
        ) {
            return false;
        }
        if n.kind() != "enum_specifier" {
            return true;
        }
        let Some(body) = n.child_by_field_name("body") else {
            return false;
        };
        // The statement holding the enum, alone: `enum {..};` or `typedef enum {..} E;`.
        let def = match n.parent() {
            Some(p) if p.kind() == "type_definition" => Some(text(p, src).trim().to_string()),
            Some(p) if p.kind() == "declaration" => (p.child_by_field_name("declarator").is_none())
                .then(|| text(p, src).trim().to_string()),
            _ => n
                .next_sibling()
                .filter(|s| s.kind() == ";")
                .map(|_| format!("{};", text(n, src).trim())),
        };
        let Some(def) = def else {
            return false;
        };
        let mut next = Some(0i64);
        for e in named_children(body) {
            if e.kind() != "enumerator" {
                continue;
            }
            let Some(name) = e.child_by_field_name("name") else {
                continue;
            };
            let value = match e.child_by_field_name("value") {
                Some(v) => super::syntax::parse_int_literal(&text(v, src)),
                None => next,
            };
            next = value.and_then(|v| v.checked_add(1));
            found.push((text(name, src).to_string(), (def.clone(), value)));
        }
        false
    });
    let mut counts: HashMap<String, usize> = HashMap::new();
    for (name, _) in &found {
        *counts.entry(name.clone()).or_default() += 1;
    }
    found
        .into_iter()
        .filter(|(name, _)| counts[name] == 1)
        .collect()
}
