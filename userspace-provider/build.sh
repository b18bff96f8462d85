#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# build.sh OUTDIR: build the ornic rdma-core provider inside the testbed and
# put libornic-rdmav34.so and ornic.driver into OUTDIR.
#
# rdma-core's source of exactly the installed libibverbs version is fetched
# once (apt-get source --download-only) and unpacked once under
# $ORNIC_CACHE/rdma-core/<version>/.  That pristine tree is never modified:
# a build copy under OUTDIR (so checkouts building side by side never share
# one) gets our provider in providers/ornic (refreshed on every run), the ABI
# header in kernel-headers/rdma/ and one add_subdirectory line, and is
# configured once; later runs only run ninja.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
out=${1:?usage: build.sh OUTDIR}
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || { echo "build.sh runs inside the testbed (qemu-tests/testbed/enter.sh)" >&2; exit 1; }

ver=$(dpkg-query -W -f='${Version}' libibverbs-dev)
upver=${ver#*:}
upver=${upver%-*}
cache=${ORNIC_CACHE:?}/rdma-core/$ver
pristine=$cache/rdma-core-$upver
mkdir -p "$cache" "$out"
out=$(cd "$out" && pwd)
copy=$out/rdma-core-$upver

log() { printf '[build.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# --- fetch and unpack once ---------------------------------------------------
if [ ! -f "$cache/.unpacked" ]; then
	tarball=$(find "$cache" -maxdepth 1 -name "rdma-core_$upver.orig.tar.*" ! -name '*.asc' | head -n 1)
	if [ -z "$tarball" ]; then
		log "fetching rdma-core $ver source"
		# The .dsc may answer 404 while the tarballs download: look for
		# the orig tarball rather than at apt-get's status, and update
		# the Sources index only when the tarball did not come.
		(cd "$cache" && apt-get source --download-only "rdma-core=$ver") >"$cache/fetch.log" 2>&1 || true
		if ! find "$cache" -maxdepth 1 -name "rdma-core_$upver.orig.tar.*" | grep -q .; then
			log "no tarball; updating the Sources index once"
			apt-get update >>"$cache/fetch.log" 2>&1 || true
			(cd "$cache" && apt-get source --download-only "rdma-core=$ver") >>"$cache/fetch.log" 2>&1 || true
		fi
		tarball=$(find "$cache" -maxdepth 1 -name "rdma-core_$upver.orig.tar.*" ! -name '*.asc' | head -n 1)
		[ -n "$tarball" ] || { cat "$cache/fetch.log" >&2; log "no rdma-core_$upver.orig tarball"; exit 1; }
	fi
	[ -d "$pristine" ] && chmod -R u+w "$pristine"
	rm -rf "$pristine"
	tar -C "$cache" -xf "$tarball"
	[ -f "$pristine/CMakeLists.txt" ] || { log "tarball did not unpack to $pristine"; exit 1; }
	chmod -R a-w "$pristine"
	touch "$cache/.unpacked"
fi

# --- the build copy, configured once ------------------------------------------
if [ ! -f "$copy/.configured" ]; then
	rm -rf "$copy"
	cp -a "$pristine" "$copy"
	chmod -R u+w "$copy"
	grep -q '^add_subdirectory(providers/ornic)' "$copy/CMakeLists.txt" ||
		sed -i 's|^add_subdirectory(providers/erdma)$|&\nadd_subdirectory(providers/ornic)|' "$copy/CMakeLists.txt"
	grep -q '^add_subdirectory(providers/ornic)' "$copy/CMakeLists.txt" ||
		{ log "could not add providers/ornic to CMakeLists.txt"; exit 1; }
	# The ABI header goes where upstream keeps provider ABIs: both lists
	# of kernel-headers/CMakeLists.txt (kernel-abi/ornic-abi.h is generated).
	sed -i 's|^  rdma/erdma-abi.h$|&\n  rdma/ornic-abi.h|' "$copy/kernel-headers/CMakeLists.txt"
	[ "$(grep -c '^  rdma/ornic-abi.h$' "$copy/kernel-headers/CMakeLists.txt")" = 2 ] ||
		{ log "could not add rdma/ornic-abi.h to kernel-headers/CMakeLists.txt"; exit 1; }
fi
# Our sources are refreshed on every run (ninja rebuilds what changed);
# files we no longer have are removed.
mkdir -p "$copy/providers/ornic"
# The hardware layouts (include/ornic/ornic_hw.h) are copied in next to them.
for f in "$copy"/providers/ornic/*; do
	[ -e "$here/${f##*/}" ] || [ "${f##*/}" = ornic_hw.h ] || rm -f "$f"
done
for f in "$here"/CMakeLists.txt "$here"/*.[ch] "$src/include/ornic/ornic_hw.h"; do
	cmp -s "$f" "$copy/providers/ornic/${f##*/}" || cp "$f" "$copy/providers/ornic/"
done
cmp -s "$src/include/uapi/rdma/ornic-abi.h" "$copy/kernel-headers/rdma/ornic-abi.h" ||
	cp "$src/include/uapi/rdma/ornic-abi.h" "$copy/kernel-headers/rdma/ornic-abi.h"
# ccache keeps its objects in the cache dir: a clean clone compiles
# rdma-core's libraries (the provider's dependencies) only once.
export CCACHE_DIR=$ORNIC_CACHE/ccache
if [ ! -f "$copy/.configured" ]; then
	mkdir -p "$copy/build"
	log "configuring rdma-core $ver"
	(cd "$copy/build" && cmake -GNinja -DNO_PYVERBS=1 -DNO_MAN_PAGES=1 \
		-DCMAKE_C_COMPILER_LAUNCHER=ccache ..) >"$out/configure.log" 2>&1 ||
		{ tail -n 30 "$out/configure.log" >&2; exit 1; }
	touch "$copy/.configured"
fi

log "building ornic-rdmav34"
ninja -C "$copy/build" ornic-rdmav34 >"$out/ninja.log" 2>&1 ||
	{ grep -E -A3 'error|warning' "$out/ninja.log" | head -n 40 >&2; tail -n 10 "$out/ninja.log" >&2; exit 1; }
# rdma-core builds with -Wall -Wextra (minus sign-compare and
# unused-parameter) and no -Werror: recompile our sources with its exact
# command line plus -Werror so that any warning fails the build.
ninja -C "$copy/build" -t commands ornic-rdmav34 | grep -E 'providers/ornic/[a-z_]+\.c' |
	while read -r cmd; do
		(cd "$copy/build" && eval "$cmd -Werror -fsyntax-only") ||
			{ log "compiler warnings in the provider"; exit 1; }
	done
cp "$copy/build/lib/libornic-rdmav34.so" "$out/"
echo "driver ornic" >"$out/ornic.driver"
log "done: $out/libornic-rdmav34.so $out/ornic.driver"
