//! What every kind's port is made of: the region's parameters as a kernel's, the declarations
//! before the loop, the counter of each thread's iteration, the grid-stride loop and the launcher.

use std::collections::BTreeSet;

use super::NoPort;
use super::device::Edits;
use super::nest::{Counted, Nest, Parsed, walk};
use crate::analysis::{LoopKind, OffloadRegion};

/// Threads per block of every 1-D port.
pub const BLOCK: u32 = 256;
/// Most blocks of a grid-stride launch: enough to fill any current GPU several times over.
pub const MAX_BLOCKS: u32 = 65535;

pub struct Context<'a> {
    pub region: &'a OffloadRegion,
    pub parsed: &'a Parsed<'a>,
    pub nest: &'a Nest,
    pub edits: Edits,
    includes: BTreeSet<&'static str>,
    /// Where the body leaves the loop early: each a `break` that ends the branch of an `if` (a
    /// search's "found it"); only a reduction that takes the first such iteration can port them.
    pub exits: Vec<usize>,
}

impl<'a> Context<'a> {
    pub fn new(
        region: &'a OffloadRegion,
        parsed: &'a Parsed<'a>,
        nest: &'a Nest,
        edits: Edits,
    ) -> Result<Context<'a>, NoPort> {
        let mut ctx = Context {
            region,
            parsed,
            nest,
            edits,
            includes: BTreeSet::new(),
            exits: Vec::new(),
        };
        ctx.exits = ctx.check_body()?;
        Ok(ctx)
    }

    /// A `return` or a `break` of the mapped loop would end a thread's whole grid-stride loop:
    /// refused, except a `break` that ends an `if`'s branch, which is returned for the kind to judge.
    fn check_body(&self) -> Result<Vec<usize>, NoPort> {
        let mut bad = None;
        let mut exits = Vec::new();
        let body = self.body_node();
        walk(body, &mut |n| {
            if bad.is_some() {
                return;
            }
            if n.kind() == "return_statement" {
                bad = Some("a `return` in the loop body");
            }
            if n.kind() == "break_statement" || n.kind() == "goto_statement" {
                let mut up = n.parent();
                let mut inside = false;
                while let Some(u) = up {
                    if u.id() == body.id() {
                        break;
                    }
                    if matches!(
                        u.kind(),
                        "for_statement"
                            | "while_statement"
                            | "do_statement"
                            | "for_range_loop"
                            | "switch_statement"
                    ) {
                        inside = true;
                    }
                    up = u.parent();
                }
                if n.kind() == "break_statement" && !inside && ends_an_if_branch(n) {
                    exits.push(n.start_byte());
                } else if !inside || n.kind() == "goto_statement" {
                    bad = Some("the loop body leaves the loop early");
                }
            }
        });
        bad.map_or(Ok(exits), |b| Err(NoPort::new(b)))
    }

    pub fn body_node(&self) -> tree_sitter::Node<'a> {
        self.parsed
            .root()
            .descendant_for_byte_range(self.nest.body.start, self.nest.body.end)
            .expect("the body is in the tree")
    }

    pub fn include(&mut self, header: &'static str) {
        self.includes.insert(header);
    }

    pub fn includes(&self) -> String {
        self.includes
            .iter()
            .map(|h| format!("#include <{h}>\n"))
            .collect()
    }

    /// The region's macros and helpers, made device code.
    pub fn before(&self) -> String {
        let s = self.edits.apply(self.parsed.src, self.nest.before.clone());
        if s.trim().is_empty() {
            String::new()
        } else {
            format!("{}\n", s.trim_end())
        }
    }

    /// The kernel's parameter list: the entry point's.
    pub fn params(&self) -> String {
        let sig = self.region.signature_named("co");
        sig.trim_start_matches("void co(")
            .trim_end_matches(')')
            .to_string()
    }

    pub fn args(&self) -> String {
        self.region
            .params
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub fn kernel_name(&self, part: &str) -> String {
        format!("{}_port_{part}", self.region.name)
    }

    pub fn entry(&self) -> String {
        self.region.signature_named(&self.region.gpu_entry_name())
    }

    /// The declarations before the loop, once per thread.
    pub fn prelude(&self) -> String {
        self.nest
            .prelude
            .iter()
            .map(|r| format!("    {}\n", self.edits.apply(self.parsed.src, r.clone())))
            .collect()
    }

    /// The statements after the loop (a reduction's write-out), with the kind's rewrites.
    pub fn after(&self) -> String {
        self.nest
            .after
            .iter()
            .map(|r| format!("    {}\n", self.edits.apply(self.parsed.src, r.clone())))
            .collect()
    }

    /// The loop body with the kind's rewrites.
    pub fn body(&self) -> String {
        self.edits.apply(self.parsed.src, self.nest.body.clone())
    }

    /// Sets a counter, and the variables its header steps beside it, from the iteration number `t`.
    pub fn counter(c: &Counted, t: &str) -> String {
        let set = |var: &str, ty: &Option<String>, start: &str, step: i64| {
            let value = format!("({start}) + {t} * ({step}LL)");
            match ty {
                Some(ty) => format!("{ty} {var} = ({ty})({value});"),
                None => format!("{var} = {value};"),
            }
        };
        let mut out = set(&c.var, &c.decl_type, &c.start, c.step);
        for m in &c.companions {
            out.push(' ');
            out.push_str(&set(&m.var, &m.decl_type, &m.start, m.step));
        }
        out
    }

    /// Whether an expression of the loop header can be computed by the launcher (it reads only
    /// scalar parameters).
    pub fn host_computable(&self, c: &Counted) -> bool {
        c.reads.iter().all(|r| {
            self.region
                .params
                .iter()
                .any(|p| &p.name == r && !p.is_array)
        })
    }

    /// A grid size for `trips` threads of `per_block`, capped; a fixed grid when the trip count
    /// is only known on the device.
    pub fn blocks(&self, c: &Counted, per_block: u32, cap: u32) -> String {
        if self.host_computable(c) {
            format!(
                "    const long long port_trips = {};\n    if (port_trips <= 0) return;\n    long long port_blocks = (port_trips + {}) / {per_block};\n    if (port_blocks > {cap}) port_blocks = {cap};\n",
                c.trips,
                per_block - 1
            )
        } else {
            format!("    const long long port_blocks = {cap};\n")
        }
    }

    /// A reduction's grid: one thread per iteration, at most 1056 blocks (8 per SM of the largest
    /// GPUs: the partials each block leaves stay few).
    pub fn reduction_blocks(&self) -> String {
        let outer = &self.nest.outer;
        if self.host_computable(outer) {
            format!(
                "    long long port_blocks = ({} + {}) / {BLOCK};\n    if (port_blocks < 1) port_blocks = 1;\n    if (port_blocks > 1056) port_blocks = 1056;\n",
                outer.trips,
                BLOCK - 1
            )
        } else {
            "    const long long port_blocks = 1056;\n".to_string()
        }
    }

    /// `for` over this thread's iterations of the outer loop, 1-D.
    pub fn grid_stride(&self, inside: &str) -> String {
        let c = &self.nest.outer;
        format!(
            "    const long long port_trips = {trips};\n    for (long long port_t = (long long)blockIdx.x * blockDim.x + threadIdx.x; port_t < port_trips; port_t += (long long)gridDim.x * blockDim.x) {{\n        {counter}\n{inside}    }}\n",
            trips = c.trips,
            counter = Self::counter(c, "port_t"),
        )
    }

    /// Whether the inner loop of the nest is itself parallel (its iterations write distinct
    /// places and read nothing another writes), by the analysis of the serial function.
    pub fn inner_independent(&self) -> bool {
        let Some(line) = self.nest.inner_line else {
            return false;
        };
        let report = crate::analysis::analyze_source(
            self.parsed.src.as_bytes(),
            crate::analysis::Language::Cpp,
        );
        report.loops.iter().any(|l| {
            l.line == line && l.parallel && matches!(l.kind, LoopKind::Map | LoopKind::Stencil)
        })
    }

    /// Why the analysis of the serial function finds the mapped loop sequential (a loop-carried
    /// dependence), if it does: a declared kind (a benchmark task's) is checked against it, so a
    /// serial loop declared a map gets no port that races.
    ///
    /// A region outlined from a user's file (no declared sizes) keeps the kind that the analysis
    /// of the whole file found: that analysis saw the enclosing loops' ranges (`0 <= jj < depth`)
    /// that the region's function alone only gets as inputs, so it is not second-guessed here.
    pub fn outer_dependence(&self) -> Option<String> {
        self.region.sizes.as_ref()?;
        let line = self.nest.outer_line;
        let report = crate::analysis::analyze_source(
            self.parsed.src.as_bytes(),
            crate::analysis::Language::Cpp,
        );
        report
            .loops
            .iter()
            .find(|l| l.line == line)
            .filter(|l| !l.parallel && l.kind == LoopKind::Sequential)
            .map(|l| l.reason.clone())
    }

    /// A map or stencil: every iteration as it is, one per thread.
    pub fn map(&self, two_d: bool) -> String {
        let k = self.kernel_name("kernel");
        let (kernel, launch) = match (&self.nest.inner, &self.nest.inner_body, two_d) {
            (Some(inner), Some(inner_body), true) => {
                let body = self.edits.apply(self.parsed.src, inner_body.clone());
                let outer = &self.nest.outer;
                let kernel = format!(
                    "__global__ void {k}({params}) {{\n{prelude}    const long long port_rows = {rows};\n    const long long port_cols = {cols};\n    for (long long port_y = (long long)blockIdx.y * blockDim.y + threadIdx.y; port_y < port_rows; port_y += (long long)gridDim.y * blockDim.y) {{\n        {oc}\n        for (long long port_x = (long long)blockIdx.x * blockDim.x + threadIdx.x; port_x < port_cols; port_x += (long long)gridDim.x * blockDim.x) {{\n            {ic}\n            {body}\n        }}\n    }}\n}}\n",
                    params = self.params(),
                    prelude = self.prelude(),
                    rows = outer.trips,
                    cols = inner.trips,
                    oc = Self::counter(outer, "port_y"),
                    ic = Self::counter(inner, "port_x"),
                );
                let grid = if self.host_computable(outer) && self.host_computable(inner) {
                    format!(
                        "    const long long port_rows = {};\n    const long long port_cols = {};\n    if (port_rows <= 0 || port_cols <= 0) return;\n    long long port_gx = (port_cols + 31) / 32, port_gy = (port_rows + 7) / 8;\n    if (port_gx > 4096) port_gx = 4096;\n    if (port_gy > {MAX_BLOCKS}) port_gy = {MAX_BLOCKS};\n",
                        outer.trips, inner.trips
                    )
                } else {
                    "    const long long port_gx = 64, port_gy = 256;\n".to_string()
                };
                let launch = format!(
                    "{grid}    {k}<<<dim3((unsigned)port_gx, (unsigned)port_gy), dim3(32, 8)>>>({args});\n",
                    args = self.args()
                );
                (kernel, launch)
            }
            _ => {
                let body = self.body();
                let kernel = format!(
                    "__global__ void {k}({params}) {{\n{prelude}{lp}}}\n",
                    params = self.params(),
                    prelude = self.prelude(),
                    lp = self.grid_stride(&format!("        {body}\n")),
                );
                let launch = format!(
                    "{}    {k}<<<(unsigned)port_blocks, {BLOCK}>>>({args});\n",
                    self.blocks(&self.nest.outer, BLOCK, MAX_BLOCKS * 16),
                    args = self.args()
                );
                (kernel, launch)
            }
        };
        format!("\n{kernel}\n{} {{\n{launch}}}\n", self.entry())
    }
}

/// `if (c) break;` or `if (c) { ...; break; }`, without an else.
fn ends_an_if_branch(brk: tree_sitter::Node) -> bool {
    let Some(parent) = brk.parent() else {
        return false;
    };
    let branch = if parent.kind() == "compound_statement" {
        let mut c = parent.walk();
        if parent.named_children(&mut c).last().map(|l| l.id()) != Some(brk.id()) {
            return false;
        }
        parent
    } else {
        brk
    };
    branch.parent().is_some_and(|u| {
        u.kind() == "if_statement"
            && u.child_by_field_name("alternative").is_none()
            && u.child_by_field_name("consequence")
                .is_some_and(|c| c.id() == branch.id())
    })
}
