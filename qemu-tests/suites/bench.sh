#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# bench.sh STACK...: the guest half of `make bench` (qemu-tests/bench.sh).
# Sets up each STACK (ornic: the two linked ornic NICs, with MODDIR and
# PROVIDER_DIR in the environment; rxe and siw: two devices on a veth pair),
# each pair with its server in its own network namespace, and runs perftest
# between them, every tool connected by rdma_cm (-R: siw is iWARP and has no
# other way; the other stacks take it too, so that all are set up alike):
#
#   {write,read,send}_bw_{64,4k,64k,1m}  ib_{write,read,send}_bw, Gb/s
#   {send,write,read}_lat_2              ib_{send,write,read}_lat 2 B, us
#   msgrate_q{1,4,16,64,256}             ib_write_bw -s 64 -q N, Mpps
#
# at each Ethernet MTU of BENCH_MTUS on every netdev under the stacks,
# BENCH_REPS times each, the stacks taking turns point by point so that the
# machine's load falls on all of them alike.  Bandwidth points run for
# BENCH_SECONDS measured seconds (perftest -D, one second of margin either
# side; -Q BENCH_CQ_MOD, default 1: every message completes), latency points
# BENCH_LAT_ITERS iterations.  BENCH_POINTS (words, shell
# patterns allowed) picks points.  One line per run goes to /out/bench-raw.tsv
# (stack, MTU, point, repetition, exit status, active MTU, perftest's result
# row, attempts); the host's tools/bench-report.py turns them into the report.
#
# Before that, one bandwidth point (BENCH_PROBE_POINT, default write_bw_64k)
# runs twice on ornic for BENCH_PROBE_SECONDS while the host measures the
# models: their CPU time, then their system calls under strace.  The guest
# asks through files in /out/probe (MODE.start, MODE.stop), the host answers
# (MODE.started, MODE.done); the devices' packet counters before and after
# (client tx, rx, server tx, rx, and both devices' MMIO work-queue doorbell
# writes) go to /out/probe/MODE.packets.  Then one
# latency point (BENCH_SCHED_POINT, default send_lat_2) runs on ornic for
# BENCH_SCHED_ITERS iterations [5000; 0 skips it], then three times as many,
# while the host reads the scheduler's account of the models' and QEMU's
# threads (time run, time waiting for a CPU, times run); the difference
# between the two runs is what the extra iterations cost, without the
# processes' start and the connection: where a message's latency goes.
# Numbers are never judged; the suite fails only when it cannot run.
#
# Three further sections, each on unless its knob is 0, run before the
# perftest matrix:
#   BENCH_FLOOR     ornic-wake-floor (FLOOR_BIN) in the guest, the guest's
#                   wake-up floor: /out/bench-floor.txt.
#   BENCH_EVENT     ib_send_lat 2 B, RC, polled and with -e (sleeping on CQ
#                   events), BENCH_EVENT_ITERS [1000] iterations,
#                   BENCH_EVENT_REPS [BENCH_REPS] times, on each stack:
#                   /out/bench-event.tsv (stack, mode, repetition, exit
#                   status, perftest's row).
#   BENCH_CM        rdma_cm connection setup: cmtime -c N and ucmatose -c N
#                   for each N of BENCH_CM_COUNTS [1 100 1000] on each stack,
#                   each side stopped after BENCH_CM_TIMEOUT [900] seconds:
#                   /out/bench-cm.tsv (tool, stack, N, exit status, the
#                   client's wall seconds, its log).
set -uo pipefail
SUITE=bench
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh
. /src/qemu-tests/suites/datapath-lib.sh

