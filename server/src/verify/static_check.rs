//! Refuses candidate sources that try known escapes before anything is compiled: fallbacks to the
//! serial code, calls into the reference, device resets, processes, files, threads, printing.
//! A token scan over the source with comments and literals removed: generated code hides nothing
//! from it in a comment, and a string mentioning `fork` is no call.

use crate::analysis::OffloadRegion;
use crate::analysis::strip_comments_and_literals;

/// Identifiers a candidate must not use, with the reason shown to the model.
const BANNED: &[(&str, &str)] = &[
    ("try", "exception handling (a fallback to serial code)"),
    ("catch", "exception handling (a fallback to serial code)"),
    ("cudaDeviceReset", "resets the device"),
    ("cudaMallocManaged", "managed memory for the parameters"),
    ("cudaMemcpyDeviceToHost", "copies results to the host"),
    (
        "cudaMemcpyHostToDevice",
        "copies host data in (parameters are device pointers)",
    ),
    ("cudaMemcpyDefault", "copies between unknown memories"),
    ("cudaSetDevice", "changes the device"),
    ("cudaProfilerStop", "touches the profiler"),
    ("system", "runs a process"),
    ("popen", "runs a process"),
    ("fork", "creates a process"),
    ("vfork", "creates a process"),
    ("clone", "creates a process"),
    ("posix_spawn", "creates a process"),
    ("execl", "runs a process"),
    ("execlp", "runs a process"),
    ("execle", "runs a process"),
    ("execv", "runs a process"),
    ("execvp", "runs a process"),
    ("execve", "runs a process"),
    ("setsid", "leaves the sandbox's process group"),
    ("setpgid", "leaves the sandbox's process group"),
    ("kill", "signals other processes"),
    ("signal", "installs signal handlers"),
    ("sigaction", "installs signal handlers"),
    ("syscall", "raw system calls"),
    ("asm", "inline assembly"),
    ("__asm__", "inline assembly"),
    ("dlopen", "loads code"),
    ("dlsym", "looks up symbols"),
    ("fopen", "file I/O"),
    ("freopen", "file I/O"),
    ("open", "file I/O"),
    ("openat", "file I/O"),
    ("creat", "file I/O"),
    ("unlink", "file I/O"),
    ("remove", "file I/O"),
    ("rename", "file I/O"),
    ("mmap", "maps memory or files"),
    ("ifstream", "file I/O"),
    ("ofstream", "file I/O"),
    ("fstream", "file I/O"),
    ("filesystem", "file I/O"),
    ("FILE", "file I/O"),
    ("printf", "prints (the harness owns stdout)"),
    ("fprintf", "prints (the harness owns stdout)"),
    ("puts", "prints (the harness owns stdout)"),
    ("putchar", "prints (the harness owns stdout)"),
    ("fwrite", "writes output"),
    ("write", "writes to a file descriptor"),
    ("cout", "prints (the harness owns stdout)"),
    ("cerr", "prints (the harness owns stdout)"),
    ("pthread_create", "host threads outlive the timer"),
    ("getenv", "reads the environment"),
    ("environ", "reads the environment"),
    ("atexit", "runs code after the harness"),
    ("at_quick_exit", "runs code after the harness"),
    ("exit", "ends the harness"),
    ("_exit", "ends the harness"),
    ("abort", "ends the harness"),
    ("main", "defines the harness's entry point"),
    ("constructor", "runs code before the harness"),
    ("destructor", "runs code after the harness"),
    ("setjmp", "non-local jumps"),
    ("longjmp", "non-local jumps"),
];

/// Banned names that are also ordinary identifiers: refused only when called.
const CALL_ONLY: &[&str] = &[
    "remove", "rename", "open", "creat", "unlink", "write", "kill", "signal", "exit", "abort",
];

/// Headers that only serve the banned calls.
const BANNED_HEADERS: &[&str] = &[
    "fstream",
    "thread",
    "future",
    "filesystem",
    "unistd.h",
    "sys/",
    "signal.h",
    "csignal",
    "dlfcn.h",
    "spawn.h",
    "setjmp.h",
    "csetjmp",
    "fcntl.h",
    "pthread.h",
];

/// The first reason to refuse `source`, or `None`.
pub fn check(region: &OffloadRegion, source: &str) -> Option<String> {
    let code = strip_comments_and_literals(source);
    for line in source.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix('#') {
            let rest = rest.trim_start();
            if let Some(inc) = rest.strip_prefix("include") {
                let inc = inc.trim().trim_matches(['<', '>', '"']);
                if BANNED_HEADERS.iter().any(|h| inc.starts_with(h)) {
                    return Some(format!(
                        "includes <{inc}>, which only serves forbidden calls"
                    ));
                }
            }
            if rest.starts_with("line") {
                return Some("uses #line (compiler messages must point at its own lines)".into());
            }
        }
    }
    for (token, line, next) in identifiers(&code) {
        // Only a call or declaration of the reference counts: a local named `dot` is fine.
        if token == region.name && next == Some('(') {
            return Some(format!(
                "line {line}: calls or declares the serial reference `{}` (candidates must not fall back to it)",
                region.name
            ));
        }
        if let Some((_, why)) = BANNED.iter().find(|(b, _)| *b == token) {
            // Ordinary words (`remove`, `open`, `write`, ...) are often variable names: only a
            // call counts for them.
            if CALL_ONLY.contains(&token) && next != Some('(') {
                continue;
            }
            return Some(format!("line {line}: uses `{token}`: {why}"));
        }
    }
    if let Some((name, line)) = redefined_runtime_function(&code) {
        return Some(format!(
            "line {line}: defines or declares `{name}`, a name of the CUDA runtime or the harness (it could fake the timer)"
        ));
    }
    if !identifiers(&code).any(|(t, _, _)| t == region.gpu_entry_name()) {
        return Some(format!(
            "does not define the entry point `{}`",
            region.signature_named(&region.gpu_entry_name())
        ));
    }
    None
}

