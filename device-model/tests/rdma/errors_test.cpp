// Every error path of the engine (errors.rst, wqe.rst): remote access NAKs, malformed and
// unprotected WQEs, short receives, Q_Key mismatch, flush on ERR, SQ drain, UD SQE.
#include <gtest/gtest.h>

#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

std::optional<ornic_eqe> find_event(Node& node, uint8_t type) {
  while (auto eqe = node.h.poll_async_event())
    if (eqe->type == type)
      return eqe;
  return std::nullopt;
}

class RemoteAccess : public ::testing::Test {
protected:
  // qa -> qb get the case under test; qc <-> qd is a bystander pair on the same NICs.
  void write_expecting_access_error(uint64_t remote, uint32_t rkey, uint32_t length = 64) {
    auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
    w.rdma.remote_addr = to_le(remote);
    w.rdma.rkey = to_le(rkey);
    qa.post_send(w, {sge(pair.a.buffer, length, pair.a.key)});
    qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 2), {});
    expect_access_error();
  }

  void expect_access_error() {
    const auto done = pair.wait_cqes(pair.a, 2);
    ASSERT_EQ(done.size(), 2u);
    EXPECT_EQ(done[0].status, ORNIC_CQE_REM_ACCESS_ERR);
    EXPECT_EQ(le(done[0].wr_id), 1u);
    EXPECT_EQ(done[1].status, ORNIC_CQE_WR_FLUSH_ERR);
    EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
    EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
    const auto event = find_event(pair.b, ORNIC_EQE_QP_ACCESS_ERR);
    ASSERT_TRUE(event.has_value());
    EXPECT_EQ(le(event->object), qb.qpn);
    EXPECT_EQ(pair.b.counter(ORNIC_CNT_NAKS_SENT), 1u);
    bystander_still_works();
  }

  void bystander_still_works() {
    Qp qc = pair.create_qp(pair.a), qd = pair.create_qp(pair.b);
    pair.connect(qc, qd);
    pair.connect(qd, qc);
    qd.post_recv(7, {sge(pair.b.buffer + 4096, 64, pair.b.key)});
    qc.post_send(send_wqe(ORNIC_WQE_OP_SEND, 8), {sge(pair.a.buffer, 64, pair.a.key)});
    const auto sent = pair.wait_cqes(pair.a, 1);
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(le(sent[0].qpn), qc.qpn);
  }

  void connect(uint32_t responder_access = ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ |
                                           ORNIC_ACCESS_REMOTE_ATOMIC) {
    qa = pair.create_qp(pair.a);
    qb = pair.create_qp(pair.b);
    pair.connect(qa, qb);
    pair.connect(qb, qa, ORNIC_MTU_1024, responder_access);
  }

  RdmaPair pair;
  Qp qa, qb;
};

TEST_F(RemoteAccess, QpWithoutRemoteWrite) {
  connect(ORNIC_ACCESS_REMOTE_READ);
  write_expecting_access_error(pair.b.buffer, pair.b.key);
}

TEST_F(RemoteAccess, WrongRkey) {
  connect();
  write_expecting_access_error(pair.b.buffer, pair.b.key ^ 0x1);
}

TEST_F(RemoteAccess, OutOfBounds) {
  connect();
  write_expecting_access_error(pair.b.buffer + Node::kBufferBytes - 32, pair.b.key);
}

TEST_F(RemoteAccess, MrWithoutRemoteWrite) {
  connect();
  const uint32_t local_only = pair.b.reg_mr(pair.b.buffer, 4096, ORNIC_ACCESS_LOCAL_WRITE);
  write_expecting_access_error(pair.b.buffer, local_only);
}

TEST_F(RemoteAccess, MrOfAnotherPd) {
  connect();
  const uint32_t other_pd = pair.b.h.alloc_pd();
  const uint32_t foreign = pair.b.reg_mr(pair.b.buffer, 4096, ORNIC_ACCESS_ALL, other_pd);
  write_expecting_access_error(pair.b.buffer, foreign);
}

TEST_F(RemoteAccess, ReadWithoutRemoteRead) {
  connect(ORNIC_ACCESS_REMOTE_WRITE);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_READ, 1);
  w.rdma.remote_addr = to_le(pair.b.buffer);
  w.rdma.rkey = to_le(pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer, 64, pair.a.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 2), {});
  expect_access_error();
}

TEST_F(RemoteAccess, MisalignedAtomicIsAnInvalidRequest) {
  connect();
  auto w = send_wqe(ORNIC_WQE_OP_ATOMIC_FETCH_ADD, 1);
  w.atomic.remote_addr = to_le(pair.b.buffer + 4);
  w.atomic.rkey = to_le(pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer, 8, pair.a.key)});
  const auto done = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_REM_INV_REQ_ERR);
  EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
  EXPECT_TRUE(find_event(pair.b, ORNIC_EQE_QP_REQ_ERR).has_value());
}

