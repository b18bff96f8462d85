#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_ib: InfiniBand packets, LRH through VCRC, with and without
a GRH, for the packet codec and for the fuzzer's EngineRig (fuzz/common/engine_rig.hpp: an
InfiniBand port with LID 1 whose connected QPs' peer is LID 2): RC SEND, WRITE, READ,
atomics and the responses the rig's outstanding WQEs wait for, UC, XRC, UD SEND with a
DETH, a GSI MAD, SubnGet SMPs on QP 0 over VL15, and packets the port must drop (a bad
VCRC or ICRC, PktLen disagreeing with the length, a pad count beyond the payload, a raw LNH,
a VL15 packet for another QP...).

Both CRCs are computed here, from IBA 7.8, with nothing of the model's: the ICRC is zlib's
CRC-32 over the packet with the variant fields masked to ones (a local packet: the LRH's VL
and BTH byte 4; a global one: the whole LRH, the GRH's traffic class, flow label and hop
limit, and BTH byte 4), the VCRC a CRC-16 with the polynomial 0x100b, least-significant bit
first, starting from 0xffff and inverted at the end; both go on the wire least-significant
byte first.

The high byte of the BTH's destination QP is the fuzzer's control byte (see ib_fuzzer.cpp):
the rig overwrites the QPN with one of its own QPs'. The rig's LIDs are already in place, so
the packets are valid as they are for the codec's round trip too.

