// A RoCEv2 packet as the transport sees it: addressing, BTH and the extension headers its
// opcode carries. The builder turns it into a frame; the parser turns a frame back into it.
#pragma once

#include <cstdint>
#include <optional>

#include "roce/gid.hpp"
#include "roce/icrc.hpp"
#include "roce/network_headers.hpp"
#include "roce/transport_headers.hpp"

namespace ornic::roce {

struct PacketDescription {
  MacAddress destination_mac{};
  MacAddress source_mac{};
  // Both GIDs IPv4-mapped → IPv4; both not → IPv6; mixed is refused by the builder.
  Gid source_gid{};
  Gid destination_gid{};
  uint8_t traffic_class = 0; // IPv4 TOS / IPv6 traffic class
  uint32_t flow_label = 0;   // IPv6 only, 20 bits
  uint8_t hop_limit = 64;    // IPv4 TTL / IPv6 hop limit
  uint16_t udp_source_port = 0xc000;

  // bth.pad_count and bth.transport_version are set by the builder.
  Bth bth;
  // Exactly those the opcode carries are present.
  std::optional<Xrceth> xrceth;
  std::optional<Deth> deth;
  std::optional<Feth> feth;
  std::optional<Reth> reth;
  std::optional<AtomicEth> atomic_eth;
  std::optional<Aeth> aeth;
  std::optional<AtomicAckEth> atomic_ack_eth;
  std::optional<ImmDt> immdt;
  std::optional<Ieth> ieth;

  IpFamily family() const { return gid_family(source_gid); }
  bool operator==(const PacketDescription&) const = default;
};

// Bytes between the payload and the ICRC so that payload + pad is a multiple of 4.
constexpr uint8_t pad_count_for(size_t payload_bytes) {
  return static_cast<uint8_t>((4 - payload_bytes % 4) % 4);
}

} // namespace ornic::roce
