# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Start and stop device-model instances for a guest run.  Sourced by the
# check scripts inside the testbed.
# shellcheck shell=bash

MODEL_BIN=${MODEL_BIN:-$ORNIC_SRC/build/device-model/ornic-model}
MODEL_PIDS=()
MODEL_SOCKETS=()
MODEL_VNETS=()
# MODEL_FAULTS[i]: --inject-faults list for model i (test only; unset: none).
MODEL_FAULTS=()
# MODEL_WIRE_FAULTS[i]: --wire-faults spec for model i (unset: none).
MODEL_WIRE_FAULTS=()
# MODEL_SHAPING[i]: link shaping options for model i's port, e.g.
# "--link-rate 200 --link-queue 1048576 --ecn-threshold 65536": its
# transmit queue becomes a bottleneck that marks ECN (unset: none).
MODEL_SHAPING=()
# MODEL_MAX[i]: --max object counts for model i, e.g. "qp=40,mr=40" (unset:
# the device's maxima).
MODEL_MAX=()
# MODEL_STATE_DIR: model i writes its counters and state as JSON to
# MODEL_STATE_DIR/model<i>-state.json on SIGUSR1 and at exit (unset: to its log).
MODEL_STATE_DIR=${MODEL_STATE_DIR:-}
# MODEL_LINK_LAYER=ib|iwarp: every model's port is an InfiniBand or iWARP port (--link-layer
# ib: its capture is then ERF InfiniBand records); unset: Ethernet.
MODEL_LINK_LAYER=${MODEL_LINK_LAYER:-}
# MODEL_PCAP=0: no capture (make bench; a capture costs a write per frame).
MODEL_PCAP=${MODEL_PCAP:-1}

# models_start DIR N [link|virtio]: start N models with vfio-user sockets in
# DIR; with "link", model 2k and 2k+1 share a shared-memory wire (--port
# shm:, rendezvous at DIR/wire<i>.sock; MODEL_LINK=unix: an AF_UNIX datagram
# wire at the same paths instead); with
# "virtio", model i's wire leads to a QEMU virtio-net NIC on -netdev dgram
# (models_vm_args adds it; its socket is DIR/vnet<i>.sock).  Each model's
# log is DIR/model<i>.log and its capture DIR/model<i>.pcap.  Model i gets
# --inject-faults MODEL_FAULTS[i] when that is set.
models_start() {
	local dir=$1 n=$2 link=${3:-} i port peer
	mkdir -p "$dir"
	MODEL_PIDS=() MODEL_SOCKETS=() MODEL_VNETS=()
	for ((i = 0; i < n; i++)); do
		port=none
		if [ "$link" = link ]; then
			peer=$((i ^ 1))
			port="${MODEL_LINK:-shm}:$dir/wire$i.sock,$dir/wire$peer.sock"
		elif [ "$link" = virtio ]; then
			port="unix:$dir/wire$i.sock,$dir/vnet$i.sock"
			MODEL_VNETS+=("$dir/vnet$i.sock,$dir/wire$i.sock,$(printf '52:54:00:00:01:%02x' $((i + 1)))")
		fi
		model_add "$dir" "$i" "$port" "$(printf '02:00:00:00:00:%02x' $((i + 1)))"
	done
	models_wait
}

# model_add DIR I PORT MAC [NETNS]: start model I (socket DIR/model<I>.sock,
# log DIR/model<I>.log, capture DIR/model<I>.pcap unless MODEL_PCAP=0) with
# port PORT and MAC, in network namespace NETNS if given, with
# --inject-faults MODEL_FAULTS[I], --wire-faults MODEL_WIRE_FAULTS[I] and
# the options of MODEL_SHAPING[I] and --max MODEL_MAX[I] when set.  models_wait waits for the sockets.
model_add() {
	local dir=$1 i=$2 port=$3 mac=$4 ns=${5:-} nsx=() faults=() capture=()
	[ -z "$ns" ] || nsx=(ip netns exec "$ns")
	[ "$MODEL_PCAP" = 0 ] || capture=(--pcap "$dir/model$i.pcap")
	[ -n "${MODEL_FAULTS[$i]:-}" ] && faults+=(--inject-faults "${MODEL_FAULTS[$i]}")
	[ -n "${MODEL_WIRE_FAULTS[$i]:-}" ] && faults+=(--wire-faults "${MODEL_WIRE_FAULTS[$i]}")
	if [ -n "${MODEL_SHAPING[$i]:-}" ]; then
		local shaping=()
		read -r -a shaping <<<"${MODEL_SHAPING[$i]}"
		faults+=("${shaping[@]}")
	fi
	[ -n "${MODEL_MAX[$i]:-}" ] && faults+=(--max "${MODEL_MAX[$i]}")
	[ -n "$MODEL_LINK_LAYER" ] && faults+=(--link-layer "$MODEL_LINK_LAYER")
	[ -n "$MODEL_STATE_DIR" ] && faults+=(--state-file "$MODEL_STATE_DIR/model$i-state.json")
	rm -f "$dir/model$i.rc" "$dir/model$i.pid" "$dir/model$i.stopped"
	# The wrapper records the model's exit status in model<i>.rc, so
	# models_stop works from any shell, subshells included.  ip netns
	# exec execs, so $! is the model's PID.
	(
		"${nsx[@]}" "$MODEL_BIN" --socket "$dir/model$i.sock" --port "$port" --mac "$mac" "${faults[@]}" \
			"${capture[@]}" --log-level info >"$dir/model$i.log" 2>&1 &
		echo $! >"$dir/model$i.pid"
		rc=0
		wait $! || rc=$?
		echo "$rc" >"$dir/model$i.rc"
	) &
	for _ in $(seq 50); do
		[ -s "$dir/model$i.pid" ] && break
		sleep 0.1
	done
	MODEL_PIDS+=("$(cat "$dir/model$i.pid")")
	MODEL_SOCKETS+=("$dir/model$i.sock")
}

