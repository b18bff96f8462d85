#!/usr/bin/env python3
"""Writes the seeds of fuzz_iwarp (iwarp_fuzzer.cpp): MPA requests and replies (revision 1
and 2, enhanced parameters, markers, reject), each followed by FPDUs of every RDMAP opcode
with and without CRC, and damaged streams (a bad CRC, an oversized length, a cut FPDU, bad
versions, queues and opcodes). The CRC32c is computed here, bit by bit, independently of the
model.

usage: make_corpus.py [OUTPUT_DIR]"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from seeds import write_seeds  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CRC, REPLY, NO_SETUP = 1, 2, 4


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def mpa(key, flags, rev, private=b""):
    return key + bytes([flags, rev]) + struct.pack(">H", len(private)) + private


def request(flags=0x40, rev=1, private=b""):
    return mpa(b"MPA ID Req Frame", flags, rev, private)


def reply(flags=0x40, rev=1, private=b""):
    return mpa(b"MPA ID Rep Frame", flags, rev, private)


def fpdu(ulpdu, crc=True):
    body = struct.pack(">H", len(ulpdu)) + ulpdu
    body += bytes(-len(body) % 4)
    return body + struct.pack("<I", crc32c(body) if crc else 0)


def tagged(opcode, stag, to, payload=b"", last=True):
    return bytes([0xC1 if last else 0x81, 0x40 | opcode]) + struct.pack(">IQ", stag, to) + payload


def untagged(opcode, qn, msn, payload=b"", mo=0, inv=0, last=True):
    return bytes([0x41 if last else 0x01, 0x40 | opcode]) + struct.pack(">IIII", inv, qn, msn, mo) \
        + payload


READ_REQUEST = untagged(1, 1, 1, struct.pack(">IQIIQ", 0x4201, 0x5555000, 100, 0x9902, 0x66660010))
WRITE = tagged(0, 0x12345601, 0x1000, bytes(range(64)), last=False)
TERMINATE = untagged(7, 2, 1, bytes([0x11, 0x00, 0xC0, 0x00]) + struct.pack(">H", 78) + WRITE[:14])
EVERY_OPCODE = [
    WRITE,
    tagged(0, 0x12345601, 0x1040, bytes(37)),
    READ_REQUEST,
    tagged(2, 0x4201, 0x5555000, bytes(range(100))),
    untagged(3, 0, 1, b"hello"),
    untagged(4, 0, 2, b"invalidate", inv=0xBAD5701),
    untagged(5, 0, 3, b"se"),
    untagged(6, 0, 4, bytes(40), inv=0xBAD5702),
    TERMINATE,
]


def stream(ulpdus, crc=True):
    return b"".join(fpdu(u, crc) for u in ulpdus)


ENHANCED = struct.pack(">HH", 0x8010, 0x8010)

SEEDS = {
    "request-rev1-crc": bytes([CRC | 3 << 3]) + request() + stream(EVERY_OPCODE),
    "request-rev2-enhanced": bytes([CRC | 9 << 3]) + request(0x50, 2, ENHANCED + b"ornic")
    + stream(EVERY_OPCODE),
    "request-markers": bytes([0]) + request(0xC0, 1),
    "request-no-crc": bytes([17 << 3]) + request(0x00, 1) + stream(EVERY_OPCODE, crc=False),
    "request-max-private-data": bytes([CRC]) + request(0x40, 1, bytes(512)) + stream(EVERY_OPCODE[:2]),
    "reply-rev2-enhanced": bytes([CRC | REPLY | 5 << 3]) + reply(0x50, 2, ENHANCED)
    + stream(EVERY_OPCODE),
    "reply-reject": bytes([REPLY]) + reply(0x20, 2),
    "reply-markers": bytes([REPLY]) + reply(0xC0, 1),
    "fpdus-only": bytes([CRC | NO_SETUP | 1 << 3]) + stream(EVERY_OPCODE),
    "fpdus-bad-crc": bytes([CRC | NO_SETUP | 2 << 3]) + stream(EVERY_OPCODE[:3])[:-1] + b"\x00",
    "fpdus-too-long": bytes([CRC | NO_SETUP]) + struct.pack(">H", 5000) + bytes(64),
    "fpdus-cut": bytes([CRC | NO_SETUP | 31 << 3]) + stream(EVERY_OPCODE)[:-7],
    "fpdus-bad-headers": bytes([CRC | NO_SETUP | 4 << 3]) + stream([
        bytes([0xC2, 0x40]) + bytes(12),                 # DDP version 2
        bytes([0x41, 0x43]) + struct.pack(">IIII", 0, 3, 1, 0),  # queue 3
        bytes([0x41, 0x83]) + struct.pack(">IIII", 0, 0, 1, 0),  # RDMAP version 2
        bytes([0x41, 0x4A]) + struct.pack(">IIII", 0, 0, 1, 0),  # opcode 10
        bytes([0xC1, 0x43]) + bytes(12),                 # Send tagged
        READ_REQUEST + b"\x00",                          # Read Request too long
        bytes([0x41]),                                   # cut header
    ]),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus")
    write_seeds(out, SEEDS)


if __name__ == "__main__":
    main()
