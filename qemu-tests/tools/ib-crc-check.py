#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Recompute the ICRC and the VCRC of every InfiniBand packet in a capture.

The capture is a pcap file as an ornic InfiniBand port writes it (--pcap):
link type ERF (197), each record one ERF record of type InfiniBand (21)
holding one packet, LRH through VCRC.  (Wireshark knows no pcap link type
for bare InfiniBand packets; ERF is how it reads them.)
Everything here is independent of the device model: the pcap records are
read with struct, the masking rules of the invariant CRC are applied from
IBTA Vol. 1 7.8.1 (a packet without a GRH: the LRH's VL and the BTH's
reserved byte 4 replaced by ones; with a GRH: the whole LRH, the GRH's
traffic class, flow label and hop limit, and BTH byte 4), and both CRCs
come from python3-crcmod: CRC-32 (0x04c11db7, reflected, initial and final
inversion, appended least-significant byte first) for the ICRC, CRC-16
(0x100b, reflected, initial and final inversion, least-significant byte
first) over the LRH through the ICRC for the VCRC.  PktLen must agree with
the record's length.

  ib-crc-check.py CAPTURE.pcap   check every packet; prints a summary and
                                 exits 1 on any mismatch, or if there is no
                                 packet at all
  ib-crc-check.py --count-wrong CAPTURE.pcap
                                 a capture that holds corrupted packets (a
                                 port with wire faults): prints "TOTAL WRONG",
                                 the packets and how many of them fail a
                                 check, for the caller to compare with the
                                 port's error counters
  ib-crc-check.py --self-test    a packet built here passes, the same with
                                 one payload bit or one VL bit flipped fails
                                 the right check
