//! Finds the candidate kernel in a model's answer.
//!
//! Small models wrap code in fences with any tag (`cuda`, `cpp`, `c++`, none), split it over several
//! blocks (kernel in one, launcher in the next), add a `main` to show usage, or skip the fences and
//! mix prose with code. The result is the source that defines the entry point
//! `void <name>_gpu(`, with the helper blocks it uses and without `main`.

use std::ops::Range;

use crate::analysis::{mentions_word as mentions, whole_words};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    #[error("the model answered nothing")]
    Empty,
    #[error("the answer contains no code")]
    NoCode,
    #[error(
        "the answer does not define the entry point `void {entry}(...)`{}",
        found_note(found)
    )]
    MissingEntryPoint { entry: String, found: Vec<String> },
    #[error(
        "the answer defines `{entry}` as a __global__ kernel; it must be a host function \
         `void {entry}(...)` that launches the kernel(s)"
    )]
    EntryIsKernel { entry: String },
}

fn found_note(found: &[String]) -> String {
    if found.is_empty() {
        String::new()
    } else {
        format!(" (it defines: {})", found.join(", "))
    }
}

/// The code taken from an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    pub code: String,
    /// Code blocks the answer had (1 for unfenced code).
    pub blocks: usize,
    /// Blocks merged into `code` (the entry point's block plus helpers it uses).
    pub merged: usize,
    /// A `main` function was removed.
    pub dropped_main: bool,
    /// The answer's entry point was a `__global__` kernel: it was renamed `<entry>_kernel` and a
    /// host launcher over [`Launch::threads`] threads was added under the entry point's name.
    pub added_launcher: bool,
}

/// How to launch an answer that defines the entry point as a kernel. Small models often name the
/// kernel itself after the entry point instead of writing the host function the prompt asks for;
/// one thread per loop iteration is the launch such a kernel almost always assumes, and a kernel
/// that assumes another fails verification like any wrong one.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The entry point's signature, `void <entry>(int n, const float* x, ...)`.
    pub signature: String,
    /// Its parameters' names, in order.
    pub args: Vec<String>,
    /// Threads to launch: a C expression over the parameters (the loop nest's iterations).
    pub threads: String,
}

impl Launch {
    /// One thread per iteration of the region's loop nest, under its entry point's signature.
    pub fn for_region(region: &crate::analysis::OffloadRegion) -> Launch {
        Launch {
            signature: region.signature_named(&region.gpu_entry_name()),
            args: region.params.iter().map(|p| p.name.clone()).collect(),
            threads: region.work.iterations.clone(),
        }
    }
}

/// [`extract_kernel`], adding the host launcher `launch` describes when the entry point is a kernel.
pub fn extract_kernel_or_launch(
    answer: &str,
    entry: &str,
    launch: &Launch,
) -> Result<Extracted, AnswerError> {
    match extract_kernel(answer, entry) {
        Err(AnswerError::EntryIsKernel { .. }) => {}
        other => return other,
    }
    let kernel = format!("{entry}_kernel");
    let code = code_of(answer);
    if mentions(&code, &kernel) {
        // The name is taken: not the simple case this repairs.
        return Err(AnswerError::EntryIsKernel {
            entry: entry.to_string(),
        });
    }
    let renamed = rename(&code, entry, &kernel);
    let wrapped = format!(
        "```cuda\n{renamed}\n\n// Host launcher added by cuda-offload: the answer wrote the entry point as the kernel itself.\n\
         {signature} {{\n    \
         const long long co_threads = (long long)({threads});\n    \
         if (co_threads <= 0) return;\n    \
         const int co_block = 256;\n    \
         {kernel}<<<(unsigned int)((co_threads + co_block - 1) / co_block), co_block>>>({args});\n\
         }}\n```\n",
        signature = launch.signature,
        threads = launch.threads,
        args = launch.args.join(", "),
    );
    let mut extracted = extract_kernel(&wrapped, entry)?;
    extracted.added_launcher = true;
    Ok(extracted)
}

