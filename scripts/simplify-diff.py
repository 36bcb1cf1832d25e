#!/usr/bin/env python3
"""Differential check of `ocannl-simplify`: random scalar float programs
(one `scf.for` over two buffers, a random DAG of `arith`/`math` ops with
constants, two results) are run by `ocannl-run` as written and after
`--ocannl-simplify`. Without fast-math the results must be the same bit for
bit (NaNs compared as NaNs); with fast-math the pass must succeed and the
program run.

    scripts/simplify-diff.py --tool-dir target/debug --count 100 --seed 1
"""

import argparse
import os
import random
import struct
import subprocess
import sys
import tempfile

BINARY = ["arith.addf", "arith.subf", "arith.mulf", "arith.divf"]
OTHER_BINARY = ["arith.maximumf", "arith.minimumf", "arith.remf", "math.powf"]
UNARY = ["math.exp", "math.log", "math.sqrt", "math.tanh", "math.sin", "math.cos",
         "math.exp2", "math.log2", "math.rsqrt"]
CONSTANTS = ["0.0", "-0.0", "1.0", "-1.0", "2.0", "0.5", "3.0", "0.1", "-2.5", "4.0"]


def program(seed):
    """A random program and its element type."""
    rng = random.Random(seed)
    t = rng.choice(["f32", "f64"])
    lines = [f"      %x0 = memref.load %a[%i] : memref<64x{t}>",
             f"      %x1 = memref.load %b[%i] : memref<64x{t}>",
             f"      %x2 = arith.mulf %x0, %x1 : {t}"]
    vals = ["%x0", "%x1", "%x2"]
    for k, c in enumerate(rng.sample(CONSTANTS, 5)):
        lines.append(f"      %k{k} = arith.constant {c} : {t}")
        vals.append(f"%k{k}")

    def pick():
        return rng.choice(vals[-6:] if rng.random() < 0.6 else vals)

    for j in range(rng.randint(4, 14)):
        r = rng.random()
        if r < 0.6:
            op = rng.choice(BINARY * 3 + OTHER_BINARY)
            lines.append(f"      %v{j} = {op} {pick()}, {pick()} : {t}")
        elif r < 0.9:
            op = rng.choice(["arith.negf"] * 4 + UNARY)
            lines.append(f"      %v{j} = {op} {pick()} : {t}")
        else:
            lines.append(f"      %v{j} = math.fma {pick()}, {pick()}, {pick()} : {t}")
        vals.append(f"%v{j}")
    r1, r2 = vals[-1], rng.choice(vals[3:-1])
    body = "\n".join(lines)
    m = f"memref<64x{t}>"
    return t, f"""module {{
  memref.global @__ocannl_status : memref<4xi64> = dense<0>
  func.func @f(%a: {m}, %b: {m}) -> ({m}, {m}) {{
    %o1 = memref.alloc() : {m}
    %o2 = memref.alloc() : {m}
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    scf.for %i = %c0 to %c64 step %c1 {{
{body}
      memref.store {r1}, %o1[%i] : {m}
      memref.store {r2}, %o2[%i] : {m}
    }}
    return %o1, %o2 : {m}, {m}
  }}
}}
"""


def run(tool_dir, path, out):
    """The two results' raw bytes (None and the error when the run fails)."""
    r = subprocess.run([os.path.join(tool_dir, "ocannl-run"), path, "--entry", "f",
                        "--arg", "random:5", "--arg", "random:9", "--out-dir", out, "--quiet"],
                       capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr
    return [open(os.path.join(out, f"result{k}.npy"), "rb").read() for k in range(2)], ""


def values(npy, t):
    data = npy[npy.index(b"\n") + 1:]
    size = 4 if t == "f32" else 8
    return struct.unpack("<%d%s" % (len(data) // size, "f" if t == "f32" else "d"), data)


def same(x, y):
    return (x != x and y != y) or struct.pack("<d", x) == struct.pack("<d", y)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tool-dir", required=True)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help="directory for the programs (default: a temporary one)")
    args = ap.parse_args()
    opt = os.path.join(args.tool_dir, "ocannl-opt")
    out = args.out or tempfile.mkdtemp(prefix="ocannl-simplify-diff-")
    os.makedirs(out, exist_ok=True)
    changed, failures = 0, 0
    for n in range(args.count):
        seed = args.seed * 1_000_003 + n
        t, text = program(seed)
        src = os.path.join(out, f"p{seed}.mlir")
        with open(src, "w") as f:
            f.write(text)
        ref, err = run(args.tool_dir, src, os.path.join(out, "ref"))
        if ref is None:
            print(f"seed {seed}: the program as written fails: {err}", file=sys.stderr)
            failures += 1
            continue
        plain = subprocess.run([opt, src], capture_output=True, text=True).stdout
        for mode, flag in [("exact", "--ocannl-simplify"),
                           ("fast", "--ocannl-simplify=fast-math=true")]:
            dst = os.path.join(out, f"p{seed}-{mode}.mlir")
            r = subprocess.run([opt, src, flag, "-o", dst], capture_output=True, text=True)
            if r.returncode:
                print(f"seed {seed}: {flag} fails: {r.stderr}", file=sys.stderr)
                failures += 1
                continue
            if mode == "exact" and open(dst).read() != plain:
                changed += 1
            got, err = run(args.tool_dir, dst, os.path.join(out, mode))
            if got is None:
                print(f"seed {seed}: the {mode} program fails: {err}", file=sys.stderr)
                failures += 1
                continue
            if mode == "exact":
                for k in range(2):
                    pairs = zip(values(ref[k], t), values(got[k], t))
                    bad = next(((x, y) for x, y in pairs if not same(x, y)), None)
                    if bad:
                        print(f"seed {seed}: result {k}: {bad[0]} as written, {bad[1]} "
                              f"simplified ({src})", file=sys.stderr)
                        failures += 1
                        break
    print(f"simplify-diff: seed {args.seed}: {args.count} programs, {changed} simplified "
          f"without fast-math, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