# model_kill_idle PID [MONITOR]: SIGKILL a model while its unix sockets hold no
# request it has not read.  QEMU's vfio-user client reads ECONNRESET, not
# EOF, from a server that died with unread data, and QEMU 11.1.3 aborts on
# that path (Documentation/operations.rst, "Known issues"); the guest
# driver's health check alone reads the device every 250 ms.  The model is
# stopped and its receive queues read (ss); it runs on for a moment while
# they are not empty, for at most 2 s, and is killed either way.  Given the
# guest's QEMU monitor socket MONITOR, the guest's vCPUs stand still around
# the look and the kill (the monitor's stop, then cont), so that no MMIO of
# theirs can be on its way to the model; the monitor's answer to stop goes
# to monitor-stop.log beside the socket.
model_kill_idle() {
	local pid=$1 monitor=${2:-} queued _
	if [ -n "$monitor" ]; then
		printf 'stop\ninfo status\n' | timeout 20 nc -U -q 2 "$monitor" \
			>"$(dirname "$monitor")/monitor-stop.log" 2>&1
	fi
	for _ in $(seq 100); do
		kill -STOP "$pid" 2>/dev/null || break
		queued=$(ss -xpn 2>/dev/null | awk -v p="pid=$pid," 'index($0, p) { q += $3 } END { print q + 0 }')
		[ "$queued" = 0 ] && break
		kill -CONT "$pid"
		sleep 0.02
	done
	kill -KILL "$pid" 2>/dev/null
	kill -CONT "$pid" 2>/dev/null
	if [ -n "$monitor" ]; then
		printf 'cont\n' | timeout 20 nc -U -q 1 "$monitor" >/dev/null 2>&1
	fi
	return 0
}

# models_wait: every started model listens on its vfio-user socket.
models_wait() {
	local sock
	for sock in "${MODEL_SOCKETS[@]}"; do
		for _ in $(seq 100); do
			[ -S "$sock" ] && break
			sleep 0.1
		done
		[ -S "$sock" ] || { echo "model socket $sock did not appear" >&2; return 1; }
	done
}

# models_vm_args: the vm.sh options attaching every started model.
models_vm_args() {
	local s
	for s in "${MODEL_SOCKETS[@]}"; do
		printf -- '--vfio-user\n%s\n' "$s"
	done
	for s in "${MODEL_VNETS[@]}"; do
		printf -- '--virtio-net-dgram\n%s\n' "$s"
	done
}

# models_confined GROUP: record whether every running model is confined by its
# seccomp allow-list (/proc status Seccomp: 2, NoNewPrivs: 1) as GROUP's
# model-guest/... result line.
models_confined() {
	local pid bad="" seccomp nnp
	for pid in "${MODEL_PIDS[@]}"; do
		seccomp=$(sed -n 's/^Seccomp:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)
		nnp=$(sed -n 's/^NoNewPrivs:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)
		[ "$seccomp" = 2 ] && [ "$nnp" = 1 ] || bad+="model $pid: Seccomp '$seccomp' NoNewPrivs '$nnp'; "
	done
	if [ -z "$bad" ]; then
		record PASS "model-guest/$1" "${#MODEL_PIDS[@]} models ran the guest confined (Seccomp: 2, NoNewPrivs: 1)"
	else
		record FAIL "model-guest/$1" "$bad"
	fi
}

# models_stop: every model must still be alive (the guest's end must not
# crash it) and must exit 0 on SIGTERM, removing its socket.  Prints what
# went wrong; status 0 when all is well.
models_stop() {
	local i pid rc rcfile bad=0
	for i in "${!MODEL_PIDS[@]}"; do
		pid=${MODEL_PIDS[$i]}
		rcfile=${MODEL_SOCKETS[$i]%.sock}.rc
		# Already stopped by an earlier call (perhaps from a subshell).
		[ -e "${rcfile%.rc}.stopped" ] && continue
		touch "${rcfile%.rc}.stopped"
		if [ -s "$rcfile" ]; then
			echo "model $i died during the run (exit $(cat "$rcfile"))"
			bad=1
			continue
		fi
		kill -TERM "$pid"
		for _ in $(seq 300); do
			[ -s "$rcfile" ] && break
			sleep 0.1
		done
		rc=$(cat "$rcfile" 2>/dev/null || echo "none: still running after 30 s")
		if [ "$rc" != 0 ]; then
			kill -KILL "$pid" 2>/dev/null
			echo "model $i exited $rc on SIGTERM"
			bad=1
		fi
		if [ -e "${MODEL_SOCKETS[$i]}" ]; then
			echo "model $i left its socket ${MODEL_SOCKETS[$i]}"
			bad=1
		fi
	done
	MODEL_PIDS=()
	return $bad
}
