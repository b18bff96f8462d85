// Fast registration end to end (memory.rst "Fast registration", wqe.rst "Local
// operations"): REG_MR WQEs make a FREE fast-reg MR VALID over a page list in guest memory,
// LOCAL_INV and SEND_WITH_INV make it FREE again, and every misuse fails the WQE.
#include <algorithm>

#include <gtest/gtest.h>

#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

constexpr uint32_t kRw =
    ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ;
constexpr uint64_t kIova = 0x7f0000000100ull; // 0x100 into its first page

uint32_t with_variant(uint32_t key, uint8_t variant) {
  return (key & ~ORNIC_MR_KEY_VARIANT_MASK) | variant;
}

class FastReg : public ::testing::Test {
protected:
  void SetUp() override {
    qa = pair.create_qp(pair.a);
    qb = pair.create_qp(pair.b);
    pair.connect(qa, qb);
    pair.connect(qb, qa);
  }

  // A FREE fast-reg MR on `node` (its PD unless `pd` is given); returns its key.
  uint32_t alloc_fast_mr(Node& node, uint32_t capacity, uint32_t pd = 0) {
    ornic_admin_reg_mr c{};
    c.hdr.opcode = ORNIC_ADMIN_REG_MR;
    c.mem.num_pages = to_le(capacity);
    c.pd = to_le(pd != 0 ? pd : node.pd);
    c.key_variant = 0x30;
    c.flags = ORNIC_MR_FLAG_FAST_REG;
    const auto cqe = node.h.execute(DriverHarness::as_sqe(c));
    EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
    return le(cqe.result0);
  }

  // `count` 4 KiB pages of `node`, deliberately not in address order, so a test can tell a
  // page-list walk from a contiguous one.
  std::vector<uint64_t> scattered_pages(Node& node, size_t count) {
    std::vector<uint64_t> pages;
    for (size_t i = 0; i < count + 1; ++i)
      pages.push_back(node.h.alloc(4096));
    std::reverse(pages.begin(), pages.end());
    pages.pop_back(); // leaves a hole in front of the lowest page
    return pages;
  }

  uint64_t write_page_list(Node& node, const std::vector<uint64_t>& pages) {
    const uint64_t list = node.h.alloc(std::max<size_t>(8, pages.size() * 8), 8);
    for (size_t i = 0; i < pages.size(); ++i)
      node.h.write<uint64_t>(list + 8 * i, to_le(pages[i]));
    return list;
  }

  static ornic_send_wqe reg_wqe(uint32_t key, uint32_t access, uint32_t num_pages, uint64_t wr_id,
                                uint8_t page_shift = 12) {
    auto w = send_wqe(ORNIC_WQE_OP_REG_MR, wr_id);
    w.reg_mr.key = to_le(key);
    w.reg_mr.access = to_le(access);
    w.reg_mr.page_shift = page_shift;
    w.reg_mr.num_pages = to_le(num_pages);
    return w;
  }

  static ornic_wqe_reg_mr_ext reg_ext(uint64_t list, uint64_t iova, uint64_t length) {
    ornic_wqe_reg_mr_ext ext{};
    ext.pbl_addr = to_le(list);
    ext.iova = to_le(iova);
    ext.length = to_le(length);
    return ext;
  }

  void post_reg(Qp& qp, uint32_t key, uint32_t access, const std::vector<uint64_t>& pages,
                uint64_t iova, uint64_t length, uint64_t wr_id = 50) {
    qp.post_reg_mr(reg_wqe(key, access, static_cast<uint32_t>(pages.size()), wr_id),
                   reg_ext(write_page_list(*qp.node, pages), iova, length));
  }

  static void post_local_inv(Qp& qp, uint32_t key, uint64_t wr_id = 60) {
    auto w = send_wqe(ORNIC_WQE_OP_LOCAL_INV, wr_id);
    w.invalidate_rkey = to_le(key);
    qp.post_send(w, {});
  }

