// One DDP segment carrying RDMAP (the ULPDU of one FPDU), judged whole: the DDP and RDMAP
// versions, the opcode against the buffer model and the queue, the queue number, and the
// Read Request and Terminate layouts. Every refusal names the TERMINATE cause to send, in the
// order the layers see the segment: DDP first, then RDMAP. What needs the connection's state
// (STags, MSN windows, receive buffers) is left to the engine that owns it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "iwarp/ddp_header.hpp"
#include "iwarp/rdmap_message.hpp"
#include "iwarp/terminate_cause.hpp"

namespace ornic::iwarp {

struct Segment {
  DdpHeader ddp;
  RdmapControl rdmap;
  RdmapOpcode opcode = RdmapOpcode::send;
  std::optional<uint32_t> invalidate_stag;   // Send with Invalidate (and with SE)
  std::optional<ReadRequest> read_request;   // Read Request
  std::optional<TerminateMessage> terminate; // Terminate
  std::span<const uint8_t> payload; // the data after the headers (Write, Read Response, Sends)
};

struct SegmentParse {
  std::optional<Segment> segment;
  TerminateCause error{}; // when there is no segment
};

SegmentParse parse_segment(std::span<const uint8_t> ulpdu);

// Builds the ULPDU of a segment: the DDP header (with the RDMAP control byte and, for the
// invalidating Sends, the STag), the Read Request or Terminate header when `segment` has one,
// then `segment.payload`. Nothing when the parts do not fit together (a Read Request header
// on a Send, a copied header of the wrong size, more than 65535 bytes).
std::optional<std::vector<uint8_t>> build_segment(const Segment& segment);

} // namespace ornic::iwarp
