// libFuzzer target for receive WQEs (RQ and SRQ): fuzzed bytes become the receive queue (or
// the SRQ) of a QP that a driver brought up, the doorbell rings, and a well-formed peer QP
// on the same NIC sends to it, so the responder fetches, validates and scatters into what
// the fuzzer wrote.
//
// Input: byte 0 picks the receiver (bits 0-1: RC QP, RC QP on an SRQ, UD QP, UC QP), byte 1
// is the producer index of the receive doorbell (blocks), byte 2 shapes the traffic (bits
// 0-1: SEND, SEND_IMM, RDMA_WRITE_IMM, inline SEND; bits 2-3: 1..4 messages; bit 4: let time
// pass (RNR retries); bit 5: ring the receive doorbell again after the first messages and
// send them again), bytes 3-4 the message length (LE, the sender's SGE; inline sends at most
// 256), then up to 4 KiB of ring (64 blocks). Symbol 0 (patch_symbols) is the data MR's key
// (all rights, NicRig::kData..+kDataBytes).
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

constexpr size_t kHeader = 5;
constexpr size_t kRingBytes = NicRig::kRingBlocks * ORNIC_WQE_BLOCK_SIZE;
constexpr uint32_t kUdQkey = 0x1111;
constexpr uint32_t kMaxInline = 256;

// One per process (NicRig): each input brings the NIC up and makes these objects again.
struct RecvRig {
  NicRig nic;
  uint32_t mr = 0, ah = 0, srqn = 0;
  uint64_t srq_ring = 0;
  RigQp rc_tx, rc_rx, srq_tx, srq_rx, ud_tx, ud_rx, uc_tx, uc_rx;

  void start() {
    nic.start();
    mr = nic.reg_mr(NicRig::kData, NicRig::kDataBytes, ORNIC_ACCESS_ALL);
    ah = nic.create_ah();
    srqn = nic.create_srq(&srq_ring);
    rc_tx = nic.create_qp(ORNIC_QPT_RC);
    rc_rx = nic.create_qp(ORNIC_QPT_RC);
    nic.connect(rc_tx, rc_rx, ORNIC_QPT_RC);
    nic.connect(rc_rx, rc_tx, ORNIC_QPT_RC);
    srq_tx = nic.create_qp(ORNIC_QPT_RC);
    srq_rx = nic.create_qp(ORNIC_QPT_RC, srqn);
    nic.connect(srq_tx, srq_rx, ORNIC_QPT_RC);
    nic.connect(srq_rx, srq_tx, ORNIC_QPT_RC);
    ud_tx = nic.create_qp(ORNIC_QPT_UD);
    ud_rx = nic.create_qp(ORNIC_QPT_UD);
    nic.ud_up(ud_tx, kUdQkey);
    nic.ud_up(ud_rx, kUdQkey);
    uc_tx = nic.create_qp(ORNIC_QPT_UC);
    uc_rx = nic.create_qp(ORNIC_QPT_UC);
    nic.connect(uc_tx, uc_rx, ORNIC_QPT_UC);
    nic.connect(uc_rx, uc_tx, ORNIC_QPT_UC);
  }
};

