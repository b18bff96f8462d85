// Changing objects after creation (ORNIC_CAP_RESIZE): RESIZE_CQ with completions pending,
// RESIZE_SRQ with receives posted and traffic flowing, REREG_MR of access, translation and
// PD between RDMA WRITEs; every error leaves the object as it was (admin.rst, memory.rst).
#include <gtest/gtest.h>

#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

void fill(Node& node, uint64_t offset, size_t length, uint8_t seed) {
  for (size_t i = 0; i < length; ++i)
    *node.at(offset + i) = std::byte{static_cast<uint8_t>(seed + i * 13)};
}

bool same(Node& x, uint64_t xo, Node& y, uint64_t yo, size_t length) {
  return std::memcmp(x.at(xo), y.at(yo), length) == 0;
}

bool all_zero_at(Node& node, uint64_t offset, size_t length) {
  for (size_t i = 0; i < length; ++i)
    if (*node.at(offset + i) != std::byte{0})
      return false;
  return true;
}

ornic_admin_resize_cq resize_cq_command(uint32_t cqn, ornic_mem_desc mem, unsigned log_depth,
                                        uint32_t consumer) {
  ornic_admin_resize_cq c{};
  c.hdr.opcode = ORNIC_ADMIN_RESIZE_CQ;
  c.mem = mem;
  c.cqn = to_le(cqn);
  c.consumer = to_le(consumer);
  c.log_depth = static_cast<uint8_t>(log_depth);
  return c;
}

// RDMA WRITEs of 64 bytes from a's buffer to b's, each signaled with its own wr_id.
void post_writes(RdmaPair& pair, Qp& qa, uint64_t first_wr_id, int count) {
  for (int i = 0; i < count; ++i) {
    auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, first_wr_id + i);
    w.rdma.remote_addr = to_le(pair.b.buffer + 4096 + 64 * i);
    w.rdma.rkey = to_le(pair.b.key);
    qa.post_send(w, {sge(pair.a.buffer + 64 * i, 64, pair.a.key)});
  }
  pair.pump();
}

class ResizeCq : public ::testing::Test {
protected:
  ResizeCq() {
    auto qps = pair.rc_pair();
    qa = qps.first;
    qb = qps.second;
  }

  // Resizes a's CQ to a new zeroed ring of 2^log_depth CQEs from software's cq_head; on
  // success a's poller moves to the new ring with consumer index 0.
  ornic_admin_cqe resize(unsigned log_depth) {
    const ornic_mem_desc mem = pair.a.h.contiguous_ring(size_t{ORNIC_CQE_SIZE} << log_depth);
    const auto done = pair.a.h.execute(
        DriverHarness::as_sqe(resize_cq_command(pair.a.cqn, mem, log_depth, pair.a.cq_head)));
    if (done.status == ORNIC_ADMIN_STATUS_SUCCESS) {
      old_ring = pair.a.cq_ring;
      pair.a.cq_ring = le(mem.addr);
      pair.a.cq_depth = 1u << log_depth;
      pair.a.cq_head = 0;
    }
    return done;
  }

  // Polls `count` CQEs and checks they are the successful WRITEs first_wr_id, ... in order.
  void expect_writes(uint64_t first_wr_id, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      const auto cqe = pair.a.poll();
      ASSERT_TRUE(cqe.has_value()) << "CQE " << i << " missing";
      EXPECT_EQ(le(cqe->wr_id), first_wr_id + i);
      EXPECT_EQ(cqe->status, ORNIC_CQE_SUCCESS);
      EXPECT_EQ(cqe->opcode, ORNIC_CQE_OP_RDMA_WRITE);
      EXPECT_EQ(le(cqe->qpn), qa.qpn);
    }
    EXPECT_FALSE(pair.a.poll().has_value());
  }

  RdmaPair pair;
  Qp qa, qb;
  uint64_t old_ring = 0;
};

