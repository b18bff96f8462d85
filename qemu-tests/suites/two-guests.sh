#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# two-guests.sh a|b: one of two guests that are wired together as two hosts
# would be (check-twoguests.sh starts them and their models).  LINKS names
# the links the host could build, each with its own subnet:
#   udp-lo     ornic (a) -- udp: over 127.0.0.1 -- ornic (b)
#   udp-veth   ornic (a) -- udp: across a veth pair (NETEM: the netem
#              delay and loss on it, "none" without netem) -- ornic (b)
#   tap-rxe    ornic (a) -- tap: + Linux bridge + QEMU tap -- virtio-net (b)
#              with rxe on it
#   udp-iwarp  ornic (a) -- udp: over 127.0.0.1 -- ornic (b), both on
#              iWARP ports
#   tap-siw    ornic on an iWARP port (a) -- tap: + the same bridge --
#              a second virtio-net (b) with siw on it
# Guest b sets up its ends, says so in /share/b-ready and then runs the
# commands guest a submits (remote_agent, interop-lib.sh) until
# /share/stop.  Guest a drives: for every link it runs the stock tools
# between the guests (pingpongs, perftest, rping and rdma_cm tools,
# NVMe over Fabrics), and finally both guests judge their ornic counters.
# MODDIR, PROVIDER_DIR and TOOL_TIMEOUT come from the host.
# shellcheck disable=SC2317,SC2329
set -uo pipefail
ROLE=${1:?usage: two-guests.sh a|b}
SUITE=interop/two-guests
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh
. /src/qemu-tests/suites/datapath-lib.sh
. /src/qemu-tests/suites/interop-lib.sh
PERF=/out/perf.txt
: >"$PERF"
ITERS=${ITERS:-50}
T=${TOOL_TIMEOUT:-240}
LINKS=${LINKS:-udp-lo udp-veth tap-rxe}
REMOTE_DIR=/share

# link_end LINK ROLE: "MAC IP KIND" of ROLE's end of LINK.
link_end() {
	case $1-$2 in
	udp-lo-a) echo 02:00:00:00:0a:01 10.10.0.1 ornic ;;
	udp-lo-b) echo 02:00:00:00:0b:01 10.10.0.2 ornic ;;
	udp-veth-a) echo 02:00:00:00:0a:02 10.11.0.1 ornic ;;
	udp-veth-b) echo 02:00:00:00:0b:02 10.11.0.2 ornic ;;
	tap-rxe-a) echo 02:00:00:00:0a:03 10.12.0.1 ornic ;;
	tap-rxe-b) echo 52:54:00:00:0b:03 10.12.0.2 rxe ;;
	udp-iwarp-a) echo 02:00:00:00:0a:04 10.14.0.1 ornic-iw ;;
	udp-iwarp-b) echo 02:00:00:00:0b:04 10.14.0.2 ornic-iw ;;
	tap-siw-a) echo 02:00:00:00:0a:05 10.13.0.1 ornic-iw ;;
	tap-siw-b) echo 52:54:00:00:0b:05 10.13.0.2 siw ;;
	esac
}

