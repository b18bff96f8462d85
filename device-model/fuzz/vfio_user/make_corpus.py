#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_vfio_user: one file per scenario, each a sequence of
(control byte, read) pairs as the fuzz target expects them, holding valid messages."""
import json
import os
import struct
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
os.makedirs(out, exist_ok=True)
msg_id = 0


def msg(command, payload=b"", flags=0):
    global msg_id
    msg_id += 1
    return struct.pack("<HHIII", msg_id & 0xFFFF, command, 16 + len(payload), flags, 0) + payload


def reads(data, memfd=False, eventfd=False):
    """Reads of at most 31 bytes (control 0x1f means "the rest"); fds on the first."""
    chunks = []
    first = True
    while data:
        part, data = data[:31], data[31:]
        control = len(part) - 1
        if first and memfd:
            control |= 0x20
        if first and eventfd:
            control |= 0x40
        first = False
        chunks.append(bytes([control]) + part)
    return b"".join(chunks)


caps = json.dumps({"capabilities": {"max_msg_fds": 16, "max_data_xfer_size": 1048576,
                                    "pgsizes": 4096, "max_dma_maps": 65535,
                                    "write_multiple": True}}).encode() + b"\0"
version = reads(msg(1, struct.pack("<HH", 0, 0) + caps))


def region_read(region, offset, count):
    return reads(msg(9, struct.pack("<QII", offset, region, count)))


def region_write(region, offset, data, posted=True):
    return reads(msg(10, struct.pack("<QII", offset, region, len(data)) + data,
                     0x10 if posted else 0))


seeds = {
    "handshake": version + reads(msg(4, struct.pack("<IIII", 16, 0, 0, 0))),
    "region_info": version + b"".join(
        reads(msg(5, struct.pack("<IIIIQQ", 32, 0, i, 0, 0, 0))) for i in range(10)),
    "irq_info": version + b"".join(
        reads(msg(7, struct.pack("<IIII", 16, 0, i, 0))) for i in range(6)),
    "config": version + region_read(7, 0, 64) + region_read(7, 0x40, 60) +
              region_write(7, 4, struct.pack("<H", 6), posted=False) +
              region_write(7, 0x82, struct.pack("<H", 0x8000), posted=False),
    "bar_io": version + region_write(0, 0x10, struct.pack("<I", 7)) +
              region_read(0, 0x10, 4) + region_write(2, 12, struct.pack("<I", 0)) +
              region_read(2, 0x2000, 8),
    "write_multi": version + reads(msg(15, struct.pack("<Q", 2) +
                                       struct.pack("<QII", 0x10, 0, 4) + struct.pack("<Q", 1) +
                                       struct.pack("<QII", 0x18, 0, 8) + struct.pack("<Q", 2),
                                       0x10)),
    "dma": version + region_write(7, 4, struct.pack("<H", 6), posted=False) +
           reads(msg(2, struct.pack("<IIQQQ", 32, 3, 0, 0x100000, 0x10000)), memfd=True) +
           region_write(0, 0x110, struct.pack("<Q", 0x100008)) +
           region_write(0, 0x118, struct.pack("<Q", 5)) + region_read(0, 0x120, 8) +
           reads(msg(3, struct.pack("<IIQQ", 24, 0, 0x104000, 0x1000))) +
           reads(msg(3, struct.pack("<IIQQ", 24, 2, 0, 0))),
    "irqs": version + region_write(7, 0x82, struct.pack("<H", 0x8000), posted=False) +
            reads(msg(8, struct.pack("<IIIII", 20, 0x24, 2, 0, 1)), eventfd=True) +
            region_write(0, 0x100, struct.pack("<I", 0)) +
            reads(msg(8, struct.pack("<IIIII", 20, 0x21, 2, 0, 0))),
    "reset": version + region_write(0, 0x10, struct.pack("<I", 7)) + reads(msg(13)) +
             region_write(7, 0x48, struct.pack("<H", 0x8000), posted=False),
}
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