REPS=${BENCH_REPS:-3}
SECS=${BENCH_SECONDS:-2}
LAT_ITERS=${BENCH_LAT_ITERS:-300}
# A completion for every message: with perftest's default moderation (100) a
# slow stack completes too few in a short window to be counted at all.
CQ_MOD=${BENCH_CQ_MOD:-1}
read -r -a MTUS <<<"${BENCH_MTUS:-1500 9000}"
PATTERNS=${BENCH_POINTS:-*}
PROBE_POINT=${BENCH_PROBE_POINT:-write_bw_64k}
PROBE_SECS=${BENCH_PROBE_SECONDS:-10}
SCHED_POINT=${BENCH_SCHED_POINT:-send_lat_2}
SCHED_ITERS=${BENCH_SCHED_ITERS:-5000}
# A run that hangs (a connection that never comes) costs a minute, not five.
export CM_PAIR_TIMEOUT=$((SECS + PROBE_SECS + 60))
RAW=/out/bench-raw.tsv
: >"$RAW"

# name tool size [extra perftest arguments]
ALL_POINTS=(
	"write_bw_64 ib_write_bw 64" "write_bw_4k ib_write_bw 4096"
	"write_bw_64k ib_write_bw 65536" "write_bw_1m ib_write_bw 1048576"
	"read_bw_64 ib_read_bw 64" "read_bw_4k ib_read_bw 4096"
	"read_bw_64k ib_read_bw 65536" "read_bw_1m ib_read_bw 1048576"
	"send_bw_64 ib_send_bw 64" "send_bw_4k ib_send_bw 4096"
	"send_bw_64k ib_send_bw 65536" "send_bw_1m ib_send_bw 1048576"
	"send_lat_2 ib_send_lat 2" "write_lat_2 ib_write_lat 2" "read_lat_2 ib_read_lat 2"
	"msgrate_q1 ib_write_bw 64 -q 1" "msgrate_q4 ib_write_bw 64 -q 4"
	"msgrate_q16 ib_write_bw 64 -q 16" "msgrate_q64 ib_write_bw 64 -q 64"
	"msgrate_q256 ib_write_bw 64 -q 256"
)

# wanted NAME: NAME matches one of BENCH_POINTS' patterns.
wanted() {
	local p pats
	read -r -a pats <<<"$PATTERNS"
	for p in "${pats[@]}"; do
		# shellcheck disable=SC2053 # the pattern is meant to match
		[[ $1 == $p ]] && return 0
	done
	return 1
}

# Each stack's pair, saved after its setup_<stack>: CDEV SDEV CIP SIP NS.
declare -A PAIR
use() { read -r CDEV SDEV CIP SIP NS <<<"${PAIR[$1]}"; }

# netdev_of IP [NETNS]: the netdev holding IP.
netdev_of() {
	local nsx=()
	[ -z "${2:-}" ] || nsx=(ip netns exec "$2")
	"${nsx[@]}" ip -o -4 addr show | awk -v a="$1/" 'index($4, a) == 1 { print $2; exit }'
}

active_mtu() { ibv_devinfo -d "$1" 2>/dev/null | awk '/active_mtu/ { print $2; exit }'; }

# ready STACK: the pair's ports are up and, for RoCE, its GIDs are there.
ready() {
	use "$1"
	[ "$1" = siw ] && return 0
	wait_for port_active "$CDEV" && wait_for port_active "$SDEV" &&
		wait_gid "$CDEV" "$CIP" && wait_gid "$SDEV" "$SIP"
}

# set_mtu STACK MTU: both of the pair's netdevs to Ethernet MTU MTU; the
# RoCE MTU that follows goes to AMTU[STACK].
declare -A AMTU
set_mtu() {
	local cnd snd rc=0
	use "$1"
	cnd=$(netdev_of "$CIP") snd=$(netdev_of "$SIP" "$NS")
	ip link set "$cnd" mtu "$2" && ip netns exec "$NS" ip link set "$snd" mtu "$2" && ready "$1" || rc=1
	AMTU[$1]=$(active_mtu "$CDEV")
	return $rc
}

