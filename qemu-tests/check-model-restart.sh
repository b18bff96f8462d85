#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Models that die under a running guest, part of `make check`'s twoguests
# group, run inside the testbed by check-testbed.sh with RESULTS, FLAVOUR
# and BUILD.  One guest (suites/model-restart.sh) and three models:
#   model 0  the guest's NIC 0, a udp: port over 127.0.0.1 (netns mr-lo) to
#   model 1  a peer with no guest, killed and started again when the guest
#            asks; its capture after the restart must hold the guest's
#            frames and none of its own (the guest's carrier came back
#            without the peer sending first)
#   model 2  the guest's NIC 1, no port, killed when the guest asks; the
#            guest removes the dead function itself and powers off, and
#            QEMU must exit cleanly (device_del of a vfio-user device whose
#            server died aborts QEMU: Documentation/operations.rst, "Known
#            issues")
# Results: twoguests/udp-link-recovery..., twoguests/model-death...
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "check-model-restart.sh runs inside the testbed"

# shellcheck source=qemu-tests/check-guest-lib.sh
. "$here/check-guest-lib.sh"
P=twoguests
NAME=model-restart

guest_inputs_built $P/$NAME || exit 0

mdir=/tmp/model-restart-models
out=$RUNS/$NAME
rm -rf "$mdir"
mkdir -p "$mdir"
PEER_PORT=udp:127.0.0.1:47202,127.0.0.1:47201
PEER_MAC=02:00:00:00:0c:02
# shellcheck disable=SC2329 # the EXIT trap calls it
cleanup() {
	models_stop >/dev/null 2>&1
	[ -z "${watcher:-}" ] || kill "$watcher" 2>/dev/null
	ip netns del mr-lo 2>/dev/null
}
trap cleanup EXIT
ip netns del mr-lo 2>/dev/null
if ! ip netns add mr-lo || ! ip -n mr-lo link set lo up; then
	record SKIP $P/udp-link-recovery "cannot create a network namespace"
	exit 0
fi
model_add "$mdir" 0 udp:127.0.0.1:47201,127.0.0.1:47202 02:00:00:00:0c:01 mr-lo
model_add "$mdir" 1 "$PEER_PORT" "$PEER_MAC" mr-lo
model_add "$mdir" 2 none 02:00:00:00:0c:03
if ! models_wait; then
	record FAIL $P/$NAME/models-start "a model did not start; see $mdir"
	exit 0
fi

# wait_rc I: up to 10 s for model I's wrapper to record its exit status.
wait_rc() {
	local _
	for _ in $(seq 100); do
		[ -s "$mdir/model$1.rc" ] && return 0
		sleep 0.1
	done
	return 1
}

# The guest's requests, in its order.  Model 1 starts again under the same
# index (its capture restarts with it); the parent learns its new PID from
# model1.pid.
rm -rf "$out"
mkdir -p "$out"
peer=${MODEL_PIDS[1]} victim=${MODEL_PIDS[2]}
(
	step() { # step REQUEST: wait for the guest to ask
		local _
		for _ in $(seq 18000); do
			[ -e "$out/$1" ] && return 0
			sleep 0.1
		done
		return 1
	}
	if step kill-peer; then
		kill -KILL "$peer"
		wait_rc 1
		touch "$out/peer-killed"
		if step restart-peer; then
			rm -f "$mdir/model1.sock"
			model_add "$mdir" 1 "$PEER_PORT" "$PEER_MAC" mr-lo
			models_wait && touch "$out/peer-restarted"
		fi
	fi
	# The guest's vCPUs stand still while NIC 1's model dies: no MMIO of
	# theirs can be on its way to it (QEMU's abort, operations.rst).
	if step kill-victim; then
		model_kill_idle "$victim" "$out/monitor.sock"
		touch "$out/victim-killed"
	fi
) &
watcher=$!

