// On-demand paging (memory.rst "On-demand paging") end to end: ODP MRs over a page table
// the test keeps as a driver would, page faults reported on the async EQ, responder
// faults answered with RNR NAK, requester faults stalling until ODP_RESUME, the
// invalidation fence and every error case.
#include <map>

#include <gtest/gtest.h>

#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

constexpr uint64_t kIova = 0x7f1200000000; // an application address: not guest memory
constexpr uint32_t kAll = ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_REMOTE_WRITE |
                          ORNIC_ACCESS_REMOTE_READ | ORNIC_ACCESS_REMOTE_ATOMIC;

// An ODP MR of `pages` 4 KiB pages at kIova whose table lives in guest memory. Page i, when
// made resident, is backed by the node's buffer at `backing + i * 4096`.
struct OdpMr {
  Node* node = nullptr;
  uint32_t key = 0;
  uint64_t table = 0;
  uint32_t pages = 0;
  uint64_t backing = 0;
  std::map<uint32_t, uint64_t> moved; // pages backed elsewhere

  uint64_t page_dma(uint32_t page) const {
    const auto it = moved.find(page);
    return it != moved.end() ? it->second : backing + uint64_t{page} * 4096;
  }
  void set(uint32_t page, uint64_t pte) { node->h.write(table + uint64_t{page} * 8, to_le(pte)); }
  uint64_t get(uint32_t page) { return le(node->h.read<uint64_t>(table + uint64_t{page} * 8)); }
  void map(uint32_t page, bool writable = true) {
    set(page, page_dma(page) | ORNIC_ODP_PTE_VALID | (writable ? ORNIC_ODP_PTE_WRITE : 0));
  }
  std::byte* at(uint64_t offset) {
    return node->h.memory.at(page_dma(static_cast<uint32_t>(offset / 4096)) + offset % 4096);
  }
};

ornic_admin_reg_mr odp_command(Node& node, uint64_t table, uint32_t pages, uint32_t access,
                               uint8_t mode = ORNIC_MEM_MODE_DIRECT) {
  ornic_admin_reg_mr c{};
  c.hdr.opcode = ORNIC_ADMIN_REG_MR;
  c.mem.addr = to_le(table);
  c.mem.num_pages = to_le(pages);
  c.mem.page_shift = 12;
  c.mem.mode = mode;
  c.iova = to_le(kIova);
  c.length = to_le(uint64_t{pages} * 4096);
  c.pd = to_le(node.pd);
  c.access = to_le(access | ORNIC_ACCESS_ON_DEMAND);
  c.key_variant = 0x33;
  return c;
}

OdpMr reg_odp(Node& node, uint32_t pages, uint64_t backing_offset, uint32_t access = kAll) {
  OdpMr mr;
  mr.node = &node;
  mr.pages = pages;
  mr.table = node.h.alloc(uint64_t{pages} * 8, 8);
  mr.backing = node.buffer + backing_offset;
  const auto cqe =
      node.h.execute(DriverHarness::as_sqe(odp_command(node, mr.table, pages, access)));
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  mr.key = le(cqe.result0);
  return mr;
}

ornic_admin_cqe invalidate(Node& node, uint32_t key, uint32_t first, uint32_t count) {
  ornic_admin_odp_invalidate c{};
  c.hdr.opcode = ORNIC_ADMIN_ODP_INVALIDATE;
  c.key = to_le(key);
  c.first_page = to_le(first);
  c.num_pages = to_le(count);
  return node.h.execute(DriverHarness::as_sqe(c));
}

ornic_admin_cqe resume(Node& node, uint32_t qpn) {
  ornic_admin_odp_resume c{};
  c.hdr.opcode = ORNIC_ADMIN_ODP_RESUME;
  c.qpn = to_le(qpn);
  return node.h.execute(DriverHarness::as_sqe(c));
}

