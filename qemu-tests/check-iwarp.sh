#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The iwarp group of `make check`: two ornic NICs whose models run
# --link-layer iwarp, linked, in one guest (suites/iwarp.sh): the driver
# registers each as an iWARP RNIC, rdma_cm sets connections up through the
# device's TCP and MPA (accepted and rejected, private data checked both
# ways), with ornic and with siw; rping and ucmatose move data over them, and
# perftest (-R) between the two ornic NICs, its figures to iwarp-perf.txt
# and compare.txt; a hostile peer (suites/iwarp-peer.c) sends ornic bad
# input (suites/iwarp-bad.sh).  Model 0's capture must decode in tshark as MPA/DDP/RDMAP with
# no malformed frame, and every FPDU's CRC32c must be what python3-crcmod
# computes (tools/iwarp-crc-check.py).  One "PASS|FAIL|SKIP: iwarp/..." line per check into
# $RESULTS.  Runs inside the testbed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "check-iwarp.sh runs inside the testbed"

# shellcheck source=qemu-tests/check-guest-lib.sh
. "$here/check-guest-lib.sh"
TOOLS=$BUILD/tools
mkdir -p "$TOOLS"
if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$TOOLS/iwarp-cm" "$here/suites/iwarp-cm.c" \
	-lrdmacm -libverbs 2>"$TOOLS/iwarp-cm.log"; then
	record FAIL iwarp/build-iwarp-cm "$(head -n 5 "$TOOLS/iwarp-cm.log" | tr '\n' ' ')"
	exit 0
fi
if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$TOOLS/iwarp-peer" "$here/suites/iwarp-peer.c" \
	-lrdmacm -libverbs -lisal 2>"$TOOLS/iwarp-peer.log"; then
	record FAIL iwarp/build-iwarp-peer "$(head -n 5 "$TOOLS/iwarp-peer.log" | tr '\n' ' ')"
	exit 0
fi
if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -shared -fPIC -o "$TOOLS/connect-delay.so" \
	"$here/suites/connect-delay.c" -ldl 2>"$TOOLS/connect-delay.log"; then
	record FAIL iwarp/build-connect-delay "$(head -n 5 "$TOOLS/connect-delay.log" | tr '\n' ' ')"
	exit 0
fi
guest_inputs_built iwarp || exit 0

mdir=/tmp/iwarp-models
out=$RUNS/iwarp
rm -rf "$mdir"
mkdir -p "$out"
if ! MODEL_LINK_LAYER=iwarp models_start "$mdir" 2 link; then
	record FAIL iwarp/models-start "models did not start; see $mdir"
	models_stop >/dev/null
	exit 0
fi
sleep 0.5
mapfile -t margs < <(models_vm_args)
run_vm iwarp/vm- iwarp "$FLAVOUR" --timeout 900 "${margs[@]}" -- \
	env MODDIR="$MO" PROVIDER_DIR="$PDIR" /src/qemu-tests/suites/iwarp.sh "$TOOLS"
if why=$(models_stop); then
	record PASS iwarp/models-survive "both iWARP models alive after the suite, clean exit"
else
	record FAIL iwarp/models-survive "$why"
fi
cp "$mdir"/model*.log "$out/" 2>/dev/null

# What crossed the wire, judged by tshark: MPA request and reply frames
# (tshark flags revision 2 as unusual, a warning, never an error).  The
# hostile peer's connections (suites/iwarp-bad.sh) carry bad CRCs, bad
# headers and a segment outside the window on purpose: ports 7600-7699 are
# left out of the judgments below.
pcap=$mdir/model0.pcap
peer_ports=7600-7699
# Neither port in that range (tcp.port names both ports of a segment).
not_peer="!(tcp.port in {${peer_ports%-*}..${peer_ports#*-}})"
if [ ! -s "$pcap" ]; then
	record FAIL iwarp/pcap "model 0 wrote no capture"
