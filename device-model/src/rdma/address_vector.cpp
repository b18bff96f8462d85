#include "rdma/address_vector.hpp"

#include <algorithm>

#include "rdma/congestion.hpp"
#include "roce/gid.hpp"

namespace ornic {
namespace {

template <typename Source>
ornic_wqe_av copy_address_fields(const Source& s) {
  ornic_wqe_av av{};
  av.flow_label = s.flow_label;
  av.sgid_index = s.sgid_index;
  av.hop_limit = s.hop_limit;
  av.traffic_class = s.traffic_class;
  std::copy(std::begin(s.dgid), std::end(s.dgid), av.dgid);
  std::copy(std::begin(s.dmac), std::end(s.dmac), av.dmac);
  av.udp_sport = s.udp_sport;
  return av;
}

} // namespace

ornic_wqe_av address_vector_of(const ornic_qp_attr& attr) {
  return copy_address_fields(attr);
}

ornic_wqe_av address_vector_of(const ornic_admin_create_ah& ah) {
  return copy_address_fields(ah);
}

bool address_packet(const NicCore& core, const ornic_wqe_av& av, roce::PacketDescription& packet) {
  const auto& gids = core.resources.gids;
  if (av.sgid_index >= gids.size() || !gids[av.sgid_index])
    return false;
  packet.source_gid = gids[av.sgid_index]->gid;
  std::copy(std::begin(av.dgid), std::end(av.dgid), packet.destination_gid.begin());
  if (roce::gid_family(packet.source_gid) != roce::gid_family(packet.destination_gid))
    return false;
  if (roce::is_multicast(packet.destination_gid)) // as IP multicast maps it, not from ARP/ND
    packet.destination_mac = roce::multicast_mac(packet.destination_gid);
  else
    std::copy(std::begin(av.dmac), std::end(av.dmac), packet.destination_mac.begin());
  packet.source_mac = core.mac;
  packet.traffic_class = Congestion::with_ect(core.cc, av.traffic_class);
  packet.flow_label = le(av.flow_label) & 0xfffff;
  packet.hop_limit = av.hop_limit != 0 ? av.hop_limit : 64;
  return true;
}

} // namespace ornic
