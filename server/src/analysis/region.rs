//! The plain-data contract between analysis and the rest of the pipeline: a loop nest outlined as a
//! function that the verifier can build a harness around and the search can rewrite.

use serde::{Deserialize, Serialize};

/// What a loop computes, as far as offloading is concerned (ARCHITECTURE.md §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoopKind {
    Map,
    Reduction,
    Histogram,
    Stencil,
    Scan,
    Sequential,
}

impl LoopKind {
    pub fn is_parallel(self) -> bool {
        !matches!(self, LoopKind::Sequential)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LoopKind::Map => "map",
            LoopKind::Reduction => "reduction",
            LoopKind::Histogram => "histogram",
            LoopKind::Stencil => "stencil",
            LoopKind::Scan => "scan",
            LoopKind::Sequential => "sequential",
        }
    }
}

/// How the outlined function uses a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    Read,
    Write,
    ReadWrite,
}

/// One parameter of the outlined function.
///
/// Arrays are passed as pointers to their element type. A scalar the loop writes (a reduction's
/// accumulator) is passed as a pointer to one element, so every output travels the same way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegionParam {
    pub name: String,
    /// Element type as written in the source, without qualifiers (`float`, `int`, `std::size_t`).
    pub elem_type: String,
    /// True for pointers/arrays (and for written scalars, which become one-element arrays).
    pub is_array: bool,
    pub access: Access,
    /// Number of elements as a C expression over the size parameters (`n`, `n*m`, `nbins`),
    /// `1` for a written scalar, `None` for a read-only scalar.
    pub extent: Option<String>,
    /// True for integer scalars that bound the iteration space (the harness chooses them).
    pub is_size: bool,
    /// Constraints on generated input values (index arrays, sorted offsets); `None` means any value
    /// of the type from the harness's default distributions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<InputSpec>,
    /// What to pass for this parameter where the loop was (`&acc` for a written scalar,
    /// `v.data()` for a vector); `None` means the parameter's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_arg: Option<String>,
    /// For a size that is the range of an index array's values (they lie in `0..size`): that
    /// array's parameter. Where the loop was, it is 1 + the array's largest value, which the host
    /// wrapper's file computes (`<entry>_<size>`), as the loop's code does not hold it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range_of: Option<String>,
}

/// How the verifier must generate one input so the serial code is well-defined on it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputSpec {
    /// Smallest allowed value, a C expression over the size parameters (inclusive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<String>,
    /// Largest allowed value, a C expression over the size parameters (inclusive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<String>,
    /// Values are non-decreasing (CSR row offsets, sorted keys for binary search).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sorted: bool,
    /// The array is a permutation of `0..extent` (gathers/scatters without collisions).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub permutation: bool,
}

/// Work of one execution of the region, as expressions over the size parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkEstimate {
    /// Total iterations of the nest, e.g. `n*m`.
    pub iterations: String,
    /// Arithmetic operations per iteration (flops for floating code).
    pub ops_per_iteration: f64,
    /// Compulsory bytes moved per iteration (each input read once, each output written once).
    pub bytes_per_iteration: f64,
}

/// Values of the size parameters, by name.
pub type SizeTable = std::collections::BTreeMap<String, i64>;

/// Shapes a region was written for: a task's `[sizes]`. Where size parameters are not alike (a text
/// and the pattern searched in it, rows and a feature width) one common scale would test and time
/// something else than the task; with these the verifier checks and times exactly these shapes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeclaredSizes {
    /// Correctness sizes (≥ 3, at least one not a multiple of 32).
    pub test: Vec<SizeTable>,
    /// The size the timing runs at.
    pub timed: SizeTable,
}

/// A loop nest outlined as a function: the unit the verifier checks and the search rewrites.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OffloadRegion {
    /// Name of the outlined (or enclosing) function; candidates implement `<name>_gpu`.
    pub name: String,
    pub params: Vec<RegionParam>,
    /// The serial reference: a complete C++ function `void <name>(params...)`, compilable on its
    /// own with the includes in `includes`.
    pub source: String,
    /// `#include` lines the reference needs.
    pub includes: Vec<String>,
    pub kind: LoopKind,
    /// True when the enclosing function already is the loop nest and was used as is.
    pub whole_function: bool,
    /// 1-based first and last line of the loop statement in its file.
    pub line: usize,
    pub end_line: usize,
    pub work: WorkEstimate,
    /// Declared shapes (a task's `[sizes]`); `None` for a loop found in a user's code, whose sizes
    /// the verifier chooses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<DeclaredSizes>,
    /// Structs the parameters are made of, with what defines them; empty for scalar regions.
    #[serde(default, skip_serializing_if = "RegionTypes::is_empty")]
    pub types: RegionTypes,
}

