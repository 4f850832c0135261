//! The roofline ceilings a kernel's floor is computed with: streaming bandwidth and FP32 FMA
//! throughput, measured per GPU with `scripts/ceilings.cu`. A GPU with no measurement on record
//! is judged against the H200's ceilings, and then the "faster than the roofline" guard is not
//! applied: a card faster than the H200 would make honest kernels look impossible.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ceilings {
    pub bytes_per_s: f64,
    pub flops_per_s: f64,
}

/// The H200's, measured there (ENVIRONMENT.md: saxpy 4.34 TB/s, FP32 FMA 60.9 TFLOP/s).
impl Default for Ceilings {
    fn default() -> Self {
        Ceilings {
            bytes_per_s: 4.3e12,
            flops_per_s: 60.9e12,
        }
    }
}

/// (words the GPU's name holds, its ceilings). The H100 80GB HBM3 (SXM): saxpy 2.97e12 B/s, FP32
/// FMA 65.2e12 FLOP/s (docs/reports/verify/h100-2026-12-07-ceilings).
const MEASURED: [(&[&str], Ceilings); 2] = [
    (
        &["H200"],
        Ceilings {
            bytes_per_s: 4.3e12,
            flops_per_s: 60.9e12,
        },
    ),
    (
        &["H100", "HBM3"],
        Ceilings {
            bytes_per_s: 2.97e12,
            flops_per_s: 65.2e12,
        },
    ),
];

impl Ceilings {
    /// The ceilings measured on a GPU of this name, if there is a measurement on record.
    pub fn measured(gpu_name: &str) -> Option<Ceilings> {
        MEASURED
            .iter()
            .find(|(words, _)| words.iter().all(|w| gpu_name.contains(w)))
            .map(|(_, c)| *c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_measured_card_has_its_own_ceilings_and_others_none() {
        let h200 = Ceilings::measured("NVIDIA H200").unwrap();
        let h100 = Ceilings::measured("NVIDIA H100 80GB HBM3").unwrap();
        assert_eq!(h200, Ceilings::default());
        assert!(h100.bytes_per_s < h200.bytes_per_s);
        // The PCIe and NVL H100s have other memories: not the SXM's figures.
        assert_eq!(Ceilings::measured("NVIDIA H100 PCIe"), None);
        assert_eq!(Ceilings::measured("NVIDIA GeForce RTX 4090"), None);
    }
}
