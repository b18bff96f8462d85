# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Helpers for guest test scripts.  Sourced, never executed.  Results go to
# /out/results.txt as "PASS: suite/test details", "FAIL: ..." or "SKIP: ..."
# lines, which the host collects into the `make check` summary.
# shellcheck shell=bash

RESULTS=/out/results.txt
SUITE=${SUITE:-guest}

# Each result is also stamped with the guest's uptime in /out/timing.txt, so
# the host can tell which tests the run's time went to (check-lib.sh).
result() { # result PASS|FAIL|SKIP NAME DETAILS...
	local status=$1 name=$2 up
	shift 2
	echo "$status: $SUITE/$name${*:+ $*}" | tee -a "$RESULTS"
	read -r up _ </proc/uptime
	echo "$up $SUITE/$name" >>/out/timing.txt
}
pass() { result PASS "$@"; }
fail() { result FAIL "$@"; }
skip() { result SKIP "$@"; }

# counter_value FILE NAME: the value after NAME in FILE (rdma statistic output).
counter_value() { # counter_value FILE NAME
	awk -v n="$2" '{ for (i = 1; i < NF; i++) if ($i == n) { print $(i + 1); exit } }' "$1"
}

# gid_index DEV IP [TYPE]: the index of DEV's port-1 GID of TYPE (sysfs
# gid_attrs/types: "RoCE v2", the default, or "IB/RoCE v1") for IPv4 address IP.
gid_index() {
	local ip=$2 a b c d
	IFS=. read -r a b c d <<<"$ip"
	gid_index_of "$1" "$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")" "${3:-RoCE v2}"
}

# gid_index_of DEV GID [TYPE]: the index of DEV's GID of TYPE (default RoCE
# v2) that reads GID (the sysfs form, e.g. fd00:0000:...:0001).  Indices in
# order and no process per entry: rxe has 1024 of them, which cost 40 s of
# forks under TCG.
gid_index_of() {
	local dir=/sys/class/infiniband/$1/ports/1 want=$2 wtype=${3:-RoCE v2} i gid type
	for ((i = 0; ; i++)); do
		[ -e "$dir/gids/$i" ] || return 1
		read -r gid 2>/dev/null <"$dir/gids/$i" || continue
		[ "$gid" = "$want" ] || continue
		read -r type 2>/dev/null <"$dir/gid_attrs/types/$i" || continue
		[ "$type" = "$wtype" ] && { echo "$i"; return 0; }
	done
}

# wait_gid DEV IP: wait up to 30 s for the GID of IP to appear on DEV.
wait_gid() {
	local i
	for i in $(seq 150); do
		gid_index "$1" "$2" >/dev/null && return 0
		sleep 0.2
	done
	return 1
}

# dmesg_has PATTERN: the kernel log matches PATTERN (grep's basic regex).  Not
# "dmesg | grep -q": grep stops at the first match, dmesg may then die of
# SIGPIPE, and under pipefail a match reads as a miss.
dmesg_has() {
	local log
	log=$(dmesg)
	grep -q -- "$1" <<<"$log"
}

# wait_listen NETNS PORT: wait up to 60 s for a TCP listener on PORT in NETNS.
wait_listen() {
	local i
	for i in $(seq 300); do
		ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q . && return 0
		sleep 0.2
	done
	return 1
}

# veth_pair: veth0 (10.0.0.1, this namespace) <-> veth1 (10.0.0.2, netns
# "peer"), MTU 9000.
veth_pair() {
	ip netns add peer
	ip link add veth0 type veth peer name veth1
	ip link set veth1 netns peer
	ip addr add 10.0.0.1/24 dev veth0
	ip link set veth0 mtu 9000 up
	ip netns exec peer ip addr add 10.0.0.2/24 dev veth1
	ip netns exec peer ip link set veth1 mtu 9000 up
	ip netns exec peer ip link set lo up
}

# perftest_pair NAME SERVER_DEV CLIENT_DEV TOOL ARGS...: run a perftest tool
# with its server in netns "peer" and its client here; output in
# /out/NAME.server.log and /out/NAME.client.log.  Status of the client.
perftest_pair() {
	local name=$1 sdev=$2 cdev=$3 tool=$4 spid rc=0 src=0
	shift 4
	ip netns exec peer timeout 300 "$tool" -d "$sdev" "$@" >"/out/$name.server.log" 2>&1 &
	spid=$!
	if ! wait_listen peer 18515; then
		kill "$spid" 2>/dev/null
		echo "server did not start" >"/out/$name.client.log"
		return 1
	fi
	timeout 300 "$tool" -d "$cdev" "$@" 10.0.0.2 >"/out/$name.client.log" 2>&1 || rc=$?
	wait "$spid" || src=$?
	[ "$rc" != 0 ] || rc=$src
	return "$rc"
}

# perftest_row LOG: the first result row (the line after the column header).
perftest_row() {
	awk '/^ *#bytes/ { getline; print; exit }' "$1"
}

