#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# driver-faults.sh MODDIR VERBS_TOOL: six ornic models, four of them broken on
# purpose (--inject-faults, registers.rst "Fault injection"), by MAC:
#   02:..:01, 02:..:02  healthy (the survivors)
#   02:..:03  qp-state     MODIFY_QP/QUERY_QP answer QP state 0x2a
#   02:..:04  cqe          every CQE carries an index nobody posted
#   02:..:05  eq-storm     a completion EQ is refilled at every doorbell
#   02:..:06  admin-stall  the admin queue stops after the first user QP
# The driver must refuse each bad value (no out-of-bounds access, no hang:
# the runner fails the run on any splat, hung task or soft lockup), declare
# each broken device dead (IB_EVENT_DEVICE_FATAL) once it keeps misbehaving,
# keep the healthy ones working, and unload and reload cleanly.
# VERBS_TOOL is driver-verbs.c ("hold" creates a CQ, MR, QP and moves it to
# INIT through the raw uverbs ABI).
set -uo pipefail
mo=$1
verbs_tool=$2
SUITE=driver
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh

# by_mac MAC: "IBDEV NETDEV" of the ornic function with that MAC.
by_mac() {
	local d nd
	for d in /sys/bus/pci/drivers/ornic/0000:*; do
		for nd in "$d"/net/*; do
			[ -e "$nd" ] || continue
			if [ "$(cat "$nd/address")" = "$1" ]; then
				echo "$(ls "$d/infiniband") ${nd##*/}"
				return 0
			fi
		done
	done
	return 1
}

# uverbs IBDEV: its /dev/infiniband/uverbsN.
uverbs() {
	local f
	for f in /sys/class/infiniband/"$1"/device/infiniband_verbs/*; do
		echo "/dev/infiniband/${f##*/}"
	done
}

# fatal_seen IBDEV: the driver reported IB_EVENT_DEVICE_FATAL for it.
fatal_seen() {
	dmesg_has "$1: reporting IB_EVENT_DEVICE_FATAL"
}

# up IBDEV NETDEV IP: address and link up, GID present; prints the GID index.
up() {
	ip addr add "$3/24" dev "$2" && ip link set "$2" up && wait_gid "$1" "$3" &&
		gid_index "$1" "$3"
}

# hold_once IBDEV GID_INDEX: create and release the held objects; status of
# the tool (0 when every verb succeeded).
hold_once() {
	echo go | timeout 60 "$verbs_tool" hold "$(uverbs "$1")" "$1" "$2" >/tmp/hold.txt 2>&1
}

if ! install_modules "$mo" || ! modprobe ornic || ! wait_for have_devs 6; then
	fail faults-load "driver did not bind 6 devices: $(dmesg | grep -i ornic | tail -n 3 | tr '\n' ' ')"
	exit 1
fi
read -r ib0 nd0 <<<"$(by_mac 02:00:00:00:00:01)"
read -r ibq ndq <<<"$(by_mac 02:00:00:00:00:03)"
read -r ibc ndc <<<"$(by_mac 02:00:00:00:00:04)"
read -r ibs nds <<<"$(by_mac 02:00:00:00:00:05)"
read -r iba nda <<<"$(by_mac 02:00:00:00:00:06)"
if [ -z "$ib0" ] || [ -z "$ibq" ] || [ -z "$ibc" ] || [ -z "$ibs" ] || [ -z "$iba" ]; then
	fail faults-devices "cannot map MACs to devices: $(ornic_ibdevs | tr '\n' ' ')"
	exit 1
fi
pass faults-load "6 devices bound; broken: $ibq qp-state, $ibc cqe, $ibs eq-storm, $iba admin-stall"
g0=$(up "$ib0" "$nd0" 10.4.0.1)

# --- QP states out of range -------------------------------------------------------
# Each hold moves its QP to INIT: the device answers state 0x2a, the driver
# must fail the verb (EIO) instead of storing the state that
# ib_modify_qp_is_ok() would index its table with; the 8th invalid value
# declares the device dead.
if gq=$(up "$ibq" "$ndq" 10.4.2.1); then
	fails=0
	for _ in $(seq 12); do
		hold_once "$ibq" "$gq" || fails=$((fails + 1))
		fatal_seen "$ibq" && break
	done
	if ! grep -q held /tmp/hold.txt && dmesg_has "invalid value from the device: QP state 42 (limit 6)" &&
		wait_for fatal_seen "$ibq"; then
		pass faults-qp-state "$fails MODIFY_QPs answered state 42 failed ($(tr '\n' ' ' </tmp/hold.txt)); $ibq declared dead"
	else
		fail faults-qp-state "fails $fails, $(tr '\n' ' ' </tmp/hold.txt), $(dmesg | grep -E "$ibq|ornic" | tail -n 4 | tr '\n' ' ')"
	fi
else
	fail faults-qp-state "no GID on $ibq"
fi

