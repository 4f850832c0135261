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
    /// 0: uniform in [-1, 1] (small ints); 1: wide magnitudes 1e-3..1e3 with both signs (wider
    /// ints); 2: special values (±0, subnormals, large magnitudes; small ints with zeros).
    pub dist: u32,
    pub role: Role,
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

/// The full schedule: correctness cases, the timed size and how many timed samples run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    pub cases: Vec<Case>,
    pub timed: Case,
    /// Seeds of timed samples are `timed.seed + i`; which of them are compared with the
    /// reference is drawn while they arrive (`drawn_samples` of them, and the last one).
    pub min_samples: usize,
    pub max_samples: usize,
    pub warmups: usize,
    pub iterations_timed: f64,
    pub bytes_timed: f64,
    /// Bytes the verifier keeps of one timed sample's outputs (every element widened to 8 bytes).
    pub sample_output_bytes: f64,
    /// Where every seed of this plan came from (reported, so a run can be repeated).
    pub run_seed: u64,
    /// Cases the serial code itself fails on (indices into `cases`, with why): not checked.
    pub dropped: Vec<(usize, String)>,
}

impl Plan {
    /// Indices of the cases still checked.
    pub fn live_cases(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.cases.len()).filter(|i| !self.dropped.iter().any(|(d, _)| d == i))
    }
}

/// Working set of the timed size (BENCHMARKING.md: ≥256 MB).
const TIMED_BYTES: f64 = 256.0 * 1024.0 * 1024.0;
/// Iteration cap of the timed size, so the serial and float64 references stay in seconds.
const TIMED_ITERATIONS: f64 = (1u64 << 25) as f64;

/// Largest common scale tried: every size and `size + c` stays far inside a C `int`, and a
/// nest whose iteration count stops growing with the scale cannot push sizes to 2^31 (where
/// `y_max + 2` overflows and the loop runs no iteration).
const MAX_SCALE: i64 = 1 << 25;

/// Values lower-bound sizes take in the cases (a Fortran-style `x_min` is 1); never 0, so an
/// `a[j - 1]` from `j = x_min` stays inside the array as it does in the program.
const LOWER_VALUES: [i64; 5] = [1, 2, 3, 5, 7];

/// Most size parameters whose split into scaled sizes and lower bounds is searched (2^k splits).
const MAX_SIZES_SEARCHED: usize = 10;

/// How the sizes of a region move together: the sizes that grow the iteration count share one
/// scale `s`; a size that shrinks it (`x_min` of `x_min..=x_max`, `k` of `i < n - k`) is a lower
/// bound or an offset, kept small, as giving it the common scale empties the nest.
struct Scaling<'a> {
    region: &'a OffloadRegion,
    lower: Vec<String>,
}

