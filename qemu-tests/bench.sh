#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# `make bench`: ornic, rxe and siw side by side in one guest.  Builds what it
# needs (testbed, test kernel, and the device model without sanitizers, the
# driver and the provider: release-build.sh), runs the model's
# microbenchmarks (ornic-bench, device-model/bench/: ICRC, frames, guest
# memory copies, WQE fetch, an RC pair on an in-memory wire) on the host,
# then starts two linked models
# without capture, boots one guest and runs suites/bench.sh there (perftest
# bandwidth, latency and message rate at Ethernet MTU 1500 and 9000, every
# point BENCH_REPS times).  While the guest runs one bandwidth point on ornic
# twice, this script measures the two model processes: their CPU time
# (/proc/PID/stat) during the first run and their system calls (strace -c -f)
# during the second; then, while the guest runs one latency point
# (BENCH_SCHED_POINT) on ornic, the scheduler's account of the models' and
# QEMU's threads (/proc/.../schedstat).  tools/bench-report.py then writes
# $ORNIC_CACHE/results/bench-<time>/: bench.json, bench.md (the table: ornic,
# rxe, siw and ornic/rxe, medians; then the microbenchmarks), bench.png
# (bandwidth against message size per stack) and ornic-bench.json (Google
# Benchmark's own output).  The numbers are never judged: the script fails
# only when it cannot run.
#
# Environment (defaults in brackets): BENCH_STACKS [ornic rxe siw],
# BENCH_MTUS [1500 9000], BENCH_REPS [3], BENCH_SECONDS [2] measured seconds
# per bandwidth point, BENCH_LAT_ITERS [300], BENCH_CQ_MOD [1: a completion
# per message], BENCH_POINTS [all; words, shell
# patterns allowed, e.g. "write_bw_* send_lat_2"], BENCH_PROBE_POINT
# [write_bw_64k], BENCH_PROBE_SECONDS [10; 0 skips the model measurement],
# BENCH_SCHED_POINT [send_lat_2], BENCH_SCHED_ITERS [5000; 0 skips it],
# BENCH_TIMEOUT [7200] seconds for the guest, BENCH_MICRO [1; 0 skips
# ornic-bench], BENCH_MICRO_FILTER [all; a --benchmark_filter regex],
# BENCH_MICRO_MIN_TIME [0.5s per benchmark].
#
# Before the perftest matrix: the wake-up floor (ornic-wake-floor, an
# eventfd ping-pong between two processes) on the host and in the guest
# (BENCH_FLOOR [1; 0 skips it], BENCH_FLOOR_ITERS [10000] round trips);
# ib_send_lat polled against event-driven (-e) on each stack (BENCH_EVENT
# [1], BENCH_EVENT_REPS [BENCH_REPS], BENCH_EVENT_ITERS [1000]); rdma_cm
# connection setup with cmtime and ucmatose (BENCH_CM [1], BENCH_CM_COUNTS
# [1 100 1000] connections, BENCH_CM_TIMEOUT [900] seconds a run).  Only
# these, on ornic and rxe: BENCH_POINTS=none BENCH_PROBE_SECONDS=0
# BENCH_SCHED_ITERS=0 BENCH_MICRO=0 BENCH_MTUS=1500 BENCH_STACKS="ornic rxe".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
BENCH_VARS=(BENCH_STACKS BENCH_MTUS BENCH_REPS BENCH_SECONDS BENCH_LAT_ITERS BENCH_CQ_MOD BENCH_POINTS
	BENCH_PROBE_POINT BENCH_PROBE_SECONDS BENCH_SCHED_POINT BENCH_SCHED_ITERS BENCH_TIMEOUT
	BENCH_MICRO BENCH_MICRO_FILTER BENCH_MICRO_MIN_TIME BENCH_FLOOR BENCH_FLOOR_ITERS
	BENCH_EVENT BENCH_EVENT_REPS BENCH_EVENT_ITERS BENCH_CM BENCH_CM_COUNTS BENCH_CM_TIMEOUT)
# bench_env: "NAME=VALUE" for each BENCH_VARS variable that is set, a line
# each, for env(1): enter.sh and the guest pass on only what they know.
bench_env() {
	local v
	for v in "${BENCH_VARS[@]}"; do
		[ -z "${!v:-}" ] || echo "$v=${!v}"
	done
}
if [ "${ORNIC_IN_TESTBED:-}" != 1 ]; then
	"$here/testbed/mkroot.sh"
	"$here/kernel/build.sh" base >/dev/null # prints its build dir
	mapfile -t envs < <(bench_env)
	exec "$here/testbed/enter.sh" env "${envs[@]}" /src/qemu-tests/bench.sh