/// Every whole-word `from` in `text` replaced by `to`.
fn rename(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut last = 0;
    for i in whole_words(text, from) {
        out.push_str(&text[last..i]);
        out.push_str(to);
        last = i + from.len();
    }
    out.push_str(&text[last..]);
    out
}

/// Extracts the source defining `void <entry>(` from `answer`.
pub fn extract_kernel(answer: &str, entry: &str) -> Result<Extracted, AnswerError> {
    if answer.trim().is_empty() {
        return Err(AnswerError::Empty);
    }
    let fenced = fenced_blocks(answer);
    let blocks: Vec<String> = if fenced.is_empty() {
        unfenced_code(answer).into_iter().collect()
    } else {
        fenced
    };
    let blocks: Vec<String> = blocks.into_iter().filter(|b| looks_like_code(b)).collect();
    if blocks.is_empty() {
        return Err(AnswerError::NoCode);
    }
    let Some(main_block) = blocks.iter().position(|b| defines(b, entry)) else {
        if blocks.iter().any(|b| defines_kernel(b, entry)) {
            return Err(AnswerError::EntryIsKernel {
                entry: entry.to_string(),
            });
        }
        let mut found: Vec<String> = blocks.iter().flat_map(|b| defined_functions(b)).collect();
        found.dedup();
        return Err(AnswerError::MissingEntryPoint {
            entry: entry.to_string(),
            found,
        });
    };
    let (body, dropped_main) = drop_main(&blocks[main_block]);
    // Helpers (kernels, device functions, structs) that the entry block uses but another block
    // defines go first, in answer order.
    let mut parts: Vec<String> = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        if i == main_block || defines(block, entry) {
            continue;
        }
        let helpers = defined_functions(block);
        let needed = helpers
            .iter()
            .any(|h| mentions(&body, h) && !defined_functions(&body).contains(h));
        if needed {
            parts.push(drop_main(block).0);
        }
    }
    let merged = parts.len() + 1;
    parts.push(body);
    let mut code = parts.join("\n\n");
    if !code.ends_with('\n') {
        code.push('\n');
    }
    Ok(Extracted {
        code,
        blocks: blocks.len(),
        merged,
        dropped_main,
        added_launcher: false,
    })
}

/// All the code of an answer (its blocks joined), for showing an unusable answer back to the
/// model in a repair prompt.
pub fn code_of(answer: &str) -> String {
    let fenced = fenced_blocks(answer);
    let blocks = if fenced.is_empty() {
        unfenced_code(answer).into_iter().collect()
    } else {
        fenced
    };
    blocks.join("\n\n").trim().to_string()
}

/// Contents of ``` fences; an unclosed last fence (a truncated answer) runs to the end.
fn fenced_blocks(answer: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in answer.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            match current.take() {
                Some(lines) => blocks.push(lines.join("\n")),
                None => current = Some(Vec::new()),
            }
        } else if let Some(lines) = current.as_mut() {
            lines.push(line);
        }
    }
    if let Some(lines) = current {
        blocks.push(lines.join("\n"));
    }
    blocks
}

/// Code without fences: from the first line that starts code to the end of the last top-level
/// brace block, minus the sentences between functions.
fn unfenced_code(answer: &str) -> Option<String> {
    let lines: Vec<&str> = answer.lines().collect();
    let start = lines.iter().position(|l| starts_code(l))?;
    let mut kept: Vec<&str> = Vec::new();
    let mut depth: i64 = 0;
    let mut last_close = None;
    for line in &lines[start..] {
        let is_prose = depth == 0 && is_sentence(line);
        if is_prose {
            continue;
        }
        depth += brace_delta(line);
        kept.push(line);
        if depth <= 0 && (line.contains('}') || line.trim_end().ends_with(';')) {
            depth = 0;
            last_close = Some(kept.len());
        }
    }
    let end = last_close.unwrap_or(kept.len());
    Some(kept[..end].join("\n"))
}

