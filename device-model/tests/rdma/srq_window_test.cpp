// Shared receive queues on the responder, the send window under a long queue of work,
// zero-length operations and SEND with invalidate.
#include <gtest/gtest.h>

#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

struct Srq {
  uint32_t srqn = 0;
  uint64_t ring = 0;
  uint32_t producer = 0;
};

Srq create_srq(Node& node, uint32_t limit) {
  Srq srq;
  ornic_admin_create_srq c{};
  c.hdr.opcode = ORNIC_ADMIN_CREATE_SRQ;
  c.mem = node.h.contiguous_ring(64 * 64);
  srq.ring = le(c.mem.addr);
  c.pd = to_le(node.pd);
  c.log_depth = 6;
  c.limit = to_le(limit);
  const auto cqe = node.h.execute(DriverHarness::as_sqe(c));
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  srq.srqn = le(cqe.result0);
  return srq;
}

void post_srq(Node& node, Srq& srq, uint64_t wr_id, ornic_sge buffer) {
  ornic_recv_wqe w{};
  w.wr_id = to_le(wr_id);
  w.num_blocks = 1;
  w.num_sge = 1;
  w.sge[0] = buffer;
  node.h.write(srq.ring + uint64_t{srq.producer % 64} * 64, w);
  ++srq.producer;
  node.h.doorbell(0, ORNIC_DB_SRQ, ORNIC_DB_VALUE(srq.srqn, 0, srq.producer));
}

Qp create_srq_qp(Node& node, const Srq& srq) {
  ornic_admin_create_qp c{};
  c.hdr.opcode = ORNIC_ADMIN_CREATE_QP;
  c.sq_mem = node.h.contiguous_ring(64 * 64);
  c.pd = to_le(node.pd);
  c.send_cqn = c.recv_cqn = to_le(node.cqn);
  c.srqn = to_le(srq.srqn);
  c.qp_type = ORNIC_QPT_RC;
  c.flags = ORNIC_QP_FLAG_USE_SRQ;
  c.sq_log_depth = 6;
  const auto cqe = node.h.execute(DriverHarness::as_sqe(c));
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  Qp qp;
  qp.node = &node;
  qp.qpn = le(cqe.result0);
  qp.sq = le(c.sq_mem.addr);
  return qp;
}

TEST(SharedReceiveQueue, TwoQpsConsumeOneSrqInPostingOrder) {
  RdmaPair pair;
  Srq srq = create_srq(pair.b, 2);
  Qp b1 = create_srq_qp(pair.b, srq), b2 = create_srq_qp(pair.b, srq);
  Qp a1 = pair.create_qp(pair.a), a2 = pair.create_qp(pair.a);
  pair.connect(a1, b1);
  pair.connect(b1, a1);
  pair.connect(a2, b2);
  pair.connect(b2, a2);
  for (int i = 0; i < 3; ++i)
    post_srq(pair.b, srq, 50 + i, sge(pair.b.buffer + 4096 * i, 4096, pair.b.key));
  *pair.a.at(0) = std::byte{0x11};
  *pair.a.at(4096) = std::byte{0x22};
  a2.post_send(send_wqe(ORNIC_WQE_OP_SEND, 1), {sge(pair.a.buffer, 2000, pair.a.key)});
  pair.pump();
  a1.post_send(send_wqe(ORNIC_WQE_OP_SEND, 2), {sge(pair.a.buffer + 4096, 10, pair.a.key)});
  const auto received = pair.wait_cqes(pair.b, 2);
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(le(received[0].wr_id), 50u);
  EXPECT_EQ(le(received[0].qpn), b2.qpn);
  EXPECT_EQ(le(received[0].byte_len), 2000u);
  EXPECT_EQ(le(received[1].wr_id), 51u);
  EXPECT_EQ(le(received[1].qpn), b1.qpn);
  EXPECT_EQ(std::to_integer<uint8_t>(*pair.b.at(0)), 0x11);
  EXPECT_EQ(std::to_integer<uint8_t>(*pair.b.at(4096)), 0x22);
  // One WQE left, below the limit of 2: one SRQ_LIMIT event.
  bool limit_event = false;
  while (auto eqe = pair.b.h.poll_async_event())
    limit_event = limit_event || (eqe->type == ORNIC_EQE_SRQ_LIMIT && le(eqe->object) == srq.srqn);
  EXPECT_TRUE(limit_event);
}

