// libFuzzer target for send-WQE fetch and the requester: fuzzed bytes become the send queue
// of a QP that a driver brought up, the doorbell rings, and the packet engine runs until
// quiet (bounded) with the peer QP on the same NIC answering, so every WQE opcode reaches
// the requester and what it sends reaches the responder and completer. Kernel QPs, so
// REG_MR (fast registration), LOCAL_INV, BIND_MW and inline AVs are all allowed.
//
// Input: byte 0 picks the QP (bits 0-1: RC, UC, UD, the other RC), byte 1 is the producer
// index the doorbell gives (blocks), byte 2 steers the run (bit 0: let time pass so
// retransmission and RNR timers fire; bit 1: ring a second round of the same ring slots;
// bit 2: post no receives on the peer), byte 3 is unused; then up to 4 KiB of SQ ring
// (64 blocks), then up to 64 KiB of scratch memory at NicRig::kScratch (page lists).
// Symbols seeds may use in ring bytes (see patch_symbols): 0 the data MR's key (all rights
// plus MW_BIND, NicRig::kData..+kDataBytes), 1 a FREE fast-reg MR (16 pages), 2 a type 1
// window, 3 a type 2 window, 4 the AH (to the NIC itself), 5 the UD peer's QPN, 6..8 the
// keys of 1..3 with variant 0x5a (what a REG_MR or BIND_MW WQE gives them), 9 a type 2
// window bound through the RC peer over the data MR's first half (remote read, write,
// atomic), so what the RC QP sends may use it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <spdlog/spdlog.h>

#include "nic_rig.hpp"

namespace {

using ornic::le;
using ornic::to_le;
using ornic::fuzz::NicRig;
using ornic::fuzz::RigQp;

constexpr size_t kHeader = 4;
constexpr size_t kRingBytes = NicRig::kRingBlocks * ORNIC_WQE_BLOCK_SIZE;
constexpr uint32_t kUdQkey = 0x1111;

// One per process (NicRig): each input brings the NIC up and makes these objects again.
struct SendRig {
  NicRig nic;
  uint32_t mr = 0, fast_mr = 0, mw1 = 0, mw2 = 0, ah = 0, bound_mw = 0;
  RigQp rc_a, rc_b, uc_a, uc_b, ud_a, ud_b;

  void start() {
    nic.start();
    mr = nic.reg_mr(NicRig::kData, NicRig::kDataBytes, ORNIC_ACCESS_ALL | ORNIC_ACCESS_MW_BIND);
    fast_mr = nic.alloc_fast_mr(16);
    mw1 = nic.alloc_mw(ORNIC_MW_TYPE_1);
    mw2 = nic.alloc_mw(ORNIC_MW_TYPE_2);
    ah = nic.create_ah();
    rc_a = nic.create_qp(ORNIC_QPT_RC);
    rc_b = nic.create_qp(ORNIC_QPT_RC);
    nic.connect(rc_a, rc_b, ORNIC_QPT_RC);
    nic.connect(rc_b, rc_a, ORNIC_QPT_RC);
    uc_a = nic.create_qp(ORNIC_QPT_UC);
    uc_b = nic.create_qp(ORNIC_QPT_UC);
    nic.connect(uc_a, uc_b, ORNIC_QPT_UC);
    nic.connect(uc_b, uc_a, ORNIC_QPT_UC);
    ud_a = nic.create_qp(ORNIC_QPT_UD);
    ud_b = nic.create_qp(ORNIC_QPT_UD);
    nic.ud_up(ud_a, kUdQkey);
    nic.ud_up(ud_b, kUdQkey);
    bind_on_peer();
  }

