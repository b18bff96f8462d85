#!/usr/bin/env python3
"""Writes the RoCE v1 and 802.1Q seeds of fuzz_roce from its RoCEv2 ones (make_corpus.py):
the IPv6 frames again with a GRH in place of IPv6 and UDP (EtherType 0x8915), and a few
frames of each kind behind a VLAN tag. ICRC and IPv4 checksum are left as they are: the
fuzzer repairs them, the v1 ICRC included.

usage: make_v1_vlan_corpus.py [CORPUS_DIR]"""
import os
import struct
import sys

VLAN_OPCODES = (0x04, 0x0A, 0x0C, 0x11, 0x64)  # send only, write only, read, ack, UD send


def to_v1(frame):
    """IPv6 + UDP -> GRH: the same 40 bytes with next header 0x1B, the UDP header dropped."""
    grh = bytearray(frame[14:54])
    payload_length = struct.unpack_from(">H", grh, 4)[0] - 8
    struct.pack_into(">H", grh, 4, payload_length)
    grh[6] = 0x1B
    return frame[:12] + b"\x89\x15" + bytes(grh) + frame[62:]


def vlan(frame, vid, priority=3):
    return frame[:12] + struct.pack(">HH", 0x8100, priority << 13 | vid) + frame[12:]


def main():
    corpus = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                                  "corpus")
    seeds = {}
    for name in sorted(os.listdir(corpus)):
        if not name.startswith(("ipv4-opcode-", "ipv6-opcode-")):
            continue
        with open(os.path.join(corpus, name), "rb") as file:
            frame = file.read()
        opcode = int(name[-2:], 16)
        if name.startswith("ipv6-"):
            seeds[f"v1-opcode-{opcode:02x}"] = to_v1(frame)
        if opcode in VLAN_OPCODES:
            seeds[f"vlan-{name}"] = vlan(frame, 100)
            if name.startswith("ipv6-"):
                seeds[f"vlan-v1-opcode-{opcode:02x}"] = vlan(to_v1(frame), 100)
    for name, frame in seeds.items():
        with open(os.path.join(corpus, name), "wb") as file:
            file.write(frame)
    print(f"{len(seeds)} seeds in {corpus}")


if __name__ == "__main__":
    main()
