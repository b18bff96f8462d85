#include "iba/transport_headers.hpp"

#include "iba/wire_bytes.hpp"

namespace ornic::iba {
namespace {

constexpr uint8_t kSolicitedBit = 0x80;
constexpr uint8_t kMigrationRequestBit = 0x40;
constexpr uint8_t kFecnBit = 0x80;
constexpr uint8_t kBecnBit = 0x40;
constexpr uint8_t kAckRequestBit = 0x80;

} // namespace

void Bth::encode(std::span<uint8_t, kSize> out) const {
  out[0] = opcode;
  out[1] = static_cast<uint8_t>((solicited ? kSolicitedBit : 0) |
                                (migration_request ? kMigrationRequestBit : 0) |
                                (pad_count & 0x3) << 4 | (transport_version & 0x0f));
  store_be16(out, 2, partition_key);
  out[4] = static_cast<uint8_t>((fecn ? kFecnBit : 0) | (becn ? kBecnBit : 0));
  store_be24(out, 5, destination_qp & kQpnMask);
  out[8] = ack_request ? kAckRequestBit : 0;
  store_be24(out, 9, psn & kPsnMask);
}

Bth Bth::decode(std::span<const uint8_t, kSize> in) {
  Bth bth;
  bth.opcode = in[0];
  bth.solicited = (in[1] & kSolicitedBit) != 0;
  bth.migration_request = (in[1] & kMigrationRequestBit) != 0;
  bth.pad_count = (in[1] >> 4) & 0x3;
  bth.transport_version = in[1] & 0x0f;
  bth.partition_key = load_be16(in, 2);
  bth.fecn = (in[4] & kFecnBit) != 0;
  bth.becn = (in[4] & kBecnBit) != 0;
  bth.destination_qp = load_be24(in, 5);
  bth.ack_request = (in[8] & kAckRequestBit) != 0;
  bth.psn = load_be24(in, 9);
  return bth;
}

void Reth::encode(std::span<uint8_t, kSize> out) const {
  store_be64(out, 0, virtual_address);
  store_be32(out, 8, rkey);
  store_be32(out, 12, dma_length);
}

Reth Reth::decode(std::span<const uint8_t, kSize> in) {
  return Reth{.virtual_address = load_be64(in, 0),
              .rkey = load_be32(in, 8),
              .dma_length = load_be32(in, 12)};
}

void Aeth::encode(std::span<uint8_t, kSize> out) const {
  out[0] = syndrome;
  store_be24(out, 1, msn & 0xffffff);
}

Aeth Aeth::decode(std::span<const uint8_t, kSize> in) {
  return Aeth{.syndrome = in[0], .msn = load_be24(in, 1)};
}

void AtomicEth::encode(std::span<uint8_t, kSize> out) const {
  store_be64(out, 0, virtual_address);
  store_be32(out, 8, rkey);
  store_be64(out, 12, swap_or_add);
  store_be64(out, 20, compare);
}

AtomicEth AtomicEth::decode(std::span<const uint8_t, kSize> in) {
  return AtomicEth{.virtual_address = load_be64(in, 0),
                   .rkey = load_be32(in, 8),
                   .swap_or_add = load_be64(in, 12),
                   .compare = load_be64(in, 20)};
}

void AtomicAckEth::encode(std::span<uint8_t, kSize> out) const {
  store_be64(out, 0, original_data);
}

AtomicAckEth AtomicAckEth::decode(std::span<const uint8_t, kSize> in) {
  return AtomicAckEth{.original_data = load_be64(in, 0)};
}

void ImmDt::encode(std::span<uint8_t, kSize> out) const {
  store_be32(out, 0, immediate);
}

ImmDt ImmDt::decode(std::span<const uint8_t, kSize> in) {
  return ImmDt{.immediate = load_be32(in, 0)};
}

void Deth::encode(std::span<uint8_t, kSize> out) const {
  store_be32(out, 0, qkey);
  out[4] = 0;
  store_be24(out, 5, source_qp & kQpnMask);
}

Deth Deth::decode(std::span<const uint8_t, kSize> in) {
  return Deth{.qkey = load_be32(in, 0), .source_qp = load_be24(in, 5)};
}

void Ieth::encode(std::span<uint8_t, kSize> out) const {
  store_be32(out, 0, rkey);
}

Ieth Ieth::decode(std::span<const uint8_t, kSize> in) {
  return Ieth{.rkey = load_be32(in, 0)};
}

void Feth::encode(std::span<uint8_t, kSize> out) const {
  store_be32(out, 0,
             (reserved & ~(kPlacementMask | kSelectivityMask)) | (placement_type & kPlacementMask) |
                 ((uint32_t{selectivity_level} << kSelectivityShift) & kSelectivityMask));
}

Feth Feth::decode(std::span<const uint8_t, kSize> in) {
  const uint32_t bits = load_be32(in, 0);
  return Feth{.placement_type = static_cast<uint8_t>(bits & kPlacementMask),
              .selectivity_level =
                  static_cast<uint8_t>((bits & kSelectivityMask) >> kSelectivityShift),
              .reserved = bits & ~(kPlacementMask | kSelectivityMask)};
}

void Xrceth::encode(std::span<uint8_t, kSize> out) const {
  out[0] = 0;
  store_be24(out, 1, srqn & 0xffffff);
}

// The reserved byte is ignored, as IBA receivers ignore reserved header bits.
Xrceth Xrceth::decode(std::span<const uint8_t, kSize> in) {
  return Xrceth{.srqn = load_be24(in, 1)};
}

} // namespace ornic::iba