"""
import collections
import struct
import sys

import crcmod

CRC32 = crcmod.mkCrcFun(0x104C11DB7, initCrc=0, rev=True, xorOut=0xFFFFFFFF)
CRC16 = crcmod.mkCrcFun(0x1100B, initCrc=0, rev=True, xorOut=0xFFFF)
LINKTYPE_ERF = 197
ERF_TYPE_INFINIBAND = 21
ERF_HEADER = 16
LRH, GRH, BTH = 8, 40, 12


def read_pcap(path):
    """The InfiniBand packets of a pcap file of ERF records, as bytes."""
    with open(path, "rb") as f:
        header = f.read(24)
        if len(header) < 24:
            raise ValueError("not a pcap file (short header)")
        magic = header[:4]
        if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
            order = "<"
        elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
            order = ">"
        else:
            raise ValueError("not a pcap file (magic %s)" % magic.hex())
        linktype = struct.unpack(order + "I", header[20:24])[0] & 0x0FFFFFFF
        if linktype != LINKTYPE_ERF:
            raise ValueError("link type %d, not ERF (197)" % linktype)
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            _, _, caplen, origlen = struct.unpack(order + "IIII", rec)
            data = f.read(caplen)
            if len(data) < caplen or caplen != origlen:
                raise ValueError("truncated record")
            if len(data) < ERF_HEADER or data[8] & 0x7F != ERF_TYPE_INFINIBAND:
                raise ValueError("an ERF record that is not InfiniBand")
            rlen, _, wlen = struct.unpack(">HHH", data[10:16])
            if rlen != len(data) or wlen != len(data) - ERF_HEADER:
                raise ValueError("ERF lengths %d/%d in a record of %d" % (rlen, wlen, len(data)))
            yield data[ERF_HEADER:]


def check_packet(data):
    """None when the packet is right, else what is wrong with it."""
    if len(data) < LRH + BTH + 4 + 2:
        return "shorter than LRH + BTH + ICRC + VCRC"
    pktlen = (int.from_bytes(data[4:6], "big") & 0x7FF) * 4
    if pktlen + 2 != len(data):
        return "PktLen %d bytes, record %d" % (pktlen, len(data))
    vcrc = int.from_bytes(data[pktlen:pktlen + 2], "little")
    if CRC16(data[:pktlen]) != vcrc:
        return "VCRC %#06x, computed %#06x" % (vcrc, CRC16(data[:pktlen]))
    lnh = data[1] & 3
    if lnh not in (2, 3):
        return "LNH %d is not an IBA transport packet" % lnh
    masked = bytearray(data[:pktlen - 4])
    if lnh == 3:
        masked[0:LRH] = b"\xff" * LRH
        masked[LRH] |= 0x0F
        masked[LRH + 1:LRH + 4] = b"\xff\xff\xff"
        masked[LRH + 7] = 0xFF
        bth = LRH + GRH
    else:
        masked[0] |= 0xF0
        bth = LRH
    masked[bth + 4] = 0xFF
    icrc = int.from_bytes(data[pktlen - 4:pktlen], "little")
    if CRC32(bytes(masked)) != icrc:
        return "ICRC %#010x, computed %#010x" % (icrc, CRC32(bytes(masked)))
    return None


def opcode_of(data):
    return data[LRH + (GRH if data[1] & 3 == 3 else 0)]


def count_wrong(path):
    total = wrong = 0
    for data in read_pcap(path):
        total += 1
        wrong += check_packet(data) is not None
    print(total, wrong)
    return 0 if total > 0 else 1


def check_capture(path):
    counts = collections.Counter()
    bad = []
    total = 0
    for data in read_pcap(path):
        total += 1
        problem = check_packet(data)
        if problem:
            bad.append((total, problem))
        else:
            counts[opcode_of(data)] += 1
    print("%s: %d packets, %d with right ICRC and VCRC over %d opcodes, %d wrong"
          % (path, total, sum(counts.values()), len(counts), len(bad)))
    for number, problem in bad[:10]:
        print("  packet %d: %s" % (number, problem))
    return 0 if total > 0 and not bad else 1


def build_packet(payload=b"ornic"):
    """A UD SEND ONLY packet with a GRH, built here field by field."""
    pad = (4 - len(payload) % 4) % 4
    transport = bytes([0x64, 0x80 | pad << 4, 0xFF, 0xFF, 0, 0, 0, 1, 0, 0, 0, 7])
    deth = bytes([0x80, 0x01, 0x00, 0x00, 0, 0, 0, 0x11])
    body = transport + deth + payload + b"\0" * pad
    grh_payload = len(body) + 4
    grh = (bytes([0x60, 0, 0, 0]) + grh_payload.to_bytes(2, "big") + bytes([0x1B, 1])
           + bytes(range(16)) + bytes(range(16, 32)))
    words = (LRH + len(grh) + len(body) + 4) // 4
    lrh = bytes([0x00, 0x03]) + (0xC001).to_bytes(2, "big") + words.to_bytes(2, "big") + (3).to_bytes(2, "big")
    packet = lrh + grh + body
    masked = bytearray(packet)
    masked[0:LRH] = b"\xff" * LRH
    masked[LRH] |= 0x0F
    masked[LRH + 1:LRH + 4] = b"\xff\xff\xff"
    masked[LRH + 7] = 0xFF
    masked[LRH + GRH + 4] = 0xFF
    packet += CRC32(bytes(masked)).to_bytes(4, "little")
    return packet + CRC16(packet).to_bytes(2, "little")


def self_test():
    good = build_packet()
    if check_packet(good) is not None:
        print("FAIL: a good packet fails:", check_packet(good))
        return 1
    # A VL change is covered by the VCRC only; a payload change by both.
    vl = bytearray(good)
    vl[0] ^= 0x10
    vl[-2:] = CRC16(bytes(vl[:-2])).to_bytes(2, "little")
    payload = bytearray(good)
    payload[LRH + GRH + BTH + 8] ^= 0x01
    broken_vcrc = check_packet(bytes(payload))
    payload[-2:] = CRC16(bytes(payload[:-2])).to_bytes(2, "little")
    broken_icrc = check_packet(bytes(payload))
    if check_packet(bytes(vl)) is not None:
        print("FAIL: a VL change with a new VCRC fails:", check_packet(bytes(vl)))
        return 1
    if not broken_vcrc or not broken_vcrc.startswith("VCRC"):
        print("FAIL: a flipped payload bit passed the VCRC check:", broken_vcrc)
        return 1
    if not broken_icrc or not broken_icrc.startswith("ICRC"):
        print("FAIL: a flipped payload bit passed the ICRC check:", broken_icrc)
        return 1
    print("self-test passed: good packet accepted, VL change kept the ICRC, "
          "payload bit caught by the VCRC and by the ICRC")
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) == 3 and argv[1] == "--count-wrong":
        try:
            return count_wrong(argv[2])
        except (OSError, ValueError) as e:
            print("%s: %s" % (argv[2], e))
            return 1
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        return check_capture(argv[1])
    except (OSError, ValueError) as e:
        print("%s: %s" % (argv[1], e))
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
