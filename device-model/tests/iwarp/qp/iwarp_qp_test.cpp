// The QPs of an iWARP port (iwarp-cm.rst, "QPs on an iWARP port"): two models on one wire,
// IW_LISTEN / IW_CONNECT / IW_ACCEPT binding a QP on each side, then RDMAP traffic placed in
// guest memory, and what a bad segment costs (TERMINATE, QP to ERR).
#include <cstring>

#include <gtest/gtest.h>

#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

constexpr uint16_t kListenPort = 6000;
constexpr uint16_t kLocalPort = 40000;
constexpr int64_t kStep = 10'000'000; // 10 ms: lwIP ticks every 250 ms of the device clock

ornic_iw_tuple tuple_a_to_b(uint16_t local_port = kLocalPort) {
  ornic_iw_tuple t{};
  const uint8_t a[4] = {10, 0, 0, 1}, b[4] = {10, 0, 0, 2};
  std::memcpy(t.local_ip, a, 4);
  std::memcpy(t.remote_ip, b, 4);
  t.local_port = to_le(local_port);
  t.remote_port = to_le(kListenPort);
  return t;
}

ornic_eqe_iw as_iw(const ornic_eqe& e) {
  ornic_eqe_iw iw;
  std::memcpy(&iw, &e, sizeof(iw));
  return iw;
}

class IwarpQp : public ::testing::Test {
protected:
  IwarpQp() : pair(RdmaPair::Options{.iwarp = true}) {}

  Qp init_qp(Node& node, uint32_t access = ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ) {
    Qp qp = pair.create_qp(node);
    ornic_qp_attr attr{};
    attr.state = ORNIC_QPS_INIT;
    attr.access_flags = to_le(access);
    EXPECT_EQ(
        node.h
            .modify_qp(qp.qpn, attr,
                       ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_PKEY_INDEX | ORNIC_QP_ATTR_ACCESS_FLAGS)
            .status,
        ORNIC_ADMIN_STATUS_SUCCESS);
    return qp;
  }

  void listen() {
    ornic_admin_iw_listen c{};
    c.hdr.opcode = ORNIC_ADMIN_IW_LISTEN;
    const uint8_t ip[4] = {10, 0, 0, 2};
    std::memcpy(c.ip, ip, 4);
    c.port = to_le(kListenPort);
    c.backlog = to_le<uint16_t>(8);
    ASSERT_EQ(pair.b.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_SUCCESS);
  }

  uint8_t connect(uint32_t conn_id, uint32_t qpn, uint16_t local_port = kLocalPort,
                  bool crc = true) {
    ornic_admin_iw_connect c{};
    c.hdr.opcode = ORNIC_ADMIN_IW_CONNECT;
    c.conn_id = to_le(conn_id);
    c.qpn = to_le(qpn);
    c.tuple = tuple_a_to_b(local_port);
    std::copy(kMacB.begin(), kMacB.end(), c.next_hop_mac);
    c.mpa_rev = 2;
    c.flags = crc ? ORNIC_IW_CONNECT_CRC : 0;
    c.ird = to_le<uint16_t>(4);
    c.ord = to_le<uint16_t>(4);
    return pair.a.h.execute(DriverHarness::as_sqe(c)).status;
  }

  uint8_t accept(uint32_t conn_id, uint32_t qpn) {
    ornic_admin_iw_accept c{};
    c.hdr.opcode = ORNIC_ADMIN_IW_ACCEPT;
    c.conn_id = to_le(conn_id);
    c.qpn = to_le(qpn);
    c.ird = to_le<uint16_t>(4);
    c.ord = to_le<uint16_t>(4);
    return pair.b.h.execute(DriverHarness::as_sqe(c)).status;
  }

  uint8_t disconnect(Node& node, uint32_t conn_id, bool abrupt = false) {
    ornic_admin_iw_conn_cmd c{};
    c.hdr.opcode = ORNIC_ADMIN_IW_DISCONNECT;
    c.id = to_le(conn_id);
    c.flags = abrupt ? ORNIC_IW_DISCONNECT_ABRUPT : 0;
    return node.h.execute(DriverHarness::as_sqe(c)).status;
  }

  // Runs the pair until `node` posts an async event of `type`, collecting the others.
  std::optional<ornic_eqe> wait_event(Node& node, uint8_t type, int steps = 300) {
    for (int i = 0; i < steps; ++i) {
      while (auto e = node.h.poll_async_event()) {
        if (e->type == type)
          return e;
        other_events.push_back(*e);
      }
      pair.advance(kStep);
    }
    return std::nullopt;
  }