fi

started=$(date +%s)
stamp=$(date +%Y%m%d-%H%M%S)
B=$ORNIC_SRC/build/bench
# shellcheck source=qemu-tests/release-build.sh
. "$here/release-build.sh"
micro=${BENCH_MICRO:-1}
if [ "$micro" = 1 ]; then
	release_build "$B" ornic-bench ornic-wake-floor
else
	release_build "$B" ornic-wake-floor
fi
floor_bin=$B/device-model/ornic-wake-floor

# The model's microbenchmarks, before any guest loads the machine. A benchmark
# that fails (wrong data) is reported in the JSON and the log, never judged.
micro_json=$B/ornic-bench.json
rm -f "$micro_json"
if [ "$micro" = 1 ]; then
	say "ornic-bench: the model's microbenchmarks (log: $B/ornic-bench.log)"
	"$B/device-model/bench/ornic-bench" --benchmark_filter="${BENCH_MICRO_FILTER:-.}" \
		--benchmark_min_time="${BENCH_MICRO_MIN_TIME:-0.5s}" \
		--benchmark_out="$micro_json" --benchmark_out_format=json >"$B/ornic-bench.log" 2>&1 ||
		say "ornic-bench: some benchmarks failed (see $B/ornic-bench.log)"
fi

# The host's wake-up floor, before any guest loads the machine.
floor_host=$B/floor-host.txt
rm -f "$floor_host"
if [ "${BENCH_FLOOR:-1}" != 0 ]; then
	"$floor_bin" -n "${BENCH_FLOOR_ITERS:-10000}" >"$floor_host" 2>&1 || say "ornic-wake-floor failed on the host"
	say "host $(cat "$floor_host")"
fi

MODEL_BIN=$B/device-model/ornic-model
MODEL_PCAP=0
# shellcheck source=qemu-tests/models.sh
. "$here/models.sh"
read -r -a stacks <<<"${BENCH_STACKS:-ornic rxe siw}"
margs=()
if [[ " ${stacks[*]} " == *" ornic "* ]]; then
	mdir=/tmp/bench-models
	rm -rf "$mdir"
	models_start "$mdir" 2 link || die "the device models did not start; see $mdir"
	sleep 0.5
	mapfile -t margs < <(models_vm_args)
fi

name=bench-$stamp
out=$ORNIC_CACHE/runs/$name
res=$ORNIC_CACHE/results/bench-$stamp

# cpu_ticks PID: the process's user and system CPU time, in clock ticks.
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12, $13 }'; }

# probe_cpu DIR: the models' CPU time before and after the guest's run:
# DIR/cpu.host ("model<i> utime stime" before and after, "wall" seconds,
# "tck" ticks per second), and the scheduler's account of the models' and
# QEMU's threads: DIR/cpu-sched.host (as probe_sched).
probe_cpu() {
	local dir=$1 i t0
	sched_snapshot before >"$dir/cpu-sched.host"
	{
		t0=$(date +%s.%N)
		for i in "${!MODEL_PIDS[@]}"; do
			echo "before model$i $(cpu_ticks "${MODEL_PIDS[$i]}")"
		done
	} >"$dir/cpu.host.tmp"
	touch "$dir/cpu.started"
	until [ -e "$dir/cpu.stop" ]; do sleep 0.2; done
	{
		for i in "${!MODEL_PIDS[@]}"; do
			echo "after model$i $(cpu_ticks "${MODEL_PIDS[$i]}")"
		done
		echo "wall $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')"
		echo "tck $(getconf CLK_TCK)"
	} >>"$dir/cpu.host.tmp"
	sched_snapshot after >>"$dir/cpu-sched.host"
	mv "$dir/cpu.host.tmp" "$dir/cpu.host"
	touch "$dir/cpu.done"
}

# probe_strace DIR: strace -c -f attached to each model for the guest's run:
# DIR/strace-model<i>.txt.
probe_strace() {
	local dir=$1 i
	for i in "${!MODEL_PIDS[@]}"; do
		strace -c -f -q -p "${MODEL_PIDS[$i]}" -o "$dir/strace-model$i.txt" 2>"$dir/strace-model$i.err" &
		spids+=($!)
	done
	sleep 1 # attached to every thread
	touch "$dir/strace.started"
	until [ -e "$dir/strace.stop" ]; do sleep 0.2; done
	# On SIGINT strace detaches and writes its summary.
	kill -INT "${spids[@]}" 2>/dev/null
	wait "${spids[@]}" 2>/dev/null
	spids=()
	touch "$dir/strace.done"
}

