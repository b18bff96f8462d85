#include "ib/icrc.hpp"

#include <algorithm>
#include <array>

#include "ib/lrh.hpp"
#include "iba/crc32.hpp"
#include "iba/grh.hpp"
#include "iba/transport_headers.hpp"

namespace ornic::ib {
namespace {

constexpr size_t kMaxMaskedBytes = Lrh::kSize + iba::Grh::kSize + iba::Bth::kSize;
// Up to this many bytes the packet is copied and checksummed in one call: for a small
// packet, a second call into the CRC costs about as much as the bytes it covers.
constexpr size_t kOneCallBytes = 256;

size_t masked_bytes(bool global) {
  return Lrh::kSize + (global ? iba::Grh::kSize : 0) + iba::Bth::kSize;
}

void mask_variant_fields(std::span<uint8_t> bytes, bool global) {
  if (global) {
    std::fill_n(bytes.begin(), Lrh::kSize, uint8_t{0xff});
    const std::span<uint8_t> grh = bytes.subspan(Lrh::kSize, iba::Grh::kSize);
    grh[0] |= 0x0f; // traffic class and flow label: all but the version nibble
    grh[1] = grh[2] = grh[3] = 0xff;
    grh[7] = 0xff; // hop limit
  } else {
    bytes[0] |= 0xf0; // VL
  }
  bytes[masked_bytes(global) - iba::Bth::kSize + iba::Bth::kIcrcMaskedByte] = 0xff;
}

} // namespace

uint32_t compute_icrc(std::span<const uint8_t> packet, bool global) {
  const size_t masked = masked_bytes(global);
  if (packet.size() < masked)
    return 0; // callers check lengths first; this only keeps reads in bounds
  if (packet.size() <= kOneCallBytes) {
    std::array<uint8_t, kOneCallBytes> whole;
    std::copy(packet.begin(), packet.end(), whole.begin());
    mask_variant_fields(whole, global);
    return iba::crc32_update(0, std::span<const uint8_t>(whole).first(packet.size()));
  }
  std::array<uint8_t, kMaxMaskedBytes> head;
  std::copy_n(packet.begin(), masked, head.begin());
  mask_variant_fields(head, global);
  const uint32_t crc = iba::crc32_update(0, std::span<const uint8_t>(head).first(masked));
  return iba::crc32_update(crc, packet.subspan(masked));
}

} // namespace ornic::ib
