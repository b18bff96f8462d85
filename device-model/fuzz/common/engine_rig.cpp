#include "engine_rig.hpp"

#include <algorithm>
#include <utility>

namespace ornic::fuzz {
namespace {

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "engine rig: %s\n", what);
  std::abort();
}

constexpr uint32_t kAqDepth = 32;

// SMP layout (IBA 14.2.1.1) and the PortInfo fields the rig sets (IBA 14.2.5.6).
constexpr size_t kSmpData = 64;
constexpr uint16_t kAttrPortInfo = 0x0015;
constexpr uint8_t kMethodGet = 0x01, kMethodSet = 0x02;
constexpr size_t kPortInfoLid = kSmpData + 16;
constexpr size_t kPortInfoState = kSmpData + 32; // low nibble PortState
constexpr size_t kPortInfoPhys = kSmpData + 33;  // high nibble PortPhysicalState

} // namespace

uint64_t EngineRig::alloc(size_t bytes) {
  const uint64_t at = (next_ + 4095) & ~uint64_t{4095};
  next_ = at + bytes;
  if (next_ > kBase + (1 << 20))
    die("out of memory");
  std::memset(memory.at(at), 0, bytes);
  return at;
}

void EngineRig::run() {
  for (int i = 0; i < 10000 && loop.run_ready(); ++i) {
  }
}

ornic_admin_cqe EngineRig::admin(const void* command) {
  const uint32_t slot = aq_tail_ % kAqDepth;
  std::memcpy(memory.at(aq_sq_ + uint64_t{slot} * ORNIC_AQ_SQE_SIZE), command, ORNIC_AQ_SQE_SIZE);
  device.bar_write(0, ORNIC_REG_AQ_SQ_TAIL, 4, ++aq_tail_);
  run();
  ornic_admin_cqe cqe;
  std::memcpy(&cqe, memory.at(aq_cq_ + uint64_t{slot} * ORNIC_AQ_CQE_SIZE), sizeof(cqe));
  if (cqe.status != ORNIC_ADMIN_STATUS_SUCCESS)
    die("admin command failed");
  return cqe;
}

ornic_mem_desc EngineRig::ring(size_t bytes) {
  ornic_mem_desc mem{};
  const size_t pages = (bytes + 4095) / 4096;
  mem.addr = to_le(alloc(pages * 4096));
  mem.num_pages = to_le(static_cast<uint32_t>(pages));
  mem.page_shift = 12;
  mem.mode = ORNIC_MEM_MODE_CONTIG;
  return mem;
}

void EngineRig::modify(uint32_t qpn, ornic_qp_attr attr, uint32_t mask) {
  const uint64_t at = alloc(sizeof(attr));
  std::memcpy(memory.at(at), &attr, sizeof(attr));
  ornic_admin_modify_qp c{};
  c.hdr.opcode = ORNIC_ADMIN_MODIFY_QP;
  c.attr_addr = to_le(at);
  c.attr_len = to_le<uint32_t>(sizeof(attr));
  c.qpn = to_le(qpn);
  c.attr_mask = to_le(mask | ORNIC_QP_ATTR_STATE);
  admin(&c);
}

void EngineRig::post_recv(uint32_t qpn, uint64_t rq, uint32_t index) {
  ornic_recv_wqe w{};
  w.wr_id = to_le(uint64_t{index});
  w.num_blocks = 1;
  w.num_sge = 1;
  w.sge[0].addr = to_le(buffer + 4096 * index);
  w.sge[0].length = to_le(4096u);
  w.sge[0].lkey = to_le(mr_key);
  std::memcpy(memory.at(rq + 64 * index), &w, sizeof(w));
  device.bar_write(ORNIC_BAR_DOORBELL, ORNIC_DB_RQ, 8, ORNIC_DB_VALUE(qpn, 0, index + 1));
}

