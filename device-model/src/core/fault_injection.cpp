#include "core/fault_injection.hpp"

#include <stdexcept>

namespace ornic {

FaultInjection parse_fault_list(std::string_view list) {
  FaultInjection faults;
  if (list == "none" || list.empty())
    return faults;
  for (;;) { // every item, the empty one after a trailing comma too
    const size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    if (item == "qp-state")
      faults.qp_state = true;
    else if (item == "cqe")
      faults.cqe = true;
    else if (item == "eq-storm")
      faults.eq_storm = true;
    else if (item == "admin-stall")
      faults.admin_stall = true;
    else
      throw std::invalid_argument("unknown fault '" + std::string(item) +
                                  "' (known: qp-state, cqe, eq-storm, admin-stall)");
    if (comma == std::string_view::npos)
      break;
    list.remove_prefix(comma + 1);
  }
  return faults;
}

std::string fault_list_string(const FaultInjection& faults) {
  std::string s;
  const auto add = [&s](bool on, const char* name) {
    if (on)
      s += (s.empty() ? "" : ",") + std::string(name);
  };
  add(faults.qp_state, "qp-state");
  add(faults.cqe, "cqe");
  add(faults.eq_storm, "eq-storm");
  add(faults.admin_stall, "admin-stall");
  return s.empty() ? "none" : s;
}

void corrupt_cqe(ornic_cqe& cqe) {
  if (cqe.opcode == ORNIC_CQE_OP_ETH_TX || cqe.opcode == ORNIC_CQE_OP_ETH_RX) {
    // The ring index of an Ethernet completion travels in wr_id.
    cqe.wr_id = to_le(le(cqe.wr_id) + kFaultEthIndexOffset);
    return;
  }
  cqe.qpn = to_le(kFaultQpn);
  cqe.wqe_index = to_le(static_cast<uint16_t>(le(cqe.wqe_index) ^ kFaultWqeIndexFlip));
}

} // namespace ornic
