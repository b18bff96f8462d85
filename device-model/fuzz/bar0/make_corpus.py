#!/usr/bin/env python3
"""Writes the seeds of fuzz_bar0 (bar0_fuzzer.cpp): the driver's bring-up through config
space and BAR0, admin commands through the admin queue (every seed of fuzz_admin replayed
through the SQ ring and the tail doorbell), doorbells, MSI-X programming, and the misuse a
hostile guest may try (bad widths, read-only registers, disable/reset/FLR mid-work).

usage: make_corpus.py [OUTPUT_DIR]"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from seeds import write_seeds  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = 0x10000
AQ_SQ, AQ_CQ, AEQ = BASE + 0x8000, BASE + 0x9000, BASE + 0xA000
DEPTH = 16
REG = dict(MAGIC=0x00, CAPS_LO=0x08, DEV_CTRL=0x10, DEV_STATUS=0x14, SCRATCH=0x2C,
           AQ_SQ_LO=0x40, AQ_SQ_HI=0x44, AQ_CQ_LO=0x48, AQ_CQ_HI=0x4C, AQ_DEPTH=0x50,
           AQ_TAIL=0x54, AQ_HEAD=0x58, AEQ_LO=0x60, AEQ_HI=0x64, AEQ_DEPTH=0x68, AEQ_DB=0x6C)
CONFIG, BAR0, BAR2, BAR4 = 7, 0, 2, 4
DB = dict(SQ=0x00, RQ=0x08, SRQ=0x10, CQ=0x18, EQ=0x20, ETH_TX=0x28, ETH_RX=0x30, CLOCK=0x800)


def rec(op, arg=0, offset=0, value=0):
    return struct.pack("<BBHIQ", op, arg, 0, offset, value & 0xFFFFFFFFFFFFFFFF)


def write(region, offset, value, width=4):
    return rec(0, region << 4 | {1: 0, 2: 1, 4: 2, 8: 3}[width], offset, value)


def read(region, offset, width=4):
    return rec(1, region << 4 | {1: 0, 2: 1, 4: 2, 8: 3}[width], offset)


def reg(name, value):
    return write(BAR0, REG[name], value)


def run(turns=1000):
    return rec(2, value=turns)


def advance(ns):
    return rec(3, value=ns)


def store(addr, data):
    """Guest memory stores, 8 bytes each."""
    data = data + b"\0" * (-len(data) % 8)
    return b"".join(rec(4, 0, addr - BASE + i, struct.unpack_from("<Q", data, i)[0])
                    for i in range(0, len(data), 8))


RESET = rec(5)
BUS_MASTER = write(CONFIG, 4, 0x0006, 2)
MSIX_ENABLE = write(CONFIG, 0x82, 0x8000, 2)


def msix_vector(n, addr=0xFEE00000, data=0x40 + 1):
    at = 16 * n
    return (write(BAR4, at, addr) + write(BAR4, at + 4, 0) + write(BAR4, at + 8, data)
            + write(BAR4, at + 12, 0))


def bring_up(depth=DEPTH, bus_master=True):
    return ((BUS_MASTER if bus_master else b"") + MSIX_ENABLE + msix_vector(0) + msix_vector(1)
            + reg("AQ_SQ_LO", AQ_SQ) + reg("AQ_SQ_HI", 0) + reg("AQ_CQ_LO", AQ_CQ)
            + reg("AQ_CQ_HI", 0) + reg("AQ_DEPTH", depth) + reg("AEQ_LO", AEQ) + reg("AEQ_HI", 0)
            + reg("AEQ_DEPTH", 16) + reg("DEV_CTRL", 1) + reg("AEQ_DB", 0x80000000)
            + read(BAR0, REG["DEV_STATUS"]))


def commands(cmds, first=0):
    """Each 64-byte command into the next SQ slot, then the tail doorbell and a loop run."""
    out = b""
    for i, cmd in enumerate(cmds, first):
        out += store(AQ_SQ + 64 * (i % DEPTH), cmd) + reg("AQ_TAIL", i + 1) + run()
    return out


def seed(image, records):
    return struct.pack("<H", len(image)) + image + records


def cmd(opcode, body=b""):
    return (struct.pack("<BBHI", opcode, 0, 1, 0) + body).ljust(64, b"\0")


def from_admin_seed(data):
    """fuzz_admin's format: u16 image length, image at 0x10000, 64-byte records (0xff a
    doorbell write, 0xfe a wire frame, else an admin command)."""
    n = min(data[0] | data[1] << 8, 16384)
    image, rest = data[2:2 + n], data[2 + n:]
    out, slot = b"", 0
    for i in range(len(rest) // 64):
        record = rest[64 * i:64 * i + 64]
        if record[0] == 0xFF:
            offset, = struct.unpack_from("<Q", record, 8)
            value, = struct.unpack_from("<Q", record, 24)
            out += write(BAR2, offset % (256 * 4096), value, 8 if record[16] & 1 else 4)
        elif record[0] != 0xFE:
            out += commands([record], slot)
            slot += 1
    return image, out


SEEDS = {}
admin_dir = os.path.join(HERE, "..", "admin", "corpus")
for name in sorted(os.listdir(admin_dir)):
    with open(os.path.join(admin_dir, name), "rb") as f:
        image, records = from_admin_seed(f.read())
    SEEDS[f"admin-{name}"] = seed(image, bring_up() + records + advance(10**9))
    SEEDS[f"admin-{name}-reset-midway"] = seed(
        image, bring_up() + records[:len(records) // 2] + RESET + bring_up() + records)
    SEEDS[f"admin-{name}-no-bus-master"] = seed(image, bring_up(bus_master=False) + records)

QUERY_DEVICE = cmd(0x01, struct.pack("<QI", BASE + 0x100, 256))
ALLOC_PD = cmd(0x18)
SEEDS.update({
    "bring-up": seed(b"", bring_up()),
    "read-every-register": seed(b"", bring_up() + b"".join(read(BAR0, o) for o in range(0, 0x90, 4))
                                + read(BAR2, DB["CLOCK"], 8) + read(BAR2, DB["CLOCK"] + 4)),
    "bad-widths": seed(b"", bring_up() + write(BAR0, REG["SCRATCH"], 5, 1)
                       + write(BAR0, REG["SCRATCH"], 5, 2) + write(BAR0, REG["SCRATCH"], 5, 8)
                       + write(BAR0, REG["SCRATCH"] + 1, 5, 4) + read(BAR0, 0x41, 2)
                       + write(BAR2, 4, 7, 4) + write(BAR2, 3, 7, 1)),
    "read-only-registers": seed(b"", bring_up() + reg("MAGIC", 0) + reg("CAPS_LO", 0)
                                + reg("DEV_STATUS", 0xFFFFFFFF) + reg("AQ_HEAD", 9)
                                + read(BAR0, REG["MAGIC"])),
    "enable-bad-depth": seed(b"", bring_up(depth=3) + commands([ALLOC_PD])),
    "enable-twice": seed(b"", bring_up() + reg("DEV_CTRL", 1) + commands([ALLOC_PD])),
    "disable-enable": seed(b"", bring_up() + commands([ALLOC_PD]) + reg("DEV_CTRL", 0)
                           + bring_up() + commands([ALLOC_PD])),
    "reset-bit": seed(b"", bring_up() + commands([QUERY_DEVICE]) + reg("DEV_CTRL", 2)
                      + read(BAR0, REG["DEV_STATUS"]) + bring_up() + commands([ALLOC_PD])),
    "tail-beyond-depth": seed(b"", bring_up() + store(AQ_SQ, ALLOC_PD) + reg("AQ_TAIL", 40)
                              + run() + reg("AQ_TAIL", 1) + run()),
    "tail-backwards": seed(b"", bring_up() + commands([ALLOC_PD, ALLOC_PD]) + reg("AQ_TAIL", 1)
                           + run()),
    "tail-before-enable": seed(b"", store(AQ_SQ, ALLOC_PD) + reg("AQ_TAIL", 1) + run()
                               + bring_up()),
    "aeq-doorbell-junk": seed(b"", bring_up() + reg("AEQ_DB", 0x8000FFFF) + reg("AEQ_DB", 7)),
    "doorbells-without-objects": seed(b"", bring_up() + b"".join(
        write(BAR2, page * 4096 + off, 0x0000000500000001, 8)
        for page in (0, 1, 255) for off in DB.values() if off < 0x800)),
    "doorbells-before-enable": seed(b"", b"".join(write(BAR2, off, 0x100000001, 8)
                                                for off in DB.values() if off < 0x800)),
    "query-device": seed(b"", bring_up() + commands([QUERY_DEVICE])
                         + read(BAR0, REG["AQ_HEAD"])),
    "msix-masked-pba": seed(b"", bring_up() + write(BAR4, 12, 1) + commands([ALLOC_PD])
                            + read(BAR4, 0x1000, 8) + write(BAR4, 12, 0)),
    "flr": seed(b"", bring_up() + commands([ALLOC_PD]) + write(CONFIG, 0x48, 0x8000, 2)
                + bring_up() + commands([ALLOC_PD])),
    "time-passes": seed(b"", bring_up() + commands([ALLOC_PD]) + advance(5 * 10**9)),
    "admin-ring-wrap": seed(b"", bring_up() + commands([ALLOC_PD] * 40)),
})


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus")
    write_seeds(out, SEEDS)


if __name__ == "__main__":
    main()