usage: make_corpus.py [OUTPUT_DIR]"""
import os
import struct
import sys
import zlib

LID = 1  # EngineRig::kLid
PEER_LID = 2  # EngineRig::kPeerLid
PERMISSIVE_LID = 0xFFFF
BUFFER = 0x40000000 + (512 << 10)  # EngineRig::kBuffer
RKEY = 0x100  # EngineRig::kMrKey
# GID 0 of the rig's port: the default subnet prefix and its port GUID (the EUI-64 of MAC
# 02:00:00:00:00:01, infiniband.rst "Identity"); the peer's GID likewise.
PORT_GID = bytes.fromhex("fe800000000000000200 00fffe000001")
PEER_GID = bytes.fromhex("fe80000000000000020000fffe000002")

# Control bits (ib_fuzzer.cpp).
RC, UD, OWN_QPN, CONNECTED = 0, 1, 2, 3
AS_GIVEN = 0x04
TWICE = 0x08
TIME_PASSES = 0x10
FIT_LENGTHS = 0x20
ARMED = 0x40
ICRC_AS_GIVEN = 0x80


def vcrc(data):
    crc = 0xFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0xD008 if crc & 1 else 0)  # 0x100b, bits reversed
    return crc ^ 0xFFFF


assert vcrc(b"123456789") == 0x0A3D, "the VCRC's check value (infiniband.rst)"


def icrc(data, global_):
    masked = bytearray(data)
    if global_:
        masked[0:8] = b"\xff" * 8
        masked[8] |= 0x0F
        masked[9:12] = b"\xff" * 3
        masked[15] = 0xFF
        bth = 48
    else:
        masked[0] |= 0xF0
        bth = 8
    masked[bth + 4] = 0xFF
    return zlib.crc32(bytes(masked)) & 0xFFFFFFFF


def packet(opcode, psn=0, headers=b"", payload=b"", control=RC, qpn=0, vl=0, sl=0,
           dlid=LID, slid=PEER_LID, global_=False, pad=None, pkey=0xFFFF, ack_req=True,
           solicited=False, lnh=None, lver=0, extra_words=0, bad_icrc=False, bad_vcrc=False):
    """An InfiniBand packet, LRH through VCRC. `qpn` is the destination QP's low 16 bits
    (what the rig keeps with control OWN_QPN); `extra_words` makes PktLen disagree, `pad`
    a pad count other than the payload's."""
    if pad is None:
        pad = -len(payload) % 4
    bth = struct.pack(">BBHI", opcode, (0x80 if solicited else 0) | pad << 4, pkey,
                      (control << 16 | qpn) & 0xFFFFFF)
    bth += struct.pack(">I", (0x80000000 if ack_req else 0) | psn)
    transport = bth + headers + payload + b"\0" * (-len(payload) % 4)
    grh = b""
    if global_:
        grh = struct.pack(">IHBB", 6 << 28 | 0x12 << 20 | 0x345, len(transport) + 4, 0x1B, 64)
        grh += PEER_GID + PORT_GID
    length = 8 + len(grh) + len(transport) + 4
    if lnh is None:
        lnh = 3 if global_ else 2
    lrh = struct.pack(">BBHHH", vl << 4 | lver, sl << 4 | lnh, dlid,
                      length // 4 + extra_words, slid)
    body = lrh + grh + transport
    body += struct.pack("<I", icrc(body, global_) ^ (0x00010000 if bad_icrc else 0))
    check = vcrc(body) ^ (0x0001 if bad_vcrc else 0)
    return body + struct.pack("<H", check)


def reth(va, length, rkey=RKEY):
    return struct.pack(">QII", va, rkey, length)


def aeth(syndrome, msn):
    return struct.pack(">I", syndrome << 24 | msn)


def deth(qkey, source_qp):
    return struct.pack(">II", qkey, source_qp)


def xrceth(srqn):
    return struct.pack(">I", srqn)


def atomic_eth(va, compare_add, swap=0):
    return struct.pack(">QIQQ", va, RKEY, compare_add, swap)


def smp(directed, attribute=0x0011, method=0x01):
    """A SubnGet (NodeInfo unless told) of 256 bytes: LID-routed, or directed-route with no
    hops (what a subnet manager sends first to a port it has not given a LID)."""
    mad = struct.pack(">BBBBHBBQHHI", 1, 0x81 if directed else 0x01, 1, method, 0, 0, 0,
                      0x1122334455667788, attribute, 0, 0)
    mad += struct.pack(">Q", 0)  # M_Key
    if directed:
        mad += struct.pack(">HH", PERMISSIVE_LID, PERMISSIVE_LID)
    return mad.ljust(256, b"\0")


def smp_packet(directed, control, **kw):
    return packet(0x64, 0, deth(0, 0), smp(directed, **kw), control=control, qpn=0, vl=15,
                  dlid=PERMISSIVE_LID if directed else LID,
                  slid=PERMISSIVE_LID if directed else PEER_LID, ack_req=False)


def gsi_mad():
    """A PerfMgt Get(ClassPortInfo), as perfquery sends first."""
    mad = struct.pack(">BBBBHHQHHI", 1, 0x04, 1, 0x01, 0, 0, 0x0102030405060708, 0x0001, 0, 0)
    return mad.ljust(256, b"\0")


SEEDS = {
    # Requests for the RC responder (expected PSN 0), local and global.
    "rc-send-only": packet(0x04, 0, payload=bytes(range(64))),
    "rc-send-only-grh": packet(0x04, 0, payload=bytes(range(64)), global_=True),
    "rc-send-first": packet(0x00, 0, payload=bytes(256), ack_req=False),
    "rc-send-imm": packet(0x05, 0, b"\1\2\3\4", bytes(13), solicited=True),
    "rc-write-only": packet(0x0A, 0, reth(BUFFER + 8192, 64), bytes(64)),
    "rc-write-only-grh": packet(0x0A, 0, reth(BUFFER + 8192, 61), bytes(61), global_=True),
    "rc-write-imm": packet(0x0B, 0, reth(BUFFER, 8) + b"\1\2\3\4", bytes(8)),
    "rc-read-request": packet(0x0C, 0, reth(BUFFER, 600)),
    "rc-read-request-grh": packet(0x0C, 0, reth(BUFFER, 300), global_=True),
    "rc-cmp-swap": packet(0x13, 0, atomic_eth(BUFFER, 5)),
    "rc-fetch-add-twice": packet(0x14, 0, atomic_eth(BUFFER + 8, 1), control=RC | TWICE),
    "rc-psn-gap": packet(0x04, 5, payload=bytes(4)),
    # Responses for the RC completer: the rig has a WRITE at PSN 0-2, a READ at 3-5, a
    # FETCH_ADD at 6 and a SEND at 7 outstanding (path MTU 256).
    "rc-ack": packet(0x11, 2, aeth(0x1F, 1)),
    "rc-ack-grh": packet(0x11, 2, aeth(0x1F, 1), global_=True),
    "rc-read-response-first": packet(0x0D, 3, aeth(0x1F, 2), bytes(256)),
    "rc-read-response-last": packet(0x0F, 5, aeth(0x1F, 2), bytes(88)),
    "rc-atomic-ack": packet(0x12, 6, aeth(0x1F, 3) + struct.pack(">Q", 7)),
    "rc-nak-sequence": packet(0x11, 1, aeth(0x60, 0), control=RC | TIME_PASSES),
    "rc-rnr-nak": packet(0x11, 0, aeth(0x21, 0), control=RC | TIME_PASSES),
    "rc-nak-access": packet(0x11, 0, aeth(0x62, 0)),
    # UC and XRC requests for the rig's connected QPs.
    "uc-send-first": packet(0x20, 0, payload=bytes(256), control=CONNECTED, ack_req=False),
    "uc-write-imm": packet(0x2B, 0, reth(BUFFER, 8) + b"\1\2\3\4", bytes(8), control=CONNECTED,
                           ack_req=False),
    "xrc-send-only": packet(0xA4, 0, xrceth(1), bytes(range(48)), control=CONNECTED),
    "xrc-write-only-grh": packet(0xAA, 0, xrceth(1) + reth(BUFFER + 8192, 32), bytes(32),
                                 control=CONNECTED, global_=True),
    # UD: a datagram with the rig's Q_Key, local and global (the GRH reaches the receive
    # buffer), and one with a wrong Q_Key.
    "ud-send-only": packet(0x64, 9, deth(0x1111, 0x20), bytes(32), control=UD, ack_req=False),
    "ud-send-only-grh": packet(0x64, 9, deth(0x1111, 0x20), bytes(33), control=UD,
                               global_=True, ack_req=False),
    "ud-send-imm": packet(0x65, 9, deth(0x1111, 0x20) + b"\1\2\3\4", bytes(8), control=UD,
                          ack_req=False),
    "ud-bad-qkey": packet(0x64, 9, deth(0x2222, 0x20), bytes(8), control=UD, ack_req=False),
    # A multicast DLID with a GRH naming a group no QP is attached to.
    "ud-multicast": packet(0x64, 0, deth(0x1111, 0x20), bytes(8), control=UD | AS_GIVEN,
                           dlid=0xC001, global_=True, ack_req=False),
    # Management: a PerfMgt MAD for the GSI QP (QP 1, its Q_Key) and SubnGet(NodeInfo) SMPs
    # for QP 0 over VL15, LID-routed and directed-route to the permissive LID, with the
    # port Active and Armed (VL15 passes either way).
    "gsi-perfmgt-get": packet(0x64, 0, deth(0x80010000, 1), gsi_mad(), control=OWN_QPN, qpn=1,
                              ack_req=False),
    "smp-subnget-nodeinfo": smp_packet(False, OWN_QPN),
    "smp-subnget-portinfo-directed": smp_packet(True, OWN_QPN | AS_GIVEN, attribute=0x0015),
    "smp-subnget-directed-armed": smp_packet(True, OWN_QPN | AS_GIVEN | ARMED),
    # A data packet to a port left Armed: it makes the port Active.
    "rc-send-armed": packet(0x04, 0, payload=bytes(16), control=RC | ARMED),
    # Packets the port must drop, each for one reason.
    # A bad VCRC (the rig repairs it: bit 7 leaves the ICRC wrong after its rewrites), a
    # bad ICRC under a right VCRC (the rig repairs both), an ACK whose pad count exceeds
    # its empty payload.
    "bad-vcrc": packet(0x04, 0, payload=bytes(16), control=RC | ICRC_AS_GIVEN, bad_vcrc=True),
    "bad-icrc": packet(0x04, 0, payload=bytes(16), bad_icrc=True),
    "bad-icrc-grh": packet(0x64, 0, deth(0x1111, 0x20), bytes(8), control=UD | ICRC_AS_GIVEN,
                           global_=True, ack_req=False, bad_icrc=True),
    "ack-pad-exceeds-payload": packet(0x11, 2, aeth(0x1F, 1), pad=3),
    "pktlen-mismatch": packet(0x04, 0, payload=bytes(16), extra_words=1),
    "pktlen-mismatch-fitted": packet(0x04, 0, payload=bytes(16), control=RC | FIT_LENGTHS,
                                     extra_words=-1),
    "raw-lnh": packet(0x04, 0, payload=bytes(16), lnh=0),
    "link-version-1": packet(0x04, 0, payload=bytes(16), lver=1),
    "vl15-not-qp0": packet(0x64, 0, deth(0x1111, 0x20), bytes(8), control=UD, vl=15,
                           ack_req=False),
    "qp0-data-vl": packet(0x64, 0, deth(0, 0), smp(False), control=OWN_QPN, qpn=0,
                          ack_req=False),
    "permissive-dlid-data-vl": packet(0x04, 0, payload=bytes(16), control=RC | AS_GIVEN,
                                      dlid=PERMISSIVE_LID),
    "wrong-dlid": packet(0x04, 0, payload=bytes(16), control=RC | AS_GIVEN, dlid=7),
    "wrong-pkey": packet(0x04, 0, payload=bytes(16), pkey=0x8001),
    "wrong-slid": packet(0x04, 0, payload=bytes(16), control=RC | AS_GIVEN, slid=9),
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
