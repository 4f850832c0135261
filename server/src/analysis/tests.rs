use super::*;

fn cpp(src: &str) -> FileReport {
    analyze_source(src.as_bytes(), Language::Cpp)
}

#[test]
fn debug_dump() {
    for ws in [
        "saxpy/saxpy.cpp",
        "stencil2d/jacobi.cpp",
        "nbody/nbody.cpp",
        "histogram/histogram.cpp",
        "sequential/sequential.cpp",
    ] {
        let path = format!("{}/../test-workspaces/{ws}", env!("CARGO_MANIFEST_DIR"));
        let r = analyze_file(Path::new(&path)).unwrap();
        for l in &r.loops {
            eprintln!(
                "{ws}:{}-{} d{} {:?} par={} hot={} sp={:?} :: {}\n   note={:?}",
                l.line,
                l.end_line,
                l.depth,
                l.kind,
                l.parallel,
                l.hot,
                l.estimated_speedup,
                l.reason,
                l.region_note
            );
            if let Some(reg) = &l.region {
                eprintln!(
                    "{}\n{:?}",
                    reg.source,
                    reg.params
                        .iter()
                        .map(|p| format!(
                            "{}:{}:{:?}:{:?}:size={}",
                            p.name, p.elem_type, p.access, p.extent, p.is_size
                        ))
                        .collect::<Vec<_>>()
                );
            }
        }
    }
    let _ = cpp("");
}
