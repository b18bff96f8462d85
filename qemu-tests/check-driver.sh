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

KDIR=${KDIR:?}
# shellcheck source=qemu-tests/check-guest-lib.sh
. "$here/check-guest-lib.sh"
mkdir -p "$MO" "$BUILD"
driver_vm() { run_vm driver/vm- "$1" "$FLAVOUR" "${@:2}"; }

# models_up DIR: two linked models; give them a moment to listen() after
# their sockets appear (QEMU does not retry a refused connection).
models_up() {
	models_start "$1" 2 link || return 1
	sleep 0.5
}

# Compiler and modpost warnings about our code (not kbuild's notes about the
# environment, e.g. a pahole version differing from the kernel's).
CC_WARNING='(\.[ch]:[0-9]+(:[0-9]+)?: (warning|error):|^WARNING: modpost:)'

# --- build ---------------------------------------------------------------------
log=$BUILD/driver-build-$FLAVOUR.log
# CONFIG_ORNIC_KUNIT_TEST=m: the KUnit suites too (ornic_kunit.ko, next to
# the driver's objects; drivers/infiniband/hw/ornic/Kbuild).
if kmake -C "$KDIR" M="$ORNIC_SRC" MO="$MO" W=1 -j2 CONFIG_ORNIC_KUNIT_TEST=m \
	modules >"$log" 2>&1; then
	if grep -q -E "$CC_WARNING" "$log"; then
		record FAIL driver/build "W=1 warnings: $(grep -m3 -E "$CC_WARNING" "$log" | tr '\n' ' ')"
		exit 0
	fi
	record PASS driver/build "ornic.ko and ornic_kunit.ko, W=1, no warnings"
else
	record FAIL driver/build "$(grep -m5 -E 'error|Error' "$log" | tr '\n' ' ')"
	exit 0
fi

