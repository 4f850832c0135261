//! Which sizes, seeds and input distributions a candidate is checked and timed on.
//!
//! A region that declares its shapes (a task's `[sizes]`) is checked and timed at exactly those.
//! Otherwise all size parameters move together with one scale `s`: the small sizes are chosen by
//! the iteration count (so `n*n` nests stay cheap), the timed size by a working set of ~256 MB
//! (BENCHMARKING.md) capped by iterations (so the float64 reference stays fast).

use std::collections::HashMap;

use serde::Serialize;

use crate::analysis::{OffloadRegion, RegionParam, SizeTable};

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ExprError {
    #[error("cannot evaluate `{expr}`: {reason}")]
    Bad { expr: String, reason: String },
}

/// Evaluates the small C expressions regions use for extents and work (`n*m`, `(n-2)*(m-2)`,
/// `nbins`, `1`) over integer/real values. Unknown identifiers are an error.
pub fn eval(expr: &str, vars: &HashMap<String, f64>) -> Result<f64, ExprError> {
    let tokens = tokenize(expr).map_err(|reason| ExprError::Bad {
        expr: expr.into(),
        reason,
    })?;
    let mut p = Parser {
        tokens: &tokens,
        pos: 0,
        vars,
    };
    let v = p.sum().map_err(|reason| ExprError::Bad {
        expr: expr.into(),
        reason,
    })?;
    if p.pos != tokens.len() {
        return Err(ExprError::Bad {
            expr: expr.into(),
            reason: "trailing tokens".into(),
        });
    }
    Ok(v)
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64),
    Ident(String),
    Op(char),
}

fn tokenize(s: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || c == '.' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            let trimmed = text.trim_end_matches(['u', 'U', 'l', 'L', 'f', 'F']);
            let v = if let Some(hex) = trimmed.strip_prefix("0x") {
                i64::from_str_radix(hex, 16).map(|v| v as f64).ok()
            } else {
                trimmed.parse::<f64>().ok()
            };
            out.push(Tok::Num(v.ok_or(format!("bad number `{text}`"))?));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == ':')
            {
                i += 1;
            }
            out.push(Tok::Ident(chars[start..i].iter().collect()));
        } else if "+-*/()%".contains(c) {
            out.push(Tok::Op(c));
            i += 1;
        } else {
            return Err(format!("unexpected `{c}`"));
        }
    }
    Ok(out)
}

struct Parser<'a> {
    tokens: &'a [Tok],
    pos: usize,
    vars: &'a HashMap<String, f64>,
}

impl Parser<'_> {
    fn sum(&mut self) -> Result<f64, String> {
        let mut v = self.product()?;
        while let Some(Tok::Op(c @ ('+' | '-'))) = self.tokens.get(self.pos) {
            self.pos += 1;
            let r = self.product()?;
            v = if *c == '+' { v + r } else { v - r };
        }
        Ok(v)
    }

    fn product(&mut self) -> Result<f64, String> {
        let mut v = self.unary()?;
        while let Some(Tok::Op(c @ ('*' | '/' | '%'))) = self.tokens.get(self.pos) {
            self.pos += 1;
            let r = self.unary()?;
            v = match c {
                '*' => v * r,
                // C integer division: the sizes are integers.
                '/' if r != 0.0 => (v / r).trunc(),
                '%' if r != 0.0 => v % r,
                _ => return Err("division by zero".into()),
            };
        }
        Ok(v)
    }

    fn unary(&mut self) -> Result<f64, String> {
        match self.tokens.get(self.pos) {
            Some(Tok::Op('-')) => {
                self.pos += 1;
                Ok(-self.unary()?)
            }
            Some(Tok::Op('+')) => {
                self.pos += 1;
                self.unary()
            }
            Some(Tok::Op('(')) => {
                self.pos += 1;
                let v = self.sum()?;
                if self.tokens.get(self.pos) != Some(&Tok::Op(')')) {
                    return Err("missing `)`".into());
                }
                self.pos += 1;
                Ok(v)
            }
            Some(Tok::Num(v)) => {
                self.pos += 1;
                Ok(*v)
            }
            Some(Tok::Ident(name)) => {
                self.pos += 1;
                self.vars
                    .get(name)
                    .copied()
                    .ok_or(format!("unknown name `{name}`"))
            }
            _ => Err("expression ends early".into()),
        }
    }
}

