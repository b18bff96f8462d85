// Memory windows end to end (memory.rst "Memory windows", wqe.rst "BIND_MW"): ALLOC_MW and
// DEALLOC_MW, BIND_MW WQEs for type 1 and type 2B, remote access through a window with its
// own bounds and rights, invalidation (zero-length bind, LOCAL_INV, SEND_WITH_INV, dealloc,
// QP destruction), and every error: the window or MR refuses, the QP goes to ERR, and other
// QPs keep working.
#include <gtest/gtest.h>

#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

constexpr uint64_t kMrOffset = 64 * 1024; // the target MR in b's buffer
constexpr uint64_t kMrLength = 16 * 1024;
constexpr uint64_t kWinOffset = 4096; // the window, inside the MR
constexpr uint64_t kWinLength = 4096;
constexpr uint32_t kRemoteRw = ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ;

uint32_t with_variant(uint32_t key, uint8_t variant) {
  return (key & ~ORNIC_MR_KEY_VARIANT_MASK) | variant;
}

class MemWindow : public ::testing::Test {
protected:
  void SetUp() override {
    qa = pair.create_qp(pair.a);
    qb = pair.create_qp(pair.b);
    pair.connect(qa, qb);
    pair.connect(qb, qa);
    mr_base = pair.b.buffer + kMrOffset;
    mr_key = pair.b.reg_mr(mr_base, kMrLength, ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_MW_BIND);
    win = mr_base + kWinOffset;
  }

  ornic_admin_cqe alloc(uint8_t type, uint32_t pd = 0, uint8_t variant = 0x40) {
    ornic_admin_alloc_mw c{};
    c.hdr.opcode = ORNIC_ADMIN_ALLOC_MW;
    c.pd = to_le(pd != 0 ? pd : pair.b.pd);
    c.type = type;
    c.key_variant = variant;
    return pair.b.h.execute(DriverHarness::as_sqe(c));
  }

  uint32_t alloc_mw(uint8_t type, uint32_t pd = 0) {
    const auto cqe = alloc(type, pd);
    EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
    return le(cqe.result0);
  }

  uint8_t admin(uint8_t opcode, uint32_t handle) {
    return pair.b.h.execute(DriverHarness::simple(opcode, handle)).status;
  }

  static ornic_send_wqe bind_wqe(uint32_t mw_key, uint32_t mr, uint64_t addr, uint64_t length,
                                 uint32_t access, uint64_t wr_id = 80) {
    auto w = send_wqe(ORNIC_WQE_OP_BIND_MW, wr_id);
    w.num_blocks = 1;
    w.bind_mw.mw_key = to_le(mw_key);
    w.bind_mw.mr_key = to_le(mr);
    w.bind_mw.addr = to_le(addr);
    w.bind_mw.length = to_le(length);
    w.bind_mw.access = to_le(access);
    return w;
  }

  // Posts a BIND_MW on `qp` (of b) and returns its CQE.
  ornic_cqe bind_on(Qp& qp, uint32_t mw_key, uint64_t addr, uint64_t length, uint32_t access,
                    uint32_t mr = 0) {
    qp.post_send(bind_wqe(mw_key, mr != 0 ? mr : mr_key, addr, length, access), {});
    const auto done = pair.wait_cqes(pair.b, 1);
    EXPECT_EQ(done.size(), 1u);
    return done.empty() ? ornic_cqe{} : done[0];
  }

