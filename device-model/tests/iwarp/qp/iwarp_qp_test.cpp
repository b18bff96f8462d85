// The QPs of an iWARP port (iwarp-cm.rst, "QPs on an iWARP port"): two models on one wire,
// IW_LISTEN / IW_CONNECT / IW_ACCEPT binding a QP on each side, then RDMAP traffic placed in
// guest memory, the local WQEs (fast registration, LOCAL_INV, BIND_MW) as on RoCE, and what
// a bad segment costs (TERMINATE, QP to ERR).
#include <algorithm>
#include <cstring>
#include <span>

#include <gtest/gtest.h>

#include "iwarp/fpdu.hpp"
#include "iwarp/segment.hpp"
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

constexpr uint32_t kFastRw =
    ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ;
constexpr uint64_t kIova = 0x7f0000000100ull; // 0x100 into its first page

uint32_t with_variant(uint32_t key, uint8_t variant) {
  return (key & ~ORNIC_MR_KEY_VARIANT_MASK) | variant;
}

// The causes of the TERMINATEs in one IPv4/TCP frame whose payload starts with an FPDU.
std::vector<iwarp::TerminateCause> terminates_in(const LossyWire::Frame& frame) {
  std::vector<iwarp::TerminateCause> found;
  const auto byte = [&](size_t i) { return std::to_integer<size_t>(frame[i]); };
  constexpr size_t kIp = 14;
  if (frame.size() < kIp + 20 || byte(12) != 0x08 || byte(13) != 0x00 || byte(kIp + 9) != 6)
    return found;
  const size_t ip_end = kIp + ((byte(kIp + 2) << 8) | byte(kIp + 3));
  const size_t tcp = kIp + (byte(kIp) & 0xf) * 4;
  if (ip_end > frame.size() || tcp + 20 > ip_end)
    return found;
  size_t at = tcp + (byte(tcp + 12) >> 4) * 4;
  while (at + iwarp::kFpduLengthSize <= ip_end) {
    const size_t length = (byte(at) << 8) | byte(at + 1);
    if (at + iwarp::fpdu_size(length) > ip_end)
      break;
    const auto ulpdu = std::span(reinterpret_cast<const uint8_t*>(frame.data()) + at + 2, length);
    const iwarp::SegmentParse parse = iwarp::parse_segment(ulpdu);
    if (parse.segment && parse.segment->terminate)
      found.push_back(parse.segment->terminate->cause);
    at += iwarp::fpdu_size(length);
  }
  return found;
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

  // Records the causes of the TERMINATEs each side sends.
  void watch_terminates() {
    pair.wire.policy = [this](int side, uint64_t, const LossyWire::Frame& frame) {
      for (const auto& cause : terminates_in(frame))
        terminates_sent[side].push_back(cause);
      return WireAction::deliver;
    };
  }

  // A FREE fast-reg MR of `node`'s PD; its key.
  uint32_t alloc_fast_mr(Node& node, uint32_t capacity) {
    ornic_admin_reg_mr c{};
    c.hdr.opcode = ORNIC_ADMIN_REG_MR;
    c.mem.num_pages = to_le(capacity);
    c.pd = to_le(node.pd);
    c.key_variant = 0x30;
    c.flags = ORNIC_MR_FLAG_FAST_REG;
    const auto cqe = node.h.execute(DriverHarness::as_sqe(c));
    EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
    return le(cqe.result0);
  }

  // `count` 4 KiB pages of `node`, highest address first, so that the region is not
  // contiguous in guest memory.
  std::vector<uint64_t> pages_of(Node& node, size_t count) {
    std::vector<uint64_t> pages;
    for (size_t i = 0; i < count; ++i)
      pages.push_back(node.h.alloc(4096, 4096));
    std::reverse(pages.begin(), pages.end());
    return pages;
  }

  // The byte at offset `k` of a region at kIova over `pages` of `node`.
  std::byte* region_byte(Node& node, const std::vector<uint64_t>& pages, uint64_t k) {
    const uint64_t at = (kIova & 4095) + k;
    return node.h.memory.at(pages[at / 4096] + at % 4096);
  }

  // Posts a REG_MR WQE on `qp` making `key` a region of `length` bytes at kIova over `pages`.
  void post_reg(Qp& qp, uint32_t key, uint32_t access, const std::vector<uint64_t>& pages,
                uint64_t length, uint64_t wr_id = 50) {
    Node& node = *qp.node;
    const uint64_t list = node.h.alloc(pages.size() * 8, 8);
    for (size_t i = 0; i < pages.size(); ++i)
      node.h.write<uint64_t>(list + 8 * i, to_le(pages[i]));
    auto w = send_wqe(ORNIC_WQE_OP_REG_MR, wr_id);
    w.reg_mr.key = to_le(key);
    w.reg_mr.access = to_le(access);
    w.reg_mr.page_shift = 12;
    w.reg_mr.num_pages = to_le(static_cast<uint32_t>(pages.size()));
    ornic_wqe_reg_mr_ext ext{};
    ext.pbl_addr = to_le(list);
    ext.iova = to_le(kIova);
    ext.length = to_le(length);
    qp.post_reg_mr(w, ext);
  }

  // REG_MR on `qp`, which must complete.
  void register_fast(Qp& qp, uint32_t key, uint32_t access, const std::vector<uint64_t>& pages,
                     uint64_t length) {
    post_reg(qp, key, access, pages, length);
    const auto done = cqes(*qp.node, 1);
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
    EXPECT_EQ(done[0].opcode, ORNIC_CQE_OP_REG_MR);
    EXPECT_EQ(le(done[0].wr_id), 50u);
  }

  static void post_local_inv(Qp& qp, uint32_t key, uint64_t wr_id = 60) {
    auto w = send_wqe(ORNIC_WQE_OP_LOCAL_INV, wr_id);
    w.invalidate_rkey = to_le(key);
    qp.post_send(w, {});
  }

  // An RDMA WRITE or READ of `length` bytes from `qp` (on A) at `remote` under `rkey`,
  // locally at A's buffer + `local`.
  void post_rdma(Qp& qp, uint8_t opcode, uint64_t remote, uint32_t rkey, uint32_t length,
                 uint64_t local = 0, uint64_t wr_id = 1) {
    auto w = send_wqe(opcode, wr_id);
    w.rdma.remote_addr = to_le(remote);
    w.rdma.rkey = to_le(rkey);
    qp.post_send(w, {sge(pair.a.buffer + local, length, pair.a.key)});
  }

  // `qa` (A) wrote to a key B no longer has: B terminated for an invalid STag, both in ERR.
  void expect_invalid_stag_terminate(Qp& qa, Qp& qb) {
    ASSERT_TRUE(wait_event(pair.b, ORNIC_EQE_QP_ACCESS_ERR).has_value());
    EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
    ASSERT_TRUE(wait_event(pair.a, ORNIC_EQE_QP_FATAL).has_value());
    EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
    ASSERT_EQ(terminates_sent[1].size(), 1u);
    EXPECT_EQ(terminates_sent[1][0], iwarp::cause::ddp_tagged_invalid_stag);
    EXPECT_TRUE(terminates_sent[0].empty());
  }

  RdmaPair pair;
  std::vector<ornic_eqe> other_events;
  std::vector<iwarp::TerminateCause> terminates_sent[2];
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
  // Every byte went to the QP: none counted as dropped.
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_IW_RX_DROPPED_BYTES), 0u);
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

