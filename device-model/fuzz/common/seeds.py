"""Helpers the data-path seed scripts share: the NicRig's fixed addresses (nic_rig.hpp),
symbol placeholders (patch_symbols) and the WQE layouts of include/ornic/ornic_hw.h."""
import os
import struct

BASE = 0x40000000
DATA = BASE + (1 << 20)
DATA_BYTES = 512 << 10
SCRATCH = DATA + DATA_BYTES
MAC = bytes([2, 0, 0, 0, 0, 1])
GID = bytes(10) + b"\xff\xff" + bytes([10, 0, 0, 1])


def sym(n):
    """A 32-bit placeholder the fuzzer replaces by its symbol n (a key, an AH, a QPN)."""
    return 0x6B657900 | n


def sge(addr, length, lkey):
    return struct.pack("<QII", addr, length, lkey)


def block0(opcode, flags=1, num_blocks=1, num_sge=0, inline_len=0, imm=0, inv=0, wr_id=0x77,
           xrc_srqn=0, seg=b""):
    head = struct.pack("<BBBBHH", opcode, flags, num_blocks, num_sge, inline_len, 0)
    head += struct.pack(">I", imm) + struct.pack("<IQII", inv, wr_id, xrc_srqn, 0)
    return head + seg.ljust(32, b"\0")


def blocks(data):
    """Pads to whole 64-byte blocks."""
    return data + b"\0" * (-len(data) % 64)


def wqe(opcode, sges=(), flags=1, seg=b"", **kw):
    body = b"".join(sge(*s) for s in sges)
    nblocks = 1 + (len(body) + 63) // 64
    return block0(opcode, flags, nblocks, len(sges), seg=seg, **kw) + blocks(body)


def inline_wqe(opcode, data, flags=1 | 8, seg=b"", **kw):
    nblocks = 1 + (len(data) + 63) // 64
    return block0(opcode, flags, nblocks, 0, inline_len=len(data), seg=seg, **kw) + blocks(data)


def rdma_seg(addr, rkey):
    return struct.pack("<QI", addr, rkey)


def atomic_seg(addr, rkey, compare_add, swap=0):
    return struct.pack("<QIIQQ", addr, rkey, 0, compare_add, swap)


def ud_seg(ah, qpn, qkey):
    return struct.pack("<III", ah, qpn, qkey)


def recv_wqe(sges, wr_id=0x55, num_blocks=None):
    body = b"".join(sge(*s) for s in sges)
    first, rest = body[:48], body[48:]
    n = num_blocks if num_blocks is not None else 1 + (len(rest) + 63) // 64
    return struct.pack("<QBBHI", wr_id, n, len(sges), 0, 0) + first.ljust(48, b"\0") + blocks(rest)


def write_seeds(directory, seeds):
    os.makedirs(directory, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(directory, name), "wb") as file:
            file.write(data)
    print(f"{len(seeds)} seeds in {directory}")
