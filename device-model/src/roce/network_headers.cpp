#include "roce/network_headers.hpp"

#include <algorithm>

#include "iba/wire_bytes.hpp"

namespace ornic::roce {

using namespace iba;
namespace {

// RFC 1071 ones'-complement sum, not yet folded or inverted, so pieces can be chained.
uint32_t ones_complement_add(uint32_t sum, std::span<const uint8_t> bytes) {
  size_t index = 0;
  for (; index + 1 < bytes.size(); index += 2)
    sum += load_be16(bytes, index);
  if (index < bytes.size())
    sum += uint32_t{bytes[index]} << 8;
  return sum;
}

uint16_t fold_and_invert(uint32_t sum) {
  while (sum >> 16)
    sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

} // namespace

void EthernetHeader::encode(std::span<uint8_t, kSize> out) const {
  std::copy(destination.begin(), destination.end(), out.begin());
  std::copy(source.begin(), source.end(), out.begin() + 6);
  store_be16(out, 12, ether_type);
}

EthernetHeader EthernetHeader::decode(std::span<const uint8_t, kSize> in) {
  EthernetHeader header;
  std::copy_n(in.begin(), 6, header.destination.begin());
  std::copy_n(in.begin() + 6, 6, header.source.begin());
  header.ether_type = load_be16(in, 12);
  return header;
}

void Ipv4Header::encode(std::span<uint8_t, kSize> out) const {
  out[0] = static_cast<uint8_t>(version << 4 | (ihl & 0x0f));
  out[1] = tos;
  store_be16(out, 2, total_length);
  store_be16(out, 4, identification);
  store_be16(out, 6, flags_fragment);
  out[8] = ttl;
  out[9] = protocol;
  store_be16(out, 10, checksum);
  std::copy(source.begin(), source.end(), out.begin() + 12);
  std::copy(destination.begin(), destination.end(), out.begin() + 16);
}

Ipv4Header Ipv4Header::decode(std::span<const uint8_t, kSize> in) {
  Ipv4Header header;
  header.version = in[0] >> 4;
  header.ihl = in[0] & 0x0f;
  header.tos = in[1];
  header.total_length = load_be16(in, 2);
  header.identification = load_be16(in, 4);
  header.flags_fragment = load_be16(in, 6);
  header.ttl = in[8];
  header.protocol = in[9];
  header.checksum = load_be16(in, 10);
  std::copy_n(in.begin() + 12, 4, header.source.begin());
  std::copy_n(in.begin() + 16, 4, header.destination.begin());
  return header;
}

void Ipv4Header::fill_checksum(std::span<uint8_t, kSize> encoded) {
  store_be16(encoded, 10, 0);
  store_be16(encoded, 10, fold_and_invert(ones_complement_add(0, encoded)));
}

bool Ipv4Header::checksum_valid(std::span<const uint8_t, kSize> encoded) {
  return fold_and_invert(ones_complement_add(0, encoded)) == 0;
}

void Ipv6Header::encode(std::span<uint8_t, kSize> out) const {
  store_be32(out, 0,
             uint32_t{version} << 28 | uint32_t{traffic_class} << 20 | (flow_label & 0xfffff));
  store_be16(out, 4, payload_length);
  out[6] = next_header;
  out[7] = hop_limit;
  std::copy(source.begin(), source.end(), out.begin() + 8);
  std::copy(destination.begin(), destination.end(), out.begin() + 24);
}

Ipv6Header Ipv6Header::decode(std::span<const uint8_t, kSize> in) {
  Ipv6Header header;
  const uint32_t first_word = load_be32(in, 0);
  header.version = static_cast<uint8_t>(first_word >> 28);
  header.traffic_class = static_cast<uint8_t>(first_word >> 20);
  header.flow_label = first_word & 0xfffff;
  header.payload_length = load_be16(in, 4);
  header.next_header = in[6];
  header.hop_limit = in[7];
  std::copy_n(in.begin() + 8, 16, header.source.begin());
  std::copy_n(in.begin() + 24, 16, header.destination.begin());
  return header;
}

void UdpHeader::encode(std::span<uint8_t, kSize> out) const {
  store_be16(out, 0, source_port);
  store_be16(out, 2, destination_port);
  store_be16(out, 4, length);
  store_be16(out, 6, checksum);
}

UdpHeader UdpHeader::decode(std::span<const uint8_t, kSize> in) {
  return UdpHeader{.source_port = load_be16(in, 0),
                   .destination_port = load_be16(in, 2),
                   .length = load_be16(in, 4),
                   .checksum = load_be16(in, 6)};
}

namespace {

// Pseudo header (addresses, protocol, UDP length) + UDP header and data, with the
// checksum field itself counted as zero.
uint16_t udp_checksum(std::span<const uint8_t> source, std::span<const uint8_t> destination,
                      std::span<const uint8_t> udp_segment) {
  uint32_t sum = ones_complement_add(0, source);
  sum = ones_complement_add(sum, destination);
  sum += static_cast<uint32_t>(udp_segment.size() >> 16) + (udp_segment.size() & 0xffff);
  sum += kIpProtocolUdp;
  const size_t checksum_offset = 6;
  sum = ones_complement_add(sum, udp_segment.first(std::min(udp_segment.size(), checksum_offset)));
  if (udp_segment.size() > UdpHeader::kSize)
    sum = ones_complement_add(sum, udp_segment.subspan(UdpHeader::kSize));
  const uint16_t checksum = fold_and_invert(sum);
  // 0 on the wire means "no checksum"; a computed 0 is sent as its ones'-complement twin.
  return checksum == 0 ? 0xffff : checksum;
}

} // namespace

uint16_t udp_checksum_ipv4(const Ipv4Address& source, const Ipv4Address& destination,
                           std::span<const uint8_t> udp_segment) {
  return udp_checksum(source, destination, udp_segment);
}

uint16_t udp_checksum_ipv6(const Ipv6Address& source, const Ipv6Address& destination,
                           std::span<const uint8_t> udp_segment) {
  return udp_checksum(source, destination, udp_segment);
}

uint16_t roce_udp_source_port(uint16_t configured_port, uint32_t source_qpn,
                              uint32_t destination_qpn) {
  if (configured_port != 0)
    return configured_port;
  // Any well-mixed function will do; it only has to be stable and spread QP pairs.
  uint64_t mixed = (uint64_t{source_qpn & 0xffffff} << 24 | (destination_qpn & 0xffffff)) *
                   0x9e3779b97f4a7c15ull;
  mixed ^= mixed >> 29;
  return static_cast<uint16_t>(0xc000 | ((mixed >> 32) & 0x3fff));
}

} // namespace ornic::roce
