//! The candidate's compiled object, checked before it is linked with the harness: what it calls,
//! what it defines, and whether its host code makes system calls of its own.
//!
//! The text check (`static_check`) gives the model early, line-numbered reasons; this one is the
//! guard. A candidate is linked only if every symbol it leaves undefined is on an allow-list (the
//! CUDA runtime's device, memory, stream and launch calls; math; the C++ runtime's allocation,
//! exceptions and strings), so no libc I/O, no thread, no process, no harness function and no
//! serial reference can be reached by name. It may define C++ functions, kernels and device
//! variables, but no C symbol and nothing of the standard library, so it cannot interpose a
//! function that the harness or a library calls. Its host code must not contain system call
//! instructions (inline assembly escaping the allow-list).

use std::path::Path;
use std::process::Command;

/// Why an object was refused: the guard's name and a sentence for people and the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub guard: &'static str,
    pub reason: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("cannot run `{tool}` to check the candidate's object ({source}); install binutils")]
    Missing {
        tool: String,
        source: std::io::Error,
    },
    #[error("`{tool}` failed on the candidate's object: {stderr}")]
    Failed { tool: String, stderr: String },
}

/// CUDA runtime calls a kernel's host code may make (exact names).
const CUDA_CALLS: &[&str] = &[
    "cudaMalloc",
    "cudaMallocAsync",
    "cudaMallocPitch",
    "cudaFree",
    "cudaFreeAsync",
    "cudaMemset",
    "cudaMemsetAsync",
    "cudaMemset2D",
    "cudaMemset2DAsync",
    "cudaMemcpy",
    "cudaMemcpyAsync",
    "cudaMemcpy2D",
    "cudaMemcpy2DAsync",
    "cudaMemcpyToSymbol",
    "cudaMemcpyToSymbolAsync",
    "cudaMemcpyFromSymbol",
    "cudaMemcpyFromSymbolAsync",
    "cudaMemcpyPeer",
    "cudaMemcpyPeerAsync",
    "cudaGetSymbolAddress",
    "cudaGetSymbolSize",
    "cudaMemGetInfo",
    "cudaPointerGetAttributes",
    "cudaGetLastError",
    "cudaPeekAtLastError",
    "cudaGetErrorString",
    "cudaGetErrorName",
    "cudaDeviceSynchronize",
    "cudaGetDevice",
    "cudaSetDevice",
    "cudaGetDeviceCount",
    "cudaGetDeviceProperties",
    "cudaGetDeviceProperties_v2",
    "cudaDeviceGetAttribute",
    "cudaDeviceSetLimit",
    "cudaDeviceGetLimit",
    "cudaDeviceSetCacheConfig",
    "cudaDeviceGetCacheConfig",
    "cudaDeviceSetSharedMemConfig",
    "cudaDriverGetVersion",
    "cudaRuntimeGetVersion",
    "cudaLaunchKernel",
    "cudaLaunchKernelExC",
    "cudaLaunchCooperativeKernel",
    "cudaCreateTextureObject",
    "cudaDestroyTextureObject",
    "cudaCreateChannelDesc",
];

/// Families allowed by prefix: streams, events, graphs, kernel attributes, occupancy.
const CUDA_PREFIXES: &[&str] = &[
    "cudaStreamCreate",
    "cudaStreamDestroy",
    "cudaStreamSynchronize",
    "cudaStreamWaitEvent",
    "cudaStreamQuery",
    "cudaStreamBeginCapture",
    "cudaStreamEndCapture",
    "cudaEvent",
    "cudaGraph",
    "cudaFunc",
    "cudaOccupancy",
    // nvcc's own registration and launch calls.
    "__cuda",
];

