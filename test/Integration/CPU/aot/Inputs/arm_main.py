#!/usr/bin/env python3
"""Writes a C program that calls the functions of a module at the
assignments stage through their C interfaces (`_mlir_ciface_NAME`): every
f32 buffer argument filled from one deterministic generator (the same
numbers on every machine), then, in order:
  - each function without params (`@NAME(data) -> result`), once: its
    result printed;
  - for a function `F` with a train step: `@F_init(params)`, then
    `@F_train_step(data, params, learning rate)` three times on the same
    data at learning rate 1e-4: each loss printed, then every param.
Values are printed as `%.9e`, one per line, for `compare.py`.

Usage: arm_main.py MODULE.mlir > main.c
"""
import re
import sys

text = open(sys.argv[1]).read()
funcs = {}
for m in re.finditer(r"func\.func @(\w+)\(([^)]*)\)(?: -> (memref<[^>]*>))?", text):
    name, args, result = m.group(1), m.group(2), m.group(3)
    parsed = []
    for a in re.finditer(r"%\w+: (memref<([^>]*)>)( \{[^}]*\})?", args):
        dims = [int(d) for d in a.group(2).split("x")[:-1]]
        attrs = a.group(3) or ""
        role = "param" if "ocannl.param" in attrs else "lr" if "learning_rate" in attrs else "data"
        parsed.append((dims, role))
    rdims = None if result is None else [int(d) for d in result[7:-1].split("x")[:-1]]
    funcs[name] = (parsed, rdims)

ranks = sorted({len(d) for f in funcs.values() for d, _ in f[0]} | {len(f[1]) for f in funcs.values() if f[1] is not None})
out = ["#include <stdint.h>", "#include <stdio.h>", "#include <stdlib.h>", ""]
for r in ranks:
    extra = f" int64_t sizes[{r}]; int64_t strides[{r}];" if r else ""
    out.append(f"typedef struct {{ float *allocated; float *aligned; int64_t offset;{extra} }} D{r};")
out += ["", "static uint64_t state = 0x9e3779b97f4a7c15ULL;",
        "static float next(void) {",
        "  state = state * 6364136223846793005ULL + 1442695040888963407ULL;",
        "  return (float)((state >> 40) & 0xffffff) / 16777216.0f * 2.0f - 1.0f;",
        "}", ""]
out.append("static D0 d0(float *p) { D0 d = {p, p, 0}; return d; }")
for r in [r for r in ranks if r]:
    out.append(f"static D{r} d{r}(float *p, const int64_t *dims) {{")
    out.append(f"  D{r} d; d.allocated = p; d.aligned = p; d.offset = 0;")
    out.append(f"  int64_t s = 1; for (int i = {r} - 1; i >= 0; --i) {{ d.sizes[i] = dims[i]; d.strides[i] = s; s *= dims[i]; }}")
    out.append("  return d;\n}")
def called(name):
    args = funcs[name][0]
    plain = not (name.endswith("_init") or name.endswith("_train_step") or any(r != "data" for _, r in args))
    return plain or name.endswith("_train_step") or (name.endswith("_init") and name[:-5] + "_train_step" in funcs)


for name, (args, rdims) in funcs.items():
    if not called(name):
        continue
    params = [f"D{len(d)} *" for d, _ in args]
    if rdims is not None:
        params = [f"D{len(rdims)} *"] + params
    out.append(f"void _mlir_ciface_{name}({', '.join(params) or 'void'});")
out += ["", "static float *buffer(int64_t n, int fill) {",
        "  float *p = malloc(sizeof(float) * (n ? n : 1));",
        "  for (int64_t i = 0; i < n; ++i) p[i] = fill ? next() : 0.0f;",
        "  return p;", "}",
        "static void show(const char *what, const float *p, int64_t n) {",
        "  printf(\"%s\\n\", what);",
        "  for (int64_t i = 0; i < n; ++i) printf(\"%.9e\\n\", p[i]);", "}", "",
        "int main(void) {"]


def size(d):
    n = 1
    for x in d:
        n *= x
    return n


def desc(var, d):
    if not d:
        return f"d0({var})"
    dims = ", ".join(str(x) for x in d)
    return f"d{len(d)}({var}, (const int64_t[]){{{dims}}})"


k = 0
for name, (args, rdims) in funcs.items():
    if name.endswith("_init") or name.endswith("_train_step") or any(r != "data" for _, r in args):
        continue
    decl = []
    for i, (d, _) in enumerate(args):
        out.append(f"  float *a{k}_{i} = buffer({size(d)}, 1); D{len(d)} v{k}_{i} = {desc(f'a{k}_{i}', d)};")
        decl.append(f"&v{k}_{i}")
    out.append(f"  D{len(rdims)} r{k}; _mlir_ciface_{name}(&r{k}, {', '.join(decl)});")
    out.append(f"  show(\"{name}\", r{k}.aligned + r{k}.offset, {size(rdims)});")
    k += 1
for name in funcs:
    if not name.endswith("_train_step"):
        continue
    base = name[: -len("_train_step")]
    args, rdims = funcs[name]
    init_args, _ = funcs[base + "_init"]
    vars_ = []
    for i, (d, role) in enumerate(args):
        fill = 1 if role == "data" else 0
        out.append(f"  float *t{i} = buffer({size(d)}, {fill}); D{len(d)} u{i} = {desc(f't{i}', d)};")
        if role == "lr":
            out.append(f"  t{i}[0] = 1e-4f;")
        vars_.append((f"&u{i}", d, role, f"t{i}"))
    params = [v for v in vars_ if v[2] == "param"]
    assert len(params) == len(init_args), (name, len(params), len(init_args))
    out.append(f"  _mlir_ciface_{base}_init({', '.join(v[0] for v in params)});")
    out.append("  for (int step = 0; step < 3; ++step) {")
    out.append(f"    D{len(rdims)} loss; _mlir_ciface_{name}(&loss, {', '.join(v[0] for v in vars_)});")
    out.append(f"    show(\"{name} loss\", loss.aligned + loss.offset, {size(rdims)});")
    out.append("  }")
    for v in params:
        out.append(f"  show(\"param\", {v[3]}, {size(v[1])});")
out += ["  return 0;", "}"]
print("\n".join(out))
