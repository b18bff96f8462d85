#!/usr/bin/env python3
"""Independent CRC check of the sample iWARP conversation: reads the pcap with nothing but the
standard library, follows each TCP direction past its MPA request or reply frame, cuts the
stream into FPDUs by their ULPDU length, and recomputes every FPDU's CRC32c with crcmod's
predefined 'crc-32c' (the iSCSI CRC). MPA sends the CRC least significant byte first.

usage: check_crc_with_crcmod.py WRITE_SAMPLE_STREAM_BINARY
Exit 77 (skipped) when crcmod is missing."""
import os
import struct
import subprocess
import sys
import tempfile

try:
    import crcmod.predefined
except ImportError as error:
    print(f"python3-crcmod not available ({error}): skipped")
    sys.exit(77)

MPA_KEYS = (b"MPA ID Req Frame", b"MPA ID Rep Frame")
EXPECTED_FPDUS = 9


def tcp_payloads(path):
    """(direction, payload) of every IPv4/TCP frame with data, in capture order."""
    with open(path, "rb") as pcap:
        data = pcap.read()
    magic = struct.unpack_from("<I", data, 0)[0]
    if magic != 0xA1B2C3D4:
        raise ValueError(f"not a little-endian microsecond pcap: magic {magic:#x}")
    offset = 24
    while offset < len(data):
        _, _, caplen, _ = struct.unpack_from("<IIII", data, offset)
        frame = data[offset + 16:offset + 16 + caplen]
        offset += 16 + caplen
        if struct.unpack_from(">H", frame, 12)[0] != 0x0800 or frame[23] != 6:
            continue
        ihl = (frame[14] & 0x0F) * 4
        total = struct.unpack_from(">H", frame, 16)[0]
        tcp = 14 + ihl
        sport, dport = struct.unpack_from(">HH", frame, tcp)
        payload = frame[tcp + (frame[tcp + 12] >> 4) * 4:14 + total]
        if payload:
            yield (sport, dport), payload


def main():
    crc32c = crcmod.predefined.mkCrcFun("crc-32c")
    if crc32c(b"123456789") != 0xE3069283:
        print("crcmod's crc-32c does not give the check value")
        return 1
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "iwarp.pcap")
        subprocess.run([sys.argv[1], path], check=True, stdout=subprocess.DEVNULL)
        streams = {}
        for direction, payload in tcp_payloads(path):
            streams[direction] = streams.get(direction, b"") + payload

    checked = failures = 0
    for direction, stream in sorted(streams.items()):
        if stream[:16] not in MPA_KEYS:
            print(f"{direction}: stream does not start with an MPA frame")
            failures += 1
            continue
        offset = 20 + struct.unpack_from(">H", stream, 18)[0]
        while offset < len(stream):
            ulpdu = struct.unpack_from(">H", stream, offset)[0]
            covered = 2 + ulpdu + (4 - (2 + ulpdu) % 4) % 4
            if offset + covered + 4 > len(stream):
                print(f"{direction}: FPDU at {offset} runs past the stream")
                failures += 1
                break
            sent = struct.unpack_from("<I", stream, offset + covered)[0]
            want = crc32c(stream[offset:offset + covered])
            if sent != want:
                print(f"{direction}: FPDU at {offset}: CRC {sent:#010x}, crcmod says {want:#010x}")
                failures += 1
            checked += 1
            offset += covered + 4
    print(f"{checked} FPDUs checked, {failures} failures")
    if checked != EXPECTED_FPDUS or failures:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
