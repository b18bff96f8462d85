#!/usr/bin/env python3
"""Writes the engine seeds of fuzz_roce: frames addressed to the fuzzer's EngineRig
(fuzz/common/engine_rig.hpp) that reach the responder and the completer. ICRC and IPv4
checksum are left zero: the fuzzer repairs them. The first byte (destination MAC) is the
control byte the fuzzer reads before it addresses the frame to the rig (see roce_fuzzer.cpp).

usage: make_engine_corpus.py [OUTPUT_DIR]"""
import os
import struct
import sys

BUFFER = 0x40000000 + (512 << 10)
RKEY = 0x100


def frame(control, opcode, psn, headers=b"", payload=b"", ack_req=True, dest_qp=2):
    pad = (4 - len(payload) % 4) % 4
    bth = struct.pack(">BBHI", opcode, pad << 4, 0xFFFF, dest_qp & 0xFFFFFF)
    bth += struct.pack(">I", (0x80000000 if ack_req else 0) | psn)
    roce = bth + headers + payload + b"\0" * pad + b"\0" * 4
    udp = struct.pack(">HHHH", 0xC000, 4791, 8 + len(roce), 0) + roce
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                     bytes([10, 0, 0, 2]), bytes([10, 0, 0, 1])) + udp
    eth = bytes([control, 0, 0, 0, 0, 1]) + bytes([2, 0, 0, 0, 0, 2]) + b"\x08\x00"
    return eth + ip


def xrceth(srqn):
    return struct.pack(">I", srqn & 0xFFFFFF)


def reth(va, length):
    return struct.pack(">QII", va, RKEY, length)


def aeth(syndrome, msn):
    return struct.pack(">I", syndrome << 24 | msn)


SEEDS = {
    # Requests for the responder (expected PSN 0).
    "engine-send-only": frame(0x00, 0x04, 0, payload=bytes(range(64))),
    "engine-send-first": frame(0x00, 0x00, 0, payload=bytes(256), ack_req=False),
    "engine-write-only": frame(0x00, 0x0A, 0, reth(BUFFER + 8192, 64), bytes(64)),
    "engine-write-imm": frame(0x00, 0x0B, 0, reth(BUFFER, 8) + b"\1\2\3\4", bytes(8)),
    "engine-read-request": frame(0x00, 0x0C, 0, reth(BUFFER, 600)),
    "engine-cmp-swap": frame(0x00, 0x13, 0, struct.pack(">QIQQ", BUFFER, RKEY, 5, 0)),
    "engine-fetch-add": frame(0x08, 0x14, 0, struct.pack(">QIQQ", BUFFER + 8, RKEY, 1, 0)),
    "engine-psn-gap": frame(0x00, 0x04, 5, payload=bytes(4)),
    # IBTA 1.5: FLUSH (FETH persistent + global, range level, then RETH) and ATOMIC WRITE.
    "engine-flush": frame(0x00, 0x1C, 0, struct.pack(">I", 0x03) + reth(BUFFER, 4096)),
    "engine-atomic-write": frame(0x00, 0x1D, 0, reth(BUFFER + 16, 8), bytes(range(8))),
    # SEND_ONLY_WITH_INVALIDATE naming the rig's regular MR: the refused remote invalidation.
    "engine-send-inv": frame(0x00, 0x17, 0, struct.pack(">I", RKEY), bytes(16)),
    # Responses for the completer (WRITE at PSN 0-2, READ 3-5, FETCH_ADD 6, SEND 7).
    "engine-ack": frame(0x00, 0x11, 2, aeth(0x1F, 1)),
    "engine-read-first": frame(0x00, 0x0D, 3, aeth(0x1F, 2), bytes(256)),
    "engine-read-last": frame(0x00, 0x0F, 5, aeth(0x1F, 2), bytes(88)),
    "engine-atomic-ack": frame(0x00, 0x12, 6, aeth(0x1F, 3) + struct.pack(">Q", 7)),
    "engine-nak-sequence": frame(0x10, 0x11, 1, aeth(0x60, 0)),
    "engine-rnr-nak": frame(0x10, 0x11, 0, aeth(0x21, 0)),
    "engine-nak-access": frame(0x00, 0x11, 0, aeth(0x62, 0)),
    # XRC requests for the rig's target QP (control 0x03 with an XRC opcode), naming its XRC
    # SRQ 1; one naming an SRQ of no domain of the target's (the invalid request).
    "engine-xrc-send-only": frame(0x03, 0xA4, 0, xrceth(1), bytes(range(48))),
    "engine-xrc-send-first": frame(0x03, 0xA0, 0, xrceth(1), bytes(256), ack_req=False),
    "engine-xrc-write-only": frame(0x03, 0xAA, 0, xrceth(1) + reth(BUFFER + 8192, 32),
                                   bytes(32)),
    "engine-xrc-read-request": frame(0x03, 0xAC, 0, xrceth(1) + reth(BUFFER, 300)),
    "engine-xrc-fetch-add": frame(0x03, 0xB4, 0,
                                  xrceth(1) + struct.pack(">QIQQ", BUFFER + 8, RKEY, 1, 0)),
    "engine-xrc-wrong-srq": frame(0x03, 0xA4, 0, xrceth(0x77), bytes(16)),
    # UC requests (control 0x03 with a UC opcode: the rig's UC QP, expected PSN 0): a SEND of
    # three packets with a gap, a WRITE with immediate, a WRITE with a bad rkey.
    "engine-uc-send-first": frame(0x03, 0x20, 0, payload=bytes(256), ack_req=False),
    "engine-uc-send-gap": frame(0x03, 0x22, 2, payload=bytes(40), ack_req=False),
    "engine-uc-write-imm": frame(0x03, 0x2B, 0, reth(BUFFER, 8) + b"\1\2\3\4", bytes(8),
                                 ack_req=False),
    "engine-uc-write-bad-rkey": frame(0x03, 0x2A, 0, struct.pack(">QII", BUFFER, 0x1234, 64),
                                      bytes(64), ack_req=False),
    # A UD datagram with the rig's Q_Key.
    "engine-ud-send": frame(0x01, 0x64, 9, struct.pack(">II", 0x1111, 0x20), bytes(32),
                            ack_req=False),
    # A CM MAD for the GSI QP (QPN 1, Q_Key 0x80010000); control 0x02 keeps the QPN.
    "engine-gsi-mad": frame(0x02, 0x64, 0, struct.pack(">II", 0x80010000, 1), bytes(256),
                            ack_req=False, dest_qp=1),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), "wb") as file:
            file.write(data)
    print(f"{len(SEEDS)} seeds in {out}")


if __name__ == "__main__":
    main()
