#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# driver-observe.sh MODDIR VERBS_TOOL: what an operator sees of ornic, with
# two linked models: `ethtool -i` (driver, version from debian/changelog,
# the device's firmware version, which is the model's release, and spec
# version, bus), the IB device's fw_ver in sysfs, `ethtool -S` (the device's counters grow
# by what a ping and RDMA WRITEs sent), `rdma statistic` per-QP counters in
# auto and manual mode matching the WRITEs, `rdma res show -dd` with the
# driver's view of QPs, CQs and MRs, /sys/kernel/debug/ornic/<ibdev>/ read
# during traffic, the debug messages of refused create_qp/create_cq naming
# the value and the limit, and the model's JSON state dump (SIGUSR1, sent by
# the host when asked through /out/dump-model) agreeing with ethtool -S.
set -uo pipefail
mo=$1
tool=$2
SUITE=driver
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh
N=8	# RDMA WRITEs of 4 KiB per traffic run

if ! install_modules "$mo" || ! modprobe ornic || ! wait_for have_devs 2; then
	fail observe-probe "driver did not come up: $(dmesg | grep -i ornic | tail -n 3 | tr '\n' ' ')"
	exit 1
fi
read -r -a nds <<<"$(ornic_netdevs | tr '\n' ' ')"
read -r -a ibs <<<"$(ornic_ibdevs | tr '\n' ' ')"
nd0=${nds[0]} nd1=${nds[1]} ib0=${ibs[0]}
ip netns add peer
ip link set "$nd1" netns peer
ip addr add 10.1.0.1/24 dev "$nd0"
ip link set "$nd0" up
ip netns exec peer ip addr add 10.1.0.2/24 dev "$nd1"
ip netns exec peer ip link set "$nd1" up

if ! wait_for port_active "$ib0" || ! wait_gid "$ib0" 10.1.0.1; then
	fail observe-setup "$ib0 not ACTIVE with a GID for 10.1.0.1: $(rdma link show 2>&1 | tr '\n' ' ')"
	exit 1
fi
gi=$(gid_index "$ib0" 10.1.0.1)
uv=$(uverbs_of "$ib0")

# estat NAME: the value of NAME in `ethtool -S $nd0`.
estat() { ethtool -S "$nd0" | awk -v n="$1:" '$1 == n { print $2; exit }'; }
# nstat NAME: the netdev's own statistic NAME (driver-side count).
nstat() { cat "/sys/class/net/$nd0/statistics/$1"; }
# lstat NAME: NAME in `rdma statistic show link $ib0/1`.
lstat() { rdma statistic show link "$ib0/1" | tr ' ' '\n' | awk -v n="$1" 'p { print; exit } $0 == n { p = 1 }'; }

