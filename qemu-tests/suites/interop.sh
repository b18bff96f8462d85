#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# interop.sh: ornic and rxe on one Ethernet link.  The guest has one ornic
# NIC (MODDIR and PROVIDER_DIR in the environment) whose model port is wired
# to a QEMU virtio-net NIC (-netdev dgram); rxe is bound to the virtio-net
# netdev inside network namespace "rxe", the ornic netdev stays in the
# initial one.  Unmodified tools run both ways -- ornic client with rxe
# server (ornic-rxe) and rxe client with ornic server (rxe-ornic) -- over
# IPv4 GIDs at MTU 1500: ibv_rc_pingpong (data checked; also over IPv6
# GIDs), ibv_ud_pingpong, ibv_srq_pingpong, perftest send/write/read/atomic
# bandwidth and send latency, rping -V, ucmatose, udaddy and ib_send_bw -R;
# then a subset at MTU 9000 (RoCE path MTU 4096).  Finally both stacks'
# error counters: ornic's (rdma statistic) and the kernel UDP stack's under
# rxe (nstat) must show no ICRC or checksum error.
# TESTS="pingpongs perftests cm jumbo" (the default) selects parts; the
# groups are called through "$t".
# shellcheck disable=SC2317,SC2329
set -uo pipefail
SUITE=interop
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh
. /src/qemu-tests/suites/datapath-lib.sh
PERF=/out/perf.txt
: >"$PERF"
# Short runs: these are TCG guests; every tool has a time limit.
ITERS=${ITERS:-100}
T=${TOOL_TIMEOUT:-240}

RNS=rxe
OIP=10.0.2.1 RIP=10.0.2.2
OIP6=fd02:0000:0000:0000:0000:0000:0000:0001 RIP6=fd02:0000:0000:0000:0000:0000:0000:0002

in_ns() { # in_ns NS CMD...: CMD in netns NS ("" is the initial namespace)
	local ns=$1
	shift
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@"
	else
		"$@"
	fi
}

# direction ornic-rxe|rxe-ornic [SUFFIX]: who is client (C*) and server
# (S*); results are named DIR/<test>SUFFIX.
direction() {
	DIR=$1 SFX=${2:-}
	if [ "$DIR" = ornic-rxe ]; then
		CDEV=$ODEV CIP=$OIP CIP6=$OIP6 CNS=""
		SDEV=rxe0 SIP=$RIP SIP6=$RIP6 SNS=$RNS
	else
		CDEV=rxe0 CIP=$RIP CIP6=$RIP6 CNS=$RNS
		SDEV=$ODEV SIP=$OIP SIP6=$OIP6 SNS=""
	fi
}

log() { echo "/out/$DIR-$1$SFX.$2.log"; }
tail_of() { tail -n 3 "$(log "$1" client)" "$(log "$1" server)" 2>/dev/null | tr '\n' ' '; }
tcp_listening() { in_ns "$1" ss -Hltn "sport = :$2" | grep -q .; }
cm_listening() { # cm_listening PORT: an rdma_cm id listens on PORT (any namespace)
	local ids
	# Not piped into grep -q: with pipefail, rdma's SIGPIPE would turn a
	# match into a failure.
	ids=$({ rdma resource show cm_id; ip netns exec "$RNS" rdma resource show cm_id; } 2>/dev/null)
	[[ $ids == *"state LISTEN"*":$1 "* ]]
}

