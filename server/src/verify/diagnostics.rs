//! nvcc's messages mapped onto the candidate's lines. The candidate follows
//! `#line 1 "candidate.cu"` in the harness, so both nvcc's front end (`candidate.cu(12): error: ...`)
//! and the host compiler (`candidate.cu:12:5: error: ...`) already count the candidate's lines.

use super::harness::CANDIDATE_FILE;
use super::outcome::Diagnostic;

/// `saxpy_gpu` for the link-error hint.
pub fn parse(stderr: &str, entry: &str, signature: &str) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
    for line in stderr.lines() {
        if let Some(d) = parse_front_end(line).or_else(|| parse_host(line)) {
            out.push(d);
        } else if line.contains("undefined reference to") && line.contains(entry) {
            out.push(Diagnostic {
                line: None,
                severity: "error".into(),
                message: format!(
                    "the candidate must define `{signature}` with exactly this parameter list and C++ linkage ({})",
                    line.trim()
                ),
            });
        } else if line.contains("undefined reference to")
            || line.contains("multiple definition of")
            || line.starts_with("ptxas error")
            || line.starts_with("nvlink error")
        {
            out.push(Diagnostic {
                line: None,
                severity: "error".into(),
                message: line.trim().to_string(),
            });
        }
    }
    if !out.iter().any(|d| d.severity == "error") {
        let tail: Vec<&str> = stderr.lines().rev().take(8).collect();
        out.push(Diagnostic {
            line: None,
            severity: "error".into(),
            message: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
        });
    }
    out
}

fn diagnostic(file: &str, line: usize, severity: &str, message: &str) -> Diagnostic {
    let ours = file.ends_with(CANDIDATE_FILE);
    Diagnostic {
        line: ours.then_some(line),
        severity: severity.to_string(),
        message: if ours {
            message.trim().to_string()
        } else {
            format!("in the generated harness: {}", message.trim())
        },
    }
}

/// `file.cu(LINE): error: message` (also `error #20-D:`).
fn parse_front_end(line: &str) -> Option<Diagnostic> {
    let open = line.find('(')?;
    let close = open + line[open..].find("): ")?;
    let num: usize = line[open + 1..close].parse().ok()?;
    let rest = &line[close + 3..];
    let (sev, msg) = rest.split_once(": ")?;
    let sev = sev.split_whitespace().next()?;
    if !matches!(sev, "error" | "warning" | "catastrophic") {
        return None;
    }
    let sev = if sev == "catastrophic" { "error" } else { sev };
    Some(diagnostic(&line[..open], num, sev, msg))
}

/// `file.cu:LINE:COL: error: message`.
fn parse_host(line: &str) -> Option<Diagnostic> {
    let mut parts = line.splitn(5, ':');
    let file = parts.next()?;
    let num: usize = parts.next()?.trim().parse().ok()?;
    let third = parts.next()?;
    let (sev, msg) = if third.trim().parse::<usize>().is_ok() {
        (parts.next()?.trim().to_string(), parts.next()?.to_string())
    } else {
        (
            third.trim().to_string(),
            parts.collect::<Vec<_>>().join(":"),
        )
    };
    if !matches!(sev.as_str(), "error" | "warning" | "fatal error") {
        return None;
    }
    let sev = if sev == "fatal error" { "error" } else { &sev };
    Some(diagnostic(file, num, sev, &msg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_front_end_and_host_errors() {
        let d = parse(
            "candidate.cu(3): error: expected a \";\"\n      int x = 1\n              ^\n\n\
             /tmp/x/harness.cu(40): error #20: identifier \"q\" is undefined\n\
             candidate.cu:7:5: error: 'foo' was not declared in this scope\n",
            "saxpy_gpu",
            "void saxpy_gpu(int n)",
        );
        assert_eq!(d.len(), 3);
        assert_eq!(d[0].line, Some(3));
        assert_eq!(d[0].message, "expected a \";\"");
        assert_eq!(d[1].line, None);
        assert!(d[1].message.starts_with("in the generated harness"));
        assert_eq!(d[2].line, Some(7));
    }

    #[test]
    fn explains_a_missing_entry_point() {
        let d = parse(
            "/usr/bin/ld: /tmp/a.o: in function `co_call':\nharness.cu:(.text+0x1): undefined reference to `saxpy_gpu(int, float, float const*, float*)'\n",
            "saxpy_gpu",
            "void saxpy_gpu(int n, float a, const float* x, float* y)",
        );
        assert!(
            d.iter()
                .any(|x| x.message.contains("must define `void saxpy_gpu")),
            "{d:?}"
        );
    }
}
