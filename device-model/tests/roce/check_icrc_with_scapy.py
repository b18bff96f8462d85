#!/usr/bin/env python3
"""Independent ICRC check: every frame the sample writer produces must carry the ICRC that
scapy's own RoCE implementation computes (IPv4 and IPv6), and parse as RoCE.

usage: check_icrc_with_scapy.py WRITE_SAMPLE_PCAP_BINARY
Exit 77 (skipped) when scapy or its RoCE support is missing."""
import os
import subprocess
import sys
import tempfile

try:
    from scapy.contrib.roce import BTH
    from scapy.layers.inet import IP, UDP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import Ether
    from scapy.utils import rdpcap
except ImportError as error:
    print(f"scapy with RoCE support not available ({error}): skipped")
    sys.exit(77)


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
        if IP in frame:
            frame = Ether(bytes(frame)[:14 + frame[IP].len])
        elif IPv6 in frame:
            frame = Ether(bytes(frame)[:14 + 40 + frame[IPv6].plen])
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
    if len(frames) == 0 or len(families) != 2:
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
