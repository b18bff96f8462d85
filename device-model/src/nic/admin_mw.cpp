// Memory windows on the admin queue (memory.rst "Memory windows"): ALLOC_MW makes a FREE
// window in the MR key table, DEALLOC_MW destroys one in either state.
#include "nic/admin_commands.hpp"

namespace ornic {

AdminResult AdminCommands::alloc_mw(const ornic_admin_alloc_mw& c) {
  if (c.reserved0 != 0 || !field_is_zero(c.reserved1) ||
      (c.type != ORNIC_MW_TYPE_1 && c.type != ORNIC_MW_TYPE_2))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  auto& r = core_.resources;
  const uint32_t pd = le(c.pd);
  if (r.pds.find(pd) == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  MemoryRegion entry;
  entry.pd = pd;
  entry.window = MemoryWindow{c.type};
  const auto index = r.mrs.insert(std::move(entry));
  if (!index)
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  return admin_ok(assign_key(*index));
}

AdminResult AdminCommands::dealloc_mw(const ornic_admin_destroy& c) {
  if (!field_is_zero(c.reserved))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  auto& r = core_.resources;
  // The variant changes with every bind and only the consumer knows the last one: the index
  // names the window, as DEREG_MR does for a fast-reg MR.
  const uint32_t index = le(c.handle) >> ORNIC_MR_KEY_INDEX_SHIFT;
  MemoryRegion* entry = r.mrs.find(index);
  if (entry == nullptr || !entry->window)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  r.unbind_window(*entry->window);
  r.mrs.erase(index);
  return admin_ok();
}

} // namespace ornic
