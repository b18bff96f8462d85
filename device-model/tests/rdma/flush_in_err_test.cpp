// WQEs posted while a QP is already in ERR (qp.rst): each completes at once with
// WR_FLUSH_ERR. The kernel's ib_drain_qp depends on it — it moves the QP to ERR, posts one
// send (an RDMA WRITE) and one receive, and waits for their flush completions.
#include <gtest/gtest.h>

#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

class FlushInErr : public ::testing::TestWithParam<ornic_qp_type> {
protected:
  void SetUp() override {
    const ornic_qp_type type = GetParam();
    qa = pair.create_qp(pair.a, type);
    qb = pair.create_qp(pair.b, type);
    if (type == ORNIC_QPT_RC) {
      pair.connect(qa, qb);
      pair.connect(qb, qa);
    } else {
      pair.bring_up_ud(qa, 0x80010000);
      pair.bring_up_ud(qb, 0x80010000);
    }
  }

  void to_err(Qp& qp) {
    ornic_qp_attr attr{};
    attr.state = ORNIC_QPS_ERR;
    ASSERT_EQ(qp.node->h.modify_qp(qp.qpn, attr, ORNIC_QP_ATTR_STATE).status,
              ORNIC_ADMIN_STATUS_SUCCESS);
  }

  RdmaPair pair;
  Qp qa, qb;
};

TEST_P(FlushInErr, DrainWqesPostedAfterErrCompleteWithFlush) {
  to_err(qa);
  pair.pump();
  EXPECT_FALSE(pair.a.poll().has_value()); // nothing was outstanding

  // The drain of the receive side first, then the send side, as ib_drain_qp does.
  qa.post_recv(0xd1, {});
  auto recv_flush = pair.wait_cqes(pair.a, 1, 10'000'000, 1);
  ASSERT_EQ(recv_flush.size(), 1u);
  EXPECT_EQ(recv_flush[0].status, ORNIC_CQE_WR_FLUSH_ERR);
  EXPECT_EQ(recv_flush[0].opcode, ORNIC_CQE_OP_RECV);
  EXPECT_EQ(le(recv_flush[0].wr_id), 0xd1u);
  EXPECT_EQ(le(recv_flush[0].qpn), qa.qpn);

  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 0xd2);
  qa.post_send(w, {});
  auto send_flush = pair.wait_cqes(pair.a, 1, 10'000'000, 1);
  ASSERT_EQ(send_flush.size(), 1u);
  EXPECT_EQ(send_flush[0].status, ORNIC_CQE_WR_FLUSH_ERR);
  EXPECT_EQ(send_flush[0].opcode, ORNIC_CQE_OP_RDMA_WRITE);
  EXPECT_EQ(le(send_flush[0].wr_id), 0xd2u);
  EXPECT_EQ(le(send_flush[0].wqe_index), 0u);

  // A send posted in ERR is never validated or sent, even one that would be malformed.
  auto bad = send_wqe(ORNIC_WQE_OP_SEND, 0xd3, 0xff);
  qa.post_send(bad, {sge(pair.a.buffer, 8, 0xbad)});
  send_flush = pair.wait_cqes(pair.a, 1, 10'000'000, 1);
  ASSERT_EQ(send_flush.size(), 1u);
  EXPECT_EQ(send_flush[0].status, ORNIC_CQE_WR_FLUSH_ERR);
  EXPECT_EQ(le(send_flush[0].wr_id), 0xd3u);
  EXPECT_EQ(le(send_flush[0].wqe_index), 1u);
  EXPECT_EQ(pair.wire.sent[0], 0u);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_WQE_ERRORS), 0u);
  EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
}

TEST_P(FlushInErr, ErrWithWorkOutstandingFlushesItThenLaterPosts) {
  qa.post_recv(1, {sge(pair.a.buffer, 64, pair.a.key)});
  qa.post_recv(2, {sge(pair.a.buffer, 64, pair.a.key)});
  to_err(qa);
  const auto first = pair.wait_cqes(pair.a, 2, 10'000'000, 1);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(le(first[0].wr_id), 1u);
  EXPECT_EQ(le(first[1].wr_id), 2u);
  qa.post_recv(3, {});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 4), {});
  const auto later = pair.wait_cqes(pair.a, 2, 10'000'000, 1);
  ASSERT_EQ(later.size(), 2u);
  EXPECT_EQ(le(later[0].wr_id), 3u);
  EXPECT_EQ(later[0].status, ORNIC_CQE_WR_FLUSH_ERR);
  EXPECT_EQ(le(later[1].wr_id), 4u);
  EXPECT_EQ(later[1].status, ORNIC_CQE_WR_FLUSH_ERR);
}

INSTANTIATE_TEST_SUITE_P(Types, FlushInErr,
                         ::testing::Values(ORNIC_QPT_RC, ORNIC_QPT_UD, ORNIC_QPT_GSI),
                         [](const auto& info) {
                           return info.param == ORNIC_QPT_RC   ? std::string("Rc")
                                  : info.param == ORNIC_QPT_UD ? std::string("Ud")
                                                               : std::string("Gsi");
                         });

} // namespace
} // namespace ornic::test
