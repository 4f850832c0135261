//! The residency part of an offload's source edit: where the offloaded calls sit in an enclosing
//! loop whose arrays can stay on the device ([`residency::plan`] of the edited text), a session
//! around that loop (`cuda_offload_resident_begin(); cuda_offload_resident_keep(..);` before,
//! `cuda_offload_resident_end();` after), in the same edit; a session that no longer holds, out.

use crate::analysis::OffloadRegion;
use crate::analysis::residency::{self, Residency, Verdict};
use crate::search::offload::LineEdit;
use crate::search::resident_runtime;

use super::{SESSION_MARK, after_includes, apply_line_edits, source_edits};

/// Every edit of the source an offload of `regions` makes: each loop replaced by its call (see
/// [`source_edits`]) and, where the offloaded calls then sit in an enclosing loop whose arrays
/// stay resident ([`residency::plan`] on the edited text), a session around that loop. Also the
/// plan itself, to tell the user what was kept on the device or what it would take.
pub fn offload_source_edits(
    regions: &[&OffloadRegion],
    source: &str,
) -> (Vec<LineEdit>, Vec<Residency>) {
    let mut edits: Vec<LineEdit> = regions
        .iter()
        .flat_map(|r| source_edits(r, source))
        .collect();
    let (session, plan) = session_edits(source, &edits);
    edits.extend(session);
    (edits, plan)
}

/// The session lines (against `source`) for the loops whose arrays stay resident once `edits`
/// are applied, and the residency plan of the edited text.
pub fn session_edits(source: &str, edits: &[LineEdit]) -> (Vec<LineEdit>, Vec<Residency>) {
    let patched = apply_line_edits(source, edits);
    let mut plan = residency::plan(&patched, &[]);
    let lines: Vec<&str> = patched.lines().collect();
    let mut out = Vec::new();
    for r in plan.iter_mut() {
        let here = (r.line, r.end_line);
        // The user reads line numbers of the file as it was.
        if let (Some(first), Some(last)) = (
            original_line(edits, r.line),
            original_line(edits, r.end_line),
        ) {
            (r.line, r.end_line) = (first, last);
        }
        let opened = |i: usize| {
            lines.get(i).is_some_and(|l| {
                l.contains(SESSION_MARK) && l.contains(&format!("{}();", resident_runtime::BEGIN))
            })
        };
        let closed = |i: usize| {
            lines.get(i).is_some_and(|l| {
                l.contains(SESSION_MARK) && l.contains(&format!("{}();", resident_runtime::END))
            })
        };
        let session_open = here.0 >= 2 && opened(here.0 - 2);
        if !r.is_resident() {
            // A session an earlier edit opened that no longer holds (a host use added since):
            // the same edit takes it out, so the program copies per call again.
            if session_open && closed(here.1) {
                for patched in [here.0 - 1, here.1 + 1] {
                    if let Some(line) = original_line(edits, patched) {
                        out.push(LineEdit {
                            start_line: line,
                            end_line: line,
                            new_text: String::new(),
                        });
                    }
                }
                if let Verdict::NotResident(why) = &r.verdict {
                    r.verdict =
                        Verdict::NotResident(format!("{why} (the session around it is taken out)"));
                }
            }
            continue;
        }
        let r = Residency {
            line: here.0,
            end_line: here.1,
            ..r.clone()
        };
        if session_open {
            continue; // an earlier offload's edit opened the session already
        }
        let (Some(first), Some(last)) = (
            original_line(edits, r.line),
            original_line(edits, r.end_line),
        ) else {
            continue; // the loop is part of what the edit replaces
        };
        let indent: String = lines
            .get(r.line - 1)
            .map(|l| l.chars().take_while(|c| c.is_whitespace()).collect())
            .unwrap_or_default();
        let arrays = r.arrays.join(", ");
        // The session names the arrays the analysis checked: only those stay on the device.
        let keep: String = r
            .pointers
            .iter()
            .map(|p| format!(" {}({p});", resident_runtime::KEEP))
            .collect();
        out.push(LineEdit {
            start_line: first,
            end_line: first - 1,
            new_text: format!(
                "{indent}{}();{keep}  {SESSION_MARK}: {arrays} stay on the device across this loop\n",
                resident_runtime::BEGIN
            ),
        });
        out.push(LineEdit {
            start_line: last + 1,
            end_line: last,
            new_text: format!(
                "{indent}{}();  {SESSION_MARK}: {arrays} copied back to the host\n",
                resident_runtime::END
            ),
        });
    }
    let declared = source.contains(&format!("void {}();", resident_runtime::BEGIN));
    if !out.is_empty() && !declared {
        let at = after_includes(&source.lines().collect::<Vec<_>>());
        out.push(LineEdit {
            start_line: at,
            end_line: at - 1,
            new_text: format!(
                "void {}();  // defined in every *_cuda.cu (cuda-offload)\nvoid {}(const void* host);  // defined in every *_cuda.cu (cuda-offload)\nvoid {}();  // defined in every *_cuda.cu (cuda-offload)\n",
                resident_runtime::BEGIN,
                resident_runtime::KEEP,
                resident_runtime::END
            ),
        });
    }
    (out, plan)
}

