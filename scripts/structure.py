#!/usr/bin/env python3
"""Checks of the code's structure that the compiler does not make:

- no import cycles between the modules (files) of a crate: module A imports
  module B when A's code names an item of B (`use crate::b::..`,
  `super::b::..`, `b::..` for a child `mod b;`, or a path in an
  expression); declaring a child module (`mod b;`) and re-exporting it
  (`pub use b::X` in the parent) are not imports;
- no `unsafe` block wraps a closure (the closure's body would be unsafe
  code without a reason of its own): an unsafe block holds the unsafe
  operations, each with its `// SAFETY:` comment (clippy checks those);
- one compile path: outside the crates that define passes and backends
  (`passes/`, `backends/`, `dialects/`, `core/`), nothing runs a pipeline,
  calls a backend's compiler or the cache of executables, parses a module
  itself, or registers a backend but `ocannl_compiler::register_backends`
  (the API and the tools compile through `ocannl-compiler`);
- one argument ABI: no crate's code but `dialects/spec`'s spells an
  argument-role attribute (`"ocannl.param"`, ...) as a string: it names the
  constants of `ocannl_dialect_spec::abi`;
- every unit test runs: a crate that turns its library's or binary's tests
  off (`test = false`) has no `#[test]` in its `src/`.

Prints each violation and exits 1 when there is one.

Usage: scripts/structure.py [ROOT]
"""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def crates(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in ("target", ".git", "test")]
        if "Cargo.toml" in filenames and os.path.isdir(os.path.join(dirpath, "src")):
            yield os.path.join(dirpath, "src")


def strip(text):
    """The code without comments and string literals."""
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    return text


def modules(src):
    """Module path (tuple) -> file, for the files of one crate."""
    out = {}
    for dirpath, _, filenames in os.walk(src):
        for f in filenames:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), src)
            parts = rel[:-3].split(os.sep)
            if parts[-1] in ("lib", "main", "mod"):
                parts = parts[:-1]
            if rel.startswith("bin" + os.sep):
                continue
            out[tuple(parts)] = os.path.join(dirpath, f)
    return out


def resolve(path, mods):
    """The longest module prefix of an item path."""
    for k in range(len(path), -1, -1):
        if tuple(path[:k]) in mods:
            return tuple(path[:k])
    return None


def edges(mod, text, mods):
    found = set()
    # `use` trees: expand one level of braces.
    for m in re.finditer(r"\buse\s+([^;]+);", text):
        tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+\w+", "", m.group(1)))
        stack = [("", tree)]
        while stack:
            prefix, t = stack.pop()
            b = t.find("{")
            if b < 0:
                for alt in t.split(","):
                    if alt:
                        yield_path(prefix + alt, mod, mods, found)
                continue
            head, inner = t[:b], t[b + 1 : t.rfind("}")]
            depth, start, items = 0, 0, []
            for i, c in enumerate(inner):
                if c == "{":
                    depth += 1
                elif c == "}":
                    depth -= 1
                elif c == "," and depth == 0:
                    items.append(inner[start:i])
                    start = i + 1
            items.append(inner[start:])
            for it in items:
                if it:
                    stack.append((prefix + head, it))
    for m in re.finditer(r"\b((?:crate|super|self)(?:::\w+)+)", text):
        yield_path(m.group(1), mod, mods, found)
    return found


def yield_path(p, mod, mods, found):
    parts = [x for x in p.split("::") if x]
    if not parts:
        return
    if parts[0] == "crate":
        base, rest = [], parts[1:]
    elif parts[0] in ("super", "self"):
        base = list(mod)
        rest = parts
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                base = base[:-1]
            rest = rest[1:]
    else:
        # A child module named directly.
        if tuple(list(mod) + [parts[0]]) in mods:
            base, rest = list(mod), parts
        else:
            return
    target = resolve(base + rest, mods)
    if target is not None and target != mod:
        found.add(target)


