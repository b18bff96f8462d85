#!/bin/sh
# python3-crcmod recomputes the ICRC and VCRC of every sample InfiniBand packet
# (qemu-tests/tools/ib-crc-check.py, which shares no code with the model).
# usage: check_ib_crcs_with_crcmod.sh WRITE_SAMPLE_IB_PCAP_BINARY CHECKER
# Exit 77 (skipped) without python3-crcmod.
set -eu
if ! python3 -c 'import crcmod' 2>/dev/null; then
  echo "python3-crcmod not installed: skipped"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$1" "$work/ib.pcap"
python3 "$2" --self-test
python3 "$2" "$work/ib.pcap"
