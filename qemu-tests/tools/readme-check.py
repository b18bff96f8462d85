#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Check that README.md stays a front page that tells the truth.

  readme-check.py SRC_DIR

Checks README.md in SRC_DIR against the tree:

* at most MAX_LINES lines;
* it shows `make demo` and `make check`, and every `make TARGET` in its code
  (fenced blocks and `spans`) is a target of the Makefile that `make help`
  lists;
* every relative link points at a file or directory of the tree;
* no dated runs (YYYY-MM-DD), no commit hashes (7 to 40 hex digits mixing
  letters and digits), no numbered sessions: measurements and history live
  in Documentation/ as current pages.

Prints one line per problem and a summary; exits 1 on any problem.
"""

import os
import re
import sys

MAX_LINES = 250
REQUIRED_TARGETS = ("demo", "check")


def makefile_targets(makefile):
    """The targets the Makefile defines, and those its help lists."""
    defined, helped = set(), set()
    for line in makefile.splitlines():
        m = re.match(r"^([a-z][a-z0-9-]*)\s*:(?!=)", line)
        if m:
            defined.add(m.group(1))
        m = re.match(r'^\t@echo "make ([a-z][a-z0-9-]*)\s', line)
        if m:
            helped.add(m.group(1))
    helped.add("help")  # the list itself
    return defined, helped


def check(src):
    problems = []
    with open(os.path.join(src, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    with open(os.path.join(src, "Makefile"), encoding="utf-8") as f:
        defined, helped = makefile_targets(f.read())
    lines = readme.splitlines()

    if len(lines) > MAX_LINES:
        problems.append(f"{len(lines)} lines, more than {MAX_LINES}")

    # Commands are code: fenced blocks and `spans` (prose may say "make it").
    code = re.findall(r"^```[^\n]*\n(.*?)^```", readme, re.MULTILINE | re.DOTALL)
    code += re.findall(r"`([^`\n]+)`", re.sub(r"^```.*?^```", "", readme,
                                              flags=re.MULTILINE | re.DOTALL))
    named = set(re.findall(r"\bmake ([a-z][a-z0-9-]*)", "\n".join(code)))
    for target in REQUIRED_TARGETS:
        if target not in named:
            problems.append(f"does not show `make {target}`")
    for target in sorted(named):
        if target not in defined:
            problems.append(f"`make {target}`: no such Makefile target")
        elif target not in helped:
            problems.append(f"`make {target}`: not listed by `make help`")

    for n, line in enumerate(lines, 1):
        for link in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"^[a-z]+:", link) or link.startswith("#"):
                continue
            path = link.split("#", 1)[0]
            if not os.path.exists(os.path.join(src, path)):
                problems.append(f"line {n}: link to {path}, which does not exist")
        for date in re.findall(r"\b(?:19|20)\d\d-[01]\d-[0-3]\d\b", line):
            problems.append(f"line {n}: a dated run ({date})")
        for word in re.findall(r"\b[0-9a-f]{7,40}\b", line):
            if re.search(r"[0-9]", word) and re.search(r"[a-f]", word):
                problems.append(f"line {n}: what looks like a commit hash ({word})")
        if re.search(r"\bsession \d+", line, re.IGNORECASE):
            problems.append(f"line {n}: a numbered session")
    return len(lines), sorted(named), problems


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    n, named, problems = check(sys.argv[1])
    for p in problems:
        print(f"README.md: {p}")
    if problems:
        print(f"README.md: {len(problems)} problems")
        return 1
    print(f"README.md: {n} lines; make {', make '.join(named)}: Makefile targets in `make help`; "
          "links resolve; no dates, commit hashes or sessions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
