#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The kernel driver's part of `make check`, run inside the testbed by
# check-testbed.sh with RESULTS (results file), KDIR (test kernel build
# directory) and FLAVOUR.  Builds the modules (W=1, no warnings allowed),
# runs the KUnit suites in a guest, then the driver suites against
# device-model instances.  One "PASS|FAIL|SKIP: driver/..." line per test.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "check-driver.sh runs inside the testbed"

RESULTS=${RESULTS:?}
KDIR=${KDIR:?}
FLAVOUR=${FLAVOUR:-base}
RUNS=$ORNIC_CACHE/runs/check
BUILD=$ORNIC_SRC/build
if [ "$FLAVOUR" = base ]; then
	MO=$BUILD/modules
else
	MO=$BUILD/modules-$FLAVOUR
fi
mkdir -p "$RUNS" "$MO"

record() { # record STATUS NAME DETAILS...
	local s=$1 n=$2
	shift 2
	echo "$s: $n${*:+ $*}" | tee -a "$RESULTS"
}

guest_results() { # guest_results RUN_NAME OUT_DIR VM_STATUS
	local name=$1 out=$2 rc=$3
	[ -f "$out/results.txt" ] && cat "$out/results.txt" >>"$RESULTS" && cat "$out/results.txt"
	if [ "$rc" = 0 ]; then
		record PASS "driver/vm-$name" "clean kernel log"
	else
		record FAIL "driver/vm-$name" "status $(cat "$out/status" 2>/dev/null || echo ?), exit $rc; see $out"
	fi
}

run_vm() { # run_vm NAME [vm.sh options] -- CMD...
	local name=$1 rc=0
	shift
	"$here/vm.sh" --name "check/$name" --flavour "$FLAVOUR" "$@" || rc=$?
	guest_results "$name" "$RUNS/$name" "$rc"
}

# --- build ---------------------------------------------------------------------
log=$BUILD/driver-build-$FLAVOUR.log
if make -C "$KDIR" M="$ORNIC_SRC" MO="$MO" W=1 -j2 modules >"$log" 2>&1; then
	if grep -q 'warning:' "$log"; then
		record FAIL driver/build "W=1 warnings: $(grep -m3 'warning:' "$log" | tr '\n' ' ')"
		exit 0
	fi
	record PASS driver/build "ornic.ko and ornic_kunit.ko, W=1, no warnings"
else
	record FAIL driver/build "$(grep -m5 -E 'error|Error' "$log" | tr '\n' ' ')"
	exit 0
fi

# --- KUnit ---------------------------------------------------------------------
run_vm driver-kunit --timeout 600 -- /src/qemu-tests/suites/driver-kunit.sh "$MO"

# --- the driver against device models --------------------------------------------
model_bin=$BUILD/device-model/ornic-model
if [ ! -x "$model_bin" ]; then
	for t in probe rdma-link ping tcp gids counters mtu reload-cycles device-fatal; do
		record SKIP "driver/$t" "no device model binary ($model_bin)"
	done
	exit 0
fi
# shellcheck source=qemu-tests/models.sh
. "$here/models.sh"

# Two linked models, one guest: bring-up, traffic, GIDs, counters, reloads.
mdir=/tmp/driver-models
if models_start "$mdir" 2 link; then
	mapfile -t margs < <(models_vm_args)
	run_vm driver-basic --timeout 1500 "${margs[@]}" -- \
		/src/qemu-tests/suites/driver-basic.sh "$MO"
	if why=$(models_stop); then
		record PASS driver/models-survive "both models alive after the driver suite"
	else
		record FAIL driver/models-survive "$why"
	fi
	cp "$mdir"/model*.log "$RUNS/driver-basic/" 2>/dev/null
else
	record FAIL driver/models-start "models did not start; see $mdir"
	models_stop >/dev/null
fi

# Device death: the guest asks (file kill-model in its /out), we kill model 1.
mdir=/tmp/driver-fatal-models
out=$RUNS/driver-fatal
if models_start "$mdir" 2 link; then
	mapfile -t margs < <(models_vm_args)
	victim=${MODEL_PIDS[1]}
	(
		for _ in $(seq 6000); do
			if [ -e "$out/kill-model" ]; then
				kill -KILL "$victim"
				touch "$out/model-killed"
				exit 0
			fi
			sleep 0.05
		done
	) &
	watcher=$!
	run_vm driver-fatal --timeout 900 "${margs[@]}" -- \
		/src/qemu-tests/suites/driver-fatal.sh "$MO"
	kill "$watcher" 2>/dev/null
	wait "$watcher" 2>/dev/null
	# Model 1 was killed on purpose; model 0 must have survived.
	if kill -0 "${MODEL_PIDS[0]}" 2>/dev/null; then
		record PASS driver/fatal-peer-survives "the surviving model is alive"
	else
		record FAIL driver/fatal-peer-survives "model 0 died too"
	fi
	for pid in "${MODEL_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	MODEL_PIDS=()
	cp "$mdir"/model*.log "$out/" 2>/dev/null
else
	record FAIL driver/fatal-models-start "models did not start; see $mdir"
	models_stop >/dev/null
fi
exit 0
