// XRC end to end (xrc.rst): an initiator on NIC A sends to XRC SRQs of a domain on NIC B
// through one target QP. Completions land on each SRQ's own CQ; WRITE, READ and atomics use
// the SRQ's PD and the target's access rights; requests naming an SRQ outside the target's
// domain are invalid requests; the XRCETH is on every request packet.
#include <cstring>

#include <gtest/gtest.h>

#include "rdma_pair.hpp"
#include "roce/builder.hpp"
#include "roce/parser.hpp"

namespace ornic::test {
namespace {

std::optional<ornic_eqe> find_event(Node& node, uint8_t type) {
  while (auto eqe = node.h.poll_async_event())
    if (eqe->type == type)
      return eqe;
  return std::nullopt;
}

// A CQ of its own on a node, for an XRC SRQ.
struct Cq {
  Node* node = nullptr;
  uint32_t cqn = 0;
  uint64_t ring = 0;
  uint32_t head = 0;
  static constexpr uint32_t kDepth = 64;

  std::optional<ornic_cqe> poll() {
    const auto cqe = node->h.read<ornic_cqe>(ring + uint64_t{head % kDepth} * ORNIC_CQE_SIZE);
    if ((cqe.owner & ORNIC_CQE_OWNER_PHASE) != expected_phase(head, kDepth))
      return std::nullopt;
    ++head;
    node->h.doorbell(0, ORNIC_DB_CQ, ORNIC_DB_VALUE(cqn, 0, head));
    return cqe;
  }
};

Cq create_cq(Node& node) {
  Cq cq;
  cq.node = &node;
  cq.cqn = node.h.create_cq(node.eqn, 6, 0, &cq.ring);
  return cq;
}

struct XrcSrq {
  Node* node = nullptr;
  uint32_t srqn = 0;
  uint64_t ring = 0;
  uint32_t producer = 0;

  void post(uint64_t wr_id, ornic_sge buffer) {
    ornic_recv_wqe w{};
    w.wr_id = to_le(wr_id);
    w.num_blocks = 1;
    w.num_sge = 1;
    w.sge[0] = buffer;
    node->h.write(ring + uint64_t{producer % 64} * 64, w);
    ++producer;
    node->h.doorbell(0, ORNIC_DB_SRQ, ORNIC_DB_VALUE(srqn, 0, producer));
  }
};

ornic_admin_cqe alloc_xrcd(Node& node) {
  return node.h.execute(DriverHarness::simple(ORNIC_ADMIN_ALLOC_XRCD));
}

uint32_t new_xrcd(Node& node) {
  const auto cqe = alloc_xrcd(node);
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  return le(cqe.result0);
}

XrcSrq create_xrc_srq(Node& node, uint32_t xrcd, uint32_t cqn, uint32_t pd) {
  XrcSrq srq;
  srq.node = &node;
  ornic_admin_create_srq c{};
  c.hdr.opcode = ORNIC_ADMIN_CREATE_SRQ;
  c.mem = node.h.contiguous_ring(64 * 64);
  srq.ring = le(c.mem.addr);
  c.pd = to_le(pd);
  c.log_depth = 6;
  c.srq_type = ORNIC_SRQT_XRC;
  c.xrcd = to_le(xrcd);
  c.cqn = to_le(cqn);
  const auto cqe = node.h.execute(DriverHarness::as_sqe(c));
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  srq.srqn = le(cqe.result0);
  return srq;
}

Qp create_target(Node& node, uint32_t xrcd) {
  ornic_admin_create_qp c{};
  c.hdr.opcode = ORNIC_ADMIN_CREATE_QP;
  c.qp_type = ORNIC_QPT_XRC_TGT;
  c.xrcd = to_le(xrcd);
  const auto cqe = node.h.execute(DriverHarness::as_sqe(c));
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  Qp qp;
  qp.node = &node;
  qp.qpn = le(cqe.result0);
  return qp;
}

Qp create_initiator(Node& node) {
  ornic_admin_create_qp c{};
  c.hdr.opcode = ORNIC_ADMIN_CREATE_QP;
  c.qp_type = ORNIC_QPT_XRC_INI;
  c.sq_mem = node.h.contiguous_ring(64 * 64);
  c.sq_log_depth = 6;
  c.pd = to_le(node.pd);
  c.send_cqn = to_le(node.cqn);
  const auto cqe = node.h.execute(DriverHarness::as_sqe(c));
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  Qp qp;
  qp.node = &node;
  qp.qpn = le(cqe.result0);
  qp.sq = le(c.sq_mem.addr);
  return qp;
}

ornic_send_wqe xrc_wqe(uint8_t opcode, uint64_t wr_id, uint32_t srqn) {
  ornic_send_wqe w = send_wqe(opcode, wr_id);
  w.xrc_srqn = to_le(srqn);
  return w;
}

void fill(Node& node, uint64_t offset, size_t length, uint8_t seed) {
  for (size_t i = 0; i < length; ++i)
    *node.at(offset + i) = std::byte(static_cast<uint8_t>(seed + i * 7));
}

bool same(Node& a, uint64_t a_offset, Node& b, uint64_t b_offset, size_t length) {
  return std::memcmp(a.at(a_offset), b.at(b_offset), length) == 0;
}

// NIC B holds one XRC domain with two XRC SRQs, each completing on its own CQ; NIC A's
// initiator is connected to B's target QP of that domain.
class Xrc : public ::testing::Test {
protected:
  void SetUp() override {
    xrcd = new_xrcd(pair.b);
    cq1 = create_cq(pair.b);
    cq2 = create_cq(pair.b);
    srq1 = create_xrc_srq(pair.b, xrcd, cq1.cqn, pair.b.pd);
    srq2 = create_xrc_srq(pair.b, xrcd, cq2.cqn, pair.b.pd);
    tgt = create_target(pair.b, xrcd);
    ini = create_initiator(pair.a);
    pair.connect(ini, tgt);
    pair.connect(tgt, ini);
  }

