// Unreliable connected QPs (qp.rst, roce.rst "Unreliable connected", wqe.rst): IBTA's UC
// attribute rules, SEND and RDMA WRITE with and without immediate in one and many packets,
// completion at the requester without any ACK, and the responder's errors that drop a message
// instead of NAKing (no receive WQE, bad rkey, bad length, a receive WQE too small).
#include <gtest/gtest.h>

#include "rdma/transport_engine.hpp"
#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

constexpr int kA = 0, kB = 1; // wire sides: frames sent by a / by b
constexpr size_t kBth = 42;   // Ethernet + IPv4 + UDP: the BTH of an IPv4 RoCEv2 frame
constexpr uint32_t kImm = 0x11223344;

void fill(Node& node, uint64_t offset, size_t length, uint8_t seed) {
  for (size_t i = 0; i < length; ++i)
    *node.at(offset + i) = std::byte{static_cast<uint8_t>(seed + i * 7)};
}

bool same(Node& x, uint64_t xo, Node& y, uint64_t yo, size_t length) {
  return std::memcmp(x.at(xo), y.at(yo), length) == 0;
}

bool untouched(Node& node, uint64_t offset, size_t length) {
  for (size_t i = 0; i < length; ++i)
    if (*node.at(offset + i) != std::byte{0})
      return false;
  return true;
}

// imm_data travels in wire byte order in WQEs and CQEs.
uint32_t wire(uint32_t number) {
  const uint8_t b[4] = {static_cast<uint8_t>(number >> 24), static_cast<uint8_t>(number >> 16),
                        static_cast<uint8_t>(number >> 8), static_cast<uint8_t>(number)};
  uint32_t raw;
  std::memcpy(&raw, b, 4);
  return raw;
}

ornic_send_wqe write_wqe(uint8_t opcode, uint64_t wr_id, uint64_t remote, uint32_t rkey) {
  auto w = send_wqe(opcode, wr_id);
  w.rdma.remote_addr = to_le(remote);
  w.rdma.rkey = to_le(rkey);
  return w;
}

class Uc : public ::testing::Test {
protected:
  void SetUp() override {
    // Records the BTH opcode and AckReq bit of every frame a sends.
    pair.wire.policy = [this](int side, uint64_t, const LossyWire::Frame& frame) {
      if (side == kA && frame.size() > kBth + 8) {
        opcodes.push_back(static_cast<uint8_t>(frame[kBth]));
        ack_requests += (static_cast<uint8_t>(frame[kBth + 8]) & 0x80) != 0;
      }
      return WireAction::deliver;
    };
    std::tie(qa, qb) = pair.uc_pair(ORNIC_MTU_1024);
  }

  ornic_cqe one(Node& node) {
    const auto got = pair.wait_cqes(node, 1);
    EXPECT_EQ(got.size(), 1u);
    return got.empty() ? ornic_cqe{} : got[0];
  }

  RdmaPair pair;
  Qp qa, qb;
  std::vector<uint8_t> opcodes;
  int ack_requests = 0;
};

