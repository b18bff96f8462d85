#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# datapath.sh TOOLDIR KIND... : the verbs data path with unmodified tools.
# For each KIND (ornic: the two linked ornic NICs, with MODDIR and
# PROVIDER_DIR in the environment; rxe: two rxe devices on a veth pair) the
# same tests run between two devices, one of them in its own network
# namespace: ibv_rc_pingpong (data checked, also with completion events and
# over an IPv6 GID), ibv_uc_pingpong, ibv_ud_pingpong, ibv_srq_pingpong,
# ibv_xsrq_pingpong (XRC; a SKIP on devices without XRC, such as rxe), perftest
# send/write/read/atomic bandwidth and latency, rdma_cm tools (rping,
# ucmatose, udaddy, mckey, ib_send_bw -R), RoCE v1, VLANs, DCB and PFC (ornic
# only) and the negative test
# (TOOLDIR/datapath-neg).  Parsed perftest rows go to /out/perf.txt as
# "KIND TEST ROW..." for the host to compare.
# The test groups below are called through "$t" (TESTS).
# shellcheck disable=SC2317,SC2329
set -uo pipefail
tooldir=$1
shift
SUITE=datapath
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh
. /src/qemu-tests/suites/datapath-lib.sh
PERF=/out/perf.txt
: >"$PERF"
# Short runs: these are TCG guests, the numbers are ratios, not records.
ITERS=${ITERS:-200}

tail_of() { tail -n 3 "/out/$1.client.log" "/out/$1.server.log" 2>/dev/null | tr '\n' ' '; }

pingpongs() { # pingpongs KIND
	local k=$1 cg sg cg6 sg6
	cg=$(gid_index "$CDEV" "$CIP") sg=$(gid_index "$SDEV" "$SIP")
	if pair "$k" rc_pingpong ibv_rc_pingpong -d "$SDEV" -g "$sg" -c -n "$ITERS" -s 4096 -- \
		-d "$CDEV" -g "$cg" -c -n "$ITERS" -s 4096; then
		pass "$k/rc_pingpong" "$ITERS x 4096 B, data checked: $(grep -m1 'Mbit/sec' "/out/$k-rc_pingpong.client.log")"
	else
		fail "$k/rc_pingpong" "$(tail_of "$k-rc_pingpong")"
	fi
	if pair "$k" rc_pingpong_events ibv_rc_pingpong -d "$SDEV" -g "$sg" -c -e -n 50 -s 1024 -- \
		-d "$CDEV" -g "$cg" -c -e -n 50 -s 1024; then
		pass "$k/rc_pingpong_events" "50 x 1024 B with completion channel events, data checked"
	else
		fail "$k/rc_pingpong_events" "$(tail_of "$k-rc_pingpong_events")"
	fi
	if cg6=$(gid_index_of "$CDEV" "$CIP6") && sg6=$(gid_index_of "$SDEV" "$SIP6") &&
		pair "$k" rc_pingpong_ipv6 ibv_rc_pingpong -d "$SDEV" -g "$sg6" -c -n 50 -s 4096 -- \
			-d "$CDEV" -g "$cg6" -c -n 50 -s 4096; then
		pass "$k/rc_pingpong_ipv6" "50 x 4096 B over IPv6 GIDs ($cg6 -> $sg6), data checked"
	else
		fail "$k/rc_pingpong_ipv6" "gids '${cg6:-}' '${sg6:-}': $(tail_of "$k-rc_pingpong_ipv6")"
	fi
	# UC: no ACKs and no retransmission; 4096-byte messages are 4 packets of
	# the path MTU, each checked.  A lost packet would hang the ping-pong.
	if pair "$k" uc_pingpong ibv_uc_pingpong -d "$SDEV" -g "$sg" -c -n "$ITERS" -s 4096 -- \
		-d "$CDEV" -g "$cg" -c -n "$ITERS" -s 4096; then
		pass "$k/uc_pingpong" "$ITERS x 4096 B over UC, data checked: $(grep -m1 'Mbit/sec' "/out/$k-uc_pingpong.client.log")"
	else
		fail "$k/uc_pingpong" "$(tail_of "$k-uc_pingpong")"
	fi
	# UD payloads must fit the path MTU (1024 with a 1500-byte Ethernet MTU).
	if pair "$k" ud_pingpong ibv_ud_pingpong -d "$SDEV" -g "$sg" -c -n "$ITERS" -s 512 -- \
		-d "$CDEV" -g "$cg" -c -n "$ITERS" -s 512; then
		pass "$k/ud_pingpong" "$ITERS x 512 B, data checked: $(grep -m1 'Mbit/sec' "/out/$k-ud_pingpong.client.log")"
	else
		fail "$k/ud_pingpong" "$(tail_of "$k-ud_pingpong")"
	fi
	if pair "$k" srq_pingpong ibv_srq_pingpong -d "$SDEV" -g "$sg" -c -q 4 -n 100 -s 4096 -- \
		-d "$CDEV" -g "$cg" -c -q 4 -n 100 -s 4096; then
		pass "$k/srq_pingpong" "4 QPs on one SRQ, 100 x 4096 B, data checked: $(grep -m1 'Mbit/sec' "/out/$k-srq_pingpong.client.log")"
	else
		fail "$k/srq_pingpong" "$(tail_of "$k-srq_pingpong")"
	fi
	# XRC: each side's XRC SRQ (in an XRC domain) is fed by the other's
	# initiator QP through a target QP; needs IBV_DEVICE_XRC on both.
	if ! has_xrc "$SDEV" || ! has_xrc "$CDEV"; then
		skip "$k/xsrq_pingpong" "$SDEV/$CDEV do not advertise XRC (IBV_DEVICE_XRC)"
	elif pair "$k" xsrq_pingpong ibv_xsrq_pingpong -d "$SDEV" -g "$sg" -n 100 -s 4096 -- \
		-d "$CDEV" -g "$cg" -n 100 -s 4096 &&
		grep -q '^success' "/out/$k-xsrq_pingpong.client.log" &&
		grep -q '^success' "/out/$k-xsrq_pingpong.server.log"; then
		pass "$k/xsrq_pingpong" "XRC SRQs through initiator/target QPs, 100 x 4096 B each way"
	else
		fail "$k/xsrq_pingpong" "$(tail_of "$k-xsrq_pingpong")"
	fi
}

# has_xrc DEV: whether DEV's device capabilities include XRC.
has_xrc() {
	ibv_devinfo -v -d "$1" 2>/dev/null | grep -qw XRC
}

perf() { # perf KIND NAME TOOL ARGS...
	local k=$1 name=$2 tool=$3 row try again="" sum cyc t0 wall=0
	for try in 1 2 3; do
		cyc=$(perftest_cycles "$tool" "$try")
		t0=$(date +%s%N)
		# shellcheck disable=SC2086 # -C or nothing
		if ! row=$(perf_row "$@" $cyc); then
			fail "$k/$name" "$(tail_of "$k-$name")$again"
			return
		fi
		if [ -z "$row" ]; then
			fail "$k/$name" "no result row: $(tail_of "$k-$name")$again"
			return
		fi
		if [ -n "$cyc" ]; then
			row=$(perftest_cycles_to_us "$row")
			again+=" (run 3 in TSC cycles, -C, converted at the guest's rate)"
		fi
		perftest_tsc_settle "/out/$k-$name.client.log" "$try" "$tool" "$t0" row again wall && break
	done
	[ "$wall" = 1 ] || echo "$k $name $row" >>"$PERF"
	if sum=$(perftest_judge "$tool" "$row"); then
		pass "$k/$name" "$sum$again"
	else
		fail "$k/$name" "$sum$again"
	fi
}

