// The Ethernet port's priorities (ethernet.rst, "Priorities and lossless Ethernet"): the
// PFC, ETS and DSCP settings SET_PORT_QOS replaces whole, and what the device counts per
// priority. Every frame that reaches or leaves the wire is counted here by its priority;
// the PFC pause counters come from whoever implements PFC (pause_source).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include "core/hw.hpp"

namespace ornic {

struct QosConfig {
  uint8_t pfc_enable = 0; // bit n: PFC on priority n
  std::array<uint8_t, ORNIC_QOS_NUM_PRIO> prio_tc{};
  std::array<uint8_t, ORNIC_QOS_NUM_TC> tc_bw{};
  std::array<uint8_t, ORNIC_QOS_NUM_TC> tc_tsa{}; // all ORNIC_QOS_TSA_STRICT
  uint64_t dscp_valid = 0;
  std::array<uint8_t, ORNIC_QOS_NUM_DSCP> dscp_prio{};

  bool operator==(const QosConfig&) const = default;
};

// The names of struct ornic_prio_counters.
struct PriorityCounters {
  uint64_t tx_frames = 0;
  uint64_t tx_bytes = 0;
  uint64_t rx_frames = 0;
  uint64_t rx_bytes = 0;
  uint64_t tx_pause = 0;
  uint64_t rx_pause = 0;
  uint64_t tx_pause_duration = 0; // microseconds
  uint64_t rx_pause_duration = 0; // microseconds
  uint64_t rx_pause_transitions = 0;
  uint64_t tx_discards = 0;
  uint64_t rx_discards = 0;
};

// The pause fields of one priority, as the PFC engine counts them, and the frames it
// dropped (a paused priority's full transmit buffer, a lossy priority's full receive one).
struct PauseStats {
  uint64_t tx_pause = 0;
  uint64_t rx_pause = 0;
  uint64_t tx_pause_duration = 0;
  uint64_t rx_pause_duration = 0;
  uint64_t rx_pause_transitions = 0;
  uint64_t tx_discards = 0;
  uint64_t rx_discards = 0;
};

class PortQos {
public:
  // The settings in wire form, or nothing when a field is out of range or reserved bytes
  // are set (admin.rst, SET_PORT_QOS).
  static std::optional<QosConfig> from_wire(const ornic_port_qos& wire);
  static ornic_port_qos to_wire(const QosConfig& config);

  const QosConfig& config() const { return config_; }
  void set_config(const QosConfig& config);
  // Called after every SET_PORT_QOS and reset, e.g. for a PFC engine to follow pfc_enable.
  std::function<void(const QosConfig&)> on_config_change;

  // A frame's priority: its 802.1Q PCP, else its IPv4/IPv6 DSCP's, else 0.
  unsigned priority_of(std::span<const std::byte> frame) const;

  void count_tx(std::span<const std::byte> frame);
  void count_rx(std::span<const std::byte> frame);
  void count_tx_discard(std::span<const std::byte> frame);
  void count_rx_discard(std::span<const std::byte> frame);

  // The counters of priority `prio` (< 8), the pause fields taken from pause_source when
  // one is set: the PFC engine keeps its own counts and plugs them in here.
  PriorityCounters counters(unsigned prio) const;
  std::function<PauseStats(unsigned prio)> pause_source;

  // QUERY_PORT_QOS's answer.
  ornic_port_qos_query query() const;

  // Defaults and zero counters (ethernet.rst); pause_source and on_config_change stay.
  void reset();

private:
  QosConfig config_{};
  std::array<PriorityCounters, ORNIC_QOS_NUM_PRIO> counters_{};
};

} // namespace ornic