TEST_F(Uc, SendOnlyDeliversDataWithoutAnyAcknowledgement) {
  fill(pair.a, 0, 100, 3);
  qb.post_recv(21, {sge(pair.b.buffer + 8192, 4096, pair.b.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 11), {sge(pair.a.buffer, 100, pair.a.key)});
  const ornic_cqe sent = one(pair.a);
  EXPECT_EQ(sent.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(sent.opcode, ORNIC_CQE_OP_SEND);
  EXPECT_EQ(le(sent.wr_id), 11u);
  EXPECT_EQ(le(sent.qpn), qa.qpn);
  const ornic_cqe received = one(pair.b);
  EXPECT_EQ(received.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(received.opcode, ORNIC_CQE_OP_RECV);
  EXPECT_EQ(le(received.wr_id), 21u);
  EXPECT_EQ(le(received.byte_len), 100u);
  EXPECT_EQ(le(received.qpn), qb.qpn);
  EXPECT_EQ(received.flags, 0);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 8192, 100));
  EXPECT_EQ(opcodes, std::vector<uint8_t>{0x24}); // UC SEND ONLY
  EXPECT_EQ(ack_requests, 0);
  EXPECT_EQ(pair.wire.sent[kB], 0u); // the responder never answers
  EXPECT_EQ(qa.state(), ORNIC_QPS_RTS);
}

TEST_F(Uc, MultiPacketSendWithImmediate) {
  constexpr size_t kLength = 5000; // 5 packets of MTU 1024
  fill(pair.a, 0, kLength, 9);
  qb.post_recv(22, {sge(pair.b.buffer + 8192, 2000, pair.b.key),
                    sge(pair.b.buffer + 16384, 4000, pair.b.key)});
  auto w = send_wqe(ORNIC_WQE_OP_SEND_IMM, 12, ORNIC_WQE_FLAG_SIGNALED | ORNIC_WQE_FLAG_SOLICITED);
  w.imm_data = wire(kImm);
  qa.post_send(w, {sge(pair.a.buffer, kLength, pair.a.key)});
  const ornic_cqe sent = one(pair.a);
  EXPECT_EQ(sent.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(sent.byte_len), kLength);
  const ornic_cqe received = one(pair.b);
  EXPECT_EQ(received.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(received.byte_len), kLength);
  EXPECT_EQ(received.flags, ORNIC_CQE_FLAG_IMM);
  EXPECT_EQ(received.imm_data, wire(kImm));
  EXPECT_TRUE(same(pair.a, 0, pair.b, 8192, 2000));
  EXPECT_TRUE(same(pair.a, 2000, pair.b, 16384, kLength - 2000));
  EXPECT_EQ(opcodes, (std::vector<uint8_t>{0x20, 0x21, 0x21, 0x21, 0x23}));
  EXPECT_EQ(ack_requests, 0);
  EXPECT_EQ(pair.wire.sent[kB], 0u);
}

TEST_F(Uc, RdmaWriteMultiPacketPlacesDataAndCompletesNothingRemotely) {
  constexpr size_t kLength = 3000;
  fill(pair.a, 0, kLength, 5);
  qb.post_recv(23, {sge(pair.b.buffer + 65536, 64, pair.b.key)});
  qa.post_send(write_wqe(ORNIC_WQE_OP_RDMA_WRITE, 13, pair.b.buffer + 4096, pair.b.key),
               {sge(pair.a.buffer, kLength, pair.a.key)});
  const ornic_cqe sent = one(pair.a);
  EXPECT_EQ(sent.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(sent.opcode, ORNIC_CQE_OP_RDMA_WRITE);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 4096, kLength));
  EXPECT_FALSE(pair.b.poll().has_value());
  EXPECT_EQ(opcodes, (std::vector<uint8_t>{0x26, 0x27, 0x28}));
  // The receive WQE is still there for the next SEND.
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 14), {sge(pair.a.buffer, 8, pair.a.key)});
  EXPECT_EQ(le(one(pair.b).wr_id), 23u);
}

