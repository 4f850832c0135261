//! Compares the candidate's outputs with the reference's (BENCHMARKING.md, correctness).
//!
//! Integers exactly. Floats against the high-precision reference `hp` (the serial code with
//! `float`→`double`→`long double`): `|got - hp| <= atol + rtol_n*|hp| + 4*|native - hp|`, where
//! `native` is the serial code as written. The last term is the serial code's own rounding error on
//! that element. `rtol_n = rtol * max(1, log2(terms per output))`: reordered sums (tree
//! reductions, atomics, FMA contraction) err by about log2(n) roundings. A scan's terms per output
//! are its iterations (its last output adds them all).
//!
//! Outputs that accumulate several terms (terms per output > 1) also get a normwise part,
//! `atol += rtol * rms(hp)` (rtol not widened): a reordered sum errs in proportion to the magnitudes it adds, not to
//! its (possibly cancelled) result, and the output array's RMS stands for those magnitudes. The
//! serial error of one element is a single sample of that error and can be accidentally tiny
//! (the H200 run of 2026-12-02 had a correct n-body kernel 2.5e-3 off relatively on an element
//! whose sum cancelled to 6e-3 out of terms of order 1). Maps keep the strict elementwise bound.
//! NaN/Inf positions must equal the native reference's (same dtype, same overflow).

use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    pub atol: f64,
    pub rtol: f64,
}

impl Tolerance {
    /// rtol 1e-4 for fp32 (BENCHMARKING.md), 1e-9 for fp64; widened by log2 of the terms each
    /// output accumulates.
    pub fn for_type(elem_type: &str, terms_per_output: f64) -> Tolerance {
        let widen = terms_per_output.max(2.0).log2().max(1.0);
        if elem_type.trim() == "float" {
            Tolerance {
                atol: 1e-6,
                rtol: 1e-4 * widen,
            }
        } else {
            Tolerance {
                atol: 1e-12,
                rtol: 1e-9 * widen,
            }
        }
    }
}

impl Tolerance {
    /// `for_type` plus the normwise part for accumulated outputs (see the module docs).
    pub fn for_output(elem_type: &str, terms_per_output: f64, reference: &[f64]) -> Tolerance {
        let mut t = Tolerance::for_type(elem_type, terms_per_output);
        if terms_per_output > 1.0 {
            t.atol += Tolerance::for_type(elem_type, 1.0).rtol * rms(reference);
        }
        t
    }
}

/// Root mean square of the finite values.
pub fn rms(v: &[f64]) -> f64 {
    let (sum, n) = v
        .iter()
        .filter(|x| x.is_finite())
        .fold((0.0, 0usize), |(s, n), x| (s + x * x, n + 1));
    if n == 0 { 0.0 } else { (sum / n as f64).sqrt() }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    pub index: usize,
    pub expected: String,
    pub got: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read {path}: {reason}")]
    Io { path: String, reason: String },
}