TEST_F(ResizeCq, GrowMovesUnpolledCqesInOrderAndContinues) {
  fill(pair.a, 0, 4096, 1);
  post_writes(pair, qa, 100, 10);
  // Software polls 3 of the 10, then grows the CQ from 256 to 1024 entries.
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(pair.a.poll().has_value());
  const uint32_t old_head = pair.a.cq_head;
  const auto done = resize(10);
  ASSERT_EQ(done.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(le(done.result0), 7u);
  // The moved CQEs carry phase 1 in slots 0..6; slot 7 is still software's zero.
  EXPECT_EQ(pair.a.h.read<ornic_cqe>(pair.a.cq_ring + 7 * ORNIC_CQE_SIZE).owner, 0);
  expect_writes(103, 7);
  // New completions land in the new ring after the moved ones; the old ring is left alone.
  const auto old_next = pair.a.h.read<ornic_cqe>(old_ring + uint64_t{old_head + 7} * 32);
  post_writes(pair, qa, 200, 2);
  expect_writes(200, 2);
  const auto old_after = pair.a.h.read<ornic_cqe>(old_ring + uint64_t{old_head + 7} * 32);
  EXPECT_EQ(std::memcmp(&old_next, &old_after, sizeof(old_next)), 0);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 4096, 128));
}

