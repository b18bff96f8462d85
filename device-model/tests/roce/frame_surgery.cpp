#include "frame_surgery.hpp"

#include <algorithm>
#include <span>

#include "iba/wire_bytes.hpp"
#include "roce/icrc.hpp"
#include "roce/network_headers.hpp"

namespace ornic::roce::testing {

using namespace iba;

bool is_ipv4_frame(const std::vector<uint8_t>& frame) {
  return load_be16(frame, 12) == kEtherTypeIpv4;
}

size_t bth_offset(const std::vector<uint8_t>& frame) {
  return is_ipv4_frame(frame) ? kIpv4BthOffset : kIpv6BthOffset;
}

void refresh_ipv4_checksum(std::vector<uint8_t>& frame) {
  Ipv4Header::fill_checksum(
      std::span<uint8_t>(frame).subspan(kIpOffset).first<Ipv4Header::kSize>());
}

void refresh_icrc(std::vector<uint8_t>& frame) {
  const std::span<uint8_t> ip_packet = std::span<uint8_t>(frame).subspan(kIpOffset);
  const size_t icrc_offset = ip_packet.size() - kIcrcSize;
  store_icrc(ip_packet.subspan(icrc_offset).first<kIcrcSize>(),
             compute_icrc(is_ipv4_frame(frame) ? IpFamily::ipv4 : IpFamily::ipv6,
                          ip_packet.first(icrc_offset)));
  if (!is_ipv4_frame(frame)) {
    // The UDP checksum covers the ICRC, so it goes last.
    Ipv6Address source{}, destination{};
    std::copy_n(frame.begin() + kIpOffset + 8, 16, source.begin());
    std::copy_n(frame.begin() + kIpOffset + 24, 16, destination.begin());
    const std::span<uint8_t> segment = std::span<uint8_t>(frame).subspan(kIpv6UdpOffset);
    store_be16(segment, 6, udp_checksum_ipv6(source, destination, segment));
  }
}

void drop_bytes_before_icrc(std::vector<uint8_t>& frame, size_t count) {
  frame.erase(frame.end() - kIcrcSize - count, frame.end() - kIcrcSize);
  const bool ipv4 = is_ipv4_frame(frame);
  const size_t udp_offset = ipv4 ? kIpv4UdpOffset : kIpv6UdpOffset;
  const auto udp_length = static_cast<uint16_t>(frame.size() - udp_offset);
  store_be16(frame, udp_offset + 4, udp_length);
  if (ipv4) {
    store_be16(frame, kIpOffset + 2, static_cast<uint16_t>(frame.size() - kIpOffset));
    refresh_ipv4_checksum(frame);
  } else {
    store_be16(frame, kIpOffset + 4, udp_length);
  }
  refresh_icrc(frame);
}

} // namespace ornic::roce::testing
