// Timestamped CQs under traffic (cqe.rst "Timestamped CQs"): each CQE carries the device
// clock at the moment the device wrote it, on the injectable clock the packet engine runs
// on, so a completion that waited for a retransmission is stamped later than its post.
#include <gtest/gtest.h>

#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

constexpr int kB = 1; // wire side: frames sent by b

// A timestamped CQ of 64 entries and an RC QP whose send and receive CQ it is.
struct StampedEnd {
  Qp qp;
  uint32_t cqn = 0;
  uint64_t ring = 0;
  uint32_t head = 0;
  static constexpr uint32_t kDepth = 64;

  void create(Node& node) {
    ornic_admin_create_cq c{};
    c.hdr.opcode = ORNIC_ADMIN_CREATE_CQ;
    c.mem = node.h.contiguous_ring(size_t{ORNIC_CQE_TS_SIZE} * kDepth);
    c.log_depth = 6;
    c.eqn = to_le(node.eqn);
    c.flags = ORNIC_CQ_FLAG_TIMESTAMP;
    const auto done = node.h.execute(DriverHarness::as_sqe(c));
    ASSERT_EQ(done.status, ORNIC_ADMIN_STATUS_SUCCESS);
    cqn = le(done.result0);
    ring = le(c.mem.addr);
    qp.node = &node;
    qp.qpn = node.h.create_qp(node.pd, cqn, ORNIC_QPT_RC, ORNIC_DB_PAGE_KERNEL, &qp.sq, &qp.rq);
  }

  std::optional<ornic_cqe_ts> poll() {
    DriverHarness& h = qp.node->h;
    const auto e = h.read<ornic_cqe_ts>(ring + uint64_t{head % kDepth} * ORNIC_CQE_TS_SIZE);
    if ((e.cqe.owner & ORNIC_CQE_OWNER_PHASE) != expected_phase(head, kDepth))
      return std::nullopt;
    ++head;
    h.doorbell(0, ORNIC_DB_CQ, ORNIC_DB_VALUE(cqn, 0, head));
    return e;
  }
};

class TimestampedTraffic : public ::testing::Test {
protected:
  void SetUp() override {
    a.create(pair.a);
    b.create(pair.b);
    pair.connect(a.qp, b.qp);
    pair.connect(b.qp, a.qp);
    for (size_t i = 0; i < 8192; ++i)
      *pair.a.at(i) = std::byte{static_cast<uint8_t>(i * 11 + 5)};
  }

  // The next CQE of `end`, advancing both clocks by `step` while there is none.
  std::optional<ornic_cqe_ts> wait(StampedEnd& end, int64_t step = 10'000'000) {
    pair.pump();
    for (int i = 0; i < 100; ++i) {
      if (auto e = end.poll())
        return e;
      pair.advance(step);
    }
    return std::nullopt;
  }

  RdmaPair pair;
  StampedEnd a, b;
};

TEST_F(TimestampedTraffic, EveryCompletionCarriesTheClockWhenItWasWritten) {
  // SEND: both sides complete while the (manual) clocks stand still.
  b.qp.post_recv(7, {sge(pair.b.buffer + 65536, 8192, pair.b.key)});
  a.qp.post_send(send_wqe(ORNIC_WQE_OP_SEND, 1), {sge(pair.a.buffer, 5000, pair.a.key)});
  const auto sent = wait(a);
  const auto received = wait(b);
  ASSERT_TRUE(sent && received);
  EXPECT_EQ(sent->cqe.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(sent->cqe.opcode, ORNIC_CQE_OP_SEND);
  EXPECT_EQ(le(sent->timestamp), static_cast<uint64_t>(pair.timer_a.now_ns()));
  EXPECT_EQ(received->cqe.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(received->cqe.wr_id), 7u);
  EXPECT_EQ(le(received->cqe.byte_len), 5000u);
  EXPECT_EQ(le(received->timestamp), static_cast<uint64_t>(pair.timer_b.now_ns()));
  EXPECT_EQ(std::memcmp(pair.a.at(0), pair.b.at(65536), 5000), 0);

  // 3 ms later: an RDMA WRITE and an RDMA READ, stamped with the new time, in order.
  pair.advance(3'000'000);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 2);
  w.rdma.remote_addr = to_le(pair.b.buffer + 131072);
  w.rdma.rkey = to_le(pair.b.key);
  a.qp.post_send(w, {sge(pair.a.buffer, 3000, pair.a.key)});
  auto r = send_wqe(ORNIC_WQE_OP_RDMA_READ, 3);
  r.rdma.remote_addr = to_le(pair.b.buffer + 131072);
  r.rdma.rkey = to_le(pair.b.key);
  a.qp.post_send(r, {sge(pair.a.buffer + 262144, 3000, pair.a.key)});
  const auto wrote = wait(a);
  const auto read = wait(a);
  ASSERT_TRUE(wrote && read);
  EXPECT_EQ(wrote->cqe.opcode, ORNIC_CQE_OP_RDMA_WRITE);
  EXPECT_EQ(read->cqe.opcode, ORNIC_CQE_OP_RDMA_READ);
  EXPECT_EQ(le(wrote->timestamp), le(sent->timestamp) + 3'000'000);
  EXPECT_LE(le(wrote->timestamp), le(read->timestamp));
  EXPECT_EQ(std::memcmp(pair.a.at(0), pair.a.at(262144), 3000), 0);
  EXPECT_FALSE(b.poll()); // a WRITE without immediate completes nothing at b
}

TEST_F(TimestampedTraffic, CompletionDelayedByRetransmissionIsStampedLater) {
  // b's first ACK is lost: a's send completes only after its ACK timeout retransmits.
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == kB && n == 0 ? WireAction::drop : WireAction::deliver;
  };
  const uint64_t posted_at = static_cast<uint64_t>(pair.timer_a.now_ns());
  b.qp.post_recv(9, {sge(pair.b.buffer + 65536, 4096, pair.b.key)});
  a.qp.post_send(send_wqe(ORNIC_WQE_OP_SEND, 4), {sge(pair.a.buffer, 1000, pair.a.key)});
  const auto received = wait(b);
  ASSERT_TRUE(received);
  EXPECT_EQ(le(received->timestamp), posted_at); // delivered at once
  const auto sent = wait(a);
  ASSERT_TRUE(sent);
  EXPECT_EQ(sent->cqe.status, ORNIC_CQE_SUCCESS);
  EXPECT_GE(pair.a.counter(ORNIC_CNT_TIMEOUTS), 1u);
  // The ACK timeout is 4.096 us << 14 (67 ms): the completion is at least that late, and
  // exactly when the ACK of the retransmission came in, i.e. the clock's current value.
  EXPECT_GE(le(sent->timestamp), posted_at + 67'000'000);
  EXPECT_LE(le(sent->timestamp), static_cast<uint64_t>(pair.timer_a.now_ns()));
  EXPECT_FALSE(wait(b, 1'000'000)); // the retransmitted SEND was not delivered twice
}

} // namespace
} // namespace ornic::test
