#!/usr/bin/env python3
"""Writes the seeds of fuzz_recv_wqe (recv_wqe_fuzzer.cpp): receive rings for the RC QP,
the SRQ, the UD QP and the UC QP, well formed and malformed, each with the traffic that
consumes them.

usage: make_corpus.py [OUTPUT_DIR]"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from seeds import DATA, recv_wqe, sym, write_seeds  # noqa: E402

RC, SRQ, UD, UC = range(4)
SEND, SEND_IMM, WRITE_IMM, INLINE = range(4)
TIME, AGAIN = 0x10, 0x20
MR = sym(0)
LANDING = DATA + 0x20000


def seed(wqes, target=RC, kind=SEND, count=1, length=64, control=0, producer=None):
    ring = b"".join(wqes)
    blocks = producer if producer is not None else len(ring) // 64
    shape = kind | (count - 1) << 2 | control
    return bytes([target, blocks, shape]) + struct.pack("<H", length) + ring


def simple(n, size=4096, target_sge=1):
    return [recv_wqe([(LANDING + size * i + 512 * j, size // target_sge, MR)
                      for j in range(target_sge)], wr_id=i) for i in range(n)]


SEEDS = {}
for name, target in (("rc", RC), ("srq", SRQ), ("ud", UD), ("uc", UC)):
    SEEDS[f"{name}-send"] = seed(simple(1), target)
    SEEDS[f"{name}-send-imm-4"] = seed(simple(4), target, SEND_IMM, 4, 200)
    SEEDS[f"{name}-inline"] = seed(simple(2), target, INLINE, 2, 100)
    SEEDS[f"{name}-3sge"] = seed(simple(2, 3000, 3), target, SEND, 2, 2500)
    SEEDS[f"{name}-too-small"] = seed(simple(1, 64), target, SEND, 1, 1000)
    SEEDS[f"{name}-again"] = seed(simple(2), target, SEND, 2, 64, AGAIN)
    SEEDS[f"{name}-none-posted"] = seed([], target, SEND, 1, 64, TIME)
    SEEDS[f"{name}-bad-lkey"] = seed([recv_wqe([(LANDING, 4096, 0x4242)])], target)
    SEEDS[f"{name}-zero-sge"] = seed([recv_wqe([])], target, SEND, 1, 0)
SEEDS["rc-write-imm"] = seed(simple(1), RC, WRITE_IMM, 1, 512)
SEEDS["uc-write-imm"] = seed(simple(2), UC, WRITE_IMM, 2, 512)
SEEDS["srq-write-imm"] = seed(simple(1), SRQ, WRITE_IMM, 1, 512)
SEEDS["rc-multi-packet"] = seed(simple(1, 16384), RC, SEND, 1, 12000)
SEEDS["srq-multi-packet"] = seed(simple(1, 16384), SRQ, SEND_IMM, 1, 9000)
SEEDS["uc-multi-packet"] = seed(simple(1, 16384), UC, SEND, 1, 5000)
SEEDS["ud-grh-only"] = seed(simple(1, 40), UD, SEND, 1, 16)
# An extra block of SGEs (num_blocks 2, 7 SGEs), and one whose count overruns its blocks.
SEEDS["rc-7sge"] = seed([recv_wqe([(LANDING + 600 * j, 600, MR) for j in range(7)])], RC,
                        SEND, 1, 4000)
SEEDS["srq-7sge"] = seed([recv_wqe([(LANDING + 600 * j, 600, MR) for j in range(7)])], SRQ,
                         SEND, 1, 4000)
SEEDS["rc-sge-overrun"] = seed([recv_wqe([(LANDING, 64, MR)] * 7, num_blocks=1)
                                + bytes(64)], RC)
SEEDS["srq-zero-blocks"] = seed([recv_wqe([(LANDING, 64, MR)], num_blocks=0)], SRQ)
SEEDS["rc-out-of-bounds"] = seed([recv_wqe([(DATA + (512 << 10) - 32, 4096, MR)])], RC)
SEEDS["srq-wrap"] = seed(simple(64, 256), SRQ, SEND, 4, 200, AGAIN)
SEEDS["rc-producer-beyond"] = seed(simple(2), RC, SEND, 1, 64, producer=200)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
    write_seeds(out, SEEDS)


if __name__ == "__main__":
    main()
