//! Plain Makefiles: a rule that compiles the `.cu` with nvcc, its object in the link, and the CUDA
//! runtime linked. Two shapes are recognised, the common ones of hand-written Makefiles:
//! an object list (`OBJS = main.o saxpy.o`, linked by a recipe that uses it) and a rule that
//! builds the program straight from the source (`saxpy: saxpy.cpp` with `$(CXX) ... saxpy.cpp`).

use super::CudaArch;
use crate::search::offload::LineEdit;

/// A logical line: backslash continuations joined, and the physical line it ends on.
struct Logical {
    text: String,
    end_line: usize,
}

fn logical_lines(text: &str) -> Vec<Logical> {
    let mut out = Vec::new();
    let mut cur: Option<Logical> = None;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let (body, continues) = match raw.strip_suffix('\\') {
            Some(b) => (b, true),
            None => (raw, false),
        };
        match &mut cur {
            Some(l) => {
                l.text.push(' ');
                l.text.push_str(body);
                l.end_line = n;
            }
            None => {
                cur = Some(Logical {
                    text: body.to_string(),
                    end_line: n,
                })
            }
        }
        if !continues && let Some(l) = cur.take() {
            out.push(l);
        }
    }
    out.extend(cur);
    out
}

fn words(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| c.is_whitespace() || c == ':' || c == '=')
        .filter(|w| !w.is_empty())
}

/// `OBJS` of `OBJS = a.o b.o` / `OBJS += ...` / `OBJS := ...`.
fn assigned_variable(line: &str) -> Option<&str> {
    let eq = line.find('=')?;
    let lhs = line[..eq].trim_end_matches([':', '+', '?', '!']).trim();
    (!lhs.is_empty() && !lhs.contains(char::is_whitespace) && !line.starts_with('\t'))
        .then_some(lhs)
}

