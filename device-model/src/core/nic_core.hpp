// The state every part of the NIC shares — object tables, counters, the async EQ, port
// settings — and the few operations that cross parts: delivering a completion (CQ, then
// EQ, then MSI-X), posting an async event, moving a QP to ERR, going fatal.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "common/rate_limited_log.hpp"
#include "core/device_counters.hpp"
#include "core/device_limits.hpp"
#include "core/doorbell_record.hpp"
#include "core/event_queue.hpp"
#include "core/fault_injection.hpp"
#include "core/hw.hpp"
#include "core/ib_port.hpp"
#include "core/port_qos.hpp"
#include "core/resources.hpp"
#include "core/transport_hooks.hpp"
#include "core/transport_timer.hpp"
#include "dma/guest_memory.hpp"
#include "iba/receive_origin.hpp"
#include "pci/function.hpp"

namespace ornic {

class IwarpCmHooks;

using MacAddress = std::array<uint8_t, 6>;

// The largest IB MTU whose packets fit an Ethernet MTU: IPv4 (20) + UDP (8) + BTH (12) +
// RETH (16) + ICRC (4) around the payload (admin.rst, ETH_SET_MTU).
inline uint8_t roce_active_mtu(uint32_t eth_mtu) {
  const uint32_t overhead = 20 + 8 + 12 + 16 + 4;
  const uint32_t room = eth_mtu > overhead ? eth_mtu - overhead : 0;
  uint8_t mtu = ORNIC_MTU_256;
  for (uint8_t candidate = ORNIC_MTU_512; candidate <= ORNIC_MTU_4096; ++candidate)
    if ((128u << candidate) <= room)
      mtu = candidate;
  return mtu;
}

// The CQE opcode reporting a send WQE of `wqe_opcode` (cqe.rst).
uint8_t cqe_opcode_for_send(uint8_t wqe_opcode);

class NicCore {
public:
  explicit NicCore(const MacAddress& permanent_mac);

  void attach(GuestMemory& memory, InterruptSink& irqs) {
    memory_ = &memory;
    irqs_ = &irqs;
  }
  GuestMemory& memory() { return *memory_; }
  InterruptSink& irqs() { return *irqs_; }

  // Back to the state after power-on: no objects, counters zero, not fatal.
  void reset();

  // Writes a CQE to CQ cqn and, if the CQ was armed for it, a COMPLETION EQE. A CQ that
  // overflows or cannot be written goes to error: CQ_ERROR event, its QPs to ERR.
  // `origin` (receives on an InfiniBand port) fills the first half of a 64-byte entry.
  void complete(uint32_t cqn, const ornic_cqe& cqe, bool solicited = false,
                const iba::ReceiveOrigin& origin = {});

  // Writes an EQE to the async EQ (EQ 0), if it is configured.
  void post_async_event(ornic_eqe_type type, uint32_t object, uint32_t data);
  // The same for an EQE with its own layout (PAGE_FAULT).
  void post_async_entry(const ornic_eqe& eqe);

  // QP to ERR: every outstanding WQE completes with WR_FLUSH_ERR (qp.rst).
  void move_qp_to_error(uint32_t qpn);
  // A UD QP's send side failed: QP to SQE, the SQ is flushed, the RQ keeps running.
  void move_qp_to_send_error(uint32_t qpn);
  // Flushes what is outstanding on a QP already in ERR (both queues) or SQE (the SQ),
  // after a doorbell. At most limits::kFlushWqesPerTurn WQEs per turn of all QPs
  // together; the rest is flushed in later turns (through `post_work`).
  void flush_qp(uint32_t qpn);
  // Runs work after the current handler (EventLoop::post); unset: flushes run to the end.
  std::function<void(std::function<void()>)> post_work;

  // InfiniBand ports (infiniband.rst, "Port state"): the logical state the subnet manager
  // moves (a PORT_STATE event when the port enters or leaves Active), and the physical
  // link, which takes the port to Down or, from Down, to Init.
  void set_ib_port_state(uint8_t state);
  void ib_physical_link(bool up);
  // PORT_CHANGE: what the subnet manager changed (ORNIC_PORT_CHANGE_*).
  void post_port_change(uint32_t what) { post_async_event(ORNIC_EQE_PORT_CHANGE, 1, what); }
  bool is_ib() const { return ib.enabled; }
  bool is_iwarp() const { return iwarp; }
  // The port's GID table entry `index` exists (an InfiniBand port has GID 0 only).
  bool gid_index_valid(uint32_t index) const {
    if (ib.enabled)
      return index == 0;
    return index < resources.gids.size() && resources.gids[index].has_value();
  }
  // The active MTU (enum ornic_mtu): the neighbour's on IB, what the Ethernet MTU holds on RoCE.
  uint8_t active_mtu() const { return ib.enabled ? ib.neighbor_mtu : roce_active_mtu(eth_mtu); }
  uint32_t pkey_table_size() const { return ib.enabled ? kIbPkeyTableSize : 1; }
  // The capabilities this device reports (identity.rst): those of its link layer.
  uint64_t caps() const;