TEST_F(RemoteAccess, ReceiveTooSmall) {
  connect();
  qb.post_recv(3, {sge(pair.b.buffer, 100, pair.b.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 1), {sge(pair.a.buffer, 200, pair.a.key)});
  const auto sent = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_REM_INV_REQ_ERR);
  const auto received = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].status, ORNIC_CQE_LOC_LEN_ERR);
  EXPECT_EQ(le(received[0].wr_id), 3u);
}

class LocalErrors : public ::testing::Test {
protected:
  void SetUp() override { std::tie(qa, qb) = pair.rc_pair(); }
  ornic_cqe only_cqe() {
    const auto done = pair.wait_cqes(pair.a, 1, 10'000'000, 3);
    EXPECT_EQ(done.size(), 1u);
    return done.empty() ? ornic_cqe{} : done[0];
  }
  RdmaPair pair;
  Qp qa, qb;
};

TEST_F(LocalErrors, UnknownOpcode) {
  qa.post_send(send_wqe(0x33, 4), {});
  const auto cqe = only_cqe();
  EXPECT_EQ(cqe.status, ORNIC_CQE_LOC_QP_OP_ERR);
  EXPECT_EQ(cqe.vendor_err, ORNIC_VERR_BAD_OPCODE);
  EXPECT_EQ(le(cqe.wr_id), 4u);
  EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_WQE_ERRORS), 1u);
}

TEST_F(LocalErrors, ReservedFlag) {
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 4, 0x80), {});
  const auto cqe = only_cqe();
  EXPECT_EQ(cqe.status, ORNIC_CQE_LOC_QP_OP_ERR);
  EXPECT_EQ(cqe.vendor_err, ORNIC_VERR_RESERVED_NONZERO);
}

TEST_F(LocalErrors, BadLkeyAndOutOfBoundsSge) {
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 1), {sge(pair.a.buffer, 64, 0xdead00)});
  auto cqe = only_cqe();
  EXPECT_EQ(cqe.status, ORNIC_CQE_LOC_PROT_ERR);
  EXPECT_EQ(cqe.vendor_err, ORNIC_VERR_BAD_LKEY);

  Qp qc = pair.create_qp(pair.a);
  pair.connect(qc, qb);
  qc.post_send(send_wqe(ORNIC_WQE_OP_SEND, 2),
               {sge(pair.a.buffer + Node::kBufferBytes - 8, 64, pair.a.key)});
  cqe = only_cqe();
  EXPECT_EQ(cqe.status, ORNIC_CQE_LOC_PROT_ERR);
  EXPECT_EQ(cqe.vendor_err, ORNIC_VERR_OUT_OF_BOUNDS);
}

TEST_F(LocalErrors, ReadIntoReadOnlyMemory) {
  const uint32_t read_only = pair.a.reg_mr(pair.a.buffer, 4096, 0);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_READ, 1);
  w.rdma.remote_addr = to_le(pair.b.buffer);
  w.rdma.rkey = to_le(pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer, 64, read_only)});
  const auto cqe = only_cqe();
  EXPECT_EQ(cqe.status, ORNIC_CQE_LOC_PROT_ERR);
  EXPECT_EQ(cqe.vendor_err, ORNIC_VERR_ACCESS);
}

TEST_F(LocalErrors, BlockCountInconsistentWithSges) {
  auto w = send_wqe(ORNIC_WQE_OP_SEND, 1);
  qa.post_send(w, {sge(pair.a.buffer, 8, pair.a.key)}, false);
  // Claim 5 SGEs in a 2-block WQE.
  auto* raw = reinterpret_cast<ornic_send_wqe*>(pair.a.h.memory.at(qa.sq));
  raw->num_sge = 5;
  pair.a.h.doorbell(0, ORNIC_DB_SQ, ORNIC_DB_VALUE(qa.qpn, 0, qa.sq_prod));
  const auto cqe = only_cqe();
  EXPECT_EQ(cqe.status, ORNIC_CQE_LOC_QP_OP_ERR);
  EXPECT_EQ(cqe.vendor_err, ORNIC_VERR_BAD_BLOCKS);
}

