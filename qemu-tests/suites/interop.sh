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
# rxe (nstat) must show no ICRC or checksum error, and rxe's must show the
# ECT(0) and CE-marked packets ornic's link sent it.  The vlan part runs the
# RC and UD pingpongs both ways over VLAN 42 (a VLAN device on each side; rxe
# takes the GIDs of its netdev's VLAN device as ornic does).
# TESTS="pingpongs perftests cm vlan jumbo" (the default) selects parts; the
# groups are called through "$t".
# shellcheck disable=SC2317,SC2329
set -uo pipefail
SUITE=interop
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh
. /src/qemu-tests/suites/datapath-lib.sh
. /src/qemu-tests/suites/interop-lib.sh
PERF=/out/perf.txt
: >"$PERF"
# Short runs: these are TCG guests; every tool has a time limit.
ITERS=${ITERS:-100}
T=${TOOL_TIMEOUT:-240}

RNS=rxe
OIP=10.0.2.1 RIP=10.0.2.2
OIP6=fd02:0000:0000:0000:0000:0000:0000:0001 RIP6=fd02:0000:0000:0000:0000:0000:0000:0002

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

pingpongs() {
	pingpong rc_pingpong ibv_rc_pingpong 4 "$ITERS x 4096 B, data checked" -c -n "$ITERS" -s 4096
	pingpong rc_pingpong_ipv6 ibv_rc_pingpong 6 "50 x 4096 B over IPv6 GIDs, data checked" -c -n 50 -s 4096
	# UD payloads must fit the path MTU (1024 with a 1500-byte Ethernet MTU).
	pingpong ud_pingpong ibv_ud_pingpong 4 "$ITERS x 512 B, data checked" -c -n "$ITERS" -s 512
	pingpong srq_pingpong ibv_srq_pingpong 4 "4 QPs on one SRQ, 50 x 4096 B, data checked" -c -q 4 -n 50 -s 4096
}

perftests() {
	perf send_bw ib_send_bw -s 65536 -n "$ITERS" --report_gbits
	perf write_bw ib_write_bw -s 65536 -n "$ITERS" --report_gbits
	perf read_bw ib_read_bw -s 65536 -n "$ITERS" --report_gbits
	perf atomic_bw ib_atomic_bw -n "$ITERS" --report_gbits
	perf send_lat ib_send_lat -s 2 -n "$ITERS"
}

# jumbo: MTU 9000 on both netdevs (RoCE path MTU 4096), a subset both ways.
# vlan: over VLAN 42, whose devices the first call creates (ornic's here,
# the virtio-net's in the rxe namespace), both ends with SL 3.
vlan() {
	local ov=10.42.2.1 rv=10.42.2.2
	if ! ip link show "$OND.42" >/dev/null 2>&1; then
		if ! ip link add link "$OND" name "$OND.42" type vlan id 42 ||
			! ip addr add "$ov/24" dev "$OND.42" || ! ip link set "$OND.42" up ||
			! ip netns exec "$RNS" ip link add link "$VND" name "$VND.42" type vlan id 42 ||
			! ip netns exec "$RNS" ip addr add "$rv/24" dev "$VND.42" ||
			! ip netns exec "$RNS" ip link set "$VND.42" up ||
			! wait_gid "$ODEV" "$ov" || ! at "$RNS" wait_gid rxe0 "$rv"; then
			fail "$DIR/vlan-setup" "VLAN 42 on $OND/$VND or its GIDs: $(dmesg | tail -n 2 | tr '\n' ' ')"
			return
		fi
	fi
	local cip=$CIP sip=$SIP
	if [ "$DIR" = ornic-rxe ]; then CIP=$ov SIP=$rv; else CIP=$rv SIP=$ov; fi
	pingpong vlan_rc_pingpong ibv_rc_pingpong 4 "50 x 4096 B over VLAN 42 with SL 3, data checked" -c -n 50 -s 4096 -l 3
	pingpong vlan_ud_pingpong ibv_ud_pingpong 4 "50 x 512 B of UD over VLAN 42, data checked" -c -n 50 -s 512 -l 3
	CIP=$cip SIP=$sip
}

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
	for name in rx_bad_icrc rx_bad_header; do
		v=$(counter_value "$o" "$name")
		[ "${v:-x}" = 0 ] || bad+=" ornic $name=${v:-missing}"
	done
	for name in UdpInCsumErrors Udp6InCsumErrors UdpInErrors Udp6InErrors; do
		v=$(awk -v n="$name" '$1 == n { print $2 }' "$n")
		[ "${v:-x}" = 0 ] || bad+=" rxe-netns $name=${v:-missing}"
	done
	[ "$(counter_value "$o" rx_rdma_packets)" -gt 0 ] 2>/dev/null || bad+=" ornic received no RoCE packet"
	[ "$(counter_value "$r" rcvd_pkts)" -gt 0 ] 2>/dev/null || bad+=" rxe received no RoCE packet"
	local info
	info="ornic sent $(counter_value "$o" tx_rdma_packets) / received $(counter_value "$o" rx_rdma_packets) RoCE packets"
	info+=" (psn_errors $(counter_value "$o" rx_psn_errors), retransmits $(counter_value "$o" retransmits), naks_sent $(counter_value "$o" naks_sent), unknown_qp $(counter_value "$o" rx_unknown_qp));"
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

# ecn: ornic sends every RoCE v2 packet ECT(0), and the host starts its
# model's port as a 1 Gbit/s link that marks CE past 16 KiB of backlog
# (check-interop.sh), which the bandwidth tests build.  rxe has no
# congestion control: it must ignore both, and every test above ran with
# them.  Its namespace's IP layer counts what arrived (nstat, IpExt).
ecn() {
	local n=/out/rxe-nstat.txt ect ce
	ect=$(awk '$1 == "IpExtInECT0Pkts" { print $2 }' "$n")
	ce=$(awk '$1 == "IpExtInCEPkts" { print $2 }' "$n")
	if [ "${ect:-0}" -gt 0 ] && { [ "${ce:-0}" -gt 0 ] || [[ " $tests " != *" perftests "* ]]; }; then
		pass ecn "rxe's IP layer received $ect ECT(0) and $ce CE-marked packets from ornic's link and ignored the marks"
	else
		fail ecn "rxe's IP layer received ${ect:-?} ECT(0) and ${ce:-?} CE-marked packets (want both > 0 after the bandwidth tests)"
	fi
}

# Status 1 only when the suite could not run: each tool has its own line,
# and the host's line for this guest judges the kernel log.
setup || exit 1
tests=${TESTS:-pingpongs perftests cm vlan jumbo}
for d in ornic-rxe rxe-ornic; do
	direction "$d"
	for t in $tests; do
		[ "$t" = jumbo ] || "$t"
	done
done
[[ " $tests " == *" jumbo "* ]] && jumbo
counters
ecn
exit 0
