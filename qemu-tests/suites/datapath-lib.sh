# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Sets for the chosen pair: CDEV/SDEV (client/server ib_device), CIP/SIP and
# CIP6/SIP6 (their addresses; the GIDs follow), NS (the server's netns), and
# for ornic CND/SND (their netdevs).
# shellcheck disable=SC2034 # the variables above are the interface
# Guest-side helpers of the data-path suites (datapath.sh, demo.sh,
# stock.sh): set up two ornic NICs or two rxe devices, each pair with its
# server side in its own network namespace, run client/server tools between
# them, NVMe-oF over RDMA (nvmeof).  Sourced after lib.sh and driver-lib.sh,
# never executed.
# shellcheck shell=bash
LIBDIR=/usr/lib/x86_64-linux-gnu/libibverbs

# shellcheck disable=SC2329 # called through wait_for
port_active() { [[ $(rdma link show "$1/1" 2>/dev/null) == *"state ACTIVE"* ]]; }

# shellcheck disable=SC2329 # called as setup_$kind
# setup_ornic: driver + provider, ornic_1's netdev in netns "ornic".
setup_ornic() {
	install_modules "${MODDIR:?}" || { fail ornic/setup "cannot install modules"; return 1; }
	if ! cp "${PROVIDER_DIR:?}/libornic-rdmav34.so" "$LIBDIR/" ||
		! cp "$PROVIDER_DIR/ornic.driver" /etc/libibverbs.d/; then
		fail ornic/setup "cannot install the provider"
		return 1
	fi
	if ! modprobe ornic || ! wait_for have_devs "${ORNIC_DEVICES:-2}"; then
		fail ornic/setup "modprobe ornic: $(dmesg | grep -i ornic | tail -n 3 | tr '\n' ' ')"
		return 1
	fi
	setup_ornic_pair
}

# setup_ornic_pair: with the driver loaded and both devices there (however
# they were installed): ornic_1's netdev in netns "ornic", addresses, both
# ports ACTIVE.  A third and fourth device (the PFC pair of check-datapath.sh)
# are left alone, named in PFC_CDEV/PFC_SDEV and PFC_CND/PFC_SND (empty
# without them): once a netdev moves to another namespace, sysfs no longer
# lists it here.
setup_ornic_pair() {
	local nds ibs
	read -r -a nds <<<"$(ornic_netdevs | tr '\n' ' ')"
	read -r -a ibs <<<"$(ornic_ibdevs | tr '\n' ' ')"
	NS=ornic CDEV=${ibs[0]} SDEV=${ibs[1]} CIP=10.0.0.1 SIP=10.0.0.2
	CND=${nds[0]} SND=${nds[1]}
	PFC_CDEV=${ibs[2]:-} PFC_SDEV=${ibs[3]:-} PFC_CND=${nds[2]:-} PFC_SND=${nds[3]:-}
	CIP6=fd00:0000:0000:0000:0000:0000:0000:0001 SIP6=fd00:0000:0000:0000:0000:0000:0000:0002
	ip netns add "$NS"
	ip link set "${nds[1]}" netns "$NS"
	ip addr add "$CIP/24" dev "${nds[0]}"
	ip -6 addr add fd00::1/64 dev "${nds[0]}" nodad
	ip link set "${nds[0]}" up
	ip netns exec "$NS" ip addr add "$SIP/24" dev "${nds[1]}"
	ip netns exec "$NS" ip -6 addr add fd00::2/64 dev "${nds[1]}" nodad
	ip netns exec "$NS" ip link set "${nds[1]}" up
	ip netns exec "$NS" ip link set lo up
	if ! wait_for port_active "$CDEV" || ! wait_for port_active "$SDEV"; then
		fail ornic/setup "ports not ACTIVE"
		return 1
	fi
}