netdev_with_mac() { # netdev_with_mac MAC
	local f
	for f in /sys/class/net/*/address; do
		[ "$(cat "$f")" = "$1" ] && { basename "$(dirname "$f")"; return 0; }
	done
	return 1
}
ibdev_of_netdev() { # ibdev_of_netdev ND: the ib_device whose port 1 is on ND
	rdma link show | awk -v nd="$1" '$NF == nd { sub("/1$", "", $2); print $2; exit }'
}

# setup_ends: bring up this guest's end of every link; prints "LINK IBDEV"
# lines into /out/ends.txt.
setup_ends() {
	local link mac ip kind nd dev n=0 want=0
	for link in $LINKS; do
		read -r _ _ kind <<<"$(link_end "$link" "$ROLE")"
		[[ $kind == ornic* ]] && want=$((want + 1))
	done
	install_modules "${MODDIR:?}" || { fail "$ROLE/setup" "cannot install modules"; return 1; }
	if ! cp "${PROVIDER_DIR:?}/libornic-rdmav34.so" "$LIBDIR/" ||
		! cp "$PROVIDER_DIR/ornic.driver" /etc/libibverbs.d/; then
		fail "$ROLE/setup" "cannot install the provider"
		return 1
	fi
	if ! modprobe ornic || ! wait_for have_devs "$want"; then
		fail "$ROLE/setup" "modprobe ornic, $want NICs: $(dmesg | grep -i ornic | tail -n 3 | tr '\n' ' ')"
		return 1
	fi
	# Two links share one bridge: each netdev answers ARP for its own
	# addresses only, so no frame of one link lands on the other's NIC.
	sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2
	: >/out/ends.txt
	for link in $LINKS; do
		read -r mac ip kind <<<"$(link_end "$link" "$ROLE")"
		if ! nd=$(netdev_with_mac "$mac"); then
			fail "$ROLE/setup" "$link: no netdev with MAC $mac"
			return 1
		fi
		ip addr add "$ip/24" dev "$nd"
		ip link set "$nd" mtu 1500 up
		if [ "$kind" = rxe ]; then
			if ! modprobe rdma_rxe || ! rdma link add rxe0 type rxe netdev "$nd"; then
				fail "$ROLE/setup" "$link: rxe on $nd: $(dmesg | tail -n 3 | tr '\n' ' ')"
				return 1
			fi
		elif [ "$kind" = siw ]; then
			if ! modprobe siw || ! rdma link add siw0 type siw netdev "$nd"; then
				fail "$ROLE/setup" "$link: siw on $nd: $(dmesg | tail -n 3 | tr '\n' ' ')"
				return 1
			fi
		fi
		for _ in $(seq 20); do
			dev=$(ibdev_of_netdev "$nd")
			[ -n "$dev" ] && break
			sleep 0.5
		done
		# An iWARP port has one GID, its MAC: rdma_cm finds it by netdev.
		if [ -z "$dev" ] || ! wait_for port_active "$dev" ||
			{ [ "$kind" != siw ] && [ "$kind" != ornic-iw ] && ! wait_gid "$dev" "$ip"; }; then
			fail "$ROLE/setup" "$link: ${dev:-no ib_device} on $nd: port not ACTIVE or no GID for $ip"
			return 1
		fi
		echo "$link $dev $nd" >>/out/ends.txt
		n=$((n + 1))
	done
	pass "$ROLE/setup" "$(awk '{ printf "%s: %s (%s); ", $1, $2, $3 }' /out/ends.txt)"
}

# judge_counters: this guest's ornic devices saw RoCE traffic and no frame
# with a bad ICRC or header; retransmissions are reported (netem drops).
judge_counters() {
	local link dev nd f v bad suite
	while read -r link dev nd; do
		# iWARP ports carry TCP, which these RoCE counters do not count.
		[[ $dev == ornic* && $link != udp-iwarp && $link != tap-siw ]] || continue
		f=/out/counters-$ROLE-$link.txt
		rdma statistic show link "$dev/1" >"$f" 2>&1
		bad="" suite=$SUITE
		if [ "$link" = udp-veth ]; then
			# Injected corruption must be caught here, never judged.
			suite=faults
		else
			for v in rx_bad_icrc rx_bad_header; do
				[ "$(counter_value "$f" "$v")" = 0 ] || bad+=" $v=$(counter_value "$f" "$v")"
			done
		fi
		[ "$(counter_value "$f" rx_rdma_packets)" -gt 0 ] 2>/dev/null || bad+=" no RoCE packet received"
		if [ -z "$bad" ]; then
			SUITE=$suite pass "$ROLE/$link/counters" "$dev: sent $(counter_value "$f" tx_rdma_packets) / received $(counter_value "$f" rx_rdma_packets) RoCE packets; bad ICRC $(counter_value "$f" rx_bad_icrc), bad header $(counter_value "$f" rx_bad_header); psn_errors $(counter_value "$f" rx_psn_errors), retransmits $(counter_value "$f" retransmits), timeouts $(counter_value "$f" timeouts), naks_sent $(counter_value "$f" naks_sent), rnr_naks $(counter_value "$f" rnr_naks)"
		else
			SUITE=$suite fail "$ROLE/$link/counters" "$dev:$bad"
		fi
	done </out/ends.txt
}

mkdir -p /share
if ! mount -t 9p -o trans=virtio,version=9p2000.L,cache=none share /share; then
	fail "$ROLE/setup" "cannot mount the shared directory"
	exit 1
fi

# --- guest b: its ends, then the agent --------------------------------------------------
if [ "$ROLE" = b ]; then
	if setup_ends; then
		cp /out/ends.txt /share/b-ready.tmp && mv /share/b-ready.tmp /share/b-ready
		remote_agent
		judge_counters
	else
		grep "^FAIL" "$RESULTS" | tail -n 1 >/share/b-failed
	fi
	exit 0
fi

# --- guest a: the tests -----------------------------------------------------------------
setup_ends || { echo "setup" >/share/stop; exit 1; }
for _ in $(seq 1200); do
	[ -e /share/b-ready ] || [ -e /share/b-failed ] && break
	sleep 0.5
done
if [ ! -e /share/b-ready ]; then
	fail b/ready "guest b did not set up its ends: $(cat /share/b-failed 2>/dev/null || echo 'no answer in 600 s')"
	touch /share/stop
	exit 1
fi
pass b/ready "guest b: $(awk '{ printf "%s: %s (%s); ", $1, $2, $3 }' /share/b-ready)"

# direction LINK a-b|b-a NAME: client on guest a (a-b) or b (b-a) over
# LINK; results are LINK/NAME/<test>.
direction() {
	local ac bc
	ac=$(awk -v l="$1" '$1 == l { print $2 }' /out/ends.txt)
	bc=$(awk -v l="$1" '$1 == l { print $2 }' /share/b-ready)
	read -r _ AIP _ <<<"$(link_end "$1" a)"
	read -r _ BIP _ <<<"$(link_end "$1" b)"
	DIR=$1/$3 SFX=""
	mkdir -p "/out/$1"
	if [ "$2" = a-b ]; then
		CDEV=$ac CIP=$AIP CNS="" SDEV=$bc SIP=$BIP SNS=@b
	else
		CDEV=$bc CIP=$BIP CNS=@b SDEV=$ac SIP=$AIP SNS=""
	fi
}

# link_up LINK: plain IP first, so a failure there is the link, not RDMA.
link_up() {
	local bip
	read -r _ bip _ <<<"$(link_end "$1" b)"
	if ping -c 2 -W 5 "$bip" >"/out/ping-$1.log" 2>&1; then
		pass "$1/ping" "IPv4 to guest b ($bip): $(tail -n 1 "/out/ping-$1.log")"
	else
		fail "$1/ping" "no IPv4 to guest b ($bip): $(tail -n 2 "/out/ping-$1.log" | tr '\n' ' ')"
		return 1
	fi
}

# NVMe-oF ports: one per test, unique in each guest.
nvme_port=10

# The subsets are short: every tool here also runs in the datapath and
# interop groups, with more variants; this group shows that the links
# carry them between two hosts.
udp_lo() {
	link_up udp-lo || return
	direction udp-lo a-b a-b
	pingpong rc_pingpong ibv_rc_pingpong 4 "$ITERS x 4096 B, data checked" -c -n "$ITERS" -s 4096
	pingpong ud_pingpong ibv_ud_pingpong 4 "$ITERS x 512 B, data checked" -c -n "$ITERS" -s 512
	perf write_bw ib_write_bw -s 65536 -n "$ITERS" --report_gbits
	perf read_bw ib_read_bw -s 65536 -n "$ITERS" --report_gbits
	perf send_lat ib_send_lat -s 2 -n "$ITERS"
	rping_test
	nvmeof nvmeof $((nvme_port += 1))
	direction udp-lo b-a b-a
	pingpong rc_pingpong ibv_rc_pingpong 4 "$ITERS x 4096 B, data checked" -c -n "$ITERS" -s 4096
	perf write_bw ib_write_bw -s 65536 -n "$ITERS" --report_gbits
}

rping_test() {
	local t0=$SECONDS
	if pair rping 7471 cm rping -s -a "$SIP" -p 7471 -V -C 20 -S 4096 -- \
		-c -a "$SIP" -p 7471 -V -C 20 -S 4096; then
		pass "$DIR/rping" "20 pings of 4096 B over rdma_cm, every byte verified (-V), $((SECONDS - t0)) s"
	else
		fail "$DIR/rping" "$(tail_of rping)"
	fi
}

# The faults group: both models of this link lose, reorder, duplicate and
# corrupt frames (WIRE_FAULTS), with netem on the veth pair when the host
# has it.  UD datagrams would be lost for good (ud_pingpong would wait
# forever): only reliable connections run here, every byte checked --
# about 270 MiB in all.  Results are faults/...
udp_veth() {
	local SUITE=faults t0 out
	link_up udp-veth || return
	direction udp-veth a-b ornic-ornic
	pingpong rc_pingpong ibv_rc_pingpong 4 "200 x 64 KiB each way under $WIRE_FAULTS (netem: ${NETEM:-none}), data checked" -c -n 200 -s 65536
	t0=$SECONDS
	if pair rping 7471 cm rping -s -a "$SIP" -p 7471 -V -C 100 -S 16384 -- \
		-c -a "$SIP" -p 7471 -V -C 100 -S 16384; then
		pass "$DIR/rping" "100 pings of 16 KiB over rdma_cm, every byte verified (-V), $((SECONDS - t0)) s"
	else
		fail "$DIR/rping" "$(tail_of rping)"
	fi
	if [ -n "${FAULTS_TOOL:-}" ]; then
		t0=$SECONDS
		if pair workload 7480 cm "$FAULTS_TOOL" -s "$SIP" 7480 -- -c "$SIP" 7480 240 &&
			out=$(grep -m1 '^verified' "$(log workload client)"); then
			pass "$DIR/workload" "RDMA WRITE + READ back, SEND and atomics in 1 MiB chunks: $out, $((SECONDS - t0)) s"
		else
			fail "$DIR/workload" "$(tail_of workload)"
		fi
	fi
	# NVMe-oF: the target READs the host's pages with several READs
	# outstanding, each scattered over many SGEs, and answers with
	# SEND_WITH_INV; FAULTS_NVME=0 (ORNIC_FAULTS_NVME=0 on the host) skips it.
	if [ "${FAULTS_NVME:-1}" = 1 ]; then
		NVME_MIB=32 nvmeof nvmeof $((nvme_port += 1))
	fi
}

# ornic and rxe across the bridge: the interop group runs the whole tool
# list between them; here the verbs and rdma_cm basics, and NVMe over
# Fabrics, which needs the two stacks in different kernels.
tap_rxe() {
	local d
	link_up tap-rxe || return
	for d in a-b:ornic-rxe b-a:rxe-ornic; do
		direction tap-rxe "${d%%:*}" "${d#*:}"
		pingpong rc_pingpong ibv_rc_pingpong 4 "$ITERS x 4096 B, data checked" -c -n "$ITERS" -s 4096
		perf write_bw ib_write_bw -s 65536 -n "$ITERS" --report_gbits
		rping_test
		nvmeof nvmeof $((nvme_port += 1))
	done
}

# NVMe over Fabrics on iWARP: the iwarp group's guest has one kernel, and
# the kernel's initiator and target cannot meet through the device there.
udp_iwarp() {
	local SUITE=iwarp
	link_up udp-iwarp || return
	direction udp-iwarp a-b ornic-ornic
	rping_test
	nvmeof nvmeof $((nvme_port += 1))
}

tap_siw() {
	local SUITE=iwarp d
	link_up tap-siw || return
	for d in a-b:ornic-siw b-a:siw-ornic; do
		direction tap-siw "${d%%:*}" "${d#*:}"
		rping_test
		nvmeof nvmeof $((nvme_port += 1))
	done
}

for link in $LINKS; do
	"${link//-/_}"
done
judge_counters
touch /share/stop
exit 0
