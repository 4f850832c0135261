//! The unit corpus (`testdata/`): every loop's first line carries the verdict it must get, written
//! by hand from the code's meaning (`// expect: kind=map hot=no region=yes reason="..."`).

use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};

use super::*;

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/analysis/testdata")
}

#[derive(Debug)]
struct Expect {
    kind: String,
    hot: bool,
    region: Option<bool>,
    reason: Option<String>,
}

fn parse_expect(line: &str) -> Option<Expect> {
    let spec = line.split("// expect:").nth(1)?.trim();
    let mut e = Expect {
        kind: String::new(),
        hot: true,
        region: None,
        reason: None,
    };
    let mut rest = spec;
    while !rest.is_empty() {
        let (key, after) = rest.split_once('=')?;
        let key = key.trim();
        let (value, after) = if let Some(q) = after.strip_prefix('"') {
            let end = q.find('"')?;
            (&q[..end], &q[end + 1..])
        } else {
            after.split_once(' ').unwrap_or((after, ""))
        };
        match key {
            "kind" => e.kind = value.to_string(),
            "hot" => e.hot = value == "yes",
            "region" => e.region = Some(value == "yes"),
            "reason" => e.reason = Some(value.to_string()),
            other => panic!("unknown expectation key {other:?} in {line:?}"),
        }
        rest = after.trim_start();
    }
    Some(e)
}