TEST_F(ResizeCq, NewRingFromADirectPageList) {
  post_writes(pair, qa, 1, 5);
  // Two pages listed in reverse order: slots 0..127 live in the second page allocated.
  DriverHarness& h = pair.a.h;
  const uint64_t pages = h.alloc(2 * 4096);
  const uint64_t list = h.alloc(4096);
  h.write<uint64_t>(list, to_le(pages + 4096));
  h.write<uint64_t>(list + 8, to_le(pages));
  ornic_mem_desc mem{};
  mem.addr = to_le(list);
  mem.num_pages = to_le(2u);
  mem.page_shift = 12;
  mem.mode = ORNIC_MEM_MODE_DIRECT;
  const auto done =
      h.execute(DriverHarness::as_sqe(resize_cq_command(pair.a.cqn, mem, 8, pair.a.cq_head)));
  ASSERT_EQ(done.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(le(done.result0), 5u);
  for (uint32_t i = 0; i < 5; ++i) {
    const auto cqe = h.read<ornic_cqe>(pages + 4096 + uint64_t{i} * ORNIC_CQE_SIZE);
    EXPECT_EQ(le(cqe.wr_id), 1u + i);
    EXPECT_EQ(cqe.owner & ORNIC_CQE_OWNER_PHASE, ORNIC_CQE_OWNER_PHASE);
  }
  EXPECT_EQ(h.read<ornic_cqe>(pages + 4096 + 5 * ORNIC_CQE_SIZE).owner, 0);
}

TEST_F(ResizeCq, ShrinkBelowUnpolledFailsAndLeavesTheCqIntact) {
  post_writes(pair, qa, 1, 6);
  // 6 unpolled CQEs do not fit 4 entries: BAD_FIELD, and the CQ keeps all six.
  const auto refused = resize(2);
  EXPECT_EQ(refused.status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  expect_writes(1, 6);
  // With all polled the CQ shrinks to 4 and keeps working across several wraps.
  const auto done = resize(2);
  ASSERT_EQ(done.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(le(done.result0), 0u);
  for (int round = 0; round < 5; ++round) {
    post_writes(pair, qa, 10 + 3 * round, 3);
    expect_writes(10 + 3 * round, 3);
  }
}

TEST_F(ResizeCq, ShrinkWithPendingThatFitAndWrapInTheNewRing) {
  post_writes(pair, qa, 1, 3);
  ASSERT_TRUE(pair.a.poll().has_value());
  const auto done = resize(2); // 2 pending of 4
  ASSERT_EQ(done.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(le(done.result0), 2u);
  post_writes(pair, qa, 4, 2); // fills the ring: indices 2, 3
  expect_writes(2, 4);
  post_writes(pair, qa, 6, 3); // second pass: phase 0
  expect_writes(6, 3);
}

TEST_F(ResizeCq, ArmingSurvives) {
  // Arm for the next CQE, resize, then complete: the COMPLETION EQE still comes.
  pair.a.h.doorbell(0, ORNIC_DB_CQ, ORNIC_DB_VALUE(pair.a.cqn, ORNIC_DB_FLAG_ARM_NEXT, 0));
  const uint64_t eqes = pair.a.counter(ORNIC_CNT_EQES);
  ASSERT_EQ(resize(4).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_EQES), eqes);
  post_writes(pair, qa, 1, 1);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_EQES), eqes + 1);
  expect_writes(1, 1);
}

TEST_F(ResizeCq, BadCommandsChangeNothing) {
  post_writes(pair, qa, 1, 2);
  DriverHarness& h = pair.a.h;
  const ornic_mem_desc mem = h.contiguous_ring(size_t{ORNIC_CQE_SIZE} << 4);
  auto run = [&](ornic_admin_resize_cq c) { return h.execute(DriverHarness::as_sqe(c)).status; };
  EXPECT_EQ(run(resize_cq_command(pair.a.cqn + 100, mem, 4, 0)), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  EXPECT_EQ(run(resize_cq_command(pair.a.cqn, mem, 0, 0)), ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(run(resize_cq_command(pair.a.cqn, mem, 17, 0)), ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
  // A ring smaller than 2^log_depth CQEs.
  EXPECT_EQ(run(resize_cq_command(pair.a.cqn, mem, 8, 0)), ORNIC_ADMIN_STATUS_BAD_FIELD);
  // A consumer index past what the device produced, or behind what it was told.
  EXPECT_EQ(run(resize_cq_command(pair.a.cqn, mem, 4, 3)), ORNIC_ADMIN_STATUS_BAD_FIELD);
  auto reserved = resize_cq_command(pair.a.cqn, mem, 4, 0);
  reserved.reserved0[1] = 1;
  EXPECT_EQ(run(reserved), ORNIC_ADMIN_STATUS_BAD_FIELD);
  reserved = resize_cq_command(pair.a.cqn, mem, 4, 0);
  reserved.reserved1[6] = 1;
  EXPECT_EQ(run(reserved), ORNIC_ADMIN_STATUS_BAD_FIELD);
  // A new ring the device cannot write: BAD_DMA, nothing moved.
  ornic_mem_desc unmapped = mem;
  unmapped.addr = to_le(uint64_t{0x7000000000});
  EXPECT_EQ(run(resize_cq_command(pair.a.cqn, unmapped, 4, 0)), ORNIC_ADMIN_STATUS_BAD_DMA);
  // A page list that cannot be read.
  ornic_mem_desc bad_list{};
  bad_list.addr = to_le(uint64_t{0x7000000000});
  bad_list.num_pages = to_le(1u);
  bad_list.page_shift = 12;
  bad_list.mode = ORNIC_MEM_MODE_DIRECT;
  EXPECT_EQ(run(resize_cq_command(pair.a.cqn, bad_list, 4, 0)), ORNIC_ADMIN_STATUS_BAD_DMA);
  // The CQ is untouched: both CQEs still in the old ring, and new ones follow.
  expect_writes(1, 2);
  post_writes(pair, qa, 3, 1);
  expect_writes(3, 1);
}

TEST_F(ResizeCq, CqInErrorCannotBeResized) {
  // A 2-entry CQ of its own overflows on the third CQE.
  DriverHarness& h = pair.a.h;
  const uint32_t small = h.create_cq(pair.a.eqn, 1);
  Qp q;
  q.node = &pair.a;
  q.qpn = h.create_qp(pair.a.pd, small, ORNIC_QPT_RC, 0, &q.sq, &q.rq);
  Qp peer = pair.create_qp(pair.b);
  pair.connect(q, peer);
  pair.connect(peer, q);
  post_writes(pair, q, 1, 3);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_CQ_OVERFLOW), 1u);
  const ornic_mem_desc mem = h.contiguous_ring(size_t{ORNIC_CQE_SIZE} << 4);
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(resize_cq_command(small, mem, 4, 0))).status,
            ORNIC_ADMIN_STATUS_BAD_STATE);
}

