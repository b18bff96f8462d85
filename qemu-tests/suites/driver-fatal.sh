#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# driver-fatal.sh MODDIR [VERBS_TOOL]: with two ornic models attached and
# traffic running, the host kills the second model (we ask by creating
# /out/kill-model).  The driver must report IB_EVENT_DEVICE_FATAL for that
# device within a second, fail admin commands at once instead of hanging,
# keep the other device working, and rmmod must work.  With VERBS_TOOL
# (driver-verbs.c) two processes hold a QP, SRQ, CQ, MR and AH on the dying
# device: one exits after the death (its objects are destroyed on a dead
# device), the other only after rmmod (disassociation of a dead device).
# A kernel ULP (NVMe over RDMA, target and host both on the dying device)
# tears down on the dead device: ib_drain_qp() must complete (the driver
# flushes kernel QPs itself), with no WARN from the RDMA core.
set -uo pipefail
mo=$1
verbs_tool=${2:-}
SUITE=driver
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh
. /src/qemu-tests/suites/interop-lib.sh

if ! install_modules "$mo" || ! modprobe ornic || ! wait_for have_devs 2; then
	fail device-fatal "driver did not come up: $(dmesg | grep -i ornic | tail -n 3 | tr '\n' ' ')"
	exit 1
fi
read -r -a nds <<<"$(ornic_netdevs | tr '\n' ' ')"
read -r -a ibs <<<"$(ornic_ibdevs | tr '\n' ' ')"
nd0=${nds[0]} nd1=${nds[1]} ib0=${ibs[0]} ib1=${ibs[1]}
ip addr add 10.2.0.1/24 dev "$nd0"
ip link set "$nd0" up
ip link set "$nd1" up
for _ in $(seq 40); do
	rdma link show "$ib1/1" | grep -q 'state ACTIVE' && break
	sleep 0.5
done

# Traffic on the device about to die.
ip addr add 10.2.1.1/24 dev "$nd1"

# rxe on a veth pair in the same guest: another RDMA stack that must not
# notice ornic's device dying.
rxe_ok=0
if modprobe rdma_rxe && veth_pair && rdma link add rxe0 type rxe netdev veth0 &&
	ip netns exec peer rdma link add rxe1 type rxe netdev veth1 &&
	wait_gid rxe0 10.0.0.1 && wait_gid rxe1 10.0.0.2; then
	rxe_ok=1
else
	fail rxe-setup "rxe on a veth pair: $(dmesg | tail -n 2 | tr '\n' ' ')"
fi

# Objects on the device about to die, held by two processes.
holders=0
if [ -n "$verbs_tool" ] && wait_gid "$ib1" 10.2.1.1; then
	gi=$(gid_index "$ib1" 10.2.1.1)
	uv=""
	for f in /sys/class/infiniband/"$ib1"/device/infiniband_verbs/*; do
		uv=/dev/infiniband/${f##*/}
	done
	rm -f /tmp/hold-a /tmp/hold-b
	mkfifo /tmp/hold-a /tmp/hold-b
	"$verbs_tool" hold "$uv" "$ib1" "$gi" </tmp/hold-a >/out/hold-a.txt 2>&1 &
	hpa=$!
	exec 4>/tmp/hold-a
	"$verbs_tool" hold "$uv" "$ib1" "$gi" </tmp/hold-b >/out/hold-b.txt 2>&1 &
	hpb=$!
	exec 5>/tmp/hold-b
	if wait_for grep -q held /out/hold-a.txt && wait_for grep -q held /out/hold-b.txt; then
		holders=1
	else
		fail fatal-holders "$(cat /out/hold-a.txt /out/hold-b.txt | tr '\n' ' ')"
	fi
