#include "ib/packet_codec.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "ib/icrc.hpp"
#include "iba/transport_codec.hpp"
#include "iba/transport_headers.hpp"

namespace ornic::ib {

using iba::Bth;
using iba::Grh;
using iba::kIcrcSize;

namespace {

// LRH, GRH and, as a bound on any opcode's transport headers, BTH with every extension
// header at once.
constexpr size_t kHeaderCopyBytes = Lrh::kSize + Grh::kSize + Bth::kSize + iba::Xrceth::kSize +
                                    iba::Deth::kSize + iba::Feth::kSize + iba::Reth::kSize +
                                    iba::AtomicEth::kSize + iba::Aeth::kSize +
                                    iba::AtomicAckEth::kSize + iba::ImmDt::kSize + iba::Ieth::kSize;

ParseError from(iba::TransportError error) {
  switch (error) {
  case iba::TransportError::ok:
    return ParseError::ok;
  case iba::TransportError::unknown_opcode:
    return ParseError::unknown_opcode;
  case iba::TransportError::extension_headers_truncated:
    return ParseError::extension_headers_truncated;
  case iba::TransportError::pad_exceeds_payload:
    return ParseError::pad_exceeds_payload;
  case iba::TransportError::payload_misaligned:
    return ParseError::payload_misaligned;
  case iba::TransportError::unexpected_payload:
    return ParseError::unexpected_payload;
  }
  return ParseError::unknown_opcode;
}

} // namespace

std::string_view parse_error_name(ParseError error) {
  switch (error) {
  case ParseError::ok:
    return "ok";
  case ParseError::too_short:
    return "too_short";
  case ParseError::length_mismatch:
    return "length_mismatch";
  case ParseError::bad_vcrc:
    return "bad_vcrc";
  case ParseError::bad_link_version:
    return "bad_link_version";
  case ParseError::not_transport:
    return "not_transport";
  case ParseError::bad_grh:
    return "bad_grh";
  case ParseError::bad_transport_version:
    return "bad_transport_version";
  case ParseError::bad_icrc:
    return "bad_icrc";
  case ParseError::unknown_opcode:
    return "unknown_opcode";
  case ParseError::extension_headers_truncated:
    return "extension_headers_truncated";
  case ParseError::pad_exceeds_payload:
    return "pad_exceeds_payload";
  case ParseError::payload_misaligned:
    return "payload_misaligned";
  case ParseError::unexpected_payload:
    return "unexpected_payload";
  }
  return "unknown";
}

bool plan_packet(const iba::TransportHeaders& headers, bool global, size_t payload_bytes,
                 iba::FramePlan& plan) {
  if (iba::check_transport_headers(headers, payload_bytes) != iba::TransportMismatch::none)
    return false;
  if (payload_bytes > kMaxPacketBytes)
    return false; // before the sum, so nothing wraps
  const iba::OpcodeInfo info = *iba::lookup_opcode(headers.bth.opcode);
  const size_t network_bytes = Lrh::kSize + (global ? Grh::kSize : 0);
  const uint8_t pad_count = iba::pad_count_for(payload_bytes);
  const size_t packet_bytes =
      network_bytes + info.header_bytes() + payload_bytes + pad_count + kIcrcSize;
  if (packet_bytes > kMaxPacketBytes)
    return false;
  plan = iba::FramePlan{.frame_bytes = packet_bytes + kVcrcSize,
                        .payload_offset = network_bytes + info.header_bytes(),
                        .payload_bytes = payload_bytes,
                        .pad_count = pad_count,
                        .network_kind = global ? kGlobalPacket : kLocalPacket,
                        .network_header_bytes = network_bytes,
                        .network_payload_bytes = packet_bytes,
                        .link_header_bytes = 0};
  return true;
}

std::span<uint8_t> write_packet_headers(const iba::TransportHeaders& headers,
                                        const iba::Route& route, const iba::FramePlan& plan,
                                        std::span<uint8_t> frame) {
  const std::span<uint8_t> bytes = frame.first(plan.frame_bytes);
  // The buffer may hold an old packet: every byte not written below is zero.
  std::fill_n(bytes.begin(), plan.payload_offset, uint8_t{0});
  std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(plan.payload_offset + plan.payload_bytes),
            bytes.end(), uint8_t{0});
  const bool global = plan.network_kind == kGlobalPacket;
  Lrh{.virtual_lane = route.local.virtual_lane,
      .service_level = route.local.service_level,
      .link_next = global ? LinkNext::iba_global : LinkNext::iba_local,
      .destination_lid = route.local.destination_lid,
      .packet_words = static_cast<uint16_t>(plan.network_payload_bytes / 4),
      .source_lid = route.local.source_lid}
      .encode(bytes.first<Lrh::kSize>());
  if (global)
    Grh{.traffic_class = route.global.traffic_class,
        .flow_label = route.global.flow_label,
        .payload_length =
            static_cast<uint16_t>(plan.network_payload_bytes - plan.network_header_bytes),
        .hop_limit = route.global.hop_limit,
        .source_gid = route.global.source_gid,
        .destination_gid = route.global.destination_gid}
        .encode(bytes.subspan(Lrh::kSize).first<Grh::kSize>());
  iba::write_transport_headers(headers, *iba::lookup_opcode(headers.bth.opcode), plan.pad_count,
                               bytes.subspan(plan.network_header_bytes));
  return bytes.subspan(plan.payload_offset, plan.payload_bytes);
}