/// The struct types of a region's parameters (plain data: scalar and fixed-array fields, nested
/// structs), which the harness defines and fills field by field.
///
/// `definitions` is C++ that both harness programs and the candidate compile before anything
/// else (the macros and typedefs the structs name, then the structs, in dependency order); it is
/// outside the high-precision reference's `float`→`double` promotion, so a struct has one layout
/// in every program. The region's `source` does not repeat it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RegionTypes {
    #[serde(default)]
    pub definitions: String,
    #[serde(default)]
    pub records: Vec<RegionRecord>,
    /// The outputs with struct arrays split into their leaves, made once ([`Self::leaf_outputs`]).
    #[serde(skip)]
    outputs: std::sync::OnceLock<Vec<RegionParam>>,
}

impl PartialEq for RegionTypes {
    fn eq(&self, other: &Self) -> bool {
        self.definitions == other.definitions && self.records == other.records
    }
}

impl Eq for RegionTypes {}

impl RegionTypes {
    pub fn new(definitions: String, records: Vec<RegionRecord>) -> RegionTypes {
        RegionTypes {
            definitions,
            records,
            outputs: std::sync::OnceLock::new(),
        }
    }

    /// The written arrays of `params` as the verifier compares them: a scalar array as it is, an
    /// array of structs as one output per leaf (see [`RegionRecord`]).
    pub fn leaf_outputs(&self, params: &[RegionParam]) -> &[RegionParam] {
        self.outputs.get_or_init(|| {
            let mut out = Vec::new();
            for p in params
                .iter()
                .filter(|p| p.is_array && p.access != Access::Read)
            {
                match self.record(&p.elem_type) {
                    None => out.push(p.clone()),
                    Some(r) => {
                        for f in &r.fields {
                            let ext = p.extent.clone().unwrap_or_else(|| "1".into());
                            out.push(RegionParam {
                                name: format!("{}__{}", p.name, f.output_suffix()),
                                elem_type: f.ty.clone(),
                                extent: Some(if f.count == 1 {
                                    ext
                                } else {
                                    format!("({ext}) * {}", f.count)
                                }),
                                input: None,
                                call_arg: None,
                                range_of: None,
                                ..p.clone()
                            });
                        }
                    }
                }
            }
            out
        })
    }

    pub fn is_empty(&self) -> bool {
        self.definitions.is_empty() && self.records.is_empty()
    }

    pub fn record(&self, ty: &str) -> Option<&RegionRecord> {
        self.records.iter().find(|r| r.name == ty)
    }
}

/// One struct type as the harness sees it: its scalar leaves in declaration order.
///
/// An output array of structs is compared leaf by leaf: leaf `path` of parameter `a` is the
/// output `a__<path with every non-identifier character as _>` (`a__x`, `a__lo_y`, `a__v_1_w`),
/// `extent × count` elements of the leaf's type, element-major (`a[0].v[0..count]`,
/// `a[1].v[0..count]`, …). Padding is never compared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegionRecord {
    /// The type as the parameters spell it (`Cell`, `struct cell`, `sym_freq`).
    pub name: String,
    pub fields: Vec<RecordField>,
}

/// A scalar leaf of a struct: `lo.y` (a nested struct's field), `v[1].w`, or `m` with
/// `count` 9 for `double m[3][3]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordField {
    /// The member access from an element, without the leading dot (`x`, `lo.y`, `v[1].w`).
    pub path: String,
    /// A builtin scalar type (typedefs resolved).
    pub ty: String,
    /// Elements of a fixed array (all dimensions), 1 for a scalar.
    pub count: usize,
}

impl RecordField {
    /// The suffix of the output that compares this leaf (`lo_y` for `lo.y`).
    pub fn output_suffix(&self) -> String {
        let mut s: String = self
            .path
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        while s.contains("__") {
            s = s.replace("__", "_");
        }
        s.trim_matches('_').to_string()
    }
}

impl OffloadRegion {
    /// The C signature of the serial function, e.g. `void saxpy(int n, float a, const float* x, float* y)`.
    pub fn signature(&self) -> String {
        self.signature_named(&self.name)
    }

    /// The same parameter list under another name: candidates define `void <name>_gpu(...)` taking
    /// device pointers.
    pub fn signature_named(&self, name: &str) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| {
                if p.is_array {
                    let constness = if p.access == Access::Read {
                        "const "
                    } else {
                        ""
                    };
                    format!("{constness}{}* {}", p.elem_type, p.name)
                } else {
                    format!("{} {}", p.elem_type, p.name)
                }
            })
            .collect();
        format!("void {name}({})", params.join(", "))
    }

    /// Name of the function a candidate kernel file must define.
    pub fn gpu_entry_name(&self) -> String {
        format!("{}_gpu", self.name)
    }
}
