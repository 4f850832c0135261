//! Hand-written regions of the test-workspace loops (what analysis outlines for them), built in so
//! tests and `scripts/gpu-test` need no analysis pass. Files: `testdata/regions/*.json`.

use crate::analysis::OffloadRegion;

const REGIONS: &[(&str, &str)] = &[
    ("saxpy", include_str!("testdata/regions/saxpy.json")),
    (
        "compute_forces",
        include_str!("testdata/regions/compute_forces.json"),
    ),
    ("integrate", include_str!("testdata/regions/integrate.json")),
    (
        "jacobi_step",
        include_str!("testdata/regions/jacobi_step.json"),
    ),
    ("histogram", include_str!("testdata/regions/histogram.json")),
    ("dot", include_str!("testdata/regions/dot.json")),
    (
        "prefix_sum",
        include_str!("testdata/regions/prefix_sum.json"),
    ),
    ("transpose", include_str!("testdata/regions/transpose.json")),
];

pub fn names() -> impl Iterator<Item = &'static str> {
    REGIONS.iter().map(|(n, _)| *n)
}

pub fn builtin_region(name: &str) -> Option<OffloadRegion> {
    let (_, text) = REGIONS.iter().find(|(n, _)| *n == name)?;
    serde_json::from_str(text).ok()
}

#[cfg(test)]
pub fn region(name: &str) -> OffloadRegion {
    builtin_region(name).unwrap_or_else(|| panic!("no built-in region {name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_region_parses_and_validates() {
        for n in names() {
            let r = region(n);
            assert_eq!(r.name, n);
            crate::verify::harness::validate_region(&r).unwrap();
        }
    }
}