  // REG_MR on qb, waits for its CQE.
  void register_on_b(uint32_t key, uint32_t access, const std::vector<uint64_t>& pages,
                     uint64_t iova, uint64_t length) {
    post_reg(qb, key, access, pages, iova, length);
    const auto done = pair.wait_cqes(pair.b, 1);
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(done[0].opcode, ORNIC_CQE_OP_REG_MR);
    EXPECT_EQ(le(done[0].wr_id), 50u);
  }

  // An RDMA op of `length` bytes from qa at `remote` under `rkey`, local at a.buffer+local.
  ornic_cqe rdma_from_a(uint8_t opcode, uint64_t remote, uint32_t rkey, uint32_t length,
                        uint64_t local = 0) {
    auto w = send_wqe(opcode, 1);
    w.rdma.remote_addr = to_le(remote);
    w.rdma.rkey = to_le(rkey);
    qa.post_send(w, {sge(pair.a.buffer + local, length, pair.a.key)});
    const auto done = pair.wait_cqes(pair.a, 1);
    EXPECT_EQ(done.size(), 1u);
    return done.empty() ? ornic_cqe{} : done[0];
  }

  // The byte at message offset `k` of a region at kIova over `pages`.
  std::byte* region_byte(const std::vector<uint64_t>& pages, uint64_t k) {
    const uint64_t at = (kIova & 4095) + k;
    return pair.b.h.memory.at(pages[at / 4096] + at % 4096);
  }

  // The WQE at the head of qb failed with status/vendor_err, qb is in ERR and flushed the
  // SEND behind it, and another QP of the same NIC still works.
  void expect_reg_failure(uint8_t status, uint8_t vendor_err) {
    qb.post_send(send_wqe(ORNIC_WQE_OP_SEND, 99), {});
    const auto done = pair.wait_cqes(pair.b, 2);
    ASSERT_EQ(done.size(), 2u);
    EXPECT_EQ(done[0].status, status);
    EXPECT_EQ(done[0].vendor_err, vendor_err);
    EXPECT_EQ(done[1].status, ORNIC_CQE_WR_FLUSH_ERR);
    EXPECT_EQ(le(done[1].wr_id), 99u);
    EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
    EXPECT_GE(pair.b.counter(ORNIC_CNT_WQE_ERRORS), 1u);

    Qp qc = pair.create_qp(pair.a), qd = pair.create_qp(pair.b);
    pair.connect(qc, qd);
    pair.connect(qd, qc);
    qc.post_recv(7, {sge(pair.a.buffer + 8192, 64, pair.a.key)});
    qd.post_send(send_wqe(ORNIC_WQE_OP_SEND, 8), {sge(pair.b.buffer, 64, pair.b.key)});
    const auto sent = pair.wait_cqes(pair.b, 1);
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(le(sent[0].qpn), qd.qpn);
  }

  // qa's last WQE was refused by the responder with a remote access NAK; both QPs in ERR.
  void expect_remote_access_error(const ornic_cqe& cqe) {
    EXPECT_EQ(cqe.status, ORNIC_CQE_REM_ACCESS_ERR);
    EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
    EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
  }

  RdmaPair pair;
  Qp qa, qb;
};

