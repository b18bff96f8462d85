# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Guest-side helpers for ornic's InfiniBand ports (ib.sh, demo-ib.sh): the
# driver and provider installed, OpenSM instances of their own, verbs tools'
# client/server pairs by LID.  Sourced after lib.sh and driver-lib.sh, never
# executed.
# shellcheck shell=bash
# shellcheck disable=SC2317,SC2329 # functions called through wait_for
LIBDIR=/usr/lib/x86_64-linux-gnu/libibverbs

port_file() { cat "/sys/class/infiniband/$1/ports/1/$2" 2>/dev/null; }
port_state_is() { [[ $(port_file "$1" state) == *"$2"* ]]; }
lid_of() { printf '%d' "$(port_file "$1" lid)"; }
# The port GUID: the low 64 bits of GID 0.
port_guid() { port_file "$1" gids/0 | sed 's/^fe80:0000:0000:0000://; s/://g; s/^/0x/'; }
both_active() { port_state_is "$1" ACTIVE && port_state_is "$2" ACTIVE; }
# node_guid IBDEV: its node GUID as 16 hex digits.
node_guid() { tr -d : <"/sys/class/infiniband/$1/node_guid"; }
# smp_field NAME: NAME's value in smpquery's or perfquery's "Name:....value" output.
smp_field() { awk -F':[.]*' -v f="$1" '$1 == f { print $2; exit }'; }
# A GUID as the diagnostics print it: hex without 0x and leading zeros.
bare_guid() { printf '%x' "$1"; }

# ib_setup N: the driver and provider (MODDIR, PROVIDER_DIR) installed, ib_umad
# loaded, N ornic ib_devices there.
ib_setup() {
	install_modules "${MODDIR:?}" || { fail setup "cannot install modules"; return 1; }
	if ! cp "${PROVIDER_DIR:?}/libornic-rdmav34.so" "$LIBDIR/" ||
		! cp "$PROVIDER_DIR/ornic.driver" /etc/libibverbs.d/; then
		fail setup "cannot install the provider"
		return 1
	fi
	modprobe ib_umad
	if ! modprobe ornic || ! wait_for have_ibdevs "$1"; then
		fail setup "modprobe ornic: $(dmesg | grep -i ornic | tail -n 3 | tr '\n' ' ')"
		return 1
	fi
}

# start_sm NAME DEV PRIORITY [CONFIG LINE...]: OpenSM on DEV's port with its
# own configuration, cache and log under /out/sm-NAME; its PID in SM_PID[NAME].
declare -A SM_PID
start_sm() {
	local name=$1 dev=$2 prio=$3 dir=/out/sm-$1
	shift 3
	mkdir -p "$dir/cache"
	{
		echo "guid $(port_guid "$dev")"
		echo "sm_priority $prio"
		# Sweeps and standby polls short enough for a test to wait for.
		echo "sweep_interval 2"
		echo "sminfo_polling_timeout 1000"
		echo "polling_retry_number 2"
		echo "log_file $dir/opensm.log"
		echo "dump_files_dir $dir"
		echo "partition_config_file $dir/partitions.conf"
		printf '%s\n' "$@"
	} >"$dir/opensm.conf"
	[ -f "$dir/partitions.conf" ] || echo "Default=0x7fff, ipoib : ALL=full;" >"$dir/partitions.conf"
	OSM_CACHE_DIR=$dir/cache opensm -F "$dir/opensm.conf" >>"$dir/opensm.stdout" 2>&1 &
	SM_PID[$name]=$!
}
stop_sm() {
	[ -n "${SM_PID[$1]:-}" ] || return 0
	kill "${SM_PID[$1]}" 2>/dev/null
	wait "${SM_PID[$1]}" 2>/dev/null
	SM_PID[$1]=""
}

# wait_secs N CMD...: up to N seconds for CMD; prints the seconds it took.
wait_secs() {
	local n=$1 start=$SECONDS
	shift
	while ! "$@"; do
		[ $((SECONDS - start)) -lt "$n" ] || return 1
		sleep 0.5
	done
	echo $((SECONDS - start))
}

# sm_state CA LID: the state sminfo reads from the SM at LID through CA.
sm_state() { sminfo -C "$1" "$2" 2>/dev/null | grep -o 'SMINFO_[A-Z]*'; }
sm_is() { [ "$(sm_state "$1" "$2")" = "$3" ]; }
master_lid_is() { [ "$(port_file "$1" sm_lid)" = "$(printf '0x%x' "$2")" ] && sm_is "$1" "$2" SMINFO_MASTER; }

# ib_pair NAME TOOL SERVER_ARGS... -- CLIENT_ARGS...: a verbs tool's server
# and client over loopback TCP for their exchange; the verbs traffic goes
# between the ports they name.  Output in /out/NAME.{server,client}.log.
ib_pair() {
	local name=$1 tool=$2 sargs=() cargs=() spid rc=0 src=0
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	cargs=("$@")
	timeout 300 "$tool" "${sargs[@]}" >"/out/$name.server.log" 2>&1 &
	spid=$!
	if ! wait_for listening 18515; then
		kill "$spid" 2>/dev/null
		echo "server did not start" >"/out/$name.client.log"
		return 1
	fi
	timeout 300 "$tool" "${cargs[@]}" 127.0.0.1 >"/out/$name.client.log" 2>&1 || rc=$?
	wait "$spid" || src=$?
	[ "$rc" != 0 ] || rc=$src
	return "$rc"
}
listening() { ss -Hltn "sport = :$1" | grep -q .; }
tail_of() { tail -n 3 "/out/$1.client.log" "/out/$1.server.log" 2>/dev/null | tr '\n' ' '; }

