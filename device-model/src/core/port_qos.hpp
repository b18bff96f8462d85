// The Ethernet port's priorities (ethernet.rst, "Priorities and lossless Ethernet"): the
// PFC, ETS and DSCP settings SET_PORT_QOS replaces whole, and QUERY_PORT_QOS's per-priority
// counters. The frames to and from the wire are classified and counted once, by the port's
// PFC engine (port_source); only the frames the NIC itself drops are counted here.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include "core/hw.hpp"
#include "port/mac_control.hpp"

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

  // A frame's priority: its 802.1Q PCP, else its IPv4/IPv6 DSCP's, else 0
  // (mac_control::frame_priority with this configuration's DSCP map).
  unsigned priority_of(std::span<const std::byte> frame) const;
  const mac_control::DscpMap& dscp_map() const { return dscp_; }

  // Frames the NIC dropped after the port handed them over, or that never reached it.
  void count_tx_discard(std::span<const std::byte> frame);
  void count_rx_discard(std::span<const std::byte> frame);

  // The counters of priority `prio` (< 8): port_source's (the PFC engine's frames, bytes,
  // pauses and discards) plus the NIC's own discards. Without a source (no engine on the
  // port) only those discards.
  PriorityCounters counters(unsigned prio) const;
  std::function<PriorityCounters(unsigned prio)> port_source;
  // Zeroes port_source's counters (reset).
  std::function<void()> clear_port_source;

  // QUERY_PORT_QOS's answer.
  ornic_port_qos_query query() const;

  // Defaults and zero counters (ethernet.rst); the callbacks stay.
  void reset();

private:
  QosConfig config_{};
  mac_control::DscpMap dscp_{};
  std::array<PriorityCounters, ORNIC_QOS_NUM_PRIO> discards_{};
};

} // namespace ornic
