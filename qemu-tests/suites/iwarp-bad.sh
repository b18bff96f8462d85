# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Bad input from a hostile iWARP peer, for suites/iwarp.sh (sourced; needs
# CIP and the netns "siw" of siw_setup).  iwarp-peer's peer
# role runs on the kernel's TCP in netns siw and sends ornic_0 what no RNIC
# would; its client role is an rdma_cm client on ornic_0.  Each case is one
# connection, judged on both ends (iwarp-peer.c says how), and a bystander
# connection open through all of them must still move verified data.
# shellcheck shell=bash

# The cases' connections use TCP ports 7600 (7601 for stops-reading), so
# that check-iwarp.sh can leave their deliberately bad frames out of the
# capture's judgments: keep them within 7600-7699.
ORNIC_PEER_PORT=7600

# ornic_peer_bad TOOL: TOOL (iwarp-peer) runs the cases; one pass/fail line
# "ornic-peer/CASE" per case and one for the bystander; logs
# /out/ornic-peer.{peer,client}.log.
ornic_peer_bad() {
	local tool=$1 cases c pl cl ppid t0 t1 rc=0 prc=0
	local plog=/out/ornic-peer.peer.log clog=/out/ornic-peer.client.log
	cases=(bad-crc short-ulpdu ddp-version rdmap-version rdmap-opcode invalid-stag write-bounds
		read-bounds rst-mid-transfer out-of-window stops-reading)
	read -r t0 _ </proc/uptime
	ip netns exec siw timeout 180 "$tool" peer 10.0.5.2 "$ORNIC_PEER_PORT" \
		$((${#cases[@]} + 1)) vB >"$plog" 2>&1 &
	ppid=$!
	if ! wait_listen siw $((ORNIC_PEER_PORT + 1)); then
		kill "$ppid" 2>/dev/null
		fail ornic-peer/start "the peer did not listen: $(tail -n 2 "$plog" | tr '\n' ' ')"
		return
	fi
	timeout 170 "$tool" client 10.0.5.2 "$ORNIC_PEER_PORT" "$CIP" "${cases[@]}" \
		>"$clog" 2>&1 || rc=$?
	wait "$ppid" || prc=$?
	read -r t1 _ </proc/uptime
	for c in "${cases[@]}" bystander; do
		pl=$(grep -m1 "^peer $c " "$plog")
		cl=$(grep -m1 "^client $c " "$clog")
		if [[ $pl == "peer $c PASS "* && $cl == "client $c PASS "* ]]; then
			pass "ornic-peer/$c" "peer: ${pl#peer "$c" PASS }; client: ${cl#client "$c" PASS }"
		else
			fail "ornic-peer/$c" "peer: ${pl:-no verdict (status $prc) $(tail -n 1 "$plog")}; client: ${cl:-no verdict (status $rc) $(tail -n 1 "$clog")}"
		fi
	done
	echo "ornic-peer: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s for all cases"
}
