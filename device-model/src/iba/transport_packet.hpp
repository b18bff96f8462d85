// What the InfiniBand transport puts above the link on every packet, whatever fabric
// carries it: the BTH and exactly the extension headers its opcode carries (IBA 9.2).
// RoCE and IB framing wrap it in their own network headers; the transport engine fills it
// and reads it without knowing which.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

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

} // namespace ornic::iba