// --- SRQ -----------------------------------------------------------------------------------

struct Srq {
  uint32_t srqn = 0;
  uint64_t ring = 0;
  uint32_t depth = 64;
  uint32_t producer = 0;
};

ornic_admin_resize_srq resize_srq_command(uint32_t srqn, ornic_mem_desc mem, unsigned log_depth) {
  ornic_admin_resize_srq c{};
  c.hdr.opcode = ORNIC_ADMIN_RESIZE_SRQ;
  c.mem = mem;
  c.srqn = to_le(srqn);
  c.log_depth = static_cast<uint8_t>(log_depth);
  return c;
}

class ResizeSrq : public ::testing::Test {
protected:
  ResizeSrq() {
    ornic_admin_create_srq c{};
    c.hdr.opcode = ORNIC_ADMIN_CREATE_SRQ;
    c.mem = pair.b.h.contiguous_ring(64 * 64);
    srq.ring = le(c.mem.addr);
    c.pd = to_le(pair.b.pd);
    c.log_depth = 6;
    c.limit = to_le(2u);
    const auto done = pair.b.h.execute(DriverHarness::as_sqe(c));
    EXPECT_EQ(done.status, ORNIC_ADMIN_STATUS_SUCCESS);
    srq.srqn = le(done.result0);

    ornic_admin_create_qp q{};
    q.hdr.opcode = ORNIC_ADMIN_CREATE_QP;
    q.sq_mem = pair.b.h.contiguous_ring(64 * 64);
    q.pd = to_le(pair.b.pd);
    q.send_cqn = q.recv_cqn = to_le(pair.b.cqn);
    q.srqn = to_le(srq.srqn);
    q.qp_type = ORNIC_QPT_RC;
    q.flags = ORNIC_QP_FLAG_USE_SRQ;
    q.sq_log_depth = 6;
    const auto created = pair.b.h.execute(DriverHarness::as_sqe(q));
    EXPECT_EQ(created.status, ORNIC_ADMIN_STATUS_SUCCESS);
    qb.node = &pair.b;
    qb.qpn = le(created.result0);
    qb.sq = le(q.sq_mem.addr);
    qa = pair.create_qp(pair.a);
    pair.connect(qa, qb);
    pair.connect(qb, qa);
  }

  // Receive wr_id lands at b's buffer + 1024 * wr_id (1 KiB each).
  void post_recv(uint64_t wr_id, bool ring = true) {
    ornic_recv_wqe w{};
    w.wr_id = to_le(wr_id);
    w.num_blocks = 1;
    w.num_sge = 1;
    w.sge[0] = sge(pair.b.buffer + 1024 * wr_id, 1024, pair.b.key);
    pair.b.h.write(srq.ring + uint64_t{srq.producer % srq.depth} * 64, w);
    ++srq.producer;
    if (ring)
      pair.b.h.doorbell(0, ORNIC_DB_SRQ, ORNIC_DB_VALUE(srq.srqn, 0, srq.producer));
  }

