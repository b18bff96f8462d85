#!/usr/bin/env python3
"""Writes the seeds of fuzz_mac_control (mac_control_fuzzer.cpp): PFC frames that pause and
resume priorities, an 802.3x PAUSE, unknown opcodes, short frames, reserved vector bits,
and 802.1Q-tagged data frames filling a slow receiver's buffers past XOFF, with the clock
moving in between.

usage: make_corpus.py [OUTPUT_DIR]"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from seeds import write_seeds  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PEER = bytes([2, 0, 0, 0, 0, 2])
NIC = bytes([2, 0, 0, 0, 0, 1])
CONTROL = bytes([0x01, 0x80, 0xC2, 0x00, 0x00, 0x01])
RX, TX, CLOCK, ENABLE = 0, 1, 2, 3


def record(op, argument, payload=b""):
    return struct.pack(">BH", op, argument) + payload


def frame_rx(frame):
    return record(RX, len(frame), frame)


def frame_tx(frame):
    return record(TX, len(frame), frame)


def pad(frame):
    return frame + bytes(max(0, 60 - len(frame)))


def pfc(vector, times, reserved=0):
    return pad(CONTROL + PEER + struct.pack(">HHBB8H", 0x8808, 0x0101, reserved, vector, *times))


def pause(time):
    return pad(CONTROL + PEER + struct.pack(">HHH", 0x8808, 0x0001, time))


def tagged(pcp, size=1000, vid=42, dst=NIC, src=PEER):
    head = dst + src + struct.pack(">HHH", 0x8100, (pcp << 13) | vid, 0x0800)
    return head + bytes(max(0, size - len(head)))


def untagged(size=200):
    return NIC + PEER + struct.pack(">H", 0x0800) + bytes(size - 14)


SEEDS = {
    "pfc-pause-resume": frame_rx(pfc(0x08, [0, 0, 0, 0xFFFF, 0, 0, 0, 0]))
    + frame_tx(tagged(3, dst=PEER, src=NIC)) + frame_tx(tagged(0, dst=PEER, src=NIC))
    + record(CLOCK, 100) + frame_rx(pfc(0x08, [0] * 8)) + record(CLOCK, 100),
    "pfc-all-priorities": frame_rx(pfc(0xFF, [1, 2, 3, 4, 5, 6, 7, 0xFFFF]))
    + b"".join(frame_tx(tagged(p, 300, dst=PEER, src=NIC)) for p in range(8))
    + record(CLOCK, 1),
    "legacy-pause": frame_rx(pause(0x100)) + frame_tx(untagged()) + record(ENABLE, 0)
    + frame_rx(pause(0xFFFF)) + frame_tx(untagged()) + record(CLOCK, 2000),
    "unknown-opcode": frame_rx(pad(CONTROL + PEER + struct.pack(">HH", 0x8808, 0x0002))),
    "short-pfc": frame_rx(pfc(0x08, [0, 0, 0, 9, 0, 0, 0, 0])[:30]),
    "reserved-bits": frame_rx(pfc(0x08, [0, 0, 0, 9, 0, 0, 0, 0], reserved=0x80)),
    "xoff-xon": b"".join(frame_rx(tagged(3, 150)) for _ in range(11)) + record(CLOCK, 30)
    + b"".join(frame_rx(tagged(1, 150)) for _ in range(30)) + record(CLOCK, 3000),
    "pause-storm": b"".join(frame_rx(pfc(0x04, [0, 0, 0xFFFF, 0, 0, 0, 0, 0]))
                            + frame_tx(tagged(2, 500, dst=PEER, src=NIC))
                            + record(CLOCK, 300) for _ in range(10)),
    "tagged-frames": frame_rx(tagged(5, 64)) + frame_rx(tagged(7, 64, vid=0))
    + frame_rx(untagged(64)) + frame_rx(tagged(6, 18)[:15]),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus")
    write_seeds(out, SEEDS)


if __name__ == "__main__":
    main()
