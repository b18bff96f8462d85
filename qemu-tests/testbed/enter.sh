#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# enter.sh [--no-src] CMD...: run CMD inside the testbed root, in a private
# mount and PID namespace.  The checkout appears at /src and the cache at
# /cache.  Every mount lives in the namespace and every process started in it
# dies with it, so nothing stays mounted or running after CMD ends, fails or
# is interrupted.
set -euo pipefail
# shellcheck source=qemu-tests/testbed/lib.sh
. "$(dirname "$0")/lib.sh"

with_src=1
if [ "${1:-}" = --no-src ]; then
	with_src=0
	shift
fi
[ $# -gt 0 ] || die "usage: enter.sh [--no-src] CMD..."
[ -d "$ORNIC_ROOT/usr" ] || die "no testbed root at $ORNIC_ROOT: run 'make testbed'"

if [ "${ORNIC_IN_NS:-}" != 1 ]; then
	export ORNIC_IN_NS=1
	flags=()
	[ $with_src = 1 ] || flags=(--no-src)
	exec unshare --mount --pid --fork --kill-child --propagation private \
		"$0" "${flags[@]}" "$@"
fi

# From here on: PID 1 of a new PID namespace with a private mount table.
r=$ORNIC_ROOT
# The root a mount point of its own: tools that remount / in a namespace
# of theirs (ip netns exec, ip -n) need one.
mount --bind "$r" "$r"
mount --rbind /dev "$r/dev"
mount --make-rslave "$r/dev"
mount -t proc proc "$r/proc"
mount --rbind /sys "$r/sys"
mount --make-rslave "$r/sys"
mount -t tmpfs -o mode=1777 tmpfs "$r/tmp"
mount -t tmpfs tmpfs "$r/run"
mkdir -p "$r/cache" "$r/src"
mount --bind "$ORNIC_CACHE" "$r/cache"
if [ $with_src = 1 ]; then
	mount --bind "$ORNIC_SRC" "$r/src"
	# A git worktree's .git names its repository by absolute path: make
	# that path exist inside, so git (lint's file lists) works there too.
	if [ -f "$ORNIC_SRC/.git" ] &&
		common=$(git -C "$ORNIC_SRC" rev-parse --path-format=absolute --git-common-dir 2>/dev/null) &&
		[ -d "$common" ]; then
		mkdir -p "$r$common"
		mount --bind "$common" "$r$common"
	fi
fi
cp /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null || true

cd /
rc=0
chroot "$r" /usr/bin/env -i \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
	ORNIC_CACHE=/cache ORNIC_SRC=/src ORNIC_ROOT=/ ORNIC_LOGDIR=/cache/logs \
	ORNIC_HOST_ROOT="$r" ORNIC_IN_TESTBED=1 \
	CI="${CI:-}" V="${V:-}" ORNIC_TIMEOUT_SCALE="${ORNIC_TIMEOUT_SCALE:-1}" \
	ORNIC_KEEP="${ORNIC_KEEP:-}" JOBS="${JOBS:-}" \
	ORNIC_DATAPATH_KINDS="${ORNIC_DATAPATH_KINDS:-}" \
	ORNIC_DATAPATH_TESTS="${ORNIC_DATAPATH_TESTS:-}" \
	ORNIC_INTEROP_TESTS="${ORNIC_INTEROP_TESTS:-}" \
	ORNIC_PYVERBS_MODULES="${ORNIC_PYVERBS_MODULES:-}" \
	ORNIC_PYVERBS_KINDS="${ORNIC_PYVERBS_KINDS:-}" \
	ORNIC_VERBS_TOOLS="${ORNIC_VERBS_TOOLS:-}" \
	ORNIC_ULP_KINDS="${ORNIC_ULP_KINDS:-}" ORNIC_ULP_TESTS="${ORNIC_ULP_TESTS:-}" \
	SOAK_RELOADS="${SOAK_RELOADS:-}" SOAK_KILLS="${SOAK_KILLS:-}" \
	SOAK_QP_CYCLES="${SOAK_QP_CYCLES:-}" SOAK_SCALE_QPS="${SOAK_SCALE_QPS:-}" \
	SOAK_CHURNERS="${SOAK_CHURNERS:-}" SOAK_CHURN_TRAFFIC="${SOAK_CHURN_TRAFFIC:-}" \
	ORNIC_FAULTS_NVME="${ORNIC_FAULTS_NVME:-}" ORNIC_WIRE_FAULTS="${ORNIC_WIRE_FAULTS:-}" \
	ORNIC_GUEST_LOGLEVEL="${ORNIC_GUEST_LOGLEVEL:-}" \
	ORNIC_DEMO_LINK_LAYER="${ORNIC_DEMO_LINK_LAYER:-}" \
	bash -c 'cd /src 2>/dev/null || cd /; exec "$@"' enter "$@" || rc=$?
exit $rc
