// CREATE / MODIFY / QUERY / DESTROY QP (admin.rst, qp.rst). The packet engine learns of
// every state change through NicCore::transport.
#include "core/qp_type.hpp"
#include "nic/admin_commands.hpp"
#include "nic/mem_desc_reader.hpp"
#include "nic/qp_state_machine.hpp"

namespace ornic {
namespace {

constexpr uint32_t kPsnMask = 0x00ffffff;

MemDescRules wqe_ring_rules(unsigned log_depth, bool with_record) {
  return MemDescRules{DoorbellRecord::ring_bytes(log_depth, with_record), ORNIC_WQE_BLOCK_SIZE,
                      ORNIC_PBL_ENTRIES_PER_PAGE};
}

ornic_admin_status check_log_depth(unsigned log_depth) {
  if (log_depth < 1)
    return ORNIC_ADMIN_STATUS_BAD_FIELD;
  if (log_depth > limits::kMaxQueueLogDepth)
    return ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED;
  return ORNIC_ADMIN_STATUS_SUCCESS;
}

} // namespace

AdminResult AdminCommands::create_qp(const ornic_admin_create_qp& c) {
  const uint8_t known_flags =
      ORNIC_QP_FLAG_USE_SRQ | ((limits::kCaps & ORNIC_CAP_DB_RECORD) ? ORNIC_QP_FLAG_DB_RECORD : 0);
  if (c.reserved != 0 || (c.flags & ~known_flags))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const bool with_record = (c.flags & ORNIC_QP_FLAG_DB_RECORD) != 0;
  // Checked as a number first: an out-of-range value must never become an enum.
  if (!qp_type_valid(c.qp_type))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const auto type = static_cast<ornic_qp_type>(c.qp_type);
  // A type whose capability the device does not report does not exist for it.
  if ((type == ORNIC_QPT_UC && !(limits::kCaps & ORNIC_CAP_UC)) ||
      (qp_is_xrc(type) && !(limits::kCaps & ORNIC_CAP_XRC)) ||
      (type == ORNIC_QPT_SMI && !core_.is_ib()))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  // iwarp-cm.rst, "QPs on an iWARP port": iWARP connects RC QPs only.
  if (core_.is_iwarp() && (type == ORNIC_QPT_UD || type == ORNIC_QPT_UC || qp_is_xrc(type)))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (type == ORNIC_QPT_XRC_TGT)
    return create_xrc_tgt_qp(c);
  const bool use_srq = (c.flags & ORNIC_QP_FLAG_USE_SRQ) != 0;
  // An XRC initiator only sends: no receive queue, no SRQ, no receive CQ.
  const bool has_rq = !use_srq && type != ORNIC_QPT_XRC_INI;
  if (type == ORNIC_QPT_XRC_INI && (use_srq || c.srqn != 0 || c.recv_cqn != 0 ||
                                    c.rq_log_depth != 0 || !field_is_zero(c.rq_mem)))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  auto& r = core_.resources;

  QueuePair qp;
  qp.type = type;
  qp.pd = le(c.pd);
  qp.send_cqn = le(c.send_cqn);
  qp.recv_cqn = le(c.recv_cqn);
  qp.db_page = le(c.db_page);
  if (auto status = check_log_depth(c.sq_log_depth); status != ORNIC_ADMIN_STATUS_SUCCESS)
    return admin_status(status);
  if (use_srq) {
    if (c.rq_log_depth != 0 || !field_is_zero(c.rq_mem))
      return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  } else if (has_rq) {
    if (c.srqn != 0)
      return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
    if (auto status = check_log_depth(c.rq_log_depth); status != ORNIC_ADMIN_STATUS_SUCCESS)
      return admin_status(status);
  }
  if (r.pds.find(qp.pd) == nullptr || r.cqs.find(qp.send_cqn) == nullptr ||
      (type != ORNIC_QPT_XRC_INI && r.cqs.find(qp.recv_cqn) == nullptr))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  if (use_srq) {
    const SharedReceiveQueue* srq = r.srqs.find(le(c.srqn));
    if (srq == nullptr)
      return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
    if (srq->is_xrc()) // requests name an XRC SRQ; a QP never does
      return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
    qp.srqn = le(c.srqn);
  }
  // The management QPs are the driver's, at their fixed QPNs, one of each.
  const std::optional<uint32_t> fixed_qpn =
      type == ORNIC_QPT_GSI   ? std::optional<uint32_t>(ORNIC_QPN_GSI)
      : type == ORNIC_QPT_SMI ? std::optional<uint32_t>(ORNIC_QPN_SMI)
                              : std::nullopt;
  if (!db_page_usable(qp.db_page) || (fixed_qpn && qp.db_page != ORNIC_DB_PAGE_KERNEL))
    return admin_status(ORNIC_ADMIN_STATUS_PERMISSION);
  if (fixed_qpn ? r.qps.find(*fixed_qpn) != nullptr : r.qps.size() >= r.qps.capacity())
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);

