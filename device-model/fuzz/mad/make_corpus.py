#!/usr/bin/env python3
"""Writes the seeds of fuzz_mad (mad_fuzzer.cpp): the MADs a subnet manager's sweep sends
a channel adapter's SMA (OpenSM's discovery, LID assignment, P_Key table and port
activation), what infiniband-diags asks (smpquery, perfquery and its counter resets), M_Key
protection with a lease running out, and requests the agents refuse or leave to software.

usage: make_corpus.py [OUTPUT_DIR]"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from seeds import write_seeds  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
LID_ROUTED, PERF, DIRECTED = 0x01, 0x04, 0x81
GET, SET, TRAP, TRAP_REPRESS = 0x01, 0x02, 0x05, 0x07
NODE_DESC, NODE_INFO, SWITCH_INFO, GUID_INFO, PORT_INFO = 0x10, 0x11, 0x12, 0x14, 0x15
PKEY_TABLE, SL_TO_VL, VL_ARB, SM_INFO = 0x16, 0x17, 0x18, 0x20
CLASS_PORT_INFO, PORT_COUNTERS, PORT_COUNTERS_EXT = 0x01, 0x12, 0x1D
# Operations of a record (mad_fuzzer.cpp).
DIRECT, MAD_IFC, CLOCK, LINK = 0, 1, 2, 3
IGNORE_MKEY = 1

tid = 0


def mad(mgmt_class, method, attribute, modifier=0, data=b"", m_key=0, class_version=1):
    global tid
    tid += 1
    header = struct.pack(">BBBBHBBQHHI", 1, mgmt_class, class_version, method, 0, 0, 0,
                         0x4F53_4D00_0000_0000 | tid, attribute, 0, modifier)
    if mgmt_class == PERF:
        body = bytes(40) + data.ljust(192, b"\0")
    else:
        dr = struct.pack(">HH", 0xFFFF, 0xFFFF) if mgmt_class == DIRECTED else bytes(4)
        body = struct.pack(">Q", m_key) + dr + bytes(28) + data.ljust(64, b"\0") + bytes(128)
    return header + body


def record(operation, argument, payload=bytes(256)):
    assert len(payload) == 256
    return bytes([operation, argument]) + payload


def direct(payload, ignore=False):
    return record(DIRECT, IGNORE_MKEY if ignore else 0, payload)


def mad_ifc(payload, flags=0):
    return record(MAD_IFC, flags, payload)


def port_info(lid=0, sm_lid=0, state=0, phys=0, m_key=0, protect=0, lease=0, lmc=0,
              mtu=5, sm_sl=0, op_vls=1, rereg=False, timeout=18, width=0, speed=0,
              speed_ext=0):
    """A PortInfo as OpenSM writes it: the subnet's values, the rest as the port said."""
    return (struct.pack(">QQHHIHH", m_key, 0xFE80 << 48, lid, sm_lid, 0, 0, lease)
            + bytes([1, width, 2, 2, 0x10 | state, phys << 4 | 2, protect << 6 | lmc,
                     0x10 | speed, mtu << 4 | sm_sl, 0x10, 0, 8, 8, 5, 0, op_vls << 4])
            + struct.pack(">HHH", 0, 0, 0)
            + bytes([1, (0x80 if rereg else 0) | timeout, 8, 0x88])
            + bytes(8) + bytes([0x22, speed_ext]))


def pkeys(*values):
    return b"".join(struct.pack(">H", v) for v in values)


def sweep():
    """OpenSM's first sweep of a channel adapter port it reaches by directed route."""
    return b"".join([
        direct(mad(DIRECTED, GET, NODE_INFO)),
        direct(mad(DIRECTED, GET, NODE_DESC)),
        direct(mad(DIRECTED, GET, PORT_INFO, 1)),
        direct(mad(DIRECTED, GET, PKEY_TABLE, 0)),
        direct(mad(DIRECTED, SET, PORT_INFO, 1, port_info(lid=1, sm_lid=1, rereg=True))),
        direct(mad(DIRECTED, SET, PKEY_TABLE, 0, pkeys(0xFFFF, 0x8001))),
        direct(mad(DIRECTED, SET, PORT_INFO, 0x80000001,
                   port_info(lid=1, sm_lid=1, state=3, width=0xFF, speed=0xF, speed_ext=31))),
        direct(mad(DIRECTED, SET, PORT_INFO, 1, port_info(lid=1, sm_lid=1, state=4))),
        direct(mad(LID_ROUTED, GET, PORT_INFO, 1)),
    ])


