// RoCE framing (roce.rst, "Encapsulation" and "RoCE v1"): the IB transport in UDP port
// 4791 over IPv4 or IPv6 over Ethernet (RoCEv2), or behind a GRH with Ethertype 0x8915
// (RoCE v1), as the type of the packet's source GID entry says. For RoCEv2, GIDs as IP addresses
// (an IPv4-mapped GID selects IPv4), MACs from the address vector (or the IP multicast mapping for
// a group), the UDP source port as the flow's entropy, the ICRC (and the IPv6 UDP checksum) as the
// seal, ECN as the congestion mark and the CNP as the notification. It reads the port's own
// addresses — the GID table, the MAC, the multicast groups' GIDs, the Ethernet MTU and the ECN
// settings — from the core, as they are at each packet.
#pragma once

#include "core/nic_core.hpp"
#include "iba/framing.hpp"
#include "roce/packet.hpp"

namespace ornic::roce {

class RoceFraming final : public iba::Framing {
public:
  explicit RoceFraming(const NicCore& core) : core_(core) {}

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

  // The RoCEv2 fields of a route, and back.
  static Addressing addressing_of(const iba::Route& route);
  static iba::Route route_of(const Addressing& addressing);

private:
  const NicCore& core_;
};

} // namespace ornic::roce
