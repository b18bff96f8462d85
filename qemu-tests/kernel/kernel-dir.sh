#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# kernel-dir.sh [FLAVOUR]: the cache directory of the test kernel for the
# current source version and config fragments (inside the testbed).
set -euo pipefail
kdir=$(cd "$(dirname "$0")" && pwd)
flavour=${1:-base}
srcver=$(dpkg-query -W -f='${Version}' linux-source-7.3)
files=("$kdir/base.config")
[ "$flavour" = base ] || files+=("$kdir/$flavour.config")
hash=$({ echo "$srcver"; cat "${files[@]}"; } | sha256sum | cut -c1-12)
echo "${ORNIC_CACHE:-/cache}/kernel/$flavour-$hash"