pub fn read_f64(path: &Path) -> Result<Vec<f64>, ReadError> {
    let bytes = std::fs::read(path).map_err(|e| ReadError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    Ok(bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect())
}

pub fn read_i64(path: &Path) -> Result<Vec<i64>, ReadError> {
    let bytes = std::fs::read(path).map_err(|e| ReadError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    Ok(bytes
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect())
}

pub fn compare_ints(expected: &[i64], got: &[i64]) -> Option<Mismatch> {
    if expected.len() != got.len() {
        return Some(Mismatch {
            index: expected.len().min(got.len()),
            expected: format!("{} elements", expected.len()),
            got: format!("{} elements", got.len()),
        });
    }
    expected
        .iter()
        .zip(got)
        .position(|(e, g)| e != g)
        .map(|i| Mismatch {
            index: i,
            expected: expected[i].to_string(),
            got: got[i].to_string(),
        })
}

fn same_class(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a.is_infinite() && a == b)
}

/// `hp` is the high-precision reference (or `native` again when there is none).
pub fn compare_floats(native: &[f64], hp: &[f64], got: &[f64], tol: Tolerance) -> Option<Mismatch> {
    if native.len() != got.len() || hp.len() != got.len() {
        return Some(Mismatch {
            index: native.len().min(got.len()),
            expected: format!("{} elements", native.len()),
            got: format!("{} elements", got.len()),
        });
    }
    for i in 0..got.len() {
        let (n, h, g) = (native[i], hp[i], got[i]);
        let ok = if !n.is_finite() || !g.is_finite() {
            same_class(n, g)
        } else {
            let h = if h.is_finite() { h } else { n };
            (g - h).abs() <= tol.atol + tol.rtol * h.abs() + 4.0 * (n - h).abs()
        };
        if !ok {
            return Some(Mismatch {
                index: i,
                expected: format!("{h:e}"),
                got: format!("{g:e}"),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Tolerance = Tolerance {
        atol: 1e-6,
        rtol: 1e-4,
    };

    #[test]
    fn floats_within_rtol_pass_and_beyond_fail() {
        let r = [1.0, 2.0, -3.0];
        assert_eq!(compare_floats(&r, &r, &[1.00005, 2.0, -3.0], T), None);
        let m = compare_floats(&r, &r, &[1.0, 2.001, -3.0], T).unwrap();
        assert_eq!(m.index, 1);
    }

    #[test]
    fn nan_and_inf_positions_must_match() {
        let r = [f64::NAN, f64::INFINITY, 1.0];
        assert_eq!(
            compare_floats(&r, &r, &[f64::NAN, f64::INFINITY, 1.0], T),
            None
        );
        assert_eq!(
            compare_floats(&r, &r, &[0.0, f64::INFINITY, 1.0], T)
                .unwrap()
                .index,
            0
        );
        assert_eq!(
            compare_floats(&r, &r, &[f64::NAN, -f64::INFINITY, 1.0], T)
                .unwrap()
                .index,
            1
        );
        assert_eq!(
            compare_floats(&r, &r, &[f64::NAN, f64::INFINITY, f64::NAN], T)
                .unwrap()
                .index,
            2
        );
    }

    #[test]
    fn the_serial_codes_own_error_widens_the_bound() {
        // A cancelling sum: the fp32 serial result is off by 1e-3 from the exact one.
        let native = [1e-3];
        let hp = [0.0];
        assert_eq!(compare_floats(&native, &hp, &[-2e-3], T), None);
        assert!(compare_floats(&native, &hp, &[1e-2], T).is_some());
    }

    #[test]
    fn integers_are_exact_and_lengths_checked() {
        assert_eq!(compare_ints(&[1, 2, 3], &[1, 2, 3]), None);
        assert_eq!(compare_ints(&[1, 2, 3], &[1, 2, 4]).unwrap().index, 2);
        assert!(compare_ints(&[1, 2, 3], &[1, 2]).is_some());
    }

    #[test]
    fn accumulated_outputs_get_a_normwise_part() {
        // The H200 case: a cancelled n-body sum, serial fp32 accidentally exact, GPU 1.6e-5 off.
        let hp = [-6.401083751378645e-3, 50.0, -80.0, 3.0];
        let native = hp;
        let mut got = hp;
        got[0] = -6.416866555809975e-3;
        let strict = Tolerance::for_type("float", 1930.0);
        assert!(compare_floats(&native, &hp, &got, strict).is_some());
        let t = Tolerance::for_output("float", 1930.0, &hp);
        assert_eq!(compare_floats(&native, &hp, &got, t), None);
        // Still far from anything goes: a 1% error on a large element fails.
        got[1] = 50.5;
        assert!(compare_floats(&native, &hp, &got, t).is_some());
        // Maps get no normwise part.
        assert_eq!(
            Tolerance::for_output("float", 1.0, &hp),
            Tolerance::for_type("float", 1.0)
        );
    }

    #[test]
    fn reductions_get_a_wider_rtol() {
        let t = Tolerance::for_type("float", 1024.0);
        assert!((t.rtol - 1e-3).abs() < 1e-12);
        assert_eq!(Tolerance::for_type("float", 1.0).rtol, 1e-4);
        assert!(Tolerance::for_type("double", 1.0).rtol < 1e-8);
    }
}
