#include "iwarp/rdmap_message.hpp"

#include "iba/wire_bytes.hpp"
#include "iwarp/ddp_header.hpp"

namespace ornic::iwarp {

using namespace iba;

namespace {

constexpr uint8_t kHdrctSegmentLength = 0x80; // M, in the third byte
constexpr uint8_t kHdrctDdp = 0x40;           // D
constexpr uint8_t kHdrctRdmap = 0x20;         // R

} // namespace

RdmapControl decode_rdmap_control(uint8_t byte) {
  return RdmapControl{.version = static_cast<uint8_t>(byte >> kRdmapVersionShift),
                      .reserved = static_cast<uint8_t>(byte & kRdmapReservedMask),
                      .opcode = static_cast<uint8_t>(byte & kRdmapOpcodeMask)};
}

uint8_t encode_rdmap_control(RdmapControl control) {
  return static_cast<uint8_t>((control.version & 3) << kRdmapVersionShift |
                              (control.reserved & kRdmapReservedMask) |
                              (control.opcode & kRdmapOpcodeMask));
}

bool rdmap_opcode_is_tagged(RdmapOpcode opcode) {
  return opcode == RdmapOpcode::write || opcode == RdmapOpcode::read_response;
}

uint32_t rdmap_queue_of(RdmapOpcode opcode) {
  switch (opcode) {
  case RdmapOpcode::read_request:
    return kQueueReadRequest;
  case RdmapOpcode::terminate:
    return kQueueTerminate;
  default:
    return kQueueSend;
  }
}

bool rdmap_opcode_invalidates(RdmapOpcode opcode) {
  return opcode == RdmapOpcode::send_invalidate || opcode == RdmapOpcode::send_se_invalidate;
}

bool rdmap_opcode_solicits(RdmapOpcode opcode) {
  return opcode == RdmapOpcode::send_se || opcode == RdmapOpcode::send_se_invalidate;
}

ReadRequest load_read_request(std::span<const uint8_t, kReadRequestSize> bytes) {
  return ReadRequest{.sink_stag = load_be32(bytes, 0),
                     .sink_to = load_be64(bytes, 4),
                     .size = load_be32(bytes, 12),
                     .source_stag = load_be32(bytes, 16),
                     .source_to = load_be64(bytes, 20)};
}

void store_read_request(std::span<uint8_t, kReadRequestSize> bytes, const ReadRequest& request) {
  store_be32(bytes, 0, request.sink_stag);
  store_be64(bytes, 4, request.sink_to);
  store_be32(bytes, 12, request.size);
  store_be32(bytes, 16, request.source_stag);
  store_be64(bytes, 20, request.source_to);
}

TerminateParse parse_terminate(std::span<const uint8_t> bytes) {
  TerminateParse parse;
  if (bytes.size() < kTerminateControlSize) {
    parse.error = cause::mpa_length_mismatch;
    return parse;
  }
  TerminateMessage message;
  message.cause.layer = static_cast<TerminateLayer>(bytes[0] >> 4);
  message.cause.error_type = bytes[0] & 0x0f;
  message.cause.error_code = bytes[1];
  const uint8_t hdrct = bytes[2];
  message.segment_length_valid = hdrct & kHdrctSegmentLength;
  const bool has_ddp = hdrct & kHdrctDdp;
  const bool has_rdmap = hdrct & kHdrctRdmap;
  message.reserved = load_be16(bytes, 2) & kTerminateReservedMask;
  size_t offset = kTerminateControlSize;
  if (message.segment_length_valid || has_ddp) {
    if (bytes.size() < offset + kTerminateSegmentLengthSize) {
      parse.error = cause::mpa_length_mismatch;
      return parse;
    }
    message.segment_length = load_be16(bytes, offset);
    offset += kTerminateSegmentLengthSize;
  }
  if (has_ddp) {
    if (bytes.size() <= offset) {
      parse.error = cause::mpa_length_mismatch;
      return parse;
    }
    const size_t size =
        (bytes[offset] & kDdpFlagTagged) ? kDdpTaggedHeaderSize : kDdpUntaggedHeaderSize;
    if (bytes.size() < offset + size) {
      parse.error = cause::mpa_length_mismatch;
      return parse;
    }
    message.ddp_header.assign(bytes.begin() + static_cast<ptrdiff_t>(offset),
                              bytes.begin() + static_cast<ptrdiff_t>(offset + size));
    offset += size;
  }
  if (has_rdmap) {
    if (bytes.size() < offset + kReadRequestSize) {
      parse.error = cause::mpa_length_mismatch;
      return parse;
    }
    message.rdmap_header.assign(bytes.begin() + static_cast<ptrdiff_t>(offset),
                                bytes.begin() + static_cast<ptrdiff_t>(offset + kReadRequestSize));
    offset += kReadRequestSize;
  }
  if (offset != bytes.size()) {
    parse.error = cause::ddp_untagged_too_long;
    return parse;
  }
  parse.message = std::move(message);
  return parse;
}

std::optional<std::vector<uint8_t>> build_terminate(const TerminateMessage& message) {
  const bool has_ddp = !message.ddp_header.empty();
  const bool has_rdmap = !message.rdmap_header.empty();
  if (has_ddp) {
    const size_t size =
        (message.ddp_header[0] & kDdpFlagTagged) ? kDdpTaggedHeaderSize : kDdpUntaggedHeaderSize;
    if (message.ddp_header.size() != size)
      return std::nullopt;
  }
  if (has_rdmap && message.rdmap_header.size() != kReadRequestSize)
    return std::nullopt;
  if (static_cast<uint8_t>(message.cause.layer) > 0x0f || message.cause.error_type > 0x0f ||
      message.reserved > kTerminateReservedMask)
    return std::nullopt;
  std::vector<uint8_t> bytes(kTerminateControlSize);
  bytes[0] = static_cast<uint8_t>(static_cast<uint8_t>(message.cause.layer) << 4 |
                                  message.cause.error_type);
  bytes[1] = message.cause.error_code;
  store_be16(bytes, 2,
             static_cast<uint16_t>(
                 message.reserved | (message.segment_length_valid ? kHdrctSegmentLength << 8 : 0) |
                 (has_ddp ? kHdrctDdp << 8 : 0) | (has_rdmap ? kHdrctRdmap << 8 : 0)));
  if (message.segment_length_valid || has_ddp) {
    bytes.resize(bytes.size() + kTerminateSegmentLengthSize);
    store_be16(bytes, kTerminateControlSize, message.segment_length);
  }
  bytes.insert(bytes.end(), message.ddp_header.begin(), message.ddp_header.end());
  bytes.insert(bytes.end(), message.rdmap_header.begin(), message.rdmap_header.end());
  return bytes;
}

} // namespace ornic::iwarp
