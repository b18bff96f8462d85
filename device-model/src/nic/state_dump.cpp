#include "nic/state_dump.hpp"

#include <array>

#include <fmt/format.h>

namespace ornic {
namespace {

// In ornic_counter_id order (counters.rst); the driver's names for the same counters.
constexpr auto kCounterNames = std::to_array<std::string_view>({
    "admin_commands",
    "admin_errors",
    "admin_bad_opcode",
    "admin_bad_field",
    "admin_bad_handle",
    "admin_no_resources",
    "admin_bad_dma",
    "db_writes",
    "db_foreign_page",
    "db_bad_queue",
    "db_bad_index",
    "db_bad_offset",
    "db_unallocated_page",
    "reg_bad_access",
    "dma_errors",
    "eq_overflow",
    "cq_overflow",
    "eqes",
    "cqes",
    "interrupts",
    "eth_tx_frames",
    "eth_tx_bytes",
    "eth_tx_errors",
    "eth_tx_link_down",
    "eth_rx_frames",
    "eth_rx_bytes",
    "eth_rx_no_buffer",
    "eth_rx_filtered",
    "eth_rx_too_long",
    "eth_rx_errors",
    "wqe_errors",
    "rx_rdma_packets",
    "rx_bad_icrc",
    "rx_bad_header",
    "rx_unknown_qp",
    "rx_psn_errors",
    "tx_rdma_packets",
    "naks_sent",
    "naks_received",
    "retransmits",
    "rnr_naks",
    "timeouts",
    "rx_qkey_errors",
    "rx_ud_no_recv",
    "tx_rdma_bytes",
    "rx_rdma_bytes",
    "rx_mcast_delivered",
    "rx_mcast_no_group",
    "odp_req_faults",
    "odp_resp_faults",
    "odp_invalidations",
    "odp_errors",
    "rx_uc_no_recv",
    "rx_uc_dropped",
    "rx_peer_mismatch",
    "db_wq_writes",
    "db_record_errors",
    "cc_ce_received",
    "cc_cnps_sent",
    "cc_cnps_handled",
    "rx_bad_vcrc",
    "rx_bad_lrh",
    "rx_wrong_dlid",
    "rx_vl15_dropped",
    "rx_pkey_errors",
    "rx_port_not_active",
    "tx_port_not_active",
    "iw_tcp_rx_frames",
    "iw_tcp_tx_frames",
    "iw_conn_refused",
    "iw_mpa_errors",
    "iw_rx_bad_fpdu",
    "iw_rx_bad_segment",
    "iw_terminates_sent",
    "iw_terminates_received",
    "iw_rx_dropped_bytes",
});
static_assert(kCounterNames.size() == ORNIC_CNT_COUNT, "one name per ornic_counter_id");

nlohmann::json ring_json(const RingState& ring) {
  return {{"log_depth", ring.log_depth}, {"producer", ring.producer}, {"consumer", ring.consumer}};
}

nlohmann::json qp_counters_json(const QpCounters& c) {
  return {{"send_wqes", c.send_wqes},
          {"recv_wqes", c.recv_wqes},
          {"send_bytes", c.send_bytes},
          {"recv_bytes", c.recv_bytes},
          {"wqe_errors", c.wqe_errors},
          {"db_foreign_page", c.db_foreign_page},
          {"db_bad_index", c.db_bad_index},
          {"packets_sent", c.packets_sent},
          {"packets_received", c.packets_received},
          {"retransmits", c.retransmits},
          {"naks_received", c.naks_received},
          {"naks_sent", c.naks_sent},
          {"rnr_naks", c.rnr_naks},
          {"timeouts", c.timeouts}};
}

// Congestion control (roce.rst): the QP as notification and as reaction point.
nlohmann::json cc_json(const cc::CcQpState& cc) {
  nlohmann::json out = {{"ce_received", cc.ce_received},
                        {"cnps_sent", cc.cnps_sent},
                        {"cnps_handled", cc.cnps_handled}};
  if (cc.rate) {
    out["rate_mbps"] = cc.rate->current_mbps();
    out["target_mbps"] = cc.rate->target_mbps();
    out["alpha"] = cc.rate->alpha();
  }
  return out;
}

} // namespace

std::string_view counter_name(ornic_counter_id id) {
  const auto index = static_cast<size_t>(id);
  return index < kCounterNames.size() ? kCounterNames[index] : std::string_view{};
}

nlohmann::json device_state(const NicCore& core) {
  nlohmann::json counters = nlohmann::json::object();
  for (size_t i = 0; i < kCounterNames.size(); ++i)
    counters[std::string(kCounterNames[i])] = core.counters.get(static_cast<ornic_counter_id>(i));

  const Resources& r = core.resources;
  nlohmann::json qps = nlohmann::json::array();
  for (const auto& [qpn, qp] : r.qps)
    qps.push_back({{"qpn", qpn},
                   {"type", static_cast<unsigned>(qp.type)},
                   {"state", static_cast<unsigned>(qp.state)},
                   {"send_cqn", qp.send_cqn},
                   {"recv_cqn", qp.recv_cqn},
                   {"sq", ring_json(qp.sq)},
                   {"rq", ring_json(qp.rq)},
                   {"counters", qp_counters_json(qp.counters)},
                   {"cc", cc_json(qp.transport.cc)}});

  const auto& m = core.mac;
  return {
      {"spec_version", fmt::format("{}.{}", ORNIC_SPEC_VERSION_MAJOR, ORNIC_SPEC_VERSION_MINOR)},
      {"fatal", static_cast<unsigned>(core.fatal_code())},
      {"link_up", core.link_up},
      {"mac", fmt::format("{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", m[0], m[1], m[2], m[3], m[4],
                          m[5])},
      {"eth_mtu", core.eth_mtu},
      {"counters", counters},
      {"objects",
       {{"eqs", r.eqs.size()},
        {"cqs", r.cqs.size()},
        {"pds", r.pds.size()},
        {"mrs", r.mrs.size()},
        {"qps", r.qps.size()},
        {"srqs", r.srqs.size()},
        {"xrcds", r.xrcds.size()},
        {"ahs", r.ahs.size()},
        {"eth_rings", r.eth_rings.size()}}},
      {"qps", qps}};
}

} // namespace ornic
