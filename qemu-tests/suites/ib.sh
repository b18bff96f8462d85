#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# ib.sh TOOLDIR: four ornic InfiniBand ports (MODDIR, PROVIDER_DIR in the
# environment) in two back-to-back subnets: A (the first two devices, a
# clean wire) and B (the other two, a wire that loses and corrupts).  Debian's
# OpenSM manages both; infiniband-diags, the verbs tools and perftest judge
# them by LID; rdma-core's pyverbs suite (unpacked at PYVERBS_ROOT, modules
# PYVERBS_MODULES, "none" for none) runs on the first port as
# "ib/pyverbs/...".  TOOLDIR holds ib-keys (UD datagrams with chosen P_Key
# indices and Q_Keys) and ib-mad-neg (MADs the agents must refuse).
# shellcheck disable=SC2317,SC2329 # functions called through wait_for
set -uo pipefail
tooldir=$1
# IPoIB puts the second port in a network namespace of its own, which the
# RDMA core allows only in exclusive mode, set before any namespace exists.
rdma system set netns exclusive
SUITE=ib
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh
. /src/qemu-tests/suites/datapath-lib.sh
. /src/qemu-tests/suites/ib-lib.sh
M_KEY=0x0123456789abcdef

# --- before any SM: ports INIT with LID 0 -------------------------------------
before_sm() {
	local d bad=""
	for d in "$A0" "$A1" "$B0" "$B1"; do
		[ "$(port_file "$d" link_layer)" = InfiniBand ] || bad+=" $d:link_layer=$(port_file "$d" link_layer)"
		wait_for port_state_is "$d" INIT || bad+=" $d:state=$(port_file "$d" state)"
		[ "$(port_file "$d" lid)" = 0x0 ] || bad+=" $d:lid=$(port_file "$d" lid)"
		[[ $(port_file "$d" phys_state) == *LinkUp* ]] || bad+=" $d:phys=$(port_file "$d" phys_state)"
	done
	if [ -z "$bad" ] && [ -z "$(ornic_netdevs)" ]; then
		pass link-layer "4 ports: link_layer InfiniBand, INIT, LID 0, LinkUp with no SM; no net_device"
	else
		fail link-layer "$bad netdevs: $(ornic_netdevs | tr '\n' ' ')"
	fi
}

# --- OpenSM brings both subnets up ------------------------------------------------
subnets_up() {
	local t
	printf '%s\n' "Default=0x7fff, ipoib : ALL=full;" \
		"ornic_full=0x8001 : ALL=full;" "ornic_limited=0x0002 : ALL=limited;" \
		>/out/sm-a0.partitions.conf
	mkdir -p /out/sm-a0 && mv /out/sm-a0.partitions.conf /out/sm-a0/partitions.conf
	start_sm a0 "$A0" 10
	start_sm b0 "$B0" 10
	if t=$(wait_secs 90 both_active "$A0" "$A1"); then
		LID_A0=$(lid_of "$A0") LID_A1=$(lid_of "$A1")
		if [ "$LID_A0" -gt 0 ] && [ "$LID_A1" -gt 0 ] && [ "$LID_A0" != "$LID_A1" ] &&
			[ "$(port_file "$A1" sm_lid)" = "$(port_file "$A0" lid)" ]; then
			pass opensm-active "subnet A ACTIVE after $t s: LIDs $LID_A0 and $LID_A1, SM LID $LID_A0 on both"
		else
			fail opensm-active "LIDs $LID_A0/$LID_A1, sm_lid $(port_file "$A1" sm_lid)"
		fi
	else
		fail opensm-active "subnet A: $(port_file "$A0" state) / $(port_file "$A1" state); $(tail -n 3 /out/sm-a0/opensm.log | tr '\n' ' ')"
		return 1
	fi
	if t=$(wait_secs 120 both_active "$B0" "$B1"); then
		pass opensm-active-faulty-wire "subnet B (lossy, corrupting wire) ACTIVE after $t s: LIDs $(lid_of "$B0") and $(lid_of "$B1")"
	else
		fail opensm-active-faulty-wire "$(port_file "$B0" state) / $(port_file "$B1" state)"
	fi
}

