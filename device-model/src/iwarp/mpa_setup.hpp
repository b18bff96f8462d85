// MPA connection setup: the request frame the initiator sends and the reply frame the
// responder answers with, before either side sends an FPDU. Both are a 16-byte key, a flags
// byte (M, C, R, the enhanced-setup bit), the revision, a private data length and at most
// 512 bytes of private data; with revision 2 and the enhanced bit, the first four private
// data bytes carry IRD, ORD and the peer-to-peer ready-to-receive choice.
//
// ornic never inserts markers: a request asking for them is answered with a reject, and a
// reply asking for them fails the connection (see Documentation/hardware/iwarp-framing.rst).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "iwarp/terminate_cause.hpp"

namespace ornic::iwarp {

inline constexpr size_t kMpaKeySize = 16;
inline constexpr size_t kMpaSetupHeaderSize = 20;
inline constexpr size_t kMpaMaxPrivateData = 512;
inline constexpr size_t kMpaEnhancedParamsSize = 4;
inline constexpr uint8_t kMpaRevision1 = 1;
inline constexpr uint8_t kMpaRevision2 = 2;

inline constexpr uint8_t kMpaFlagMarkers = 0x80;
inline constexpr uint8_t kMpaFlagCrc = 0x40;
inline constexpr uint8_t kMpaFlagReject = 0x20;
inline constexpr uint8_t kMpaFlagEnhanced = 0x10;
inline constexpr uint8_t kMpaFlagReserved = 0x0f;

enum class MpaFrameKind : uint8_t { request, reply };

// The enhanced connection setup parameters. IRD and ORD are 14 bits on the wire.
struct MpaEnhancedParams {
  static constexpr uint16_t kMaxIrdOrd = 0x3fff;
  bool peer_to_peer = false;
  bool send_rtr = false;  // a zero-length Send may announce readiness
  bool write_rtr = false; // a zero-length RDMA Write may
  bool read_rtr = false;  // a zero-length RDMA Read Request may
  uint16_t ird = 0;
  uint16_t ord = 0;

  friend bool operator==(const MpaEnhancedParams&, const MpaEnhancedParams&) = default;
};

struct MpaSetupFrame {
  MpaFrameKind kind = MpaFrameKind::request;
  bool markers = false;
  bool crc = false;
  bool reject = false;
  // Flag bits with no meaning here, kept so a parsed frame rebuilds to the same bytes. With
  // revision 1 the enhanced bit is one of them.
  uint8_t reserved_flags = 0;
  uint8_t revision = kMpaRevision2;
  // Present when the frame is revision 2 with the enhanced bit set.
  std::optional<MpaEnhancedParams> enhanced;
  // The consumer's private data (after the enhanced parameters, when present).
  std::vector<uint8_t> private_data;

  friend bool operator==(const MpaSetupFrame&, const MpaSetupFrame&) = default;
};

struct MpaSetupParse {
  enum class Status : uint8_t { complete, need_more, invalid };
  Status status = Status::need_more;
  MpaSetupFrame frame;   // when complete
  size_t frame_size = 0; // bytes the frame took (complete); bytes still needed at least (need_more)
  TerminateCause error{}; // when invalid: always cause::mpa_invalid_setup_frame
};

// Parses the frame of `kind` at the start of `bytes` (the first bytes of the TCP stream).
// Bytes after frame_size belong to the FPDU stream.
MpaSetupParse parse_mpa_setup(std::span<const uint8_t> bytes, MpaFrameKind kind);

// The wire bytes of `frame`, or nothing when it cannot be sent: private data (with the
// enhanced parameters) over 512 bytes, enhanced parameters without revision 2, IRD or ORD
// over 14 bits, a revision other than 1 or 2, or reserved flags that collide with others.
std::optional<std::vector<uint8_t>> build_mpa_setup(const MpaSetupFrame& frame);

// What this side offers or accepts.
struct MpaLocalPolicy {
  bool want_crc = true;
  uint8_t max_revision = kMpaRevision2;
  uint16_t ird = 16;
  uint16_t ord = 16;
};

// The responder's answer to a parsed request. A rejected request still gets a reply (with R
// set, the same revision and no markers), after which the connection closes.
struct MpaAnswer {
  MpaSetupFrame reply;
  bool accepted = false;
  bool crc = false; // whether FPDUs carry a checked CRC from now on
};

MpaAnswer answer_mpa_request(const MpaSetupFrame& request, const MpaLocalPolicy& policy);

// The initiator's check of the reply to `request`: whether FPDUs carry a CRC, or the cause of
// the failed setup (reject, markers, a revision above the request's, and the enhanced setup's
// insufficient IRD and unmatched ready-to-receive choice).
struct MpaReplyCheck {
  bool accepted = false;
  bool rejected_by_peer = false;
  bool crc = false;
  TerminateCause error{};
};

MpaReplyCheck check_mpa_reply(const MpaSetupFrame& request, const MpaSetupFrame& reply);

} // namespace ornic::iwarp
