# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Sphinx configuration of ornic's documentation (`make docs`: HTML in
# build/docs, every warning an error, every reference checked).
import pathlib
import re

_changelog = pathlib.Path(__file__).resolve().parent.parent / "debian" / "changelog"
_head = _changelog.read_text(encoding="utf-8").splitlines()[0]
_match = re.match(r"^\S+ \(([^)]+)\)", _head)
if not _match:
    raise ValueError(f"no version in {_changelog}: {_head!r}")

project = "ornic"
author = "ornic developers"
copyright = "ornic developers"
version = release = _match.group(1)

root_doc = "index"
exclude_patterns = ["man"]
extensions = []
nitpicky = True
html_theme = "alabaster"
html_title = f"ornic {release}"
html_show_sourcelink = False
html_copy_source = False
