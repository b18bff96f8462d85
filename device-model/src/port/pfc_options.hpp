// Priority flow control on the port (`--port-pfc`, `--port-speed`, `--port-rx-rate`, ...;
// pfc_port.hpp): what make_port needs to put a PfcPort in the chain, and the defaults.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace ornic {

struct PfcOptions {
  // Put the PfcPort in the chain even with PFC off and no receive limit, so the DCB admin
  // command can enable PFC later without rebuilding the port.
  bool insert = false;
  uint8_t enabled = 0; // priorities with PFC on until the driver configures them
  // The link speed pause quanta (512 bit times) are counted at: 100 Gb/s, as the
  // 100GBASE ports RoCE deployments run PFC on.
  uint64_t speed_mbps = 100'000;
  // 0: frames reach the NIC as they arrive (no receive buffer). Else the NIC's receiver
  // takes them at this rate, from a buffer per priority: the slow receiver PFC exists for.
  uint64_t rx_rate_mbps = 0;
  // Per priority. XOFF leaves rx_buffer - xoff of headroom for what is already on its way
  // when the pause frame leaves (frames on the wire, in the peer's queues and its MAC);
  // the port's backends hold at most a few hundred KiB in flight.
  size_t rx_buffer_bytes = size_t{1} << 20;
  size_t xoff_bytes = size_t{256} << 10;
  size_t xon_bytes = size_t{128} << 10;
  // A switch's ECN marking in front of a slow port: an ECN-capable IP frame (a RoCE v2 one
  // of a DCQCN sender) that arrives while its priority's receive buffer holds more than
  // this is marked CE before the NIC takes it, so congestion control slows the sender
  // before the buffer reaches XOFF. 0: never.
  size_t rx_ecn_bytes = 0;
  size_t tx_buffer_bytes = size_t{1} << 20; // per priority, what waits while it is paused
  // A priority paused this long without a break stops honouring pause until the peer's
  // pause frames stop for as long (ethtool's pfc-prevention-tout; 100 ms as mlx5's
  // default). 0: never.
  uint32_t watchdog_ms = 100;
  std::array<uint8_t, 6> source_mac{}; // the source address of the PFC frames the port sends

  bool any() const { return insert || enabled != 0 || rx_rate_mbps != 0; }
};

// Empty if the options are consistent, else what is wrong with them (for the command line).
std::string check_pfc_options(const PfcOptions& options);

} // namespace ornic