// A WRITE fenced behind a READ sends what the READ fetched into the same buffer; unfenced, it
// would leave before the Read Response arrives.
TEST_F(IwarpQp, FencedWriteWaitsForTheReadBeforeIt) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  constexpr uint32_t kLength = 5000;
  fill(pair.a, 0, kLength, 1);
  fill(pair.b, 65536, kLength, 55);
  auto r = send_wqe(ORNIC_WQE_OP_RDMA_READ, 1);
  r.rdma.remote_addr = to_le(pair.b.buffer + 65536);
  r.rdma.rkey = to_le(pair.b.key);
  qa.post_send(r, {sge(pair.a.buffer, kLength, pair.a.key)});
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 2, ORNIC_WQE_FLAG_SIGNALED | ORNIC_WQE_FLAG_FENCE);
  w.rdma.remote_addr = to_le(pair.b.buffer + 131072);
  w.rdma.rkey = to_le(pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer, kLength, pair.a.key)});
  const auto done = cqes(pair.a, 2);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].opcode, ORNIC_CQE_OP_RDMA_READ);
  EXPECT_EQ(done[1].opcode, ORNIC_CQE_OP_RDMA_WRITE);
  for (const auto& cqe : done)
    EXPECT_EQ(cqe.status, ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(same(pair.b, 65536, pair.b, 131072, kLength));
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
  // The device counters say what happened: one TERMINATE each way, a well-formed segment.
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_IW_TERMINATES_SENT), 1u);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_IW_TERMINATES_RECEIVED), 1u);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_IW_TERMINATES_SENT), 0u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_IW_RX_BAD_SEGMENT), 0u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_IW_RX_BAD_FPDU), 0u);
  EXPECT_GT(pair.a.counter(ORNIC_CNT_IW_TCP_TX_FRAMES), 0u);
  EXPECT_GT(pair.b.counter(ORNIC_CNT_IW_TCP_RX_FRAMES), 0u);
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

