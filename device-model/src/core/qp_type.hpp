// What each QP type does (qp.rst, xrc.rst): which transport it speaks on the wire and which
// of its queues exist. The engine and the admin commands ask these instead of listing types.
#pragma once

#include "core/hw.hpp"

namespace ornic {

// Reliable connected transports (RC and both halves of XRC): PSNs, ACKs, retransmission.
// UC is connected too but has none of these (roce.rst, "Unreliable connected").
constexpr bool qp_is_reliable(ornic_qp_type type) {
  return type == ORNIC_QPT_RC || type == ORNIC_QPT_XRC_INI || type == ORNIC_QPT_XRC_TGT;
}

constexpr bool qp_is_xrc(ornic_qp_type type) {
  return type == ORNIC_QPT_XRC_INI || type == ORNIC_QPT_XRC_TGT;
}

// Whether `type` is a known ornic_qp_type value; guest input is checked with this before it
// becomes an enum.
constexpr bool qp_type_valid(uint32_t type) {
  return type == ORNIC_QPT_RC || type == ORNIC_QPT_UD || type == ORNIC_QPT_GSI ||
         type == ORNIC_QPT_UC || type == ORNIC_QPT_XRC_INI || type == ORNIC_QPT_XRC_TGT ||
         type == ORNIC_QPT_SMI;
}

} // namespace ornic