void EngineRig::set_peer(ornic_qp_attr& attr) const {
  if (ib_) {
    attr.dlid = to_le(kPeerLid);
    return;
  }
  attr.dgid[10] = attr.dgid[11] = 0xff;
  attr.dgid[12] = 10;
  attr.dgid[15] = 2;
}

std::array<uint8_t, ORNIC_MAD_SIZE>
EngineRig::smp(uint8_t method, const std::array<uint8_t, ORNIC_MAD_SIZE>* data) {
  std::array<uint8_t, ORNIC_MAD_SIZE> in{};
  in[0] = 1;    // base version
  in[1] = 0x01; // SubnLid
  in[2] = 1;    // class version
  in[3] = method;
  in[17] = kAttrPortInfo;
  in[23] = 1; // attribute modifier: port 1
  if (data != nullptr)
    std::copy(data->begin() + kSmpData, data->end(), in.begin() + kSmpData);
  const uint64_t in_addr = alloc(2 * ORNIC_MAD_SIZE);
  const uint64_t out_addr = in_addr + ORNIC_MAD_SIZE;
  std::memcpy(memory.at(in_addr), in.data(), in.size());
  ornic_admin_mad_ifc c{};
  c.hdr.opcode = ORNIC_ADMIN_MAD_IFC;
  c.in_addr = to_le(in_addr);
  c.out_addr = to_le(out_addr);
  c.port = 1;
  if (le(admin(&c).result0) != ORNIC_MAD_IFC_REPLY)
    die("PortInfo not answered");
  std::array<uint8_t, ORNIC_MAD_SIZE> out;
  std::memcpy(out.data(), memory.at(out_addr), out.size());
  if (out[4] != 0 || out[5] != 0)
    die("PortInfo answered with an error status");
  return out;
}

void EngineRig::port_info_set(std::array<uint8_t, ORNIC_MAD_SIZE>& info, uint8_t state) {
  // PhysState 0 is "no change"; so is every other zero nibble the Get left alone.
  info[kPortInfoState] = static_cast<uint8_t>((info[kPortInfoState] & 0xf0) | state);
  info[kPortInfoPhys] &= 0x0f;
  info = smp(kMethodSet, &info);
  if ((info[kPortInfoState] & 0x0f) != state)
    die("the port did not take the state the subnet manager set");
}

// As OpenSM brings a port up: a LID, then Armed, then (unless the rig stays Armed) Active.
void EngineRig::configure_ib_port(uint8_t state) {
  std::array<uint8_t, ORNIC_MAD_SIZE> info = smp(kMethodGet, nullptr);
  info[kPortInfoLid] = static_cast<uint8_t>(kLid >> 8);
  info[kPortInfoLid + 1] = static_cast<uint8_t>(kLid);
  port_info_set(info, ORNIC_PORT_ARMED);
  if (state == ORNIC_PORT_ACTIVE)
    port_info_set(info, ORNIC_PORT_ACTIVE);
}

EngineRig::EngineRig(ornic_link_layer link_layer)
    : ib_(link_layer == ORNIC_LINK_LAYER_IB),
      device(loop,
             NicConfig{.mac = kMac, .port = &port, .timer = &timer, .link_layer = link_layer}) {
  device.attach(memory, irqs);
}

void EngineRig::finish() {
  run();
  // Every object start() made is freed here, so an input allocates no more than it frees
  // (libFuzzer runs one that does twice, looking for a leak).
  device.reset();
  run();
  irqs.clear();
  port.sent = 0;
  timer.reset();
  std::memset(memory.at(kBase), 0, next_ - kBase);
  next_ = kBase;
  aq_tail_ = 0;
  rc_qpn = ud_qpn = uc_qpn = xrc_qpn = mr_key = 0;
  buffer = 0;
}

