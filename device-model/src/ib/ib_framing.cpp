#include "ib/ib_framing.hpp"

#include <algorithm>

#include "ib/packet_codec.hpp"

namespace ornic::ib {
namespace {

// IBA 7.6.3: the SMI QP's packets go on VL15, everything else on a data VL; the port has
// one (VL0), to which every SL maps.
constexpr uint8_t kDataVirtualLane = 0;

// PortCounters' data counters count 4-byte words of the packet from the LRH through the
// VCRC (IBA 16.1.3.5).
uint64_t words_of(size_t bytes) {
  return (bytes + 3) / 4;
}

} // namespace

bool IbFraming::route(const ornic_wqe_av& av, uint32_t source_qpn, uint32_t destination_qpn,
                      iba::Route& route) const {
  (void)destination_qpn;
  const IbPort& port = core_.ib;
  const uint16_t dlid = le(av.dlid);
  if (dlid == 0)
    return false; // LID 0 is reserved: no packet goes there
  iba::LocalRoute& local = route.local;
  local.destination_lid = dlid;
  local.service_level = av.sl & 0x0f;
  local.virtual_lane = source_qpn == ORNIC_QPN_SMI ? kSmiVirtualLane : kDataVirtualLane;
  local.source_lid = dlid == kPermissiveLid ? kPermissiveLid : port.source_lid(av.src_path_bits);
  // A group's packets always carry the group's GID (IBA 8.2.4).
  route.has_global = (av.av_flags & ORNIC_AV_FLAG_GRH) != 0 || is_multicast_lid(dlid);
  if (route.has_global) {
    if (av.sgid_index != 0)
      return false; // the port has one GID
    iba::GlobalRoute& global = route.global;
    global.source_gid = port.port_gid();
    std::copy(std::begin(av.dgid), std::end(av.dgid), global.destination_gid.begin());
    global.traffic_class = av.traffic_class;
    global.flow_label = le(av.flow_label) & 0xfffff;
    global.hop_limit = av.hop_limit;
  } else {
    route.global = iba::GlobalRoute{};
  }
  route.ethernet = iba::EthernetRoute{};
  return true;
}

bool IbFraming::plan(const iba::OutboundPacket& packet, size_t payload_bytes,
                     iba::FramePlan& plan) const {
  // IBA 7.2: outside Active only subnet management (VL15) leaves the port.
  if (packet.route.local.virtual_lane != kSmiVirtualLane && !core_.ib.active()) {
    core_.counters.inc(ORNIC_CNT_TX_PORT_NOT_ACTIVE);
    ++core_.ib.counters.xmit_discards;
    return false;
  }
  return plan_packet(packet, packet.route.has_global, payload_bytes, plan);
}

std::span<uint8_t> IbFraming::write_headers(const iba::OutboundPacket& packet,
                                            const iba::FramePlan& plan,
                                            std::span<uint8_t> frame) const {
  return write_packet_headers(packet, packet.route, plan, frame);
}

void IbFraming::seal(const iba::OutboundPacket& packet, const iba::FramePlan& plan,
                     std::span<uint8_t> frame) const {
  seal_packet(plan, frame);
  IbPortCounters& counters = core_.ib.counters;
  ++counters.xmit_packets;
  counters.xmit_data_words += words_of(plan.frame_bytes);
  if (is_multicast_lid(packet.route.local.destination_lid))
    ++counters.multicast_xmit_packets;
  else
    ++counters.unicast_xmit_packets;
}

iba::ParseStatus IbFraming::parse(std::span<const uint8_t> frame,
                                  iba::ReceivedPacket& packet) const {
  IbPortCounters& counters = core_.ib.counters;
  ParsedPacket parsed;
  const ParseError error = parse_packet(frame, parsed);
  if (error != ParseError::ok) {
    ++counters.rcv_errors;
    switch (error) {
    case ParseError::bad_vcrc:
      core_.counters.inc(ORNIC_CNT_RX_BAD_VCRC);
      return iba::ParseStatus::bad_icrc;
    case ParseError::bad_icrc:
      return iba::ParseStatus::bad_icrc;
    case ParseError::too_short:
    case ParseError::length_mismatch:
    case ParseError::bad_link_version:
    case ParseError::not_transport:
    case ParseError::bad_grh:
      core_.counters.inc(ORNIC_CNT_RX_BAD_LRH);
      return iba::ParseStatus::bad_header;
    default:
      return iba::ParseStatus::bad_header;
    }
  }
  ++counters.rcv_packets;
  counters.rcv_data_words += words_of(frame.size());
  if (is_multicast_lid(parsed.lrh.destination_lid))
    ++counters.multicast_rcv_packets;
  else
    ++counters.unicast_rcv_packets;

  static_cast<iba::TransportHeaders&>(packet) = parsed.headers;
  packet.opcode_info = parsed.opcode_info;
  packet.payload = parsed.payload;
  packet.route.local = iba::LocalRoute{.destination_lid = parsed.lrh.destination_lid,
                                       .source_lid = parsed.lrh.source_lid,
                                       .service_level = parsed.lrh.service_level,
                                       .virtual_lane = parsed.lrh.virtual_lane};
  packet.route.has_global = parsed.grh.has_value();
  if (parsed.grh)
    packet.route.global = iba::GlobalRoute{.source_gid = parsed.grh->source_gid,
                                           .destination_gid = parsed.grh->destination_gid,
                                           .traffic_class = parsed.grh->traffic_class,
                                           .flow_label = parsed.grh->flow_label,
                                           .hop_limit = parsed.grh->hop_limit};
  packet.link_multicast = is_multicast_lid(parsed.lrh.destination_lid);
  // The device neither marks nor acts on FECN (infiniband.rst: no congestion control).
  packet.congestion_experienced = false;
  return admit(packet) ? iba::ParseStatus::packet : iba::ParseStatus::bad_header;
}

bool IbFraming::admit(const iba::ReceivedPacket& packet) const {
  IbPort& port = core_.ib;
  const uint16_t dlid = packet.route.local.destination_lid;
  const bool vl15 = packet.route.local.virtual_lane == kSmiVirtualLane;
  const bool to_smi = packet.bth.destination_qp == ORNIC_QPN_SMI;
  // IBA 7.6.3: VL15 carries subnet management only, and subnet management only VL15.
  if (vl15 != to_smi) {
    if (vl15) {
      core_.counters.inc(ORNIC_CNT_RX_VL15_DROPPED);
      ++port.counters.vl15_dropped;
    } else {
      core_.counters.inc(ORNIC_CNT_RX_BAD_LRH);
      ++port.counters.rcv_errors;
    }
    return false;
  }
  bool addressed = false;
  if (dlid == kPermissiveLid)
    addressed = vl15; // IBA 7.11.1: the permissive DLID reaches only the SMI
  else if (is_multicast_lid(dlid))
    addressed = packet.route.has_global && !vl15; // a group is named by the GRH's MGID
  else
    addressed = port.owns_lid(dlid);
  if (!addressed) {
    core_.counters.inc(ORNIC_CNT_RX_WRONG_DLID);
    ++port.counters.rcv_switch_relay_errors;
    return false;
  }
  if (vl15 || port.active())
    return true;
  // IBA 7.2.4: an Armed port becomes Active when a packet arrives on a data VL.
  if (port.logical_state == ORNIC_PORT_ARMED) {
    core_.set_ib_port_state(ORNIC_PORT_ACTIVE);
    return true;
  }
  core_.counters.inc(ORNIC_CNT_RX_PORT_NOT_ACTIVE);
  return false;
}

bool IbFraming::is_multicast(const iba::Route& route) const {
  return is_multicast_lid(route.local.destination_lid);
}

bool IbFraming::is_local(const iba::Route& route) const {
  const uint16_t dlid = route.local.destination_lid;
  // A packet to one of the port's own LIDs never reaches the wire (IBA 7.11.1: the port
  // loops it back); so does a directed-route SMP with no hop to make, which the kernel
  // answers itself and never sends.
  return core_.ib.owns_lid(dlid);
}

bool IbFraming::from_connected_peer(const ornic_qp_attr& attr, const iba::ReceivedPacket& packet,
                                    bool from_wire) const {
  if (from_wire && packet.link_multicast)
    return false;
  if (packet.route.local.source_lid != le(attr.dlid))
    return false;
  if ((attr.av_flags & ORNIC_AV_FLAG_GRH) == 0)
    return true;
  return packet.route.has_global && std::equal(std::begin(attr.dgid), std::end(attr.dgid),
                                               packet.route.global.source_gid.begin());
}

iba::UdGrh IbFraming::ud_grh(const iba::ReceivedPacket& packet,
                             std::span<const uint8_t> frame) const {
  iba::UdGrh grh;
  if (!packet.route.has_global)
    return grh; // the 40 bytes stay as they were; no GRH flag
  grh.present = true;
  std::copy_n(frame.begin() + Lrh::kSize, iba::Grh::kSize, grh.bytes.begin());
  return grh;
}

uint32_t IbFraming::ud_mtu_bytes() const {
  return 128u << core_.ib.neighbor_mtu;
}

uint16_t IbFraming::partition_key(uint16_t pkey_index) const {
  const auto& pkeys = core_.ib.pkeys;
  return pkey_index < pkeys.size() ? pkeys[pkey_index] : 0;
}

bool IbFraming::partition_admits(uint16_t qp_pkey_index, bool any_entry, uint16_t packet_pkey,
                                 uint16_t& matched_index) const {
  IbPort& port = core_.ib;
  if (any_entry) {
    for (uint16_t index = 0; index < port.pkeys.size(); ++index)
      if (pkeys_match(port.pkeys[index], packet_pkey)) {
        matched_index = index;
        return true;
      }
  } else if (qp_pkey_index < port.pkeys.size() &&
             pkeys_match(port.pkeys[qp_pkey_index], packet_pkey)) {
    matched_index = qp_pkey_index;
    return true;
  }
  core_.counters.inc(ORNIC_CNT_RX_PKEY_ERRORS);
  ++port.counters.rcv_constraint_errors;
  if (port.p_key_violations != 0xffff)
    ++port.p_key_violations;
  return false;
}

void IbFraming::count_qkey_violation() const {
  if (core_.ib.q_key_violations != 0xffff)
    ++core_.ib.q_key_violations;
}

void IbFraming::count_undelivered(const iba::ReceivedPacket& packet) const {
  if (packet.bth.destination_qp == ORNIC_QPN_SMI) {
    core_.counters.inc(ORNIC_CNT_RX_VL15_DROPPED);
    ++core_.ib.counters.vl15_dropped;
  }
}

iba::ReceiveOrigin IbFraming::origin_of(const iba::ReceivedPacket& packet) const {
  const uint16_t below_lmc = static_cast<uint16_t>((1u << core_.ib.lmc) - 1);
  return iba::ReceiveOrigin{
      .slid = packet.route.local.source_lid,
      .pkey_index = packet.pkey_index,
      .sl = packet.route.local.service_level,
      .dlid_path_bits = static_cast<uint8_t>(packet.route.local.destination_lid & below_lmc),
      .vlan_tci = std::nullopt};
}

bool IbFraming::build_congestion_notification(const iba::Route&, uint32_t,
                                              std::vector<uint8_t>&) const {
  return false; // infiniband.rst: no congestion notification on an InfiniBand port
}

} // namespace ornic::ib
