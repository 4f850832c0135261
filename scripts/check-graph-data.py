#!/usr/bin/env python3
"""Static checks of graph-data: every task's serial source compiles with g++, every trajectory step compiles
with nvcc for sm_90 and defines <name>_gpu, task fields are complete, and no task is a ParEval problem.

usage: scripts/check-graph-data.py [--jobs N] [TASK_ID ...]
Compiled sources are cached by content hash in $XDG_CACHE_HOME/cuda-offload-graphdata (or ~/.cache/...),
so re-runs only compile what changed. Exits non-zero on any problem.
"""
import argparse, concurrent.futures as cf, hashlib, json, os, pathlib, re, subprocess, sys, tempfile, tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
CATEGORIES = {"blas", "stencil", "reduction", "histogram", "scan", "sort-search", "sparse", "image",
              "physics", "statistics", "graph", "string"}
KINDS = {"map", "reduction", "histogram", "stencil", "scan", "sequential"}


def find_pareval():
    """$PAREVAL_DIR, else the first ancestor of the checkout holding shared/benchmarks/pareval."""
    env = os.environ.get("PAREVAL_DIR")
    if env:
        return pathlib.Path(env)
    for parent in ROOT.parents:
        candidate = parent / "shared/benchmarks/pareval"
        if candidate.is_dir():
            return candidate
    return ROOT / "shared/benchmarks/pareval"


PAREVAL = find_pareval()


def nvcc_path():
    env = os.environ.get("NVCC")
    if env:
        return env
    p = ROOT / ".toolchain/cuda/lib/python3.11/site-packages/nvidia/cu13/bin/nvcc"
    return str(p) if p.exists() else "nvcc"


def cache_dir():
    base = pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache"))
    d = base / "cuda-offload-graphdata"
    d.mkdir(parents=True, exist_ok=True)
    return d


def compile_cached(kind, text):
    key = hashlib.sha256((kind + "\0" + text).encode()).hexdigest()
    stamp = cache_dir() / key
    if stamp.exists():
        return None
    suffix = ".cu" if kind == "nvcc" else ".cpp"
    with tempfile.TemporaryDirectory() as tmp:
        src = pathlib.Path(tmp) / ("unit" + suffix)
        src.write_text(text)
        if kind == "nvcc":
            cmd = [nvcc_path(), "-arch=sm_90", "-std=c++17", "-c", str(src), "-o", os.devnull]
        else:
            cmd = ["g++", "-std=c++17", "-Wall", "-fsyntax-only", str(src)]
        r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return (r.stdout + r.stderr).strip()[-3000:]
    stamp.touch()
    return None


def normalize(code):
    code = re.sub(r"//[^\n]*|/\*.*?\*/", " ", code, flags=re.S)
    return re.sub(r"\s+", "", code)


def function_bodies(code):
    """Bodies of top-level functions in a C++ snippet, normalized (whitespace and comments removed)."""
    code = re.sub(r"//[^\n]*|/\*.*?\*/", " ", code, flags=re.S)
    bodies, depth, start = [], 0, None
    for i, ch in enumerate(code):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and start is not None:
                bodies.append(re.sub(r"\s+", "", code[start + 1:i]))
    return [b for b in bodies if len(b) > 20]