# perftest_tsc_failed LOG ROW: the transfer completed but perftest could not
# estimate the TSC rate (TCG's TSC is unstable under load) and so printed
# zeros for the bandwidth of ROW, or inf and nan for its latencies: the
# measurement failed, not the wire.
perftest_tsc_failed() {
	grep -q 'Correlation coefficient r^2' "$1" &&
		awk -v r="$2" 'BEGIN {
			n = split(r, a)
			for (i = 3; i <= n; i++)
				if (tolower(a[i]) ~ /^-?(inf|nan)$/)
					exit 0
			exit !(a[4] + 0 == 0 && a[5] + 0 == 0)
		}'
}

# perftest_wall_row TOOL ROW NS: a _bw row whose rates perftest could not
# compute (its TSC estimate failed on every run), recomputed from the
# client's wall time in nanoseconds: bytes x iterations over the whole run,
# connection setup included, so a lower bound.  Status 1 for other rows.
perftest_wall_row() {
	[[ $1 == *_bw ]] || return 1
	awk -v r="$2" -v ns="$3" 'BEGIN {
		n = split(r, a)
		s = ns / 1e9
		if (s <= 0 || n < 5)
			exit 1
		g = a[1] * a[2] * 8 / s / 1e9
		printf "%s %s %.6f %.6f %.6f\n", a[1], a[2], g, g, a[2] / s / 1e6
	}'
}

# perftest_tsc_settle LOG TRY TOOL T0 ROWVAR AGAINVAR WALLVAR: after run TRY
# (1 to 3) of TOOL, started at T0 (date +%s%N), left its row in ROWVAR and
# its log in LOG.  Status 1: perftest's TSC estimate failed and a run is
# left, so run again (AGAINVAR says why).  Status 0: keep the row; after a
# third failed estimate of a _bw point it is the wall-clock one
# (perftest_wall_row), WALLVAR is set to 1 and AGAINVAR says so.
perftest_tsc_settle() {
	local log=$1 try=$2 tool=$3 t0=$4 w
	local -n settle_row=$5 settle_again=$6 settle_wall=$7
	perftest_tsc_failed "$log" "$settle_row" || return 0
	if [ "$try" != 3 ]; then
		settle_again+=" (run $try completed but perftest's TSC estimate failed)"
		return 1
	fi
	if w=$(perftest_wall_row "$tool" "$settle_row" $(($(date +%s%N) - t0))); then
		# shellcheck disable=SC2034 # settle_wall names the caller's variable
		settle_row=$w settle_wall=1
		settle_again+=" (perftest's TSC estimate failed on all 3 runs: the rate of the last run from the client's wall time, setup included, a lower bound)"
	fi
	return 0
}

# perftest_cycles TOOL TRY: "-C" for the third try of a latency point,
# after perftest's own TSC estimate failed twice: with -C it prints TSC
# cycles and estimates nothing; perftest_cycles_to_us converts the row.
perftest_cycles() {
	[[ $1 == *_lat && $2 == 3 ]] && echo -C
	return 0
}

# perftest_cycles_to_us ROW: a latency row printed in TSC cycles (-C), its
# times in microseconds at the guest kernel's TSC rate (/proc/cpuinfo).
perftest_cycles_to_us() {
	local mhz
	mhz=$(awk -F: '/^cpu MHz/ { print $2 + 0; exit }' /proc/cpuinfo)
	awk -v r="$1" -v m="${mhz:-0}" 'BEGIN {
		n = split(r, a)
		if (m <= 0) { print r; exit }
		line = a[1] " " a[2]
		for (i = 3; i <= n; i++)
			line = line " " sprintf("%.2f", a[i] / m)
		print line
	}'
}

# perftest_judge TOOL ROW: the summary of a perftest result row, status 1
# when it measured nothing: a _bw row needs a positive average bandwidth, a
# _lat row a finite positive typical latency.
perftest_judge() {
	local bytes iters tmin ttyp tavg p99 bw rate
	case $1 in
	*_bw)
		# bytes iterations BW-peak BW-average msg-rate
		read -r bytes iters _ bw rate <<<"$2"
		if awk -v b="$bw" 'BEGIN { exit !(b ~ /^[0-9.]+$/ && b > 0) }'; then
			echo "$bytes B x $iters: $bw Gb/s, $rate Mpps"
			return 0
		fi
		echo "no bandwidth: $2"
		;;
	*_lat)
		# bytes iterations t_min t_max t_typical t_avg t_stdev p99 p99.9
		read -r bytes iters tmin _ ttyp tavg _ p99 _ <<<"$2"
		if awk -v t="$ttyp" 'BEGIN { exit !(t ~ /^[0-9.]+$/ && t > 0) }'; then
			echo "$bytes B x $iters: typical $ttyp us, avg $tavg us, min $tmin us, p99 $p99 us"
			return 0
		fi
		echo "no latency: $2"
		;;
	*) echo "$1: not a perftest bandwidth or latency tool" ;;
	esac
	return 1
}
