#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# soak.sh: the driver under churn, with RDMA traffic running.  Two linked
# ornic NICs (MODDIR, PROVIDER_DIR, VERBS_TOOL = driver-verbs from the
# host).  Each of RELOADS cycles starts an ibv_rc_pingpong pair and a
# process holding one of every object (QP, SRQ, CQ, MR, AH) on ornic_0,
# then removes the module under them: rmmod must finish (the processes are
# disassociated), and the module must come back.  Each of KILLS cycles
# starts the same, and kill -9s every process at a random moment of the
# transfer; afterwards the devices' object counts (rdma resource) are back
# where they started and a data-checked pingpong works.  Then, while a
# ping-pong runs (unless CHURN_TRAFFIC=0), CHURNERS processes (CHURN_TOOL =
# qp-churn, default 2: their contexts' admin commands interleave, and both
# vCPUs work) create, take to INIT and destroy a QP QP_CYCLES times
# between them: kmemleak finds nothing new, the object counts are back, the
# driver's admin-command latency is reported, and the host reports the
# models' RSS before and after (files /out/rss-<name>.req answered in
# /out/rss-<name>.kb).  Last, scale: the
# device limits read by ibv_devinfo -v against an rxe device's in the same
# guest; SCALE_QPS_TOOL (scale-qps) holds SCALE_QPS connected RC QPs on each
# NIC, checks data on a spread of them and destroys them (restrack back,
# model RSS and guest slab per QP reported); SCALE_LIMITS_TOOL
# (scale-limits) fills each object table of the third NIC, whose model
# offers few objects, to its limit (NDEVS=3), and the other two NICs keep
# working.  The host's line for
# the guest judges the kernel log (KASAN/lockdep/kmemleak/WARN).
# `make check` runs a few cycles, `make soak` many.
set -uo pipefail
SUITE=soak
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh
. /src/qemu-tests/suites/datapath-lib.sh
RELOADS=${RELOADS:-3}
KILLS=${KILLS:-6}
QP_CYCLES=${QP_CYCLES:-2000}
CHURNERS=${CHURNERS:-2}
# CHURN_TRAFFIC=0: no ping-pong beside the churn, which then runs about
# twice as fast (a million cycles in an hour, in two processes).
CHURN_TRAFFIC=${CHURN_TRAFFIC:-1}
# A third NIC (SCALE_LIMITS_TOOL set): a model started with low object counts.
NDEVS=${NDEVS:-2}
SCALE_QPS=${SCALE_QPS:-4096}
VERBS=${VERBS_TOOL:-}
NS=soak
IP0=10.5.0.1 IP1=10.5.0.2

if ! install_modules "${MODDIR:?}" || ! cp "${PROVIDER_DIR:?}/libornic-rdmav34.so" "$LIBDIR/" ||
	! cp "$PROVIDER_DIR/ornic.driver" /etc/libibverbs.d/; then
	fail setup "cannot install the modules and the provider"
	exit 1
fi
ip netns add "$NS"
ip -n "$NS" link set lo up

# up: load the driver, ornic_1's netdev into netns $NS, both ports ACTIVE
# with their GIDs.  Sets IB0/IB1, G0/G1 (GID indexes), UV0 (uverbs node).
up() {
	local nds ibs f
	modprobe ornic && wait_for have_devs "$NDEVS" || return 1
	read -r -a nds <<<"$(ornic_netdevs | tr '\n' ' ')"
	read -r -a ibs <<<"$(ornic_ibdevs | tr '\n' ' ')"
	IB0=${ibs[0]} IB1=${ibs[1]}
	ip link set "${nds[1]}" netns "$NS" || return 1
	ip addr add "$IP0/24" dev "${nds[0]}" && ip link set "${nds[0]}" up || return 1
	ip -n "$NS" addr add "$IP1/24" dev "${nds[1]}" && ip -n "$NS" link set "${nds[1]}" up || return 1
	wait_for port_active "$IB0" && wait_for port_active "$IB1" || return 1
	wait_gid "$IB0" "$IP0" && wait_gid "$IB1" "$IP1" || return 1
	G0=$(gid_index "$IB0" "$IP0") G1=$(gid_index "$IB1" "$IP1")
	for f in /sys/class/infiniband/"$IB0"/device/infiniband_verbs/*; do
		UV0=/dev/infiniband/${f##*/}
	done
}

