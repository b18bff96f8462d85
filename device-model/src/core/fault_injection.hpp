// Test-only fault injection (registers.rst, "Fault injection"): a model started with
// --inject-faults misbehaves the way a broken or hostile device would, so that tests can show
// the driver validating what the device writes. A real device has nothing of this.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/hw.hpp"

namespace ornic {

struct FaultInjection {
  // MODIFY_QP/QUERY_QP of any QP but the GSI QP answer a QP state out of range.
  bool qp_state = false;
  // Every CQE names a QP that does not exist and a WQE index nobody posted; Ethernet CQEs a
  // ring index the driver did not post.
  bool cqe = false;
  // From its first COMPLETION event on, a completion EQ is kept full: every doorbell of it
  // makes the device write copies of that event into every free slot and interrupt.
  bool eq_storm = false;
  // Once a QP other than the GSI QP was created, the admin queue takes no more commands.
  bool admin_stall = false;

  bool any() const { return qp_state || cqe || eq_storm || admin_stall; }
};

// The out-of-range values the faults write.
inline constexpr uint32_t kFaultQpState = 0x2a;
inline constexpr uint32_t kFaultQpn = 0xfffffe;
inline constexpr uint16_t kFaultWqeIndexFlip = 0x8000;
inline constexpr uint64_t kFaultEthIndexOffset = 0x5a5a;

// "qp-state,cqe,eq-storm,admin-stall" (any subset, comma-separated; "none" for none).
// Throws std::invalid_argument naming the unknown entry.
FaultInjection parse_fault_list(std::string_view list);
std::string fault_list_string(const FaultInjection& faults);

// What the cqe fault makes of a CQE.
void corrupt_cqe(ornic_cqe& cqe);

} // namespace ornic