def diags():
    """smpquery's attributes and perfquery with its resets, through MAD_IFC."""
    return b"".join([
        mad_ifc(mad(LID_ROUTED, GET, GUID_INFO, 0), IGNORE_MKEY),
        mad_ifc(mad(LID_ROUTED, GET, PKEY_TABLE, 1 << 16)),
        mad_ifc(mad(LID_ROUTED, GET, SL_TO_VL, 0x0101)),
        mad_ifc(mad(LID_ROUTED, SET, SL_TO_VL, 0, bytes(8))),
        mad_ifc(mad(LID_ROUTED, SET, VL_ARB, 1 << 16, bytes([0, 4, 0, 8]))),
        mad_ifc(mad(LID_ROUTED, GET, VL_ARB, 3 << 16 | 1)),
        mad_ifc(mad(PERF, GET, CLASS_PORT_INFO)),
        mad_ifc(mad(PERF, GET, PORT_COUNTERS, 0, bytes([0, 1]))),
        mad_ifc(mad(PERF, SET, PORT_COUNTERS, 0, bytes([0, 0xFF, 0xFF, 0xFF]))),
        mad_ifc(mad(PERF, GET, PORT_COUNTERS_EXT, 0, bytes([0, 1]))),
        mad_ifc(mad(PERF, SET, PORT_COUNTERS_EXT, 0, bytes([0, 1, 0, 0xFF]))),
    ])


def m_key_lease():
    """Protection level 2 with a 3-second lease: refused requests, then the lease ends."""
    key = 0x00C0FFEE00C0FFEE
    return b"".join([
        direct(mad(DIRECTED, SET, PORT_INFO, 1,
                   port_info(lid=2, sm_lid=1, m_key=key, protect=2, lease=3))),
        direct(mad(DIRECTED, GET, PORT_INFO, 1, m_key=1)),
        direct(mad(LID_ROUTED, TRAP_REPRESS, 0x0002, m_key=1)),
        direct(mad(DIRECTED, GET, PORT_INFO, 1), ignore=True),
        record(CLOCK, 4),
        direct(mad(DIRECTED, SET, PORT_INFO, 1, port_info(lid=3, sm_lid=1), m_key=1)),
        direct(mad(DIRECTED, GET, NODE_INFO, m_key=key)),
    ])


def link_flap():
    return b"".join([
        direct(mad(DIRECTED, SET, PORT_INFO, 1, port_info(lid=5, sm_lid=1, state=3))),
        record(LINK, 0),
        direct(mad(DIRECTED, SET, PORT_INFO, 1, port_info(lid=5, sm_lid=1, state=4))),
        record(LINK, 1),
        direct(mad(DIRECTED, SET, PORT_INFO, 1, port_info(lid=5, sm_lid=1, state=1))),
        direct(mad(DIRECTED, SET, PORT_INFO, 1, port_info(lid=5, sm_lid=1, phys=2))),
    ])


def refused():
    """Requests answered with a status, and what is left to software."""
    return b"".join([
        direct(mad(DIRECTED, GET, SWITCH_INFO)),
        direct(mad(DIRECTED, GET, NODE_INFO, class_version=2)),
        direct(mad(DIRECTED, SET, NODE_INFO)),
        direct(mad(DIRECTED, GET, PORT_INFO, 2)),
        direct(mad(DIRECTED, SET, PORT_INFO, 1, port_info(lid=0xC000))),
        direct(mad(DIRECTED, GET, SM_INFO)),
        direct(mad(LID_ROUTED, TRAP, 0x0002)),
        direct(mad(DIRECTED, 0x81, PORT_INFO)),
        direct(mad(PERF, GET, 0x0010)),
        mad_ifc(mad(LID_ROUTED, GET, NODE_INFO), 4),
        mad_ifc(mad(LID_ROUTED, GET, NODE_INFO), 8),
    ])


SEEDS = {
    "opensm-sweep": b"\x01" + sweep(),
    "diags": b"\x01" + diags(),
    "m-key-lease": b"\x01" + m_key_lease(),
    "link-flap": b"\x01" + link_flap(),
    "refused": b"\x01" + refused(),
    "link-down": b"\x00" + sweep(),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus")
    write_seeds(out, SEEDS)


if __name__ == "__main__":
    main()