/// A `cuda*`/`co_*` name declared rather than called: `<type> cudaEventElapsedTime(`.
fn redefined_runtime_function(code: &str) -> Option<(String, usize)> {
    const NOT_TYPES: &[&str] = &[
        "return", "else", "do", "case", "throw", "new", "delete", "sizeof", "decltype", "co_await",
    ];
    let mut prev: Option<(&str, usize)> = None;
    for (tok, line, next) in identifiers(code) {
        let reserved = tok.starts_with("cuda") || tok.starts_with("co_") || tok.starts_with("CO_");
        if reserved
            && next == Some('(')
            && let Some((p, end)) = prev
        {
            // Only blanks, `*` or `&` between the previous identifier and this one.
            let between_ok = code
                .get(end..)
                .and_then(|rest| rest.find(tok).map(|i| &rest[..i]))
                .is_some_and(|b| b.chars().all(|c| c.is_whitespace() || c == '*' || c == '&'));
            if between_ok && !NOT_TYPES.contains(&p) {
                return Some((tok.to_string(), line));
            }
        }
        let end = tok.as_ptr() as usize - code.as_ptr() as usize + tok.len();
        prev = Some((tok, end));
    }
    None
}

/// Identifiers with their 1-based line and the next non-blank character.
fn identifiers(code: &str) -> impl Iterator<Item = (&str, usize, Option<char>)> {
    let bytes = code.as_bytes();
    let mut i = 0;
    let mut line = 1;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let c = bytes[i];
            if c == b'\n' {
                line += 1;
                i += 1;
            } else if c.is_ascii_alphabetic() || c == b'_' {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let next = code[i..].chars().find(|c| !c.is_whitespace());
                return Some((&code[start..i], line, next));
            } else if c.is_ascii_digit() {
                // Skip numbers with suffixes (`1e-3f`, `0x1p4`) so they are not read as identifiers.
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                    i += 1;
                }
            } else {
                i += 1;
            }
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::testdata::region;

    const OK: &str = "__global__ void k(int n, float a, const float* x, float* y) {\n\
        int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }\n\
        void saxpy_gpu(int n, float a, const float* x, float* y) { k<<<(n + 255) / 256, 256>>>(n, a, x, y); }\n";

    #[test]
    fn accepts_a_plain_kernel() {
        assert_eq!(check(&region("saxpy"), OK), None);
    }

    #[test]
    fn a_variable_named_like_a_banned_call_is_fine_but_the_call_is_not() {
        let r = region("saxpy");
        let var = format!(
            "{OK}\n__device__ int peel(int remove, int open) {{ return remove + open; }}\n"
        );
        assert_eq!(check(&r, &var), None);
        let call = format!("{OK}\nvoid f() {{ remove(\"x\"); }}\n");
        assert!(check(&r, &call).unwrap().contains("file I/O"));
    }

    #[test]
    fn refuses_fallbacks_and_escapes() {
        let r = region("saxpy");
        let with = |extra: &str| format!("{OK}\n{extra}");
        assert!(
            check(&r, &with("void f() { try { } catch (...) { } }"))
                .unwrap()
                .contains("try")
        );
        assert!(
            check(
                &r,
                &with("void f(int n, float a, const float* x, float* y) { saxpy(n, a, x, y); }")
            )
            .unwrap()
            .contains("serial reference")
        );
        assert!(check(&r, &with("void f() { cudaDeviceReset(); }")).is_some());
        assert!(check(&r, &with("void f() { system(\"ls\"); }")).is_some());
        assert!(check(&r, &with("#include <fstream>")).is_some());
        assert!(check(
            &r,
            &with("cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) { return cudaSuccess; }")
        )
        .unwrap()
        .contains("cudaEventElapsedTime"));
        // Calls are fine.
        assert_eq!(
            check(
                &r,
                &with(
                    "void g(float* p) { cudaError_t e = cudaMalloc(&p, 4); if (e) return; cudaFree(p); }"
                )
            ),
            None
        );
        assert!(
            check(&r, "void other() {}")
                .unwrap()
                .contains("entry point")
        );
    }

    #[test]
    fn ignores_words_in_comments_and_strings() {
        let r = region("saxpy");
        let src = format!("// try fork() here\n/* system */\nconst char* s = \"catch\";\n{OK}");
        assert_eq!(check(&r, &src), None);
    }

    #[test]
    fn reports_the_line() {
        let r = region("saxpy");
        let src = format!("{OK}\n\nvoid f() {{ fork(); }}\n");
        assert!(
            check(&r, &src).unwrap().starts_with("line 6:"),
            "{:?}",
            check(&r, &src)
        );
    }
}