def pareval_problems():
    f = PAREVAL / "prompts/generation-prompts.json"
    if not f.exists():
        return None
    names, bodies = set(), set()
    for p in json.loads(f.read_text()):
        name = re.sub(r"^\d+_", "", p["name"]).lower().replace("-", "_")
        names.add(name)
        kind = p.get("problem_type", "").lower() + "_"
        if name.startswith(kind):
            names.add(name[len(kind):])
    outputs = PAREVAL / "results/correct-outputs.json"
    if outputs.exists():
        for v in json.loads(outputs.read_text()):
            if v.get("parallelism_model") == "serial" and v.get("correct_output"):
                # ParEval stores the body after the prompt's opening brace, closing brace included.
                body = normalize(v["correct_output"])
                bodies.add(body[:-1] if body.endswith("}") else body)
    return names, bodies


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("tasks", nargs="*")
    args = ap.parse_args()
    only = set(args.tasks)
    problems, jobs = [], []

    tasks = {}
    for tf in sorted((ROOT / "graph-data/tasks").glob("*/task.toml")):
        try:
            t = tomllib.loads(tf.read_text())
        except tomllib.TOMLDecodeError as e:
            problems.append(f"{tf}: invalid TOML: {e}")
            continue
        tid = t.get("id")
        if tid != tf.parent.name:
            problems.append(f"{tf}: id {tid!r} differs from its directory")
            continue
        tasks[tid] = t
        reg = t.get("region", {})
        if t.get("category") not in CATEGORIES:
            problems.append(f"{tid}: unknown category {t.get('category')!r}")
        if reg.get("kind") not in KINDS:
            problems.append(f"{tid}: unknown region kind {reg.get('kind')!r}")
        if reg.get("name") != tid:
            problems.append(f"{tid}: region.name {reg.get('name')!r} differs from the id")
        sizes = [p["name"] for p in reg.get("params", []) if p.get("is_size")]
        tests = t.get("sizes", {}).get("test", [])
        if len(tests) < 3:
            problems.append(f"{tid}: fewer than 3 test sizes")
        for table in tests + [t.get("sizes", {}).get("timed", {})]:
            if sorted(table) != sorted(sizes):
                problems.append(f"{tid}: size table {table} does not name exactly {sizes}")
        if not any(any(v % 32 for v in table.values()) for table in tests):
            problems.append(f"{tid}: no test size is a non-multiple of 32")
        for p in reg.get("params", []):
            if p.get("is_array") and not p.get("extent"):
                problems.append(f"{tid}: array {p['name']} has no extent")
        if not only or tid in only:
            serial = "\n".join(reg.get("includes", [])) + "\n" + reg.get("source", "")
            jobs.append((f"{tid}: serial", "gxx", serial))

    pe = pareval_problems()
    if pe is None:
        print("SKIP: ParEval prompts not found; overlap check not run", file=sys.stderr)
    else:
        names, bodies = pe
        for tid, t in tasks.items():
            id_tokens = set(tid.lower().split("_"))
            for name in names:
                # every word of a ParEval name inside the id ("xor" in "xor_cipher") counts as its name
                if set(name.split("_")) <= id_tokens:
                    problems.append(f"{tid}: id carries the ParEval problem name {name!r}")
            for b in function_bodies(t["region"].get("source", "")):
                if b in bodies:
                    problems.append(f"{tid}: serial body equals a ParEval reference body")

    seen = set()
    for jf in sorted((ROOT / "graph-data/trajectories").glob("*.jsonl")):
        for ln, line in enumerate(jf.read_text().splitlines(), 1):
            if not line.strip():
                continue
            where = f"{jf.name}:{ln}"
            try:
                o = json.loads(line)
            except json.JSONDecodeError as e:
                problems.append(f"{where}: invalid JSON: {e}")
                continue
            tid = o.get("task")
            if tid not in tasks:
                problems.append(f"{where}: task {tid!r} has no graph-data/tasks entry")
                continue
            if tid in seen:
                problems.append(f"{where}: second trajectory for {tid}")
            seen.add(tid)
            if tasks[tid]["category"] != jf.stem:
                problems.append(f"{where}: {tid} is in category {tasks[tid]['category']}, not {jf.stem}")
            steps = o.get("steps", [])
            if not 1 <= len(steps) <= 6:
                problems.append(f"{where}: {len(steps)} steps (1-6 expected)")
            for i, s in enumerate(steps, 1):
                for field in ("technique", "reasoning", "detail", "code"):
                    if not s.get(field):
                        problems.append(f"{where}: step {i} lacks {field}")
                code = s.get("code", "")
                if not re.search(rf"\bvoid\s+{re.escape(tid)}_gpu\s*\(", code):
                    problems.append(f"{where}: step {i} does not define void {tid}_gpu(...)")
                for bad in ("cudaMemcpyDeviceToHost", "printf(", "cudaDeviceReset", "cudaMallocManaged", "std::cout"):
                    if bad in code:
                        problems.append(f"{where}: step {i} uses {bad}, which the candidate contract forbids")
                if (not only or tid in only) and code:
                    jobs.append((f"{tid}: step {i}", "nvcc", code))

    with cf.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for (label, _, _), err in zip(jobs, ex.map(lambda j: compile_cached(j[1], j[2]), jobs)):
            if err:
                problems.append(f"{label}: does not compile:\n{err}")

    print(f"{len(tasks)} tasks, {len(seen)} trajectories, {len(jobs)} sources checked", file=sys.stderr)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