perftests() { # perftests KIND
	local k=$1 n=$ITERS
	perf "$k" write_bw_64k ib_write_bw -s 65536 -n "$n" --report_gbits
	perf "$k" write_bw_1m ib_write_bw -s 1048576 -n 20 --report_gbits
	perf "$k" send_bw_64k ib_send_bw -s 65536 -n "$n" --report_gbits
	perf "$k" read_bw_64k ib_read_bw -s 65536 -n "$n" --report_gbits
	perf "$k" atomic_bw ib_atomic_bw -n "$n" --report_gbits
	# Message rate on four QPs sharing one CQ, every WRITE signaled (-Q 1).
	# With make bench's release model the device once saw such a CQ full and
	# put it in error (the provider rang the consumer index too rarely once
	# the SQs ran from doorbell records); the sanitized model here is too
	# slow to show that, so this checks the point works, make bench its speed.
	perf "$k" msgrate_q4 ib_write_bw -s 64 -q 4 -Q 1 -n 5000 --report_gbits
	perf "$k" send_lat_2b ib_send_lat -s 2 -n "$n"
	perf "$k" write_lat_2b ib_write_lat -s 2 -n "$n"
	perf "$k" read_lat_2b ib_read_lat -s 2 -n "$n"
	perf "$k" atomic_lat ib_atomic_lat -n "$n"
}

# events KIND: completions slept for, not polled (perftest -e: wait in
# ibv_get_cq_event, re-arm the CQ, then poll once), as the kernel's ULPs
# and most applications wait.  perftest polls once per event, so a device
# that raised an event without a new completion behind it would leave a
# completion unpolled on every such round until the send queue is full.
events() {
	local k=$1
	perf "$k" send_lat_2b_event ib_send_lat -s 2 -n "$ITERS" -e
	perf "$k" send_bw_64k_event ib_send_bw -s 65536 -n "$ITERS" -e --report_gbits
}

negative() { # negative KIND
	local k=$1 cg sg rc=0
	cg=$(gid_index "$CDEV" "$CIP") sg=$(gid_index "$SDEV" "$SIP")
	timeout 600 "$tooldir/datapath-neg" "$CDEV" "$cg" "$SDEV" "$sg" >"/out/$k-neg.log" 2>&1 || rc=$?
	# '#' delimits: with '|' as the delimiter, \| would not be alternation.
	sed -n "s#^\(PASS\|FAIL\): \(.*\)#\1: $SUITE/$k/neg/\2#p" "/out/$k-neg.log" | tee -a "$RESULTS"
	if [ "$rc" = 0 ] && grep -q '^PASS: healthy-qp-after' "/out/$k-neg.log"; then
		pass "$k/neg" "access violations completed in error, the other QP kept working"
	else
		fail "$k/neg" "exit $rc: $(grep -v '^PASS' "/out/$k-neg.log" | tail -n 3 | tr '\n' ' ')"
	fi
}

# kverbs KIND: kernel verbs as a kernel ULP uses them, between the pair's two
# devices: the test module (qemu-tests/kverbs) checks SENDs of DMA-mapped
# buffers over kernel RC QPs, ring wrap, a kernel CQ resized under traffic
# (a SKIP where the core has no ib_resize_cq()), a CQ event and
# ib_drain_qp, all while it loads.
kverbs() {
	local k=$1 cg sg rc=0
	cg=$(gid_index "$CDEV" "$CIP") sg=$(gid_index "$SDEV" "$SIP")
	dmesg -c >/dev/null
	insmod "$tooldir/kverbs/ornic_kverbs_test.ko" client="$CDEV" server="$SDEV" \
		client_gid="$cg" server_gid="$sg" 2>"/out/$k-kverbs.log" || rc=$?
	rmmod ornic_kverbs_test 2>/dev/null
	dmesg | grep 'ornic_kverbs:' >>"/out/$k-kverbs.log"
	sed -n "s#.*ornic_kverbs: \(PASS\|FAIL\|SKIP\) \(.*\)#\1: $SUITE/$k/kverbs/\2#p" \
		"/out/$k-kverbs.log" | tee -a "$RESULTS"
	if [ "$rc" = 0 ] && grep -q 'PASS drain' "/out/$k-kverbs.log"; then
		pass "$k/kverbs" "kernel RC QPs $CDEV -> $SDEV: every check passed"
	else
		fail "$k/kverbs" "insmod exit $rc: $(tail -n 3 "/out/$k-kverbs.log" | tr '\n' ' ')"
	fi
}

# roce_mode DEV MODE: rdma_cm's default RoCE version for DEV's port 1
# ("IB/RoCE v1" or "RoCE v2"), set in its configfs directory and read back.
roce_mode() {
	local d=/sys/kernel/config/rdma_cm/$1 m
	[ -d "$d" ] || mkdir "$d" || return 1
	echo "$2" >"$d/ports/1/default_roce_mode" || return 1
	read -r m <"$d/ports/1/default_roce_mode" && [ "$m" = "$2" ]
}

# rocev1 KIND: RoCE v1 beside RoCE v2 (roce.rst, "RoCE v1").  The kernel
# gives each address a v1 GID next to its v2 one; the pingpongs, perftest
# and, with rdma_cm's default_roce_mode set to v1, rping, ib_send_bw -R and
# NVMe-oF run on them.  A v1 QP facing a v2 QP is refused by it as a real
# NIC's is: the client's retries run out (an error completion, counted as
# peer mismatches at the server) and nothing stays stuck.  The host checks
# the capture's v1 frames (check-datapath.sh).
rocev1() {
	local k=$1 cg sg sg2 rc=0 before after
	modprobe rdma_cm
	cg=$(gid_index "$CDEV" "$CIP" "IB/RoCE v1") sg=$(gid_index "$SDEV" "$SIP" "IB/RoCE v1")
	if [ -z "$cg" ] || [ -z "$sg" ]; then
		fail "$k/rocev1-gids" "no IB/RoCE v1 GID for $CIP/$SIP: $(grep -s . /sys/class/infiniband/"$CDEV"/ports/1/gid_attrs/types/* | head -n 6 | tr '\n' ' ')"
		return
	fi
	pass "$k/rocev1-gids" "$CDEV GID $cg and $SDEV GID $sg are IB/RoCE v1 (v2: $(gid_index "$CDEV" "$CIP"), $(gid_index "$SDEV" "$SIP"))"
	if pair "$k" rc_pingpong_v1 ibv_rc_pingpong -d "$SDEV" -g "$sg" -c -n 100 -s 4096 -- \
		-d "$CDEV" -g "$cg" -c -n 100 -s 4096; then
		pass "$k/rocev1-rc_pingpong" "100 x 4096 B over RoCE v1 GIDs ($cg -> $sg), data checked"
	else
		fail "$k/rocev1-rc_pingpong" "$(tail_of "$k-rc_pingpong_v1")"
	fi
	if pair "$k" ud_pingpong_v1 ibv_ud_pingpong -d "$SDEV" -g "$sg" -c -n 100 -s 512 -- \
		-d "$CDEV" -g "$cg" -c -n 100 -s 512; then
		pass "$k/rocev1-ud_pingpong" "100 x 512 B of UD over RoCE v1, data checked"
	else
		fail "$k/rocev1-ud_pingpong" "$(tail_of "$k-ud_pingpong_v1")"
	fi
	GID_TYPE="IB/RoCE v1" perf "$k" rocev1-write_bw_64k ib_write_bw -s 65536 -n "$ITERS" --report_gbits
	GID_TYPE="IB/RoCE v1" perf "$k" rocev1-send_lat_2b ib_send_lat -s 2 -n "$ITERS"

	# rdma_cm on v1: both devices default to it, then back to v2.
	if ! roce_mode "$CDEV" "IB/RoCE v1" || ! roce_mode "$SDEV" "IB/RoCE v1"; then
		fail "$k/rocev1-cm-mode" "cannot set default_roce_mode to IB/RoCE v1"
	else
		pass "$k/rocev1-cm-mode" "rdma_cm default_roce_mode of $CDEV and $SDEV reads IB/RoCE v1"
		if cm_pair "$k" rping_v1 7475 rping -s -a "$SIP" -p 7475 -V -C 50 -S 4096 -- \
			-c -a "$SIP" -p 7475 -V -C 50 -S 4096; then
			pass "$k/rocev1-cm_rping" "50 pings of 4096 B over an rdma_cm connection on RoCE v1, every byte verified"
		else
			fail "$k/rocev1-cm_rping" "$(tail_of "$k-rping_v1")"
		fi
		if cm_pair "$k" cm_send_bw_v1 18515 ib_send_bw -d "$SDEV" -R -F -s 65536 -n 100 --report_gbits -- \
			-d "$CDEV" -R -F -s 65536 -n 100 --report_gbits "$SIP" &&
			[ -n "$(perftest_row "/out/$k-cm_send_bw_v1.client.log")" ]; then
			pass "$k/rocev1-cm_send_bw" "ib_send_bw -R on RoCE v1: $(perftest_row "/out/$k-cm_send_bw_v1.client.log")"
		else
			fail "$k/rocev1-cm_send_bw" "$(tail_of "$k-cm_send_bw_v1")"
		fi
		NVME_SVCID=4421 nvmeof "$k-rocev1"
	fi
	if ! roce_mode "$CDEV" "RoCE v2" || ! roce_mode "$SDEV" "RoCE v2"; then
		fail "$k/rocev1-cm-mode-back" "cannot set default_roce_mode back to RoCE v2"
	fi

	# A v1 client against a v2 server QP.
	sg2=$(gid_index "$SDEV" "$SIP")
	before=$(rdma statistic show link "$SDEV/1" | tr ' ' '\n' | grep -A1 -x rx_peer_mismatch | tail -n 1)
	ip netns exec "$NS" timeout 60 ibv_rc_pingpong -d "$SDEV" -g "$sg2" -n 5 -s 64 \
		>"/out/$k-rocev1-mismatch.server.log" 2>&1 &
	local spid=$!
	if wait_listen "$NS" 18515; then
		timeout 60 ibv_rc_pingpong -d "$CDEV" -g "$cg" -n 5 -s 64 "$SIP" \
			>"/out/$k-rocev1-mismatch.client.log" 2>&1 || rc=$?
	fi
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	after=$(rdma statistic show link "$SDEV/1" | tr ' ' '\n' | grep -A1 -x rx_peer_mismatch | tail -n 1)
	if [ "$rc" != 0 ] && [ "$rc" != 124 ] &&
		grep -qi 'retry' "/out/$k-rocev1-mismatch.client.log" &&
		[ "${after:-0}" -gt "${before:-0}" ]; then
		pass "$k/rocev1-to-v2-refused" "v1 QP against a v2 QP: $(grep -m1 -i 'retry' "/out/$k-rocev1-mismatch.client.log"); server rx_peer_mismatch $before -> $after"
	else
		fail "$k/rocev1-to-v2-refused" "client exit $rc, rx_peer_mismatch ${before:-?} -> ${after:-?}: $(tail -n 3 "/out/$k-rocev1-mismatch.client.log" | tr '\n' ' ')"
	fi
	if pair "$k" rc_pingpong_after_v1 ibv_rc_pingpong -d "$SDEV" -g "$sg" -c -n 20 -s 1024 -- \
		-d "$CDEV" -g "$cg" -c -n 20 -s 1024; then
		pass "$k/rocev1-after-mismatch" "a new v1 pair works after the refused one"
	else
		fail "$k/rocev1-after-mismatch" "$(tail_of "$k-rc_pingpong_after_v1")"
	fi
}

