// QUERY_DEVICE, QUERY_PORT, QUERY_COUNTERS: responses written to a host buffer.
#include "core/device_limits.hpp"
#include "nic/admin_commands.hpp"

namespace ornic {
namespace {

bool query_reserved_zero(const ornic_admin_query& c) {
  return field_is_zero(c.reserved);
}

} // namespace

AdminResult AdminCommands::write_response(uint64_t addr, uint32_t len,
                                          std::span<const std::byte> response) {
  if (len < response.size())
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (!core_.memory().write(addr, response)) {
    core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
    return admin_status(ORNIC_ADMIN_STATUS_BAD_DMA);
  }
  return admin_ok(static_cast<uint32_t>(response.size()));
}

AdminResult AdminCommands::query_device(const ornic_admin_query& c) {
  if (!query_reserved_zero(c))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const Resources& r = core_.resources;
  ornic_device_attr attr{};
  attr.spec_version = to_le<uint32_t>(ORNIC_SPEC_VERSION);
  attr.caps = to_le<uint64_t>(core_.caps());
  attr.max_mr_size = to_le<uint64_t>(limits::kMaxMrSize);
  attr.page_size_cap = to_le<uint64_t>(limits::kPageSizeCap);
  attr.max_qp = to_le(r.qps.capacity());
  attr.max_qp_wr = to_le(limits::kMaxQpWr);
  attr.max_send_sge = to_le(limits::kMaxSendSge);
  attr.max_recv_sge = to_le(limits::kMaxRecvSge);
  attr.max_cq = to_le(r.cqs.capacity());
  attr.max_cqe = to_le(1u << limits::kMaxCqLogDepth);
  attr.max_mr = to_le(r.mrs.capacity());
  attr.max_pd = to_le(r.pds.capacity());
  attr.max_srq = to_le(r.srqs.capacity());
  attr.max_srq_wr = to_le(limits::kMaxQpWr);
  attr.max_srq_sge = to_le(limits::kMaxRecvSge);
  attr.max_ah = to_le(r.ahs.capacity());
  attr.max_eq = to_le(limits::kMaxEq);
  attr.max_eqe = to_le(1u << limits::kMaxEqLogDepth);
  attr.max_inline_data = to_le(limits::kMaxInlineData);
  attr.max_msg_size = to_le(limits::kMaxMsgSize);
  attr.max_qp_rd_atom = to_le(limits::kMaxQpRdAtom);
  attr.max_qp_init_rd_atom = to_le(limits::kMaxQpRdAtom);
  attr.max_pages_per_mr = to_le(limits::kMaxPagesPerMr);
  attr.max_db_pages = to_le(ORNIC_DB_PAGES);
  attr.max_fast_reg_pages = to_le(limits::kMaxFastRegPages);
  attr.max_eth_rings = to_le(limits::kMaxEthRings);
  attr.max_mcast_grp = to_le(static_cast<uint32_t>(r.mcast.max_groups()));
  attr.max_mcast_qp_attach = to_le(limits::kMaxMcastQpAttach);
  attr.max_total_mcast_qp_attach = to_le(static_cast<uint32_t>(r.mcast.max_total()));
  attr.max_wqe_blocks = to_le<uint32_t>(ORNIC_WQE_MAX_BLOCKS);
  attr.num_comp_vectors = to_le(ORNIC_MSIX_VECTORS - 1);
  attr.atomic_cap = ORNIC_ATOMIC_HCA;
  attr.local_ca_ack_delay = limits::kLocalCaAckDelay;
  attr.num_ports = 1;
  if (core_.is_ib())
    attr.node_guid = to_be(core_.ib.node_guid);
  return write_response(le(c.resp_addr), le(c.resp_len), bytes_of(attr));
}

AdminResult AdminCommands::query_port(const ornic_admin_query& c) {
  if (!query_reserved_zero(c))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  ornic_port_attr attr{};
  attr.max_mtu = ORNIC_MTU_4096;
  attr.active_mtu = core_.active_mtu();
  attr.speed_gbps = to_le(limits::kSpeedGbps);
  attr.pkey_tbl_len = to_le(core_.pkey_table_size());
  std::copy(core_.mac.begin(), core_.mac.end(), attr.mac);
  if (core_.is_ib()) {
    // The subnet manager's view of the port (LIDs, P_Keys) is PortInfo's, through MAD_IFC.
    attr.state = core_.ib.logical_state;
    attr.link_layer = ORNIC_LINK_LAYER_IB;
    attr.gid_tbl_len = to_le(1u);
    attr.port_guid = to_be(core_.ib.port_guid);
  } else {
    attr.state = core_.link_up ? ORNIC_PORT_ACTIVE : ORNIC_PORT_DOWN;
    attr.link_layer = core_.is_iwarp() ? ORNIC_LINK_LAYER_IWARP : ORNIC_LINK_LAYER_ETH;
    attr.gid_tbl_len = to_le(limits::kGidTableSize);
    attr.eth_mtu = to_le(core_.eth_mtu);
    attr.max_eth_mtu = to_le(ORNIC_ETH_MTU_MAX);
  }
  return write_response(le(c.resp_addr), le(c.resp_len), bytes_of(attr));
}

AdminResult AdminCommands::query_counters(const ornic_admin_query_counters& c) {
  if (!field_is_zero(c.reserved0) || !field_is_zero(c.reserved1))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (c.scope == ORNIC_COUNTER_SCOPE_DEVICE) {
    if (c.handle != 0)
      return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
    ornic_device_counters out{};
    out.num_counters = to_le<uint32_t>(ORNIC_CNT_COUNT);
    for (uint32_t id = 0; id < ORNIC_CNT_COUNT; ++id)
      out.counter[id] = to_le(core_.counters.get(static_cast<ornic_counter_id>(id)));
    return write_response(le(c.resp_addr), le(c.resp_len), bytes_of(out));
  }
  if (c.scope == ORNIC_COUNTER_SCOPE_QP) {
    const QueuePair* qp = core_.resources.qps.find(le(c.handle));
    if (qp == nullptr)
      return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
    ornic_qp_counters out{};
    out.send_wqes = to_le(qp->counters.send_wqes);
    out.recv_wqes = to_le(qp->counters.recv_wqes);
    out.send_bytes = to_le(qp->counters.send_bytes);
    out.recv_bytes = to_le(qp->counters.recv_bytes);
    out.wqe_errors = to_le(qp->counters.wqe_errors);
    out.db_foreign_page = to_le(qp->counters.db_foreign_page);
    out.db_bad_index = to_le(qp->counters.db_bad_index);
    out.packets_sent = to_le(qp->counters.packets_sent);
    out.packets_received = to_le(qp->counters.packets_received);
    out.retransmits = to_le(qp->counters.retransmits);
    out.naks_received = to_le(qp->counters.naks_received);
    out.naks_sent = to_le(qp->counters.naks_sent);
    out.rnr_naks = to_le(qp->counters.rnr_naks);
    out.timeouts = to_le(qp->counters.timeouts);
    // As of the QP's last request packet or CNP (the rate moves on lazily, when it sends).
    const auto& rate = qp->transport.cc.rate;
    out.cc_rate_mbps =
        to_le(rate && rate->limited() ? static_cast<uint64_t>(rate->current_mbps() + 0.5) : 0);
    return write_response(le(c.resp_addr), le(c.resp_len), bytes_of(out));
  }
  return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
}

} // namespace ornic