/// The edits that build `kernel_file` (next to `source_file`, both named relative to the
/// Makefile's directory) into the program, or why this Makefile's shape is not one we know.
pub fn edits(
    text: &str,
    source_rel: &str,
    kernel_rel: &str,
    arch: &CudaArch,
) -> Result<Vec<LineEdit>, String> {
    let object = |p: &str| format!("{}.o", p.rsplit_once('.').map_or(p, |(stem, _)| stem));
    let source_obj = object(source_rel);
    let kernel_obj = object(kernel_rel);
    let lines = logical_lines(text);
    if lines
        .iter()
        .any(|l| words(&l.text).any(|w| w == kernel_obj))
    {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let recipe_links = |var: &str| {
        let uses = [format!("$({var})"), format!("${{{var}}}")];
        lines.iter().filter(move |l| {
            l.text.starts_with('\t')
                && (uses.iter().any(|u| l.text.contains(u.as_str())) || l.text.contains("$^"))
        })
    };
    if let Some(list) = lines
        .iter()
        .find(|l| assigned_variable(&l.text).is_some() && words(&l.text).any(|w| w == source_obj))
    {
        let var = assigned_variable(&list.text).unwrap_or_default();
        let mut after_list = format!("{var} += {kernel_obj}  # cuda-offload\n");
        // The runtime goes where the link already takes its libraries, else on each link recipe.
        if lines
            .iter()
            .any(|l| assigned_variable(&l.text) == Some("LDLIBS"))
            || recipe_links(var).any(|l| l.text.contains("$(LDLIBS)"))
        {
            after_list.push_str("LDLIBS += $(CUDA_LDLIBS)  # cuda-offload\n");
        } else {
            let links: Vec<&Logical> = recipe_links(var).collect();
            if links.is_empty() {
                return Err(format!(
                    "{var} lists {source_obj}, but no recipe links $({var}): add {kernel_obj} and $(CUDA_LDLIBS) to the link"
                ));
            }
            for l in links {
                out.push(append_to_line(text, l, " $(CUDA_LDLIBS)"));
            }
        }
        out.push(LineEdit {
            start_line: list.end_line + 1,
            end_line: list.end_line,
            new_text: after_list,
        });
    } else if let Some(rule_at) = lines.iter().position(|l| {
        !l.text.starts_with('\t')
            && l.text.contains(':')
            && assigned_variable(&l.text).is_none()
            && l.text
                .split_once(':')
                .is_some_and(|(_, deps)| words(deps).any(|w| w == source_rel))
    }) {
        let rule = &lines[rule_at];
        out.push(append_to_line(text, rule, &format!(" {kernel_obj}")));
        let recipe: Vec<&Logical> = lines[rule_at + 1..]
            .iter()
            .take_while(|l| l.text.starts_with('\t'))
            .collect();
        let Some(compile) = recipe
            .iter()
            .find(|l| l.text.contains("$^") || words(&l.text).any(|w| w == source_rel))
        else {
            return Err(format!(
                "the rule for {source_rel} has no recipe that names it: add {kernel_obj} and $(CUDA_LDLIBS) to the link"
            ));
        };
        let extra = if compile.text.contains("$^") {
            " $(CUDA_LDLIBS)".to_string()
        } else {
            format!(" {kernel_obj} $(CUDA_LDLIBS)")
        };
        out.push(append_to_line(text, compile, &extra));
    } else {
        return Err(format!(
            "no object list or rule in it names {source_obj} or {source_rel}"
        ));
    }
    // The variables go first, so that a `:=` or `+=` above the rule sees them; the rule goes
    // last, so that it does not become the default goal.
    let sm = arch.nvcc_value().unwrap_or_else(|| "sm_75".into());
    let variables = format!(
        "# cuda-offload: {kernel_rel} ({why}); override any of these on the make command line\nNVCC ?= nvcc\nCUDA_HOME ?= /usr/local/cuda\nCUDA_ARCH ?= {sm}\nCUDA_LDLIBS ?= -L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/lib -lcudart_static -ldl -lpthread -lrt\n\n",
        why = arch.why()
    );
    // An edit of line 1 takes the block in front, so that no two edits overlap.
    match out
        .iter_mut()
        .find(|e| e.start_line == 1 && e.end_line >= 1)
    {
        Some(first) => first.new_text.insert_str(0, &variables),
        None => out.push(LineEdit {
            start_line: 1,
            end_line: 0,
            new_text: variables,
        }),
    }
    let total = text.lines().count();
    let sep = if text.ends_with('\n') || text.is_empty() {
        ""
    } else {
        "\n"
    };
    out.push(LineEdit {
        start_line: total + 1,
        end_line: total,
        new_text: format!(
            "{sep}\n# cuda-offload\n{kernel_obj}: {kernel_rel}\n\t$(NVCC) -O3 -arch=$(CUDA_ARCH) -c $< -o $@\n"
        ),
    });
    Ok(out)
}

/// The last physical line of a logical line, with `extra` appended (before its newline).
fn append_to_line(text: &str, l: &Logical, extra: &str) -> LineEdit {
    let last = text.lines().nth(l.end_line - 1).unwrap_or_default();
    LineEdit {
        start_line: l.end_line,
        end_line: l.end_line,
        new_text: format!("{last}{extra}\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::workspace_edit::apply_line_edits;

    fn arch() -> CudaArch {
        CudaArch::from_setting("sm_90")
    }

    #[test]
    fn an_object_list_gains_the_kernel_object_and_the_runtime() {
        let mk = "CXX ?= g++\nOBJS = main.o \\\n  saxpy.o\napp: $(OBJS)\n\t$(CXX) -o $@ $(OBJS)\n%.o: %.cpp\n\t$(CXX) -c $< -o $@\n";
        let e = edits(mk, "saxpy.cpp", "saxpy_cuda.cu", &arch()).unwrap();
        let out = apply_line_edits(mk, &e);
        assert!(out.contains("  saxpy.o\nOBJS += saxpy_cuda.o  # cuda-offload\napp: $(OBJS)\n"));
        assert!(out.contains("\t$(CXX) -o $@ $(OBJS) $(CUDA_LDLIBS)\n"));
        assert!(out.contains("CUDA_ARCH ?= sm_90\n"));
        assert!(out.contains(
            "saxpy_cuda.o: saxpy_cuda.cu\n\t$(NVCC) -O3 -arch=$(CUDA_ARCH) -c $< -o $@\n"
        ));
        // Applying again adds nothing.
        assert_eq!(
            edits(&out, "saxpy.cpp", "saxpy_cuda.cu", &arch()),
            Ok(vec![])
        );
    }

    #[test]
    fn ldlibs_takes_the_runtime_when_the_link_uses_it() {
        let mk = "OBJS := saxpy.o\nLDLIBS = -lm\napp: $(OBJS)\n\t$(CXX) $^ -o $@ $(LDLIBS)\n";
        let out = apply_line_edits(
            mk,
            &edits(mk, "saxpy.cpp", "saxpy_cuda.cu", &arch()).unwrap(),
        );
        assert!(out.contains("OBJS := saxpy.o\nOBJS += saxpy_cuda.o  # cuda-offload\nLDLIBS += $(CUDA_LDLIBS)  # cuda-offload\n"));
        assert!(out.contains("\t$(CXX) $^ -o $@ $(LDLIBS)\n"));
    }

    #[test]
    fn a_rule_from_the_source_links_the_object_too() {
        let mk = "saxpy: saxpy.cpp\n\tg++ -O2 -o saxpy saxpy.cpp\n";
        let out = apply_line_edits(
            mk,
            &edits(mk, "saxpy.cpp", "saxpy_cuda.cu", &arch()).unwrap(),
        );
        assert!(out.contains("\nsaxpy: saxpy.cpp saxpy_cuda.o\n\tg++ -O2 -o saxpy saxpy.cpp saxpy_cuda.o $(CUDA_LDLIBS)\n"));
    }

    #[test]
    fn an_unknown_shape_says_what_is_missing() {
        let err = edits(
            "all:\n\t./build.sh\n",
            "saxpy.cpp",
            "saxpy_cuda.cu",
            &arch(),
        )
        .unwrap_err();
        assert!(err.contains("saxpy.o or saxpy.cpp"), "{err}");
    }
}
