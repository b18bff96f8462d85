#include "rdma_pair.hpp"

#include <thread>

#include <gtest/gtest.h>

namespace ornic::test {

uint32_t Node::reg_mr(uint64_t iova, uint64_t length, uint32_t access, uint32_t pd_override) {
  ornic_admin_reg_mr c{};
  c.hdr.opcode = ORNIC_ADMIN_REG_MR;
  const uint64_t first_page = iova & ~uint64_t{4095};
  const uint64_t pages = (iova + length - first_page + 4095) / 4096;
  c.mem.addr = to_le(first_page);
  c.mem.num_pages = to_le(static_cast<uint32_t>(pages));
  c.mem.page_shift = 12;
  c.mem.mode = ORNIC_MEM_MODE_CONTIG;
  c.iova = to_le(iova);
  c.length = to_le(length);
  c.pd = to_le(pd_override != 0 ? pd_override : pd);
  c.access = to_le(access);
  c.key_variant = 0x5a;
  c.first_page_offset = to_le(static_cast<uint32_t>(iova - first_page));
  const auto cqe = h.execute(DriverHarness::as_sqe(c));
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  return le(cqe.result0);
}

std::optional<ornic_cqe> Node::poll() {
  const uint64_t entry = ib ? ORNIC_CQE_TS_SIZE : ORNIC_CQE_SIZE;
  const uint64_t at = cq_ring + uint64_t{cq_head % cq_depth} * entry;
  const auto cqe = h.read<ornic_cqe>(at + entry - ORNIC_CQE_SIZE);
  if ((cqe.owner & ORNIC_CQE_OWNER_PHASE) != expected_phase(cq_head, cq_depth))
    return std::nullopt;
  if (ib)
    last_origin = h.read<ornic_cqe_ts>(at);
  ++cq_head;
  h.doorbell(0, ORNIC_DB_CQ, ORNIC_DB_VALUE(cqn, 0, cq_head));
  return cqe;
}

namespace {

void put_be(Node::Mad& mad, size_t offset, size_t size, uint64_t value) {
  for (size_t i = size; i-- > 0;) {
    mad[offset + i] = static_cast<uint8_t>(value);
    value >>= 8;
  }
}

constexpr size_t kSmpData = 64; // the attribute in an SMP (IBA 14.2.1.1)
constexpr uint16_t kAttrPortInfo = 0x0015;
constexpr uint16_t kAttrPkeyTable = 0x0016;
constexpr uint8_t kMethodGet = 0x01, kMethodSet = 0x02;

} // namespace

Node::Mad Node::smp(uint8_t method, uint16_t attribute, uint32_t modifier, const Mad* data_from) {
  Mad in{};
  in[0] = 1;    // base version
  in[1] = 0x01; // SubnLid
  in[2] = 1;    // class version
  in[3] = method;
  put_be(in, 8, 8, 0x0102030405060708ull);
  put_be(in, 16, 2, attribute);
  put_be(in, 20, 4, modifier);
  if (data_from != nullptr)
    std::copy_n(data_from->begin() + kSmpData, 64, in.begin() + kSmpData);
  Mad out{};
  const auto cqe = h.mad_ifc(in, out);
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(le(cqe.result0), uint32_t{ORNIC_MAD_IFC_REPLY});
  EXPECT_EQ(out[4] << 8 | out[5], 0) << "MAD status of attribute " << attribute;
  return out;
}

void Node::configure_ib_port(uint16_t new_lid) {
  Mad info = smp(kMethodGet, kAttrPortInfo, 1);
  lid = new_lid;
  put_be(info, kSmpData + 16, 2, new_lid);
  // PortState (byte 32, low nibble) Armed, then Active; 0 elsewhere in the nibbles that
  // Set reads as "no change" (PhysState, LinkSpeedEnabled 0 = no change is the SM's to use).
  info[kSmpData + 32] = static_cast<uint8_t>((info[kSmpData + 32] & 0xf0) | ORNIC_PORT_ARMED);
  info[kSmpData + 33] &= 0x0f;
  info = smp(kMethodSet, kAttrPortInfo, 1, &info);
  info[kSmpData + 32] = static_cast<uint8_t>((info[kSmpData + 32] & 0xf0) | ORNIC_PORT_ACTIVE);
  info[kSmpData + 33] &= 0x0f;
  info = smp(kMethodSet, kAttrPortInfo, 1, &info);
  EXPECT_EQ(info[kSmpData + 32] & 0x0f, ORNIC_PORT_ACTIVE);
}

void Node::set_pkeys(const std::vector<uint16_t>& pkeys) {
  Mad table = smp(kMethodGet, kAttrPkeyTable, 0);
  for (size_t i = 0; i < pkeys.size(); ++i)
    put_be(table, kSmpData + 2 * i, 2, pkeys[i]);
  (void)smp(kMethodSet, kAttrPkeyTable, 0, &table);
}

void Qp::write_send(ornic_send_wqe wqe, const ornic_wqe_av* av, uint32_t data_blocks,
                    const std::function<void(uint32_t)>& fill, bool ring_doorbell) {
  DriverHarness& h = node->h;
  const uint32_t header_blocks = av != nullptr ? 2 : 1;
  wqe.num_blocks = static_cast<uint8_t>(header_blocks + data_blocks);
  if (av != nullptr) {
    wqe.flags |= ORNIC_WQE_FLAG_AV;
    h.write(sq + uint64_t{(sq_prod + 1) % depth} * 64, *av);
  }
  h.write(sq + uint64_t{sq_prod % depth} * 64, wqe);
  fill(sq_prod + header_blocks);
  sq_prod += header_blocks + data_blocks;
  if (ring_doorbell && record_says_ring(sq))
    h.doorbell(db_page, ORNIC_DB_SQ, ORNIC_DB_VALUE(qpn, 0, sq_prod));
}

// As a provider with doorbell records does (doorbells.rst): the producer index into the
// record first, then the MMIO doorbell only if the device set kick.
bool Qp::record_says_ring(uint64_t ring) {
  if (!records)
    return true;
  const uint64_t record = ring + uint64_t{depth} * ORNIC_WQE_BLOCK_SIZE;
  DriverHarness& h = node->h;
  auto r = h.read<ornic_db_record>(record);
  r.producer = to_le(ring == sq ? sq_prod : rq_prod);
  h.write(record, r);
  const bool ring_it = le(h.read<ornic_db_record>(record).kick) == ORNIC_DB_RECORD_KICK;
  (ring_it ? doorbells_rung : doorbells_saved)++;
  return ring_it;
}

namespace {

void write_sges(DriverHarness& h, uint64_t sq, uint32_t depth, uint32_t first,
                const std::vector<ornic_sge>& sges) {
  for (size_t i = 0; i < sges.size(); ++i) {
    const uint32_t block = (first + static_cast<uint32_t>(i / 4)) % depth;
    h.write(sq + uint64_t{block} * 64 + (i % 4) * 16, sges[i]);
  }
}

void write_inline(DriverHarness& h, uint64_t sq, uint32_t depth, uint32_t first,
                  const std::vector<uint8_t>& data) {
  for (size_t i = 0; i < data.size(); ++i) {
    const uint32_t block = (first + static_cast<uint32_t>(i / 64)) % depth;
    *h.memory.at(sq + uint64_t{block} * 64 + i % 64) = std::byte{data[i]};
  }
}

ornic_send_wqe with_sges(ornic_send_wqe wqe, const std::vector<ornic_sge>& sges) {
  wqe.num_sge = static_cast<uint8_t>(sges.size());
  return wqe;
}

ornic_send_wqe with_inline(ornic_send_wqe wqe, const std::vector<uint8_t>& data) {
  wqe.flags |= ORNIC_WQE_FLAG_INLINE;
  wqe.inline_len = to_le(static_cast<uint16_t>(data.size()));
  return wqe;
}

} // namespace

void Qp::post_send(ornic_send_wqe wqe, const std::vector<ornic_sge>& sges, bool ring_doorbell) {
  write_send(
      with_sges(wqe, sges), nullptr, static_cast<uint32_t>((sges.size() + 3) / 4),
      [&](uint32_t first) { write_sges(node->h, sq, depth, first, sges); }, ring_doorbell);
}

void Qp::post_send_inline(ornic_send_wqe wqe, const std::vector<uint8_t>& data) {
  write_send(
      with_inline(wqe, data), nullptr, static_cast<uint32_t>((data.size() + 63) / 64),
      [&](uint32_t first) { write_inline(node->h, sq, depth, first, data); }, true);
}

void Qp::post_send_av(ornic_send_wqe wqe, const ornic_wqe_av& av,
                      const std::vector<ornic_sge>& sges) {
  write_send(
      with_sges(wqe, sges), &av, static_cast<uint32_t>((sges.size() + 3) / 4),
      [&](uint32_t first) { write_sges(node->h, sq, depth, first, sges); }, true);
}

void Qp::post_send_av_inline(ornic_send_wqe wqe, const ornic_wqe_av& av,
                             const std::vector<uint8_t>& data) {
  write_send(
      with_inline(wqe, data), &av, static_cast<uint32_t>((data.size() + 63) / 64),
      [&](uint32_t first) { write_inline(node->h, sq, depth, first, data); }, true);
}

void Qp::post_reg_mr(ornic_send_wqe wqe, const ornic_wqe_reg_mr_ext& ext, bool ring_doorbell) {
  write_send(
      wqe, nullptr, 1,
      [&](uint32_t first) { node->h.write(sq + uint64_t{first % depth} * 64, ext); },
      ring_doorbell);
}

void Qp::post_recv(uint64_t wr_id, const std::vector<ornic_sge>& sges) {
  DriverHarness& h = node->h;
  const uint32_t extra = sges.size() > 3 ? static_cast<uint32_t>(sges.size() - 3) : 0;
  const uint32_t blocks = 1 + (extra + 3) / 4;
  ornic_recv_wqe w{};
  w.wr_id = to_le(wr_id);
  w.num_blocks = static_cast<uint8_t>(blocks);
  w.num_sge = static_cast<uint8_t>(sges.size());
  for (size_t i = 0; i < sges.size() && i < 3; ++i)
    w.sge[i] = sges[i];
  h.write(rq + uint64_t{rq_prod % depth} * 64, w);
  for (size_t i = 3; i < sges.size(); ++i) {
    const uint32_t block = (rq_prod + 1 + static_cast<uint32_t>((i - 3) / 4)) % depth;
    h.write(rq + uint64_t{block} * 64 + ((i - 3) % 4) * 16, sges[i]);
  }
  rq_prod += blocks;
  if (record_says_ring(rq))
    h.doorbell(db_page, ORNIC_DB_RQ, ORNIC_DB_VALUE(qpn, 0, rq_prod));
}

uint32_t Qp::state() {
  DriverHarness& h = node->h;
  const uint64_t buffer = h.alloc(sizeof(ornic_qp_attr), 64);
  ornic_admin_modify_qp c{};
  c.hdr.opcode = ORNIC_ADMIN_QUERY_QP;
  c.attr_addr = to_le(buffer);
  c.attr_len = to_le<uint32_t>(sizeof(ornic_qp_attr));
  c.qpn = to_le(qpn);
  const auto cqe = h.execute(DriverHarness::as_sqe(c));
  return le(cqe.result1);
}

ornic_qp_attr Qp::attr() {
  DriverHarness& h = node->h;
  const uint64_t buffer = h.alloc(sizeof(ornic_qp_attr), 64);
  ornic_admin_modify_qp c{};
  c.hdr.opcode = ORNIC_ADMIN_QUERY_QP;
  c.attr_addr = to_le(buffer);
  c.attr_len = to_le<uint32_t>(sizeof(ornic_qp_attr));
  c.qpn = to_le(qpn);
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_SUCCESS);
  return h.read<ornic_qp_attr>(buffer);
}

