#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""guide-recipe.py GUIDE NAME [FROM=TO ...]: print one recipe of the user guide.

A recipe is the first literal block (a ``code-block`` directive or a ``::``
paragraph) after the comment ``.. ornic-recipe: NAME``.  Its lines are
printed without the block's indentation, with each FROM replaced by TO
(the test's paths for the guide's /run/ornic, for example).  Exit status 1
and a message when the recipe is not there, so a renamed or deleted recipe
fails the test that runs it.
"""
import re
import sys


def recipe(lines, name):
    marker = re.compile(r"^\.\. ornic-recipe: (\S+)\s*$")
    start = next((i for i, line in enumerate(lines)
                  if (m := marker.match(line)) and m.group(1) == name), None)
    if start is None:
        return None
    i = start + 1
    # The directive (or the paragraph ending in "::") that opens the block.
    while i < len(lines) and not (lines[i].startswith(".. code-block::")
                                  or lines[i].rstrip().endswith("::")):
        i += 1
    i += 1
    # Directive options and blank lines before the body.
    while i < len(lines) and (not lines[i].strip()
                              or re.match(r"^\s+:\w[\w-]*:", lines[i])):
        i += 1
    body = []
    while i < len(lines) and (not lines[i].strip() or lines[i][0] in " \t"):
        body.append(lines[i])
        i += 1
    while body and not body[-1].strip():
        body.pop()
    if not body:
        return None
    indent = min(len(line) - len(line.lstrip()) for line in body if line.strip())
    return [line[indent:] for line in body]


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    with open(argv[1], encoding="utf-8") as f:
        lines = f.read().splitlines()
    body = recipe(lines, argv[2])
    if body is None:
        print(f"guide-recipe.py: no recipe '{argv[2]}' in {argv[1]}", file=sys.stderr)
        return 1
    text = "\n".join(body) + "\n"
    for pair in argv[3:]:
        old, _, new = pair.partition("=")
        text = text.replace(old, new)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
