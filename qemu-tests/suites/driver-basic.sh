#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# driver-basic.sh MODDIR [UCTX_TOOL [MMIO_TOOL]]: with two linked ornic models attached, the driver
# binds both, registers ornic_0/ornic_1 with their netdevs, the ports go
# ACTIVE, IP traffic (ping, a data-checked TCP transfer) flows between the
# two netdevs (one in netns "peer"), RoCEv2 GIDs follow the IP addresses,
# hw counters and netdev stats count, MTU changes work, and 20 rmmod/modprobe
# cycles under traffic leave nothing behind.  With UCTX_TOOL (driver-uctx.c)
# a user context maps its doorbell page, and a PCI hot-unplug of the device
# under it disassociates the context.  With MMIO_TOOL (mmio-stress.c), after
# the last rmmod a million register writes and a million doorbells reach the
# unbound device, every one counted by it, and the driver binds again.
set -uo pipefail
mo=$1
uctx_tool=${2:-}
mmio_tool=${3:-}
SUITE=driver
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh
# rmmod/modprobe under ping+TCP: each cycle costs ~6 s of TCG time; the soak
# group churns longer (reloads and kill -9 under RDMA traffic).
CYCLES=${CYCLES:-8}

if ! install_modules "$mo"; then
	fail probe "cannot install the modules from $mo"
	exit 1
fi

# load_and_find: modprobe, then set ND0/ND1, IB0/IB1 in PCI order.
load_and_find() {
	modprobe ornic || return 1
	wait_for have_devs 2 || return 1
	# No /dev/fd in the guest: no process substitution.
	read -r -a nds <<<"$(ornic_netdevs | tr '\n' ' ')"
	read -r -a ibs <<<"$(ornic_ibdevs | tr '\n' ' ')"
	ND0=${nds[0]} ND1=${nds[1]} IB0=${ibs[0]} IB1=${ibs[1]}
}

# net_setup: ND0 10.1.0.1 + fd00::1 here, ND1 10.1.0.2 + fd00::2 in "peer".
net_setup() {
	ip netns add peer 2>/dev/null
	ip link set "$ND1" netns peer || return 1
	ip addr add 10.1.0.1/24 dev "$ND0"
	ip -6 addr add fd00::1/64 dev "$ND0" nodad
	ip link set "$ND0" up
	ip netns exec peer ip addr add 10.1.0.2/24 dev "$ND1"
	ip netns exec peer ip -6 addr add fd00::2/64 dev "$ND1" nodad
	ip netns exec peer ip link set "$ND1" up
	ip netns exec peer ip link set lo up
}

