#!/usr/bin/env python3
"""Writes variants of fuzz_roce's RoCEv2 seeds (make_corpus.py): the IPv6 frames again as
RoCE v1, with a GRH in place of IPv6 and UDP (EtherType 0x8915); a few frames of each kind
behind a VLAN tag or a priority-only (802.1p) tag; and IPv4 frames with a UDP checksum, which the parser then verifies. The
ICRC (it does not cover the UDP checksum) and the IPv4 checksum are left as they are: the
fuzzer repairs them, the v1 ICRC included.

usage: make_variant_corpus.py [CORPUS_DIR]"""
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


def ones_complement_sum(data):
    data += b"\0" * (len(data) % 2)
    total = sum(struct.unpack(f">{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def with_udp_checksum(frame):
    """An IPv4 frame with its UDP checksum filled in (0 on the wire is "none": 0xffff)."""
    ip = frame[14:]
    header_bytes = (ip[0] & 0xF) * 4
    udp = bytearray(ip[header_bytes:struct.unpack_from(">H", ip, 2)[0]])
    struct.pack_into(">H", udp, 6, 0)
    pseudo = ip[12:20] + struct.pack(">BBH", 0, 17, len(udp))
    checksum = 0xFFFF - ones_complement_sum(pseudo + bytes(udp)) or 0xFFFF
    struct.pack_into(">H", udp, 6, checksum)
    return frame[:14 + header_bytes] + bytes(udp) + frame[14 + header_bytes + len(udp):]


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
        if name.startswith("ipv4-") and opcode in VLAN_OPCODES:
            seeds[f"udp-checksum-{name}"] = with_udp_checksum(frame)
        if opcode in VLAN_OPCODES:
            seeds[f"vlan-{name}"] = vlan(frame, 100)
            # 802.1p: a priority tag without a VLAN, read as untagged with its priority.
            seeds[f"prio-tag-{name}"] = vlan(frame, 0, 5)
            if name.startswith("ipv6-"):
                seeds[f"vlan-v1-opcode-{opcode:02x}"] = vlan(to_v1(frame), 100)
    for name, frame in seeds.items():
        with open(os.path.join(corpus, name), "wb") as file:
            file.write(frame)
    print(f"{len(seeds)} seeds in {corpus}")


if __name__ == "__main__":
    main()