# vlan KIND: RoCE over an 802.1Q VLAN (roce.rst, "VLANs"): a VLAN device on
# each port's netdev (VLAN 42, egress priority 5), whose addresses get GIDs
# of their own; RC and UD pingpongs on them with SL 5 (RoCEv2 and v1), and
# rping over rdma_cm, whose CM datagrams must come back with their tag for
# the core to find the VLAN's GID.  The host checks the capture's tags.
vlan() {
	local k=$1 cg sg cg1 sg1 cv=10.42.0.1 sv=10.42.0.2
	if ! ip link add link "$CND" name "$CND.42" type vlan id 42 egress-qos-map 0:5 ||
		! ip addr add "$cv/24" dev "$CND.42" || ! ip link set "$CND.42" up ||
		! ip netns exec "$NS" ip link add link "$SND" name "$SND.42" type vlan id 42 egress-qos-map 0:5 ||
		! ip netns exec "$NS" ip addr add "$sv/24" dev "$SND.42" ||
		! ip netns exec "$NS" ip link set "$SND.42" up; then
		fail "$k/vlan-setup" "cannot create VLAN 42 on $CND/$SND"
		return
	fi
	if ! wait_gid "$CDEV" "$cv" || ! wait_gid "$SDEV" "$sv"; then
		fail "$k/vlan-gids" "no GIDs for $cv/$sv"
		return
	fi
	cg=$(gid_index "$CDEV" "$cv") sg=$(gid_index "$SDEV" "$sv")
	cg1=$(gid_index "$CDEV" "$cv" "IB/RoCE v1") sg1=$(gid_index "$SDEV" "$sv" "IB/RoCE v1")
	local nd
	read -r nd <"/sys/class/infiniband/$CDEV/ports/1/gid_attrs/ndevs/$cg"
	if [ "$nd" = "$CND.42" ] && [ -n "$cg1" ] && [ -n "$sg1" ]; then
		pass "$k/vlan-gids" "$CDEV GIDs $cg (v2) and $cg1 (v1) on $nd, $SDEV GIDs $sg and $sg1"
	else
		fail "$k/vlan-gids" "GID $cg on '$nd', v1 GIDs '$cg1' '$sg1'"
	fi
	if SIP=$sv pair "$k" vlan_rc_pingpong ibv_rc_pingpong -d "$SDEV" -g "$sg" -l 5 -c -n 100 -s 4096 -- \
		-d "$CDEV" -g "$cg" -l 5 -c -n 100 -s 4096; then
		pass "$k/vlan-rc_pingpong" "100 x 4096 B over VLAN 42 GIDs with SL 5, data checked"
	else
		fail "$k/vlan-rc_pingpong" "$(tail_of "$k-vlan_rc_pingpong")"
	fi
	if SIP=$sv pair "$k" vlan_ud_pingpong ibv_ud_pingpong -d "$SDEV" -g "$sg" -l 5 -c -n 100 -s 512 -- \
		-d "$CDEV" -g "$cg" -l 5 -c -n 100 -s 512; then
		pass "$k/vlan-ud_pingpong" "100 x 512 B of UD over VLAN 42, data checked"
	else
		fail "$k/vlan-ud_pingpong" "$(tail_of "$k-vlan_ud_pingpong")"
	fi
	if SIP=$sv pair "$k" vlan_v1_pingpong ibv_rc_pingpong -d "$SDEV" -g "$sg1" -l 5 -c -n 100 -s 4096 -- \
		-d "$CDEV" -g "$cg1" -l 5 -c -n 100 -s 4096; then
		pass "$k/vlan-rocev1-rc_pingpong" "100 x 4096 B of RoCE v1 over VLAN 42, data checked"
	else
		fail "$k/vlan-rocev1-rc_pingpong" "$(tail_of "$k-vlan_v1_pingpong")"
	fi
	if cm_pair "$k" vlan_rping 7476 rping -s -a "$sv" -p 7476 -V -C 50 -S 4096 -- \
		-c -a "$sv" -p 7476 -V -C 50 -S 4096; then
		pass "$k/vlan-cm_rping" "50 pings of 4096 B over rdma_cm on VLAN 42, every byte verified"
	else
		fail "$k/vlan-cm_rping" "$(tail_of "$k-vlan_rping")"
	fi
	ip link del "$CND.42"
	ip netns exec "$NS" ip link del "$SND.42"
}

