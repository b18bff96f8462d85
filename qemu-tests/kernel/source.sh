#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# source.sh: extract Debian's linux-source-7.3 once into the cache (inside
# the testbed) and print the source directory.
set -euo pipefail
# shellcheck source=qemu-tests/testbed/lib.sh
. "$(dirname "$0")/../testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "source.sh runs inside the testbed"
tarball=$(ls /usr/src/linux-source-7.3.tar.*)
srcver=$(dpkg-query -W -f='${Version}' linux-source-7.3)
src=$ORNIC_CACHE/kernel/src-$srcver
if [ ! -f "$src/.ornic-extracted" ]; then
	mkdir -p "$ORNIC_CACHE/kernel"
	exec 8>"$ORNIC_CACHE/kernel/.extract.lock"
	flock 8
	if [ ! -f "$src/.ornic-extracted" ]; then
		rm -rf "$src"
		mkdir -p "$src"
		run_logged "$ORNIC_LOGDIR/kernel-extract.log" "extracting linux-source $srcver" \
			tar -C "$src" --strip-components=1 -xf "$tarball"
		touch "$src/.ornic-extracted"
	fi
fi
echo "$src"
