#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# qemu_dgram_interop.sh PORT_PEER_TOOL [unix|udp]: checks that an ornic port and QEMU's
# `-netdev dgram` (local.type=unix, or inet over 127.0.0.1) speak the same framing, both
# ways. A QEMU virtio-net NIC is put on the link and made to send its self-announce RARP
# frames (HMP announce_self, no guest needed); the ornic port must receive them as 60-byte
# frames of EtherType 0x8035, and its pcap must decode the same way in tshark when that is
# installed. The other way, the port sends three test frames (EtherType 0x88b5, 60, 160 and
# 260 bytes), which QEMU's filter-dump on the netdev must record unchanged (checked with
# tshark; without it only the first direction is checked).
# Exit 77 (skip) when qemu-system-x86_64 is not installed.
set -euo pipefail

tool=${1:?usage: qemu_dgram_interop.sh PATH/TO/ornic_port_peer [unix|udp]}
transport=${2:-unix}
qemu=$(command -v qemu-system-x86_64 || true)
if [ -z "$qemu" ]; then
	echo "SKIP: qemu-system-x86_64 not installed"
	exit 77
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/ornic-interop-XXXXXX")
peer_pid=""
cleanup() {
	[ -z "$peer_pid" ] || kill "$peer_pid" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT

qemu_sock=$dir/qemu.sock
qemu_port=0
# qemu_bound: QEMU's end of the link exists (its socket file, or its UDP port bound).
qemu_bound() {
	if [ "$transport" = unix ]; then
		[ -S "$qemu_sock" ]
	else
		[ -n "$(ss -Hunl "sport = :$qemu_port" 2>/dev/null)" ]
	fi
}

case $transport in
unix)
	model_sock=$dir/model.sock
	spec="unix:$model_sock,$qemu_sock"
	netdev="dgram,id=n0,local.type=unix,local.path=$qemu_sock,remote.type=unix,remote.path=$model_sock"
	;;
udp)
	# Two random ports (not from the process id: every testbed run has similar small ones).
	model_port=$((20000 + (RANDOM % 10000) * 2))
	qemu_port=$((model_port + 1))
	spec="udp:127.0.0.1:$model_port,127.0.0.1:$qemu_port"
	netdev="dgram,id=n0,local.type=inet,local.host=127.0.0.1,local.port=$qemu_port,remote.type=inet,remote.host=127.0.0.1,remote.port=$model_port"
	;;
*)
	echo "usage: qemu_dgram_interop.sh PATH/TO/ornic_port_peer [unix|udp]" >&2
	exit 2
	;;
esac

# attempt: one run of the port tool against QEMU; 0 when every check passed, 1 on a
# failure, 2 when only some of the test frames reached QEMU's filter-dump (each one that
# did unchanged). Seen under load: only the first frame recorded. The NIC has no driver
# and takes nothing, and QEMU's netdev does not read its socket further while a frame waits
# for the NIC, so whether the later frames get in depends on QEMU's startup timing.
attempt() {
	local rc=0 types seen want payload i j
	rm -f "$dir"/*.pcap "$dir"/*.out "$dir"/*.err "$qemu_sock"

	# The guest never runs a driver: SeaBIOS finds nothing to boot, which is fine because
	# announce_self makes QEMU itself transmit from the NIC, and filter-dump records what
	# the netdev receives whether or not the NIC takes it. QEMU's end of the link is there
	# before the port's first frame: a frame refused by an absent QEMU would take the udp
	# port's link down, and its link probes could then be the one datagram a netdev whose
	# NIC takes nothing reads.
	# Announce until the port has seen a RARP (at most 20 s): on a loaded host QEMU may
	# take longer than a fixed wait to start, and a quit queued behind the announcement
	# would end it before its first frame.
	(
		sleep 2
		for _ in $(seq 10); do
			echo announce_self
			sleep 2
			grep -q '^rx 60 0x8035$' "$dir/peer.out" 2>/dev/null && break
		done
		sleep 1
		echo quit
	) |
		timeout 40 "$qemu" -M q35 -nodefaults -display none -monitor stdio \
			-netdev "$netdev" -object "filter-dump,id=f0,netdev=n0,file=$dir/qemu.pcap" \
			-device virtio-net-pci,netdev=n0,mac=52:54:00:12:34:56 >"$dir/qemu.out" 2>&1 &
	qemu_pid=$!
	for _ in $(seq 100); do
		qemu_bound && break
		sleep 0.05
	done
	"$tool" "$spec" --pcap "$dir/model.pcap" --seconds 40 --exit-after-rx 1 --send 3 \
		>"$dir/peer.out" 2>"$dir/peer.err" &
	peer_pid=$!
	wait "$qemu_pid" || true

	wait "$peer_pid" || rc=$?
	peer_pid=""
	cat "$dir/peer.out"
	if [ "$rc" -ne 0 ] || ! grep -q '^rx 60 0x8035$' "$dir/peer.out"; then
		echo "FAIL: no RARP frame from QEMU reached the ornic $transport port (peer exit $rc)"
		cat "$dir/peer.err" "$dir/qemu.out" >&2
		return 1
	fi
	command -v tshark >/dev/null || return 0
	# The port's own capture: QEMU's RARP frames in, our test frames out.
	types=$(tshark -n -r "$dir/model.pcap" -T fields -e eth.type 2>/dev/null | sort -u |
		tr '\n' ' ')
	if [ "$types" != "0x8035 0x88b5 " ]; then
		echo "FAIL: tshark decodes the port's pcap as '$types', expected 0x8035 and 0x88b5"
		return 1
	fi
	# Our test frames as QEMU's netdev received them, every byte: frame i is 60 + 100 * i
	# bytes from 02:00:00:00:00:0i with payload byte j = (7 * j + i) mod 256.
	seen=$(tshark -n -r "$dir/qemu.pcap" -Y eth.type==0x88b5 -T fields -e eth.src \
		-e data.data 2>/dev/null | sort -u)
	want=""
	for i in 0 1 2; do
		payload=""
		for ((j = 14; j < 60 + 100 * i; j++)); do
			payload+=$(printf '%02x' $(((7 * j + i) % 256)))
		done
		want+="02:00:00:00:00:0$i	$payload"$'\n'
	done
	if [ "$seen" != "${want%$'\n'}" ]; then
		printf 'recorded:\n%s\n' "$seen"
		# Every recorded frame must be one of ours, unchanged.
		if [ -n "$seen" ] && [ "$(printf '%s\n' "$seen" | grep -vxF -f <(printf '%s' "$want"))" = "" ]; then
			echo "QEMU's netdev recorded only some of the $transport port's test frames, each unchanged"
			return 2
		fi
		echo "FAIL: QEMU's netdev did not record the $transport port's three test frames unchanged"
		return 1
	fi
	echo "PASS: the ornic $transport port's frames reached QEMU -netdev dgram unchanged"
}

for try in 1 2 3; do
	rc=0
	attempt || rc=$?
	[ "$rc" = 2 ] || break
	echo "attempt $try: a test frame was not read by QEMU; once more"
done
if [ "$rc" = 2 ]; then
	echo "FAIL: in 3 attempts QEMU's netdev never recorded all three test frames"
	exit 1
fi
[ "$rc" = 0 ] || exit 1
echo "PASS: QEMU -netdev dgram frames received by the ornic $transport port"