  void enter_fatal(ornic_fatal_code code);
  bool fatal() const { return fatal_code_ != ORNIC_FATAL_NONE; }
  ornic_fatal_code fatal_code() const { return fatal_code_; }

  EventQueue* event_queue(uint32_t eqn);

  // The doorbell records of a QP's rings and of an SRQ (a no-op without one).
  DoorbellRecord sq_record(QueuePair& qp) { return {memory(), counters, qp.sq_memory, qp.sq}; }
  DoorbellRecord rq_record(QueuePair& qp) { return {memory(), counters, qp.rq_memory, qp.rq}; }
  DoorbellRecord srq_record(SharedReceiveQueue& srq) {
    return {memory(), counters, srq.memory, srq.ring};
  }

  // memory.rst, "Keys": the variant byte of a new key at MR table index `index`, drawn at
  // random for every registration and never the one that index had last, so a peer can
  // neither use a stale key nor guess the next one from the keys it has seen.
  uint8_t new_key_variant(uint32_t index);

  // The device clock (doorbells.rst, "Device clock"): nanoseconds of the packet engine's
  // monotonic clock, so that timestamps and transport timers share one time base and tests
  // inject both. Not reset with the device.
  uint64_t clock_ns() const {
    return clock != nullptr ? static_cast<uint64_t>(clock->now_ns()) : 0;
  }

  DeviceCounters counters;
  Resources resources;
  std::optional<EventQueue> async_eq;
  RateLimitedLog log;

  const MacAddress permanent_mac;
  MacAddress mac;
  uint32_t eth_mtu;
  bool link_up = false;
  // The InfiniBand port (ib.enabled when the link layer is InfiniBand).
  IbPort ib;
  // An iWARP port (iwarp.rst): Ethernet without RoCE framing; fixed for the device's life.
  bool iwarp = false;
  // The iWARP connection manager the IW_* commands drive (core/iwarp_cm_hooks.hpp); null
  // on other ports. Not owned.
  IwarpCmHooks* iwarp_cm = nullptr;
  // CC_CONFIG (roce.rst, "Congestion control"); back to the defaults on reset.
  cc::CcConfig cc;
  // SET_PORT_QOS and the per-priority counters (ethernet.rst, "Priorities and lossless
  // Ethernet"); back to the defaults on reset.
  PortQos qos;
  TransportHooks* transport = nullptr; // the packet engine; not owned
  TransportTimer* clock = nullptr;     // the device clock's source; not owned
  // Test-only misbehaviour (--inject-faults); kept across resets.
  FaultInjection faults;
  // The admin_stall fault fired: the admin queue takes no more commands until a reset.
  bool admin_stalled = false;

private:
  // Both flush within flush_budget_; false when WQEs are left.
  bool flush_send_queue(uint32_t qpn, QueuePair& qp);
  bool flush_receive_queue(uint32_t qpn, QueuePair& qp);
  bool flush_within_budget(uint32_t qpn, QueuePair& qp);
  void continue_flushes();

  unsigned flush_budget_ = limits::kFlushWqesPerTurn;
  std::set<uint32_t> flushes_left_; // QPs with WQEs still to flush
  bool flush_posted_ = false;

  GuestMemory* memory_;
  InterruptSink* irqs_;
  std::mt19937 key_random_{std::random_device{}()};
  // The last variant of every MR key index ever used, in pages allocated as indexes are
  // first used: a byte per index the guest reached, not per index the device offers.
  static constexpr uint32_t kKeyVariantPage = 4096;
  std::vector<std::unique_ptr<std::array<uint8_t, kKeyVariantPage>>> last_key_variant_{
      (limits::kMaxMr + kKeyVariantPage) / kKeyVariantPage};
  ornic_fatal_code fatal_code_ = ORNIC_FATAL_NONE;
};

// The address fields of QP attributes, an AH or a WQE's own vector that the port's link
// layer does not use are reserved (infiniband.rst, "Address vectors"): the InfiniBand ones
// on an Ethernet port; on an InfiniBand port the Ethernet ones (MAC, UDP source port), with
// the InfiniBand ones in range (the path bits are cut to the LMC when a packet is sent).
template <typename Av>
bool av_fields_valid(const NicCore& core, const Av& av) {
  // Ethernet: the SL is the priority of a VLAN GID's frames (roce.rst, "VLANs"), 0..7.
  if (!core.is_ib()) {
    Av without_sl = av;
    without_sl.sl = 0;
    return av.sl <= 7 && ib_av_fields_zero(without_sl);
  }
  constexpr uint8_t kMaxStaticRate = 0x3f;
  return av.reserved2 == 0 && av.sl <= 15 && av.src_path_bits < 0x80 &&
         (av.av_flags & ~ORNIC_AV_FLAG_GRH) == 0 && av.static_rate <= kMaxStaticRate &&
         av.udp_sport == 0 && field_is_zero(av.dmac);
}

} // namespace ornic
