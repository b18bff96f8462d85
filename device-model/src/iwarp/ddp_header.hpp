// The DDP segment header: a control byte (T: tagged, L: last segment of the message, DDP
// version), one byte the upper layer owns (RDMAP's control byte), then for the tagged model
// the STag and tagged offset, and for the untagged model four more upper-layer bytes, the
// queue number, the message sequence number and the message offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace ornic::iwarp {

inline constexpr uint8_t kDdpVersion = 1;
inline constexpr size_t kDdpTaggedHeaderSize = 14;
inline constexpr size_t kDdpUntaggedHeaderSize = 18;

inline constexpr uint8_t kDdpFlagTagged = 0x80;
inline constexpr uint8_t kDdpFlagLast = 0x40;
inline constexpr uint8_t kDdpReservedMask = 0x3c;
inline constexpr uint8_t kDdpVersionMask = 0x03;

struct DdpHeader {
  bool tagged = false;
  bool last = true;
  uint8_t reserved = 0; // the four reserved control bits, in place (within kDdpReservedMask)
  uint8_t version = kDdpVersion;
  uint8_t ulp_control = 0; // the upper layer's byte (RDMAP: version and opcode)
  // Tagged model.
  uint32_t stag = 0;
  uint64_t tagged_offset = 0;
  // Untagged model.
  uint32_t ulp_word = 0; // the upper layer's four bytes (RDMAP: the STag to invalidate)
  uint32_t queue_number = 0;
  uint32_t msn = 0;
  uint32_t message_offset = 0;

  size_t size() const { return tagged ? kDdpTaggedHeaderSize : kDdpUntaggedHeaderSize; }
  friend bool operator==(const DdpHeader&, const DdpHeader&) = default;
};

// The header at the start of `bytes` as it is, version included; nothing when `bytes` is
// shorter than the header its T bit calls for. Judging the fields is the caller's job
// (segment.hpp).
std::optional<DdpHeader> load_ddp_header(std::span<const uint8_t> bytes);

// Writes `header` at the start of `bytes`, which holds at least header.size() bytes.
void store_ddp_header(std::span<uint8_t> bytes, const DdpHeader& header);

} // namespace ornic::iwarp
