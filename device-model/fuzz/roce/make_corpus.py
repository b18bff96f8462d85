#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_roce: valid frames of every opcode (IPv4 and IPv6, with
and without payload) taken from the pcap the unit tests' sample writer produces.

usage: make_corpus.py ROCE_WRITE_SAMPLE_PCAP_BINARY [OUTPUT_DIR]"""
import os
import struct
import subprocess
import sys
import tempfile


def pcap_frames(path):
    with open(path, "rb") as file:
        data = file.read()
    offset = 24  # global header
    while offset + 16 <= len(data):
        _, _, caplen, _ = struct.unpack_from("<IIII", data, offset)
        offset += 16
        yield data[offset:offset + caplen]
        offset += caplen


def main():
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "corpus")
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as directory:
        pcap = os.path.join(directory, "roce.pcap")
        subprocess.run([sys.argv[1], pcap], check=True, stdout=subprocess.DEVNULL)
        frames = list(pcap_frames(pcap))
    # One frame per (family, opcode) is plenty; libFuzzer finds the lengths itself.
    seen = set()
    for frame in frames:
        ethertype = frame[12:14]
        bth = 42 if ethertype == b"\x08\x00" else 62
        key = (ethertype, frame[bth])
        if key in seen:
            continue
        seen.add(key)
        family = "ipv4" if ethertype == b"\x08\x00" else "ipv6"
        with open(os.path.join(out, f"{family}-opcode-{frame[bth]:02x}"), "wb") as file:
            file.write(frame)
    print(f"{len(seen)} seeds in {out}")


if __name__ == "__main__":
    main()
