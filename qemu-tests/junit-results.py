#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""junit-results.py PREFIX FILE: print a ctest JUnit report as one
"PASS|FAIL|SKIP: PREFIXname time" line per test case."""
import sys
import xml.etree.ElementTree as ET

prefix, path = sys.argv[1], sys.argv[2]
try:
    root = ET.parse(path).getroot()
except (OSError, ET.ParseError) as err:
    print(f"FAIL: {prefix}junit unreadable report {path}: {err}")
    sys.exit(0)
for case in root.iter("testcase"):
    name = case.get("name", "?")
    secs = case.get("time", "0")
    if case.find("failure") is not None or case.find("error") is not None:
        status = "FAIL"
    elif case.find("skipped") is not None or case.get("status") in ("notrun", "disabled"):
        status = "SKIP"
    else:
        status = "PASS"
    print(f"{status}: {prefix}{name} {float(secs):.2f}s")
