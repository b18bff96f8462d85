// A NIC with transport objects ready to receive, for the packet fuzzers (fuzz/roce, fuzz/ib):
// brought up through BAR0 and the admin queue like a driver does, with an RC QP in RTS that
// has WRITE/READ/atomic WQEs outstanding (so responses reach the completer), a UC QP, a UD QP,
// the GSI QP (QPN 1), an XRC target QP whose domain holds XRC SRQ kXrcSrqn, and posted
// receives (so requests reach the responder). Its port is RoCE (IPv4 and IPv6 GIDs) or
// InfiniBand: then the subnet manager's part is played through MAD_IFC (LID kLid, Active or
// left Armed), the connected QPs' peer is LID kPeerLid, and the SMI QP (QPN 0) has receives
// posted too. No gtest: failures abort, a broken rig must not fuzz nothing.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "dma/fake_guest_memory.hpp"
#include "nic/nic_device.hpp"
#include "pci/recording_interrupt_sink.hpp"
#include "port/port.hpp"
#include "step_timer.hpp"

namespace ornic::fuzz {

class CapturePort final : public Port {
public:
  void send(std::span<const std::byte>) override { ++sent; }
  void set_receiver(Receiver rx) override { receiver = std::move(rx); }
  bool link_up() const override { return true; }
  PortCounters counters() const override { return {}; }
  Receiver receiver;
  uint64_t sent = 0;
};

class EngineRig {
public:
  static constexpr uint64_t kBase = 0x40000000;
  static constexpr std::array<uint8_t, 6> kMac = {0x02, 0, 0, 0, 0, 0x01};
  static constexpr std::array<uint8_t, 4> kIpv4 = {10, 0, 0, 1};
  static constexpr std::array<uint8_t, 16> kIpv6 = {0xfd, 0, 0, 0, 0, 0, 0, 0,
                                                    0,    0, 0, 0, 0, 0, 0, 1};
  // Seeds name the 64 KiB MR by this key (index 1, variant 0); the fuzzer puts the
  // registration's real key (random variant) in its place.
  static constexpr uint64_t kBuffer = kBase + (512 << 10);
  static constexpr uint32_t kMrKey = 0x100;
  // The first SRQ the rig creates: the XRC SRQ its XRC target's requests may name.
  static constexpr uint32_t kXrcSrqn = 1;
  // InfiniBand: the port's LID, and the LID of the connected QPs' peer.
  static constexpr uint16_t kLid = 1;
  static constexpr uint16_t kPeerLid = 2;

  // One device per process, as building one costs more than most inputs do: each input
  // start()s it (bring-up and the objects above) and finish()es it (back to the state after
  // a function-level reset, guest memory cleared, the clock as new), so no input sees what
  // an earlier one did.
  explicit EngineRig(ornic_link_layer link_layer = ORNIC_LINK_LAYER_ETH);
  // `ib_port_state` (an InfiniBand port only): ORNIC_PORT_ACTIVE, or ORNIC_PORT_ARMED for a
  // port the first data packet makes Active (its WQEs are posted meanwhile, and wait).
  void start(uint8_t ib_port_state = ORNIC_PORT_ACTIVE);
  void finish();
  void deliver(std::span<const uint8_t> frame);
  void run();
  void advance(int64_t ns) {
    timer.advance(ns);
    run();
  }

  uint32_t rc_qpn = 0, ud_qpn = 0, uc_qpn = 0, xrc_qpn = 0;
  uint32_t mr_key = 0;
  uint64_t buffer = 0;

private:
  uint64_t alloc(size_t bytes);
  ornic_admin_cqe admin(const void* command);
  ornic_mem_desc ring(size_t bytes);
  void xrc_target(uint32_t pd, uint32_t cqn);
  void modify(uint32_t qpn, ornic_qp_attr attr, uint32_t mask);
  void post_recv(uint32_t qpn, uint64_t rq, uint32_t index);
  // The destination of a connected QP: the RoCE peer's GID or the InfiniBand peer's LID.
  void set_peer(ornic_qp_attr& attr) const;
  // What a subnet manager does to bring a port up: PortInfo Sets through MAD_IFC.
  void configure_ib_port(uint8_t state);
  void port_info_set(std::array<uint8_t, ORNIC_MAD_SIZE>& info, uint8_t state);
  std::array<uint8_t, ORNIC_MAD_SIZE> smp(uint8_t method,
                                          const std::array<uint8_t, ORNIC_MAD_SIZE>* data);

  EventLoop loop;
  FakeGuestMemory memory{kBase, 1 << 20};
  RecordingInterruptSink irqs;
  CapturePort port;
  StepTimer timer;
  bool ib_;
  NicDevice device;
  uint64_t next_ = kBase;
  uint64_t aq_sq_ = 0, aq_cq_ = 0;
  uint32_t aq_tail_ = 0;
};

} // namespace ornic::fuzz
