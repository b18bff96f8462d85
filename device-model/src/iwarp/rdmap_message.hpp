// RDMAP as carried in DDP segments: the control byte (version 1 and the opcode) in DDP's
// upper-layer byte, the untagged queues each message travels on, and the two messages with
// a header of their own: the Read Request and the Terminate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "iwarp/terminate_cause.hpp"

namespace ornic::iwarp {

inline constexpr uint8_t kRdmapVersion = 1;
inline constexpr uint8_t kRdmapVersionShift = 6;
inline constexpr uint8_t kRdmapReservedMask = 0x30;
inline constexpr uint8_t kRdmapOpcodeMask = 0x0f;

enum class RdmapOpcode : uint8_t {
  write = 0,
  read_request = 1,
  read_response = 2,
  send = 3,
  send_invalidate = 4,
  send_se = 5,
  send_se_invalidate = 6,
  terminate = 7,
};
inline constexpr uint8_t kRdmapOpcodeCount = 8;

// The untagged queues RDMAP uses.
inline constexpr uint32_t kQueueSend = 0;
inline constexpr uint32_t kQueueReadRequest = 1;
inline constexpr uint32_t kQueueTerminate = 2;
inline constexpr uint32_t kQueueCount = 3;

struct RdmapControl {
  uint8_t version = kRdmapVersion;
  uint8_t reserved = 0; // the two reserved bits, in place (within kRdmapReservedMask)
  uint8_t opcode = 0;   // 4 bits; 8-15 are not RDMAP opcodes ornic knows

  friend bool operator==(const RdmapControl&, const RdmapControl&) = default;
};

RdmapControl decode_rdmap_control(uint8_t byte);
uint8_t encode_rdmap_control(RdmapControl control);

// Whether `opcode` travels in tagged segments (Write, Read Response) and, for the untagged
// ones, on which queue.
bool rdmap_opcode_is_tagged(RdmapOpcode opcode);
uint32_t rdmap_queue_of(RdmapOpcode opcode);
bool rdmap_opcode_invalidates(RdmapOpcode opcode);
bool rdmap_opcode_solicits(RdmapOpcode opcode);

inline constexpr size_t kReadRequestSize = 28;

struct ReadRequest {
  uint32_t sink_stag = 0;
  uint64_t sink_to = 0;
  uint32_t size = 0;
  uint32_t source_stag = 0;
  uint64_t source_to = 0;

  friend bool operator==(const ReadRequest&, const ReadRequest&) = default;
};

ReadRequest load_read_request(std::span<const uint8_t, kReadRequestSize> bytes);
void store_read_request(std::span<uint8_t, kReadRequestSize> bytes, const ReadRequest& request);

// The Terminate message: the cause, the header-control bits (M: the DDP segment length field
// is valid, D: the terminated segment's DDP header is included, R: its RDMAP header, a Read
// Request's, is included), the segment length (sent when M or D is set) and the copied
// headers.
inline constexpr size_t kTerminateControlSize = 4;
inline constexpr size_t kTerminateSegmentLengthSize = 2;
inline constexpr uint16_t kTerminateReservedMask = 0x1fff;

struct TerminateMessage {
  TerminateCause cause{};
  bool segment_length_valid = false; // M
  uint16_t reserved = 0;             // the 13 reserved bits
  uint16_t segment_length = 0;
  std::vector<uint8_t> ddp_header;   // D: 14 or 18 bytes, as its own T bit says
  std::vector<uint8_t> rdmap_header; // R: 28 bytes

  friend bool operator==(const TerminateMessage&, const TerminateMessage&) = default;
};

struct TerminateParse {
  std::optional<TerminateMessage> message;
  TerminateCause error{}; // when there is no message
};

// `bytes` is everything after the DDP header of a Terminate segment; it must hold exactly
// what the header-control bits announce.
TerminateParse parse_terminate(std::span<const uint8_t> bytes);
// The bytes after the DDP header; nothing when a copied header has the wrong size.
std::optional<std::vector<uint8_t>> build_terminate(const TerminateMessage& message);

} // namespace ornic::iwarp