# --- Debian's stock kernels -------------------------------------------------------
# The header packages are fetched with apt-get download and unpacked under
# the cache, not installed: linux-headers-6.12.* depends on the kernel image
# (and initramfs-tools), which the testbed root does not need.
stock_headers() { # stock_headers SERIES: print the unpacked headers dir
	local series=$1 ver hdr common kbuild dir
	ver=$(apt-cache madison linux-headers-amd64 | awk -v s="$series" \
		'index($3, s ".") == 1 { print $3; exit }')
	[ -n "$ver" ] || return 1
	hdr=$(apt-cache depends "linux-headers-amd64=$ver" | awk '/Depends: linux-headers-/ { print $2; exit }')
	[ -n "$hdr" ] || return 1
	dir=$ORNIC_CACHE/driver-headers/$hdr
	if [ ! -f "$dir/.unpacked" ]; then
		common=$(apt-cache depends "$hdr" | awk '/Depends: linux-headers-.*-common/ { print $2; exit }')
		kbuild=$(apt-cache depends "$hdr" | awk '/Depends: linux-kbuild-/ { print $2; exit }')
		rm -rf "$dir"
		mkdir -p "$dir/debs"
		(cd "$dir/debs" && apt-get download "$hdr" "$common" "$kbuild") >"$dir.log" 2>&1 || return 1
		for deb in "$dir"/debs/*.deb; do
			dpkg -x "$deb" "$dir/root" || return 1
		done
		touch "$dir/.unpacked"
	fi
	echo "$dir/root/usr/src/$hdr"
}

# Out-of-tree builds need a writable tree before MO= (6.13): build a copy.
# The packaged Makefile includes /usr/src/<common>/Makefile by absolute
# path: give this process a private /usr/src holding links to the unpacked
# trees.
build_stock() { # build_stock NAME HEADERS_DIR [MAKE_ARGS...]
	local name=$1 hdr=$2 tmp log btf=()
	shift 2
	# A fixed path (this /tmp is the testbed run's own), so ccache finds
	# the objects of the last run.
	tmp=/tmp/ornic-stock-build-$name
	rm -rf "$tmp"
	mkdir -p "$tmp"
	log=$BUILD/driver-build-$name.log
	cp -r "$ORNIC_SRC/Kbuild" "$ORNIC_SRC/include" "$tmp/"
	mkdir -p "$tmp/drivers/infiniband/hw" "$tmp/debian"
	cp "$ORNIC_SRC/debian/changelog" "$tmp/debian/"	# the version
	cp -r "$ORNIC_SRC/drivers/infiniband/hw/ornic" "$tmp/drivers/infiniband/hw/"
	command -v pahole >/dev/null || btf=(CONFIG_DEBUG_INFO_BTF_MODULES=)
	# shellcheck disable=SC2016 # expanded by the inner shell
	if unshare --mount --propagation unchanged bash -c 'mount -t tmpfs tmpfs /usr/src &&
		ln -s "$1"/* /usr/src/ && shift && exec "$@"' link "$(dirname "$hdr")" \
		env "${KMAKE_ENV[@]}" make -C "/usr/src/$(basename "$hdr")" M="$tmp" W=1 -j2 "${btf[@]}" "$@" modules \
		>"$log" 2>&1 && [ -f "$tmp/drivers/infiniband/hw/ornic/ornic.ko" ] &&
		! grep -q -E "$CC_WARNING" "$log"; then
		record PASS "driver/build-$name" "against $(basename "$hdr"), W=1${*:+ $*}, no warnings"
	else
		record FAIL "driver/build-$name" "$(grep -m3 -E 'warning:|error|ERROR' "$log" | tr '\n' ' ')see $log"
	fi
	rm -rf "$tmp"
}
for series in 7.3 6.12; do
	if hdr=$(stock_headers "$series"); then
		build_stock "debian-$series" "$hdr"
		# Debian's sparse (0.6.4) cannot parse 7.x headers (the kernel's
		# checker-valid.sh refuses it): run it against 6.12's.
		[ "$series" = 6.12 ] && build_stock sparse "$hdr" C=2
	else
		record SKIP "driver/build-debian-$series" "Debian's linux-headers for $series not available (apt-get download failed)"
	fi
done

# --- the driver against device models --------------------------------------------
# The model check-testbed.sh uses, else the one check-model.sh built
# (check-guest-lib.sh).
model_bin=$MODEL_BIN
if [ ! -x "$model_bin" ]; then
	for t in probe rdma-link ping tcp gids counters mtu reload-cycles ucontext disassociate device-fatal verbs observe faults; do
		record SKIP "driver/$t" "no device model binary ($model_bin)"
	done
	exit 0
fi

# A user-context exerciser (no provider library needed).
uctx=$BUILD/tools/driver-uctx
mkdir -p "$BUILD/tools"
if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$uctx" \
	"$here/suites/driver-uctx.c" 2>"$BUILD/tools/driver-uctx.log"; then
	record FAIL driver/build-uctx "$(head -n 5 "$BUILD/tools/driver-uctx.log" | tr '\n' ' ')"
	uctx=""
fi

# Posted writes straight to the BARs of an unbound device, counted by it.
mmio=$BUILD/tools/mmio-stress
if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$mmio" \
	"$here/suites/mmio-stress.c" 2>"$BUILD/tools/mmio-stress.log"; then
	record FAIL driver/build-mmio-stress "$(head -n 5 "$BUILD/tools/mmio-stress.log" | tr '\n' ' ')"
	mmio=""
fi

# The data-path verbs through the raw uverbs ABI (no provider library needed).
verbs=$BUILD/tools/driver-verbs
if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$verbs" \
	"$here/suites/driver-verbs.c" "$TEST_REPORT_C" 2>"$BUILD/tools/driver-verbs.log"; then
	record FAIL driver/build-verbs "$(head -n 5 "$BUILD/tools/driver-verbs.log" | tr '\n' ' ')"
	verbs=""
fi

# Two linked models, one guest: first the KUnit suites (ornic_kunit.ko),
# then bring-up, traffic, GIDs, counters, reloads, user context and
# hot-unplug.  Without models KUnit still runs, in a guest of its own.
# This guest runs beside the three after it (each guest leaves about a third
# of the two host cores idle); the group ends when all four have.
basic_guest() {
	mdir=/tmp/driver-models
	if models_up "$mdir"; then
		mapfile -t margs < <(models_vm_args)
		# shellcheck disable=SC2016 # the guest's shell expands $1..$4
		driver_vm driver-basic --timeout 1500 "${margs[@]}" -- bash -c \
			'/src/qemu-tests/suites/driver-kunit.sh "$1"; k=$?; /src/qemu-tests/suites/driver-basic.sh "$@" || exit 1; exit $k' \
			suites "$MO" "$uctx" "$mmio"
		if why=$(models_stop); then
			record PASS driver/models-survive "both models alive after the driver suite"
		else
			record FAIL driver/models-survive "$why"
		fi
		cp "$mdir"/model*.log "$RUNS/driver-basic/" 2>/dev/null
	else
		record FAIL driver/models-start "models did not start; see $mdir"
		models_stop >/dev/null
		driver_vm driver-kunit --timeout 600 -- /src/qemu-tests/suites/driver-kunit.sh "$MO"
	fi
}
basic_guest &
basic_pid=$!

# Two linked models, one guest, two suites.  driver-verbs.sh: MRs, CQs, QPs,
# SRQs, AHs, bad input, objects left behind by a killed process and by
# rmmod.  Then driver-observe.sh, what an operator sees: ethtool -i/-S, rdma
# statistic and res -dd, debugfs, the debug messages of refused requests,
# and the models' JSON state: the guest asks (file dump-model in its /out),
# we send model 0 a SIGUSR1 and it writes model0-state.json there; at exit
# both write theirs.
mdir=/tmp/driver-verbs-models
out=$RUNS/driver-verbs
mkdir -p "$out"
rm -f "$out/dump-model" "$out"/model*-state.json
if [ -n "$verbs" ] && MODEL_STATE_DIR=$out models_up "$mdir"; then
	mapfile -t margs < <(models_vm_args)
	dumper=${MODEL_PIDS[0]}
	(
		for _ in $(seq 36000); do
			if [ -e "$out/dump-model" ]; then
				rm -f "$out/dump-model"
				kill -USR1 "$dumper"
			fi
			sleep 0.05
		done
	) &
	watcher=$!
	# shellcheck disable=SC2016 # the guest's shell expands $1 and $2
	driver_vm driver-verbs --timeout 1500 "${margs[@]}" -- bash -c \
		'/src/qemu-tests/suites/driver-verbs.sh "$1" "$2"; v=$?; /src/qemu-tests/suites/driver-observe.sh "$1" "$2" || exit 1; exit $v' \
		suites "$MO" "$verbs"
	kill "$watcher" 2>/dev/null
	wait "$watcher" 2>/dev/null
	if why=$(models_stop); then
		record PASS driver/verbs-models-survive "both models alive after the verbs and observe suites, SIGUSR1 included"
	else
		record FAIL driver/verbs-models-survive "$why"
	fi
	# At exit each model wrote its state once more.
	if why=$(python3 - "$out"/model0-state.json "$out"/model1-state.json <<'PY' 2>&1
import json, sys
for path in sys.argv[1:]:
    s = json.load(open(path))
    assert s["reason"] == "exit", (path, s["reason"])
    assert len(s["counters"]) >= 55 and "objects" in s and "qps" in s, path
print("model0/1-state.json: reason exit, %d counters each" % len(s["counters"]))
PY
	); then
		record PASS driver/model-state-at-exit "$why"
	else
		record FAIL driver/model-state-at-exit "$(echo "$why" | tail -n 2 | tr '\n' ' ')"
	fi
	cp "$mdir"/model*.log "$out/" 2>/dev/null
elif [ -n "$verbs" ]; then
	record FAIL driver/verbs-models-start "models did not start; see $mdir"
	models_stop >/dev/null
fi

# Device death: the guest asks (file kill-model in its /out), we kill model 1
# while the guest's vCPUs stand still, so that no MMIO of theirs is on its
# way to it.  QEMU 11.1's vfio-user client aborts on an assertion when a
# server dies with a request unread (operations.rst, "Known issues"); if it
# does all the same, QEMU, not the guest, ended that run, so it is reported
# and the run tried once more.
mdir=/tmp/driver-fatal-models
out=$RUNS/driver-fatal
for try in 1 2; do
	rm -f "$out/kill-model" "$out/model-killed" # a previous run's request must not kill the new model
	if ! models_up "$mdir"; then
		record FAIL driver/fatal-models-start "models did not start; see $mdir"
		models_stop >/dev/null
		break
	fi
	mapfile -t margs < <(models_vm_args)
	victim=${MODEL_PIDS[1]}
	(
		for _ in $(seq 6000); do
			if [ -e "$out/kill-model" ]; then
				model_kill_idle "$victim" "$out/monitor.sock"
				touch "$out/model-killed"
				exit 0
			fi
			sleep 0.05
		done
	) &
	watcher=$!
	rc=0
	"$here/vm.sh" --name "$RUN_NAME/driver-fatal" --flavour "$FLAVOUR" --allow-splat --timeout 900 \
		"${margs[@]}" -- /src/qemu-tests/suites/driver-fatal.sh "$MO" "$verbs" || rc=$?
	kill "$watcher" 2>/dev/null
	wait "$watcher" 2>/dev/null
	retry=0
	if [ $try = 1 ] && [ "$rc" != 0 ] && [ -e "$out/model-killed" ] &&
		grep -q 'Assertion .* failed' "$out/qemu.log" 2>/dev/null; then
		record INFO driver/fatal-qemu-abort "QEMU aborted after the model was killed ($(grep -m1 'Assertion' "$out/qemu.log")); once more"
		retry=1
	else
		guest_results driver/vm-driver-fatal "$out" "$rc"
		guest_times driver-fatal "$out"
		# Model 1 was killed on purpose; model 0 must have survived.
		if kill -0 "${MODEL_PIDS[0]}" 2>/dev/null; then
			record PASS driver/fatal-peer-survives "the surviving model is alive"
		else
			record FAIL driver/fatal-peer-survives "model 0 died too"
		fi
	fi
	for pid in "${MODEL_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	MODEL_PIDS=()
	cp "$mdir"/model*.log "$out/" 2>/dev/null
	[ $retry = 1 ] || break
done

# Broken devices: models 2..5 misbehave on purpose (--inject-faults, test
# only; registers.rst "Fault injection"), models 0 and 1 are healthy.  The
# driver must refuse every bad value, declare the broken devices dead and
# keep the others working.
mdir=/tmp/driver-faults-models
MODEL_FAULTS=([2]=qp-state [3]=cqe [4]=eq-storm [5]=admin-stall)
if [ -n "$verbs" ] && models_start "$mdir" 6 link && sleep 0.5; then
	mapfile -t margs < <(models_vm_args)
	driver_vm driver-faults --timeout 900 "${margs[@]}" -- \
		/src/qemu-tests/suites/driver-faults.sh "$MO" "$verbs"
	# The broken models misbehave, they must not crash.
	if why=$(models_stop); then
		record PASS driver/faults-models-survive "all 6 models (4 injecting faults) alive after the suite"
	else
		record FAIL driver/faults-models-survive "$why"
	fi
	cp "$mdir"/model*.log "$RUNS/driver-faults/" 2>/dev/null
elif [ -n "$verbs" ]; then
	record FAIL driver/faults-models-start "models did not start; see $mdir"
	models_stop >/dev/null
fi
MODEL_FAULTS=()
wait "$basic_pid"
exit 0