# pair NAME PORT tcp|cm TOOL SERVER_ARGS -- CLIENT_ARGS: the server in $SNS,
# then, once it listens on PORT (its TCP socket or its rdma_cm id), the
# client in $CNS.  Logs $(log NAME server|client).  Status: the client's,
# else the server's.
pair() {
	local name=$1 port=$2 how=$3 tool=$4 sargs=() spid rc=0 src=0 i up=0 nsx=()
	shift 4
	while [ $# -gt 0 ] && [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	# $! is then timeout's own PID (ip netns exec execs), so the server can
	# be stopped early.  Line-buffered: a stopped server leaves its log.
	[ -z "$SNS" ] || nsx=(ip netns exec "$SNS")
	"${nsx[@]}" timeout "$T" stdbuf -oL -eL "$tool" "${sargs[@]}" >"$(log "$name" server)" 2>&1 &
	spid=$!
	for i in $(seq 120); do
		if [ "$how" = tcp ] && tcp_listening "$SNS" "$port"; then up=1; break; fi
		if [ "$how" = cm ] && cm_listening "$port"; then up=1; break; fi
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.5
	done
	if [ "$up" = 0 ]; then
		echo "server did not listen on port $port (after $((i / 2)) s)" >"$(log "$name" client)"
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		return 1
	fi
	in_ns "$CNS" timeout "$T" "$tool" "$@" >"$(log "$name" client)" 2>&1 || rc=$?
	# A failed client leaves a server that may wait for the full timeout
	# (rxe retries a transport timeout forever when retry_cnt is 7): give
	# it 10 s to end on its own.
	if [ "$rc" != 0 ]; then
		for i in $(seq 20); do
			kill -0 "$spid" 2>/dev/null || break
			sleep 0.5
		done
		kill "$spid" 2>/dev/null && echo "(server stopped 10 s after the client failed)" >>"$(log "$name" server)"
	fi
	wait "$spid" || src=$?
	[ "$rc" != 0 ] || rc=$src
	return "$rc"
}

# pair_retry NAME ARGS...: pair NAME ARGS..., run once more when the first
# run ended in a transport retry timeout (status 12).  The verbs pingpongs
# set a 67 ms ACK timeout with 7 retries, half a second in all; on a loaded
# TCG host a guest sometimes answers later than that (captures show rxe's
# ACKs arriving 600 ms late).  The first run's logs are kept as
# *.try1.log and RETRIED says what happened, for the result line.
pair_retry() {
	local name=$1 f
	RETRIED=""
	pair "$@" && return 0
	grep -q -E 'retry counter exceeded|Failed status 12|status 12' \
		"$(log "$name" client)" "$(log "$name" server)" 2>/dev/null || return 1
	for f in client server; do
		mv "$(log "$name" "$f")" "$(log "$name" "$f.try1")" 2>/dev/null
	done
	RETRIED=" (second run: the first ended in a transport retry timeout, see $(log "$name" client.try1))"
	pair "$@"
}

# The throughput lines of a verbs pingpong's client log.
pp_numbers() { grep -E 'Mbit/sec|usec/iter' "$(log "$1" client)" | tr '\n' ' ' | sed 's/  */ /g'; }

# pingpong NAME TOOL GIDKIND WHAT ARGS...: a verbs pingpong both ends run with
# ARGS (GIDKIND: 4 or 6, the GIDs of the IPv4 or IPv6 addresses).
pingpong() {
	local name=$1 tool=$2 kind=$3 what=$4 cg sg
	shift 4
	if [ "$kind" = 6 ]; then
		cg=$(gid6_index "$CDEV" "$CIP6") sg=$(gid6_index "$SDEV" "$SIP6")
	else
		cg=$(gid_index "$CDEV" "$CIP") sg=$(gid_index "$SDEV" "$SIP")
	fi
	if [ -z "$cg" ] || [ -z "$sg" ]; then
		fail "$DIR/$name$SFX" "no IPv$kind RoCE v2 GID (client '$cg', server '$sg')"
		return
	fi
	if pair_retry "$name" 18515 tcp "$tool" -d "$SDEV" -g "$sg" "$@" -- -d "$CDEV" -g "$cg" "$@" "$SIP"; then
		pass "$DIR/$name$SFX" "$what, $CDEV -> $SDEV (GIDs $cg -> $sg): $(pp_numbers "$name")$RETRIED"
	else
		fail "$DIR/$name$SFX" "$(tail_of "$name")$RETRIED"
	fi
}

pingpongs() {
	pingpong rc_pingpong ibv_rc_pingpong 4 "$ITERS x 4096 B, data checked" -c -n "$ITERS" -s 4096
	pingpong rc_pingpong_ipv6 ibv_rc_pingpong 6 "50 x 4096 B over IPv6 GIDs, data checked" -c -n 50 -s 4096
	# UD payloads must fit the path MTU (1024 with a 1500-byte Ethernet MTU).
	pingpong ud_pingpong ibv_ud_pingpong 4 "$ITERS x 512 B, data checked" -c -n "$ITERS" -s 512
	pingpong srq_pingpong ibv_srq_pingpong 4 "4 QPs on one SRQ, 50 x 4096 B, data checked" -c -q 4 -n 50 -s 4096
}

# perf NAME TOOL ARGS...: a perftest tool, both ends with ARGS.  The ACK
# timeout is 1 s (-u 18) instead of perftest's 67 ms: a bandwidth test
# keeps up to 100 messages of 64 packets in flight, and rxe, on a loaded
# TCG vCPU, sometimes ACKs the next one more than 67 ms later; the
# requester (ornic counts its 7 retries; rxe retries forever at retry_cnt
# 7) then gives up although every packet arrived (a run that failed so
# showed no loss: rxe's duplicate_request equalled ornic's retransmits).
perf() {
	local name=$1 tool=$2 cg sg row again="" try
	shift 2
	cg=$(gid_index "$CDEV" "$CIP") sg=$(gid_index "$SDEV" "$SIP")
	for try in 1 2 3; do
		if ! pair_retry "$name" 18515 tcp "$tool" -d "$SDEV" -x "$sg" -F -u 18 "$@" -- \
			-d "$CDEV" -x "$cg" -F -u 18 "$@" "$SIP"; then
			fail "$DIR/$name$SFX" "$(tail_of "$name")$again$RETRIED"
			return
		fi
		again+=$RETRIED
		row=$(perftest_row "$(log "$name" client)")
		if [ -z "$row" ]; then
			fail "$DIR/$name$SFX" "no result row: $(tail_of "$name")"
			return
		fi
		# The transfer completed, but perftest could not estimate the
		# TSC rate (TCG's TSC is unstable) and so printed zeros: the
		# measurement failed, not the wire.  Run it again (3 runs at most).
		if [ "$try" = 3 ] || ! grep -q 'Correlation coefficient r^2' "$(log "$name" client)" ||
			! awk -v r="$row" 'BEGIN { split(r, a); exit !(a[4] + 0 == 0 && a[5] + 0 == 0) }'; then
			break
		fi
		again+=" (run $try completed but printed zeros: perftest's TSC estimate failed)"
	done
	echo "$DIR $name$SFX $row" >>"$PERF"
	case $tool in
	*_bw)
		# bytes iterations BW-peak BW-average msg-rate
		local bytes iters bw rate
		read -r bytes iters _ bw rate <<<"$row"
		if awk -v b="$bw" 'BEGIN { exit !(b > 0) }'; then
			pass "$DIR/$name$SFX" "$CDEV -> $SDEV, $bytes B x $iters: $bw Gb/s, $rate Mpps$again"
		else
			fail "$DIR/$name$SFX" "no bandwidth: $row$again"
		fi
		;;
	*_lat)
		# bytes iterations t_min t_max t_typical t_avg t_stdev p99 p99.9
		local bytes iters tmin ttyp tavg p99
		read -r bytes iters tmin _ ttyp tavg _ p99 _ <<<"$row"
		if awk -v t="$ttyp" 'BEGIN { exit !(t > 0) }'; then
			pass "$DIR/$name$SFX" "$CDEV -> $SDEV, $bytes B x $iters: typical $ttyp us, avg $tavg us, min $tmin us, p99 $p99 us$again"
		else
			fail "$DIR/$name$SFX" "no latency: $row$again"
		fi
		;;
	esac
}

