// The AETH syndrome byte (IBA 9.7.5.1): bits 6..5 say ACK, RNR NAK or NAK, bits 4..0 carry
// the credit count, the RNR timer code or the NAK code.
#pragma once

#include <cstdint>

namespace ornic::iba {

enum class AckKind : uint8_t { ack = 0, rnr_nak = 1, reserved = 2, nak = 3 };

enum class NakCode : uint8_t {
  psn_sequence_error = 0,
  invalid_request = 1,
  remote_access_error = 2,
  remote_operational_error = 3,
  invalid_rd_request = 4,
};

// Credit count 31 means "no end-to-end credits advertised" (the device does not use them).
inline constexpr uint8_t kAckNoCredits = 0x1f;

constexpr uint8_t make_ack_syndrome(uint8_t credit_count = kAckNoCredits) {
  return static_cast<uint8_t>(static_cast<uint8_t>(AckKind::ack) << 5 | (credit_count & 0x1f));
}
constexpr uint8_t make_rnr_nak_syndrome(uint8_t rnr_timer_code) {
  return static_cast<uint8_t>(static_cast<uint8_t>(AckKind::rnr_nak) << 5 |
                              (rnr_timer_code & 0x1f));
}
constexpr uint8_t make_nak_syndrome(NakCode code) {
  return static_cast<uint8_t>(static_cast<uint8_t>(AckKind::nak) << 5 | static_cast<uint8_t>(code));
}

constexpr AckKind ack_kind(uint8_t syndrome) {
  return static_cast<AckKind>((syndrome >> 5) & 3);
}
// Credit count, RNR timer code or NAK code, depending on ack_kind.
constexpr uint8_t syndrome_value(uint8_t syndrome) {
  return syndrome & 0x1f;
}

} // namespace ornic::iba
