#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# qemu_dgram_interop.sh PORT_PEER_TOOL: checks that an ornic unix port and QEMU's
# `-netdev dgram,local.type=unix` speak the same framing. A QEMU virtio-net NIC is put on
# the link and made to send its self-announce RARP frames (HMP announce_self, no guest
# needed); the ornic port must receive them as 60-byte frames of EtherType 0x8035, and
# its pcap must decode the same way in tshark when that is installed.
# Exit 77 (skip) when qemu-system-x86_64 is not installed.
set -euo pipefail

tool=${1:?usage: qemu_dgram_interop.sh PATH/TO/ornic_port_peer}
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

model_sock=$dir/model.sock
qemu_sock=$dir/qemu.sock
"$tool" "unix:$model_sock,$qemu_sock" --pcap "$dir/model.pcap" --seconds 30 \
	--exit-after-rx 1 >"$dir/peer.out" 2>"$dir/peer.err" &
peer_pid=$!
for _ in $(seq 50); do
	grep -q ready "$dir/peer.out" 2>/dev/null && break
	sleep 0.1
done

# The guest never runs a driver: SeaBIOS finds nothing to boot, which is fine because
# announce_self makes QEMU itself transmit from the NIC.
( sleep 1; echo announce_self; sleep 3; echo quit ) |
	timeout 30 "$qemu" -M q35 -nodefaults -display none -monitor stdio \
		-netdev "dgram,id=n0,local.type=unix,local.path=$qemu_sock,remote.type=unix,remote.path=$model_sock" \
		-device virtio-net-pci,netdev=n0,mac=52:54:00:12:34:56 >"$dir/qemu.out" 2>&1 || true

rc=0
wait "$peer_pid" || rc=$?
peer_pid=""
cat "$dir/peer.out"
if [ "$rc" -ne 0 ] || ! grep -q '^rx 60 0x8035$' "$dir/peer.out"; then
	echo "FAIL: no RARP frame from QEMU reached the ornic port (peer exit $rc)"
	cat "$dir/peer.err" "$dir/qemu.out" >&2
	exit 1
fi
if command -v tshark >/dev/null; then
	types=$(tshark -n -r "$dir/model.pcap" -T fields -e eth.type 2>/dev/null | sort -u)
	if [ "$types" != 0x8035 ]; then
		echo "FAIL: tshark decodes the port's pcap as '$types', expected 0x8035"
		exit 1
	fi
fi
echo "PASS: QEMU -netdev dgram frames received by the ornic unix port"