void seal_packet(const iba::FramePlan& plan, std::span<uint8_t> frame) {
  const size_t icrc_offset = plan.network_payload_bytes - kIcrcSize;
  iba::store_icrc(frame.subspan(icrc_offset).first<kIcrcSize>(),
                  compute_icrc(frame.first(icrc_offset), plan.network_kind == kGlobalPacket));
  store_vcrc(frame.subspan(plan.network_payload_bytes).first<kVcrcSize>(),
             compute_vcrc(frame.first(plan.network_payload_bytes)));
}

ParseError parse_packet(std::span<const uint8_t> frame, ParsedPacket& parsed) {
  parsed = ParsedPacket{};
  if (frame.size() < Lrh::kSize + Bth::kSize + kIcrcSize + kVcrcSize)
    return ParseError::too_short;
  // The frame may lie in memory another process writes (an shm: port's ring slot): headers
  // are decoded from this private copy, so a length is read once and the value checked is
  // the value used. The payload and CRCs are read in place; a peer that changes them
  // meanwhile garbles only its own packet.
  std::array<uint8_t, kHeaderCopyBytes> copy_bytes;
  const size_t copied = std::min(frame.size(), copy_bytes.size());
  std::memcpy(copy_bytes.data(), frame.data(), copied);
  const std::span<const uint8_t> copy(copy_bytes.data(), copied);

  parsed.lrh = Lrh::decode(copy.first<Lrh::kSize>());
  const size_t packet_bytes = size_t{parsed.lrh.packet_words} * 4;
  if (packet_bytes + kVcrcSize != frame.size())
    return ParseError::length_mismatch;
  const std::span<const uint8_t> packet = frame.first(packet_bytes);
  if (load_vcrc(frame.subspan(packet_bytes).first<kVcrcSize>()) != compute_vcrc(packet))
    return ParseError::bad_vcrc;
  if (parsed.lrh.link_version != Lrh::kLinkVersion)
    return ParseError::bad_link_version;
  const bool global = parsed.lrh.link_next == LinkNext::iba_global;
  if (!global && parsed.lrh.link_next != LinkNext::iba_local)
    return ParseError::not_transport;

  size_t transport_offset = Lrh::kSize;
  if (global) {
    if (packet_bytes < Lrh::kSize + Grh::kSize + Bth::kSize + kIcrcSize)
      return ParseError::too_short;
    parsed.grh = Grh::decode(copy.subspan(Lrh::kSize).first<Grh::kSize>());
    if (parsed.grh->ip_version != Grh::kIpVersion ||
        parsed.grh->next_header != Grh::kNextHeaderIba ||
        parsed.grh->payload_length != packet_bytes - Lrh::kSize - Grh::kSize)
      return ParseError::bad_grh;
    transport_offset += Grh::kSize;
  }
  parsed.headers.bth = Bth::decode(copy.subspan(transport_offset).first<Bth::kSize>());
  if (parsed.headers.bth.transport_version != iba::kBthTransportVersion)
    return ParseError::bad_transport_version;
  const size_t icrc_offset = packet_bytes - kIcrcSize;
  if (iba::load_icrc(packet.subspan(icrc_offset).first<kIcrcSize>()) !=
      compute_icrc(packet.first(icrc_offset), global))
    return ParseError::bad_icrc;
  return from(iba::read_transport(copy.subspan(transport_offset),
                                  packet.subspan(transport_offset, icrc_offset - transport_offset),
                                  parsed.headers, parsed.opcode_info, parsed.payload));
}

} // namespace ornic::ib
