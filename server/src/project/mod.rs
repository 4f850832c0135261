//! The user's project around a patched source: the build files that must learn about the new
//! `.cu` (CMake, plain Makefiles), edited as line edits that join the offload's one workspace
//! edit. Plain data; the LSP turns these into `TextDocumentEdit`s, the CLI writes them.

pub mod check;
pub mod cmake;
pub mod makefile;
pub mod revert;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::search::offload::LineEdit;
use crate::verify::gpu::{Gpu, NoGpu};

/// The GPU architecture the build targets, and where it came from (said in the edit's comment).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CudaArch {
    /// `sm_90`; `None`: nothing known, the build keeps nvcc's default.
    pub sm: Option<String>,
    pub origin: String,
}

impl CudaArch {
    /// The `gpu_arch` setting (`sm_90`, `sm_90a`).
    pub fn from_setting(sm: &str) -> Self {
        CudaArch {
            sm: Some(sm.to_string()),
            origin: "the gpu_arch setting".into(),
        }
    }

    /// The first GPU nvidia-smi lists, or the fallback when there is none.
    pub fn from_gpus(gpus: &Result<Vec<Gpu>, NoGpu>) -> Self {
        match gpus.as_ref().map(|g| g.first()) {
            Ok(Some(gpu)) => CudaArch {
                sm: Some(gpu.arch()),
                origin: format!("the GPU of this machine, {}", gpu.name),
            },
            Ok(None) | Err(_) => CudaArch {
                sm: None,
                origin: "no GPU detected and no gpu_arch setting, so nvcc's default architecture (newer GPUs run it through PTX JIT); set CMAKE_CUDA_ARCHITECTURES / CUDA_ARCH for yours".into(),
            },
        }
    }

    /// The setting when there is one, else the GPU of this machine.
    pub fn choose(setting: Option<&str>) -> Self {
        match setting {
            Some(sm) => Self::from_setting(sm),
            None => Self::from_gpus(&crate::verify::gpu::detect_gpus()),
        }
    }

    /// `sm_90` for `nvcc -arch`.
    pub fn nvcc_value(&self) -> Option<String> {
        self.sm.clone()
    }

    /// `90` for `CMAKE_CUDA_ARCHITECTURES` (`sm_90a` → `90a`).
    pub fn cmake_value(&self) -> Option<String> {
        self.sm
            .as_deref()
            .map(|s| s.trim_start_matches("sm_").to_string())
    }

    pub fn why(&self) -> String {
        match &self.sm {
            Some(sm) => format!("architecture {sm} from {}", self.origin),
            None => self.origin.clone(),
        }
    }
}

/// Edits of one build file, all given against its current text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileEdit {
    pub path: PathBuf,
    pub edits: Vec<LineEdit>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BuildSystem {
    Cmake,
    Make,
    /// None we recognise: the note says how to build the `.cu` by hand.
    Other,
}

/// What the offload's edit does to the build, and a line for the user that says it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BuildEdit {
    pub system: BuildSystem,
    /// The build directory's root (where `cmake -S` or `make -C` runs), when recognised.
    pub root: Option<PathBuf>,
    /// The CMake executable target that compiles the patched file (the program a check runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    pub files: Vec<FileEdit>,
    pub note: String,
}

/// How far up from the source a build file is looked for (a repository's root ends it earlier).
const MAX_LEVELS: usize = 6;