struct Fault {
  uint8_t flags = 0;
  uint32_t pages = 0, key = 0, page = 0, qpn = 0;
};

std::vector<Fault> drain_faults(Node& node) {
  std::vector<Fault> faults;
  while (const auto eqe = node.h.poll_async_event()) {
    if (eqe->type != ORNIC_EQE_PAGE_FAULT)
      continue;
    ornic_eqe_page_fault pf;
    std::memcpy(&pf, &*eqe, sizeof(pf));
    faults.push_back({pf.flags, le(pf.num_pages), le(pf.key), le(pf.page),
                      uint32_t{pf.qpn[0]} | uint32_t{pf.qpn[1]} << 8 | uint32_t{pf.qpn[2]} << 16});
  }
  return faults;
}

void fill(std::byte* p, size_t length, uint8_t seed) {
  for (size_t i = 0; i < length; ++i)
    p[i] = std::byte{static_cast<uint8_t>(seed + i * 13)};
}

// Plays the driver's fault handler on `node` for `mr` until `node`'s CQ has `count` CQEs:
// every PAGE_FAULT makes its pages resident and resumes a stalled requester.
std::vector<ornic_cqe> serve_until(RdmaPair& pair, Node& cq_node, size_t count,
                                   std::vector<OdpMr*> mrs, std::vector<Fault>* seen = nullptr) {
  std::vector<ornic_cqe> cqes;
  for (int step = 0; step < 400 && cqes.size() < count; ++step) {
    pair.advance(1'000'000);
    for (Node* node : {&pair.a, &pair.b})
      for (const Fault& f : drain_faults(*node)) {
        if (seen != nullptr)
          seen->push_back(f);
        for (OdpMr* mr : mrs)
          if (mr->node == node && mr->key == f.key)
            for (uint32_t p = f.page; p < f.page + f.pages; ++p)
              mr->map(p);
        if (f.flags & ORNIC_EQE_PF_REQUESTER) {
          EXPECT_EQ(resume(*node, f.qpn).status, ORNIC_ADMIN_STATUS_SUCCESS);
        }
      }
    while (auto cqe = cq_node.poll())
      cqes.push_back(*cqe);
  }
  return cqes;
}

TEST(Odp, RegistrationMakesNothingResidentAndIsAdvertised) {
  RdmaPair pair;
  EXPECT_TRUE(pair.a.h.reg(ORNIC_REG_CAPS_LO) & ORNIC_CAP_ODP);
  OdpMr mr = reg_odp(pair.b, 4, 0);
  for (uint32_t p = 0; p < 4; ++p)
    EXPECT_EQ(mr.get(p), 0u);
}

