// On-demand paging (memory.rst "On-demand paging"): registering an ODP MR over the
// driver's page table, and the two commands of the fault/invalidation protocol.
#include "core/device_limits.hpp"
#include "nic/admin_commands.hpp"
#include "rdma/odp.hpp"

namespace ornic {

// Like any REG_MR, except that `mem` is the page table: its entries are never copied.
AdminResult AdminCommands::reg_odp_mr(const ornic_admin_reg_mr& c) {
  MemoryRegion mr;
  mr.pd = le(c.pd);
  mr.iova = le(c.iova);
  mr.length = le(c.length);
  mr.access = le(c.access) & ~ORNIC_ACCESS_ON_DEMAND;
  mr.first_page_offset = le(c.first_page_offset);
  mr.odp = true;
  if (c.flags != 0 || c.mem.reserved != 0 || (mr.access & ~ORNIC_ACCESS_ALL) != 0)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  // Persistence needs the backing file of pages the table may not even hold.
  if (mr.access & ORNIC_ACCESS_FLUSH_PERSISTENT)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if ((mr.access & (ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_ATOMIC)) &&
      !(mr.access & ORNIC_ACCESS_LOCAL_WRITE))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (mr.length == 0 || mr.iova + (mr.length - 1) < mr.iova)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (core_.resources.pds.find(mr.pd) == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  if (mr.length > limits::kMaxMrSize)
    return admin_status(ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
  const unsigned shift = c.mem.page_shift;
  if (shift < ORNIC_PAGE_SHIFT_MIN || shift > ORNIC_PAGE_SHIFT_MAX ||
      (limits::kPageSizeCap & (uint64_t{1} << shift)) == 0 ||
      mr.first_page_offset >= (uint64_t{1} << shift))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const uint64_t span = mr.first_page_offset + mr.length;
  const uint64_t pages = (span + (uint64_t{1} << shift) - 1) >> shift;
  if (pages > limits::kMaxPagesPerMr)
    return admin_status(ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
  if (le(c.mem.num_pages) != pages)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (core_.resources.mrs.size() >= core_.resources.mrs.capacity())
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  auto table = read_odp_table(core_.memory(), c.mem, static_cast<uint32_t>(pages));
  if (table.status != ORNIC_ADMIN_STATUS_SUCCESS)
    return admin_status(table.status);
  const uint64_t charge = table.table.page_count();
  if (!page_budget_allows(charge))
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  mr.odp_table = std::move(table.table);
  mr.odp_page_shift = shift;
  mr.odp_pages = static_cast<uint32_t>(pages);
  const auto index = core_.resources.mrs.insert(std::move(mr));
  if (!index)
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  core_.resources.page_list_entries += charge;
  return admin_ok(assign_key(*index));
}

// The model keeps no translation and runs admin commands between data-path steps, so by
// the time this runs no access to the pages is in flight: completing it is the fence.
AdminResult AdminCommands::odp_invalidate(const ornic_admin_odp_invalidate& c) {
  if (!field_is_zero(c.reserved))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const uint32_t key = le(c.key);
  const MemoryRegion* mr = core_.resources.mrs.find(key >> ORNIC_MR_KEY_INDEX_SHIFT);
  if (mr == nullptr || !mr->odp || mr->key_variant != (key & ORNIC_MR_KEY_VARIANT_MASK))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  const uint64_t first = le(c.first_page);
  const uint64_t count = le(c.num_pages);
  if (count == 0 || first + count > mr->odp_pages)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  core_.counters.inc(ORNIC_CNT_ODP_INVALIDATIONS);
  return admin_ok();
}

AdminResult AdminCommands::odp_resume(const ornic_admin_odp_resume& c) {
  if (!field_is_zero(c.reserved))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const uint32_t qpn = le(c.qpn);
  if (core_.resources.qps.find(qpn) == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  if (core_.transport != nullptr)
    core_.transport->odp_resume(qpn);
  return admin_ok();
}

} // namespace ornic
