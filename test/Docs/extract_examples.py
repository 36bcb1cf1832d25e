"""Prints the ```mlir examples of one dialect's section of the dialect
reference (docs/dialects.md), separated by `// -----` for --split-input-file.

    python3 extract_examples.py docs/dialects.md ocannl_shape
"""

import sys


def main():
    path, dialect = sys.argv[1], sys.argv[2]
    section, block, blocks = None, None, []
    for line in open(path, encoding="utf-8"):
        if line.startswith("## "):
            section = line[3:].strip().strip("`")
        elif line.startswith("```mlir") and section == dialect:
            block = []
        elif line.startswith("```") and block is not None:
            blocks.append("".join(block))
            block = None
        elif block is not None:
            block.append(line)
    if not blocks:
        sys.exit(f"no examples of {dialect} in {path}")
    print("\n// -----\n\n".join(blocks))


main()
