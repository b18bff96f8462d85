#!/usr/bin/env python3
"""Writes the teardown seeds of fuzz_admin: the checked-in seeds that create objects
(gid_ah_srq_eth, eq_cq_qp), followed by the commands that modify, destroy and free them, in
an order that frees users before what they use -- and memory windows and an XRC domain
allocated and freed. Handles are tried from 0 to 2, as the fuzzer cannot read a command's
result: the one that names the object succeeds, the others exercise the BAD_HANDLE paths.

Input format (admin_fuzzer.cpp): u16 LE image length, the guest-memory image, then 64-byte
admin commands.

usage: make_teardown_corpus.py [CORPUS_DIR]"""
import os
import struct
import sys

ALLOC_PD, DEALLOC_PD = 0x18, 0x19
FREE_DB_PAGE, DESTROY_EQ, DESTROY_CQ = 0x09, 0x11, 0x13
ALLOC_MW, DEALLOC_MW = 0x1C, 0x1D
ALLOC_XRCD, DEALLOC_XRCD = 0x24, 0x25
MODIFY_SRQ, DESTROY_SRQ = 0x29, 0x2A
DESTROY_QP, DESTROY_AH, DEL_GID, ETH_DESTROY_RING = 0x23, 0x31, 0x39, 0x42
HANDLES = (0, 1, 2)


def command(opcode, *words):
    """An admin command: header (command_id 1), then little-endian 32-bit words."""
    body = struct.pack(f"<{len(words)}I", *words)
    return struct.pack("<BBHI", opcode, 0, 1, 0) + body.ljust(56, b"\0")


def destroy(opcode, handles=HANDLES):
    return b"".join(command(opcode, h) for h in handles)


TEARDOWN_ETH = (destroy(ETH_DESTROY_RING) + command(MODIFY_SRQ, 1, 4) +
                command(MODIFY_SRQ, 0, 4) + destroy(DESTROY_SRQ) + destroy(DESTROY_AH) +
                destroy(DESTROY_CQ) + destroy(DESTROY_EQ, (1, 2)) + destroy(FREE_DB_PAGE) +
                destroy(DEL_GID) + destroy(DEALLOC_PD))
TEARDOWN_QP = (destroy(DESTROY_QP) + destroy(DESTROY_CQ) + destroy(DESTROY_EQ, (1, 2)) +
               destroy(DEALLOC_PD))
# Type 1 and type 2 windows on PD 0..2, then XRC domains.
WINDOWS = (command(ALLOC_PD) + b"".join(command(ALLOC_MW, pd, t) for pd in HANDLES
                                         for t in (1, 2)) +
           destroy(DEALLOC_MW, range(0, 6)) + destroy(DEALLOC_PD))
XRCD = command(ALLOC_XRCD) + command(ALLOC_XRCD) + destroy(DEALLOC_XRCD)


def main():
    corpus = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                                  "corpus")
    with open(os.path.join(corpus, "gid_ah_srq_eth"), "rb") as file:
        eth = file.read()
    with open(os.path.join(corpus, "eq_cq_qp"), "rb") as file:
        qp = file.read()
    seeds = {
        "teardown_gid_ah_srq_eth": eth + TEARDOWN_ETH,
        "teardown_eq_cq_qp": qp + TEARDOWN_QP,
        "mw_xrcd": b"\0\0" + WINDOWS + XRCD,
    }
    for name, data in seeds.items():
        with open(os.path.join(corpus, name), "wb") as file:
            file.write(data)
    print(f"{len(seeds)} seeds in {corpus}")


if __name__ == "__main__":
    main()
