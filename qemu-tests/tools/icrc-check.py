#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Verify the ICRC of every RoCE frame in a capture with scapy.

Every frame's ICRC is computed here from the raw bytes by the RoCEv2 rules
(the masked pseudo-header of IBTA annex A17, then CRC-32 from zlib), and
RoCE v1 frames (Ethertype 0x8915, a GRH in place of IP and UDP) by annex
A16's rules, the same way; scapy computes no ICRC for those.  scapy's RoCE
layer (scapy.contrib.roce), which computes the invariant CRC
on its own, checks a sample of the same frames (the first SCAPY_PER_OPCODE
of each BTH opcode and every SCAPY_EVERY-th frame) and must agree with the
raw computation on each: both are independent of the device model's
implementation.  scapy costs about a millisecond a frame, which on a
data-path capture of tens of thousands of frames was half a minute.

  icrc-check.py CAPTURE.pcap   check every UDP/4791 and 0x8915 frame; prints
                               a summary ("... N RoCE v1 ...") and exits 1 on
                               any mismatch or if the capture has no RoCE
                               frame at all
  icrc-check.py --self-test    build IPv4 and IPv6 RoCE frames with scapy,
                               check they pass, flip one payload bit and
                               check that the corrupted frame is caught
"""
import collections
import multiprocessing
import os
import sys
import tempfile
import zlib

from scapy.all import Ether, IP, IPv6, UDP, Raw, RawPcapReader, raw, wrpcap
from scapy.contrib.roce import BTH

ROCE_PORT = 4791
SCAPY_PER_OPCODE = 100
SCAPY_EVERY = 25


def raw_icrc_v1(data, off):
    """(ICRC on the wire, ICRC computed, BTH opcode) of a RoCE v1 packet at
    data[off:] (its GRH), None when it cannot be one."""
    if len(data) < off + 40 or data[off] >> 4 != 6 or data[off + 6] != 0x1B:
        return None
    end = off + 40 + int.from_bytes(data[off + 4:off + 6], "big")
    if end > len(data) or end < off + 40 + 12 + 4:
        return None
    grh = bytearray(data[off:off + 40])
    grh[0] |= 0x0F  # traffic class and flow label
    grh[1:4] = b"\xff\xff\xff"
    grh[7] = 0xFF  # hop limit
    rest = bytearray(data[off + 40:end - 4])
    rest[4] = 0xFF  # BTH resv8a
    crc = zlib.crc32(b"\xff" * 8 + bytes(grh) + bytes(rest))
    return bytes(data[end - 4:end]), crc.to_bytes(4, "little"), data[off + 40]


def raw_icrc(data):
    """(ICRC on the wire, ICRC computed, BTH opcode, RoCE v1?) of an Ethernet
    frame holding a RoCE packet, None for any other frame."""
    off = 14
    if len(data) < off:
        return None
    ethertype = int.from_bytes(data[12:14], "big")
    while ethertype in (0x8100, 0x88A8) and len(data) >= off + 4:  # VLAN tags
        ethertype = int.from_bytes(data[off + 2:off + 4], "big")
        off += 4
    if ethertype == 0x8915:
        result = raw_icrc_v1(data, off)
        return None if result is None else result + (True,)
    if ethertype == 0x0800 and len(data) >= off + 20:
        ihl = (data[off] & 0x0F) * 4
        if data[off + 9] != 17:
            return None
        ip = bytearray(data[off:off + ihl])
        ip[1] = 0xFF  # type of service
        ip[8] = 0xFF  # time to live
        ip[10:12] = b"\xff\xff"  # header checksum
        udp = off + ihl
        end = off + int.from_bytes(data[off + 2:off + 4], "big")
    elif ethertype == 0x86DD and len(data) >= off + 40:
        if data[off + 6] != 17:
            return None
        ip = bytearray(data[off:off + 40])
        ip[0] |= 0x0F  # traffic class and flow label
        ip[1:4] = b"\xff\xff\xff"
        ip[7] = 0xFF  # hop limit
        udp = off + 40
        end = udp + int.from_bytes(data[off + 4:off + 6], "big")
    else:
        return None
    if end > len(data) or end < udp + 8 + 12 + 4:
        return None
    if int.from_bytes(data[udp + 2:udp + 4], "big") != ROCE_PORT:
        return None
    rest = bytearray(data[udp:end - 4])
    rest[6:8] = b"\xff\xff"  # UDP checksum
    rest[8 + 4] = 0xFF  # BTH resv8a
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(rest))
    return bytes(data[end - 4:end]), crc.to_bytes(4, "little"), data[udp + 8], False


def scapy_icrc(data):
    """(ICRC on the wire, ICRC scapy computes) of a RoCEv2 frame."""
    bth = Ether(data)[BTH]
    # compute_icrc builds the pseudo-header from the IP/UDP underlayers; the
    # argument is unused by scapy but required by its signature.
    return raw(bth)[-4:], bth.compute_icrc(b"")


def check_capture(path):
    opcodes = collections.Counter()
    bad = []
    sample = []  # (frame number, data, ICRC computed from the raw bytes)
    roce = 0
    v1 = 0
    frames = 0
    for data, _meta in RawPcapReader(path):
        frames += 1
        result = raw_icrc(data)
        if result is None:
            continue
        wire, want, opcode, is_v1 = result
        roce += 1
        v1 += is_v1
        opcodes[opcode] += 1
        if wire != want:
            bad.append(frames)
        if is_v1:
            continue  # scapy has no RoCE v1 ICRC
        if opcodes[opcode] <= SCAPY_PER_OPCODE or roce % SCAPY_EVERY == 0:
            sample.append((frames, bytes(data), want))
    with multiprocessing.Pool(os.cpu_count() or 1) as pool:
        theirs = pool.map(scapy_icrc, [data for _, data, _ in sample], 64)
    disagree = [n for (n, _, want), (_, computed) in zip(sample, theirs) if computed != want]
    summary = ", ".join(f"{op:#04x}x{n}" for op, n in sorted(opcodes.items()))
    if roce == 0:
        print(f"FAIL: no RoCE frame among {frames} frames in {path}")
        return 1
    if disagree:
        print(f"FAIL: scapy's ICRC and the raw-bytes computation disagree on {len(disagree)} of "
              f"{len(sample)} frames (frame numbers {disagree[:10]})")
        return 1
    if bad:
        print(f"FAIL: {len(bad)} of {roce} RoCE frames have a wrong ICRC "
              f"(frame numbers {bad[:10]}); opcodes {summary}")
        return 1
    print(f"PASS: all {roce} RoCE frames ({roce - v1} RoCEv2, {v1} RoCE v1; {frames} frames in "
          f"all) have the right ICRC (raw bytes, zlib CRC-32; scapy's own ICRC agrees on the "
          f"{len(sample)} RoCEv2 frames it checked); "
          f"BTH opcodes {summary}")
    return 0


def self_test():
    mac = dict(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    payload = Raw(bytes(range(256)) * 4)
    frames = [
        Ether(**mac) / IP(src="10.0.0.1", dst="10.0.0.2", flags="DF") /
        UDP(sport=0xc123, dport=ROCE_PORT, chksum=0) /
        BTH(opcode=4, dqpn=0x12, psn=7, ackreq=1) / payload,
        Ether(**mac) / IPv6(src="fd00::1", dst="fd00::2", fl=0x12345) /
        UDP(sport=0xc456, dport=ROCE_PORT) /
        BTH(opcode=0x11, dqpn=0x13, psn=8) / Raw(b"\x00\x00\x00\x05"),
    ]
    frames = [Ether(raw(f)) for f in frames]
    with tempfile.NamedTemporaryFile(suffix=".pcap") as good:
        wrpcap(good.name, frames)
        if check_capture(good.name) != 0:
            print("FAIL: self-test: frames built by scapy did not verify")
            return 1
    corrupt = bytearray(raw(frames[0]))
    corrupt[-20] ^= 0x01
    with tempfile.NamedTemporaryFile(suffix=".pcap") as bad:
        wrpcap(bad.name, [Ether(bytes(corrupt)), frames[1]])
        if check_capture(bad.name) == 0:
            print("FAIL: self-test: a corrupted frame was not caught")
            return 1
    print("PASS: self-test: scapy-built IPv4/IPv6 frames verify, a flipped bit is caught")
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    return check_capture(argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