/// Bytes of one element of a C type as regions write it.
pub fn type_size(ty: &str) -> usize {
    match ty.trim() {
        "char" | "signed char" | "unsigned char" | "bool" | "int8_t" | "uint8_t"
        | "std::int8_t" | "std::uint8_t" => 1,
        "short" | "unsigned short" | "int16_t" | "uint16_t" | "__half" | "half" => 2,
        "int" | "unsigned" | "unsigned int" | "float" | "int32_t" | "uint32_t" | "std::int32_t"
        | "std::uint32_t" => 4,
        "long double" => 16,
        _ => 8,
    }
}

pub fn is_float_type(ty: &str) -> bool {
    matches!(ty.trim(), "float" | "double" | "long double")
}

/// One correctness case: one size and one seed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Case {
    pub sizes: Vec<(String, i64)>,
    pub seed: u64,
    /// 0: uniform in [-1, 1] (small ints); 1: wide magnitudes 1e-3..1e3 with both signs (wider ints).
    pub dist: u32,
}

impl Case {
    pub fn describe_size(&self) -> String {
        self.sizes
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// The full schedule: correctness cases, the timed size, and which timed samples are re-checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    pub cases: Vec<Case>,
    pub timed: Case,
    /// Seeds of timed samples are `timed.seed + i`; these indices (all < `min_samples`) get their
    /// outputs written and compared with the reference.
    pub checked_samples: Vec<usize>,
    pub min_samples: usize,
    pub max_samples: usize,
    pub warmups: usize,
    pub iterations_timed: f64,
    pub bytes_timed: f64,
}

/// Working set of the timed size (BENCHMARKING.md: ≥256 MB).
const TIMED_BYTES: f64 = 256.0 * 1024.0 * 1024.0;
/// Iteration cap of the timed size, so the serial and float64 references stay in seconds.
const TIMED_ITERATIONS: f64 = (1u64 << 25) as f64;

fn size_vars(region: &OffloadRegion, s: i64) -> HashMap<String, f64> {
    let mut vars = HashMap::new();
    for p in &region.params {
        if p.is_size {
            vars.insert(p.name.clone(), s as f64);
        } else if !p.is_array {
            // A non-size scalar in an extent (a bin count) is drawn from its range: assume its top.
            let v = p
                .input
                .as_ref()
                .and_then(|i| i.max.as_deref())
                .and_then(|m| m.trim().parse::<f64>().ok())
                .unwrap_or(1.0);
            vars.insert(p.name.clone(), v);
        }
    }
    vars
}

fn iterations_at(region: &OffloadRegion, s: i64) -> f64 {
    eval(&region.work.iterations, &size_vars(region, s)).unwrap_or(s as f64)
}

/// The expression variables at the given sizes (non-size scalars as in `size_vars`).
fn vars_at(region: &OffloadRegion, sizes: &[(String, i64)]) -> HashMap<String, f64> {
    let mut vars = size_vars(region, 1);
    for (n, v) in sizes {
        vars.insert(n.clone(), *v as f64);
    }
    vars
}

/// Bytes of all arrays at scale `s`.
pub fn array_bytes(region: &OffloadRegion, s: i64) -> f64 {
    bytes_with(region, &size_vars(region, s))
}

fn bytes_with(region: &OffloadRegion, vars: &HashMap<String, f64>) -> f64 {
    region
        .params
        .iter()
        .filter(|p| p.is_array)
        .map(|p| {
            let ext = p
                .extent
                .as_deref()
                .and_then(|e| eval(e, vars).ok())
                .unwrap_or(1.0);
            ext.max(0.0) * type_size(&p.elem_type) as f64
        })
        .sum()
}

/// The smallest scale with at least `iters` iterations.
fn scale_for_iterations(region: &OffloadRegion, iters: f64) -> i64 {
    let (mut lo, mut hi) = (1i64, 1i64 << 31);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if iterations_at(region, mid) >= iters {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// The largest scale within the timed working set and iteration cap.
fn timed_scale(region: &OffloadRegion) -> i64 {
    let (mut lo, mut hi) = (1i64, 1i64 << 31);
    while lo < hi {
        let mid = lo + (hi - lo + 1) / 2;
        if array_bytes(region, mid) <= TIMED_BYTES && iterations_at(region, mid) <= TIMED_ITERATIONS
        {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// Moves `s` off multiples of 32 (and so of 256): tails must be handled.
fn ragged(s: i64) -> i64 {
    if s % 32 == 0 { s + 13 } else { s }
}

fn sizes_for(region: &OffloadRegion, s: i64) -> Vec<(String, i64)> {
    region
        .params
        .iter()
        .filter(|p| p.is_size)
        .map(|p| (p.name.clone(), s))
        .collect()
}

/// Values of the size parameters in the region's order, as `Case::sizes` holds them.
type Shape = Vec<(String, i64)>;

/// The declared shapes in the region's size-parameter order, or `None` if a table lacks one.
fn declared_sizes(region: &OffloadRegion, table: &SizeTable) -> Option<Shape> {
    region
        .params
        .iter()
        .filter(|p| p.is_size)
        .map(|p| table.get(&p.name).map(|v| (p.name.clone(), *v)))
        .collect()
}

/// Correctness cases and the timed size: the region's declared shapes if it has them, else one
/// scale for all size parameters.
fn sizes_of_plan(region: &OffloadRegion) -> (Vec<Shape>, Shape) {
    if let Some(d) = &region.sizes {
        let tests: Option<Vec<_>> = d.test.iter().map(|t| declared_sizes(region, t)).collect();
        match (tests, declared_sizes(region, &d.timed)) {
            (Some(tests), Some(timed)) if !tests.is_empty() => return (tests, timed),
            _ => tracing::warn!(
                "the declared sizes of `{}` do not name every size parameter: choosing sizes",
                region.name
            ),
        }
    }
    let a = ragged(scale_for_iterations(region, 500.0).max(37));
    let b = ragged(scale_for_iterations(region, 100_000.0).max(a + 1)) | 1;
    let b = if b % 32 == 0 { b + 2 } else { b };
    // One size that is a multiple of 256, as kernels are usually tuned for.
    let c = {
        let s = scale_for_iterations(region, 1_000_000.0).max(b + 1);
        (s + 255) / 256 * 256
    };
    let t = {
        let s = timed_scale(region).max(c);
        if s % 256 == 0 { s - 1 } else { s }
    };
    (
        [a, b, c].iter().map(|s| sizes_for(region, *s)).collect(),
        sizes_for(region, t),
    )
}

/// Seeds and sizes for a region; `salt` picks the re-checked timed samples (not shown to anyone).
pub fn plan_for(region: &OffloadRegion, salt: u64) -> Plan {
    let (tests, timed) = sizes_of_plan(region);
    let mut cases = Vec::new();
    let mut seed = 1;
    for sizes in tests {
        for dist in 0..2 {
            cases.push(Case {
                sizes: sizes.clone(),
                seed,
                dist,
            });
            seed += 1;
        }
    }
    let min_samples = 10;
    let mut picks = Vec::new();
    let mut x = salt ^ 0x9e37_79b9_7f4a_7c15;
    while picks.len() < 3 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let i = ((x >> 33) % min_samples as u64) as usize;
        if !picks.contains(&i) {
            picks.push(i);
        }
    }
    picks.sort();
    let vars = vars_at(region, &timed);
    let largest = timed.iter().map(|(_, v)| *v).max().unwrap_or(1) as f64;
    Plan {
        cases,
        iterations_timed: eval(&region.work.iterations, &vars).unwrap_or(largest),
        bytes_timed: bytes_with(region, &vars),
        timed: Case {
            sizes: timed,
            seed: 1000,
            dist: 0,
        },
        checked_samples: picks,
        min_samples,
        max_samples: 30,
        warmups: 3,
    }
}

impl Plan {
    /// Fewer timed samples (see `Protocol::Screening`); the re-checked samples stay three, drawn
    /// among the first five.
    pub fn screening(&mut self) {
        self.warmups = 2;
        self.min_samples = 5;
        self.max_samples = 10;
        let mut picks: Vec<usize> = self.checked_samples.iter().map(|i| i % 5).collect();
        picks.sort();
        picks.dedup();
        let mut next = 0;
        while picks.len() < 3 {
            if !picks.contains(&next) {
                picks.push(next);
            }
            next += 1;
        }
        picks.sort();
        self.checked_samples = picks;
    }
}

/// Compulsory work of the timed size: (bytes, flops) from the region's work estimate.
pub fn work_at(region: &OffloadRegion, case: &Case) -> Option<(f64, f64)> {
    let vars = vars_at(region, &case.sizes);
    let iters = eval(&region.work.iterations, &vars).ok()?;
    let bytes = iters * region.work.bytes_per_iteration;
    let flops = iters * region.work.ops_per_iteration;
    (bytes > 0.0 || flops > 0.0).then_some((bytes, flops))
}

/// Output params: everything written (arrays and accumulators).
pub fn outputs(region: &OffloadRegion) -> impl Iterator<Item = &RegionParam> {
    region
        .params
        .iter()
        .filter(|p| p.is_array && p.access != crate::analysis::Access::Read)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, f64)]) -> HashMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn evaluates_c_extents() {
        let v = vars(&[("n", 10.0), ("m", 7.0)]);
        assert_eq!(eval("n*m", &v).unwrap(), 70.0);
        assert_eq!(eval("(n - 2) * (m - 2)", &v).unwrap(), 40.0);
        assert_eq!(eval("n/3", &v).unwrap(), 3.0);
        assert_eq!(eval("1", &v).unwrap(), 1.0);
        assert_eq!(eval("-n + 1u", &v).unwrap(), -9.0);
        assert!(eval("n*", &v).is_err());
        assert!(eval("q", &v).is_err());
        assert!(eval("n ; rm", &v).is_err());
    }
}

#[cfg(test)]
mod plan_tests {
    use super::*;
    use crate::verify::testdata::{names, region};

    #[test]
    fn every_plan_meets_the_protocol() {
        for name in names() {
            let r = region(name);
            let p = plan_for(&r, 42);
            let sizes: Vec<i64> = p.cases.iter().map(|c| c.sizes[0].1).collect();
            let mut distinct = sizes.clone();
            distinct.dedup();
            assert!(distinct.len() >= 3, "{name}: {sizes:?}");
            assert!(sizes.iter().any(|s| s % 32 != 0), "{name}: {sizes:?}");
            assert!(sizes.iter().any(|s| s % 256 == 0), "{name}: {sizes:?}");
            let seeds: std::collections::BTreeSet<u64> = p.cases.iter().map(|c| c.seed).collect();
            assert!(seeds.len() >= 5, "{name}");
            assert!(p.cases.iter().any(|c| c.dist == 0) && p.cases.iter().any(|c| c.dist == 1));
            assert_eq!(p.checked_samples.len(), 3);
            assert!(p.checked_samples.iter().all(|i| *i < p.min_samples));
            assert!(
                p.timed.sizes[0].1 >= p.cases.last().unwrap().sizes[0].1,
                "{name}"
            );
            assert!(p.timed.sizes[0].1 % 256 != 0, "{name}");
            // Working set of the timed size: ≥256 MB unless the iteration cap binds first.
            assert!(
                p.bytes_timed >= 0.9 * TIMED_BYTES || p.iterations_timed >= 0.9 * TIMED_ITERATIONS,
                "{name}: {} bytes, {} iterations",
                p.bytes_timed,
                p.iterations_timed
            );
        }
    }

    #[test]
    fn screening_keeps_the_checks_and_shortens_the_timing() {
        for salt in 0..50 {
            let full = plan_for(&region("saxpy"), salt);
            let mut quick = full.clone();
            quick.screening();
            assert_eq!(quick.cases, full.cases, "correctness cases are the same");
            assert_eq!(quick.timed, full.timed);
            assert_eq!(
                (quick.warmups, quick.min_samples, quick.max_samples),
                (2, 5, 10)
            );
            assert_eq!(quick.checked_samples.len(), 3, "salt {salt}");
            let distinct: std::collections::BTreeSet<_> = quick.checked_samples.iter().collect();
            assert_eq!(
                distinct.len(),
                3,
                "salt {salt}: {:?}",
                quick.checked_samples
            );
            assert!(quick.checked_samples.iter().all(|&i| i < quick.min_samples));
        }
    }

    /// A histogram whose bin count is a size parameter, with the shapes a task would declare.
    fn declared_histogram(timed_nbins: Option<i64>) -> OffloadRegion {
        let mut r = region("histogram");
        for p in &mut r.params {
            if p.name == "nbins" {
                p.is_size = true;
            }
        }
        let table =
            |n: i64, nbins: i64| SizeTable::from([("n".into(), n), ("nbins".into(), nbins)]);
        let mut timed = SizeTable::from([("n".into(), 1 << 26)]);
        if let Some(b) = timed_nbins {
            timed.insert("nbins".into(), b);
        }
        r.sizes = Some(crate::analysis::DeclaredSizes {
            test: vec![table(1000, 7), table(4099, 64), table(65537, 256)],
            timed,
        });
        r
    }

    #[test]
    fn declared_sizes_are_checked_and_timed_as_declared() {
        let r = declared_histogram(Some(1024));
        let p = plan_for(&r, 3);
        let shapes: Vec<String> = p.cases.iter().map(Case::describe_size).collect();
        assert_eq!(
            shapes,
            [
                "n=1000,nbins=7",
                "n=1000,nbins=7",
                "n=4099,nbins=64",
                "n=4099,nbins=64",
                "n=65537,nbins=256",
                "n=65537,nbins=256"
            ]
        );
        assert!(p.cases.iter().any(|c| c.dist == 0) && p.cases.iter().any(|c| c.dist == 1));
        let seeds: std::collections::BTreeSet<u64> = p.cases.iter().map(|c| c.seed).collect();
        assert_eq!(seeds.len(), 6);
        // The region's parameter order, whatever order the table had.
        let names: Vec<&str> = r
            .params
            .iter()
            .filter(|p| p.is_size)
            .map(|p| p.name.as_str())
            .collect();
        let timed: Vec<&str> = p.timed.sizes.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(timed, names);
        assert_eq!(p.timed.describe_size(), format!("n={},nbins=1024", 1 << 26));
        // Work and bytes of the declared timed size: n iterations, n ints read and 1024 bins.
        assert_eq!(p.iterations_timed, (1u64 << 26) as f64);
        assert_eq!(p.bytes_timed, ((1u64 << 26) * 4 + 1024 * 4) as f64);
        assert_eq!(p.checked_samples.len(), 3);
    }

    #[test]
    fn declared_sizes_missing_a_parameter_fall_back_to_a_common_scale() {
        let r = declared_histogram(None);
        let mut chosen = r.clone();
        chosen.sizes = None;
        assert_eq!(plan_for(&r, 3), plan_for(&chosen, 3));
    }

    #[test]
    fn n_squared_nests_stay_small() {
        let p = plan_for(&region("compute_forces"), 1);
        let n = p.timed.sizes[0].1;
        assert!(n * n <= 1 << 25, "{n}");
        assert!(p.cases[0].sizes[0].1 < 100);
    }
}
