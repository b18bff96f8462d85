// Ethernet function commands (ethernet.rst): TX/RX rings bound to CQs, MAC and MTU.
#include "nic/admin_commands.hpp"
#include "nic/mem_desc_reader.hpp"

namespace ornic {

AdminResult AdminCommands::eth_create_ring(const ornic_admin_create_eth_ring& c, bool is_tx) {
  if (!field_is_zero(c.reserved0) || !field_is_zero(c.reserved1))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const unsigned log_depth = c.log_depth;
  if (log_depth < 1)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (log_depth > limits::kMaxEthLogDepth)
    return admin_status(ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
  auto& r = core_.resources;
  const uint32_t cqn = le(c.cqn);
  const CompletionQueue* cq = r.cqs.find(cqn);
  if (cq == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  // The Ethernet function belongs to the kernel driver, and so must its CQs.
  if (cq->db_page() != ORNIC_DB_PAGE_KERNEL)
    return admin_status(ORNIC_ADMIN_STATUS_PERMISSION);
  if (r.eth_rings.size() >= limits::kMaxEthRings)
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  auto mem = read_mem_desc(core_.memory(), c.mem,
                           MemDescRules{uint64_t{ORNIC_ETH_DESC_SIZE} << log_depth,
                                        ORNIC_ETH_DESC_SIZE, ORNIC_PBL_ENTRIES_PER_PAGE});
  if (mem.status != ORNIC_ADMIN_STATUS_SUCCESS)
    return admin_status(mem.status);
  const size_t pages = mem.memory.page_count();
  if (!page_budget_allows(pages))
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  EthRing ring;
  ring.is_tx = is_tx;
  ring.cqn = cqn;
  ring.memory = std::move(mem.memory);
  ring.ring.log_depth = log_depth;
  const auto id = r.eth_rings.insert(std::move(ring));
  if (!id)
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  r.page_list_entries += pages;
  return admin_ok(*id);
}

AdminResult AdminCommands::eth_destroy_ring(const ornic_admin_destroy& c) {
  if (!field_is_zero(c.reserved))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  auto& r = core_.resources;
  const EthRing* ring = r.eth_rings.find(le(c.handle));
  if (ring == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  r.page_list_entries -= ring->memory.page_count();
  r.eth_rings.erase(le(c.handle));
  return admin_ok();
}

AdminResult AdminCommands::eth_set_mac(const ornic_admin_eth_set_mac& c) {
  if (c.reserved0 != 0 || !field_is_zero(c.reserved1))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const bool multicast = (c.mac[0] & 1) != 0;
  if (multicast || field_is_zero(c.mac))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  std::copy(std::begin(c.mac), std::end(c.mac), core_.mac.begin());
  return admin_ok();
}

AdminResult AdminCommands::eth_set_mtu(const ornic_admin_eth_set_mtu& c) {
  if (!field_is_zero(c.reserved))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const uint32_t mtu = le(c.mtu);
  if (mtu < ORNIC_ETH_MTU_MIN || mtu > ORNIC_ETH_MTU_MAX)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  core_.eth_mtu = mtu;
  return admin_ok();
}

} // namespace ornic
