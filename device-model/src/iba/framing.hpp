// How the IB transport reaches a fabric: the one interface between the transport engine
// (rdma/), which speaks BTH, PSNs and ACKs, and a framing that wraps those packets for a
// link and unwraps what arrives. RoCE (roce/roce_framing.hpp) puts them in Ethernet, IP
// and UDP (v2) or behind a GRH (v1); InfiniBand framing (ib/ib_framing.hpp) behind an LRH
// (and a GRH when the route is global). The engine holds a Framing& and never learns
// which: it fills a packet's transport headers and has the framing route, plan, write and
// seal it; it has the framing parse what arrives and answer the questions only the fabric
// can (is this a group, is it this port, is it the QP's peer, what GRH does a UD receiver
// get, how large may a datagram be, how is congestion marked and notified).
//
// One virtual call per step of a packet, none per byte; nothing allocates.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "iba/gid.hpp"
#include "iba/opcode_table.hpp"
#include "iba/receive_origin.hpp"
#include "iba/transport_packet.hpp"
#include "ornic/ornic_hw.h"

namespace ornic::iba {

// A packet's addressing, in the parts the IBA address vector has (and Linux's
// rdma_ah_attr): the global route a GRH carries, the local route an LRH carries, and the
// link addresses an Ethernet fabric resolves. A framing fills and reads the parts its
// fabric uses; the engine only carries a Route from route() to the frame, or from a
// received frame to the questions below.

// The GRH (IBA 8.3); RoCEv2's IP header.
struct GlobalRoute {
  Gid source_gid{};
  Gid destination_gid{}; // a multicast group's MGID for a group
  uint8_t traffic_class = 0;
  uint32_t flow_label = 0; // 20 bits
  uint8_t hop_limit = 64;
  bool operator==(const GlobalRoute&) const = default;
};

// The LRH (IBA 7.7): InfiniBand only.
struct LocalRoute {
  uint16_t destination_lid = 0; // an MLID (0xc000-0xfffe) for a group
  uint16_t source_lid = 0;      // the port's base LID plus the path bits
  uint8_t service_level = 0;
  uint8_t virtual_lane = 0;
  bool operator==(const LocalRoute&) const = default;
};

// Ethernet fabrics: RoCE.
struct EthernetRoute {
  std::array<uint8_t, 6> destination_mac{};
  std::array<uint8_t, 6> source_mac{};
  // The flow's entropy for ECMP: RoCEv2's UDP source port.
  uint16_t flow_entropy = 0;
  // RoCE v1: the GRH straight in Ethernet (the source GID entry's type picks it).
  bool roce_v1 = false;
  // An 802.1Q tag (the source GID entry's VLAN) and the priority it carries.
  std::optional<uint16_t> vlan_id = std::nullopt;
  uint8_t priority = 0;
  bool operator==(const EthernetRoute&) const = default;
};

struct Route {
  GlobalRoute global;
  bool has_global = true; // a GRH is present (always on RoCE; on IB for global routes)
  LocalRoute local;
  EthernetRoute ethernet;
  bool operator==(const Route&) const = default;
};

// What the engine sends: its transport headers, and the route the framing filled.
struct OutboundPacket : TransportHeaders {
  Route route;
};

// What arrived, validated by the framing: transport headers, the route as the packet
// names it (source = the sender), the opcode's table entry and the payload (in the frame,
// pad and CRCs excluded).
struct ReceivedPacket : TransportHeaders {
  Route route;
  OpcodeInfo opcode_info;
  std::span<const uint8_t> payload;
  // The link delivered it to a group address (RoCE: a group MAC; IB: an MLID).
  bool link_multicast = false;
  // Marked on the way by a congested hop (RoCE: ECN CE; IB: BTH FECN).
  bool congestion_experienced = false;
  // The P_Key table entry that admitted it (set by the transport: partition_admits).
  uint16_t pkey_index = 0;
};

enum class ParseStatus : uint8_t {
  packet,                  // a transport packet, in the ReceivedPacket
  congestion_notification, // a notification for bth.destination_qp from route's source
  bad_icrc,                // the invariant CRC (or IB's VCRC) does not match
  bad_header,              // anything else that is not an acceptable packet
};

// How a packet becomes a frame, between plan() and seal(): the frame's size and where the
// payload goes, plus what the framing keeps for itself (RoCEv2: the IP family and header
// sizes; IB: whether a GRH is there and the packet length).
struct FramePlan {
  size_t frame_bytes = 0;    // what is sent, link padding included
  size_t payload_offset = 0; // from the start of the frame
  size_t payload_bytes = 0;
  uint8_t pad_count = 0;
  uint8_t network_kind = 0;         // the framing's own
  size_t network_header_bytes = 0;  // the framing's own
  size_t network_payload_bytes = 0; // the framing's own
  size_t link_header_bytes = 0;     // the framing's own (RoCE: Ethernet and a VLAN tag)
};

// The 40 bytes a UD receive buffer starts with (IBA 11.4.1.1): the GRH as received, an
// IPv6 header as is, or RoCEv2's IPv4 header in the last 20 bytes; zero when the packet
// had none.
struct UdGrh {
  std::array<uint8_t, 40> bytes{};
  bool present = false;
  bool ipv4 = false;    // RoCEv2 over IPv4 (ORNIC_CQE_FLAG_IPV4)
  bool roce_v1 = false; // a RoCE v1 packet's own GRH (ORNIC_CQE_FLAG_ROCE_V1)
};

class Framing {
public:
  virtual ~Framing() = default;