// REREG_MR replaces a page list; an ODP MR has none, so it is refused and stays usable.
TEST(Odp, ReregistrationIsRefusedAndTheMrKeepsWorking) {
  RdmaPair pair;
  OdpMr mr = reg_odp(pair.b, 2, 0);
  ornic_admin_rereg_mr c{};
  c.hdr.opcode = ORNIC_ADMIN_REREG_MR;
  c.key = to_le(mr.key);
  c.flags = ORNIC_REREG_MR_ACCESS;
  c.access = to_le(uint32_t{ORNIC_ACCESS_LOCAL_WRITE});
  EXPECT_EQ(pair.b.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(invalidate(pair.b, mr.key, 0, 2).status, ORNIC_ADMIN_STATUS_SUCCESS);
}

TEST(Odp, ResponderWriteFaultsWithRnrThenSucceedsOnceTheTableIsFilled) {
  RdmaPair pair;
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  OdpMr mr = reg_odp(pair.b, 4, 64 * 1024);
  fill(pair.a.at(0), 6000, 5);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  w.rdma.remote_addr = to_le(kIova + 100);
  w.rdma.rkey = to_le(mr.key);
  qa.post_send(w, {sge(pair.a.buffer, 6000, pair.a.key)});
  pair.pump();

  // The whole message's pages are asked for at once; nothing is written, nothing completes.
  const auto faults = drain_faults(pair.b);
  ASSERT_FALSE(faults.empty());
  EXPECT_EQ(faults[0].key, mr.key);
  EXPECT_EQ(faults[0].page, 0u);
  EXPECT_EQ(faults[0].pages, 2u);
  EXPECT_EQ(faults[0].flags, ORNIC_EQE_PF_WRITE);
  EXPECT_EQ(faults[0].qpn, qb.qpn);
  EXPECT_FALSE(pair.a.poll().has_value());
  EXPECT_GE(pair.b.counter(ORNIC_CNT_ODP_RESP_FAULTS), 1u);
  EXPECT_GE(pair.b.counter(ORNIC_CNT_RNR_NAKS), 1u);

  const auto cqes = serve_until(pair, pair.a, 1, {&mr});
  ASSERT_EQ(cqes.size(), 1u);
  EXPECT_EQ(cqes[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(std::memcmp(mr.at(100), pair.a.at(0), 4096 - 100), 0);
  EXPECT_EQ(std::memcmp(mr.at(4096), pair.a.at(4096 - 100), 6000 - (4096 - 100)), 0);
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);
}

TEST(Odp, RetriesReportTheSameFaultAtMostOncePerMillisecond) {
  RdmaPair pair;
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  OdpMr mr = reg_odp(pair.b, 1, 0);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  w.rdma.remote_addr = to_le(kIova);
  w.rdma.rkey = to_le(mr.key);
  qa.post_send(w, {sge(pair.a.buffer, 64, pair.a.key)});
  // The 10 us RNR timer retries ~50 times in 0.5 ms: one report.
  for (int i = 0; i < 50; ++i)
    pair.advance(10'000);
  EXPECT_EQ(drain_faults(pair.b).size(), 1u);
  EXPECT_GT(pair.b.counter(ORNIC_CNT_ODP_RESP_FAULTS), 10u);
  pair.advance(1'000'000);
  pair.advance(20'000);
  EXPECT_EQ(drain_faults(pair.b).size(), 1u); // reported again after a millisecond
  mr.map(0);
  const auto cqes = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(cqes.size(), 1u);
  EXPECT_EQ(cqes[0].status, ORNIC_CQE_SUCCESS);
}

TEST(Odp, ResponderSendKeepsItsReceiveWqeAcrossTheFault) {
  RdmaPair pair;
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  OdpMr mr = reg_odp(pair.b, 2, 0);
  qb.post_recv(42, {sge(kIova, 8192, mr.key)});
  qb.post_recv(43, {sge(pair.b.buffer + 65536, 4096, pair.b.key)});
  fill(pair.a.at(0), 3000, 9);
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 7), {sge(pair.a.buffer, 3000, pair.a.key)});
  std::vector<Fault> seen;
  const auto received = serve_until(pair, pair.b, 1, {&mr}, &seen);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(received[0].wr_id), 42u); // the same WQE, not the next one
  EXPECT_EQ(le(received[0].byte_len), 3000u);
  EXPECT_EQ(std::memcmp(mr.at(0), pair.a.at(0), 3000), 0);
  ASSERT_FALSE(seen.empty());
  EXPECT_FALSE(seen[0].flags & ORNIC_EQE_PF_REQUESTER);
  EXPECT_TRUE(seen[0].flags & ORNIC_EQE_PF_WRITE);
  EXPECT_EQ(pair.wait_cqes(pair.a, 1).at(0).status, ORNIC_CQE_SUCCESS);
}

TEST(Odp, ResponderReadAndAtomicFaultThenAnswer) {
  RdmaPair pair;
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  OdpMr mr = reg_odp(pair.b, 2, 0);
  fill(mr.at(0), 8192, 21); // the pages' contents, not yet resident for the device
  auto r = send_wqe(ORNIC_WQE_OP_RDMA_READ, 1);
  r.rdma.remote_addr = to_le(kIova + 10);
  r.rdma.rkey = to_le(mr.key);
  qa.post_send(r, {sge(pair.a.buffer, 5000, pair.a.key)});
  auto cqes = serve_until(pair, pair.a, 1, {&mr});
  ASSERT_EQ(cqes.size(), 1u);
  EXPECT_EQ(cqes[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(std::memcmp(pair.a.at(0), mr.at(10), 5000), 0);

  mr.set(1, 0); // the atomic's page is gone again
  const uint64_t before = le(pair.b.h.read<uint64_t>(mr.page_dma(1) + 8));
  auto f = send_wqe(ORNIC_WQE_OP_ATOMIC_FETCH_ADD, 2);
  f.atomic.remote_addr = to_le(kIova + 4096 + 8);
  f.atomic.rkey = to_le(mr.key);
  f.atomic.compare_add = to_le(uint64_t{5});
  qa.post_send(f, {sge(pair.a.buffer + 8192, 8, pair.a.key)});
  std::vector<Fault> seen;
  cqes = serve_until(pair, pair.a, 1, {&mr}, &seen);
  ASSERT_EQ(cqes.size(), 1u);
  EXPECT_EQ(cqes[0].status, ORNIC_CQE_SUCCESS);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen[0].page, 1u);
  EXPECT_EQ(le(pair.b.h.read<uint64_t>(mr.page_dma(1) + 8)), before + 5); // added once
  EXPECT_EQ(le(pair.a.h.read<uint64_t>(pair.a.buffer + 8192)), before);
}

TEST(Odp, RequesterSgeFaultStallsTheSendQueueUntilResume) {
  RdmaPair pair;
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  OdpMr mr = reg_odp(pair.a, 2, 0);
  fill(mr.at(0), 5000, 77);
  qb.post_recv(1, {sge(pair.b.buffer, 8192, pair.b.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 9), {sge(kIova, 5000, mr.key)});
  const uint64_t tx = pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS);
  pair.advance(500'000'000); // long past any ACK timeout: a stalled QP does not time out
  const auto faults = drain_faults(pair.a);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].flags, ORNIC_EQE_PF_REQUESTER);
  EXPECT_EQ(faults[0].qpn, qa.qpn);
  EXPECT_EQ(faults[0].pages, 2u);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TX_RDMA_PACKETS), tx);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_ODP_REQ_FAULTS), 1u);
  EXPECT_FALSE(pair.a.poll().has_value());
  EXPECT_EQ(qa.state(), ORNIC_QPS_RTS);

  // Resuming before the pages are there faults again; then the driver fills the table.
  EXPECT_EQ(resume(pair.a, qa.qpn).status, ORNIC_ADMIN_STATUS_SUCCESS);
  pair.pump();
  EXPECT_EQ(drain_faults(pair.a).size(), 1u);
  mr.map(0);
  mr.map(1);
  EXPECT_EQ(resume(pair.a, qa.qpn).status, ORNIC_ADMIN_STATUS_SUCCESS);
  const auto sent = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
  const auto received = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(le(received[0].byte_len), 5000u);
  EXPECT_EQ(std::memcmp(pair.b.at(0), mr.at(0), 5000), 0);
  // A RESUME of a QP that is not stalled changes nothing.
  EXPECT_EQ(resume(pair.a, qa.qpn).status, ORNIC_ADMIN_STATUS_SUCCESS);
}

