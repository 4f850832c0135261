//! Integer polynomials over variable names: the form in which subscripts, bounds and trip counts are
//! compared (two subscripts touch the same element when their difference is the zero polynomial).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

/// A sum of monomials; a monomial is a sorted list of variable names (with repetition), the empty
/// list being the constant term.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Poly {
    terms: BTreeMap<Vec<String>, i64>,
}

impl Poly {
    pub fn constant(c: i64) -> Self {
        let mut p = Poly::default();
        if c != 0 {
            p.terms.insert(Vec::new(), c);
        }
        p
    }

    pub fn var(name: &str) -> Self {
        let mut p = Poly::default();
        p.terms.insert(vec![name.to_string()], 1);
        p
    }

    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    pub fn as_constant(&self) -> Option<i64> {
        match self.terms.len() {
            0 => Some(0),
            1 => self.terms.get(&Vec::new()).copied(),
            _ => None,
        }
    }

    pub fn add(&self, other: &Poly) -> Option<Poly> {
        let mut out = self.clone();
        for (m, c) in &other.terms {
            let e = out.terms.entry(m.clone()).or_insert(0);
            *e = e.checked_add(*c)?;
        }
        out.terms.retain(|_, c| *c != 0);
        Some(out)
    }

    pub fn sub(&self, other: &Poly) -> Option<Poly> {
        self.add(&other.scale(-1)?)
    }

    pub fn scale(&self, k: i64) -> Option<Poly> {
        let mut out = Poly::default();
        for (m, c) in &self.terms {
            let v = c.checked_mul(k)?;
            if v != 0 {
                out.terms.insert(m.clone(), v);
            }
        }
        Some(out)
    }

    pub fn mul(&self, other: &Poly) -> Option<Poly> {
        let mut out = Poly::default();
        for (m1, c1) in &self.terms {
            for (m2, c2) in &other.terms {
                let mut m: Vec<String> = m1.iter().chain(m2.iter()).cloned().collect();
                if m.len() > 8 {
                    return None;
                }
                m.sort();
                let e = out.terms.entry(m).or_insert(0);
                *e = e.checked_add(c1.checked_mul(*c2)?)?;
            }
        }
        out.terms.retain(|_, c| *c != 0);
        Some(out)
    }

    pub fn vars(&self) -> BTreeSet<String> {
        self.terms.keys().flatten().cloned().collect()
    }

    pub fn mentions(&self, v: &str) -> bool {
        self.terms.keys().any(|m| m.iter().any(|x| x == v))
    }

    /// Highest total degree of any monomial.
    pub fn degree(&self) -> usize {
        self.terms.keys().map(Vec::len).max().unwrap_or(0)
    }

    /// The coefficient of `v` when the polynomial is linear in `v` (`None` when `v` appears squared).
    pub fn coefficient_of(&self, v: &str) -> Option<Poly> {
        let mut out = Poly::default();
        for (m, c) in &self.terms {
            let count = m.iter().filter(|x| *x == v).count();
            match count {
                0 => {}
                1 => {
                    let rest: Vec<String> = m.iter().filter(|x| *x != v).cloned().collect();
                    out.terms.insert(rest, *c);
                }
                _ => return None,
            }
        }
        Some(out)
    }

    /// Replaces `v` by `by` everywhere.
    pub fn substitute(&self, v: &str, by: &Poly) -> Option<Poly> {
        let mut out = Poly::default();
        for (m, c) in &self.terms {
            let mut term = Poly::constant(*c);
            for x in m {
                let factor = if x == v { by.clone() } else { Poly::var(x) };
                term = term.mul(&factor)?;
            }
            out = out.add(&term)?;
        }
        Some(out)
    }

    /// True when every coefficient of a monomial holding `v` is positive (resp. negative): with all
    /// symbols assumed non-negative, the polynomial then grows (shrinks) with `v`.
    pub fn sign_in(&self, v: &str) -> Option<i8> {
        let signs: BTreeSet<i8> = self
            .terms
            .iter()
            .filter(|(m, _)| m.iter().any(|x| x == v))
            .map(|(_, c)| c.signum() as i8)
            .collect();
        match signs.len() {
            0 => Some(0),
            1 => signs.into_iter().next(),
            _ => None,
        }
    }

    /// Numeric value with every variable taken from `values`.
    pub fn eval(&self, values: &HashMap<String, f64>) -> Option<f64> {
        let mut total = 0.0;
        for (m, c) in &self.terms {
            let mut t = *c as f64;
            for x in m {
                t *= values.get(x)?;
            }
            total += t;
        }
        Some(total)
    }

    /// `k` when `self == k * other` for an integer `k` (and `other` is not zero).
    pub fn ratio_to(&self, other: &Poly) -> Option<i64> {
        let (m, c) = other.terms.iter().next()?;
        let mine = self.terms.get(m).copied().unwrap_or(0);
        if mine % c != 0 {
            return None;
        }
        let k = mine / c;
        (other.scale(k)? == *self).then_some(k)
    }

    /// Whether the non-constant monomials have coefficients of both signs, so that which of two
    /// sizes is larger depends on the values of the symbols (`i - j`).
    pub fn mixed_signs(&self) -> bool {
        let signs: BTreeSet<i64> = self
            .terms
            .iter()
            .filter(|(m, _)| !m.is_empty())
            .map(|(_, c)| c.signum())
            .collect();
        signs.len() > 1
    }