/// The C++ runtime pieces that generated host code and CUB/Thrust need: allocation, exceptions,
/// static-local guards, RTTI, strings and the standard exception classes.
const CXX_RUNTIME: &[&str] = &[
    "_GLOBAL_OFFSET_TABLE_",
    "_Unwind_Resume",
    "__gxx_personality_v0",
    "__dso_handle",
    "__stack_chk_fail",
    "__assert_fail",
    // nvcc registers its fat binary's unregistration with atexit; what runs after `main` cannot
    // change a verdict already sent over the channel.
    "atexit",
    "__cxa_atexit",
    "__cxa_guard_acquire",
    "__cxa_guard_release",
    "__cxa_guard_abort",
    "__cxa_allocate_exception",
    "__cxa_free_exception",
    "__cxa_throw",
    "__cxa_rethrow",
    "__cxa_begin_catch",
    "__cxa_end_catch",
    "__cxa_pure_virtual",
    "_ZSt9terminatev",
    "memcpy",
    "memmove",
    "memset",
    "memcmp",
    "strlen",
    "strcmp",
    "strerror",
    "snprintf",
    // Fortified forms (_FORTIFY_SOURCE) of the above.
    "__snprintf_chk",
    "__memcpy_chk",
    "__memmove_chk",
    "__memset_chk",
    // CCCL reads its tuning variables from the environment, which the sandbox scrubs, and
    // yields while it waits.
    "getenv",
    "secure_getenv",
    "sched_yield",
    // GCC 13's <iostream> initialisation, pulled in by Thrust's headers.
    "_ZSt21ios_base_library_initv",
    // Redirected to the harness's guards (driver library and driver API names only), or
    // harmless without them.
    "dlopen",
    "dlsym",
    "dlvsym",
    "dlclose",
    "dlerror",
];

const CXX_PREFIXES: &[&str] = &[
    "_Znwm",
    "_Znam",
    "_ZdlPv",
    "_ZdaPv",
    "_ZTI",
    "_ZTV",
    "_ZTS",
    "_ZNSt7__cxx1112basic_string",
    "_ZNSt8ios_base4Init",
    "_ZNSt9exception",
    "_ZNKSt9exception",
    "_ZNSt9bad_alloc",
    "_ZNKSt9bad_alloc",
    "_ZNSt13runtime_error",
    "_ZNKSt13runtime_error",
    "_ZNSt11logic_error",
    "_ZNKSt11logic_error",
    "_ZNSt12length_error",
    "_ZNSt12out_of_range",
    "_ZNSt16invalid_argument",
    "_ZNSt12system_error",
    "_ZNSt3_V215system_categoryEv",
    "_ZNSt3_V216generic_categoryEv",
];

/// libm names; each also with its `f` and `l` forms.
const MATH: &[&str] = &[
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "pow",
    "sqrt",
    "cbrt",
    "hypot",
    "fabs",
    "floor",
    "ceil",
    "round",
    "trunc",
    "fmod",
    "remainder",
    "fmin",
    "fmax",
    "fdim",
    "fma",
    "erf",
    "erfc",
    "lgamma",
    "tgamma",
    "ldexp",
    "frexp",
    "modf",
    "nearbyint",
    "rint",
    "lrint",
    "llrint",
    "lround",
    "llround",
    "copysign",
    "sincos",
    "scalbn",
    "ilogb",
    "logb",
    "nextafter",
];

fn is_math(name: &str) -> bool {
    let base = name
        .strip_suffix('f')
        .filter(|b| MATH.contains(b))
        .or_else(|| name.strip_suffix('l').filter(|b| MATH.contains(b)))
        .unwrap_or(name);
    MATH.contains(&base)
}

/// `_ZSt20__throw_length_errorPKc` and its siblings: how the standard containers fail.
fn is_std_throw(name: &str) -> bool {
    name.strip_prefix("_ZSt")
        .map(|r| r.trim_start_matches(|c: char| c.is_ascii_digit()))
        .is_some_and(|r| r.starts_with("__throw_"))
}

/// May the candidate leave `name` for the linker to find?
pub fn allowed_undefined(name: &str) -> bool {
    CUDA_CALLS.contains(&name)
        || CUDA_PREFIXES.iter().any(|p| name.starts_with(p))
        || CXX_RUNTIME.contains(&name)
        || CXX_PREFIXES.iter().any(|p| name.starts_with(p))
        || is_math(name)
        || is_std_throw(name)
}

/// Mangled names of the standard library and the ABI: a candidate defining one would replace
/// the library's for the whole program.
const LIBRARY_MANGLED: &[&str] = &[
    "_ZNSt",
    "_ZNKSt",
    "_ZSt",
    "_ZN9__gnu_cxx",
    "_ZNK9__gnu_cxx",
    "_ZN10__cxxabiv1",
    "_Znw",
    "_Zna",
    "_Zdl",
    "_Zda",
];