# --- the diagnostics --------------------------------------------------------------
diags() {
	local o guid0 guid1 ng
	guid0=$(port_guid "$A0") guid1=$(port_guid "$A1")
	ng=$(node_guid "$A1")
	o=$(ibstat "$A0" 1 2>&1)
	if [[ $o == *"State: Active"* && $o == *"Physical state: LinkUp"* && $o == *"Base lid: $LID_A0"* &&
		$o == *"SM lid: $LID_A0"* && $o == *"Link layer: InfiniBand"* && $o == *"Port GUID: $guid0"* ]]; then
		pass ibstat "Active, LinkUp, base LID $LID_A0, SM LID $LID_A0, $(grep -m1 Rate <<<"$o" | tr -s ' ')"
	else
		fail ibstat "$(tr '\n' ' ' <<<"$o" | head -c 400)"
	fi
	o=$(ibstatus "$A1" 2>&1)
	if [[ $o == *"ACTIVE"* && $o == *"link_layer:"*"InfiniBand"* && $o == *"base lid:"*"$(port_file "$A1" lid)"* ]]; then
		pass ibstatus "$(grep -m1 rate <<<"$o" | tr -s ' \t' ' ')"
	else
		fail ibstatus "$(tr '\n' ' ' <<<"$o" | head -c 400)"
	fi
	o=$(ibv_devinfo -d "$A1" 2>&1)
	if [[ $o == *"link_layer:"*"InfiniBand"* && $o == *"PORT_ACTIVE"* &&
		$(awk '/port_lid:/ { print $2 }' <<<"$o") = "$LID_A1" &&
		$(awk '/sm_lid:/ { print $2 }' <<<"$o") = "$LID_A0" ]]; then
		pass ibv_devinfo "link_layer InfiniBand, PORT_ACTIVE, port_lid $LID_A1, sm_lid $LID_A0"
	else
		fail ibv_devinfo "$(tr '\n' ' ' <<<"$o" | head -c 400)"
	fi
	ibnetdiscover -C "$A0" >/out/ibnetdiscover.txt 2>&1
	if [ "$(grep -c '^Ca' /out/ibnetdiscover.txt)" = 2 ] &&
		grep -q "^\[1\]($(bare_guid "$guid0")).*lid $LID_A0 .*lid $LID_A1 " /out/ibnetdiscover.txt &&
		grep -q "^\[1\]($(bare_guid "$guid1")).*lid $LID_A1 .*lid $LID_A0 " /out/ibnetdiscover.txt; then
		pass ibnetdiscover "2 CAs, one link: $(grep -m1 "lid $LID_A1 " /out/ibnetdiscover.txt | tr -s ' \t' ' ' | cut -c 1-160)"
	else
		fail ibnetdiscover "$(tr '\n' ' ' </out/ibnetdiscover.txt | head -c 400)"
	fi
	iblinkinfo -C "$A0" --cas-only -l >/out/iblinkinfo.txt 2>&1
	if [ "$(grep -c '==(.*Active' /out/iblinkinfo.txt)" -ge 1 ]; then
		pass iblinkinfo "$(grep -m1 '==' /out/iblinkinfo.txt | tr -s ' \t' ' ' | cut -c 1-160)"
	else
		fail iblinkinfo "$(tr '\n' ' ' </out/iblinkinfo.txt | head -c 400)"
	fi
	o=$(smpquery -C "$A0" nodeinfo "$LID_A1" 2>&1)
	if [[ $o == *"NodeType:"*"Channel Adapter"* && $o == *"NumPorts:"*"1"* ]] &&
		[ "$(smp_field Guid <<<"$o")" = "0x$ng" ]; then
		pass smpquery-nodeinfo "LID $LID_A1: Channel Adapter, 1 port, node GUID 0x$ng"
	else
		fail smpquery-nodeinfo "$(tr '\n' ' ' <<<"$o" | head -c 400)"
	fi
	o=$(smpquery -C "$A0" -D nodedesc 0,1 2>&1)
	if [[ $o == *"$(cat "/sys/class/infiniband/$A1/node_desc")"* ]]; then
		pass smpquery-nodedesc-dr "directed route 0,1: $(tr -s ' .' ' ' <<<"$o")"
	else
		fail smpquery-nodedesc-dr "$o / $(cat "/sys/class/infiniband/$A1/node_desc")"
	fi
	o=$(smpquery -C "$A0" portinfo "$LID_A1" 1 2>&1)
	if [ "$(smp_field Lid <<<"$o")" = "$LID_A1" ] &&
		[ "$(smp_field SMLid <<<"$o")" = "$LID_A0" ] &&
		[[ $(grep '^LinkState' <<<"$o") == *Active* ]]; then
		pass smpquery-portinfo "LID $LID_A1, SMLid $LID_A0, $(grep -E '^(LinkState|LinkWidthActive|LinkSpeedActive|NeighborMTU)' <<<"$o" | tr -s ' .\n' ' ')"
	else
		fail smpquery-portinfo "$(tr '\n' ' ' <<<"$o" | head -c 500)"
	fi
	o=$(smpquery -C "$A0" pkeys "$LID_A1" 1 2>&1)
	if [[ $o == *0xffff* && $o == *0x8001* && $o == *0x0002* ]]; then
		pass smpquery-pkeys "$(tr -s ' \n' ' ' <<<"$o" | head -c 200)"
	else
		fail smpquery-pkeys "$(tr '\n' ' ' <<<"$o" | head -c 400)"
	fi
	o=$(sminfo -C "$A1" 2>&1)
	if [[ $o == *"sm lid $LID_A0 "* && $o == *"sm guid 0x$(bare_guid "$guid0"),"* && $o == *SMINFO_MASTER* ]]; then
		pass sminfo "$o"
	else
		fail sminfo "$o"
	fi
	o=$(ibaddr -C "$A1" 2>&1)
	if [[ $o == *"LID start $(printf '0x%x' "$LID_A1")"* ]]; then
		pass ibaddr "$o"
	else
		fail ibaddr "$o"
	fi
	o=$(ibtracert -C "$A0" "$LID_A0" "$LID_A1" 2>&1)
	if [[ $o == *"From ca {0x$(node_guid "$A0")} portnum 1 lid $LID_A0-$LID_A0 "* &&
		$o == *"-> ca port {$guid1}[1] lid $LID_A1-$LID_A1 "* &&
		$o == *"To ca {0x$(node_guid "$A1")} portnum 1 lid $LID_A1-$LID_A1 "* ]]; then
		pass ibtracert "$(tr -s '\n' ' ' <<<"$o" | head -c 300)"
	else
		fail ibtracert "$(tr '\n' ' ' <<<"$o" | head -c 400)"
	fi
	saquery -C "$A1" NR >/out/saquery-nr.txt 2>&1
	o=$(saquery -C "$A1" --src-to-dst "$LID_A1:$LID_A0" 2>&1)
	if [ "$(grep -c 'NodeRecord dump' /out/saquery-nr.txt)" = 2 ] &&
		grep -Eq "^\s*dlid\.+$LID_A0\$" <<<"$o" && grep -Eq "^\s*slid\.+$LID_A1\$" <<<"$o"; then
		pass saquery "2 NodeRecords; PathRecord $LID_A1 -> $LID_A0: $(grep -E 'mtu|rate' <<<"$o" | tr -s ' .\n' ' ')"
	else
		fail saquery "$(tr '\n' ' ' </out/saquery-nr.txt | head -c 200) / $(tr '\n' ' ' <<<"$o" | head -c 300)"
	fi
	ibping -S -C "$A1" >/out/ibping-server.log 2>&1 &
	local spid=$!
	sleep 1
	o=$(timeout 60 ibping -C "$A0" -c 5 "$LID_A1" 2>&1)
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	if [[ $o == *"5 packets transmitted, 5 received"* ]]; then
		pass ibping "$(grep -m1 'transmitted' <<<"$o")"
	else
		fail ibping "$(tr '\n' ' ' <<<"$o" | tail -c 300)"
	fi
}

