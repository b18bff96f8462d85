// Every address the device sends to (roce.rst, "Encapsulation") — a connected QP's
// attributes, an AH, a kernel UD WQE's inline vector — takes one shape, ornic_wqe_av, and
// one function turns it into a packet's Ethernet and IP addressing, so the three cannot
// drift apart.
#pragma once

#include "core/nic_core.hpp"
#include "roce/packet.hpp"

namespace ornic {

ornic_wqe_av address_vector_of(const ornic_qp_attr& attr);
ornic_wqe_av address_vector_of(const ornic_admin_create_ah& ah);

// Fills MACs, GIDs, traffic class, flow label and hop limit (not the UDP port, which also
// depends on the QPNs). False when the source GID entry is empty or out of range, or the
// two GIDs are of different IP families: no such packet can exist.
bool address_packet(const NicCore& core, const ornic_wqe_av& av, roce::PacketDescription& packet);

} // namespace ornic
