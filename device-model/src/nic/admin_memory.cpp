// Protection domains and memory regions (memory.rst).
#include "nic/admin_commands.hpp"
#include "nic/mem_desc_reader.hpp"

namespace ornic {
namespace {

// Page-list entries an MR holds against limits::kPageListBudget: a fast-reg MR reserves
// its capacity when it is created, so REG_MR WQEs never need more.
uint64_t page_list_charge(const MemoryRegion& mr) {
  if (mr.physical)
    return 0;
  if (mr.odp)
    return mr.odp_table.page_count(); // table pointers; the entries stay in host memory
  return mr.fast_reg ? mr.capacity : mr.pages.page_count();
}

// Access rights any MR may have (memory.rst, REG_MR): known bits only, and a region the
// peer may write must be locally writable too (IB rule).
bool access_valid(uint32_t access) {
  if ((access & ~(ORNIC_ACCESS_ALL | ORNIC_ACCESS_MW_BIND)) != 0)
    return false;
  return !((access & (ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_ATOMIC)) &&
           !(access & ORNIC_ACCESS_LOCAL_WRITE));
}

} // namespace

AdminResult AdminCommands::alloc_pd() {
  const auto pdn = core_.resources.pds.insert(ProtectionDomain{});
  if (!pdn)
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  return admin_ok(*pdn);
}

AdminResult AdminCommands::dealloc_pd(const ornic_admin_destroy& c) {
  if (!field_is_zero(c.reserved))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const uint32_t pdn = le(c.handle);
  auto& r = core_.resources;
  if (r.pds.find(pdn) == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  const bool in_use = r.mrs.any_of([&](const MemoryRegion& mr) { return mr.pd == pdn; }) ||
                      r.qps.any_of([&](const QueuePair& qp) { return qp.pd == pdn; }) ||
                      r.srqs.any_of([&](const SharedReceiveQueue& s) { return s.pd == pdn; }) ||
                      r.ahs.any_of([&](const AddressHandle& ah) { return ah.pd == pdn; });
  if (in_use)
    return admin_status(ORNIC_ADMIN_STATUS_BUSY);
  r.pds.erase(pdn);
  return admin_ok();
}

uint32_t AdminCommands::assign_key(uint32_t index) {
  const uint8_t variant = core_.new_key_variant(index);
  core_.resources.mrs.find(index)->key_variant = variant;
  return ORNIC_MR_KEY(index, variant);
}

AdminResult AdminCommands::reg_mr(const ornic_admin_reg_mr& c) {
  if (c.reserved0 != 0 || !field_is_zero(c.reserved1) ||
      (c.flags & ~(ORNIC_MR_FLAG_PHYSICAL | ORNIC_MR_FLAG_FAST_REG)) ||
      c.flags == (ORNIC_MR_FLAG_PHYSICAL | ORNIC_MR_FLAG_FAST_REG))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (c.flags & ORNIC_MR_FLAG_FAST_REG)
    return reg_fast_reg_mr(c);
  if (le(c.access) & ORNIC_ACCESS_ON_DEMAND)
    return reg_odp_mr(c);
  MemoryRegion mr;
  mr.pd = le(c.pd);
  mr.iova = le(c.iova);
  mr.length = le(c.length);
  mr.access = le(c.access);
  mr.physical = (c.flags & ORNIC_MR_FLAG_PHYSICAL) != 0;
  mr.first_page_offset = le(c.first_page_offset);

  const uint32_t remote = ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ |
                          ORNIC_ACCESS_REMOTE_ATOMIC | ORNIC_ACCESS_FLUSH;
  if (!access_valid(mr.access))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (mr.length == 0 || mr.iova + (mr.length - 1) < mr.iova)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (core_.resources.pds.find(mr.pd) == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);

  if (mr.physical) {
    // Only for the kernel's own DMA: no page list, and never reachable from the wire.
    if (!field_is_zero(c.mem) || mr.first_page_offset != 0 ||
        (mr.access & (remote | ORNIC_ACCESS_MW_BIND)))
      return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  } else {
    if (mr.length > limits::kMaxMrSize)
      return admin_status(ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
    const unsigned shift = c.mem.page_shift;
    if (shift < ORNIC_PAGE_SHIFT_MIN || shift > ORNIC_PAGE_SHIFT_MAX ||
        mr.first_page_offset >= (uint64_t{1} << shift))
      return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
    const uint64_t span = mr.first_page_offset + mr.length;
    const uint64_t expected_pages = (span + (uint64_t{1} << shift) - 1) >> shift;
    if (expected_pages > limits::kMaxPagesPerMr)
      return admin_status(ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
    if (le(c.mem.num_pages) != expected_pages)
      return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
    if (!page_budget_allows(expected_pages))
      return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
    if (core_.resources.mrs.size() >= core_.resources.mrs.capacity())
      return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
    auto mem = read_mem_desc(core_.memory(), c.mem, MemDescRules{span, 0, limits::kMaxPagesPerMr});
    if (mem.status != ORNIC_ADMIN_STATUS_SUCCESS)
      return admin_status(mem.status);
    mr.pages = std::move(mem.memory);
  }
  const uint64_t pages = page_list_charge(mr);
  const auto index = core_.resources.mrs.insert(std::move(mr));
  if (!index)
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  core_.resources.page_list_entries += pages;
  return admin_ok(assign_key(*index));
}

// A fast-reg MR starts FREE: only its PD, capacity and key exist until a REG_MR WQE gives
// it pages, so every other field of the command must be zero.
AdminResult AdminCommands::reg_fast_reg_mr(const ornic_admin_reg_mr& c) {
  const uint32_t capacity = le(c.mem.num_pages);
  if (c.mem.addr != 0 || c.mem.page_shift != 0 || c.mem.mode != 0 || c.mem.reserved != 0 ||
      c.iova != 0 || c.length != 0 || c.access != 0 || c.first_page_offset != 0 || capacity == 0)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (capacity > limits::kMaxFastRegPages)
    return admin_status(ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
  MemoryRegion mr;
  mr.pd = le(c.pd);
  mr.fast_reg = true;
  mr.valid = false;
  mr.capacity = capacity;
  if (core_.resources.pds.find(mr.pd) == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  if (!page_budget_allows(capacity))
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  const auto index = core_.resources.mrs.insert(std::move(mr));
  if (!index)
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  core_.resources.page_list_entries += capacity;
  return admin_ok(assign_key(*index));
}

// REREG_MR (memory.rst, "Re-registration"): every check first, on a copy; the MR changes
// only when all passed, and keeps its key.
AdminResult AdminCommands::rereg_mr(const ornic_admin_rereg_mr& c) {
  const uint8_t flags = c.flags;
  if (!field_is_zero(c.reserved0) || c.reserved1 != 0 || flags == 0 ||
      (flags & ~ORNIC_REREG_MR_ALL) != 0)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const bool translation = (flags & ORNIC_REREG_MR_TRANSLATION) != 0;
  const bool change_pd = (flags & ORNIC_REREG_MR_PD) != 0;
  const bool change_access = (flags & ORNIC_REREG_MR_ACCESS) != 0;
  if (!translation &&
      (!field_is_zero(c.mem) || c.iova != 0 || c.length != 0 || c.first_page_offset != 0))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if ((!change_pd && c.pd != 0) || (!change_access && c.access != 0))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  auto& r = core_.resources;
  const uint32_t key = le(c.key);
  MemoryRegion* mr = r.mrs.find(key >> ORNIC_MR_KEY_INDEX_SHIFT);
  if (mr == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  // Only REG_MR's translated regions: a PHYSICAL MR is the kernel's DMA window and a
  // fast-reg MR is changed by REG_MR WQEs.
  // An ODP MR's translation is the table software updates page by page, not a page list.
  if (mr->physical || mr->fast_reg || mr->odp)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (mr->key_variant != (key & ORNIC_MR_KEY_VARIANT_MASK))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  // Windows bound to the MR were bound to its present translation and rights.
  if (mr->bound_windows != 0)
    return admin_status(ORNIC_ADMIN_STATUS_BUSY);

  MemoryRegion next;
  next.key_variant = mr->key_variant;
  next.pd = change_pd ? le(c.pd) : mr->pd;
  next.access = change_access ? le(c.access) : mr->access;
  if (!access_valid(next.access))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (change_pd && r.pds.find(next.pd) == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  const uint64_t old_pages = mr->pages.page_count();
  if (translation) {
    next.iova = le(c.iova);
    next.length = le(c.length);
    next.first_page_offset = le(c.first_page_offset);
    if (next.length == 0 || next.iova + (next.length - 1) < next.iova)
      return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
    if (next.length > limits::kMaxMrSize)
      return admin_status(ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
    const unsigned shift = c.mem.page_shift;
    if (shift < ORNIC_PAGE_SHIFT_MIN || shift > ORNIC_PAGE_SHIFT_MAX ||
        next.first_page_offset >= (uint64_t{1} << shift))
      return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
    const uint64_t span = next.first_page_offset + next.length;
    const uint64_t expected_pages = (span + (uint64_t{1} << shift) - 1) >> shift;
    if (expected_pages > limits::kMaxPagesPerMr)
      return admin_status(ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
    if (le(c.mem.num_pages) != expected_pages)
      return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
    if (!page_budget_allows_swap(old_pages, expected_pages))
      return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
    auto mem = read_mem_desc(core_.memory(), c.mem, MemDescRules{span, 0, limits::kMaxPagesPerMr});
    if (mem.status != ORNIC_ADMIN_STATUS_SUCCESS)
      return admin_status(mem.status);
    next.pages = std::move(mem.memory);
  } else {
    next.iova = mr->iova;
    next.length = mr->length;
    next.first_page_offset = mr->first_page_offset;
    next.pages = std::move(mr->pages);
  }
  const uint64_t new_pages = next.pages.page_count();
  *mr = std::move(next);
  r.page_list_entries = r.page_list_entries - old_pages + new_pages;
  return admin_ok(key);
}

AdminResult AdminCommands::dereg_mr(const ornic_admin_destroy& c) {
  if (!field_is_zero(c.reserved))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const uint32_t key = le(c.handle);
  const uint32_t index = key >> ORNIC_MR_KEY_INDEX_SHIFT;
  auto& r = core_.resources;
  const MemoryRegion* mr = r.mrs.find(index);
  if (mr == nullptr || mr->window) // a window's key is DEALLOC_MW's
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  // A fast-reg MR's variant is the consumer's to change (ib_update_fast_reg_key), and a
  // REG_MR WQE that failed leaves the device's variant behind the driver's: the index is
  // what names the object here.
  if (!mr->fast_reg && mr->key_variant != (key & ORNIC_MR_KEY_VARIANT_MASK))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  // As rxe: windows bound to the MR would point at nothing; the consumer unbinds them first.
  if (mr->bound_windows != 0)
    return admin_status(ORNIC_ADMIN_STATUS_BUSY);
  r.page_list_entries -= page_list_charge(*mr);
  r.mrs.erase(index);
  return admin_ok();
}

} // namespace ornic
