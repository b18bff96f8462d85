# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Shared helpers for the testbed scripts.  Sourced, never executed.
# shellcheck shell=bash

ORNIC_CACHE=${ORNIC_CACHE:-/var/cache/ornic}
ORNIC_ROOT=${ORNIC_ROOT:-$ORNIC_CACHE/root}
ORNIC_LOGDIR=${ORNIC_LOGDIR:-$ORNIC_CACHE/logs}
ORNIC_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export ORNIC_CACHE ORNIC_ROOT ORNIC_LOGDIR ORNIC_SRC

say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { say "error: $*"; exit 1; }

# run_logged LOG DESCRIPTION CMD...: run CMD with all output in LOG, print a
# heartbeat with the elapsed time and the log's line count every 30 s, and on
# failure point at the log and show its tail.
run_logged() {
	local log=$1 desc=$2 start pid rc=0
	shift 2
	mkdir -p "$(dirname "$log")"
	start=$(date +%s)
	say "$desc (log: $log)"
	"$@" >"$log" 2>&1 &
	pid=$!
	while ! wait_timeout "$pid" 30; do
		say "  ... $desc: $(( $(date +%s) - start ))s, $(wc -l <"$log") log lines${PROGRESS_HINT:+, $($PROGRESS_HINT "$log")}"
	done
	wait "$pid" || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 25 "$log" >&2
		die "$desc failed (exit $rc); full output in $log"
	fi
	say "$desc: done in $(( $(date +%s) - start ))s"
}

# wait_timeout PID SECONDS: 0 when PID has exited, 1 after SECONDS.
wait_timeout() {
	local i
	for ((i = 0; i < $2; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 1
	done
	kill -0 "$1" 2>/dev/null && return 1
	return 0
}

# host_mirror [security]: the Debian mirror the host's apt uses for its own
# release (or its security archive), read from its sources in deb822 or
# one-line format, so the testbed follows a local mirror or proxy and no host
# name is written into the project.
host_mirror() {
	local want=${1:-main} codename suite f
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || codename=bookworm
	suite=$codename
	[ "$want" = security ] && suite=$codename-security
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		 /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		case $f in
		*.sources)
			awk -v suite="$suite" '
				function flush() {
					if (uri != "" && types ~ /(^| )deb( |$)/ &&
					    (" " suites " ") ~ (" " suite " ")) {
						print uri; done = 1; exit
					}
					uri = ""; suites = ""; types = ""
				}
				/^[ \t]*$/ { flush(); next }
				/^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
				/^URIs:/ { sub(/^URIs:[ \t]*/, ""); split($0, u, " "); uri = u[1] }
				/^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
				END { if (!done) flush() }' "$f"
			;;
		*)
			awk -v suite="$suite" '
				$1 == "deb" {
					i = 2
					if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
					if ($(i + 1) == suite) { print $i; exit }
				}' "$f"
			;;
		esac
	done | grep -m1 -E '^(https?|file)://'
}
