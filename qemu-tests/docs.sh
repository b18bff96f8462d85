#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# `make docs` [OUTDIR]: Documentation/ as HTML in OUTDIR/html (default
# build/docs) with Sphinx, as the kernel's documentation is built: every
# warning an error (-W, with --keep-going to list them all) and every
# reference checked (-n, nitpicky).  Always a fresh build: an incremental
# one would not repeat the warnings of pages that did not change.  Runs
# inside the testbed (python3-sphinx).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || exec "$here/testbed/enter.sh" /src/qemu-tests/docs.sh "$@"
out=${1:-$ORNIC_SRC/build/docs}
rm -rf "$out/html" "$out/doctrees"
mkdir -p "$out"
sphinx-build -b html -W --keep-going -n -q -d "$out/doctrees" "$ORNIC_SRC/Documentation" "$out/html"
say "documentation in ${out#"$ORNIC_SRC"/}/html/index.html"