else
	# RPC-over-RDMA's heuristic would claim Send payloads.
	ts=(tshark --disable-protocol rpcordma -r "$pcap")
	req=$("${ts[@]}" -Y 'iwarp_mpa.req' 2>"$out/tshark.err" | wc -l)
	rep=$("${ts[@]}" -Y 'iwarp_mpa.rep' 2>>"$out/tshark.err" | wc -l)
	rej=$("${ts[@]}" -Y 'iwarp_mpa.rep && iwarp_mpa.rej_flag == 1' 2>>"$out/tshark.err" | wc -l)
	rdmap=$("${ts[@]}" -Y 'iwarp_rdma' 2>>"$out/tshark.err" | wc -l)
	bad=$("${ts[@]}" -Y "(_ws.malformed || _ws.expert.severity == error) && $not_peer" \
		2>>"$out/tshark.err" | tee "$out/tshark-malformed.txt" | wc -l)
	sed -i '/Running as user "root"/d' "$out/tshark.err"
	if [ "$req" -gt 0 ] && [ "$rep" -ge "$req" ] && [ "$rej" -gt 0 ] && [ "$rdmap" -gt 0 ] &&
		[ "$bad" = 0 ] && [ ! -s "$out/tshark.err" ]; then
		record PASS iwarp/pcap-tshark-mpa "tshark decodes $req MPA requests and $rep replies ($rej rejecting) and $rdmap frames of MPA/DDP/RDMAP on model 0's wire, no malformed frame or error"
	else
		record FAIL iwarp/pcap-tshark-mpa "$req MPA requests, $rep replies ($rej rejecting), $rdmap RDMAP frames, $bad malformed/error (see $out/tshark-malformed.txt); $(head -c 300 "$out/tshark.err")"
	fi
	# The MPA variants of suites/iwarp.sh (ports 7490-7495): the revision
	# of the request and the C flags of request and reply as tshark reads
	# them ("PORT PAIR/NAME REV REQ-C REP-C"), and FPDUs after them.
	"${ts[@]}" -Y 'tcp.port in {7490..7495} && (iwarp_mpa.req || iwarp_mpa.rep)' \
		-T fields -e tcp.srcport -e tcp.dstport -e iwarp_mpa.rev -e iwarp_mpa.crc_flag \
		-e iwarp_mpa.key.req >"$out/mpa-variants.txt" 2>/dev/null
	"${ts[@]}" -Y 'tcp.port in {7490..7495} && iwarp_rdma' \
		-T fields -e tcp.srcport -e tcp.dstport >"$out/mpa-variants-rdmap.txt" 2>/dev/null
	while read -r port name want; do
		got=$(awk -v p="$port" '$1 == p || $2 == p' "$out/mpa-variants.txt" | sort -u |
			awk '{ c = ($4 == "1" || $4 == "True") ? 1 : 0 }
				$5 != "" { rev = $3; req = c } $5 == "" { rep = c }
				END { print rev, req, rep }')
		n=$(awk -v p="$port" '$1 == p || $2 == p' "$out/mpa-variants-rdmap.txt" | wc -l)
		if [ "$got" = "$want" ] && [ "$n" -gt 0 ]; then
			record PASS "iwarp/$name/pcap-mpa" "tshark: request revision ${want%% *}, C in request and reply ${want#* }, then $n RDMAP frames (port $port)"
		else
			record FAIL "iwarp/$name/pcap-mpa" "port $port: tshark reads revision, request C, reply C '$got', wanted '$want'; $n RDMAP frames"
		fi
	done <<-EOF
		7490 ornic-ornic/mpa-rev1-crc 1 1 1
		7491 ornic-ornic/mpa-rev2-nocrc 2 0 0
		7492 ornic-siw/mpa-rev1-crc 1 1 1
		7493 ornic-siw/mpa-rev1-nocrc 1 0 0
		7494 ornic-siw/mpa-rev2-nocrc 2 0 0
		7495 siw-ornic/mpa-rev2-nocrc 2 0 0
	EOF
	# A rejecting reply sent by ornic is followed by its FIN only after
	# the peer's ACK of the whole reply (hardware/ornic/iwarp-cm.rst,
	# IW_REJECT), judged from tshark's reading of each TCP stream: "N OK
	# BAD FRAMES..." where N counts ornic's rejects, OK and BAD those whose
	# FIN came after or before the ACK; a reject whose stream the peer
	# ended first has no FIN to judge.  siw's own rejects (10.0.5.2) are
	# siw's business.
	rejfin=$("${ts[@]}" -Y "(iwarp_mpa.rep || tcp.flags.fin == 1 || tcp.len == 0) && $not_peer" \
		-T fields -e tcp.stream -e frame.number -e ip.src -e tcp.flags.fin -e tcp.seq \
		-e tcp.len -e tcp.ack -e iwarp_mpa.rej_flag -E occurrence=f 2>/dev/null |
		awk -F'\t' -v siw=10.0.5.2 '
			function yes(v) { return v == "1" || v == "True" }
			{ s = $1 }
			yes($8) && $3 != siw { end[s] = $5 + $6; who[s] = $3; acked[s] = 0; n++ }
			!(s in end) { next }
			$3 != who[s] && $7 >= end[s] { acked[s] = 1 }
			$3 == who[s] && yes($4) {
				if (acked[s]) ok++; else { bad++; frames = frames " " $2 }
				delete end[s]
			}
			END { printf "%d %d %d%s\n", n, ok, bad, frames }')
	read -r rn rok rbad rframes <<<"$rejfin"
	if [ "${rn:-0}" -gt 0 ] && [ "$rbad" = 0 ]; then
		record PASS iwarp/pcap-reject-fin "tshark: $rn rejecting MPA replies from ornic; $rok followed by FIN after the peer's ACK of the whole reply, none before it, $((rn - rok)) ended by the peer first"
	else
		record FAIL iwarp/pcap-reject-fin "tshark: ${rn:-0} rejecting MPA replies from ornic, ${rbad:-0} followed by FIN before the peer's ACK of the reply (FIN in frames$rframes of $pcap)"
	fi
	# Every FPDU's CRC32c, recomputed by code that is not ornic's.
	if line=$(python3 "$here/tools/iwarp-crc-check.py" --self-test 2>&1) &&
		line=$(python3 "$here/tools/iwarp-crc-check.py" --skip-ports "$peer_ports" "$pcap" 2>&1); then
		record PASS iwarp/pcap-crcs "$line"
	else
		record FAIL iwarp/pcap-crcs "$(echo "$line" | tail -n 3 | tr '\n' ' ')"
	fi
	# The TCP streams as tshark's TCP analysis sees them from this one
	# wire, which every path between two ends crosses: an ACK of a segment
	# that never crossed it would be a TCP fault.  Gaps (a segment lost
	# or overtaken before the wire, as on siw's forwarded path),
	# out-of-order segments, retransmissions, duplicate ACKs and full
	# windows are TCP at work, counted.
	"${ts[@]}" -Y "tcp.analysis.flags && $not_peer" \
		-T fields -e tcp.analysis.ack_lost_segment -e tcp.analysis.lost_segment \
		-e tcp.analysis.retransmission -e tcp.analysis.fast_retransmission \
		-e tcp.analysis.duplicate_ack -e tcp.analysis.zero_window -e tcp.analysis.window_full \
		-e tcp.analysis.out_of_order -e frame.number -e ip.src -e tcp.srcport -e ip.dst -e tcp.dstport \
		-e tcp.seq -e tcp.len -E occurrence=f 2>/dev/null | tr '\t' ',' >"$out/tcp-analysis.txt"
	tcp_flag() { # tcp_flag COLUMN: frames with that analysis flag
		awk -F, -v c="$1" '$c != ""' "$out/tcp-analysis.txt" | wc -l
	}
	unseen=$(tcp_flag 1) gaps=$(tcp_flag 2)
	tcp_info="gaps $gaps, out of order $(tcp_flag 8), retransmissions $(tcp_flag 3) (fast $(tcp_flag 4)), duplicate ACKs $(tcp_flag 5), zero windows $(tcp_flag 6), full windows $(tcp_flag 7)"
	if [ "$unseen" = 0 ]; then
		record PASS iwarp/pcap-tcp-analysis "tshark's TCP analysis of every connection on model 0's wire: no ACK of an unseen segment; $tcp_info"
	else
		record FAIL iwarp/pcap-tcp-analysis "tshark's TCP analysis: $unseen ACKs of unseen segments; $tcp_info"
	fi
	tshark -r "$pcap" -c 2000 -w "$out/model0-head.pcap" 2>/dev/null
	tshark -r "$pcap" -Y 'tcp.port in {7490..7495}' -w "$out/mpa-variants.pcap" 2>/dev/null
fi

# --- the figures, ornic with ornic (reported, never judged) ------------------------
perf=$out/perf.txt
if [ -s "$perf" ]; then
	cp "$perf" "$(dirname "$RESULTS")/iwarp-perf.txt"
	awk '{ print "INFO: iwarp/figures/" $2 " " $1 " " ($2 ~ /_lat/ ? $7 " us typical" : $6 " Gb/s") }' "$perf" \
		>>"$(dirname "$RESULTS")/compare.txt"
fi
exit 0
