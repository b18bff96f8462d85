#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# provider-devinfo.sh MODDIR PROVIDER_DIR [VERBS_TOOL [NOSYSCALL_TOOL]]: with two linked ornic
# models attached, install the rdma-core provider (libornic-rdmav34.so and
# ornic.driver from PROVIDER_DIR) and the driver, then check with the stock
# ibverbs tools: ibv_devices lists both devices, ibv_devinfo -v works, its
# fw_ver is the model's release and its
# limits equal what the device reported to the driver at probe (the driver's
# "N QPs, N CQs, N MRs, N PDs" line, read through admin QUERY_DEVICE, not
# through the provider).  VERBS_TOOL (provider-verbs.c) then runs the
# provider's checks on the first device and data between both (see its
# header comment); each of its PASS/FAIL lines becomes a test.
# NOSYSCALL_TOOL (provider-nosyscall.c) traces the post and poll paths for
# system calls.  Then the stock tools run once each between the two NICs
# (ibv_rc/ud/srq_pingpong, ib_write_bw, ib_send_lat): "they run", nothing
# more — the data-path suite checks and measures them.
set -uo pipefail
mo=$1
pdir=$2
tool=${3:-}
nosys=${4:-}
SUITE=provider
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh
LIBDIR=/usr/lib/x86_64-linux-gnu/libibverbs

# --- install -------------------------------------------------------------------
if ! install_modules "$mo"; then
	fail install "cannot install the modules from $mo"
	exit 1
fi
if ! modprobe ornic || ! wait_for have_devs 2; then
	fail probe "modprobe ornic did not give 2 ib devices: $(dmesg | grep -i ornic | tail -n 5 | tr '\n' ' ')"
	exit 1
fi
# Without the provider libibverbs must not list the devices: what ibv_devices
# shows below is then the provider's doing.
before=$(ibv_devices 2>/dev/null | awk '$1 ~ /^ornic_/ { print $1 }' | tr '\n' ' ')
if ! cp "$pdir/libornic-rdmav34.so" "$LIBDIR/" || ! cp "$pdir/ornic.driver" /etc/libibverbs.d/; then
	fail install "cannot install the provider from $pdir"
	exit 1
fi
pass install "libornic-rdmav34.so in $LIBDIR, /etc/libibverbs.d/ornic.driver: $(cat /etc/libibverbs.d/ornic.driver)"

read -r -a ibs <<<"$(ornic_ibdevs | tr '\n' ' ')"
read -r -a nds <<<"$(ornic_netdevs | tr '\n' ' ')"
IB0=${ibs[0]}
# Ports are ACTIVE once the netdevs are up (the models are linked).
for nd in "${nds[@]}"; do
	ip link set "$nd" up
done
# shellcheck disable=SC2329 # called through wait_for
port_active() {
	[[ $(rdma link show "$1/1" 2>/dev/null) == *"state ACTIVE"* ]]
}
wait_for port_active "$IB0" || true

# --- ibv_devices ------------------------------------------------------------------
out=$(ibv_devices 2>&1)
rc=$?
echo "$out" >/out/ibv_devices.txt
listed=$(echo "$out" | awk '$1 ~ /^ornic_/ { print $1 }' | sort | tr '\n' ' ')
if [ $rc = 0 ] && [ "$listed" = "ornic_0 ornic_1 " ] && [ -z "$before" ]; then
	pass ibv-devices "lists $listed(exit 0); none before the provider was installed"
else
	fail ibv-devices "exit $rc, ornic devices listed: '${listed}' (before the provider: '${before}'); $(echo "$out" | head -n 5 | tr '\n' ' ')"
fi

# --- ibv_devinfo -v ---------------------------------------------------------------
out=$(ibv_devinfo -v -d "$IB0" 2>&1)
rc=$?
echo "$out" >/out/ibv_devinfo.txt
field() { # field NAME: the value of "NAME: value" in the devinfo output
	echo "$out" | awk -v k="$1:" '$1 == k { print $2; exit }'
}
transport=$(echo "$out" | awk '$1 == "transport:" { print $2; exit }')
ll=$(field link_layer)
state=$(field state)
if [ $rc = 0 ] && [ "$transport" = InfiniBand ] && [ "$ll" = Ethernet ] && [ "$state" = PORT_ACTIVE ]; then
	pass ibv-devinfo "ibv_devinfo -v -d $IB0: exit 0, transport $transport, link_layer $ll, $state"
else
	fail ibv-devinfo "exit $rc, transport '$transport', link_layer '$ll', state '$state': $(echo "$out" | head -n 3 | tr '\n' ' ')"
fi

# The device's limits as the driver read them at probe (admin QUERY_DEVICE),
# from the driver's own log line for the PCI function of IB0.
pci=$(basename "$(readlink -f "/sys/class/infiniband/$IB0/device")")
probe_line=$(dmesg | grep "$pci" | grep -E -o '[0-9]+ QPs, [0-9]+ CQs, [0-9]+ MRs, [0-9]+ PDs' | tail -n 1)
if [ -z "$probe_line" ]; then
	fail devinfo-limits "no 'N QPs, N CQs, N MRs, N PDs' probe line for $pci in dmesg"
