#include "core/port_qos.hpp"

#include <algorithm>

namespace ornic {
namespace {

constexpr uint16_t kEthertypeVlan = 0x8100;
constexpr uint16_t kEthertypeQinQ = 0x88a8;
constexpr uint16_t kEthertypeIpv4 = 0x0800;
constexpr uint16_t kEthertypeIpv6 = 0x86dd;
constexpr size_t kEthHeader = 14;

uint8_t byte_at(std::span<const std::byte> frame, size_t offset) {
  return std::to_integer<uint8_t>(frame[offset]);
}

uint16_t be16_at(std::span<const std::byte> frame, size_t offset) {
  return static_cast<uint16_t>(byte_at(frame, offset) << 8 | byte_at(frame, offset + 1));
}

} // namespace

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
  if (on_config_change)
    on_config_change(config_);
}

unsigned PortQos::priority_of(std::span<const std::byte> frame) const {
  if (frame.size() < kEthHeader)
    return 0;
  const uint16_t type = be16_at(frame, 12);
  if (type == kEthertypeVlan || type == kEthertypeQinQ)
    return frame.size() >= kEthHeader + 2 ? byte_at(frame, 14) >> 5 : 0;
  unsigned dscp;
  if (type == kEthertypeIpv4 && frame.size() >= kEthHeader + 2 &&
      (byte_at(frame, kEthHeader) >> 4) == 4)
    dscp = byte_at(frame, kEthHeader + 1) >> 2;
  else if (type == kEthertypeIpv6 && frame.size() >= kEthHeader + 2 &&
           (byte_at(frame, kEthHeader) >> 4) == 6)
    // Four bits of version, then the traffic class, whose top six bits are the DSCP.
    dscp = (be16_at(frame, kEthHeader) >> 6) & 0x3f;
  else
    return 0;
  return ((config_.dscp_valid >> dscp) & 1) ? config_.dscp_prio[dscp] : 0;
}

void PortQos::count_tx(std::span<const std::byte> frame) {
  PriorityCounters& c = counters_[priority_of(frame)];
  ++c.tx_frames;
  c.tx_bytes += frame.size();
}

void PortQos::count_rx(std::span<const std::byte> frame) {
  PriorityCounters& c = counters_[priority_of(frame)];
  ++c.rx_frames;
  c.rx_bytes += frame.size();
}

void PortQos::count_tx_discard(std::span<const std::byte> frame) {
  ++counters_[priority_of(frame)].tx_discards;
}

void PortQos::count_rx_discard(std::span<const std::byte> frame) {
  ++counters_[priority_of(frame)].rx_discards;
}

PriorityCounters PortQos::counters(unsigned prio) const {
  PriorityCounters c = counters_.at(prio);
  if (pause_source) {
    const PauseStats pause = pause_source(prio);
    c.tx_pause = pause.tx_pause;
    c.rx_pause = pause.rx_pause;
    c.tx_pause_duration = pause.tx_pause_duration;
    c.rx_pause_duration = pause.rx_pause_duration;
    c.rx_pause_transitions = pause.rx_pause_transitions;
    c.tx_discards += pause.tx_discards;
    c.rx_discards += pause.rx_discards;
  }
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
  counters_ = {};
  set_config(QosConfig{});
}

} // namespace ornic
