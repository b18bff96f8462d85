#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# shellcheck disable=SC2329 # the group_* functions are called by name (run_groups)
# The part of `make check` that runs inside the testbed: host unit tests,
# module builds and guest suites.  Every test prints one
# "PASS|FAIL|SKIP: name details" line into $RESULTS; the host side
# (check.sh) prints the summary.  Selected groups: ORNIC_CHECK_ONLY="a b"
# (lint model model-guest driver provider datapath ib iwarp pyverbs interop ulp
# twoguests soak deb stock guide runner, and rxe siw: the software RDMA
# baselines, which judge nothing about ornic and run only when named, as
# `make compare` does).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "check-testbed.sh runs inside the testbed (use check.sh)"

flavour=${ORNIC_FLAVOUR:-base}
RESULTS=${RESULTS:?}
# Each check run has its own run directory (ORNIC_CHECK_RUN, set by check.sh),
# so concurrent runs never share guest output.
RUN_NAME=${ORNIC_CHECK_RUN:-check}
RUNS=$ORNIC_CACHE/runs/$RUN_NAME
# Builds of a check run are kept apart from a developer's own build/ dirs.
BUILD=$ORNIC_SRC/build/check
export MODEL_BUILD=$BUILD/device-model
export MODEL_BIN=$MODEL_BUILD/ornic-model
mkdir -p "$RUNS" "$BUILD"
readlink /proc/self/ns/pid >"$(dirname "$RESULTS")/pid-namespace"
kdir=$("$here/kernel/kernel-dir.sh" "$flavour")

wanted() {
	case $1 in
	rxe | siw) [[ " ${ORNIC_CHECK_ONLY:-} " == *" $1 "* ]] ;;
	*) [ -z "${ORNIC_CHECK_ONLY:-}" ] || [[ " $ORNIC_CHECK_ONLY " == *" $1 "* ]] ;;
	esac
}
# shellcheck source=qemu-tests/check-lib.sh
. "$here/check-lib.sh"

# group NAME...: the next group of the run (groups sharing a guest), true
# when one of them is wanted; the group before it ends here and its wall
# time goes to the run's times.txt.
group_name="" group_started=0
group_end() { [ -z "$group_name" ] || group_time "$group_name" "$group_started"; group_name=""; }
group() {
	local g
	group_end
	for g in "$@"; do
		wanted "$g" && group_name+="${group_name:+ }$g"
	done
	[ -n "$group_name" ] || return 1
	group_started=$(date +%s)
}

build_selftest_module() {
	kmake -s -C "$kdir" M=/src/qemu-tests/selftest MO="$BUILD/selftest" modules >"$BUILD/selftest.log" 2>&1
}

# --- lint: checkpatch, clang-format, shellcheck, docs, README, man pages, version
group_lint() {
	LINT_TRACKED=1 DOCS_OUT=$BUILD/docs "$here/lint.sh" >"$BUILD/lint.log" 2>&1
	grep -E '^(PASS|FAIL): lint/' "$BUILD/lint.log" | tee -a "$RESULTS"
	grep -q -E '^(PASS|FAIL): lint/version' "$BUILD/lint.log" ||
		record FAIL lint/run "lint did not finish; see $BUILD/lint.log"
}

# --- device model: unit tests (ASan/UBSan) and short fuzz runs ----------------
group_model() {
	if [ -f "$ORNIC_SRC/device-model/CMakeLists.txt" ]; then
		BUILD=$BUILD "$here/check-model.sh" || true
	fi
}

# --- device model attached to a guest: PCI identity, BARs, MSI-X, registers --
group_model_guest() {
	if [ -x "$MODEL_BIN" ]; then
		# shellcheck source=qemu-tests/models.sh
		. "$here/models.sh"
		mkdir -p "$BUILD/tools"
		if gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$ORNIC_SRC/include" \
			-o "$BUILD/tools/ornic-pci-probe" "$here/tools/ornic-pci-probe.c" 2>"$BUILD/tools.log"; then
			mdir=/tmp/models-pci
			if models_start "$mdir" 2 link; then
				mapfile -t margs < <(models_vm_args)
				run_vm vm/ model-pci "$flavour" --timeout 600 "${margs[@]}" -- /src/qemu-tests/suites/model-pci.sh 2 "$BUILD/tools/ornic-pci-probe"
				# The guest suites run against confined models (operations.rst, "Confinement").
				models_confined sandbox
				# Not in $(...): only this shell can wait for the models.
				if models_stop >"$mdir/stop.txt"; then
					record PASS model-guest/models-survive "both models alive after the guest ended, clean exit on SIGTERM"
				else
					record FAIL model-guest/models-survive "$(tr '\n' ' ' <"$mdir/stop.txt")"
				fi
				cp "$mdir"/model*.log "$RUNS/model-pci/" 2>/dev/null
			else
				record FAIL model-guest/start "models did not start; see $mdir"
				models_stop >/dev/null
			fi
		else
			record FAIL model-guest/build-probe "$(tr '\n' ' ' <"$BUILD/tools.log")"
		fi
	elif [ -f "$ORNIC_SRC/device-model/CMakeLists.txt" ]; then
		record FAIL model-guest/binary "no ornic-model binary was built"
	fi
}

