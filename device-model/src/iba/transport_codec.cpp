#include "iba/transport_codec.hpp"

#include "iba/extension_headers.hpp"

namespace ornic::iba {

TransportMismatch check_transport_headers(const TransportHeaders& headers, size_t payload_bytes) {
  const std::optional<OpcodeInfo> info = lookup_opcode(headers.bth.opcode);
  if (!info)
    return TransportMismatch::unknown_opcode;
  if (const unsigned differ = extension_headers_present(headers) ^ info->extension_mask;
      differ != 0)
    return (info->extension_mask & (differ & -differ)) != 0
               ? TransportMismatch::missing_extension_header
               : TransportMismatch::unexpected_extension_header;
  if (payload_bytes != 0 && !info->has(kPayload))
    return TransportMismatch::unexpected_payload;
  return TransportMismatch::none;
}

void write_transport_headers(const TransportHeaders& headers, const OpcodeInfo& info,
                             uint8_t pad_count, std::span<uint8_t> out) {
  Bth bth = headers.bth;
  bth.pad_count = pad_count;
  bth.transport_version = kBthTransportVersion;
  bth.encode(out.first<Bth::kSize>());
  encode_extension_headers(headers, info, out);
}

TransportError read_transport(std::span<const uint8_t> header_copy, std::span<const uint8_t> packet,
                              TransportHeaders& headers, OpcodeInfo& info,
                              std::span<const uint8_t>& payload) {
  const std::optional<OpcodeInfo> found = lookup_opcode(headers.bth.opcode);
  if (!found)
    return TransportError::unknown_opcode;
  info = *found;
  if (packet.size() < info.header_bytes() || header_copy.size() < info.header_bytes())
    return TransportError::extension_headers_truncated;
  decode_extension_headers(header_copy.first(info.header_bytes()), info, headers);
  const std::span<const uint8_t> payload_and_pad = packet.subspan(info.header_bytes());
  if (headers.bth.pad_count > payload_and_pad.size())
    return TransportError::pad_exceeds_payload;
  if (payload_and_pad.size() % 4 != 0)
    return TransportError::payload_misaligned;
  payload = payload_and_pad.first(payload_and_pad.size() - headers.bth.pad_count);
  if (!payload.empty() && !info.has(kPayload))
    return TransportError::unexpected_payload;
  return TransportError::ok;
}

} // namespace ornic::iba