  // SENDs of 1000 bytes from a's buffer at 2048 * n.
  void send(uint64_t n) {
    fill(pair.a, 2048 * n, 1000, static_cast<uint8_t>(n));
    qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, n), {sge(pair.a.buffer + 2048 * n, 1000, pair.a.key)});
  }

  // The next receive CQE on b is wr_id `n` at SRQ index `index`, data intact; a's send
  // completion is consumed too.
  void expect_recv(uint64_t n, uint32_t index) {
    const auto sent = pair.wait_cqes(pair.a, 1);
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
    const auto got = pair.wait_cqes(pair.b, 1);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(got[0].opcode, ORNIC_CQE_OP_RECV);
    EXPECT_EQ(le(got[0].wr_id), n);
    EXPECT_EQ(le(got[0].wqe_index), static_cast<uint16_t>(index));
    EXPECT_EQ(le(got[0].byte_len), 1000u);
    EXPECT_TRUE(same(pair.a, 2048 * n, pair.b, 1024 * n, 1000));
  }

  ornic_admin_cqe resize(unsigned log_depth, bool copy_in_software = false) {
    const ornic_mem_desc mem = pair.b.h.contiguous_ring(size_t{64} << log_depth);
    if (copy_in_software)
      for (uint32_t i = 0; i < srq.depth; ++i)
        pair.b.h.write(le(mem.addr) + uint64_t{i % (1u << log_depth)} * 64,
                       pair.b.h.read<ornic_recv_wqe>(srq.ring + uint64_t{i} * 64));
    const auto done =
        pair.b.h.execute(DriverHarness::as_sqe(resize_srq_command(srq.srqn, mem, log_depth)));
    if (done.status == ORNIC_ADMIN_STATUS_SUCCESS) {
      srq.ring = le(mem.addr);
      srq.depth = 1u << log_depth;
    }
    return done;
  }

  RdmaPair pair;
  Srq srq;
  Qp qa, qb;
};