/// May the candidate define `name` (of nm type `kind`) for the whole program?
pub fn allowed_definition(name: &str, kind: char) -> bool {
    let weak = matches!(kind, 'W' | 'V' | 'u' | 'w' | 'v');
    if name == "DW.ref.__gxx_personality_v0" {
        return true;
    }
    // NVTX v3 (used by CCCL) is header-only: every translation unit that includes it defines
    // its weak functions and globals, all under its own prefix, which nothing else uses.
    if weak && (name.starts_with("nvtx") || name.starts_with("InitializeInjectionNvtx")) {
        return true;
    }
    if !name.starts_with("_Z") {
        // C symbols: only device variables' host shadows (data), never a function or a name of
        // the C library or the reserved namespace.
        let data = matches!(kind, 'B' | 'D' | 'R' | 'b' | 'd' | 'r');
        const LIBC_DATA: &[&str] = &[
            "stdin", "stdout", "stderr", "environ", "errno", "optarg", "optind", "opterr",
            "optopt", "timezone", "daylight", "tzname", "signgam",
        ];
        return data && !name.starts_with('_') && !LIBC_DATA.contains(&name);
    }
    let library = LIBRARY_MANGLED.iter().any(|p| name.starts_with(p));
    // Weak copies of library templates are instances the harness has too; the harness's object
    // comes first in the link, so its copies are the ones kept. Operator new/delete are never
    // weak in the library, so even a weak one would replace them.
    let allocation = ["_Znw", "_Zna", "_Zdl", "_Zda"]
        .iter()
        .any(|p| name.starts_with(p));
    !library || (weak && !allocation)
}