perftests() {
	perf send_bw ib_send_bw -s 65536 -n "$ITERS" --report_gbits
	perf write_bw ib_write_bw -s 65536 -n "$ITERS" --report_gbits
	perf read_bw ib_read_bw -s 65536 -n "$ITERS" --report_gbits
	perf atomic_bw ib_atomic_bw -n "$ITERS" --report_gbits
	perf send_lat ib_send_lat -s 2 -n "$ITERS"
}

# cm: connections set up by rdma_cm (CM MADs on the GSI QPs of both stacks).
cm() {
	local t0 ms row srow bytes iters bw sbw
	t0=$(date +%s%N)
	if pair rping 7471 cm rping -s -a "$SIP" -p 7471 -V -C 20 -S 4096 -- \
		-c -a "$SIP" -p 7471 -V -C 20 -S 4096; then
		ms=$(( ($(date +%s%N) - t0) / 1000000 ))
		pass "$DIR/rping$SFX" "20 pings of 4096 B over rdma_cm, every byte verified (-V), $ms ms"
	else
		fail "$DIR/rping$SFX" "$(tail_of rping)"
	fi
	t0=$(date +%s%N)
	if pair ucmatose 7472 cm ucmatose -p 7472 -c 2 -C 10 -S 1000 -- \
		-s "$SIP" -p 7472 -c 2 -C 10 -S 1000 &&
		grep -q 'test complete' "$(log ucmatose client)"; then
		pass "$DIR/ucmatose$SFX" "2 RC connections, 10 x 1000 B each way, $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	else
		fail "$DIR/ucmatose$SFX" "$(tail_of ucmatose)"
	fi
	# udaddy has no port option: it uses 7174.
	t0=$(date +%s%N)
	if pair udaddy 7174 cm udaddy -b "$SIP" -c 2 -C 10 -- -s "$SIP" -c 2 -C 10 &&
		grep -q 'test complete' "$(log udaddy client)"; then
		pass "$DIR/udaddy$SFX" "2 UD endpoints resolved by SIDR, 10 datagrams each way, $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	else
		fail "$DIR/udaddy$SFX" "$(tail_of udaddy)"
	fi
	# Both ends report a bandwidth; under TCG one of them sometimes reads
	# an unusable TSC and prints 0, so the larger one must be positive.
	if pair send_bw_cm 18515 cm ib_send_bw -d "$SDEV" -R -F -s 65536 -n "$ITERS" --report_gbits -- \
		-d "$CDEV" -R -F -s 65536 -n "$ITERS" --report_gbits "$SIP" &&
		row=$(perftest_row "$(log send_bw_cm client)") && [ -n "$row" ] &&
		srow=$(perftest_row "$(log send_bw_cm server)") && [ -n "$srow" ]; then
		read -r bytes iters _ bw _ <<<"$row"
		read -r _ _ _ sbw _ <<<"$srow"
		if awk -v c="$bw" -v s="$sbw" 'BEGIN { exit !(c > 0 || s > 0) }'; then
			echo "$DIR send_bw_cm$SFX $row" >>"$PERF"
			pass "$DIR/send_bw_cm$SFX" "ib_send_bw -R (rdma_cm), $bytes B x $iters: sender $bw Gb/s, receiver $sbw Gb/s"
		else
			fail "$DIR/send_bw_cm$SFX" "no bandwidth at either end: $row / $srow"
		fi
	else
		fail "$DIR/send_bw_cm$SFX" "$(tail_of send_bw_cm)"
	fi
}