void EngineRig::start(uint8_t ib_port_state) {
  aq_sq_ = alloc(kAqDepth * ORNIC_AQ_SQE_SIZE);
  aq_cq_ = alloc(kAqDepth * ORNIC_AQ_CQE_SIZE);
  const uint64_t aeq = alloc(64 * ORNIC_EQE_SIZE);
  auto reg = [&](uint32_t offset, uint32_t value) { device.bar_write(0, offset, 4, value); };
  reg(ORNIC_REG_AQ_SQ_BASE_LO, static_cast<uint32_t>(aq_sq_));
  reg(ORNIC_REG_AQ_CQ_BASE_LO, static_cast<uint32_t>(aq_cq_));
  reg(ORNIC_REG_AQ_DEPTH, kAqDepth);
  reg(ORNIC_REG_AEQ_BASE_LO, static_cast<uint32_t>(aeq));
  reg(ORNIC_REG_AEQ_DEPTH, 64);
  reg(ORNIC_REG_DEV_CTRL, ORNIC_DEV_CTRL_ENABLE);
  if (!device.ready())
    die("device not ready");

  ornic_admin_create_eq eq{};
  eq.hdr.opcode = ORNIC_ADMIN_CREATE_EQ;
  eq.mem = ring(64 * ORNIC_EQE_SIZE);
  eq.log_depth = 6;
  eq.msix_vector = to_le<uint16_t>(1);
  const uint32_t eqn = le(admin(&eq).result0);
  ornic_admin_create_cq cq{};
  cq.hdr.opcode = ORNIC_ADMIN_CREATE_CQ;
  // An InfiniBand port's receives report their LIDs in 64-byte CQEs (the only kind it takes).
  cq.mem = ring(256 * (ib_ ? ORNIC_CQE_TS_SIZE : ORNIC_CQE_SIZE));
  cq.log_depth = 8;
  cq.flags = ib_ ? ORNIC_CQ_FLAG_TIMESTAMP : 0;
  cq.eqn = to_le(eqn);
  const uint32_t cqn = le(admin(&cq).result0);
  ornic_admin_destroy pd_cmd{};
  pd_cmd.hdr.opcode = ORNIC_ADMIN_ALLOC_PD;
  const uint32_t pd = le(admin(&pd_cmd).result0);
  if (ib_) {
    // Before any WQE is posted: a port not Active sends nothing but VL15.
    configure_ib_port(ib_port_state);
  } else {
    ornic_admin_gid gid{};
    gid.hdr.opcode = ORNIC_ADMIN_ADD_GID;
    gid.type = ORNIC_GID_TYPE_ROCE_V2_IPV4;
    gid.gid[10] = gid.gid[11] = 0xff;
    std::copy(kIpv4.begin(), kIpv4.end(), gid.gid + 12);
    admin(&gid);
    gid = ornic_admin_gid{};
    gid.hdr.opcode = ORNIC_ADMIN_ADD_GID;
    gid.index = to_le(1u);
    gid.type = ORNIC_GID_TYPE_ROCE_V2_IPV6;
    std::copy(kIpv6.begin(), kIpv6.end(), gid.gid);
    admin(&gid);
  }

  buffer = kBuffer;
  if (next_ > buffer)
    die("setup memory overlaps the MR");
  ornic_admin_reg_mr mr{};
  mr.hdr.opcode = ORNIC_ADMIN_REG_MR;
  mr.mem.addr = to_le(buffer);
  mr.mem.num_pages = to_le(16u);
  mr.mem.page_shift = 12;
  mr.mem.mode = ORNIC_MEM_MODE_CONTIG;
  mr.iova = to_le(buffer);
  mr.length = to_le<uint64_t>(64 * 1024);
  mr.pd = to_le(pd);
  mr.access = to_le(ORNIC_ACCESS_ALL);
  mr_key = le(admin(&mr).result0);
  if ((mr_key & ~0xffu) != (kMrKey & ~0xffu))
    die("unexpected MR key index");

  next_ = buffer + 64 * 1024;
  uint64_t rc_sq = 0, rc_rq = 0, ud_rq = 0, gsi_rq = 0, smi_rq = 0, uc_sq = 0, uc_rq = 0;
  std::vector<uint8_t> types = {ORNIC_QPT_RC, ORNIC_QPT_UD, ORNIC_QPT_GSI, ORNIC_QPT_UC};
  if (ib_)
    types.push_back(ORNIC_QPT_SMI);
  for (const uint8_t type : types) {
    ornic_admin_create_qp qp{};
    qp.hdr.opcode = ORNIC_ADMIN_CREATE_QP;
    qp.sq_mem = ring(64 * 64);
    qp.rq_mem = ring(64 * 64);
    qp.pd = to_le(pd);
    qp.send_cqn = qp.recv_cqn = to_le(cqn);
    qp.qp_type = type;
    qp.sq_log_depth = qp.rq_log_depth = 6;
    const uint32_t qpn = le(admin(&qp).result0);
    if (type == ORNIC_QPT_RC) {
      rc_qpn = qpn;
      rc_sq = le(qp.sq_mem.addr);
      rc_rq = le(qp.rq_mem.addr);
    } else if (type == ORNIC_QPT_UD) {
      ud_qpn = qpn;
      ud_rq = le(qp.rq_mem.addr);
    } else if (type == ORNIC_QPT_UC) {
      uc_qpn = qpn;
      uc_sq = le(qp.sq_mem.addr);
      uc_rq = le(qp.rq_mem.addr);
    } else if (type == ORNIC_QPT_SMI) {
      if (qpn != ORNIC_QPN_SMI)
        die("the SMI QP is not QPN 0");
      smi_rq = le(qp.rq_mem.addr);
    } else if (qpn != ORNIC_QPN_GSI) {
      die("the GSI QP is not QPN 1");
    } else {
      gsi_rq = le(qp.rq_mem.addr);
    }
  }

  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_INIT;
  attr.access_flags = to_le(ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ |
                            ORNIC_ACCESS_REMOTE_ATOMIC | ORNIC_ACCESS_FLUSH);
  modify(rc_qpn, attr, ORNIC_QP_ATTR_PKEY_INDEX | ORNIC_QP_ATTR_ACCESS_FLAGS);
  attr.state = ORNIC_QPS_RTR;
  attr.path_mtu = ORNIC_MTU_256;
  attr.dest_qpn = to_le(0x10u);
  attr.max_dest_rd_atomic = 4;
  set_peer(attr);
  modify(rc_qpn, attr,
         ORNIC_QP_ATTR_AV | ORNIC_QP_ATTR_PATH_MTU | ORNIC_QP_ATTR_DEST_QPN | ORNIC_QP_ATTR_RQ_PSN |
             ORNIC_QP_ATTR_MAX_DEST_RD_ATOMIC | ORNIC_QP_ATTR_MIN_RNR_TIMER);
  attr.state = ORNIC_QPS_RTS;
  attr.timeout = 1;
  attr.retry_cnt = 2;
  attr.rnr_retry = 2;
  attr.max_rd_atomic = 4;
  modify(rc_qpn, attr,
         ORNIC_QP_ATTR_SQ_PSN | ORNIC_QP_ATTR_TIMEOUT | ORNIC_QP_ATTR_RETRY_CNT |
             ORNIC_QP_ATTR_RNR_RETRY | ORNIC_QP_ATTR_MAX_QP_RD_ATOMIC);
  // The UC QP: the same peer, UC's attributes only (expected PSN 0 too).
  ornic_qp_attr uc{};
  uc.state = ORNIC_QPS_INIT;
  uc.access_flags = to_le(ORNIC_ACCESS_REMOTE_WRITE);
  modify(uc_qpn, uc, ORNIC_QP_ATTR_PKEY_INDEX | ORNIC_QP_ATTR_ACCESS_FLAGS);
  uc.state = ORNIC_QPS_RTR;
  uc.path_mtu = ORNIC_MTU_256;
  uc.dest_qpn = to_le(0x11u);
  set_peer(uc);
  modify(uc_qpn, uc,
         ORNIC_QP_ATTR_AV | ORNIC_QP_ATTR_PATH_MTU | ORNIC_QP_ATTR_DEST_QPN | ORNIC_QP_ATTR_RQ_PSN);
  uc.state = ORNIC_QPS_RTS;
  modify(uc_qpn, uc, ORNIC_QP_ATTR_SQ_PSN);
  // The GSI QP has the Q_Key the kernel's MAD layer gives QP1; the SMI QP checks none.
  std::vector<std::pair<uint32_t, uint32_t>> datagram_qps = {{ud_qpn, 0x1111u},
                                                             {ORNIC_QPN_GSI, 0x80010000u}};
  if (ib_)
    datagram_qps.emplace_back(ORNIC_QPN_SMI, 0u);
  for (const auto& [qpn, qkey] : datagram_qps) {
    ornic_qp_attr ud{};
    ud.state = ORNIC_QPS_INIT;
    ud.qkey = to_le(qkey);
    modify(qpn, ud, ORNIC_QP_ATTR_PKEY_INDEX | ORNIC_QP_ATTR_QKEY);
    ud.state = ORNIC_QPS_RTR;
    modify(qpn, ud, 0);
    ud.state = ORNIC_QPS_RTS;
    modify(qpn, ud, ORNIC_QP_ATTR_SQ_PSN);
  }

  for (uint32_t i = 0; i < 4; ++i) {
    post_recv(rc_qpn, rc_rq, i);
    post_recv(ud_qpn, ud_rq, i);
    post_recv(ORNIC_QPN_GSI, gsi_rq, i);
    post_recv(uc_qpn, uc_rq, i);
    if (ib_)
      post_recv(ORNIC_QPN_SMI, smi_rq, i);
  }
  // Outstanding work for the completer: a 600-byte WRITE (PSN 0-2), a 600-byte READ
  // (PSN 3-5), a FETCH_ADD (PSN 6), then a SEND (PSN 7).
  const uint8_t ops[] = {ORNIC_WQE_OP_RDMA_WRITE, ORNIC_WQE_OP_RDMA_READ,
                         ORNIC_WQE_OP_ATOMIC_FETCH_ADD, ORNIC_WQE_OP_SEND};
  uint32_t producer = 0;
  for (const uint8_t op : ops) {
    ornic_send_wqe w{};
    w.opcode = op;
    w.flags = ORNIC_WQE_FLAG_SIGNALED;
    w.num_blocks = 2;
    w.num_sge = 1;
    w.wr_id = to_le(uint64_t{op});
    const bool atomic = op == ORNIC_WQE_OP_ATOMIC_FETCH_ADD;
    if (atomic) {
      w.atomic.remote_addr = to_le(uint64_t{0x1000});
      w.atomic.rkey = to_le(0x1234u);
    } else if (op != ORNIC_WQE_OP_SEND) {
      w.rdma.remote_addr = to_le(uint64_t{0x1000});
      w.rdma.rkey = to_le(0x1234u);
    }
    ornic_sge sge{};
    sge.addr = to_le(buffer + 32768);
    sge.length = to_le(atomic ? 8u : 600u);
    sge.lkey = to_le(mr_key);
    std::memcpy(memory.at(rc_sq + 64 * producer), &w, sizeof(w));
    std::memcpy(memory.at(rc_sq + 64 * (producer + 1)), &sge, sizeof(sge));
    producer += 2;
  }
  device.bar_write(ORNIC_BAR_DOORBELL, ORNIC_DB_SQ, 8, ORNIC_DB_VALUE(rc_qpn, 0, producer));
  // A UC WRITE of 600 bytes goes out (and completes) at once.
  ornic_send_wqe uc_write{};
  uc_write.opcode = ORNIC_WQE_OP_RDMA_WRITE;
  uc_write.flags = ORNIC_WQE_FLAG_SIGNALED;
  uc_write.num_blocks = 2;
  uc_write.num_sge = 1;
  uc_write.rdma.remote_addr = to_le(uint64_t{0x1000});
  uc_write.rdma.rkey = to_le(0x1234u);
  ornic_sge uc_sge{};
  uc_sge.addr = to_le(buffer + 32768);
  uc_sge.length = to_le(600u);
  uc_sge.lkey = to_le(mr_key);
  std::memcpy(memory.at(uc_sq), &uc_write, sizeof(uc_write));
  std::memcpy(memory.at(uc_sq + 64), &uc_sge, sizeof(uc_sge));
  device.bar_write(ORNIC_BAR_DOORBELL, ORNIC_DB_SQ, 8, ORNIC_DB_VALUE(uc_qpn, 0, 2));
  run();
  xrc_target(pd, cqn);
}