def cycles(graph):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def unsafe_closures(root):
    """`unsafe { .. }` blocks whose body holds a closure: (file, line)."""
    out = []
    for src in crates(root):
        for dirpath, _, filenames in os.walk(os.path.dirname(src)):
            if "target" in dirpath.split(os.sep):
                continue
            for f in filenames:
                if not f.endswith(".rs"):
                    continue
                path = os.path.join(dirpath, f)
                text = strip(open(path, encoding="utf-8").read())
                for m in re.finditer(r"\bunsafe\s*\{", text):
                    i, depth = m.end(), 1
                    while depth and i < len(text):
                        depth += {"{": 1, "}": -1}.get(text[i], 0)
                        i += 1
                    body = text[m.end() : i - 1]
                    if re.search(r"(?<![|])\|[\w\s,:&()]*\|\s*[\w{(]|\|\|\s*[\w{(]", body):
                        out.append((os.path.relpath(path, root), text[: m.start()].count("\n") + 1))
    return out


# What only `ocannl-compiler` (and the passes and backends below it) may do.
COMPILE_PATH = [
    (r"\brun_pipeline\s*\(", "runs a pipeline"),
    (r"\bcompile_cached\s*\(", "calls the cache of executables"),
    (r"\.compile\s*\(\s*&?\s*(?:self\.)?_?context\b", "calls a backend's compiler"),
    (r"\.artifact\s*\(\s*&?\s*(?:self\.)?_?context\b", "calls a backend's artifact writer"),
    (r"\bModule::parse\s*\(|\bparse_module\s*\(", "parses a module"),
    (r"\bocannl_cpu::install\s*\(|\bocannl_gpu::register\s*\(", "registers a backend"),
]


