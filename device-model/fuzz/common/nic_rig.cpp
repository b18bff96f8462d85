#include "nic_rig.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <spdlog/spdlog.h>

namespace ornic::fuzz {
namespace {

constexpr uint32_t kAqDepth = 32;
constexpr uint32_t kAeqDepth = 64;

} // namespace

void die(const char* what) {
  std::fprintf(stderr, "nic rig: %s\n", what);
  std::abort();
}

void quiet_logs() {
  const char* level = std::getenv("ORNIC_FUZZ_LOG");
  spdlog::set_level(level != nullptr ? spdlog::level::from_str(level) : spdlog::level::off);
}

void patch_symbols(std::span<uint8_t> bytes, std::span<const uint32_t> symbols) {
  for (size_t at = 0; at + 4 <= bytes.size(); at += 4) {
    uint32_t word;
    std::memcpy(&word, bytes.data() + at, 4);
    word = le(word);
    if ((word & 0xffffff00) != kSymbolTag || (word & 0xff) >= symbols.size())
      continue;
    const uint32_t value = to_le(symbols[word & 0xff]);
    std::memcpy(bytes.data() + at, &value, 4);
  }
}

uint64_t NicRig::alloc(size_t bytes) {
  const uint64_t at = (next_ + 4095) & ~uint64_t{4095};
  next_ = at + bytes;
  if (next_ > kData)
    die("out of rig memory");
  std::memset(memory.at(at), 0, bytes);
  return at;
}

void NicRig::write(uint64_t iova, std::span<const uint8_t> bytes) {
  if (iova < kBase || iova - kBase > kMemory || bytes.size() > kMemory - (iova - kBase))
    die("write outside guest memory");
  if (!bytes.empty()) // memcpy from an empty vector's null data() is UB
    std::memcpy(memory.at(iova), bytes.data(), bytes.size());
}

void NicRig::run() {
  for (int i = 0; i < 10000 && loop.run_ready(); ++i) {
  }
}

void NicRig::advance(int64_t ns) {
  timer.advance(ns);
  run();
}

void NicRig::doorbell(uint32_t kind, uint32_t qn, uint32_t index) {
  device.bar_write(ORNIC_BAR_DOORBELL, kind, 8, ORNIC_DB_VALUE(qn, 0, index));
}

ornic_admin_cqe NicRig::admin(const void* command) {
  const uint32_t slot = aq_tail_ % kAqDepth;
  std::memcpy(memory.at(aq_sq_ + uint64_t{slot} * ORNIC_AQ_SQE_SIZE), command, ORNIC_AQ_SQE_SIZE);
  device.bar_write(ORNIC_BAR_REGS, ORNIC_REG_AQ_SQ_TAIL, 4, ++aq_tail_);
  run();
  ornic_admin_cqe cqe;
  std::memcpy(&cqe, memory.at(aq_cq_ + uint64_t{slot} * ORNIC_AQ_CQE_SIZE), sizeof(cqe));
  return cqe;
}

uint32_t NicRig::must(const void* command) {
  const ornic_admin_cqe cqe = admin(command);
  if (cqe.status != ORNIC_ADMIN_STATUS_SUCCESS) {
    std::fprintf(stderr, "nic rig: admin opcode 0x%x: status %u\n",
                 static_cast<const uint8_t*>(command)[0], cqe.status);
    std::abort();
  }
  return le(cqe.result0);
}

ornic_mem_desc NicRig::ring(size_t bytes) {
  ornic_mem_desc mem{};
  const size_t pages = (bytes + 4095) / 4096;
  mem.addr = to_le(alloc(pages * 4096));
  mem.num_pages = to_le(static_cast<uint32_t>(pages));
  mem.page_shift = 12;
  mem.mode = ORNIC_MEM_MODE_CONTIG;
  return mem;
}

NicRig::NicRig(ornic_link_layer link_layer)
    : device(loop,
             NicConfig{.mac = kMac, .port = &port, .timer = &timer, .link_layer = link_layer}),
      link_layer_(link_layer) {
  device.attach(memory, irqs);
}

void NicRig::finish() {
  run();
  if (std::getenv("ORNIC_FUZZ_LOG") != nullptr)
    report();
  // What the input left running ends, then the device goes back to its state after a
  // function-level reset: every object the input's bring-up made is freed here, so an
  // input allocates no more than it frees (libFuzzer runs one that does twice, looking for
  // a leak).
  device.reset();
  run();
  irqs.clear();
  port.reflect_to = nullptr;
  port.sent = 0;
  timer.reset();
  std::memset(memory.at(kBase), 0, next_ - kBase);
  std::memset(memory.at(kData), 0, kDataBytes + kScratchBytes);
  next_ = kBase;
  aq_tail_ = 0;
}

void NicRig::start() {
  aq_sq_ = alloc(kAqDepth * ORNIC_AQ_SQE_SIZE);
  aq_cq_ = alloc(kAqDepth * ORNIC_AQ_CQE_SIZE);
  const uint64_t aeq = alloc(kAeqDepth * ORNIC_EQE_SIZE);
  auto reg = [&](uint32_t offset, uint64_t value) {
    device.bar_write(ORNIC_BAR_REGS, offset, 4, static_cast<uint32_t>(value));
  };
  reg(ORNIC_REG_AQ_SQ_BASE_LO, aq_sq_);
  reg(ORNIC_REG_AQ_SQ_BASE_HI, aq_sq_ >> 32);
  reg(ORNIC_REG_AQ_CQ_BASE_LO, aq_cq_);
  reg(ORNIC_REG_AQ_CQ_BASE_HI, aq_cq_ >> 32);
  reg(ORNIC_REG_AQ_DEPTH, kAqDepth);
  reg(ORNIC_REG_AEQ_BASE_LO, aeq);
  reg(ORNIC_REG_AEQ_BASE_HI, aeq >> 32);
  reg(ORNIC_REG_AEQ_DEPTH, kAeqDepth);
  reg(ORNIC_REG_DEV_CTRL, ORNIC_DEV_CTRL_ENABLE);
  if (!device.ready())
    die("device not ready");

  ornic_admin_create_eq eq{};
  eq.hdr.opcode = ORNIC_ADMIN_CREATE_EQ;
  eq.mem = ring(64 * ORNIC_EQE_SIZE);
  eq.log_depth = 6;
  eq.msix_vector = to_le<uint16_t>(1);
  eqn = must(&eq);
  ornic_admin_create_cq cq{};
  cq.hdr.opcode = ORNIC_ADMIN_CREATE_CQ;
  cq.mem = ring(256 * ORNIC_CQE_SIZE);
  cq_ring_ = le(cq.mem.addr);
  cq.log_depth = 8;
  cq.eqn = to_le(eqn);
  cqn = must(&cq);
  ornic_admin_destroy pd_cmd{};
  pd_cmd.hdr.opcode = ORNIC_ADMIN_ALLOC_PD;
  pd = must(&pd_cmd);
  if (link_layer_ != ORNIC_LINK_LAYER_ETH)
    return; // the GID of an iWARP port comes from its MAC; ADD_GID is RoCE's
  ornic_admin_gid gid{};
  gid.hdr.opcode = ORNIC_ADMIN_ADD_GID;
  gid.type = ORNIC_GID_TYPE_ROCE_V2_IPV4;
  std::copy(kGid.begin(), kGid.end(), gid.gid);
  must(&gid);
}

void NicRig::report() {
  for (uint32_t i = 0; i < 256; ++i) {
    ornic_cqe cqe;
    std::memcpy(&cqe, memory.at(cq_ring_ + uint64_t{i} * ORNIC_CQE_SIZE), sizeof(cqe));
    if ((cqe.owner & ORNIC_CQE_OWNER_PHASE) == 0)
      break;
    std::fprintf(stderr, "nic rig: cqe %u: qpn %u opcode %u status %u vendor_err %u len %u\n", i,
                 le(cqe.qpn), cqe.opcode, cqe.status, cqe.vendor_err, le(cqe.byte_len));
  }
  std::fprintf(stderr, "nic rig: roce tx %llu rx %llu, eth tx %llu rx %llu, port %llu\n",
               static_cast<unsigned long long>(device.counters().get(ORNIC_CNT_TX_RDMA_PACKETS)),
               static_cast<unsigned long long>(device.counters().get(ORNIC_CNT_RX_RDMA_PACKETS)),
               static_cast<unsigned long long>(device.counters().get(ORNIC_CNT_ETH_TX_FRAMES)),
               static_cast<unsigned long long>(device.counters().get(ORNIC_CNT_ETH_RX_FRAMES)),
               static_cast<unsigned long long>(port.sent));
}

uint32_t NicRig::reg_mr(uint64_t addr, uint64_t length, uint32_t access) {
  ornic_admin_reg_mr mr{};
  mr.hdr.opcode = ORNIC_ADMIN_REG_MR;
  mr.mem.addr = to_le(addr);
  mr.mem.num_pages = to_le(static_cast<uint32_t>((length + 4095) / 4096));
  mr.mem.page_shift = 12;
  mr.mem.mode = ORNIC_MEM_MODE_CONTIG;
  mr.iova = to_le(addr);
  mr.length = to_le(length);
  mr.pd = to_le(pd);
  mr.access = to_le(access);
  return must(&mr);
}

uint32_t NicRig::alloc_fast_mr(uint32_t capacity) {
  ornic_admin_reg_mr mr{};
  mr.hdr.opcode = ORNIC_ADMIN_REG_MR;
  mr.mem.num_pages = to_le(capacity);
  mr.pd = to_le(pd);
  mr.flags = ORNIC_MR_FLAG_FAST_REG;
  return must(&mr);
}

uint32_t NicRig::alloc_mw(uint8_t type) {
  ornic_admin_alloc_mw mw{};
  mw.hdr.opcode = ORNIC_ADMIN_ALLOC_MW;
  mw.pd = to_le(pd);
  mw.type = type;
  return must(&mw);
}

uint32_t NicRig::create_srq(uint64_t* ring_out) {
  ornic_admin_create_srq srq{};
  srq.hdr.opcode = ORNIC_ADMIN_CREATE_SRQ;
  srq.mem = ring(kRingBlocks * ORNIC_WQE_BLOCK_SIZE);
  srq.pd = to_le(pd);
  srq.log_depth = kRingLog;
  *ring_out = le(srq.mem.addr);
  return must(&srq);
}

uint32_t NicRig::create_ah() {
  ornic_admin_create_ah ah{};
  ah.hdr.opcode = ORNIC_ADMIN_CREATE_AH;
  ah.pd = to_le(pd);
  std::copy(kGid.begin(), kGid.end(), ah.dgid);
  std::copy(kMac.begin(), kMac.end(), ah.dmac);
  ah.hop_limit = 64;
  return must(&ah);
}

RigQp NicRig::create_qp(uint8_t type, uint32_t srqn) {
  ornic_admin_create_qp qp{};
  qp.hdr.opcode = ORNIC_ADMIN_CREATE_QP;
  qp.sq_mem = ring(kRingBlocks * ORNIC_WQE_BLOCK_SIZE);
  if (srqn != 0) {
    qp.flags = ORNIC_QP_FLAG_USE_SRQ;
    qp.srqn = to_le(srqn);
  } else {
    qp.rq_mem = ring(kRingBlocks * ORNIC_WQE_BLOCK_SIZE);
    qp.rq_log_depth = kRingLog;
  }
  qp.pd = to_le(pd);
  qp.send_cqn = qp.recv_cqn = to_le(cqn);
  qp.qp_type = type;
  qp.sq_log_depth = kRingLog;
  RigQp made;
  made.qpn = must(&qp);
  made.sq = le(qp.sq_mem.addr);
  made.rq = srqn != 0 ? 0 : le(qp.rq_mem.addr);
  return made;
}

void NicRig::modify(uint32_t qpn, const ornic_qp_attr& attr, uint32_t mask) {
  const uint64_t at = alloc(sizeof(attr));
  std::memcpy(memory.at(at), &attr, sizeof(attr));
  ornic_admin_modify_qp c{};
  c.hdr.opcode = ORNIC_ADMIN_MODIFY_QP;
  c.attr_addr = to_le(at);
  c.attr_len = to_le<uint32_t>(sizeof(attr));
  c.qpn = to_le(qpn);
  c.attr_mask = to_le(mask | ORNIC_QP_ATTR_STATE);
  must(&c);
}

void NicRig::connect(const RigQp& qp, const RigQp& peer, uint8_t type) {
  const bool rc = type == ORNIC_QPT_RC;
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_INIT;
  attr.access_flags = to_le(rc ? ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ |
                                     ORNIC_ACCESS_REMOTE_ATOMIC | ORNIC_ACCESS_FLUSH
                               : ORNIC_ACCESS_REMOTE_WRITE);
  modify(qp.qpn, attr, ORNIC_QP_ATTR_PKEY_INDEX | ORNIC_QP_ATTR_ACCESS_FLAGS);
  attr.state = ORNIC_QPS_RTR;
  attr.path_mtu = ORNIC_MTU_1024;
  attr.dest_qpn = to_le(peer.qpn);
  attr.rq_psn = to_le(0x100u + peer.qpn);
  std::copy(kGid.begin(), kGid.end(), attr.dgid);
  std::copy(kMac.begin(), kMac.end(), attr.dmac);
  attr.hop_limit = 64;
  uint32_t mask =
      ORNIC_QP_ATTR_AV | ORNIC_QP_ATTR_PATH_MTU | ORNIC_QP_ATTR_DEST_QPN | ORNIC_QP_ATTR_RQ_PSN;
  if (rc) {
    attr.max_dest_rd_atomic = 4;
    attr.min_rnr_timer = 1;
    mask |= ORNIC_QP_ATTR_MAX_DEST_RD_ATOMIC | ORNIC_QP_ATTR_MIN_RNR_TIMER;
  }
  modify(qp.qpn, attr, mask);
  attr.state = ORNIC_QPS_RTS;
  attr.sq_psn = to_le(0x100u + qp.qpn);
  mask = ORNIC_QP_ATTR_SQ_PSN;
  if (rc) {
    attr.timeout = 10;
    attr.retry_cnt = 2;
    attr.rnr_retry = 2;
    attr.max_rd_atomic = 4;
    mask |= ORNIC_QP_ATTR_TIMEOUT | ORNIC_QP_ATTR_RETRY_CNT | ORNIC_QP_ATTR_RNR_RETRY |
            ORNIC_QP_ATTR_MAX_QP_RD_ATOMIC;
  }
  modify(qp.qpn, attr, mask);
}

void NicRig::init_qp(const RigQp& qp, uint32_t access) {
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_INIT;
  attr.access_flags = to_le(access);
  modify(qp.qpn, attr, ORNIC_QP_ATTR_PKEY_INDEX | ORNIC_QP_ATTR_ACCESS_FLAGS);
}

void NicRig::ud_up(const RigQp& qp, uint32_t qkey) {
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_INIT;
  attr.qkey = to_le(qkey);
  modify(qp.qpn, attr, ORNIC_QP_ATTR_PKEY_INDEX | ORNIC_QP_ATTR_QKEY);
  attr.state = ORNIC_QPS_RTR;
  modify(qp.qpn, attr, 0);
  attr.state = ORNIC_QPS_RTS;
  modify(qp.qpn, attr, ORNIC_QP_ATTR_SQ_PSN);
}

void NicRig::post_recv(const RigQp& qp, uint32_t index, uint64_t addr, uint32_t length,
                       uint32_t lkey) {
  write_recv(qp, index, addr, length, lkey);
  doorbell(ORNIC_DB_RQ, qp.qpn, index + 1);
}

void NicRig::write_recv(const RigQp& qp, uint32_t index, uint64_t addr, uint32_t length,
                        uint32_t lkey) {
  ornic_recv_wqe w{};
  w.wr_id = to_le(uint64_t{index});
  w.num_blocks = 1;
  w.num_sge = 1;
  w.sge[0].addr = to_le(addr);
  w.sge[0].length = to_le(length);
  w.sge[0].lkey = to_le(lkey);
  std::memcpy(memory.at(qp.rq + uint64_t{index % kRingBlocks} * ORNIC_WQE_BLOCK_SIZE), &w,
              sizeof(w));
}

} // namespace ornic::fuzz
