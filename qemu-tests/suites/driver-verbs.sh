#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# driver-verbs.sh MODDIR VERBS_TOOL: the data-path verbs of the driver
# (driver-verbs.c through the raw uverbs ABI) against two linked ornic
# models: MRs, CQs, RC/UD QPs through their states, SRQs, AHs, bad input
# rejected with the right errno, an async event (SQ_DRAINED), and RDMA
# WRITEs through a looped-back RC QP (DIRECT and INDIRECT MRs, CQE in the
# pinned ring, completion channel event).  With kernel verbs the device is
# a kverbs provider: the MAD layer opens its GSI QP (QPN 1, in `rdma
# resource show qp`) and the port stays ACTIVE with no MAD errors logged.  A
# process killed with live objects, and rmmod under a process holding
# objects, leave nothing behind (kmemleak scan at the end).
set -uo pipefail
mo=$1
tool=$2
SUITE=driver
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh

if ! install_modules "$mo" || ! modprobe ornic || ! wait_for have_devs 2; then
	fail verbs-probe "driver did not come up: $(dmesg | grep -i ornic | tail -n 3 | tr '\n' ' ')"
	exit 1
fi
read -r -a nds <<<"$(ornic_netdevs | tr '\n' ' ')"
read -r -a ibs <<<"$(ornic_ibdevs | tr '\n' ' ')"
nd0=${nds[0]} ib0=${ibs[0]}
ip addr add 10.1.0.1/24 dev "$nd0"
ip link set "$nd0" up

if ! wait_for port_active "$ib0" || ! wait_gid "$ib0" 10.1.0.1; then
	fail verbs-setup "$ib0 not ACTIVE with a GID for 10.1.0.1: $(rdma link show 2>&1 | tr '\n' ' ')"
	exit 1
fi
gi=$(gid_index "$ib0" 10.1.0.1)
uv=$(uverbs_of "$ib0")

# --- kernel verbs: the MAD layer's GSI QP -------------------------------------------
# (WARNs anywhere fail the run in vm.sh.)
mad=$(dmesg | grep -E "(ib_mad|Couldn't)" | head -n 3 | tr '\n' ' ')
gsi=$(rdma resource show qp link "$ib0/1" 2>/dev/null | grep -E 'lqpn 1 .*type GSI' | tr -s ' ')
if [ -z "$mad" ] && [ -n "$gsi" ] && port_active "$ib0"; then
	pass verbs-gsi "the MAD layer's GSI QP is up ($gsi), no MAD errors, $ib0 port ACTIVE"
else
	fail verbs-gsi "GSI: ${gsi:-none}; port: $(rdma link show "$ib0/1" | tr -s ' '); MAD: ${mad:-none}"
fi

# --- positive and negative checks ---------------------------------------------------
"$tool" check "$uv" "$ib0" "$gi" >/out/verbs-check.txt 2>&1
rc=$?
while read -r status name details; do
	case $status in
	PASS:) pass "verbs-$name" "$details" ;;
	FAIL:) fail "verbs-$name" "$details" ;;
	SKIP:) skip "verbs-$name" "$details" ;;
	esac
done </out/verbs-check.txt
if [ $rc != 0 ] && ! grep -q '^FAIL' /out/verbs-check.txt; then
	fail verbs-tool "exit $rc: $(tail -n 3 /out/verbs-check.txt | tr '\n' ' ')"
fi
rdma statistic show link "$ib0/1" >/out/verbs-statistic.txt 2>&1

res_count() { # res_count IBDEV TYPE: user objects of `rdma res show TYPE` on IBDEV
	# Kernel objects (the MAD layer's GSI QP and its CQ) show comm [...].
	rdma res show "$2" 2>/dev/null | grep -E "(dev $1 |link $1/)" | grep -vc 'comm \[' || true
}

# --- a process killed with live objects ----------------------------------------------
rm -f /tmp/hold-go
mkfifo /tmp/hold-go
"$tool" hold "$uv" "$ib0" "$gi" </tmp/hold-go >/out/verbs-hold1.txt 2>&1 &
hpid=$!
exec 3>/tmp/hold-go
if wait_for grep -q held /out/verbs-hold1.txt; then
	held="qp $(res_count "$ib0" qp) cq $(res_count "$ib0" cq) mr $(res_count "$ib0" mr)"
	kill -KILL "$hpid"
	wait "$hpid" 2>/dev/null
	exec 3>&-
	# The core cleans up asynchronously after the fd's last reference.
	left=""
	for _ in $(seq 20); do
		left="qp $(res_count "$ib0" qp) cq $(res_count "$ib0" cq) mr $(res_count "$ib0" mr)"
		[ "$left" = "qp 0 cq 0 mr 0" ] && break
		sleep 0.5
	done
	if [ "$left" = "qp 0 cq 0 mr 0" ]; then
		pass verbs-killed-holder "held $held; after kill -9: $left"
	else
		fail verbs-killed-holder "held $held; after kill -9: $left"
	fi
else
	exec 3>&-
	kill "$hpid" 2>/dev/null
	fail verbs-killed-holder "$(tr '\n' ' ' </out/verbs-hold1.txt)"
fi

# --- rmmod while a process holds objects (disassociation) ------------------------------
"$tool" hold "$uv" "$ib0" "$gi" </tmp/hold-go >/out/verbs-hold2.txt 2>&1 &
hpid=$!
exec 3>/tmp/hold-go
if wait_for grep -q held /out/verbs-hold2.txt; then
	if timeout 120 modprobe -r ornic; then
		echo go >&3
		exec 3>&-
		if wait "$hpid" && grep -q released /out/verbs-hold2.txt; then
			pass verbs-rmmod-live-objects "rmmod with a QP, SRQ, CQ, MR and AH alive: objects disassociated, the process survived"
		else
			fail verbs-rmmod-live-objects "holder: $(tr '\n' ' ' </out/verbs-hold2.txt)"
		fi
	else
		exec 3>&-
		kill -KILL "$hpid" 2>/dev/null
		fail verbs-rmmod-live-objects "rmmod failed or hung with live objects"
	fi
else
	exec 3>&-
	kill "$hpid" 2>/dev/null
	fail verbs-rmmod-live-objects "$(tr '\n' ' ' </out/verbs-hold2.txt)"
fi
[ -d /sys/module/ornic ] && modprobe -r ornic

# --- kmemleak --------------------------------------------------------------------------
kml=/sys/kernel/debug/kmemleak
[ -e $kml ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
if [ -w $kml ]; then
	# Objects younger than ~5 s are not reported: scan twice.
	echo scan >$kml
	sleep 6
	echo scan >$kml
	cat $kml >/out/kmemleak.txt
	if grep -q ornic /out/kmemleak.txt; then
		fail verbs-kmemleak "$(grep -m3 ornic /out/kmemleak.txt | tr '\n' ' ')"
	else
		pass verbs-kmemleak "no leak with an ornic frame ($(grep -c unreferenced /out/kmemleak.txt) reports in all)"
	fi
else
	skip verbs-kmemleak "no $kml"
fi

dmesg >/out/dmesg.txt
grep -q '^FAIL' "$RESULTS" && exit 1
exit 0
