#!/usr/bin/env python3
"""Times the `ocannl-infer-shapes` pass end to end inside `ocannl-opt`.

Writes the generated graphs of `core/shape/src/gen.rs` (deep MLPs and
transformer-like blocks, about 1,000, 10,000 and 100,000 ops) as
`ocannl_shape` functions, runs
`ocannl-opt --ocannl-infer-shapes --mlir-timing` on each, and prints the
pass's own time next to parsing (which includes the dialects' verifier) and
the whole run. Needs a
release build:
`cargo build --release -p ocannl-opt`.

    python3 benches/pass_timing.py [--sizes 1000,10000] [--runs 5]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# OCANNL_TOOL_DIR times another build's tools (e.g. to compare two commits).
OPT = os.path.join(
    os.environ.get("OCANNL_TOOL_DIR") or os.path.join(ROOT, "target", "release"), "ocannl-opt"
)


def ty(shape):
    return f'!ocannl_shape.tensor<"{shape}", f32>'


class Func:
    """Builds one function: values are names with their declared shapes."""

    def __init__(self, name, args):
        self.name = name
        self.args = args  # [(name, shape)]
        self.lines = []
        self.shapes = dict(args)
        self.n = 0

    def fresh(self):
        self.n += 1
        return f"%v{self.n}"

    def param(self, name, shape):
        v = self.fresh()
        self.shapes[v] = shape
        self.lines.append(
            f'{v} = "ocannl_shape.param"() {{name = "{name}"}} : () -> {ty(shape)}'
        )
        return v

    def op(self, opname, operands, attrs=""):
        v = self.fresh()
        self.shapes[v] = "?"
        ins = ", ".join(ty(self.shapes[o]) for o in operands)
        attrs = f" {{{attrs}}}" if attrs else ""
        self.lines.append(
            f'{v} = "ocannl_shape.{opname}"({", ".join(operands)}){attrs} : ({ins}) -> {ty("?")}'
        )
        return v

    def unary(self, x, op="relu"):
        return self.op("pointwise_unary", [x], f'op = "{op}"')

    def binary(self, a, b, op="add"):
        return self.op("pointwise_binary", [a, b], f'op = "{op}"')

    def einsum(self, spec, operands):
        return self.op("einsum", operands, f'spec = "{spec}"')

    def text(self, result):
        args = ", ".join(f"{n}: {ty(s)}" for n, s in self.args)
        body = "\n".join("  " + l for l in self.lines)
        return (
            f"func.func @{self.name}({args}) -> {ty('?')} {{\n{body}\n"
            f"  return {result} : {ty('?')}\n}}\n"
        )

    def ops(self):
        return len(self.lines) + len(self.args)


def mlp(layers, width=64):
    f = Func("mlp", [("%x", "64|32")])
    h = "%x"
    for i in range(layers):
        w = f.param(f"w{i}", "?")
        b = f.param(f"b{i}", str(width))
        m = f.op("compose", [w, h])
        s = f.binary(b, m)
        h = f.unary(s)
    return f, h


def transformer(blocks):
    f = Func("transformer", [("%x", "8|16,64")])
    x = "%x"
    for i in range(blocks):
        def proj(name, x):
            w = f.param(f"{name}{i}", "64->64")
            return f.einsum("...|t,d; e->d => ...|t,e", [x, w])

        q, k, v = proj("wq", x), proj("wk", x), proj("wv", x)
        scores = f.einsum("...|s,d; ...|t,d => ...|s,t", [q, k])
        scale = f.param(f"scale{i}", "1")
        scaled = f.binary(scores, scale, "mul")
        e = f.unary(scaled, "exp")
        z = f.einsum("...|s,t => ...|s,0", [e])
        p = f.binary(e, z, "div")
        mixed = f.einsum("...|s,t; ...|t,d => ...|s,d", [p, v])
        o = proj("wo", mixed)
        r = f.binary(x, o)
        mean = f.einsum("...|t,d => ...|t,0", [r])
        c = f.binary(r, mean, "sub")
        g = f.param(f"gamma{i}", "?")
        n = f.binary(c, g, "mul")
        w1 = f.param(f"ff1_{i}", "...->128")
        h1 = f.einsum("...|t,d; d->f => ...|t,f", [n, w1])
        b1 = f.param(f"bf1_{i}", "?")
        h3 = f.unary(f.binary(h1, b1))
        w2 = f.param(f"ff2_{i}", "?")
        h4 = f.einsum("...|t,f; f->d => ...|t,d", [h3, w2])
        x = f.binary(n, h4)
    return f, x


def timing(path):
    """The pass's wall time and the total, in ms, from --mlir-timing."""
    out = subprocess.run(
        [OPT, path, "--ocannl-infer-shapes", "--mlir-timing", "-o", os.devnull],
        check=True,
        capture_output=True,
        text=True,
    ).stderr
    times = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)\s+\(\s*[\d.]+%\)\s+(.*\S)\s*$", line)
        if m:
            times[m.group(2)] = float(m.group(1)) * 1e3
    return (
        times["OcannlInferShapes"],
        times.get("Parser", 0.0),
        times.get("Total", 0.0),
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    if not os.path.exists(OPT):
        sys.exit(f"{OPT} not found: run `cargo build --release -p ocannl-opt` first")
    print(
        f"{'graph':<12} {'ops':>7} {'infer-shapes ms (min / median)':>31}"
        f" {'parse ms':>9} {'total ms':>9}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            for kind, (f, res) in (("mlp", mlp(n // 5)), ("transformer", transformer(n // 25))):
                path = os.path.join(tmp, f"{kind}{n}.mlir")
                with open(path, "w") as fh:
                    fh.write(f.text(res))
                runs = sorted(timing(path) for _ in range(args.runs))
                passes = sorted(r[0] for r in runs)
                med = runs[len(runs) // 2]
                print(
                    f"{kind:<12} {f.ops():>7} {passes[0]:>19.1f} / {passes[len(passes) // 2]:<9.1f}"
                    f" {med[1]:>9.1f} {med[2]:>9.1f}"
                )


if __name__ == "__main__":
    main()
