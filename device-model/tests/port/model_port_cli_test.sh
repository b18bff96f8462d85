#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# model_port_cli_test.sh ORNIC_MODEL: the model's --port option end to end. Each accepted
# form starts the model (it logs "ornic-model ready" and the port's link state) and SIGTERM
# stops it with status 0; each malformed form is refused at once with status 2 and a
# message naming the problem; a well-formed spec that cannot be set up (address in use,
# no such tap) fails with status 1 and the reason. The tap form needs a private network
# namespace and a tap (unshare -n, ip tuntap): without them that case prints SKIP with the
# reason, and the rest still runs.
set -u
model=${1:?usage: model_port_cli_test.sh PATH/TO/ornic-model}
work=$(mktemp -d "${TMPDIR:-/tmp}/ornic-cli-XXXXXX")
pid=""
shm_pids=()
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; [ ${#shm_pids[@]} = 0 ] || kill -9 "${shm_pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
status=0
fail() {
	echo "FAIL: $*"
	status=1
}

# starts NAME SPEC PATTERN [RUNNER...]: the model with --port SPEC is ready and logs
# PATTERN, then stops cleanly on SIGTERM.
starts() {
	local name=$1 spec=$2 pattern=$3 log=$work/$1.log
	shift 3
	"$@" "$model" --socket "$work/$name.sock" --port "$spec" >"$log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		grep -q "ornic-model ready" "$log" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if ! grep -q "ornic-model ready" "$log"; then
		fail "$name: --port $spec did not start"
		cat "$log"
		return
	fi
	sleep 0.3
	kill -TERM "$pid"
	local rc=0
	wait "$pid" || rc=$?
	pid=""
	[ "$rc" -eq 0 ] || fail "$name: exit status $rc after SIGTERM"
	if grep -qE "$pattern" "$log"; then
		echo "ok: $name: --port $spec"
	else
		fail "$name: no '$pattern' in the log"
		cat "$log"
	fi
}

# refused NAME SPEC STATUS PATTERN: the model exits with STATUS and says PATTERN.
refused() {
	local name=$1 spec=$2 want=$3 pattern=$4 log=$work/$1.log rc=0
	timeout 10 "$model" --socket "$work/$name.sock" --port "$spec" >"$log" 2>&1 || rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "$name: --port '$spec' exited $rc, want $want"
		cat "$log"
	elif ! grep -qF -- "$pattern" "$log"; then
		fail "$name: no '$pattern' in the message"
		cat "$log"
	else
		echo "ok: $name: --port '$spec' refused ($rc)"
	fi
}

# Random ports: every testbed run has similar small process ids.
base=$((20000 + (RANDOM % 10000) * 2))
starts unix "unix:$work/a.eth,$work/b.eth" "port unix:$work/a.eth"
starts udp4 "udp:127.0.0.1:$base,127.0.0.1:$((base + 1))" "linked to 127.0.0.1:$((base + 1))"
if python3 -c 'import socket; s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.bind(("::1", 0))' 2>/dev/null; then
	starts udp6 "udp:[::1]:$base,[::1]:$((base + 1))" "linked to \[::1\]:$((base + 1))"
else
	echo "SKIP: udp6: no IPv6 loopback on this host"
fi

starts shm "shm:$work/a.shm,$work/b.shm" "port shm:$work/a.shm"
refused bad-shm-same "shm:$work/a.shm,$work/a.shm" 2 "LOCAL_PATH and PEER_PATH are the same"

# wait_log LOG COUNT PATTERN: LOG has COUNT lines matching PATTERN within 10 s.
wait_log() {
	for _ in $(seq 100); do
		[ "$(grep -cE "$3" "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
# shm_model NAME LOCAL PEER: a model linked over shm:, in the background (shm_pids).
shm_model() {
	"$model" --socket "$work/$1.sock" --port "shm:$work/$2,$work/$3" >>"$work/$1.log" 2>&1 &
	shm_pids+=($!)
}
# Two models linked over shm:, the listening one (b.shm sorts last) started first; then
# the listener is killed: the dialer's link goes down, and up again with a new listener.
shm_model shm-a x.shm y.shm
shm_model shm-b y.shm x.shm
if ! wait_log "$work/shm-a.log" 1 "link up \(session with" ||
	! wait_log "$work/shm-b.log" 1 "link up \(session from"; then
	fail "shm link: the two models did not link"
	cat "$work/shm-a.log" "$work/shm-b.log"
else
	{
		kill -9 "${shm_pids[1]}"
		wait "${shm_pids[1]}"
	} 2>/dev/null
	shm_model shm-b2 y.shm x.shm
	if wait_log "$work/shm-a.log" 1 "link down \(the peer closed the session" &&
		wait_log "$work/shm-a.log" 2 "link up \(session with"; then
		echo "ok: shm link: up, down when the peer was killed, up with its successor"
	else
		fail "shm link: no link down and up again after a peer restart"
		cat "$work/shm-a.log" "$work/shm-b2.log"
	fi
fi
kill -TERM "${shm_pids[@]}" 2>/dev/null
wait "${shm_pids[@]}" 2>/dev/null
shm_pids=()

refused bad-udp-port "udp:127.0.0.1:0,127.0.0.1:5000" 2 "port 0 is not in 1..65535"
refused bad-udp-ipv6 "udp:::1:5000,::1:5001" 2 "an IPv6 address goes in brackets"
refused bad-udp-family "udp:[::1]:5000,127.0.0.1:5001" 2 "different IP families"
refused bad-udp-host "udp:example.org:5000,127.0.0.1:5001" 2 "not a numeric IPv4 address"
refused bad-tap-name "tap:a/b" 2 "IFNAME may not contain"
refused bad-tap-empty "tap:" 2 "empty IFNAME"
refused missing-tap "tap:ornnotap$$" 1 "no such interface; create a persistent tap first"
refused foreign-udp "udp:192.0.2.77:$base,127.0.0.1:$((base + 1))" 1 \
	"192.0.2.77 is not an address of this host"

# A tap in a private network namespace (root, or a user namespace that allows it).
if command -v ip >/dev/null && unshare -n true 2>/dev/null; then
	# Invoked indirectly, as the runner starts() puts in front of the model.
	# shellcheck disable=SC2329
	tap_run() {
		exec unshare -n bash -c 'ip tuntap add dev orncli0 mode tap && ip link set orncli0 up && exec "$@"' tap "$@"
	}
	starts tap "tap:orncli0" "port tap:orncli0: link up \(tap interface up\)" tap_run
else
	echo "SKIP: tap: no 'ip' or no private network namespace (unshare -n) for a test tap"
fi
exit $status