fn starts_code(line: &str) -> bool {
    let t = line.trim_start();
    [
        "#include",
        "#define",
        "__global__",
        "__device__",
        "__host__",
        "template",
        "extern",
        "static",
        "void ",
        "struct ",
        "namespace",
        "using ",
        "typedef",
        "const ",
        "inline ",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

/// A line of prose between functions: words and punctuation, not C.
fn is_sentence(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() || starts_code(t) || t.starts_with("//") || t.starts_with("/*") {
        return false;
    }
    let first = t.chars().next().unwrap_or(' ');
    let words = t.split_whitespace().count();
    let code_end = t.ends_with(';') || t.ends_with('{') || t.ends_with('}') || t.ends_with(',');
    (first.is_alphabetic() || first == '-' || first == '*' || first.is_ascii_digit())
        && words >= 3
        && !code_end
}

fn looks_like_code(block: &str) -> bool {
    block.contains('{') || block.contains(';') || block.contains("#include")
}

/// Net `{` minus `}` outside comments and literals.
fn brace_delta(text: &str) -> i64 {
    let mut delta = 0;
    for (_, c) in code_chars(text) {
        match c {
            '{' => delta += 1,
            '}' => delta -= 1,
            _ => {}
        }
    }
    delta
}

/// Characters (with byte offsets) that are code: comments, strings and char literals skipped.
fn code_chars(text: &str) -> Vec<(usize, char)> {
    let mut out = Vec::new();
    let mut it = text.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        match c {
            '/' if it.peek().map(|p| p.1) == Some('/') => {
                for (_, c) in it.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '/' if it.peek().map(|p| p.1) == Some('*') => {
                it.next();
                let mut prev = ' ';
                for (_, c) in it.by_ref() {
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
            }
            '"' | '\'' => {
                let quote = c;
                let mut escaped = false;
                for (_, c) in it.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == quote || c == '\n' {
                        break;
                    }
                }
            }
            _ => out.push((i, c)),
        }
    }
    out
}

/// Byte ranges of top-level function definitions `name(...) {...}` with their names.
fn functions(text: &str) -> Vec<(String, Range<usize>)> {
    let chars = code_chars(text);
    let mut found = Vec::new();
    let mut depth = 0i64;
    let mut k = 0;
    while k < chars.len() {
        let (_, c) = chars[k];
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            '(' if depth == 0 => {
                // The identifier before `(`, then the matching `)`, then `{` (maybe after qualifiers).
                let name = ident_before(text, chars[k].0);
                let mut level = 0i64;
                let mut j = k;
                while j < chars.len() {
                    match chars[j].1 {
                        '(' => level += 1,
                        ')' => {
                            level -= 1;
                            if level == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                let mut b = j + 1;
                while b < chars.len() && chars[b].1 != '{' && chars[b].1 != ';' {
                    b += 1;
                }
                if let Some(name) = name
                    && b < chars.len()
                    && chars[b].1 == '{'
                {
                    let mut level = 0i64;
                    let mut e = b;
                    while e < chars.len() {
                        match chars[e].1 {
                            '{' => level += 1,
                            '}' => {
                                level -= 1;
                                if level == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        e += 1;
                    }
                    let end = chars.get(e).map_or(text.len(), |(i, _)| i + 1);
                    let start = decl_start(text, chars[k].0);
                    found.push((name, start..end));
                    k = e + 1;
                    continue;
                }
                k = j + 1;
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    found
}

fn ident_before(text: &str, paren: usize) -> Option<String> {
    let before = text[..paren].trim_end();
    let name: String = before
        .chars()
        .rev()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let keyword = matches!(
        name.as_str(),
        "if" | "for" | "while" | "switch" | "return" | "sizeof" | "__launch_bounds__"
    );
    (!name.is_empty() && !keyword && !name.chars().next()?.is_ascii_digit()).then_some(name)
}

/// Start of the declaration holding the `(` at `paren`: after the previous `;`, `}` or `#` line.
fn decl_start(text: &str, paren: usize) -> usize {
    let head = &text[..paren];
    let mut start = 0;
    for (i, c) in code_chars(head) {
        if c == ';' || c == '}' {
            start = i + 1;
        }
    }
    // Skip preprocessor lines and blank lines between the previous statement and this one.
    let mut pos = start;
    for line in text[start..paren].split_inclusive('\n') {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            pos += line.len();
        } else {
            break;
        }
    }
    pos.min(paren)
}

/// Names of the functions `block` defines.
fn defined_functions(block: &str) -> Vec<String> {
    functions(block).into_iter().map(|(n, _)| n).collect()
}

/// The words before the name of each definition of `entry` (`__global__ void`, `extern "C" void`).
fn entry_heads<'a>(block: &'a str, entry: &str) -> Vec<Vec<&'a str>> {
    functions(block)
        .into_iter()
        .filter(|(name, _)| name == entry)
        .map(|(_, range)| {
            let head = &block[range.start..];
            let upto = head.find(entry).unwrap_or(0);
            head[..upto].split_whitespace().collect()
        })
        .collect()
}

/// True when `block` defines the host function `void <entry>(...) {`.
fn defines(block: &str, entry: &str) -> bool {
    entry_heads(block, entry)
        .iter()
        .any(|words| words.contains(&"void") && !words.contains(&"__global__"))
}

fn defines_kernel(block: &str, entry: &str) -> bool {
    entry_heads(block, entry)
        .iter()
        .any(|words| words.contains(&"__global__"))
}

/// Removes a `main` function (demo code the harness would clash with).
fn drop_main(block: &str) -> (String, bool) {
    match functions(block).into_iter().find(|(n, _)| n == "main") {
        Some((_, range)) => {
            let mut out = String::new();
            out.push_str(block[..range.start].trim_end());
            out.push('\n');
            out.push_str(block[range.end..].trim_start_matches(['\n', '\r']));
            (out.trim_end().to_string(), true)
        }
        None => (block.trim_end().to_string(), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saxpy_launch() -> Launch {
        Launch {
            signature: "void saxpy_gpu(int n, float a, const float* x, float* y)".into(),
            args: vec!["n".into(), "a".into(), "x".into(), "y".into()],
            threads: "n".into(),
        }
    }

    #[test]
    fn a_kernel_named_like_the_entry_point_gets_a_launcher() {
        let answer = "Here is the kernel:\n```cuda\n__device__ float saxpy_gpu_term(float a, float x) { return a * x; }\n\
                      __global__ void saxpy_gpu(int n, float a, const float* x, float* y) {\n    \
                      int i = blockIdx.x * blockDim.x + threadIdx.x;\n    \
                      if (i < n) y[i] = saxpy_gpu_term(a, x[i]) + y[i];\n}\n\
                      int main() { saxpy_gpu<<<1, 1>>>(0, 0, 0, 0); }\n```";
        assert!(matches!(
            extract_kernel(answer, "saxpy_gpu"),
            Err(AnswerError::EntryIsKernel { .. })
        ));
        let got = extract_kernel_or_launch(answer, "saxpy_gpu", &saxpy_launch()).unwrap();
        assert!(got.added_launcher && got.dropped_main);
        assert!(
            got.code.contains("__global__ void saxpy_gpu_kernel(int n"),
            "{}",
            got.code
        );
        // Only the whole name is renamed.
        assert!(got.code.contains("saxpy_gpu_term(a, x[i])"), "{}", got.code);
        assert!(
            got.code
                .contains("void saxpy_gpu(int n, float a, const float* x, float* y) {")
        );
        assert!(got.code.contains("(long long)(n)"), "{}", got.code);
        assert!(got.code.contains("saxpy_gpu_kernel<<<"));
        assert!(got.code.contains(">>>(n, a, x, y);"), "{}", got.code);
        assert!(!got.code.contains("int main"));
    }

    #[test]
    fn a_proper_answer_or_a_taken_kernel_name_is_left_alone() {
        let proper = "```cuda\n__global__ void k(int n, float* y) { y[0] = n; }\n\
                      void saxpy_gpu(int n, float a, const float* x, float* y) { k<<<1, 1>>>(n, y); }\n```";
        let got = extract_kernel_or_launch(proper, "saxpy_gpu", &saxpy_launch()).unwrap();
        assert!(!got.added_launcher);
        assert_eq!(got, extract_kernel(proper, "saxpy_gpu").unwrap());
        let taken = "```cuda\n__global__ void saxpy_gpu_kernel() {}\n\
                     __global__ void saxpy_gpu(int n, float a, const float* x, float* y) {}\n```";
        assert!(matches!(
            extract_kernel_or_launch(taken, "saxpy_gpu", &saxpy_launch()),
            Err(AnswerError::EntryIsKernel { .. })
        ));
    }

    #[test]
    fn empty_and_prose_only_answers_are_errors() {
        assert_eq!(extract_kernel("  \n", "f_gpu"), Err(AnswerError::Empty));
        assert_eq!(
            extract_kernel("I cannot help with that request.", "f_gpu"),
            Err(AnswerError::NoCode)
        );
    }

    #[test]
    fn a_declaration_is_not_a_definition() {
        let answer =
            "```cuda\nvoid f_gpu(int n, float* y);\n__global__ void k(float* y) { y[0] = 1; }\n```";
        let err = extract_kernel(answer, "f_gpu").unwrap_err();
        assert_eq!(
            err,
            AnswerError::MissingEntryPoint {
                entry: "f_gpu".into(),
                found: vec!["k".into()]
            }
        );
        assert!(err.to_string().contains("it defines: k"));
    }

    // Merging and main-dropping on minimal code; recorded answers are covered in tests/llm_replay.rs.
    #[test]
    fn helper_blocks_are_merged_and_main_is_dropped() {
        let answer = "```cuda\n__global__ void k(int n, float* y) {\n  int i = threadIdx.x;\n  if (i < n) y[i] = 0;\n}\n```\nThen:\n```cpp\nvoid f_gpu(int n, float* y) {\n  k<<<1, 256>>>(n, y);\n}\n\nint main() { f_gpu(1, nullptr); }\n```";
        let k = extract_kernel(answer, "f_gpu").unwrap();
        assert_eq!((k.blocks, k.merged, k.dropped_main), (2, 2, true));
        assert!(k.code.starts_with("__global__ void k("));
        assert!(k.code.contains("void f_gpu(") && !k.code.contains("main"));
    }

    #[test]
    fn unfenced_code_loses_the_prose_around_it() {
        let answer = "Here is the code:\n\n#include <cuda_runtime.h>\n\n__global__ void k(int n, float* y) {\n  if (threadIdx.x < n) y[threadIdx.x] = 0;\n}\n\nThis launches one thread per element.\n\nvoid f_gpu(int n, float* y) {\n  k<<<1, 256>>>(n, y);\n}\nHope this helps you a lot.";
        let k = extract_kernel(answer, "f_gpu").unwrap();
        assert!(k.code.starts_with("#include <cuda_runtime.h>"));
        assert!(
            !k.code.contains("Here is")
                && !k.code.contains("This launches")
                && !k.code.contains("Hope")
        );
        assert!(k.code.trim_end().ends_with('}'));
    }

    #[test]
    fn braces_in_strings_and_comments_do_not_confuse_the_scanner() {
        let code = "// } stray\nvoid f_gpu(int n) {\n  const char* s = \"}{\";\n  /* { */\n}\n";
        let fns = functions(code);
        assert_eq!(fns.len(), 1);
        assert_eq!(fns[0].0, "f_gpu");
        assert!(code[fns[0].1.clone()].trim_end().ends_with('}'));
    }
}