TEST(SharedReceiveQueue, AQpEnteringErrorReportsItsLastWqeOnce) {
  RdmaPair pair;
  Srq srq = create_srq(pair.b, 0);
  Qp with_srq = create_srq_qp(pair.b, srq);
  auto [qa, own_rq] = pair.rc_pair(ORNIC_MTU_1024);
  post_srq(pair.b, srq, 7, sge(pair.b.buffer, 4096, pair.b.key));
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_ERR;
  for (uint32_t qpn : {with_srq.qpn, own_rq.qpn, with_srq.qpn})
    ASSERT_EQ(pair.b.h.modify_qp(qpn, attr, ORNIC_QP_ATTR_STATE).status,
              ORNIC_ADMIN_STATUS_SUCCESS);
  pair.pump();
  std::vector<uint32_t> last_wqe;
  while (auto eqe = pair.b.h.poll_async_event())
    if (eqe->type == ORNIC_EQE_QP_LAST_WQE_REACHED)
      last_wqe.push_back(le(eqe->object));
  // Only the SRQ's QP, once, though it was moved to ERR twice.
  EXPECT_EQ(last_wqe, std::vector<uint32_t>{with_srq.qpn});
  // The SRQ's WQE stays posted: no QP entering ERR flushes it.
  for (const auto& cqe : pair.wait_cqes(pair.b, 1))
    EXPECT_NE(le(cqe.wr_id), 7u);
}

TEST(SendWindow, ALongQueueOfWritesIsPacedByTheWindowAndAllComplete) {
  RdmaPair pair;
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_256);
  // 20 WRITEs of 4 KiB = 320 packets: within the window (send_window_test.cpp fills it).
  for (int i = 0; i < 20; ++i)
    *pair.a.at(4096 * i) = std::byte{static_cast<uint8_t>(i + 1)};
  for (int i = 0; i < 20; ++i) {
    auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, i, i == 19 ? ORNIC_WQE_FLAG_SIGNALED : 0);
    w.rdma.remote_addr = to_le(pair.b.buffer + 4096 * i);
    w.rdma.rkey = to_le(pair.b.key);
    qa.post_send(w, {sge(pair.a.buffer + 4096 * i, 4096, pair.a.key)});
  }
  // All of them leave before any ACK comes back.
  pair.a.h.run_loop();
  EXPECT_EQ(pair.wire.sent[0], 320u);
  const auto done = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(le(done[0].wr_id), 19u);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS), 320u);
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(std::to_integer<uint8_t>(*pair.b.at(4096 * i)), i + 1);
}

TEST(ZeroLength, WriteReadAndSendOfNothing) {
  RdmaPair pair;
  auto [qa, qb] = pair.rc_pair();
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  w.rdma.rkey = to_le(0xbad00u); // names no memory: not checked
  qa.post_send(w, {});
  auto r = send_wqe(ORNIC_WQE_OP_RDMA_READ, 2);
  qa.post_send(r, {});
  qb.post_recv(3, {});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 4), {});
  const auto done = pair.wait_cqes(pair.a, 3);
  ASSERT_EQ(done.size(), 3u);
  for (const auto& cqe : done)
    EXPECT_EQ(cqe.status, ORNIC_CQE_SUCCESS);
  const auto received = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(le(received[0].byte_len), 0u);
}

TEST(SendWithInvalidate, ReceiverSeesTheRkey) {
  RdmaPair pair;
  auto [qa, qb] = pair.rc_pair();
  qb.post_recv(3, {sge(pair.b.buffer, 64, pair.b.key)});
  auto w = send_wqe(ORNIC_WQE_OP_SEND_INV, 4);
  w.invalidate_rkey = to_le(0x4321u);
  qa.post_send(w, {sge(pair.a.buffer, 16, pair.a.key)});
  const auto received = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_TRUE(received[0].flags & ORNIC_CQE_FLAG_INV);
  EXPECT_EQ(le(received[0].imm_data), 0x4321u);
}

} // namespace
} // namespace ornic::test