# --- verbs by LID -------------------------------------------------------------------
verbs() {
	local name args
	for name in rc uc ud srq; do
		case $name in
		rc | uc) args=(-c -n 200 -s 4096) ;;
		ud) args=(-c -n 200 -s 2048) ;;
		srq) args=(-c -q 4 -n 100 -s 4096) ;;
		esac
		if ib_pair "${name}_pingpong" "ibv_${name}_pingpong" -d "$A1" "${args[@]}" -- -d "$A0" "${args[@]}" &&
			grep -q "local address:.*LID $(printf '0x%04x' "$LID_A0")" "/out/${name}_pingpong.client.log"; then
			pass "${name}_pingpong" "by LID, ${args[*]}, data checked: $(grep -m1 'Mbit/sec' "/out/${name}_pingpong.client.log")"
		else
			fail "${name}_pingpong" "$(tail_of "${name}_pingpong")"
		fi
	done
	# With a GRH (GID 0: the SM's subnet prefix and the port GUID) and on
	# service level 3 instead of 0.
	if ib_pair rc_pingpong_grh ibv_rc_pingpong -d "$A1" -g 0 -l 3 -c -n 100 -s 4096 -- \
		-d "$A0" -g 0 -l 3 -c -n 100 -s 4096 &&
		grep -q "remote address:.*GID fe80::" "/out/rc_pingpong_grh.client.log"; then
		pass rc_pingpong_grh "LID and GRH, SL 3, 100 x 4096 B, data checked: $(grep -m1 'Mbit/sec' /out/rc_pingpong_grh.client.log)"
	else
		fail rc_pingpong_grh "$(tail_of rc_pingpong_grh)"
	fi
	# The datapath suite's sizes and names, so check-ib.sh can put the
	# numbers next to RoCEv2's from the same run.
	local t row try again sum cyc t0 wall
	for t in "write_bw_64k ib_write_bw -s 65536 --report_gbits" "send_bw_64k ib_send_bw -s 65536 --report_gbits" \
		"read_bw_64k ib_read_bw -s 65536 --report_gbits" "atomic_bw ib_atomic_bw --report_gbits" \
		"send_lat_2b ib_send_lat -s 2" "write_lat_2b ib_write_lat -s 2" \
		"read_lat_2b ib_read_lat -s 2" "atomic_lat ib_atomic_lat"; do
		read -r name tool args <<<"$t"
		again="" wall=0
		for try in 1 2 3; do
			cyc=$(perftest_cycles "$tool" "$try")
			t0=$(date +%s%N)
			# shellcheck disable=SC2086 # the tool's arguments, one word each
			if ! ib_pair "$name" "$tool" -d "$A1" -n 200 -F $args $cyc -- -d "$A0" -n 200 -F $args $cyc ||
				! row=$(perftest_row "/out/$name.client.log") || [ -z "$row" ]; then
				row=""
				break
			fi
			if [ -n "$cyc" ]; then
				row=$(perftest_cycles_to_us "$row")
				again+=" (run 3 in TSC cycles, -C, converted at the guest's rate)"
			fi
			perftest_tsc_settle "/out/$name.client.log" "$try" "$tool" "$t0" row again wall && break
		done
		if [ -z "$row" ]; then
			fail "$name" "$(tail_of "$name")$again"
		elif sum=$(perftest_judge "$tool" "$row"); then
			[ "$wall" = 1 ] || echo "ib $name $row" >>/out/perf.txt
			pass "$name" "$tool by LID, $sum$again"
		else
			fail "$name" "$sum$again"
		fi
	done
}

