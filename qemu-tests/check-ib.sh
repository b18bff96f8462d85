#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The InfiniBand part of `make check`, run inside the testbed by
# check-testbed.sh with RESULTS, FLAVOUR and BUILD.  Uses what the model,
# driver and provider groups built.  One guest, four ornic models started
# with --link-layer ib, linked in two back-to-back pairs: subnet A (models 0
# and 1, a clean wire) and subnet B (models 2 and 3, a wire that loses and
# corrupts packets).  suites/ib.sh runs OpenSM, the IB diagnostics, verbs
# by LID, partitions and Q_Keys, refused MADs, a standby SM, SM and device
# restarts, and rdma-core's pyverbs suite on an InfiniBand port
# (ORNIC_PYVERBS_MODULES picks its modules, as for the pyverbs group).
# Afterwards the captures are judged by code that is not ornic's:
# tshark decodes subnet A's, python3-crcmod recomputes every ICRC and VCRC
# (tools/ib-crc-check.py), and on subnet B the packets it finds corrupted
# are the ones the receiving model counted as bad.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "check-ib.sh runs inside the testbed"

# shellcheck source=qemu-tests/check-guest-lib.sh
. "$here/check-guest-lib.sh"
TOOLS=$BUILD/tools
mkdir -p "$TOOLS"

# --- what the guest needs -------------------------------------------------------
for t in "ib-keys -libverbs" "ib-mad-neg -libumad"; do
	read -r name lib <<<"$t"
	if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$TOOLS/$name" \
		"$here/suites/$name.c" "$lib" 2>"$TOOLS/$name.log"; then
		record FAIL "ib/build-$name" "$(head -n 5 "$TOOLS/$name.log" | tr '\n' ' ')"
		exit 0
	fi
done
pyroot=$BUILD/pyverbs-ib
if ! why=$(pyverbs_unpack "$pyroot"); then
	record FAIL ib/pyverbs-suite "$why"
	exit 0
fi
guest_inputs_built ib || exit 0

# --- the guest --------------------------------------------------------------------
mdir=/tmp/ib-models
out=$RUNS/ib
rm -rf "$mdir"
mkdir -p "$out"
# Subnet B's wire: each direction loses 0.5 % and flips a bit in 1 %.
MODEL_WIRE_FAULTS[2]="loss=0.5%,corrupt=1%,seed=2"
MODEL_WIRE_FAULTS[3]="loss=0.5%,corrupt=1%,seed=3"
if ! MODEL_LINK_LAYER=ib models_start "$mdir" 4 link; then
	record FAIL ib/models-start "models did not start; see $mdir"
	models_stop >/dev/null
	exit 0
fi
sleep 0.5
mapfile -t margs < <(models_vm_args)
run_vm ib/vm- ib "$FLAVOUR" --timeout 4800 "${margs[@]}" -- \
	env MODDIR="$MO" PROVIDER_DIR="$PDIR" PYVERBS_ROOT="$pyroot" PYVERBS_MODULES="${ORNIC_PYVERBS_MODULES:-}" \
	/src/qemu-tests/suites/ib.sh "$TOOLS"
if why=$(models_stop); then
	record PASS ib/models-survive "all four models alive after the suite, clean exit"
else
	record FAIL ib/models-survive "$why"
fi
cp "$mdir"/model*.log "$out/" 2>/dev/null

# --- the captures -----------------------------------------------------------------
if line=$(python3 "$here/tools/ib-crc-check.py" --self-test 2>&1); then
	record PASS ib/crc-check-self-test "${line##*$'\n'}"
else
	record FAIL ib/crc-check-self-test "$(echo "$line" | tail -n 3 | tr '\n' ' ')"
fi
pcap=$mdir/model0.pcap
if [ ! -s "$pcap" ]; then
	record FAIL ib/pcap "model 0 wrote no capture"