# sched_tasks WHEN WHO PID: a line per thread of PID, "WHEN WHO TID COMM
# run_ns wait_ns timeslices" (/proc/.../schedstat: time on a CPU, time
# runnable but waiting for one, times run; COMM with _ for spaces).
sched_tasks() {
	local t comm stat
	for t in /proc/"$3"/task/*; do
		read -r comm <"$t/comm" 2>/dev/null || continue
		read -r stat <"$t/schedstat" 2>/dev/null || continue
		echo "$1 $2 ${t##*/} ${comm// /_} $stat"
	done
}

# sched_snapshot WHEN: sched_tasks of every thread of the models and of
# QEMU.
sched_snapshot() {
	local i pid
	for i in "${!MODEL_PIDS[@]}"; do
		sched_tasks "$1" "model$i" "${MODEL_PIDS[$i]}"
	done
	for pid in $(pgrep -f '^[^ ]*qemu-system'); do
		sched_tasks "$1" qemu "$pid"
	done
}

# probe_sched DIR MODE: the scheduler's account of every thread of the
# models and of QEMU, before and after the guest's run: DIR/MODE.host (those
# lines, then "wall" seconds).
probe_sched() {
	local dir=$1 mode=$2 t0
	{
		sched_snapshot before
		t0=$(date +%s.%N)
		touch "$dir/$mode.started"
		until [ -e "$dir/$mode.stop" ]; do sleep 0.2; done
		sched_snapshot after
		echo "wall $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')"
	} >"$dir/$mode.host.tmp"
	mv "$dir/$mode.host.tmp" "$dir/$mode.host"
	touch "$dir/$mode.done"
}

# probe_serve DIR: answer suites/bench.sh's measurement requests in DIR
# (the guest's /out/probe), each MODE once, when MODE.start appears.
probe_serve() {
	local dir=$1 mode served=" "
	spids=()
	# strace exits non-zero after SIGINT; nothing here may end the server.
	set +e
	# Stopped early (the guest ended): no strace may stay attached.
	trap '[ ${#spids[@]} = 0 ] || kill -INT "${spids[@]}" 2>/dev/null; exit 0' TERM
	for (( ; ; )); do
		for mode in cpu strace sched1 sched3; do
			[ -e "$dir/$mode.start" ] && [[ $served != *" $mode "* ]] || continue
			"probe_${mode%[0-9]}" "$dir" "$mode"
			served+="$mode "
		done
		sleep 0.2
	done
}

say "guest output: $out/guest-output.log; report: $res"
probe_pid=""
if [ ${#margs[@]} -gt 0 ]; then
	# vm.sh creates $out afresh; the guest makes $out/probe.
	probe_serve "$out/probe" &
	probe_pid=$!
fi
tailer=""
(
	for _ in $(seq 600); do [ -e "$out/guest-output.log" ] && break; sleep 0.5; done
	exec tail -n +1 -F "$out/guest-output.log" 2>/dev/null
) &
tailer=$!
rc=0
mapfile -t genv < <(bench_env)
"$here/vm.sh" --name "$name" --timeout "${BENCH_TIMEOUT:-7200}" "${margs[@]}" -- \
	env MODDIR="$B/modules" PROVIDER_DIR="$B/provider" FLOOR_BIN="$floor_bin" "${genv[@]}" \
	/src/qemu-tests/suites/bench.sh "${stacks[@]}" || rc=$?
sleep 1
kill "$tailer" 2>/dev/null || true
[ -z "$probe_pid" ] || kill "$probe_pid" 2>/dev/null || true
if [ ${#margs[@]} -gt 0 ]; then
	why=$(models_stop) || say "models: $why"
	cp "$mdir"/model*.log "$out/" 2>/dev/null || true
fi
[ "$rc" = 0 ] || die "the bench guest failed (status $rc); see $out"

mkdir -p "$res"
[ ! -f "$micro_json" ] || cp "$micro_json" "$out/ornic-bench.json"
[ ! -f "$floor_host" ] || cp "$floor_host" "$out/bench-floor-host.txt"
{
	echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "host_cpus $(nproc)"
	echo "host_load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "host_kernel $(uname -r)"
	echo "commit $(git -C "$ORNIC_SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "wall_seconds $(( $(date +%s) - started ))"
	for v in "${BENCH_VARS[@]}"; do
		echo "$v ${!v:-}"
	done
} >"$out/bench-host.txt"
python3 "$here/tools/bench-report.py" "$out" "$res" || die "the report failed"
cp "$out/bench-raw.tsv" "$res/"
[ ! -f "$out/ornic-bench.json" ] || cp "$out/ornic-bench.json" "$res/"
say "make bench: $res (bench.json, bench.md, bench.png, bench-qps.png), $(( $(date +%s) - started ))s"
cat "$res/bench.md"