    /// The monomial-wise larger coefficients of the two: with every symbol non-negative, at
    /// least as large as either (`i + 1` and `j + 1` give `i + j + 1`).
    pub fn termwise_max(&self, other: &Poly) -> Poly {
        let mut out = self.clone();
        for (m, c) in &other.terms {
            let e = out.terms.entry(m.clone()).or_insert(0);
            *e = (*e).max(*c);
        }
        for (m, c) in out.terms.iter_mut() {
            if !other.terms.contains_key(m) {
                *c = (*c).max(0);
            }
        }
        out.terms.retain(|_, c| *c != 0);
        out
    }

    /// Some term has a negative coefficient: with every symbol at least 0 the value may be
    /// negative (no term negative: it cannot).
    pub fn has_negative_terms(&self) -> bool {
        self.terms.values().any(|c| *c < 0)
    }

    /// No term is negative and the constant is positive: with every symbol at least 0, the value
    /// is at least 1.
    pub fn surely_positive(&self) -> bool {
        !self.has_negative_terms() && self.terms.get(&Vec::new()).is_some_and(|c| *c > 0)
    }

    /// Drops the negative terms (symbols are sizes, at least 1): rounds an element count up to a
    /// plain expression (`n*m - m - 1` elements needed → allocate `n*m`).
    pub fn without_negative_terms(&self) -> Poly {
        let mut out = self.clone();
        out.terms.retain(|_, c| *c > 0);
        if out.is_zero() { self.clone() } else { out }
    }
}

impl fmt::Display for Poly {
    /// C syntax, highest degree first: `n*m - 2*n + 1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return write!(f, "0");
        }
        let mut ordered: Vec<(&Vec<String>, &i64)> = self.terms.iter().collect();
        ordered.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(b.0)));
        for (idx, (m, c)) in ordered.into_iter().enumerate() {
            let negative = *c < 0;
            let abs = c.unsigned_abs();
            if idx == 0 {
                if negative {
                    write!(f, "-")?;
                }
            } else {
                write!(f, " {} ", if negative { "-" } else { "+" })?;
            }
            let vars = m.join("*");
            match (m.is_empty(), abs) {
                (true, _) => write!(f, "{abs}")?,
                (false, 1) => write!(f, "{vars}")?,
                (false, _) => write!(f, "{abs}*{vars}")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lin(i: &str, k: i64, c: i64) -> Poly {
        Poly::var(i)
            .scale(k)
            .unwrap()
            .add(&Poly::constant(c))
            .unwrap()
    }

    #[test]
    fn differences_of_neighbouring_subscripts_are_constant() {
        let w = lin("i", 1, 0);
        let r = lin("i", 1, -1);
        assert_eq!(r.sub(&w).unwrap().as_constant(), Some(-1));
    }

    #[test]
    fn row_major_subscripts_factor_their_stride() {
        // (i-1)*m + j minus i*m + j is -m, one row back.
        let i = Poly::var("i");
        let m = Poly::var("m");
        let j = Poly::var("j");
        let w = i.mul(&m).unwrap().add(&j).unwrap();
        let r = i
            .sub(&Poly::constant(1))
            .unwrap()
            .mul(&m)
            .unwrap()
            .add(&j)
            .unwrap();
        let d = r.sub(&w).unwrap();
        assert_eq!(d.to_string(), "-m");
        assert_eq!(d.ratio_to(&w.coefficient_of("i").unwrap()), Some(-1));
    }

    #[test]
    fn prints_c_expressions() {
        let p = Poly::var("n")
            .mul(&Poly::var("m"))
            .unwrap()
            .sub(&Poly::constant(1))
            .unwrap();
        assert_eq!(p.to_string(), "m*n - 1");
        assert_eq!(p.without_negative_terms().to_string(), "m*n");
        let q = p.sub(&Poly::var("m")).unwrap();
        assert_eq!(q.without_negative_terms().to_string(), "m*n");
        assert_eq!(Poly::constant(-3).to_string(), "-3");
    }

    #[test]
    fn overflow_is_refused_not_wrapped() {
        let big = Poly::constant(i64::MAX);
        assert!(big.add(&Poly::constant(1)).is_none());
        assert!(big.scale(2).is_none());
    }

    #[test]
    fn a_bound_of_two_sizes_covers_both_whichever_is_larger() {
        let a = Poly::var("i").add(&Poly::constant(1)).unwrap();
        let b = Poly::var("j").add(&Poly::constant(1)).unwrap();
        assert!(a.sub(&b).unwrap().mixed_signs());
        assert!(
            !Poly::var("n")
                .sub(&Poly::constant(3))
                .unwrap()
                .mixed_signs()
        );
        let m = a.termwise_max(&b);
        assert_eq!(m.to_string(), "i + j + 1");
        let c = Poly::var("n")
            .scale(2)
            .unwrap()
            .sub(&Poly::var("k"))
            .unwrap();
        assert_eq!(c.termwise_max(&Poly::var("k")).to_string(), "k + 2*n");
    }
}