  // Pumps until `cq` has `count` CQEs (advancing time for retransmissions).
  std::vector<ornic_cqe> wait(Cq& cq, size_t count) {
    std::vector<ornic_cqe> got;
    pair.pump();
    for (int i = 0; i < 200 && got.size() < count; ++i) {
      while (auto cqe = cq.poll())
        got.push_back(*cqe);
      if (got.size() < count)
        pair.advance(10'000'000);
    }
    return got;
  }

  RdmaPair pair;
  uint32_t xrcd = 0;
  Cq cq1, cq2;
  XrcSrq srq1, srq2;
  Qp tgt, ini;
};

TEST_F(Xrc, EachSendCompletesOnTheCqOfTheSrqItNames) {
  srq1.post(0x11, sge(pair.b.buffer, 4096, pair.b.key));
  srq2.post(0x22, sge(pair.b.buffer + 4096, 4096, pair.b.key));
  fill(pair.a, 0, 700, 1);
  fill(pair.a, 8192, 300, 2);
  ini.post_send(xrc_wqe(ORNIC_WQE_OP_SEND, 1, srq2.srqn), {sge(pair.a.buffer, 700, pair.a.key)});
  ini.post_send(xrc_wqe(ORNIC_WQE_OP_SEND, 2, srq1.srqn),
                {sge(pair.a.buffer + 8192, 300, pair.a.key)});
  const auto sent = pair.wait_cqes(pair.a, 2);
  ASSERT_EQ(sent.size(), 2u);
  for (const auto& cqe : sent) {
    EXPECT_EQ(cqe.status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(cqe.opcode, ORNIC_CQE_OP_SEND);
    EXPECT_EQ(le(cqe.qpn), ini.qpn);
  }
  const auto on2 = wait(cq2, 1), on1 = wait(cq1, 1);
  ASSERT_EQ(on2.size(), 1u);
  ASSERT_EQ(on1.size(), 1u);
  EXPECT_EQ(le(on2[0].wr_id), 0x22u);
  EXPECT_EQ(on2[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(on2[0].opcode, ORNIC_CQE_OP_RECV);
  EXPECT_EQ(le(on2[0].byte_len), 700u);
  EXPECT_EQ(le(on2[0].qpn), tgt.qpn);
  EXPECT_EQ(on2[0].flags, ORNIC_CQE_FLAG_XRC);
  EXPECT_EQ(le(on2[0].src_qp), srq2.srqn);
  EXPECT_EQ(le(on1[0].wr_id), 0x11u);
  EXPECT_EQ(le(on1[0].byte_len), 300u);
  EXPECT_EQ(le(on1[0].src_qp), srq1.srqn);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 4096, 700));
  EXPECT_TRUE(same(pair.a, 8192, pair.b, 0, 300));
  // Nothing on B's own CQ, and no more on the SRQ CQs.
  EXPECT_FALSE(pair.b.poll().has_value());
  EXPECT_FALSE(cq1.poll().has_value());
  EXPECT_FALSE(cq2.poll().has_value());
}

TEST_F(Xrc, EveryRequestPacketCarriesTheXrcethOfItsWqe) {
  std::vector<std::pair<int, roce::PacketDescription>> seen;
  pair.wire.policy = [&](int side, uint64_t, const LossyWire::Frame& frame) {
    roce::ParsedPacket packet;
    if (roce::parse_frame(
            std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(frame.data()), frame.size()),
            packet) == roce::ParseError::ok)
      seen.emplace_back(side, packet.description);
    return WireAction::deliver;
  };
  srq2.post(1, sge(pair.b.buffer, 4096, pair.b.key));
  ini.post_send(xrc_wqe(ORNIC_WQE_OP_SEND, 1, srq2.srqn), {sge(pair.a.buffer, 2500, pair.a.key)});
  ASSERT_EQ(wait(cq2, 1).size(), 1u);
  std::vector<uint8_t> requests, responses;
  for (const auto& [side, d] : seen) {
    if (side == 0) { // A, the initiator, to B
      requests.push_back(d.bth.opcode);
      ASSERT_TRUE(d.xrceth.has_value());
      EXPECT_EQ(d.xrceth->srqn, srq2.srqn);
    } else {
      responses.push_back(d.bth.opcode);
      EXPECT_FALSE(d.xrceth.has_value());
    }
  }
  using iba::Opcode;
  EXPECT_EQ(requests, (std::vector<uint8_t>{static_cast<uint8_t>(Opcode::xrc_send_first),
                                            static_cast<uint8_t>(Opcode::xrc_send_middle),
                                            static_cast<uint8_t>(Opcode::xrc_send_last)}));
  ASSERT_FALSE(responses.empty());
  for (uint8_t opcode : responses)
    EXPECT_EQ(opcode, static_cast<uint8_t>(Opcode::xrc_acknowledge));
}

TEST_F(Xrc, MultiPacketSendWithImmediate) {
  srq1.post(5, sge(pair.b.buffer + 100, 5000, pair.b.key));
  fill(pair.a, 0, 3000, 9);
  auto w = xrc_wqe(ORNIC_WQE_OP_SEND_IMM, 3, srq1.srqn);
  w.imm_data = 0x78563412;
  ini.post_send(
      w, {sge(pair.a.buffer, 1000, pair.a.key), sge(pair.a.buffer + 1000, 2000, pair.a.key)});
  const auto got = wait(cq1, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(got[0].byte_len), 3000u);
  EXPECT_EQ(got[0].flags, ORNIC_CQE_FLAG_XRC | ORNIC_CQE_FLAG_IMM);
  EXPECT_EQ(got[0].imm_data, 0x78563412u);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 100, 3000));
  EXPECT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
}