  auto sq = read_mem_desc(core_.memory(), c.sq_mem, wqe_ring_rules(c.sq_log_depth, with_record));
  if (sq.status != ORNIC_ADMIN_STATUS_SUCCESS)
    return admin_status(sq.status);
  qp.sq_memory = std::move(sq.memory);
  qp.sq.log_depth = c.sq_log_depth;
  qp.sq.has_record = with_record;
  if (has_rq) {
    auto rq = read_mem_desc(core_.memory(), c.rq_mem, wqe_ring_rules(c.rq_log_depth, with_record));
    if (rq.status != ORNIC_ADMIN_STATUS_SUCCESS)
      return admin_status(rq.status);
    qp.rq_memory = std::move(rq.memory);
    qp.rq.log_depth = c.rq_log_depth;
    qp.rq.has_record = with_record;
  }
  // doorbells.rst, "Doorbell records": an idle SQ asks for a doorbell; an RQ never needs
  // one outside ERR (the device reads the record when it wants a receive WQE).
  if (!core_.sq_record(qp).rewrite(true) || !core_.rq_record(qp).rewrite(false))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_DMA);
  const uint64_t pages = qp.sq_memory.page_count() + (has_rq ? qp.rq_memory.page_count() : 0);
  if (!page_budget_allows(pages))
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  qp.page_list_charge = pages;

  std::optional<uint32_t> qpn;
  if (fixed_qpn)
    qpn = r.qps.insert_at(*fixed_qpn, std::move(qp)) ? fixed_qpn : std::nullopt;
  else
    qpn = r.qps.insert(std::move(qp));
  if (!qpn)
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  r.page_list_entries += pages;
  return admin_ok(*qpn);
}