fn check_corpus_file(name: &str) {
    let path = testdata().join(name);
    let src = std::fs::read_to_string(&path).unwrap();
    let report = analyze_file(&path).unwrap();
    let lines: Vec<&str> = src.lines().collect();
    let mut failures = Vec::new();
    for l in &report.loops {
        let text = lines[l.line - 1];
        let Some(e) = parse_expect(text) else {
            failures.push(format!(
                "{name}:{}: loop has no `// expect:` annotation",
                l.line
            ));
            continue;
        };
        let mut bad = Vec::new();
        if l.kind.as_str() != e.kind {
            bad.push(format!("kind {} (want {})", l.kind.as_str(), e.kind));
        }
        if l.parallel != (e.kind != "sequential") {
            bad.push(format!("parallel {}", l.parallel));
        }
        if l.hot != e.hot {
            bad.push(format!("hot {} (want {})", l.hot, e.hot));
        }
        if let Some(want) = e.region
            && l.region.is_some() != want
        {
            bad.push(format!(
                "region {:?} (want {want}; note {:?})",
                l.region.is_some(),
                l.region_note
            ));
        }
        if let Some(r) = &e.reason
            && !l.reason.contains(r.as_str())
        {
            bad.push(format!("reason {:?} lacks {r:?}", l.reason));
        }
        if l.reason.trim().is_empty() {
            bad.push("empty reason".into());
        }
        if !bad.is_empty() {
            failures.push(format!(
                "{name}:{}: {}\n    reason: {}",
                l.line,
                bad.join("; "),
                l.reason
            ));
        }
    }
    // Every annotated line must be a loop the analysis found.
    for (idx, text) in lines.iter().enumerate() {
        if parse_expect(text).is_some() && !report.loops.iter().any(|l| l.line == idx + 1) {
            failures.push(format!("{name}:{}: annotated loop not found", idx + 1));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn corpus_kinds() {
    check_corpus_file("kinds.cpp");
}

#[test]
fn corpus_nested_loops() {
    check_corpus_file("nested.cpp");
}

#[test]
fn corpus_macros_templates_lambdas_ranges() {
    check_corpus_file("macros_templates_lambdas.cpp");
}

#[test]
fn corpus_omp_hints_and_syntax_errors() {
    check_corpus_file("omp_and_errors.cpp");
    let report = analyze_file(&testdata().join("omp_and_errors.cpp")).unwrap();
    assert!(report.has_syntax_errors);
}

#[test]
fn corpus_shapes_from_real_code() {
    check_corpus_file("unseen_shapes.cpp");
}

#[test]
fn corpus_accessors_and_array_classes() {
    check_corpus_file("accessors.cpp");
}

#[test]
fn corpus_cuda_file() {
    check_corpus_file("kernels.cu");
}

/// Every region of the corpus must be a function g++ accepts on its own.
#[test]
fn corpus_regions_compile() {
    let mut sources = Vec::new();
    for entry in std::fs::read_dir(testdata()).unwrap() {
        let path = entry.unwrap().path();
        if Language::from_path(&path).is_none() {
            continue;
        }
        for l in analyze_file(&path).unwrap().loops {
            if let Some(r) = l.region {
                sources.push((format!("{}:{}", path.display(), l.line), r));
            }
        }
    }
    assert!(sources.len() >= 20, "only {} regions", sources.len());
    compile_regions(&sources);
}

pub(crate) fn compile_regions(regions: &[(String, OffloadRegion)]) {
    if std::process::Command::new("g++")
        .arg("--version")
        .output()
        .is_err()
    {
        crate::testing::skip(
            crate::testing::Needs::Toolchain,
            "g++ not found; regions not compiled",
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // One translation unit per region: they may share names.
    let mut failures = Vec::new();
    for (idx, (at, r)) in regions.iter().enumerate() {
        let file = dir.path().join(format!("r{idx}.cpp"));
        let code = format!(
            "{}\n{}\n{}",
            r.includes.join("\n"),
            r.types.definitions,
            r.source
        );
        std::fs::write(&file, &code).unwrap();
        let out = std::process::Command::new("g++")
            .args(["-std=c++17", "-fsyntax-only", "-Wall"])
            .arg(&file)
            .output()
            .unwrap();
        if !out.status.success() {
            failures.push(format!(
                "{at}:\n{code}\n{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        assert!(
            r.source.contains(&r.signature()),
            "{at}: source does not define {}",
            r.signature()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn empty_and_whitespace_files_have_no_loops() {
    for src in ["", "\n\n", "   ", "// only a comment\n"] {
        let r = analyze_source(src.as_bytes(), Language::Cpp);
        assert!(r.loops.is_empty());
        assert!(!r.has_syntax_errors);
    }
}

#[test]
fn non_utf8_bytes_are_analysed_not_rejected() {
    let mut src = b"// caf\xe9 \xff\xfe\nvoid f(int n, float* a) {\n    for (int i = 0; i < n; ++i) a[i] = 0.0f; // \xc3\x28\n}\n".to_vec();
    let r = analyze_source(&src, Language::Cpp);
    assert_eq!(r.loops.len(), 1);
    assert_eq!(r.loops[0].kind, LoopKind::Map);
    assert!(
        r.loops[0]
            .region
            .as_ref()
            .is_some_and(|x| x.source.contains("a[i] = 0.0f"))
    );
    src.extend_from_slice(b"\x80\x80\x80");
    let _ = analyze_source(&src, Language::Cuda);
}

#[test]
fn loop_at_line_finds_the_outermost_loop() {
    let src = "void f(int n, float* a) {\n  for (int i = 0; i < n; ++i)\n    for (int j = 0; j < n; ++j)\n      a[i*n+j] = 0;\n}\n";
    let r = analyze_source(src.as_bytes(), Language::Cpp);
    assert_eq!(r.loops.len(), 2);
    assert_eq!(r.loop_at_line(4).map(|l| l.line), Some(2));
    assert_eq!(r.loop_at_line(1), None);
}

#[test]
fn loop_shape_is_reported() {
    let src = "void f(int n, int m, const float* x, float* y) {\n  for (int i = 1; i < n - 1; i += 1)\n    y[i * m] = x[i - 1] + x[i + 1];\n}\n";
    let r = analyze_source(src.as_bytes(), Language::Cpp);
    let l = &r.loops[0];
    assert_eq!(l.induction.as_deref(), Some("i"));
    assert_eq!(l.lower.as_deref(), Some("1"));
    assert_eq!(l.upper.as_deref(), Some("n - 2"));
    assert_eq!(l.trip_count.as_deref(), Some("n - 2"));
    let writes: Vec<_> = l.accesses.iter().filter(|a| a.write).collect();
    assert_eq!(writes.len(), 1);
    assert_eq!(writes[0].array, "y");
    assert_eq!(writes[0].subscripts, vec!["i*m".to_string()]);
    let est = l.estimate.as_ref().unwrap();
    assert!(est.assumptions.contains("4.3e12"));
    assert!(est.assumed_sizes.contains_key("n"));
}

/// Random and mutated byte strings never panic (the fuzz target's property, run on every test).
#[test]
fn random_and_mutated_inputs_never_panic() {
    let seeds: Vec<Vec<u8>> = std::fs::read_dir(testdata())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let tokens: &[&[u8]] = &[
        b"for (",
        b"while(",
        b"do {",
        b"} while (",
        b"[",
        b"]",
        b"(",
        b")",
        b"{",
        b"}",
        b";",
        b"+=",
        b"++",
        b"i",
        b"a[i]",
        b"#define X ",
        b"#pragma omp parallel for\n",
        b"->",
        b"*",
        b"\xff",
        b"template <typename T>",
        b"[&](){",
        b"0x",
        b"'",
        b"\"",
        b"/*",
        b"\n",
    ];
    for round in 0..300 {
        let mut input = if round % 3 == 0 {
            (0..rng.random_range(0..400))
                .map(|_| rng.random::<u8>())
                .collect::<Vec<u8>>()
        } else {
            seeds[round % seeds.len()].clone()
        };
        for _ in 0..rng.random_range(1..20) {
            if input.is_empty() {
                input.extend_from_slice(tokens[rng.random_range(0..tokens.len())]);
                continue;
            }
            let at = rng.random_range(0..input.len());
            match rng.random_range(0..4) {
                0 => {
                    let t = tokens[rng.random_range(0..tokens.len())];
                    input.splice(at..at, t.iter().copied());
                }
                1 => {
                    let end = (at + rng.random_range(0..40)).min(input.len());
                    input.drain(at..end);
                }
                2 => input[at] = rng.random(),
                _ => {
                    let end = (at + rng.random_range(0..200)).min(input.len());
                    let chunk = input[at..end].to_vec();
                    input.splice(at..at, chunk);
                }
            }
        }
        let lang = if round % 2 == 0 {
            Language::Cpp
        } else {
            Language::Cuda
        };
        let report = analyze_source(&input, lang);
        for l in &report.loops {
            assert!(!l.reason.is_empty());
            assert!(l.line <= l.end_line);
        }
    }
}

#[test]
fn deeply_nested_input_does_not_overflow_the_stack() {
    let mut src = String::from("void f(int n, float* a) { for (int i = 0; i < n; ++i) a[i] = ");
    src.push_str(&"(".repeat(5000));
    src.push('1');
    src.push_str(&")".repeat(5000));
    src.push_str("; }\n");
    let r = analyze_source(src.as_bytes(), Language::Cpp);
    assert_eq!(r.loops.len(), 1);
    let nested_loops = "for (int i = 0; i < 9; ++i) ".repeat(300) + "x += 1;";
    let src = format!("void g() {{ int x = 0; {nested_loops} }}");
    let r = analyze_source(src.as_bytes(), Language::Cpp);
    assert!(!r.loops.is_empty());
}

mod document {
    use super::*;

    /// The LSP keeps documents in a concurrent map and analyses them on worker threads.
    #[test]
    fn documents_can_be_shared_across_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Document>();
        assert_send_sync::<FileReport>();
    }

    const SRC: &str = "void a(int n, float* x) {\n    for (int i = 0; i < n; ++i) x[i] = 1.0f;\n}\n\nvoid b(int n, float* u) {\n    for (int i = 1; i < n; ++i) u[i] = u[i] + 1.0f;\n}\n";

    #[test]
    fn edits_reparse_and_match_a_fresh_analysis() {
        let mut doc = Document::new(SRC, Language::Cpp);
        assert_eq!(doc.report(), analyze_source(SRC.as_bytes(), Language::Cpp));
        assert_eq!(doc.report().loops[1].kind, LoopKind::Map);
        // u[i] + 1 → u[i + 1] + 1: now an anti-dependence.
        let at = doc.text().find("u[i] + 1").unwrap() + 3;
        doc.edit(at, at, " + 1");
        assert!(doc.text().contains("u[i + 1] + 1.0f"));
        let fresh = analyze_source(doc.text().as_bytes(), Language::Cpp);
        assert_eq!(doc.report(), fresh);
        assert_eq!(doc.report().loops[1].kind, LoopKind::Sequential);
        // Inserting lines above moves every loop down.
        doc.edit(0, 0, "// header\n// more\n");
        assert_eq!(doc.report().loops[0].line, 4);
        assert_eq!(
            doc.report(),
            analyze_source(doc.text().as_bytes(), Language::Cpp)
        );
        // Deleting everything.
        let len = doc.text().len();
        doc.edit(0, len, "");
        assert!(doc.report().loops.is_empty());
    }

    #[test]
    fn out_of_range_and_mid_character_edits_are_clamped() {
        let mut doc = Document::new(
            "// é\nvoid f(int n, float* a) { for (int i = 0; i < n; ++i) a[i] = 0; }\n",
            Language::Cpp,
        );
        doc.edit(4, 4, "x"); // inside the two bytes of é
        doc.edit(10_000, 20_000, "\n");
        doc.edit(7, 3, "");
        assert_eq!(
            doc.report(),
            analyze_source(doc.text().as_bytes(), Language::Cpp)
        );
    }

    #[test]
    fn random_edit_sequences_agree_with_fresh_analysis() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let base = std::fs::read_to_string(testdata().join("kinds.cpp")).unwrap();
        let mut doc = Document::new(&base, Language::Cpp);
        let pieces = [
            "i",
            "+ 1",
            "\n",
            "for (int k = 0; k < n; ++k) ",
            "}",
            "{",
            ";",
            "[i-1]",
            "",
        ];
        for _ in 0..60 {
            let len = doc.text().len();
            let start = rng.random_range(0..=len);
            let end = (start + rng.random_range(0..8)).min(len);
            let piece = pieces[rng.random_range(0..pieces.len())];
            doc.edit(start, end, piece);
            assert_eq!(
                doc.report(),
                analyze_source(doc.text().as_bytes(), Language::Cpp)
            );
        }
    }
}

#[test]
fn corpus_real_world_idioms() {
    check_corpus_file("real_idioms.cpp");
}

/// A file's quoted includes are read like a compiler without `-I` reads them: an index macro and
/// a constant from a header make its loops analysable.
#[test]
fn project_headers_define_index_macros_and_constants() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/analysis/testdata/project_headers/relax.c");
    let src = std::fs::read_to_string(&path).unwrap();
    let with = analyze_file(&path).unwrap();
    let kinds: Vec<&str> = with.loops.iter().map(|l| l.kind.as_str()).collect();
    assert_eq!(kinds, ["stencil", "stencil", "map"], "{:#?}", with.loops);
    // Without the header the same loops cannot be judged: the macro is an unknown call.
    let without = analyze_source(src.as_bytes(), Language::C);
    assert!(without.loops.iter().all(|l| !l.parallel));
}

/// Regions with structs (issue #17): the shapes of the parameters each mechanism builds, and the
/// reason for each struct the harness cannot fill.
#[test]
fn struct_fields_pod_structs_and_member_functions_become_parameters() {
    let src = "\
struct Grid { int n; double* u; double* v; double h; };
struct Vec3 { double x, y, z; };
struct Body { Vec3 pos; float w[2]; int id; };
typedef struct { unsigned short key, index; } pair_t;
struct Chain { Chain* next; int v; };
union Bits { int i; float f; };
struct Flags { int a : 3; int b; };
struct Counter { int n; Counter() : n(0) {} };
class Mesh { public: int cells; double* vol; double scale; void rescale(); };

void paths(Grid* g, const Grid& c) {
    for (int i = 0; i < g->n; ++i) g->v[i] = g->u[i] * c.h;
}
void pod(int n, const Body* b, Body* out, pair_t* keys) {
    for (int i = 0; i < n; ++i) { out[i].id = b[i].id + (int)b[i].pos.y; keys[i].key = 1; }
}
void chain(int n, const Chain* c, int* o) { for (int i = 0; i < n; ++i) o[i] = c[i].v; }
void bits(int n, const Bits* c, int* o) { for (int i = 0; i < n; ++i) o[i] = c[i].i; }
void flags(int n, const Flags* c, int* o) { for (int i = 0; i < n; ++i) o[i] = c[i].b; }
void counter(int n, const Counter* c, int* o) { for (int i = 0; i < n; ++i) o[i] = c[i].n; }
void Mesh::rescale() { for (int i = 0; i < cells; ++i) vol[i] = vol[i] * scale; }
";
    let region = |line: usize| {
        outline_at(src.as_bytes(), Language::Cpp, line, &Headers::default()).map(|(_, r)| r)
    };
    // Paths: `g->n` a size, `g->u`/`g->v` arrays, `c.h` a scalar; passed as the caller spells them.
    let r = region(12).unwrap();
    let by = |r: &OffloadRegion, n: &str| r.params.iter().find(|p| p.name == n).cloned().unwrap();
    assert!(by(&r, "g_n").is_size);
    assert_eq!(by(&r, "g_v").extent.as_deref(), Some("g_n"));
    assert_eq!(by(&r, "g_v").call_arg.as_deref(), Some("g->v"));
    assert_eq!(by(&r, "g_u").access, Access::Read);
    assert_eq!(by(&r, "c_h").call_arg.as_deref(), Some("c.h"));
    assert!(r.types.is_empty(), "{:?}", r.types);
    // POD structs: leaves in declaration order (nested struct, fixed array), definitions carried.
    let r = region(15).unwrap();
    let body = r.types.record("Body").expect("Body is a region type");
    let leaves: Vec<(&str, usize)> = body
        .fields
        .iter()
        .map(|f| (f.path.as_str(), f.count))
        .collect();
    assert_eq!(
        leaves,
        [
            ("pos.x", 1),
            ("pos.y", 1),
            ("pos.z", 1),
            ("w", 2),
            ("id", 1)
        ]
    );
    assert_eq!(by(&r, "out").elem_type, "Body");
    assert_eq!(by(&r, "out").extent.as_deref(), Some("n"));
    assert!(r.types.record("pair_t").is_some());
    let defs = &r.types.definitions;
    assert!(
        defs.find("struct Vec3").unwrap() < defs.find("struct Body").unwrap(),
        "{defs}"
    );
    assert!(defs.contains("typedef struct { unsigned short key, index; } pair_t;"));
    assert!(
        !r.source.contains("struct Body"),
        "the source repeats a type:\n{}",
        r.source
    );
    // What the harness cannot fill is refused with the reason.
    let why = |line: usize| region(line).unwrap_err().to_string();
    assert!(
        why(17).contains("`Chain::next` is a pointer"),
        "{}",
        why(17)
    );
    assert!(why(18).contains("`Bits` is a union"), "{}", why(18));
    assert!(why(19).contains("`Flags::a` is a bitfield"), "{}", why(19));
    assert!(why(20).contains("`Counter` has methods"), "{}", why(20));
    // A member function: its class's fields are parameters named after them.
    let r = region(21).unwrap();
    assert_eq!(r.name, "Mesh_rescale_loop21");
    assert!(by(&r, "cells").is_size);
    assert_eq!(by(&r, "vol").access, Access::ReadWrite);
    assert_eq!(by(&r, "scale").elem_type, "double");
}

#[test]
fn corpus_dependence_mechanisms() {
    check_corpus_file("dependence.cpp");
}

/// Regions issue #17 added after structs: arrays sized through a macro's subscripts, template
/// loops that name no template parameter, base-class fields, enum fields, `(*a)[i]`.
#[test]
fn macro_subscripts_templates_bases_enums_and_derefs_become_regions() {
    let src = "\
#define NEIGHBOURS(a) (a[index - 1] + a[index + 1] + w[index + n])
enum class Shape { BOX, BALL };
struct State { double v; Shape shape; };
struct Base { int count; };
struct Derived : public Base { double* data; void scale(); };

void smooth(int n, int m, const double* u, const double* w, double* out) {
    for (int j = 1; j < m; ++j) { const int index = j; out[index] = NEIGHBOURS(u); }
}
template <typename T> void zero(int n, double* x, T* y) {
    for (int i = 0; i < n; ++i) x[i] = 0.0;
    for (int i = 0; i < n; ++i) y[i] = x[i];
}
void Derived::scale() { for (int i = 0; i < count; ++i) data[i] = 2.0 * data[i]; }
void states(int n, const State* s, double* o) {
    for (int i = 0; i < n; ++i) o[i] = s[i].shape == Shape::BOX ? s[i].v : 0.0;
}
void alloc(double** a, int n) { for (int i = 0; i < n; ++i) (*a)[i] = 1.0; }
#define W 4
void rows(int n, double a[][W], const double b[][W]) {
    for (int i = 0; i < n; ++i) for (int j = 0; j < W; ++j) a[i][j] = b[i][j] * 2.0;
}
void block(double* out) {
    double t[8][3];
    for (int i = 0; i < 8; ++i) { t[i][0] = i; t[i][1] = 0; }
    out[0] = t[3][0];
}
";
    let region = |line: usize| {
        outline_at(src.as_bytes(), Language::Cpp, line, &Headers::default()).map(|(_, r)| r)
    };
    let by = |r: &OffloadRegion, n: &str| r.params.iter().find(|p| p.name == n).cloned().unwrap();
    // `u` is read at `index + 1` (index < m) and `w` at `index + n` only inside the macro.
    let r = region(8).unwrap();
    assert_eq!(by(&r, "u").extent.as_deref(), Some("m + 1"));
    assert_eq!(by(&r, "w").extent.as_deref(), Some("m + n"));
    assert_eq!(by(&r, "w").access, Access::Read);
    assert!(r.source.contains("#define NEIGHBOURS"), "{}", r.source);
    // A template's loop that names no template parameter is a region; one that does is refused.
    assert_eq!(by(&region(11).unwrap(), "x").extent.as_deref(), Some("n"));
    let why = region(12).unwrap_err().to_string();
    assert!(
        why.contains("names `T`, a template parameter of `zero`"),
        "{why}"
    );
    // A field of the base class is a field of `this`.
    let r = region(14).unwrap();
    assert!(by(&r, "count").is_size);
    assert_eq!(by(&r, "data").extent.as_deref(), Some("count"));
    // An enum field is filled as its underlying integer, its definition carried before the struct.
    let r = region(16).unwrap();
    let state = r.types.record("State").expect("State is a region type");
    assert_eq!(state.fields[1].path, "shape");
    assert_eq!(state.fields[1].ty, "int");
    let defs = &r.types.definitions;
    assert!(
        defs.find("enum class Shape").unwrap() < defs.find("struct State").unwrap(),
        "{defs}"
    );
    // `(*a)[i]` with `double** a`: the flat array `*a`, passed as such.
    let r = region(18).unwrap();
    assert_eq!(by(&r, "a").call_arg.as_deref(), Some("*a"));
    assert_eq!(by(&r, "a").extent.as_deref(), Some("n"));
    assert!(!r.source.contains("*a"), "{}", r.source);
    // Fixed-size 2-D arrays travel flat, indexed row-major.
    let r = region(21).unwrap();
    assert_eq!(by(&r, "a").extent.as_deref(), Some("4*n"));
    assert_eq!(by(&r, "a").call_arg.as_deref(), Some("&a[0][0]"));
    assert_eq!(by(&r, "b").access, Access::Read);
    assert!(r.source.contains("a[((i) * (4) + (j))]"), "{}", r.source);
    let r = region(25).unwrap();
    assert_eq!(by(&r, "t").extent.as_deref(), Some("23"));
    assert_eq!(by(&r, "t").access, Access::Write);
}

/// Array typedefs (issue #17, CoMD's `typedef real_t real3[3]`): a field or variable of rows
/// travels flat; an array of pointers, whose rows are allocated one by one, is refused.
#[test]
fn array_typedef_rows_travel_flat_and_arrays_of_pointers_are_refused() {
    let src = "\
typedef double real_t;
typedef real_t real3[3];
struct Atoms { int n; real3* r; real3* f; real_t* rows[6]; };
void kick(Atoms* a, real_t dt) {
    for (int i = 0; i < a->n; ++i) for (int m = 0; m < 3; ++m) a->f[i][m] += dt * a->r[i][m];
}
void face(Atoms* a, int k) {
    for (int m = 0; m < 3; ++m) a->rows[k][m] = 0.0;
}
void diff(const Atoms* a, int i, int j, real_t* out) {
    real3 dr;
    for (int m = 0; m < 3; ++m) { dr[m] = a->r[i][m] - a->r[j][m]; out[m] = dr[m]; }
}
void shift(int n, real3* p, const real3 d) {
    for (int i = 0; i < n; ++i) for (int m = 0; m < 3; ++m) p[i][m] += d[m];
}
void own(int n, const real_t* a, real_t* out) {
    for (int i = 0; i < n; ++i) { real3 d; for (int m = 0; m < 3; ++m) d[m] = a[3*i+m]; out[i] = d[0] + d[2]; }
}
";
    let region = |line: usize| {
        outline_at(src.as_bytes(), Language::Cpp, line, &Headers::default()).map(|(_, r)| r)
    };
    let by = |r: &OffloadRegion, n: &str| r.params.iter().find(|p| p.name == n).cloned().unwrap();
    // `a->f` is rows of three: `(a_n)*3` doubles from `&a->f[0][0]`, indexed row-major.
    let kick = region(5).unwrap();
    let f = by(&kick, "a_f");
    assert_eq!(f.elem_type, "double");
    assert_eq!(f.extent.as_deref(), Some("3*a_n"));
    assert_eq!(f.call_arg.as_deref(), Some("&a->f[0][0]"));
    assert_eq!(f.access, Access::ReadWrite);
    assert_eq!(by(&kick, "a_r").access, Access::Read);
    assert!(
        kick.source.contains("a_f[((i) * (3) + (m))]"),
        "{}",
        kick.source
    );
    // `real_t* rows[6]` is six separate allocations, not a 6x3 block.
    let why = region(8).unwrap_err().to_string();
    assert!(why.contains("an array of pointers"), "{why}");
    // Two rows read at unrelated indices: the extent covers both, whichever is larger.
    let d = region(12).unwrap();
    assert_eq!(by(&d, "a_r").extent.as_deref(), Some("3*i + 3*j + 3"));
    assert_eq!(by(&d, "dr").extent.as_deref(), Some("3"));
    // A parameter of rows and a `const real3` (one row) as plain variables.
    let s = region(15).unwrap();
    assert_eq!(by(&s, "p").extent.as_deref(), Some("3*n"));
    assert_eq!(by(&s, "d").extent.as_deref(), Some("3"));
    // A loop declaring a `real3` of its own: a map, carrying both typedefs in dependency order.
    let o = region(18).unwrap();
    assert_eq!(o.kind, LoopKind::Map);
    let (at_t, at_3) = (
        o.source.find("typedef double real_t;").unwrap(),
        o.source.find("typedef real_t real3[3];").unwrap(),
    );
    assert!(at_t < at_3, "{}", o.source);
    compile_regions(&[
        ("kick".into(), kick),
        ("diff".into(), d),
        ("shift".into(), s),
        ("own".into(), o),
    ]);
}

/// Data bounds invariant in the loop (issue #17, CoMD's `ii < s->boxes->nAtoms[iBox]`, NPB's
/// `k = rowstr[j]; k < rowstr[j+1]`) are evaluated once at the call site; a bound the loop
/// changes, or one of a nested loop, keeps the region refused.
#[test]
fn invariant_data_bounds_become_parameters_evaluated_at_the_call_site() {
    let src = "\
struct Boxes { int* nAtoms; };
struct Sim { Boxes* boxes; double* x; };
void row(const int* rowstr, int j, int* colidx, int first) {
    for (int k = rowstr[j]; k < rowstr[j+1]; k++) colidx[k] = colidx[k] - first;
}
void atoms(Sim* s, int iBox, double dt) {
    for (int iOff = 64*iBox, ii = 0; ii < s->boxes->nAtoms[iBox]; ii++, iOff++) s->x[iOff] *= dt;
}
void grows(int* rowstr, int j, int* colidx) {
    for (int k = 0; k < rowstr[j]; k++) { colidx[k] = 0; rowstr[j] = 0; }
}
void nest(const int* rowstr, int rows, const double* v, double* out) {
    for (int j = 0; j < rows; j++) { double t = 0; for (int k = rowstr[j]; k < rowstr[j+1]; k++) t += v[k]; out[j] = t; }
}
";
    let region = |line: usize| {
        outline_at(src.as_bytes(), Language::Cpp, line, &Headers::default()).map(|(_, r)| r)
    };
    let by = |r: &OffloadRegion, n: &str| r.params.iter().find(|p| p.name == n).cloned().unwrap();
    let r = region(4).unwrap();
    assert_eq!(by(&r, "k_begin").call_arg.as_deref(), Some("rowstr[j]"));
    assert_eq!(by(&r, "k_end").call_arg.as_deref(), Some("rowstr[j+1]"));
    assert!(by(&r, "k_end").is_size);
    assert_eq!(by(&r, "colidx").extent.as_deref(), Some("k_end"));
    assert!(
        !r.params.iter().any(|p| p.name == "rowstr"),
        "the bound's array is read at the call site only: {:?}",
        r.params
    );
    assert!(r.source.contains("k = k_begin; k < k_end;"), "{}", r.source);
    // Through a member path, with a second counter derived from the tested one.
    let r = region(7).unwrap();
    assert_eq!(
        by(&r, "ii_end").call_arg.as_deref(),
        Some("s->boxes->nAtoms[iBox]")
    );
    assert_eq!(by(&r, "s_x").extent.as_deref(), Some("64*iBox + ii_end"));
    assert!(!r.source.contains("nAtoms"), "{}", r.source);
    // The loop writes the element its bound reads: not invariant, no region.
    let why = region(10).unwrap_err().to_string();
    assert!(
        why.contains("its bound `rowstr[j]` changes inside the loop"),
        "{why}"
    );
    // The outer loop's nest: the inner bounds change with `j`, and are values of `rowstr`
    // (index_derived_extents_size_arrays_gathered_through_index_values).
    let r = region(13).unwrap();
    assert_eq!(by(&r, "v").extent.as_deref(), Some("rowstr_range - 1"));
    compile_regions(&[
        ("row".into(), region(4).unwrap()),
        ("atoms".into(), region(7).unwrap()),
    ]);
}

/// A member path ending at an array of plain-data structs is filled like a parameter of that
/// type; its extent still has to be known.
#[test]
fn a_member_array_of_plain_structs_is_a_parameter_of_that_type() {
    let src = "\
typedef struct { char name[3]; int z; double mass; } Species;
struct Sim { int n; Species* species; int* kind; };
void masses(Sim* s, double* m) {
    for (int i = 0; i < s->n; ++i) m[i] = s->species[i].mass;
}
void gather(Sim* s, double* m) {
    for (int i = 0; i < s->n; ++i) m[i] = s->species[s->kind[i]].mass;
}
";
    let region = |line: usize| {
        outline_at(src.as_bytes(), Language::Cpp, line, &Headers::default()).map(|(_, r)| r)
    };
    let r = region(4).unwrap();
    let sp = r.params.iter().find(|p| p.name == "s_species").unwrap();
    assert_eq!(sp.elem_type, "Species");
    assert_eq!(sp.extent.as_deref(), Some("s_n"));
    assert_eq!(sp.call_arg.as_deref(), Some("s->species"));
    assert!(r.types.record("Species").is_some());
    // Gathered through an index field: as many species as the kinds' values reach.
    let g = region(7).unwrap();
    let sp = g.params.iter().find(|p| p.name == "s_species").unwrap();
    assert_eq!(sp.extent.as_deref(), Some("s_kind_range"));
    compile_regions(&[("masses".into(), r), ("gather".into(), g)]);
}

/// Integral template values the loop only reads (issue #17, miniMD's `template<int EVFLAG>`)
/// are read-only integers to the region; a value used where a constant is required, or a type
/// parameter, keeps it refused.
#[test]
fn integral_template_values_read_as_values_become_parameters() {
    let src = "\
template <int EVFLAG, bool HALF> void forces(int n, const double* x, double* f, double* e) {
    for (int i = 0; i < n; ++i) { f[i] = HALF ? 0.5 * x[i] : x[i]; if (EVFLAG) e[i] = x[i]; }
}
template <int N> void fixed(int n, double* y) {
    for (int i = 0; i < n; ++i) { double t[N]; t[0] = 1.0; y[i] = t[0]; }
}
template <int N> void chosen(int n, double* y) {
    for (int i = 0; i < n; ++i) { if constexpr (N > 1) y[i] = 1.0; }
}
template <typename T> void typed(int n, T* y) {
    for (int i = 0; i < n; ++i) y[i] = y[i] + y[i];
}
";
    let region = |line: usize| {
        outline_at(src.as_bytes(), Language::Cpp, line, &Headers::default()).map(|(_, r)| r)
    };
    let r = region(2).unwrap();
    for (name, ty) in [("EVFLAG", "int"), ("HALF", "bool")] {
        let p = r.params.iter().find(|p| p.name == name).unwrap();
        assert_eq!(p.elem_type, ty);
        assert!(!p.is_array && p.access == Access::Read && p.call_arg.is_none());
    }
    let why = |line: usize| region(line).unwrap_err().to_string();
    assert!(
        why(5).contains("`N`, a template parameter of `fixed`"),
        "{}",
        why(5)
    );
    assert!(
        why(8).contains("`N`, a template parameter of `chosen`"),
        "{}",
        why(8)
    );
    assert!(
        why(11).contains("names `T`, a template parameter of `typed`"),
        "{}",
        why(11)
    );
    compile_regions(&[("forces".into(), r)]);
}

/// A bound read through a pointer the loop does not change (NPB's `k < *nzv`) is evaluated once
/// too; one the loop writes through is not invariant.
#[test]
fn a_bound_read_through_a_pointer_becomes_a_parameter() {
    let src = "\
void scale(double* v, const int* nzv, double s) {
    for (int k = 0; k < *nzv; k++) v[k] = s * v[k];
}
void grow(double* v, int* nzv) {
    for (int k = 0; k < *nzv; k++) { v[k] = 0.0; *nzv = 1; }
}
";
    let region = |line: usize| {
        outline_at(src.as_bytes(), Language::Cpp, line, &Headers::default()).map(|(_, r)| r)
    };
    let r = region(2).unwrap();
    let end = r.params.iter().find(|p| p.name == "k_end").unwrap();
    assert_eq!(end.call_arg.as_deref(), Some("*nzv"));
    assert_eq!(
        r.params
            .iter()
            .find(|p| p.name == "v")
            .unwrap()
            .extent
            .as_deref(),
        Some("k_end")
    );
    assert!(!r.params.iter().any(|p| p.name == "nzv"), "{:?}", r.params);
    let why = region(5).unwrap_err().to_string();
    assert!(
        why.contains("its bound `*nzv` changes inside the loop"),
        "{why}"
    );
    compile_regions(&[("scale".into(), r)]);
}

/// tree-sitter reads `TRUE`, `FALSE` and `NULL` as literals: where the file defines them as
/// macros (NPB's `#define TRUE 1`), the region carries their definitions.
#[test]
fn true_and_false_defined_as_macros_travel_with_the_region() {
    let src = "\
#define TRUE 1
#define FALSE 0
void flags(int n, const int* a, int* f) {
    for (int i = 0; i < n; ++i) f[i] = a[i] > 0 ? TRUE : FALSE;
}
";
    let (_, r) = outline_at(src.as_bytes(), Language::Cpp, 4, &Headers::default()).unwrap();
    assert!(r.source.contains("#define TRUE 1"), "{}", r.source);
    assert!(r.source.contains("#define FALSE 0"), "{}", r.source);
    compile_regions(&[("flags".into(), r)]);
}

/// A single-header library's `#ifdef __cplusplus` / `extern "C" {` / `#endif` leaves a brace the
/// parser cannot match (a syntax error in the file): its helpers are still judged, a pure one is
/// called freely and an impure one is not, also where the rest of the file lands in an ERROR node
/// (stb_dxt.h).
#[test]
fn helpers_after_an_unmatched_extern_c_brace_are_still_judged() {
    let src = "\
#ifndef LIB_H
#define LIB_H
#ifdef __cplusplus
extern \"C\" {
#endif
#ifdef LIB_STATIC
#define LIBDEF static
#else
#define LIBDEF extern
#endif
LIBDEF void api(int n);
#ifdef __cplusplus
}
#endif
#endif
#ifdef LIB_IMPLEMENTATION
static int lerp(int a, int b) { return (2 * a + b) / 3; }
static int calls = 0;
static int counted(int a) { calls = calls + 1; return a; }
void use(int n, const int* a, int* out) {
    for (int i = 0; i < n; i++) out[i] = lerp(a[i], 3);
    for (int i = 0; i < n; i++) out[i] = counted(a[i]);
}
#endif
";
    let report = analyze_source(src.as_bytes(), Language::Cpp);
    assert!(
        report.has_syntax_errors,
        "the snippet no longer shows the unmatched brace"
    );
    let at = |line: usize| report.loops.iter().find(|l| l.line == line).unwrap();
    assert_eq!(at(21).kind, LoopKind::Map, "{}", at(21).reason);
    assert!(!at(22).parallel);
    assert!(at(22).reason.contains("`counted`"), "{}", at(22).reason);
    // The snippet above parses with its helpers outside the ERROR node; stb_dxt.h itself does
    // not (from its first `#ifndef` on): its pure `stb__Lerp13` must still be known.
    let stb = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/stb/src/stb_dxt.h");
    let report = analyze_file(&stb).unwrap();
    let table = report.loops.iter().find(|l| l.line == 650).unwrap();
    assert!(table.parallel, "{}", table.reason);
}

/// Constants of a file-scope enum (miniz's `enum { TDEFL_MAX_SUPPORTED_HUFF_CODESIZE = 32 };`)
/// are known values and travel with the region like macros, their enum written once; an enum of
/// a function's own is not the file's, and stays refused.
#[test]
fn file_scope_enum_constants_travel_with_the_region() {
    let src = "\
enum { MAX_CODE = 32, HALF = MAX_CODE / 2 };
typedef enum { RED, GREEN } colour;
void fold(int m, int* counts) {
    for (int i = m + 1; i <= MAX_CODE; i++) counts[m] += counts[i] + HALF;
}
void paint(int n, int* c) {
    for (int i = 0; i < n; i++) c[i] = i % 2 ? RED : GREEN;
}
void local(int n, int* c) {
    enum { K = 3 };
    for (int i = 0; i < n; i++) c[i] = K;
}
";
    let region = |line: usize| {
        outline_at(src.as_bytes(), Language::Cpp, line, &Headers::default()).map(|(_, r)| r)
    };
    let fold = region(4).unwrap();
    let all = format!("{}\n{}", fold.types.definitions, fold.source);
    assert_eq!(all.matches("enum { MAX_CODE = 32").count(), 1, "{all}");
    let paint = region(7).unwrap();
    assert_eq!(
        paint
            .source
            .matches("typedef enum { RED, GREEN } colour;")
            .count(),
        1
    );
    let why = region(11).unwrap_err().to_string();
    assert!(why.contains("it uses `K`, which is neither"), "{why}");
    compile_regions(&[("fold".into(), fold), ("paint".into(), paint)]);
}

/// Arrays gathered or scattered through values read from an index array (issue #17: miniMD's
/// `j = neighs[k]; x[j*PAD+0]`, NPB's `p[colidx[k]]`, CoMD's `s->species[iSpecies]`) get a size
/// for the range of those values; the index array's input is held inside it. A subscript that may
/// go below 0 with them, an index array the loop writes, or one whose own extent is unknown stays
/// refused with its reason.
#[test]
fn index_derived_extents_size_arrays_gathered_through_index_values() {
    let src = "\
#define PAD 4
void gather(int n, const int* neighs, const double* x, double* f) {
    for (int k = 0; k < n; k++) { const int j = neighs[k]; f[k] = x[j*PAD + 0] + x[j*PAD + 2]; }
}
void spmv(int rows, const int* rowstr, const int* colidx, const double* a, const double* p, double* q) {
    for (int j = 0; j < rows; j++) { double s = 0; for (int k = rowstr[j]; k < rowstr[j+1]; k++) s += a[k] * p[colidx[k]]; q[j] = s; }
}
void inner(const int* rowstr, int j, const int* colidx, const double* a, const double* p, double* out) {
    double s = 0;
    for (int k = rowstr[j]; k < rowstr[j+1]; k++) s += a[k] * p[colidx[k]];
    *out = s;
}
void types(int n, const int* type, const int* neighs, int ntypes, const double* cut, double* e) {
    for (int k = 0; k < n; k++) { int tj = type[neighs[k]]; int tij = 2 * ntypes + tj; e[k] = cut[tij]; }
}
void below(int n, const int* idx, const double* x, double* y) {
    for (int k = 0; k < n; k++) y[k] = x[idx[k] - 1];
}
void unknown(int n, const int* idx, const int* order, const double* x, double* y) {
    for (int k = 0; k < n; k++) y[k] = x[idx[order[k] % n]];
}
void moved(int n, int* idx, const double* x, double* y) {
    for (int k = 0; k < n; k++) { y[k] = x[idx[k]]; idx[k] = k; }
}
";
    let region = |line: usize| {
        outline_at(src.as_bytes(), Language::Cpp, line, &Headers::default()).map(|(_, r)| r)
    };
    let by = |r: &OffloadRegion, n: &str| r.params.iter().find(|p| p.name == n).cloned().unwrap();
    // Through a local read once from the index array.
    let r = region(3).unwrap();
    let range = by(&r, "neighs_range");
    assert!(range.is_size && !range.is_array, "{range:?}");
    assert_eq!(range.range_of.as_deref(), Some("neighs"));
    let x = by(&r, "x");
    assert_eq!(x.extent.as_deref(), Some("4*neighs_range - 1"), "{x:?}");
    let neighs = by(&r, "neighs");
    assert_eq!(neighs.extent.as_deref(), Some("n"));
    let input = neighs.input.unwrap();
    assert_eq!(input.min.as_deref(), Some("0"));
    assert_eq!(input.max.as_deref(), Some("neighs_range - 1"));
    // Directly, inside an invariant data bound.
    let r = region(10).unwrap();
    assert_eq!(by(&r, "p").extent.as_deref(), Some("colidx_range"));
    assert_eq!(by(&r, "colidx").extent.as_deref(), Some("k_end"));
    assert_eq!(by(&r, "colidx_range").range_of.as_deref(), Some("colidx"));
    // Index values of index values, and a position made of them.
    let r = region(14).unwrap();
    assert_eq!(by(&r, "type").extent.as_deref(), Some("neighs_range"));
    assert_eq!(
        by(&r, "type").input.unwrap().max.as_deref(),
        Some("type_range - 1")
    );
    assert_eq!(
        by(&r, "cut").extent.as_deref(),
        Some("2*ntypes + type_range")
    );
    // Near-misses.
    let why = region(17).unwrap_err().to_string();
    assert!(why.contains("may be negative"), "{why}");
    let why = region(20).unwrap_err().to_string();
    assert!(
        why.contains("cannot tell how many elements `idx` has"),
        "{why}"
    );
    let why = region(23).unwrap_err().to_string();
    assert!(why.contains("`idx` is also written"), "{why}");
    // The outer loop over CSR rows: the inner counter stays below the row offsets' range, and
    // the offsets are generated non-decreasing (each row a share of it).
    let r = region(6).unwrap();
    assert_eq!(by(&r, "a").extent.as_deref(), Some("rowstr_range - 1"));
    assert_eq!(by(&r, "rowstr").extent.as_deref(), Some("rows + 1"));
    assert!(by(&r, "rowstr").input.unwrap().sorted);
    compile_regions(&[
        ("gather".into(), region(3).unwrap()),
        ("inner".into(), region(10).unwrap()),
        ("types".into(), region(14).unwrap()),
        ("spmv".into(), region(6).unwrap()),
    ]);
}

/// An index value may also come from a scalar declared before the loop and assigned first thing
/// in the body (miniMD's `j = list[i];`), or from a member array while the loop writes another
/// member of the same struct (CoMD's `s->atoms->iSpecies` beside `s->atoms->r`). Assigned
/// twice, or named before its assignment (the previous iteration's value), it is no index value.
#[test]
fn index_values_from_a_first_assignment_and_from_a_member_array() {
    let src = "\
struct Atoms { int* kind; double* r; };
struct Sim { Atoms* atoms; double* mass; };
void pack(int n, const int* list, const double* x, double* buf) {
    int j;
    for (int i = 0; i < n; i++) { j = list[i]; buf[3*i] = x[j*3 + 0]; buf[3*i + 1] = x[j*3 + 1]; }
}
void twice(int n, const int* list, const double* x, double* buf) {
    int j;
    for (int i = 0; i < n; i++) { j = list[i]; j = j + 1; buf[i] = x[j]; }
}
void late(int n, const int* list, const double* x, double* buf) {
    int j = 0;
    for (int i = 0; i < n; i++) { buf[i] = j; j = list[i]; buf[i] += x[j]; }
}
void scale(Sim* s, int n, double dt) {
    for (int i = 0; i < n; i++) { int k = s->atoms->kind[i]; s->atoms->r[i] *= dt / s->mass[k]; }
}
";
    let region = |line: usize| {
        outline_at(src.as_bytes(), Language::Cpp, line, &Headers::default()).map(|(_, r)| r)
    };
    let by = |r: &OffloadRegion, n: &str| r.params.iter().find(|p| p.name == n).cloned().unwrap();
    let r = region(5).unwrap();
    assert_eq!(by(&r, "x").extent.as_deref(), Some("3*list_range - 1"));
    let why = region(9).unwrap_err().to_string();
    assert!(
        why.contains("cannot tell how many elements `x` has"),
        "{why}"
    );
    let why = region(13).unwrap_err().to_string();
    assert!(why.contains("read in the next"), "{why}");
    let r = region(16).unwrap();
    assert_eq!(
        by(&r, "s_mass").extent.as_deref(),
        Some("s_atoms_kind_range")
    );
    compile_regions(&[("pack".into(), region(5).unwrap()), ("scale".into(), r)]);
}

#[test]
fn derived_counters_of_inner_loops_range_with_their_loop() {
    let src = "\
#define CAP 64
void advance(int nb, const int* count, double* p, const double* f, double dt) {
    for (int b = 0; b < nb; b++) {
        for (int o = CAP*b, ii = 0; ii < count[b]; ii++, o++) { p[o] += dt*f[o]; }
    }
}
void skip(int nb, const int* count, double* p, const double* f, double dt) {
    for (int b = 0; b < nb; b++) {
        for (int o = CAP*b, ii = 0; ii < count[b]; ii++, o++) { p[o] += dt*f[o]; o++; }
    }
}
";
    let region = |line: usize| {
        outline_at(src.as_bytes(), Language::Cpp, line, &Headers::default()).map(|(_, r)| r)
    };
    let by = |r: &OffloadRegion, n: &str| r.params.iter().find(|p| p.name == n).cloned().unwrap();
    // `o` is `CAP*b + ii` with `ii` below a value of `count`: the last box reaches
    // `CAP*(nb-1) + count_range - 2`.
    let r = region(3).unwrap();
    assert_eq!(
        by(&r, "p").extent.as_deref(),
        Some("count_range + 64*nb - 65")
    );
    assert_eq!(by(&r, "count").extent.as_deref(), Some("nb"));
    let why = region(8).unwrap_err().to_string();
    assert!(why.contains("`o` is a counter of an inner loop"), "{why}");
    compile_regions(&[("advance".into(), r)]);
}

/// A region's arrays start at index 0: an array a subscript may reach below it is passed from
/// that far before its start and named back in the prelude; one kept above it by the loop's ranges (a Fortran-style `k - y_min + 2` from
/// `k = y_min`, an inner loop whose row `k` its enclosing loop keeps in `y_min..=y_max`) is not,
/// and that enclosing range is handed to the harness.
#[test]
fn subscripts_below_the_start_are_based_and_ranges_kept() {
    let src = "\
void diff(int n, signed char* out, const unsigned char* z, int stride) {
    for (int i = 0; i < n; ++i) out[i] = z[i] - z[i - stride];
}
void rows(int x_min, int x_max, int y_min, int y_max, double* a, const double* b) {
    for (int k = y_min; k <= y_max; k++) {
        for (int j = x_min; j <= x_max; j++) {
            a[(x_max + 4) * (k - y_min + 2) + j - x_min + 2] = b[(x_max + 4) * (k - y_min + 1) + j - x_min + 2];
        }
    }
}
";
    let at = |line: usize| outline_at(src.as_bytes(), Language::Cpp, line, &Headers::default());
    let (_, diff) = at(2).unwrap_or_else(|e| panic!("diff: {e}"));
    let z = diff
        .params
        .iter()
        .find(|p| p.name == "z_base")
        .expect("z by its base");
    assert_eq!(z.extent.as_deref(), Some("stride + n"));
    assert_eq!(z.call_arg.as_deref(), Some("(z) - (stride)"));
    assert!(
        diff.source
            .contains("const unsigned char* z = z_base + (stride);"),
        "{}",
        diff.source
    );
    let port = crate::search::port::port(&diff).unwrap_or_else(|e| panic!("port: {e}"));
    assert!(port.code.contains("z_base + (stride)"), "{}", port.code);
    at(5).unwrap_or_else(|e| panic!("outer: {e}"));
    let (_, inner) = at(6).unwrap_or_else(|e| panic!("inner: {e}"));
    let k = inner
        .params
        .iter()
        .find(|p| p.name == "k")
        .expect("k is a size");
    assert!(k.is_size);
    let range = k.input.as_ref().expect("k keeps its loop's range");
    // `y_max` is no size of the inner region (no subscript names it): only the lower end.
    assert_eq!(
        (range.min.as_deref(), range.max.as_deref()),
        (Some("y_min"), None)
    );
    // The plan draws it there in every case.
    let plan = crate::verify::plan::plan_for(&inner, 5);
    for c in plan.cases.iter().chain([&plan.timed]) {
        let get = |n: &str| c.sizes.iter().find(|(s, _)| s == n).unwrap().1;
        assert!(get("k") >= get("y_min"), "{c:?}");
    }
}

/// A harness allocates what the subscripts reach, not what the array was declared with: a loop
/// that runs past a declared size (`buf[16]` written below `n`, rows of 4 walked below `m`) would
/// otherwise be written past its end under test. A dimension may name a constant of a header the
/// file lacks (`NONZER`), which becomes a size; a value of a 2-D index array read in an inner loop
/// is a position of the array it indexes.
#[test]
fn extents_cover_what_the_subscripts_reach() {
    let src = "\
double buf[16];
void fill(int n) {
    for (int i = 0; i < n; i++) buf[i] = i;
}
void rows(double a[][4], int n, int m) {
    for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) a[i][j] = i + j;
}
void whole_rows(double a[][4], int n) {
    for (int i = 0; i < n; i++) for (int j = 0; j < 4; j++) a[i][j] = i + j;
}
void pack(int acol[][NONZER + 1], const int* ivc, int iouter, int nzv) {
    int k;
    for (k = 0; k < nzv; k++) acol[iouter][k] = ivc[k] - 1;
}
void count(int n, int* rowstr, const int* arow, int acol[][NONZER + 1]) {
    int j, nza;
    for (int i = 0; i < n; i++) {
        for (nza = 0; nza < arow[i]; nza++) {
            j = acol[i][nza] + 1;
            rowstr[j] = rowstr[j] + arow[i];
        }
    }
}
";
    let region = |line: usize| {
        outline_at(src.as_bytes(), Language::Cpp, line, &Headers::default())
            .map(|(_, r)| r)
            .unwrap_or_else(|e| panic!("line {line}: {e}"))
    };
    let extent = |r: &OffloadRegion, n: &str| {
        r.params
            .iter()
            .find(|p| p.name == n)
            .and_then(|p| p.extent.clone())
            .unwrap_or_else(|| panic!("no extent for {n} in {:?}", r.params))
    };
    let size = |r: &OffloadRegion, n: &str| r.params.iter().any(|p| p.name == n && p.is_size);
    assert_eq!(extent(&region(3), "buf"), "n");
    assert_eq!(extent(&region(6), "a"), "m + 4*n");
    assert_eq!(extent(&region(9), "a"), "4*n");
    let pack = region(13);
    assert_eq!(extent(&pack, "acol"), "NONZER*iouter + iouter + nzv");
    assert!(size(&pack, "NONZER"), "{:?}", pack.params);
    assert!(
        pack.source
            .contains("acol[((iouter) * (NONZER + 1) + (k))]"),
        "{}",
        pack.source
    );
    let count = region(17);
    assert_eq!(extent(&count, "rowstr"), "acol_range + 1");
    assert!(size(&count, "acol_range") && size(&count, "arow_range"));
    // The inner loop alone: its bound `arow[i]` is read once where the loop was, and the same
    // element read in the body is still the region's.
    let inner = region(18);
    assert_eq!(extent(&inner, "arow"), "i + 1");
    assert_eq!(extent(&inner, "acol"), "NONZER*i + i + nza_end");
}

/// An upwind scheme's cell (`donor` is `k - 1` or `k`, `upwind` `k - 2` or `MIN(k + 1, n + 1)`,
/// chosen per element by the flux's sign): each subscript through them is one of a few positions,
/// and the arrays hold the furthest. A scalar assigned otherwise as well keeps the loop refused.
#[test]
fn branch_chosen_positions_bound_extents() {
    let src = "\
#define MIN(a, b) ((a) >= (b) ? (b) : (a))
#define AT(i, j, s) ((s) * (j) + (i))
void adv(int n, int m, const double* flux, const double* pre, double* out) {
    int j, k, donor, upwind, dif;
    for (k = 2; k < n; k++) {
        for (j = 0; j < m; j++) {
            if (flux[k*m+j] > 0.0) { upwind = k - 2; donor = k - 1; dif = donor; }
            else { upwind = MIN(k + 1, n + 1); donor = k; dif = upwind; }
            out[AT(j, k, m)] = flux[AT(j, k, m)] / pre[AT(j, donor, m)] + pre[dif*m + j] + pre[upwind*m + j];
        }
    }
}
void adv2(int n, int m, const double* flux, const double* pre, double* out) {
    int j, k, donor;
    for (k = 2; k < n; k++) {
        for (j = 0; j < m; j++) {
            if (flux[k*m+j] > 0.0) { donor = k - 1; } else { donor = k; }
            if (flux[k*m+j] > 1.0) donor = donor * 2;
            out[k*m + j] = pre[donor*m + j];
        }
    }
}
";
    let region = |line: usize| {
        outline_at(src.as_bytes(), Language::Cpp, line, &Headers::default()).map(|(_, r)| r)
    };
    let r = region(5).unwrap();
    let pre = r.params.iter().find(|p| p.name == "pre").unwrap();
    // `upwind` reaches row n + 1: (n + 1)*m + m - 1, plus one.
    assert_eq!(pre.extent.as_deref(), Some("m*n + 2*m"));
    let err = region(15).unwrap_err();
    assert!(err.to_string().contains("`pre`"), "{err}");
}