TEST_F(Xrc, AnEmptySrqAnswersRnrUntilAWqeIsPosted) {
  fill(pair.a, 0, 64, 3);
  ini.post_send(xrc_wqe(ORNIC_WQE_OP_SEND, 1, srq1.srqn), {sge(pair.a.buffer, 64, pair.a.key)});
  pair.advance(1'000'000);
  EXPECT_GE(pair.b.counter(ORNIC_CNT_RNR_NAKS), 1u);
  EXPECT_FALSE(cq1.poll().has_value());
  srq1.post(9, sge(pair.b.buffer, 64, pair.b.key));
  const auto got = wait(cq1, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(le(got[0].wr_id), 9u);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 0, 64));
  const auto sent = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
}

TEST_F(Xrc, WriteReadAndAtomicsWorkAsOnRc) {
  fill(pair.a, 0, 2048, 4);
  auto write = xrc_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1, srq1.srqn);
  write.rdma.remote_addr = to_le(pair.b.buffer + 65536);
  write.rdma.rkey = to_le(pair.b.key);
  ini.post_send(write, {sge(pair.a.buffer, 2048, pair.a.key)});
  fill(pair.b, 131072, 1500, 5);
  auto read = xrc_wqe(ORNIC_WQE_OP_RDMA_READ, 2, srq2.srqn);
  read.rdma.remote_addr = to_le(pair.b.buffer + 131072);
  read.rdma.rkey = to_le(pair.b.key);
  ini.post_send(read, {sge(pair.a.buffer + 4096, 1500, pair.a.key)});
  const uint64_t value = to_le(uint64_t{40});
  std::memcpy(pair.b.at(200000), &value, 8);
  auto add = xrc_wqe(ORNIC_WQE_OP_ATOMIC_FETCH_ADD, 3, srq1.srqn);
  add.atomic.remote_addr = to_le(pair.b.buffer + 200000);
  add.atomic.rkey = to_le(pair.b.key);
  add.atomic.compare_add = to_le(uint64_t{2});
  ini.post_send(add, {sge(pair.a.buffer + 8192, 8, pair.a.key)});
  auto swap = xrc_wqe(ORNIC_WQE_OP_ATOMIC_CMP_SWP, 4, srq2.srqn);
  swap.atomic.remote_addr = to_le(pair.b.buffer + 200000);
  swap.atomic.rkey = to_le(pair.b.key);
  swap.atomic.compare_add = to_le(uint64_t{42});
  swap.atomic.swap = to_le(uint64_t{7});
  ini.post_send(swap, {sge(pair.a.buffer + 8200, 8, pair.a.key)});
  const auto done = pair.wait_cqes(pair.a, 4);
  ASSERT_EQ(done.size(), 4u);
  const uint8_t opcodes[] = {ORNIC_CQE_OP_RDMA_WRITE, ORNIC_CQE_OP_RDMA_READ,
                             ORNIC_CQE_OP_FETCH_ADD, ORNIC_CQE_OP_COMP_SWAP};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(done[i].status, ORNIC_CQE_SUCCESS) << i;
    EXPECT_EQ(done[i].opcode, opcodes[i]) << i;
  }
  EXPECT_TRUE(same(pair.a, 0, pair.b, 65536, 2048));
  EXPECT_TRUE(same(pair.b, 131072, pair.a, 4096, 1500));
  uint64_t fetched = 0, swapped = 0, now = 0;
  std::memcpy(&fetched, pair.a.at(8192), 8);
  std::memcpy(&swapped, pair.a.at(8200), 8);
  std::memcpy(&now, pair.b.at(200000), 8);
  EXPECT_EQ(le(fetched), 40u);
  EXPECT_EQ(le(swapped), 42u);
  EXPECT_EQ(le(now), 7u);
  // WRITE, READ and atomics take no receive WQE.
  EXPECT_FALSE(cq1.poll().has_value());
  EXPECT_FALSE(cq2.poll().has_value());
  EXPECT_EQ(tgt.state(), ORNIC_QPS_RTS);
}

TEST_F(Xrc, WriteWithImmediateCompletesOnTheNamedSrq) {
  srq2.post(0x77, sge(pair.b.buffer, 16, pair.b.key));
  fill(pair.a, 0, 1500, 6);
  auto w = xrc_wqe(ORNIC_WQE_OP_RDMA_WRITE_IMM, 1, srq2.srqn);
  w.rdma.remote_addr = to_le(pair.b.buffer + 4096);
  w.rdma.rkey = to_le(pair.b.key);
  w.imm_data = 0x01020304;
  ini.post_send(w, {sge(pair.a.buffer, 1500, pair.a.key)});
  const auto got = wait(cq2, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].opcode, ORNIC_CQE_OP_RECV_RDMA_IMM);
  EXPECT_EQ(le(got[0].byte_len), 1500u);
  EXPECT_EQ(le(got[0].src_qp), srq2.srqn);
  EXPECT_EQ(got[0].imm_data, 0x01020304u);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 4096, 1500));
}

// Remote memory is checked against the PD of the SRQ a request names, since a target QP has
// none: an MR of another PD is out of reach through an SRQ of this one, and within reach
// through an SRQ of its own PD.
TEST_F(Xrc, RemoteKeysAreCheckedAgainstTheSrqsPd) {
  const uint32_t other_pd = pair.b.h.alloc_pd();
  const uint32_t other_key =
      pair.b.reg_mr(pair.b.buffer + 524288, 65536, ORNIC_ACCESS_ALL, other_pd);
  Cq cq3 = create_cq(pair.b);
  XrcSrq srq_other = create_xrc_srq(pair.b, xrcd, cq3.cqn, other_pd);
  fill(pair.a, 0, 256, 8);
  auto w = xrc_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1, srq_other.srqn);
  w.rdma.remote_addr = to_le(pair.b.buffer + 524288);
  w.rdma.rkey = to_le(other_key);
  ini.post_send(w, {sge(pair.a.buffer, 256, pair.a.key)});
  auto ok = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 524288, 256));

  std::memset(pair.b.at(524288 + 4096), 0, 256);
  w = xrc_wqe(ORNIC_WQE_OP_RDMA_WRITE, 2, srq1.srqn); // srq1 is of the node's own PD
  w.rdma.remote_addr = to_le(pair.b.buffer + 524288 + 4096);
  w.rdma.rkey = to_le(other_key);
  ini.post_send(w, {sge(pair.a.buffer, 256, pair.a.key)});
  const auto refused = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].status, ORNIC_CQE_REM_ACCESS_ERR);
  EXPECT_EQ(*pair.b.at(524288 + 4096), std::byte{0});
  EXPECT_EQ(tgt.state(), ORNIC_QPS_ERR);
  const auto event = find_event(pair.b, ORNIC_EQE_QP_ACCESS_ERR);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(le(event->object), tgt.qpn);
}

