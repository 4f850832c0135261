//! Compares the candidate's outputs with the reference's (BENCHMARKING.md, correctness).
//!
//! Integers exactly. Floats against the high-precision reference `hp` (the serial code with
//! `float`→`double`→`long double`): `|got - hp| <= atol + rtol_n*|hp| + 4*|native - hp|`, where
//! `native` is the serial code as written. The last term is the serial code's own rounding error on
//! that element: a candidate that is as accurate as the loop it replaces passes, also where the
//! sum cancels. `rtol_n = rtol * max(1, log2(terms per output))`: reordered sums (tree
//! reductions, atomics) err by about log2(n) roundings. NaN/Inf positions must equal the native
//! reference's (same dtype, same overflow).

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
    fn reductions_get_a_wider_rtol() {
        let t = Tolerance::for_type("float", 1024.0);
        assert!((t.rtol - 1e-3).abs() < 1e-12);
        assert_eq!(Tolerance::for_type("float", 1.0).rtol, 1e-4);
        assert!(Tolerance::for_type("double", 1.0).rtol < 1e-8);
    }
}