  bool saw_event(Node& node, uint8_t type, uint32_t object) {
    while (auto e = node.h.poll_async_event())
      other_events.push_back(*e);
    for (const auto& e : other_events)
      if (e.type == type && le(e.object) == object)
        return true;
    return false;
  }

  // QP `qa` on A connected to `qb` on B; the id B chose for its side.
  uint32_t establish(const Qp& qa, const Qp& qb, uint32_t conn_id = 7,
                     uint16_t local_port = kLocalPort) {
    EXPECT_EQ(connect(conn_id, qa.qpn, local_port), ORNIC_ADMIN_STATUS_SUCCESS);
    const auto request = wait_event(pair.b, ORNIC_EQE_IW_CONN_REQUEST);
    EXPECT_TRUE(request.has_value());
    if (!request)
      return 0;
    const uint32_t b_id = le(as_iw(*request).conn_id);
    EXPECT_EQ(accept(b_id, qb.qpn), ORNIC_ADMIN_STATUS_SUCCESS);
    const auto reply = wait_event(pair.a, ORNIC_EQE_IW_CONNECT_REPLY);
    EXPECT_TRUE(reply.has_value());
    if (reply) {
      EXPECT_EQ(as_iw(*reply).status, ORNIC_IW_STATUS_OK);
    }
    return b_id;
  }

  std::vector<ornic_cqe> cqes(Node& node, size_t count) {
    return pair.wait_cqes(node, count, kStep, 300);
  }

  void fill(Node& node, uint64_t offset, size_t length, uint8_t seed) {
    for (size_t i = 0; i < length; ++i)
      *node.at(offset + i) = std::byte{static_cast<uint8_t>(seed + i * 7)};
  }
  bool same(Node& x, uint64_t x_offset, Node& y, uint64_t y_offset, size_t length) {
    return std::memcmp(x.at(x_offset), y.at(y_offset), length) == 0;
  }

  RdmaPair pair;
  std::vector<ornic_eqe> other_events;
};

TEST_F(IwarpQp, EstablishedConnectionTakesBothQpsToRts) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  EXPECT_EQ(qa.state(), ORNIC_QPS_RTS);
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);
}