  // The route of a packet from local QP `source_qpn` to `destination_qpn` along `av` (a
  // QP's attributes, an AH or a WQE's own vector, all in ornic_wqe_av's shape), with the
  // port's own addresses and the congestion marks the device puts on what it sends. False
  // when no such packet can exist (an empty source GID entry, GIDs of two IP families...).
  virtual bool route(const ornic_wqe_av& av, uint32_t source_qpn, uint32_t destination_qpn,
                     Route& route) const = 0;

  // Building a frame, in three steps so the payload can be copied straight from its source
  // into the buffer the frame goes out of: plan() checks the packet and sizes the frame
  // (false: this packet cannot be framed; nothing is sent); write_headers() fills all but
  // the payload and the CRCs in `frame` (at least plan.frame_bytes) and returns the
  // payload area; seal() adds the fabric's CRCs once the payload is in.
  virtual bool plan(const OutboundPacket& packet, size_t payload_bytes, FramePlan& plan) const = 0;
  virtual std::span<uint8_t> write_headers(const OutboundPacket& packet, const FramePlan& plan,
                                           std::span<uint8_t> frame) const = 0;
  virtual void seal(const OutboundPacket& packet, const FramePlan& plan,
                    std::span<uint8_t> frame) const = 0;

  // Any byte sequence is safe input. On anything but ParseStatus::packet, only what the
  // status names is meaningful in `packet`.
  virtual ParseStatus parse(std::span<const uint8_t> frame, ReceivedPacket& packet) const = 0;

  // The route's destination is a multicast group (then global.destination_gid names it).
  virtual bool is_multicast(const Route& route) const = 0;
  // The route's destination is this port itself: the frame is looped back, not sent.
  virtual bool is_local(const Route& route) const = 0;
  // An RC/UC/XRC packet from the QP's connected peer (roce.rst, "Connected peer"):
  // `from_wire` is false for a frame this NIC looped back to itself.
  virtual bool from_connected_peer(const ornic_qp_attr& attr, const ReceivedPacket& packet,
                                   bool from_wire) const = 0;
  // What a UD receiver gets in front of the data; `frame` is the one `packet` came from.
  virtual UdGrh ud_grh(const ReceivedPacket& packet, std::span<const uint8_t> frame) const = 0;
  // The largest UD payload: the port's active MTU in bytes.
  virtual uint32_t ud_mtu_bytes() const = 0;

  // Partitions (IBA 10.9). The P_Key a packet carries when its QP (or, for the management
  // QPs, its WQE) names P_Key table entry `pkey_index`; and whether a received packet's
  // P_Key admits it to a QP whose entry is `qp_pkey_index` — or, with `any_entry` (the GSI
  // QP), to any entry of the table, whose index goes to `matched_index`. A refusal is
  // counted by the framing. Fabrics without partitions send the default P_Key and admit
  // every packet.
  virtual uint16_t partition_key(uint16_t pkey_index) const = 0;
  virtual bool partition_admits(uint16_t qp_pkey_index, bool any_entry, uint16_t packet_pkey,
                                uint16_t& matched_index) const = 0;
  // A UD packet the transport refused for its Q_Key, and a packet it could not deliver (no
  // such QP, a QP not receiving, no receive WQE), for the fabric's own accounting.
  virtual void count_qkey_violation() const = 0;
  virtual void count_undelivered(const ReceivedPacket& packet) const = 0;
  // How a received packet arrived, in the terms a receive completion reports (zero on
  // fabrics without local routes).
  virtual ReceiveOrigin origin_of(const ReceivedPacket& packet) const = 0;

  // The congestion notification (RoCEv2: a CNP) back along `route` to `destination_qp`,
  // the sender whose packets were marked, built in `frame`. False if none can be built.
  virtual bool build_congestion_notification(const Route& route, uint32_t destination_qp,
                                             std::vector<uint8_t>& frame) const = 0;
};

} // namespace ornic::iba