# dcb KIND: data center bridging on the ornic netdevs (ethernet.rst,
# "Priorities and lossless Ethernet") with iproute2's dcb: PFC, ETS and a
# DSCP APP entry set and read back, an ETS whose bandwidths do not add up
# refused with nothing changed, the settings kept over a link down/up with
# the device's own view (debugfs qos, read with QUERY_PORT_QOS) agreeing,
# ethtool -S's per-priority counters moved by VLAN traffic of priority 3 on
# both ends, and lldptool (lldpad) setting PFC the same way.
dcb_json() { # dcb_json KEY PRIO JSON: the value of KEY's entry PRIO, as text
	python3 -c '
import json, sys
def find(o, key):
    if isinstance(o, dict):
        if key in o:
            return o[key]
        o = list(o.values())
    if isinstance(o, list):
        for v in o:
            r = find(v, key)
            if r is not None:
                return r
    return None
v = find(json.loads(sys.argv[3]), sys.argv[1])
if isinstance(v, dict):
    v = v.get(sys.argv[2])
elif isinstance(v, list):
    v = v[int(sys.argv[2])]
print(str(v).lower())' "$@" 2>/dev/null
}
dcb_qos() { # dcb_qos KEY: the device's line KEY of debugfs qos, without KEY
	sed -n "s/^$1 //p" "/sys/kernel/debug/ornic/$CDEV/qos" 2>/dev/null
}
ethtool_stat() { # ethtool_stat [NS] NAME: NAME's value in ethtool -S of CND (or SND in NS)
	if [ $# = 2 ]; then
		ip netns exec "$1" ethtool -S "$SND" | awk -v n="$2:" '$1 == n { print $2 }'
	else
		ethtool -S "$CND" | awk -v n="$1:" '$1 == n { print $2 }'
	fi
}
dcb() {
	local k=$1 _ j on off before after qos
	if ! j=$(command dcb -j pfc show dev "$CND" 2>&1); then
		fail "$k/dcb-pfc-set-read" "dcb pfc show dev $CND: $j"
		return
	fi
	command dcb pfc set dev "$CND" prio-pfc 3:on
	on=$(dcb_json prio_pfc 3 "$(command dcb -j pfc show dev "$CND")")
	qos=$(dcb_qos pfc_enable)
	command dcb pfc set dev "$CND" prio-pfc 3:off
	off=$(dcb_json prio_pfc 3 "$(command dcb -j pfc show dev "$CND")")
	if [ "$on" = true ] && [ "$off" = false ] && [ "$qos" = 0x08 ]; then
		pass "$k/dcb-pfc-set-read" "prio-pfc 3:on reads back on (device pfc_enable $qos), 3:off reads off"
	else
		fail "$k/dcb-pfc-set-read" "3:on read '$on' (device '$qos'), 3:off read '$off'; $(command dcb -j pfc show dev "$CND" 2>&1 | head -c 300)"
	fi

	if command dcb ets set dev "$CND" prio-tc 0:0 1:0 2:0 3:1 4:0 5:0 6:0 7:0 \
		tc-tsa all:ets tc-bw 0:50 1:50 2:0 3:0 4:0 5:0 6:0 7:0 2>"/out/dcb-ets.err" &&
		j=$(command dcb -j ets show dev "$CND") &&
		[ "$(dcb_json prio_tc 3 "$j")" = 1 ] && [ "$(dcb_json prio_tc 2 "$j")" = 0 ] &&
		[ "$(dcb_json tc_bw 0 "$j")" = 50 ] && [ "$(dcb_json tc_bw 1 "$j")" = 50 ] &&
		[ "$(dcb_json tc_tsa 1 "$j")" = ets ] &&
		[ "$(dcb_qos prio_tc)" = "0 0 0 1 0 0 0 0" ] && [ "$(dcb_qos tc_bw)" = "50 50 0 0 0 0 0 0" ] &&
		[ "$(dcb_qos tc_tsa)" = "2 2 2 2 2 2 2 2" ]; then
		pass "$k/dcb-ets-set-read" "priority 3 in TC 1, TCs 0 and 1 ETS 50/50: read back, and the device holds it"
	else
		fail "$k/dcb-ets-set-read" "$(head -c 200 /out/dcb-ets.err) $(command dcb -j ets show dev "$CND" 2>&1 | head -c 300) device: $(tr '\n' ' ' <"/sys/kernel/debug/ornic/$CDEV/qos")"
	fi

	if command dcb ets set dev "$CND" tc-bw 0:60 1:50 2>"/out/dcb-bad-ets.err"; then
		fail "$k/dcb-bad-ets" "bandwidths 60 + 50 accepted: $(command dcb -j ets show dev "$CND" 2>&1 | head -c 300)"
	elif j=$(command dcb -j ets show dev "$CND") && [ "$(dcb_json tc_bw 0 "$j")" = 50 ] &&
		[ "$(dcb_qos tc_bw)" = "50 50 0 0 0 0 0 0" ]; then
		pass "$k/dcb-bad-ets" "tc-bw 0:60 1:50 refused ($(head -n 1 /out/dcb-bad-ets.err)), 50/50 kept in the driver and the device"
	else
		fail "$k/dcb-bad-ets" "refused, but now: $(command dcb -j ets show dev "$CND" 2>&1 | head -c 300) device tc_bw $(dcb_qos tc_bw)"
	fi

	command dcb app add dev "$CND" dscp-prio 26:3 2>"/out/dcb-app.err"
	j=$(command dcb -j app show dev "$CND" 2>&1)
	qos=$(dcb_qos dscp_prio)
	if [[ $j == *26*3* ]] && [ "$qos" = "26:3" ]; then
		pass "$k/dcb-app-set-read" "dscp-prio 26:3 reads back ($j), the device maps DSCP $qos"
	else
		fail "$k/dcb-app-set-read" "read '$j' device '$qos' $(head -c 200 /out/dcb-app.err)"
	fi

	command dcb pfc set dev "$CND" prio-pfc 3:on
	ip link set "$CND" down
	ip link set "$CND" up
	for _ in $(seq 50); do
		[ "$(cat "/sys/class/net/$CND/carrier" 2>/dev/null)" = 1 ] && break
		sleep 0.2
	done
	j=$(command dcb -j pfc show dev "$CND")
	if [ "$(dcb_json prio_pfc 3 "$j")" = true ] && [ "$(dcb_qos pfc_enable)" = 0x08 ] &&
		[ "$(dcb_qos prio_tc)" = "0 0 0 1 0 0 0 0" ] && [ "$(dcb_qos dscp_prio)" = "26:3" ]; then
		pass "$k/dcb-survives-link" "after link down/up: PFC on 3, priority 3 in TC 1, DSCP 26 -> 3 in dcb and in the device's QUERY_PORT_QOS"
	else
		fail "$k/dcb-survives-link" "dcb: $(echo "$j" | head -c 200) device: $(tr '\n' ' ' <"/sys/kernel/debug/ornic/$CDEV/qos")"
	fi

	# Priority 3 on the wire: a VLAN whose egress-qos-map sends priority 0 as PCP 3.
	local cv=10.43.0.1 sv=10.43.0.2 ctx srx cg sg roce=no
	if ! ip link add link "$CND" name "$CND.43" type vlan id 43 egress-qos-map 0:3 ||
		! ip addr add "$cv/24" dev "$CND.43" || ! ip link set "$CND.43" up ||
		! ip netns exec "$NS" ip link add link "$SND" name "$SND.43" type vlan id 43 egress-qos-map 0:3 ||
		! ip netns exec "$NS" ip addr add "$sv/24" dev "$SND.43" ||
		! ip netns exec "$NS" ip link set "$SND.43" up; then
		fail "$k/dcb-prio-counters" "cannot create VLAN 43 on $CND/$SND"
	else
		before=$(ethtool_stat tx_prio3_packets) srx=$(ethtool_stat "$NS" rx_prio3_packets)
		ping -c 20 -i 0.05 -W 2 "$sv" >/out/dcb-ping.log 2>&1
		# RoCE with SL 3 on the VLAN is priority 3 as well.
		if wait_gid "$CDEV" "$cv" && wait_gid "$SDEV" "$sv"; then
			cg=$(gid_index "$CDEV" "$cv") sg=$(gid_index "$SDEV" "$sv")
			SIP=$sv pair "$k" dcb_rc_pingpong ibv_rc_pingpong -d "$SDEV" -g "$sg" -l 3 -c -n 50 -s 4096 -- \
				-d "$CDEV" -g "$cg" -l 3 -c -n 50 -s 4096 && roce=yes
		fi
		after=$(ethtool_stat tx_prio3_packets)
		ctx=$(ethtool_stat "$NS" rx_prio3_packets)
		if [ -n "$before" ] && [ "$((after - before))" -ge 120 ] && [ "$((ctx - srx))" -ge 120 ] &&
			grep -q ' 0% packet loss' /out/dcb-ping.log && [ "$roce" = yes ]; then
			pass "$k/dcb-prio-counters" "20 pings and 50 x 4096 B of RC with SL 3 on VLAN 43 (PCP 3): $CND tx_prio3_packets $before -> $after, $SND rx_prio3_packets $srx -> $ctx"
		else
			fail "$k/dcb-prio-counters" "tx_prio3_packets '$before' -> '$after', peer rx_prio3_packets '$srx' -> '$ctx', RoCE pingpong $roce; $(tail -n 2 /out/dcb-ping.log | tr '\n' ' ')"
		fi
		ip link del "$CND.43"
		ip netns exec "$NS" ip link del "$SND.43"
	fi

	dcb_lldptool "$k"

	# Back to the defaults for the parts after this one.
	command dcb app del dev "$CND" dscp-prio 26:3
	command dcb pfc set dev "$CND" prio-pfc all:off
	command dcb ets set dev "$CND" prio-tc all:0 tc-tsa all:strict tc-bw all:0
}

# lldptool drives the same dcbnl operations through lldpad (host DCBX, IEEE).
dcb_lldptool() {
	local k=$1 _ j pid
	if ! command -v lldpad >/dev/null || ! command -v lldptool >/dev/null; then
		skip "$k/dcb-lldptool" "no lldpad/lldptool in the guest"
		return
	fi
	command dcb pfc set dev "$CND" prio-pfc all:off
	lldpad -d >/out/lldpad.log 2>&1
	for _ in $(seq 50); do
		lldptool -p >/dev/null 2>&1 && break
		sleep 0.2
	done
	lldptool set-lldp -i "$CND" adminStatus=rxtx >/out/lldptool.log 2>&1
	lldptool -T -i "$CND" -V PFC enabled=3 >>/out/lldptool.log 2>&1
	for _ in $(seq 50); do
		j=$(command dcb -j pfc show dev "$CND")
		[ "$(dcb_json prio_pfc 3 "$j")" = true ] && break
		sleep 0.2
	done
	if [ "$(dcb_json prio_pfc 3 "$j")" = true ] && [ "$(dcb_qos pfc_enable)" = 0x08 ]; then
		pass "$k/dcb-lldptool" "lldptool -T -V PFC enabled=3 through lldpad: PFC on priority 3 in dcb and the device"
	else
		fail "$k/dcb-lldptool" "after lldptool: $(echo "$j" | head -c 200) device pfc_enable $(dcb_qos pfc_enable); $(tail -n 3 /out/lldptool.log | tr '\n' ' ')"
	fi
	lldptool -T -i "$CND" -V PFC enabled=none >/dev/null 2>&1
	lldptool set-lldp -i "$CND" adminStatus=disabled >/dev/null 2>&1
	pid=$(tr -d '\0' 2>/dev/null </var/run/lldpad.pid)
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	sleep 0.5
}

# pfc KIND: priority flow control between the second pair of ornic NICs
# (ethernet.rst, "Priorities and lossless Ethernet"; operations.rst, "PFC").
# check-datapath.sh gives that pair's receiver (model 3) a port that drains at
# 20 Mbit/s from 1 MiB per priority, below what the sender puts on the wire.
# RoCE runs on a VLAN with SL 3 (PCP 3).  With dcb's prio-pfc 3:on on both netdevs the receiver
# pauses the sender: an RC run drops nothing and retransmits nothing while
# both ends count pause frames.  With PFC off the same run drops and RC
# recovers by retransmission, data intact.  Priority 1 beside a lossless
# priority 3 drops while 3 does not.  A pause storm the guest sends at the
# receiver trips its watchdog (--pfc-watchdog 50): traffic it was asked to
# stop flows during the storm and after it.  Bad MAC control frames from the
# guest are consumed by the port, and a QP on priority 1 keeps working.
# The receiver's port also marks ECN CE past 16 KiB of a priority's buffer
# (--port-rx-ecn), below XOFF, as a switch does in front of a slow port.  The
# runs above keep its notification point off (np_enable 0: marks counted, no
# CNP), so PFC alone keeps them lossless.  Then the same write run with DCQCN
# on both ends: CE marks, CNPs sent and handled, the sender's QP rate cut,
# nothing dropped or sent again, and its pause frames against the run
# without CNPs (reported, not judged: under TCG the count depends on timing).
# check-datapath.sh checks the capture's PFC frames in tshark and the
# model's own counts (watchdog trips, bad MAC control frames, ECN marks).
pfc_dev_counter() { # pfc_dev_counter DEV NAME: NAME of rdma statistic for DEV
	rdma statistic show link "$1/1" 2>/dev/null | tr ' ' '\n' | grep -A1 -x "$2" | tail -n 1
}
# pfc_read ARRAY: the counters the part judges, into associative ARRAY.
pfc_read() {
	local -n c=$1
	local p
	for p in 1 3; do
		c["c_rx${p}_pause"]=$(ethtool_stat "rx_prio${p}_pause")
		c["c_tx${p}_discards"]=$(ethtool_stat "tx_prio${p}_discards")
		c["s_tx${p}_pause"]=$(ethtool_stat "$NS" "tx_prio${p}_pause")
		c["s_rx${p}_discards"]=$(ethtool_stat "$NS" "rx_prio${p}_discards")
		c["s_rx${p}_pause"]=$(ethtool_stat "$NS" "rx_prio${p}_pause")
	done
	c["c_rx3_pause_duration"]=$(ethtool_stat rx_prio3_pause_duration)
	c["c_retransmits"]=$(pfc_dev_counter "$CDEV" retransmits)
	c["s_retransmits"]=$(pfc_dev_counter "$SDEV" retransmits)
	c["s_ce"]=$(pfc_dev_counter "$SDEV" cc_ce_received)
	c["s_cnps_sent"]=$(pfc_dev_counter "$SDEV" cc_cnps_sent)
	c["c_cnps_handled"]=$(pfc_dev_counter "$CDEV" cc_cnps_handled)
	c["s_bad_icrc"]=$(pfc_dev_counter "$SDEV" rx_bad_icrc)
}
# pfc_cc DEV KNOB [VALUE]: DEV's congestion control knob KNOB (debugfs cc/),
# read or written.
pfc_cc() {
	local f=/sys/kernel/debug/ornic/$1/cc/$2
	if [ $# = 3 ]; then echo "$3" >"$f"; else cat "$f"; fi
}
# pfc_rates DEV: until killed, every 0.1 s, the nonzero QP rates (Mbit/s)
# DEV's cc/qp_rates shows, one a line.
pfc_rates() {
	while :; do
		awk '$4 > 0 { print $4 }' "/sys/kernel/debug/ornic/$1/cc/qp_rates" 2>/dev/null
		sleep 0.1
	done
}
# pfc_delta NAME: how much counter NAME grew between arrays pb and pa.
pfc_delta() { echo $((${pa[$1]:-0} - ${pb[$1]:-0})); }
# pfc_set on|off: PFC on priority 3 of both netdevs (and nothing else).
pfc_set() {
	command dcb pfc set dev "$CND" prio-pfc all:off 3:"$1" &&
		ip netns exec "$NS" dcb pfc set dev "$SND" prio-pfc all:off 3:"$1"
}
# pfc_bw NAME PORT SL ARGS...: ib_write_bw on the pair's VLAN GIDs with service
# level SL, its server listening on PORT, in the background, with an ACK
# timeout of 1.07 s (-u 18) that the slow receiver's full buffer (420 ms)
# never reaches;
# pfc_bw_wait NAME waits for it (status: the client's).
pfc_bw() {
	local name=$1 port=$2 sl=$3 cg sg
	shift 3
	cg=$(gid_index "$CDEV" "$CIP") sg=$(gid_index "$SDEV" "$SIP")
	ip netns exec "$NS" timeout 300 ib_write_bw -d "$SDEV" -x "$sg" -F -S "$sl" -p "$port" -u 18 "$@" \
		>"/out/ornic-$name.server.log" 2>&1 &
	if ! wait_listen "$NS" "$port"; then
		echo "server did not start" >"/out/ornic-$name.client.log"
		return 1
	fi
	timeout 300 ib_write_bw -d "$CDEV" -x "$cg" -F -S "$sl" -p "$port" -u 18 "$@" "$SIP" \
		>"/out/ornic-$name.client.log" 2>&1 &
	echo $! >"/out/ornic-$name.pid"
}
pfc_bw_wait() {
	local rc=0
	wait "$(cat "/out/ornic-$1.pid")" || rc=$?
	[ "$rc" = 0 ] && [ -n "$(perftest_row "/out/ornic-$1.client.log")" ]
}
# pfc_bw_gbits NAME: the average Gb/s of NAME's perftest row.
pfc_bw_gbits() { perftest_row "/out/ornic-$1.client.log" | awk '{ print $4 }'; }
# pfc_frames DEV KIND [SECONDS]: MAC control frames from DEV through a packet
# socket: "storm" (PFC stopping priority 3 for 0xffff quanta, every 10 ms
# for SECONDS or until killed), "bad" (a PFC frame with reserved class-enable
# bits set, an unknown opcode and a 1000-byte PFC frame, each five times,
# from 02:00:00:00:0b:ad).
pfc_frames() {
	# exec: in the background, $! is then the sender itself.
	exec python3 - "$@" <<'PY'
import socket, struct, sys, time
dev, kind = sys.argv[1], sys.argv[2]
seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 600
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((dev, 0))
mine, bad = s.getsockname()[4], bytes.fromhex("020000000bad")
dst = bytes.fromhex("0180c2000001")
def pfc(src, vector, t3, size=60):
    f = dst + src + struct.pack("!HHH8H", 0x8808, 0x0101, vector, 0, 0, 0, t3, 0, 0, 0, 0)
    return f + bytes(size - len(f))
if kind == "storm":
    end, n = time.monotonic() + seconds, 0
    while time.monotonic() < end:
        s.send(pfc(mine, 0x08, 0xffff))
        n += 1
        time.sleep(0.01)
    print(n)
else:
    unknown = dst + bad + struct.pack("!HH", 0x8808, 0x00ff)
    frames = [pfc(bad, 0xff08, 0), unknown + bytes(60 - len(unknown)), pfc(bad, 0x00, 0, 1000)]
    for f in frames * 5:
        s.send(f)
        time.sleep(0.01)
    print(len(frames) * 5)
PY
}
# pfc_listen SECONDS: MAC control frames that reach SND (in NS) in SECONDS.
pfc_listen() {
	ip netns exec "$NS" python3 - "$SND" "$1" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x8808))
s.bind((sys.argv[1], 0))
s.settimeout(0.2)
end, n = time.monotonic() + float(sys.argv[2]), 0
while time.monotonic() < end:
    try:
        s.recv(2048)
        n += 1
    except socket.timeout:
        pass
print(n)
PY
}
pfc() {
	local k=$1 save=("$CDEV" "$SDEV" "$CND" "$SND" "$NS" "$CIP" "$SIP")
	if [ -z "${PFC_CDEV:-}" ] || [ -z "${PFC_SND:-}" ]; then
		fail "$k/pfc-setup" "no second ornic pair (check-datapath.sh starts four models)"
		return
	fi
	CDEV=$PFC_CDEV SDEV=$PFC_SDEV CND=$PFC_CND SND=$PFC_SND NS=ornicpfc
	CIP=10.44.0.1 SIP=10.44.0.2
	if ! ip netns add "$NS" || ! ip link set "$SND" netns "$NS" ||
		! ip link set "$CND" up || ! ip netns exec "$NS" ip link set "$SND" up ||
		! ip netns exec "$NS" ip link set lo up ||
		! ip link add link "$CND" name "$CND.44" type vlan id 44 ||
		! ip addr add "$CIP/24" dev "$CND.44" || ! ip link set "$CND.44" up ||
		! ip netns exec "$NS" ip link add link "$SND" name "$SND.44" type vlan id 44 ||
		! ip netns exec "$NS" ip addr add "$SIP/24" dev "$SND.44" ||
		! ip netns exec "$NS" ip link set "$SND.44" up ||
		! wait_for port_active "$CDEV" || ! wait_for port_active "$SDEV" ||
		! wait_gid "$CDEV" "$CIP" || ! wait_gid "$SDEV" "$SIP"; then
		fail "$k/pfc-setup" "cannot set up VLAN 44 on $CND/$SND with GIDs"
	else
		pass "$k/pfc-setup" "$CDEV ($CND) -> $SDEV ($SND, in netns $NS, receiver drains at 20 Mbit/s), RoCE on VLAN 44"
		pfc_runs "$k"
		pfc_cc "$SDEV" np_enable 1
	fi
	command dcb pfc set dev "$CND" prio-pfc all:off
	ip netns exec "$NS" dcb pfc set dev "$SND" prio-pfc all:off
	CDEV=${save[0]} SDEV=${save[1]} CND=${save[2]} SND=${save[3]} NS=${save[4]}
	CIP=${save[5]} SIP=${save[6]}
}
pfc_runs() {
	local k=$1 cg sg ok bw sent seen storm base
	local -A pb pa
	cg=$(gid_index "$CDEV" "$CIP") sg=$(gid_index "$SDEV" "$SIP")
	# PFC alone first: CE marks reach the receiver but it sends no CNP.
	if ! pfc_cc "$SDEV" np_enable 0; then
		fail "$k/pfc-setup-cc" "cannot write $SDEV's cc/np_enable"
		return
	fi

	# Lossless: a write bandwidth run (with an ACK timeout no buffer reaches:
	# nothing may drop, nothing may be sent again), then ping-pongs of 64 KiB
	# with their data checked (nothing may drop; ibv_rc_pingpong's fixed ACK
	# timeout, 67 ms, is near what a message and the pauses around it take
	# through a 20 Mbit/s receiver, so its retransmissions are reported only).
	if ! pfc_set on; then
		fail "$k/pfc-lossless" "dcb pfc set prio-pfc 3:on failed"
		return
	fi
	pfc_read pb
	ok=yes
	pfc_bw lossless 18515 3 -s 65536 -n 100 --report_gbits && pfc_bw_wait lossless || ok=no
	pfc_read pa
	bw=$(pfc_bw_gbits lossless)
	base="pause frames +$(pfc_delta s_tx3_pause) (paused $(pfc_delta c_rx3_pause_duration) us) at ${bw:-?} Gb/s, CE marks +$(pfc_delta s_ce)"
	if [ "$ok" = yes ] && [ "$(pfc_delta s_rx3_discards)" = 0 ] && [ "$(pfc_delta c_tx3_discards)" = 0 ] &&
		[ "$(pfc_delta c_retransmits)" = 0 ] && [ "$(pfc_delta s_retransmits)" = 0 ] &&
		[ "$(pfc_delta s_tx3_pause)" -gt 0 ] && [ "$(pfc_delta c_rx3_pause)" -gt 0 ]; then
		pass "$k/pfc-lossless" "PFC on 3: ib_write_bw 100 x 64 KiB with SL 3 into a 20 Mbit/s receiver at ${bw:-?} Gb/s: 0 discards (rx or tx), 0 retransmits; receiver tx_prio3_pause +$(pfc_delta s_tx3_pause), sender rx_prio3_pause +$(pfc_delta c_rx3_pause) (paused $(pfc_delta c_rx3_pause_duration) us); CE marks +$(pfc_delta s_ce), no CNP (np_enable 0)"
	else
		fail "$k/pfc-lossless" "completed: $ok; discards rx +$(pfc_delta s_rx3_discards) tx +$(pfc_delta c_tx3_discards), retransmits +$(pfc_delta c_retransmits)/+$(pfc_delta s_retransmits), pause tx +$(pfc_delta s_tx3_pause) rx +$(pfc_delta c_rx3_pause); $(tail -n 2 /out/ornic-lossless.client.log | tr '\n' ' ')"
	fi
	pfc_read pb
	ok=yes
	pair "$k" pfc_lossless_pingpong ibv_rc_pingpong -d "$SDEV" -g "$sg" -l 3 -c -n 20 -s 65536 -- \
		-d "$CDEV" -g "$cg" -l 3 -c -n 20 -s 65536 || ok=no
	pfc_read pa
	if [ "$ok" = yes ] && [ "$(pfc_delta s_rx3_discards)" = 0 ] && [ "$(pfc_delta c_tx3_discards)" = 0 ]; then
		pass "$k/pfc-lossless-data" "PFC on 3: 20 x 64 KiB RC ping-pongs with SL 3, data checked: 0 discards (rx or tx); pause frames +$(pfc_delta s_tx3_pause), retransmits +$(pfc_delta c_retransmits)/+$(pfc_delta s_retransmits) (ACK timeouts, not drops)"
	else
		fail "$k/pfc-lossless-data" "completed: $ok; discards rx +$(pfc_delta s_rx3_discards) tx +$(pfc_delta c_tx3_discards); $(tail_of ornic-pfc_lossless_pingpong)"
	fi

	pfc_ecn_runs "$k" "$cg" "$sg" "$base"

	# Lossy: the same write run with PFC off, then ping-pongs of 2 MiB, twice
	# the buffer (data checked).
	pfc_set off
	pfc_read pb
	ok=yes
	pfc_bw lossy 18515 3 -s 65536 -n 100 --report_gbits && pfc_bw_wait lossy || ok=no
	pfc_read pa
	bw=$(pfc_bw_gbits lossy)
	if [ "$ok" = yes ] && [ "$(pfc_delta s_rx3_discards)" -gt 0 ] &&
		[ "$(pfc_delta c_retransmits)" -gt 0 ] && [ "$(pfc_delta s_tx3_pause)" = 0 ]; then
		pass "$k/pfc-off-lossy" "PFC off: ib_write_bw 100 x 64 KiB with SL 3 completes at ${bw:-?} Gb/s: receiver rx_prio3_discards +$(pfc_delta s_rx3_discards), sender retransmits +$(pfc_delta c_retransmits), no pause frames"
	else
		fail "$k/pfc-off-lossy" "completed: $ok; discards +$(pfc_delta s_rx3_discards), retransmits +$(pfc_delta c_retransmits), pause +$(pfc_delta s_tx3_pause); $(tail -n 2 /out/ornic-lossy.client.log | tr '\n' ' ')"
	fi
	pfc_read pb
	ok=yes
	pair "$k" pfc_lossy_pingpong ibv_rc_pingpong -d "$SDEV" -g "$sg" -l 3 -c -n 3 -s 2097152 -- \
		-d "$CDEV" -g "$cg" -l 3 -c -n 3 -s 2097152 || ok=no
	pfc_read pa
	if [ "$ok" = yes ] && [ "$(pfc_delta s_rx3_discards)" -gt 0 ] &&
		[ "$(pfc_delta c_retransmits)" -gt 0 ]; then
		pass "$k/pfc-off-lossy-data" "PFC off: 3 x 2 MiB RC ping-pongs with SL 3 complete with their data checked: receiver rx_prio3_discards +$(pfc_delta s_rx3_discards), sender retransmits +$(pfc_delta c_retransmits)"
	else
		fail "$k/pfc-off-lossy-data" "completed: $ok; discards +$(pfc_delta s_rx3_discards), retransmits +$(pfc_delta c_retransmits); $(tail_of ornic-pfc_lossy_pingpong)"
	fi

	# Priority 1 (lossy) beside priority 3 (lossless), at the same time.
	pfc_set on
	pfc_read pb
	ok=yes
	pfc_bw mixed3 18515 3 -s 65536 -n 100 --report_gbits || ok="no (priority 3 start)"
	pfc_bw mixed1 18516 1 -s 65536 -n 100 --report_gbits || ok="no (priority 1 start)"
	pfc_bw_wait mixed3 || ok="no (priority 3)"
	pfc_bw_wait mixed1 || ok="no (priority 1)"
	pfc_read pa
	if [ "$ok" = yes ] && [ "$(pfc_delta s_rx3_discards)" = 0 ] && [ "$(pfc_delta s_rx1_discards)" -gt 0 ] &&
		[ "$(pfc_delta s_tx3_pause)" -gt 0 ] && [ "$(pfc_delta s_tx1_pause)" = 0 ]; then
		pass "$k/pfc-lossy-beside-lossless" "ib_write_bw with SL 3 ($(pfc_bw_gbits mixed3) Gb/s) and SL 1 ($(pfc_bw_gbits mixed1) Gb/s) at once: priority 3 (PFC) rx_prio3_discards 0, tx_prio3_pause +$(pfc_delta s_tx3_pause); priority 1 (no PFC) rx_prio1_discards +$(pfc_delta s_rx1_discards), recovered by $(pfc_delta c_retransmits) retransmits"
	else
		fail "$k/pfc-lossy-beside-lossless" "completed: $ok; discards prio 3 +$(pfc_delta s_rx3_discards) prio 1 +$(pfc_delta s_rx1_discards), pause prio 3 +$(pfc_delta s_tx3_pause) prio 1 +$(pfc_delta s_tx1_pause); $(tail -n 2 /out/ornic-mixed1.client.log | tr '\n' ' ')"
	fi

	# A pause storm at the receiver: the guest asks it to stop priority 3 every
	# 10 ms.  Its watchdog (50 ms) stops honouring that, so a ping-pong on
	# priority 3 runs through the storm, and another after it.
	pfc_read pb
	(pfc_frames "$CND" storm 600 >/out/pfc-storm.log 2>&1) &
	storm=$!
	sleep 1
	ok=yes
	pair "$k" pfc_storm_pingpong ibv_rc_pingpong -d "$SDEV" -g "$sg" -l 3 -c -n 50 -s 4096 -- \
		-d "$CDEV" -g "$cg" -l 3 -c -n 50 -s 4096 || ok="no (during the storm)"
	kill -TERM "$storm" 2>/dev/null
	wait "$storm"
	pfc_read pa
	sleep 0.5
	pair "$k" pfc_after_storm_pingpong ibv_rc_pingpong -d "$SDEV" -g "$sg" -l 3 -c -n 50 -s 4096 -- \
		-d "$CDEV" -g "$cg" -l 3 -c -n 50 -s 4096 || ok="no (after the storm)"
	if [ "$ok" = yes ] && [ "$(pfc_delta s_rx3_pause)" -gt 10 ]; then
		pass "$k/pfc-watchdog" "a pause storm on priority 3 (receiver rx_prio3_pause +$(pfc_delta s_rx3_pause)): 50 x 4096 B RC ping-pongs with SL 3 complete during it and after it, data checked (the model's trip and recovery: datapath/pfc-watchdog-model)"
	else
		fail "$k/pfc-watchdog" "completed: $ok; storm frames counted +$(pfc_delta s_rx3_pause); $(tail_of ornic-pfc_storm_pingpong)"
	fi

	# Bad MAC control frames at the receiver, then a QP on priority 1.
	pfc_listen 6 >/out/pfc-listen.log 2>&1 &
	local lpid=$!
	sleep 2
	sent=$(pfc_frames "$CND" bad 2>&1)
	wait "$lpid"
	seen=$(cat /out/pfc-listen.log)
	if [ "$seen" = 0 ] && [[ $sent =~ ^[0-9]+$ ]] &&
		pair "$k" pfc_bad_input_pingpong ibv_rc_pingpong -d "$SDEV" -g "$sg" -l 1 -c -n 50 -s 4096 -- \
			-d "$CDEV" -g "$cg" -l 1 -c -n 50 -s 4096; then
		pass "$k/pfc-bad-mac-control" "$sent MAC control frames (reserved class-enable bits, unknown opcode 0x00ff, 1000 bytes long) sent at the receiver: none reached its netdev, then 50 x 4096 B RC ping-pongs with SL 1 complete (the model's counts: datapath/pfc-bad-mac-control-model)"
	else
		fail "$k/pfc-bad-mac-control" "sent '$sent', $seen reached $SND; $(tail_of ornic-pfc_bad_input_pingpong)"
	fi
}

