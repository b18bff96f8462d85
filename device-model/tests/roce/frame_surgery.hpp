// Edits built frames so that exactly one parser check fails: after changing a field, the
// checksums and lengths the parser verifies earlier are brought back in line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ornic::roce::testing {

inline constexpr size_t kIpOffset = 14;
inline constexpr size_t kIpv4UdpOffset = kIpOffset + 20;
inline constexpr size_t kIpv6UdpOffset = kIpOffset + 40;
inline constexpr size_t kIpv4BthOffset = kIpv4UdpOffset + 8;
inline constexpr size_t kIpv6BthOffset = kIpv6UdpOffset + 8;

bool is_ipv4_frame(const std::vector<uint8_t>& frame);
size_t bth_offset(const std::vector<uint8_t>& frame);
void refresh_ipv4_checksum(std::vector<uint8_t>& frame);
// Recomputes the ICRC in the last four bytes (the frame must end where the IP packet ends)
// and, on IPv6, the UDP checksum that covers it.
void refresh_icrc(std::vector<uint8_t>& frame);
// Removes `count` bytes just before the ICRC, fixing IP and UDP lengths, IPv4 checksum, ICRC.
void drop_bytes_before_icrc(std::vector<uint8_t>& frame, size_t count);

} // namespace ornic::roce::testing