TEST_F(IwarpQp, ConnectAndAcceptCheckTheQp) {
  listen();
  Qp reset_qp = pair.create_qp(pair.a);
  EXPECT_EQ(connect(1, 0x7fff), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  EXPECT_EQ(connect(1, reset_qp.qpn), ORNIC_ADMIN_STATUS_BAD_STATE);
  Qp qa = init_qp(pair.a);
  EXPECT_EQ(connect(1, qa.qpn), ORNIC_ADMIN_STATUS_SUCCESS);
  // The QP is held by the connection being set up.
  EXPECT_EQ(connect(2, qa.qpn, kLocalPort + 1), ORNIC_ADMIN_STATUS_BUSY);
  const auto request = wait_event(pair.b, ORNIC_EQE_IW_CONN_REQUEST);
  ASSERT_TRUE(request.has_value());
  const uint32_t b_id = le(as_iw(*request).conn_id);
  Qp uninit = pair.create_qp(pair.b);
  EXPECT_EQ(accept(b_id, uninit.qpn), ORNIC_ADMIN_STATUS_BAD_STATE);
  EXPECT_EQ(accept(b_id, 0x7fff), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  Qp qb = init_qp(pair.b);
  EXPECT_EQ(accept(b_id, qb.qpn), ORNIC_ADMIN_STATUS_SUCCESS);
  ASSERT_TRUE(wait_event(pair.a, ORNIC_EQE_IW_CONNECT_REPLY).has_value());
  EXPECT_EQ(qa.state(), ORNIC_QPS_RTS);
  // Bound: a second connection cannot take it.
  EXPECT_EQ(connect(3, qa.qpn, kLocalPort + 2), ORNIC_ADMIN_STATUS_BUSY);
}

TEST_F(IwarpQp, SoftwareCannotTakeAnIwarpQpToRtrOrRts) {
  Qp qa = init_qp(pair.a);
  ornic_qp_attr attr{};
  for (const uint8_t to : {ORNIC_QPS_RTR, ORNIC_QPS_RTS}) {
    attr.state = to;
    EXPECT_EQ(pair.a.h.modify_qp(qa.qpn, attr, ORNIC_QP_ATTR_STATE).status,
              ORNIC_ADMIN_STATUS_BAD_STATE);
  }
  EXPECT_EQ(qa.state(), ORNIC_QPS_INIT);
  attr = {};
  attr.state = ORNIC_QPS_ERR;
  EXPECT_EQ(pair.a.h.modify_qp(qa.qpn, attr, ORNIC_QP_ATTR_STATE).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
}

TEST_F(IwarpQp, OnlyRcQpsExistOnAnIwarpPort) {
  for (const uint32_t type : {ORNIC_QPT_UD, ORNIC_QPT_UC, ORNIC_QPT_XRC_INI}) {
    ornic_admin_create_qp c{};
    c.hdr.opcode = ORNIC_ADMIN_CREATE_QP;
    c.qp_type = static_cast<uint8_t>(type);
    EXPECT_EQ(pair.a.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD)
        << type;
  }
}

TEST_F(IwarpQp, SendAndRecvAcrossSegments) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  constexpr uint32_t kLength = 5000; // four FPDUs at an MSS of 1460
  fill(pair.a, 0, kLength, 3);
  qb.post_recv(11, {sge(pair.b.buffer + 4096, 8192, pair.b.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 21), {sge(pair.a.buffer, kLength, pair.a.key)});
  const auto recv = cqes(pair.b, 1);
  ASSERT_EQ(recv.size(), 1u);
  EXPECT_EQ(recv[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(recv[0].opcode, ORNIC_CQE_OP_RECV);
  EXPECT_EQ(le(recv[0].wr_id), 11u);
  EXPECT_EQ(le(recv[0].byte_len), kLength);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 4096, kLength));
  const auto sent = cqes(pair.a, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(sent[0].opcode, ORNIC_CQE_OP_SEND);
  EXPECT_EQ(le(sent[0].wr_id), 21u);
}

TEST_F(IwarpQp, InlineSendWithSolicitedEvent) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  qb.post_recv(1, {sge(pair.b.buffer, 64, pair.b.key)});
  const std::vector<uint8_t> data = {1, 2, 3, 4, 5};
  qa.post_send_inline(
      send_wqe(ORNIC_WQE_OP_SEND, 2, ORNIC_WQE_FLAG_SIGNALED | ORNIC_WQE_FLAG_SOLICITED), data);
  const auto recv = cqes(pair.b, 1);
  ASSERT_EQ(recv.size(), 1u);
  EXPECT_EQ(recv[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(recv[0].byte_len), 5u);
  EXPECT_EQ(std::memcmp(pair.b.at(0), data.data(), data.size()), 0);
}

// The key a Send with Invalidate names travels in the DDP header; one that cannot be
// invalidated (an MR registered by the driver) fails the receive as on RoCE.
TEST_F(IwarpQp, SendWithInvalidateOfAnOrdinaryMrFailsTheReceive) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  qb.post_recv(1, {sge(pair.b.buffer, 64, pair.b.key)});
  auto w = send_wqe(ORNIC_WQE_OP_SEND_INV, 2);
  w.invalidate_rkey = to_le(pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer, 16, pair.a.key)});
  const auto recv = cqes(pair.b, 1);
  ASSERT_EQ(recv.size(), 1u);
  EXPECT_EQ(recv[0].status, ORNIC_CQE_REM_INV_REQ_ERR);
  EXPECT_EQ(recv[0].flags & ORNIC_CQE_FLAG_INV, ORNIC_CQE_FLAG_INV);
  EXPECT_EQ(le(recv[0].imm_data), pair.b.key);
  EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
  ASSERT_TRUE(wait_event(pair.a, ORNIC_EQE_QP_FATAL).has_value());
}

TEST_F(IwarpQp, RdmaWriteThenRead) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  constexpr uint32_t kLength = 3000;
  fill(pair.a, 0, kLength, 9);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  w.rdma.remote_addr = to_le(pair.b.buffer + 8192);
  w.rdma.rkey = to_le(pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer, kLength, pair.a.key)});
  auto done = cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(done[0].opcode, ORNIC_CQE_OP_RDMA_WRITE);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 8192, kLength));

  fill(pair.b, 65536, kLength, 77);
  auto r = send_wqe(ORNIC_WQE_OP_RDMA_READ, 2);
  r.rdma.remote_addr = to_le(pair.b.buffer + 65536);
  r.rdma.rkey = to_le(pair.b.key);
  qa.post_send(r, {sge(pair.a.buffer + 131072, kLength, pair.a.key)});
  done = cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(done[0].opcode, ORNIC_CQE_OP_RDMA_READ);
  EXPECT_EQ(le(done[0].byte_len), kLength);
  EXPECT_TRUE(same(pair.b, 65536, pair.a, 131072, kLength));
}

TEST_F(IwarpQp, ImmediateAndAtomicsAreLocalErrors) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND_IMM, 5), {sge(pair.a.buffer, 8, pair.a.key)});
  const auto done = cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_LOC_QP_OP_ERR);
  EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
}

