// The Local Route Header (IBA 7.7): the first 8 bytes of every InfiniBand packet, which
// the subnet's switches route by (DLID) and schedule by (VL, SL).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ornic::ib {

// LNH, the Link Next Header (IBA 7.7.4): what follows the LRH.
enum class LinkNext : uint8_t {
  raw = 0,        // a raw datagram (not IBA transport)
  ip_raw = 1,     // a raw IPv6 datagram
  iba_local = 2,  // BTH: a packet within the subnet
  iba_global = 3, // GRH then BTH
};

struct Lrh {
  static constexpr size_t kSize = 8;
  static constexpr uint8_t kLinkVersion = 0;
  static constexpr uint16_t kMaxPacketWords = 0x7ff;

  uint8_t virtual_lane = 0; // 4 bits
  uint8_t link_version = kLinkVersion;
  uint8_t service_level = 0; // 4 bits
  LinkNext link_next = LinkNext::iba_local;
  uint16_t destination_lid = 0;
  uint16_t packet_words = 0; // 11 bits: LRH through ICRC, in 4-byte words
  uint16_t source_lid = 0;
  // The reserved bits as received (decode only; encode writes zeros).
  bool reserved_clear = true;

  void encode(std::span<uint8_t, kSize> out) const;
  static Lrh decode(std::span<const uint8_t, kSize> in);
  bool operator==(const Lrh&) const = default;
};

} // namespace ornic::ib
