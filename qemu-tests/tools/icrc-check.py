#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Verify the ICRC of every RoCEv2 frame in a capture with scapy.

scapy's RoCE layer (scapy.contrib.roce) computes the invariant CRC on its
own, independently of the device model's implementation, so a frame whose
ICRC scapy agrees with was built per the RoCEv2 rules.

  icrc-check.py CAPTURE.pcap   check every UDP/4791 frame; prints a summary
                               and exits 1 on any mismatch or if the capture
                               has no RoCE frame at all
  icrc-check.py --self-test    build IPv4 and IPv6 RoCE frames with scapy,
                               check they pass, flip one payload bit and
                               check that the corrupted frame is caught
"""
import collections
import multiprocessing
import os
import sys
import tempfile

from scapy.all import Ether, IP, IPv6, UDP, Raw, RawPcapReader, raw, wrpcap
from scapy.contrib.roce import BTH

ROCE_PORT = 4791


def check_frame(data):
    """Return (ok, opcode) for one Ethernet frame holding a RoCEv2 packet,
    None for any other frame."""
    pkt = Ether(data)
    if UDP not in pkt or pkt[UDP].dport != ROCE_PORT:
        return None
    bth = pkt[BTH]
    wire = raw(bth)[-4:]
    # compute_icrc builds the pseudo-header from the IP/UDP underlayers; the
    # argument is unused by scapy but required by its signature.
    want = bth.compute_icrc(b"")
    return wire == want, bth.opcode


def raw_frames(path):
    # Raw bytes only: each frame is dissected once, in a worker.
    for data, _meta in RawPcapReader(path):
        yield data


def check_capture(path):
    opcodes = collections.Counter()
    bad = []
    roce = 0
    frames = 0
    # scapy's ICRC costs about a millisecond a frame; a data-path capture
    # holds tens of thousands, so every core takes a share.
    with multiprocessing.Pool(os.cpu_count() or 1) as pool:
        for i, result in enumerate(pool.imap(check_frame, raw_frames(path), 256)):
            frames += 1
            if result is None:
                continue
            ok, opcode = result
            roce += 1
            opcodes[opcode] += 1
            if not ok:
                bad.append(i + 1)
    summary = ", ".join(f"{op:#04x}x{n}" for op, n in sorted(opcodes.items()))
    if roce == 0:
        print(f"FAIL: no RoCEv2 frame among {frames} frames in {path}")
        return 1
    if bad:
        print(f"FAIL: {len(bad)} of {roce} RoCEv2 frames have a wrong ICRC "
              f"(frame numbers {bad[:10]}); opcodes {summary}")
        return 1
    print(f"PASS: all {roce} RoCEv2 frames ({frames} frames in all) "
          f"have the ICRC scapy computes; BTH opcodes {summary}")
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