# --- partitions and Q_Keys: what must not arrive does not, the rest still does ----
pkey_index_of() {
	local i
	for i in $(seq 0 15); do
		[ "$(port_file "$1" "pkeys/$i")" = "$2" ] && { echo "$i"; return 0; }
	done
	return 1
}
violations() { smpquery -C "$A0" portinfo "$LID_A1" 1 | smp_field "$1"; }
keys() {
	local f0 f1 fu0 l0 l1 pv qv o
	if ! f0=$(pkey_index_of "$A0" 0x8001) || ! f1=$(pkey_index_of "$A1" 0x8001) ||
		! l0=$(pkey_index_of "$A0" 0x0002) || ! l1=$(pkey_index_of "$A1" 0x0002) ||
		! fu0=$(pkey_index_of "$A1" 0xffff); then
		fail keys "partitions not in the P_Key tables: $(cat /sys/class/infiniband/"$A1"/ports/1/pkeys/{0,1,2,3} | tr '\n' ' ')"
		return
	fi
	pv=$(violations PkeyViolations) qv=$(violations QkeyViolations)
	o=$("$tooldir/ib-keys" "$A0" "$A1" 50 1024 "$f0" "$f1" 0x11 0x11 2>&1)
	if [ "$o" = "sent 50 received 50 verified 50" ]; then
		pass pkey-full-member "partition 0x8001, full members both: $o"
	else
		fail pkey-full-member "$o"
	fi
	o=$("$tooldir/ib-keys" "$A0" "$A1" 50 1024 "$l0" "$l1" 0x11 0x11 2>&1)
	local o2 o3 o4
	o2=$("$tooldir/ib-keys" "$A0" "$A1" 50 1024 "$f0" "$fu0" 0x11 0x11 2>&1)
	o3=$("$tooldir/ib-keys" "$A0" "$A1" 50 1024 "$f0" "$f1" 0x11 0x22 2>&1)
	o4=$("$tooldir/ib-keys" "$A0" "$A1" 50 1024 "$f0" "$f1" 0x11 0x11 2>&1)
	local pv2 qv2
	pv2=$(violations PkeyViolations) qv2=$(violations QkeyViolations)
	if [ "$o" = "sent 50 received 0 verified 0" ] && [ "$o2" = "sent 50 received 0 verified 0" ] &&
		[ $((pv2 - pv)) -ge 100 ]; then
		pass pkey-violations "limited to limited (0x0002): $o; 0x8001 to a QP of 0xffff: $o2; PkeyViolations $pv -> $pv2"
	else
		fail pkey-violations "limited: $o; other partition: $o2; PkeyViolations $pv -> $pv2"
	fi
	if [ "$o3" = "sent 50 received 0 verified 0" ] && [ $((qv2 - qv)) -ge 50 ]; then
		pass qkey-violations "Q_Key 0x11 to a QP of 0x22: $o3; QkeyViolations $qv -> $qv2"
	else
		fail qkey-violations "$o3; QkeyViolations $qv -> $qv2"
	fi
	if [ "$o4" = "sent 50 received 50 verified 50" ]; then
		pass keys-after-violations "the same ports afterwards: $o4"
	else
		fail keys-after-violations "$o4"
	fi
}