/// The line of `source` that is line `patched` of the text `edits` make from it; `None` for a
/// line the edits wrote.
fn original_line(edits: &[LineEdit], patched: usize) -> Option<usize> {
    let mut sorted: Vec<&LineEdit> = edits.iter().collect();
    sorted.sort_by_key(|e| e.start_line);
    let mut offset: isize = 0;
    for e in sorted {
        let written = e.new_text.split_inclusive('\n').count() as isize;
        let removed = if e.end_line < e.start_line {
            0
        } else {
            (e.end_line - e.start_line + 1) as isize
        };
        let starts_at = e.start_line as isize + offset;
        let p = patched as isize;
        if p < starts_at {
            break;
        }
        if p < starts_at + written {
            return None;
        }
        offset += written - removed;
    }
    usize::try_from(patched as isize - offset).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::search::workspace_edit::tests::stencil;

    #[test]
    fn offloading_both_stencil_loops_opens_a_session_around_the_convergence_loop() {
        let (src, jacobi, max_change) = stencil();
        let (edits, plan) = offload_source_edits(&[&jacobi, &max_change], &src);
        assert!(plan.len() == 1 && plan[0].is_resident(), "{plan:#?}");
        let out = apply_line_edits(&src, &edits);
        assert!(
            out.contains("    float change = 1.0f;\n    cuda_offload_resident_begin(); cuda_offload_resident_keep(u.data()); cuda_offload_resident_keep(v.data());  // cuda-offload session: u, v stay on the device across this loop\n    while (change > 1e-3f"),
            "{out}"
        );
        assert!(out.contains("        ++iter;\n    }\n    cuda_offload_resident_end();  // cuda-offload session: u, v copied back to the host\n    std::printf"), "{out}");
        assert_eq!(
            out.matches("void cuda_offload_resident_begin();").count(),
            1
        );

        // One at a time: the first offload names what is missing, the second opens the session,
        // and offloading again adds no second one.
        let (first, plan) = offload_source_edits(&[&jacobi], &src);
        assert_eq!(
            plan[0].verdict,
            crate::analysis::residency::Verdict::NeedsOffload(vec!["max_change".into()])
        );
        let after_first = apply_line_edits(&src, &first);
        assert!(!after_first.contains("cuda_offload_resident"));
        let max_change_now = crate::analysis::outline_at(
            after_first.as_bytes(),
            crate::analysis::Language::Cpp,
            after_first
                .lines()
                .position(|l| l.contains("for (int k = 0;"))
                .unwrap()
                + 1,
            &crate::analysis::Headers::default(),
        )
        .unwrap()
        .1;
        let (second, plan) = offload_source_edits(&[&max_change_now], &after_first);
        assert!(plan[0].is_resident(), "{plan:#?}");
        assert_eq!(
            plan[0].line, 25,
            "the loop's line in the file the second offload edits"
        );
        let both = apply_line_edits(&after_first, &second);
        assert_eq!(
            both.matches("cuda_offload_resident_begin(); cuda_offload_resident_keep(")
                .count(),
            1
        );
        let (again, _) = session_edits(&both, &[]);
        assert!(again.is_empty(), "{again:?}");
    }

    #[test]
    fn a_session_that_no_longer_holds_is_taken_out_by_the_next_edit() {
        let (src, jacobi, max_change) = stencil();
        let (edits, _) = offload_source_edits(&[&jacobi, &max_change], &src);
        let both = apply_line_edits(&src, &edits);
        // The user adds a host read inside the loop afterwards; any later edit takes the session out.
        let broken = both.replace(
            "        ++iter;\n",
            "        ++iter;\n        std::printf(\"%g\\n\", u[0]);\n",
        );
        let (fix, plan) = session_edits(&broken, &[]);
        assert!(
            matches!(&plan[0].verdict, Verdict::NotResident(why) if why.ends_with("(the session around it is taken out)")),
            "{plan:#?}"
        );
        let fixed = apply_line_edits(&broken, &fix);
        assert!(!fixed.contains(SESSION_MARK), "{fixed}");
        assert!(
            fixed.contains("    float change = 1.0f;\n    while (change"),
            "{fixed}"
        );
    }

    #[test]
    fn lines_of_the_edited_text_map_back_to_the_original() {
        let edits = [
            LineEdit {
                start_line: 2,
                end_line: 1,
                new_text: "decl\n".into(),
            },
            LineEdit {
                start_line: 5,
                end_line: 7,
                new_text: "call\n".into(),
            },
        ];
        // original: 1 2 3 4 [5 6 7] 8 9 → edited: 1 decl 2 3 4 call 8 9
        assert_eq!(original_line(&edits, 1), Some(1));
        assert_eq!(original_line(&edits, 2), None);
        assert_eq!(original_line(&edits, 3), Some(2));
        assert_eq!(original_line(&edits, 6), None);
        assert_eq!(original_line(&edits, 7), Some(8));
    }
}