TEST(Odp, ReadIntoOdpBufferFaultsAtStartAndAfterAnInvalidationMidway) {
  RdmaPair pair;
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  OdpMr mr = reg_odp(pair.a, 2, 0);
  fill(pair.b.at(0), 6000, 31);
  auto r = send_wqe(ORNIC_WQE_OP_RDMA_READ, 3);
  r.rdma.remote_addr = to_le(pair.b.buffer);
  r.rdma.rkey = to_le(pair.b.key);
  qa.post_send(r, {sge(kIova + 1000, 6000, mr.key)});
  pair.pump();
  auto faults = drain_faults(pair.a);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].flags, ORNIC_EQE_PF_REQUESTER | ORNIC_EQE_PF_WRITE);
  // Only page 0 comes in, so the response for page 1 is dropped and read again.
  mr.map(0);
  EXPECT_EQ(resume(pair.a, qa.qpn).status, ORNIC_ADMIN_STATUS_SUCCESS);
  const auto cqes = serve_until(pair, pair.a, 1, {&mr});
  ASSERT_EQ(cqes.size(), 1u);
  EXPECT_EQ(cqes[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(std::memcmp(mr.at(1000), pair.b.at(0), 3096), 0);
  EXPECT_EQ(std::memcmp(mr.at(4096), pair.b.at(3096), 6000 - 3096), 0);
}

TEST(Odp, InvalidationIsAFenceAndTheNextAccessFaultsIntoTheNewPage) {
  RdmaPair pair;
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  OdpMr mr = reg_odp(pair.b, 2, 0);
  mr.map(0);
  mr.map(1);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  w.rdma.remote_addr = to_le(kIova);
  w.rdma.rkey = to_le(mr.key);
  fill(pair.a.at(0), 100, 1);
  qa.post_send(w, {sge(pair.a.buffer, 100, pair.a.key)});
  ASSERT_EQ(pair.wait_cqes(pair.a, 1).at(0).status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_ODP_RESP_FAULTS), 0u);

  // The host takes page 0 away: clear, fence, and the page is the host's again.
  const std::vector<std::byte> old(mr.at(0), mr.at(0) + 100);
  mr.set(0, 0);
  EXPECT_EQ(invalidate(pair.b, mr.key, 0, 1).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_ODP_INVALIDATIONS), 1u);
  mr.moved[0] = pair.b.buffer + 512 * 1024; // faulted back in elsewhere
  fill(pair.a.at(0), 100, 99);
  qa.post_send(w, {sge(pair.a.buffer, 100, pair.a.key)});
  std::vector<Fault> seen;
  const auto cqes = serve_until(pair, pair.a, 1, {&mr}, &seen);
  ASSERT_EQ(cqes.size(), 1u);
  EXPECT_EQ(cqes[0].status, ORNIC_CQE_SUCCESS);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen[0].page, 0u);
  EXPECT_EQ(seen[0].pages, 1u);
  EXPECT_EQ(std::memcmp(mr.at(0), pair.a.at(0), 100), 0);
  EXPECT_EQ(std::memcmp(pair.b.at(0), old.data(), 100), 0); // the old page is untouched
}

