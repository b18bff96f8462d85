# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Guest-side helpers of the interop suites (interop.sh: ornic and rxe in
# one guest; two-guests.sh: two guests on one wire): run unmodified
# client/server tools between a client and a server, each of which lives in
# a network namespace of this guest or on the peer guest.  Sourced after
# lib.sh, driver-lib.sh and datapath-lib.sh, never executed.
#
# Interface, set by the suite before each test (direction() in the suites):
# DIR and SFX name the results ($DIR/<test>$SFX); CDEV/SDEV are the client's
# and server's ib_device, CIP/SIP (CIP6/SIP6) their addresses, CNS/SNS
# where they run: "" (this guest's initial network namespace), a netns name,
# or "@peer" (the other guest, through remote()).  T bounds every tool (s).
# PERF collects the perftest rows.
# shellcheck shell=bash
# shellcheck disable=SC2154,SC2153 # the interface variables above (and ITERS) come from the suite
# shellcheck disable=SC2030,SC2031 # JOB is set in each job's subshell on purpose

# --- running a command where an end lives ---------------------------------------------
# The peer guest runs an agent (remote_agent) that executes job files it
# finds in REMOTE_DIR, a directory both guests mount read-write (9p, no
# cache); remote() submits one and waits for its status.  The link under
# test is not involved, so a broken link cannot hide a result.  Under TCG
# every process costs tens of milliseconds, so both sides poll with shell
# builtins only (nap) and a job runs in a subshell of the agent, with the
# suite's functions already defined.
REMOTE_DIR=${REMOTE_DIR:-/share}
REMOTE_TIMEOUT=${REMOTE_TIMEOUT:-1200}
JOB_SEQ=0
NAP_FD=""

# nap SECONDS: sleep without starting a process (a read that times out on
# a FIFO nobody writes).
nap() {
	if [ -z "$NAP_FD" ]; then
		local f=/tmp/nap.$BASHPID
		mkfifo "$f" && exec {NAP_FD}<>"$f" && rm -f "$f"
	fi
	read -r -t "$1" -u "$NAP_FD" _
	return 0
}

# new_job: NEW_JOB names a fresh job (its files are NEW_JOB.*).
new_job() {
	JOB_SEQ=$((JOB_SEQ + 1))
	NEW_JOB=$REMOTE_DIR/job.${EPOCHREALTIME/./}.$BASHPID.$JOB_SEQ
}

# remote_job JOB CMD...: CMD (a command or a function of the suite
# libraries) as job JOB on the peer guest; prints its output when it ends,
# returns its status.  A SIGTERM stops the remote command too.
remote_job() {
	local j=$1 i rc line
	shift
	printf '%q ' "$@" >"$j.cmd" || return 125
	: >"$j.go"
	trap ': >"$j.kill"' TERM
	for ((i = 0; i < REMOTE_TIMEOUT * 20; i++)); do
		[ -e "$j.done" ] && break
		nap 0.05
	done
	trap - TERM
	if [ ! -e "$j.done" ]; then
		: >"$j.kill"
		echo "remote: no status from the peer after $REMOTE_TIMEOUT s: $*"
		return 124
	fi
	while IFS= read -r line || [ -n "$line" ]; do
		printf '%s\n' "$line"
	done <"$j.out"
	read -r rc <"$j.rc"
	return "${rc:-125}"
}
remote() { # remote CMD...: remote_job with a fresh job
	new_job
	remote_job "$NEW_JOB" "$@"
}