def compile_path(root):
    """Uses of the compile path's steps in the API's and tools' own code
    (not their tests): (file, line, what)."""
    out = []
    for top in ("api", "tools"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = [d for d in dirnames if d not in ("target", "tests", "examples", "benches")]
            for f in filenames:
                if not f.endswith(".rs"):
                    continue
                path = os.path.join(dirpath, f)
                text = strip(open(path, encoding="utf-8").read())
                for pattern, what in COMPILE_PATH:
                    for m in re.finditer(pattern, text):
                        out.append((os.path.relpath(path, root), text[: m.start()].count("\n") + 1, what))
    return out


# The argument-role attributes: the quoted names in dialects/spec/src/abi.rs.
def abi_attributes(root):
    text = open(os.path.join(root, "dialects", "spec", "src", "abi.rs"), encoding="utf-8").read()
    return sorted(set(re.findall(r'pub const \w+: &str = "(ocannl\.\w+)";', text)))


def abi_spellings(root):
    """String literals naming an argument-role attribute outside the table:
    (file, line, attribute)."""
    names = abi_attributes(root)
    out = []
    for src in crates(root):
        crate = os.path.dirname(src)
        for dirpath, dirnames, filenames in os.walk(crate):
            dirnames[:] = [d for d in dirnames if d != "target"]
            for f in filenames:
                path = os.path.join(dirpath, f)
                if not f.endswith(".rs") or path == os.path.join(root, "dialects", "spec", "src", "abi.rs"):
                    continue
                text = open(path, encoding="utf-8").read()
                code = re.sub(r"//[^\n]*", "", text)
                for name in names:
                    for m in re.finditer(re.escape(f'"{name}"'), code):
                        out.append((os.path.relpath(path, root), code[: m.start()].count("\n") + 1, name))
    return out


def skipped_tests(root):
    """Crates that turn their tests off but have some in src/: (Cargo.toml)."""
    out = []
    for src in crates(root):
        manifest = os.path.join(os.path.dirname(src), "Cargo.toml")
        if not re.search(r"^test\s*=\s*false", open(manifest, encoding="utf-8").read(), re.M):
            continue
        for dirpath, _, filenames in os.walk(src):
            for f in filenames:
                if f.endswith(".rs") and re.search(r"#\[(?:cfg\()?test\b", strip(open(os.path.join(dirpath, f), encoding="utf-8").read())):
                    out.append(os.path.relpath(manifest, root))
    return sorted(set(out))

# The library crates whose public functions return typed errors, never
# `Result<_, String>`. The list is to cover every library crate; the
# passes and the backends' compile-time modules still return strings.
TYPED_ERRORS = [
    "core/ops", "core/shape", "core/assign", "core/simplify", "core/runtime", "core/data",
    "dialects/spec", "dialects/support", "dialects/shape", "dialects/assign", "backends/collective", "backends/collective/mpi",
    "backends/gpu/plan", "backends/gpu/runtime", "backends/compiler",
    "passes", "backends/cpu", "backends/cpu/plan", "backends/gpu", "api",
]


def strip_keeping_lines(text):
    """`strip`, each comment and literal replaced by its newlines only (so
    that line numbers stay those of the file)."""
    keep = lambda m: "\n" * m.group(0).count("\n") if m.group(0).startswith("/") else '""' + "\n" * m.group(0).count("\n")
    text = re.sub(r"//[^\n]*", keep, text)
    text = re.sub(r"/\*.*?\*/", keep, text, flags=re.S)
    text = re.sub(r'r#*"(?:.|\n)*?"#*', keep, text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', keep, text)
    return text


def string_errors(root):
    """`pub fn`s and trait methods of TYPED_ERRORS crates (outside their
    tests) whose result is `Result<_, String>`."""
    out = []
    for crate in TYPED_ERRORS:
        src = os.path.join(root, crate, "src")
        for dirpath, _, filenames in os.walk(src):
            for f in filenames:
                if not f.endswith(".rs"):
                    continue
                path = os.path.join(dirpath, f)
                text = strip_keeping_lines(open(path, encoding="utf-8").read())
                # Unit tests are not part of the crate's interface.
                cut = re.search(r"#\[cfg\(test\)\]", text)
                if cut:
                    text = text[:cut.start()]
                sigs = re.finditer(r"\bpub\s+fn\b[^{;]*|^\s*fn\b[^{;]*;", text, re.M)
                for m in sigs:
                    if re.search(r"->\s*Result<.*,\s*String\s*>\s*$", m.group(0).strip().rstrip(";"), re.S):
                        line = text.count("\n", 0, m.start()) + 1
                        out.append((os.path.relpath(path, root), line))
    return out


def main():
    bad = 0
    for path, line, name in sorted(set(abi_spellings(ROOT))):
        bad += 1
        print(f"{path}:{line}: spells the argument-role attribute {name}: use ocannl_dialect_spec::abi's constant")
    for path, line in sorted(set(string_errors(ROOT))):
        bad += 1
        print(f"{path}:{line}: a public function returns Result<_, String>: return the crate's typed error")
    for manifest in skipped_tests(ROOT):
        bad += 1
        print(f"{manifest}: test = false, but its src/ has unit tests that would never run")
    for path, line, what in sorted(set(compile_path(ROOT))):
        bad += 1
        print(f"{path}:{line}: {what}: only ocannl-compiler does (the one compile path)")
    for path, line in sorted(set(unsafe_closures(ROOT))):
        bad += 1
        print(f"{path}:{line}: an unsafe block wraps a closure: keep only the unsafe operations in it")
    for src in sorted(crates(ROOT)):
        mods = modules(src)
        graph = {}
        for mod, f in mods.items():
            text = strip(open(f, encoding="utf-8").read())
            # Re-exports of children by their parent are not imports.
            text = re.sub(r"\bpub(?:\([^)]*\))?\s+use\s+(?:self::)?\w+::[^;]+;", "", text)
            graph[mod] = edges(mod, text, mods)
        for comp in cycles(graph):
            bad += 1
            names = sorted("::".join(m) or "(crate root)" for m in comp)
            print(f"{os.path.relpath(src, ROOT)}: modules import each other: {', '.join(names)}")
    if bad == 0:
        print("no module cycles, no unsafe block around a closure, one compile path, "
              "one argument ABI, no skipped unit tests, typed errors")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
