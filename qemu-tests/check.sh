#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# `make check`: prepare the testbed and the test kernel (cached), run every
# test inside the testbed, check that nothing is left mounted or running,
# and print one line per test and "N passed, N failed, N skipped".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
flavour=${ORNIC_FLAVOUR:-base}
start=$(date +%s)

"$here/testbed/mkroot.sh" || die "testbed setup failed"
# The deb and stock groups boot Debian's own kernels: their packages are
# fetched and installed into the stock layers (cached) while the test
# kernel compiles, as that waits on the network more than on the CPU.
stock_pid=""
only=" ${ORNIC_CHECK_ONLY:-deb} "
if [[ $only == *" deb "* || $only == *" stock "* ]]; then
	"$here/testbed/enter.sh" /src/qemu-tests/stock/prepare.sh kernels \
		>"$ORNIC_LOGDIR/stock-kernels.log" 2>&1 &
	stock_pid=$!
fi
"$here/kernel/build.sh" "$flavour" >/dev/null || die "test kernel build failed"

stamp=$(date +%Y%m%d-%H%M%S)
resdir=$ORNIC_CACHE/results/$stamp
mkdir -p "$resdir"
results=$resdir/results.txt
: >"$results"
echo "TIME: setup/testbed-and-kernel $(( $(date +%s) - start )) s" >"$resdir/times.txt"

# The testbed is ready now; a second update with nothing changed must succeed
# without any network (a fresh network namespace has none).
t0=$(date +%s%N)
if unshare --net "$here/testbed/mkroot.sh" >"$resdir/mkroot-offline.log" 2>&1; then
	echo "PASS: testbed/update-offline unchanged testbed updated with no network in $(( ($(date +%s%N) - t0) / 1000000 )) ms" >>"$results"
else
	echo "FAIL: testbed/update-offline $(tail -n 3 "$resdir/mkroot-offline.log" | tr '\n' ' ')" >>"$results"
fi
say "running tests; results in $results"
# Guest output of this run goes to $ORNIC_CACHE/runs/check-<time>; keep the
# last five, but never remove one touched in the last three hours: it may
# belong to a check still running next to this one.
old_runs=("$ORNIC_CACHE"/runs/check-*) # names sort by time
if [ -e "${old_runs[0]}" ] && [ ${#old_runs[@]} -gt 4 ]; then
	for d in "${old_runs[@]:0:${#old_runs[@]}-4}"; do
		[ -n "$(find "$d" -maxdepth 2 -mmin -180 -print -quit)" ] || rm -rf "$d"
	done
fi
"$here/testbed/enter.sh" env RESULTS="/cache/results/$stamp/results.txt" \
	ORNIC_CHECK_RUN="check-$stamp" \
	ORNIC_FLAVOUR="$flavour" ORNIC_CHECK_ONLY="${ORNIC_CHECK_ONLY:-}" \
	/src/qemu-tests/check-testbed.sh || echo "FAIL: check/testbed-run exited non-zero" >>"$results"

[ -z "$stock_pid" ] || wait "$stock_pid"

# The testbed's namespaces are gone now: nothing of ours may remain.
mounts=$(findmnt -rn -o TARGET | grep -F "$ORNIC_CACHE" || true)
if [ -z "$mounts" ]; then
	echo "PASS: host/no-mounts-left nothing mounted under $ORNIC_CACHE" >>"$results"
else
	echo "FAIL: host/no-mounts-left $(echo "$mounts" | tr '\n' ' ')" >>"$results"
fi
# Everything the run started lived in its own PID namespace (recorded by
# check-testbed.sh); no process of that namespace may outlive the run.
ns=$(cat "$resdir/pid-namespace" 2>/dev/null || true)
procs=""
if [ -n "$ns" ]; then
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$ns" ] &&
			procs+="$(ps -o pid=,args= -p "${p#/proc/}" 2>/dev/null) "
	done
else
	procs="(the run did not record its PID namespace)"
fi
if [ -z "$procs" ]; then
	echo "PASS: host/no-processes-left no process of the run's namespace ($ns) left" >>"$results"
else
	echo "FAIL: host/no-processes-left $(echo "$procs" | tr '\n' ' ')" >>"$results"
fi

echo
echo "=== ornic make check ($flavour kernel) ==="
grep -E '^(PASS|FAIL|SKIP): ' "$results"
# Measurements against a peer in the same run (reported, not judged).
[ -s "$resdir/compare.txt" ] && { echo; cat "$resdir/compare.txt"; echo; }
# Where the time went: each group, and the slowest steps of each guest.
[ -s "$resdir/times.txt" ] && { cat "$resdir/times.txt"; echo; }
passed=$(grep -c '^PASS: ' "$results")
failed=$(grep -c '^FAIL: ' "$results")
skipped=$(grep -c '^SKIP: ' "$results")
echo "total time: $(( $(date +%s) - start ))s; results: $resdir"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
