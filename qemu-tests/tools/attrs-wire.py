#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Check the wire fields of the attrs tool's frames in a capture.

  attrs-wire.py PREFIX CAPTURE WIRE_FILE

WIRE_FILE has one line per expectation, written by suites/attrs.c:
  <name> <dest QPN> <first PSN> <PSNs> <ipv4|ipv6> <tos> <ttl> <flow label> <sport>
Every RoCEv2 request frame in CAPTURE whose BTH names that destination QP
with a PSN in [first PSN, first PSN + PSNs) must carry: the IPv4 TOS / IPv6 traffic class
<tos> (its ECN bits may be ECT(0) or ECT(1) instead), the TTL / hop limit <ttl>, (IPv6) the flow label <flow label>, and the
UDP source port <sport> (-1: any port of the RoCE range 0xc000..0xffff).
Prints "PASS|FAIL: PREFIX/wire-<name> ..." per expectation (FAIL also when no
frame matched), using scapy's own dissectors.
"""
import sys

from scapy.all import IP, UDP, Ether, IPv6, RawPcapReader
from scapy.contrib.roce import BTH


# Low five bits of the BTH opcodes a responder sends (READ responses,
# ACK, atomic ACK): their QPN is the requester's, which on another device
# may be the same number as the responder's.
RESPONSES = {0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12}


def bth_fields(frame):
    """(opcode, dest QPN, PSN) of a RoCEv2 frame read from its bytes, or None.

    The captures also hold the congestion-control test's hundreds of
    thousands of frames: dissecting each with scapy took minutes, so only
    frames that may match an expectation are handed to scapy.
    """
    at, etype = 14, int.from_bytes(frame[12:14], 'big')
    if etype == 0x8100:
        at, etype = 18, int.from_bytes(frame[16:18], 'big')
    if etype == 0x0800:
        if len(frame) < at + 20 or frame[at + 9] != 17:
            return None
        at += (frame[at] & 0x0f) * 4
    elif etype == 0x86dd:
        if len(frame) < at + 40 or frame[at + 6] != 17:
            return None
        at += 40
    else:
        return None
    if len(frame) < at + 20 or int.from_bytes(frame[at + 2:at + 4], 'big') != 4791:
        return None
    bth = frame[at + 8:at + 20]
    return bth[0], int.from_bytes(bth[5:8], 'big'), int.from_bytes(bth[9:12], 'big')


def requests(path, wanted):
    """Requests (not responses) to a (dest QPN, PSN) for which wanted() is true."""
    for frame, _ in RawPcapReader(path):
        f = bth_fields(frame)
        if f is None or f[0] & 0x1f in RESPONSES or not wanted(f[1], f[2]):
            continue
        pkt = Ether(frame)
        if UDP in pkt and pkt[UDP].dport == 4791 and BTH in pkt:
            yield pkt


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    prefix, capture, wire = sys.argv[1:]
    want = []
    with open(wire) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 9:
                continue
            name, dqpn, psn, npsn, fam, tos, ttl, fl, sport = parts
            want.append((name.split('/')[-1], int(dqpn), int(psn), int(npsn), fam,
                         int(tos), int(ttl), int(fl), int(sport)))
    seen = {w[0]: [] for w in want}

    def wanted(dqpn, psn):
        return any(dqpn == w[1] and (psn - w[2]) % (1 << 24) < w[3] for w in want)

    for pkt in requests(capture, wanted):
        bth = pkt[BTH]
        for w in want:
            name, dqpn, psn, npsn = w[0], w[1], w[2], w[3]
            if bth.dqpn == dqpn and (bth.psn - psn) % (1 << 24) < npsn:
                seen[name].append(pkt)
    status = 0
    for name, dqpn, psn, _, fam, tos, ttl, fl, sport in want:
        pkts = seen[name]
        bad = []
        for pkt in pkts:
            if fam == 'ipv4':
                if IP not in pkt:
                    bad.append('not IPv4')
                    continue
                got = (pkt[IP].tos, pkt[IP].ttl, 0)
            else:
                if IPv6 not in pkt:
                    bad.append('not IPv6')
                    continue
                got = (pkt[IPv6].tc, pkt[IPv6].hlim, pkt[IPv6].fl)
            port = pkt[UDP].sport
            # The DSCP exactly; the ECN field as asked or ECT(0)/ECT(1), which a
            # device with congestion control puts on all its RoCE traffic.
            tc_ok = got[0] >> 2 == tos >> 2 and got[0] & 3 in (tos & 3, 1, 2)
            if not tc_ok or got[1:] != (ttl, fl):
                bad.append('tos/ttl/flow %s, want %s' % (got, (tos, ttl, fl)))
            if (sport >= 0 and port != sport) or not 0xc000 <= port <= 0xffff:
                bad.append('UDP source port %#x, want %s' %
                           (port, hex(sport) if sport >= 0 else '0xc000..0xffff'))
        label = '%s/wire-%s' % (prefix, name)
        if not pkts:
            print('FAIL: %s no frame to QP %#x from PSN %#x in the capture' % (label, dqpn, psn))
            status = 1
        elif bad:
            print('FAIL: %s %d of %d frames differ: %s' % (label, len(bad), len(pkts),
                                                          '; '.join(sorted(set(bad)))[:300]))
            status = 1
        else:
            print('PASS: %s %d frame(s) to QP %#x: %s tos/tclass %d, ttl/hlim %d%s, UDP sport %s' %
                  (label, len(pkts), dqpn, fam, tos, ttl,
                   ', flow label %#x' % fl if fam == 'ipv6' else '',
                   hex(sport) if sport >= 0 else 'in 0xc000..0xffff'))
    return status


if __name__ == '__main__':
    sys.exit(main())