TEST_F(IwarpQp, FastRegisteredMrTakesThePeersWriteAndRead) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  const uint32_t key = with_variant(alloc_fast_mr(pair.b, 8), 0x31);
  const auto pages = pages_of(pair.b, 3);
  const uint32_t length = 3 * 4096 - 0x100 - 0x80; // three pages, offset in the first
  register_fast(qb, key, kFastRw, pages, length);

  fill(pair.a, 0, length, 5);
  post_rdma(qa, ORNIC_WQE_OP_RDMA_WRITE, kIova, key, length);
  auto done = cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  for (uint32_t k = 0; k < length; ++k)
    ASSERT_EQ(*region_byte(pair.b, pages, k), *pair.a.at(k)) << "offset " << k;

  // Back from the middle of the region, across a page boundary, into other memory.
  constexpr uint32_t kRead = 5000;
  constexpr uint64_t kLocal = 256 * 1024;
  post_rdma(qa, ORNIC_WQE_OP_RDMA_READ, kIova + 100, key, kRead, kLocal, 2);
  done = cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(done[0].byte_len), kRead);
  for (uint32_t k = 0; k < kRead; ++k)
    ASSERT_EQ(*pair.a.at(kLocal + k), *pair.a.at(100 + k)) << "offset " << k;
  EXPECT_EQ(qa.state(), ORNIC_QPS_RTS);
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);
}

// What the kernel's rdma_rw does for an iWARP READ: the sink is an FRWR MR registered by a
// REG_MR posted just before the READ, its key the sink STag of the Read Request.
TEST_F(IwarpQp, ReadIntoAFastRegisteredSink) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  const uint32_t key = with_variant(alloc_fast_mr(pair.a, 4), 0x32);
  const auto pages = pages_of(pair.a, 2);
  constexpr uint32_t kLength = 6000;
  fill(pair.b, 4096, kLength, 41);
  post_reg(qa, key, ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_REMOTE_WRITE, pages, kLength);
  auto r = send_wqe(ORNIC_WQE_OP_RDMA_READ, 2);
  r.rdma.remote_addr = to_le(pair.b.buffer + 4096);
  r.rdma.rkey = to_le(pair.b.key);
  qa.post_send(r, {sge(kIova, kLength, key)});
  const auto done = cqes(pair.a, 2);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].opcode, ORNIC_CQE_OP_REG_MR);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(done[1].opcode, ORNIC_CQE_OP_RDMA_READ);
  EXPECT_EQ(done[1].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(done[1].byte_len), kLength);
  for (uint32_t k = 0; k < kLength; ++k)
    ASSERT_EQ(*region_byte(pair.a, pages, k), *pair.b.at(4096 + k)) << "offset " << k;
}