RdmaPair::RdmaPair(bool use_ipv6) : RdmaPair(Options{.ipv6 = use_ipv6}) {}

RdmaPair::RdmaPair(const Options& options)
    : a(&wire.end(0), &timer_a, kMacA, options.ram, options.infiniband, options.guest_memory,
        options.iwarp),
      b(&wire.end(1), &timer_b, kMacB, options.ram, options.infiniband, options.guest_memory,
        options.iwarp),
      ipv6(options.ipv6), roce_v1(options.roce_v1), vlan_id(options.vlan_id) {
  setup(a, 1, options.cq_log_depth);
  setup(b, 2, options.cq_log_depth);
}

RdmaPair::RdmaPair(Port& port_a, Port& port_b, std::function<bool()> poll)
    : a(&port_a, nullptr, kMacA), b(&port_b, nullptr, kMacB), ipv6(false), real_time(true),
      poll_ports(std::move(poll)) {
  setup(a, 1);
  setup(b, 2);
}

void RdmaPair::setup(Node& node, uint8_t last_octet, unsigned cq_log_depth) {
  ASSERT_TRUE(node.h.bring_up(16, 64));
  node.eqn = node.h.create_eq(6, 1);
  node.cqn = node.h.create_cq(node.eqn, cq_log_depth, 0, &node.cq_ring,
                              node.ib ? ORNIC_CQ_FLAG_TIMESTAMP : 0);
  node.cq_depth = uint32_t{1} << cq_log_depth;
  node.pd = node.h.alloc_pd();
  if (node.ib) {
    node.configure_ib_port(last_octet);
    // GID 0: the default subnet prefix and the port GUID (infiniband.rst, "Identity").
    node.gid = {0xfe, 0x80,        0,           0,           0,           0,
                0,    0,           node.mac[0], node.mac[1], node.mac[2], 0xff,
                0xfe, node.mac[3], node.mac[4], node.mac[5]};
  } else if (ipv6) {
    node.gid = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, last_octet};
    ASSERT_EQ(node.h
                  .add_gid(0, node.gid,
                           roce_v1 ? ORNIC_GID_TYPE_ROCE_V1 : ORNIC_GID_TYPE_ROCE_V2_IPV6, vlan_id)
                  .status,
              ORNIC_ADMIN_STATUS_SUCCESS);
  } else {
    node.gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, last_octet};
    ASSERT_EQ(node.h
                  .add_gid(0, node.gid,
                           roce_v1 ? ORNIC_GID_TYPE_ROCE_V1 : ORNIC_GID_TYPE_ROCE_V2_IPV4, vlan_id)
                  .status,
              ORNIC_ADMIN_STATUS_SUCCESS);
  }
  node.buffer = node.h.alloc(Node::kBufferBytes);
  node.key = node.reg_mr(node.buffer, Node::kBufferBytes, ORNIC_ACCESS_ALL);
}