TEST(Odp, ErrorEntryFailsTheAccessAndOtherQpsKeepWorking) {
  RdmaPair pair;
  auto [qa, qb] = pair.rc_pair();
  auto [qa2, qb2] = pair.rc_pair();
  OdpMr mr = reg_odp(pair.b, 2, 0);
  mr.set(0, ORNIC_ODP_PTE_ERROR);
  const std::vector<std::byte> old(mr.at(0), mr.at(0) + 64);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  w.rdma.remote_addr = to_le(kIova);
  w.rdma.rkey = to_le(mr.key);
  qa.post_send(w, {sge(pair.a.buffer, 64, pair.a.key)});
  const auto cqes = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(cqes.size(), 1u);
  EXPECT_EQ(cqes[0].status, ORNIC_CQE_REM_ACCESS_ERR);
  EXPECT_EQ(std::memcmp(mr.at(0), old.data(), 64), 0);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_ODP_ERRORS), 1u);
  EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);

  // Locally the same entry is a protection error of the WQE.
  auto [qa3, qb3] = pair.rc_pair();
  qb3.post_recv(1, {sge(pair.b.buffer, 4096, pair.b.key)});
  mr.map(1);
  qb3.post_recv(2, {sge(kIova, 64, mr.key)});
  auto s = send_wqe(ORNIC_WQE_OP_SEND, 4);
  qa3.post_send(s, {sge(pair.a.buffer, 64, pair.a.key)});
  qa3.post_send(s, {sge(pair.a.buffer, 64, pair.a.key)});
  const auto recvs = pair.wait_cqes(pair.b, 2);
  ASSERT_EQ(recvs.size(), 2u);
  EXPECT_EQ(recvs[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(recvs[1].status, ORNIC_CQE_LOC_PROT_ERR);
  EXPECT_EQ(recvs[1].vendor_err, ORNIC_VERR_ODP_ERROR);

  // Another QP pair with ordinary MRs is unaffected.
  qb2.post_recv(9, {sge(pair.b.buffer + 8192, 64, pair.b.key)});
  qa2.post_send(send_wqe(ORNIC_WQE_OP_SEND, 5), {sge(pair.a.buffer, 64, pair.a.key)});
  const auto sent = pair.wait_cqes(pair.a, 1);
  ASSERT_FALSE(sent.empty());
  bool ok = false;
  for (const auto& c : sent)
    ok |= le(c.wr_id) == 5u && c.status == ORNIC_CQE_SUCCESS;
  EXPECT_TRUE(ok || pair.wait_cqes(pair.a, 1).at(0).status == ORNIC_CQE_SUCCESS);
}

TEST(Odp, UnreadableTableIsAnErrorNotACrash) {
  RdmaPair pair;
  auto [qa, qb] = pair.rc_pair();
  // CONTIG/DIRECT tables are not read at registration: the bad address shows at access.
  auto c = odp_command(pair.b, 0x7000000000, 2, kAll);
  const auto reg = pair.b.h.execute(DriverHarness::as_sqe(c));
  ASSERT_EQ(reg.status, ORNIC_ADMIN_STATUS_SUCCESS);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  w.rdma.remote_addr = to_le(kIova);
  w.rdma.rkey = reg.result0;
  qa.post_send(w, {sge(pair.a.buffer, 64, pair.a.key)});
  const auto cqes = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(cqes.size(), 1u);
  EXPECT_EQ(cqes[0].status, ORNIC_CQE_REM_OP_ERR);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_ODP_ERRORS), 1u);

  // Locally: LOC_ACCESS_ERR with ODP_TABLE.
  auto local = odp_command(pair.a, 0x7000000000, 2, kAll);
  const auto reg_a = pair.a.h.execute(DriverHarness::as_sqe(local));
  ASSERT_EQ(reg_a.status, ORNIC_ADMIN_STATUS_SUCCESS);
  auto [qa2, qb2] = pair.rc_pair();
  qb2.post_recv(1, {sge(pair.b.buffer, 4096, pair.b.key)});
  qa2.post_send(send_wqe(ORNIC_WQE_OP_SEND, 2), {sge(kIova, 64, le(reg_a.result0))});
  const auto failed = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].status, ORNIC_CQE_LOC_ACCESS_ERR);
  EXPECT_EQ(failed[0].vendor_err, ORNIC_VERR_ODP_TABLE);

  // INDIRECT pointers are read at registration: unreadable is BAD_DMA.
  auto indirect = odp_command(pair.b, 0x7000000000, 600, kAll, ORNIC_MEM_MODE_INDIRECT);
  EXPECT_EQ(pair.b.h.execute(DriverHarness::as_sqe(indirect)).status, ORNIC_ADMIN_STATUS_BAD_DMA);
}

