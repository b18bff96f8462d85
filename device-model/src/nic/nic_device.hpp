// The ornic RNIC as a PCI function (Documentation/hardware/ornic/): BAR0 registers, BAR2
// doorbell pages, MSI-X on BAR4, the admin queue, event queues, object tables, and on its one
// Port either the Ethernet function and the IB transport framed as RoCEv2, or (an
// InfiniBand port) the IB transport framed as InfiniBand. The transport is held through the
// TransportHooks interface so another one (iWARP) can take its place.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "common/event_loop.hpp"
#include "core/lifetime_token.hpp"
#include "core/nic_core.hpp"
#include "core/transport_hooks.hpp"
#include "core/transport_timer.hpp"
#include "iba/framing.hpp"
#include "nic/admin_commands.hpp"
#include "nic/admin_queue.hpp"
#include "nic/doorbell_decoder.hpp"
#include "nic/eth_function.hpp"
#include "nic/queue_doorbells.hpp"
#include "nic/register_file.hpp"
#include "nic/state_dump.hpp"
#include "pci/function.hpp"

namespace ornic {

class Port;
class PfcPort;
namespace iwarp::cm {
class ConnectionManager;
}
namespace iwarp::qp {
class QpEngine;
}

struct NicConfig {
  std::array<uint8_t, 6> mac;
  Port* port = nullptr; // not owned; outlives the device
  // The packet engine's clock; null = the EventLoop's monotonic timers. Not owned.
  TransportTimer* timer = nullptr;
  // Test-only misbehaviour (--inject-faults).
  FaultInjection faults{};
  // The port's link layer, fixed for the device's life (infiniband.rst).
  ornic_link_layer link_layer = ORNIC_LINK_LAYER_ETH;
  // InfiniBand: NodeDescription (empty: "ornic <MAC>").
  std::string node_description{};
  // Object counts the device takes and reports (--max); the device's maxima by default.
  limits::ObjectLimits limits{};
  // The port's PFC engine (in `port`'s chain), which SET_PORT_QOS drives and whose
  // per-priority counts QUERY_PORT_QOS reports (without one they stay 0); null on an
  // InfiniBand port. Not owned. Last, so that positional initializers stay valid.
  PfcPort* pfc = nullptr;
};

class NicDevice : public PciFunctionModel {
public:
  NicDevice(EventLoop& loop, const NicConfig& config);
  ~NicDevice() override;
  NicDevice(const NicDevice&) = delete;
  NicDevice& operator=(const NicDevice&) = delete;

  PciIdentity identity() const override;
  std::array<BarDescriptor, 6> bars() const override;
  MsixLayout msix() const override;
  uint64_t bar_read(unsigned bar, uint64_t offset, unsigned size) override;
  void bar_write(unsigned bar, uint64_t offset, unsigned size, uint64_t value) override;
  void reset() override;
  void attach(GuestMemory& memory, InterruptSink& irqs) override;

  // For tests and diagnostics.
  void set_object_limits(const limits::ObjectLimits& l) { core_.resources.set_limits(l); }
  const DeviceCounters& counters() const { return core_.counters; }
  bool ready() const { return admin_.running() && !core_.fatal(); }
  // Counters and state as JSON (state_dump.hpp), with whether the device is enabled.
  nlohmann::json state() const;

private:
  void write_register(uint64_t offset, uint32_t value);
  void enable();
  void aeq_doorbell(uint32_t value);
  void link_changed(bool up);
  void attach_pfc(PfcPort& pfc);
  std::unique_ptr<TransportHooks> make_transport(EventLoop& loop, const NicConfig& config);
  void set_up_iwarp();
  void iwarp_tick();
  RegisterView register_view() const;
  uint64_t doorbell_page_read(uint64_t offset, unsigned size) const;

  Port* port_;
  NicCore core_;
  RegisterFile registers_;
  AdminCommands commands_;
  AdminQueue admin_;
  DoorbellDecoder doorbell_decoder_;
  uint32_t bar2_writes_ = 0; // BAR2_WRITES (registers.rst)
  EthFunction eth_;
  QueueDoorbells doorbells_;
  std::unique_ptr<TransportTimer> own_timer_;
  std::unique_ptr<iba::Framing> framing_;     // what the transport's packets look like
  iwarp::qp::QpEngine* iwarp_qps_ = nullptr;  // transport_, on an iWARP port
  std::unique_ptr<TransportHooks> transport_; // uses framing_
  EventLoop& loop_;
  // An iWARP port's connection manager (iwarp-cm.rst); its TCP timers tick on the device clock.
  std::unique_ptr<iwarp::cm::ConnectionManager> iwarp_cm_;
  LifetimeToken lifetime_; // for callbacks the Port runs after the device is gone
};

} // namespace ornic
