#!/usr/bin/env python3
"""Writes the seeds of fuzz_iwarp_qp (iwarp_qp_fuzzer.cpp): what a connected peer sends an
iWARP QP -- RDMA WRITEs, SENDs in one and in several segments, Send with Invalidate, Read
Requests, the Read Response to a READ the QP posted, a TERMINATE -- with and without CRCs,
and what it must refuse: an unknown STag, a WRITE past its region, a wrong MSN, a SEND with
no receive WQE, a Read Request from an unknown STag or past its region, a bad version, a cut
header, stream bytes that are no FPDU, and silence while the QP waits for its READ. Headers
as RFC 5041 and 5040 lay them out.

usage: make_corpus.py [OUTPUT_DIR]"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from seeds import DATA, DATA_BYTES, write_seeds  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# Mode byte: CRCs negotiated (bit 0), no receive WQE posted (bit 1).
CRC, NO_RECV = 1, 2
# Operations (iwarp_qp_fuzzer.cpp).
ULPDU, RAW, CLOCK, READ, SEND_WQE = range(5)
KEY = b"key\0"  # the QP's MR key, patched in by the harness
READ_SINK = DATA + DATA_BYTES // 2

# RDMAP opcodes and DDP queues.
WRITE, READ_REQ, READ_RESP, SEND, SEND_INV, SEND_SE, SEND_SE_INV, TERMINATE = range(8)
Q_SEND, Q_READ, Q_TERM = 0, 1, 2


def record(op, length, payload=b""):
    return bytes([op]) + struct.pack(">H", length) + payload


def ulpdu(data):
    return record(ULPDU, len(data), data)


def tagged(opcode, stag, to, payload, last=True, version=1, rdmap_version=1):
    control = 0x80 | (0x40 if last else 0) | version
    return bytes([control, rdmap_version << 6 | opcode]) + stag + struct.pack(">Q", to) + payload


def untagged(opcode, queue, msn, mo=0, payload=b"", last=True, ulp=b"\0\0\0\0", version=1):
    control = (0x40 if last else 0) | version
    return bytes([control, 0x40 | opcode]) + ulp + struct.pack(">III", queue, msn, mo) + payload


def read_request(msn, size, source_to, source=KEY, sink=b"\0\0\x12\x34", sink_to=0x1000):
    body = sink + struct.pack(">QI", sink_to, size) + source + struct.pack(">Q", source_to)
    return untagged(READ_REQ, Q_READ, msn, 0, body)


def pattern(n):
    return bytes((i * 7 + 3) & 0xFF for i in range(n))


SEEDS = {
    "write": bytes([CRC]) + ulpdu(tagged(WRITE, KEY, DATA + 0x2000, pattern(512))),
    "write-no-crc": bytes([0]) + ulpdu(tagged(WRITE, KEY, DATA + 0x3000, pattern(64))),
    "write-two-segments": bytes([CRC]) +
    ulpdu(tagged(WRITE, KEY, DATA + 0x4000, pattern(1024), last=False)) +
    ulpdu(tagged(WRITE, KEY, DATA + 0x4400, pattern(512))),
    "send": bytes([CRC]) + ulpdu(untagged(SEND, Q_SEND, 1, 0, pattern(300))),
    "send-se-three-segments": bytes([CRC]) +
    ulpdu(untagged(SEND_SE, Q_SEND, 1, 0, pattern(1000), last=False)) +
    ulpdu(untagged(SEND_SE, Q_SEND, 1, 1000, pattern(1000), last=False)) +
    ulpdu(untagged(SEND_SE, Q_SEND, 1, 2000, pattern(100))),
    "sends-fill-the-rq": bytes([CRC]) + b"".join(
        ulpdu(untagged(SEND, Q_SEND, msn, 0, pattern(64))) for msn in range(1, 11)),
    "send-invalidate": bytes([CRC]) + ulpdu(untagged(SEND_INV, Q_SEND, 1, 0, pattern(32), ulp=KEY)) +
    ulpdu(tagged(WRITE, KEY, DATA, pattern(16))),
    "read-request": bytes([CRC]) + ulpdu(read_request(1, 256, DATA + 0x100)) + record(CLOCK, 20),
    "read-request-bad-source": bytes([CRC]) +
    ulpdu(read_request(1, 64, DATA, source=b"\xfe\xdc\xba\x5a")),
    "read-request-past-region": bytes([CRC]) + ulpdu(read_request(1, 64, DATA + DATA_BYTES - 8)),
    "read-requests-past-ird": bytes([CRC]) + b"".join(
        ulpdu(read_request(msn, 4096, DATA)) for msn in range(1, 7)),
    "read-response": bytes([CRC]) + record(READ, 256) +
    ulpdu(tagged(READ_RESP, KEY, READ_SINK, pattern(256))),
    "read-response-unasked": bytes([CRC]) + ulpdu(tagged(READ_RESP, KEY, READ_SINK, pattern(8))),
    "read-then-silence": bytes([CRC]) + record(READ, 4096) + record(CLOCK, 2000) +
    record(CLOCK, 2000),
    "send-from-the-qp": bytes([CRC]) + record(SEND_WQE, 100) + record(CLOCK, 10) +
    ulpdu(untagged(SEND, Q_SEND, 1, 0, pattern(10))),
    "terminate": bytes([CRC]) + ulpdu(untagged(TERMINATE, Q_TERM, 1, 0,
                                               bytes([0x11, 0x00, 0x00, 0x00]))),
    "write-unknown-stag": bytes([CRC]) + ulpdu(tagged(WRITE, b"\xfe\xdc\xba\x5a", DATA, pattern(8))),
    "write-past-region": bytes([CRC]) +
    ulpdu(tagged(WRITE, KEY, DATA + DATA_BYTES - 16, pattern(64))),
    "send-wrong-msn": bytes([CRC]) + ulpdu(untagged(SEND, Q_SEND, 5, 0, pattern(8))),
    "send-no-receive-wqe": bytes([CRC | NO_RECV]) + ulpdu(untagged(SEND, Q_SEND, 1, 0, b"x")),
    "ddp-version-0": bytes([CRC]) + ulpdu(untagged(SEND, Q_SEND, 1, 0, b"x", version=0)),
    "short-ulpdu": bytes([CRC]) + ulpdu(untagged(SEND, Q_SEND, 1)[:6]),
    "raw-garbage": bytes([CRC]) + record(RAW, 40, pattern(40)),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus")
    write_seeds(out, SEEDS)


if __name__ == "__main__":
    main()
