#include "roce/gid.hpp"

#include <algorithm>

#include <arpa/inet.h>

namespace ornic::roce {
namespace {

constexpr std::array<uint8_t, 12> kIpv4MappedPrefix = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

} // namespace

bool is_ipv4_mapped(const Gid& gid) {
  return std::equal(kIpv4MappedPrefix.begin(), kIpv4MappedPrefix.end(), gid.begin());
}

bool is_multicast(const Gid& gid) {
  if (is_ipv4_mapped(gid))
    return (gid[12] & 0xf0) == 0xe0;
  return gid[0] == 0xff;
}

std::array<uint8_t, 6> multicast_mac(const Gid& gid) {
  if (is_ipv4_mapped(gid))
    return {0x01, 0x00, 0x5e, static_cast<uint8_t>(gid[13] & 0x7f), gid[14], gid[15]};
  return {0x33, 0x33, gid[12], gid[13], gid[14], gid[15]};
}

Gid gid_from_ipv4(const Ipv4Address& address) {
  Gid gid{};
  std::copy(kIpv4MappedPrefix.begin(), kIpv4MappedPrefix.end(), gid.begin());
  std::copy(address.begin(), address.end(), gid.begin() + 12);
  return gid;
}

std::optional<Ipv4Address> ipv4_from_gid(const Gid& gid) {
  if (!is_ipv4_mapped(gid))
    return std::nullopt;
  Ipv4Address address{};
  std::copy_n(gid.begin() + 12, 4, address.begin());
  return address;
}

std::optional<Gid> gid_from_string(std::string_view text) {
  // inet_pton stops at a NUL; text with one inside is not an address.
  if (text.find('\0') != std::string_view::npos)
    return std::nullopt;
  const std::string terminated(text);
  Gid gid{};
  if (inet_pton(AF_INET6, terminated.c_str(), gid.data()) == 1)
    return gid;
  Ipv4Address ipv4{};
  if (inet_pton(AF_INET, terminated.c_str(), ipv4.data()) == 1)
    return gid_from_ipv4(ipv4);
  return std::nullopt;
}

std::string gid_to_string(const Gid& gid) {
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(AF_INET6, gid.data(), text, sizeof(text));
  return text;
}

} // namespace ornic::roce
