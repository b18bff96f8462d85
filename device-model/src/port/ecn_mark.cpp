#include "port/ecn_mark.hpp"

#include <cstdint>

namespace ornic {
namespace {

constexpr size_t kMacAddresses = 12;
constexpr size_t kVlanTag = 4;
constexpr unsigned kEcnCe = 3;

uint8_t byte_at(std::span<std::byte> frame, size_t offset) {
  return static_cast<uint8_t>(frame[offset]);
}
void set_byte(std::span<std::byte> frame, size_t offset, uint8_t value) {
  frame[offset] = std::byte{value};
}

bool ect(unsigned ecn) {
  return ecn == 1 || ecn == 2;
}

} // namespace

bool mark_ecn_ce(std::span<std::byte> frame) {
  // A switch marks tagged frames too: the IP header follows up to two VLAN tags (802.1Q,
  // 802.1ad), as RoCE on a VLAN carries it.
  size_t type_at = kMacAddresses;
  unsigned ether_type = 0;
  for (int tags = 0;; ++tags) {
    if (frame.size() < type_at + 2)
      return false;
    ether_type = unsigned{byte_at(frame, type_at)} << 8 | byte_at(frame, type_at + 1);
    if (tags == 2 || (ether_type != 0x8100 && ether_type != 0x88a8))
      break;
    type_at += kVlanTag;
  }
  const size_t ip_at = type_at + 2;
  if (ether_type == 0x0800) {
    if (frame.size() < ip_at + 20 || (byte_at(frame, ip_at) >> 4) != 4)
      return false;
    const size_t tos_at = ip_at + 1;
    const uint8_t tos = byte_at(frame, tos_at);
    if (!ect(tos & 3u))
      return false;
    // RFC 1624, eqn. 3: HC' = ~(~HC + ~m + m') over the 16-bit word holding the TOS.
    const uint16_t old_word = static_cast<uint16_t>(byte_at(frame, ip_at) << 8 | tos);
    const auto new_tos = static_cast<uint8_t>(tos | kEcnCe);
    const uint16_t new_word = static_cast<uint16_t>(byte_at(frame, ip_at) << 8 | new_tos);
    const size_t checksum_at = ip_at + 10;
    const uint16_t checksum =
        static_cast<uint16_t>(byte_at(frame, checksum_at) << 8 | byte_at(frame, checksum_at + 1));
    uint32_t sum = static_cast<uint16_t>(~checksum) + static_cast<uint16_t>(~old_word) + new_word;
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    const auto updated = static_cast<uint16_t>(~sum);
    set_byte(frame, tos_at, new_tos);
    set_byte(frame, checksum_at, static_cast<uint8_t>(updated >> 8));
    set_byte(frame, checksum_at + 1, static_cast<uint8_t>(updated));
    return true;
  }
  if (ether_type == 0x86dd) {
    if (frame.size() < ip_at + 40 || (byte_at(frame, ip_at) >> 4) != 6)
      return false;
    // The traffic class straddles bytes 0 and 1; its ECN bits are bits 5..4 of byte 1.
    const size_t at = ip_at + 1;
    const uint8_t low = byte_at(frame, at);
    if (!ect((low >> 4) & 3u))
      return false;
    set_byte(frame, at, static_cast<uint8_t>(low | kEcnCe << 4));
    return true;
  }
  return false;
}

} // namespace ornic