// IB_WR_RDMA_READ_WITH_INV, which rdma_rw posts for READ sinks on iWARP ports: once the
// data is placed the sink's key is invalid, and the READ completes as a READ.  The key is
// the sink SGE's (rdma_rw's ex.invalidate_rkey is the MR's key before the REG_MR's bump).
TEST_F(IwarpQp, ReadWithInvalidateFreesTheSinkKey) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  const uint32_t key = with_variant(alloc_fast_mr(pair.a, 4), 0x34);
  const auto pages = pages_of(pair.a, 1);
  constexpr uint32_t kLength = 3000;
  fill(pair.b, 0, kLength, 43);
  post_reg(qa, key, ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_REMOTE_WRITE, pages, kLength);
  auto r = send_wqe(ORNIC_WQE_OP_RDMA_READ_INV, 2);
  r.rdma.remote_addr = to_le(pair.b.buffer);
  r.rdma.rkey = to_le(pair.b.key);
  qa.post_send(r, {sge(kIova, kLength, key)});
  auto done = cqes(pair.a, 2);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[1].opcode, ORNIC_CQE_OP_RDMA_READ);
  EXPECT_EQ(done[1].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(done[1].wr_id), 2u);
  for (uint32_t k = 0; k < kLength; ++k)
    ASSERT_EQ(*region_byte(pair.a, pages, k), *pair.b.at(k)) << "offset " << k;
  // The key is FREE: a READ into it fails locally.
  auto again = send_wqe(ORNIC_WQE_OP_RDMA_READ, 3);
  again.rdma.remote_addr = to_le(pair.b.buffer);
  again.rdma.rkey = to_le(pair.b.key);
  qa.post_send(again, {sge(kIova, 64, key)});
  done = cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_LOC_PROT_ERR);
}

TEST_F(IwarpQp, ReadWithInvalidateOfAKeyItCannotInvalidateFails) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  auto r = send_wqe(ORNIC_WQE_OP_RDMA_READ_INV, 4);
  r.rdma.remote_addr = to_le(pair.b.buffer);
  r.rdma.rkey = to_le(pair.b.key);
  // The sink is an ordinary MR: LOCAL_INV cannot take its key.
  qa.post_send(r, {sge(pair.a.buffer, 64, pair.a.key)});
  const auto done = cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].opcode, ORNIC_CQE_OP_RDMA_READ);
  EXPECT_NE(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
}

TEST_F(IwarpQp, LocalInvThenAPeerWriteTerminates) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  watch_terminates();
  const uint32_t key = with_variant(alloc_fast_mr(pair.b, 4), 0x31);
  const auto pages = pages_of(pair.b, 1);
  register_fast(qb, key, kFastRw, pages, 1024);
  post_rdma(qa, ORNIC_WQE_OP_RDMA_WRITE, kIova, key, 64);
  auto done = cqes(pair.a, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);

  post_local_inv(qb, key);
  done = cqes(pair.b, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(done[0].opcode, ORNIC_CQE_OP_LOCAL_INV);
  EXPECT_EQ(le(done[0].wr_id), 60u);

  post_rdma(qa, ORNIC_WQE_OP_RDMA_WRITE, kIova, key, 64);
  expect_invalid_stag_terminate(qa, qb);
}