# --- the PMA counts what the port sent and received ------------------------------
# PortXmitPkts/PortRcvPkts (extended) of a port, read by perfquery over the wire.
pma_counter() { perfquery -C "$A0" -x "$1" 1 | smp_field "$2"; }
pma() {
	local x0 r1 x0b r1b d0 d1 o
	x0=$(pma_counter "$LID_A0" PortXmitPkts) r1=$(pma_counter "$LID_A1" PortRcvPkts)
	d0=$(pma_counter "$LID_A0" PortXmitData) d1=$(pma_counter "$LID_A1" PortRcvData)
	o=$("$tooldir/ib-keys" "$A0" "$A1" 200 1024 0 0 0x11 0x11 2>&1)
	x0b=$(pma_counter "$LID_A0" PortXmitPkts) r1b=$(pma_counter "$LID_A1" PortRcvPkts)
	local d0b d1b
	d0b=$(pma_counter "$LID_A0" PortXmitData) d1b=$(pma_counter "$LID_A1" PortRcvData)
	# 200 datagrams of 1024 bytes (1058 on the wire, 264.5 words), with the
	# SM's sweeps and perfquery's own MADs beside them: at least the
	# datagrams, at most 60 packets more.
	if [ "$o" = "sent 200 received 200 verified 200" ] &&
		[ $((x0b - x0)) -ge 200 ] && [ $((x0b - x0)) -le 260 ] &&
		[ $((r1b - r1)) -ge 200 ] && [ $((r1b - r1)) -le 260 ] &&
		[ $((d0b - d0)) -ge 52900 ] && [ $((d1b - d1)) -ge 52900 ]; then
		pass perfquery "200 UD datagrams of 1024 B: $A0 PortXmitPkts +$((x0b - x0)) PortXmitData +$((d0b - d0)) words, $A1 PortRcvPkts +$((r1b - r1)) PortRcvData +$((d1b - d1)) words"
	else
		fail perfquery "$o; xmit $x0 -> $x0b ($d0 -> $d0b), rcv $r1 -> $r1b ($d1 -> $d1b)"
	fi
	o=$(perfquery -C "$A0" "$LID_A1" 2>&1)
	if [[ $o == *PortRcvPkts* ]]; then
		pass perfquery-no-port "perfquery LID with no port: PortCounters of the CA's port"
	else
		fail perfquery-no-port "$(tr '\n' ' ' <<<"$o" | head -c 300)"
	fi
}

# --- rdma-core's pyverbs suite on the InfiniBand port ------------------------------
pyverbs() {
	local out=/out/pyverbs-ornic_ib.txt
	MODULES=${PYVERBS_MODULES:-} TOOLS=none PREFIX=ib/pyverbs IB_DEV=$A0 \
		/src/qemu-tests/suites/pyverbs.sh "${PYVERBS_ROOT:?}" "$tooldir" ornic_ib >/out/pyverbs-ib.log 2>&1
	[ -s "$out" ] || fail pyverbs "no result from the suite: $(tail -n 3 /out/pyverbs-ib.log | tr '\n' ' ')"
}

# --- MADs the agents refuse --------------------------------------------------------
bad_mads() {
	local o
	o=$("$tooldir/ib-mad-neg" "$A0" "$LID_A1" 2>&1)
	echo "$o" >/out/ib-mad-neg.txt
	if grep -qx 'unsupported-attribute status=0x000c' <<<"$o" &&
		grep -qx 'bad-port-select status=0x001c' <<<"$o" &&
		grep -qx 'bad-lid-set status=0x001c' <<<"$o" &&
		grep -qx "lid-after $LID_A1" <<<"$o"; then
		pass bad-mads "$(tr '\n' ';' <<<"$o")"
	else
		fail bad-mads "$(tr '\n' ';' <<<"$o")"
	fi
	if both_active "$A0" "$A1" && ib_pair after_bad_mads ibv_rc_pingpong -d "$A1" -c -n 50 -- -d "$A0" -c -n 50; then
		pass after-bad-mads "ports ACTIVE, LIDs kept, RC data checked"
	else
		fail after-bad-mads "$(port_file "$A0" state) $(port_file "$A1" state); $(tail_of after_bad_mads)"
	fi
}