TEST(Odp, IndirectTableTranslatesAcrossTablePages) {
  RdmaPair pair;
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  constexpr uint32_t kPages = 600; // two table pages
  const uint64_t pointers = pair.b.h.alloc(16, 8);
  const uint64_t t0 = pair.b.h.alloc(4096), t1 = pair.b.h.alloc(4096);
  pair.b.h.write(pointers, to_le(t0));
  pair.b.h.write(pointers + 8, to_le(t1));
  auto c = odp_command(pair.b, pointers, kPages, kAll, ORNIC_MEM_MODE_INDIRECT);
  const auto reg = pair.b.h.execute(DriverHarness::as_sqe(c));
  ASSERT_EQ(reg.status, ORNIC_ADMIN_STATUS_SUCCESS);
  // Page 513 is the second entry of the second table page.
  const uint64_t target = pair.b.buffer + 4096 * 3;
  pair.b.h.write(t1 + 8, to_le(target | ORNIC_ODP_PTE_VALID | ORNIC_ODP_PTE_WRITE));
  fill(pair.a.at(0), 200, 4);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  w.rdma.remote_addr = to_le(kIova + 513 * 4096 + 16);
  w.rdma.rkey = reg.result0;
  qa.post_send(w, {sge(pair.a.buffer, 200, pair.a.key)});
  ASSERT_EQ(pair.wait_cqes(pair.a, 1).at(0).status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(std::memcmp(pair.b.h.memory.at(target + 16), pair.a.at(0), 200), 0);
}

TEST(Odp, ReadOnlyEntryFaultsForAWrite) {
  RdmaPair pair;
  auto [qa, qb] = pair.rc_pair();
  OdpMr mr = reg_odp(pair.b, 1, 0);
  mr.map(0, false);
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  w.rdma.remote_addr = to_le(kIova);
  w.rdma.rkey = to_le(mr.key);
  qa.post_send(w, {sge(pair.a.buffer, 8, pair.a.key)});
  pair.pump();
  const auto faults = drain_faults(pair.b);
  ASSERT_FALSE(faults.empty());
  EXPECT_EQ(faults[0].flags, ORNIC_EQE_PF_WRITE);
  // A READ of the same page needs no WRITE bit.
  auto [qa2, qb2] = pair.rc_pair();
  auto r = send_wqe(ORNIC_WQE_OP_RDMA_READ, 2);
  r.rdma.remote_addr = to_le(kIova);
  r.rdma.rkey = to_le(mr.key);
  qa2.post_send(r, {sge(pair.a.buffer + 4096, 8, pair.a.key)});
  bool read_done = false;
  for (int i = 0; i < 50 && !read_done; ++i) {
    pair.advance(1'000'000);
    while (auto cqe = pair.a.poll())
      if (le(cqe->wr_id) == 2u) {
        EXPECT_EQ(cqe->status, ORNIC_CQE_SUCCESS);
        read_done = true;
      }
  }
  EXPECT_TRUE(read_done);
}

TEST(Odp, UdReceiveIntoOdpMemoryDropsTheFirstDatagramThenDelivers) {
  RdmaPair pair;
  Qp ua = pair.create_qp(pair.a, ORNIC_QPT_UD);
  Qp ub = pair.create_qp(pair.b, ORNIC_QPT_UD);
  pair.bring_up_ud(ua, 5);
  pair.bring_up_ud(ub, 5);
  const uint32_t ah = pair.create_ah(pair.a, pair.b);
  OdpMr mr = reg_odp(pair.b, 1, 0);
  ub.post_recv(11, {sge(kIova, 40 + 256, mr.key)});
  auto w = send_wqe(ORNIC_WQE_OP_SEND, 1);
  w.ud.ah = to_le(ah);
  w.ud.remote_qpn = to_le(ub.qpn);
  w.ud.qkey = to_le(5u);
  fill(pair.a.at(0), 256, 8);
  ua.post_send(w, {sge(pair.a.buffer, 256, pair.a.key)});
  pair.pump();
  EXPECT_FALSE(pair.b.poll().has_value());
  const auto faults = drain_faults(pair.b);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].qpn, ub.qpn);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_ODP_RESP_FAULTS), 1u);
  mr.map(0);
  fill(pair.a.at(0), 256, 60);
  ua.post_send(w, {sge(pair.a.buffer, 256, pair.a.key)});
  const auto received = pair.wait_cqes(pair.b, 1);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(received[0].wr_id), 11u);
  EXPECT_EQ(std::memcmp(mr.at(40), pair.a.at(0), 256), 0);
}

