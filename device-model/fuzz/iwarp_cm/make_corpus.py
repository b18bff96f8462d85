#!/usr/bin/env python3
"""Writes the seeds of fuzz_iwarp_cm (iwarp_cm_fuzzer.cpp) that drive device B's active side
and the endings of both sides: an IW_CONNECT from B to A's listener answered by an MPA reply
(accepted, rejected, with markers, never), then QUERY_CONN, DISCONNECT (FIN or RST), A's FIN
or RST on either stream, UNLISTEN, and a REJECT of a request B received. The seeds accept,
bad-key, markers and valid-request, written by hand, cover the rest of B's passive side.

usage: make_corpus.py [OUTPUT_DIR]"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from seeds import write_seeds  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# The rig's addresses (iwarp_cm_fuzzer.cpp).
IP_A, IP_B = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
MAC_A = bytes([2, 0, 0, 0, 0, 0x0A])
PORT_A_LISTENS, PORT_B_LISTENS = 7000, 6000

# Operation bytes: the low 2 bits, the stream (bit 2), end it (bit 3), with RST (bit 4).
ADMIN, SEND, CLOCK, MEMORY = 0, 1, 2, 3
ACCEPTED, END, RESET = 4, 8, 16

# IW_* opcodes (include/ornic/ornic_hw.h) as the harness forces them: 0x50 + byte % 7.
LISTEN, UNLISTEN, CONNECT, ACCEPT, REJECT, DISCONNECT, QUERY_CONN = range(7)
DISCONNECT_ABRUPT = 1
DEVICE_ID = 0x80000000  # ORNIC_IW_CONN_ID_DEVICE: ids the device gives passive connections
ATTR_ADDR, ATTR_LEN = 0, 1024  # struct ornic_iw_conn_attr and room to spare


def record(op, length=0, payload=b""):
    return bytes([op]) + struct.pack(">H", length) + payload


def admin(opcode, body):
    """A 64-byte admin command: the header (opcode, flags, command id, reserved), then body."""
    return record(ADMIN, 0, (bytes([opcode]) + bytes(7) + body).ljust(64, b"\0"))


def connect(conn_id=1, crc=True, rev=2, ird=4, ord_=4):
    tuple_ = IP_B + IP_A + struct.pack("<HH", 40000, PORT_A_LISTENS)
    body = struct.pack("<II", conn_id, 0x11) + tuple_ + MAC_A
    body += bytes([0, 0, rev, 1 if crc else 0]) + struct.pack("<HHHIQQ", 0, ird, ord_, 0, 0, 0)
    return admin(CONNECT, body)


def conn_cmd(opcode, conn_id, flags=0, addr=0, length=0):
    return admin(opcode, struct.pack("<IIQI", conn_id, flags, addr, length))


def tick(n=8):
    return record(CLOCK, n)


def send(stream, data):
    return record(SEND | stream, len(data), data)


def memory(n=ATTR_LEN):
    return record(MEMORY, n, bytes(n))


def reply(flags=0x50, rev=2, private=b"\x00\x04\x00\x04"):
    """An MPA reply: C and the enhanced bit set, IRD and ORD 4 (RFC 6581)."""
    return b"MPA ID Rep Frame" + bytes([flags, rev]) + struct.pack(">H", len(private)) + private


def request(flags=0x50, rev=2, private=b"\x00\x04\x00\x04"):
    return b"MPA ID Req Frame" + bytes([flags, rev]) + struct.pack(">H", len(private)) + private


ACTIVE = connect() + tick()
ESTABLISHED = ACTIVE + send(ACCEPTED, reply()) + tick()

SEEDS = {
    "active-reply-query-disconnect": ESTABLISHED + memory() +
    conn_cmd(QUERY_CONN, 1, addr=ATTR_ADDR, length=ATTR_LEN) + conn_cmd(DISCONNECT, 1) + tick(16),
    "active-reply-abrupt-disconnect": ESTABLISHED + conn_cmd(DISCONNECT, 1, DISCONNECT_ABRUPT) +
    tick(),
    "active-reply-rejected": ACTIVE + send(ACCEPTED, reply(flags=0x70, private=b"\x00\x04\x00\x04no")) +
    tick(),
    "active-reply-markers": ACTIVE + send(ACCEPTED, reply(flags=0xD0)) + tick(),
    "active-reply-revision-1": connect(rev=1) + tick() +
    send(ACCEPTED, reply(flags=0x40, rev=1, private=b"")) + tick(),
    "active-reply-split": ACTIVE + send(ACCEPTED, reply()[:9]) + tick(2) +
    send(ACCEPTED, reply()[9:]) + tick(),
    "active-no-reply": ACTIVE + tick(64) + tick(64),
    "active-peer-fin": ESTABLISHED + record(CLOCK | ACCEPTED | END) + tick(16),
    "active-peer-rst": ESTABLISHED + record(CLOCK | ACCEPTED | END | RESET) + tick(),
    "active-rst-before-reply": ACTIVE + record(CLOCK | ACCEPTED | END | RESET) + tick(),
    "passive-peer-fin-before-request": record(CLOCK | END) + tick(16),
    "passive-peer-rst-after-request": send(0, request()) + tick() + record(CLOCK | END | RESET) +
    tick(),
    "passive-request-then-unlisten": send(0, request()) + tick() + conn_cmd(UNLISTEN, 1) + tick(),
    "active-connect-twice": ACTIVE + connect() + connect(conn_id=2) + tick(),
    # The first connection a listener announces has the device's id 1.
    "reject": send(0, request(flags=0, rev=1, private=b"")) + tick(2) +
    record(MEMORY, 9, b"no thanks") + conn_cmd(REJECT, DEVICE_ID | 1, addr=0, length=9) + tick(),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus")
    write_seeds(out, SEEDS)


if __name__ == "__main__":
    main()