else
	# Wireshark guesses upper protocols from RDMA payloads (see
	# check-datapath.sh); the packets are what is judged.
	heur=()
	while read -r h; do
		heur+=(--disable-heuristic "$h")
	done < <(tshark -G heuristic-decodes 2>/dev/null | awk '$1 == "infiniband.payload" { print $5 }')
	total=$(tshark -r "$pcap" 2>"$out/tshark.err" | wc -l)
	ib=$(tshark "${heur[@]}" -r "$pcap" -Y 'infiniband.lrh' 2>>"$out/tshark.err" | wc -l)
	mads=$(tshark "${heur[@]}" -r "$pcap" -Y 'infiniband.mad' 2>>"$out/tshark.err" | wc -l)
	malformed=$(tshark "${heur[@]}" -r "$pcap" -Y '_ws.malformed || _ws.expert.severity == error' \
		2>>"$out/tshark.err" | tee "$out/tshark-malformed.txt" | wc -l)
	sed -i '/Running as user "root"/d' "$out/tshark.err"
	if [ "$ib" -gt 0 ] && [ "$ib" = "$total" ] && [ "$mads" -gt 0 ] && [ "$malformed" = 0 ] &&
		[ ! -s "$out/tshark.err" ]; then
		record PASS ib/pcap-tshark "$ib of $total packets decode as InfiniBand (LRH), $mads of them MADs, none malformed"
	else
		record FAIL ib/pcap-tshark "$ib InfiniBand, $mads MADs of $total packets, $malformed malformed/error (see $out/tshark-malformed.txt); $(head -c 300 "$out/tshark.err")"
	fi
	if line=$(python3 "$here/tools/ib-crc-check.py" "$pcap" 2>&1); then
		record PASS ib/pcap-crcs "$(echo "$line" | head -n 1)"
	else
		record FAIL ib/pcap-crcs "$(echo "$line" | head -n 4 | tr '\n' ' ')"
	fi
	# mckey over IPoIB (suites/ib.sh): 20 UD datagrams of 1000 bytes to the
	# multicast LID the SA assigned to the group, DQPN 0xffffff.
	mc=$(tshark "${heur[@]}" -r "$pcap" -T fields -e infiniband.lrh.dlid \
		-Y 'infiniband.lrh.dlid >= 0xc000 && infiniband.lrh.dlid < 0xffff && infiniband.bth.destqp == 0xffffff && frame.len > 1000' \
		2>/dev/null | sort | uniq -c | sort -rn | head -n 1)
	read -r n mlid <<<"$mc"
	if [ "${n:-0}" -ge 20 ]; then
		record PASS ib/pcap-multicast-mlid "tshark: $n UD datagrams of over 1000 bytes to multicast LID $mlid (DQPN 0xffffff)"
	else
		record FAIL ib/pcap-multicast-mlid "tshark finds ${n:-no} large datagrams to a multicast LID: '$mc'"
	fi
	tshark -r "$pcap" -c 2000 -w "$out/model0-head.pcap" 2>/dev/null
fi
# Subnet B: the packets model 2 received corrupted are in its capture (the
# capture sits outside the faulty wire); the outside CRC code must find as
# many wrong packets as model 2's port dropped for a bad VCRC or a bad LRH,
# read by the guest (rdma statistic) once subnet B fell silent.
pcap=$mdir/model2.pcap
counters=$out/faulty-b0-counters.txt
if read -r total wrong < <(python3 "$here/tools/ib-crc-check.py" --count-wrong "$pcap" 2>&1) &&
	[ -s "$counters" ]; then
	dropped=$(awk '{ for (i = 1; i < NF; i++) if ($i == "rx_bad_vcrc" || $i == "rx_bad_lrh") n += $(i + 1) } END { print n + 0 }' "$counters")
	if [ "$wrong" -gt 0 ] && [ "$wrong" = "$dropped" ]; then
		record PASS ib/faulty-wire-crcs "$wrong of $total packets in model 2's capture fail crcmod's CRCs; its port dropped $dropped for a bad VCRC or LRH"
	else
		record FAIL ib/faulty-wire-crcs "crcmod finds $wrong wrong of $total; model 2's port counted $dropped"
	fi
else
	record FAIL ib/faulty-wire-crcs "no capture of model 2 or no counters from the guest: ${total:-} ${wrong:-}"
fi
# --- the figures, next to RoCEv2's from the same run (reported, never judged) ------
perf=$out/perf.txt
if [ -s "$perf" ]; then
	cp "$perf" "$(dirname "$RESULTS")/ib-perf.txt"
	roce=$(dirname "$RESULTS")/datapath-perf.txt
	while read -r kind test row; do
		[ "$kind" = ib ] || { echo "INFO: ib/figures/$kind $test $row"; continue; }
		r=$(awk -v t="$test" '$1 == "ornic" && $2 == t { $1 = $2 = ""; print; exit }' "$roce" 2>/dev/null)
		case $test in
		*_bw*) col=4 unit="Gb/s" ;;
		*) col=5 unit="us typical" ;;
		esac
		echo "INFO: ib/figures/$test InfiniBand $(awk -v c=$col '{ print $c }' <<<"$row") $unit${r:+, RoCEv2 $(awk -v c=$col '{ print $c }' <<<"$r") $unit}"
	done <"$perf" >>"$(dirname "$RESULTS")/compare.txt"
fi
exit 0
