//! Host code made device code: the standard algorithms nvcc refuses in a kernel (`std::max` is a
//! constexpr host function) become the port's own, and the region's helpers are compiled for
//! both sides. Edits are byte ranges over the region's source, applied to any slice of it.

use std::ops::Range;

use super::nest::{Parsed, walk};

/// Replacements of byte ranges of the source.
#[derive(Default)]
pub struct Edits {
    edits: Vec<(Range<usize>, String)>,
}

impl Edits {
    pub fn replace(&mut self, range: Range<usize>, with: impl Into<String>) {
        self.edits.push((range, with.into()));
    }

    /// `src[range]` with the edits inside it applied (an edit overlapping an earlier one is
    /// dropped: the outer rewrite wins).
    pub fn apply(&self, src: &str, range: Range<usize>) -> String {
        let mut inside: Vec<&(Range<usize>, String)> = self
            .edits
            .iter()
            .filter(|(r, _)| r.start >= range.start && r.end <= range.end)
            .collect();
        // At one position, insertions first (they keep `at`), then the widest replacement.
        inside.sort_by_key(|(r, _)| (r.start, r.end != r.start, std::cmp::Reverse(r.end)));
        let mut out = String::new();
        let mut at = range.start;
        for (r, with) in inside {
            if r.start < at {
                continue;
            }
            out.push_str(&src[at..r.start]);
            out.push_str(with);
            at = r.end;
        }
        out.push_str(&src[at..range.end]);
        out
    }
}

/// Standard functions nvcc only has for the host, with the port's device versions.
const HOST_ONLY: &[(&str, &str)] = &[
    ("std::max", "port_max"),
    ("std::min", "port_min"),
    ("std::swap", "port_swap"),
];

/// Device versions of [`HOST_ONLY`], with the standard's semantics.
pub const HELPERS: &str = "\
template <typename T> __host__ __device__ inline const T& port_max(const T& a, const T& b) { return (a < b) ? b : a; }
template <typename T> __host__ __device__ inline const T& port_min(const T& a, const T& b) { return (b < a) ? b : a; }
template <typename T> __host__ __device__ inline void port_swap(T& a, T& b) { T t = a; a = b; b = t; }
";

/// Rewrites every host-only call of the source and marks each function defined before the
/// region's own (its helpers) `__host__ __device__`.
pub fn make_device(p: &Parsed, before: &Range<usize>, edits: &mut Edits) {
    walk(p.root(), &mut |n| {
        if n.kind() == "qualified_identifier" {
            let text: String = p.text(n).split_whitespace().collect();
            if let Some((_, ours)) = HOST_ONLY.iter().find(|(std, _)| *std == text) {
                edits.replace(n.byte_range(), *ours);
            } else if text.starts_with("std::numeric_limits<")
                && n.parent()
                    .is_none_or(|pa| pa.kind() != "qualified_identifier")
            {
                // The standard's limits are constexpr host functions; libcu++'s are the same
                // values for both sides.
                let at = n.start_byte();
                edits.replace(at..at, "cuda::");
            }
        }
        if n.kind() == "function_definition" && n.end_byte() <= before.end {
            let at = n.start_byte();
            edits.replace(at..at, "__host__ __device__ ");
        }
    });
}