# --- kernel driver: module build, KUnit, guest suites (check-driver.sh) -------
group_driver() {
	if [ -x "$here/check-driver.sh" ]; then
		RESULTS=$RESULTS KDIR=$kdir FLAVOUR=$flavour BUILD=$BUILD "$here/check-driver.sh" || true
	fi
}

# --- rdma-core provider: build, ibverbs tools in a guest (check-provider.sh) --
group_provider() {
	if [ -x "$here/check-provider.sh" ]; then
		RESULTS=$RESULTS KDIR=$kdir FLAVOUR=$flavour BUILD=$BUILD "$here/check-provider.sh" || true
	fi
}

# --- verbs data path: pingpongs, perftest, negative tests, capture (check-datapath.sh)
group_datapath() {
	if [ -x "$here/check-datapath.sh" ]; then
		RESULTS=$RESULTS KDIR=$kdir FLAVOUR=$flavour BUILD=$BUILD "$here/check-datapath.sh" || true
	fi
}

# --- InfiniBand ports: OpenSM, the IB diagnostics, verbs by LID (check-ib.sh)
group_ib() {
	if [ -x "$here/check-ib.sh" ]; then
		RESULTS=$RESULTS KDIR=$kdir FLAVOUR=$flavour BUILD=$BUILD "$here/check-ib.sh" || true
	fi
}

# --- iWARP ports: the RNIC, rdma_cm over the device's TCP and MPA (check-iwarp.sh)
group_iwarp() {
	if [ -x "$here/check-iwarp.sh" ]; then
		RESULTS=$RESULTS FLAVOUR=$flavour BUILD=$BUILD "$here/check-iwarp.sh" || true
	fi
}

# --- rdma-core's pyverbs suite on ornic and rxe (check-pyverbs.sh) -----------
group_pyverbs() {
	if [ -x "$here/check-pyverbs.sh" ]; then
		RESULTS=$RESULTS FLAVOUR=$flavour BUILD=$BUILD "$here/check-pyverbs.sh" || true
	fi
}

# --- ornic and rxe on one Ethernet link, both ways (check-interop.sh) --------
group_interop() {
	if [ -x "$here/check-interop.sh" ]; then
		RESULTS=$RESULTS FLAVOUR=$flavour BUILD=$BUILD "$here/check-interop.sh" || true
	fi
}

# --- storage protocols over RDMA: NFS, iSER, SRP, SMB Direct (check-ulp.sh) ---
group_ulp() {
	if [ -x "$here/check-ulp.sh" ]; then
		RESULTS=$RESULTS FLAVOUR=$flavour BUILD=$BUILD "$here/check-ulp.sh" || true
	fi
}

# --- two guests linked as two hosts: udp, udp + netem, tap + bridge to rxe ----
# --- then models dying under a guest: a udp: peer restarts, a device dies ----
group_twoguests() {
	if [ -x "$here/check-twoguests.sh" ]; then
		RESULTS=$RESULTS FLAVOUR=$flavour BUILD=$BUILD "$here/check-twoguests.sh" || true
	fi
	if [ -x "$here/check-model-restart.sh" ]; then
		RESULTS=$RESULTS FLAVOUR=$flavour BUILD=$BUILD "$here/check-model-restart.sh" || true
	fi
}

# --- churn: rmmod and kill -9 under RDMA traffic (check-soak.sh) --------------
group_soak() {
	if [ -x "$here/check-soak.sh" ]; then
		RESULTS=$RESULTS FLAVOUR=$flavour BUILD=$BUILD "$here/check-soak.sh" || true
	fi
}

# --- Debian packages: make deb, lintian, contents, DKMS build (check-deb.sh) --
# With the stock group in the run, its guests (Debian's kernels) do what the
# deb group's guest would: the DKMS-built module loaded by its modalias, the
# provider installed by dpkg, both devices listed; one boot less.
group_deb() {
	if [ -x "$here/check-deb.sh" ]; then
		guest_in_stock=0
		wanted stock && guest_in_stock=1
		RESULTS=$RESULTS KDIR=$kdir FLAVOUR=$flavour BUILD=$BUILD DEB_GUEST_IN_STOCK=$guest_in_stock \
			"$here/check-deb.sh" || true
	fi
}