TEST_F(FastReg, RemoteWriteAndReadLandOnThePageList) {
  const uint32_t key = with_variant(alloc_fast_mr(pair.b, 8), 0x31);
  const auto pages = scattered_pages(pair.b, 3);
  const uint32_t length = 3 * 4096 - 0x100 - 0x80; // three pages, offset in the first
  register_on_b(key, kRw, pages, kIova, length);

  for (uint32_t i = 0; i < length; ++i)
    *pair.a.at(i) = std::byte(i * 7 + 3);
  const auto wrote = rdma_from_a(ORNIC_WQE_OP_RDMA_WRITE, kIova, key, length);
  EXPECT_EQ(wrote.status, ORNIC_CQE_SUCCESS);
  for (uint32_t k = 0; k < length; ++k)
    ASSERT_EQ(*region_byte(pages, k), std::byte(k * 7 + 3)) << "offset " << k;

  // READ back from the middle of the region, across a page boundary.
  const uint64_t local = 64 * 1024;
  const auto read = rdma_from_a(ORNIC_WQE_OP_RDMA_READ, kIova + 100, key, 5000, local);
  EXPECT_EQ(read.status, ORNIC_CQE_SUCCESS);
  for (uint32_t k = 0; k < 5000; ++k)
    ASSERT_EQ(*pair.a.at(local + k), std::byte((k + 100) * 7 + 3)) << "offset " << k;

  // The bounds are the registered length.
  const auto beyond = rdma_from_a(ORNIC_WQE_OP_RDMA_WRITE, kIova + length - 8, key, 16);
  expect_remote_access_error(beyond);
}

TEST_F(FastReg, TheKeyWorksBeforeRegistrationOnlyAsABadKey) {
  // FREE: the key fails exactly like one never issued.
  const uint32_t key = alloc_fast_mr(pair.b, 4);
  expect_remote_access_error(rdma_from_a(ORNIC_WQE_OP_RDMA_WRITE, kIova, key, 64));
}

TEST_F(FastReg, AccessIsWhatTheWqeGranted) {
  const uint32_t key = with_variant(alloc_fast_mr(pair.b, 4), 0x31);
  const auto pages = scattered_pages(pair.b, 1);
  register_on_b(key, ORNIC_ACCESS_REMOTE_READ, pages, kIova, 256);
  EXPECT_EQ(rdma_from_a(ORNIC_WQE_OP_RDMA_READ, kIova, key, 256).status, ORNIC_CQE_SUCCESS);
  expect_remote_access_error(rdma_from_a(ORNIC_WQE_OP_RDMA_WRITE, kIova, key, 64));
}

TEST_F(FastReg, TheNextWqeUsesTheNewKeyAndLocalInvWaitsForIt) {
  // REG_MR, a multi-packet SEND from the new region and LOCAL_INV, in one doorbell: the
  // SEND sees the registration and completes before the MR is invalidated.
  const uint32_t key = with_variant(alloc_fast_mr(pair.b, 4), 0x31);
  const auto pages = scattered_pages(pair.b, 2);
  const uint32_t length = 4000;
  for (uint32_t k = 0; k < length; ++k)
    *region_byte(pages, k) = std::byte(k ^ 0x5a);
  qa.post_recv(5, {sge(pair.a.buffer, length, pair.a.key)});
  qb.post_reg_mr(reg_wqe(key, ORNIC_ACCESS_LOCAL_WRITE, 2, 50),
                 reg_ext(write_page_list(pair.b, pages), kIova, length), false);
  qb.post_send(send_wqe(ORNIC_WQE_OP_SEND, 51), {sge(kIova, length, key)}, false);
  post_local_inv(qb, key);
  const auto done = pair.wait_cqes(pair.b, 3);
  ASSERT_EQ(done.size(), 3u);
  EXPECT_EQ(done[0].opcode, ORNIC_CQE_OP_REG_MR);
  EXPECT_EQ(done[1].opcode, ORNIC_CQE_OP_SEND);
  EXPECT_EQ(done[2].opcode, ORNIC_CQE_OP_LOCAL_INV);
  for (const auto& cqe : done)
    EXPECT_EQ(cqe.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(done[2].wr_id), 60u);
  const auto got = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(le(got[0].byte_len), length);
  for (uint32_t k = 0; k < length; ++k)
    ASSERT_EQ(*pair.a.at(k), std::byte(k ^ 0x5a)) << "offset " << k;
  // Invalidated: the same key as an lkey now fails the WQE.
  qb.post_send(send_wqe(ORNIC_WQE_OP_SEND, 52), {sge(kIova, 64, key)});
  const auto after = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].status, ORNIC_CQE_LOC_PROT_ERR);
  EXPECT_EQ(after[0].vendor_err, ORNIC_VERR_BAD_LKEY);
}

