// qp.rst, "Flushing": a QP going to ERR completes its outstanding WQEs with WR_FLUSH_ERR,
// at most limits::kFlushWqesPerTurn (256) WQEs per EventLoop turn for all QPs together.
// A CQ overflow that moves many QPs with full queues to ERR at once used to read and
// complete every one of their WQEs in a single turn.
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "driver_harness.hpp"

namespace ornic::test {
namespace {

constexpr unsigned kQps = 8;
constexpr unsigned kRecvsPerQp = 60;
constexpr uint32_t kCqDepth = 4096;

class FlushBudget : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(h.bring_up(32));
    const uint32_t eqn = h.create_eq();
    tiny_cq = h.create_cq(eqn, 1);               // overflows at once
    big_cq = h.create_cq(eqn, 12, 0, &big_ring); // takes every receive flush
    pd = h.alloc_pd();
  }

  uint32_t create_qp(uint64_t& sq, uint64_t& rq) {
    ornic_admin_create_qp c{};
    c.hdr.opcode = ORNIC_ADMIN_CREATE_QP;
    c.sq_mem = h.contiguous_ring(size_t{ORNIC_WQE_BLOCK_SIZE} << 6);
    c.rq_mem = h.contiguous_ring(size_t{ORNIC_WQE_BLOCK_SIZE} << 6);
    c.pd = to_le(pd);
    c.send_cqn = to_le(tiny_cq);
    c.recv_cqn = to_le(big_cq);
    c.qp_type = ORNIC_QPT_RC;
    c.sq_log_depth = 6;
    c.rq_log_depth = 6;
    sq = le(c.sq_mem.addr);
    rq = le(c.rq_mem.addr);
    const auto cqe = h.execute(DriverHarness::as_sqe(c));
    EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
    const uint32_t qpn = le(cqe.result0);
    ornic_qp_attr attr{};
    attr.state = ORNIC_QPS_INIT;
    EXPECT_EQ(
        h.modify_qp(qpn, attr,
                    ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_PKEY_INDEX | ORNIC_QP_ATTR_ACCESS_FLAGS)
            .status,
        ORNIC_ADMIN_STATUS_SUCCESS);
    return qpn;
  }

  // CQEs the big CQ holds from `from` on (owner phase of the first pass).
  size_t big_cqes() {
    size_t n = 0;
    while (n < kCqDepth) {
      const auto cqe = h.read<ornic_cqe>(big_ring + n * ORNIC_CQE_SIZE);
      if ((cqe.owner & ORNIC_CQE_OWNER_PHASE) != expected_phase(static_cast<uint32_t>(n), kCqDepth))
        break;
      ++n;
    }
    return n;
  }

  DriverHarness h;
  uint32_t tiny_cq = 0, big_cq = 0, pd = 0;
  uint64_t big_ring = 0;
};

TEST_F(FlushBudget, CqOverflowFlushesItsQpsABoundedNumberOfWqesPerTurn) {
  std::vector<uint32_t> qpns;
  for (unsigned q = 0; q < kQps; ++q) {
    uint64_t sq = 0, rq = 0;
    const uint32_t qpn = create_qp(sq, rq);
    qpns.push_back(qpn);
    for (uint32_t i = 0; i < kRecvsPerQp; ++i) {
      ornic_recv_wqe w{};
      w.wr_id = to_le(uint64_t{qpn} << 32 | i);
      w.num_blocks = 1;
      h.write(rq + uint64_t{i} * ORNIC_WQE_BLOCK_SIZE, w);
    }
    h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, kRecvsPerQp));
    if (q == 0) {
      // Four sends to flush: more than the tiny CQ holds.
      for (uint32_t i = 0; i < 4; ++i) {
        ornic_send_wqe w{};
        w.opcode = ORNIC_WQE_OP_SEND;
        w.num_blocks = 1;
        w.wr_id = to_le(uint64_t{i});
        h.write(sq + uint64_t{i} * ORNIC_WQE_BLOCK_SIZE, w);
      }
      h.doorbell(0, ORNIC_DB_SQ, ORNIC_DB_VALUE(qpn, 0, 4));
    }
  }
  h.run_loop();
  ASSERT_EQ(big_cqes(), 0u);

  // The first QP to ERR: its send flushes overflow the tiny CQ, which takes every QP to ERR.
  const uint64_t buffer = h.alloc(sizeof(ornic_qp_attr), 64);
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_ERR;
  h.write(buffer, attr);
  ornic_admin_modify_qp c{};
  c.hdr.opcode = ORNIC_ADMIN_MODIFY_QP;
  c.attr_addr = to_le(buffer);
  c.attr_len = to_le<uint32_t>(sizeof(attr));
  c.qpn = to_le(qpns[0]);
  c.attr_mask = to_le(ORNIC_QP_ATTR_STATE);
  h.submit(DriverHarness::as_sqe(c));
  h.ring_admin();
  size_t seen = 0;
  int turns = 0;
  while (turns < 1000 && h.loop.run_once(std::chrono::milliseconds(0))) {
    ++turns;
    const size_t now = big_cqes();
    EXPECT_LE(now - seen, 256u) << "turn " << turns;
    seen = now;
  }
  EXPECT_GE(turns, 2);
  // Every receive WQE of every QP, once, in order per QP, with WR_FLUSH_ERR.
  ASSERT_EQ(seen, size_t{kQps} * kRecvsPerQp);
  std::map<uint32_t, uint32_t> next;
  for (size_t i = 0; i < seen; ++i) {
    const auto cqe = h.read<ornic_cqe>(big_ring + i * ORNIC_CQE_SIZE);
    EXPECT_EQ(cqe.status, ORNIC_CQE_WR_FLUSH_ERR);
    const uint64_t wr_id = le(cqe.wr_id);
    const uint32_t qpn = static_cast<uint32_t>(wr_id >> 32);
    EXPECT_EQ(qpn, le(cqe.qpn));
    EXPECT_EQ(static_cast<uint32_t>(wr_id), next[qpn]++);
  }
  EXPECT_EQ(next.size(), size_t{kQps});
}

} // namespace
} // namespace ornic::test