// The target QP's access flags gate WRITE, READ and atomics exactly as on RC.
TEST(XrcAccess, TheTargetsAccessFlagsApply) {
  RdmaPair pair;
  const uint32_t xrcd = new_xrcd(pair.b);
  Cq cq = create_cq(pair.b);
  XrcSrq srq = create_xrc_srq(pair.b, xrcd, cq.cqn, pair.b.pd);
  Qp tgt = create_target(pair.b, xrcd);
  Qp ini = create_initiator(pair.a);
  pair.connect(ini, tgt);
  pair.connect(tgt, ini, ORNIC_MTU_1024, ORNIC_ACCESS_REMOTE_READ);
  auto w = xrc_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1, srq.srqn);
  w.rdma.remote_addr = to_le(pair.b.buffer);
  w.rdma.rkey = to_le(pair.b.key);
  *pair.b.at(0) = std::byte{0x5a};
  *pair.a.at(0) = std::byte{0xa5};
  ini.post_send(w, {sge(pair.a.buffer, 64, pair.a.key)});
  const auto done = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_REM_ACCESS_ERR);
  EXPECT_EQ(*pair.b.at(0), std::byte{0x5a});
}

// A request naming an SRQ outside the target's domain (another domain's, a basic SRQ, none at
// all) is an invalid request: NAK, the target QP fails, nothing is received, and every other
// QP and the SRQs keep working.
class XrcWrongSrq : public Xrc {
protected:
  void expect_invalid_request(uint32_t srqn) {
    // A second connection into the same domain: the bystander.
    Qp tgt2 = create_target(pair.b, xrcd);
    Qp ini2 = create_initiator(pair.a);
    pair.connect(ini2, tgt2);
    pair.connect(tgt2, ini2);
    srq1.post(1, sge(pair.b.buffer, 4096, pair.b.key));
    fill(pair.b, 0, 64, 0);
    fill(pair.a, 0, 64, 1);
    ini.post_send(xrc_wqe(ORNIC_WQE_OP_SEND, 1, srqn), {sge(pair.a.buffer, 64, pair.a.key)});
    ini.post_send(xrc_wqe(ORNIC_WQE_OP_SEND, 2, srq1.srqn), {sge(pair.a.buffer, 64, pair.a.key)});
    const auto done = pair.wait_cqes(pair.a, 2);
    ASSERT_EQ(done.size(), 2u);
    EXPECT_EQ(done[0].status, ORNIC_CQE_REM_INV_REQ_ERR);
    EXPECT_EQ(le(done[0].wr_id), 1u);
    EXPECT_EQ(done[1].status, ORNIC_CQE_WR_FLUSH_ERR);
    EXPECT_EQ(ini.state(), ORNIC_QPS_ERR);
    EXPECT_EQ(tgt.state(), ORNIC_QPS_ERR);
    const auto event = find_event(pair.b, ORNIC_EQE_QP_REQ_ERR);
    ASSERT_TRUE(event.has_value());
    EXPECT_EQ(le(event->object), tgt.qpn);
    // Nothing arrived anywhere; the SRQ's WQE is still there for the bystander.
    EXPECT_FALSE(cq1.poll().has_value());
    EXPECT_FALSE(pair.b.poll().has_value());
    fill(pair.a, 4096, 64, 2);
    ini2.post_send(xrc_wqe(ORNIC_WQE_OP_SEND, 3, srq1.srqn),
                   {sge(pair.a.buffer + 4096, 64, pair.a.key)});
    const auto got = wait(cq1, 1);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(le(got[0].wr_id), 1u);
    EXPECT_EQ(le(got[0].qpn), tgt2.qpn);
    EXPECT_TRUE(same(pair.a, 4096, pair.b, 0, 64));
    const auto sent = pair.wait_cqes(pair.a, 1);
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
  }
};

TEST_F(XrcWrongSrq, AnSrqOfAnotherDomain) {
  const uint32_t other = new_xrcd(pair.b);
  Cq cq3 = create_cq(pair.b);
  XrcSrq foreign = create_xrc_srq(pair.b, other, cq3.cqn, pair.b.pd);
  foreign.post(9, sge(pair.b.buffer + 8192, 4096, pair.b.key));
  expect_invalid_request(foreign.srqn);
  EXPECT_FALSE(cq3.poll().has_value());
}

TEST_F(XrcWrongSrq, ABasicSrq) {
  ornic_admin_create_srq c{};
  c.hdr.opcode = ORNIC_ADMIN_CREATE_SRQ;
  c.mem = pair.b.h.contiguous_ring(64 * 64);
  c.pd = to_le(pair.b.pd);
  c.log_depth = 6;
  const auto basic = pair.b.h.execute(DriverHarness::as_sqe(c));
  ASSERT_EQ(basic.status, ORNIC_ADMIN_STATUS_SUCCESS);
  expect_invalid_request(le(basic.result0));
}

TEST_F(XrcWrongSrq, NoSrqAtAll) {
  expect_invalid_request(0x00abcd);
}