TEST_F(Uc, RdmaWriteWithImmediateConsumesAReceiveWqe) {
  for (const size_t length : {size_t{200}, size_t{2500}}) {
    SCOPED_TRACE(length);
    opcodes.clear();
    fill(pair.a, 0, length, static_cast<uint8_t>(length));
    qb.post_recv(24, {});
    auto w = write_wqe(ORNIC_WQE_OP_RDMA_WRITE_IMM, 15, pair.b.buffer + 4096, pair.b.key);
    w.imm_data = wire(kImm);
    qa.post_send(w, {sge(pair.a.buffer, static_cast<uint32_t>(length), pair.a.key)});
    EXPECT_EQ(one(pair.a).status, ORNIC_CQE_SUCCESS);
    const ornic_cqe received = one(pair.b);
    EXPECT_EQ(received.status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(received.opcode, ORNIC_CQE_OP_RECV_RDMA_IMM);
    EXPECT_EQ(le(received.wr_id), 24u);
    EXPECT_EQ(le(received.byte_len), length);
    EXPECT_EQ(received.flags, ORNIC_CQE_FLAG_IMM);
    EXPECT_EQ(received.imm_data, wire(kImm));
    EXPECT_TRUE(same(pair.a, 0, pair.b, 4096, length));
    EXPECT_EQ(opcodes.back(), length > 1024 ? 0x29 : 0x2b);
  }
}

TEST_F(Uc, InlineSendAndUnsignaledWqes) {
  qb.post_recv(25, {sge(pair.b.buffer, 64, pair.b.key)});
  qb.post_recv(26, {sge(pair.b.buffer + 64, 64, pair.b.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 16, 0), {sge(pair.a.buffer, 10, pair.a.key)});
  qa.post_send_inline(send_wqe(ORNIC_WQE_OP_SEND, 17), {1, 2, 3, 4, 5});
  const ornic_cqe sent = one(pair.a); // only the signaled one
  EXPECT_EQ(le(sent.wr_id), 17u);
  const auto received = pair.wait_cqes(pair.b, 2);
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(le(received[1].byte_len), 5u);
  EXPECT_EQ(*pair.b.at(64 + 4), std::byte{5});
}

// Nothing ever comes back on UC: a send completes even when the wire loses every packet.
TEST_F(Uc, RequesterCompletesWithoutHearingFromThePeer) {
  pair.wire.policy = [](int, uint64_t, const auto&) { return WireAction::drop; };
  for (uint64_t i = 0; i < 3; ++i)
    qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 30 + i), {sge(pair.a.buffer, 4000, pair.a.key)});
  const auto sent = pair.wait_cqes(pair.a, 3, 1000, 1);
  ASSERT_EQ(sent.size(), 3u);
  for (uint64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(sent[i].status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(le(sent[i].wr_id), 30 + i);
  }
  EXPECT_EQ(pair.wire.sent[kA], 12u);
  EXPECT_FALSE(pair.timer_a.armed()); // no ACK timer, no retransmission
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_RETRANSMITS), 0u);
}

TEST_F(Uc, NoReceiveWqeDropsTheMessageSilently) {
  fill(pair.a, 0, 3000, 1);
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 40), {sge(pair.a.buffer, 3000, pair.a.key)});
  EXPECT_EQ(one(pair.a).status, ORNIC_CQE_SUCCESS);
  pair.pump();
  EXPECT_FALSE(pair.b.poll().has_value());
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UC_NO_RECV), 1u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RNR_NAKS), 0u);
  EXPECT_EQ(pair.wire.sent[kB], 0u);
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);
  // The next message, with a receive posted, arrives whole.
  qb.post_recv(41, {sge(pair.b.buffer, 4096, pair.b.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 42), {sge(pair.a.buffer, 3000, pair.a.key)});
  const ornic_cqe received = one(pair.b);
  EXPECT_EQ(received.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(received.wr_id), 41u);
  EXPECT_EQ(le(received.byte_len), 3000u);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 0, 3000));
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UC_NO_RECV), 1u);
}

TEST_F(Uc, WriteWithImmediateWithoutReceiveWqeIsDropped) {
  fill(pair.a, 0, 64, 1);
  auto w = write_wqe(ORNIC_WQE_OP_RDMA_WRITE_IMM, 43, pair.b.buffer + 4096, pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer, 64, pair.a.key)});
  EXPECT_EQ(one(pair.a).status, ORNIC_CQE_SUCCESS);
  pair.pump();
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UC_NO_RECV), 1u);
  EXPECT_TRUE(untouched(pair.b, 4096, 64)); // the WQE is taken before any data moves
  EXPECT_FALSE(pair.b.poll().has_value());
}

TEST_F(Uc, WriteWithBadRkeyIsDroppedAndTheQpGoesOn) {
  fill(pair.a, 0, 2048, 1);
  qa.post_send(write_wqe(ORNIC_WQE_OP_RDMA_WRITE, 44, pair.b.buffer + 4096, pair.b.key ^ 0x1),
               {sge(pair.a.buffer, 2048, pair.a.key)});
  // Out of the MR, and past the end of it.
  qa.post_send(
      write_wqe(ORNIC_WQE_OP_RDMA_WRITE, 45, pair.b.buffer + Node::kBufferBytes - 16, pair.b.key),
      {sge(pair.a.buffer, 64, pair.a.key)});
  qb.post_recv(46, {sge(pair.b.buffer + 8192, 64, pair.b.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 47), {sge(pair.a.buffer, 64, pair.a.key)});
  const auto sent = pair.wait_cqes(pair.a, 3);
  ASSERT_EQ(sent.size(), 3u);
  for (const auto& cqe : sent)
    EXPECT_EQ(cqe.status, ORNIC_CQE_SUCCESS); // the requester never learns
  const ornic_cqe received = one(pair.b);
  EXPECT_EQ(received.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(received.wr_id), 46u);
  EXPECT_TRUE(untouched(pair.b, 4096, 2048));
  EXPECT_TRUE(untouched(pair.b, Node::kBufferBytes - 16, 16));
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UC_DROPPED), 2u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_NAKS_SENT), 0u);
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);
  EXPECT_FALSE(pair.b.h.poll_async_event().has_value());
}

