// The admin command decoder (admin.rst, "Opcodes"): validates every field of one
// 64-byte command and applies it to the device's object tables. No transport, no
// scheduling — the AdminQueue feeds it, and the fuzzer calls it directly.
#pragma once

#include <cstdint>

#include "core/hw.hpp"
#include "core/nic_core.hpp"

namespace ornic {

struct AdminResult {
  ornic_admin_status status = ORNIC_ADMIN_STATUS_SUCCESS;
  uint32_t result0 = 0;
  uint32_t result1 = 0;
};

class AdminCommands {
public:
  explicit AdminCommands(NicCore& core) : core_(core) {}

  // Never throws for any input; a failed command changes nothing.
  AdminResult execute(const ornic_admin_sqe& command);

private:
  AdminResult dispatch(const ornic_admin_sqe& command);
  void inject_faults(const ornic_admin_sqe& command, AdminResult& result);

  // admin_query.cpp
  AdminResult query_device(const ornic_admin_query& command);
  AdminResult query_port(const ornic_admin_query& command);
  AdminResult query_counters(const ornic_admin_query_counters& command);
  AdminResult write_response(uint64_t addr, uint32_t len, std::span<const std::byte> response);

  // admin_queues.cpp
  AdminResult alloc_db_page();
  AdminResult free_db_page(const ornic_admin_destroy& command);
  AdminResult create_eq(const ornic_admin_create_eq& command);
  AdminResult destroy_eq(const ornic_admin_destroy& command);
  AdminResult create_cq(const ornic_admin_create_cq& command);
  AdminResult destroy_cq(const ornic_admin_destroy& command);
  AdminResult resize_cq(const ornic_admin_resize_cq& command);

  // admin_memory.cpp
  AdminResult alloc_pd();
  AdminResult dealloc_pd(const ornic_admin_destroy& command);
  AdminResult reg_mr(const ornic_admin_reg_mr& command);
  AdminResult reg_fast_reg_mr(const ornic_admin_reg_mr& command);
  AdminResult dereg_mr(const ornic_admin_destroy& command);
  AdminResult rereg_mr(const ornic_admin_rereg_mr& command);

  // admin_mw.cpp
  AdminResult alloc_mw(const ornic_admin_alloc_mw& command);
  AdminResult dealloc_mw(const ornic_admin_destroy& command);

  // admin_odp.cpp
  AdminResult reg_odp_mr(const ornic_admin_reg_mr& command);
  AdminResult odp_invalidate(const ornic_admin_odp_invalidate& command);
  AdminResult odp_resume(const ornic_admin_odp_resume& command);

  // admin_cc.cpp
  AdminResult cc_config(const ornic_admin_cc_config& command);

  // admin_qos.cpp
  AdminResult set_port_qos(const ornic_admin_port_qos& command);
  AdminResult query_port_qos(const ornic_admin_port_qos& command);

  // admin_qp.cpp
  AdminResult create_qp(const ornic_admin_create_qp& command);
  AdminResult modify_qp(const ornic_admin_modify_qp& command);
  AdminResult query_qp(const ornic_admin_modify_qp& command);
  AdminResult destroy_qp(const ornic_admin_destroy& command);
  AdminResult create_xrc_tgt_qp(const ornic_admin_create_qp& command);

  // admin_xrc.cpp
  AdminResult alloc_xrcd();
  AdminResult dealloc_xrcd(const ornic_admin_destroy& command);

  // admin_srq_ah_gid.cpp
  AdminResult create_srq(const ornic_admin_create_srq& command);
  AdminResult modify_srq(const ornic_admin_modify_srq& command);
  AdminResult destroy_srq(const ornic_admin_destroy& command);
  AdminResult resize_srq(const ornic_admin_resize_srq& command);
  AdminResult create_ah(const ornic_admin_create_ah& command);
  AdminResult destroy_ah(const ornic_admin_destroy& command);
  AdminResult add_gid(const ornic_admin_gid& command);
  AdminResult del_gid(const ornic_admin_gid& command);

  // admin_mcast.cpp
  AdminResult attach_mcast(const ornic_admin_mcast& command);
  AdminResult detach_mcast(const ornic_admin_mcast& command);
  // The checks ATTACH_MCAST and DETACH_MCAST share: SUCCESS when the command may go on.
  ornic_admin_status check_mcast(const ornic_admin_mcast& command) const;

  // admin_ib.cpp
  AdminResult mad_ifc(const ornic_admin_mad_ifc& command);
  AdminResult modify_port(const ornic_admin_modify_port& command);

  // admin_eth.cpp
  AdminResult eth_create_ring(const ornic_admin_create_eth_ring& command, bool is_tx);
  AdminResult eth_destroy_ring(const ornic_admin_destroy& command);
  AdminResult eth_set_mac(const ornic_admin_eth_set_mac& command);
  AdminResult eth_set_mtu(const ornic_admin_eth_set_mtu& command);

  // Shared checks.
  bool db_page_usable(uint32_t page) const;
  bool page_budget_allows(uint64_t entries) const;
  // Gives the MR or window just inserted at `index` a new random variant (memory.rst,
  // "Keys"); returns its key.
  uint32_t assign_key(uint32_t index);
  // Whether replacing a page list of `old_entries` by one of `new_entries` fits.
  bool page_budget_allows_swap(uint64_t old_entries, uint64_t new_entries) const;

  NicCore& core_;
};

inline AdminResult admin_status(ornic_admin_status status) {
  return AdminResult{status, 0, 0};
}
inline AdminResult admin_ok(uint32_t result0 = 0, uint32_t result1 = 0) {
  return AdminResult{ORNIC_ADMIN_STATUS_SUCCESS, result0, result1};
}

} // namespace ornic
