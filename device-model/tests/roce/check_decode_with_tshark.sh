#!/bin/sh
# tshark decodes every sample frame as RoCE with the opcode we built and finds nothing
# malformed (the 25 RC/UD opcodes, the 12 of UC and the 23 of XRC).
# usage: check_decode_with_tshark.sh WRITE_SAMPLE_PCAP_BINARY
# Exit 77 (skipped) without tshark.
set -eu
if ! command -v tshark >/dev/null 2>&1; then
  echo "tshark not installed: skipped"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$1" "$work/roce.pcap"

# SEND payloads would otherwise be dissected as RPC-over-RDMA and flagged as malformed.
tshark -r "$work/roce.pcap" -T fields -e frame.number -e infiniband.bth.opcode \
  -e _ws.malformed -e _ws.expert --disable-protocol rpcordma >"$work/fields.txt" \
  2>"$work/stderr.txt" || { cat "$work/stderr.txt"; exit 1; }

frames=$(wc -l <"$work/fields.txt")
missing=$(awk -F'\t' '$2 == ""' "$work/fields.txt" | wc -l)
malformed=$(awk -F'\t' '$3 != ""' "$work/fields.txt" | wc -l)
opcodes=$(cut -f2 "$work/fields.txt" | sort -u | wc -l)
echo "$frames frames, $opcodes distinct opcodes, $missing without BTH, $malformed malformed"
if [ "$frames" -eq 0 ] || [ "$missing" -ne 0 ] || [ "$malformed" -ne 0 ] || [ "$opcodes" -ne 62 ]; then
  awk -F'\t' '$2 == "" || $3 != ""' "$work/fields.txt" | head -20
  exit 1
fi