fn tool(program: &str, args: &[&str]) -> Result<String, ToolError> {
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| ToolError::Missing {
            tool: program.into(),
            source: e,
        })?;
    if !out.status.success() {
        return Err(ToolError::Failed {
            tool: program.into(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `(name, nm type)` of each symbol line of `nm` output.
fn symbols(nm_output: &str) -> Vec<(String, char)> {
    nm_output
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace().rev();
            let name = parts.next()?;
            let kind = parts.next()?.chars().next()?;
            Some((name.to_string(), kind))
        })
        .collect()
}

fn demangle(name: &str) -> String {
    tool("c++filt", &[name])
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| name.to_string())
}

/// Checks `object` (the candidate compiled with `nvcc -c`); `Ok(None)` when it may be linked.
pub fn check(object: &Path) -> Result<Option<Refusal>, ToolError> {
    let path = object.display().to_string();
    let undefined = symbols(&tool("nm", &["-u", &path])?);
    if let Some((name, _)) = undefined.iter().find(|(n, _)| !allowed_undefined(n)) {
        return Ok(Some(Refusal {
            guard: "link:undefined-symbol",
            reason: format!(
                "calls `{}`, which a kernel's host code has no use for (only the CUDA runtime, math functions and the C++ runtime may be linked)",
                demangle(name)
            ),
        }));
    }
    let defined = symbols(&tool("nm", &["-g", "--defined-only", &path])?);
    if let Some((name, _)) = defined.iter().find(|(n, k)| !allowed_definition(n, *k)) {
        return Ok(Some(Refusal {
            guard: "link:defined-symbol",
            reason: format!(
                "defines `{}`, a name of the C or C++ library (it would replace the library's for the harness too)",
                demangle(name)
            ),
        }));
    }
    let code = tool("objdump", &["-d", "--no-show-raw-insn", &path])?;
    if let Some(insn) = system_call_instruction(&code) {
        return Ok(Some(Refusal {
            guard: "link:system-call",
            reason: format!("its host code makes system calls itself (`{insn}`)"),
        }));
    }
    Ok(None)
}

/// The first system call instruction in `objdump -d` output (x86-64 and AArch64).
fn system_call_instruction(disassembly: &str) -> Option<String> {
    disassembly.lines().find_map(|l| {
        let insn = l.split('\t').nth(1).unwrap_or("").trim();
        let op = insn.split_whitespace().next().unwrap_or("");
        let hit =
            matches!(op, "syscall" | "sysenter" | "svc") || (op == "int" && insn.contains("0x80"));
        hit.then(|| insn.to_string())
    })
}

/// `objcopy` arguments renaming the candidate's references to the guarded copies.
pub fn redirect_args(input: &Path, output: &Path) -> Vec<String> {
    let mut args: Vec<String> = super::harness::GUARDED_COPIES
        .iter()
        .map(|n| format!("--redefine-sym={n}={}", super::harness::guarded_name(n)))
        .collect();
    args.push(input.display().to_string());
    args.push(output.display().to_string());
    args
}

/// Renames the candidate's memcpy references in `input` into `output`.
pub fn redirect_copies(input: &Path, output: &Path) -> Result<(), ToolError> {
    let args = redirect_args(input, output);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    tool("objcopy", &args).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runtime_and_math_are_allowed_io_and_threads_are_not() {
        for ok in [
            "cudaMalloc",
            "cudaEventRecord",
            "cudaStreamCreateWithFlags",
            "__cudaPushCallConfiguration",
            "sqrtf",
            "expl",
            "sincosf",
            "_Znwm",
            "_ZSt20__throw_length_errorPKc",
            "_ZNSt13runtime_errorC1EPKc",
            "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
        ] {
            assert!(allowed_undefined(ok), "{ok}");
        }
        for bad in [
            "fopen",
            "fopen64",
            "fread",
            "fputs",
            "dprintf",
            "write",
            "syscall",
            "pthread_create",
            "_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE",
            "_ZSt4cout",
            "cudaMallocManaged",
            "cudaMallocHost",
            "cudaHostAlloc",
            "cudaLaunchHostFunc",
            "cudaStreamAddCallback",
            "cudaDeviceReset",
            "_Z5saxpyifPKfPf",
            "main",
            "dladdr",
        ] {
            assert!(!allowed_undefined(bad), "{bad}");
        }
    }

    #[test]
    fn cub_on_the_h200_links() {
        // `nm -u` of prefix_sum_correct.cu (cub::DeviceScan) built by the H200's nvcc 13.0.88
        // (docs/reports/verify/h200-2026-12-03-isolation/): every symbol must be allowed.
        let seen = "__assert_fail atexit cudaDeviceGetAttribute cudaFree cudaFuncGetAttributes \
            cudaGetDevice cudaGetDeviceCount __cudaGetKernel cudaGetLastError __cudaLaunchKernel \
            cudaMalloc cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags cudaPeekAtLastError \
            __cudaPopCallConfiguration __cudaPushCallConfiguration __cudaRegisterFatBinary \
            __cudaRegisterFatBinaryEnd __cudaRegisterFunction __cudaRegisterVar cudaSetDevice \
            __cudaUnregisterFatBinary __cxa_allocate_exception __cxa_guard_abort \
            __cxa_guard_acquire __cxa_guard_release __cxa_throw dlclose dlopen dlsym getenv \
            __gxx_personality_v0 sched_yield __snprintf_chk __stack_chk_fail _Unwind_Resume \
            _ZdlPvm _ZNKSt13runtime_error4whatEv _ZNSt13runtime_errorC2EPKc \
            _ZNSt13runtime_errorD2Ev _ZSt21ios_base_library_initv _ZTISt13runtime_error \
            _ZTVN10__cxxabiv120__si_class_type_infoE";
        let refused: Vec<&str> = seen
            .split_whitespace()
            .filter(|s| !allowed_undefined(s))
            .collect();
        assert!(refused.is_empty(), "{refused:?}");
    }

    #[test]
    fn a_candidate_may_define_its_functions_but_not_the_librarys() {
        assert!(allowed_definition("_Z9saxpy_gpuifPKfPf", 'T'));
        assert!(allowed_definition("_ZNSt6vectorIfSaIfEED2Ev", 'W'));
        assert!(allowed_definition("device_table", 'B'));
        assert!(!allowed_definition("cudaEventElapsedTime", 'T'));
        assert!(!allowed_definition("malloc", 'W'));
        assert!(!allowed_definition("main", 'T'));
        assert!(!allowed_definition("stderr", 'D'));
        assert!(!allowed_definition("_ZNSt6vectorIfSaIfEED2Ev", 'T'));
        assert!(!allowed_definition("_Znwm", 'W'));
        // NVTX v3's header-only definitions (CUB on the H200), weak only.
        assert!(allowed_definition("nvtxRangePushA_impl_init_v3", 'W'));
        assert!(allowed_definition("InitializeInjectionNvtx2_fnptr", 'V'));
        assert!(!allowed_definition("nvtxRangePushA", 'T'));
    }

    #[test]
    fn system_calls_are_found_in_disassembly() {
        let x86 = "  10:\tmov    $0x1,%eax\n  15:\tsyscall\n";
        assert_eq!(system_call_instruction(x86).as_deref(), Some("syscall"));
        assert!(system_call_instruction("  10:\tint    $0x80\n").is_some());
        assert!(system_call_instruction("  10:\tcall   1f <cudaMalloc>\n").is_none());
    }
}