# jumbo: MTU 9000 on both netdevs (RoCE path MTU 4096), a subset both ways.
set_mtu() { # set_mtu MTU
	ip link set "$OND" mtu "$1" && ip netns exec "$RNS" ip link set "$VND" mtu "$1"
}
active_mtu() { ibv_devinfo -d "$1" | awk '/active_mtu/ { print $2; exit }'; }
jumbo() {
	local why="" d
	if ! why=$(set_mtu 9000 2>&1); then
		skip mtu9000 "cannot set MTU 9000 on $OND/$VND: $why"
		return
	fi
	# The GIDs stay; wait until both ports report the larger path MTU.
	for _ in $(seq 20); do
		[ "$(active_mtu "$ODEV")" = 4096 ] && [ "$(active_mtu rxe0)" = 4096 ] && break
		sleep 0.5
	done
	if [ "$(active_mtu "$ODEV")" != 4096 ] || [ "$(active_mtu rxe0)" != 4096 ]; then
		fail mtu9000 "active_mtu $ODEV $(active_mtu "$ODEV"), rxe0 $(active_mtu rxe0) (want 4096)"
		set_mtu 1500
		return
	fi
	pass mtu9000 "netdevs at MTU 9000, active_mtu 4096 on $ODEV and rxe0"
	for d in ornic-rxe rxe-ornic; do
		direction "$d" _mtu9000
		pingpong rc_pingpong ibv_rc_pingpong 4 "50 x 16384 B at path MTU 4096, data checked" -c -m 4096 -n 50 -s 16384
		pingpong ud_pingpong ibv_ud_pingpong 4 "50 x 4096 B datagrams, data checked" -c -n 50 -s 4096
		perf send_bw ib_send_bw -s 65536 -n "$ITERS" --report_gbits
		perf write_bw ib_write_bw -s 65536 -n "$ITERS" --report_gbits
		perf read_bw ib_read_bw -s 65536 -n "$ITERS" --report_gbits
	done
	set_mtu 1500
}