// An XRC domain with XRC SRQ kXrcSrqn (4 receives posted) and a target QP in RTS expecting
// PSN 0 (xrc.rst).
void EngineRig::xrc_target(uint32_t pd, uint32_t cqn) {
  ornic_admin_destroy alloc{};
  alloc.hdr.opcode = ORNIC_ADMIN_ALLOC_XRCD;
  const uint32_t xrcd = le(admin(&alloc).result0);
  ornic_admin_create_srq srq{};
  srq.hdr.opcode = ORNIC_ADMIN_CREATE_SRQ;
  srq.mem = ring(64 * 64);
  srq.pd = to_le(pd);
  srq.log_depth = 6;
  srq.srq_type = ORNIC_SRQT_XRC;
  srq.xrcd = to_le(xrcd);
  srq.cqn = to_le(cqn);
  if (le(admin(&srq).result0) != kXrcSrqn)
    die("unexpected XRC SRQ number");
  const uint64_t srq_ring = le(srq.mem.addr);
  ornic_admin_create_qp qp{};
  qp.hdr.opcode = ORNIC_ADMIN_CREATE_QP;
  qp.qp_type = ORNIC_QPT_XRC_TGT;
  qp.xrcd = to_le(xrcd);
  xrc_qpn = le(admin(&qp).result0);
  ornic_qp_attr attr{};
  attr.state = ORNIC_QPS_INIT;
  attr.access_flags =
      to_le(ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ | ORNIC_ACCESS_REMOTE_ATOMIC);
  modify(xrc_qpn, attr, ORNIC_QP_ATTR_PKEY_INDEX | ORNIC_QP_ATTR_ACCESS_FLAGS);
  attr.state = ORNIC_QPS_RTR;
  attr.path_mtu = ORNIC_MTU_256;
  attr.dest_qpn = to_le(0x11u);
  attr.max_dest_rd_atomic = 4;
  set_peer(attr);
  modify(xrc_qpn, attr,
         ORNIC_QP_ATTR_AV | ORNIC_QP_ATTR_PATH_MTU | ORNIC_QP_ATTR_DEST_QPN | ORNIC_QP_ATTR_RQ_PSN |
             ORNIC_QP_ATTR_MAX_DEST_RD_ATOMIC | ORNIC_QP_ATTR_MIN_RNR_TIMER);
  attr.state = ORNIC_QPS_RTS;
  attr.timeout = 1;
  modify(xrc_qpn, attr, ORNIC_QP_ATTR_SQ_PSN | ORNIC_QP_ATTR_TIMEOUT);
  for (uint32_t i = 0; i < 4; ++i) {
    ornic_recv_wqe w{};
    w.wr_id = to_le(uint64_t{i});
    w.num_blocks = 1;
    w.num_sge = 1;
    w.sge[0].addr = to_le(buffer + 16384 + 4096 * i);
    w.sge[0].length = to_le(4096u);
    w.sge[0].lkey = to_le(mr_key);
    std::memcpy(memory.at(srq_ring + 64 * i), &w, sizeof(w));
  }
  device.bar_write(ORNIC_BAR_DOORBELL, ORNIC_DB_SRQ, 8, ORNIC_DB_VALUE(kXrcSrqn, 0, 4));
  run();
}

void EngineRig::deliver(std::span<const uint8_t> frame) {
  if (port.receiver)
    port.receiver(std::as_bytes(frame));
  run();
}

} // namespace ornic::fuzz
