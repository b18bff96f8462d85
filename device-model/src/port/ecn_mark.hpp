// ECN marking as a congested switch does it (RFC 3168): an ECN-capable IPv4 or IPv6 packet
// (ECT(0) or ECT(1)), untagged or behind up to two VLAN tags, gets Congestion Experienced;
// the IPv4 header checksum is updated incrementally (RFC 1624). Not-ECT packets, CE ones
// and non-IP frames are left alone. The RoCEv2 ICRC masks the traffic class, so a marked
// RoCE packet still verifies.
#pragma once

#include <cstddef>
#include <span>

namespace ornic {

// True if the frame was ECN-capable and is now marked CE.
bool mark_ecn_ce(std::span<std::byte> frame);

} // namespace ornic