# setup_soft KIND MODULE N VETH_A VETH_B: two KIND devices (KIND0, KIND1)
# on a veth pair VETH_A/VETH_B, VETH_B in netns KIND, on 10.0.N.0/24 and
# fd0N::/64.
setup_soft() {
	local kind=$1 module=$2 n=$3 va=$4 vb=$5
	modprobe "$module" || { fail "$kind/setup" "modprobe $module"; return 1; }
	NS=$kind CDEV=${kind}0 SDEV=${kind}1 CIP=10.0.$n.1 SIP=10.0.$n.2
	CIP6=fd0$n:0000:0000:0000:0000:0000:0000:0001 SIP6=fd0$n:0000:0000:0000:0000:0000:0000:0002
	ip netns add "$NS"
	ip link add "$va" type veth peer name "$vb"
	ip link set "$vb" netns "$NS"
	ip addr add "$CIP/24" dev "$va"
	ip -6 addr add "fd0$n::1/64" dev "$va" nodad
	# The same MTU as the ornic port, so both use the same RoCE path MTU.
	ip link set "$va" mtu 1500 up
	ip netns exec "$NS" ip addr add "$SIP/24" dev "$vb"
	ip netns exec "$NS" ip -6 addr add "fd0$n::2/64" dev "$vb" nodad
	ip netns exec "$NS" ip link set "$vb" mtu 1500 up
	ip netns exec "$NS" ip link set lo up
	if ! rdma link add "$CDEV" type "$kind" netdev "$va" ||
		! ip netns exec "$NS" rdma link add "$SDEV" type "$kind" netdev "$vb"; then
		fail "$kind/setup" "rdma link add"
		return 1
	fi
}

# shellcheck disable=SC2329 # called as setup_$kind
# setup_rxe: rxe0/rxe1 on a veth pair, veth1 in netns "rxe".
setup_rxe() { setup_soft rxe rdma_rxe 1 veth0 veth1; }

# shellcheck disable=SC2329 # called as setup_$kind
# setup_siw: siw0/siw1 (iWARP: rdma_cm only) on veth2/veth3, veth3 in netns "siw".
setup_siw() { setup_soft siw siw 2 veth2 veth3; }

# pair KIND NAME TOOL SERVER_ARGS -- CLIENT_ARGS: server in $NS, client here,
# client connects to $SIP.  Logs /out/KIND-NAME.{server,client}.log.
pair() {
	local kind=$1 name=$2 tool=$3 sargs=() cargs=() spid rc=0 src=0
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	cargs=("$@")
	ip netns exec "$NS" timeout 300 "$tool" "${sargs[@]}" >"/out/$kind-$name.server.log" 2>&1 &
	spid=$!
	if ! wait_listen "$NS" 18515; then
		kill "$spid" 2>/dev/null
		echo "server did not start" >"/out/$kind-$name.client.log"
		return 1
	fi
	timeout 300 "$tool" "${cargs[@]}" "$SIP" >"/out/$kind-$name.client.log" 2>&1 || rc=$?
	wait "$spid" || src=$?
	# A tool killed by a signal or one that fails silently says nothing.
	[ "$rc" = 0 ] || echo "($tool exited with status $rc)" >>"/out/$kind-$name.client.log"
	[ "$src" = 0 ] || echo "($tool exited with status $src)" >>"/out/$kind-$name.server.log"
	[ "$rc" != 0 ] || rc=$src
	return "$rc"
}

# perf_row KIND NAME TOOL ARGS...: run a perftest tool between the pair (on
# the GIDs of type GID_TYPE, RoCE v2 unless set); prints the parsed result
# row, status 1 when the tool failed.
perf_row() {
	local k=$1 name=$2 tool=$3 cg sg
	shift 3
	cg=$(gid_index "$CDEV" "$CIP" "${GID_TYPE:-RoCE v2}") sg=$(gid_index "$SDEV" "$SIP" "${GID_TYPE:-RoCE v2}")
	pair "$k" "$name" "$tool" -d "$SDEV" -x "$sg" -F "$@" -- -d "$CDEV" -x "$cg" -F "$@" || return 1
	perftest_row "/out/$k-$name.client.log"
}

