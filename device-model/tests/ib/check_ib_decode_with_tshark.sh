#!/bin/sh
# tshark decodes every sample InfiniBand packet (LINKTYPE_INFINIBAND) with the LRH, the
# opcode we built and, for global packets, the GRH, and finds nothing malformed.
# usage: check_ib_decode_with_tshark.sh WRITE_SAMPLE_IB_PCAP_BINARY
# Exit 77 (skipped) without tshark.
set -eu
if ! command -v tshark >/dev/null 2>&1; then
  echo "tshark not installed: skipped"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$1" "$work/ib.pcap"

# SEND payloads would otherwise be dissected as RPC-over-RDMA and flagged as malformed.
tshark -r "$work/ib.pcap" -T fields -e frame.number -e infiniband.lrh.dlid \
  -e infiniband.bth.opcode -e infiniband.grh.dgid -e _ws.malformed -e _ws.expert \
  --disable-protocol rpcordma >"$work/fields.txt" 2>"$work/stderr.txt" ||
  { cat "$work/stderr.txt"; exit 1; }

packets=$(wc -l <"$work/fields.txt")
no_lrh=$(awk -F'\t' '$2 == ""' "$work/fields.txt" | wc -l)
no_bth=$(awk -F'\t' '$3 == ""' "$work/fields.txt" | wc -l)
global=$(awk -F'\t' '$4 != ""' "$work/fields.txt" | wc -l)
malformed=$(awk -F'\t' '$5 != ""' "$work/fields.txt" | wc -l)
opcodes=$(cut -f3 "$work/fields.txt" | sort -u | wc -l)
echo "$packets packets ($global with a GRH), $opcodes distinct opcodes, $no_lrh without LRH," \
  "$no_bth without BTH, $malformed malformed"
if [ "$packets" -eq 0 ] || [ "$no_lrh" -ne 0 ] || [ "$no_bth" -ne 0 ] ||
  [ "$malformed" -ne 0 ] || [ "$opcodes" -ne 62 ] || [ "$global" -ne $((packets / 2)) ]; then
  awk -F'\t' '$2 == "" || $3 == "" || $5 != ""' "$work/fields.txt" | head -20
  exit 1
fi