TEST_F(ResizeSrq, GrowMovesPostedWqesKeepingTheirIndices) {
  for (uint64_t n = 0; n < 5; ++n)
    post_recv(n);
  send(0);
  expect_recv(0, 0);
  send(1);
  expect_recv(1, 1);
  // Three posted and not taken (indices 2..4) move to the same indices of a 256-block ring.
  const auto done = resize(8);
  ASSERT_EQ(done.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(le(done.result0), 3u);
  for (uint64_t n = 5; n < 70; ++n) // more than the old ring could hold
    post_recv(n);
  for (uint64_t n = 2; n < 70; ++n) {
    send(n);
    expect_recv(n, static_cast<uint32_t>(n));
  }
}

TEST_F(ResizeSrq, ShrinkWhenThePostedWqesFit) {
  for (uint64_t n = 0; n < 3; ++n)
    post_recv(n);
  // Three posted blocks do not fit 2.
  EXPECT_EQ(resize(1).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  // The limit (2) must stay below the depth: 4 blocks is the smallest.
  const auto done = resize(2);
  ASSERT_EQ(done.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(le(done.result0), 3u);
  send(0);
  expect_recv(0, 0);
  // The limit survived the move: 2 left < limit 2 is false, 1 left fires.
  post_recv(3);
  send(1);
  expect_recv(1, 1);
  send(2);
  expect_recv(2, 2);
  bool limit_event = false;
  while (auto eqe = pair.b.h.poll_async_event())
    limit_event |= eqe->type == ORNIC_EQE_SRQ_LIMIT && le(eqe->object) == srq.srqn;
  EXPECT_TRUE(limit_event);
  for (uint64_t n = 4; n < 12; ++n) { // wraps the 4-block ring twice
    post_recv(n);
    send(n - 1);
    expect_recv(n - 1, static_cast<uint32_t>(n - 1));
  }
}

TEST_F(ResizeSrq, WqesPostedBeforeButRungAfterAreReadFromTheNewRing) {
  post_recv(0);
  post_recv(1, false); // written to the old ring, doorbell not rung yet
  ASSERT_EQ(resize(7, true).status, ORNIC_ADMIN_STATUS_SUCCESS);
  pair.b.h.doorbell(0, ORNIC_DB_SRQ, ORNIC_DB_VALUE(srq.srqn, 0, srq.producer));
  send(0);
  expect_recv(0, 0);
  send(1);
  expect_recv(1, 1);
}

TEST_F(ResizeSrq, BadCommandsChangeNothing) {
  post_recv(0);
  DriverHarness& h = pair.b.h;
  const ornic_mem_desc mem = h.contiguous_ring(64 << 4);
  auto run = [&](ornic_admin_resize_srq c) { return h.execute(DriverHarness::as_sqe(c)).status; };
  EXPECT_EQ(run(resize_srq_command(srq.srqn + 9, mem, 4)), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  EXPECT_EQ(run(resize_srq_command(srq.srqn, mem, 0)), ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(run(resize_srq_command(srq.srqn, mem, 15)), ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
  EXPECT_EQ(run(resize_srq_command(srq.srqn, mem, 7)), ORNIC_ADMIN_STATUS_BAD_FIELD); // too small
  auto reserved = resize_srq_command(srq.srqn, mem, 4);
  reserved.reserved1[7] = 1;
  EXPECT_EQ(run(reserved), ORNIC_ADMIN_STATUS_BAD_FIELD);
  ornic_mem_desc unmapped = mem;
  unmapped.addr = to_le(uint64_t{0x7000000000});
  EXPECT_EQ(run(resize_srq_command(srq.srqn, unmapped, 4)), ORNIC_ADMIN_STATUS_BAD_DMA);
  // Still the old ring: the posted receive and a new one work.
  post_recv(1);
  send(0);
  expect_recv(0, 0);
  send(1);
  expect_recv(1, 1);
}

// --- REREG_MR ------------------------------------------------------------------------------

ornic_admin_rereg_mr rereg_command(uint32_t key, uint8_t flags) {
  ornic_admin_rereg_mr c{};
  c.hdr.opcode = ORNIC_ADMIN_REREG_MR;
  c.key = to_le(key);
  c.flags = flags;
  return c;
}

class ReregMr : public ::testing::Test {
protected:
  static constexpr uint64_t kIova = 0x7f0000000000ull;
  static constexpr uint64_t kRegionA = 256 << 10; // offsets in b's buffer
  static constexpr uint64_t kRegionB = 512 << 10;

  ReregMr() {
    auto qps = pair.rc_pair();
    qa = qps.first;
    qb = qps.second;
    key = reg(kRegionA, ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_REMOTE_WRITE);
  }

  // An MR of 8 KiB of b's buffer at `offset`, seen at kIova.
  uint32_t reg(uint64_t offset, uint32_t access) {
    ornic_admin_reg_mr c{};
    c.hdr.opcode = ORNIC_ADMIN_REG_MR;
    c.mem.addr = to_le(pair.b.buffer + offset);
    c.mem.num_pages = to_le(2u);
    c.mem.page_shift = 12;
    c.iova = to_le(kIova);
    c.length = to_le(uint64_t{8192});
    c.pd = to_le(pair.b.pd);
    c.access = to_le(access);
    c.key_variant = 0x33;
    const auto done = pair.b.h.execute(DriverHarness::as_sqe(c));
    EXPECT_EQ(done.status, ORNIC_ADMIN_STATUS_SUCCESS);
    return le(done.result0);
  }

  ornic_admin_cqe rereg(const ornic_admin_rereg_mr& c) {
    return pair.b.h.execute(DriverHarness::as_sqe(c));
  }

  ornic_admin_rereg_mr translation(uint64_t offset) {
    auto c = rereg_command(key, ORNIC_REREG_MR_TRANSLATION);
    c.mem.addr = to_le(pair.b.buffer + offset);
    c.mem.num_pages = to_le(2u);
    c.mem.page_shift = 12;
    c.iova = to_le(kIova);
    c.length = to_le(uint64_t{8192});
    return c;
  }

  // An RDMA WRITE of 256 bytes (pattern `seed`) to kIova + 512; its completion status.
  uint8_t write(Qp& q, uint8_t seed) {
    fill(pair.a, 0, 256, seed);
    auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, seed);
    w.rdma.remote_addr = to_le(kIova + 512);
    w.rdma.rkey = to_le(key);
    q.post_send(w, {sge(pair.a.buffer, 256, pair.a.key)});
    const auto done = pair.wait_cqes(pair.a, 1);
    EXPECT_EQ(done.size(), 1u);
    return done.empty() ? 0xff : done[0].status;
  }

  // A fresh connected pair for after a failure moved qa to ERR.
  Qp fresh() {
    auto qps = pair.rc_pair();
    return qps.first;
  }

  RdmaPair pair;
  Qp qa, qb;
  uint32_t key = 0;
};

TEST_F(ReregMr, AccessChangeTakesRightsAwayAndBackKeepingTheKey) {
  ASSERT_EQ(write(qa, 1), ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(same(pair.a, 0, pair.b, kRegionA + 512, 256));
  auto c = rereg_command(key, ORNIC_REREG_MR_ACCESS);
  c.access = to_le(ORNIC_ACCESS_LOCAL_WRITE);
  const auto done = rereg(c);
  ASSERT_EQ(done.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(le(done.result0), key);
  EXPECT_EQ(write(qa, 2), ORNIC_CQE_REM_ACCESS_ERR);
  // Memory still holds the first write's data.
  fill(pair.a, 0, 256, 1);
  EXPECT_TRUE(same(pair.a, 0, pair.b, kRegionA + 512, 256));
  c.access = to_le(ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_REMOTE_WRITE);
  ASSERT_EQ(rereg(c).status, ORNIC_ADMIN_STATUS_SUCCESS);
  Qp q = fresh();
  ASSERT_EQ(write(q, 3), ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(same(pair.a, 0, pair.b, kRegionA + 512, 256));
}

TEST_F(ReregMr, TranslationChangeMovesTheRegion) {
  ASSERT_EQ(write(qa, 1), ORNIC_CQE_SUCCESS);
  ASSERT_EQ(rereg(translation(kRegionB)).status, ORNIC_ADMIN_STATUS_SUCCESS);
  ASSERT_EQ(write(qa, 2), ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(same(pair.a, 0, pair.b, kRegionB + 512, 256));
  // The old pages kept the first write and nothing else.
  fill(pair.a, 0, 256, 1);
  EXPECT_TRUE(same(pair.a, 0, pair.b, kRegionA + 512, 256));
  // A shorter region at another IOVA: the old address is out of bounds now.
  auto c = translation(kRegionB);
  c.iova = to_le(kIova + 0x100000);
  c.length = to_le(uint64_t{100});
  c.mem.num_pages = to_le(1u);
  ASSERT_EQ(rereg(c).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(write(qa, 3), ORNIC_CQE_REM_ACCESS_ERR);
}

TEST_F(ReregMr, PdChangeAndAllAtOnce) {
  const uint32_t other_pd = pair.b.h.alloc_pd();
  auto c = rereg_command(key, ORNIC_REREG_MR_PD);
  c.pd = to_le(other_pd);
  ASSERT_EQ(rereg(c).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(write(qa, 1), ORNIC_CQE_REM_ACCESS_ERR);
  EXPECT_TRUE(all_zero_at(pair.b, kRegionA, 8192));
  // The PD now has an MR: it cannot be deallocated.
  EXPECT_EQ(pair.b.h.execute(DriverHarness::simple(ORNIC_ADMIN_DEALLOC_PD, other_pd)).status,
            ORNIC_ADMIN_STATUS_BUSY);
  // Everything at once: back to b's PD, other pages, remote write and read.
  auto all = translation(kRegionB);
  all.flags = ORNIC_REREG_MR_ALL;
  all.pd = to_le(pair.b.pd);
  all.access =
      to_le(ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ);
  ASSERT_EQ(rereg(all).status, ORNIC_ADMIN_STATUS_SUCCESS);
  Qp q = fresh();
  ASSERT_EQ(write(q, 2), ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(same(pair.a, 0, pair.b, kRegionB + 512, 256));
  EXPECT_TRUE(all_zero_at(pair.b, kRegionA, 8192));
  EXPECT_EQ(pair.b.h.execute(DriverHarness::simple(ORNIC_ADMIN_DEALLOC_PD, other_pd)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
}

TEST_F(ReregMr, BadCommandsLeaveTheMrWorking) {
  auto status = [&](const ornic_admin_rereg_mr& c) { return rereg(c).status; };
  EXPECT_EQ(status(rereg_command(key, 0)), ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(status(rereg_command(key, 0x08)), ORNIC_ADMIN_STATUS_BAD_FIELD);
  // Fields of parts not being changed must be zero.
  auto c = rereg_command(key, ORNIC_REREG_MR_ACCESS);
  c.access = to_le(ORNIC_ACCESS_LOCAL_WRITE);
  c.pd = to_le(pair.b.pd);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = rereg_command(key, ORNIC_REREG_MR_PD);
  c.pd = to_le(pair.b.pd);
  c.iova = to_le(kIova);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = rereg_command(key, ORNIC_REREG_MR_PD);
  c.pd = to_le(pair.b.pd);
  c.reserved0[0] = 1;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  // Keys: no such index, wrong variant.
  c = rereg_command(ORNIC_MR_KEY(4000, 0x33), ORNIC_REREG_MR_PD);
  c.pd = to_le(pair.b.pd);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  c.key = to_le(key ^ 1);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  // No such PD.
  c.key = to_le(key);
  c.pd = to_le(999u);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  // Remote write without local write.
  c = rereg_command(key, ORNIC_REREG_MR_ACCESS);
  c.access = to_le(ORNIC_ACCESS_REMOTE_WRITE);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c.access = to_le(0x100u);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  // Translation: page count that does not match, zero length, bad page size, too big, a
  // page list that cannot be read.
  c = translation(kRegionB);
  c.mem.num_pages = to_le(3u);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = translation(kRegionB);
  c.length = 0;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = translation(kRegionB);
  c.mem.page_shift = 11;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = translation(kRegionB);
  c.length = to_le(limits::kMaxMrSize + 1);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
  c = translation(kRegionB);
  c.iova = to_le(~uint64_t{0} - 100);
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = translation(kRegionB);
  c.mem.addr = to_le(uint64_t{0x7000000000});
  c.mem.mode = ORNIC_MEM_MODE_DIRECT;
  EXPECT_EQ(status(c), ORNIC_ADMIN_STATUS_BAD_DMA);
  // After all of that the MR is as it was.
  ASSERT_EQ(write(qa, 5), ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(same(pair.a, 0, pair.b, kRegionA + 512, 256));
}

TEST_F(ReregMr, PhysicalAndFastRegMrsCannotBeReregistered) {
  ornic_admin_reg_mr physical{};
  physical.hdr.opcode = ORNIC_ADMIN_REG_MR;
  physical.length = to_le(~uint64_t{0});
  physical.pd = to_le(pair.b.pd);
  physical.access = to_le(ORNIC_ACCESS_LOCAL_WRITE);
  physical.key_variant = 1;
  physical.flags = ORNIC_MR_FLAG_PHYSICAL;
  const auto p = pair.b.h.execute(DriverHarness::as_sqe(physical));
  ASSERT_EQ(p.status, ORNIC_ADMIN_STATUS_SUCCESS);
  auto c = rereg_command(le(p.result0), ORNIC_REREG_MR_ACCESS);
  c.access = to_le(ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_REMOTE_READ);
  EXPECT_EQ(rereg(c).status, ORNIC_ADMIN_STATUS_BAD_FIELD);

  ornic_admin_reg_mr fast{};
  fast.hdr.opcode = ORNIC_ADMIN_REG_MR;
  fast.mem.num_pages = to_le(4u);
  fast.pd = to_le(pair.b.pd);
  fast.key_variant = 2;
  fast.flags = ORNIC_MR_FLAG_FAST_REG;
  const auto f = pair.b.h.execute(DriverHarness::as_sqe(fast));
  ASSERT_EQ(f.status, ORNIC_ADMIN_STATUS_SUCCESS);
  c.key = f.result0;
  EXPECT_EQ(rereg(c).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
}

} // namespace
} // namespace ornic::test