# --- a standby SM takes over; the first SM comes back -----------------------------
sm_failover() {
	local t
	start_sm a1 "$A1" 1
	if t=$(wait_secs 60 sm_is "$A0" "$LID_A1" SMINFO_STANDBY) && sm_is "$A0" "$LID_A0" SMINFO_MASTER; then
		pass sm-standby "second SM (priority 1) on LID $LID_A1 in STANDBY after $t s, LID $LID_A0 MASTER"
	else
		fail sm-standby "LID $LID_A1: $(sm_state "$A0" "$LID_A1"), LID $LID_A0: $(sm_state "$A0" "$LID_A0")"
	fi
	stop_sm a0
	if t=$(wait_secs 90 master_lid_is "$A1" "$LID_A1") && wait_for master_lid_is "$A0" "$LID_A1" &&
		both_active "$A0" "$A1" && [ "$(lid_of "$A0")" = "$LID_A0" ]; then
		pass sm-takeover "master SM stopped: the standby is MASTER after $t s, both ports' SM LID $LID_A1, LIDs kept"
	else
		fail sm-takeover "sm_lid $(port_file "$A0" sm_lid)/$(port_file "$A1" sm_lid), LID $LID_A1: $(sm_state "$A1" "$LID_A1")"
	fi
	start_sm a0 "$A0" 10
	if t=$(wait_secs 90 master_lid_is "$A1" "$LID_A0") && wait_for master_lid_is "$A0" "$LID_A0" &&
		both_active "$A0" "$A1" && [ "$(lid_of "$A1")" = "$LID_A1" ]; then
		pass sm-restart "the first SM restarted (priority 10): MASTER again after $t s, LIDs $LID_A0 and $LID_A1 kept"
	else
		fail sm-restart "sm_lid $(port_file "$A0" sm_lid)/$(port_file "$A1" sm_lid); LID $LID_A0: $(sm_state "$A1" "$LID_A0")"
	fi
	if ib_pair after_sm_restart ibv_rc_pingpong -d "$A1" -c -n 50 -- -d "$A0" -c -n 50; then
		pass after-sm-restart "RC by LID, data checked"
	else
		fail after-sm-restart "$(tail_of after_sm_restart)"
	fi
}

# --- device reset; the SM brings it back, now with an M_Key --------------------------
pci_of() { basename "$(readlink -f "/sys/class/infiniband/$1/device")"; }
device_reset() {
	local p0 p1 t ibs o
	stop_sm a1
	stop_sm a0
	p0=$(pci_of "$A0") p1=$(pci_of "$A1")
	echo "$p0" >/sys/bus/pci/drivers/ornic/unbind
	echo "$p1" >/sys/bus/pci/drivers/ornic/unbind
	echo "$p0" >/sys/bus/pci/drivers/ornic/bind
	echo "$p1" >/sys/bus/pci/drivers/ornic/bind
	wait_for have_ibdevs 4
	read -r -a ibs <<<"$(ornic_ibdevs | tr '\n' ' ')"
	A0=${ibs[0]} A1=${ibs[1]}
	if wait_for port_state_is "$A0" INIT && wait_for port_state_is "$A1" INIT &&
		[ "$(port_file "$A1" lid)" = 0x0 ]; then
		pass reset-init "both devices rebound: ports INIT with LID 0 until an SM comes"
	else
		fail reset-init "$(port_file "$A0" state) $(port_file "$A1" state) lid $(port_file "$A1" lid)"
	fi
	start_sm a0 "$A0" 10 "m_key $M_KEY" "m_key_protection_level 2" "m_key_lease_period 0"
	if t=$(wait_secs 90 both_active "$A0" "$A1") && [ "$(lid_of "$A0")" = "$LID_A0" ] &&
		[ "$(lid_of "$A1")" = "$LID_A1" ]; then
		pass reset-active "after the reset the SM brings both ports ACTIVE in $t s with the same LIDs"
	else
		fail reset-active "$(port_file "$A0" state) $(port_file "$A1" state), LIDs $(lid_of "$A0") $(lid_of "$A1")"
		return
	fi
	if ib_pair after_reset ibv_rc_pingpong -d "$A1" -c -n 50 -- -d "$A0" -c -n 50; then
		pass after-reset "RC by LID, data checked"
	else
		fail after-reset "$(tail_of after_reset)"
	fi
	# The SM sets the M_Key in its sweep; protection level 2 then hides the
	# port from anyone without it.
	mkey_set() { [[ $("$tooldir/ib-mad-neg" "$A0" "$LID_A1" "$M_KEY" 2>&1) == *"mkey-wrong no answer"* ]]; }
	wait_secs 30 mkey_set >/dev/null
	o=$("$tooldir/ib-mad-neg" "$A0" "$LID_A1" "$M_KEY" 2>&1)
	echo "$o" >/out/ib-mad-neg-mkey.txt
	if grep -qx 'mkey-wrong no answer' <<<"$o" && grep -qx 'mkey-right status=0x0000' <<<"$o" &&
		[ "$(awk '/^mkey-violations/ { print $2 }' <<<"$o")" -gt 0 ] 2>/dev/null; then
		pass m-key "protection level 2: $(tr '\n' ';' <<<"$o")"
	else
		fail m-key "$(tr '\n' ';' <<<"$o")"
	fi
	# The driver's own queries ignore the M_Key, as they must.
	o=$(ibv_devinfo -d "$A1" 2>&1)
	if [[ $o == *PORT_ACTIVE* && $(awk '/port_lid:/ { print $2 }' <<<"$o") = "$LID_A1" ]]; then
		pass m-key-local-query "ibv_devinfo on the protected port: PORT_ACTIVE, LID $LID_A1"
	else
		fail m-key-local-query "$(tr '\n' ' ' <<<"$o" | head -c 300)"
	fi
}