# perftest_args TOOL SIZE EXTRA...: the arguments both ends take.
perftest_args() {
	local tool=$1 size=$2
	shift 2
	case $tool in
	*_bw) echo -R -F -s "$size" -D "$((SECS + 2))" -f 1 -Q "$CQ_MOD" --report_gbits "$@" ;;
	*) echo -R -F -s "$size" -n "$LAT_ITERS" "$@" ;;
	esac
}

# run_point STACK MTU NAME REP TOOL SIZE EXTRA...: one perftest run, tried
# once more when it gives no result (now and then an rdma_cm connection is
# refused or times out under TCG); a line in $RAW.
run_point() {
	local k=$1 mtu=$2 name=$3 rep=$4 tool=$5 run rc row args t0=$SECONDS try
	shift 5
	use "$k"
	read -r -a args <<<"$(perftest_args "$tool" "$@")"
	for try in 1 2; do
		run=m$mtu-$name-r$rep
		[ "$try" = 1 ] || run+=-try$try
		rc=0
		cm_pair "$k" "$run" 18515 "$tool" -d "$SDEV" "${args[@]}" -- -d "$CDEV" "${args[@]}" "$SIP" || rc=$?
		# perftest separates some columns with tabs: one space each here.
		row=$(perftest_row "/out/$k-$run.client.log" | tr -s ' \t' ' ')
		[ -z "$row" ] || break
	done
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$mtu" "$name" "$rep" "$rc" "${AMTU[$k]:-?}" "$row" "$try" >>"$RAW"
	echo "bench: $(date +%T) $k mtu $mtu $name #$rep ($((SECONDS - t0)) s): ${row:-no result (exit $rc): $(tail -n 2 "/out/$k-$run.client.log" | tr '\n' ' ')}"
}

# packets DEV...: each device's RoCE packets sent and received, then the
# MMIO writes to SQ/RQ/SRQ doorbells of all of them (db_wq_writes).
packets() {
	local d f out=() db=0
	for d in "$@"; do
		f=/tmp/counters-$d
		rdma statistic show link "$d/1" >"$f" 2>&1
		out+=("$(counter_value "$f" tx_rdma_packets)" "$(counter_value "$f" rx_rdma_packets)")
		db=$((db + $(counter_value "$f" db_wq_writes)))
	done
	echo "${out[*]} $db"
}

