#include "rdma/address_vector.hpp"

#include <algorithm>

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
  av.dlid = s.dlid;
  av.sl = s.sl;
  av.src_path_bits = s.src_path_bits;
  av.av_flags = s.av_flags;
  av.static_rate = s.static_rate;
  return av;
}

} // namespace

ornic_wqe_av address_vector_of(const ornic_qp_attr& attr) {
  return copy_address_fields(attr);
}

ornic_wqe_av address_vector_of(const ornic_admin_create_ah& ah) {
  return copy_address_fields(ah);
}

} // namespace ornic