# --- CQEs naming what nobody posted ----------------------------------------------
# Ethernet traffic: every TX/RX completion carries a ring index off by
# 0x5a5a.  The driver must not free or unmap another slot's buffer (KASAN
# would report it), count each one and give up on the device.
# A static neighbour: ICMP frames go out at once, no ARP wait.
ip addr add 10.4.3.1/24 dev "$ndc" && ip link set "$ndc" up &&
	ip neigh replace 10.4.3.2 lladdr 02:00:00:00:00:03 dev "$ndc"
ping -c 20 -i 0.05 -W 1 10.4.3.2 >/dev/null 2>&1
if wait_for fatal_seen "$ibc" && dmesg_has "invalid value from the device: [TR]X completion index"; then
	pass faults-cqe "$(dmesg | grep -c 'invalid value from the device: [TR]X completion index') bad completion indices refused; $ibc declared dead"
else
	fail faults-cqe "$(dmesg | grep -E "$ibc|ornic" | tail -n 4 | tr '\n' ' ')"
fi

# --- an EQ that never empties -------------------------------------------------------
# The first completion event (any Ethernet frame) starts the storm: each
# EQ doorbell refills the EQ.  The interrupt handler takes 64 events per
# run and leaves the rest to a work item, so the guest stays responsive; an
# EQ still busy after 256 runs (or 2 s) is declared a storm.
echo "ornic-test: eq-storm start" >/dev/kmsg
t0=$(date +%s%N)
ip addr add 10.4.4.1/24 dev "$nds" && ip link set "$nds" up &&
	ip neigh replace 10.4.4.2 lladdr 02:00:00:00:00:06 dev "$nds"
ping -c 5 -i 0.2 -W 1 10.4.4.2 >/dev/null 2>&1
for _ in $(seq 40); do
	fatal_seen "$ibs" && break
	sleep 0.5
done
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if fatal_seen "$ibs" && dmesg_has "event storm"; then
	pass faults-eq-storm "$(dmesg | grep -m1 -o 'EQ [0-9]* not empty after .* ms'); $ibs declared dead, ${ms} ms after the link came up"
else
	fail faults-eq-storm "after ${ms} ms: $(dmesg | grep -E "$ibs|ornic" | tail -n 4 | tr '\n' ' ')"
fi

# --- an admin queue that stops ------------------------------------------------------------
# CREATE_QP completes, then nothing does: the MODIFY_QP times out after
# ADMIN_TIMEOUT_MS, the device is declared dead and the reset is confirmed
# before the QP's memory is freed and its pages unpinned.
if ga=$(up "$iba" "$nda" 10.4.5.1); then
	t0=$(date +%s%N)
	hold_once "$iba" "$ga"
	rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	pci=$(basename "$(readlink -f "/sys/class/infiniband/$iba/device")")
	if [ "$rc" != 0 ] && [ "$rc" != 124 ] && dmesg_has "$pci: admin command .* timed out" &&
		wait_for fatal_seen "$iba" && dmesg_has "$pci: reset after death complete"; then
		pass faults-admin-stall "the verb failed after ${ms} ms ($(tr '\n' ' ' </tmp/hold.txt)); $iba declared dead, reset confirmed"
	else
		fail faults-admin-stall "rc $rc after ${ms} ms: $(dmesg | grep -E "$iba|ornic" | tail -n 4 | tr '\n' ' ')"
	fi
else
	fail faults-admin-stall "no GID on $iba"
fi

# --- the healthy devices are unaffected --------------------------------------------------
if [ -n "$g0" ] && hold_once "$ib0" "$g0" && grep -q released /tmp/hold.txt &&
	ip link set "$nd0" mtu 2000 && ! fatal_seen "$ib0"; then
	pass faults-survivor "$ib0 still creates a QP and moves it to INIT, and takes an MTU change"
else
	fail faults-survivor "$(tr '\n' ' ' </tmp/hold.txt) $(dmesg | grep "$ib0" | tail -n 3 | tr '\n' ' ')"
fi
dead=$(dmesg | grep -c "reporting IB_EVENT_DEVICE_FATAL")
if [ "$dead" = 4 ]; then
	pass faults-dead-count "exactly the 4 broken devices were declared dead"
else
	fail faults-dead-count "$dead devices declared dead: $(dmesg | grep 'reporting IB_EVENT_DEVICE_FATAL' | tr '\n' ' ')"
fi
dmesg | grep -i ornic >/out/ornic-dmesg.txt

# --- unload and reload --------------------------------------------------------------------
t0=$(date +%s%N)
if timeout 60 modprobe -r ornic; then
	pass faults-rmmod "rmmod with 4 dead devices took $(( ($(date +%s%N) - t0) / 1000000 )) ms"
else
	fail faults-rmmod "rmmod failed or hung"
fi
# A reset cleared each fault's state: all six bind again.
if modprobe ornic && wait_for have_devs 6 && timeout 60 modprobe -r ornic; then
	pass faults-reload "all 6 devices bind again after the reset, and unbind"
else
	fail faults-reload "$(ornic_ibdevs | tr '\n' ' ')"
fi
exit 0
