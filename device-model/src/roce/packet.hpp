// A RoCEv2 packet: the Ethernet, IP and UDP addressing RoCEv2 wraps around the IB transport
// headers (iba/transport_packet.hpp). The builder turns it into a frame; the parser turns a
// frame back into it.
#pragma once

#include <cstdint>
#include <optional>

#include "iba/transport_packet.hpp"
#include "roce/gid.hpp"
#include "roce/icrc.hpp"
#include "roce/network_headers.hpp"

namespace ornic::roce {

// The Ethernet, IP and UDP fields of one RoCEv2 packet.
struct Addressing {
  MacAddress destination_mac{};
  MacAddress source_mac{};
  // Both GIDs IPv4-mapped → IPv4; both not → IPv6; mixed is refused by the builder.
  Gid source_gid{};
  Gid destination_gid{};
  uint8_t traffic_class = 0; // IPv4 TOS / IPv6 traffic class
  uint32_t flow_label = 0;   // IPv6 only, 20 bits
  uint8_t hop_limit = 64;    // IPv4 TTL / IPv6 hop limit
  uint16_t udp_source_port = 0xc000;
  // RoCE v1 (Ethertype 0x8915, a GRH in place of IP and UDP): the GIDs are the GRH's as
  // they are, of either form, and the UDP port means nothing.
  bool roce_v1 = false;
  // An 802.1Q tag (roce.rst, "VLANs"): the VLAN ID and the priority (PCP) it carries.
  std::optional<uint16_t> vlan_id = std::nullopt;
  uint8_t priority = 0;

  IpFamily family() const { return gid_family(source_gid); }
  bool operator==(const Addressing&) const = default;
};

struct PacketDescription : iba::TransportHeaders, Addressing {
  bool operator==(const PacketDescription&) const = default;
};

using iba::pad_count_for;

} // namespace ornic::roce
