//! The starting kernel: a deterministic CUDA port of a region, written by this code from the loop's
//! kind, not by the model. A map or stencil becomes a 1-D (or, for a perfect nest of two
//! independent loops, 2-D) grid-stride kernel; a reduction a per-thread partial, a warp-shuffle
//! block reduction and one atomic per block; a histogram privatised shared-memory bins (global
//! atomics when the bins do not fit); a scan a gather, CUB's device-wide inclusive scan and a
//! scatter. The port obeys the same contract as a model's answer (`void <name>_gpu(...)` over
//! device pointers, launching and returning) and is verified like one; the search starts from it,
//! so every loop it can port has a correct kernel before the first model call.
//!
//! Where no port can be written (a sequential loop, an accumulator of struct type, a loop header
//! that is not a counted `for`), [`NoPort`] says why and the search starts from the serial code.

mod argext;
mod device;
mod elements;
mod histogram;
mod kernel;
pub mod nest;
mod phases;
mod reduction;
mod scan;
mod types;

use serde::Serialize;

use crate::analysis::{LoopKind, OffloadRegion};

/// A generated starting kernel.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Port {
    /// The candidate file: kernels and the `<name>_gpu` launcher.
    pub code: String,
    /// How the loop was mapped, for traces and hovers: "1-D grid-stride map".
    pub shape: String,
}

/// Why a region has no generated port.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[error("{reason}")]
pub struct NoPort {
    pub reason: String,
}

impl NoPort {
    pub fn new(reason: impl Into<String>) -> NoPort {
        NoPort {
            reason: reason.into(),
        }
    }
}

/// Where a search starts.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Start {
    /// From the generated port when there is one and it passes verification, else the serial code.
    #[default]
    Port,
    /// From the serial code, as in the paper (for ablations).
    Serial,
}

impl Start {
    pub fn as_str(self) -> &'static str {
        match self {
            Start::Port => "port",
            Start::Serial => "serial",
        }
    }
}

/// Writes the starting kernel of `region`.
pub fn port(region: &OffloadRegion) -> Result<Port, NoPort> {
    let parsed = nest::Parsed::new(&region.source)?;
    if let Some(steps) = phases::split(&parsed, region)? {
        return phases::port(&parsed, region, steps);
    }
    let parts = port_parts(region)?;
    let mut code = format!(
        "// Starting kernel written by cuda-offload's port generator (not a model): {}.\n",
        parts.shape
    );
    code.push_str(&parts.includes);
    code.push_str(device::HELPERS);
    code.push_str(&parts.before);
    code.push_str(&parts.body);
    Ok(Port {
        code,
        shape: parts.shape,
    })
}

/// A one-loop port's pieces: a function of several steps puts the pieces of each together.
pub(crate) struct Parts {
    /// `#include` lines.
    pub includes: String,
    /// The region's macros and helpers, made device code.
    pub before: String,
    /// The kernels and the `<name>_gpu` launcher.
    pub body: String,
    pub shape: String,
}

fn port_parts(region: &OffloadRegion) -> Result<Parts, NoPort> {
    let parsed = nest::Parsed::new(&region.source)?;
    let nest = nest::nest(&parsed, region)?;
    let mut edits = device::Edits::default();
    device::make_device(&parsed, &nest.before, &mut edits);
    let mut ctx = kernel::Context::new(region, &parsed, &nest, edits)?;
    // `cuda::std::numeric_limits`: the reductions' identities and the rewritten std ones.
    ctx.include("cuda/std/limits");
    if region.kind != LoopKind::Reduction
        && let Some(r) = nest.after.first()
    {
        return Err(NoPort::new(format!(
            "a statement after the loop (`{}`)",
            region.source[r.clone()].lines().next().unwrap_or("").trim()
        )));
    }
    if region.kind != LoopKind::Reduction && !ctx.exits.is_empty() {
        return Err(NoPort::new("the loop body leaves the loop early"));
    }
    let (body, shape) = match region.kind {
        LoopKind::Map | LoopKind::Stencil => {
            if let Some(why) = ctx.outer_dependence() {
                return Err(NoPort::new(format!(
                    "declared a {}, but the analysis finds the loop sequential: {why}",
                    region.kind.as_str()
                )));
            }
            let two_d = ctx.nest.inner.is_some() && ctx.inner_independent();
            let shape = if two_d {
                format!("2-D grid-stride {}", region.kind.as_str())
            } else {
                format!("1-D grid-stride {}", region.kind.as_str())
            };
            (ctx.map(two_d), shape)
        }
        LoopKind::Reduction => reduction::write(&mut ctx)?,
        LoopKind::Histogram => histogram::write(&mut ctx)?,
        LoopKind::Scan => scan::write(&mut ctx)?,
        LoopKind::Sequential => {
            return Err(NoPort::new(
                "the loop is sequential: there is nothing to port",
            ));
        }
    };
    Ok(Parts {
        includes: ctx.includes(),
        before: ctx.before(),
        body,
        shape,
    })
}

#[cfg(test)]
mod tests;