# pfc_ecn_runs KIND CLIENT_GID SERVER_GID BASE: with PFC on priority 3, the
# lossless write run again with the receiver's notification point on and the
# sender's reaction point cut to the pair's 400 Mbit/s with its increase
# timer at 5 ms (the marks reach the receiver's NIC only after the buffer
# ahead of them has drained: milliseconds at 20 Mbit/s, where DCQCN's default
# 300 us would raise the rate again before a CNP could answer), then
# ping-pongs with their data checked.  BASE: the run without CNPs, reported
# beside this one.
pfc_ecn_runs() {
	local k=$1 cg=$2 sg=$3 base=$4 ok bw rates low knob
	local -A pb pa saved
	local knobs=(rp_enable rp_max_rate rp_time_reset rp_ai_rate rp_hai_rate)
	for knob in "${knobs[@]}"; do
		saved[$knob]=$(pfc_cc "$CDEV" "$knob")
	done
	if ! pfc_cc "$CDEV" rp_enable 1 || ! pfc_cc "$CDEV" rp_max_rate 400 ||
		! pfc_cc "$CDEV" rp_time_reset 5000 || ! pfc_cc "$CDEV" rp_ai_rate 2 ||
		! pfc_cc "$CDEV" rp_hai_rate 10 || ! pfc_cc "$SDEV" np_enable 1; then
		fail "$k/pfc-ecn-dcqcn" "cannot set the DCQCN knobs of $CDEV/$SDEV"
	else
		pfc_read pb
		ok=yes
		pfc_rates "$CDEV" >/out/pfc-ecn-rates.txt &
		rates=$!
		pfc_bw ecn 18517 3 -s 65536 -n 100 --report_gbits && pfc_bw_wait ecn || ok=no
		kill "$rates" 2>/dev/null
		wait "$rates" 2>/dev/null
		pfc_read pa
		bw=$(pfc_bw_gbits ecn)
		low=$(sort -n /out/pfc-ecn-rates.txt | head -n 1)
		if [ "$ok" = yes ] && [ "$(pfc_delta s_rx3_discards)" = 0 ] && [ "$(pfc_delta c_tx3_discards)" = 0 ] &&
			[ "$(pfc_delta c_retransmits)" = 0 ] && [ "$(pfc_delta s_retransmits)" = 0 ] &&
			[ "$(pfc_delta s_ce)" -gt 0 ] && [ "$(pfc_delta s_cnps_sent)" -gt 0 ] &&
			[ "$(pfc_delta c_cnps_handled)" -gt 0 ] && [ -n "$low" ] && [ "$low" -lt 400 ] &&
			[ "$(pfc_delta s_bad_icrc)" = 0 ]; then
			pass "$k/pfc-ecn-dcqcn" "PFC and ECN on 3: ib_write_bw 100 x 64 KiB with SL 3 into a 20 Mbit/s receiver at ${bw:-?} Gb/s: receiver cc_ce_received +$(pfc_delta s_ce), cc_cnps_sent +$(pfc_delta s_cnps_sent), sender cc_cnps_handled +$(pfc_delta c_cnps_handled), sender QP rate cut to $low Mbit/s (cc/qp_rates, from 400); 0 discards (rx or tx), 0 retransmits, 0 bad ICRC (marked frames verify); pause frames +$(pfc_delta s_tx3_pause) (paused $(pfc_delta c_rx3_pause_duration) us), against $base without CNPs (pfc-lossless)"
		else
			fail "$k/pfc-ecn-dcqcn" "completed: $ok; CE +$(pfc_delta s_ce), CNPs sent +$(pfc_delta s_cnps_sent) handled +$(pfc_delta c_cnps_handled), lowest rate '${low:-none}', bad ICRC +$(pfc_delta s_bad_icrc); discards rx +$(pfc_delta s_rx3_discards) tx +$(pfc_delta c_tx3_discards), retransmits +$(pfc_delta c_retransmits)/+$(pfc_delta s_retransmits), pause +$(pfc_delta s_tx3_pause); $(tail -n 2 /out/ornic-ecn.client.log | tr '\n' ' ')"
		fi
		pfc_read pb
		ok=yes
		pair "$k" pfc_ecn_pingpong ibv_rc_pingpong -d "$SDEV" -g "$sg" -l 3 -c -n 20 -s 65536 -- \
			-d "$CDEV" -g "$cg" -l 3 -c -n 20 -s 65536 || ok=no
		pfc_read pa
		if [ "$ok" = yes ] && [ "$(pfc_delta s_rx3_discards)" = 0 ] && [ "$(pfc_delta c_tx3_discards)" = 0 ]; then
			pass "$k/pfc-ecn-data" "PFC and ECN on 3: 20 x 64 KiB RC ping-pongs with SL 3, data checked: 0 discards (rx or tx); CE +$(pfc_delta s_ce), CNPs sent +$(pfc_delta s_cnps_sent) handled +$(pfc_delta c_cnps_handled), pause frames +$(pfc_delta s_tx3_pause), retransmits +$(pfc_delta c_retransmits)/+$(pfc_delta s_retransmits) (ACK timeouts, not drops)"
		else
			fail "$k/pfc-ecn-data" "completed: $ok; discards rx +$(pfc_delta s_rx3_discards) tx +$(pfc_delta c_tx3_discards); $(tail_of ornic-pfc_ecn_pingpong)"
		fi
	fi
	pfc_cc "$SDEV" np_enable 0
	for knob in "${knobs[@]}"; do
		[ -n "${saved[$knob]}" ] && pfc_cc "$CDEV" "$knob" "${saved[$knob]}"
	done
}

