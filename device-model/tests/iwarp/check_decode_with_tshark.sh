#!/bin/sh
# tshark decodes the sample iWARP conversation: the MPA request and reply, then every FPDU as
# MPA with a good CRC carrying DDP and RDMAP, all eight RDMAP opcodes, nothing malformed and no
# expert note other than the one about MPA revision 2 (and TCP's on its handshake).
# usage: check_decode_with_tshark.sh WRITE_SAMPLE_STREAM_BINARY
# Exit 77 (skipped) without tshark.
set -eu
if ! command -v tshark >/dev/null 2>&1; then
  echo "tshark not installed: skipped"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$1" "$work/iwarp.pcap"

# Send payloads would otherwise be dissected as RPC-over-RDMA and flagged as malformed.
tshark -r "$work/iwarp.pcap" --disable-protocol rpcordma -T fields -E occurrence=f \
  -e frame.number -e iwarp_mpa.req -e iwarp_mpa.rep -e iwarp_mpa.fpdu -e iwarp_rdma.opcode \
  -e iwarp_ddp.dv -e _ws.malformed -e _ws.expert.message >"$work/fields.txt" \
  2>"$work/stderr.txt" || { cat "$work/stderr.txt"; exit 1; }
tshark -r "$work/iwarp.pcap" --disable-protocol rpcordma -O iwarp_mpa >"$work/verbose.txt" \
  2>>"$work/stderr.txt" || { cat "$work/stderr.txt"; exit 1; }

requests=$(awk -F'\t' '$2 != ""' "$work/fields.txt" | wc -l)
replies=$(awk -F'\t' '$3 != ""' "$work/fields.txt" | wc -l)
fpdus=$(awk -F'\t' '$4 != ""' "$work/fields.txt" | wc -l)
decoded=$(awk -F'\t' '$4 != "" && $5 != "" && $6 == "1"' "$work/fields.txt" | wc -l)
opcodes=$(awk -F'\t' '$4 != "" {print $5}' "$work/fields.txt" | sort -u | grep -c .)
malformed=$(awk -F'\t' '$7 != ""' "$work/fields.txt" | wc -l)
# TCP's own notes on the handshake (chat level) are not about the iWARP bytes.
experts=$(awk -F'\t' '$8 != "" && $8 !~ /Rev field is NOT set to one|^Connection establish/' \
  "$work/fields.txt" | wc -l)
good=$(grep -c 'CRC check: .*(Good CRC32)' "$work/verbose.txt" || true)
bad=$(grep -c 'Bad CRC32' "$work/verbose.txt" || true)
echo "$requests MPA requests, $replies replies, $fpdus FPDUs ($decoded as DDP/RDMAP)," \
  "$opcodes opcodes, $good good CRCs, $bad bad, $malformed malformed, $experts unexpected expert notes"
if [ "$requests" -ne 1 ] || [ "$replies" -ne 1 ] || [ "$fpdus" -ne 9 ] || [ "$decoded" -ne 9 ] ||
  [ "$opcodes" -ne 8 ] || [ "$good" -ne 9 ] || [ "$bad" -ne 0 ] || [ "$malformed" -ne 0 ] ||
  [ "$experts" -ne 0 ]; then
  cat "$work/fields.txt"
  grep 'CRC check' "$work/verbose.txt" || true
  exit 1
fi