TEST_F(IwarpQp, ReadWithTwoSgesIsALocalError) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  auto r = send_wqe(ORNIC_WQE_OP_RDMA_READ, 2);
  r.rdma.remote_addr = to_le(pair.b.buffer);
  r.rdma.rkey = to_le(pair.b.key);
  qa.post_send(r, {sge(pair.a.buffer, 8, pair.a.key), sge(pair.a.buffer + 8, 8, pair.a.key)});
  const auto done = cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_LOC_QP_OP_ERR);
}

TEST_F(IwarpQp, NoReceiveBufferTerminatesAndOtherQpsGoOn) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  Qp qa2 = init_qp(pair.a), qb2 = init_qp(pair.b);
  establish(qa, qb, 7, kLocalPort);
  establish(qa2, qb2, 8, kLocalPort + 1);
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 1), {sge(pair.a.buffer, 16, pair.a.key)});
  ASSERT_TRUE(wait_event(pair.b, ORNIC_EQE_QP_REQ_ERR).has_value());
  EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
  // The TERMINATE reached A: its QP is in ERR too, with a QP_FATAL event.
  ASSERT_TRUE(wait_event(pair.a, ORNIC_EQE_QP_FATAL).has_value());
  EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
  // TCP had the Send acknowledged (with the TERMINATE) before A read the TERMINATE.
  const auto sent = cqes(pair.a, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
  // The second connection is untouched.
  qb2.post_recv(3, {sge(pair.b.buffer, 64, pair.b.key)});
  qa2.post_send(send_wqe(ORNIC_WQE_OP_SEND, 4), {sge(pair.a.buffer, 16, pair.a.key)});
  const auto recv = cqes(pair.b, 1);
  ASSERT_EQ(recv.size(), 1u);
  EXPECT_EQ(recv[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(qa2.state(), ORNIC_QPS_RTS);
}

TEST_F(IwarpQp, WriteWithABadStagOrOutOfBoundsTerminates) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  w.rdma.remote_addr = to_le(pair.b.buffer + Node::kBufferBytes - 8);
  w.rdma.rkey = to_le(pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer, 16, pair.a.key)});
  ASSERT_TRUE(wait_event(pair.b, ORNIC_EQE_QP_ACCESS_ERR).has_value());
  EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
  ASSERT_TRUE(wait_event(pair.a, ORNIC_EQE_QP_FATAL).has_value());
  EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
}

TEST_F(IwarpQp, ReadOfABadStagTerminates) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  auto r = send_wqe(ORNIC_WQE_OP_RDMA_READ, 2);
  r.rdma.remote_addr = to_le(pair.b.buffer);
  r.rdma.rkey = to_le(pair.b.key ^ 0x55);
  qa.post_send(r, {sge(pair.a.buffer, 8, pair.a.key)});
  ASSERT_TRUE(wait_event(pair.b, ORNIC_EQE_QP_ACCESS_ERR).has_value());
  ASSERT_TRUE(wait_event(pair.a, ORNIC_EQE_QP_FATAL).has_value());
  const auto flushed = cqes(pair.a, 1);
  ASSERT_EQ(flushed.size(), 1u);
  EXPECT_EQ(flushed[0].status, ORNIC_CQE_WR_FLUSH_ERR);
}

TEST_F(IwarpQp, PeerFinMovesTheQpToErrWithoutAnEvent) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  const uint32_t b_id = establish(qa, qb);
  qb.post_recv(1, {sge(pair.b.buffer, 64, pair.b.key)});
  EXPECT_EQ(disconnect(pair.b, b_id), ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
  ASSERT_TRUE(wait_event(pair.a, ORNIC_EQE_IW_DISCONNECT).has_value());
  EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
  EXPECT_FALSE(saw_event(pair.a, ORNIC_EQE_QP_FATAL, qa.qpn));
  const auto flushed = cqes(pair.b, 1);
  ASSERT_EQ(flushed.size(), 1u);
  EXPECT_EQ(flushed[0].status, ORNIC_CQE_WR_FLUSH_ERR);
}

TEST_F(IwarpQp, PeerResetIsAQpError) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  const uint32_t b_id = establish(qa, qb);
  EXPECT_EQ(disconnect(pair.b, b_id, true), ORNIC_ADMIN_STATUS_SUCCESS);
  ASSERT_TRUE(wait_event(pair.a, ORNIC_EQE_IW_CLOSE).has_value());
  EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
  EXPECT_TRUE(saw_event(pair.a, ORNIC_EQE_QP_FATAL, qa.qpn));
}

} // namespace
} // namespace ornic::test
