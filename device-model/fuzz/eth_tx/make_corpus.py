#!/usr/bin/env python3
"""Writes the seeds of fuzz_eth_tx (eth_tx_fuzzer.cpp): TX descriptor rings pointing at
frames in the scratch area -- ARP, IPv4/UDP, IPv6, RoCEv2 to the NIC itself, broadcast and
multicast, minimum and maximum lengths -- and malformed descriptors.

usage: make_corpus.py [OUTPUT_DIR]"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from seeds import MAC, SCRATCH, write_seeds  # noqa: E402

SET_MTU, REFLECT, SPLIT, DESTROY = 1, 2, 4, 8
PEER = bytes([2, 0, 0, 0, 0, 2])
BROADCAST = b"\xff" * 6


def desc(addr, length, flags=0, reserved=0):
    return struct.pack("<QHHI", addr, length, flags, reserved)


def eth(dst, ethertype, payload, src=PEER):
    return dst + src + struct.pack(">H", ethertype) + payload


def ipv4_udp(dport, payload, dst=(10, 0, 0, 1)):
    udp = struct.pack(">HHHH", 0xC000, dport, 8 + len(payload), 0) + payload
    return struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                       bytes([10, 0, 0, 2]), bytes(dst)) + udp


def roce_send(dest_qp=2):
    bth = struct.pack(">BBHII", 0x04, 0, 0xFFFF, dest_qp, 0x80000000)
    return ipv4_udp(4791, bth + bytes(64) + b"\0" * 4)


ARP = eth(BROADCAST, 0x0806, struct.pack(">HHBBH", 1, 0x0800, 6, 4, 1) + PEER + bytes(
    [10, 0, 0, 2]) + bytes(6) + bytes([10, 0, 0, 1]))
UDP = eth(MAC, 0x0800, ipv4_udp(9, bytes(range(200))))
IPV6 = eth(MAC, 0x86DD, struct.pack(">IHBB", 0x60000000, 8, 17, 64) + bytes(32) + bytes(8))
ROCE = eth(MAC, 0x0800, roce_send())
MCAST = eth(bytes([1, 0, 0x5E, 0, 0, 1]), 0x0800, ipv4_udp(5000, bytes(64), (224, 0, 0, 1)))
MIN = eth(PEER, 0x88B5, b"")
MAX = eth(PEER, 0x0800, bytes(1500))
JUMBO = eth(PEER, 0x0800, bytes(4000))


def seed(frames, control=0, mtu=1500, descriptors=None, producer=None):
    """Frames go to the scratch area back to back; one descriptor each unless given."""
    area = b""
    ring = b""
    for frame in frames:
        ring += desc(SCRATCH + len(area), len(frame))
        area += frame + b"\0" * (-len(frame) % 64)
    if descriptors is not None:
        ring = descriptors
    count = producer if producer is not None else len(ring) // 16
    return bytes([count, control]) + struct.pack("<H", mtu) + ring.ljust(1024, b"\0") + area


SEEDS = {
    "arp": seed([ARP]),
    "udp": seed([UDP]),
    "ipv6": seed([IPV6]),
    "roce-to-self": seed([ROCE]),
    "multicast": seed([MCAST]),
    "minimum": seed([MIN]),
    "mtu-sized": seed([MAX]),
    "mix": seed([ARP, UDP, IPV6, ROCE, MCAST, MIN]),
    "reflect-arp-udp": seed([ARP, UDP], REFLECT),
    "reflect-roce": seed([ROCE, ROCE], REFLECT),
    "reflect-multicast": seed([MCAST], REFLECT),
    "reflect-mix": seed([ARP, UDP, IPV6, ROCE, MCAST, MIN, MAX], REFLECT),
    "jumbo-refused": seed([JUMBO]),
    "jumbo-mtu-9000": seed([JUMBO], SET_MTU, 9000),
    "jumbo-mtu-9000-reflect": seed([JUMBO, UDP], SET_MTU | REFLECT, 9000),
    "small-mtu": seed([MAX, UDP], SET_MTU, 68),
    "mtu-out-of-range": seed([UDP], SET_MTU, 20),
    "split-doorbell": seed([UDP] * 8, SPLIT),
    "destroy-then-ring": seed([UDP, ARP], DESTROY),
    "ring-full": seed([ARP] * 64),
    "producer-beyond-ring": seed([ARP] * 4, producer=200),
    "short-frame": seed([], descriptors=desc(SCRATCH, 13)),
    "zero-length": seed([], descriptors=desc(SCRATCH, 0)),
    "flags-nonzero": seed([], descriptors=desc(SCRATCH, 60, flags=1)),
    "reserved-nonzero": seed([], descriptors=desc(SCRATCH, 60, reserved=7)),
    "bad-address": seed([], descriptors=desc(0x1000, 60) + desc(0xFFFFFFFFFFFFFFF0, 64)),
    "length-max": seed([], descriptors=desc(SCRATCH, 0xFFFF)),
    "same-frame-twice": seed([], descriptors=desc(SCRATCH, 100) * 2) + UDP.ljust(128, b"\0"),
}
# The same frames one per descriptor as the guest's netdev would queue them after an MTU
# change; and each lone frame reflected.
for name, frame in (("arp", ARP), ("udp", UDP), ("ipv6", IPV6), ("min", MIN), ("max", MAX)):
    SEEDS[f"reflect-{name}-split"] = seed([frame] * 3, REFLECT | SPLIT)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
    write_seeds(out, SEEDS)


if __name__ == "__main__":
    main()