/// The build edit for `kernel_file`, written next to `source`. `read` gives a file's current
/// text (the editor's buffer where it is open), `None` where it does not exist.
pub fn build_edit(
    source: &Path,
    kernel_file: &str,
    arch: &CudaArch,
    read: &dyn Fn(&Path) -> Option<String>,
) -> BuildEdit {
    let source_name = source
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let kernel = source.with_file_name(kernel_file);
    let dirs: Vec<&Path> = source.ancestors().skip(1).take(MAX_LEVELS).collect();
    let dirs = match dirs.iter().position(|d| d.join(".git").exists()) {
        Some(i) => &dirs[..=i],
        None => &dirs[..],
    };
    let mut unmatched = Vec::new();
    for (level, dir) in dirs.iter().enumerate() {
        let lists = dir.join("CMakeLists.txt");
        if let Some(text) = read(&lists) {
            match cmake_edit(dirs, level, &text, source, &kernel, arch, read) {
                Ok(Some(edit)) => return edit,
                Ok(None) => unmatched.push(format!(
                    "{} names no target that compiles {source_name}",
                    lists.display()
                )),
                Err(e) => {
                    return other(format!(
                        "{} was not edited: {e}; add {kernel_file} to the target that compiles {source_name} and enable CUDA",
                        lists.display()
                    ));
                }
            }
            continue;
        }
        for name in ["GNUmakefile", "makefile", "Makefile"] {
            let mk = dir.join(name);
            let Some(text) = read(&mk) else { continue };
            let rel = |p: &Path| {
                p.strip_prefix(dir)
                    .unwrap_or(p)
                    .to_string_lossy()
                    .into_owned()
            };
            match makefile::edits(&text, &rel(source), &rel(&kernel), arch) {
                Ok(edits) => {
                    let note = if edits.is_empty() {
                        format!("{} already builds {kernel_file}", mk.display())
                    } else {
                        format!(
                            "{}: a rule compiles {kernel_file} with nvcc ({}), its object is linked with the CUDA runtime",
                            mk.display(),
                            arch.why()
                        )
                    };
                    return BuildEdit {
                        system: BuildSystem::Make,
                        root: Some(dir.to_path_buf()),
                        program: None,
                        files: nonempty(mk, edits),
                        note,
                    };
                }
                Err(why) => unmatched.push(format!("{}: {why}", mk.display())),
            }
        }
    }
    let by_hand = format!(
        "compile {kernel_file} with `nvcc -O3 -arch={} -c {kernel_file}` and link its object and -lcudart into the program",
        arch.nvcc_value().as_deref().unwrap_or("sm_XX")
    );
    if !unmatched.is_empty() {
        return other(format!(
            "build files not edited ({}): {by_hand}",
            unmatched.join("; ")
        ));
    }
    let compile_db = dirs.iter().find_map(|d| {
        [
            d.join("compile_commands.json"),
            d.join("build/compile_commands.json"),
        ]
        .into_iter()
        .find(|p| p.is_file())
    });
    match compile_db {
        Some(db) => other(format!(
            "{} comes from a build system cuda-offload does not edit: {by_hand}",
            db.display()
        )),
        None => other(format!("no CMakeLists.txt or Makefile found: {by_hand}")),
    }
}

fn other(note: String) -> BuildEdit {
    BuildEdit {
        system: BuildSystem::Other,
        root: None,
        program: None,
        files: Vec::new(),
        note,
    }
}

fn nonempty(path: PathBuf, edits: Vec<LineEdit>) -> Vec<FileEdit> {
    if edits.is_empty() {
        Vec::new()
    } else {
        vec![FileEdit { path, edits }]
    }
}

/// The CMake edit when the listfile in `dirs[level]` names the source: the `.cu` added to its
/// target, CUDA enabled in the top listfile with a `project()` (where CMake wants languages).
fn cmake_edit(
    dirs: &[&Path],
    level: usize,
    text: &str,
    source: &Path,
    kernel: &Path,
    arch: &CudaArch,
    read: &dyn Fn(&Path) -> Option<String>,
) -> Result<Option<BuildEdit>, String> {
    let dir = dirs[level];
    let commands = cmake::parse(text).map_err(|e| e.to_string())?;
    let Some(found) = cmake::target_compiling(&commands, dir, source) else {
        return Ok(None);
    };
    let kernel_file = kernel
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let kernel_rel = kernel
        .strip_prefix(dir)
        .unwrap_or(kernel)
        .to_string_lossy()
        .into_owned();
    let mut target_edits = Vec::new();
    if !cmake::lists_file(&commands, dir, kernel) {
        target_edits.push(cmake::add_source_edit(&found, &kernel_rel));
    }
    // The top listfile: the highest directory with a CMakeLists.txt holding `project()`.
    let mut root = (level, commands.clone());
    for (up, d) in dirs.iter().enumerate().skip(level + 1) {
        let Some(t) = read(&d.join("CMakeLists.txt")) else {
            break;
        };
        let c = cmake::parse(&t).map_err(|e| format!("{}: {e}", d.display()))?;
        if c.iter().any(|c| c.name == "project") {
            root = (up, c);
        }
    }
    let (root_level, root_commands) = root;
    let enabled = cmake::enables_cuda(&root_commands) || cmake::enables_cuda(&commands);
    let mut files = Vec::new();
    let lists = dir.join("CMakeLists.txt");
    if enabled {
        files.extend(nonempty(lists, target_edits));
    } else {
        let enable = cmake::enable_cuda_edit(&root_commands, &kernel_file, arch);
        if root_level == level {
            target_edits.insert(0, enable);
            files.extend(nonempty(lists, target_edits));
        } else {
            files.push(FileEdit {
                path: dirs[root_level].join("CMakeLists.txt"),
                edits: vec![enable],
            });
            files.extend(nonempty(lists, target_edits));
        }
    }
    let note = if files.is_empty() {
        format!(
            "CMake target {} already builds {kernel_file} with CUDA",
            found.target
        )
    } else if enabled {
        format!(
            "CMake: {kernel_file} added to target {} (CUDA was already enabled)",
            found.target
        )
    } else {
        format!(
            "CMake: CUDA enabled ({}) and {kernel_file} added to target {}",
            arch.why(),
            found.target
        )
    };
    Ok(Some(BuildEdit {
        system: BuildSystem::Cmake,
        root: Some(dirs[root_level].to_path_buf()),
        program: cmake::executable(&commands, &found.target).then(|| found.target.clone()),
        files,
        note,
    }))
}