// An XRC target has no queues, PD or CQs (xrc.rst): its requests name an XRC SRQ of its
// domain, which supplies the receive WQEs, the PD and the CQ.
AdminResult AdminCommands::create_xrc_tgt_qp(const ornic_admin_create_qp& c) {
  if (c.flags != 0 || !field_is_zero(c.sq_mem) || !field_is_zero(c.rq_mem) || c.sq_log_depth != 0 ||
      c.rq_log_depth != 0 || c.pd != 0 || c.send_cqn != 0 || c.recv_cqn != 0)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  auto& r = core_.resources;
  QueuePair qp;
  qp.type = ORNIC_QPT_XRC_TGT;
  qp.xrcd = le(c.xrcd);
  qp.db_page = le(c.db_page);
  if (r.xrcds.find(qp.xrcd) == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  if (!db_page_usable(qp.db_page))
    return admin_status(ORNIC_ADMIN_STATUS_PERMISSION);
  if (r.qps.size() >= r.qps.capacity())
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  const auto qpn = r.qps.insert(std::move(qp));
  if (!qpn)
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  return admin_ok(*qpn);
}

// Range checks of every attribute the mask selects (qp.rst, "Attribute ranges").
static ornic_admin_status check_qp_attr(const NicCore& core, const ornic_qp_attr& a,
                                        uint32_t mask) {
  if (a.reserved0 != 0 || !field_is_zero(a.reserved1) || !av_fields_valid(core, a))
    return ORNIC_ADMIN_STATUS_BAD_FIELD;
  if ((mask & ORNIC_QP_ATTR_STATE) && !qp_state_valid(a.state))
    return ORNIC_ADMIN_STATUS_BAD_FIELD;
  if ((mask & ORNIC_QP_ATTR_ACCESS_FLAGS) && (le(a.access_flags) & ~ORNIC_ACCESS_ALL))
    return ORNIC_ADMIN_STATUS_BAD_FIELD;
  if ((mask & ORNIC_QP_ATTR_PKEY_INDEX) && le(a.pkey_index) >= core.pkey_table_size())
    return ORNIC_ADMIN_STATUS_BAD_FIELD;
  if ((mask & ORNIC_QP_ATTR_AV)) {
    if (le(a.flow_label) > 0xfffff || !core.gid_index_valid(a.sgid_index))
      return ORNIC_ADMIN_STATUS_BAD_FIELD;
  }
  if ((mask & ORNIC_QP_ATTR_PATH_MTU) &&
      (a.path_mtu < ORNIC_MTU_256 || a.path_mtu > core.active_mtu()))
    return ORNIC_ADMIN_STATUS_BAD_FIELD;
  if ((mask & ORNIC_QP_ATTR_TIMEOUT) && a.timeout > 31)
    return ORNIC_ADMIN_STATUS_BAD_FIELD;
  if ((mask & ORNIC_QP_ATTR_RETRY_CNT) && a.retry_cnt > 7)
    return ORNIC_ADMIN_STATUS_BAD_FIELD;
  if ((mask & ORNIC_QP_ATTR_RNR_RETRY) && a.rnr_retry > 7)
    return ORNIC_ADMIN_STATUS_BAD_FIELD;
  if ((mask & ORNIC_QP_ATTR_MIN_RNR_TIMER) && a.min_rnr_timer > 31)
    return ORNIC_ADMIN_STATUS_BAD_FIELD;
  if ((mask & ORNIC_QP_ATTR_RQ_PSN) && (le(a.rq_psn) & ~kPsnMask))
    return ORNIC_ADMIN_STATUS_BAD_FIELD;
  if ((mask & ORNIC_QP_ATTR_SQ_PSN) && (le(a.sq_psn) & ~kPsnMask))
    return ORNIC_ADMIN_STATUS_BAD_FIELD;
  if ((mask & ORNIC_QP_ATTR_DEST_QPN) && (le(a.dest_qpn) & ~ORNIC_QPN_MASK))
    return ORNIC_ADMIN_STATUS_BAD_FIELD;
  if ((mask & ORNIC_QP_ATTR_MAX_QP_RD_ATOMIC) && a.max_rd_atomic > limits::kMaxQpRdAtom)
    return ORNIC_ADMIN_STATUS_BAD_FIELD;
  if ((mask & ORNIC_QP_ATTR_MAX_DEST_RD_ATOMIC) && a.max_dest_rd_atomic > limits::kMaxQpRdAtom)
    return ORNIC_ADMIN_STATUS_BAD_FIELD;
  if ((mask & ORNIC_QP_ATTR_EN_SQD_ASYNC_NOTIFY) && a.en_sqd_async_notify > 1)
    return ORNIC_ADMIN_STATUS_BAD_FIELD;
  return ORNIC_ADMIN_STATUS_SUCCESS;
}

static void apply_qp_attr(ornic_qp_attr& to, const ornic_qp_attr& from, uint32_t mask) {
  if (mask & ORNIC_QP_ATTR_ACCESS_FLAGS)
    to.access_flags = from.access_flags;
  if (mask & ORNIC_QP_ATTR_PKEY_INDEX)
    to.pkey_index = from.pkey_index;
  if (mask & ORNIC_QP_ATTR_QKEY)
    to.qkey = from.qkey;
  if (mask & ORNIC_QP_ATTR_AV) {
    std::copy(std::begin(from.dgid), std::end(from.dgid), to.dgid);
    std::copy(std::begin(from.dmac), std::end(from.dmac), to.dmac);
    to.sgid_index = from.sgid_index;
    to.udp_sport = from.udp_sport;
    to.flow_label = from.flow_label;
    to.hop_limit = from.hop_limit;
    to.traffic_class = from.traffic_class;
    to.dlid = from.dlid;
    to.sl = from.sl;
    to.src_path_bits = from.src_path_bits;
    to.av_flags = from.av_flags;
    to.static_rate = from.static_rate;
  }
  if (mask & ORNIC_QP_ATTR_PATH_MTU)
    to.path_mtu = from.path_mtu;
  if (mask & ORNIC_QP_ATTR_TIMEOUT)
    to.timeout = from.timeout;
  if (mask & ORNIC_QP_ATTR_RETRY_CNT)
    to.retry_cnt = from.retry_cnt;
  if (mask & ORNIC_QP_ATTR_RNR_RETRY)
    to.rnr_retry = from.rnr_retry;
  if (mask & ORNIC_QP_ATTR_RQ_PSN)
    to.rq_psn = from.rq_psn;
  if (mask & ORNIC_QP_ATTR_MAX_QP_RD_ATOMIC)
    to.max_rd_atomic = from.max_rd_atomic;
  if (mask & ORNIC_QP_ATTR_MIN_RNR_TIMER)
    to.min_rnr_timer = from.min_rnr_timer;
  if (mask & ORNIC_QP_ATTR_SQ_PSN)
    to.sq_psn = from.sq_psn;
  if (mask & ORNIC_QP_ATTR_MAX_DEST_RD_ATOMIC)
    to.max_dest_rd_atomic = from.max_dest_rd_atomic;
  if (mask & ORNIC_QP_ATTR_DEST_QPN)
    to.dest_qpn = from.dest_qpn;
  if (mask & ORNIC_QP_ATTR_EN_SQD_ASYNC_NOTIFY)
    to.en_sqd_async_notify = from.en_sqd_async_notify;
}

AdminResult AdminCommands::modify_qp(const ornic_admin_modify_qp& c) {
  const uint32_t mask = le(c.attr_mask);
  if (c.reserved0 != 0 || !field_is_zero(c.reserved1) ||
      (c.flags & ~ORNIC_MODIFY_QP_FLAG_CUR_STATE) || (mask & ~ORNIC_QP_ATTR_ALL) ||
      le(c.attr_len) < sizeof(ornic_qp_attr))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const uint32_t qpn = le(c.qpn);
  QueuePair* qp = core_.resources.qps.find(qpn);
  if (qp == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  ornic_qp_attr attr{};
  if (!core_.memory().read(le(c.attr_addr), bytes_of(attr))) {
    core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
    return admin_status(ORNIC_ADMIN_STATUS_BAD_DMA);
  }
  if ((c.flags & ORNIC_MODIFY_QP_FLAG_CUR_STATE) && c.cur_state != qp->state)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_STATE);
  // On an iWARP port the device takes a QP to RTS when its connection is established.
  if (core_.is_iwarp() && (mask & ORNIC_QP_ATTR_STATE) && attr.state != qp->state &&
      (attr.state == ORNIC_QPS_RTR || attr.state == ORNIC_QPS_RTS))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_STATE);
  if (auto status = check_qp_attr(core_, attr, mask); status != ORNIC_ADMIN_STATUS_SUCCESS)
    return admin_status(status);

  const ornic_qp_state from = qp->state;
  const auto to = (mask & ORNIC_QP_ATTR_STATE) ? static_cast<ornic_qp_state>(attr.state) : from;
  const auto rule = qp_transition_rule(qp->type, from, to);
  if (!rule)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_STATE);
  const uint32_t fields = mask & ~ORNIC_QP_ATTR_STATE;
  if ((fields & rule->required) != rule->required || (fields & ~(rule->required | rule->optional)))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);

  apply_qp_attr(qp->attr, attr, fields);
  if (to == ORNIC_QPS_RESET) {
    // RESET forgets everything outstanding, without completions.
    qp->attr = ornic_qp_attr{};
    qp->sq.producer = qp->sq.consumer = 0;
    qp->rq.producer = qp->rq.consumer = 0;
    // The records start over too (producer 0); a record that cannot be written is
    // counted, and that ring then needs doorbells until software fixes it.
    (void)core_.sq_record(*qp).rewrite(true);
    (void)core_.rq_record(*qp).rewrite(false);
  }
  // Entering ERR: the state, the flush and Last WQE Reached are move_qp_to_error's, which
  // tells a QP entering ERR from one already there by the state it finds.
  if (to == ORNIC_QPS_ERR && from != ORNIC_QPS_ERR) {
    core_.move_qp_to_error(qpn);
    return admin_ok(to);
  }
  qp->state = to;
  qp->attr.state = static_cast<uint8_t>(to);
  if (core_.transport != nullptr)
    core_.transport->qp_modified(qpn, from, to); // PSNs, SQ drain, RESET forgets all
  return admin_ok(to);
}