TEST_F(FastReg, LocalInvThenRemoteWriteIsRefused) {
  const uint32_t key = with_variant(alloc_fast_mr(pair.b, 4), 0x31);
  const auto pages = scattered_pages(pair.b, 1);
  register_on_b(key, kRw, pages, kIova, 512);
  EXPECT_EQ(rdma_from_a(ORNIC_WQE_OP_RDMA_WRITE, kIova, key, 64).status, ORNIC_CQE_SUCCESS);
  post_local_inv(qb, key);
  const auto inv = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(inv.size(), 1u);
  EXPECT_EQ(inv[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(inv[0].opcode, ORNIC_CQE_OP_LOCAL_INV);
  expect_remote_access_error(rdma_from_a(ORNIC_WQE_OP_RDMA_WRITE, kIova, key, 64));
}

TEST_F(FastReg, ReRegistrationWithANewVariantRetiresTheOldKey) {
  const uint32_t first = with_variant(alloc_fast_mr(pair.b, 4), 0x31);
  const auto pages = scattered_pages(pair.b, 1);
  register_on_b(first, kRw, pages, kIova, 512);
  post_local_inv(qb, first);
  ASSERT_EQ(pair.wait_cqes(pair.b, 1).size(), 1u);
  const uint32_t second = with_variant(first, 0x32);
  register_on_b(second, kRw, pages, kIova, 512);
  EXPECT_EQ(rdma_from_a(ORNIC_WQE_OP_RDMA_WRITE, kIova, second, 64).status, ORNIC_CQE_SUCCESS);
  expect_remote_access_error(rdma_from_a(ORNIC_WQE_OP_RDMA_WRITE, kIova, first, 64));
}

TEST_F(FastReg, SendWithInvalidateFreesTheMr) {
  const uint32_t key = with_variant(alloc_fast_mr(pair.b, 4), 0x31);
  const auto pages = scattered_pages(pair.b, 1);
  register_on_b(key, kRw, pages, kIova, 512);
  qb.post_recv(70, {sge(pair.b.buffer, 2048, pair.b.key)});
  auto w = send_wqe(ORNIC_WQE_OP_SEND_INV, 71);
  w.invalidate_rkey = to_le(key);
  qa.post_send(w, {sge(pair.a.buffer, 1500, pair.a.key)}); // two packets: IETH on the last
  const auto sent = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
  const auto got = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(got[0].flags & ORNIC_CQE_FLAG_INV);
  EXPECT_EQ(le(static_cast<uint32_t>(got[0].imm_data)), key);
  EXPECT_EQ(le(got[0].byte_len), 1500u);
  expect_remote_access_error(rdma_from_a(ORNIC_WQE_OP_RDMA_WRITE, kIova, key, 64));
}

TEST_F(FastReg, LargePagesAndAFencedRegistration) {
  // 64 KiB pages; FENCE is accepted (local operations are fenced anyway).
  const uint32_t key = with_variant(alloc_fast_mr(pair.b, 4), 0x31);
  const uint64_t second = pair.b.h.alloc(1 << 16, 1 << 16);
  const uint64_t first = pair.b.h.alloc(1 << 16, 1 << 16);
  const uint64_t iova = 0x100000000ull + 0xff00; // 256 bytes before the page boundary
  auto w = reg_wqe(key, kRw, 2, 50, 16);
  w.flags |= ORNIC_WQE_FLAG_FENCE;
  qb.post_reg_mr(w, reg_ext(write_page_list(pair.b, {first, second}), iova, 1024));
  const auto done = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(done.size(), 1u);
  ASSERT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  for (uint32_t i = 0; i < 1024; ++i)
    *pair.a.at(i) = std::byte(i * 13 + 1);
  EXPECT_EQ(rdma_from_a(ORNIC_WQE_OP_RDMA_WRITE, iova, key, 1024).status, ORNIC_CQE_SUCCESS);
  for (uint32_t k = 0; k < 1024; ++k) {
    const uint64_t at = k < 256 ? first + 0xff00 + k : second + (k - 256);
    ASSERT_EQ(*pair.b.h.memory.at(at), std::byte(k * 13 + 1)) << "offset " << k;
  }
}

TEST_F(FastReg, DeregisteringAValidMrEndsRemoteAccess) {
  const uint32_t key = with_variant(alloc_fast_mr(pair.b, 4), 0x31);
  register_on_b(key, kRw, scattered_pages(pair.b, 1), kIova, 512);
  EXPECT_EQ(rdma_from_a(ORNIC_WQE_OP_RDMA_WRITE, kIova, key, 64).status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(pair.b.h.execute(DriverHarness::simple(ORNIC_ADMIN_DEREG_MR, key)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  expect_remote_access_error(rdma_from_a(ORNIC_WQE_OP_RDMA_WRITE, kIova, key, 64));
}

TEST_F(FastReg, ARetransmittedSendWithInvalidateInvalidatesOnce) {
  const uint32_t key = with_variant(alloc_fast_mr(pair.b, 4), 0x31);
  register_on_b(key, kRw, scattered_pages(pair.b, 1), kIova, 512);
  // b's first frame is the ACK of the SEND_WITH_INV: lost, so a sends it again and b sees a
  // duplicate, which must not try to invalidate the (now FREE) MR a second time.
  pair.wire.policy = [](int side, uint64_t n, const auto&) {
    return side == 1 && n == 0 ? WireAction::drop : WireAction::deliver;
  };
  qb.post_recv(70, {sge(pair.b.buffer, 256, pair.b.key)});
  auto w = send_wqe(ORNIC_WQE_OP_SEND_INV, 71);
  w.invalidate_rkey = to_le(key);
  qa.post_send(w, {sge(pair.a.buffer, 64, pair.a.key)});
  const auto sent = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_GE(pair.a.counter(ORNIC_CNT_RETRANSMITS), 1u);
  const auto got = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(got[0].flags & ORNIC_CQE_FLAG_INV);
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);
  EXPECT_FALSE(pair.b.poll().has_value());
}

class FastRegBadInvalidate : public FastReg {
protected:
  // A SEND_WITH_INV naming `rkey` at qb: the receive completes REM_INV_REQ_ERR, the sender
  // gets NAK invalid request, both QPs go to ERR.
  void send_inv_expecting_error(uint32_t rkey, uint8_t vendor_err) {
    qb.post_recv(70, {sge(pair.b.buffer, 256, pair.b.key)});
    auto w = send_wqe(ORNIC_WQE_OP_SEND_INV, 71);
    w.invalidate_rkey = to_le(rkey);
    qa.post_send(w, {sge(pair.a.buffer, 64, pair.a.key)});
    const auto sent = pair.wait_cqes(pair.a, 1);
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].status, ORNIC_CQE_REM_INV_REQ_ERR);
    const auto got = pair.wait_cqes(pair.b, 1);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].status, ORNIC_CQE_REM_INV_REQ_ERR);
    EXPECT_EQ(got[0].vendor_err, vendor_err);
    EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
    EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
  }
};

