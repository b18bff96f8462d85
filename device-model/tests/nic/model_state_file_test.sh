#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# model_state_file_test.sh ORNIC_MODEL: the model's JSON state end to end. With
# --state-file, SIGUSR1 writes the document (reason SIGUSR1, every counter, no objects
# before a driver came) and the model keeps running; SIGTERM stops it with status 0 and
# writes it once more (reason exit). Without --state-file, SIGUSR1 puts it in the log.
set -u
model=${1:?usage: model_state_file_test.sh PATH/TO/ornic-model}
work=$(mktemp -d "${TMPDIR:-/tmp}/ornic-state-XXXXXX")
pid=""
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
status=0
fail() {
	echo "FAIL: $*"
	status=1
}

# start NAME ARGS...: the model up (it logged "ornic-model ready").
start() {
	local name=$1
	shift
	"$model" --socket "$work/$name.sock" "$@" >"$work/$name.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		grep -q "ornic-model ready" "$work/$name.log" && return 0
		sleep 0.1
	done
	fail "$name: did not start: $(cat "$work/$name.log")"
	return 1
}

# ORNIC_CNT_COUNT of the shared header: the document has one entry per counter.
hw_h=$(dirname "$0")/../../../include/ornic/ornic_hw.h
ncounters=$(sed -n 's/^[[:space:]]*ORNIC_CNT_COUNT[[:space:]]*=[[:space:]]*\([0-9]*\),.*/\1/p' "$hw_h")
[ -n "$ncounters" ] || { echo "FAIL: no ORNIC_CNT_COUNT in $hw_h"; exit 1; }

# check FILE REASON: FILE is the state document with that reason.
check() {
	python3 - "$1" "$2" "$ncounters" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["reason"] == sys.argv[2], s["reason"]
assert s["ready"] is False and s["fatal"] == 0
assert len(s["counters"]) == int(sys.argv[3]) and all(v == 0 for v in s["counters"].values()), s["counters"]
assert s["objects"]["qps"] == 0 and s["qps"] == []
assert s["spec_version"] == "1.0" and s["model_version"]
PY
}

state=$work/state.json
if start file --state-file "$state"; then
	kill -USR1 "$pid"
	for _ in $(seq 50); do
		[ -s "$state" ] && break
		sleep 0.1
	done
	check "$state" SIGUSR1 || fail "SIGUSR1: $(cat "$state" 2>/dev/null)"
	kill -0 "$pid" 2>/dev/null || fail "the model died on SIGUSR1"
	[ -e "$state.tmp" ] && fail "temporary file left behind"
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	pid=""
	[ "$rc" = 0 ] || fail "exit status $rc on SIGTERM"
	check "$state" exit || fail "at exit: $(cat "$state")"
fi

if start log; then
	kill -USR1 "$pid"
	for _ in $(seq 50); do
		grep -q 'ornic-model state (SIGUSR1): {' "$work/log.log" && break
		sleep 0.1
	done
	grep -q 'ornic-model state (SIGUSR1): {.*"counters"' "$work/log.log" ||
		fail "no state in the log: $(cat "$work/log.log")"
	kill -TERM "$pid"
	wait "$pid"
	pid=""
fi
[ "$status" = 0 ] && echo "PASS: state file on SIGUSR1 and at exit, state in the log without it"
exit "$status"