TEST_F(Uc, WriteToAQpWithoutRemoteWriteIsDropped) {
  Qp qc = pair.create_qp(pair.a, ORNIC_QPT_UC), qd = pair.create_qp(pair.b, ORNIC_QPT_UC);
  pair.connect_uc(qc, qd);
  pair.connect_uc(qd, qc, ORNIC_MTU_1024, 0);
  fill(pair.a, 0, 64, 1);
  qc.post_send(write_wqe(ORNIC_WQE_OP_RDMA_WRITE, 48, pair.b.buffer, pair.b.key),
               {sge(pair.a.buffer, 64, pair.a.key)});
  EXPECT_EQ(one(pair.a).status, ORNIC_CQE_SUCCESS);
  pair.pump();
  EXPECT_TRUE(untouched(pair.b, 0, 64));
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UC_DROPPED), 1u);
  EXPECT_EQ(qd.state(), ORNIC_QPS_RTS);
}

TEST_F(Uc, ReceiveWqeTooSmallCompletesInErrorAndTheQpGoesOn) {
  fill(pair.a, 0, 3000, 1);
  qb.post_recv(50, {sge(pair.b.buffer, 1500, pair.b.key)});
  qb.post_recv(51, {sge(pair.b.buffer + 4096, 4096, pair.b.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 52), {sge(pair.a.buffer, 3000, pair.a.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 53), {sge(pair.a.buffer, 3000, pair.a.key)});
  const auto received = pair.wait_cqes(pair.b, 2);
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(received[0].status, ORNIC_CQE_LOC_LEN_ERR);
  EXPECT_EQ(le(received[0].wr_id), 50u);
  EXPECT_EQ(received[1].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(received[1].wr_id), 51u);
  EXPECT_EQ(le(received[1].byte_len), 3000u);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 4096, 3000));
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_NAKS_SENT), 0u);
}

TEST_F(Uc, ReceiveWithABadLkeyCompletesInError) {
  qb.post_recv(54, {sge(pair.b.buffer, 64, pair.b.key + 0x100)});
  qb.post_recv(55, {sge(pair.b.buffer, 64, pair.b.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 56), {sge(pair.a.buffer, 64, pair.a.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 57), {sge(pair.a.buffer, 64, pair.a.key)});
  const auto received = pair.wait_cqes(pair.b, 2);
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(received[0].status, ORNIC_CQE_LOC_PROT_ERR);
  EXPECT_EQ(received[1].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);
}

TEST_F(Uc, MalformedReceiveWqeMovesTheQpToError) {
  ornic_recv_wqe bad{};
  bad.wr_id = to_le(uint64_t{58});
  bad.num_blocks = 1;
  bad.num_sge = 1;
  bad.reserved1 = to_le(1u);
  pair.b.h.write(qb.rq, bad);
  qb.rq_prod = 1;
  pair.b.h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(qb.qpn, 0, 1));
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 59), {sge(pair.a.buffer, 64, pair.a.key)});
  const ornic_cqe received = one(pair.b);
  EXPECT_EQ(received.status, ORNIC_CQE_LOC_QP_OP_ERR);
  EXPECT_EQ(received.vendor_err, ORNIC_VERR_RESERVED_NONZERO);
  EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
}