TEST_F(XrcWrongSrq, AnSrqDestroyedSince) {
  Cq cq3 = create_cq(pair.b);
  XrcSrq gone = create_xrc_srq(pair.b, xrcd, cq3.cqn, pair.b.pd);
  ASSERT_EQ(pair.b.h.execute(DriverHarness::simple(ORNIC_ADMIN_DESTROY_SRQ, gone.srqn)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  expect_invalid_request(gone.srqn);
}

TEST_F(Xrc, AnSrqNumberAbove24BitsIsAMalformedWqe) {
  ini.post_send(xrc_wqe(ORNIC_WQE_OP_SEND, 1, 0x01000001), {sge(pair.a.buffer, 8, pair.a.key)});
  const auto done = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_LOC_QP_OP_ERR);
  EXPECT_EQ(done[0].vendor_err, ORNIC_VERR_XRC_SRQN);
  EXPECT_EQ(ini.state(), ORNIC_QPS_ERR);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS), 0u);
}

TEST(XrcWqe, TheSrqNumberIsReservedOnOtherQps) {
  RdmaPair pair;
  auto [qa, qb] = pair.rc_pair();
  qb.post_recv(1, {sge(pair.b.buffer, 64, pair.b.key)});
  auto w = send_wqe(ORNIC_WQE_OP_SEND, 1);
  w.xrc_srqn = to_le(5u);
  qa.post_send(w, {sge(pair.a.buffer, 8, pair.a.key)});
  const auto done = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_LOC_QP_OP_ERR);
  EXPECT_EQ(done[0].vendor_err, ORNIC_VERR_RESERVED_NONZERO);
}

// An XRC SEND whose packets name two SRQs: the second packet is an invalid request.
TEST_F(Xrc, AMessageMayNotSwitchSrqs) {
  srq1.post(1, sge(pair.b.buffer, 4096, pair.b.key));
  srq2.post(2, sge(pair.b.buffer + 4096, 4096, pair.b.key));
  bool rewritten = false;
  pair.wire.policy = [&](int side, uint64_t, const LossyWire::Frame& frame) {
    roce::ParsedPacket packet;
    if (side != 0 || rewritten ||
        roce::parse_frame(
            std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(frame.data()), frame.size()),
            packet) != roce::ParseError::ok ||
        packet.description.bth.opcode != static_cast<uint8_t>(iba::Opcode::xrc_send_last))
      return WireAction::deliver;
    // Forge the LAST packet again naming srq2, and drop the original.
    rewritten = true;
    roce::PacketDescription d = packet.description;
    d.xrceth = iba::Xrceth{srq2.srqn};
    std::vector<uint8_t> forged;
    EXPECT_EQ(roce::build_frame(d, packet.payload, forged), roce::BuildError::ok);
    pair.wire.end(0).send(std::as_bytes(std::span<const uint8_t>(forged)));
    return WireAction::drop;
  };
  ini.post_send(xrc_wqe(ORNIC_WQE_OP_SEND, 1, srq1.srqn), {sge(pair.a.buffer, 2000, pair.a.key)});
  const auto done = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_REM_INV_REQ_ERR);
  EXPECT_TRUE(rewritten);
  EXPECT_EQ(tgt.state(), ORNIC_QPS_ERR);
  // srq1's WQE was taken by the first packet: flushed on srq1's CQ, with its number.
  const auto flushed = wait(cq1, 1);
  ASSERT_EQ(flushed.size(), 1u);
  EXPECT_EQ(flushed[0].status, ORNIC_CQE_WR_FLUSH_ERR);
  EXPECT_EQ(le(flushed[0].wr_id), 1u);
  EXPECT_EQ(flushed[0].flags, ORNIC_CQE_FLAG_XRC);
  EXPECT_EQ(le(flushed[0].src_qp), srq1.srqn);
  EXPECT_FALSE(cq2.poll().has_value());
}

// Transports reach only the QPs that speak them.
TEST_F(Xrc, RcPacketsDoNotReachATargetNorXrcPacketsAnRcQp) {
  Qp rc = pair.create_qp(pair.b);
  roce::PacketDescription d;
  d.source_mac = pair.a.mac;
  d.destination_mac = pair.b.mac;
  std::copy(pair.a.gid.begin(), pair.a.gid.end(), d.source_gid.begin());
  std::copy(pair.b.gid.begin(), pair.b.gid.end(), d.destination_gid.begin());
  d.bth.opcode = static_cast<uint8_t>(iba::Opcode::rc_send_only);
  d.bth.destination_qp = tgt.qpn;
  d.bth.psn = 0x100 + ini.qpn;
  std::vector<uint8_t> frame;
  ASSERT_EQ(roce::build_frame(d, {}, frame), roce::BuildError::ok);
  pair.wire.end(0).send(std::as_bytes(std::span<const uint8_t>(frame)));
  d.bth.opcode = static_cast<uint8_t>(iba::Opcode::xrc_send_only);
  d.bth.destination_qp = rc.qpn;
  d.xrceth = iba::Xrceth{srq1.srqn};
  ASSERT_EQ(roce::build_frame(d, {}, frame), roce::BuildError::ok);
  pair.wire.end(0).send(std::as_bytes(std::span<const uint8_t>(frame)));
  // An XRC response to a target is not for it either.
  d.bth.opcode = static_cast<uint8_t>(iba::Opcode::xrc_acknowledge);
  d.bth.destination_qp = tgt.qpn;
  d.xrceth.reset();
  d.aeth = iba::Aeth{0x1f, 0};
  ASSERT_EQ(roce::build_frame(d, {}, frame), roce::BuildError::ok);
  pair.wire.end(0).send(std::as_bytes(std::span<const uint8_t>(frame)));
  pair.pump();
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_RX_UNKNOWN_QP), 3u);
  EXPECT_EQ(tgt.state(), ORNIC_QPS_RTS);
}

