#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# make-deb.sh [OUTDIR]: build ornic's Debian packages (debian/) inside the
# testbed and check them with lintian.  The checkout's files (tracked and
# untracked, minus what git ignores) are copied to /tmp/ornic-deb/src (the
# testbed's private /tmp), since dpkg-buildpackage writes into debian/ and
# next to the tree; the packages and logs land in OUTDIR (default
# build/deb).  The tree's path is the same for every run and every OUTDIR,
# so ccache ($ORNIC_CACHE/ccache) finds the model's objects of any earlier
# run; the provider's configured rdma-core copy (OUTDIR/provider) stays.
# Exit status: 0 built and lintian-clean, 1 build failed, 2 lintian found
# errors or warnings (OUTDIR/lintian.log).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "make-deb.sh runs inside the testbed (make deb)"

out=${1:-$ORNIC_SRC/build/deb}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=/tmp/ornic-deb
tree=$work/src

say "copying the checkout to $tree"
rm -rf "$work"
mkdir -p "$tree"
if git -C "$ORNIC_SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# Files deleted but not yet committed are skipped with a warning.
	git -C "$ORNIC_SRC" ls-files -z --cached --others --exclude-standard |
		tar -C "$ORNIC_SRC" --null -T - --ignore-failed-read -cf - 2>/dev/null |
		tar -C "$tree" -xf -
else
	tar -C "$ORNIC_SRC" --exclude=./build -cf - . | tar -C "$tree" -xf -
fi

rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
say "dpkg-buildpackage (log: $out/build.log)"
if ! (cd "$tree" && CCACHE_DIR=$ORNIC_CACHE/ccache ORNIC_PROVIDER_BUILD=$out/provider \
	nice dpkg-buildpackage -b -us -uc -j"${JOBS:-$(nproc)}") >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	die "dpkg-buildpackage failed; see $out/build.log"
fi
mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/
for deb in "$out"/*.deb; do
	say "built ${deb#"$out"/}"
done

say "lintian (log: $out/lintian.log)"
changes=$(echo "$out"/*.changes)
if ! nice lintian --fail-on error,warning --info --tag-display-limit 0 \
	"$changes" >"$out/lintian.log" 2>&1; then
	grep -E '^[EW]: ' "$out/lintian.log" >&2 || tail -n 5 "$out/lintian.log" >&2
	say "error: lintian found errors or warnings; see $out/lintian.log"
	exit 2
fi
say "packages in $out, lintian clean (errors and warnings)"