TEST_F(FastRegBadInvalidate, ARegularMr) {
  send_inv_expecting_error(pair.b.key, ORNIC_VERR_BAD_LKEY);
}

TEST_F(FastRegBadInvalidate, AFreeMr) {
  send_inv_expecting_error(alloc_fast_mr(pair.b, 4), ORNIC_VERR_MR_STATE);
}

TEST_F(FastRegBadInvalidate, AnotherPdsMr) {
  const uint32_t other_pd = pair.b.h.alloc_pd();
  send_inv_expecting_error(alloc_fast_mr(pair.b, 4, other_pd), ORNIC_VERR_PD_MISMATCH);
}

// Every misuse of REG_MR / LOCAL_INV fails the WQE and moves the QP to ERR.
class FastRegErrors : public FastReg {};

TEST_F(FastRegErrors, RegMrOfAnotherPdsMr) {
  const uint32_t key = alloc_fast_mr(pair.b, 4, pair.b.h.alloc_pd());
  post_reg(qb, key, kRw, scattered_pages(pair.b, 1), kIova, 64);
  expect_reg_failure(ORNIC_CQE_LOC_PROT_ERR, ORNIC_VERR_PD_MISMATCH);
}

TEST_F(FastRegErrors, MorePagesThanTheCapacity) {
  const uint32_t key = alloc_fast_mr(pair.b, 2);
  post_reg(qb, key, kRw, scattered_pages(pair.b, 3), kIova, 3 * 4096 - 0x100);
  expect_reg_failure(ORNIC_CQE_LOC_PROT_ERR, ORNIC_VERR_BAD_PAGE_LIST);
}

