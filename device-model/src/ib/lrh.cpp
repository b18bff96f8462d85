#include "ib/lrh.hpp"

#include "iba/wire_bytes.hpp"

namespace ornic::ib {

using iba::load_be16;
using iba::store_be16;

void Lrh::encode(std::span<uint8_t, kSize> out) const {
  out[0] = static_cast<uint8_t>((virtual_lane & 0x0f) << 4 | (link_version & 0x0f));
  out[1] = static_cast<uint8_t>((service_level & 0x0f) << 4 | static_cast<uint8_t>(link_next));
  store_be16(out, 2, destination_lid);
  store_be16(out, 4, packet_words & kMaxPacketWords);
  store_be16(out, 6, source_lid);
}

Lrh Lrh::decode(std::span<const uint8_t, kSize> in) {
  Lrh lrh;
  lrh.virtual_lane = in[0] >> 4;
  lrh.link_version = in[0] & 0x0f;
  lrh.service_level = in[1] >> 4;
  lrh.link_next = static_cast<LinkNext>(in[1] & 0x03);
  lrh.destination_lid = load_be16(in, 2);
  const uint16_t length_word = load_be16(in, 4);
  lrh.packet_words = length_word & kMaxPacketWords;
  lrh.source_lid = load_be16(in, 6);
  lrh.reserved_clear = (in[1] & 0x0c) == 0 && (length_word & ~kMaxPacketWords) == 0;
  return lrh;
}

} // namespace ornic::ib