counter_value() { # counter_value FILE NAME
	awk -v n="$2" '{ for (i = 1; i < NF; i++) if ($i == n) { print $(i + 1); exit } }' "$1"
}
# counters: after all the traffic, neither stack reports a corrupted frame.
# ornic counts ICRC and header failures itself; rxe drops a bad ICRC
# without a counter, but counts in rcvd_pkts only what passed the check,
# and its UDP stack counts checksum errors (nstat).  Sequence errors and
# retransmissions are reported (TCG timing may cause them), not judged.
counters() {
	local o=/out/ornic-counters.txt r=/out/rxe-counters.txt n=/out/rxe-nstat.txt
	local v bad="" name
	rdma statistic show link "$ODEV/1" >"$o" 2>&1
	rdma statistic show link rxe0/1 >"$r" 2>&1
	ip netns exec "$RNS" nstat -az >"$n" 2>&1
	for name in rx_roce_bad_icrc rx_roce_bad_header; do
		v=$(counter_value "$o" "$name")
		[ "${v:-x}" = 0 ] || bad+=" ornic $name=${v:-missing}"
	done
	for name in UdpInCsumErrors Udp6InCsumErrors UdpInErrors Udp6InErrors; do
		v=$(awk -v n="$name" '$1 == n { print $2 }' "$n")
		[ "${v:-x}" = 0 ] || bad+=" rxe-netns $name=${v:-missing}"
	done
	[ "$(counter_value "$o" rx_roce_packets)" -gt 0 ] 2>/dev/null || bad+=" ornic received no RoCE packet"
	[ "$(counter_value "$r" rcvd_pkts)" -gt 0 ] 2>/dev/null || bad+=" rxe received no RoCE packet"
	local info
	info="ornic sent $(counter_value "$o" tx_roce_packets) / received $(counter_value "$o" rx_roce_packets) RoCE packets"
	info+=" (psn_errors $(counter_value "$o" rx_roce_psn_errors), retransmits $(counter_value "$o" retransmits), naks_sent $(counter_value "$o" naks_sent), unknown_qp $(counter_value "$o" rx_roce_unknown_qp));"
	info+=" rxe sent $(counter_value "$r" sent_pkts) / received with good ICRC $(counter_value "$r" rcvd_pkts)"
	info+=" (out_of_seq_request $(counter_value "$r" out_of_seq_request), rcvd_seq_err $(counter_value "$r" rcvd_seq_err), duplicate_request $(counter_value "$r" duplicate_request), retry_exceeded_err $(counter_value "$r" retry_exceeded_err))"
	if [ -z "$bad" ]; then
		pass counters "no ICRC/header error at ornic, no UDP checksum error under rxe; $info"
	else
		fail counters "$bad; $info"
	fi
}

