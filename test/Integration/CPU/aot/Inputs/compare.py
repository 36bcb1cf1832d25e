#!/usr/bin/env python3
"""Compares two outputs of an `arm_main.py` program line by line: the same
labels, and finite numbers equal within a relative tolerance (the order
of sums differs between the kernels of two targets). Prints how many
values agree; exits 1 on the first that does not, or is not finite.

Usage: compare.py A.txt B.txt [TOLERANCE]
"""
import math
import sys

a = open(sys.argv[1]).read().split()
b = open(sys.argv[2]).read().split()
tol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-3
if len(a) != len(b):
    sys.exit(f"{len(a)} values against {len(b)}")
n = 0
for i, (x, y) in enumerate(zip(a, b)):
    try:
        fx, fy = float(x), float(y)
    except ValueError:
        if x != y:
            sys.exit(f"line {i + 1}: {x!r} against {y!r}")
        continue
    if not (math.isfinite(fx) and math.isfinite(fy)):
        sys.exit(f"line {i + 1}: {fx} and {fy} (not finite)")
    if abs(fx - fy) > tol * max(1.0, abs(fx), abs(fy)):
        sys.exit(f"line {i + 1}: {fx} against {fy}")
    n += 1
print(f"{n} values agree")
