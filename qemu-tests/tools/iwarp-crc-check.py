#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""The MPA CRC32c of every FPDU in a capture, recomputed by python3-crcmod.

Reads an Ethernet pcap with the standard library, rebuilds each TCP
connection's two byte streams by sequence number (retransmitted and
duplicated segments land where they belong), finds the MPA request and
reply at their starts, and walks the FPDUs after them by their ULPDU length.
Where the reply set C (CRCs in use), every FPDU's CRC32c is recomputed with
crcmod's predefined 'crc-32c' and compared with the one on the wire (least
significant byte first).  An FPDU cut short at the end of a stream (a
connection reset in the middle of it) is counted, not judged.  Connections
with either TCP port in --skip-ports LO-HI are left out and counted (a test
peer that sends bad CRCs on purpose).  Prints one summary line; exit 1 on
any wrong CRC or no FPDU checked at all.

usage: iwarp-crc-check.py [--skip-ports LO-HI] CAPTURE.pcap
       iwarp-crc-check.py --self-test
"""
import struct
import sys

import crcmod.predefined

REQ_KEY = b"MPA ID Req Frame"
REP_KEY = b"MPA ID Rep Frame"
FLAG_CRC = 0x40
FLAG_REJECT = 0x20


def frames(path):
    """Every frame of a pcap (either byte order, micro- or nanoseconds)."""
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        endian = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        endian = ">"
    else:
        raise ValueError(f"{path}: not a pcap file")
    if struct.unpack_from(endian + "I", data, 20)[0] != 1:
        raise ValueError(f"{path}: not an Ethernet capture")
    offset = 24
    while offset + 16 <= len(data):
        caplen = struct.unpack_from(endian + "I", data, offset + 8)[0]
        yield data[offset + 16:offset + 16 + caplen]
        offset += 16 + caplen


def tcp_segments(path):
    """(key, seq, syn, payload) of every untagged IPv4 TCP frame."""
    for frame in frames(path):
        if len(frame) < 34 or frame[12:14] != b"\x08\x00" or frame[23] != 6:
            continue
        ihl = (frame[14] & 0x0F) * 4
        total = struct.unpack_from(">H", frame, 16)[0]
        tcp = 14 + ihl
        sport, dport, seq = struct.unpack_from(">HHI", frame, tcp)
        flags = frame[tcp + 13]
        payload = frame[tcp + (frame[tcp + 12] >> 4) * 4:14 + total]
        key = (frame[26:30], sport, frame[30:34], dport)
        yield key, seq, bool(flags & 0x02), payload


def streams(path):
    """Each connection direction's bytes from its SYN on, as far as they are
    contiguous: {(key, n): bytes}, n counting the SYNs of that 4-tuple."""
    isn, pieces, count = {}, {}, {}
    for key, seq, syn, payload in tcp_segments(path):
        if syn:
            if key in isn and isn[key] == (seq + 1) & 0xFFFFFFFF:
                continue  # a retransmitted SYN
            count[key] = count.get(key, 0) + 1
            isn[key] = (seq + 1) & 0xFFFFFFFF
            pieces[(key, count[key])] = {}
            continue
        if key not in isn or not payload:
            continue
        rel = (seq - isn[key]) & 0xFFFFFFFF
        pieces[(key, count[key])].setdefault(rel, payload)
    out = {}
    for name, parts in pieces.items():
        stream = bytearray()
        for rel in sorted(parts):
            if rel > len(stream):
                break  # a hole: the rest was never captured
            stream[rel:rel + len(parts[rel])] = parts[rel]
        out[name] = bytes(stream)
    return out


def walk_fpdus(stream, crc_on, crc32c):
    """(checked, wrong, cut) for the FPDUs after the MPA frame at the start."""
    offset = 20 + struct.unpack_from(">H", stream, 18)[0]
    checked = wrong = 0
    while offset < len(stream):
        if offset + 2 > len(stream):
            return checked, wrong, 1
        ulpdu = struct.unpack_from(">H", stream, offset)[0]
        covered = 2 + ulpdu + (4 - (2 + ulpdu) % 4) % 4
        if offset + covered + 4 > len(stream):
            return checked, wrong, 1
        if crc_on:
            sent = struct.unpack_from("<I", stream, offset + covered)[0]
            if sent != crc32c(stream[offset:offset + covered]):
                wrong += 1
            checked += 1
        offset += covered + 4
    return checked, wrong, 0


def port_range(text):
    """(lo, hi) of "LO-HI"."""
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


def skipped(key, ports):
    """Whether the connection of `key` has either port in `ports` (lo, hi)."""
    return ports is not None and any(ports[0] <= p <= ports[1] for p in (key[1], key[3]))


def check(path, ports=None):
    crc32c = crcmod.predefined.mkCrcFun("crc-32c")
    all_streams = streams(path)
    conns = checked = wrong = cut = nocrc = skips = 0
    for (key, n), stream in all_streams.items():
        if not stream.startswith(REQ_KEY) or len(stream) < 20:
            continue
        src, sport, dst, dport = key
        if skipped(key, ports):
            skips += 1
            continue
        back = all_streams.get(((dst, dport, src, sport), n), b"")
        if not back.startswith(REP_KEY) or len(back) < 20:
            continue
        conns += 1
        flags = back[16]
        if flags & FLAG_REJECT:
            continue
        crc_on = bool(flags & FLAG_CRC)
        nocrc += not crc_on
        for s in (stream, back):
            c, w, t = walk_fpdus(s, crc_on, crc32c)
            checked, wrong, cut = checked + c, wrong + w, cut + t
    print(f"{checked} FPDU CRC32c values recomputed by crcmod over {conns} MPA connections "
          f"({nocrc} without CRCs): {wrong} wrong; {cut} streams end inside an FPDU"
          + (f"; {skips} connections on ports {ports[0]}-{ports[1]} left out" if ports else ""))
    return 0 if checked and not wrong else 1


def self_test():
    crc32c = crcmod.predefined.mkCrcFun("crc-32c")
    if crc32c(b"123456789") != 0xE3069283:
        print("crcmod's crc-32c does not give the check value 0xe3069283")
        return 1
    # One FPDU of a 6-byte ULPDU: length, ULPDU, no pad, CRC LSB first.
    body = struct.pack(">H", 6) + b"abcdef"
    good = REP_KEY + b"\x40\x01\x00\x00" + body + struct.pack("<I", crc32c(body))
    bad = good[:-1] + bytes([good[-1] ^ 1])
    if walk_fpdus(good, True, crc32c) != (1, 0, 0) or walk_fpdus(bad, True, crc32c) != (1, 1, 0):
        print("the FPDU walk got a built FPDU wrong")
        return 1
    if walk_fpdus(good[:-2], True, crc32c) != (0, 0, 1):
        print("a cut FPDU went unnoticed")
        return 1
    key = (b"\x0a\x00\x00\x01", 40000, b"\x0a\x00\x05\x02", 7600)
    if (not skipped(key, port_range("7600-7699")) or skipped(key, port_range("7700-7799"))
            or skipped(key, None) or port_range("7601") != (7601, 7601)):
        print("--skip-ports matches the wrong connections")
        return 1
    print("crcmod's crc-32c gives the check value; a built FPDU verifies, a flipped bit does not; "
          "--skip-ports matches either port")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        sys.exit(self_test())
    args = sys.argv[1:]
    skip = None
    if len(args) == 3 and args[0] == "--skip-ports":
        skip = port_range(args[1])
        args = args[2:]
    if len(args) != 1:
        print(__doc__)
        sys.exit(2)
    sys.exit(check(args[0], skip))
