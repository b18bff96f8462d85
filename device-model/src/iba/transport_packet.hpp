// What the InfiniBand transport puts above the link on every packet, whatever fabric
// carries it: the BTH and exactly the extension headers its opcode carries (IBA 9.2).
// RoCE and IB framing wrap it in their own network headers; the transport engine fills it
// and reads it without knowing which.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "iba/transport_headers.hpp"

namespace ornic::iba {

struct TransportHeaders {
  // bth.pad_count and bth.transport_version are set by the framing that writes the packet.
  Bth bth;
  // Exactly those the opcode carries are present.
  std::optional<Xrceth> xrceth;
  std::optional<Deth> deth;
  std::optional<Feth> feth;
  std::optional<Reth> reth;
  std::optional<AtomicEth> atomic_eth;
  std::optional<Aeth> aeth;
  std::optional<AtomicAckEth> atomic_ack_eth;
  std::optional<ImmDt> immdt;
  std::optional<Ieth> ieth;

  bool operator==(const TransportHeaders&) const = default;
};

// Bytes between the payload and the ICRC so that payload + pad is a multiple of 4.
constexpr uint8_t pad_count_for(size_t payload_bytes) {
  return static_cast<uint8_t>((4 - payload_bytes % 4) % 4);
}

// The ICRC that ends every transport packet (IBA 7.8.1), on every fabric.
inline constexpr size_t kIcrcSize = 4;

// The ICRC goes on the wire least-significant byte first.
inline void store_icrc(std::span<uint8_t, kIcrcSize> out, uint32_t icrc) {
  for (size_t index = 0; index < kIcrcSize; ++index)
    out[index] = static_cast<uint8_t>(icrc >> (8 * index));
}
inline uint32_t load_icrc(std::span<const uint8_t, kIcrcSize> in) {
  return uint32_t{in[0]} | uint32_t{in[1]} << 8 | uint32_t{in[2]} << 16 | uint32_t{in[3]} << 24;
}

} // namespace ornic::iba
