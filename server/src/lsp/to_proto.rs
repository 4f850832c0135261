//! Plain analysis/search data → LSP types. Nothing else in the server builds protocol values.

use ropey::Rope;
use tower_lsp_server::ls_types::{Diagnostic, DiagnosticSeverity, NumberOrString, Position, Range};

use super::position::{Encoding, to_position};
use super::state::LoopResult;
use crate::analysis::{LoopKind, LoopReport};
use crate::plural::count;
use crate::search::offload::PathSuggestion;

pub const SOURCE: &str = "cuda-offload";

/// The first line of a loop, from its first non-blank character to the end of the line: the
/// whole nest would be a wall of squiggles.
pub fn line_range(rope: &Rope, line_1based: usize, enc: Encoding) -> Range {
    let line = line_1based
        .saturating_sub(1)
        .min(rope.len_lines().saturating_sub(1));
    let start = rope.line_to_byte(line);
    let text = rope.line(line).to_string();
    let content = text.trim_end_matches(['\n', '\r']);
    let indent = content.len() - content.trim_start().len();
    Range {
        start: to_position(rope, start + indent, enc),
        end: to_position(rope, start + content.len(), enc),
    }
}

pub fn kind_code(kind: LoopKind) -> &'static str {
    match kind {
        LoopKind::Map => "offload-map",
        LoopKind::Reduction => "offload-reduction",
        LoopKind::Histogram => "offload-histogram",
        LoopKind::Stencil => "offload-stencil",
        LoopKind::Scan => "offload-scan",
        LoopKind::Sequential => "not-offloadable",
    }
}

/// A reason as a sentence: reasons come without a final period.
fn sentence(reason: &str) -> String {
    let r = reason.trim_end();
    if r.ends_with(['.', '!', '?']) {
        r.to_string()
    } else {
        format!("{r}.")
    }
}

pub fn loop_diagnostic(rope: &Rope, report: &LoopReport, enc: Encoding) -> Diagnostic {
    let refusal = report
        .region_note
        .as_deref()
        .and_then(|n| n.strip_prefix("not outlined: "));
    let message = if let Some(why) = refusal.filter(|_| report.parallel) {
        format!(
            "Parallel loop ({}), but not offloadable as written: {}",
            report.kind.as_str(),
            sentence(why)
        )
    } else if report.parallel {
        // What the program gains, copies included, comes first: the kernel alone can be 100x
        // while the program gets slower.
        let estimate = report
            .estimate
            .as_ref()
            .map(|e| format!(", estimated {} (roofline model)", e.end_to_end()))
            .unwrap_or_default();
        format!(
            "Offloadable loop ({}){estimate}: {}",
            report.kind.as_str(),
            sentence(&report.reason)
        )
    } else {
        format!("Not offloaded: {}", report.reason)
    };
    Diagnostic {
        range: line_range(rope, report.line, enc),
        severity: Some(if report.parallel {
            DiagnosticSeverity::INFORMATION
        } else {
            DiagnosticSeverity::HINT
        }),
        code: Some(NumberOrString::String(kind_code(report.kind).to_string())),
        source: Some(SOURCE.to_string()),
        message,
        ..Diagnostic::default()
    }
}

pub fn result_diagnostic(rope: &Rope, result: &LoopResult, enc: Encoding) -> Diagnostic {
    let s = &result.summary;
    let path = if s.path.is_empty() {
        String::new()
    } else {
        format!(" Path: {}.", s.path.join(" → "))
    };
    let (severity, code, mut message) = match &result.reverify {
        Some((false, verdict)) => (
            DiagnosticSeverity::WARNING,
            "offload-failed-reverify",
            format!(
                "The CUDA kernel in {} no longer verifies: {verdict}",
                s.kernel_file
            ),
        ),
        Some((true, verdict)) => (
            DiagnosticSeverity::INFORMATION,
            "offloaded",
            format!("CUDA kernel {} re-verified: {verdict}.", s.kernel_file),
        ),
        None => (
            DiagnosticSeverity::INFORMATION,
            if result.stale {
                "offload-stale"
            } else {
                "offloaded"
            },
            format!("CUDA kernel {}: {}.{path}", s.kernel_file, s.verdict),
        ),
    };
    if result.stale && result.reverify.is_none() {
        message.push_str(" (stale: the file changed since the search)");
    }
    Diagnostic {
        range: line_range(rope, result.line, enc),
        severity: Some(severity),
        code: Some(NumberOrString::String(code.to_string())),
        source: Some(SOURCE.to_string()),
        message,
        ..Diagnostic::default()
    }
}

/// A session around a loop that no longer keeps its arrays resident (see
/// [`crate::analysis::residency::broken_sessions`]).
pub fn broken_session_diagnostic(
    rope: &Rope,
    r: &crate::analysis::residency::Residency,
    enc: Encoding,
) -> Diagnostic {
    let why = match &r.verdict {
        crate::analysis::residency::Verdict::NotResident(why) => why.clone(),
        crate::analysis::residency::Verdict::NeedsOffload(fns) => {
            format!("{} is not offloaded", fns.join(", "))
        }
        crate::analysis::residency::Verdict::Resident => String::new(),
    };
    Diagnostic {
        range: line_range(rope, r.line, enc),
        severity: Some(DiagnosticSeverity::WARNING),
        code: Some(NumberOrString::String("residency-broken".to_string())),
        source: Some(SOURCE.to_string()),
        message: format!(
            "The arrays of this loop are kept on the device, but that no longer holds: {}; the host would read stale data. Remove the two `cuda-offload session` lines around the loop (the next offload's edit also takes them out).",
            sentence(&why).trim_end_matches('.')
        ),
        ..Diagnostic::default()
    }
}

