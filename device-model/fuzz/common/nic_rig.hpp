// A NIC for the data-path fuzz targets: a NicDevice in fake guest memory, brought up through
// BAR0 and the admin queue as a driver does (EQ, CQ, PD, an IPv4 GID), with helpers to create
// and connect QPs, MRs, windows, SRQs and AHs. QPs connect to QPs of the same NIC: the
// destination GID is the NIC's own, so the packet engine loops their packets back to itself
// and one input reaches requester, responder and completer. Time only moves when the fuzzer
// says so (StepTimer). No gtest: a setup step that fails aborts, a broken rig must not fuzz
// nothing.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <vector>

#include "common/event_loop.hpp"
#include "dma/fake_guest_memory.hpp"
#include "nic/nic_device.hpp"
#include "pci/recording_interrupt_sink.hpp"
#include "port/port.hpp"
#include "step_timer.hpp"

namespace ornic::fuzz {

[[noreturn]] void die(const char* what);
// Logging off for speed, unless ORNIC_FUZZ_LOG names a level (debug, trace...): for
// checking by hand what a seed makes the model do.
void quiet_logs();

// Counts what the NIC puts on the wire and drops it, or with `reflect_to` set hands it back
// to the NIC's receiver from the event loop (a cable plugged into itself; never re-entering
// the NIC from inside its own send, like LoopbackPort).
class CountingPort final : public Port {
public:
  void send(std::span<const std::byte> frame) override {
    ++sent;
    if (tap)
      tap(frame);
    if (reflect_to == nullptr)
      return;
    reflect_to->post([this, copy = std::vector<std::byte>(frame.begin(), frame.end())] {
      if (receiver)
        receiver(copy);
    });
  }
  void set_receiver(Receiver rx) override { receiver = std::move(rx); }
  bool link_up() const override { return true; }
  PortCounters counters() const override { return {}; }
  Receiver receiver;
  // Sees every frame sent, as a peer on the other end of the cable would.
  std::function<void(std::span<const std::byte>)> tap;
  EventLoop* reflect_to = nullptr;
  uint64_t sent = 0;
};

struct RigQp {
  uint32_t qpn = 0;
  uint64_t sq = 0, rq = 0; // ring IOVAs, kRingBlocks 64-byte blocks each
};

// Seeds name keys and object numbers the rig hands out through placeholders: a 32-bit LE
// word 0x6b6579NN ("key" + NN) at a 4-byte aligned offset of fuzzed ring bytes stands for
// symbol NN of the target. Seeds stay meaningful if key assignment changes (random key
// bytes), and the fuzzer still sees every other value.
inline constexpr uint32_t kSymbolTag = 0x6b657900;
void patch_symbols(std::span<uint8_t> bytes, std::span<const uint32_t> symbols);

class NicRig {
public:
  static constexpr uint64_t kBase = 0x40000000;
  static constexpr size_t kMemory = 2 << 20;
  static constexpr std::array<uint8_t, 6> kMac = {0x02, 0, 0, 0, 0, 0x01};
  static constexpr std::array<uint8_t, 16> kGid = {0, 0, 0,    0,    0,  0, 0, 0,
                                                   0, 0, 0xff, 0xff, 10, 0, 0, 1};
  static constexpr uint32_t kRingLog = 6; // 64 blocks per SQ/RQ/SRQ ring
  static constexpr uint32_t kRingBlocks = 1u << kRingLog;
  // The data area seeds point SGEs at: kDataBytes from kData, registered by the targets.
  static constexpr uint64_t kData = kBase + (1 << 20);
  static constexpr size_t kDataBytes = 512 << 10;
  // Fuzzed bytes the targets place in guest memory (page lists, frames): kScratchBytes.
  static constexpr uint64_t kScratch = kData + kDataBytes;
  static constexpr size_t kScratchBytes = 64 << 10;

  // One device per process, as building one costs more than most inputs do: each input
  // starts() it (a driver's bring-up) and finish()es it (back to the state after a
  // function-level reset, guest memory cleared, the clock and the port as new), so no input
  // sees what an earlier one did.
  explicit NicRig(ornic_link_layer link_layer = ORNIC_LINK_LAYER_ETH);
  void start();
  void finish(); // with ORNIC_FUZZ_LOG set, first prints the CQEs and packet counters
  NicRig(const NicRig&) = delete;
  NicRig& operator=(const NicRig&) = delete;

  // Admin commands: `admin` returns the completion, `must` aborts unless it succeeds.
  ornic_admin_cqe admin(const void* command);
  uint32_t must(const void* command);

  uint64_t alloc(size_t bytes);
  ornic_mem_desc ring(size_t bytes);
  void write(uint64_t iova, std::span<const uint8_t> bytes);

  uint32_t reg_mr(uint64_t addr, uint64_t length, uint32_t access);
  uint32_t alloc_fast_mr(uint32_t capacity);
  uint32_t alloc_mw(uint8_t type);
  uint32_t create_srq(uint64_t* ring_out);
  uint32_t create_ah();
  RigQp create_qp(uint8_t type, uint32_t srqn = 0);
  // RC or UC: INIT -> RTR -> RTS towards `peer` (same NIC), every remote right granted.
  void connect(const RigQp& qp, const RigQp& peer, uint8_t type);
  // RESET -> INIT with `access`: where an iWARP QP waits for its connection.
  void init_qp(const RigQp& qp, uint32_t access);
  void ud_up(const RigQp& qp, uint32_t qkey);
  void post_recv(const RigQp& qp, uint32_t index, uint64_t addr, uint32_t length, uint32_t lkey);
  // The receive WQE at `index` of the RQ without the doorbell, for several behind one.
  void write_recv(const RigQp& qp, uint32_t index, uint64_t addr, uint32_t length, uint32_t lkey);

  void doorbell(uint32_t kind, uint32_t qn, uint32_t index);
  void run();               // the event loop until quiet, bounded
  void advance(int64_t ns); // the transport clock, then run

  EventLoop loop;
  FakeGuestMemory memory{kBase, kMemory};
  RecordingInterruptSink irqs;
  CountingPort port;
  StepTimer timer;
  NicDevice device;
  uint32_t eqn = 0, cqn = 0, pd = 0;

private:
  void report();
  void modify(uint32_t qpn, const ornic_qp_attr& attr, uint32_t mask);

  ornic_link_layer link_layer_;
  uint64_t cq_ring_ = 0;
  uint64_t next_ = kBase;
  uint64_t aq_sq_ = 0, aq_cq_ = 0;
  uint32_t aq_tail_ = 0;
};

} // namespace ornic::fuzz
