#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Two guests wired as two hosts would be, part of `make check`, run inside
# the testbed by check-testbed.sh with RESULTS, FLAVOUR and BUILD.  Guest a
# and guest b each get their own models; their ports meet over three links,
# each in private network namespaces of this host:
#   udp-lo     model a1 and b1 with udp: ports over 127.0.0.1 (netns 2g-lo)
#   udp-veth   model a2 and b2 with udp: ports across a veth pair between
#              netns 2g-na and 2g-nb, netem delay 5 ms and 1 % loss each way
#              when the host kernel has netem, and both models injecting
#              wire faults (--wire-faults $WIRE_FAULTS): the faults group,
#              faults/... lines
#   tap-rxe    model a3 with a tap: port and guest b's -netdev tap
#              virtio-net, both taps on a Linux bridge in netns 2g-tap
#              (guest b's QEMU runs there); rxe on that virtio-net in b
#   udp-iwarp  model a4 and b4 on iWARP ports (--link-layer iwarp), udp:
#              over 127.0.0.1 (netns 2g-lo): the iwarp group's NVMe-oF
#              between two ornic NICs, which needs two kernels
#   tap-siw    model a5 on an iWARP port with a tap: on the same bridge as
#              tap-rxe, and a second virtio-net of guest b with siw on it:
#              NVMe-oF between ornic and siw both ways
# suites/two-guests.sh runs in both guests (a drives, b serves).  A link
# whose host facility is missing (/dev/net/tun, bridge, netem) is reported
# as SKIP with the reason.  Results: interop/two-guests/...
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "check-twoguests.sh runs inside the testbed"

# shellcheck source=qemu-tests/check-guest-lib.sh
. "$here/check-guest-lib.sh"
P=interop/two-guests

guest_inputs_built $P || exit 0

# The verified workload of the faults group, built here.
fw=$BUILD/tools/faults-workload
mkdir -p "$BUILD/tools"
if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$fw" "$here/suites/faults-workload.c" \
	-lrdmacm -libverbs 2>"$BUILD/tools/faults-workload.log"; then
	record FAIL faults/build "$(head -n 5 "$BUILD/tools/faults-workload.log" | tr '\n' ' ')"
	fw=""
fi
WIRE_FAULTS=${ORNIC_WIRE_FAULTS:-loss=1%,reorder=1%,dup=0.5%,corrupt=0.1%}

mdir=/tmp/two-guests-models
share=$RUNS/two-guests-share
rm -rf "$mdir" "$share"
mkdir -p "$mdir" "$share"
NSS=()
# shellcheck disable=SC2329 # the EXIT trap calls it
cleanup() {
	local ns
	models_stop >/dev/null 2>&1
	for ns in "${NSS[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
}
trap cleanup EXIT
netns_new() { # netns_new NAME: a fresh network namespace with lo up
	ip netns del "$1" 2>/dev/null
	ip netns add "$1" && ip -n "$1" link set lo up && NSS+=("$1")
}

# --- the links ------------------------------------------------------------------------
links="" a_models=() b_models=() b_netns="" b_taps=()
MODEL_PIDS=() MODEL_SOCKETS=()
# Model i: a's models first; MACs must match suites/two-guests.sh.
if netns_new 2g-lo; then
	model_add "$mdir" 0 udp:127.0.0.1:47001,127.0.0.1:47002 02:00:00:00:0a:01 2g-lo
	model_add "$mdir" 1 udp:127.0.0.1:47002,127.0.0.1:47001 02:00:00:00:0b:01 2g-lo
	a_models+=("$mdir/model0.sock") b_models+=("$mdir/model1.sock")
	links+=" udp-lo"
	MODEL_LINK_LAYER=iwarp model_add "$mdir" 5 udp:127.0.0.1:47003,127.0.0.1:47004 02:00:00:00:0a:04 2g-lo
	MODEL_LINK_LAYER=iwarp model_add "$mdir" 6 udp:127.0.0.1:47004,127.0.0.1:47003 02:00:00:00:0b:04 2g-lo
	a_models+=("$mdir/model5.sock") b_models+=("$mdir/model6.sock")
	links+=" udp-iwarp"
else
	record SKIP $P/udp-lo "cannot create a network namespace"
fi

# Across a veth pair: the models' datagrams are routed between two network
# namespaces, with netem delay and loss when the host has netem (loss on a
# reliable connection is repaired by retransmission).  The underlay's MTU
# leaves room for 9000-byte frames plus the UDP/IP header.
why="" netem=none
if netns_new 2g-na && netns_new 2g-nb &&
	ip -n 2g-na link add va type veth peer name vb netns 2g-nb &&
	ip -n 2g-na addr add 192.168.71.1/24 dev va && ip -n 2g-nb addr add 192.168.71.2/24 dev vb &&
	ip -n 2g-na link set va mtu 9100 up && ip -n 2g-nb link set vb mtu 9100 up; then
	if why=$(tc -n 2g-na qdisc add dev va root netem delay 5ms loss 1% 2>&1 &&
		tc -n 2g-nb qdisc add dev vb root netem delay 5ms loss 1% 2>&1); then
		netem="delay 5ms loss 1%"
		record PASS $P/udp-veth/netem "netem $netem on both ends of the veth pair"
	else
		record SKIP $P/udp-veth/netem "tc netem is not available on this host ($why): the veth link runs without delay or loss"
	fi
	MODEL_WIRE_FAULTS[2]=$WIRE_FAULTS,seed=2
	MODEL_WIRE_FAULTS[3]=$WIRE_FAULTS,seed=3
	model_add "$mdir" 2 udp:192.168.71.1:47010,192.168.71.2:47010 02:00:00:00:0a:02 2g-na
	model_add "$mdir" 3 udp:192.168.71.2:47010,192.168.71.1:47010 02:00:00:00:0b:02 2g-nb
	a_models+=("$mdir/model2.sock") b_models+=("$mdir/model3.sock")
	links+=" udp-veth"