TEST_F(Xrc, QueuesThatDoNotExistTakeNoDoorbells) {
  const uint64_t before_a = pair.a.counter(ORNIC_CNT_DB_BAD_QUEUE);
  pair.a.h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(ini.qpn, 0, 1)); // an initiator has no RQ
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_DB_BAD_QUEUE), before_a + 1);
  const uint64_t before_b = pair.b.counter(ORNIC_CNT_DB_BAD_QUEUE);
  pair.b.h.doorbell(0, ORNIC_DB_SQ, ORNIC_DB_VALUE(tgt.qpn, 0, 1)); // a target has no queue
  pair.b.h.doorbell(0, ORNIC_DB_RQ, ORNIC_DB_VALUE(tgt.qpn, 0, 1));
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_DB_BAD_QUEUE), before_b + 2);
  pair.pump();
  EXPECT_EQ(tgt.state(), ORNIC_QPS_RTS);
}

// A target that fails while it is receiving a multi-packet SEND flushes the WQE it took on the
// SRQ's CQ; the SRQ's other WQEs stay for other targets.
TEST_F(Xrc, ATargetInErrFlushesOnlyTheWqeItTook) {
  srq1.post(1, sge(pair.b.buffer, 4096, pair.b.key));
  srq1.post(2, sge(pair.b.buffer + 4096, 4096, pair.b.key));
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == 0 && n >= 1 ? WireAction::drop : WireAction::deliver;
  };
  ini.post_send(xrc_wqe(ORNIC_WQE_OP_SEND, 1, srq1.srqn), {sge(pair.a.buffer, 3000, pair.a.key)});
  pair.pump();
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_ERR;
  ASSERT_EQ(pair.b.h.modify_qp(tgt.qpn, attr, ORNIC_QP_ATTR_STATE).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  const auto flushed = wait(cq1, 1);
  ASSERT_EQ(flushed.size(), 1u);
  EXPECT_EQ(flushed[0].status, ORNIC_CQE_WR_FLUSH_ERR);
  EXPECT_EQ(le(flushed[0].wr_id), 1u);
  EXPECT_EQ(le(flushed[0].qpn), tgt.qpn);
  EXPECT_EQ(flushed[0].flags, ORNIC_CQE_FLAG_XRC);
  EXPECT_EQ(le(flushed[0].src_qp), srq1.srqn);
  EXPECT_FALSE(cq1.poll().has_value());
  // WQE 2 is still in srq1: a new connection into the domain receives into it.
  pair.wire.policy = nullptr;
  Qp tgt2 = create_target(pair.b, xrcd);
  Qp ini2 = create_initiator(pair.a);
  pair.connect(ini2, tgt2);
  pair.connect(tgt2, ini2);
  fill(pair.a, 0, 100, 3);
  ini2.post_send(xrc_wqe(ORNIC_WQE_OP_SEND, 7, srq1.srqn), {sge(pair.a.buffer, 100, pair.a.key)});
  const auto got = wait(cq1, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(le(got[0].wr_id), 2u);
  EXPECT_EQ(got[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 4096, 100));
}

TEST_F(Xrc, AReceiveTooSmallCompletesOnTheSrqsCq) {
  srq2.post(4, sge(pair.b.buffer, 16, pair.b.key));
  ini.post_send(xrc_wqe(ORNIC_WQE_OP_SEND, 1, srq2.srqn), {sge(pair.a.buffer, 64, pair.a.key)});
  const auto got = wait(cq2, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, ORNIC_CQE_LOC_LEN_ERR);
  EXPECT_EQ(le(got[0].wr_id), 4u);
  EXPECT_EQ(got[0].flags, ORNIC_CQE_FLAG_XRC);
  EXPECT_EQ(le(got[0].src_qp), srq2.srqn);
  const auto sent = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_REM_INV_REQ_ERR);
}

// On-demand paging (memory.rst) under XRC: a SEND into an ODP buffer of an XRC SRQ faults at
// the target (reported with the target's QPN, answered with RNR), keeps the WQE it took from
// the SRQ and completes on the SRQ's CQ once the driver has made the pages resident.
TEST_F(Xrc, AnOdpReceiveBufferFaultsAtTheTargetThenCompletes) {
  constexpr uint64_t kIova = 0x7f1200000000; // an application address: not guest memory
  const uint64_t table = pair.b.h.alloc(2 * 8, 8);
  const uint64_t backing = 65536; // page i is the B buffer at backing + i * 4096
  ornic_admin_reg_mr c{};
  c.hdr.opcode = ORNIC_ADMIN_REG_MR;
  c.mem.addr = to_le(table);
  c.mem.num_pages = to_le(2u);
  c.mem.page_shift = 12;
  c.mem.mode = ORNIC_MEM_MODE_DIRECT;
  c.iova = to_le(kIova);
  c.length = to_le(uint64_t{8192});
  c.pd = to_le(pair.b.pd);
  c.access = to_le(uint32_t{ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_ON_DEMAND});
  const auto reg = pair.b.h.execute(DriverHarness::as_sqe(c));
  ASSERT_EQ(reg.status, ORNIC_ADMIN_STATUS_SUCCESS);
  const uint32_t key = le(reg.result0);
  srq1.post(0x51, sge(kIova + 100, 6000, key));
  srq1.post(0x52, sge(pair.b.buffer, 4096, pair.b.key));
  fill(pair.a, 0, 5000, 8);
  ini.post_send(xrc_wqe(ORNIC_WQE_OP_SEND, 1, srq1.srqn), {sge(pair.a.buffer, 5000, pair.a.key)});
  pair.advance(1'000'000);

  std::vector<ornic_eqe_page_fault> faults;
  while (const auto eqe = pair.b.h.poll_async_event()) {
    if (eqe->type != ORNIC_EQE_PAGE_FAULT)
      continue;
    ornic_eqe_page_fault pf;
    std::memcpy(&pf, &*eqe, sizeof(pf));
    faults.push_back(pf);
  }
  ASSERT_FALSE(faults.empty());
  EXPECT_EQ(le(faults[0].key), key);
  EXPECT_EQ(le(faults[0].page), 0u);
  EXPECT_TRUE(faults[0].flags & ORNIC_EQE_PF_WRITE);
  EXPECT_FALSE(faults[0].flags & ORNIC_EQE_PF_REQUESTER);
  const uint32_t fault_qpn = uint32_t{faults[0].qpn[0]} | uint32_t{faults[0].qpn[1]} << 8 |
                             uint32_t{faults[0].qpn[2]} << 16;
  EXPECT_EQ(fault_qpn, tgt.qpn);
  EXPECT_GE(pair.b.counter(ORNIC_CNT_RNR_NAKS), 1u);
  EXPECT_FALSE(cq1.poll().has_value());

  // The driver makes both pages resident; the initiator's RNR retries then get through.
  for (uint64_t page = 0; page < 2; ++page)
    pair.b.h.write(table + page * 8, to_le((pair.b.buffer + backing + page * 4096) |
                                           ORNIC_ODP_PTE_VALID | ORNIC_ODP_PTE_WRITE));
  const auto got = wait(cq1, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(got[0].wr_id), 0x51u); // the WQE taken before the fault, not the next one
  EXPECT_EQ(le(got[0].byte_len), 5000u);
  EXPECT_EQ(got[0].flags, ORNIC_CQE_FLAG_XRC);
  EXPECT_EQ(le(got[0].src_qp), srq1.srqn);
  EXPECT_TRUE(same(pair.a, 0, pair.b, backing + 100, 5000));
  EXPECT_EQ(tgt.state(), ORNIC_QPS_RTS);
  const auto sent = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
}

