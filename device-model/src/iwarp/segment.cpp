#include "iwarp/segment.hpp"

#include "iwarp/fpdu.hpp"

namespace ornic::iwarp {

namespace {

SegmentParse refuse(TerminateCause cause) {
  SegmentParse parse;
  parse.error = cause;
  return parse;
}

} // namespace

SegmentParse parse_segment(std::span<const uint8_t> ulpdu) {
  // A ULPDU too short for the header its own T bit announces: the length MPA framed it with
  // does not match its content.
  const std::optional<DdpHeader> loaded = load_ddp_header(ulpdu);
  if (!loaded)
    return refuse(cause::mpa_length_mismatch);
  const DdpHeader& ddp = *loaded;
  if (ddp.version != kDdpVersion)
    return refuse(ddp.tagged ? cause::ddp_tagged_invalid_version
                             : cause::ddp_untagged_invalid_version);
  if (!ddp.tagged && ddp.queue_number >= kQueueCount)
    return refuse(cause::ddp_untagged_invalid_qn);

  const RdmapControl control = decode_rdmap_control(ddp.ulp_control);
  if (control.version != kRdmapVersion)
    return refuse(cause::rdmap_invalid_version);
  if (control.opcode >= kRdmapOpcodeCount)
    return refuse(cause::rdmap_unexpected_opcode);
  const auto opcode = static_cast<RdmapOpcode>(control.opcode);
  if (rdmap_opcode_is_tagged(opcode) != ddp.tagged)
    return refuse(cause::rdmap_unexpected_opcode);
  if (!ddp.tagged && rdmap_queue_of(opcode) != ddp.queue_number)
    return refuse(cause::rdmap_unexpected_opcode);

  Segment segment;
  segment.ddp = ddp;
  segment.rdmap = control;
  segment.opcode = opcode;
  const std::span<const uint8_t> rest = ulpdu.subspan(ddp.size());
  switch (opcode) {
  case RdmapOpcode::read_request:
  case RdmapOpcode::terminate:
    // Both are single-segment messages.
    if (ddp.message_offset != 0)
      return refuse(cause::ddp_untagged_invalid_mo);
    if (!ddp.last)
      return refuse(cause::rdmap_unexpected_opcode);
    if (opcode == RdmapOpcode::read_request) {
      if (rest.size() < kReadRequestSize)
        return refuse(cause::mpa_length_mismatch);
      if (rest.size() > kReadRequestSize)
        return refuse(cause::ddp_untagged_too_long);
      segment.read_request = load_read_request(rest.first<kReadRequestSize>());
    } else {
      TerminateParse terminate = parse_terminate(rest);
      if (!terminate.message)
        return refuse(terminate.error);
      segment.terminate = std::move(terminate.message);
    }
    break;
  case RdmapOpcode::send_invalidate:
  case RdmapOpcode::send_se_invalidate:
    segment.invalidate_stag = ddp.ulp_word;
    segment.payload = rest;
    break;
  default:
    segment.payload = rest;
    break;
  }
  SegmentParse parse;
  parse.segment = std::move(segment);
  return parse;
}

std::optional<std::vector<uint8_t>> build_segment(const Segment& segment) {
  DdpHeader ddp = segment.ddp;
  ddp.ulp_control = encode_rdmap_control(segment.rdmap);
  const bool read_request = segment.opcode == RdmapOpcode::read_request;
  const bool terminate = segment.opcode == RdmapOpcode::terminate;
  if (segment.read_request.has_value() != read_request ||
      segment.terminate.has_value() != terminate)
    return std::nullopt;
  if (segment.invalidate_stag) {
    if (!rdmap_opcode_invalidates(segment.opcode))
      return std::nullopt;
    ddp.ulp_word = *segment.invalidate_stag;
  }
  if ((read_request || terminate) && !segment.payload.empty())
    return std::nullopt;

  std::vector<uint8_t> bytes(ddp.size());
  store_ddp_header(bytes, ddp);
  if (read_request) {
    bytes.resize(bytes.size() + kReadRequestSize);
    store_read_request(std::span<uint8_t>(bytes).last<kReadRequestSize>(), *segment.read_request);
  } else if (terminate) {
    std::optional<std::vector<uint8_t>> body = build_terminate(*segment.terminate);
    if (!body)
      return std::nullopt;
    bytes.insert(bytes.end(), body->begin(), body->end());
  }
  bytes.insert(bytes.end(), segment.payload.begin(), segment.payload.end());
  if (bytes.size() > kMaxUlpdu)
    return std::nullopt;
  return bytes;
}

} // namespace ornic::iwarp
