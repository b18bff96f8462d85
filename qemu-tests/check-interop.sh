#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# ornic talking RoCEv2 to another stack, part of `make check`, run inside the
# testbed by check-testbed.sh with RESULTS, FLAVOUR and BUILD.  Uses what the
# model, driver and provider groups built.  One model's port is wired to a
# QEMU virtio-net NIC of the same guest (the model's AF_UNIX datagram framing
# is QEMU's -netdev dgram framing); suites/interop.sh binds rxe to that
# virtio-net in its own network namespace and runs the stock tools both ways.
# Then the model's capture (frames of both stacks) must decode in tshark
# with no malformed frame, and scapy must agree with every ICRC.
# ORNIC_INTEROP_TESTS="pingpongs perftests cm jumbo" selects parts.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "check-interop.sh runs inside the testbed"

# shellcheck source=qemu-tests/check-guest-lib.sh
. "$here/check-guest-lib.sh"

guest_inputs_built interop || exit 0

# --- the guest: one ornic NIC, its wire on a virtio-net NIC ------------------------
mdir=/tmp/interop-models
rm -rf "$mdir"
# The model's port is a 1 Gbit/s link that marks CE past 16 KiB of backlog
# (far above what the guest's rxe takes in): rxe must ignore the marks
# (interop/ecn).
MODEL_SHAPING[0]="--link-rate 1000 --link-queue 4194304 --ecn-threshold 16384"
if ! models_start "$mdir" 1 virtio; then
	record FAIL interop/models-start "the model did not start; see $mdir"
	models_stop >/dev/null
	exit 0
fi
mapfile -t margs < <(models_vm_args)
start=$(date +%s)
run_vm interop/vm- interop "$FLAVOUR" --timeout 3600 "${margs[@]}" -- \
	env MODDIR="$MO" PROVIDER_DIR="$PDIR" TESTS="${ORNIC_INTEROP_TESTS:-}" \
	TOOL_TIMEOUT=$((240 * ${ORNIC_TIMEOUT_SCALE:-1})) /src/qemu-tests/suites/interop.sh
say "interop guest: $(( $(date +%s) - start )) s"
if why=$(models_stop); then
	record PASS interop/model-survives "the model is alive after the interop suite, clean exit"
else
	record FAIL interop/model-survives "$why"
fi
out=$RUNS/interop
cp "$mdir"/model*.log "$out/" 2>/dev/null

# --- the capture: ornic's and rxe's frames as the model saw them -------------------
pcap=$mdir/model0.pcap
if [ ! -s "$pcap" ]; then
	record FAIL interop/pcap "the model wrote no capture"
	exit 0
fi
# As in check-datapath.sh: payload heuristics off, the frames are judged.
heur=()
while read -r h; do
	heur+=(--disable-heuristic "$h")
done < <(tshark -G heuristic-decodes 2>/dev/null | awk '$1 == "infiniband.payload" { print $5 }')
total=$(tshark -r "$pcap" 2>"$out/tshark.err" | wc -l)
roce=$(tshark "${heur[@]}" -r "$pcap" -Y infiniband 2>>"$out/tshark.err" | wc -l)
# Frames from rxe: the virtio-net's MAC is the source.
from_rxe=$(tshark "${heur[@]}" -r "$pcap" -Y 'infiniband && eth.src == 52:54:00:00:01:01' 2>>"$out/tshark.err" | wc -l)
# rxe sends RoCEv2 over IPv6 with a zero UDP checksum (RFC 6935/6936
# allow it for tunnels; the ICRC covers the packet), which tshark flags as
# an error.  Such frames are counted, not failed; ornic's own frames and any
# other error are.
tshark "${heur[@]}" -r "$pcap" -Y '_ws.malformed || _ws.expert.severity == error' \
	-T fields -E occurrence=a -E aggregator='|' -e frame.number -e eth.src \
	-e _ws.expert.severity -e _ws.expert.message -e _ws.malformed \
	2>>"$out/tshark.err" >"$out/tshark-errors.txt"
zero6=$(awk -F'\t' '$2 == "52:54:00:00:01:01" && $5 == "" && $4 ~ /^Illegal checksum value \(0\)(\|Illegal checksum value \(0\))*$/' \
	"$out/tshark-errors.txt" | wc -l)
malformed=$(( $(wc -l <"$out/tshark-errors.txt") - zero6 ))
sed -i '/Running as user "root"/d' "$out/tshark.err"
if [ "$roce" -gt 0 ] && [ "$from_rxe" -gt 0 ] && [ "$malformed" = 0 ] && [ ! -s "$out/tshark.err" ]; then
	record PASS interop/pcap-tshark "$roce RoCEv2 frames ($from_rxe from rxe) of $total decode in tshark, none malformed; $zero6 IPv6 frames from rxe have a zero UDP checksum (rxe's choice, accepted by ornic)"
else
	record FAIL interop/pcap-tshark "$roce RoCEv2 ($from_rxe from rxe) of $total frames, $malformed malformed/error (see $out/tshark-errors.txt); $(head -c 300 "$out/tshark.err")"
fi
if line=$(python3 "$here/tools/icrc-check.py" "$pcap" 2>&1); then
	record PASS interop/pcap-icrc-scapy "both stacks' frames: ${line#PASS: }"
else
	record FAIL interop/pcap-icrc-scapy "$(echo "$line" | tail -n 3 | tr '\n' ' ')"
fi
tshark -r "$pcap" -c 2000 -w "$out/model0-head.pcap" 2>/dev/null
[ -s "$out/perf.txt" ] && cp "$out/perf.txt" "$(dirname "$RESULTS")/interop-perf.txt"
exit 0
