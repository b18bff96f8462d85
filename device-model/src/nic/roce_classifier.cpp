#include "nic/roce_classifier.hpp"

#include <algorithm>

namespace ornic {
namespace {

uint8_t byte_at(std::span<const std::byte> frame, size_t offset) {
  return std::to_integer<uint8_t>(frame[offset]);
}

uint16_t be16_at(std::span<const std::byte> frame, size_t offset) {
  return static_cast<uint16_t>(byte_at(frame, offset) << 8 | byte_at(frame, offset + 1));
}

bool gid_matches(const std::array<uint8_t, 16>& gid, std::span<const std::byte> address) {
  return std::equal(gid.begin() + (16 - address.size()), gid.end(), address.begin(),
                    [](uint8_t a, std::byte b) { return a == std::to_integer<uint8_t>(b); });
}

} // namespace

bool is_roce_for_port(std::span<const std::byte> frame,
                      const std::array<std::optional<GidEntry>, limits::kGidTableSize>& gids) {
  size_t kEth = ORNIC_ETH_HLEN;
  if (frame.size() < kEth)
    return false;
  uint16_t ethertype = be16_at(frame, 12);
  // One 802.1Q tag: the frame is for a GID of that VLAN (VLAN ID 0 tags the priority only).
  std::optional<uint16_t> vlan;
  if (ethertype == 0x8100) {
    if (frame.size() < kEth + 4)
      return false;
    if (const uint16_t id = be16_at(frame, kEth) & 0xfffu; id != 0)
      vlan = id;
    ethertype = be16_at(frame, kEth + 2);
    kEth += 4;
  }
  const auto on_vlan = [&](const GidEntry& entry) { return entry.vlan_id == vlan; };
  std::span<const std::byte> destination;
  size_t udp = 0;
  ornic_gid_type family;
  bool multicast = false;
  if (ethertype == 0x0800) {
    if (frame.size() < kEth + 20)
      return false;
    const size_t ihl = size_t{byte_at(frame, kEth) & 0x0fu} * 4;
    if (ihl < 20 || byte_at(frame, kEth + 9) != 17)
      return false;
    destination = frame.subspan(kEth + 16, 4);
    multicast = (byte_at(frame, kEth + 16) & 0xf0u) == 0xe0u; // 224.0.0.0/4
    udp = kEth + ihl;
    family = ORNIC_GID_TYPE_ROCE_V2_IPV4;
  } else if (ethertype == 0x86dd) {
    if (frame.size() < kEth + 40 || byte_at(frame, kEth + 6) != 17)
      return false;
    destination = frame.subspan(kEth + 24, 16);
    multicast = byte_at(frame, kEth + 24) == 0xffu; // ff00::/8
    udp = kEth + 40;
    family = ORNIC_GID_TYPE_ROCE_V2_IPV6;
  } else if (ethertype == 0x8915) {
    // RoCE v1: the GRH names the destination GID, which must be a v1 entry.
    if (frame.size() < kEth + 40)
      return false;
    destination = frame.subspan(kEth + 24, 16);
    if (byte_at(frame, kEth + 24) == 0xffu)
      return true;
    return std::any_of(gids.begin(), gids.end(), [&](const std::optional<GidEntry>& entry) {
      return entry && entry->type == ORNIC_GID_TYPE_ROCE_V1 && on_vlan(*entry) &&
             gid_matches(entry->gid, destination);
    });
  } else {
    return false;
  }
  if (frame.size() < udp + 8 || be16_at(frame, udp + 2) != kRoceV2UdpPort)
    return false;
  if (multicast)
    return true; // the engine delivers it to the attached QPs or counts it dropped
  return std::any_of(gids.begin(), gids.end(), [&](const std::optional<GidEntry>& entry) {
    return entry && entry->type == family && on_vlan(*entry) &&
           gid_matches(entry->gid, destination);
  });
}

} // namespace ornic