TEST_F(LocalErrors, ErrFlushesEverythingInOrder) {
  for (int i = 0; i < 3; ++i)
    qb.post_recv(10 + i, {sge(pair.b.buffer, 64, pair.b.key)});
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_ERR;
  ASSERT_EQ(pair.b.h.modify_qp(qb.qpn, attr, ORNIC_QP_ATTR_STATE).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  qb.post_send(send_wqe(ORNIC_WQE_OP_SEND, 20), {});
  const auto flushed = pair.wait_cqes(pair.b, 4, 10'000'000, 2);
  ASSERT_EQ(flushed.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(flushed[i].status, ORNIC_CQE_WR_FLUSH_ERR);
    EXPECT_EQ(le(flushed[i].wr_id), 10u + i);
  }
  EXPECT_EQ(flushed[3].status, ORNIC_CQE_WR_FLUSH_ERR);
  EXPECT_EQ(le(flushed[3].wr_id), 20u);
  // Packets for a QP in ERR are dropped and counted.
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 1), {});
  pair.pump();
  EXPECT_GE(pair.b.counter(ORNIC_CNT_RX_UNKNOWN_QP), 1u);
}

TEST_F(LocalErrors, SqdReportsDrainedOnceOutstandingWorkIsDone) {
  pair.wire.up = false; // the WRITE stays outstanding
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  w.rdma.remote_addr = to_le(pair.b.buffer);
  w.rdma.rkey = to_le(pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer, 64, pair.a.key)});
  pair.pump();
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_SQD;
  attr.en_sqd_async_notify = 1;
  ASSERT_EQ(
      pair.a.h.modify_qp(qa.qpn, attr, ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_EN_SQD_ASYNC_NOTIFY)
          .status,
      ORNIC_ADMIN_STATUS_SUCCESS);
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 2), {}); // not started in SQD
  EXPECT_FALSE(find_event(pair.a, ORNIC_EQE_QP_SQ_DRAINED).has_value());
  EXPECT_EQ(qa.attr().sq_draining, 1);
  pair.wire.up = true;
  const auto done = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(le(done[0].wr_id), 1u);
  EXPECT_TRUE(find_event(pair.a, ORNIC_EQE_QP_SQ_DRAINED).has_value());
  EXPECT_EQ(qa.attr().sq_draining, 0);
  EXPECT_FALSE(pair.a.poll().has_value()); // the SEND waits for RTS
  attr.state = ORNIC_QPS_RTS;
  ASSERT_EQ(pair.a.h.modify_qp(qa.qpn, attr, ORNIC_QP_ATTR_STATE).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  qb.post_recv(1, {});
  const auto resumed = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(resumed.size(), 1u);
  EXPECT_EQ(le(resumed[0].wr_id), 2u);
  EXPECT_EQ(resumed[0].status, ORNIC_CQE_SUCCESS);
}

TEST(UdErrors, QkeyMismatchIsDroppedAndCounted) {
  RdmaPair pair;
  Qp ua = pair.create_qp(pair.a, ORNIC_QPT_UD), ub = pair.create_qp(pair.b, ORNIC_QPT_UD);
  pair.bring_up_ud(ua, 0x1111);
  pair.bring_up_ud(ub, 0x2222);
  const uint32_t ah = pair.create_ah(pair.a, pair.b);
  ub.post_recv(3, {sge(pair.b.buffer, 1024, pair.b.key)});
  auto w = send_wqe(ORNIC_WQE_OP_SEND, 8);
  w.ud.ah = to_le(ah);
  w.ud.remote_qpn = to_le(ub.qpn);
  w.ud.qkey = to_le(0x80000000u);
  ua.post_send(w, {sge(pair.a.buffer, 10, pair.a.key)});
  const auto sent = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS); // UD: sent is done
  EXPECT_FALSE(pair.b.poll().has_value());
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_QKEY_ERRORS), 1u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UNKNOWN_QP), 0u);
  // With the right Q_Key the same receive WQE takes it.
  w.ud.qkey = to_le(0x2222u);
  ua.post_send(w, {sge(pair.a.buffer, 10, pair.a.key)});
  const auto received = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(le(received[0].wr_id), 3u);
}

TEST(UdErrors, BadAhMovesTheQpToSqe) {
  RdmaPair pair;
  Qp ua = pair.create_qp(pair.a, ORNIC_QPT_UD);
  pair.bring_up_ud(ua, 1);
  auto w = send_wqe(ORNIC_WQE_OP_SEND, 8);
  w.ud.ah = to_le(999u);
  ua.post_send(w, {});
  const auto done = pair.wait_cqes(pair.a, 1, 10'000'000, 2);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_LOC_QP_OP_ERR);
  EXPECT_EQ(done[0].vendor_err, ORNIC_VERR_BAD_AH);
  EXPECT_EQ(ua.state(), ORNIC_QPS_SQE);
}

} // namespace
} // namespace ornic::test