TEST_F(FastRegErrors, MisalignedPage) {
  const uint32_t key = alloc_fast_mr(pair.b, 4);
  auto pages = scattered_pages(pair.b, 2);
  pages[1] += 0x800;
  post_reg(qb, key, kRw, pages, kIova, 4096);
  expect_reg_failure(ORNIC_CQE_LOC_PROT_ERR, ORNIC_VERR_BAD_PAGE_LIST);
}

TEST_F(FastRegErrors, PageCountDoesNotMatchTheLength) {
  const uint32_t key = alloc_fast_mr(pair.b, 4);
  post_reg(qb, key, kRw, scattered_pages(pair.b, 2), kIova, 1024);
  expect_reg_failure(ORNIC_CQE_LOC_QP_OP_ERR, ORNIC_VERR_BAD_PAGE_LIST);
}

TEST_F(FastRegErrors, RegMrOfAValidMr) {
  const uint32_t key = alloc_fast_mr(pair.b, 4);
  const auto pages = scattered_pages(pair.b, 1);
  register_on_b(key, kRw, pages, kIova, 64);
  post_reg(qb, with_variant(key, 0x40), kRw, pages, kIova, 64);
  expect_reg_failure(ORNIC_CQE_LOC_PROT_ERR, ORNIC_VERR_MR_STATE);
}

TEST_F(FastRegErrors, RegMrOfARegularMr) {
  post_reg(qb, pair.b.key, kRw, scattered_pages(pair.b, 1), kIova, 64);
  expect_reg_failure(ORNIC_CQE_LOC_PROT_ERR, ORNIC_VERR_BAD_LKEY);
}

TEST_F(FastRegErrors, BadAccessBits) {
  const uint32_t key = alloc_fast_mr(pair.b, 4);
  post_reg(qb, key, ORNIC_ACCESS_REMOTE_WRITE, scattered_pages(pair.b, 1), kIova, 64);
  expect_reg_failure(ORNIC_CQE_LOC_QP_OP_ERR, ORNIC_VERR_ACCESS);
}

TEST_F(FastRegErrors, ReservedFieldsOfTheSecondBlock) {
  const uint32_t key = alloc_fast_mr(pair.b, 4);
  auto ext = reg_ext(write_page_list(pair.b, scattered_pages(pair.b, 1)), kIova, 64);
  ext.reserved[2] = to_le(uint64_t{1});
  qb.post_reg_mr(reg_wqe(key, kRw, 1, 50), ext);
  expect_reg_failure(ORNIC_CQE_LOC_QP_OP_ERR, ORNIC_VERR_RESERVED_NONZERO);
}