# traffic: a long ibv_rc_pingpong between the NICs and, with VERBS, a
# process holding one of every object on IB0; PIDS lists them.  Status 1
# when the transfer did not get going.
traffic() {
	local i
	PIDS=()
	ip netns exec "$NS" ibv_rc_pingpong -d "$IB1" -g "$G1" -n 100000000 -s 4096 >/tmp/soak-s.log 2>&1 &
	PIDS+=($!)
	wait_listen "$NS" 18515 || return 1
	ibv_rc_pingpong -d "$IB0" -g "$G0" -n 100000000 -s 4096 "$IP1" >/tmp/soak-c.log 2>&1 &
	PIDS+=($!)
	if [ -n "$VERBS" ]; then
		rm -f /tmp/soak-hold
		mkfifo /tmp/soak-hold
		"$VERBS" hold "$UV0" "$IB0" "$G0" </tmp/soak-hold >/tmp/soak-hold.log 2>&1 &
		PIDS+=($!)
		# Keep the FIFO open so the holder waits (it ends on a line or EOF).
		exec 7<>/tmp/soak-hold
	fi
	# Data moves: the client's QP has sent packets (the pingpong's own
	# counters print only at the end).
	for i in $(seq 40); do
		[ "$(tx_packets)" -gt "$TX0" ] 2>/dev/null && return 0
		kill -0 "${PIDS[1]}" 2>/dev/null || return 1
		sleep 0.25
	done
	return 1
}
tx_packets() {
	rdma statistic show link "$IB0/1" 2>/dev/null | awk '{ for (i = 1; i < NF; i++) if ($i == "tx_rdma_packets") print $(i + 1) }'
}
stop_all() { # kill -9 what traffic started
	kill -KILL "${PIDS[@]}" 2>/dev/null
	wait "${PIDS[@]}" 2>/dev/null
	exec 7>&- 2>/dev/null
}

# resources: the per-device object counts rdma resource prints.
resources() { rdma resource show 2>/dev/null | grep ornic | sed 's/^[0-9]*: //'; }

if ! up; then
	fail setup "the driver did not come up: $(dmesg | grep -i ornic | tail -n 3 | tr '\n' ' ')"
	exit 1
fi
pass setup "$IB0 ($IP0) and $IB1 ($IP1, netns $NS), RELOADS=$RELOADS KILLS=$KILLS"

# --- rmmod under RDMA traffic ----------------------------------------------------
ok=1 worst=0
for c in $(seq "$RELOADS"); do
	TX0=$(tx_packets)
	if ! traffic; then
		fail reload-traffic "cycle $c: the pingpong did not start: $(tail -n 2 /tmp/soak-c.log /tmp/soak-s.log | tr '\n' ' ')"
		stop_all
		ok=0
		break
	fi
	t0=$(date +%s%N)
	if ! timeout 120 modprobe -r ornic; then
		fail reload-rmmod "cycle $c: rmmod with live QPs failed or hung: $(dmesg | tail -n 3 | tr '\n' ' ')"
		stop_all
		ok=0
		break
	fi
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	[ "$ms" -gt "$worst" ] && worst=$ms
	stop_all
	if ! up; then
		fail reload-up "cycle $c: the driver did not come back: $(dmesg | grep -i ornic | tail -n 3 | tr '\n' ' ')"
		ok=0
		break
	fi
done
[ $ok = 1 ] && pass reload-under-traffic "$RELOADS cycles: rmmod while an RC pingpong ran and a process held a QP, SRQ, CQ, MR and AH (slowest rmmod $worst ms), modprobe back each time"