# cm_wait_listen PORT: an rdma_cm listener on PORT, here or in $NS (30 s).
cm_wait_listen() {
	local _ ids
	for _ in $(seq 150); do
		# Not piped into grep -q: with pipefail, rdma's SIGPIPE would
		# turn a match into a failure.
		ids=$({ rdma resource show cm_id; ip netns exec "$NS" rdma resource show cm_id; } 2>/dev/null)
		[[ $ids == *"state LISTEN"*":$1 "* ]] && return 0
		sleep 0.2
	done
	return 1
}
# cm_pair KIND NAME PORT TOOL SERVER_ARGS -- CLIENT_ARGS: an rdma_cm tool
# whose server listens on PORT in $NS; the client runs here (its arguments
# name the server).  Logs /out/KIND-NAME.{server,client}.log.  Each side is
# stopped after CM_PAIR_TIMEOUT seconds (300).
cm_pair() {
	local kind=$1 name=$2 port=$3 tool=$4 sargs=() spid rc=0 src=0
	shift 4
	while [ $# -gt 0 ] && [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	# Line-buffered: a server stopped by a failure still leaves its log.
	ip netns exec "$NS" timeout "${CM_PAIR_TIMEOUT:-300}" stdbuf -oL -eL "$tool" "${sargs[@]}" \
		>"/out/$kind-$name.server.log" 2>&1 &
	spid=$!
	if ! cm_wait_listen "$port"; then
		{
			echo "server did not listen on $port; cm_ids:"
			rdma resource show cm_id
			ip netns exec "$NS" rdma resource show cm_id
		} >"/out/$kind-$name.client.log" 2>&1
		kill "$spid" 2>/dev/null
		return 1
	fi
	timeout "${CM_PAIR_TIMEOUT:-300}" "$tool" "$@" >"/out/$kind-$name.client.log" 2>&1 || rc=$?
	wait "$spid" || src=$?
	[ "$rc" != 0 ] || rc=$src
	return "$rc"
}

# nvmeof KIND: NVMe over Fabrics with the stock kernel host and target, both
# kernel ULPs on the pair's client device (nvmet-rdma and nvme-rdma live in
# the initial network namespace, so the target listens on $CIP and the host
# connects to it: RDMA between the device and itself).  nvme-cli connects,
# 8 MiB of random data go through the namespace with O_DIRECT and must come
# back and be in the target's backing file; then the host disconnects.
# The target listens on NVME_SVCID (default 4420).
nvmeof() {
	local k=$1 cfs=/sys/kernel/config/nvmet nqn=nqn.2026-11.org.ornic:test-$1
	local img=/tmp/nvmet-$1.img port sub dev="" b hostnqn rc=0 svc=${NVME_SVCID:-4420}
	port=$cfs/ports/$((${#k} + 10)) sub=$cfs/subsystems/$nqn
	if ! modprobe nvmet || ! modprobe nvmet-rdma || ! modprobe nvme-rdma; then
		fail "$k/nvmeof" "modprobe nvmet/nvmet-rdma/nvme-rdma failed"
		return
	fi
	truncate -s 64M "$img"
	if ! mkdir "$sub" || ! echo 1 >"$sub/attr_allow_any_host" ||
		! mkdir "$sub/namespaces/1" || ! echo "$img" >"$sub/namespaces/1/device_path" ||
		! echo 1 >"$sub/namespaces/1/buffered_io" || ! echo 1 >"$sub/namespaces/1/enable" ||
		! mkdir "$port" || ! echo rdma >"$port/addr_trtype" || ! echo ipv4 >"$port/addr_adrfam" ||
		! echo "$CIP" >"$port/addr_traddr" || ! echo "$svc" >"$port/addr_trsvcid" ||
		! ln -s "$sub" "$port/subsystems/$nqn"; then
		fail "$k/nvmeof" "nvmet configfs setup failed: $(dmesg | tail -n 3 | tr '\n' ' ')"
		return
	fi
	hostnqn=nqn.2014-08.org.nvmexpress:uuid:$(cat /proc/sys/kernel/random/uuid)
	if ! timeout 120 nvme connect -t rdma -a "$CIP" -s "$svc" -n "$nqn" --hostnqn="$hostnqn" \
		>"/out/$k-nvme-connect.log" 2>&1; then
		fail "$k/nvmeof" "nvme connect: $(tail -n 2 "/out/$k-nvme-connect.log" | tr '\n' ' ') $(dmesg | tail -n 3 | tr '\n' ' ')"
		rc=1
	fi
	for _ in $(seq 40); do
		for b in /sys/block/nvme*n*; do
			[ "$(cat "$b/device/subsysnqn" 2>/dev/null)" = "$nqn" ] && dev=/dev/${b##*/}
		done
		[ -n "$dev" ] || [ "$rc" != 0 ] && break
		sleep 0.5
	done
	if [ "$rc" = 0 ] && [ -z "$dev" ]; then
		fail "$k/nvmeof" "connected, but no namespace block device for $nqn"
		rc=1
	fi
	if [ "$rc" = 0 ]; then
		head -c 8M /dev/urandom >/tmp/nvme-pattern
		if dd if=/tmp/nvme-pattern of="$dev" bs=1M oflag=direct status=none &&
			dd if="$dev" of=/tmp/nvme-back bs=1M count=8 iflag=direct status=none &&
			cmp -s /tmp/nvme-pattern /tmp/nvme-back &&
			cmp -s -n 8388608 /tmp/nvme-pattern "$img"; then
			pass "$k/nvmeof" "nvme connect -t rdma ($dev), 8 MiB O_DIRECT write + read back, data checked, also in the target's file"
		else
			fail "$k/nvmeof" "data through $dev differs or I/O failed: $(dmesg | tail -n 3 | tr '\n' ' ')"
		fi
	fi
	nvme disconnect -n "$nqn" >>"/out/$k-nvme-connect.log" 2>&1
	# The target stays configured until the guest ends: removing an
	# nvmet port destroys its listening cm_id under nvmet_config_sem,
	# while a connect can take that lock inside the CM handler (the
	# upstream lock inversion blktests also reports), and lockdep would
	# fail the run for code that is not ours.
	rm -f /tmp/nvme-pattern /tmp/nvme-back
}

# mc_pair KIND NAME GROUP ARGS...: mckey -- rdma_join_multicast (over RoCE an
# IGMP join on the netdev, over IPoIB an SA join; ibv_attach_mcast of the UD
# QP) -- receiving in
# $NS at $SIP, then sending from $CIP once the receiver has joined.  The
# receiver exits only after it has polled every datagram.
mc_pair() {
	local kind=$1 name=$2 group=$3 spid rc=0 src=0 _
	shift 3
	ip netns exec "$NS" timeout 120 stdbuf -oL -eL mckey -m "$group" -b "$SIP" "$@" \
		>"/out/$kind-$name.server.log" 2>&1 &
	spid=$!
	for _ in $(seq 120); do
		grep -q 'receiving data transfers' "/out/$kind-$name.server.log" && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.5
	done
	if ! grep -q 'receiving data transfers' "/out/$kind-$name.server.log"; then
		echo "receiver did not join" >"/out/$kind-$name.client.log"
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		return 1
	fi
	timeout 120 mckey -m "$group" -b "$CIP" -s "$@" >"/out/$kind-$name.client.log" 2>&1 || rc=$?
	# Every datagram has been sent now: a receiver still waiting after
	# 10 s lost some, and would otherwise hold the suite for its timeout
	# (ornic's receiver is done within a second of the sender).
	for _ in $(seq 20); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.5
	done
	kill "$spid" 2>/dev/null
	wait "$spid" || src=$?
	[ "$rc" != 0 ] || rc=$src
	[ "$rc" = 0 ] && grep -q 'data transfers complete' "/out/$kind-$name.server.log"
}
# cm KIND: connections set up by rdma_cm, whose CM MADs travel on the GSI QP
# through the driver's kernel verbs (ornic) -- rping checking every byte,
# ucmatose (RC), udaddy (UD, SIDR), mckey (UD multicast) and perftest over
# rdma_cm.  Each server
# listens in $NS on its own port (cm_pair); the client connects to $SIP.
# Needs tail_of NAME (the last lines of /out/NAME.{client,server}.log) and
# PERF (where perftest rows go).
cm() { # cm KIND
	local k=$1 row
	if cm_pair "$k" rping 7471 rping -s -a "$SIP" -p 7471 -V -C 50 -S 4096 -- \
		-c -a "$SIP" -p 7471 -V -C 50 -S 4096; then
		pass "$k/cm_rping" "50 pings of 4096 B over an rdma_cm connection, every byte verified"
	else
		fail "$k/cm_rping" "$(tail_of "$k-rping")"
	fi
	if cm_pair "$k" ucmatose 7472 ucmatose -p 7472 -c 4 -C 20 -S 1000 -- \
		-s "$SIP" -p 7472 -c 4 -C 20 -S 1000 &&
		grep -q 'test complete' "/out/$k-ucmatose.client.log"; then
		pass "$k/cm_ucmatose" "4 RC connections, 20 x 1000 B each way"
	else
		fail "$k/cm_ucmatose" "$(tail_of "$k-ucmatose")"
	fi
	# udaddy has no port option: it uses 7174.
	if cm_pair "$k" udaddy 7174 udaddy -b "$SIP" -c 2 -C 10 -- \
		-s "$SIP" -c 2 -C 10 &&
		grep -q 'test complete' "/out/$k-udaddy.client.log"; then
		pass "$k/cm_udaddy" "2 UD endpoints resolved by SIDR, 10 datagrams each way"
	else
		fail "$k/cm_udaddy" "$(tail_of "$k-udaddy")"
	fi
	# rxe is compared, not judged here: between the veth pair's namespaces
	# (7.3) its receiver got none of mckey's datagrams in our runs, cause
	# not found yet.
	if mc_pair "$k" mckey 239.1.2.4 -C 20 -S 1000; then
		pass "$k/cm_mckey" "rdma_cm multicast: 20 datagrams of 1000 B to 239.1.2.4, all received in $NS"
	elif [ "$k" = rxe ]; then
		skip "$k/cm_mckey" "compared only, rxe did not deliver: $(tail_of "$k-mckey")"
	else
		fail "$k/cm_mckey" "$(tail_of "$k-mckey")"
	fi
	# Both ends report a bandwidth; under TCG one of them sometimes reads
	# an unusable TSC and prints 0, so the larger one must be positive.
	local row srow bytes iters bw sbw
	if cm_pair "$k" cm_send_bw 18515 ib_send_bw -d "$SDEV" -R -F -s 65536 -n 100 --report_gbits -- \
		-d "$CDEV" -R -F -s 65536 -n 100 --report_gbits "$SIP" &&
		row=$(perftest_row "/out/$k-cm_send_bw.client.log") && [ -n "$row" ] &&
		srow=$(perftest_row "/out/$k-cm_send_bw.server.log") && [ -n "$srow" ]; then
		read -r bytes iters _ bw _ <<<"$row"
		read -r _ _ _ sbw _ <<<"$srow"
		if perftest_judge ib_send_bw "$row" >/dev/null || perftest_judge ib_send_bw "$srow" >/dev/null; then
			echo "$k cm_send_bw_64k $row" >>"$PERF"
			pass "$k/cm_send_bw" "ib_send_bw -R (connected by rdma_cm): $bytes B x $iters, sender $bw Gb/s, receiver $sbw Gb/s"
		else
			fail "$k/cm_send_bw" "no bandwidth at either end: $row / $srow"
		fi
	else
		fail "$k/cm_send_bw" "$(tail_of "$k-cm_send_bw")"
	fi
}