AdminResult AdminCommands::query_qp(const ornic_admin_modify_qp& c) {
  if (c.reserved0 != 0 || !field_is_zero(c.reserved1) || c.flags != 0 || c.cur_state != 0 ||
      c.attr_mask != 0)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const QueuePair* qp = core_.resources.qps.find(le(c.qpn));
  if (qp == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  ornic_qp_attr attr = qp->attr;
  attr.state = static_cast<uint8_t>(qp->state);
  attr.sq_draining = qp->state == ORNIC_QPS_SQD && !qp->transport.req.ops.empty();
  AdminResult result = write_response(le(c.attr_addr), le(c.attr_len), bytes_of(attr));
  if (result.status == ORNIC_ADMIN_STATUS_SUCCESS)
    result.result1 = qp->state;
  return result;
}

AdminResult AdminCommands::destroy_qp(const ornic_admin_destroy& c) {
  if (!field_is_zero(c.reserved))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const uint32_t qpn = le(c.handle);
  auto& r = core_.resources;
  const QueuePair* qp = r.qps.find(qpn);
  if (qp == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  if (core_.transport != nullptr)
    core_.transport->qp_destroyed(qpn);
  r.page_list_entries -= qp->page_list_charge;
  // A type-2 window is usable only through its QP: a later QP with this QPN must not inherit it.
  r.unbind_windows_of(qpn);
  r.mcast.detach_all(qpn);
  r.qps.erase(qpn);
  return admin_ok();
}

} // namespace ornic