else
	read -r dqp _ dcq _ dmr _ dpd _ <<<"${probe_line//,/}"
	got="max_qp $(field max_qp) max_cq $(field max_cq) max_mr $(field max_mr) max_pd $(field max_pd)"
	want="max_qp $dqp max_cq $dcq max_mr $dmr max_pd $dpd"
	if [ "$got" = "$want" ]; then
		pass devinfo-limits "ibv_devinfo $got = device ($pci probe: $probe_line)"
	else
		fail devinfo-limits "ibv_devinfo: $got; device ($pci probe): $want"
	fi
fi

# fw_ver: the device's FW_VERSION, formatted by the provider; the model's is
# the release it was built from (debian/changelog), as sysfs shows it.
want_fw=$(sed -n '1s/^[^(]*(\([0-9]*\.[0-9]*\.[0-9]*\).*/\1/p' /src/debian/changelog)
sysfs_fw=$(cat "/sys/class/infiniband/$IB0/fw_ver" 2>/dev/null)
if [ -n "$want_fw" ] && [ "$(field fw_ver)" = "$want_fw" ] && [ "$sysfs_fw" = "$want_fw" ]; then
	pass devinfo-fw-ver "ibv_devinfo fw_ver $want_fw = sysfs fw_ver = debian/changelog's release"
else
	fail devinfo-fw-ver "ibv_devinfo fw_ver '$(field fw_ver)', sysfs '$sysfs_fw', debian/changelog '$want_fw'"
fi

# --- provider checks through libibverbs ---------------------------------------------
# run_tool NAME OUT ARGS...: every result line of the tool (test-report.h)
# is a test.
run_tool() {
	local name=$1 out=$2 rc n=0 st t details
	shift 2
	timeout 600 "$@" >"$out" 2>&1
	rc=$?
	while read -r st t details; do
		case $st in
		PASS:) pass "$t" "$details"; n=$((n + 1)) ;;
		FAIL:) fail "$t" "$details"; n=$((n + 1)) ;;
		SKIP:) skip "$t" "$details"; n=$((n + 1)) ;;
		esac
	done <"$out"
	if [ $rc -gt 1 ] || [ $n = 0 ]; then
		fail "$name" "$name exited with status $rc after $n checks: $(tail -n 3 "$out" | tr '\n' ' ')"
	fi
}
if [ -z "$tool" ]; then
	skip verbs "no provider-verbs tool (build failed)"
else
	run_tool provider-verbs /out/provider-verbs.txt "$tool" "$IB0" "${ibs[1]}"
fi
if [ -z "$nosys" ]; then
	skip no-syscall "no provider-nosyscall tool (build failed)"
else
	run_tool provider-nosyscall /out/provider-nosyscall.txt "$nosys" "$IB0"
fi

# --- the stock tools on the provider ---------------------------------------------
# smoke NAME SERVER_ARGS... -- CLIENT_ARGS...: a server on ornic_1 and a client
# on ornic_0 (both in this namespace; RDMA goes over the models' wire, the
# tools' own TCP handshake over loopback).  A quick "does it run" check: the
# data-path suite measures and checks the same tools far more.
smoke() {
	local name=$1 srv=() cli=() rc_s rc_c
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	timeout 120 "${srv[@]}" >"/out/$name-server.txt" 2>&1 &
	local spid=$!
	sleep 2
	timeout 100 "${cli[@]}" >"/out/$name-client.txt" 2>&1
	rc_c=$?
	wait $spid
	rc_s=$?
	if [ $rc_s = 0 ] && [ $rc_c = 0 ]; then
		pass "$name" "$(grep -m1 -E 'iters in|^ *[0-9]+ +[0-9]+ +[0-9.]+' "/out/$name-client.txt" | tr -s ' ')"
	else
		fail "$name" "server exit $rc_s, client exit $rc_c: $(tail -n 2 "/out/$name-client.txt" "/out/$name-server.txt" | tr '\n' ' ')"
	fi
}
IB1=${ibs[1]}
smoke rc-pingpong ibv_rc_pingpong -d "$IB1" -g 0 -n 50 -c -- \
	ibv_rc_pingpong -d "$IB0" -g 0 -n 50 -c 127.0.0.1
smoke rc-pingpong-events ibv_rc_pingpong -d "$IB1" -g 0 -n 50 -e -s 8192 -- \
	ibv_rc_pingpong -d "$IB0" -g 0 -n 50 -e -s 8192 127.0.0.1
smoke ud-pingpong ibv_ud_pingpong -d "$IB1" -g 0 -n 50 -s 512 -- \
	ibv_ud_pingpong -d "$IB0" -g 0 -n 50 -s 512 127.0.0.1
smoke srq-pingpong ibv_srq_pingpong -d "$IB1" -g 0 -n 50 -q 4 -- \
	ibv_srq_pingpong -d "$IB0" -g 0 -n 50 -q 4 127.0.0.1
smoke write-bw ib_write_bw -d "$IB1" -x 0 -n 200 -s 65536 -- \
	ib_write_bw -d "$IB0" -x 0 -n 200 -s 65536 127.0.0.1
smoke send-lat ib_send_lat -d "$IB1" -x 0 -n 200 -- \
	ib_send_lat -d "$IB0" -x 0 -n 200 127.0.0.1

# The device's counters after the tools, for diagnosis.
rdma statistic show >/out/rdma-statistic.txt 2>&1

# --- unload ------------------------------------------------------------------------
if modprobe -r ornic; then
	pass unload "rmmod ornic after the provider's contexts were closed"
else
	fail unload "modprobe -r ornic failed"
fi
exit 0
