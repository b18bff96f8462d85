#include "rc_pair_rig.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include <gtest/gtest.h>

namespace ornic::bench {

using test::Node;

namespace {

// SQ blocks for a QP that carries 1/qps of a batch (two blocks per WRITE), with room to
// spare: 4096 for one QP and 1024 WRITEs, the smallest (64) from 64 QPs on.
unsigned sq_log_depth(unsigned qps, uint32_t batch) {
  const uint32_t blocks = std::max<uint32_t>(2 * batch / qps, 2);
  return std::max(6, std::bit_width(blocks - 1) + 1);
}

// CQEs for a batch, with room to spare: 4096 for 1024 WRITEs.
unsigned cq_log_depth(uint32_t batch) {
  return std::max(12, std::bit_width(batch - 1) + 1);
}

// Each node's guest memory: the SQ and RQ (a page each at least) and the three
// MODIFY_QP attribute buffers of every QP (a page: the next QP's rings start on a page
// boundary again), the CQ, and the defaults' room for the rest.
size_t guest_memory(unsigned qps, uint32_t batch) {
  const size_t sq =
      std::max<size_t>(size_t{ORNIC_WQE_BLOCK_SIZE} << sq_log_depth(qps, batch), 4096);
  const size_t per_qp = 2 * sq + 4096;
  const size_t cq = size_t{ORNIC_CQE_SIZE} << cq_log_depth(batch);
  return std::max(test::DriverHarness::kMemorySize, qps * per_qp + cq + (4 << 20));
}

} // namespace

int rig_failures() {
  const ::testing::TestResult& result = ::testing::UnitTest::GetInstance()->ad_hoc_test_result();
  int failed = 0;
  for (int i = 0; i < result.total_part_count(); ++i)
    failed += result.GetTestPartResult(i).failed() ? 1 : 0;
  return failed;
}

RcPairRig::RcPairRig(uint8_t path_mtu, unsigned qps, uint32_t batch)
    : pair_(test::RdmaPair::Options{.ram = test::GuestRam::memfd,
                                    .cq_log_depth = cq_log_depth(batch),
                                    .guest_memory = guest_memory(qps, batch)}) {
  // Jumbo frames on both ports, so that every path MTU up to 4096 is allowed.
  for (Node* node : {&pair_.a, &pair_.b}) {
    ornic_admin_eth_set_mtu jumbo{};
    jumbo.hdr.opcode = ORNIC_ADMIN_ETH_SET_MTU;
    jumbo.mtu = to_le(9000u);
    if (node->h.execute(test::DriverHarness::as_sqe(jumbo)).status != ORNIC_ADMIN_STATUS_SUCCESS)
      ADD_FAILURE() << "ETH_SET_MTU 9000 refused";
  }
  senders_.reserve(qps);
  receivers_.reserve(qps);
  for (unsigned i = 0; i < qps; ++i) {
    senders_.push_back(
        pair_.create_qp(pair_.a, ORNIC_QPT_RC, ORNIC_DB_PAGE_KERNEL, sq_log_depth(qps, batch)));
    receivers_.push_back(
        pair_.create_qp(pair_.b, ORNIC_QPT_RC, ORNIC_DB_PAGE_KERNEL, sq_log_depth(qps, batch)));
    pair_.connect(senders_.back(), receivers_.back(), path_mtu);
    pair_.connect(receivers_.back(), senders_.back(), path_mtu);
  }
}

std::string RcPairRig::write_batch(uint32_t count, uint32_t length) {
  Node& a = pair_.a;
  const auto qps = static_cast<uint32_t>(senders_.size());
  for (uint32_t k = 0; k < count; ++k) {
    auto wqe = test::send_wqe(ORNIC_WQE_OP_RDMA_WRITE, next_wr_id_ + k);
    wqe.rdma.remote_addr = to_le(pair_.b.buffer + uint64_t{k} * length);
    wqe.rdma.rkey = to_le(pair_.b.key);
    senders_[k % qps].post_send(wqe, {test::sge(a.buffer + uint64_t{k} * length, length, a.key)},
                                k + qps >= count);
  }
  pair_.pump();
  // With several QPs the completions interleave: each QP's own come in order.
  std::vector<uint64_t> next_of(qps);
  for (uint32_t q = 0; q < qps; ++q)
    next_of[q] = next_wr_id_ + q;
  uint32_t got = 0;
  std::string error;
  for (;;) {
    // The provider's poll: the CQE's phase says it is new; the CQ doorbell once at the end.
    const auto cqe =
        a.h.read<ornic_cqe>(a.cq_ring + uint64_t{a.cq_head % a.cq_depth} * ORNIC_CQE_SIZE);
    if ((cqe.owner & ORNIC_CQE_OWNER_PHASE) != test::expected_phase(a.cq_head, a.cq_depth))
      break;
    ++a.cq_head;
    const uint64_t wr_id = le(cqe.wr_id);
    const uint64_t q = (wr_id - next_wr_id_) % qps;
    if (error.empty() && (cqe.status != ORNIC_CQE_SUCCESS || wr_id != next_of[q]))
      error = "completion " + std::to_string(got) + ": status " + std::to_string(cqe.status) +
              ", wr_id " + std::to_string(wr_id);
    next_of[q] += qps;
    ++got;
  }
  a.h.doorbell(0, ORNIC_DB_CQ, ORNIC_DB_VALUE(a.cqn, 0, a.cq_head));
  next_wr_id_ += count;
  if (!error.empty())
    return error;
  if (got != count)
    return std::to_string(got) + " completions for " + std::to_string(count) + " WRITEs";
  if (std::memcmp(pair_.b.at(0), a.at(0), size_t{count} * length) != 0)
    return "the data at the responder differs from what was sent";
  return {};
}

void RcPairRig::stamp(size_t bytes) {
  ++batch_;
  for (size_t at = 0; at < bytes; at += 64) {
    const uint64_t word = (batch_ << 32) | at;
    std::memcpy(pair_.a.at(at), &word, sizeof(word));
  }
}

} // namespace ornic::bench