rc=0
"$here/vm.sh" --name "$RUN_NAME/$NAME" --out "$out" --flavour "$FLAVOUR" --allow-splat --timeout 900 \
	--vfio-user "$mdir/model0.sock" --vfio-user "$mdir/model2.sock" -- \
	/src/qemu-tests/suites/model-restart.sh "$MO" || rc=$?
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null
watcher=""
# QEMU's vfio-user client may abort when a request reaches a model in the
# instant it is killed (operations.rst, "A model killed under a busy guest
# may abort QEMU"): a whole new run, once, with the first kept beside it.
if [ -z "${ORNIC_MR_AGAIN:-}" ] && [ "$rc" != 0 ] && [ -e "$out/victim-killed" ] &&
	grep -q 'error_setv: Assertion' "$out/qemu.log" 2>/dev/null; then
	record INFO $P/model-death/qemu-abort "QEMU aborted as NIC 1's model was killed ($(grep -m1 Assertion "$out/qemu.log")); once more"
	MODEL_PIDS[1]=$(cat "$mdir/model1.pid")
	cleanup
	trap - EXIT
	rm -rf "$out.first"
	mv "$out" "$out.first"
	exec env ORNIC_MR_AGAIN=1 "$0"
fi
guest_results $P/$NAME/vm "$out" "$rc"

# A dead vfio-user server, the guest's own clean-up, then power-off: QEMU
# must exit 0 with no assertion (vm.sh fails a run whose QEMU did not).
qexit=$(cat "$out/qemu-exit" 2>/dev/null || echo none)
if [ ! -e "$out/victim-killed" ]; then
	record FAIL $P/model-death/qemu-exit "the guest never asked for NIC 1's model to die; see $out"
elif [ "$qexit" = 0 ] && ! grep -q 'Assertion\|Aborted' "$out/qemu.log"; then
	record PASS $P/model-death/qemu-exit "NIC 1's model killed, the guest removed the dead function and powered off: QEMU exited 0"
else
	record FAIL $P/model-death/qemu-exit "QEMU exit $qexit: $(grep -m 2 'Assertion\|Aborted\|vfio' "$out/qemu.log" | tr '\n' ' ')"
fi

# The restarted peer never sent a frame, yet heard the guest: the capture
# holds ARP requests from NIC 0 and nothing from the peer.
victim_rc=$(cat "$mdir/model2.rc" 2>/dev/null)
MODEL_PIDS[1]=$(cat "$mdir/model1.pid")
unset 'MODEL_PIDS[2]' 'MODEL_SOCKETS[2]'
if why=$(models_stop); then
	record PASS $P/$NAME/models-survive "model 0 and the restarted peer alive after the run, clean exit; NIC 1's model was killed (exit $victim_rc)"
else
	record FAIL $P/$NAME/models-survive "$why"
fi
cp "$mdir"/model*.log "$out/" 2>/dev/null
if [ ! -e "$out/frames-sent" ]; then
	record FAIL $P/udp-link-recovery "the guest's carrier did not come back after the peer restarted; see $out"
elif why=$(python3 - "$mdir/model1.pcap" <<'PY' 2>&1
import struct, sys
data = open(sys.argv[1], "rb").read()
magic, _, _, _, _, _, linktype = struct.unpack("<IHHiIII", data[:24])
assert magic == 0xa1b2c3d4 and linktype == 1, "not an Ethernet pcap"
at, arp_from_guest, from_peer, frames = 24, 0, 0, 0
while at + 16 <= len(data):
    caplen = struct.unpack("<IIII", data[at:at + 16])[2]
    frame = data[at + 16:at + 16 + caplen]
    at += 16 + caplen
    frames += 1
    if frame[6:12] == bytes.fromhex("020000000c02"):
        from_peer += 1
    elif frame[6:12] == bytes.fromhex("020000000c01") and frame[12:14] == b"\x08\x06":
        arp_from_guest += 1
assert from_peer == 0, f"the restarted peer sent {from_peer} frames"
assert arp_from_guest > 0, f"no ARP request from the guest among {frames} frames"
print(f"{arp_from_guest} ARP requests from the guest, none from the peer, {frames} frames in all")
PY
); then
	record PASS $P/udp-link-recovery "after the peer model restarted, silent, the guest's carrier came back and its frames reached the peer: $why"
else
	record FAIL $P/udp-link-recovery "the restarted peer's capture: $(echo "$why" | tail -n 2 | tr '\n' ' ')"
fi
exit 0