# --- IPoIB: the kernel's ib_ipoib on the two ports of subnet A ---------------------
# ipoib_dev IBDEV [NETNS]: IBDEV's IPoIB net_device: one of type 32
# (ARPHRD_INFINIBAND) on the same PCI function (IPoIB does not register its
# net_device with the RDMA core, so rdma link does not name it).
ipoib_dev() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	local find='for n in /sys/class/net/*; do
		[ "$(cat "$n/type")" = 32 ] &&
			[ "$(readlink -f "$n/device")" = "$(readlink -f "/sys/class/infiniband/$0/device")" ] &&
			echo "${n##*/}"
	done'
	if [ -n "${2:-}" ]; then
		ip netns exec "$2" bash -c "$find" "$1" 2>/dev/null | head -n 1
	else
		bash -c "$find" "$1" 2>/dev/null | head -n 1
	fi
}
# iperf_rate LABEL: a 20 MiB TCP stream to 10.10.0.2 (in
# netns ipoib); prints the receiver's rate.
iperf_rate() {
	local spid rate
	ip netns exec ipoib iperf3 -s -1 -B 10.10.0.2 >"/out/iperf-$1.server.log" 2>&1 &
	spid=$!
	wait_listen ipoib 5201 || { kill "$spid"; return 1; }
	timeout 120 iperf3 -c 10.10.0.2 -n 20M -f m >"/out/iperf-$1.client.log" 2>&1 || { kill "$spid"; return 1; }
	wait "$spid"
	rate=$(awk '/receiver/ { print $(NF-2), $(NF-1) }' "/out/iperf-$1.client.log")
	[ -n "$rate" ] && echo "$rate"
}
has_ipoib() { [ -n "$(ipoib_dev "$@")" ]; }
ipoib() {
	local i0 i1 o r mode size
	if ! modprobe ib_ipoib || ! wait_for has_ipoib "$A0"; then
		fail ipoib-up "modprobe ib_ipoib: $(dmesg | grep -i ipoib | tail -n 3 | tr '\n' ' ')"
		return 1
	fi
	i0=$(ipoib_dev "$A0")
	ip netns add ipoib
	if ! rdma dev set "$A1" netns ipoib || ! wait_for has_ipoib "$A1" ipoib; then
		fail ipoib-up "rdma dev set $A1 netns ipoib: $(ip netns exec ipoib rdma link show 2>&1 | tr '\n' ' ')"
		return 1
	fi
	i1=$(ipoib_dev "$A1" ipoib)
	ip addr add 10.10.0.1/24 dev "$i0"
	ip link set "$i0" up
	ip netns exec ipoib ip addr add 10.10.0.2/24 dev "$i1"
	ip netns exec ipoib ip link set "$i1" up
	ip netns exec ipoib ip link set lo up
	carrier() { [ "$(cat "/sys/class/net/$i0/carrier" 2>/dev/null)" = 1 ] &&
		[ "$(ip netns exec ipoib cat "/sys/class/net/$i1/carrier" 2>/dev/null)" = 1 ]; }
	if ! wait_secs 60 carrier >/dev/null; then
		fail ipoib-up "$i0/$i1 no carrier (broadcast group not joined?): $(dmesg | grep -i ipoib | tail -n 3 | tr '\n' ' ')"
		return 1
	fi
	pass ipoib-up "$i0 on $A0 and $i1 on $A1 (netns ipoib) up, mode $(cat "/sys/class/net/$i0/mode"), MTU $(cat "/sys/class/net/$i0/mtu")"
	o=$(saquery -C "$A0" -g 2>&1)
	if [[ $o == *"ff12:401b:ffff:0000:0000:0000:ffff:ffff"* || $o == *"ff12:401b:ffff::ffff:ffff"* ]]; then
		pass ipoib-broadcast-group "the IPv4 broadcast group's MCMemberRecord at the SA: $(grep -m1 -i 'mlid' <<<"$o" | tr -s ' .\t' ' ')"
	else
		fail ipoib-broadcast-group "$(tr '\n' ' ' <<<"$o" | head -c 300)"
	fi
	for mode in datagram connected; do
		if [ "$mode" = connected ]; then
			# The mode sets the MTU: the largest the SRQ's
			# scatter list can take.
			echo connected >"/sys/class/net/$i0/mode"
			ip netns exec ipoib sh -c "echo connected >/sys/class/net/$i1/mode"
			sleep 1
		fi
		size=$([ "$mode" = datagram ] && echo 2000 || echo 60000)
		if o=$(ping -c 5 -i 0.2 -s "$size" 10.10.0.2 2>&1) && [[ $o == *" 0% packet loss"* ]]; then
			pass "ipoib-$mode-ping" "$(cat "/sys/class/net/$i0/mode") mode, MTU $(cat "/sys/class/net/$i0/mtu"), $size-byte pings: $(grep rtt <<<"$o")"
		else
			fail "ipoib-$mode-ping" "$(tail -n 2 <<<"$o" | tr '\n' ' ')"
		fi
		if r=$(iperf_rate "$mode"); then
			pass "ipoib-$mode-tcp" "iperf3 over IPoIB ($mode): $r"
			echo "ipoib $mode $r" >>/out/perf.txt
		else
			fail "ipoib-$mode-tcp" "$(tail -n 3 "/out/iperf-$mode.client.log" | tr '\n' ' ')"
		fi
	done
}

