#!/usr/bin/env python3
"""Writes the seeds of fuzz_send_wqe (send_wqe_fuzzer.cpp): one or more send WQEs of every
opcode, well formed and malformed, for the RC, UC and UD QPs of the rig.

usage: make_corpus.py [OUTPUT_DIR]"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from seeds import (DATA, GID, MAC, SCRATCH, atomic_seg, block0, blocks, inline_wqe,  # noqa: E402
                   rdma_seg, sym, ud_seg, wqe, write_seeds)

SEND, SEND_IMM, SEND_INV, WRITE, WRITE_IMM, READ, CMP_SWP, FETCH_ADD = range(8)
REG_MR, LOCAL_INV, FLUSH, ATOMIC_WRITE, BIND_MW = range(8, 13)
SIGNALED, SOLICITED, FENCE, INLINE, AV = 1, 2, 4, 8, 16
RC, UC, UD, RC_BACK = range(4)
TIME, TWICE, NO_RECV = 1, 2, 4
REMOTE = DATA + 0x10000  # where remote operations land, inside the data MR
MR, FAST_MR, MW1, MW2, AH, UD_QPN, FAST_MR_5A, MW1_5A, MW2_5A, BOUND_MW = (sym(i) for i in range(10))


def seed(wqes, qp=RC, control=0, scratch=b""):
    ring = b"".join(wqes)
    return bytes([qp, len(ring) // 64, control, 0]) + ring.ljust(4096, b"\0") + scratch


def reg_mr(key, pages, iova=0x7F0000000000, length=None, access=0x0F, page_shift=12,
           pbl=SCRATCH):
    length = length if length is not None else pages << page_shift
    seg = struct.pack("<IIB3xI", key, access, page_shift, pages)
    ext = struct.pack("<QQQ", pbl, iova, length)
    return block0(REG_MR, SIGNALED, 2, 0, seg=seg) + blocks(ext)


def page_list(count, first=DATA):
    return b"".join(struct.pack("<Q", first + 4096 * i) for i in range(count))


def bind(mw_key, addr, length, access=0x06, mr_key=MR):
    return block0(BIND_MW, SIGNALED, 1, 0, seg=struct.pack("<IIQQI", mw_key, mr_key, addr, length,
                                                           access))


def av_block():
    av = struct.pack("<IBBBB", 0, 0, 64, 0, 0) + GID + MAC + struct.pack("<H", 0)
    return blocks(av)


SEEDS = {
    "rc-send": seed([wqe(SEND, [(DATA, 64, MR)])]),
    "rc-send-imm-3sge": seed([wqe(SEND_IMM, [(DATA, 100, MR), (DATA + 4096, 200, MR),
                                             (DATA + 9000, 300, MR)], imm=0xdeadbeef)]),
    "rc-send-5sge": seed([wqe(SEND, [(DATA + 512 * i, 500, MR) for i in range(5)])]),
    "rc-send-inline": seed([inline_wqe(SEND, bytes(range(100)))]),
    "rc-send-solicited": seed([wqe(SEND, [(DATA, 16, MR)], flags=SIGNALED | SOLICITED)]),
    "rc-send-zero-length": seed([wqe(SEND, [])]),
    "rc-send-large": seed([wqe(SEND, [(DATA, 8192, MR)])]),
    "rc-send-too-large": seed([wqe(SEND, [(DATA, 20000, MR)])]),
    "rc-write": seed([wqe(WRITE, [(DATA, 4096, MR)], seg=rdma_seg(REMOTE, MR))]),
    "rc-write-inline": seed([inline_wqe(WRITE, b"x" * 200, seg=rdma_seg(REMOTE, MR))]),
    "rc-write-imm": seed([wqe(WRITE_IMM, [(DATA, 300, MR)], seg=rdma_seg(REMOTE, MR), imm=7)]),
    "rc-write-bad-rkey": seed([wqe(WRITE, [(DATA, 64, MR)], seg=rdma_seg(REMOTE, 0x12345678))]),
    "rc-write-out-of-bounds": seed([wqe(WRITE, [(DATA, 4096, MR)],
                                        seg=rdma_seg(DATA + (512 << 10) - 100, MR))]),
    "rc-read": seed([wqe(READ, [(DATA, 3000, MR)], seg=rdma_seg(REMOTE, MR))]),
    "rc-read-2sge": seed([wqe(READ, [(DATA, 1000, MR), (DATA + 8192, 1000, MR)],
                              seg=rdma_seg(REMOTE, MR))]),
    "rc-cmp-swap": seed([wqe(CMP_SWP, [(DATA, 8, MR)], seg=atomic_seg(REMOTE, MR, 0, 5))]),
    "rc-fetch-add": seed([wqe(FETCH_ADD, [(DATA, 8, MR)], seg=atomic_seg(REMOTE, MR, 3))]),
    "rc-atomic-unaligned": seed([wqe(FETCH_ADD, [(DATA, 8, MR)],
                                     seg=atomic_seg(REMOTE + 4, MR, 3))]),
    "rc-flush": seed([wqe(FLUSH, [], seg=struct.pack("<QIIBB", REMOTE, MR, 4096, 3, 0))]),
    "rc-flush-mr": seed([wqe(FLUSH, [], seg=struct.pack("<QIIBB", 0, MR, 0, 1, 1))]),
    "rc-atomic-write": seed([wqe(ATOMIC_WRITE, [], seg=struct.pack("<QII8s", REMOTE, MR, 0,
                                                                    b"12345678"))]),
    "rc-fast-reg": seed([reg_mr(FAST_MR_5A, 4)], scratch=page_list(4)),
    "rc-fast-reg-then-write": seed(
        [reg_mr(FAST_MR_5A, 4, iova=0x7F0000000000, access=0x0F),
         wqe(WRITE, [(DATA, 256, MR)], seg=rdma_seg(0x7F0000000100, FAST_MR_5A)),
         wqe(READ, [(0x7F0000001000, 256, FAST_MR_5A)], seg=rdma_seg(REMOTE, MR))],
        scratch=page_list(4)),
    "rc-fast-reg-huge-pages": seed([reg_mr(FAST_MR_5A, 2, page_shift=21)],
                                   scratch=page_list(2)),
    "rc-fast-reg-too-many": seed([reg_mr(FAST_MR_5A, 17)], scratch=page_list(17)),
    "rc-fast-reg-bad-pbl": seed([reg_mr(FAST_MR_5A, 4, pbl=0x1234567)]),
    "rc-fast-reg-local-inv": seed(
        [reg_mr(FAST_MR_5A, 4), wqe(LOCAL_INV, [], inv=FAST_MR_5A),
         wqe(WRITE, [(DATA, 64, MR)], seg=rdma_seg(0x7F0000000000, FAST_MR_5A))],
        scratch=page_list(4)),
    "rc-local-inv-regular-mr": seed([wqe(LOCAL_INV, [], inv=MR)]),
    "rc-bind-mw1": seed([bind(MW1_5A, REMOTE, 8192),
                         wqe(WRITE, [(DATA, 64, MR)], seg=rdma_seg(REMOTE, MW1_5A))]),
    "rc-bind-mw2": seed([bind(MW2_5A, REMOTE, 8192, access=0x0E),
                         wqe(READ, [(DATA, 512, MR)], seg=rdma_seg(REMOTE + 100, MW2_5A)),
                         wqe(SEND_INV, [(DATA, 16, MR)], inv=MW2_5A)]),
    "rc-bound-mw2-write-read": seed([wqe(WRITE, [(DATA, 64, MR)], seg=rdma_seg(DATA + 64, BOUND_MW)),
                                     wqe(READ, [(DATA + 8192, 64, MR)],
                                         seg=rdma_seg(DATA + 64, BOUND_MW)),
                                     wqe(CMP_SWP, [(DATA, 8, MR)],
                                         seg=atomic_seg(DATA + 128, BOUND_MW, 0, 1))]),
    "rc-bound-mw2-send-inv": seed([wqe(SEND_INV, [(DATA, 16, MR)], inv=BOUND_MW),
                                   wqe(WRITE, [(DATA, 64, MR)], seg=rdma_seg(DATA, BOUND_MW))]),
    "rc-bound-mw2-outside": seed([wqe(WRITE, [(DATA, 64, MR)],
                                      seg=rdma_seg(DATA + (256 << 10) - 8, BOUND_MW))]),
    "rc-bind-mw-outside-mr": seed([bind(MW2_5A, DATA - 4096, 8192)]),
    "rc-bind-mw-unbind": seed([bind(MW1_5A, REMOTE, 4096), bind(MW1_5A, 0, 0)]),
    "rc-send-inv-fast-mr": seed([reg_mr(FAST_MR_5A, 1), wqe(SEND_INV, [(DATA, 32, MR)],
                                                            inv=FAST_MR_5A)],
                                scratch=page_list(1)),
    "rc-mixed-fence": seed([wqe(READ, [(DATA, 2048, MR)], seg=rdma_seg(REMOTE, MR)),
                            wqe(SEND, [(DATA, 64, MR)], flags=SIGNALED | FENCE),
                            wqe(WRITE, [(DATA, 128, MR)], flags=0, seg=rdma_seg(REMOTE, MR)),
                            wqe(FETCH_ADD, [(DATA, 8, MR)], seg=atomic_seg(REMOTE, MR, 1))]),
    "rc-rnr-retry": seed([wqe(SEND, [(DATA, 64, MR)])], control=NO_RECV | TIME),
    "rc-retransmit-twice": seed([wqe(SEND, [(DATA, 64, MR)]),
                                 wqe(READ, [(DATA, 64, MR)], seg=rdma_seg(REMOTE, MR))],
                                control=TWICE | TIME),
    "rc-back-send": seed([wqe(SEND, [(DATA, 128, MR)])], qp=RC_BACK),
    "rc-bad-opcode": seed([block0(0x3F)]),
    "rc-zero-blocks": seed([block0(SEND, num_blocks=0)]),
    "rc-sge-count-mismatch": seed([block0(SEND, num_blocks=1, num_sge=9)]),
    "rc-reserved-nonzero": seed([block0(SEND, num_blocks=2, num_sge=1, xrc_srqn=5)
                                 + blocks(struct.pack("<QII", DATA, 8, MR))]),
    "rc-bad-lkey": seed([wqe(SEND, [(DATA, 64, 0x4242)])]),
    "rc-inline-too-long": seed([block0(SEND, SIGNALED | INLINE, 2, 0, inline_len=1000)
                                + blocks(b"y" * 64)]),
    "rc-wrap": seed([wqe(SEND, [(DATA, 64, MR)]) for _ in range(30)], control=TWICE),
    "uc-send": seed([wqe(SEND, [(DATA, 64, MR)])], qp=UC),
    "uc-write-imm": seed([wqe(WRITE_IMM, [(DATA, 2000, MR)], seg=rdma_seg(REMOTE, MR), imm=9)],
                         qp=UC),
    "uc-read-refused": seed([wqe(READ, [(DATA, 64, MR)], seg=rdma_seg(REMOTE, MR))], qp=UC),
    "ud-send": seed([wqe(SEND, [(DATA, 256, MR)], seg=ud_seg(AH, UD_QPN, 0x1111))], qp=UD),
    "ud-send-qp-qkey": seed([wqe(SEND_IMM, [(DATA, 32, MR)], imm=3,
                                 seg=ud_seg(AH, UD_QPN, 0x80000000))], qp=UD),
    "ud-send-bad-qkey": seed([wqe(SEND, [(DATA, 32, MR)], seg=ud_seg(AH, UD_QPN, 0x2222))],
                             qp=UD),
    "ud-send-bad-ah": seed([wqe(SEND, [(DATA, 32, MR)], seg=ud_seg(99, UD_QPN, 0x1111))], qp=UD),
    "ud-send-av": seed([block0(SEND, SIGNALED | AV, 3, 1, seg=ud_seg(0, UD_QPN, 0x1111))
                        + av_block() + blocks(struct.pack("<QII", DATA, 64, MR))], qp=UD),
    "ud-send-inline-av": seed([block0(SEND, SIGNALED | AV | INLINE, 3, 0, inline_len=40,
                                      seg=ud_seg(0, UD_QPN, 0x1111))
                               + av_block() + blocks(b"z" * 40)], qp=UD),
    "ud-send-too-large": seed([wqe(SEND, [(DATA, 2000, MR)], seg=ud_seg(AH, UD_QPN, 0x1111))],
                              qp=UD),
    "ud-write-refused": seed([wqe(WRITE, [(DATA, 32, MR)], seg=rdma_seg(REMOTE, MR))], qp=UD),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
    write_seeds(out, SEEDS)


if __name__ == "__main__":
    main()