Qp RdmaPair::create_qp(Node& node, ornic_qp_type type, uint32_t db_page, unsigned log_depth) {
  Qp qp;
  qp.node = &node;
  qp.db_page = db_page;
  qp.depth = uint32_t{1} << log_depth;
  qp.qpn = node.h.create_qp(node.pd, node.cqn, type, db_page, &qp.sq, &qp.rq, log_depth);
  qp.records = (node.h.qp_flags & ORNIC_QP_FLAG_DB_RECORD) != 0;
  return qp;
}

uint32_t RdmaPair::alloc_db_page(Node& node) {
  const auto cqe = node.h.execute(DriverHarness::simple(ORNIC_ADMIN_ALLOC_DB_PAGE));
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  return le(cqe.result0);
}

void RdmaPair::connect(Qp& qp, const Qp& peer, uint8_t path_mtu, uint32_t access, uint8_t retry_cnt,
                       uint8_t rnr_retry, uint8_t timeout) {
  DriverHarness& h = qp.node->h;
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_INIT;
  attr.access_flags = to_le(access);
  attr.pkey_index = to_le(qp.pkey_index);
  ASSERT_EQ(h.modify_qp(qp.qpn, attr,
                        ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_PKEY_INDEX | ORNIC_QP_ATTR_ACCESS_FLAGS)
                .status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  attr.state = ORNIC_QPS_RTR;
  attr.path_mtu = path_mtu;
  attr.dest_qpn = to_le(peer.qpn);
  attr.rq_psn = to_le(0x100u + peer.qpn);
  attr.max_dest_rd_atomic = 4;
  attr.min_rnr_timer = 1; // 10 us
  set_address(attr, *peer.node);
  ASSERT_EQ(h.modify_qp(qp.qpn, attr,
                        ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_AV | ORNIC_QP_ATTR_PATH_MTU |
                            ORNIC_QP_ATTR_DEST_QPN | ORNIC_QP_ATTR_RQ_PSN |
                            ORNIC_QP_ATTR_MAX_DEST_RD_ATOMIC | ORNIC_QP_ATTR_MIN_RNR_TIMER)
                .status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  attr.state = ORNIC_QPS_RTS;
  attr.sq_psn = to_le(0x100u + qp.qpn);
  attr.timeout = timeout;
  attr.retry_cnt = retry_cnt;
  attr.rnr_retry = rnr_retry;
  attr.max_rd_atomic = 4;
  ASSERT_EQ(h.modify_qp(qp.qpn, attr,
                        ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_SQ_PSN | ORNIC_QP_ATTR_TIMEOUT |
                            ORNIC_QP_ATTR_RETRY_CNT | ORNIC_QP_ATTR_RNR_RETRY |
                            ORNIC_QP_ATTR_MAX_QP_RD_ATOMIC)
                .status,
            ORNIC_ADMIN_STATUS_SUCCESS);
}

std::pair<Qp, Qp> RdmaPair::rc_pair(uint8_t path_mtu) {
  Qp qa = create_qp(a), qb = create_qp(b);
  connect(qa, qb, path_mtu);
  connect(qb, qa, path_mtu);
  return {qa, qb};
}

void RdmaPair::connect_uc(Qp& qp, const Qp& peer, uint8_t path_mtu, uint32_t access) {
  DriverHarness& h = qp.node->h;
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_INIT;
  attr.access_flags = to_le(access);
  ASSERT_EQ(h.modify_qp(qp.qpn, attr,
                        ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_PKEY_INDEX | ORNIC_QP_ATTR_ACCESS_FLAGS)
                .status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  attr.state = ORNIC_QPS_RTR;
  attr.path_mtu = path_mtu;
  attr.dest_qpn = to_le(peer.qpn);
  attr.rq_psn = to_le(0x100u + peer.qpn);
  set_address(attr, *peer.node);
  ASSERT_EQ(h.modify_qp(qp.qpn, attr,
                        ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_AV | ORNIC_QP_ATTR_PATH_MTU |
                            ORNIC_QP_ATTR_DEST_QPN | ORNIC_QP_ATTR_RQ_PSN)
                .status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  attr.state = ORNIC_QPS_RTS;
  attr.sq_psn = to_le(0x100u + qp.qpn);
  ASSERT_EQ(h.modify_qp(qp.qpn, attr, ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_SQ_PSN).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
}

std::pair<Qp, Qp> RdmaPair::uc_pair(uint8_t path_mtu) {
  Qp qa = create_qp(a, ORNIC_QPT_UC), qb = create_qp(b, ORNIC_QPT_UC);
  connect_uc(qa, qb, path_mtu);
  connect_uc(qb, qa, path_mtu);
  return {qa, qb};
}

void RdmaPair::bring_up_ud(Qp& qp, uint32_t qkey) {
  DriverHarness& h = qp.node->h;
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_INIT;
  attr.qkey = to_le(qkey);
  ASSERT_EQ(
      h.modify_qp(qp.qpn, attr, ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_PKEY_INDEX | ORNIC_QP_ATTR_QKEY)
          .status,
      ORNIC_ADMIN_STATUS_SUCCESS);
  attr.state = ORNIC_QPS_RTR;
  ASSERT_EQ(h.modify_qp(qp.qpn, attr, ORNIC_QP_ATTR_STATE).status, ORNIC_ADMIN_STATUS_SUCCESS);
  attr.state = ORNIC_QPS_RTS;
  ASSERT_EQ(h.modify_qp(qp.qpn, attr, ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_SQ_PSN).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
}

uint32_t RdmaPair::create_ah(Node& node, const Node& to) {
  ornic_admin_create_ah c{};
  c.hdr.opcode = ORNIC_ADMIN_CREATE_AH;
  c.pd = to_le(node.pd);
  set_address(c, to);
  const auto cqe = node.h.execute(DriverHarness::as_sqe(c));
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  return le(cqe.result0);
}

ornic_wqe_av RdmaPair::inline_av(const Node& to) {
  ornic_wqe_av av{};
  set_address(av, to);
  av.hop_limit = 0;
  return av;
}

void RdmaPair::pump() {
  for (int i = 0; i < 100000; ++i) {
    bool moved = a.h.loop.run_once(std::chrono::milliseconds(0));
    moved = b.h.loop.run_once(std::chrono::milliseconds(0)) || moved;
    moved = wire.deliver() || moved;
    if (poll_ports)
      moved = poll_ports() || moved;
    if (!moved)
      return;
  }
  ADD_FAILURE() << "the pair never went quiet";
}

void RdmaPair::advance(int64_t ns) {
  if (real_time) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<int64_t>(ns, 1'000'000)));
  } else {
    timer_a.advance(ns);
    timer_b.advance(ns);
  }
  pump();
}

std::vector<ornic_cqe> RdmaPair::wait_cqes(Node& node, size_t count, int64_t step, int steps) {
  std::vector<ornic_cqe> got;
  pump();
  for (int i = 0; i <= steps; ++i) {
    while (auto cqe = node.poll())
      got.push_back(*cqe);
    if (got.size() >= count)
      return got;
    advance(step);
  }
  return got;
}

} // namespace ornic::test
