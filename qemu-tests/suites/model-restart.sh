#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# model-restart.sh MODDIR: what a guest sees when a model dies.
# check-model-restart.sh starts the models and does what we ask by creating
# files in /out.
#   udp-link-*   NIC 0's udp: port leads to a peer model that has no guest.
#                The host kills the peer: our frames are refused and the
#                carrier goes.  The host starts the peer again, and the
#                carrier must come back and our frames reach the peer
#                although the peer never sends a frame (the host reads the
#                peer's capture).
#   model-death  the host kills NIC 1's own model: the driver declares the
#                device dead, we remove the dead function ourselves (never
#                device_del: that aborts QEMU) and unload the driver.  The
#                host then checks that QEMU exits cleanly after the
#                power-off that ends this run.
set -uo pipefail
mo=$1
SUITE=twoguests
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh

ask() { # ask REQUEST DONE: create /out/REQUEST, wait up to 60 s for /out/DONE
	local _
	touch "/out/$1"
	for _ in $(seq 300); do
		[ -e "/out/$2" ] && return 0
		sleep 0.2
	done
	return 1
}
netdev_with_mac() { # netdev_with_mac MAC
	local f
	for f in /sys/class/net/*/address; do
		[ "$(cat "$f")" = "$1" ] && { basename "$(dirname "$f")"; return 0; }
	done
	return 1
}
wait_dead() { # up to 60 s for the driver to declare the victim dead
	local _
	for _ in $(seq 300); do
		dmesg_has "$victim_pci: device dead" && return 0
		sleep 0.2
	done
	return 1
}
carrier_is() { [ "$(cat "/sys/class/net/$nd/carrier" 2>/dev/null)" = "$1" ]; }
# wait_carrier STATE SECONDS [CMD...]: wait for the carrier, running CMD
# (traffic) between looks; prints the seconds it took.
wait_carrier() {
	local want=$1 limit=$2 start now
	shift 2
	start=$(date +%s.%N)
	while :; do
		now=$(date +%s.%N)
		if carrier_is "$want"; then
			awk -v a="$start" -v b="$now" 'BEGIN { printf "%.1f", b - a }'
			return 0
		fi
		awk -v a="$start" -v b="$now" -v l="$limit" 'BEGIN { exit !(b - a > l) }' && return 1
		[ $# = 0 ] || "$@" >/dev/null 2>&1
		sleep 0.2
	done
}

if ! install_modules "$mo" || ! modprobe ornic || ! wait_for have_devs 2; then
	fail model-restart/setup "driver did not come up: $(dmesg | grep -i ornic | tail -n 3 | tr '\n' ' ')"
	exit 1
fi
if ! nd=$(netdev_with_mac 02:00:00:00:0c:01) || ! victim=$(netdev_with_mac 02:00:00:00:0c:03); then
	fail model-restart/setup "no netdevs with the models' MACs: $(ip -br link | tr '\n' ' ')"
	exit 1
fi
victim_pci=$(basename "$(readlink -f "/sys/class/net/$victim/device")")
ip addr add 10.13.0.1/24 dev "$nd"
ip link set "$nd" up
ip link set "$victim" up

# --- the udp: link follows its peer's restart -----------------------------------------
if ! t=$(wait_carrier 1 30); then
	fail udp-link-recovery/carrier-down "no carrier on $nd with the peer model running"
elif ! ask kill-peer peer-killed; then
	fail udp-link-recovery/carrier-down "the host did not kill the peer model"
elif ! t=$(wait_carrier 0 30 ping -c 1 -W 1 10.13.0.2); then
	fail udp-link-recovery/carrier-down "the carrier stayed up after the peer model died and refused our frames"
else
	pass udp-link-recovery/carrier-down "$nd lost its carrier ${t} s after our frames were first refused"
	if ! ask restart-peer peer-restarted; then
		fail udp-link-recovery/carrier-up "the host did not restart the peer model"
	elif ! t=$(wait_carrier 1 30); then
		fail udp-link-recovery/carrier-up "no carrier 30 s after the peer model restarted (it sends nothing: only our side can find it)"
	else
		pass udp-link-recovery/carrier-up "$nd has its carrier again ${t} s after the peer restarted, the peer silent"
		# ARP requests of ours: the host looks for them in the peer's capture.
		ping -c 3 -W 1 10.13.0.2 >/dev/null 2>&1
		touch /out/frames-sent
	fi
fi

# --- a dead model's device is removed without device_del ------------------------------
if ! ask kill-victim victim-killed; then
	fail model-death/guest-remove "the host did not kill NIC 1's model"
elif ! wait_dead; then
	fail model-death/guest-remove "the driver did not declare $victim_pci dead: $(dmesg | grep -i ornic | tail -n 3 | tr '\n' ' ')"
elif ! timeout 60 sh -c "echo 1 >/sys/bus/pci/devices/$victim_pci/remove"; then
	fail model-death/guest-remove "removing the dead function $victim_pci in the guest failed or hung"
elif ! timeout 60 rmmod ornic; then
	fail model-death/guest-remove "rmmod ornic after the device death failed"
else
	pass model-death/guest-remove "$victim_pci declared dead, removed in the guest, ornic unloaded; the host judges QEMU's exit"
fi
exit 0
