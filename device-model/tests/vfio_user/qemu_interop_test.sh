#!/bin/bash
# qemu_interop_test.sh SERVER [ARGS...]: attaches a real QEMU (vfio-user-pci) to a
# vfio-user server twice in a row (the second time after QEMU was killed) and checks the
# server's log: handshake, config space reads, BAR programming by the firmware, clean
# teardown, and no protocol errors except the two kinds QEMU provokes by design (the
# AER/ERR interrupt index query; fd-less DMA maps of firmware ROM areas are
# acknowledged, not refused).
# The server must log at trace level; @SOCKET@ in ARGS is replaced by the socket path
# (with no ARGS the socket path is the only argument).
# Exit 77 (skipped) when qemu-system-x86_64 is not installed.
set -u
server=$1
shift
qemu=$(command -v qemu-system-x86_64) || { echo "no qemu-system-x86_64: skipped"; exit 77; }
work=$(mktemp -d /tmp/ornic-interop-XXXXXX)
trap 'kill $spid 2>/dev/null; [ -n "${KEEP_LOG:-}" ] && cp "$log" "$KEEP_LOG"; rm -rf "$work"' EXIT
sock=$work/dev.sock
log=$work/server.log

args=("$@")
[ ${#args[@]} -gt 0 ] || args=(@SOCKET@)
args=("${args[@]//@SOCKET@/$sock}")
"$server" "${args[@]}" >"$log" 2>&1 &
spid=$!
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || { echo "server did not start"; cat "$log"; exit 1; }

run_qemu() {
	timeout -s KILL "$1" "$qemu" -accel tcg -nographic -no-reboot -m 128M \
		-object memory-backend-memfd,id=mem,size=128M,share=on \
		-machine q35,memory-backend=mem \
		-device pcie-root-port,id=rp0,chassis=1,slot=1 \
		-device "{\"driver\":\"vfio-user-pci\",\"socket\":{\"path\":\"$sock\",\"type\":\"unix\"},\"bus\":\"rp0\"}" \
		-monitor none -serial none -display none >>"$work/qemu.log" 2>&1
}
run_qemu 8   # killed with SIGKILL, like a crashed VM
sleep 0.5
run_qemu 8
sleep 0.5
kill -TERM $spid
wait $spid
status=0
check() {  # check DESCRIPTION PATTERN MIN_COUNT
	local n
	n=$(grep -cE "$2" "$log")
	if [ "$n" -lt "$3" ]; then
		echo "FAIL: $1 (pattern '$2' seen $n times, want >= $3)"
		status=1
	else
		echo "ok: $1 ($n)"
	fi
}
check "two clients connected" "client connected" 2
check "version negotiated" "client negotiated version 0.0" 2
check "config space read" "read region 7 " 10
check "firmware programmed a BAR" "write region 7 \[0x10," 1
check "guest RAM mapped with an fd" "DMA_MAP iova" 2
check "client teardown" "client gone: dropped [0-9]+ DMA maps, device reset" 2
unexpected=$(grep -E "failed:" "$log" | grep -vE "DEVICE_GET_IRQ_INFO")
if [ -n "$unexpected" ]; then
	echo "FAIL: unexpected protocol errors:"
	echo "$unexpected" | head -20
	status=1
fi
if [ $status -ne 0 ]; then
	echo "--- server log (tail)"; tail -50 "$log"; echo "--- qemu log"; tail -20 "$work/qemu.log"
fi
exit $status
