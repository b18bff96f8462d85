// The one table of InfiniBand transport opcodes the device speaks (RC, UC, UD and XRC), on
// every fabric: which extension headers each carries, where they sit after the BTH, and what kind
// of packet it is.
//
// Extension headers always appear in the same relative order (IBA 9.2, A14): XRCETH, DETH,
// FETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH (FETH from IBTA 1.5, before the
// RETH). The table only says which are present; the offsets follow from that order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace ornic::iba {

enum class Opcode : uint8_t {
  rc_send_first = 0x00,
  rc_send_middle = 0x01,
  rc_send_last = 0x02,
  rc_send_last_with_immediate = 0x03,
  rc_send_only = 0x04,
  rc_send_only_with_immediate = 0x05,
  rc_rdma_write_first = 0x06,
  rc_rdma_write_middle = 0x07,
  rc_rdma_write_last = 0x08,
  rc_rdma_write_last_with_immediate = 0x09,
  rc_rdma_write_only = 0x0a,
  rc_rdma_write_only_with_immediate = 0x0b,
  rc_rdma_read_request = 0x0c,
  rc_rdma_read_response_first = 0x0d,
  rc_rdma_read_response_middle = 0x0e,
  rc_rdma_read_response_last = 0x0f,
  rc_rdma_read_response_only = 0x10,
  rc_acknowledge = 0x11,
  rc_atomic_acknowledge = 0x12,
  rc_compare_swap = 0x13,
  rc_fetch_add = 0x14,
  rc_send_last_with_invalidate = 0x16,
  rc_send_only_with_invalidate = 0x17,
  rc_flush = 0x1c,        // IBTA 1.5
  rc_atomic_write = 0x1d, // IBTA 1.5
  // UC: RC's SEND and WRITE opcodes with the transport bits 001 (IBA 9.2, table 35).
  uc_send_first = 0x20,
  uc_send_middle = 0x21,
  uc_send_last = 0x22,
  uc_send_last_with_immediate = 0x23,
  uc_send_only = 0x24,
  uc_send_only_with_immediate = 0x25,
  uc_rdma_write_first = 0x26,
  uc_rdma_write_middle = 0x27,
  uc_rdma_write_last = 0x28,
  uc_rdma_write_last_with_immediate = 0x29,
  uc_rdma_write_only = 0x2a,
  uc_rdma_write_only_with_immediate = 0x2b,
  ud_send_only = 0x64,
  ud_send_only_with_immediate = 0x65,
  // XRC (IBA A14): the RC opcodes with transport code 101; requests carry an XRCETH.
  xrc_send_first = 0xa0,
  xrc_send_middle = 0xa1,
  xrc_send_last = 0xa2,
  xrc_send_last_with_immediate = 0xa3,
  xrc_send_only = 0xa4,
  xrc_send_only_with_immediate = 0xa5,
  xrc_rdma_write_first = 0xa6,
  xrc_rdma_write_middle = 0xa7,
  xrc_rdma_write_last = 0xa8,
  xrc_rdma_write_last_with_immediate = 0xa9,
  xrc_rdma_write_only = 0xaa,
  xrc_rdma_write_only_with_immediate = 0xab,
  xrc_rdma_read_request = 0xac,
  xrc_rdma_read_response_first = 0xad,
  xrc_rdma_read_response_middle = 0xae,
  xrc_rdma_read_response_last = 0xaf,
  xrc_rdma_read_response_only = 0xb0,
  xrc_acknowledge = 0xb1,
  xrc_atomic_acknowledge = 0xb2,
  xrc_compare_swap = 0xb3,
  xrc_fetch_add = 0xb4,
  xrc_send_last_with_invalidate = 0xb6,
  xrc_send_only_with_invalidate = 0xb7,
};