# --- Debian's own kernels: the packages installed, DKMS, RDMA, NVMe-oF --------
group_stock() {
	if [ -x "$here/check-stock.sh" ]; then
		RESULTS=$RESULTS BUILD=$BUILD "$here/check-stock.sh" || true
	fi
}

# --- the user guide's recipes: two VMs, libvirt and QEMU (check-guide.sh) ----
group_guide() {
	if [ -x "$here/check-guide.sh" ]; then
		RESULTS=$RESULTS FLAVOUR=$flavour BUILD=$BUILD "$here/check-guide.sh" || true
	fi
}

# --- VM runner self-test ------------------------------------------------------
group_runner() {
	if build_selftest_module; then
		rc=0
		"$here/vm.sh" --name "$RUN_NAME/runner-warn" --flavour "$flavour" --timeout 300 -- \
			insmod "$BUILD/selftest/ornic_selftest_warn.ko" || rc=$?
		if [ "$rc" = 126 ] && grep -q 'WARNING: .*ornic_selftest_warn' "$RUNS/runner-warn/splats.txt"; then
			record PASS runner/warn-fails-run "an injected WARN made the run fail (exit 126)"
		else
			record FAIL runner/warn-fails-run "expected exit 126 with the WARN in splats.txt, got $rc"
		fi
		rc=0
		"$here/vm.sh" --name "$RUN_NAME/runner-status" --flavour "$flavour" --timeout 300 -- \
			bash -c 'echo guest-alive; exit 7' || rc=$?
		if [ "$rc" = 7 ] && grep -q guest-alive "$RUNS/runner-status/guest-output.log"; then
			record PASS runner/guest-status "guest exit status 7 returned, output captured"
		else
			record FAIL runner/guest-status "expected exit 7, got $rc"
		fi
	else
		record FAIL runner/build-module "$(tail -n 5 "$BUILD/selftest.log" | tr '\n' ' ')"
	fi
}

# --- software RDMA baseline: rxe and siw -------------------------------------
group_soft() { # group_soft rxe|siw
	run_vm vm/ "soft-$1" "$flavour" --timeout 900 -- /src/qemu-tests/suites/soft-rdma.sh "$1"
	[ -f "$RUNS/soft-$1/$1-perf.txt" ] && cp "$RUNS/soft-$1/$1-perf.txt" "$(dirname "$RESULTS")/"
}
group_rxe() { group_soft rxe; }
group_siw() { group_soft siw; }

# run_groups NAME...: each wanted group in turn, its wall time in times.txt.
run_groups() {
	local g
	for g in "$@"; do
		group "$g" || continue
		"group_${g//-/_}"
	done
	group_end
}

# The model group builds what every later group uses; model-guest, driver
# and provider build the tools, modules and provider the guest groups load.
# The package groups (deb, then stock, which uses deb's packages) need none
# of that: they start in the second lane right after the model group.  A
# TCG guest keeps about 70 % of two host cores busy, so two lanes of groups
# run side by side; each lane takes the next unit of one queue, longest
# first, so neither lane idles while the other has a long tail.  A unit's
# groups run in order in one lane: twoguests and guide start guests of
# their own side by side and do not run next to each other.
# ORNIC_CHECK_LANES=1 runs everything in one lane.
run_groups model
units=("ib" "twoguests guide" "datapath" "soak" "pyverbs" "iwarp" "interop" "ulp" "lint" "runner" "rxe" "siw")
if [ "${ORNIC_CHECK_LANES:-2}" = 1 ]; then
	# shellcheck disable=SC2068 # each unit is a list of group names
	run_groups model-guest driver provider deb stock ${units[@]}
	exit 0
fi
queue=$(mktemp -d)
echo 0 >"$queue/next"
# next_unit: the queue's next unit (its groups), or status 1 when empty.
next_unit() {
	local n
	n=$({
		flock 9
		n=$(cat "$queue/next")
		echo $((n + 1)) >"$queue/next"
		echo "$n"
	} 9>"$queue/lock")
	[ "$n" -lt "${#units[@]}" ] || return 1
	echo "${units[$n]}"
}
# take_units: units of the queue until it is empty.
take_units() {
	local unit
	while unit=$(next_unit); do
		# shellcheck disable=SC2086 # a unit is a list of group names
		run_groups $unit
	done
}
(
	run_groups model-guest driver provider
	touch "$queue/built"
	take_units
) &
pid_a=$!
(
	run_groups deb stock
	while [ ! -e "$queue/built" ]; do
		sleep 2
	done
	take_units
) &
pid_b=$!
wait "$pid_a"
wait "$pid_b"
rm -rf "$queue"
exit 0