TEST_F(IwarpQp, SendWithInvalidateOfAFastRegisteredMr) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  watch_terminates();
  const uint32_t key = with_variant(alloc_fast_mr(pair.b, 4), 0x33);
  register_fast(qb, key, kFastRw, pages_of(pair.b, 1), 1024);
  qb.post_recv(7, {sge(pair.b.buffer, 64, pair.b.key)});
  auto w = send_wqe(ORNIC_WQE_OP_SEND_INV, 8);
  w.invalidate_rkey = to_le(key);
  qa.post_send(w, {sge(pair.a.buffer, 16, pair.a.key)});
  const auto recv = cqes(pair.b, 1);
  ASSERT_EQ(recv.size(), 1u);
  EXPECT_EQ(recv[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(recv[0].opcode, ORNIC_CQE_OP_RECV);
  EXPECT_EQ(recv[0].flags & ORNIC_CQE_FLAG_INV, ORNIC_CQE_FLAG_INV);
  EXPECT_EQ(le(recv[0].imm_data), key);
  EXPECT_EQ(le(recv[0].byte_len), 16u);
  const auto sent = cqes(pair.a, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(qb.state(), ORNIC_QPS_RTS);

  post_rdma(qa, ORNIC_WQE_OP_RDMA_WRITE, kIova, key, 64);
  expect_invalid_stag_terminate(qa, qb);
}

// REG_MR, a multi-segment Send from the new region and LOCAL_INV of it, posted together:
// the Send uses the new key, and LOCAL_INV waits until TCP has had the Send acknowledged.
TEST_F(IwarpQp, LocalOpsKeepSqOrder) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  const uint32_t key = with_variant(alloc_fast_mr(pair.a, 4), 0x34);
  const auto pages = pages_of(pair.a, 2);
  constexpr uint32_t kLength = 4000;
  for (uint32_t k = 0; k < kLength; ++k)
    *region_byte(pair.a, pages, k) = std::byte(k * 3 + 1);
  qb.post_recv(1, {sge(pair.b.buffer, 8192, pair.b.key)});
  post_reg(qa, key, ORNIC_ACCESS_LOCAL_WRITE, pages, kLength);
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 2), {sge(kIova, kLength, key)});
  post_local_inv(qa, key);
  const auto done = cqes(pair.a, 3);
  ASSERT_EQ(done.size(), 3u);
  EXPECT_EQ(done[0].opcode, ORNIC_CQE_OP_REG_MR);
  EXPECT_EQ(done[1].opcode, ORNIC_CQE_OP_SEND);
  EXPECT_EQ(done[2].opcode, ORNIC_CQE_OP_LOCAL_INV);
  for (const auto& cqe : done)
    EXPECT_EQ(cqe.status, ORNIC_CQE_SUCCESS);
  const auto recv = cqes(pair.b, 1);
  ASSERT_EQ(recv.size(), 1u);
  EXPECT_EQ(le(recv[0].byte_len), kLength);
  for (uint32_t k = 0; k < kLength; ++k)
    ASSERT_EQ(*pair.b.at(k), std::byte(k * 3 + 1)) << "offset " << k;

  // The key is gone: a Send from it fails locally.
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 3), {sge(kIova, 16, key)});
  const auto failed = cqes(pair.a, 1);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].status, ORNIC_CQE_LOC_PROT_ERR);
  EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
}

// A failing local operation fails its QP as on RoCE: its CQE carries the error, the WQE
// behind it flushes, and the connection closes.
TEST_F(IwarpQp, AFailedRegMrFailsTheQp) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  const uint32_t key = with_variant(alloc_fast_mr(pair.b, 4), 0x31);
  const auto pages = pages_of(pair.b, 1);
  register_fast(qb, key, kFastRw, pages, 1024);
  post_reg(qb, key, kFastRw, pages, 1024, 51); // VALID: must be invalidated first
  qb.post_send(send_wqe(ORNIC_WQE_OP_SEND, 52), {});
  const auto done = cqes(pair.b, 2);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(le(done[0].wr_id), 51u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_LOC_PROT_ERR);
  EXPECT_EQ(done[0].vendor_err, ORNIC_VERR_MR_STATE);
  EXPECT_EQ(le(done[1].wr_id), 52u);
  EXPECT_EQ(done[1].status, ORNIC_CQE_WR_FLUSH_ERR);
  EXPECT_EQ(qb.state(), ORNIC_QPS_ERR);
  EXPECT_GE(pair.b.counter(ORNIC_CNT_WQE_ERRORS), 1u);
  ASSERT_TRUE(wait_event(pair.a, ORNIC_EQE_IW_DISCONNECT).has_value());
  EXPECT_EQ(qa.state(), ORNIC_QPS_ERR);
}