/// Every file an applied offload writes, with its new text: the kernel file (with the replaced
/// lines kept), the patched source (with a residency session where one now holds), the build
/// files. Computed before anything is written, so a build file that cannot be read leaves the
/// project as it was.
pub fn offload_writes(
    file: &Path,
    source: &str,
    region: &crate::analysis::OffloadRegion,
    kernel_file: &str,
    kernel_source: &str,
    build: &BuildEdit,
) -> std::io::Result<Vec<(PathBuf, String)>> {
    use crate::search::workspace_edit::{
        apply_line_edits, offload_source_edits, with_replaced_lines,
    };
    let (edits, _) = offload_source_edits(&[region], source);
    let mut writes = vec![
        (
            file.with_file_name(kernel_file),
            with_replaced_lines(kernel_source, region, source),
        ),
        (file.to_path_buf(), apply_line_edits(source, &edits)),
    ];
    for f in &build.files {
        let text = std::fs::read_to_string(&f.path)?;
        writes.push((f.path.clone(), apply_line_edits(&text, &f.edits)));
    }
    Ok(writes)
}

/// One kernel of an offload of several loops of one file at once.
pub struct KernelFile<'a> {
    pub region: &'a crate::analysis::OffloadRegion,
    /// `jacobi_step_cuda.cu`
    pub name: String,
    /// Its text as generated (the replaced lines are added here).
    pub text: String,
}

/// What an offload of several loops of one file writes.
pub struct ManyWrites {
    pub writes: Vec<(PathBuf, String)>,
    /// The build edit of each kernel, each made on the build files as the ones before left them.
    pub builds: Vec<BuildEdit>,
    /// The residency plan of the edited file (sessions inserted where it holds).
    pub residency: Vec<crate::analysis::residency::Residency>,
}

/// [`offload_writes`] for several loops of `file` offloaded together (`check-build` with several
/// candidates): one source edit for all, sessions included (`resident: false` leaves them out, to
/// measure the per-call copies), and the build edits chained.
pub fn offload_writes_many(
    file: &Path,
    source: &str,
    kernels: &[KernelFile],
    arch: &CudaArch,
    read: &dyn Fn(&Path) -> Option<String>,
    resident: bool,
) -> std::io::Result<ManyWrites> {
    use crate::search::workspace_edit::{
        apply_line_edits, offload_source_edits, source_edits, with_replaced_lines,
    };
    let regions: Vec<&crate::analysis::OffloadRegion> = kernels.iter().map(|k| k.region).collect();
    let (edits, residency) = if resident {
        offload_source_edits(&regions, source)
    } else {
        let edits = regions
            .iter()
            .flat_map(|r| source_edits(r, source))
            .collect();
        (edits, Vec::new())
    };
    let mut writes: Vec<(PathBuf, String)> = kernels
        .iter()
        .map(|k| {
            (
                file.with_file_name(&k.name),
                with_replaced_lines(&k.text, k.region, source),
            )
        })
        .collect();
    writes.push((file.to_path_buf(), apply_line_edits(source, &edits)));
    // Build files as the earlier kernels' edits left them.
    let mut edited: Vec<(PathBuf, String)> = Vec::new();
    let mut builds = Vec::new();
    for k in kernels {
        let build = {
            let overlay = |p: &Path| {
                edited
                    .iter()
                    .find(|(q, _)| q == p)
                    .map(|(_, t)| t.clone())
                    .or_else(|| read(p))
            };
            build_edit(file, &k.name, arch, &overlay)
        };
        for f in &build.files {
            let current = match edited.iter().position(|(q, _)| q == &f.path) {
                Some(i) => edited.remove(i).1,
                None => read(&f.path).ok_or_else(|| {
                    std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        format!("cannot read {}", f.path.display()),
                    )
                })?,
            };
            edited.push((f.path.clone(), apply_line_edits(&current, &f.edits)));
        }
        builds.push(build);
    }
    writes.extend(edited);
    Ok(ManyWrites {
        writes,
        builds,
        residency,
    })
}

/// Reads from disk (the CLI; the LSP prefers open buffers).
pub fn read_from_disk(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

#[cfg(test)]
mod tests;