# device_counters DEV: after all the traffic above, the device's own counters
# (rdma statistic, read from the device) show RoCE packets and bytes both ways
# and no frame dropped for its ICRC or headers.
device_counters() {
	local f=/out/ornic-$1-counters.txt tx txb rx rxb
	tx=$(counter_value "$f" tx_rdma_packets) txb=$(counter_value "$f" tx_rdma_bytes)
	rx=$(counter_value "$f" rx_rdma_packets) rxb=$(counter_value "$f" rx_rdma_bytes)
	if [ "${tx:-0}" -gt 0 ] && [ "${txb:-0}" -gt 0 ] && [ "${rxb:-0}" -gt 0 ] &&
		[ "$(counter_value "$f" rx_bad_icrc)" = 0 ] &&
		[ "$(counter_value "$f" rx_bad_header)" = 0 ]; then
		pass ornic/counters "$1: $tx packets / $txb B sent, $rx / $rxb B received, $(counter_value "$f" retransmits) retransmits, $(counter_value "$f" naks_sent) NAKs sent, no bad ICRC/header"
	else
		fail ornic/counters "$1: $(tr '\n' ' ' <"$f" | head -c 600)"
	fi
}

for kind in "$@"; do
	"setup_$kind" || continue
	if ! wait_gid "$CDEV" "$CIP" || ! wait_gid "$SDEV" "$SIP"; then
		fail "$kind/setup" "no RoCE v2 GIDs for $CIP/$SIP"
		continue
	fi
	pass "$kind/setup" "$CDEV <-> $SDEV (server in netns $NS)"
	for t in ${TESTS:-pingpongs perftests events cm kverbs nvmeof rocev1 vlan dcb pfc negative}; do
		# rxe (7.3) completes a SEND with a bad lkey as WR_FLUSH_ERR,
		# not LOC_PROT_ERR; its remote-access cases pass (tried), but
		# the suite judges only ornic.
		[ "$t" = negative ] && [ "$kind" != ornic ] && continue
		# rxe speaks RoCE v2 only; VLANs are checked on ornic here.
		if [ "$kind" != ornic ] && { [ "$t" = rocev1 ] || [ "$t" = vlan ] || [ "$t" = dcb ] || [ "$t" = pfc ]; }; then
			continue
		fi
		"$t" "$kind"
	done
	for d in "$CDEV" "$SDEV"; do
		rdma statistic show link "$d/1" >"/out/$kind-$d-counters.txt" 2>&1
	done
	[ "$kind" = ornic ] && device_counters "$CDEV"
done
grep -q '^FAIL' "$RESULTS" 2>/dev/null && exit 1
exit 0