  // Binds on qb and expects success.
  void bind(uint32_t mw_key, uint64_t addr, uint64_t length, uint32_t access) {
    const auto cqe = bind_on(qb, mw_key, addr, length, access);
    EXPECT_EQ(cqe.status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(cqe.opcode, ORNIC_CQE_OP_BIND_MW);
    EXPECT_EQ(le(cqe.byte_len), 0u);
    EXPECT_EQ(le(cqe.wr_id), 80u);
  }

  // An RDMA op of `length` bytes from `from` (on a) at `remote` under `rkey`.
  ornic_cqe rdma(Qp& from, uint8_t opcode, uint64_t remote, uint32_t rkey, uint32_t length,
                 uint64_t local = 0) {
    auto w = send_wqe(opcode, 1);
    w.rdma.remote_addr = to_le(remote);
    w.rdma.rkey = to_le(rkey);
    from.post_send(w, {sge(pair.a.buffer + local, length, pair.a.key)});
    const auto done = pair.wait_cqes(pair.a, 1);
    EXPECT_EQ(done.size(), 1u);
    return done.empty() ? ornic_cqe{} : done[0];
  }

  ornic_cqe write(uint64_t remote, uint32_t rkey, uint32_t length) {
    return rdma(qa, ORNIC_WQE_OP_RDMA_WRITE, remote, rkey, length);
  }

  void fill_a(uint32_t length, uint8_t seed) {
    for (uint32_t i = 0; i < length; ++i)
      *pair.a.at(i) = std::byte(static_cast<uint8_t>(i * 7 + seed));
  }
  void fill_b(uint64_t addr, uint64_t length, uint8_t value) {
    for (uint64_t i = 0; i < length; ++i)
      *pair.b.h.memory.at(addr + i) = std::byte(value);
  }
  bool b_is(uint64_t addr, uint64_t length, uint8_t value) {
    for (uint64_t i = 0; i < length; ++i)
      if (*pair.b.h.memory.at(addr + i) != std::byte(value))
        return false;
    return true;
  }

  // A write through the window key refused with a remote access NAK: both QPs in ERR, the
  // memory untouched, and a fresh QP pair between the same NICs still works.
  void expect_refused_write(uint64_t remote, uint32_t rkey, uint32_t length = 64) {
    fill_b(mr_base, kMrLength, 0xee);
    fill_a(length, 3);
    const auto cqe = write(remote, rkey, length);
    EXPECT_EQ(cqe.status, ORNIC_CQE_REM_ACCESS_ERR);
    EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
    EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
    EXPECT_TRUE(b_is(mr_base, kMrLength, 0xee)) << "the refused write touched memory";
    expect_other_qps_work();
  }

  void expect_other_qps_work() {
    Qp qc = pair.create_qp(pair.a), qd = pair.create_qp(pair.b);
    pair.connect(qc, qd);
    pair.connect(qd, qc);
    qd.post_recv(7, {sge(pair.b.buffer + 8192, 64, pair.b.key)});
    qc.post_send(send_wqe(ORNIC_WQE_OP_SEND, 8), {sge(pair.a.buffer, 64, pair.a.key)});
    const auto sent = pair.wait_cqes(pair.a, 1);
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
    const auto got = pair.wait_cqes(pair.b, 1);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].status, ORNIC_CQE_SUCCESS);
  }

  // The BIND_MW at the head of qb failed as expected; qb is in ERR and flushed what followed.
  void expect_bind_failure(uint8_t status, uint8_t vendor_err, Qp* on = nullptr) {
    Qp& qp = on != nullptr ? *on : qb;
    qp.post_send(send_wqe(ORNIC_WQE_OP_SEND, 99), {});
    const auto done = pair.wait_cqes(pair.b, 2);
    ASSERT_EQ(done.size(), 2u);
    EXPECT_EQ(done[0].status, status);
    EXPECT_EQ(done[0].vendor_err, vendor_err);
    EXPECT_EQ(done[0].opcode, ORNIC_CQE_OP_BIND_MW);
    EXPECT_EQ(done[1].status, ORNIC_CQE_WR_FLUSH_ERR);
    EXPECT_EQ(qp.state(), ORNIC_QPS_ERR);
    EXPECT_GE(pair.b.counter(ORNIC_CNT_WQE_ERRORS), 1u);
    expect_other_qps_work();
  }

  void post_bind(uint32_t mw_key, uint64_t addr, uint64_t length, uint32_t access,
                 uint32_t mr = 0) {
    qb.post_send(bind_wqe(mw_key, mr != 0 ? mr : mr_key, addr, length, access), {});
  }

  static void post_local_inv(Qp& qp, uint32_t key) {
    auto w = send_wqe(ORNIC_WQE_OP_LOCAL_INV, 60);
    w.invalidate_rkey = to_le(key);
    qp.post_send(w, {});
  }

  // A SEND_WITH_INV from `from` naming `key`, received on `to` (b).
  std::pair<ornic_cqe, ornic_cqe> send_inv(Qp& from, Qp& to, uint32_t key) {
    to.post_recv(70, {sge(pair.b.buffer, 256, pair.b.key)});
    auto w = send_wqe(ORNIC_WQE_OP_SEND_INV, 71);
    w.invalidate_rkey = to_le(key);
    from.post_send(w, {sge(pair.a.buffer, 64, pair.a.key)});
    const auto sent = pair.wait_cqes(pair.a, 1);
    const auto got = pair.wait_cqes(pair.b, 1);
    EXPECT_EQ(sent.size(), 1u);
    EXPECT_EQ(got.size(), 1u);
    return {sent.empty() ? ornic_cqe{} : sent[0], got.empty() ? ornic_cqe{} : got[0]};
  }

  RdmaPair pair;
  Qp qa, qb;
  uint64_t mr_base = 0, win = 0;
  uint32_t mr_key = 0;
};

