#include "iwarp/ddp_header.hpp"

#include "iba/wire_bytes.hpp"

namespace ornic::iwarp {

using namespace iba;

std::optional<DdpHeader> load_ddp_header(std::span<const uint8_t> bytes) {
  if (bytes.empty())
    return std::nullopt;
  DdpHeader header;
  const uint8_t control = bytes[0];
  header.tagged = control & kDdpFlagTagged;
  if (bytes.size() < header.size())
    return std::nullopt;
  header.last = control & kDdpFlagLast;
  header.reserved = control & kDdpReservedMask;
  header.version = control & kDdpVersionMask;
  header.ulp_control = bytes[1];
  if (header.tagged) {
    header.stag = load_be32(bytes, 2);
    header.tagged_offset = load_be64(bytes, 6);
  } else {
    header.ulp_word = load_be32(bytes, 2);
    header.queue_number = load_be32(bytes, 6);
    header.msn = load_be32(bytes, 10);
    header.message_offset = load_be32(bytes, 14);
  }
  return header;
}

void store_ddp_header(std::span<uint8_t> bytes, const DdpHeader& header) {
  bytes[0] = static_cast<uint8_t>(
      (header.tagged ? kDdpFlagTagged : 0) | (header.last ? kDdpFlagLast : 0) |
      (header.reserved & kDdpReservedMask) | (header.version & kDdpVersionMask));
  bytes[1] = header.ulp_control;
  if (header.tagged) {
    store_be32(bytes, 2, header.stag);
    store_be64(bytes, 6, header.tagged_offset);
  } else {
    store_be32(bytes, 2, header.ulp_word);
    store_be32(bytes, 6, header.queue_number);
    store_be32(bytes, 10, header.msn);
    store_be32(bytes, 14, header.message_offset);
  }
}

} // namespace ornic::iwarp