// The XRC transport code in an opcode's top three bits, and the RC opcode an XRC opcode
// stands for (the low five bits are the same operation on both transports).
inline constexpr uint8_t kXrcTransport = 0xa0;
inline constexpr uint8_t kTransportMask = 0xe0;
inline constexpr uint8_t rc_equivalent(uint8_t opcode) {
  return (opcode & kTransportMask) == kXrcTransport ? static_cast<uint8_t>(opcode & ~kTransportMask)
                                                    : opcode;
}
inline constexpr uint8_t to_xrc(Opcode rc) {
  return static_cast<uint8_t>(kXrcTransport | static_cast<uint8_t>(rc));
}

// Extension headers in wire order; the enumerator value is the position in that order.
enum class ExtensionHeader : uint8_t {
  xrceth,
  deth,
  feth,
  reth,
  atomic_eth,
  aeth,
  atomic_ack_eth,
  immdt,
  ieth
};
inline constexpr size_t kExtensionHeaderCount = 9;

size_t extension_header_size(ExtensionHeader header);
std::string_view extension_header_name(ExtensionHeader header);

// What a packet is; a bit set so tests and the transport can ask several questions at once.
enum OpcodeFlag : uint32_t {
  kRequest = 1u << 0,  // requester → responder
  kResponse = 1u << 1, // responder → requester
  kFirst = 1u << 2,    // first packet of a multi-packet message
  kMiddle = 1u << 3,
  kLast = 1u << 4,           // last packet of a multi-packet message
  kOnly = kFirst | kLast,    // the whole message in one packet
  kPayload = 1u << 5,        // may carry payload (possibly zero bytes)
  kImmediate = 1u << 6,      // carries ImmDt
  kInvalidate = 1u << 7,     // carries IETH
  kSend = 1u << 8,           // consumes a receive WQE at the responder
  kWrite = 1u << 9,          // RDMA WRITE
  kRead = 1u << 10,          // RDMA READ request or response
  kAtomic = 1u << 11,        // atomic request or atomic acknowledge
  kAcknowledge = 1u << 12,   // carries an ACK/NAK (AETH) to the requester
  kReliable = 1u << 13,      // RC: responder acknowledges, PSN checked
  kDatagram = 1u << 14,      // UD
  kStartsMessage = 1u << 15, // first or only: the responder starts a new message here
  kUnreliable = 1u << 16,    // UC: connected and PSN-checked, but never acknowledged
  kFlush = 1u << 17,         // FLUSH request (IBTA 1.5)
  kAtomicWrite = 1u << 18,   // ATOMIC WRITE request (IBTA 1.5)
  kXrc = 1u << 19,           // XRC transport (reliable, like RC)
};

// The UC opcode of an RC SEND or RDMA WRITE opcode (0x00..0x0b): the same packet with IBA's
// UC transport bits.
constexpr Opcode uc_opcode(Opcode rc) {
  return static_cast<Opcode>(static_cast<uint8_t>(rc) | 0x20);
}

struct OpcodeInfo {
  Opcode opcode{};
  std::string_view name;
  uint32_t flags = 0;
  uint16_t extension_mask = 0; // bit (1 << ExtensionHeader)

  bool has(uint32_t flag_bits) const { return (flags & flag_bits) == flag_bits; }
  bool carries(ExtensionHeader header) const {
    return (extension_mask & (1u << static_cast<unsigned>(header))) != 0;
  }
  // Byte offset of `header` from the start of the BTH; only meaningful when carried.
  size_t offset_of(ExtensionHeader header) const;
  // BTH plus all extension headers: where the payload starts.
  size_t header_bytes() const;
};

// nullopt for opcodes the device does not implement (including RD, CNP and reserved).
std::optional<OpcodeInfo> lookup_opcode(uint8_t opcode);
inline std::optional<OpcodeInfo> lookup_opcode(Opcode opcode) {
  return lookup_opcode(static_cast<uint8_t>(opcode));
}
// Every implemented opcode, for tests that must cover them all.
std::span<const OpcodeInfo> all_opcodes();

} // namespace ornic::iba
