// RoCEv2 GIDs: a GID is an IPv6 address; an IPv4 GID is the IPv4-mapped address
// ::ffff:a.b.c.d and selects IPv4 encapsulation.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "iba/gid.hpp"
#include "roce/icrc.hpp"
#include "roce/network_headers.hpp"

namespace ornic::roce {

using Gid = iba::Gid; // RoCEv2 names ports and groups by IB GIDs

bool is_ipv4_mapped(const Gid& gid);
// The IP family a GID selects for encapsulation.
inline IpFamily gid_family(const Gid& gid) {
  return is_ipv4_mapped(gid) ? IpFamily::ipv4 : IpFamily::ipv6;
}

// A multicast group's GID (roce.rst, "Multicast"): IPv6 ff00::/8, or IPv4-mapped
// 224.0.0.0/4.
bool is_multicast(const Gid& gid);
// The Ethernet address IP multicast uses for the group: 01:00:5e + the low 23 bits of an
// IPv4 address (RFC 1112), 33:33 + the low 32 bits of an IPv6 address (RFC 2464).
std::array<uint8_t, 6> multicast_mac(const Gid& gid);

Gid gid_from_ipv4(const Ipv4Address& address);
// nullopt unless the GID is IPv4-mapped.
std::optional<Ipv4Address> ipv4_from_gid(const Gid& gid);
inline Gid gid_from_ipv6(const Ipv6Address& address) {
  return address;
}
inline Ipv6Address ipv6_from_gid(const Gid& gid) {
  return gid;
}

// Text forms as inet_pton/inet_ntop: "::ffff:10.0.0.1", "fe80::1"; a bare dotted IPv4
// address is accepted and mapped.
std::optional<Gid> gid_from_string(std::string_view text);
std::string gid_to_string(const Gid& gid);

} // namespace ornic::roce
