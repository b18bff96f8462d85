#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# soft-rdma.sh rxe|siw: the software RDMA baseline.  Two devices of the
# given kind on the ends of a veth pair (one end in its own network
# namespace) run a data-checked ping-pong and short perftest bandwidth and
# latency runs; the parsed numbers are printed and kept in
# /out/<kind>-perf.txt for later comparisons.
set -uo pipefail
kind=$1
SUITE=$kind
. /src/qemu-tests/suites/lib.sh

veth_pair
modprobe "$( [ "$kind" = rxe ] && echo rdma_rxe || echo siw)" || { fail setup "modprobe failed"; exit 1; }
if ! rdma link add "${kind}0" type "$kind" netdev veth0 ||
	! ip netns exec peer rdma link add "${kind}1" type "$kind" netdev veth1; then
	fail setup "rdma link add failed"
	exit 1
fi
rdma link show | sed 's/^/  /'

perf=/out/$kind-perf.txt
: >"$perf"
# iWARP (siw) connects through rdma_cm only; RoCE (rxe) can do both.
if [ "$kind" = rxe ]; then
	if ! wait_gid rxe0 10.0.0.1 || ! wait_gid rxe1 10.0.0.2; then
		fail setup "no RoCE v2 GID"
		exit 1
	fi
	cgid=$(gid_index rxe0 10.0.0.1) sgid=$(gid_index rxe1 10.0.0.2)
	ip netns exec peer timeout 120 ibv_rc_pingpong -d rxe1 -g "$sgid" -c -n 200 -s 4096 \
		>/out/rxe-pingpong.server.log 2>&1 &
	spid=$!
	wait_listen peer 18515
	if timeout 120 ibv_rc_pingpong -d rxe0 -g "$cgid" -c -n 200 -s 4096 10.0.0.2 \
		>/out/rxe-pingpong.client.log 2>&1 && wait "$spid"; then
		pass rc_pingpong "$(grep -m1 'Mbit/sec' /out/rxe-pingpong.client.log)"
	else
		fail rc_pingpong "$(tail -n 3 /out/rxe-pingpong.client.log | tr '\n' ' ')"
	fi
	cm=() dev_args=(-x "$sgid")
	cdev_args=(-x "$cgid")
else
	# rping checks every byte of every ping (-V) over an rdma_cm connection.
	ip netns exec peer timeout 120 rping -s -a 10.0.0.2 -V -C 100 -S 4096 \
		>/out/siw-rping.server.log 2>&1 &
	spid=$!
	sleep 2
	if timeout 120 rping -c -a 10.0.0.2 -V -C 100 -S 4096 >/out/siw-rping.client.log 2>&1 &&
		wait "$spid"; then
		pass rping_verify "100 pings of 4096 B, data verified"
	else
		fail rping_verify "$(tail -n 3 /out/siw-rping.client.log | tr '\n' ' ')"
	fi
	cm=(-R) dev_args=() cdev_args=()
fi

# perftest: server side takes the server's GID index, the client its own.
run_perf() { # run_perf NAME TOOL ARGS...
	local name=$1 tool=$2
	shift 2
	local sdev=${kind}1 cdev=${kind}0 rc=0
	ip netns exec peer timeout 300 "$tool" -d "$sdev" "${dev_args[@]}" "${cm[@]}" "$@" \
		>"/out/$kind-$name.server.log" 2>&1 &
	local spid=$!
	wait_listen peer 18515 || { fail "$name" "server did not start"; kill "$spid"; return; }
	timeout 300 "$tool" -d "$cdev" "${cdev_args[@]}" "${cm[@]}" "$@" 10.0.0.2 \
		>"/out/$kind-$name.client.log" 2>&1 || rc=$?
	wait "$spid" || [ "$rc" != 0 ] || rc=$?
	local row
	row=$(perftest_row "/out/$kind-$name.client.log")
	if [ "$rc" != 0 ] || [ -z "$row" ]; then
		fail "$name" "exit $rc: $(tail -n 2 "/out/$kind-$name.client.log" | tr '\n' ' ')"
		return
	fi
	echo "$kind $name $row" >>"$perf"
	local sum
	if sum=$(perftest_judge "$tool" "$row"); then
		pass "$name" "$sum"
	else
		fail "$name" "$sum"
	fi
}
run_perf write_bw_64k ib_write_bw -s 65536 -n 200 --report_gbits -F
run_perf send_lat_2b ib_send_lat -s 2 -n 200 -F

grep -q '^FAIL' /out/results.txt 2>/dev/null && exit 1
exit 0
