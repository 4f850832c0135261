use std::path::Path;

use super::*;
use crate::search::workspace_edit::apply_line_edits;

fn h200() -> CudaArch {
    CudaArch::from_gpus(&Ok(vec![Gpu {
        index: 0,
        name: "NVIDIA H200".into(),
        compute_capability: "9.0".into(),
        driver: "580".into(),
        memory_mib: None,
    }]))
}

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

fn applied(edit: &BuildEdit, path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let f = edit.files.iter().find(|f| f.path == path).expect("edited");
    apply_line_edits(&text, &f.edits)
}

#[test]
fn the_saxpy_workspace_gains_cuda_and_the_kernel_in_its_target() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let lists = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-workspaces/saxpy/CMakeLists.txt"),
    )
    .unwrap();
    write(dir.path(), &[("CMakeLists.txt", &lists), ("saxpy.cpp", "")]);
    let edit = build_edit(
        &dir.path().join("saxpy.cpp"),
        "saxpy_cuda.cu",
        &h200(),
        &read_from_disk,
    );
    assert_eq!(edit.system, BuildSystem::Cmake);
    assert_eq!(edit.root.as_deref(), Some(dir.path()));
    assert_eq!(
        edit.note,
        "CMake: CUDA enabled (architecture sm_90 from the GPU of this machine, NVIDIA H200) and saxpy_cuda.cu added to target saxpy"
    );
    let out = applied(&edit, &dir.path().join("CMakeLists.txt"));
    assert_eq!(
        out,
        "cmake_minimum_required(VERSION 3.16)\nproject(saxpy CXX)\n# cuda-offload: CUDA for saxpy_cuda.cu; architecture sm_90 from the GPU of this machine, NVIDIA H200\nif(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)\n  set(CMAKE_CUDA_ARCHITECTURES 90)\nendif()\nenable_language(CUDA)\nset(CMAKE_EXPORT_COMPILE_COMMANDS ON)\nadd_executable(saxpy saxpy.cpp)\ntarget_sources(saxpy PRIVATE saxpy_cuda.cu)  # cuda-offload\n"
    );
    // A second kernel for the same file adds only its source; the same one again adds nothing.
    std::fs::write(dir.path().join("CMakeLists.txt"), &out).unwrap();
    let second = build_edit(
        &dir.path().join("saxpy.cpp"),
        "main_loop15_cuda.cu",
        &h200(),
        &read_from_disk,
    );
    assert_eq!(
        applied(&second, &dir.path().join("CMakeLists.txt")),
        out.replace(
            "add_executable(saxpy saxpy.cpp)\n",
            "add_executable(saxpy saxpy.cpp)\ntarget_sources(saxpy PRIVATE main_loop15_cuda.cu)  # cuda-offload\n"
        )
    );
    let again = build_edit(
        &dir.path().join("saxpy.cpp"),
        "saxpy_cuda.cu",
        &h200(),
        &read_from_disk,
    );
    assert!(again.files.is_empty(), "{again:?}");
}

#[test]
fn a_subdirectory_target_gets_the_source_and_the_top_listfile_the_language() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    write(
        dir.path(),
        &[
            (
                "CMakeLists.txt",
                "cmake_minimum_required(VERSION 3.18)\nproject(app LANGUAGES CXX)\nadd_subdirectory(src)\n",
            ),
            (
                "src/CMakeLists.txt",
                "add_library(kernels STATIC blas.cpp)\n",
            ),
            ("src/blas.cpp", ""),
        ],
    );
    let edit = build_edit(
        &dir.path().join("src/blas.cpp"),
        "axpy_cuda.cu",
        &CudaArch::from_setting("sm_90a"),
        &read_from_disk,
    );
    assert_eq!(edit.root.as_deref(), Some(dir.path()));
    let top = applied(&edit, &dir.path().join("CMakeLists.txt"));
    assert!(
        top.contains("project(app LANGUAGES CXX)\n# cuda-offload: CUDA for axpy_cuda.cu; architecture sm_90a from the gpu_arch setting\nif(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)\n  set(CMAKE_CUDA_ARCHITECTURES 90a)\nendif()\nenable_language(CUDA)\nadd_subdirectory(src)\n"),
        "{top}"
    );
    assert_eq!(
        applied(&edit, &dir.path().join("src/CMakeLists.txt")),
        "add_library(kernels STATIC blas.cpp)\ntarget_sources(kernels PRIVATE axpy_cuda.cu)  # cuda-offload\n"
    );
}