# remote_agent: run the jobs remote() submits until REMOTE_DIR/stop exists.
# A job's subshell knows its name as JOB; a kill request stops the
# processes it started (timeout passes the signal on to its tool).
remote_agent() {
	local g j
	local -A pids=() killed=()
	while [ ! -e "$REMOTE_DIR/stop" ]; do
		for g in "$REMOTE_DIR"/*.go; do
			[ -e "$g" ] || continue
			j=${g%.go}
			[ -z "${pids[$j]:-}" ] || continue
			(
				JOB=$j
				rc=0
				# shellcheck disable=SC1090 # the job's command line
				. "$j.cmd" >"$j.out" 2>&1 </dev/null || rc=$?
				echo "$rc" >"$j.rc"
				: >"$j.done"
			) &
			pids[$j]=$!
		done
		for g in "$REMOTE_DIR"/*.kill; do
			[ -e "$g" ] || continue
			j=${g%.kill}
			[ -n "${pids[$j]:-}" ] && [ -z "${killed[$j]:-}" ] || continue
			killed[$j]=1
			pkill -TERM -P "${pids[$j]}"
		done
		nap 0.05
	done
	wait
}

# serve PORT tcp|cm CMD...: (on the server's guest) CMD in the background;
# once it listens on PORT (a TCP socket or an rdma_cm id) JOB.ready
# appears, so the other guest need not poll through remote().
serve() {
	local port=$1 how=$2 pid i
	shift 2
	"$@" &
	pid=$!
	for ((i = 0; i < 240; i++)); do
		if { [ "$how" = tcp ] && tcp_listening "" "$port"; } ||
			{ [ "$how" = cm ] && SNS="" cm_listening "$port"; }; then
			: >"$JOB.ready"
			break
		fi
		kill -0 "$pid" 2>/dev/null || break
		nap 0.25
	done
	wait "$pid"
}

in_ns() { # in_ns NS CMD...: CMD where NS says ("" here, a netns, @peer)
	local ns=$1
	shift
	case $ns in
	"") "$@" ;;
	@*) remote "$@" ;;
	*) ip netns exec "$ns" "$@" ;;
	esac
}
# at NS CMD...: like in_ns, but a local CMD (a shell function reading sysfs)
# runs in this shell whatever the netns.
at() {
	local ns=$1
	shift
	case $ns in
	@*) remote "$@" ;;
	*) "$@" ;;
	esac
}
# spawn NS CMD...: CMD in the background where NS says; SPAWN_PID can be
# killed to stop it (ip netns exec execs; remote_job forwards SIGTERM).
# On the peer guest, SPAWN_JOB is its job.
spawn() {
	local ns=$1
	shift
	SPAWN_JOB=""
	case $ns in
	"") "$@" & ;;
	@*)
		new_job
		SPAWN_JOB=$NEW_JOB
		remote_job "$SPAWN_JOB" "$@" &
		;;
	*) ip netns exec "$ns" "$@" & ;;
	esac
	SPAWN_PID=$!
}

# --- client/server tools ----------------------------------------------------------
log() { echo "/out/$DIR-$1$SFX.$2.log"; }
tail_of() { tail -n 3 "$(log "$1" client)" "$(log "$1" server)" 2>/dev/null | tr '\n' ' '; }
tcp_listening() { in_ns "$1" ss -Hltn "sport = :$2" | grep -q .; }
cm_listening() { # cm_listening PORT: an rdma_cm id of the server listens on PORT
	local ids
	# Not piped into grep -q: with pipefail, rdma's SIGPIPE would turn a
	# match into a failure.  rdma_cm ids are listed per namespace.
	ids=$({
		[[ $SNS == @* ]] || rdma resource show cm_id
		in_ns "$SNS" rdma resource show cm_id
	} 2>/dev/null)
	[[ $ids == *"state LISTEN"*":$1 "* ]]
}

pair() {
	local name=$1 port=$2 how=$3 tool=$4 sargs=() spid rc=0 src=0 i up=0
	shift 4
	while [ $# -gt 0 ] && [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	# Line-buffered: a stopped server leaves its log.  On the peer guest,
	# serve says when the server listens.
	if [[ $SNS == @* ]]; then
		spawn "$SNS" serve "$port" "$how" timeout "$T" stdbuf -oL -eL "$tool" "${sargs[@]}" \
			>"$(log "$name" server)" 2>&1
	else
		spawn "$SNS" timeout "$T" stdbuf -oL -eL "$tool" "${sargs[@]}" >"$(log "$name" server)" 2>&1
	fi
	spid=$SPAWN_PID
	for ((i = 0; i < 240; i++)); do
		if [ -n "$SPAWN_JOB" ]; then
			[ -e "$SPAWN_JOB.ready" ] && { up=1; break; }
		else
			if [ "$how" = tcp ] && tcp_listening "$SNS" "$port"; then up=1; break; fi
			if [ "$how" = cm ] && cm_listening "$port"; then up=1; break; fi
		fi
		kill -0 "$spid" 2>/dev/null || break
		nap 0.25
	done
	if [ "$up" = 0 ]; then
		echo "server did not listen on port $port (after $((i / 4)) s)" >"$(log "$name" client)"
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		return 1
	fi
	in_ns "$CNS" timeout "$T" "$tool" "$@" >"$(log "$name" client)" 2>&1 || rc=$?
	# A failed client leaves a server that may wait for the full timeout
	# (rxe retries a transport timeout forever when retry_cnt is 7): give
	# it 10 s to end on its own.
	if [ "$rc" != 0 ]; then
		for i in $(seq 20); do
			kill -0 "$spid" 2>/dev/null || break
			sleep 0.5
		done
		kill "$spid" 2>/dev/null && echo "(server stopped 10 s after the client failed)" >>"$(log "$name" server)"
	fi
	wait "$spid" || src=$?
	[ "$rc" != 0 ] || rc=$src
	return "$rc"
}

# pair_retry NAME ARGS...: pair NAME ARGS..., run once more when the first
# run ended in a transport retry timeout (status 12).  The verbs pingpongs
# set a 67 ms ACK timeout with 7 retries, half a second in all; on a loaded
# TCG host a guest sometimes answers later than that (captures show rxe's
# ACKs arriving 600 ms late).  The first run's logs are kept as
# *.try1.log and RETRIED says what happened, for the result line.
pair_retry() {
	local name=$1 f
	RETRIED=""
	pair "$@" && return 0
	grep -q -E 'retry counter exceeded|Failed status 12|status 12' \
		"$(log "$name" client)" "$(log "$name" server)" 2>/dev/null || return 1
	for f in client server; do
		mv "$(log "$name" "$f")" "$(log "$name" "$f.try1")" 2>/dev/null
	done
	RETRIED=" (second run: the first ended in a transport retry timeout, see $(log "$name" client.try1))"
	pair "$@"
}

# The throughput lines of a verbs pingpong's client log.
pp_numbers() { grep -E 'Mbit/sec|usec/iter' "$(log "$1" client)" | tr '\n' ' ' | sed 's/  */ /g'; }

# pingpong NAME TOOL GIDKIND WHAT ARGS...: a verbs pingpong both ends run with
# ARGS (GIDKIND: 4 or 6, the GIDs of the IPv4 or IPv6 addresses).
pingpong() {
	local name=$1 tool=$2 kind=$3 what=$4 cg sg
	shift 4
	if [ "$kind" = 6 ]; then
		cg=$(at "$CNS" gid_index_of "$CDEV" "$CIP6") sg=$(at "$SNS" gid_index_of "$SDEV" "$SIP6")
	else
		cg=$(at "$CNS" gid_index "$CDEV" "$CIP") sg=$(at "$SNS" gid_index "$SDEV" "$SIP")
	fi
	if [ -z "$cg" ] || [ -z "$sg" ]; then
		fail "$DIR/$name$SFX" "no IPv$kind RoCE v2 GID (client '$cg', server '$sg')"
		return
	fi
	if pair_retry "$name" 18515 tcp "$tool" -d "$SDEV" -g "$sg" "$@" -- -d "$CDEV" -g "$cg" "$@" "$SIP"; then
		pass "$DIR/$name$SFX" "$what, $CDEV -> $SDEV (GIDs $cg -> $sg): $(pp_numbers "$name")$RETRIED"
	else
		fail "$DIR/$name$SFX" "$(tail_of "$name")$RETRIED"
	fi
}


# perf NAME TOOL ARGS...: a perftest tool, both ends with ARGS.  The ACK
# timeout is 1 s (-u 18) instead of perftest's 67 ms: a bandwidth test
# keeps up to 100 messages of 64 packets in flight, and rxe, on a loaded
# TCG vCPU, sometimes ACKs the next one more than 67 ms later; the
# requester (ornic counts its 7 retries; rxe retries forever at retry_cnt
# 7) then gives up although every packet arrived (a run that failed so
# showed no loss: rxe's duplicate_request equalled ornic's retransmits).
perf() {
	local name=$1 tool=$2 cg sg row again="" try sum cyc t0 wall=0
	shift 2
	cg=$(at "$CNS" gid_index "$CDEV" "$CIP") sg=$(at "$SNS" gid_index "$SDEV" "$SIP")
	for try in 1 2 3; do
		cyc=$(perftest_cycles "$tool" "$try")
		t0=$(date +%s%N)
		# shellcheck disable=SC2086 # -C or nothing
		if ! pair_retry "$name" 18515 tcp "$tool" -d "$SDEV" -x "$sg" -F -u 18 "$@" $cyc -- \
			-d "$CDEV" -x "$cg" -F -u 18 "$@" $cyc "$SIP"; then
			fail "$DIR/$name$SFX" "$(tail_of "$name")$again$RETRIED"
			return
		fi
		again+=$RETRIED
		row=$(perftest_row "$(log "$name" client)")
		if [ -z "$row" ]; then
			fail "$DIR/$name$SFX" "no result row: $(tail_of "$name")"
			return
		fi
		if [ -n "$cyc" ]; then
			row=$(perftest_cycles_to_us "$row")
			again+=" (run 3 in TSC cycles, -C, converted at the guest's rate)"
		fi
		perftest_tsc_settle "$(log "$name" client)" "$try" "$tool" "$t0" row again wall && break
	done
	[ "$wall" = 1 ] || echo "$DIR $name$SFX $row" >>"$PERF"
	if sum=$(perftest_judge "$tool" "$row"); then
		pass "$DIR/$name$SFX" "$CDEV -> $SDEV, $sum$again"
	else
		fail "$DIR/$name$SFX" "$sum$again"
	fi
}


# cm: connections set up by rdma_cm (CM MADs on the GSI QPs of both stacks).
cm() {
	local t0 ms row srow bytes iters bw sbw
	t0=$(date +%s%N)
	if pair rping 7471 cm rping -s -a "$SIP" -p 7471 -V -C 20 -S 4096 -- \
		-c -a "$SIP" -p 7471 -V -C 20 -S 4096; then
		ms=$(( ($(date +%s%N) - t0) / 1000000 ))
		pass "$DIR/rping$SFX" "20 pings of 4096 B over rdma_cm, every byte verified (-V), $ms ms"
	else
		fail "$DIR/rping$SFX" "$(tail_of rping)"
	fi
	t0=$(date +%s%N)
	if pair ucmatose 7472 cm ucmatose -p 7472 -c 2 -C 10 -S 1000 -- \
		-s "$SIP" -p 7472 -c 2 -C 10 -S 1000 &&
		grep -q 'test complete' "$(log ucmatose client)"; then
		pass "$DIR/ucmatose$SFX" "2 RC connections, 10 x 1000 B each way, $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	else
		fail "$DIR/ucmatose$SFX" "$(tail_of ucmatose)"
	fi
	# udaddy has no port option: it uses 7174.
	t0=$(date +%s%N)
	if pair udaddy 7174 cm udaddy -b "$SIP" -c 2 -C 10 -- -s "$SIP" -c 2 -C 10 &&
		grep -q 'test complete' "$(log udaddy client)"; then
		pass "$DIR/udaddy$SFX" "2 UD endpoints resolved by SIDR, 10 datagrams each way, $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	else
		fail "$DIR/udaddy$SFX" "$(tail_of udaddy)"
	fi
	# Both ends report a bandwidth; under TCG one of them sometimes reads
	# an unusable TSC and prints 0, so the larger one must be positive.
	# The ACK timeout is 1 s as in perf() (perftest gives it to rdma_cm with
	# rdma_set_option); a late ACK on a loaded host may still end the
	# first run in a retry timeout, as for the pingpongs (pair_retry).
	if pair_retry send_bw_cm 18515 cm ib_send_bw -d "$SDEV" -R -F -u 18 -s 65536 -n "$ITERS" --report_gbits -- \
		-d "$CDEV" -R -F -u 18 -s 65536 -n "$ITERS" --report_gbits "$SIP" &&
		row=$(perftest_row "$(log send_bw_cm client)") && [ -n "$row" ] &&
		srow=$(perftest_row "$(log send_bw_cm server)") && [ -n "$srow" ]; then
		read -r bytes iters _ bw _ <<<"$row"
		read -r _ _ _ sbw _ <<<"$srow"
		if perftest_judge ib_send_bw "$row" >/dev/null || perftest_judge ib_send_bw "$srow" >/dev/null; then
			echo "$DIR send_bw_cm$SFX $row" >>"$PERF"
			pass "$DIR/send_bw_cm$SFX" "ib_send_bw -R (rdma_cm), $bytes B x $iters: sender $bw Gb/s, receiver $sbw Gb/s$RETRIED"
		else
			fail "$DIR/send_bw_cm$SFX" "no bandwidth at either end: $row / $srow$RETRIED"
		fi
	else
		fail "$DIR/send_bw_cm$SFX" "$(tail_of send_bw_cm)$RETRIED"
	fi
}

# --- NVMe over Fabrics between the two ends ------------------------------------------
# nvmet-rdma and nvme-rdma create their rdma_cm ids in the initial network
# namespace only, so the two ends must be in the initial namespaces of two
# different guests.

# nvmet_export NQN IP PORTID IMG: export a 64 MiB file-backed namespace as
# NQN over RDMA at IP:4420 (nvmet port PORTID).  The export stays until the
# guest ends: removing an nvmet port destroys its listening cm_id under
# nvmet_config_sem while a connect can take that lock inside the CM handler
# (an upstream lock inversion blktests also reports), and lockdep would fail
# the run for code that is not ours.
nvmet_export() {
	local nqn=$1 ip=$2 cfs=/sys/kernel/config/nvmet img=$4 port sub
	port=$cfs/ports/$3 sub=$cfs/subsystems/$nqn
	if ! modprobe nvmet || ! modprobe nvmet-rdma; then
		echo "modprobe nvmet/nvmet-rdma failed"
		return 1
	fi
	truncate -s 64M "$img"
	if ! mkdir "$sub" || ! echo 1 >"$sub/attr_allow_any_host" ||
		! mkdir "$sub/namespaces/1" || ! echo "$img" >"$sub/namespaces/1/device_path" ||
		! echo 1 >"$sub/namespaces/1/buffered_io" || ! echo 1 >"$sub/namespaces/1/enable" ||
		! mkdir "$port" || ! echo rdma >"$port/addr_trtype" || ! echo ipv4 >"$port/addr_adrfam" ||
		! echo "$ip" >"$port/addr_traddr" || ! echo 4420 >"$port/addr_trsvcid" ||
		! ln -s "$sub" "$port/subsystems/$nqn"; then
		echo "nvmet configfs setup failed: $(dmesg | tail -n 3 | tr '\n' ' ')"
		return 1
	fi
}

# nvme_rw NQN IP MIB: connect to NQN at IP:4420 with nvme-cli, write MIB MiB
# of random data with O_DIRECT, read them back and compare, disconnect.
# Prints "sha256 <hash of the data>" on success.
nvme_rw() {
	local nqn=$1 ip=$2 mib=$3 hostnqn dev="" b rc=0 sum
	modprobe nvme-rdma || { echo "modprobe nvme-rdma failed"; return 1; }
	hostnqn=nqn.2014-08.org.nvmexpress:uuid:$(cat /proc/sys/kernel/random/uuid)
	# One I/O queue: each queue is an RC QP with its MRs, and TCG makes
	# every one of them slow to set up.
	if ! timeout 120 nvme connect -t rdma -a "$ip" -s 4420 -n "$nqn" --hostnqn="$hostnqn" \
		--nr-io-queues=1 >/tmp/nvme-connect.log 2>&1; then
		echo "nvme connect: $(tail -n 2 /tmp/nvme-connect.log | tr '\n' ' ') $(dmesg | tail -n 3 | tr '\n' ' ')"
		return 1
	fi
	for _ in $(seq 40); do
		for b in /sys/block/nvme*n*; do
			[ "$(cat "$b/device/subsysnqn" 2>/dev/null)" = "$nqn" ] && dev=/dev/${b##*/}
		done
		[ -n "$dev" ] && break
		sleep 0.5
	done
	if [ -z "$dev" ]; then
		echo "connected, but no namespace block device for $nqn"
		rc=1
	else
		head -c "${mib}M" /dev/urandom >/tmp/nvme-pattern
		sum=$(sha256sum </tmp/nvme-pattern)
		if dd if=/tmp/nvme-pattern of="$dev" bs=1M oflag=direct status=none &&
			dd if="$dev" of=/tmp/nvme-back bs=1M count="$mib" iflag=direct status=none &&
			cmp -s /tmp/nvme-pattern /tmp/nvme-back; then
			echo "sha256 ${sum%% *} through $dev"
		else
			echo "data through $dev differs or I/O failed: $(dmesg | tail -n 3 | tr '\n' ' ')"
			rc=1
		fi
	fi
	nvme disconnect -n "$nqn" >>/tmp/nvme-connect.log 2>&1
	rm -f /tmp/nvme-pattern /tmp/nvme-back
	return "$rc"
}

# nvmeof NAME PORTID: the server end exports a namespace, the client end
# connects with nvme-cli, writes NVME_MIB MiB (default 8), reads them back;
# the target's backing file must then hold the same bytes.
nvmeof() {
	local name=$1 nqn img out sum tsum tag mib=${NVME_MIB:-8}
	tag=${DIR//\//-}-$name$SFX
	nqn=nqn.2026-11.org.ornic:$tag img=/tmp/nvmet-$tag.img
	if ! out=$(at "$SNS" nvmet_export "$nqn" "$SIP" "$2" "$img" 2>&1); then
		fail "$DIR/$name$SFX" "target on $SDEV: $out"
		return
	fi
	if ! out=$(at "$CNS" nvme_rw "$nqn" "$SIP" "$mib" 2>&1); then
		fail "$DIR/$name$SFX" "host on $CDEV: $out"
		return
	fi
	sum=$(awk '$1 == "sha256" { print $2 }' <<<"$out")
	tsum=$(at "$SNS" bash -c "head -c ${mib}M $img | sha256sum")
	if [ -n "$sum" ] && [ "${tsum%% *}" = "$sum" ]; then
		pass "$DIR/$name$SFX" "nvme-rdma on $CDEV -> nvmet-rdma on $SDEV: $mib MiB O_DIRECT write + read back, data checked, also in the target's file (${out#sha256 * })"
	else
		fail "$DIR/$name$SFX" "the target's file differs from what the host wrote ($sum vs ${tsum%% *})"
	fi
}