// Payloads of the wrong size are invalid requests: with a responder MTU smaller than the
// requester's, every FIRST/MIDDLE packet is too long. Dropped, counted; short ones still pass.
TEST_F(Uc, PacketsLongerThanThePathMtuAreDropped) {
  ornic_admin_eth_set_mtu jumbo{};
  jumbo.hdr.opcode = ORNIC_ADMIN_ETH_SET_MTU;
  jumbo.mtu = to_le(9000u); // so that the port allows a 2048-byte path MTU
  ASSERT_EQ(pair.a.h.execute(DriverHarness::as_sqe(jumbo)).status, ORNIC_ADMIN_STATUS_SUCCESS);
  Qp qc = pair.create_qp(pair.a, ORNIC_QPT_UC), qd = pair.create_qp(pair.b, ORNIC_QPT_UC);
  pair.connect_uc(qc, qd, ORNIC_MTU_2048);
  pair.connect_uc(qd, qc, ORNIC_MTU_1024);
  fill(pair.a, 0, 5000, 1);
  qd.post_recv(60, {sge(pair.b.buffer, 8192, pair.b.key)});
  qc.post_send(send_wqe(ORNIC_WQE_OP_SEND, 61), {sge(pair.a.buffer, 5000, pair.a.key)});
  qc.post_send(send_wqe(ORNIC_WQE_OP_SEND, 62), {sge(pair.a.buffer, 1000, pair.a.key)});
  EXPECT_EQ(pair.wait_cqes(pair.a, 2).size(), 2u);
  const ornic_cqe received = one(pair.b);
  EXPECT_EQ(received.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(received.wr_id), 60u); // the dropped message's WQE, filled again
  EXPECT_EQ(le(received.byte_len), 1000u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UC_DROPPED), 1u);
  EXPECT_EQ(qd.state(), ORNIC_QPS_RTS);
}

// READ, atomics and SEND_INV do not exist on UC: LOC_QP_OP_ERR, the QP goes to SQE (not ERR),
// the rest of the SQ is flushed, and SQE -> RTS resumes sending with the next PSNs.
TEST_F(Uc, ReadAtomicAndSendInvAreRefusedAndSqeResumes) {
  for (const uint8_t opcode : {ORNIC_WQE_OP_RDMA_READ, ORNIC_WQE_OP_ATOMIC_FETCH_ADD,
                               ORNIC_WQE_OP_ATOMIC_CMP_SWP, ORNIC_WQE_OP_SEND_INV}) {
    SCOPED_TRACE(static_cast<int>(opcode));
    const bool atomic =
        opcode == ORNIC_WQE_OP_ATOMIC_FETCH_ADD || opcode == ORNIC_WQE_OP_ATOMIC_CMP_SWP;
    auto w = send_wqe(opcode, 70);
    if (opcode != ORNIC_WQE_OP_SEND_INV) {
      w.rdma.remote_addr = to_le(pair.b.buffer);
      w.rdma.rkey = to_le(pair.b.key);
    }
    qa.post_send(w, {sge(pair.a.buffer, atomic ? 8 : 64, pair.a.key)});
    qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 71), {sge(pair.a.buffer, 8, pair.a.key)});
    const auto done = pair.wait_cqes(pair.a, 2);
    ASSERT_EQ(done.size(), 2u);
    EXPECT_EQ(done[0].status, ORNIC_CQE_LOC_QP_OP_ERR);
    EXPECT_EQ(done[0].vendor_err, ORNIC_VERR_BAD_OPCODE);
    EXPECT_EQ(done[1].status, ORNIC_CQE_WR_FLUSH_ERR);
    EXPECT_EQ(qa.state(), ORNIC_QPS_SQE);
    ornic_qp_attr attr{};
    attr.state = ORNIC_QPS_RTS;
    ASSERT_EQ(pair.a.h.modify_qp(qa.qpn, attr, ORNIC_QP_ATTR_STATE).status,
              ORNIC_ADMIN_STATUS_SUCCESS);
    qb.post_recv(72, {sge(pair.b.buffer, 64, pair.b.key)});
    qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 73), {sge(pair.a.buffer, 8, pair.a.key)});
    EXPECT_EQ(one(pair.a).status, ORNIC_CQE_SUCCESS);
    const ornic_cqe received = one(pair.b);
    EXPECT_EQ(received.status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(le(received.wr_id), 72u);
  }
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_PSN_ERRORS), 0u);
  EXPECT_EQ(pair.wire.sent[kB], 0u);
}