TEST(Odp, AdminCommandsRejectBadInput) {
  RdmaPair pair;
  Node& n = pair.b;
  OdpMr mr = reg_odp(n, 4, 0);
  EXPECT_EQ(invalidate(n, mr.key, 0, 4).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(invalidate(n, mr.key, 3, 2).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(invalidate(n, mr.key, 0, 0).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(invalidate(n, mr.key ^ 1, 0, 1).status, ORNIC_ADMIN_STATUS_BAD_HANDLE);
  EXPECT_EQ(invalidate(n, n.key, 0, 1).status, ORNIC_ADMIN_STATUS_BAD_HANDLE); // not ODP
  ornic_admin_odp_invalidate dirty{};
  dirty.hdr.opcode = ORNIC_ADMIN_ODP_INVALIDATE;
  dirty.key = to_le(mr.key);
  dirty.num_pages = to_le(1u);
  dirty.reserved[3] = 1;
  EXPECT_EQ(n.h.execute(DriverHarness::as_sqe(dirty)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(resume(n, 999).status, ORNIC_ADMIN_STATUS_BAD_HANDLE);

  const uint64_t table = n.h.alloc(64, 8);
  auto c = odp_command(n, table, 2, kAll);
  c.flags = ORNIC_MR_FLAG_FAST_REG;
  // FAST_REG wins the dispatch and refuses the non-zero fields.
  EXPECT_EQ(n.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = odp_command(n, table, 2, kAll);
  c.flags = ORNIC_MR_FLAG_PHYSICAL;
  EXPECT_EQ(n.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = odp_command(n, table, 3, kAll);
  c.length = to_le(uint64_t{2} * 4096); // 3 entries for 2 pages
  EXPECT_EQ(n.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = odp_command(n, table + 4, 2, kAll); // misaligned table
  EXPECT_EQ(n.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_ALIGNMENT);
  c = odp_command(n, table, 2, ORNIC_ACCESS_REMOTE_WRITE); // remote write needs local write
  EXPECT_EQ(n.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  c = odp_command(n, table, 2, kAll);
  c.mem.page_shift = 11;
  EXPECT_EQ(n.h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);

  // DEREG_MR ends the MR: its key is no longer an ODP MR.
  ASSERT_EQ(n.h.execute(DriverHarness::simple(ORNIC_ADMIN_DEREG_MR, mr.key)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(invalidate(n, mr.key, 0, 1).status, ORNIC_ADMIN_STATUS_BAD_HANDLE);
}

TEST(Odp, StalledRequesterWhoseMrIsDeregisteredFailsOnResume) {
  RdmaPair pair;
  auto [qa, qb] = pair.rc_pair();
  OdpMr mr = reg_odp(pair.a, 1, 0);
  qb.post_recv(1, {sge(pair.b.buffer, 4096, pair.b.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 6), {sge(kIova, 64, mr.key)});
  pair.pump();
  ASSERT_EQ(drain_faults(pair.a).size(), 1u);
  ASSERT_EQ(pair.a.h.execute(DriverHarness::simple(ORNIC_ADMIN_DEREG_MR, mr.key)).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(resume(pair.a, qa.qpn).status, ORNIC_ADMIN_STATUS_SUCCESS);
  const auto cqes = pair.wait_cqes(pair.a, 1);
  ASSERT_EQ(cqes.size(), 1u);
  EXPECT_EQ(le(cqes[0].wr_id), 6u);
  EXPECT_EQ(cqes[0].status, ORNIC_CQE_LOC_PROT_ERR);
}

} // namespace
} // namespace ornic::test