else
	record SKIP $P/udp-veth "cannot create a veth pair between two network namespaces"
fi

if [ ! -c /dev/net/tun ]; then
	record SKIP $P/tap-rxe "/dev/net/tun is missing on this host"
elif ! netns_new 2g-tap || ! why=$(ip -n 2g-tap link add br0 type bridge 2>&1); then
	record SKIP $P/tap-rxe "no Linux bridge on this host: $why"
else
	for t in tapm tapq tapw tapv; do
		ip -n 2g-tap tuntap add dev $t mode tap && ip -n 2g-tap link set $t master br0 &&
			ip -n 2g-tap link set $t mtu 9000 up || why+=" $t"
	done
	if [ -n "$why" ] || ! ip -n 2g-tap link set br0 up; then
		record FAIL $P/tap-rxe "cannot set up the taps ($why) and the bridge in netns 2g-tap"
	else
		model_add "$mdir" 4 tap:tapm 02:00:00:00:0a:03 2g-tap
		MODEL_LINK_LAYER=iwarp model_add "$mdir" 7 tap:tapw 02:00:00:00:0a:05 2g-tap
		a_models+=("$mdir/model4.sock" "$mdir/model7.sock")
		b_netns=2g-tap b_taps+=(--virtio-net-tap "tapq,52:54:00:00:0b:03" --virtio-net-tap "tapv,52:54:00:00:0b:05")
		links+=" tap-rxe tap-siw"
	fi
fi
if [ -z "$links" ]; then
	record FAIL $P/links "no link could be built"
	exit 0
fi
if ! models_wait; then
	record FAIL $P/models-start "a model did not start; see $mdir"
	exit 0
fi

# --- the guests -------------------------------------------------------------------------
vm_args() { # vm_args SOCKET...: vm.sh options attaching these models
	local s
	for s in "$@"; do
		printf -- '--vfio-user\n%s\n' "$s"
	done
}
mapfile -t aargs < <(vm_args "${a_models[@]}")
mapfile -t bargs < <(vm_args "${b_models[@]}")
[ -z "$b_netns" ] || bargs+=(--netns "$b_netns" "${b_taps[@]}")
genv=(env MODDIR="$MO" PROVIDER_DIR="$PDIR" LINKS="${links# }" NETEM="$netem"
	WIRE_FAULTS="$WIRE_FAULTS" FAULTS_TOOL="$fw" FAULTS_NVME="${ORNIC_FAULTS_NVME:-1}"
	TOOL_TIMEOUT=$((240 * ${ORNIC_TIMEOUT_SCALE:-1})))
start=$(date +%s)
"$here/vm.sh" --name "$RUN_NAME/two-guests-b" --flavour "$FLAVOUR" --allow-splat --timeout 1500 \
	--share "share,$share" "${bargs[@]}" -- "${genv[@]}" /src/qemu-tests/suites/two-guests.sh b &
bpid=$!
arc=0
"$here/vm.sh" --name "$RUN_NAME/two-guests-a" --flavour "$FLAVOUR" --allow-splat --timeout 1500 \
	--share "share,$share" "${aargs[@]}" -- "${genv[@]}" /src/qemu-tests/suites/two-guests.sh a || arc=$?
# Guest b ends when a says so; if a died first, tell b now.
touch "$share/stop"
brc=0
wait "$bpid" || brc=$?
say "two guests: $(($(date +%s) - start)) s"
guest_results $P/vm-a "$RUNS/two-guests-a" "$arc"
guest_results $P/vm-b "$RUNS/two-guests-b" "$brc"
[ -s "$RUNS/two-guests-a/perf.txt" ] && cp "$RUNS/two-guests-a/perf.txt" "$(dirname "$RESULTS")/two-guests-perf.txt"

if why=$(models_stop); then
	record PASS $P/models-survive "all $(echo "$links" | wc -w) links' models are alive after the run, clean exit"
else
	record FAIL $P/models-survive "$why"
fi
cp "$mdir"/model*.log "$RUNS/two-guests-a/" 2>/dev/null
# What the faulty link's models injected (each logs it when it stops).
if [[ " $links " == *" udp-veth "* ]]; then
	inj=$(grep -h -o 'wire faults injected: .*' "$mdir/model2.log" "$mdir/model3.log" | tr '\n' ';')
	if [ -n "$inj" ]; then
		record PASS faults/injected "guest a's model: ${inj%%;*}; guest b's: $(echo "$inj" | cut -d';' -f2)"
	else
		record FAIL faults/injected "the faulty link's models logged no injected faults"
	fi
fi
# rxe's frames and ornic's as the tap model saw them: scapy recomputes
# every ICRC.
if [[ " $links " == *" tap-rxe "* ]]; then
	if line=$(python3 "$here/tools/icrc-check.py" "$mdir/model4.pcap" 2>&1); then
		record PASS $P/tap-rxe/pcap-icrc-scapy "ornic's and rxe's frames on the bridge: ${line#PASS: }"
	else
		record FAIL $P/tap-rxe/pcap-icrc-scapy "$(echo "$line" | tail -n 3 | tr '\n' ' ')"
	fi
fi
exit 0