# --- rdma_cm and NVMe-oF over IPoIB addresses ---------------------------------------
# The datapath suite's rdma_cm tests (datapath-lib.sh cm), between A0 (here,
# 10.10.0.1) and A1 (netns ipoib, 10.10.0.2): the CM resolves IPoIB addresses
# to GIDs and paths through the SA; mckey joins a multicast group at the SA
# and its datagrams go to the MLID the SA gave.
# (The host finds mckey's datagrams in the capture, sent to a multicast LID.)
ipoib_ulps() {
	CDEV=$A0 SDEV=$A1 CIP=10.10.0.1 SIP=10.10.0.2 NS=ipoib PERF=/out/perf.txt
	cm ipoib
	# nvmet-rdma and nvme-rdma both live in the initial namespace: the
	# target listens on A0's IPoIB address and the host connects to it.
	nvmeof ipoib
}

# --- subnet B: a wire that loses and corrupts packets ------------------------------
faulty_wire() {
	local v0 v1
	if ib_pair faulty_rc ibv_rc_pingpong -d "$B1" -c -n 300 -s 4096 -- -d "$B0" -c -n 300 -s 4096; then
		# With the SM stopped nothing more crosses subnet B: the host
		# compares these counters with what it finds in the capture.
		stop_sm b0
		sleep 1
		rdma statistic show link "$B0/1" >/out/faulty-b0-counters.txt 2>&1
		rdma statistic show link "$B1/1" >/out/faulty-b1-counters.txt 2>&1
		v0=$(counter_value /out/faulty-b0-counters.txt rx_bad_vcrc)
		v1=$(counter_value /out/faulty-b1-counters.txt rx_bad_vcrc)
		if [ $((v0 + v1)) -gt 0 ]; then
			pass faulty-wire-rc "300 x 4096 B by RC, data checked, over a wire that corrupts 1 %: rx_bad_vcrc $v0 and $v1"
		else
			fail faulty-wire-rc "data went through but no bad VCRC counted: $v0 $v1"
		fi
	else
		fail faulty-wire-rc "$(tail_of faulty_rc)"
	fi
}

if ib_setup 4; then
	read -r -a ibs <<<"$(ornic_ibdevs | tr '\n' ' ')"
	A0=${ibs[0]} A1=${ibs[1]} B0=${ibs[2]} B1=${ibs[3]}
	before_sm
	if subnets_up; then
		diags
		verbs
		keys
		pma
		bad_mads
		sm_failover
		device_reset
		if ipoib; then
			ipoib_ulps
		fi
		[ "${PYVERBS_MODULES:-}" = none ] || pyverbs
	fi
	faulty_wire
	stop_sm a0
	stop_sm a1
	stop_sm b0
	rmmod ornic || fail rmmod "$(lsmod | grep ornic)"
fi
exit 0