// RESIZE_SRQ (admin.rst) of an XRC SRQ: the posted receives move to the new ring at their
// indices and the SRQ keeps its domain and its CQ.
TEST_F(Xrc, AResizedXrcSrqKeepsItsDomainItsCqAndItsReceives) {
  srq1.post(0x61, sge(pair.b.buffer, 4096, pair.b.key));
  srq1.post(0x62, sge(pair.b.buffer + 4096, 4096, pair.b.key));
  ornic_admin_resize_srq c{};
  c.hdr.opcode = ORNIC_ADMIN_RESIZE_SRQ;
  c.mem = pair.b.h.contiguous_ring(128 * 64);
  c.srqn = to_le(srq1.srqn);
  c.log_depth = 7;
  const auto resized = pair.b.h.execute(DriverHarness::as_sqe(c));
  ASSERT_EQ(resized.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(le(resized.result0), 2u); // blocks moved
  srq1.ring = le(c.mem.addr);         // block 2 is slot 2 of the 128-block ring as well
  srq1.post(0x63, sge(pair.b.buffer + 8192, 4096, pair.b.key));
  for (uint64_t i = 0; i < 3; ++i) {
    fill(pair.a, i * 4096, 100 + i, static_cast<uint8_t>(20 + i));
    ini.post_send(xrc_wqe(ORNIC_WQE_OP_SEND, i, srq1.srqn),
                  {sge(pair.a.buffer + i * 4096, static_cast<uint32_t>(100 + i), pair.a.key)});
  }
  const auto got = wait(cq1, 3);
  ASSERT_EQ(got.size(), 3u);
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(got[i].status, ORNIC_CQE_SUCCESS) << i;
    EXPECT_EQ(le(got[i].wr_id), 0x61u + i);
    EXPECT_EQ(le(got[i].byte_len), 100u + i);
    EXPECT_EQ(got[i].flags, ORNIC_CQE_FLAG_XRC);
    EXPECT_EQ(le(got[i].src_qp), srq1.srqn);
    EXPECT_TRUE(same(pair.a, i * 4096, pair.b, i * 4096, 100 + i)) << i;
  }
  EXPECT_FALSE(pair.b.poll().has_value());
  EXPECT_FALSE(cq2.poll().has_value());
}

// Memory windows bound through an initiator (xrc.rst "Memory windows"): B's own initiator
// binds a type-2 window on B's memory; A reaches it through B's target under an SRQ of the
// window's PD, an RC QP of B does not, and once invalidated the key is a remote access error
// that fails only the target it arrived on.
class XrcWindow : public Xrc {
protected:
  void SetUp() override {
    Xrc::SetUp();
    const uint32_t xrcd_a = new_xrcd(pair.a);
    tgt_a = create_target(pair.a, xrcd_a);
    ini_b = create_initiator(pair.b);
    pair.connect(ini_b, tgt_a);
    pair.connect(tgt_a, ini_b);
    mr_key =
        pair.b.reg_mr(pair.b.buffer + kMr, 16384, ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_MW_BIND);
    ornic_admin_alloc_mw c{};
    c.hdr.opcode = ORNIC_ADMIN_ALLOC_MW;
    c.pd = to_le(pair.b.pd);
    c.type = ORNIC_MW_TYPE_2;
    const auto cqe = pair.b.h.execute(DriverHarness::as_sqe(c));
    ASSERT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
    mw_key = le(cqe.result0);
  }

  // BIND_MW of the window (with the next variant) on `qp` of B: its CQE.
  ornic_cqe bind(Qp& qp, uint32_t xrc_srqn = 0) {
    mw_key = (mw_key & ~ORNIC_MR_KEY_VARIANT_MASK) | ((mw_key + 1) & ORNIC_MR_KEY_VARIANT_MASK);
    auto w = xrc_wqe(ORNIC_WQE_OP_BIND_MW, 80, xrc_srqn);
    w.bind_mw.mw_key = to_le(mw_key);
    w.bind_mw.mr_key = to_le(mr_key);
    w.bind_mw.addr = to_le(pair.b.buffer + kWin);
    w.bind_mw.length = to_le(uint64_t{4096});
    w.bind_mw.access = to_le(uint32_t{ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ});
    qp.post_send(w, {});
    const auto done = pair.wait_cqes(pair.b, 1);
    EXPECT_EQ(done.size(), 1u);
    return done.empty() ? ornic_cqe{} : done[0];
  }