// A local protection error in the middle of a message: the WQE fails, the QP goes to SQE, the
// peer drops the half message and takes the next one after SQE -> RTS. The port's backlog
// holds the requester after the FIRST packet (UC pacing) while the MR goes away.
TEST_F(Uc, MrDeregisteredUnderAStartedMessage) {
  const uint32_t key = pair.a.reg_mr(pair.a.buffer + 65536, 8192, ORNIC_ACCESS_LOCAL_WRITE);
  pair.wire.policy = [&](int side, uint64_t n, const auto&) {
    if (side == kA && n == 0)
      pair.wire.backlog = TransportEngine::kUcBacklogLimit;
    return WireAction::deliver;
  };
  qb.post_recv(80, {sge(pair.b.buffer, 8192, pair.b.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 81), {sge(pair.a.buffer + 65536, 5000, key)});
  pair.pump();
  EXPECT_EQ(pair.wire.sent[kA], 1u); // held back by the port's backlog
  EXPECT_TRUE(pair.timer_a.armed());
  ASSERT_EQ(pair.a.h.execute(DriverHarness::simple(ORNIC_ADMIN_DEREG_MR, key)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  pair.wire.backlog = 0;
  const ornic_cqe failed = one(pair.a);
  EXPECT_EQ(failed.status, ORNIC_CQE_LOC_PROT_ERR);
  EXPECT_EQ(le(failed.wr_id), 81u);
  EXPECT_EQ(qa.state(), ORNIC_QPS_SQE);
  EXPECT_EQ(pair.wire.sent[kA], 1u);
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_RTS;
  ASSERT_EQ(pair.a.h.modify_qp(qa.qpn, attr, ORNIC_QP_ATTR_STATE).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  fill(pair.a, 0, 2000, 4);
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 82), {sge(pair.a.buffer, 2000, pair.a.key)});
  EXPECT_EQ(one(pair.a).status, ORNIC_CQE_SUCCESS);
  const ornic_cqe received = one(pair.b);
  EXPECT_EQ(received.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(received.wr_id), 80u);
  EXPECT_EQ(le(received.byte_len), 2000u);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 0, 2000));
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UC_DROPPED), 1u);
}

// Packets of another transport never reach a QP: UC opcodes to an RC QP, RC to a UC QP.
TEST_F(Uc, TransportMismatchIsDropped) {
  Qp rc = pair.create_qp(pair.b);
  Qp uc = pair.create_qp(pair.a, ORNIC_QPT_UC);
  pair.connect_uc(uc, rc);
  pair.connect(rc, uc);
  rc.post_recv(90, {sge(pair.b.buffer, 64, pair.b.key)});
  uc.post_send(send_wqe(ORNIC_WQE_OP_SEND, 91), {sge(pair.a.buffer, 64, pair.a.key)});
  EXPECT_EQ(one(pair.a).status, ORNIC_CQE_SUCCESS);
  pair.pump();
  EXPECT_FALSE(pair.b.poll().has_value());
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UNKNOWN_QP), 1u);
}

TEST_F(Uc, LoopbackBetweenTwoQpsOfOneNic) {
  Qp q1 = pair.create_qp(pair.a, ORNIC_QPT_UC), q2 = pair.create_qp(pair.a, ORNIC_QPT_UC);
  pair.connect_uc(q1, q2);
  pair.connect_uc(q2, q1);
  fill(pair.a, 0, 4000, 2);
  q2.post_recv(92, {sge(pair.a.buffer + 8192, 4096, pair.a.key)});
  q1.post_send(send_wqe(ORNIC_WQE_OP_SEND, 93), {sge(pair.a.buffer, 4000, pair.a.key)});
  const auto done = pair.wait_cqes(pair.a, 2);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_TRUE(same(pair.a, 0, pair.a, 8192, 4000));
  EXPECT_EQ(pair.wire.sent[kA], 0u);
}