TEST_F(MemWindow, Type1WriteAndReadThroughTheWindow) {
  const uint32_t key = with_variant(alloc_mw(ORNIC_MW_TYPE_1), 0x41);
  bind(key, win, kWinLength, kRemoteRw);
  fill_b(mr_base, kMrLength, 0);
  fill_a(kWinLength, 5);
  // Four packets at MTU 1024, every one checked against the window.
  EXPECT_EQ(write(win, key, kWinLength).status, ORNIC_CQE_SUCCESS);
  for (uint32_t i = 0; i < kWinLength; ++i)
    ASSERT_EQ(*pair.b.h.memory.at(win + i), std::byte(static_cast<uint8_t>(i * 7 + 5))) << i;
  EXPECT_TRUE(b_is(mr_base, kWinOffset, 0)) << "bytes before the window changed";
  EXPECT_TRUE(b_is(win + kWinLength, kMrLength - kWinOffset - kWinLength, 0));
  const uint64_t local = 256 * 1024;
  const auto read = rdma(qa, ORNIC_WQE_OP_RDMA_READ, win + 1000, key, 2000, local);
  EXPECT_EQ(read.status, ORNIC_CQE_SUCCESS);
  for (uint32_t i = 0; i < 2000; ++i)
    ASSERT_EQ(*pair.a.at(local + i), std::byte(static_cast<uint8_t>((i + 1000) * 7 + 5))) << i;
}

TEST_F(MemWindow, AccessBeyondTheWindowInsideTheMrIsRefused) {
  const uint32_t key = alloc_mw(ORNIC_MW_TYPE_1);
  bind(key, win, kWinLength, kRemoteRw);
  expect_refused_write(win + kWinLength - 32, key, 64);
}

TEST_F(MemWindow, AccessBeforeTheWindowIsRefused) {
  const uint32_t key = alloc_mw(ORNIC_MW_TYPE_2);
  bind(key, win, kWinLength, kRemoteRw);
  expect_refused_write(win - 8, key, 16);
}

TEST_F(MemWindow, RightsTheWindowLacksAreRefusedWhateverTheQpAllows) {
  const uint32_t key = alloc_mw(ORNIC_MW_TYPE_1);
  bind(key, win, kWinLength, ORNIC_ACCESS_REMOTE_READ);
  EXPECT_EQ(rdma(qa, ORNIC_WQE_OP_RDMA_READ, win, key, 64).status, ORNIC_CQE_SUCCESS);
  expect_refused_write(win, key);
}

TEST_F(MemWindow, AtomicsNeedTheWindowsRight) {
  const uint32_t key = alloc_mw(ORNIC_MW_TYPE_1);
  bind(key, win, kWinLength, ORNIC_ACCESS_REMOTE_ATOMIC);
  pair.b.h.write<uint64_t>(win + 8, to_le(uint64_t{40}));
  auto w = send_wqe(ORNIC_WQE_OP_ATOMIC_FETCH_ADD, 3);
  w.atomic.remote_addr = to_le(win + 8);
  w.atomic.rkey = to_le(key);
  w.atomic.compare_add = to_le(uint64_t{2});
  qa.post_send(w, {sge(pair.a.buffer, 8, pair.a.key)});
  const auto done = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(pair.b.h.read<uint64_t>(win + 8)), 42u);
  EXPECT_EQ(le(pair.a.h.read<uint64_t>(pair.a.buffer)), 40u);
}

TEST_F(MemWindow, TheMrsOwnRemoteRightsDoNotCount) {
  // The MR allows remote writes, the window only reads: the window governs.
  const uint32_t rw_mr =
      pair.b.reg_mr(mr_base, kMrLength,
                    ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_MW_BIND);
  const uint32_t key = alloc_mw(ORNIC_MW_TYPE_2);
  EXPECT_EQ(bind_on(qb, key, win, kWinLength, ORNIC_ACCESS_REMOTE_READ, rw_mr).status,
            ORNIC_CQE_SUCCESS);
  expect_refused_write(win, key);
}