# wait_file FILE SECONDS
wait_file() {
	local i
	for ((i = 0; i < $2 * 5; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.2
	done
	return 1
}

# probe MODE POINT [ITERATIONS]: POINT on ornic while the host measures the
# models (MODE cpu: CPU time; strace: system calls; sched*: the scheduler's
# account).  A bandwidth point runs PROBE_SECS, a latency point ITERATIONS.
probe() {
	local mode=$1 point=$2 iters=${3:-$LAT_ITERS} d=/out/probe p tool="" size extra before after row rc=0 args
	for p in "${ALL_POINTS[@]}"; do
		[ "${p%% *}" = "$point" ] && read -r _ tool size extra <<<"$p"
	done
	if [ -z "$tool" ]; then
		echo "bench: probe: no point $point"
		return 1
	fi
	use ornic
	mkdir -p "$d"
	before=$(packets "$CDEV" "$SDEV")
	echo "$mode" >"$d/$mode.start"
	if ! wait_file "$d/$mode.started" 60; then
		echo "bench: probe $mode: the host did not answer"
		return 1
	fi
	# shellcheck disable=SC2086 # extra holds words
	read -r -a args <<<"$(SECS=$((PROBE_SECS - 2)) LAT_ITERS=$iters perftest_args "$tool" "$size" $extra)"
	cm_pair ornic "probe-$mode" 18515 "$tool" -d "$SDEV" "${args[@]}" -- -d "$CDEV" "${args[@]}" "$SIP" || rc=$?
	echo stop >"$d/$mode.stop"
	wait_file "$d/$mode.done" 60 || echo "bench: probe $mode: the host did not finish"
	after=$(packets "$CDEV" "$SDEV")
	row=$(perftest_row "/out/ornic-probe-$mode.client.log" | tr -s ' \t' ' ')
	printf '%s\t%s\t%s\t%s\t%s\n' "$point" "$rc" "$before" "$after" "$row" >"$d/$mode.packets"
	echo "bench: probe $mode ($point): packets (client tx rx, server tx rx, WQ doorbells) $before -> $after; ${row:-no result (exit $rc)}"
}

# floor: the guest's wake-up floor, the unit of an event-driven latency.
floor() {
	if [ ! -x "${FLOOR_BIN:-}" ]; then
		echo "bench: floor: no ornic-wake-floor (FLOOR_BIN)"
		return
	fi
	"$FLOOR_BIN" -n "${BENCH_FLOOR_ITERS:-10000}" >/out/bench-floor.txt 2>&1 ||
		echo "bench: floor: ornic-wake-floor failed"
	echo "bench: guest $(cat /out/bench-floor.txt)"
}

# event_counters DEV...: the devices' doorbell writes (all, then work
# queues'), EQEs and interrupts, summed: what an ornic message costs on the
# event path.
event_counters() {
	local d f c v sums=(0 0 0 0) i
	for d in "$@"; do
		f=/tmp/evcounters-$d
		rdma statistic show link "$d/1" >"$f" 2>&1
		i=0
		for c in db_writes db_wq_writes eqes interrupts; do
			v=$(counter_value "$f" "$c")
			sums[i]=$((sums[i] + ${v:-0}))
			i=$((i + 1))
		done
	done
	echo "${sums[*]}"
}

# event_lat: ib_send_lat polled and event-driven on each stack, the stacks
# and modes taking turns.  On ornic the devices' counters before and after
# each run go to /out/bench-event-counters.tsv.
event_lat() {
	local reps=${BENCH_EVENT_REPS:-$REPS} iters=${BENCH_EVENT_ITERS:-1000} rep k mode run rc row args ev before
	read -r -a args <<<"$(LAT_ITERS=$iters perftest_args ib_send_lat 2 -c RC)"
	: >/out/bench-event.tsv
	: >/out/bench-event-counters.tsv
	for ((rep = 1; rep <= reps; rep++)); do
		for k in "${stacks[@]}"; do
			for mode in poll event; do
				use "$k"
				run=evlat-$mode-r$rep
				ev=()
				[ "$mode" = poll ] || ev=(-e)
				rc=0
				[ "$k" != ornic ] || before=$(event_counters "$CDEV" "$SDEV")
				cm_pair "$k" "$run" 18515 ib_send_lat -d "$SDEV" "${args[@]}" "${ev[@]}" -- \
					-d "$CDEV" "${args[@]}" "${ev[@]}" "$SIP" || rc=$?
				row=$(perftest_row "/out/$k-$run.client.log" | tr -s ' \t' ' ')
				printf '%s\t%s\t%s\t%s\t%s\n' "$k" "$mode" "$rep" "$rc" "$row" >>/out/bench-event.tsv
				[ "$k" != ornic ] || printf '%s\t%s\t%s\t%s\t%s\n' "$mode" "$rep" "$iters" "$before" \
					"$(event_counters "$CDEV" "$SDEV")" >>/out/bench-event-counters.tsv
				echo "bench: $(date +%T) $k ib_send_lat $mode #$rep: ${row:-no result (exit $rc)}"
			done
		done
	done
}

# cm_timed KIND NAME TOOL SERVER_ARGS -- CLIENT_ARGS: TOOL's server in $NS,
# its client here, timed; the server is stopped once the client is done
# (cmtime's server does not end by itself).  Prints the client's exit status
# and wall seconds.
cm_timed() {
	local kind=$1 name=$2 tool=$3 sargs=() spid rc=0 t0 t1 tmo=${BENCH_CM_TIMEOUT:-900}
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	ip netns exec "$NS" timeout "$tmo" stdbuf -oL -eL "$tool" "${sargs[@]}" \
		>"/out/$kind-$name.server.log" 2>&1 &
	spid=$!
	if ! cm_wait_listen "$CM_PORT"; then
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		echo "1 0"
		return
	fi
	t0=$(date +%s.%N)
	timeout "$tmo" "$tool" "$@" >"/out/$kind-$name.client.log" 2>&1 || rc=$?
	t1=$(date +%s.%N)
	for _ in $(seq 50); do kill -0 "$spid" 2>/dev/null || break; sleep 0.2; done
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	echo "$rc $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
}

# cm_rate: cmtime and ucmatose, N connections each, on each stack.
CM_PORT=18600
cm_rate() {
	local counts n k tool res
	read -r -a counts <<<"${BENCH_CM_COUNTS:-1 100 1000}"
	: >/out/bench-cm.tsv
	for n in "${counts[@]}"; do
		for tool in cmtime ucmatose; do
			for k in "${stacks[@]}"; do
				use "$k"
				if [ "$tool" = cmtime ]; then
					res=$(cm_timed "$k" "cmtime-c$n" cmtime -b "$SIP" -p "$CM_PORT" -c "$n" -- \
						-s "$SIP" -b "$CIP" -p "$CM_PORT" -c "$n")
				else
					res=$(cm_timed "$k" "ucmatose-c$n" ucmatose -b "$SIP" -p "$CM_PORT" -c "$n" -C 1 -- \
						-s "$SIP" -b "$CIP" -p "$CM_PORT" -c "$n" -C 1)
				fi
				read -r rc wall <<<"$res"
				printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$k" "$n" "$rc" "$wall" \
					"$k-$tool-c$n.client.log" >>/out/bench-cm.tsv
				echo "bench: $(date +%T) $k $tool -c $n: exit $rc, ${wall} s"
			done
		done
	done
}

stacks=()
for k in "$@"; do
	if "setup_$k"; then
		PAIR[$k]="$CDEV $SDEV $CIP $SIP $NS"
		if ready "$k"; then
			stacks+=("$k")
			echo "bench: $k: $CDEV <-> $SDEV (server in netns $NS)"
			continue
		fi
	fi
	echo "bench: $k could not be set up; left out"
done
[ ${#stacks[@]} -gt 0 ] || { echo "bench: no stack could be set up"; exit 1; }
{
	echo "kernel $(uname -r)"
	echo "cpus $(nproc)"
	echo "perftest $(dpkg-query -W -f '${Version}' perftest 2>/dev/null)"
	echo "stacks ${stacks[*]}"
	echo "seconds $SECS"
	echo "reps $REPS"
} >/out/bench-guest.txt

[ "${BENCH_FLOOR:-1}" = 0 ] || floor
[ "${BENCH_EVENT:-1}" = 0 ] || event_lat
[ "${BENCH_CM:-1}" = 0 ] || cm_rate

if [[ " ${stacks[*]} " == *" ornic "* ]] && [ "$PROBE_SECS" -gt 2 ]; then
	probe cpu "$PROBE_POINT"
	probe strace "$PROBE_POINT"
fi
if [[ " ${stacks[*]} " == *" ornic "* ]] && [ "$SCHED_ITERS" -gt 0 ]; then
	probe sched1 "$SCHED_POINT" "$SCHED_ITERS"
	probe sched3 "$SCHED_POINT" "$((3 * SCHED_ITERS))"
fi

for mtu in "${MTUS[@]}"; do
	for k in "${stacks[@]}"; do
		set_mtu "$k" "$mtu" || echo "bench: $k: MTU $mtu not taken or the port did not come back"
	done
	for p in "${ALL_POINTS[@]}"; do
		read -r name tool size extra <<<"$p"
		wanted "$name" || continue
		for ((rep = 1; rep <= REPS; rep++)); do
			for k in "${stacks[@]}"; do
				# shellcheck disable=SC2086 # extra holds words
				run_point "$k" "$mtu" "$name" "$rep" "$tool" "$size" $extra
			done
		done
	done
done
exit 0
