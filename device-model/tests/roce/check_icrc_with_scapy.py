#!/usr/bin/env python3
"""Independent ICRC check: every RoCEv2 frame the sample writer produces must carry the ICRC
that scapy's own RoCE implementation computes (IPv4 and IPv6), and parse as RoCE. scapy
parses RoCE v1 (Ethertype 0x8915, GRH) but computes no ICRC for it: those frames are
checked against zlib's CRC-32 over the annex A16 pseudo-packet built here.

usage: check_icrc_with_scapy.py WRITE_SAMPLE_PCAP_BINARY
Exit 77 (skipped) when scapy or its RoCE support is missing."""
import os
import subprocess
import sys
import tempfile
import zlib

try:
    from scapy.contrib.roce import BTH, GRH
    from scapy.layers.inet import IP, UDP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import Dot1Q, Ether
    from scapy.utils import rdpcap
except ImportError as error:
    print(f"scapy with RoCE support not available ({error}): skipped")
    sys.exit(77)


def v1_icrc(frame, l2):
    """The ICRC of a RoCE v1 frame: eight bytes of ones for the LRH, the GRH with traffic
    class, flow label and hop limit as ones, the BTH with its resv8a byte as ones, the
    rest as is."""
    data = bytes(frame)
    end = l2 + 40 + int.from_bytes(data[l2 + 4:l2 + 6], "big")
    grh = bytearray(data[l2:l2 + 40])
    grh[0] |= 0x0F
    grh[1:4] = b"\xff\xff\xff"
    grh[7] = 0xFF
    rest = bytearray(data[l2 + 40:end - 4])
    rest[4] = 0xFF
    crc = zlib.crc32(b"\xff" * 8 + bytes(grh) + bytes(rest))
    return data[end - 4:end], crc.to_bytes(4, "little")


def main():
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "roce.pcap")
        subprocess.run([sys.argv[1], path], check=True)
        frames = rdpcap(path)

    failures = 0
    families = set()
    opcodes = set()
    for index, frame in enumerate(frames):
        # scapy's compute_icrc would include Ethernet minimum-size padding, so hand it the
        # frame cut at the end of the IP packet.
        # An 802.1Q tag (VLAN frames) sits between the MACs and the Ethertype.
        l2 = 18 if Dot1Q in frame else 14
        if GRH in frame:
            if BTH not in frame:
                print(f"frame {index}: scapy does not see a BTH after the GRH")
                failures += 1
                continue
            wire_icrc, expected = v1_icrc(frame, l2)
            families.add("GRH")
            opcodes.add(frame[BTH].opcode)
            if wire_icrc != expected:
                print(f"frame {index} (RoCE v1) opcode {frame[BTH].opcode:#x}: ICRC "
                      f"{wire_icrc.hex()} but zlib computes {expected.hex()}")
                failures += 1
            continue
        if IP in frame:
            frame = Ether(bytes(frame)[:l2 + frame[IP].len])
        elif IPv6 in frame:
            frame = Ether(bytes(frame)[:l2 + 40 + frame[IPv6].plen])
        if BTH not in frame:
            print(f"frame {index}: scapy does not see a BTH")
            failures += 1
            continue
        bth = frame[BTH]
        # The UDP length excludes Ethernet padding; the ICRC is the last 4 bytes within it.
        udp_bytes = bytes(frame[UDP])[:frame[UDP].len]
        wire_icrc = udp_bytes[-4:]
        # compute_icrc wants what follows the BTH, without the ICRC.
        expected = bth.compute_icrc(udp_bytes[8 + 12:-4])
        families.add(frame[UDP].underlayer.name)
        opcodes.add(bth.opcode)
        if wire_icrc != expected:
            print(f"frame {index} opcode {bth.opcode:#x}: ICRC {wire_icrc.hex()} "
                  f"but scapy computes {expected.hex()}")
            failures += 1
    print(f"{len(frames)} frames, {len(opcodes)} opcodes, families {sorted(families)}, "
          f"{failures} ICRC failures")
    if len(frames) == 0 or len(families) != 3:
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
