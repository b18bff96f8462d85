#!/usr/bin/env python3
"""Prints the golden frames of golden_frame_test.cpp, built by scapy alone (its own IP/UDP
checksums and its own BTH ICRC), so the C++ builder is checked against an independent
implementation. Run in the testbed: python3 scapy_golden_frames.py"""
import struct

from scapy.contrib.roce import BTH
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Raw

ETHER = dict(dst="02:00:00:00:00:02", src="02:00:00:00:00:01")

# RC RDMA WRITE ONLY over IPv4: RETH, 5 bytes of payload, 3 bytes of pad.
reth = struct.pack(">QII", 0x00007F0012345678, 0x1234ABCD, 8192)
ipv4 = (Ether(**ETHER) /
        IP(src="10.0.0.1", dst="10.0.0.2", tos=0x68, ttl=61, flags="DF", id=0) /
        UDP(sport=0xC0DE, dport=4791, chksum=0) /
        BTH(opcode=0x0A, padcount=3, pkey=0xFFFF, dqpn=0x22, ackreq=1, psn=0xABCDEF) /
        Raw(reth + bytes(range(0x10, 0x15)) + b"\0" * 3))

# UD SEND ONLY WITH IMMEDIATE over IPv6: DETH, ImmDt, 8 bytes of payload, UDP checksum.
deth = struct.pack(">II", 0x80010000, 0x000011)
immdt = struct.pack(">I", 0xDEADBEEF)
ipv6 = (Ether(**ETHER) /
        IPv6(src="fd00::1", dst="fd00::2", tc=0x68, fl=0x12345, hlim=61) /
        UDP(sport=0xC0DE, dport=4791) /
        BTH(opcode=0x65, solicited=1, padcount=0, pkey=0xFFFF, dqpn=0x1, psn=0xABCDEF) /
        Raw(deth + immdt + bytes(range(0x10, 0x18))))

# IBTA 1.5 over IPv4: RC FLUSH (FETH: persistent + global, MR level; then RETH, no
# payload) and RC ATOMIC WRITE (RETH and its 8 bytes).
feth = struct.pack(">I", 0x13)
flush = (Ether(**ETHER) /
         IP(src="10.0.0.1", dst="10.0.0.2", tos=0x68, ttl=61, flags="DF", id=0) /
         UDP(sport=0xC0DE, dport=4791, chksum=0) /
         BTH(opcode=0x1C, padcount=0, pkey=0xFFFF, dqpn=0x22, ackreq=1, psn=0xABCDEF) /
         Raw(feth + reth))
atomic_write = (Ether(**ETHER) /
                IP(src="10.0.0.1", dst="10.0.0.2", tos=0x68, ttl=61, flags="DF", id=0) /
                UDP(sport=0xC0DE, dport=4791, chksum=0) /
                BTH(opcode=0x1D, padcount=0, pkey=0xFFFF, dqpn=0x22, ackreq=1, psn=0xABCDEF) /
                Raw(reth + bytes(range(0x10, 0x18))))

for name, frame in (("ipv4", ipv4), ("ipv6", ipv6), ("flush", flush),
                    ("atomic_write", atomic_write)):
    print(name, bytes(frame).hex())
