#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Guest side of the iwarp group (check-iwarp.sh): two ornic NICs on iWARP
# ports, linked; the second one's netdev in netns "ornic".
#   iwarp.sh TOOLDIR
set -uo pipefail
tooldir=$1
SUITE=iwarp
# shellcheck source=qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/lib.sh
# shellcheck source=qemu-tests/suites/driver-lib.sh
. /src/qemu-tests/suites/driver-lib.sh
# shellcheck source=qemu-tests/suites/datapath-lib.sh
. /src/qemu-tests/suites/datapath-lib.sh
# shellcheck source=qemu-tests/suites/iwarp-bad.sh
. /src/qemu-tests/suites/iwarp-bad.sh

# registered DEV NETDEV [NS]: an iWARP RNIC on NETDEV, as rdma_cm and the
# verbs tools see one.
registered() {
	local d=$1 nd=$2 nsx=() mac gid want o bad=""
	[ -n "${3:-}" ] && nsx=(ip netns exec "$3")
	[ "$(cat "/sys/class/infiniband/$d/node_type")" = "4: RNIC" ] ||
		bad+=" node_type '$(cat "/sys/class/infiniband/$d/node_type")'"
	o=$("${nsx[@]}" rdma link show "$d/1" 2>&1)
	[[ $o == *"state ACTIVE"* && $o == *"netdev $nd"* ]] || bad+=" rdma link: '$o'"
	o=$(ibv_devinfo -d "$d" 2>&1)
	[[ $o == *"transport:"*"iWARP"* ]] || bad+=" ibv_devinfo: '$(grep -m1 transport <<<"$o")'"
	[[ $o == *"link_layer:"*"Ethernet"* ]] || bad+=" link_layer: '$(grep -m1 link_layer <<<"$o")'"
	mac=$("${nsx[@]}" cat "/sys/class/net/$nd/address")
	gid=$(cat "/sys/class/infiniband/$d/ports/1/gids/0")
	want=$(tr -d : <<<"$mac" | sed 's/^\(....\)\(....\)\(....\)$/\1:\2:\3/'):0000:0000:0000:0000:0000
	[ "$gid" = "$want" ] || bad+=" GID 0 '$gid', wanted '$want'"
	if [ -z "$bad" ]; then
		pass "registered-$d" "$d: node type RNIC, transport iWARP, link layer Ethernet, ACTIVE on $nd, GID 0 $gid (its MAC)"
	else
		fail "registered-$d" "$bad"
	fi
}

# siw_setup: netns "siw" behind a veth pair from $NS, which forwards between
# it and the ornic link; siw0 on its end.
siw_setup() {
	local log=/out/siw-setup.log
	{
		ip netns add siw &&
			ip link add vA type veth peer name vB &&
			ip link set vA netns "$NS" && ip link set vB netns siw &&
			ip netns exec "$NS" ip addr add 10.0.5.1/24 dev vA &&
			ip netns exec "$NS" ip link set vA up &&
			ip netns exec siw ip addr add 10.0.5.2/24 dev vB &&
			ip netns exec siw ip link set vB up &&
			ip netns exec siw ip link set lo up &&
			ip netns exec siw ip route add default via 10.0.5.1 &&
			ip netns exec "$NS" sysctl -qw net.ipv4.ip_forward=1 &&
			ip route add 10.0.5.0/24 via "$SIP" dev "$CND" &&
			modprobe siw &&
			ip netns exec siw rdma link add siw0 type siw netdev vB &&
			wait_for port_active siw0
	} >"$log" 2>&1 && return 0
	fail siw-setup "$(tail -n 3 "$log" | tr '\n' ' ')"
	return 1
}

# in_ns NS CMD...: CMD in netns NS, or here when NS is "-".
in_ns() {
	local ns=$1
	shift
	if [ "$ns" = - ]; then "$@"; else ip netns exec "$ns" "$@"; fi
}

