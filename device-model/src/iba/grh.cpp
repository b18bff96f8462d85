#include "iba/grh.hpp"

#include <algorithm>

#include "iba/wire_bytes.hpp"

namespace ornic::iba {

void Grh::encode(std::span<uint8_t, kSize> out) const {
  store_be32(out, 0,
             uint32_t{ip_version} << 28 | uint32_t{traffic_class} << 20 | (flow_label & 0xfffff));
  store_be16(out, 4, payload_length);
  out[6] = next_header;
  out[7] = hop_limit;
  std::copy(source_gid.begin(), source_gid.end(), out.begin() + 8);
  std::copy(destination_gid.begin(), destination_gid.end(), out.begin() + 24);
}

Grh Grh::decode(std::span<const uint8_t, kSize> in) {
  Grh grh;
  const uint32_t word0 = load_be32(in, 0);
  grh.ip_version = static_cast<uint8_t>(word0 >> 28);
  grh.traffic_class = static_cast<uint8_t>(word0 >> 20);
  grh.flow_label = word0 & 0xfffff;
  grh.payload_length = load_be16(in, 4);
  grh.next_header = in[6];
  grh.hop_limit = in[7];
  std::copy_n(in.begin() + 8, 16, grh.source_gid.begin());
  std::copy_n(in.begin() + 24, 16, grh.destination_gid.begin());
  return grh;
}

} // namespace ornic::iba
