#include "nic/qp_state_machine.hpp"

namespace ornic {
namespace {

using Rule = QpTransitionRule;

constexpr uint32_t kRcModifiable = ORNIC_QP_ATTR_ACCESS_FLAGS | ORNIC_QP_ATTR_MIN_RNR_TIMER;

std::optional<Rule> rc_rule(ornic_qp_state from, ornic_qp_state to) {
  switch (from) {
  case ORNIC_QPS_RESET:
    if (to == ORNIC_QPS_INIT)
      return Rule{ORNIC_QP_ATTR_PKEY_INDEX | ORNIC_QP_ATTR_ACCESS_FLAGS, 0};
    break;
  case ORNIC_QPS_INIT:
    if (to == ORNIC_QPS_INIT)
      return Rule{0, ORNIC_QP_ATTR_PKEY_INDEX | ORNIC_QP_ATTR_ACCESS_FLAGS};
    if (to == ORNIC_QPS_RTR)
      return Rule{ORNIC_QP_ATTR_AV | ORNIC_QP_ATTR_PATH_MTU | ORNIC_QP_ATTR_DEST_QPN |
                      ORNIC_QP_ATTR_RQ_PSN | ORNIC_QP_ATTR_MAX_DEST_RD_ATOMIC |
                      ORNIC_QP_ATTR_MIN_RNR_TIMER,
                  ORNIC_QP_ATTR_ACCESS_FLAGS | ORNIC_QP_ATTR_PKEY_INDEX};
    break;
  case ORNIC_QPS_RTR:
    if (to == ORNIC_QPS_RTS)
      return Rule{ORNIC_QP_ATTR_SQ_PSN | ORNIC_QP_ATTR_TIMEOUT | ORNIC_QP_ATTR_RETRY_CNT |
                      ORNIC_QP_ATTR_RNR_RETRY | ORNIC_QP_ATTR_MAX_QP_RD_ATOMIC,
                  kRcModifiable};
    break;
  case ORNIC_QPS_RTS:
    if (to == ORNIC_QPS_RTS)
      return Rule{0, kRcModifiable};
    if (to == ORNIC_QPS_SQD)
      return Rule{0, ORNIC_QP_ATTR_EN_SQD_ASYNC_NOTIFY};
    break;
  case ORNIC_QPS_SQD:
    if (to == ORNIC_QPS_SQD)
      return Rule{0, kRcModifiable | ORNIC_QP_ATTR_AV | ORNIC_QP_ATTR_TIMEOUT |
                         ORNIC_QP_ATTR_RETRY_CNT | ORNIC_QP_ATTR_RNR_RETRY |
                         ORNIC_QP_ATTR_MAX_QP_RD_ATOMIC | ORNIC_QP_ATTR_MAX_DEST_RD_ATOMIC};
    if (to == ORNIC_QPS_RTS)
      return Rule{0, kRcModifiable};
    break;
  default:
    break;
  }
  return std::nullopt;
}

// XRC QPs are RC QPs with one side each (qp.rst): an initiator needs no responder
// attributes to reach RTR, a target no requester attributes to reach RTS. The attributes
// moved out of `required` stay allowed.
std::optional<Rule> xrc_rule(ornic_qp_type type, ornic_qp_state from, ornic_qp_state to) {
  std::optional<Rule> rule = rc_rule(from, to);
  if (!rule)
    return rule;
  uint32_t relaxed = 0;
  if (type == ORNIC_QPT_XRC_INI && from == ORNIC_QPS_INIT && to == ORNIC_QPS_RTR)
    relaxed = ORNIC_QP_ATTR_MAX_DEST_RD_ATOMIC | ORNIC_QP_ATTR_MIN_RNR_TIMER;
  if (type == ORNIC_QPT_XRC_TGT && from == ORNIC_QPS_RTR && to == ORNIC_QPS_RTS)
    relaxed = ORNIC_QP_ATTR_RETRY_CNT | ORNIC_QP_ATTR_RNR_RETRY | ORNIC_QP_ATTR_MAX_QP_RD_ATOMIC;
  rule->required &= ~relaxed;
  rule->optional |= relaxed;
  return rule;
}

// IBTA's UC rows: RC's connection attributes without acknowledgement, retry, RNR or
// READ/atomic ones; a UC QP has SQE like UD.
std::optional<Rule> uc_rule(ornic_qp_state from, ornic_qp_state to) {
  const uint32_t access = ORNIC_QP_ATTR_ACCESS_FLAGS;
  switch (from) {
  case ORNIC_QPS_RESET:
    if (to == ORNIC_QPS_INIT)
      return Rule{ORNIC_QP_ATTR_PKEY_INDEX | access, 0};
    break;
  case ORNIC_QPS_INIT:
    if (to == ORNIC_QPS_INIT)
      return Rule{0, ORNIC_QP_ATTR_PKEY_INDEX | access};
    if (to == ORNIC_QPS_RTR)
      return Rule{ORNIC_QP_ATTR_AV | ORNIC_QP_ATTR_PATH_MTU | ORNIC_QP_ATTR_DEST_QPN |
                      ORNIC_QP_ATTR_RQ_PSN,
                  access | ORNIC_QP_ATTR_PKEY_INDEX};
    break;
  case ORNIC_QPS_RTR:
    if (to == ORNIC_QPS_RTS)
      return Rule{ORNIC_QP_ATTR_SQ_PSN, access};
    break;
  case ORNIC_QPS_RTS:
    if (to == ORNIC_QPS_RTS)
      return Rule{0, access};
    if (to == ORNIC_QPS_SQD)
      return Rule{0, ORNIC_QP_ATTR_EN_SQD_ASYNC_NOTIFY};
    break;
  case ORNIC_QPS_SQD:
    if (to == ORNIC_QPS_SQD)
      return Rule{0, access | ORNIC_QP_ATTR_AV | ORNIC_QP_ATTR_PKEY_INDEX};
    if (to == ORNIC_QPS_RTS)
      return Rule{0, access};
    break;
  case ORNIC_QPS_SQE:
    if (to == ORNIC_QPS_RTS)
      return Rule{0, access};
    break;
  default:
    break;
  }
  return std::nullopt;
}

std::optional<Rule> ud_rule(ornic_qp_state from, ornic_qp_state to) {
  const uint32_t qkey = ORNIC_QP_ATTR_QKEY;
  switch (from) {
  case ORNIC_QPS_RESET:
    if (to == ORNIC_QPS_INIT)
      return Rule{ORNIC_QP_ATTR_PKEY_INDEX | qkey, 0};
    break;
  case ORNIC_QPS_INIT:
    if (to == ORNIC_QPS_INIT || to == ORNIC_QPS_RTR)
      return Rule{0, ORNIC_QP_ATTR_PKEY_INDEX | qkey};
    break;
  case ORNIC_QPS_RTR:
    if (to == ORNIC_QPS_RTS)
      return Rule{ORNIC_QP_ATTR_SQ_PSN, qkey};
    break;
  case ORNIC_QPS_RTS:
    if (to == ORNIC_QPS_RTS)
      return Rule{0, qkey};
    if (to == ORNIC_QPS_SQD)
      return Rule{0, ORNIC_QP_ATTR_EN_SQD_ASYNC_NOTIFY};
    break;
  case ORNIC_QPS_SQD:
    if (to == ORNIC_QPS_SQD || to == ORNIC_QPS_RTS)
      return Rule{0, qkey};
    break;
  case ORNIC_QPS_SQE:
    if (to == ORNIC_QPS_RTS)
      return Rule{0, qkey};
    break;
  default:
    break;
  }
  return std::nullopt;
}

} // namespace

bool qp_state_valid(uint32_t state) {
  return state <= ORNIC_QPS_ERR;
}

std::optional<QpTransitionRule> qp_transition_rule(ornic_qp_type type, ornic_qp_state from,
                                                   ornic_qp_state to) {
  // Reset and error are reachable from everywhere and take no attributes.
  if (to == ORNIC_QPS_RESET || to == ORNIC_QPS_ERR)
    return Rule{0, 0};
  if (type == ORNIC_QPT_RC)
    return rc_rule(from, to);
  if (type == ORNIC_QPT_XRC_INI || type == ORNIC_QPT_XRC_TGT)
    return xrc_rule(type, from, to);
  if (type == ORNIC_QPT_UC)
    return uc_rule(from, to);
  return ud_rule(from, to);
}

} // namespace ornic