TEST_F(FastRegErrors, FlagsOtherThanSignaledAndFence) {
  const uint32_t key = alloc_fast_mr(pair.b, 4);
  auto w = reg_wqe(key, kRw, 1, 50);
  w.flags |= ORNIC_WQE_FLAG_SOLICITED;
  qb.post_reg_mr(w, reg_ext(write_page_list(pair.b, scattered_pages(pair.b, 1)), kIova, 64));
  expect_reg_failure(ORNIC_CQE_LOC_QP_OP_ERR, ORNIC_VERR_RESERVED_NONZERO);
}

TEST_F(FastRegErrors, UnreadablePageList) {
  const uint32_t key = alloc_fast_mr(pair.b, 4);
  qb.post_reg_mr(reg_wqe(key, kRw, 1, 50), reg_ext(0xdead0000000ull, kIova, 64));
  expect_reg_failure(ORNIC_CQE_LOC_ACCESS_ERR, ORNIC_VERR_DMA);
}

TEST_F(FastRegErrors, UserQpCannotRegister) {
  Qp user = pair.create_qp(pair.b, ORNIC_QPT_RC, pair.alloc_db_page(pair.b));
  pair.connect(user, qa);
  const uint32_t key = alloc_fast_mr(pair.b, 4);
  post_reg(user, key, kRw, scattered_pages(pair.b, 1), kIova, 64);
  const auto done = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_LOC_QP_OP_ERR);
  EXPECT_EQ(done[0].vendor_err, ORNIC_VERR_BAD_OPCODE);
  EXPECT_EQ(user.state(), ORNIC_QPS_ERR);
}

TEST_F(FastRegErrors, LocalInvOfAFreeMr) {
  post_local_inv(qb, alloc_fast_mr(pair.b, 4));
  expect_reg_failure(ORNIC_CQE_LOC_PROT_ERR, ORNIC_VERR_MR_STATE);
}

TEST_F(FastRegErrors, LocalInvWithAStaleVariant) {
  const uint32_t key = with_variant(alloc_fast_mr(pair.b, 4), 0x31);
  register_on_b(key, kRw, scattered_pages(pair.b, 1), kIova, 64);
  post_local_inv(qb, with_variant(key, 0x30));
  expect_reg_failure(ORNIC_CQE_LOC_PROT_ERR, ORNIC_VERR_BAD_LKEY);
}

TEST_F(FastRegErrors, LocalInvOfARegularMr) {
  post_local_inv(qb, pair.b.key);
  expect_reg_failure(ORNIC_CQE_LOC_PROT_ERR, ORNIC_VERR_BAD_LKEY);
}

TEST(FastRegUd, AUdQpMayRegisterToo) {
  RdmaPair pair;
  Qp ud = pair.create_qp(pair.b, ORNIC_QPT_UD);
  pair.bring_up_ud(ud, 0x1234);
  ornic_admin_reg_mr c{};
  c.hdr.opcode = ORNIC_ADMIN_REG_MR;
  c.mem.num_pages = to_le(1u);
  c.pd = to_le(pair.b.pd);
  c.flags = ORNIC_MR_FLAG_FAST_REG;
  const uint32_t key = le(pair.b.h.execute(DriverHarness::as_sqe(c)).result0);
  const uint64_t list = pair.b.h.alloc(8, 8);
  pair.b.h.write<uint64_t>(list, to_le(pair.b.h.alloc(4096)));
  auto w = send_wqe(ORNIC_WQE_OP_REG_MR, 1);
  w.reg_mr.key = to_le(key);
  w.reg_mr.access = to_le<uint32_t>(ORNIC_ACCESS_LOCAL_WRITE);
  w.reg_mr.page_shift = 12;
  w.reg_mr.num_pages = to_le(1u);
  ornic_wqe_reg_mr_ext ext{};
  ext.pbl_addr = to_le(list);
  ext.iova = to_le(uint64_t{0x1000});
  ext.length = to_le(uint64_t{4096});
  ud.post_reg_mr(w, ext);
  const auto done = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(done[0].opcode, ORNIC_CQE_OP_REG_MR);
}

} // namespace
} // namespace ornic::test