impl<'a> Scaling<'a> {
    fn new(region: &'a OffloadRegion) -> Self {
        let none = Scaling {
            region,
            lower: Vec::new(),
        };
        let names = size_names(region);
        if names.len() > MAX_SIZES_SEARCHED {
            return none;
        }
        // Which sizes are lower bounds is a joint property: `(x - 2*h)*(y - 2*h)` at one common
        // value shrinks as `x` grows. Try every split into scaled sizes (at `BASE`) and lower
        // bounds (at 1) and keep the one with the fewest lower bounds where the nest iterates,
        // grows with the scale, every scaled size grows it and every lower bound shrinks it.
        const BASE: f64 = 4096.0;
        const BUMP: f64 = 64.0;
        let template = none.vars(1);
        let at = |lower: u32, scale: f64, bumped: Option<usize>| {
            let mut vars = template.clone();
            for (i, n) in names.iter().enumerate() {
                let low = lower & (1 << i) != 0;
                let v = if low { 1.0 } else { scale };
                let v = if bumped == Some(i) { v + BUMP } else { v };
                vars.insert(n.clone(), v);
            }
            eval(&region.work.iterations, &vars).ok()
        };
        let consistent = |lower: u32| -> Option<f64> {
            let it = at(lower, BASE, None)?;
            let grows = at(lower, 2.0 * BASE, None)? > it;
            let each = (0..names.len()).all(|i| {
                let low = lower & (1 << i) != 0;
                at(lower, BASE, Some(i)).is_some_and(|b| if low { b < it } else { b >= it })
            });
            (it >= 1.0 && grows && each).then_some(it)
        };
        let best = (0..1u32 << names.len())
            .filter_map(|m| consistent(m).map(|it| (m, it)))
            .min_by(|a, b| (a.0.count_ones().cmp(&b.0.count_ones())).then(b.1.total_cmp(&a.1)));
        match best {
            Some((mask, _)) => Scaling {
                region,
                lower: names
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| mask & (1 << i) != 0)
                    .map(|(_, n)| n.clone())
                    .collect(),
            },
            None => none,
        }
    }

    fn is_lower(&self, name: &str) -> bool {
        self.lower.iter().any(|l| l == name)
    }

    /// The sizes that share the scale, in the region's order.
    fn scaled_names(&self) -> Vec<String> {
        size_names(self.region)
            .into_iter()
            .filter(|n| !self.is_lower(n))
            .collect()
    }

    /// Expression variables at scale `s` (lower bounds at 1).
    fn vars(&self, s: i64) -> HashMap<String, f64> {
        vars_with(self.region, |n| if self.is_lower(n) { 1 } else { s })
    }

    fn iterations_at(&self, s: i64) -> f64 {
        eval(&self.region.work.iterations, &self.vars(s)).unwrap_or(s as f64)
    }

    fn bytes_at(&self, s: i64) -> f64 {
        bytes_with(self.region, &self.vars(s))
    }

    /// The smallest scale with at least `iters` iterations (at most `MAX_SCALE`).
    fn for_iterations(&self, iters: f64) -> i64 {
        let (mut lo, mut hi) = (1i64, MAX_SCALE);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.iterations_at(mid) >= iters {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// The largest scale within the timed working set and iteration cap.
    fn timed(&self) -> i64 {
        let (mut lo, mut hi) = (1i64, MAX_SCALE);
        while lo < hi {
            let mid = lo + (hi - lo + 1) / 2;
            if self.bytes_at(mid) <= TIMED_BYTES && self.iterations_at(mid) <= TIMED_ITERATIONS {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    }

    /// `shape` over the scaled sizes, completed with the lower bounds at `lower(j)` (j-th lower
    /// bound) and put in the region's order.
    fn complete(&self, shape: Shape, lower: impl Fn(usize) -> i64) -> Shape {
        size_names(self.region)
            .into_iter()
            .map(|n| {
                let v = match self.lower.iter().position(|l| *l == n) {
                    Some(j) => lower(j),
                    None => shape.iter().find(|(s, _)| *s == n).map_or(1, |(_, v)| *v),
                };
                (n, v)
            })
            .collect()
    }
}

/// Expression variables with each size at `size(name)`; a non-size scalar in an extent (a bin
/// count) is drawn from its range, so it is taken at its top.
fn vars_with(region: &OffloadRegion, size: impl Fn(&str) -> i64) -> HashMap<String, f64> {
    let mut vars = HashMap::new();
    for p in &region.params {
        if p.is_size {
            vars.insert(p.name.clone(), size(&p.name) as f64);
        } else if !p.is_array {
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

/// The expression variables at the given sizes (a size not given at 1).
fn vars_at(region: &OffloadRegion, sizes: &[(String, i64)]) -> HashMap<String, f64> {
    vars_with(region, |n| {
        sizes.iter().find(|(s, _)| s == n).map_or(1, |(_, v)| *v)
    })
}

/// Bytes of array `p` at `vars` (`None` where its extent does not evaluate).
fn array_bytes(
    region: &OffloadRegion,
    p: &RegionParam,
    vars: &HashMap<String, f64>,
) -> Option<f64> {
    let ext = eval(p.extent.as_deref()?, vars).ok()?;
    Some(ext.max(0.0) * elem_bytes(region, &p.elem_type) as f64)
}

/// Bytes of all arrays (one element where an extent does not evaluate).
fn bytes_with(region: &OffloadRegion, vars: &HashMap<String, f64>) -> f64 {
    region
        .params
        .iter()
        .filter(|p| p.is_array)
        .map(|p| array_bytes(region, p, vars).unwrap_or(elem_bytes(region, &p.elem_type) as f64))
        .sum()
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

fn size_names(region: &OffloadRegion) -> Vec<String> {
    region
        .params
        .iter()
        .filter(|p| p.is_size)
        .map(|p| p.name.clone())
        .collect()
}

fn shape_of(names: &[String], values: &[i64]) -> Shape {
    names.iter().cloned().zip(values.iter().copied()).collect()
}

fn iterations_of(region: &OffloadRegion, shape: &Shape) -> f64 {
    let largest = shape.iter().map(|(_, v)| *v).max().unwrap_or(1) as f64;
    eval(&region.work.iterations, &vars_at(region, shape)).unwrap_or(largest)
}

/// Iterations a correctness case may cost: the serial reference runs it, in float64 as well.
const CASE_ITERATIONS: f64 = 4.0e6;
/// Bytes a correctness case may allocate: an extent that grows faster than the iteration count
/// (`iouter*(NONZER + 1) + nzv` over `nzv` iterations) must not exhaust the reference's memory.
const CASE_BYTES: f64 = TIMED_BYTES;

fn fits_a_case(region: &OffloadRegion, shape: &Shape) -> bool {
    iterations_of(region, shape) <= CASE_ITERATIONS
        && bytes_with(region, &vars_at(region, shape)) <= CASE_BYTES
}

/// Shrinks the largest sizes of `shape` until it fits the case budget (a rectangular shape with
/// one huge side must not turn an `n*m` nest into minutes of serial code).
fn within_budget(region: &OffloadRegion, mut shape: Shape) -> Shape {
    for _ in 0..64 {
        if fits_a_case(region, &shape) {
            break;
        }
        let Some(big) = shape.iter_mut().max_by_key(|(_, v)| *v) else {
            break;
        };
        if big.1 <= 2 {
            break;
        }
        // Keep the residue the shape was chosen for (n ≡ 1 mod 256 stays so) where possible.
        big.1 = if big.1 > 1024 {
            (big.1 / 2) / 256 * 256 + big.1 % 256
        } else {
            big.1 / 2 + 1
        };
    }
    shape
}

fn is_prime(n: i64) -> bool {
    n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| n % d != 0)
}

/// The first prime at or above `n`.
fn prime_at_least(n: i64) -> i64 {
    (n.max(2)..).find(|&p| is_prime(p)).unwrap_or(n)
}

/// `base` moved up to the residue `r` modulo `m`.
fn with_residue(base: i64, m: i64, r: i64) -> i64 {
    let q = (base.max(1) + m - 1) / m;
    q * m + r
}

/// What a correctness case is for; a held-out case is never named to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    #[default]
    Standard,
    /// Sizes 1 and 2: launch grids of one thread, empty tails.
    Edge,
    /// Inputs with signed zeros, subnormals and large magnitudes.
    Special,
    /// Drawn from the run's seed; failures on it are reported without its shape.
    HeldOut,
}

/// The shapes a region is checked on, each size parameter drawn on its own: sizes 1 and 2,
/// primes, n ≡ 1 and 31 (mod 32 and mod 256), one side 1, rectangles with either side long, a
/// multiple of 256 (what kernels are tuned for), and a held-out shape from `rng`.
fn planned_shapes(scaling: &Scaling, rng: &mut u64) -> Vec<(Shape, Role)> {
    let region = scaling.region;
    let names = scaling.scaled_names();
    let k = names.len();
    let small = scaling.for_iterations(500.0).max(37);
    let mid = scaling.for_iterations(100_000.0).max(small + 1);
    let large = scaling.for_iterations(1_000_000.0).max(mid + 1);
    let mut out: Vec<(Shape, Role)> = Vec::new();
    let all = |v: i64| vec![v; k];
    out.push((shape_of(&names, &all(1)), Role::Edge));
    out.push((shape_of(&names, &all(2)), Role::Edge));
    // Distinct primes per parameter: a kernel that swaps two sizes or assumes a square fails.
    let primes: Vec<i64> = (0..k as i64)
        .scan(small, |next, _| {
            let p = prime_at_least(*next);
            *next = p + 6;
            Some(p)
        })
        .collect();
    out.push((shape_of(&names, &primes), Role::Standard));
    // Parameter j of k: `base + step*j` moved up to the residue `r(j)` modulo `m`.
    let spread = |base: i64, step: i64, m: i64, r: &dyn Fn(i64) -> i64| -> Vec<i64> {
        (0..k as i64)
            .map(|j| with_residue(base + step * j, m, r(j)))
            .collect()
    };
    out.push((
        shape_of(&names, &spread(mid, 40, 256, &|_| 1)),
        Role::Standard,
    ));
    let thirty_ones = spread(mid, 64, 256, &|j| 255 - 32 * (j % 4));
    out.push((shape_of(&names, &thirty_ones), Role::Standard));
    // ≡ 1 (mod 32) but not (mod 256): 33 (mod 256).
    let ones_32 = spread(small, 8, 256, &|j| 33 + 64 * (j % 3));
    out.push((shape_of(&names, &ones_32), Role::Special));
    if k >= 2 {
        for j in 0..k {
            // One side long (≡ 1 mod 256), the others small primes; then that side 1.
            let mut long = primes.clone();
            long[j] = with_residue(large, 256, 1);
            out.push((shape_of(&names, &long), Role::Standard));
            let mut one = vec![mid; k];
            one[j] = 1;
            out.push((shape_of(&names, &one), Role::Edge));
        }
    }
    out.push((
        shape_of(&names, &spread(large, 512, 256, &|_| 0)),
        Role::Standard,
    ));
    let held: Vec<i64> = (0..k)
        .map(|_| {
            let span = (mid - small).max(64);
            let v = small + (next_u64(rng) % span as u64) as i64;
            prime_at_least(v)
        })
        .collect();
    out.push((shape_of(&names, &held), Role::HeldOut));
    // Lower bounds: 1 in the edge shapes (2 in the all-2 one), so a side of 1 is one wide; else
    // cycling through small values, each lower bound its own; the held-out shape draws them.
    let held_lower: Vec<i64> = (0..scaling.lower.len())
        .map(|_| LOWER_VALUES[(next_u64(rng) % LOWER_VALUES.len() as u64) as usize])
        .collect();
    let mut seen = std::collections::HashSet::new();
    out.into_iter()
        .enumerate()
        .map(|(i, (shape, role))| {
            let lower = |j: usize| match (i, role) {
                (1, _) => 2,
                (_, Role::Edge) => 1,
                (_, Role::HeldOut) => held_lower[j],
                _ => LOWER_VALUES[(i + j) % LOWER_VALUES.len()],
            };
            let shape = within_budget(region, scaling.complete(shape, lower));
            (within_ranges(region, shape), role)
        })
        .filter(|(s, _)| seen.insert(s.clone()))
        .collect()
}

/// The timed shape: the largest common scale within the working set, not a multiple of 256;
/// lower bounds at 1.
fn timed_shape(scaling: &Scaling) -> Shape {
    let region = scaling.region;
    let large = scaling.for_iterations(1_000_000.0);
    // At least the largest case's scale, unless its arrays would not fit a case either.
    let s = if scaling.bytes_at(large) <= CASE_BYTES {
        scaling.timed().max(large)
    } else {
        scaling.timed()
    };
    let s = if s % 256 == 0 { s - 1 } else { s };
    let scaled = scaling.scaled_names().into_iter().map(|n| (n, s)).collect();
    within_ranges(region, scaling.complete(scaled, |_| 1))
}

/// A size with a declared range (an enclosing loop's counter, `k` in `y_min..=y_max`) moved
/// into it at the other sizes' values; where the range is empty, to its lower end.
fn within_ranges(region: &OffloadRegion, mut shape: Shape) -> Shape {
    for p in region.params.iter().filter(|p| p.is_size) {
        let Some(input) = &p.input else { continue };
        let vars = vars_at(region, &shape);
        let bound = |e: &Option<String>| e.as_deref().and_then(|e| eval(e, &vars).ok());
        let (lo, hi) = (bound(&input.min), bound(&input.max));
        if let Some((_, v)) = shape.iter_mut().find(|(n, _)| *n == p.name) {
            let mut x = *v as f64;
            if let Some(hi) = hi {
                x = x.min(hi);
            }
            if let Some(lo) = lo {
                x = x.max(lo);
            }
            *v = x as i64;
        }
    }
    shape
}

fn next_u64(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut x = *state;
    x = (x ^ (x >> 33)).wrapping_mul(0xff51afd7ed558ccd);
    x ^ (x >> 29)
}

/// Seeds and shapes for a region. `run_seed` is drawn per verifier run (and recorded in the
/// report): every seed, the held-out shape and the re-checked timed samples follow from it, so no
/// candidate can be tuned to them.
pub fn plan_for(region: &OffloadRegion, run_seed: u64) -> Plan {
    let mut rng = run_seed ^ 0x5851_f42d_4c95_7f2d;
    let declared = region.sizes.as_ref().and_then(|d| {
        let tests: Option<Vec<_>> = d.test.iter().map(|t| declared_sizes(region, t)).collect();
        match (tests, declared_sizes(region, &d.timed)) {
            (Some(tests), Some(timed)) if !tests.is_empty() => Some((tests, timed)),
            _ => {
                tracing::warn!(
                    "the declared sizes of `{}` do not name every size parameter: choosing sizes",
                    region.name
                );
                None
            }
        }
    });
    let mut cases = Vec::new();
    let mut add = |sizes: &Shape, dist: u32, role: Role, rng: &mut u64| {
        cases.push(Case {
            sizes: sizes.clone(),
            seed: next_u64(rng) >> 1,
            dist,
            role,
        });
    };
    let timed = match declared {
        // A task's declared shapes are its contract: checked as declared, both distributions.
        Some((tests, timed)) => {
            for sizes in &tests {
                add(sizes, 0, Role::Standard, &mut rng);
                add(sizes, 1, Role::Standard, &mut rng);
            }
            timed
        }
        None => {
            let scaling = Scaling::new(region);
            for (i, (sizes, role)) in planned_shapes(&scaling, &mut rng).iter().enumerate() {
                let dist = match role {
                    Role::Special => 2,
                    _ => (i % 2) as u32,
                };
                add(sizes, dist, *role, &mut rng);
            }
            timed_shape(&scaling)
        }
    };
    let min_samples = 10;
    let vars = vars_at(region, &timed);
    let largest = timed.iter().map(|(_, v)| *v).max().unwrap_or(1) as f64;
    Plan {
        cases,
        iterations_timed: eval(&region.work.iterations, &vars).unwrap_or(largest),
        bytes_timed: bytes_with(region, &vars),
        sample_output_bytes: outputs(region)
            .map(|p| {
                let ext = p.extent.as_deref().and_then(|e| eval(e, &vars).ok());
                ext.unwrap_or(1.0).max(1.0) * 8.0
            })
            .sum(),
        timed: Case {
            sizes: timed,
            seed: next_u64(&mut rng) >> 1,
            dist: 0,
            role: Role::Standard,
        },
        min_samples,
        max_samples: 30,
        warmups: 3,
        run_seed,
        dropped: Vec::new(),
    }
}

/// Disk for the kept outputs of one run's drawn timed samples (and, apart, for the reference's).
pub const SAMPLE_DISK_BUDGET: f64 = (1u64 << 30) as f64;

impl Plan {
    /// Fewer timed samples (see `Protocol::Screening`).
    pub fn screening(&mut self) {
        self.warmups = 2;
        self.min_samples = 5;
        self.max_samples = 10;
    }

    /// How many timed samples are compared with the reference besides the last: half of the
    /// most that can run, so at least half of those that did; fewer (never under 3) where that
    /// many samples' outputs would take more than `SAMPLE_DISK_BUDGET` of the verifier's disk
    /// (a 33M-element output is 268 MB a sample, and several candidates are verified at once).
    pub fn drawn_samples(&self) -> usize {
        let half = self.max_samples.div_ceil(2);
        let fit = (SAMPLE_DISK_BUDGET / self.sample_output_bytes.max(1.0)) as usize;
        fit.clamp(3.min(half), half)
    }
}

/// Compulsory work of the timed size: (bytes, flops) from the region's work estimate, the bytes
/// at most the arrays' footprint. The estimate counts every reference (a stencil's neighbours, a
/// histogram's bins, at the cost model's assumed sizes), so alone it could put the floor above
/// what a correct kernel reaches and reject it as impossibly fast; each element is moved at
/// least once, and no more than that is compulsory.
pub fn work_at(region: &OffloadRegion, case: &Case) -> Option<(f64, f64)> {
    let vars = vars_at(region, &case.sizes);
    let iters = eval(&region.work.iterations, &vars).ok()?;
    let estimate = iters * region.work.bytes_per_iteration;
    let bytes = footprint(region, &vars).map_or(estimate, |f| estimate.min(f));
    let flops = iters * region.work.ops_per_iteration;
    (bytes > 0.0 || flops > 0.0).then_some((bytes, flops))
}

/// Bytes of every array read once and written once (`None` where an extent does not evaluate).
fn footprint(region: &OffloadRegion, vars: &HashMap<String, f64>) -> Option<f64> {
    region
        .params
        .iter()
        .filter(|p| p.is_array)
        .map(|p| {
            let moves = if p.access == crate::analysis::Access::ReadWrite {
                2.0
            } else {
                1.0
            };
            Some(array_bytes(region, p, vars)? * moves)
        })
        .sum()
}

/// Output params: everything written (arrays and accumulators).
///
/// An array of structs is one output per scalar leaf (`a__x`, `a__lo_y`: `RegionRecord`).
pub fn outputs(region: &OffloadRegion) -> Box<dyn Iterator<Item = &RegionParam> + '_> {
    if region.types.records.is_empty() {
        Box::new(
            region
                .params
                .iter()
                .filter(|p| p.is_array && p.access != crate::analysis::Access::Read),
        )
    } else {
        Box::new(region.types.leaf_outputs(&region.params).iter())
    }
}

/// Bytes of one element of `ty`: a struct of the region by its leaves (padding not counted).
fn elem_bytes(region: &OffloadRegion, ty: &str) -> usize {
    match region.types.record(ty) {
        Some(r) => r
            .fields
            .iter()
            .map(|f| type_size(&f.ty) * f.count)
            .sum::<usize>()
            .max(1),
        None => type_size(ty),
    }
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
            let k = p.timed.sizes.len();
            let each = |f: &dyn Fn(&Case) -> bool| p.cases.iter().any(f);
            let all = |c: &Case, f: &dyn Fn(i64) -> bool| c.sizes.iter().all(|(_, v)| f(*v));
            assert!(each(&|c| all(c, &|v| v == 1)), "{name}: a size-1 case");
            assert!(each(&|c| all(c, &|v| v == 2)), "{name}: a size-2 case");
            assert!(
                each(&|c| all(c, &|v| v > 30 && is_prime(v))),
                "{name}: primes"
            );
            assert!(
                each(&|c| all(c, &|v| v % 256 == 1)),
                "{name}: n ≡ 1 (mod 256)"
            );
            assert!(
                each(&|c| all(c, &|v| v % 32 == 31)),
                "{name}: n ≡ 31 (mod 32)"
            );
            assert!(
                each(&|c| all(c, &|v| v % 32 == 1 && v % 256 != 1)),
                "{name}: n ≡ 1 (mod 32)"
            );
            assert!(
                each(&|c| all(c, &|v| v % 256 == 0 && v > 0)),
                "{name}: a tuned size"
            );
            assert!(
                each(&|c| c.role == Role::HeldOut),
                "{name}: a held-out shape"
            );
            assert!(each(&|c| c.dist == 2), "{name}: special values");
            if k >= 2 {
                // Every parameter on its own: rectangles both ways and one side 1.
                for j in 0..k {
                    assert!(
                        each(&|c| c
                            .sizes
                            .iter()
                            .enumerate()
                            .all(|(i, (_, v))| (i == j) == (*v > 1000))),
                        "{name}: side {j} long: {:?}",
                        p.cases
                    );
                    assert!(each(
                        &|c| c.sizes[j].1 == 1 && c.sizes.iter().any(|(_, v)| *v > 2)
                    ));
                }
                assert!(
                    each(&|c| c.sizes[0].1 != c.sizes[1].1 && c.sizes[0].1 > 2),
                    "{name}"
                );
            }
            for c in &p.cases {
                assert!(
                    iterations_of(&r, &c.sizes) <= CASE_ITERATIONS,
                    "{name}: {c:?}"
                );
            }
            let seeds: std::collections::BTreeSet<u64> = p.cases.iter().map(|c| c.seed).collect();
            assert_eq!(seeds.len(), p.cases.len(), "{name}: one seed per case");
            assert!(p.cases.iter().any(|c| c.dist == 0) && p.cases.iter().any(|c| c.dist == 1));
            let half = p.max_samples.div_ceil(2);
            let kept = p.drawn_samples() as f64 * p.sample_output_bytes;
            assert!(
                p.drawn_samples() == half || (p.drawn_samples() >= 3 && kept <= SAMPLE_DISK_BUDGET),
                "{name}: {} of {} samples, {} bytes each",
                p.drawn_samples(),
                p.max_samples,
                p.sample_output_bytes
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
    fn seeds_and_the_held_out_shape_follow_the_run_seed() {
        let r = region("saxpy");
        let (a, b) = (plan_for(&r, 1), plan_for(&r, 2));
        assert_eq!(plan_for(&r, 1), a, "a run seed repeats its plan");
        assert_ne!(a.timed.seed, b.timed.seed);
        let held = |p: &Plan| p.cases.iter().find(|c| c.role == Role::HeldOut).cloned();
        let shapes: std::collections::BTreeSet<String> = (0..20)
            .map(|s| held(&plan_for(&r, s)).unwrap().describe_size())
            .collect();
        assert!(shapes.len() > 5, "{shapes:?}");
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
            assert!(
                (3..=5).contains(&quick.drawn_samples()),
                "half of 10 at most"
            );
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
        assert_eq!(p.drawn_samples(), 15);
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

    /// Regions the outliner built from real code (docs/reports/verify/h200-2026-12-07c-new-regions).
    fn real(name: &str) -> OffloadRegion {
        let text = match name {
            "advec_cell" => include_str!("testdata/regions/real/cloverleaf_advec_cell_217.json"),
            "makea" => include_str!("testdata/regions/real/npb_cg_makea_681.json"),
            "jacobi" => include_str!("testdata/regions/real/tealeaf_jacobi_50.json"),
            "scale_x" => include_str!("testdata/regions/real/npb_cg_main_358.json"),
            _ => unreachable!(),
        };
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn lower_bounds_stay_small_and_every_case_iterates() {
        // CloverLeaf's `k = y_min..=y_max + 2`, `j = x_min..=x_max`: one common scale made every
        // range one or three wide, and pushed the sizes to 2^31, where `y_max + 2` overflows.
        let r = real("advec_cell");
        let p = plan_for(&r, 7);
        let get = |c: &Case, n: &str| c.sizes.iter().find(|(s, _)| s == n).unwrap().1;
        for c in p.cases.iter().chain([&p.timed]) {
            for lo in ["x_min", "y_min"] {
                assert!((1..=7).contains(&get(c, lo)), "{lo} in {c:?}");
            }
            for hi in ["x_max", "y_max"] {
                assert!(get(c, hi) < 1 << 25, "{hi} in {c:?}");
            }
            assert!(iterations_of(&r, &c.sizes) >= 1.0, "{c:?}");
        }
        let standard = p.cases.iter().filter(|c| c.role == Role::Standard);
        assert!(
            standard
                .clone()
                .all(|c| iterations_of(&r, &c.sizes) >= 100.0)
        );
        // Different lower bounds across the cases, and the upper bounds still drawn on their own.
        let lows: std::collections::BTreeSet<i64> =
            p.cases.iter().map(|c| get(c, "x_min")).collect();
        assert!(lows.len() >= 3, "{lows:?}");
        assert!(
            p.cases
                .iter()
                .any(|c| get(c, "x_max") > 1000 && get(c, "y_max") < 100)
        );
        assert!(
            p.cases
                .iter()
                .any(|c| get(c, "y_max") > 1000 && get(c, "x_max") < 100)
        );
        // Timed at a real working set: 7 arrays of (x_max+5)*(y_max+5) doubles near 256 MB.
        assert!(p.bytes_timed >= 0.5 * TIMED_BYTES, "{}", p.bytes_timed);
        assert_eq!(
            p.timed
                .sizes
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>(),
            ["x_min", "x_max", "y_min", "y_max"]
        );
    }

    #[test]
    fn an_extent_faster_than_the_iterations_is_capped_by_bytes() {
        // NPB CG's `acol[iouter*(NONZER + 1) + ivelt]` over `nzv` iterations: sized by
        // iterations alone, a case needed 10^12 elements and the serial reference ran out of memory.
        let r = real("makea");
        let p = plan_for(&r, 7);
        for c in p.cases.iter().chain([&p.timed]) {
            let bytes = bytes_with(&r, &vars_at(&r, &c.sizes));
            assert!(bytes <= CASE_BYTES, "{c:?}: {bytes}");
        }
        assert!(p.bytes_timed <= TIMED_BYTES);
        assert!(p.iterations_timed >= 1000.0, "{}", p.iterations_timed);
    }

    #[test]
    fn lower_bounds_are_found_jointly() {
        // TeaLeaf's `(y - 2*halo_depth)*(x - 2*halo_depth)`: at one common value the count
        // shrinks as `x` grows, which made `x` and `y` look like lower bounds (timed at x = y = 1).
        let r = real("jacobi");
        let p = plan_for(&r, 3);
        let get = |c: &Case, n: &str| c.sizes.iter().find(|(s, _)| s == n).unwrap().1;
        assert!(
            (1..=7).contains(&get(&p.timed, "halo_depth")),
            "{:?}",
            p.timed
        );
        assert!(
            get(&p.timed, "x") > 1000 && get(&p.timed, "y") > 1000,
            "{:?}",
            p.timed
        );
        assert!(p.iterations_timed >= 1e6, "{}", p.iterations_timed);
        // NPB CG's `j < lastcol - firstcol + 1`.
        let p = plan_for(&real("scale_x"), 3);
        assert_eq!(get(&p.timed, "firstcol"), 1, "{:?}", p.timed);
        assert!(p.iterations_timed >= 1e6, "{}", p.iterations_timed);
    }

    #[test]
    fn the_roofline_floor_moves_each_element_at_most_twice() {
        // CloverLeaf's upwind update reads density1 and energy1 at three rows each: the cost
        // model's 288 bytes an iteration put the floor above a correct port (166 % of it).
        let r = real("advec_cell");
        let p = plan_for(&r, 7);
        let (bytes, _) = work_at(&r, &p.timed).unwrap();
        let iters = p.iterations_timed;
        assert!(bytes < 0.3 * iters * r.work.bytes_per_iteration, "{bytes}");
        // Four 2-D arrays read, one written, mass_flux_y read and written: 56 bytes an iteration.
        let per = bytes / iters;
        assert!((56.0..60.0).contains(&per), "{per}");
        // Where the estimate is below the footprint it stands (saxpy: 12 bytes an element).
        let saxpy = region("saxpy");
        let p = plan_for(&saxpy, 7);
        let (bytes, _) = work_at(&saxpy, &p.timed).unwrap();
        assert!((bytes / p.iterations_timed - saxpy.work.bytes_per_iteration).abs() < 0.01);
    }
}
