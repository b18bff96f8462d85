#include <cstring>
#include <optional>

#include "core/iwarp_cm_hooks.hpp"
#include "nic/admin_commands.hpp"

namespace ornic {
namespace {

// Each command struct is the same 64 bytes viewed through its opcode's layout.
template <typename Command>
Command as(const ornic_admin_sqe& sqe) {
  static_assert(sizeof(Command) == sizeof(ornic_admin_sqe));
  Command command;
  std::memcpy(&command, &sqe, sizeof(command));
  return command;
}

void count_failure(DeviceCounters& counters, ornic_admin_status status) {
  counters.inc(ORNIC_CNT_ADMIN_ERRORS);
  switch (status) {
  case ORNIC_ADMIN_STATUS_BAD_OPCODE:
    counters.inc(ORNIC_CNT_ADMIN_BAD_OPCODE);
    break;
  case ORNIC_ADMIN_STATUS_BAD_FIELD:
  case ORNIC_ADMIN_STATUS_BAD_ALIGNMENT:
    counters.inc(ORNIC_CNT_ADMIN_BAD_FIELD);
    break;
  case ORNIC_ADMIN_STATUS_BAD_HANDLE:
    counters.inc(ORNIC_CNT_ADMIN_BAD_HANDLE);
    break;
  case ORNIC_ADMIN_STATUS_NO_RESOURCES:
  case ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED:
    counters.inc(ORNIC_CNT_ADMIN_NO_RESOURCES);
    break;
  case ORNIC_ADMIN_STATUS_BAD_DMA:
    counters.inc(ORNIC_CNT_ADMIN_BAD_DMA);
    break;
  default:
    break;
  }
}

// Commands whose body is only the header must have 56 zero bytes after it.
bool body_is_zero(const ornic_admin_sqe& sqe) {
  return field_is_zero(sqe.body);
}

} // namespace

AdminResult AdminCommands::execute(const ornic_admin_sqe& command) {
  core_.counters.inc(ORNIC_CNT_ADMIN_COMMANDS);
  AdminResult result;
  if (command.hdr.flags != 0 || command.hdr.reserved != 0)
    result = admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  else
    result = dispatch(command);
  if (result.status != ORNIC_ADMIN_STATUS_SUCCESS) {
    count_failure(core_.counters, result.status);
    core_.log.warn("admin: opcode {:#04x} command {} failed with status {:#04x}",
                   command.hdr.opcode, le(command.hdr.command_id), static_cast<int>(result.status));
    result.result0 = result.result1 = 0;
  }
  if (core_.faults.any())
    inject_faults(command, result);
  return result;
}

// Test-only misbehaviour (fault_injection.hpp), on top of a command's real outcome.
void AdminCommands::inject_faults(const ornic_admin_sqe& command, AdminResult& result) {
  if (result.status != ORNIC_ADMIN_STATUS_SUCCESS)
    return;
  const uint8_t opcode = command.hdr.opcode;
  if (opcode == ORNIC_ADMIN_MODIFY_QP || opcode == ORNIC_ADMIN_QUERY_QP) {
    if (core_.faults.qp_state && le(as<ornic_admin_modify_qp>(command).qpn) != ORNIC_QPN_GSI) {
      core_.log.warn("fault injection: {} answers QP state {:#x}",
                     opcode == ORNIC_ADMIN_MODIFY_QP ? "MODIFY_QP" : "QUERY_QP", kFaultQpState);
      (opcode == ORNIC_ADMIN_MODIFY_QP ? result.result0 : result.result1) = kFaultQpState;
    }
  } else if (opcode == ORNIC_ADMIN_CREATE_QP && core_.faults.admin_stall &&
             result.result0 != ORNIC_QPN_GSI) {
    core_.log.warn("fault injection: admin queue stalls after CREATE_QP of QP {}", result.result0);
    core_.admin_stalled = true;
  }
}

// What an InfiniBand port does not have (infiniband.rst): an Ethernet function and a GID
// table software fills are a state the port is never in; DCQCN and DCB are capabilities it
// lacks.
static std::optional<ornic_admin_status> refused_on_ib_port(uint8_t opcode) {
  switch (opcode) {
  case ORNIC_ADMIN_ADD_GID:
  case ORNIC_ADMIN_DEL_GID:
  case ORNIC_ADMIN_ETH_CREATE_TX_RING:
  case ORNIC_ADMIN_ETH_CREATE_RX_RING:
  case ORNIC_ADMIN_ETH_DESTROY_RING:
  case ORNIC_ADMIN_ETH_SET_MAC:
  case ORNIC_ADMIN_ETH_SET_MTU:
    return ORNIC_ADMIN_STATUS_BAD_STATE;
  case ORNIC_ADMIN_CC_CONFIG:
  case ORNIC_ADMIN_SET_PORT_QOS:
  case ORNIC_ADMIN_QUERY_PORT_QOS:
    return ORNIC_ADMIN_STATUS_BAD_OPCODE;
  default:
    return std::nullopt;
  }
}

AdminResult AdminCommands::dispatch(const ornic_admin_sqe& c) {
  if (core_.is_ib())
    if (const auto refused = refused_on_ib_port(c.hdr.opcode))
      return admin_status(*refused);
  switch (c.hdr.opcode) {
  case ORNIC_ADMIN_QUERY_DEVICE:
    return query_device(as<ornic_admin_query>(c));
  case ORNIC_ADMIN_QUERY_PORT:
    return query_port(as<ornic_admin_query>(c));
  case ORNIC_ADMIN_QUERY_COUNTERS:
    return query_counters(as<ornic_admin_query_counters>(c));
  case ORNIC_ADMIN_ALLOC_DB_PAGE:
    return body_is_zero(c) ? alloc_db_page() : admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  case ORNIC_ADMIN_FREE_DB_PAGE:
    return free_db_page(as<ornic_admin_destroy>(c));
  case ORNIC_ADMIN_CREATE_EQ:
    return create_eq(as<ornic_admin_create_eq>(c));
  case ORNIC_ADMIN_DESTROY_EQ:
    return destroy_eq(as<ornic_admin_destroy>(c));
  case ORNIC_ADMIN_CREATE_CQ:
    return create_cq(as<ornic_admin_create_cq>(c));
  case ORNIC_ADMIN_DESTROY_CQ:
    return destroy_cq(as<ornic_admin_destroy>(c));
  case ORNIC_ADMIN_RESIZE_CQ:
    return resize_cq(as<ornic_admin_resize_cq>(c));
  case ORNIC_ADMIN_ALLOC_PD:
    return body_is_zero(c) ? alloc_pd() : admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  case ORNIC_ADMIN_DEALLOC_PD:
    return dealloc_pd(as<ornic_admin_destroy>(c));
  case ORNIC_ADMIN_REG_MR:
    return reg_mr(as<ornic_admin_reg_mr>(c));
  case ORNIC_ADMIN_DEREG_MR:
    return dereg_mr(as<ornic_admin_destroy>(c));
  case ORNIC_ADMIN_ALLOC_MW:
    return alloc_mw(as<ornic_admin_alloc_mw>(c));
  case ORNIC_ADMIN_DEALLOC_MW:
    return dealloc_mw(as<ornic_admin_destroy>(c));
  case ORNIC_ADMIN_REREG_MR:
    return rereg_mr(as<ornic_admin_rereg_mr>(c));
  case ORNIC_ADMIN_CREATE_QP:
    return create_qp(as<ornic_admin_create_qp>(c));
  case ORNIC_ADMIN_MODIFY_QP:
    return modify_qp(as<ornic_admin_modify_qp>(c));
  case ORNIC_ADMIN_QUERY_QP:
    return query_qp(as<ornic_admin_modify_qp>(c));
  case ORNIC_ADMIN_DESTROY_QP:
    return destroy_qp(as<ornic_admin_destroy>(c));
  case ORNIC_ADMIN_ALLOC_XRCD:
    return body_is_zero(c) ? alloc_xrcd() : admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  case ORNIC_ADMIN_DEALLOC_XRCD:
    return dealloc_xrcd(as<ornic_admin_destroy>(c));
  case ORNIC_ADMIN_CREATE_SRQ:
    return create_srq(as<ornic_admin_create_srq>(c));
  case ORNIC_ADMIN_MODIFY_SRQ:
    return modify_srq(as<ornic_admin_modify_srq>(c));
  case ORNIC_ADMIN_DESTROY_SRQ:
    return destroy_srq(as<ornic_admin_destroy>(c));
  case ORNIC_ADMIN_RESIZE_SRQ:
    return resize_srq(as<ornic_admin_resize_srq>(c));
  case ORNIC_ADMIN_CREATE_AH:
    return create_ah(as<ornic_admin_create_ah>(c));
  case ORNIC_ADMIN_DESTROY_AH:
    return destroy_ah(as<ornic_admin_destroy>(c));
  case ORNIC_ADMIN_ADD_GID:
    return add_gid(as<ornic_admin_gid>(c));
  case ORNIC_ADMIN_DEL_GID:
    return del_gid(as<ornic_admin_gid>(c));
  case ORNIC_ADMIN_ATTACH_MCAST:
    return attach_mcast(as<ornic_admin_mcast>(c));
  case ORNIC_ADMIN_DETACH_MCAST:
    return detach_mcast(as<ornic_admin_mcast>(c));
  case ORNIC_ADMIN_ETH_CREATE_TX_RING:
    return eth_create_ring(as<ornic_admin_create_eth_ring>(c), true);
  case ORNIC_ADMIN_ETH_CREATE_RX_RING:
    return eth_create_ring(as<ornic_admin_create_eth_ring>(c), false);
  case ORNIC_ADMIN_ETH_DESTROY_RING:
    return eth_destroy_ring(as<ornic_admin_destroy>(c));
  case ORNIC_ADMIN_ETH_SET_MAC:
    return eth_set_mac(as<ornic_admin_eth_set_mac>(c));
  case ORNIC_ADMIN_ETH_SET_MTU:
    return eth_set_mtu(as<ornic_admin_eth_set_mtu>(c));
  case ORNIC_ADMIN_ODP_INVALIDATE:
    return odp_invalidate(as<ornic_admin_odp_invalidate>(c));
  case ORNIC_ADMIN_ODP_RESUME:
    return odp_resume(as<ornic_admin_odp_resume>(c));
  case ORNIC_ADMIN_CC_CONFIG:
    return cc_config(as<ornic_admin_cc_config>(c));
  case ORNIC_ADMIN_SET_PORT_QOS:
    return set_port_qos(as<ornic_admin_port_qos>(c));
  case ORNIC_ADMIN_QUERY_PORT_QOS:
    return query_port_qos(as<ornic_admin_port_qos>(c));
  case ORNIC_ADMIN_MAD_IFC:
    return mad_ifc(as<ornic_admin_mad_ifc>(c));
  case ORNIC_ADMIN_MODIFY_PORT:
    return modify_port(as<ornic_admin_modify_port>(c));
  case ORNIC_ADMIN_IW_LISTEN:
  case ORNIC_ADMIN_IW_UNLISTEN:
  case ORNIC_ADMIN_IW_CONNECT:
  case ORNIC_ADMIN_IW_ACCEPT:
  case ORNIC_ADMIN_IW_REJECT:
  case ORNIC_ADMIN_IW_DISCONNECT:
  case ORNIC_ADMIN_IW_QUERY_CONN: {
    // ORNIC_CAP_IWARP only (iwarp-cm.rst).
    if (core_.iwarp_cm == nullptr)
      return admin_status(ORNIC_ADMIN_STATUS_BAD_OPCODE);
    const IwarpCmResult r = core_.iwarp_cm->admin(c);
    return {static_cast<ornic_admin_status>(r.status), r.result0, 0};
  }
  default:
    return admin_status(ORNIC_ADMIN_STATUS_BAD_OPCODE);
  }
}

bool AdminCommands::db_page_usable(uint32_t page) const {
  return core_.resources.db_pages.allocated(page);
}

bool AdminCommands::page_budget_allows(uint64_t entries) const {
  return core_.resources.page_list_entries + entries <= limits::kPageListBudget;
}

bool AdminCommands::page_budget_allows_swap(uint64_t old_entries, uint64_t new_entries) const {
  return new_entries <= old_entries || page_budget_allows(new_entries - old_entries);
}

} // namespace ornic