# --- ethtool -i ----------------------------------------------------------------------
version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' /src/debian/changelog)
hw=/src/include/ornic/ornic_hw.h
spec="spec $(awk '$2 == "ORNIC_SPEC_VERSION_MAJOR" { print $3 }' $hw).$(awk '$2 == "ORNIC_SPEC_VERSION_MINOR" { print $3 }' $hw)"
# The model's FW_VERSION is the release it was built from: MAJOR.MINOR.PATCH.
fw=$(sed -n 's/^\([0-9]*\.[0-9]*\.[0-9]*\).*/\1/p' <<<"$version")
bus=$(basename "$(readlink -f "/sys/class/net/$nd0/device")")
ethtool -i "$nd0" >/out/ethtool-i.txt 2>&1
field() { awk -v k="$1:" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' /out/ethtool-i.txt; }
if [ "$(field driver)" = ornic ] && [ -n "$version" ] && [ "$(field version)" = "$version" ] &&
	[ -n "$fw" ] && [ "$(field firmware-version)" = "$fw $spec" ] && [ "$(field bus-info)" = "$bus" ]; then
	pass ethtool-i "driver ornic, version $version (debian/changelog), firmware-version $fw $spec, bus-info $bus"
else
	fail ethtool-i "want ornic/$version/$fw $spec/$bus: $(tr '\n' ' ' </out/ethtool-i.txt)"
fi
sfw=$(cat "/sys/class/infiniband/$ib0/fw_ver" 2>/dev/null)
if [ -n "$fw" ] && [ "$sfw" = "$fw" ]; then
	pass fw-ver "/sys/class/infiniband/$ib0/fw_ver: $sfw (the model's FW_VERSION, debian/changelog's)"
else
	fail fw-ver "sysfs fw_ver '$sfw', want '$fw'"
fi
mv=$(modinfo -F version ornic 2>/dev/null)
sv=$(cat /sys/module/ornic/version 2>/dev/null)
if [ "$mv" = "$version" ] && [ "$sv" = "$version" ]; then
	pass module-version "modinfo and /sys/module/ornic/version: $version"
else
	fail module-version "modinfo '$mv', sysfs '$sv', changelog '$version'"
fi

# --- ethtool -S after a ping -----------------------------------------------------------
n=$(ethtool -S "$nd0" | grep -c ':')
names=$(ethtool -S "$nd0" | awk -F: 'NR > 1 { gsub(/ /, "", $1); print $1 }' | sort | tr '\n' ' ')
if [ "$n" -ge 56 ] && [[ " $names " == *" tx_rdma_packets "* && " $names " == *" eth_rx_frames "* ]]; then
	pass ethtool-S-names "$((n - 1)) device counters (eth_*, *_roce_*, admin_*, ...)"
else
	fail ethtool-S-names "$n lines: $names"
fi
# settled DEV_NAME NETDEV_NAME: "device netdev" once both stayed put for
# 0.3 s (a frame the device counted reaches the netdev's count after the
# driver's NAPI poll: read at once, they may differ by a frame in flight).
settled() {
	local e n
	for _ in $(seq 20); do
		e=$(estat "$1") n=$(nstat "$2")
		sleep 0.3
		[ "$(estat "$1")" = "$e" ] && [ "$(nstat "$2")" = "$n" ] && break
	done
	echo "$e $n"
}
ping -c 1 -W 3 10.1.0.2 >/dev/null 2>&1	# ARP out of the way
sleep 1
read -r t0 nt0 <<<"$(settled eth_tx_frames tx_packets)"
read -r r0 nr0 <<<"$(settled eth_rx_frames rx_packets)"
ping -c 10 -i 0.2 -W 3 10.1.0.2 >/out/observe-ping.txt 2>&1
read -r t1 nt1 <<<"$(settled eth_tx_frames tx_packets)"
read -r r1 nr1 <<<"$(settled eth_rx_frames rx_packets)"
dt=$((t1 - t0)) dr=$((r1 - r0)) ndt=$((nt1 - nt0)) ndr=$((nr1 - nr0))
if grep -q '10 received' /out/observe-ping.txt && [ "$dt" -ge 10 ] && [ "$dr" -ge 10 ] &&
	[ "$dt" = "$ndt" ] && [ "$dr" = "$ndr" ]; then
	pass ethtool-S-ping "10 pings: device eth_tx_frames +$dt, eth_rx_frames +$dr, equal to the netdev's own tx/rx packets (+$ndt/+$ndr)"
else
	fail ethtool-S-ping "eth_tx_frames +$dt (netdev +$ndt), eth_rx_frames +$dr (netdev +$ndr): $(tail -n 2 /out/observe-ping.txt | tr '\n' ' ')"
fi

# --- traffic helper --------------------------------------------------------------------
# traffic_start N: the tool's looped-back RC QP, up to RTS; sets TPID, TQPN.
traffic_start() {
	rm -f /tmp/traffic-go /out/traffic.txt
	mkfifo /tmp/traffic-go
	"$tool" traffic "$uv" "$ib0" "$gi" "$1" </tmp/traffic-go >/out/traffic.txt 2>&1 &
	TPID=$!
	exec 3>/tmp/traffic-go
	wait_for grep -q qpn= /out/traffic.txt || return 1
	TQPN=$(sed -n 's/^qpn=//p' /out/traffic.txt)
}
traffic_run() { echo go >&3; wait_for grep -q '^done' /out/traffic.txt; }
traffic_end() {
	echo end >&3
	exec 3>&-
	wait "$TPID" && grep -q '^released Success' /out/traffic.txt
}
# qstat FILE NAME: NAME's value in FILE (rdma statistic output).
qstat() { counter_value "$1" "$2"; }
# qp_counter FILE QPN: the record of the counter QPN is bound to, in FILE
# (`rdma statistic qp show`: "link D/P cntn C ... qp_send_wqes N ... LQPN: <Q>"),
# on one line.
qp_counter() {
	tr '\n' ' ' <"$1" | sed 's/link /\nlink /g' | grep -E "LQPN: <([0-9]+,)*$2(,[0-9]+)*>"
}

# --- rdma statistic: auto mode, RoCE counters in ethtool -S -----------------------------
rdma statistic qp set link "$ib0/1" auto type on
mode=$(rdma statistic qp mode link "$ib0/1" 2>&1)
p0=$(estat tx_rdma_packets) b0=$(estat tx_rdma_bytes) rp0=$(estat rx_rdma_packets)
l0=$(lstat qp_send_wqes)
if traffic_start $N && traffic_run; then
	p1=$(estat tx_rdma_packets) b1=$(estat tx_rdma_bytes) rp1=$(estat rx_rdma_packets)
	ethtool -S "$nd0" >/out/ethtool-S.txt 2>&1
	rdma statistic qp show link "$ib0/1" >/out/statistic-auto.txt 2>&1
	qp_counter /out/statistic-auto.txt "$TQPN" >/tmp/q.txt
	sw=$(qstat /tmp/q.txt qp_send_wqes) sb=$(qstat /tmp/q.txt qp_send_bytes)
	rb=$(qstat /tmp/q.txt qp_recv_bytes) ps=$(qstat /tmp/q.txt qp_packets_sent)
	if [[ $mode == *auto*type* ]] && [ "$sw" = $N ] && [ "$sb" = $((N * 4096)) ] &&
		[ "$rb" = $((N * 4096)) ]; then
		pass statistic-auto "auto type on: QP $TQPN bound at INIT; after $N 4 KiB WRITEs qp_send_wqes $sw, qp_send_bytes $sb, qp_recv_bytes $rb, qp_packets_sent $ps"
	else
		fail statistic-auto "mode '$mode'; QP $TQPN: send_wqes '$sw' send_bytes '$sb' recv_bytes '$rb': $(tr '\n' ' ' </out/statistic-auto.txt)"
	fi
	l1=$(lstat qp_send_wqes)
	if [ $((l1 - l0)) = $N ]; then
		pass statistic-link "rdma statistic show link: qp_send_wqes +$N (the port adds its counters)"
	else
		fail statistic-link "qp_send_wqes $l0 -> $l1"
	fi
	# 4 KiB at the QP's path MTU of 1024: 4 packets a WRITE, plus ACKs.
	dp=$((p1 - p0)) db=$((b1 - b0)) drp=$((rp1 - rp0))
	if [ "$dp" -ge $((4 * N)) ] && [ "$db" -ge $((N * 4096)) ] && [ "$drp" -ge $((4 * N)) ] &&
		[ "${ps:-x}" = "$dp" ]; then
		pass ethtool-S-roce "$N WRITEs looped back: tx_rdma_packets +$dp (= the QP's qp_packets_sent), tx_rdma_bytes +$db, rx_rdma_packets +$drp"
	else
		fail ethtool-S-roce "tx_rdma_packets +$dp (QP: ${ps:-?}), tx_rdma_bytes +$db, rx_rdma_packets +$drp"
	fi

	# --- rdma res -dd, with the QP alive ------------------------------------------
	rdma res show qp link "$ib0/1" lqpn "$TQPN" -dd >/out/res-qp.txt 2>&1
	rdma res show cq dev "$ib0" -dd >/out/res-cq.txt 2>&1
	rdma res show mr dev "$ib0" -dd >/out/res-mr.txt 2>&1
	r=$(tr '\n' ' ' </out/res-qp.txt)
	if [[ $r == *"drv_hw_qpn $TQPN drv_hw_type RC drv_hw_state 3 drv_rings user drv_sq_log_depth 5 drv_rq_log_depth 5 drv_hw_send_wqes $N "* ]]; then
		pass res-qp "$(echo "$r" | tr -s ' ')"
	else
		fail res-qp "$r"
	fi
	r=$(tr '\n' ' ' </out/res-cq.txt)
	if [[ $r =~ drv_hw_cqn\ [1-9][0-9]*\ drv_log_depth\ 6\ drv_eqn\ [1-9][0-9]*\ drv_ring\ user\ drv_cqe_size\ 32 ]] &&
		[[ $r =~ drv_ring\ kernel\ drv_ci\ [0-9]+\ drv_ci_reported\ [0-9]+\ drv_armed\ [01] ]]; then
		pass res-cq "$(echo "$r" | tr -s ' ')"
	else
		fail res-cq "$r"
	fi
	r=$(tr '\n' ' ' </out/res-mr.txt)
	if [[ $r =~ lkey\ (0x[0-9a-f]+)\ mrlen\ 65536\ .*drv_hw_key\ (0x[0-9a-f]+)\ drv_kind\ user\ drv_umem_pages\ 16 ]] &&
		[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] &&
		[[ $r =~ mrlen\ 4096\ .*drv_hw_key\ 0x[0-9a-f]+\ drv_kind\ user\ drv_umem_pages\ 1\  ]]; then
		pass res-mr "$(echo "$r" | tr -s ' ')"
	else
		fail res-mr "$r"
	fi

	# --- debugfs during traffic ----------------------------------------------------
	d=/sys/kernel/debug/ornic/$ib0
	ping -i 0.05 -W 1 10.1.0.2 >/dev/null 2>&1 &
	ppid=$!
	sleep 0.5
	tx0=$(awk '$1 == "tx" { print $7 }' "$d/eth" 2>/dev/null)
	for f in aq eqs qps cqs eth; do
		cat "$d/$f" >"/out/debugfs-$f.txt" 2>&1
	done
	sleep 1
	tx1=$(awk '$1 == "tx" { print $7 }' "$d/eth" 2>/dev/null)
	kill "$ppid" 2>/dev/null
	wait "$ppid" 2>/dev/null
	neq=$(grep -c '^eqn ' /out/debugfs-eqs.txt)
	ncomp=$(cat "/sys/class/infiniband/$ib0/device/msi_irqs/"* 2>/dev/null | wc -l)
	if grep -q "^depth 64 sq_tail [0-9]* cq_head [0-9]* seq [0-9]* outstanding 0 " /out/debugfs-aq.txt &&
		grep -q "^completed [1-9][0-9]* wait_us [1-9][0-9]* mean_us [0-9]* max_us [0-9]*$" /out/debugfs-aq.txt &&
		grep -q "^eqn 0 " /out/debugfs-eqs.txt && [ "$neq" -ge 2 ] &&
		grep -q "^qpn $TQPN type 1 state 3 sq_log_depth 5 rq_log_depth 5 rings user" /out/debugfs-qps.txt &&
		grep -q "^qpn 1 type 3 state 3 sq_log_depth [1-9][0-9]* rq_log_depth [1-9][0-9]* sq_pi [0-9]* sq_ci [0-9]* rq_pi [1-9][0-9]* rq_ci" /out/debugfs-qps.txt &&
		grep -q "ring user log_depth 6" /out/debugfs-cqs.txt &&
		[ -n "$tx0" ] && [ -n "$tx1" ] && [ "$tx1" -gt "$tx0" ]; then
		pass debugfs "$d: $(tr '\n' ' ' </out/debugfs-aq.txt| tr -s ' ')| $neq EQs | QP $TQPN and GSI QP with ring indices | Ethernet TX prod $tx0 -> $tx1 during a ping"
	else
		fail debugfs "aq: $(tr '\n' ' ' </out/debugfs-aq.txt); eqs $neq (${ncomp} MSI-X); qps: $(tr '\n' ' ' </out/debugfs-qps.txt); tx $tx0 -> $tx1"
	fi
	traffic_end || fail statistic-auto "the tool did not finish: $(tr '\n' ' ' </out/traffic.txt)"
else
	fail statistic-auto "traffic failed: $(tr '\n' ' ' </out/traffic.txt)"
	exec 3>&-
	kill "$TPID" 2>/dev/null
fi
rdma statistic qp set link "$ib0/1" auto off

# --- rdma statistic: manual bind and unbind ---------------------------------------------
if traffic_start 4; then
	rdma statistic qp bind link "$ib0/1" lqpn "$TQPN" 2>/out/bind.txt
	rdma statistic qp show link "$ib0/1" >/out/statistic-manual0.txt 2>&1
	cntn=$(qp_counter /out/statistic-manual0.txt "$TQPN" | grep -o 'cntn [0-9]*' | cut -d' ' -f2)
	l0=$(lstat qp_send_wqes)
	if [ -n "$cntn" ] && traffic_run; then
		rdma statistic qp show link "$ib0/1" >/out/statistic-manual.txt 2>&1
		qp_counter /out/statistic-manual.txt "$TQPN" >/tmp/q.txt
		sw=$(qstat /tmp/q.txt qp_send_wqes) rb=$(qstat /tmp/q.txt qp_recv_bytes)
		rdma statistic qp unbind link "$ib0/1" cntn "$cntn" lqpn "$TQPN" 2>/out/unbind.txt
		rdma statistic qp show link "$ib0/1" >/out/statistic-unbound.txt 2>&1
		gone=$(qp_counter /out/statistic-unbound.txt "$TQPN" | grep -c .)
		l1=$(lstat qp_send_wqes)
		if [ "$sw" = 4 ] && [ "$rb" = $((4 * 4096)) ] && [ "$gone" = 0 ] && [ $((l1 - l0)) = 4 ]; then
			pass statistic-manual "bind QP $TQPN to counter $cntn, 4 WRITEs: qp_send_wqes 4, qp_recv_bytes $rb; unbind: the counter is gone, the link keeps its 4 WQEs (qp_send_wqes $l0 -> $l1)"
		else
			fail statistic-manual "cntn $cntn: send_wqes '$sw' recv_bytes '$rb'; after unbind listed $gone, link $l0 -> $l1; $(cat /out/bind.txt /out/unbind.txt | tr '\n' ' ')"
		fi
	else
		fail statistic-manual "bind: cntn '${cntn}' $(tr '\n' ' ' </out/bind.txt) $(tr '\n' ' ' </out/statistic-manual0.txt)"
	fi
	traffic_end || fail statistic-manual "the tool did not finish: $(tr '\n' ' ' </out/traffic.txt)"
else
	fail statistic-manual "traffic failed: $(tr '\n' ' ' </out/traffic.txt)"
	exec 3>&-
fi

# --- debug messages of refused requests ---------------------------------------------------
dd=/sys/kernel/debug/dynamic_debug/control
if [ -w "$dd" ]; then
	echo 'module ornic +p' >"$dd"
	how="dynamic debug"
else
	echo 1 >/sys/module/ornic/parameters/debug
	how="ornic.debug=1 (no dynamic debug in this kernel)"
fi
"$tool" oversized "$uv" "$ib0" "$gi" >/out/oversized.txt 2>&1
if [ -w "$dd" ]; then echo 'module ornic -p' >"$dd"; else echo 0 >/sys/module/ornic/parameters/debug; fi
grep -q '^PASS: oversized-qp-rejected' /out/oversized.txt || fail oversized-qp "$(tr '\n' ' ' </out/oversized.txt)"
grep -q '^PASS: oversized-cq-rejected' /out/oversized.txt || fail oversized-cq "$(tr '\n' ' ' </out/oversized.txt)"
qmsg=$(dmesg | grep -m1 'QP caps rejected: max_send_wr 100000 .*limits: max_qp_wr [0-9]')
cmsg=$(dmesg | grep -m1 'CQ of 200000 CQEs in 2^17 (device max [0-9]* CQEs, 2^16)')
if [ -n "$qmsg" ] && [ -n "$cmsg" ]; then
	pass debug-rejects "with $how: '${qmsg#*] }' and '${cmsg#*] }'"
else
	fail debug-rejects "with $how: QP message '${qmsg}', CQ message '${cmsg}': $(dmesg | grep -i ornic | tail -n 4 | tr '\n' ' ')"
fi

# --- the model's JSON state dump (SIGUSR1 from the host) --------------------------------
tx=$(estat eth_tx_frames)
cmds=$(estat admin_commands)
touch /out/dump-model
if wait_for test -s /out/model0-state.json; then
	if out=$(python3 - "$tx" "$cmds" /out/model0-state.json <<'PY'
import json, sys
tx, cmds, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
s = json.load(open(path))
c = s["counters"]
assert s["reason"] == "SIGUSR1", s["reason"]
assert s["ready"] is True and s["fatal"] == 0
assert len(c) >= 55, len(c)
# Read before the dump: the model's counts are at least these, and close.
assert tx <= c["eth_tx_frames"] <= tx + 20, (tx, c["eth_tx_frames"])
assert cmds <= c["admin_commands"] <= cmds + 20, (cmds, c["admin_commands"])
assert c["tx_rdma_packets"] >= 48, c["tx_rdma_packets"]
gsi = [q for q in s["qps"] if q["qpn"] == 1]
assert gsi and gsi[0]["type"] == 3, s["qps"]
print("model %s: eth_tx_frames %d (guest saw %d), admin_commands %d (guest saw %d), %d QPs, objects %s"
      % (s["model_version"], c["eth_tx_frames"], tx, c["admin_commands"], cmds,
         len(s["qps"]), s["objects"]))
PY
	); then
		pass model-state-json "SIGUSR1: $out"
	else
		fail model-state-json "$out: $(head -c 300 /out/model0-state.json | tr '\n' ' ')"
	fi
else
	fail model-state-json "no /out/model0-state.json after asking the host for a SIGUSR1"
fi

modprobe -r ornic || fail observe-rmmod "rmmod failed"
[ -d /sys/kernel/debug/ornic ] && fail observe-rmmod "/sys/kernel/debug/ornic left behind"
grep -q '^FAIL' "$RESULTS" && exit 1
exit 0
