#include "core/port_qos.hpp"

#include <algorithm>

namespace ornic {

std::optional<QosConfig> PortQos::from_wire(const ornic_port_qos& in) {
  if (!field_is_zero(in.reserved0) || !field_is_zero(in.reserved1))
    return std::nullopt;
  QosConfig config;
  config.pfc_enable = in.pfc_enable;
  unsigned ets_bw = 0;
  bool any_ets = false;
  for (unsigned i = 0; i < ORNIC_QOS_NUM_PRIO; ++i) {
    if (in.prio_tc[i] >= ORNIC_QOS_NUM_TC)
      return std::nullopt;
    config.prio_tc[i] = in.prio_tc[i];
  }
  for (unsigned tc = 0; tc < ORNIC_QOS_NUM_TC; ++tc) {
    if (in.tc_bw[tc] > 100 ||
        (in.tc_tsa[tc] != ORNIC_QOS_TSA_STRICT && in.tc_tsa[tc] != ORNIC_QOS_TSA_ETS))
      return std::nullopt;
    if (in.tc_tsa[tc] == ORNIC_QOS_TSA_ETS) {
      any_ets = true;
      ets_bw += in.tc_bw[tc];
    }
    config.tc_bw[tc] = in.tc_bw[tc];
    config.tc_tsa[tc] = in.tc_tsa[tc];
  }
  if (any_ets && ets_bw != 100)
    return std::nullopt;
  config.dscp_valid = le(in.dscp_valid);
  for (unsigned dscp = 0; dscp < ORNIC_QOS_NUM_DSCP; ++dscp) {
    const bool valid = (config.dscp_valid >> dscp) & 1;
    if (in.dscp_prio[dscp] >= ORNIC_QOS_NUM_PRIO || (!valid && in.dscp_prio[dscp] != 0))
      return std::nullopt;
    config.dscp_prio[dscp] = in.dscp_prio[dscp];
  }
  return config;
}

ornic_port_qos PortQos::to_wire(const QosConfig& config) {
  ornic_port_qos out{};
  out.pfc_enable = config.pfc_enable;
  std::copy(config.prio_tc.begin(), config.prio_tc.end(), out.prio_tc);
  std::copy(config.tc_bw.begin(), config.tc_bw.end(), out.tc_bw);
  std::copy(config.tc_tsa.begin(), config.tc_tsa.end(), out.tc_tsa);
  out.dscp_valid = to_le(config.dscp_valid);
  std::copy(config.dscp_prio.begin(), config.dscp_prio.end(), out.dscp_prio);
  return out;
}

void PortQos::set_config(const QosConfig& config) {
  config_ = config;
  dscp_.valid = config.dscp_valid;
  dscp_.priority = config.dscp_prio;
  if (on_config_change)
    on_config_change(config_);
}

unsigned PortQos::priority_of(std::span<const std::byte> frame) const {
  return mac_control::frame_priority(frame, dscp_);
}

void PortQos::count_tx_discard(std::span<const std::byte> frame) {
  ++discards_[priority_of(frame)].tx_discards;
}

void PortQos::count_rx_discard(std::span<const std::byte> frame) {
  ++discards_[priority_of(frame)].rx_discards;
}

PriorityCounters PortQos::counters(unsigned prio) const {
  PriorityCounters c = port_source ? port_source(prio) : PriorityCounters{};
  c.tx_discards += discards_.at(prio).tx_discards;
  c.rx_discards += discards_.at(prio).rx_discards;
  return c;
}

ornic_port_qos_query PortQos::query() const {
  ornic_port_qos_query out{};
  out.config = to_wire(config_);
  for (unsigned prio = 0; prio < ORNIC_QOS_NUM_PRIO; ++prio) {
    const PriorityCounters c = counters(prio);
    ornic_prio_counters& w = out.prio[prio];
    w.tx_frames = to_le(c.tx_frames);
    w.tx_bytes = to_le(c.tx_bytes);
    w.rx_frames = to_le(c.rx_frames);
    w.rx_bytes = to_le(c.rx_bytes);
    w.tx_pause = to_le(c.tx_pause);
    w.rx_pause = to_le(c.rx_pause);
    w.tx_pause_duration = to_le(c.tx_pause_duration);
    w.rx_pause_duration = to_le(c.rx_pause_duration);
    w.rx_pause_transitions = to_le(c.rx_pause_transitions);
    w.tx_discards = to_le(c.tx_discards);
    w.rx_discards = to_le(c.rx_discards);
  }
  return out;
}

void PortQos::reset() {
  discards_ = {};
  if (clear_port_source)
    clear_port_source();
  set_config(QosConfig{});
}

} // namespace ornic