  // An RDMA WRITE of 256 bytes from A's initiator at the window, to B's target under `srqn`.
  ornic_cqe write(uint32_t srqn, uint8_t seed) {
    fill(pair.a, 0, 256, seed);
    auto w = xrc_wqe(ORNIC_WQE_OP_RDMA_WRITE, seed, srqn);
    w.rdma.remote_addr = to_le(pair.b.buffer + kWin + 512);
    w.rdma.rkey = to_le(mw_key);
    ini.post_send(w, {sge(pair.a.buffer, 256, pair.a.key)});
    const auto done = pair.wait_cqes(pair.a, 1);
    EXPECT_EQ(done.size(), 1u);
    return done.empty() ? ornic_cqe{} : done[0];
  }

  static constexpr uint64_t kMr = 262144;
  static constexpr uint64_t kWin = kMr + 4096;
  Qp tgt_a, ini_b;
  uint32_t mr_key = 0, mw_key = 0;
};

TEST_F(XrcWindow, WriteAndReadThroughTheTargetThenLocalInvalidate) {
  const auto bound = bind(ini_b);
  EXPECT_EQ(bound.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(bound.opcode, ORNIC_CQE_OP_BIND_MW);
  ASSERT_EQ(write(srq1.srqn, 3).status, ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(same(pair.a, 0, pair.b, kWin + 512, 256));
  auto read = xrc_wqe(ORNIC_WQE_OP_RDMA_READ, 4, srq2.srqn);
  read.rdma.remote_addr = to_le(pair.b.buffer + kWin + 512);
  read.rdma.rkey = to_le(mw_key);
  ini.post_send(read, {sge(pair.a.buffer + 8192, 256, pair.a.key)});
  const auto got = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(same(pair.a, 8192, pair.b, kWin + 512, 256));

  // An RC connection into B does not reach a window bound through an initiator.
  Qp rc_a = pair.create_qp(pair.a), rc_b = pair.create_qp(pair.b);
  pair.connect(rc_a, rc_b);
  pair.connect(rc_b, rc_a);
  auto rc_write = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 5);
  rc_write.rdma.remote_addr = to_le(pair.b.buffer + kWin);
  rc_write.rdma.rkey = to_le(mw_key);
  rc_a.post_send(rc_write, {sge(pair.a.buffer, 64, pair.a.key)});
  const auto rc_done = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(rc_done.size(), 1u);
  EXPECT_EQ(rc_done[0].status, ORNIC_CQE_REM_ACCESS_ERR);
  EXPECT_EQ(tgt.state(), ORNIC_QPS_RTS);

  auto inv = xrc_wqe(ORNIC_WQE_OP_LOCAL_INV, 60, 0);
  inv.invalidate_rkey = to_le(mw_key);
  ini_b.post_send(inv, {});
  const auto invalidated = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(invalidated.size(), 1u);
  EXPECT_EQ(invalidated[0].status, ORNIC_CQE_SUCCESS);
  std::memset(pair.b.at(kWin), 0x11, 4096);
  EXPECT_EQ(write(srq1.srqn, 6).status, ORNIC_CQE_REM_ACCESS_ERR);
  EXPECT_EQ(*pair.b.at(kWin + 512), std::byte{0x11});
  EXPECT_EQ(tgt.state(), ORNIC_QPS_ERR);
  EXPECT_EQ(ini_b.state(), ORNIC_QPS_RTS);
  EXPECT_EQ(tgt_a.state(), ORNIC_QPS_RTS);
}

TEST_F(XrcWindow, SendWithInvalidateThroughTheTargetEndsIt) {
  ASSERT_EQ(bind(ini_b).status, ORNIC_CQE_SUCCESS);
  srq1.post(0x90, sge(pair.b.buffer, 256, pair.b.key));
  auto w = xrc_wqe(ORNIC_WQE_OP_SEND_INV, 7, srq1.srqn);
  w.invalidate_rkey = to_le(mw_key);
  ini.post_send(w, {sge(pair.a.buffer, 64, pair.a.key)});
  const auto got = wait(cq1, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(got[0].flags, ORNIC_CQE_FLAG_XRC | ORNIC_CQE_FLAG_INV);
  const auto sent = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(write(srq1.srqn, 8).status, ORNIC_CQE_REM_ACCESS_ERR);
}

// The SRQ a request names sets the PD: one of another PD does not reach the window.
TEST_F(XrcWindow, AnSrqOfAnotherPdDoesNotReachIt) {
  ASSERT_EQ(bind(ini_b).status, ORNIC_CQE_SUCCESS);
  const uint32_t other_pd = pair.b.h.alloc_pd();
  Cq cq3 = create_cq(pair.b);
  XrcSrq other = create_xrc_srq(pair.b, xrcd, cq3.cqn, other_pd);
  EXPECT_EQ(write(other.srqn, 9).status, ORNIC_CQE_REM_ACCESS_ERR);
}

// A type-2 window bound through an RC QP stays that QP's: a target does not reach it.
TEST_F(XrcWindow, ATargetDoesNotReachAWindowBoundThroughAnRcQp) {
  Qp rc_a = pair.create_qp(pair.a), rc_b = pair.create_qp(pair.b);
  pair.connect(rc_a, rc_b);
  pair.connect(rc_b, rc_a);
  ASSERT_EQ(bind(rc_b).status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(write(srq1.srqn, 10).status, ORNIC_CQE_REM_ACCESS_ERR);
}

TEST_F(XrcWindow, ALocalOperationNamesNoSrq) {
  const auto cqe = bind(ini_b, srq1.srqn);
  EXPECT_EQ(cqe.status, ORNIC_CQE_LOC_QP_OP_ERR);
  EXPECT_EQ(cqe.vendor_err, ORNIC_VERR_RESERVED_NONZERO);
}

} // namespace
} // namespace ornic::test
