// InfiniBand framing (infiniband.rst): the IB transport behind an LRH, and a GRH when the
// route is global or goes to a multicast group, sealed with the ICRC and the VCRC. Routes
// are LIDs: the DLID and SL of the address vector, the port's own LID (with the vector's
// path bits) as SLID, VL15 for the SMI QP and VL0 for everything else. It reads the port's
// LIDs, GID prefix, P_Key table, MTU and logical state from the core as they are at each
// packet, keeps the PMA's port counters, and applies what IBA 7.2 and 10.9 say a port does
// with what it sends and receives: only VL15 outside Active, only packets for its own LIDs,
// only P_Keys its table admits.
#pragma once

#include "core/nic_core.hpp"
#include "iba/framing.hpp"

namespace ornic::ib {

class IbFraming final : public iba::Framing {
public:
  explicit IbFraming(NicCore& core) : core_(core) {}

  bool route(const ornic_wqe_av& av, uint32_t source_qpn, uint32_t destination_qpn,
             iba::Route& route) const override;
  bool plan(const iba::OutboundPacket& packet, size_t payload_bytes,
            iba::FramePlan& plan) const override;
  std::span<uint8_t> write_headers(const iba::OutboundPacket& packet, const iba::FramePlan& plan,
                                   std::span<uint8_t> frame) const override;
  void seal(const iba::OutboundPacket& packet, const iba::FramePlan& plan,
            std::span<uint8_t> frame) const override;
  iba::ParseStatus parse(std::span<const uint8_t> frame,
                         iba::ReceivedPacket& packet) const override;
  bool is_multicast(const iba::Route& route) const override;
  bool is_local(const iba::Route& route) const override;
  bool from_connected_peer(const ornic_qp_attr& attr, const iba::ReceivedPacket& packet,
                           bool from_wire) const override;
  iba::UdGrh ud_grh(const iba::ReceivedPacket& packet,
                    std::span<const uint8_t> frame) const override;
  uint32_t ud_mtu_bytes() const override;
  uint16_t partition_key(uint16_t pkey_index) const override;
  bool partition_admits(uint16_t qp_pkey_index, bool any_entry, uint16_t packet_pkey,
                        uint16_t& matched_index) const override;
  void count_qkey_violation() const override;
  void count_undelivered(const iba::ReceivedPacket& packet) const override;
  iba::ReceiveOrigin origin_of(const iba::ReceivedPacket& packet) const override;
  bool build_congestion_notification(const iba::Route& route, uint32_t destination_qp,
                                     std::vector<uint8_t>& frame) const override;

private:
  // Where a received packet may go, by its LRH: false (counted) when the port must drop it.
  bool admit(const iba::ReceivedPacket& packet) const;

  NicCore& core_; // the port's state and counters, which sending and receiving update
};

} // namespace ornic::ib