# cm_run NAME PORT SERVER_NS CLIENT_NS TOOL SERVER_ARGS -- CLIENT_ARGS: an
# rdma_cm tool's server in SERVER_NS, its client in CLIENT_NS ("-": this
# one); logs /out/NAME.{server,client}.log.
cm_run() {
	local name=$1 port=$2 sns=$3 cns=$4 tool=$5 sargs=() spid rc=0 src=0 _
	shift 5
	while [ $# -gt 0 ] && [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	in_ns "$sns" timeout 300 stdbuf -oL -eL "$tool" "${sargs[@]}" >"/out/$name.server.log" 2>&1 &
	spid=$!
	for _ in $(seq 150); do
		[[ $(in_ns "$sns" rdma resource show cm_id 2>/dev/null) == *"state LISTEN"*":$port "* ]] && break
		sleep 0.2
	done
	in_ns "$cns" env ${CLIENT_PRELOAD:+LD_PRELOAD=$CLIENT_PRELOAD} timeout 300 "$tool" "$@" \
		>"/out/$name.client.log" 2>&1 || rc=$?
	# A failed client leaves its server waiting for a connection.
	if [ "$rc" != 0 ]; then
		sleep 2
		pkill -x "$tool"
	fi
	wait "$spid" || src=$?
	[ "$rc" != 0 ] || rc=$src
	return "$rc"
}

# data PAIR SERVER_NS SERVER_IP CLIENT_NS PORT: rping and ucmatose between
# a pair's two sides.
data() {
	local pair=$1 sns=$2 sip=$3 cns=$4 port=$5
	if cm_run "$pair-rping" "$port" "$sns" "$cns" rping -s -a "$sip" -p "$port" -V -C 50 -S 4096 -- \
		-c -a "$sip" -p "$port" -V -C 50 -S 4096; then
		pass "$pair/rping" "50 pings of 4096 B (RDMA READ, WRITE and SEND), every byte verified (-V)"
	else
		fail "$pair/rping" "$(tail -n 2 "/out/$pair-rping.client.log" | tr '\n' ' ') / $(tail -n 2 "/out/$pair-rping.server.log" | tr '\n' ' ')"
	fi
	port=$((port + 1))
	# The server listens on the wildcard address: the device on each of
	# the netdev's addresses.
	if cm_run "$pair-ucmatose" "$port" "$sns" "$cns" ucmatose -p "$port" -c 4 -C 20 -S 1000 -- \
		-s "$sip" -p "$port" -c 4 -C 20 -S 1000 &&
		grep -q 'test complete' "/out/$pair-ucmatose.client.log"; then
		pass "$pair/ucmatose" "4 RC connections to a wildcard listener, 20 x 1000 B each way"
	else
		fail "$pair/ucmatose" "$(tail -n 2 "/out/$pair-ucmatose.client.log" | tr '\n' ' ') / $(tail -n 2 "/out/$pair-ucmatose.server.log" | tr '\n' ' ')"
	fi
}

# perf PAIR SERVER_NS SERVER_IP SERVER_DEV CLIENT_NS CLIENT_DEV: perftest's
# SEND, WRITE and READ bandwidth over rdma_cm (-R, iWARP's only way),
# PERF_N (200) x 64 KiB, and SEND latency, PERF_N x 2 B, or the
# PERF_TESTS="NAME:TOOL ..." given.  Debian's perftest
# connects its test QP the moment the parameter exchange ends; when that
# connect is refused because the server is not listening again yet, it
# crashes in its own retry (fixed upstream).  So the client's connects wait
# a second (connect-delay.c), and a run refused all the same is repeated,
# 3 runs at most, as is a failed run of siw-siw, the pair without ornic.
# Figures go to /out/perf.txt.
perf() {
	local pair=$1 sns=$2 sip=$3 sdev=$4 cns=$5 cdev=$6 t name tool try row sum again t0 wall cyc
	for t in ${PERF_TESTS:-send_bw_64k:ib_send_bw write_bw_64k:ib_write_bw read_bw_64k:ib_read_bw send_lat_2b:ib_send_lat}; do
		name=${t%%:*} tool=${t#*:}
		again="" wall=0 row=""
		local args=(-R -F -n "${PERF_N:-200}" -s 65536 --report_gbits)
		[[ $tool == *_lat ]] && args=(-R -F -n "${PERF_N:-200}" -s 2)
		for try in 1 2 3; do
			cyc=$(perftest_cycles "$tool" "$try")
			t0=$(date +%s%N)
			# shellcheck disable=SC2086 # -C or nothing
			if CLIENT_PRELOAD=$tooldir/connect-delay.so cm_run "$pair-$name" 18515 "$sns" "$cns" "$tool" -d "$sdev" "${args[@]}" \
				-- -d "$cdev" "${args[@]}" $cyc "$sip"; then
				row=$(perftest_row "/out/$pair-$name.client.log")
				if [ -n "$row" ] && [ -n "$cyc" ]; then
					row=$(perftest_cycles_to_us "$row")
					again+=" (run 3 in TSC cycles, -C, converted at the guest's rate)"
				fi
				[ -z "$row" ] || perftest_tsc_settle "/out/$pair-$name.client.log" "$try" \
					"$tool" "$t0" row again wall || continue
				break
			fi
			row=""
			if grep -q 'RDMA_CM_EVENT_REJECTED' "/out/$pair-$name.client.log"; then
				again+=" (run $try: the test QP's connect was refused before the server listened again)"
			elif [ "$pair" = siw-siw ]; then
				# The reference pair has no ornic in it: a run siw
				# fails on its own (a flushed WR) is measured again.
				again+=" (run $try: siw to siw failed: $(head -n 1 "/out/$pair-$name.client.log"))"
			else
				break
			fi
			mv "/out/$pair-$name.client.log" "/out/$pair-$name.try$try.client.log"
			sleep 1
		done
		if [ -z "$row" ]; then
			fail "$pair/$name" "$(tail -n 3 "/out/$pair-$name.client.log" | tr '\n' ' ') / $(tail -n 3 "/out/$pair-$name.server.log" | tr '\n' ' ')$again"
		elif sum=$(perftest_judge "$tool" "$row"); then
			[ "$wall" = 1 ] || echo "$pair $name $row" >>/out/perf.txt
			pass "$pair/$name" "$tool -R, $cdev -> $sdev, $sum$again"
		else
			fail "$pair/$name" "$sum$again"
		fi
	done
}

# mpa PAIR NAME REV CRC PORT SERVER_NS SERVER_IP CLIENT_NS [ucmatose]:
# rping -V (or ucmatose, SENDs only) with the driver's MPA settings
# (module parameters mpa_rev and mpa_crc, read at each connect and accept)
# at REV and CRC on both ornic sides.  What the request and reply carried is
# judged on the host from the capture (check-iwarp.sh, by PORT); the
# defaults are put back afterwards.
mpa() {
	local pair=$1 name=$2 rev=$3 crc=$4 port=$5 sns=$6 sip=$7 cns=$8 tool=${9:-rping}
	local p=/sys/module/ornic/parameters what ok=0
	echo "$rev" >$p/mpa_rev && echo "$crc" >$p/mpa_crc
	if [ "$tool" = rping ]; then
		what="20 pings of 4096 B, every byte verified (-V)"
		cm_run "$pair-$name" "$port" "$sns" "$cns" rping -s -a "$sip" -p "$port" -V -C 20 -S 4096 -- \
			-c -a "$sip" -p "$port" -V -C 20 -S 4096 && ok=1
	else
		what="ucmatose: 2 connections, 10 x 1000 B SENDs each way"
		cm_run "$pair-$name" "$port" "$sns" "$cns" ucmatose -p "$port" -c 2 -C 10 -S 1000 -- \
			-s "$sip" -p "$port" -c 2 -C 10 -S 1000 &&
			grep -q 'test complete' "/out/$pair-$name.client.log" && ok=1
	fi
	if [ "$ok" = 1 ]; then
		pass "$pair/$name" "driver asks MPA revision $rev, CRC $([ "$crc" = 1 ] && echo on || echo off); $what"
	else
		fail "$pair/$name" "$(tail -n 2 "/out/$pair-$name.client.log" | tr '\n' ' ') / $(tail -n 2 "/out/$pair-$name.server.log" | tr '\n' ' ')"
	fi
	echo 2 >$p/mpa_rev && echo 1 >$p/mpa_crc
}

# iw_counters NAME: ornic_0's iWARP device counters (counters.rst) after
# good traffic only: its TCP took and sent frames, and no FPDU or segment
# was bad.  Saved to /out/NAME.txt.
iw_counters() {
	local f=/out/$1.txt v bad=""
	rdma statistic show link "$CDEV/1" >"$f" 2>&1
	for v in iw_tcp_rx_frames iw_tcp_tx_frames; do
		[ "$(counter_value "$f" $v)" -gt 0 ] 2>/dev/null || bad+=" $v=$(counter_value "$f" $v)"
	done
	for v in iw_rx_bad_fpdu iw_rx_bad_segment; do
		[ "$(counter_value "$f" $v)" = 0 ] || bad+=" $v=$(counter_value "$f" $v)"
	done
	if [ -z "$bad" ]; then
		pass "$1" "$CDEV: TCP frames in $(counter_value "$f" iw_tcp_rx_frames), out $(counter_value "$f" iw_tcp_tx_frames); bad FPDUs 0, bad segments 0; SYNs refused $(counter_value "$f" iw_conn_refused), MPA errors $(counter_value "$f" iw_mpa_errors), TERMINATEs sent $(counter_value "$f" iw_terminates_sent), received $(counter_value "$f" iw_terminates_received)"
	else
		fail "$1" "$CDEV:$bad"
	fi
}

# iw_counters_bad NAME BEFORE: what the hostile peer's cases added to
# ornic_0's counters since BEFORE (iw_counters' file): a bad FPDU (the CRC
# case) and malformed segments (the DDP and RDMAP header cases) counted, and
# a TERMINATE sent for each of the seven cases that end in one.
iw_counters_bad() {
	local f=/out/$1.txt before=$2 fpdu seg term
	rdma statistic show link "$CDEV/1" >"$f" 2>&1
	fpdu=$(($(counter_value "$f" iw_rx_bad_fpdu) - $(counter_value "$before" iw_rx_bad_fpdu)))
	seg=$(($(counter_value "$f" iw_rx_bad_segment) - $(counter_value "$before" iw_rx_bad_segment)))
	term=$(($(counter_value "$f" iw_terminates_sent) - $(counter_value "$before" iw_terminates_sent)))
	if [ "$fpdu" -ge 1 ] && [ "$seg" -ge 4 ] && [ "$term" -ge 8 ]; then
		pass "$1" "$CDEV, what the hostile peer's cases added: bad FPDUs $fpdu, malformed segments $seg, TERMINATEs sent $term"
	else
		fail "$1" "$CDEV, what the hostile peer's cases added: bad FPDUs $fpdu (want >= 1), malformed segments $seg (>= 4), TERMINATEs sent $term (>= 8)"
	fi
}

# siw_to_ornic: iwarp-cm's server on ornic_0 (this namespace), its client
# on siw0 in netns siw; logs /out/siw-ornic-cm.{server,client}.log.
siw_to_ornic() {
	local spid rc=0 src=0
	timeout 120 stdbuf -oL -eL "$tooldir/iwarp-cm" server "$CIP" 7473 4 \
		>/out/siw-ornic-cm.server.log 2>&1 &
	spid=$!
	if ! cm_wait_listen 7473; then
		kill "$spid" 2>/dev/null
		echo "server did not listen" >/out/siw-ornic-cm.client.log
		return 1
	fi
	ip netns exec siw timeout 120 "$tooldir/iwarp-cm" client "$CIP" 7473 4 10.0.5.2 \
		>/out/siw-ornic-cm.client.log 2>&1 || rc=$?
	wait "$spid" || src=$?
	[ "$rc" != 0 ] || rc=$src
	return "$rc"
}

if setup_ornic; then
	registered "$CDEV" "$CND"
	registered "$SDEV" "$SND" "$NS"
	if cm_pair ornic-ornic cm 7471 "$tooldir/iwarp-cm" server "$SIP" 7471 6 -- \
		client "$SIP" 7471 6 "$CIP"; then
		pass ornic-ornic/cm-setup "rdma_cm over the device's TCP and MPA: 6 connections, 3 accepted (established, closed by the client, seen closed by the server) and 3 rejected, every request's and answer's private data checked"
	else
		fail ornic-ornic/cm-setup "$(tail -n 3 /out/ornic-ornic-cm.client.log | tr '\n' ' ') / $(tail -n 3 /out/ornic-ornic-cm.server.log | tr '\n' ' ')"
	fi
	data ornic-ornic "$NS" "$SIP" - 7480
	# Ports 7490-7499: the MPA variants, judged by check-iwarp.sh.
	mpa ornic-ornic mpa-rev1-crc 1 1 7490 "$NS" "$SIP" -
	mpa ornic-ornic mpa-rev2-nocrc 2 0 7491 "$NS" "$SIP" -
	perf ornic-ornic "$NS" "$SIP" "$SDEV" - "$CDEV"
	o=$(rdma resource show cm_id 2>&1; ip netns exec "$NS" rdma resource show cm_id 2>&1)
	left=$(grep -v LISTEN <<<"$o" | grep -F ornic_)
	if [ -z "$left" ]; then
		pass ornic-ornic/cm-ids-gone "no connection's cm_id left on either side"
	else
		fail ornic-ornic/cm-ids-gone "$(tr '\n' ' ' <<<"$o")"
	fi
	# siw on a veth pair in netns "siw" (10.0.5.2), routed through the
	# server port's namespace: its frames cross the same wire, and the
	# device hands them to the netdev as it does all TCP it does not own.
	if siw_setup; then
		pass siw-setup "siw0 on a veth in netns siw (10.0.5.2), routed through $SND"
		if NS=siw cm_pair ornic-siw cm 7472 "$tooldir/iwarp-cm" server 10.0.5.2 7472 4 -- \
			client 10.0.5.2 7472 4 "$CIP"; then
			pass ornic-siw/cm-setup "ornic_0 connects to siw0 (MPA revision 2, CRC asked): 4 connections, 2 accepted and closed, 2 rejected, every private data checked by the other side"
		else
			fail ornic-siw/cm-setup "$(tail -n 3 /out/ornic-siw-cm.client.log | tr '\n' ' ') / $(tail -n 3 /out/ornic-siw-cm.server.log | tr '\n' ' ')"
		fi
		data ornic-siw siw 10.0.5.2 - 7482
		data siw-ornic - "$CIP" siw 7484
		# siw answers the revision asked and CRCs when asked (RFC 5044:
		# either side's C turns them on); as client it asks revision 2
		# without CRC.  Revision 1 carries no IRD and ORD, and siw then
		# hands its server 0 for both: rping's server, which accepts with
		# what the request gave, could not READ, so SENDs only there.
		mpa ornic-siw mpa-rev1-crc 1 1 7492 siw 10.0.5.2 - ucmatose
		mpa ornic-siw mpa-rev1-nocrc 1 0 7493 siw 10.0.5.2 - ucmatose
		mpa ornic-siw mpa-rev2-nocrc 2 0 7494 siw 10.0.5.2 -
		mpa siw-ornic mpa-rev2-nocrc 2 0 7495 - "$CIP" siw
		# siw checks every FPDU's CRC as it comes, and reads it wrongly
		# when a TCP segment ends inside the CRC: ornic's FPDUs must each
		# fill a segment of their own (iwarp-tcp.rst).
		# Every perftest both ways and siw's own across the veth pair (siw1
		# on its other end): the peers of this run to compare ornic with.
		# These paths cross the guest's forwarding and run at a few Mbit/s
		# under TCG, so 50 iterations each.
		PERF_N=50 perf ornic-siw siw 10.0.5.2 siw0 - "$CDEV"
		PERF_N=50 perf siw-ornic - "$CIP" "$CDEV" siw siw0
		if ip netns exec "$NS" rdma link add siw1 type siw netdev vA >/out/siw1-setup.log 2>&1 &&
			wait_for port_active siw1; then
			PERF_N=50 perf siw-siw siw 10.0.5.2 siw0 "$NS" siw1
		else
			fail siw-siw/setup "siw1 on vA: $(tail -n 2 /out/siw1-setup.log | tr '\n' ' ')"
		fi
		if siw_to_ornic; then
			pass siw-ornic/cm-setup "siw0 connects to ornic_0: 4 connections, 2 accepted and closed, 2 rejected, every private data checked by the other side"
		else
			fail siw-ornic/cm-setup "$(tail -n 3 /out/siw-ornic-cm.client.log | tr '\n' ' ') / $(tail -n 3 /out/siw-ornic-cm.server.log | tr '\n' ' ')"
		fi
		iw_counters counters-good
		# A hostile peer in netns siw, on the kernel's TCP, sends ornic_0
		# bad input.
		ornic_peer_bad "$tooldir/iwarp-peer"
		iw_counters_bad counters-bad /out/counters-good.txt
	fi
	rmmod ornic || fail rmmod "$(lsmod | grep ornic)"
fi
exit 0
