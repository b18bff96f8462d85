#include "roce/roce_framing.hpp"

#include <algorithm>

#include "iba/grh.hpp"
#include "roce/builder.hpp"
#include "roce/cnp.hpp"
#include "roce/ecn.hpp"
#include "roce/gid.hpp"
#include "roce/parser.hpp"

namespace ornic::roce {
namespace {

// FramePlan::network_kind: the IP family the plan was made for, or RoCE v1's GRH.
constexpr uint8_t kKindRoceV1 = 2;
static_assert(static_cast<uint8_t>(IpFamily::ipv4) != kKindRoceV1 &&
              static_cast<uint8_t>(IpFamily::ipv6) != kKindRoceV1);

constexpr uint8_t kind_of(const FramePlan& plan) {
  return plan.roce_v1 ? kKindRoceV1 : static_cast<uint8_t>(plan.family);
}

FramePlan roce_plan(const iba::FramePlan& plan) {
  const bool v1 = plan.network_kind == kKindRoceV1;
  return FramePlan{.family = v1 ? IpFamily::ipv6 : static_cast<IpFamily>(plan.network_kind),
                   .link_header_bytes = plan.link_header_bytes,
                   .roce_v1 = v1,
                   .ip_header_bytes = plan.network_header_bytes,
                   .udp_bytes = plan.network_payload_bytes,
                   .payload_offset = plan.payload_offset,
                   .payload_bytes = plan.payload_bytes,
                   .pad_count = plan.pad_count,
                   .frame_bytes = plan.frame_bytes};
}

} // namespace

Addressing RoceFraming::addressing_of(const iba::Route& route) {
  return Addressing{.destination_mac = route.ethernet.destination_mac,
                    .source_mac = route.ethernet.source_mac,
                    .source_gid = route.global.source_gid,
                    .destination_gid = route.global.destination_gid,
                    .traffic_class = route.global.traffic_class,
                    .flow_label = route.global.flow_label,
                    .hop_limit = route.global.hop_limit,
                    .udp_source_port = route.ethernet.flow_entropy,
                    .roce_v1 = route.ethernet.roce_v1,
                    .vlan_id = route.ethernet.vlan_id,
                    .priority = route.ethernet.priority};
}

iba::Route RoceFraming::route_of(const Addressing& addressing) {
  iba::Route route;
  route.global = iba::GlobalRoute{.source_gid = addressing.source_gid,
                                  .destination_gid = addressing.destination_gid,
                                  .traffic_class = addressing.traffic_class,
                                  .flow_label = addressing.flow_label,
                                  .hop_limit = addressing.hop_limit};
  route.ethernet = iba::EthernetRoute{.destination_mac = addressing.destination_mac,
                                      .source_mac = addressing.source_mac,
                                      .flow_entropy = addressing.udp_source_port,
                                      .roce_v1 = addressing.roce_v1,
                                      .vlan_id = addressing.vlan_id,
                                      .priority = addressing.priority};
  return route;
}

bool RoceFraming::route(const ornic_wqe_av& av, uint32_t source_qpn, uint32_t destination_qpn,
                        iba::Route& route) const {
  const auto& gids = core_.resources.gids;
  if (av.sgid_index >= gids.size() || !gids[av.sgid_index])
    return false;
  iba::GlobalRoute& global = route.global;
  global.source_gid = gids[av.sgid_index]->gid;
  std::copy(std::begin(av.dgid), std::end(av.dgid), global.destination_gid.begin());
  const bool v1 = gids[av.sgid_index]->type == ORNIC_GID_TYPE_ROCE_V1;
  if (!v1 && gid_family(global.source_gid) != gid_family(global.destination_gid))
    return false;
  iba::EthernetRoute& ethernet = route.ethernet;
  ethernet.roce_v1 = v1;
  // A VLAN device's GID sends tagged frames, with the address vector's SL as the priority
  // (the kernel maps a flow's ToS through the VLAN's egress map to it).
  ethernet.vlan_id = gids[av.sgid_index]->vlan_id;
  ethernet.priority = ethernet.vlan_id ? static_cast<uint8_t>(av.sl & 7) : 0;
  if (roce::is_multicast(global.destination_gid)) // as IP multicast maps it, not from ARP/ND
    ethernet.destination_mac = multicast_mac(global.destination_gid);
  else
    std::copy(std::begin(av.dmac), std::end(av.dmac), ethernet.destination_mac.begin());
  ethernet.source_mac = core_.mac;
  ethernet.flow_entropy =
      v1 ? 0 : roce_udp_source_port(le(av.udp_sport), source_qpn, destination_qpn);
  // RoCE v1 is not IP: no router marks it, so it claims no ECN capability.
  global.traffic_class = v1 ? av.traffic_class : with_ect(core_.cc, av.traffic_class);
  global.flow_label = le(av.flow_label) & 0xfffff;
  global.hop_limit = av.hop_limit != 0 ? av.hop_limit : 64;
  route.has_global = true;
  return true;
}

bool RoceFraming::plan(const iba::OutboundPacket& packet, size_t payload_bytes,
                       iba::FramePlan& plan) const {
  FramePlan roce;
  if (plan_frame(packet, addressing_of(packet.route), payload_bytes, roce) != BuildError::ok)
    return false;
  plan = iba::FramePlan{.frame_bytes = roce.frame_bytes,
                        .payload_offset = roce.payload_offset,
                        .payload_bytes = roce.payload_bytes,
                        .pad_count = roce.pad_count,
                        .network_kind = kind_of(roce),
                        .network_header_bytes = roce.ip_header_bytes,
                        .network_payload_bytes = roce.udp_bytes,
                        .link_header_bytes = roce.link_header_bytes};
  return true;
}

std::span<uint8_t> RoceFraming::write_headers(const iba::OutboundPacket& packet,
                                              const iba::FramePlan& plan,
                                              std::span<uint8_t> frame) const {
  return roce::write_headers(packet, addressing_of(packet.route), roce_plan(plan), frame);
}

void RoceFraming::seal(const iba::OutboundPacket& packet, const iba::FramePlan& plan,
                       std::span<uint8_t> frame) const {
  seal_frame(addressing_of(packet.route), roce_plan(plan), frame);
}

iba::ParseStatus RoceFraming::parse(std::span<const uint8_t> frame,
                                    iba::ReceivedPacket& packet) const {
  Addressing addressing;
  const ParseError error =
      parse_frame(frame, packet, addressing, packet.opcode_info, packet.payload);
  if (error == ParseError::icrc_mismatch)
    return iba::ParseStatus::bad_icrc;
  if (error == ParseError::unknown_opcode && packet.bth.opcode == kCnpOpcode) {
    // Addressing, BTH and ICRC are checked: whether it is a CNP is all that is left.
    PacketDescription description;
    static_cast<iba::TransportHeaders&>(description) = packet;
    static_cast<Addressing&>(description) = addressing;
    if (!is_cnp(description, frame))
      return iba::ParseStatus::bad_header;
  } else if (error != ParseError::ok) {
    return iba::ParseStatus::bad_header;
  }
  packet.route = route_of(addressing);
  packet.link_multicast = (addressing.destination_mac[0] & 1) != 0;
  packet.congestion_experienced = !addressing.roce_v1 && ce_marked(addressing.traffic_class);
  return error == ParseError::ok ? iba::ParseStatus::packet
                                 : iba::ParseStatus::congestion_notification;
}

bool RoceFraming::is_multicast(const iba::Route& route) const {
  return roce::is_multicast(route.global.destination_gid);
}

bool RoceFraming::is_local(const iba::Route& route) const {
  const Gid& gid = route.global.destination_gid;
  return std::any_of(
      core_.resources.gids.begin(), core_.resources.gids.end(),
      [&](const std::optional<GidEntry>& entry) { return entry && entry->gid == gid; });
}

bool RoceFraming::from_connected_peer(const ornic_qp_attr& attr, const iba::ReceivedPacket& packet,
                                      bool from_wire) const {
  // A group MAC can only be a mistake or an attempt to reach QPs of several hosts at once.
  if (from_wire && packet.link_multicast)
    return false;
  // The peer speaks the RoCE version of the QP's own GID entry, as a real NIC's QP does.
  const auto& gids = core_.resources.gids;
  if (attr.sgid_index >= gids.size() || !gids[attr.sgid_index] ||
      (gids[attr.sgid_index]->type == ORNIC_GID_TYPE_ROCE_V1) != packet.route.ethernet.roce_v1)
    return false;
  return std::equal(std::begin(attr.dgid), std::end(attr.dgid),
                    packet.route.global.source_gid.begin());
}

iba::UdGrh RoceFraming::ud_grh(const iba::ReceivedPacket& packet,
                               std::span<const uint8_t> frame) const {
  // The GRH area: an IPv6 header as is, or an IPv4 header in its last 20 bytes.
  iba::UdGrh grh;
  grh.present = true;
  const bool tagged = frame.size() >= EthernetHeader::kSize && frame[12] == 0x81 && frame[13] == 0;
  const auto ip = frame.begin() +
                  static_cast<std::ptrdiff_t>(EthernetHeader::kSize + (tagged ? kVlanTagBytes : 0));
  if (packet.route.ethernet.roce_v1) { // the GRH itself
    grh.roce_v1 = true;
    std::copy_n(ip, iba::Grh::kSize, grh.bytes.begin());
    return grh;
  }
  grh.ipv4 = gid_family(packet.route.global.source_gid) == IpFamily::ipv4;
  if (grh.ipv4)
    std::copy_n(ip, Ipv4Header::kSize, grh.bytes.begin() + (grh.bytes.size() - Ipv4Header::kSize));
  else
    std::copy_n(ip, Ipv6Header::kSize, grh.bytes.begin());
  return grh;
}

uint32_t RoceFraming::ud_mtu_bytes() const {
  return 128u << roce_active_mtu(core_.eth_mtu);
}

// A RoCE port has the default partition only (pkey_tbl_len 1) and checks no P_Key, as
// before partitions were modelled; its receives report no LIDs.
uint16_t RoceFraming::partition_key(uint16_t) const {
  return kDefaultPkey;
}

bool RoceFraming::partition_admits(uint16_t, bool, uint16_t, uint16_t& matched_index) const {
  matched_index = 0;
  return true;
}

void RoceFraming::count_qkey_violation() const {}

void RoceFraming::count_undelivered(const iba::ReceivedPacket&) const {}

iba::ReceiveOrigin RoceFraming::origin_of(const iba::ReceivedPacket& packet) const {
  iba::ReceiveOrigin origin;
  const iba::EthernetRoute& ethernet = packet.route.ethernet;
  if (ethernet.vlan_id)
    origin.vlan_tci = static_cast<uint16_t>(ethernet.priority << 13 | *ethernet.vlan_id);
  return origin;
}

bool RoceFraming::build_congestion_notification(const iba::Route& route, uint32_t destination_qp,
                                                std::vector<uint8_t>& frame) const {
  // Not ECN-capable: a CNP is never marked, and a mark on one would mean nothing.
  const auto traffic_class = static_cast<uint8_t>(core_.cc.np_cnp_dscp << 2);
  PacketDescription addressing;
  static_cast<Addressing&>(addressing) = addressing_of(route);
  return build_cnp(addressing, destination_qp, traffic_class, frame);
}

} // namespace ornic::roce