#[test]
fn without_a_gpu_cmake_keeps_nvcc_s_default_and_says_so() {
    let arch = CudaArch::from_gpus(&Err(NoGpu {
        reason: "nvidia-smi not found".into(),
    }));
    let cmds = cmake::parse("project(p CXX)\n").unwrap();
    let e = cmake::enable_cuda_edit(&cmds, "k_cuda.cu", &arch);
    assert!(!e.new_text.contains("set(CMAKE_CUDA_ARCHITECTURES"));
    assert!(
        e.new_text
            .contains("no GPU detected and no gpu_arch setting")
    );
    assert!(e.new_text.ends_with("enable_language(CUDA)\n"));
}

#[test]
fn a_makefile_is_edited_when_there_is_no_cmake() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    write(
        dir.path(),
        &[
            (
                "Makefile",
                "OBJS = main.o saxpy.o\napp: $(OBJS)\n\t$(CXX) -o $@ $^\n",
            ),
            ("saxpy.cpp", ""),
        ],
    );
    let edit = build_edit(
        &dir.path().join("saxpy.cpp"),
        "saxpy_cuda.cu",
        &h200(),
        &read_from_disk,
    );
    assert_eq!(edit.system, BuildSystem::Make);
    assert!(
        applied(&edit, &dir.path().join("Makefile")).contains("OBJS += saxpy_cuda.o"),
        "{edit:?}"
    );
}

#[test]
fn anything_else_gets_a_note_on_how_to_build_the_kernel() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    write(
        dir.path(),
        &[("compile_commands.json", "[]"), ("saxpy.cpp", "")],
    );
    let edit = build_edit(
        &dir.path().join("saxpy.cpp"),
        "saxpy_cuda.cu",
        &h200(),
        &read_from_disk,
    );
    assert_eq!(edit.system, BuildSystem::Other);
    assert!(edit.files.is_empty());
    assert!(
        edit.note.contains("compile_commands.json comes from a build system cuda-offload does not edit: compile saxpy_cuda.cu with `nvcc -O3 -arch=sm_90 -c saxpy_cuda.cu`"),
        "{}",
        edit.note
    );
    // A CMakeLists.txt that does not name the file is not guessed at.
    write(
        dir.path(),
        &[(
            "CMakeLists.txt",
            "project(p CXX)\nadd_executable(p main.cpp)\n",
        )],
    );
    let edit = build_edit(
        &dir.path().join("saxpy.cpp"),
        "saxpy_cuda.cu",
        &h200(),
        &read_from_disk,
    );
    assert_eq!(edit.system, BuildSystem::Other);
    assert!(
        edit.note
            .contains("names no target that compiles saxpy.cpp"),
        "{}",
        edit.note
    );
}

#[test]
fn a_broken_listfile_is_left_alone_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    write(
        dir.path(),
        &[("CMakeLists.txt", "project(p CXX\n"), ("saxpy.cpp", "")],
    );
    let edit = build_edit(
        &dir.path().join("saxpy.cpp"),
        "saxpy_cuda.cu",
        &h200(),
        &read_from_disk,
    );
    assert!(edit.files.is_empty());
    assert!(
        edit.note
            .contains("was not edited: line 1: unterminated command invocation"),
        "{}",
        edit.note
    );
}