  // A type 2 window is only usable through the QP that bound it: bind one through rc_b
  // (its SQ slot 0; fuzzed WQEs for rc_b start at slot 1) for what rc_a sends to use.
  void bind_on_peer() {
    bound_mw = (nic.alloc_mw(ORNIC_MW_TYPE_2) & ~ORNIC_MR_KEY_VARIANT_MASK) | 0x33;
    ornic_send_wqe w{};
    w.opcode = ORNIC_WQE_OP_BIND_MW;
    w.num_blocks = 1;
    w.bind_mw.mw_key = to_le(bound_mw);
    w.bind_mw.mr_key = to_le(mr);
    w.bind_mw.addr = to_le(NicRig::kData);
    w.bind_mw.length = to_le(uint64_t{NicRig::kDataBytes / 2});
    w.bind_mw.access =
        to_le(ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ | ORNIC_ACCESS_REMOTE_ATOMIC);
    nic.write(rc_b.sq, std::span(reinterpret_cast<const uint8_t*>(&w), sizeof(w)));
    nic.doorbell(ORNIC_DB_SQ, rc_b.qpn, 1);
    nic.run();
  }

  // Receives for whatever the fuzzed SENDs and WRITE_IMMs deliver: 8 KiB each in the
  // upper half of the data MR, so they do not overlap what the WQEs read.
  void post_receives(const RigQp& qp) {
    for (uint32_t i = 0; i < 8; ++i)
      nic.post_recv(qp, i, NicRig::kData + NicRig::kDataBytes / 2 + 8192 * i, 8192, mr);
  }
};

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ornic::fuzz::quiet_logs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kHeader)
    return 0;
  const uint8_t select = data[0] & 3;
  const uint32_t producer = data[1];
  const uint8_t control = data[2];
  data += kHeader;
  size -= kHeader;

  static SendRig rig;
  rig.start();
  const RigQp* qp = &rig.rc_a;
  const RigQp* peer = &rig.rc_b;
  if (select == 1) {
    qp = &rig.uc_a;
    peer = &rig.uc_b;
  } else if (select == 2) {
    qp = &rig.ud_a;
    peer = &rig.ud_b;
  } else if (select == 3) {
    qp = &rig.rc_b;
    peer = &rig.rc_a;
  }
  if (!(control & 4)) {
    rig.post_receives(*peer);
    rig.post_receives(*qp); // RC READ/atomic responses need none, but SENDs back do
  }

  std::vector<uint8_t> ring(data, data + std::min(size, kRingBytes));
  data += ring.size();
  size -= ring.size();
  const auto variant = [](uint32_t key) { return (key & ~ORNIC_MR_KEY_VARIANT_MASK) | 0x5a; };
  const uint32_t symbols[] = {
      rig.mr,       rig.fast_mr,          rig.mw1,          rig.mw2,          rig.ah,
      rig.ud_b.qpn, variant(rig.fast_mr), variant(rig.mw1), variant(rig.mw2), rig.bound_mw};
  ornic::fuzz::patch_symbols(ring, symbols);
  // The fuzzed WQEs start at the QP's next free slot and wrap around the ring.
  const uint32_t start = qp == &rig.rc_b ? 1 : 0;
  const size_t first = std::min(ring.size(), kRingBytes - start * ORNIC_WQE_BLOCK_SIZE);
  rig.nic.write(qp->sq + start * ORNIC_WQE_BLOCK_SIZE, std::span(ring).first(first));
  rig.nic.write(qp->sq, std::span(ring).subspan(first));
  rig.nic.write(NicRig::kScratch, std::span(data, std::min(size, NicRig::kScratchBytes)));

  rig.nic.doorbell(ORNIC_DB_SQ, qp->qpn, start + producer);
  rig.nic.run();
  if (control & 2) {
    rig.nic.doorbell(ORNIC_DB_SQ, qp->qpn, start + producer * 2);
    rig.nic.run();
  }
  if (control & 1)
    for (int i = 0; i < 8; ++i)
      rig.nic.advance(200'000'000);
  // Ring contents are the guest's business: they may fail WQEs and QPs, never the device.
  if (!rig.nic.device.ready())
    ornic::fuzz::die("guest ring contents made the device FATAL");
  rig.nic.finish();
  return 0;
}