# shellcheck disable=SC2329 # called through wait_for
port_active() { # port_active [netns] IBDEV
	local ns=() out
	if [ $# = 2 ]; then ns=(ip netns exec "$1"); shift; fi
	out=$("${ns[@]}" rdma link show "$1/1" 2>/dev/null) || return 1
	[[ $out == *"state ACTIVE"* ]]
}

# --- probe ---------------------------------------------------------------------
if ! load_and_find; then
	fail probe "modprobe ornic did not give 2 ib devices and 2 netdevs: $(dmesg | grep -i ornic | tail -n 5 | tr '\n' ' ')"
	exit 1
fi
pass probe "$IB0 ($ND0) and $IB1 ($ND1) bound: $(dmesg | grep -m1 -o 'ornic spec [0-9.]*, caps 0x[0-9a-f]*')"
if [[ $IB0 == ornic_* && $IB1 == ornic_* ]]; then
	pass ib-names "$IB0 $IB1"
else
	fail ib-names "$IB0 $IB1"
fi
mac0=$(cat "/sys/class/net/$ND0/address")
pass netdev-mac "$ND0 has MAC $mac0 from the device"

# --- ports and netdevs ------------------------------------------------------------
net_setup || fail net-setup "could not configure the netdevs"
if wait_for port_active "$IB0" && wait_for port_active peer "$IB1"; then
	l0=$(rdma link show "$IB0/1")
	l1=$(ip netns exec peer rdma link show "$IB1/1")
	if [[ $l0 == *"netdev $ND0"* && $l1 == *"netdev $ND1"* ]]; then
		pass rdma-link "$(echo "$l0" | tr -s ' ') | $(echo "$l1" | tr -s ' ')"
	else
		fail rdma-link "netdev missing: $l0 | $l1"
	fi
else
	fail rdma-link "ports not ACTIVE: $(rdma link show 2>&1 | tr '\n' ' ')"
fi

# --- IP traffic ------------------------------------------------------------------
if ping -c 3 -W 3 10.1.0.2 >/out/ping.txt 2>&1; then
	pass ping "$(grep -o '[0-9]* received' /out/ping.txt), $(grep -o 'rtt.*' /out/ping.txt)"
else
	fail ping "$(tail -n 2 /out/ping.txt | tr '\n' ' ')"
fi
if ping -6 -c 2 -W 3 fd00::2 >/out/ping6.txt 2>&1; then
	pass ping6 "$(grep -o '[0-9]* received' /out/ping6.txt)"
else
	fail ping6 "$(tail -n 2 /out/ping6.txt | tr '\n' ' ')"
fi

# tcp_transfer SIZE_KIB: nc a random file to the peer, compare checksums.
tcp_transfer() {
	local kib=$1 spid t0 t1 a b
	head -c "${kib}K" /dev/urandom >/tmp/tx.bin
	rm -f /tmp/rx.bin
	ip netns exec peer timeout 120 nc -l -p 5001 >/tmp/rx.bin &
	spid=$!
	wait_listen peer 5001 || { kill "$spid"; return 1; }
	t0=$(date +%s%N)
	timeout 120 nc -N 10.1.0.2 5001 </tmp/tx.bin || { kill "$spid"; return 1; }
	wait "$spid"
	t1=$(date +%s%N)
	a=$(sha256sum </tmp/tx.bin) b=$(sha256sum </tmp/rx.bin)
	[ "$a" = "$b" ] || return 1
	echo "$kib KiB in $(( (t1 - t0) / 1000000 )) ms, sha256 match"
}
if out=$(tcp_transfer 4096); then
	pass tcp "$out"
else
	fail tcp "transfer failed or data differs ($(stat -c %s /tmp/rx.bin 2>/dev/null) bytes received)"
fi

# --- GIDs ------------------------------------------------------------------------
if wait_gid "$IB0" 10.1.0.1 && gid_index_of "$IB0" fd00:0000:0000:0000:0000:0000:0000:0001 >/dev/null; then
	pass gids "$IB0: IPv4 GID index $(gid_index "$IB0" 10.1.0.1) and IPv6 fd00::1 (RoCE v2)"
else
	fail gids "$(grep -H . /sys/class/infiniband/"$IB0"/ports/1/gids/* 2>/dev/null | grep -v ':0000:0000:0000:0000:0000:0000:0000:0000' | tr '\n' ' ')"
fi
# The device accepted every ADD_GID: no admin command failed.
stats=$(rdma statistic show link "$IB0/1" 2>&1)
echo "$stats" >/out/rdma-statistic.txt
errs=$(echo "$stats" | grep -o 'admin_errors [0-9]*' | cut -d' ' -f2)
cmds=$(echo "$stats" | grep -o 'admin_commands [0-9]*' | cut -d' ' -f2)
frames=$(echo "$stats" | grep -o 'eth_tx_frames [0-9]*' | cut -d' ' -f2)
if [ "${errs:-x}" = 0 ] && [ "${cmds:-0}" -gt 0 ] && [ "${frames:-0}" -gt 0 ]; then
	pass counters "rdma statistic: admin_commands $cmds, admin_errors 0, eth_tx_frames $frames"
	pass gids-in-device "every ADD_GID/DEL_GID accepted by the device (admin_errors 0)"
else
	fail counters "admin_commands=$cmds admin_errors=$errs eth_tx_frames=$frames"
fi
s=$(ip -s link show "$ND0")
echo "$s" >/out/ip-s-link.txt
rxp=$(echo "$s" | awk '/RX:/ { getline; print $2; exit }')
txp=$(echo "$s" | awk '/TX:/ { getline; print $2; exit }')
if [ "${rxp:-0}" -gt 0 ] && [ "${txp:-0}" -gt 0 ]; then
	pass netdev-stats "ip -s link $ND0: RX $rxp packets, TX $txp packets"
else
	fail netdev-stats "RX ${rxp:-?} TX ${txp:-?}"
fi

# --- MTU -------------------------------------------------------------------------
if ip link set "$ND0" mtu 9000 && ip netns exec peer ip link set "$ND1" mtu 9000 &&
	wait_for port_active "$IB0" && ping -c 2 -W 3 -s 8000 -M "do" 10.1.0.2 >/out/ping-jumbo.txt 2>&1; then
	pass mtu "MTU 9000 both ends, 8000-byte unfragmented ping, $(rdma link show "$IB0/1" | grep -o 'mtu [0-9]*' || true)"
else
	fail mtu "$(tail -n 2 /out/ping-jumbo.txt 2>/dev/null | tr '\n' ' ')"
fi

# --- rmmod/modprobe cycles under traffic -----------------------------------------
ok=1
for c in $(seq "$CYCLES"); do
	# Traffic in flight while the module goes: ping and a TCP stream.
	ping -i 0.05 -W 1 10.1.0.2 >/dev/null 2>&1 &
	ppid=$!
	ip netns exec peer timeout 20 nc -l -p 5002 >/dev/null 2>&1 &
	spid=$!
	wait_listen peer 5002
	timeout 20 nc -N 10.1.0.2 5002 </dev/zero >/dev/null 2>&1 &
	npid=$!
	sleep 0.5
	if ! modprobe -r ornic; then
		fail reload-cycles "cycle $c: rmmod failed"
		ok=0
		break
	fi
	kill "$ppid" "$npid" "$spid" 2>/dev/null
	wait 2>/dev/null
	if ! load_and_find || ! net_setup >/dev/null 2>&1 || ! wait_for port_active "$IB0"; then
		fail reload-cycles "cycle $c: reload did not come back: $(dmesg | grep -i ornic | tail -n 3 | tr '\n' ' ')"
		ok=0
		break
	fi
done
if [ $ok = 1 ]; then
	if out=$(tcp_transfer 1024); then
		pass reload-cycles "$CYCLES rmmod/modprobe cycles under ping+TCP traffic; afterwards $out"
	else
		fail reload-cycles "traffic broken after $CYCLES cycles"
	fi
fi
# --- user context, doorbell page, disassociation on device loss ------------------
if [ -n "$uctx_tool" ] && [ $ok = 1 ]; then
	uv=""
	for f in /sys/class/infiniband/"$IB0"/device/infiniband_verbs/*; do
		uv=${f##*/}
	done
	bdf=$(basename "$(readlink -f "/sys/class/infiniband/$IB0/device")")
	rm -f /tmp/uctx-go
	mkfifo /tmp/uctx-go
	"$uctx_tool" "/dev/infiniband/$uv" </tmp/uctx-go >/out/uctx.txt 2>&1 &
	upid=$!
	exec 3>/tmp/uctx-go
	if wait_for grep -q db_page= /out/uctx.txt; then
		bad=$(rdma statistic show link "$IB0/1" | grep -o 'db_bad_queue [0-9]*' | cut -d' ' -f2)
		if [ "${bad:-0}" -ge 1 ]; then
			pass ucontext "$(head -n 1 /out/uctx.txt); doorbell through the mmap()ed page reached the device (db_bad_queue $bad)"
		else
			fail ucontext "doorbell write not seen by the device: $(head -n 1 /out/uctx.txt)"
		fi
		if timeout 60 sh -c "echo 1 >/sys/bus/pci/devices/$bdf/remove"; then
			echo go >&3
			exec 3>&-
			if wait "$upid" && grep -q after=ok /out/uctx.txt; then
				pass disassociate "hot-unplug of $bdf with a live ucontext and doorbell mapping completed; the process survived"
			else
				fail disassociate "the process did not survive: $(tr '\n' ' ' </out/uctx.txt)"
			fi
		else
			exec 3>&-
			fail disassociate "PCI remove of $bdf hung with a live ucontext"
		fi
		echo 1 >/sys/bus/pci/rescan
		# (The other device's netdev lives in netns "peer": count ib_devices.)
		if wait_for have_ibdevs 2 && [ -n "$(ls /sys/bus/pci/devices/"$bdf"/net/ 2>/dev/null)" ]; then
			pass pci-rescan "$bdf came back with an ib_device and a netdev after rescan"
		else
			fail pci-rescan "$(ornic_ibdevs | tr '\n' ' ')"
		fi
	else
		exec 3>&-
		kill "$upid" 2>/dev/null
		fail ucontext "$(tr '\n' ' ' </out/uctx.txt)"
	fi