// A type-2 window bound from an iWARP QP: the peer writes and reads through it on that QP's
// connection, and a Send with Invalidate ends it.
TEST_F(IwarpQp, BindMwThenAccessAndInvalidateThroughTheWindow) {
  listen();
  Qp qa = init_qp(pair.a), qb = init_qp(pair.b);
  establish(qa, qb);
  watch_terminates();
  const uint64_t mr_base = pair.b.buffer + 64 * 1024;
  const uint32_t mr_key =
      pair.b.reg_mr(mr_base, 16 * 1024, ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_MW_BIND);
  ornic_admin_alloc_mw c{};
  c.hdr.opcode = ORNIC_ADMIN_ALLOC_MW;
  c.pd = to_le(pair.b.pd);
  c.type = ORNIC_MW_TYPE_2;
  c.key_variant = 0x40;
  const auto alloc = pair.b.h.execute(DriverHarness::as_sqe(c));
  ASSERT_EQ(alloc.status, ORNIC_ADMIN_STATUS_SUCCESS);
  const uint32_t mw_key = with_variant(le(alloc.result0), 0x41);
  const uint64_t win = mr_base + 4096;
  auto bind = send_wqe(ORNIC_WQE_OP_BIND_MW, 80);
  bind.num_blocks = 1;
  bind.bind_mw.mw_key = to_le(mw_key);
  bind.bind_mw.mr_key = to_le(mr_key);
  bind.bind_mw.addr = to_le(win);
  bind.bind_mw.length = to_le<uint64_t>(4096);
  bind.bind_mw.access = to_le(ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ);
  qb.post_send(bind, {});
  auto done = cqes(pair.b, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(done[0].opcode, ORNIC_CQE_OP_BIND_MW);

  fill(pair.a, 0, 2000, 13);
  post_rdma(qa, ORNIC_WQE_OP_RDMA_WRITE, win + 100, mw_key, 2000);
  post_rdma(qa, ORNIC_WQE_OP_RDMA_READ, win + 100, mw_key, 2000, 128 * 1024, 2);
  done = cqes(pair.a, 2);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(done[1].status, ORNIC_CQE_SUCCESS);
  EXPECT_TRUE(same(pair.a, 0, pair.b, 64 * 1024 + 4096 + 100, 2000));
  EXPECT_TRUE(same(pair.a, 0, pair.a, 128 * 1024, 2000));

  qb.post_recv(7, {sge(pair.b.buffer, 64, pair.b.key)});
  auto w = send_wqe(ORNIC_WQE_OP_SEND_INV, 8);
  w.invalidate_rkey = to_le(mw_key);
  qa.post_send(w, {sge(pair.a.buffer, 16, pair.a.key)});
  const auto recv = cqes(pair.b, 1);
  ASSERT_EQ(recv.size(), 1u);
  EXPECT_EQ(recv[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(recv[0].flags & ORNIC_CQE_FLAG_INV, ORNIC_CQE_FLAG_INV);
  EXPECT_EQ(le(recv[0].imm_data), mw_key);
  (void)cqes(pair.a, 1);

  post_rdma(qa, ORNIC_WQE_OP_RDMA_WRITE, win, mw_key, 16);
  expect_invalid_stag_terminate(qa, qb);
}

} // namespace
} // namespace ornic::test