TEST_F(MemWindow, ZeroLengthBindUnbindsAType1Window) {
  const uint32_t key = with_variant(alloc_mw(ORNIC_MW_TYPE_1), 0x41);
  bind(key, win, kWinLength, kRemoteRw);
  EXPECT_EQ(write(win, key, 64).status, ORNIC_CQE_SUCCESS);
  // What ibv_bind_mw with length 0 posts: the MR and address are ignored.
  bind(with_variant(key, 0x42), win, 0, 0);
  expect_refused_write(win, key);
}

TEST_F(MemWindow, Type1RebindMovesTheWindowAndRetiresTheOldKey) {
  const uint32_t first = with_variant(alloc_mw(ORNIC_MW_TYPE_1), 0x41);
  bind(first, win, kWinLength, kRemoteRw);
  const uint32_t second = with_variant(first, 0x42);
  bind(second, win + kWinLength, kWinLength, kRemoteRw);
  fill_a(64, 9);
  EXPECT_EQ(write(win + kWinLength, second, 64).status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(*pair.b.h.memory.at(win + kWinLength + 1), std::byte(16));
  // The old range is outside the new binding, and the old key no longer matches.
  expect_refused_write(win + kWinLength, first);
}

TEST_F(MemWindow, Type2IsUsableOnlyThroughItsQp) {
  const uint32_t key = alloc_mw(ORNIC_MW_TYPE_2);
  bind(key, win, kWinLength, kRemoteRw);
  EXPECT_EQ(write(win, key, 64).status, ORNIC_CQE_SUCCESS);
  // Another connection into the same NIC, same PD: the window is not bound through it.
  Qp qc = pair.create_qp(pair.a), qd = pair.create_qp(pair.b);
  pair.connect(qc, qd);
  pair.connect(qd, qc);
  fill_b(mr_base, kMrLength, 0xee);
  const auto cqe = rdma(qc, ORNIC_WQE_OP_RDMA_WRITE, win, key, 64);
  EXPECT_EQ(cqe.status, ORNIC_CQE_REM_ACCESS_ERR);
  EXPECT_EQ(qd.state(), ORNIC_QPS_ERR);
  EXPECT_TRUE(b_is(mr_base, kMrLength, 0xee));
  // Its own QP still reaches it.
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);
  EXPECT_EQ(write(win, key, 64).status, ORNIC_CQE_SUCCESS);
}

