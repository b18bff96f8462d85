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

from scapy.all import IP, IPv6, UDP, rdpcap
from scapy.contrib.roce import BTH


# Low five bits of the BTH opcodes a responder sends (READ responses,
# ACK, atomic ACK): their QPN is the requester's, which on another device
# may be the same number as the responder's.
RESPONSES = {0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12}


def requests(path):
    for pkt in rdpcap(path):
        if UDP not in pkt or pkt[UDP].dport != 4791 or BTH not in pkt:
            continue
        if pkt[BTH].opcode & 0x1f in RESPONSES:
            continue
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
    for pkt in requests(capture):
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