# --- setup ----------------------------------------------------------------------------
LIBDIR=/usr/lib/x86_64-linux-gnu/libibverbs
setup() {
	local i
	install_modules "${MODDIR:?}" || { fail setup "cannot install modules"; return 1; }
	if ! cp "${PROVIDER_DIR:?}/libornic-rdmav34.so" "$LIBDIR/" ||
		! cp "$PROVIDER_DIR/ornic.driver" /etc/libibverbs.d/; then
		fail setup "cannot install the provider"
		return 1
	fi
	if ! modprobe ornic || ! wait_for have_devs 1; then
		fail setup "modprobe ornic: $(dmesg | grep -i ornic | tail -n 3 | tr '\n' ' ')"
		return 1
	fi
	OND=$(ornic_netdevs) ODEV=$(ornic_ibdevs)
	VND=""
	for i in /sys/bus/virtio/drivers/virtio_net/virtio*/net/*; do
		[ -e "$i" ] && VND=${i##*/}
	done
	if [ -z "$VND" ]; then
		fail setup "no virtio-net netdev"
		return 1
	fi
	ip netns add "$RNS"
	ip link set "$VND" netns "$RNS"
	ip addr add "$OIP/24" dev "$OND"
	ip -6 addr add fd02::1/64 dev "$OND" nodad
	ip link set "$OND" mtu 1500 up
	ip netns exec "$RNS" ip addr add "$RIP/24" dev "$VND"
	ip netns exec "$RNS" ip -6 addr add fd02::2/64 dev "$VND" nodad
	ip netns exec "$RNS" ip link set "$VND" mtu 1500 up
	ip netns exec "$RNS" ip link set lo up
	if ! modprobe rdma_rxe || ! ip netns exec "$RNS" rdma link add rxe0 type rxe netdev "$VND"; then
		fail setup "rxe on $VND: $(dmesg | tail -n 3 | tr '\n' ' ')"
		return 1
	fi
	if ! wait_for port_active "$ODEV"; then
		fail setup "$ODEV port not ACTIVE (is the model's wire up?): $(rdma link show "$ODEV/1")"
		return 1
	fi
	if ! wait_gid "$ODEV" "$OIP" || ! wait_gid rxe0 "$RIP"; then
		fail setup "no RoCE v2 GIDs for $OIP/$RIP"
		return 1
	fi
	# Plain IP first: a failure here is the link, not RDMA.
	if ! ping -c 2 -W 5 "$RIP" >/out/ping.log 2>&1; then
		fail setup "no IPv4 between $OND and $VND: $(tail -n 2 /out/ping.log | tr '\n' ' ')"
		return 1
	fi
	pass setup "$ODEV ($OND, $OIP) <-> rxe0 ($VND in netns $RNS, $RIP), MTU 1500, IP ping ok"
}

# Status 1 only when the suite could not run: each tool has its own line,
# and the host's line for this guest judges the kernel log.
setup || exit 1
tests=${TESTS:-pingpongs perftests cm jumbo}
for d in ornic-rxe rxe-ornic; do
	direction "$d"
	for t in $tests; do
		[ "$t" = jumbo ] || "$t"
	done
done
[[ " $tests " == *" jumbo "* ]] && jumbo
counters
exit 0
