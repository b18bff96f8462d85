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
# ucmatose, udaddy, mckey, ib_send_bw -R) and the negative test
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
	local k=$1 name=$2 tool=$3 row try again="" sum cyc
	for try in 1 2 3; do
		cyc=$(perftest_cycles "$tool" "$try")
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
		# A failed TSC estimate: run it again (3 runs at most).
		if [ "$try" = 3 ] || ! perftest_tsc_failed "/out/$k-$name.client.log" "$row"; then
			break
		fi
		again+=" (run $try completed but perftest's TSC estimate failed)"
	done
	echo "$k $name $row" >>"$PERF"
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
# buffers over kernel RC QPs, ring wrap, a CQ event and ib_drain_qp, all
# while it loads.
kverbs() {
	local k=$1 cg sg rc=0
	cg=$(gid_index "$CDEV" "$CIP") sg=$(gid_index "$SDEV" "$SIP")
	dmesg -c >/dev/null
	insmod "$tooldir/kverbs/ornic_kverbs_test.ko" client="$CDEV" server="$SDEV" \
		client_gid="$cg" server_gid="$sg" 2>"/out/$k-kverbs.log" || rc=$?
	rmmod ornic_kverbs_test 2>/dev/null
	dmesg | grep 'ornic_kverbs:' >>"/out/$k-kverbs.log"
	sed -n "s#.*ornic_kverbs: \(PASS\|FAIL\) \(.*\)#\1: $SUITE/$k/kverbs/\2#p" \
		"/out/$k-kverbs.log" | tee -a "$RESULTS"
	if [ "$rc" = 0 ] && grep -q 'PASS drain' "/out/$k-kverbs.log"; then
		pass "$k/kverbs" "kernel RC QPs $CDEV -> $SDEV: every check passed"
	else
		fail "$k/kverbs" "insmod exit $rc: $(tail -n 3 "/out/$k-kverbs.log" | tr '\n' ' ')"
	fi
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
	for t in ${TESTS:-pingpongs perftests cm kverbs nvmeof negative}; do
		# rxe (7.3) completes a SEND with a bad lkey as WR_FLUSH_ERR,
		# not LOC_PROT_ERR; its remote-access cases pass (tried), but
		# the suite judges only ornic.
		[ "$t" = negative ] && [ "$kind" != ornic ] && continue
		"$t" "$kind"
	done
	for d in "$CDEV" "$SDEV"; do
		rdma statistic show link "$d/1" >"/out/$kind-$d-counters.txt" 2>&1
	done
	[ "$kind" = ornic ] && device_counters "$CDEV"
done
grep -q '^FAIL' "$RESULTS" 2>/dev/null && exit 1
exit 0