/// Markdown for a hover on a loop.
pub fn hover_markdown(
    report: &LoopReport,
    refusal: Option<&str>,
    suggestions: &[PathSuggestion],
    result: Option<&LoopResult>,
) -> String {
    let mut md = String::new();
    if let Some(why) = refusal {
        md.push_str(&format!(
            "**Parallel, but not offloadable as written** — {} loop\n\n{}\n\n{}\n\n",
            report.kind.as_str(),
            report.reason,
            sentence(why)
        ));
    } else if report.parallel {
        md.push_str(&format!(
            "**Offloadable** — {} loop\n\n",
            report.kind.as_str()
        ));
        if let Some(e) = &report.estimate {
            let advice = crate::analysis::cost::copies_advice(e.copy_share())
                .map(|a| format!(": {a}"))
                .unwrap_or_default();
            md.push_str(&format!(
                "Estimated (roofline model): **{}**{advice}\n\n",
                e.end_to_end()
            ));
        }
        md.push_str(&format!("{}\n\n", report.reason));
    } else {
        md.push_str(&format!("**Not offloadable**\n\n{}\n\n", report.reason));
    }
    if report.parallel && !suggestions.is_empty() {
        // The graph's speedups were measured on its own example tasks at their sizes (27503× beside
        // a 1.7× estimate for this loop, the same figure on every path): they say nothing about
        // this loop, so only the number of verified examples behind each path is shown.
        md.push_str(
            "**Suggested optimization paths** (reasoning graph, by its verified examples)\n\n",
        );
        for s in suggestions {
            md.push_str(&format!(
                "- {} ({})\n",
                s.techniques.join(" → "),
                count(s.examples, "example", "examples")
            ));
        }
        md.push('\n');
    }
    if let Some(r) = result {
        md.push_str(&path_taken_markdown(r));
    }
    md
}

pub fn path_taken_markdown(r: &LoopResult) -> String {
    let s = &r.summary;
    let mut md = format!(
        "**Search result** ({})\n\n{}\n\n",
        if r.stale { "stale" } else { "current" },
        s.verdict
    );
    if !s.path.is_empty() {
        md.push_str("| step | technique | reward |\n|---|---|---|\n");
        for (i, (t, rw)) in s.path.iter().zip(&s.step_rewards).enumerate() {
            md.push_str(&format!("| {} | {t} | {rw:.3} |\n", i + 1));
        }
        md.push('\n');
    }
    if !s.profiles.is_empty() {
        md.push_str("Profile-guided choice (Nsight Compute):\n");
        for p in &s.profiles {
            md.push_str(&format!("- {p}\n"));
        }
        md.push('\n');
    }
    md.push_str(&format!(
        "{}, {} tokens\n",
        count(s.llm_calls, "model call", "model calls"),
        s.tokens
    ));
    md
}

pub fn zero_range() -> Range {
    Range {
        start: Position {
            line: 0,
            character: 0,
        },
        end: Position {
            line: 0,
            character: 0,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Language, analyze_source};

    #[test]
    fn hover_paths_show_their_examples_not_other_tasks_speedups() {
        let src = b"void saxpy(int n, float a, const float* x, float* y) {\n  for (int i = 0; i < n; ++i)\n    y[i] = a * x[i] + y[i];\n}\n";
        let report = analyze_source(src, Language::Cpp).loops.remove(0);
        let path = |t: &[&str], examples| PathSuggestion {
            techniques: t.iter().map(|s| s.to_string()).collect(),
            examples,
            mean_speedup: Some(6042.7),
        };
        let md = hover_markdown(
            &report,
            None,
            &[
                path(&["parallelize_outer_loop"], 1),
                path(&["parallelize_outer_loop", "thread_coarsening"], 4),
            ],
            None,
        );
        // The end-to-end estimate leads; a saxpy's copies dominate and the hover says what helps.
        assert!(
            md.contains("Estimated (roofline model): **")
                && md.contains(" end to end")
                && md.contains("the copies dominate: keep the arrays on the device"),
            "{md}"
        );
        assert!(
            md.contains("- parallelize_outer_loop (1 example)\n")
                && md.contains("→ thread_coarsening (4 examples)\n"),
            "{md}"
        );
        assert!(!md.contains("6042.7") && !md.contains("geomean"), "{md}");
    }

    #[test]
    fn the_search_result_names_what_its_profiles_said() {
        let summary: crate::search::offload::OffloadSummary = serde_json::from_value(serde_json::json!({
            "kernel_file": "saxpy_cuda.cu", "kernel_source": "", "source_edits": [],
            "verified": true, "verdict": "verified on NVIDIA H100: 310x vs serial",
            "speedup": 310.0, "roofline_fraction": 0.4,
            "path": ["vectorized_loads"], "step_rewards": [0.8],
            "llm_calls": 4, "tokens": 900, "trace": null,
            "profiles": ["the start: memory-bound with uncoalesced loads, 16.0 sectors per load → tried first: coalesced_access"]
        }))
        .unwrap();
        let result = LoopResult {
            job_id: "1".into(),
            line: 2,
            version: 1,
            region: crate::verify::testdata::builtin_region("saxpy").unwrap(),
            summary,
            applied: false,
            stale: false,
            reverify: None,
            loop_text: String::new(),
        };
        let md = path_taken_markdown(&result);
        assert!(
            md.contains("Profile-guided choice (Nsight Compute):\n- the start: memory-bound")
                && md.contains("tried first: coalesced_access"),
            "{md}"
        );
    }
}
