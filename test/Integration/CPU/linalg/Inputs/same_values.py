"""Compares the numbers two runs printed: mlir-runner's printMemrefF32
output (after `data =`) and ocannl-run's (after its `resultN:` line), cell
by cell, within a relative tolerance (both print about 6 significant
digits). Exits 1 naming the first cell that differs."""
import re
import sys

NUMBER = re.compile(r"-?(?:inf|nan|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)")


def numbers(text, after):
    cells = []
    for block in text.split(after)[1:]:
        # The values of one result: up to the next header line.
        body = re.split(r"\n(?:result\d+:|Unranked Memref)", block)[0]
        if after == "data =":
            pass
        else:
            body = body.split("\n", 1)[1] if "\n" in body else ""
        cells += [float(x) for x in NUMBER.findall(body)]
    return cells


def main():
    runner, ocannl, tol = sys.argv[1], sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 1e-5
    a = numbers(open(runner).read(), "data =")
    b = numbers(open(ocannl).read(), "dtype")
    if not a or len(a) != len(b):
        sys.exit(f"cell counts differ: mlir-runner {len(a)}, ocannl-run {len(b)}")
    for i, (x, y) in enumerate(zip(a, b)):
        if abs(x - y) > tol * max(abs(x), abs(y), 1.0):
            sys.exit(f"cell {i}: mlir-runner {x}, ocannl-run {y}")
    print(f"{len(a)} cells agree")


main()
