// The QP state machine of qp.rst: which MODIFY_QP transitions exist for each QP type and
// which attributes each requires or allows.
#pragma once

#include <cstdint>
#include <optional>

#include "core/hw.hpp"

namespace ornic {

struct QpTransitionRule {
  uint32_t required = 0; // ORNIC_QP_ATTR_* that must be in the mask
  uint32_t optional = 0; // ORNIC_QP_ATTR_* that may be in the mask
};

// nullopt: the transition does not exist for this QP type.
std::optional<QpTransitionRule> qp_transition_rule(ornic_qp_type type, ornic_qp_state from,
                                                   ornic_qp_state to);

bool qp_state_valid(uint32_t state);

} // namespace ornic
