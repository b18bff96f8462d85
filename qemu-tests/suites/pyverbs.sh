#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# pyverbs.sh SUITE_ROOT TOOLDIR KIND... : rdma-core's own verbs test suite (pyverbs,
# from python3-pyverbs, unpacked under SUITE_ROOT/tests) on one device of
# each KIND, loopback as the suite runs it: ornic (ornic_0 of the two linked
# ornic NICs; MODDIR and PROVIDER_DIR in the environment) and rxe (rxe0 on
# one end of a veth pair).  The generic modules run in one python process;
# a crash there cannot hide the others, since every module it kept from
# starting then runs in a process of its own.  MODULES overrides the
# list ("none": no pyverbs module), TOOLS=none skips the verbs-* tools,
# PREFIX names the result lines.  Results of the first KIND are this suite's result lines
# ("pyverbs/<module>/<test>"); every KIND's lines also go to
# /out/pyverbs-<kind>.txt for the side-by-side comparison the host prints.
# Before pyverbs, every verbs-* tool in TOOLDIR (suites/verbs-*.c: ornic's
# own end-to-end tests of the verbs pyverbs asks for, with data checked) runs
# as "TOOL DEV GID DEV2 GID2" between the kind's two devices; its
# "PASS|FAIL|SKIP[:] name details" lines become "verbs/name" results (rxe's
# again only compared); an exit status above 1 fails the tool.  First of
# all suites/attrs.c checks address and QP attributes ("attrs/..." lines).
set -uo pipefail
root=$1
tooldir=$2
shift 2
SUITE=pyverbs
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh
. /src/qemu-tests/suites/datapath-lib.sh
RUNNER=/src/qemu-tests/tools/pyverbs-run.py
# The result lines' prefix: ib.sh runs the suite on an InfiniBand port as
# "ib/pyverbs/<module>/<test>".
PREFIX=${PREFIX:-pyverbs}
# One module's whole run; the longest (test_mr, test_qp) take a few minutes
# under TCG.  All modules together take about five.
MODULE_TIMEOUT=${MODULE_TIMEOUT:-900}
ALL_TIMEOUT=${ALL_TIMEOUT:-1800}

# suite_run RAW LOG TIMEOUT MODULE...: the suite's tests of those modules in
# one python process, results appended to RAW (pyverbs-run.py run).
suite_run() {
	local raw=$1 log=$2 limit=$3 m k=()
	shift 3
	for m in "$@"; do
		k+=(-k "tests.test_$m.")
	done
	rm -f "$raw"
	(cd "$root/tests" && PYTHONPATH="$root:$root/tests" timeout -k 10 "$limit" \
		python3 -u "$RUNNER" run "$root" "$raw" --dev "$DEV" --gid "$GID" -v \
		"${k[@]}") >"$log" 2>&1
}

# The generic modules: every test_*.py but those for one vendor's devices
# (mlx5, efa; irdma has only a base module).
modules() {
	local f m
	for f in "$root"/tests/test_*.py; do
		m=${f##*/test_}
		m=${m%.py}
		case $m in
		mlx5_* | efa* | irdma*) continue ;;
		esac
		echo "$m"
	done
}

# setup_pyverbs_ornic / setup_pyverbs_rxe: set DEV and GID (the RoCE v2 GID
# of the device's IPv4 address) for the loopback runs.
# setup_pyverbs_ornic / setup_pyverbs_rxe: set DEV and GID (the RoCE v2 GID
# of the device's IPv4 address) for the loopback runs, DEV2 and GID2 for the
# second device of the kind (its netdev in its own namespace).
# shellcheck disable=SC2329 # called as setup_pyverbs_$kind
setup_pyverbs_ornic() {
	setup_ornic || return 1
	set_devs ornic
}

# ornic_ib: the ornic InfiniBand port IB_DEV, driver and provider installed
# and the port brought ACTIVE by an SM (suites/ib.sh runs this suite so);
# GID 0 is its link-local GID.
# shellcheck disable=SC2329 # called as setup_pyverbs_$kind
setup_pyverbs_ornic_ib() {
	DEV=${IB_DEV:?} DEV2=$IB_DEV GID=0 GID2=0
	port_active "$DEV"
}

# shellcheck disable=SC2329 # called as setup_pyverbs_$kind
setup_pyverbs_rxe() {
	setup_rxe || return 1
	set_devs rxe
}

# shellcheck disable=SC2329 # called by the setup_pyverbs_* functions
set_devs() { # set_devs KIND
	DEV=$CDEV DEV2=$SDEV
	if ! wait_gid "$DEV" "$CIP" || ! wait_gid "$DEV2" "$SIP"; then
		fail "$1/setup" "no IPv4 GIDs on $DEV/$DEV2"
		return 1
	fi
	GID=$(gid_index "$DEV" "$CIP") GID2=$(gid_index "$DEV2" "$SIP")
}

