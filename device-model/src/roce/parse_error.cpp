#include "roce/parse_error.hpp"

#include <array>

namespace ornic::roce {

std::string_view parse_error_name(ParseError error) {
  static constexpr std::array<std::string_view, kParseErrorCount> kNames = {
      "ok",
      "frame_too_short",
      "not_ip",
      "ip_header_truncated",
      "ipv4_bad_version",
      "ipv4_options",
      "ipv4_bad_total_length",
      "ipv4_bad_checksum",
      "ipv4_fragment",
      "ipv6_bad_version",
      "ipv6_bad_payload_length",
      "ipv6_mapped_address",
      "not_udp",
      "udp_header_truncated",
      "udp_bad_length",
      "udp_bad_checksum",
      "not_roce",
      "bth_truncated",
      "bad_transport_version",
      "icrc_mismatch",
      "unknown_opcode",
      "extension_headers_truncated",
      "pad_exceeds_payload",
      "payload_misaligned",
      "unexpected_payload",
      "grh_truncated",
      "grh_bad_version",
      "grh_bad_next_header",
      "grh_bad_payload_length",
      "vlan_tag_truncated",
      "bad_vlan_tag",
  };
  const auto index = static_cast<size_t>(error);
  return index < kNames.size() ? kNames[index] : "invalid";
}

} // namespace ornic::roce