# --- kill -9 mid-transfer ----------------------------------------------------------
if [ $ok = 1 ]; then
	base=$(resources)
	for c in $(seq "$KILLS"); do
		TX0=$(tx_packets)
		if ! traffic; then
			fail kill-traffic "cycle $c: the pingpong did not start: $(tail -n 2 /tmp/soak-c.log /tmp/soak-s.log | tr '\n' ' ')"
			stop_all
			ok=0
			break
		fi
		sleep "0.$((RANDOM % 9 + 1))"
		stop_all
	done
	after=""
	for _ in $(seq 40); do
		after=$(resources)
		[ "$after" = "$base" ] && break
		sleep 0.5
	done
	if [ $ok = 1 ] && [ "$after" = "$base" ]; then
		pass kill-9 "$KILLS cycles of kill -9 mid-transfer (pingpong pair + object holder): object counts back to $(echo "$base" | tr '\n' ';')"
	elif [ $ok = 1 ]; then
		fail kill-9 "objects left after $KILLS kills: before $(echo "$base" | tr '\n' ';') after $(echo "$after" | tr '\n' ';')"
	fi
	ip netns exec "$NS" timeout 60 ibv_rc_pingpong -d "$IB1" -g "$G1" -c -n 50 -s 4096 >/tmp/pp-s.log 2>&1 &
	spid=$!
	if wait_listen "$NS" 18515 &&
		timeout 60 ibv_rc_pingpong -d "$IB0" -g "$G0" -c -n 50 -s 4096 "$IP1" >/tmp/pp-c.log 2>&1 &&
		wait "$spid"; then
		pass after-churn "data-checked ibv_rc_pingpong after the churn: $(grep -m1 Mbit /tmp/pp-c.log)"
	else
		fail after-churn "$(tail -n 2 /tmp/pp-c.log /tmp/pp-s.log | tr '\n' ' ')"
	fi
fi
# --- QP create/destroy churn ----------------------------------------------------------
# rss NAME: the host's reading of both models' VmRSS (kB), "? ?" if none.
rss() {
	rm -f "/out/rss-$1.kb"
	touch "/out/rss-$1.req"
	for _ in $(seq 100); do
		[ -s "/out/rss-$1.kb" ] && { cat "/out/rss-$1.kb"; return; }
		sleep 0.1
	done
	echo "? ?"
}
# leaks: kmemleak's count of unreferenced objects after a scan now (objects
# must be 5 s old to be reported: the caller waits).
leaks() {
	local n
	echo scan >/sys/kernel/debug/kmemleak 2>/dev/null
	# grep -c prints 0 and fails when nothing matches: one number either way.
	n=$(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak 2>/dev/null)
	echo "${n:-0}"
}
slab_kb() { awk '$1 == "Slab:" { print $2 }' /proc/meminfo; }
# admin_waits DEV: "COMMANDS MICROSECONDS", the admin commands DEV completed
# and their time from submission to completion (the driver's debugfs).
admin_waits() {
	awk '$1 == "completed" { print $2, $4 }' "/sys/kernel/debug/ornic/$1/aq" 2>/dev/null
}
if [ $ok = 1 ] && [ -n "${CHURN_TOOL:-}" ]; then
	base=$(resources)
	leak0=$(leaks) slab0=$(slab_kb)
	read -r rss0a rss0b _ <<<"$(rss before)"
	# With traffic: a ping-pong between the NICs runs through the churn.  It
	# sleeps on completion events (-e): two processes spinning on the two
	# vCPUs would hold every wakeup of the churn's admin commands to the next
	# tick (lazy preemption, HZ=100), and the churn would measure the tick.
	pp=()
	if [ "$CHURN_TRAFFIC" = 1 ]; then
		ip netns exec "$NS" ibv_rc_pingpong -e -d "$IB1" -g "$G1" -n 100000000 -s 4096 >/tmp/churn-s.log 2>&1 &
		pp+=($!)
		wait_listen "$NS" 18515
		ibv_rc_pingpong -e -d "$IB0" -g "$G0" -n 100000000 -s 4096 "$IP1" >/tmp/churn-c.log 2>&1 &
		pp+=($!)
		sleep 2
	fi
	tx_a=$(tx_packets)
	read -r cmds_a us_a <<<"$(admin_waits "$IB0")"
	churned=1 cpids=() t0=$(date +%s%N)
	for ((i = 0; i < CHURNERS; i++)); do
		timeout $((600 + QP_CYCLES / 10)) "$CHURN_TOOL" "$IB0" "$((QP_CYCLES / CHURNERS))" >"/tmp/churn-$i.log" 2>&1 &
		cpids+=($!)
	done
	for pid in "${cpids[@]}"; do
		wait "$pid" || churned=0
	done
	ms=$((($(date +%s%N) - t0) / 1000000))
	{
		[ "$CHURNERS" -gt 1 ] && echo "$CHURNERS processes, $QP_CYCLES cycles in $((ms / 1000)) s ($((QP_CYCLES * 1000 / (ms + 1))) a second):"
		cat /tmp/churn-[0-9]*.log
	} | paste -sd ' ' >/tmp/churn.log
	tx_b=$(tx_packets)
	read -r cmds_b us_b <<<"$(admin_waits "$IB0")"
	aq=""
	if [ -n "$cmds_a" ] && [ -n "$cmds_b" ] && [ "$cmds_b" -gt "$cmds_a" ]; then
		aq="; $((cmds_b - cmds_a)) admin commands, $(((us_b - us_a) / (cmds_b - cmds_a))) us each from submission to completion"
	fi
	if [ "$CHURN_TRAFFIC" = 1 ]; then
		alive=0
		kill -0 "${pp[@]}" 2>/dev/null && alive=1
		kill -KILL "${pp[@]}" 2>/dev/null
		wait "${pp[@]}" 2>/dev/null
		if [ $churned = 1 ] && { [ $alive = 0 ] || [ "$((tx_b - tx_a))" -le 0 ]; }; then
			fail qp-churn-traffic "the ping-pong beside the churn stopped (alive $alive, $tx_a -> $tx_b packets): $(tail -n 2 /tmp/churn-c.log | tr '\n' ' ')"
		elif [ $churned = 1 ]; then
			pass qp-churn-traffic "a ping-pong ran through the churn: $((tx_b - tx_a)) packets sent meanwhile"
		fi
	else
		skip qp-churn-traffic "the churn ran without a ping-pong beside it (CHURN_TRAFFIC=0)"
	fi
	if [ $churned = 1 ]; then
		sleep 6
		leak1=$(leaks) slab1=$(slab_kb)
		read -r rss1a rss1b _ <<<"$(rss after)"
		after=$(resources)
		echo "qp-churn: $(cat /tmp/churn.log)$aq; models' RSS $rss0a/$rss0b kB before, $rss1a/$rss1b kB after;" \
			"guest Slab $slab0 -> $slab1 kB; kmemleak $leak0 -> $leak1" | tee /out/churn.txt
		if [ "$leak1" -gt "$leak0" ]; then
			fail qp-churn "kmemleak reports $((leak1 - leak0)) new unreferenced objects after $QP_CYCLES QP cycles"
		elif [ "$after" != "$base" ]; then
			fail qp-churn "objects left: before $(echo "$base" | tr '\n' ';') after $(echo "$after" | tr '\n' ';')"
		else
			pass qp-churn "$(cat /tmp/churn.log)$aq; kmemleak nothing new, object counts back; model RSS $rss0a -> $rss1a kB, guest Slab $slab0 -> $slab1 kB"
		fi
	else
		fail qp-churn "$(tail -n 2 /tmp/churn.log | tr '\n' ' ')"
	fi