// The sender's WQEs: trusted, one 2-block WQE per message (block 1 holds the SGE or the
// inline data, which then spans up to 4 more blocks).
uint32_t post_sends(RecvRig& rig, const RigQp& tx, uint32_t producer, uint8_t shape,
                    uint32_t length, bool ud, uint32_t dest_qpn) {
  const unsigned kind = shape & 3;
  const unsigned count = ((shape >> 2) & 3) + 1;
  for (unsigned n = 0; n < count; ++n) {
    ornic_send_wqe w{};
    w.opcode = kind == 1   ? ORNIC_WQE_OP_SEND_IMM
               : kind == 2 ? ORNIC_WQE_OP_RDMA_WRITE_IMM
                           : ORNIC_WQE_OP_SEND;
    w.flags = ORNIC_WQE_FLAG_SIGNALED;
    w.wr_id = to_le(uint64_t{n});
    w.imm_data = 0x1000u + n; // opaque to the device
    if (ud) {
      w.ud.ah = to_le(rig.ah);
      w.ud.remote_qpn = to_le(dest_qpn);
      w.ud.qkey = to_le(kUdQkey);
    } else if (kind == 2) {
      w.rdma.remote_addr = to_le(NicRig::kData + NicRig::kDataBytes / 2);
      w.rdma.rkey = to_le(rig.mr);
    }
    std::vector<uint8_t> body;
    if (kind == 3) {
      const uint32_t inline_len = std::min(length, kMaxInline);
      w.flags |= ORNIC_WQE_FLAG_INLINE;
      w.inline_len = to_le(static_cast<uint16_t>(inline_len));
      body.assign((inline_len + 63) / 64 * 64, 0x5a);
    } else {
      ornic_sge s{};
      s.addr = to_le(NicRig::kData);
      s.length = to_le(std::min<uint32_t>(length, NicRig::kDataBytes / 2));
      s.lkey = to_le(rig.mr);
      w.num_sge = 1;
      body.resize(ORNIC_WQE_BLOCK_SIZE);
      std::memcpy(body.data(), &s, sizeof(s));
    }
    w.num_blocks = static_cast<uint8_t>(1 + body.size() / ORNIC_WQE_BLOCK_SIZE);
    const auto slot = [&](uint32_t index) {
      return tx.sq + uint64_t{index % NicRig::kRingBlocks} * ORNIC_WQE_BLOCK_SIZE;
    };
    rig.nic.write(slot(producer), std::span(reinterpret_cast<const uint8_t*>(&w), sizeof(w)));
    for (size_t block = 0; block < body.size() / ORNIC_WQE_BLOCK_SIZE; ++block)
      rig.nic.write(slot(producer + 1 + static_cast<uint32_t>(block)),
                    std::span(body).subspan(block * ORNIC_WQE_BLOCK_SIZE, ORNIC_WQE_BLOCK_SIZE));
    producer += w.num_blocks;
  }
  rig.nic.doorbell(ORNIC_DB_SQ, tx.qpn, producer);
  rig.nic.run();
  return producer;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ornic::fuzz::quiet_logs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kHeader)
    return 0;
  const unsigned target = data[0] & 3;
  const uint32_t producer = data[1];
  const uint8_t shape = data[2];
  const uint32_t length = data[3] | uint32_t{data[4]} << 8;
  data += kHeader;
  size -= kHeader;

  static RecvRig rig;
  rig.start();
  const RigQp* tx = &rig.rc_tx;
  const RigQp* rx = &rig.rc_rx;
  uint64_t ring_addr = rig.rc_rx.rq;
  uint32_t db_kind = ORNIC_DB_RQ;
  uint32_t db_qn = rig.rc_rx.qpn;
  if (target == 1) {
    tx = &rig.srq_tx;
    rx = &rig.srq_rx;
    ring_addr = rig.srq_ring;
    db_kind = ORNIC_DB_SRQ;
    db_qn = rig.srqn;
  } else if (target == 2) {
    tx = &rig.ud_tx;
    rx = &rig.ud_rx;
    ring_addr = rig.ud_rx.rq;
    db_qn = rig.ud_rx.qpn;
  } else if (target == 3) {
    tx = &rig.uc_tx;
    rx = &rig.uc_rx;
    ring_addr = rig.uc_rx.rq;
    db_qn = rig.uc_rx.qpn;
  }

  std::vector<uint8_t> ring(data, data + std::min(size, kRingBytes));
  const uint32_t symbols[] = {rig.mr};
  ornic::fuzz::patch_symbols(ring, symbols);
  rig.nic.write(ring_addr, ring);
  rig.nic.doorbell(db_kind, db_qn, producer);
  rig.nic.run();

  const bool ud = target == 2;
  uint32_t sent = post_sends(rig, *tx, 0, shape, length, ud, rx->qpn);
  if (shape & 0x20) {
    rig.nic.doorbell(db_kind, db_qn, producer * 2);
    sent = post_sends(rig, *tx, sent, shape, length, ud, rx->qpn);
  }
  if (shape & 0x10)
    for (int i = 0; i < 8; ++i)
      rig.nic.advance(200'000'000);
  // Ring contents are the guest's business: they may fail WQEs and QPs, never the device.
  if (!rig.nic.device.ready())
    ornic::fuzz::die("guest ring contents made the device FATAL");
  rig.nic.finish();
  return 0;
}
