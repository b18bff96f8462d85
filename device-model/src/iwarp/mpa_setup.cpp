#include "iwarp/mpa_setup.hpp"

#include <algorithm>
#include <array>

#include "iba/wire_bytes.hpp"

namespace ornic::iwarp {

using iba::load_be16;
using iba::store_be16;

namespace {

constexpr std::array<uint8_t, kMpaKeySize> kRequestKey = {'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R',
                                                          'e', 'q', ' ', 'F', 'r', 'a', 'm', 'e'};
constexpr std::array<uint8_t, kMpaKeySize> kReplyKey = {'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R',
                                                        'e', 'p', ' ', 'F', 'r', 'a', 'm', 'e'};

constexpr uint16_t kPeerToPeer = 0x8000; // in the IRD word
constexpr uint16_t kSendRtr = 0x4000;    // in the IRD word
constexpr uint16_t kWriteRtr = 0x8000;   // in the ORD word
constexpr uint16_t kReadRtr = 0x4000;    // in the ORD word

const std::array<uint8_t, kMpaKeySize>& key_of(MpaFrameKind kind) {
  return kind == MpaFrameKind::request ? kRequestKey : kReplyKey;
}

MpaSetupParse invalid() {
  MpaSetupParse parse;
  parse.status = MpaSetupParse::Status::invalid;
  parse.error = cause::mpa_invalid_setup_frame;
  return parse;
}

MpaSetupParse need(size_t bytes) {
  MpaSetupParse parse;
  parse.status = MpaSetupParse::Status::need_more;
  parse.frame_size = bytes;
  return parse;
}

} // namespace

MpaSetupParse parse_mpa_setup(std::span<const uint8_t> bytes, MpaFrameKind kind) {
  // The key is checked on whatever has arrived, so a stream that is not MPA fails at once.
  const auto& key = key_of(kind);
  const size_t key_bytes = std::min(bytes.size(), kMpaKeySize);
  if (!std::equal(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(key_bytes), key.begin()))
    return invalid();
  if (bytes.size() < kMpaSetupHeaderSize)
    return need(kMpaSetupHeaderSize);

  const uint8_t flags = bytes[16];
  const uint8_t revision = bytes[17];
  const uint16_t pd_length = load_be16(bytes, 18);
  if (revision != kMpaRevision1 && revision != kMpaRevision2)
    return invalid();
  if (pd_length > kMpaMaxPrivateData)
    return invalid();
  const bool enhanced = revision == kMpaRevision2 && (flags & kMpaFlagEnhanced);
  if (enhanced && pd_length < kMpaEnhancedParamsSize)
    return invalid();
  const size_t total = kMpaSetupHeaderSize + pd_length;
  if (bytes.size() < total)
    return need(total);

  MpaSetupParse parse;
  parse.status = MpaSetupParse::Status::complete;
  parse.frame_size = total;
  MpaSetupFrame& frame = parse.frame;
  frame.kind = kind;
  frame.markers = flags & kMpaFlagMarkers;
  frame.crc = flags & kMpaFlagCrc;
  frame.reject = flags & kMpaFlagReject;
  frame.reserved_flags =
      flags & (enhanced ? kMpaFlagReserved : kMpaFlagReserved | kMpaFlagEnhanced);
  frame.revision = revision;
  auto private_data = bytes.subspan(kMpaSetupHeaderSize, pd_length);
  if (enhanced) {
    const uint16_t ird = load_be16(private_data, 0);
    const uint16_t ord = load_be16(private_data, 2);
    frame.enhanced = MpaEnhancedParams{
        .peer_to_peer = (ird & kPeerToPeer) != 0,
        .send_rtr = (ird & kSendRtr) != 0,
        .write_rtr = (ord & kWriteRtr) != 0,
        .read_rtr = (ord & kReadRtr) != 0,
        .ird = static_cast<uint16_t>(ird & MpaEnhancedParams::kMaxIrdOrd),
        .ord = static_cast<uint16_t>(ord & MpaEnhancedParams::kMaxIrdOrd),
    };
    private_data = private_data.subspan(kMpaEnhancedParamsSize);
  }
  frame.private_data.assign(private_data.begin(), private_data.end());
  return parse;
}

std::optional<std::vector<uint8_t>> build_mpa_setup(const MpaSetupFrame& frame) {
  if (frame.revision != kMpaRevision1 && frame.revision != kMpaRevision2)
    return std::nullopt;
  if (frame.enhanced && frame.revision != kMpaRevision2)
    return std::nullopt;
  const uint8_t allowed_reserved =
      frame.enhanced ? kMpaFlagReserved : kMpaFlagReserved | kMpaFlagEnhanced;
  if (frame.reserved_flags & ~allowed_reserved)
    return std::nullopt;
  // A revision 2 frame with the enhanced bit among the reserved ones would parse back with
  // parameters it does not have.
  if (frame.revision == kMpaRevision2 && (frame.reserved_flags & kMpaFlagEnhanced))
    return std::nullopt;
  const size_t pd_length =
      frame.private_data.size() + (frame.enhanced ? kMpaEnhancedParamsSize : 0);
  if (pd_length > kMpaMaxPrivateData)
    return std::nullopt;

  std::vector<uint8_t> bytes(kMpaSetupHeaderSize + pd_length);
  const auto& key = key_of(frame.kind);
  std::copy(key.begin(), key.end(), bytes.begin());
  bytes[16] =
      static_cast<uint8_t>((frame.markers ? kMpaFlagMarkers : 0) | (frame.crc ? kMpaFlagCrc : 0) |
                           (frame.reject ? kMpaFlagReject : 0) |
                           (frame.enhanced ? kMpaFlagEnhanced : 0) | frame.reserved_flags);
  bytes[17] = frame.revision;
  store_be16(bytes, 18, static_cast<uint16_t>(pd_length));
  size_t offset = kMpaSetupHeaderSize;
  if (frame.enhanced) {
    const MpaEnhancedParams& params = *frame.enhanced;
    if (params.ird > MpaEnhancedParams::kMaxIrdOrd || params.ord > MpaEnhancedParams::kMaxIrdOrd)
      return std::nullopt;
    store_be16(bytes, offset,
               static_cast<uint16_t>(params.ird | (params.peer_to_peer ? kPeerToPeer : 0) |
                                     (params.send_rtr ? kSendRtr : 0)));
    store_be16(bytes, offset + 2,
               static_cast<uint16_t>(params.ord | (params.write_rtr ? kWriteRtr : 0) |
                                     (params.read_rtr ? kReadRtr : 0)));
    offset += kMpaEnhancedParamsSize;
  }
  std::copy(frame.private_data.begin(), frame.private_data.end(),
            bytes.begin() + static_cast<ptrdiff_t>(offset));
  return bytes;
}

MpaAnswer answer_mpa_request(const MpaSetupFrame& request, const MpaLocalPolicy& policy) {
  MpaAnswer answer;
  MpaSetupFrame& reply = answer.reply;
  reply.kind = MpaFrameKind::reply;
  reply.revision = std::min(request.revision, std::max(policy.max_revision, kMpaRevision1));
  // A CRC is used when either side asks for one.
  reply.crc = request.crc || policy.want_crc;
  reply.markers = false;
  if (request.markers) {
    // The initiator requires markers in what it receives: ornic cannot send them.
    reply.reject = true;
    return answer;
  }
  if (reply.revision == kMpaRevision2 && request.enhanced) {
    const MpaEnhancedParams& offered = *request.enhanced;
    MpaEnhancedParams params;
    params.ird = std::min<uint16_t>(policy.ird, MpaEnhancedParams::kMaxIrdOrd);
    // Never issue more outstanding Read Requests than the initiator can take.
    params.ord = std::min<uint16_t>({policy.ord, offered.ird, MpaEnhancedParams::kMaxIrdOrd});
    if (offered.peer_to_peer) {
      params.peer_to_peer = true;
      // One ready-to-receive message the initiator offered, Write preferred: it needs no
      // posted receive and no Read resources.
      if (offered.write_rtr)
        params.write_rtr = true;
      else if (offered.read_rtr)
        params.read_rtr = true;
      else if (offered.send_rtr)
        params.send_rtr = true;
      else
        params.write_rtr = true;
    }
    reply.enhanced = params;
  }
  answer.accepted = true;
  answer.crc = reply.crc;
  return answer;
}

MpaReplyCheck check_mpa_reply(const MpaSetupFrame& request, const MpaSetupFrame& reply) {
  MpaReplyCheck check;
  if (reply.reject) {
    check.rejected_by_peer = true;
    check.error = cause::mpa_invalid_setup_frame;
    return check;
  }
  if (reply.markers || reply.revision > request.revision) {
    check.error = cause::mpa_invalid_setup_frame;
    return check;
  }
  if (request.enhanced && reply.enhanced) {
    const MpaEnhancedParams& asked = *request.enhanced;
    const MpaEnhancedParams& got = *reply.enhanced;
    if (got.ird < asked.ord) {
      check.error = cause::mpa_insufficient_ird;
      return check;
    }
    if (asked.peer_to_peer) {
      // An initiator that offered no message type takes the responder's choice.
      const bool offered = asked.send_rtr || asked.write_rtr || asked.read_rtr;
      const bool match = (asked.send_rtr && got.send_rtr) || (asked.write_rtr && got.write_rtr) ||
                         (asked.read_rtr && got.read_rtr);
      if (!got.peer_to_peer || (offered && !match)) {
        check.error = cause::mpa_no_matching_rtr;
        return check;
      }
    }
  }
  check.accepted = true;
  check.crc = request.crc || reply.crc;
  return check;
}

} // namespace ornic::iwarp