fi
# --- scale: limits against rxe's, many live QPs, past a lowered limit -------------
# devinfo_field DEV FIELD: FIELD's value in `ibv_devinfo -v` (hex as printed).
devinfo_field() { ibv_devinfo -v -d "$1" | awk -v f="$2:" '$1 == f { print $2; exit }'; }
if [ $ok = 1 ] && modprobe rdma_rxe && ip link add scale-v0 type veth peer name scale-v1 &&
	ip link set scale-v0 up && rdma link add rxe-scale type rxe netdev scale-v0; then
	below="" shown=""
	for f in max_qp max_cq max_mr max_pd max_srq max_ah max_mcast_grp max_cqe max_mw; do
		o=$(devinfo_field "$IB0" "$f") x=$(devinfo_field rxe-scale "$f")
		shown+="$f $o (rxe $x), "
		[ -n "$o" ] && [ -n "$x" ] && [ "$((o))" -ge "$((x))" ] || below+="$f: ornic '$o' < rxe '$x'; "
	done
	# Below rxe by design (identity.rst, "Object limits"): the documented values.
	qpwr=$(devinfo_field "$IB0" max_qp_wr) mrsz=$(devinfo_field "$IB0" max_mr_size)
	[ "$qpwr" = 16384 ] || below+="max_qp_wr '$qpwr' is not the documented 16384; "
	[ "$((mrsz))" = $((1 << 40)) ] || below+="max_mr_size '$mrsz' is not the documented 2^40; "
	if [ -z "$below" ]; then
		pass limits-vs-rxe "${shown}max_qp_wr $qpwr and max_mr_size $mrsz as documented"
	else
		fail limits-vs-rxe "$below"
	fi
	rdma link delete rxe-scale
	ip link delete scale-v0
else
	[ $ok = 1 ] && fail limits-vs-rxe "no rxe device to compare with"