fi

modprobe -r ornic || fail rmmod "final rmmod failed"
[ -d /sys/module/ornic ] && fail rmmod "module still loaded"

# --- posted writes are never lost --------------------------------------------------
# With no driver bound, the device's BARs are mapped through sysfs and written
# a million times each way; the device counts what arrived.
if [ -n "$mmio_tool" ]; then
	dev="" hw=/src/include/ornic/ornic_hw.h
	vid=$(awk '$2 == "ORNIC_PCI_VENDOR_ID" { print $3 }' $hw)
	did=$(awk '$2 == "ORNIC_PCI_DEVICE_ID" { print $3 }' $hw)
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = "$vid" ] && [ "$(cat "$d/device")" = "$did" ] && { dev=$d; break; }
	done
	if [ -z "$dev" ]; then
		fail mmio-stress "no ornic PCI function found"
	elif out=$(timeout 900 "$mmio_tool" "$dev" "${MMIO_WRITES:-1000000}" 2>&1); then
		pass mmio-stress "${dev##*/}: $out"
	else
		fail mmio-stress "${dev##*/}: $out"
	fi
	if load_and_find && modprobe -r ornic; then
		pass mmio-stress-rebind "the driver binds both devices again after the stress"
	else
		fail mmio-stress-rebind "$(dmesg | grep -i ornic | tail -n 3 | tr '\n' ' ')"
	fi
fi

grep -q '^FAIL' "$RESULTS" && exit 1
exit 0