// IBTA's UC rows (qp.rst): no timeout, retry, RNR or read/atomic attributes, no Q_Key.
TEST(UcAttributes, TransitionsTakeTheUcAttributesOnly) {
  RdmaPair pair;
  Qp qp = pair.create_qp(pair.a, ORNIC_QPT_UC);
  DriverHarness& h = pair.a.h;
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_INIT;
  attr.access_flags = to_le(ORNIC_ACCESS_REMOTE_WRITE);
  attr.qkey = to_le(1u);
  EXPECT_EQ(h.modify_qp(qp.qpn, attr, ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_PKEY_INDEX).status,
            ORNIC_ADMIN_STATUS_BAD_FIELD); // ACCESS_FLAGS required
  EXPECT_EQ(h.modify_qp(qp.qpn, attr,
                        ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_PKEY_INDEX |
                            ORNIC_QP_ATTR_ACCESS_FLAGS | ORNIC_QP_ATTR_QKEY)
                .status,
            ORNIC_ADMIN_STATUS_BAD_FIELD);
  ASSERT_EQ(h.modify_qp(qp.qpn, attr,
                        ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_PKEY_INDEX | ORNIC_QP_ATTR_ACCESS_FLAGS)
                .status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  attr.state = ORNIC_QPS_RTR;
  attr.path_mtu = ORNIC_MTU_1024;
  attr.dest_qpn = to_le(7u);
  std::copy(pair.b.gid.begin(), pair.b.gid.end(), attr.dgid);
  const uint32_t rtr = ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_AV | ORNIC_QP_ATTR_PATH_MTU |
                       ORNIC_QP_ATTR_DEST_QPN | ORNIC_QP_ATTR_RQ_PSN;
  for (const uint32_t rc_only :
       {ORNIC_QP_ATTR_MAX_DEST_RD_ATOMIC, ORNIC_QP_ATTR_MIN_RNR_TIMER, ORNIC_QP_ATTR_QKEY})
    EXPECT_EQ(h.modify_qp(qp.qpn, attr, rtr | rc_only).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(h.modify_qp(qp.qpn, attr, rtr & ~ORNIC_QP_ATTR_RQ_PSN).status,
            ORNIC_ADMIN_STATUS_BAD_FIELD);
  ASSERT_EQ(h.modify_qp(qp.qpn, attr, rtr | ORNIC_QP_ATTR_ACCESS_FLAGS).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  attr.state = ORNIC_QPS_RTS;
  for (const uint32_t rc_only :
       {ORNIC_QP_ATTR_TIMEOUT, ORNIC_QP_ATTR_RETRY_CNT, ORNIC_QP_ATTR_RNR_RETRY,
        ORNIC_QP_ATTR_MAX_QP_RD_ATOMIC, ORNIC_QP_ATTR_MIN_RNR_TIMER})
    EXPECT_EQ(
        h.modify_qp(qp.qpn, attr, ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_SQ_PSN | rc_only).status,
        ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(h.modify_qp(qp.qpn, attr, ORNIC_QP_ATTR_STATE).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  ASSERT_EQ(h.modify_qp(qp.qpn, attr, ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_SQ_PSN).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  // RTS -> RTS and SQD: access flags; SQD -> SQD may change the path too.
  attr.access_flags = to_le(ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ);
  EXPECT_EQ(h.modify_qp(qp.qpn, attr, ORNIC_QP_ATTR_ACCESS_FLAGS).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.modify_qp(qp.qpn, attr, ORNIC_QP_ATTR_PATH_MTU).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  attr.state = ORNIC_QPS_SQD;
  EXPECT_EQ(h.modify_qp(qp.qpn, attr, ORNIC_QP_ATTR_STATE).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.modify_qp(qp.qpn, attr, ORNIC_QP_ATTR_AV | ORNIC_QP_ATTR_PKEY_INDEX).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(h.modify_qp(qp.qpn, attr, ORNIC_QP_ATTR_TIMEOUT).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  attr.state = ORNIC_QPS_RTS;
  EXPECT_EQ(h.modify_qp(qp.qpn, attr, ORNIC_QP_ATTR_STATE).status, ORNIC_ADMIN_STATUS_SUCCESS);
  const ornic_qp_attr got = qp.attr();
  EXPECT_EQ(got.state, ORNIC_QPS_RTS);
  EXPECT_EQ(le(got.dest_qpn), 7u);
  EXPECT_EQ(got.path_mtu, ORNIC_MTU_1024);
  EXPECT_EQ(le(got.access_flags), ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ);
  // RTS -> SQE is the device's own move; SQE -> RTS is allowed only from SQE.
  attr.state = ORNIC_QPS_SQE;
  EXPECT_EQ(h.modify_qp(qp.qpn, attr, ORNIC_QP_ATTR_STATE).status, ORNIC_ADMIN_STATUS_BAD_STATE);
}

} // namespace
} // namespace ornic::test
