// The InfiniBand transport headers (IBA 9.2-9.3), as IB and RoCE carry them alike: the Base
// Transport Header and the extension headers, with explicit network-order encode/decode.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ornic::iba {

inline constexpr uint32_t kQpnMask = 0xffffff;
inline constexpr uint32_t kPsnMask = 0xffffff;
inline constexpr uint8_t kBthTransportVersion = 0;

struct Bth {
  static constexpr size_t kSize = 12;
  // Byte 4 holds FECN, BECN and six reserved bits; the ICRC masks it to ones.
  static constexpr size_t kIcrcMaskedByte = 4;
  uint8_t opcode = 0;
  bool solicited = false;
  bool migration_request = false;
  uint8_t pad_count = 0; // 0..3 bytes between payload and ICRC
  uint8_t transport_version = kBthTransportVersion;
  uint16_t partition_key = 0xffff;
  bool fecn = false;
  bool becn = false;
  uint32_t destination_qp = 0; // 24 bits
  bool ack_request = false;
  uint32_t psn = 0; // 24 bits

  void encode(std::span<uint8_t, kSize> out) const;
  static Bth decode(std::span<const uint8_t, kSize> in);
  bool operator==(const Bth&) const = default;
};

// RDMA Extended Transport Header: the remote buffer of a WRITE or READ.
struct Reth {
  static constexpr size_t kSize = 16;
  uint64_t virtual_address = 0;
  uint32_t rkey = 0;
  uint32_t dma_length = 0;

  void encode(std::span<uint8_t, kSize> out) const;
  static Reth decode(std::span<const uint8_t, kSize> in);
  bool operator==(const Reth&) const = default;
};

// ACK Extended Transport Header: ACK/NAK syndrome and message sequence number.
struct Aeth {
  static constexpr size_t kSize = 4;
  uint8_t syndrome = 0;
  uint32_t msn = 0; // 24 bits

  void encode(std::span<uint8_t, kSize> out) const;
  static Aeth decode(std::span<const uint8_t, kSize> in);
  bool operator==(const Aeth&) const = default;
};

struct AtomicEth {
  static constexpr size_t kSize = 28;
  uint64_t virtual_address = 0;
  uint32_t rkey = 0;
  uint64_t swap_or_add = 0;
  uint64_t compare = 0;

  void encode(std::span<uint8_t, kSize> out) const;
  static AtomicEth decode(std::span<const uint8_t, kSize> in);
  bool operator==(const AtomicEth&) const = default;
};

struct AtomicAckEth {
  static constexpr size_t kSize = 8;
  uint64_t original_data = 0;

  void encode(std::span<uint8_t, kSize> out) const;
  static AtomicAckEth decode(std::span<const uint8_t, kSize> in);
  bool operator==(const AtomicAckEth&) const = default;
};

// Immediate data: opaque 32 bits, kept in wire order as a number.
struct ImmDt {
  static constexpr size_t kSize = 4;
  uint32_t immediate = 0;

  void encode(std::span<uint8_t, kSize> out) const;
  static ImmDt decode(std::span<const uint8_t, kSize> in);
  bool operator==(const ImmDt&) const = default;
};

// Datagram Extended Transport Header (UD): Q_Key and the sender's QPN.
struct Deth {
  static constexpr size_t kSize = 8;
  uint32_t qkey = 0;
  uint32_t source_qp = 0; // 24 bits

  void encode(std::span<uint8_t, kSize> out) const;
  static Deth decode(std::span<const uint8_t, kSize> in);
  bool operator==(const Deth&) const = default;
};

// Invalidate Extended Transport Header: the rkey a SEND with invalidate revokes.
struct Ieth {
  static constexpr size_t kSize = 4;
  uint32_t rkey = 0;

  void encode(std::span<uint8_t, kSize> out) const;
  static Ieth decode(std::span<const uint8_t, kSize> in);
  bool operator==(const Ieth&) const = default;
};

// FLUSH Extended Transport Header (IBTA 1.5): what a FLUSH makes durable and how much of
// the MR. One big-endian word: bits 3..0 placement type, 5..4 selectivity level; the other
// bits are reserved and kept, so a receiver can refuse them.
struct Feth {
  static constexpr size_t kSize = 4;
  static constexpr uint32_t kPlacementMask = 0x0000000f;
  static constexpr uint32_t kSelectivityMask = 0x00000030;
  static constexpr unsigned kSelectivityShift = 4;
  uint8_t placement_type = 0;    // bit 0 global visibility, bit 1 persistence
  uint8_t selectivity_level = 0; // 0 range, 1 memory region
  uint32_t reserved = 0;         // bits 31..6 as they are on the wire

  void encode(std::span<uint8_t, kSize> out) const;
  static Feth decode(std::span<const uint8_t, kSize> in);
  bool operator==(const Feth&) const = default;
};

// XRC Extended Transport Header: the XRC SRQ a request of the XRC transport is for. One
// reserved byte, then the 24-bit SRQ number.
struct Xrceth {
  static constexpr size_t kSize = 4;
  uint32_t srqn = 0; // 24 bits

  void encode(std::span<uint8_t, kSize> out) const;
  static Xrceth decode(std::span<const uint8_t, kSize> in);
  bool operator==(const Xrceth&) const = default;
};

} // namespace ornic::iba