# verbs_tools OUT: run every verbs-* tool, its lines prefixed "verbs/".
verbs_tools() {
	local out=$1 t name rc
	for t in "$tooldir"/verbs-*; do
		[ -x "$t" ] || continue
		name=${t##*/verbs-}
		rc=0
		timeout -k 10 600 "$t" "$DEV" "$GID" "$DEV2" "$GID2" >"/out/verbs-$kind-$name.log" 2>&1 || rc=$?
		# The tools' result lines (test-report.h), "PASS: name details".
		sed -n -E 's#^(PASS|FAIL|SKIP): #\1: verbs/#p' "/out/verbs-$kind-$name.log" >>"$out"
		# Status 1: some check failed (its FAIL line says which).
		if [ "$rc" -gt 1 ]; then
			echo "FAIL: verbs/$name/exit status $rc: $(tail -n 2 "/out/verbs-$kind-$name.log" | tr '\n' ' ')" >>"$out"
		fi
	done
}

# attrs_tool OUT: suites/attrs.c between the kind's two devices; on rxe its
# frames are captured on rxe0's netdev here and checked here, ornic's frames
# are in the model's capture, which the host checks (check-pyverbs.sh).
attrs_tool() {
	local out=$1 t=$tooldir/attrs rc=0 cap="" cpid=""
	[ -x "$t" ] || return 0
	if [ "$kind" = rxe ]; then
		cap=/out/attrs-rxe.pcap
		dumpcap -q -i veth0 -f 'udp port 4791' -w "$cap" >/out/attrs-dumpcap.log 2>&1 &
		cpid=$!
		sleep 2
	fi
	# The RDMA core gives unicast RoCE v2 frames their route's hop limit:
	# make it one no default has, so the wire check sees whose it is.
	local ttl4 ttl6 nd
	nd=$(rdma link show "$DEV/1" | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
	ttl4=$(sysctl -n net.ipv4.ip_default_ttl)
	ttl6=$(sysctl -n "net.ipv6.conf.$nd.hop_limit")
	sysctl -q -w net.ipv4.ip_default_ttl=7 "net.ipv6.conf.$nd.hop_limit=7"
	ATTRS_HOP_LIMIT=7 timeout -k 10 600 "$t" "$DEV" "$GID" "$DEV2" "$GID2" \
		"/out/attrs-$kind.wire" >"/out/attrs-$kind.log" 2>&1 || rc=$?
	sysctl -q -w "net.ipv4.ip_default_ttl=$ttl4" "net.ipv6.conf.$nd.hop_limit=$ttl6"
	sed -n -E 's#^(PASS|FAIL|SKIP): #\1: #p' "/out/attrs-$kind.log" >>"$out"
	[ "$rc" -gt 1 ] && echo "FAIL: attrs/run exit status $rc: $(tail -n 2 "/out/attrs-$kind.log" | tr '\n' ' ')" >>"$out"
	if [ -n "$cpid" ]; then
		sleep 1
		kill -INT "$cpid" 2>/dev/null
		wait "$cpid" 2>/dev/null
		python3 /src/qemu-tests/tools/attrs-wire.py attrs "$cap" "/out/attrs-$kind.wire" >>"$out" 2>&1
	fi
}

first=1
for kind in "$@"; do
	if ! "setup_pyverbs_$kind"; then
		first=0
		continue
	fi
	out=/out/pyverbs-$kind.txt
	: >"$out"
	[ "${TOOLS:-all}" = none ] || { attrs_tool "$out"; verbs_tools "$out"; }
	mods=${MODULES:-$(modules | tr '\n' ' ')}
	[ "$mods" = none ] && mods=""
	if [ -n "$mods" ]; then
		# One process for every module: each start imports the whole
		# suite, about 10 s under TCG.  Modules that a crash or timeout
		# kept from starting then run on their own.
		all=/out/pyverbs-$kind-all.raw
		rc=0
		# shellcheck disable=SC2086 # one word per module
		suite_run "$all" "/out/pyverbs-$kind-all.log" "$ALL_TIMEOUT" $mods || rc=$?
		# A file, not <(...): the guest has no /dev/fd.
		# shellcheck disable=SC2086
		python3 "$RUNNER" split "$all" "/out/pyverbs-$kind-" "$rc" $mods >"$all.states"
		reports=()
		while read -r m state; do
			raw=/out/pyverbs-$kind-$m.raw
			mrc=0
			case $state in
			crashed) mrc=$rc ;;
			missing) suite_run "$raw" "/out/pyverbs-$kind-$m.log" "$MODULE_TIMEOUT" "$m" || mrc=$? ;;
			esac
			reports+=("$m" "$raw" "$mrc")
		done <"$all.states"
		# Every module's lines from one python process.
		python3 "$RUNNER" report "$PREFIX" "${reports[@]}" >>"$out"
	fi
	if [ $first = 1 ]; then
		tee -a "$RESULTS" <"$out"
		first=0
	fi
	echo "pyverbs on $kind ($DEV, GID $GID): $(grep -c '^PASS' "$out") passed, $(grep -c '^FAIL' "$out") failed, $(grep -c '^SKIP' "$out") skipped"
done
exit 0
