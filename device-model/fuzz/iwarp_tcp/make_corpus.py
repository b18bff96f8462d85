#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Writes the seed inputs of fuzz_iwarp_tcp (see iwarp_tcp_fuzzer.cpp for the format)."""
import os
import struct
import sys


def rec(op, body):
    return bytes([op]) + struct.pack(">H", len(body)) + body


def tcp(flags, seq=1, ack=0, payload=b""):
    return struct.pack(">HHIIBBHHH", 0, 0, seq, ack, 0x50, flags, 65535, 0, 0) + payload


SEEDS = {
    "syn": rec(2, tcp(0x02)),
    "ack-data": rec(1, tcp(0x18, 12345, 1, b"MPA ID Req Frame")) + bytes([3, 0, 8]),
    "rst": rec(1, tcp(0x04, 0)),
    "fin": rec(1, tcp(0x11)) + bytes([3, 0, 40]),
    "raw": rec(0, bytes.fromhex("02000000000b02000000000a0800") + b"\x45" + bytes(40)),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