fi
if [ $ok = 1 ] && [ -n "${SCALE_QPS_TOOL:-}" ]; then
	base=$(resources)
	slab0=$(slab_kb)
	read -r rss0a rss0b _ <<<"$(rss qps-before)"
	hold=/tmp/scale-hold
	rm -rf "$hold" && mkdir -p "$hold"
	ip netns exec "$NS" true # the server's netdev is there; the devices are shared
	"$SCALE_QPS_TOOL" "$IB0" "$G0" "$IB1" "$G1" "$SCALE_QPS" "$hold" >/tmp/scale-qps.log 2>&1 &
	tool=$!
	for _ in $(seq 1800); do
		[ -e "$hold/held" ] || ! kill -0 "$tool" 2>/dev/null && break
		sleep 0.5
	done
	if [ -e "$hold/held" ]; then
		slab1=$(slab_kb)
		read -r rss1a rss1b _ <<<"$(rss qps-held)"
		live=$(rdma resource show 2>/dev/null | awk -v d="$IB0:" '$2 == d { for (i = 3; i < NF; i++) if ($i == "qp") print $(i + 1) }')
	fi
	touch "$hold/go"
	wait "$tool"
	rc=$?
	sed -n 's#^\(PASS\|FAIL\): \(.*\)#\1: '"$SUITE"'/scale-\2#p' /tmp/scale-qps.log | tee -a "$RESULTS"
	after=$(resources)
	if [ "$rc" != 0 ] || [ ! -e "$hold/held" ]; then
		fail scale-qps "exit $rc: $(grep -v '^PASS' /tmp/scale-qps.log | tail -n 3 | tr '\n' ' ')"
	elif [ "$after" != "$base" ]; then
		fail scale-qps-teardown "objects left: before $(echo "$base" | tr '\n' ';') after $(echo "$after" | tr '\n' ';')"
	else
		# Per QP: the model's RSS grew by (rss1 - rss0) kB for SCALE_QPS QPs,
		# the guest's slab by (slab1 - slab0) kB for 2 * SCALE_QPS.
		per_model=$(((rss1a - rss0a) * 1024 / SCALE_QPS))
		per_guest=$(((slab1 - slab0) * 1024 / (2 * SCALE_QPS)))
		pass scale-qps-teardown "restrack back to where it was; $IB0 held $live QPs; model RSS $rss0a -> $rss1a kB ($per_model B per connected QP), guest Slab $slab0 -> $slab1 kB ($per_guest B per QP)"
		echo "scale: $SCALE_QPS QPs per device: model RSS $rss0a -> $rss1a kB, guest Slab $slab0 -> $slab1 kB" >>/out/churn.txt
	fi
fi
if [ $ok = 1 ] && [ -n "${SCALE_LIMITS_TOOL:-}" ]; then
	read -r -a ibs <<<"$(ornic_ibdevs | tr '\n' ' ')"
	low=${ibs[2]:-}
	if [ -z "$low" ]; then
		fail limit "no third device (the model with lowered limits)"
	else
		rc=0
		timeout 600 "$SCALE_LIMITS_TOOL" "$low" >/tmp/scale-limits.log 2>&1 || rc=$?
		sed -n 's#^\(PASS\|FAIL\): \(.*\)#\1: '"$SUITE"'/\2#p' /tmp/scale-limits.log | tee -a "$RESULTS"
		[ "$rc" = 0 ] || fail limits "exit $rc: $(grep -v '^PASS' /tmp/scale-limits.log | tail -n 3 | tr '\n' ' ')"
		# The other NICs did not notice.
		ip netns exec "$NS" timeout 60 ibv_rc_pingpong -d "$IB1" -g "$G1" -c -n 50 -s 4096 >/tmp/pp-s.log 2>&1 &
		sleep 1
		if timeout 60 ibv_rc_pingpong -d "$IB0" -g "$G0" -c -n 50 -s 4096 "$IP1" >/tmp/pp-c.log 2>&1 &&
			wait $!; then
			pass limits-others-unaffected "data-checked ibv_rc_pingpong between $IB0 and $IB1 after $low's limits were hit"
		else
			fail limits-others-unaffected "$(tail -n 2 /tmp/pp-c.log /tmp/pp-s.log | tr '\n' ' ')"
		fi
	fi
fi
timeout 120 modprobe -r ornic || fail rmmod "final rmmod failed"
exit 0
