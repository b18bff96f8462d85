// What a QP's type and attributes say about the packets all its roles build: the payload
// size of one packet and the opcode family (XRC QPs use the XRC codes).
#pragma once

#include <cstdint>

#include "core/nic_core.hpp"
#include "core/qp_type.hpp"
#include "iba/framing.hpp"
#include "iba/opcode_table.hpp"

namespace ornic {

// Bytes of payload per packet: the path MTU for connected QPs, the port's (as the framing
// knows it) for datagrams.
inline uint32_t path_mtu_bytes(const iba::Framing& framing, const QueuePair& qp) {
  if (is_datagram_qp(qp.type))
    return framing.ud_mtu_bytes();
  const uint8_t mtu = qp.attr.path_mtu;
  return mtu >= ORNIC_MTU_256 && mtu <= ORNIC_MTU_4096 ? 128u << mtu : 256u;
}

// The packet opcode for `rc` on this QP's transport.
inline uint8_t wire_opcode(const QueuePair& qp, iba::Opcode rc) {
  return qp_is_xrc(qp.type) ? iba::to_xrc(rc) : static_cast<uint8_t>(rc);
}

} // namespace ornic