fi
# NVMe over RDMA on the device about to die (loopback: both ends on $ib1).
nqn=nqn.2026-12.org.ornic:fatal nvme_dev=""
if [ -n "$verbs_tool" ] && why=$(nvmet_export "$nqn" 10.2.1.1 1 /tmp/fatal-nvme.img) &&
	modprobe nvme-rdma &&
	why=$(timeout 120 nvme connect -t rdma -a 10.2.1.1 -s 4420 -n "$nqn" --nr-io-queues=1 2>&1); then
	for _ in $(seq 40); do
		for b in /sys/block/nvme*n*; do
			[ "$(cat "$b/device/subsysnqn" 2>/dev/null)" = "$nqn" ] && nvme_dev=/dev/${b##*/}
		done
		[ -n "$nvme_dev" ] && break
		sleep 0.5
	done
	if [ -n "$nvme_dev" ] && dd if=/dev/urandom of="$nvme_dev" bs=1M count=1 oflag=direct status=none; then
		pass fatal-ulp-setup "nvme-rdma connected to nvmet-rdma over $ib1 (loopback), 1 MiB written through $nvme_dev"
	else
		fail fatal-ulp-setup "no namespace device or the write failed: $(dmesg | tail -n 3 | tr '\n' ' ')"
	fi
elif [ -n "$verbs_tool" ]; then
	fail fatal-ulp-setup "NVMe over RDMA on $ib1: $why"
fi

ping -i 0.05 -W 1 10.2.1.2 >/dev/null 2>&1 &
ppid=$!
sleep 1

# Kernel log timestamps measure the delay: the request is logged first.
echo "ornic-test: kill-model requested" >/dev/kmsg
touch /out/kill-model
found=0
for _ in $(seq 300); do
	if dmesg_has "$ib1: reporting IB_EVENT_DEVICE_FATAL"; then
		found=1
		break
	fi
	sleep 0.1
done
kill "$ppid" 2>/dev/null
wait "$ppid" 2>/dev/null
ktime() { # ktime PATTERN: kernel timestamp (ms) of the first line with PATTERN
	dmesg | grep -m1 "$1" | sed -n 's/^\[ *\([0-9]*\)\.\([0-9]\{3\}\).*/\1\2/p'
}
if [ $found = 1 ]; then
	# Reported, not judged (wall time under a loaded TCG host says nothing
	# about the driver): from the request, which includes the host noticing
	# it and killing the model, and from the moment the peer NIC lost its
	# link, the model's death as the wire saw it.
	fatal=$(ktime "$ib1: reporting IB_EVENT_DEVICE_FATAL")
	ms=$((fatal - $(ktime 'ornic-test: kill-model requested')))
	peer=$(dmesg | grep "$ib0: Port: 1 Link DOWN" | tail -n 1 |
		sed -n 's/^\[ *\([0-9]*\)\.\([0-9]\{3\}\).*/\1\2/p')
	since=""
	[ -n "$peer" ] && since=", $((fatal - peer)) ms after $ib0 lost its link"
	if dmesg_has "device dead ("; then
		pass device-fatal "IB_EVENT_DEVICE_FATAL on $ib1 ${ms} ms after the kill request$since; $(dmesg | grep -m1 -o 'device dead ([^:]*')"
	else
		fail device-fatal "IB_EVENT_DEVICE_FATAL on $ib1 without the driver saying why the device is dead"
	fi
else
	fail device-fatal "no DEVICE_FATAL for $ib1 within 30 s: $(dmesg | grep -i ornic | tail -n 3 | tr '\n' ' ')"
fi
dmesg | grep -i ornic >/out/ornic-dmesg.txt

# Commands to the dead device fail fast instead of waiting for timeouts.
t0=$(date +%s%N)
ip link set "$nd1" mtu 1400 2>/dev/null
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
# Failing fast means no admin command waited for ADMIN_TIMEOUT_MS (the
# wall time mostly measures starting ip(8) under TCG).
if [ "$rc" != 0 ] && ! dmesg_has 'timed out after' && [ "$ms" -lt 5000 ]; then
	pass dead-fails-fast "MTU change on the dead device failed at once (no admin timeout; ${ms} ms wall time)"
else
	fail dead-fails-fast "MTU change returned $rc after ${ms} ms"
fi
if rdma link show "$ib1/1" | grep -q 'state DOWN'; then
	pass dead-port-down "$ib1 port reports DOWN"
else
	fail dead-port-down "$(rdma link show "$ib1/1")"
fi

# The first holder exits: its objects are destroyed on the dead device.
if [ $holders = 1 ]; then
	echo go >&4
	exec 4>&-
	t0=$(date +%s%N)
	if timeout 60 sh -c "while kill -0 $hpa 2>/dev/null; do sleep 0.1; done"; then
		pass fatal-objects-destroyed "a process holding a QP, SRQ, CQ, MR and AH on the dead device exited in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	else
		fail fatal-objects-destroyed "the holder did not exit within 60 s"
	fi
fi

# The survivor is unaffected.
if ip link set "$nd0" mtu 2000 && rdma statistic show link "${ibs[0]}/1" >/dev/null; then
	pass survivor-works "${ibs[0]} still executes admin commands"
else
	fail survivor-works "${ibs[0]} broken too"
fi

# So is rxe.
if [ $rxe_ok = 1 ]; then
	ip netns exec peer timeout 60 ibv_rc_pingpong -d rxe1 -g "$(gid_index rxe1 10.0.0.2)" -c -n 50 -s 4096 \
		>/out/rxe-pp-server.log 2>&1 &
	rpid=$!
	if wait_listen peer 18515 &&
		timeout 60 ibv_rc_pingpong -d rxe0 -g "$(gid_index rxe0 10.0.0.1)" -c -n 50 -s 4096 10.0.0.2 \
			>/out/rxe-pp-client.log 2>&1 && wait "$rpid"; then
		pass survivor-rxe "rxe0 -> rxe1 ibv_rc_pingpong, data checked, after ornic's device died: $(grep -m1 Mbit /out/rxe-pp-client.log)"
	else
		fail survivor-rxe "$(tail -n 2 /out/rxe-pp-client.log /out/rxe-pp-server.log | tr '\n' ' ')"
	fi
fi

# The ULP's host side tears down on the dead device (its QPs drained).
if [ -n "$nvme_dev" ]; then
	t0=$(date +%s%N)
	if timeout 120 nvme disconnect -n "$nqn" >/out/nvme-disconnect.log 2>&1 &&
		! dmesg_has 'failed to drain'; then
		pass fatal-ulp-teardown "nvme disconnect on the dead device in $(( ($(date +%s%N) - t0) / 1000000 )) ms, every QP drained"
	else
		fail fatal-ulp-teardown "$(cat /out/nvme-disconnect.log) $(dmesg | grep -m2 -A2 'failed to drain' | tr '\n' ' ')"
	fi
fi

with=""
[ $holders = 1 ] && with=" and live objects on it"
[ -n "$nvme_dev" ] && with+=", an nvmet-rdma port"
t0=$(date +%s%N)
if timeout 60 modprobe -r ornic; then
	pass fatal-rmmod "rmmod with a dead device$with took $(( ($(date +%s%N) - t0) / 1000000 )) ms"
else
	fail fatal-rmmod "rmmod failed or hung"
fi
# nvmet-rdma's queues went with the device; its port goes now.
if [ -n "$nvme_dev" ]; then
	cfs=/sys/kernel/config/nvmet
	rm -f "$cfs/ports/1/subsystems/$nqn"
	rmdir "$cfs/ports/1" "$cfs/subsystems/$nqn/namespaces/1" "$cfs/subsystems/$nqn" 2>/dev/null
	if dmesg_has 'failed to drain'; then
		fail fatal-ulp-target "$(dmesg | grep -m2 -A2 'failed to drain' | tr '\n' ' ')"
	else
		pass fatal-ulp-target "nvmet-rdma's queues on the dead device drained at rmmod"
	fi
fi
if [ $holders = 1 ]; then
	echo go >&5
	exec 5>&-
	if wait "$hpb" && grep -q released /out/hold-b.txt; then
		pass fatal-disassociate "the second holder survived rmmod of the dead device and exited cleanly"
	else
		fail fatal-disassociate "$(tr '\n' ' ' </out/hold-b.txt)"
	fi
fi
# Reloading binds the survivor and refuses the dead device cleanly.
if modprobe ornic && wait_for have_devs 1; then
	pass fatal-reload "reload: one device bound, the dead one refused ($(dmesg | grep -c 'not responding') 'not responding' messages)"
else
	fail fatal-reload "$(ornic_ibdevs | tr '\n' ' ')"
fi
modprobe -r ornic || fail fatal-rmmod "second rmmod failed"

grep -q '^FAIL' "$RESULTS" && exit 1
exit 0