TEST_F(MemWindow, LocalInvEndsAType2Window) {
  const uint32_t key = with_variant(alloc_mw(ORNIC_MW_TYPE_2), 0x41);
  bind(key, win, kWinLength, kRemoteRw);
  EXPECT_EQ(write(win, key, 64).status, ORNIC_CQE_SUCCESS);
  post_local_inv(qb, key);
  const auto inv = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(inv.size(), 1u);
  EXPECT_EQ(inv[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(inv[0].opcode, ORNIC_CQE_OP_LOCAL_INV);
  expect_refused_write(win, key);
}

TEST_F(MemWindow, LocalInvFromAnotherQpOfThePdAndFromAUserQp) {
  const uint32_t key = alloc_mw(ORNIC_MW_TYPE_2);
  bind(key, win, kWinLength, kRemoteRw);
  Qp user = pair.create_qp(pair.b, ORNIC_QPT_RC, pair.alloc_db_page(pair.b));
  pair.connect(user, qa);
  post_local_inv(user, key);
  const auto inv = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(inv.size(), 1u);
  EXPECT_EQ(inv[0].status, ORNIC_CQE_SUCCESS);
  expect_refused_write(win, key);
}

TEST_F(MemWindow, AUserQpBindsToo) {
  Qp user = pair.create_qp(pair.b, ORNIC_QPT_RC, pair.alloc_db_page(pair.b));
  Qp peer = pair.create_qp(pair.a);
  pair.connect(user, peer);
  pair.connect(peer, user);
  const uint32_t key = alloc_mw(ORNIC_MW_TYPE_2);
  EXPECT_EQ(bind_on(user, key, win, kWinLength, kRemoteRw).status, ORNIC_CQE_SUCCESS);
  fill_a(64, 1);
  EXPECT_EQ(rdma(peer, ORNIC_WQE_OP_RDMA_WRITE, win, key, 64).status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(*pair.b.h.memory.at(win + 2), std::byte(15));
}

TEST_F(MemWindow, SendWithInvalidateEndsAType2Window) {
  const uint32_t key = alloc_mw(ORNIC_MW_TYPE_2);
  bind(key, win, kWinLength, kRemoteRw);
  const auto [sent, got] = send_inv(qa, qb, key);
  EXPECT_EQ(sent.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(got.status, ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(got.flags & ORNIC_CQE_FLAG_INV);
  EXPECT_EQ(le(static_cast<uint32_t>(got.imm_data)), key);
  expect_refused_write(win, key);
}

TEST_F(MemWindow, SendWithInvalidateOnAnotherQpIsRefused) {
  const uint32_t key = alloc_mw(ORNIC_MW_TYPE_2);
  bind(key, win, kWinLength, kRemoteRw);
  Qp qc = pair.create_qp(pair.a), qd = pair.create_qp(pair.b);
  pair.connect(qc, qd);
  pair.connect(qd, qc);
  const auto [sent, got] = send_inv(qc, qd, key);
  EXPECT_EQ(sent.status, ORNIC_CQE_REM_INV_REQ_ERR);
  EXPECT_EQ(got.status, ORNIC_CQE_REM_INV_REQ_ERR);
  EXPECT_EQ(got.vendor_err, ORNIC_VERR_MW_QP);
  // The window survived the attempt.
  EXPECT_EQ(write(win, key, 64).status, ORNIC_CQE_SUCCESS);
}

TEST_F(MemWindow, SendWithInvalidateOfAType1WindowIsRefused) {
  const uint32_t key = alloc_mw(ORNIC_MW_TYPE_1);
  bind(key, win, kWinLength, kRemoteRw);
  const auto [sent, got] = send_inv(qa, qb, key);
  EXPECT_EQ(sent.status, ORNIC_CQE_REM_INV_REQ_ERR);
  EXPECT_EQ(got.vendor_err, ORNIC_VERR_MW_TYPE);
}

TEST_F(MemWindow, DeallocEndsAccessAndTheMrIsBusyUntilThen) {
  const uint32_t key = alloc_mw(ORNIC_MW_TYPE_2);
  bind(key, win, kWinLength, kRemoteRw);
  EXPECT_EQ(admin(ORNIC_ADMIN_DEREG_MR, mr_key), ORNIC_ADMIN_STATUS_BUSY);
  EXPECT_EQ(admin(ORNIC_ADMIN_DEALLOC_PD, pair.b.pd), ORNIC_ADMIN_STATUS_BUSY);
  // The index names the window whatever the variant.
  EXPECT_EQ(admin(ORNIC_ADMIN_DEALLOC_MW, with_variant(key, 0x99)), ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(admin(ORNIC_ADMIN_DEALLOC_MW, key), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  expect_refused_write(win, key);
  EXPECT_EQ(admin(ORNIC_ADMIN_DEREG_MR, mr_key), ORNIC_ADMIN_STATUS_SUCCESS);
}

TEST_F(MemWindow, Type1WindowKeepsTheMrBusyUntilUnbound) {
  const uint32_t key = with_variant(alloc_mw(ORNIC_MW_TYPE_1), 0x41);
  bind(key, win, kWinLength, kRemoteRw);
  EXPECT_EQ(admin(ORNIC_ADMIN_DEREG_MR, mr_key), ORNIC_ADMIN_STATUS_BUSY);
  bind(with_variant(key, 0x42), 0, 0, 0);
  EXPECT_EQ(admin(ORNIC_ADMIN_DEREG_MR, mr_key), ORNIC_ADMIN_STATUS_SUCCESS);
}

// REREG_MR (ORNIC_CAP_RESIZE) would move the region under a bound window: refused until
// the window is gone, and the MR keeps its bound-window count through the refusal.
TEST_F(MemWindow, ABoundWindowKeepsTheMrFromBeingReregistered) {
  const uint32_t key = alloc_mw(ORNIC_MW_TYPE_2);
  bind(key, win, kWinLength, kRemoteRw);
  ornic_admin_rereg_mr c{};
  c.hdr.opcode = ORNIC_ADMIN_REREG_MR;
  c.key = to_le(mr_key);
  c.flags = ORNIC_REREG_MR_ACCESS;
  c.access = to_le(uint32_t{ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_MW_BIND});
  EXPECT_EQ(pair.b.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BUSY);
  EXPECT_EQ(admin(ORNIC_ADMIN_DEREG_MR, mr_key), ORNIC_ADMIN_STATUS_BUSY);
  EXPECT_EQ(admin(ORNIC_ADMIN_DEALLOC_MW, key), ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(pair.b.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_SUCCESS);
}

TEST_F(MemWindow, DestroyingTheQpFreesItsType2Windows) {
  const uint32_t key = alloc_mw(ORNIC_MW_TYPE_2);
  bind(key, win, kWinLength, kRemoteRw);
  EXPECT_EQ(admin(ORNIC_ADMIN_DESTROY_QP, qb.qpn), ORNIC_ADMIN_STATUS_SUCCESS);
  // Unbound: the MR may go, and the window binds again (type 2 needs FREE).
  EXPECT_EQ(admin(ORNIC_ADMIN_DEREG_MR, mr_key), ORNIC_ADMIN_STATUS_SUCCESS);
  mr_key = pair.b.reg_mr(mr_base, kMrLength, ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_MW_BIND);
  Qp qc = pair.create_qp(pair.b);
  pair.connect(qc, qa);
  EXPECT_EQ(bind_on(qc, with_variant(key, 0x43), win, kWinLength, kRemoteRw).status,
            ORNIC_CQE_SUCCESS);
}

TEST_F(MemWindow, AWindowKeyIsNeverAnLkey) {
  const uint32_t key = alloc_mw(ORNIC_MW_TYPE_1);
  bind(key, win, kWinLength, kRemoteRw);
  qb.post_send(send_wqe(ORNIC_WQE_OP_SEND, 5), {sge(win, 64, key)});
  const auto done = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_LOC_PROT_ERR);
  EXPECT_EQ(done[0].vendor_err, ORNIC_VERR_BAD_LKEY);
}

TEST_F(MemWindow, AllocAndDeallocRules) {
  EXPECT_EQ(alloc(0).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(alloc(3).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(alloc(ORNIC_MW_TYPE_1, pair.b.pd + 100).status, ORNIC_ADMIN_STATUS_BAD_HANDLE);
  ornic_admin_alloc_mw c{};
  c.hdr.opcode = ORNIC_ADMIN_ALLOC_MW;
  c.pd = to_le(pair.b.pd);
  c.type = ORNIC_MW_TYPE_1;
  c.reserved1[11] = to_le(1u);
  EXPECT_EQ(pair.b.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  c.reserved1[11] = 0;
  c.reserved0 = to_le(uint16_t{1});
  EXPECT_EQ(pair.b.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);

  // One key space: the window's index is none of the MRs', and neither command takes the
  // other's keys.
  const uint32_t key = alloc_mw(ORNIC_MW_TYPE_2);
  // (The variant is the device's own choice: memory.rst, "Keys".)
  EXPECT_NE(key >> ORNIC_MR_KEY_INDEX_SHIFT, mr_key >> ORNIC_MR_KEY_INDEX_SHIFT);
  EXPECT_NE(key >> ORNIC_MR_KEY_INDEX_SHIFT, pair.b.key >> ORNIC_MR_KEY_INDEX_SHIFT);
  EXPECT_EQ(admin(ORNIC_ADMIN_DEREG_MR, key), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  EXPECT_EQ(admin(ORNIC_ADMIN_DEALLOC_MW, mr_key), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  EXPECT_EQ(admin(ORNIC_ADMIN_DEALLOC_MW, 0), ORNIC_ADMIN_STATUS_BAD_HANDLE);
  auto d = DriverHarness::simple(ORNIC_ADMIN_DEALLOC_MW, key);
  d.body[4] = 1; // reserved
  EXPECT_EQ(pair.b.h.execute(d).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(admin(ORNIC_ADMIN_DEALLOC_MW, key), ORNIC_ADMIN_STATUS_SUCCESS);
}

TEST_F(MemWindow, MwBindAccessOnMrs) {
  // MW_BIND is an MR right; a physical MR never takes it.
  ornic_admin_reg_mr c{};
  c.hdr.opcode = ORNIC_ADMIN_REG_MR;
  c.length = to_le(uint64_t{4096});
  c.pd = to_le(pair.b.pd);
  c.access = to_le(ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_MW_BIND);
  c.flags = ORNIC_MR_FLAG_PHYSICAL;
  EXPECT_EQ(pair.b.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  c.access = to_le(ORNIC_ACCESS_LOCAL_WRITE | (1u << 5));
  c.flags = 0;
  c.mem.addr = to_le(mr_base);
  c.mem.num_pages = to_le(1u);
  c.mem.page_shift = 12;
  c.iova = to_le(mr_base);
  EXPECT_EQ(pair.b.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
}

// Every refused bind: MW_BIND_ERR (or LOC_QP_OP_ERR for a malformed WQE), QP to ERR, the
// window unchanged.
class MemWindowBindErrors : public MemWindow {};

TEST_F(MemWindowBindErrors, MrWithoutMwBind) {
  const uint32_t plain = pair.b.reg_mr(mr_base, kMrLength, ORNIC_ACCESS_LOCAL_WRITE);
  post_bind(alloc_mw(ORNIC_MW_TYPE_1), win, kWinLength, kRemoteRw, plain);
  expect_bind_failure(ORNIC_CQE_MW_BIND_ERR, ORNIC_VERR_MW_BIND);
}

TEST_F(MemWindowBindErrors, WritableWindowOnAnMrWithoutLocalWrite) {
  const uint32_t ro = pair.b.reg_mr(mr_base, kMrLength, ORNIC_ACCESS_MW_BIND);
  post_bind(alloc_mw(ORNIC_MW_TYPE_2), win, kWinLength, ORNIC_ACCESS_REMOTE_WRITE, ro);
  expect_bind_failure(ORNIC_CQE_MW_BIND_ERR, ORNIC_VERR_MW_BIND);
}

TEST_F(MemWindowBindErrors, ReadOnlyWindowOnAnMrWithoutLocalWriteIsFine) {
  const uint32_t ro = pair.b.reg_mr(mr_base, kMrLength, ORNIC_ACCESS_MW_BIND);
  EXPECT_EQ(
      bind_on(qb, alloc_mw(ORNIC_MW_TYPE_2), win, kWinLength, ORNIC_ACCESS_REMOTE_READ, ro).status,
      ORNIC_CQE_SUCCESS);
}

TEST_F(MemWindowBindErrors, RangeOutsideTheMr) {
  post_bind(alloc_mw(ORNIC_MW_TYPE_1), mr_base + kMrLength - 64, 128, kRemoteRw);
  expect_bind_failure(ORNIC_CQE_MW_BIND_ERR, ORNIC_VERR_OUT_OF_BOUNDS);
}

TEST_F(MemWindowBindErrors, RangeThatWraps) {
  post_bind(alloc_mw(ORNIC_MW_TYPE_1), win, ~uint64_t{0}, kRemoteRw);
  expect_bind_failure(ORNIC_CQE_MW_BIND_ERR, ORNIC_VERR_OUT_OF_BOUNDS);
}

TEST_F(MemWindowBindErrors, WindowOfAnotherPd) {
  post_bind(alloc_mw(ORNIC_MW_TYPE_1, pair.b.h.alloc_pd()), win, kWinLength, kRemoteRw);
  expect_bind_failure(ORNIC_CQE_MW_BIND_ERR, ORNIC_VERR_PD_MISMATCH);
}

TEST_F(MemWindowBindErrors, MrOfAnotherPd) {
  const uint32_t other = pair.b.reg_mr(
      mr_base, kMrLength, ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_MW_BIND, pair.b.h.alloc_pd());
  post_bind(alloc_mw(ORNIC_MW_TYPE_1), win, kWinLength, kRemoteRw, other);
  expect_bind_failure(ORNIC_CQE_MW_BIND_ERR, ORNIC_VERR_PD_MISMATCH);
}

TEST_F(MemWindowBindErrors, NotAWindow) {
  post_bind(mr_key, win, kWinLength, kRemoteRw);
  expect_bind_failure(ORNIC_CQE_MW_BIND_ERR, ORNIC_VERR_BAD_LKEY);
}

TEST_F(MemWindowBindErrors, StaleMrKey) {
  post_bind(alloc_mw(ORNIC_MW_TYPE_1), win, kWinLength, kRemoteRw, with_variant(mr_key, 0x11));
  expect_bind_failure(ORNIC_CQE_MW_BIND_ERR, ORNIC_VERR_BAD_LKEY);
}

TEST_F(MemWindowBindErrors, MrKeyNamingAWindow) {
  const uint32_t other = alloc_mw(ORNIC_MW_TYPE_1);
  post_bind(alloc_mw(ORNIC_MW_TYPE_1), win, kWinLength, kRemoteRw, other);
  expect_bind_failure(ORNIC_CQE_MW_BIND_ERR, ORNIC_VERR_BAD_LKEY);
}

TEST_F(MemWindowBindErrors, Type2AlreadyBound) {
  const uint32_t key = alloc_mw(ORNIC_MW_TYPE_2);
  bind(key, win, kWinLength, kRemoteRw);
  post_bind(with_variant(key, 0x77), win, 64, kRemoteRw);
  expect_bind_failure(ORNIC_CQE_MW_BIND_ERR, ORNIC_VERR_MW_STATE);
  // The refused bind changed nothing: the window still holds the MR.
  EXPECT_EQ(admin(ORNIC_ADMIN_DEREG_MR, mr_key), ORNIC_ADMIN_STATUS_BUSY);
}

TEST_F(MemWindowBindErrors, ZeroLengthType2) {
  post_bind(alloc_mw(ORNIC_MW_TYPE_2), win, 0, kRemoteRw);
  expect_bind_failure(ORNIC_CQE_MW_BIND_ERR, ORNIC_VERR_MW_TYPE);
}

TEST_F(MemWindowBindErrors, UnknownRights) {
  post_bind(alloc_mw(ORNIC_MW_TYPE_1), win, kWinLength, kRemoteRw | ORNIC_ACCESS_MW_BIND);
  expect_bind_failure(ORNIC_CQE_MW_BIND_ERR, ORNIC_VERR_ACCESS);
}

TEST_F(MemWindowBindErrors, MalformedWqes) {
  auto w = bind_wqe(alloc_mw(ORNIC_MW_TYPE_1), mr_key, win, kWinLength, kRemoteRw);
  w.bind_mw.reserved = to_le(1u);
  qb.post_send(w, {});
  expect_bind_failure(ORNIC_CQE_LOC_QP_OP_ERR, ORNIC_VERR_RESERVED_NONZERO);
}

TEST_F(MemWindowBindErrors, ExtraBlocks) {
  auto w = bind_wqe(alloc_mw(ORNIC_MW_TYPE_1), mr_key, win, kWinLength, kRemoteRw);
  w.num_sge = 1; // post_send lays out one SGE block: num_blocks becomes 2
  qb.post_send(w, {sge(pair.b.buffer, 8, pair.b.key)});
  expect_bind_failure(ORNIC_CQE_LOC_QP_OP_ERR, ORNIC_VERR_BAD_BLOCKS);
}

TEST_F(MemWindowBindErrors, SolicitedFlag) {
  auto w = bind_wqe(alloc_mw(ORNIC_MW_TYPE_1), mr_key, win, kWinLength, kRemoteRw);
  w.flags |= ORNIC_WQE_FLAG_SOLICITED;
  qb.post_send(w, {});
  expect_bind_failure(ORNIC_CQE_LOC_QP_OP_ERR, ORNIC_VERR_RESERVED_NONZERO);
}

TEST_F(MemWindowBindErrors, NotOnUd) {
  Qp ud = pair.create_qp(pair.b, ORNIC_QPT_UD);
  pair.bring_up_ud(ud, 0x1234);
  ud.post_send(bind_wqe(alloc_mw(ORNIC_MW_TYPE_1), mr_key, win, kWinLength, kRemoteRw), {});
  const auto done = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_LOC_QP_OP_ERR);
  EXPECT_EQ(done[0].vendor_err, ORNIC_VERR_BAD_OPCODE);
}

class MemWindowInvalidateErrors : public MemWindow {
protected:
  void expect_local_inv_failure(uint32_t key, uint8_t vendor_err) {
    post_local_inv(qb, key);
    qb.post_send(send_wqe(ORNIC_WQE_OP_SEND, 99), {});
    const auto done = pair.wait_cqes(pair.b, 2);
    ASSERT_EQ(done.size(), 2u);
    EXPECT_EQ(done[0].status, ORNIC_CQE_LOC_PROT_ERR);
    EXPECT_EQ(done[0].vendor_err, vendor_err);
    EXPECT_EQ(done[1].status, ORNIC_CQE_WR_FLUSH_ERR);
    EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
  }
};

TEST_F(MemWindowInvalidateErrors, Type1Window) {
  const uint32_t key = alloc_mw(ORNIC_MW_TYPE_1);
  bind(key, win, kWinLength, kRemoteRw);
  expect_local_inv_failure(key, ORNIC_VERR_MW_TYPE);
}

TEST_F(MemWindowInvalidateErrors, FreeType2Window) {
  expect_local_inv_failure(alloc_mw(ORNIC_MW_TYPE_2), ORNIC_VERR_MW_STATE);
}

TEST_F(MemWindowInvalidateErrors, StaleVariant) {
  const uint32_t key = with_variant(alloc_mw(ORNIC_MW_TYPE_2), 0x41);
  bind(key, win, kWinLength, kRemoteRw);
  expect_local_inv_failure(with_variant(key, 0x40), ORNIC_VERR_BAD_LKEY);
}

TEST_F(MemWindowInvalidateErrors, AnotherPdsWindow) {
  expect_local_inv_failure(alloc_mw(ORNIC_MW_TYPE_2, pair.b.h.alloc_pd()), ORNIC_VERR_PD_MISMATCH);
}

} // namespace
} // namespace ornic::test
