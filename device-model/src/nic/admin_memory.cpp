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
  return mr.fast_reg ? mr.capacity : mr.pages.page_count();
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

AdminResult AdminCommands::reg_mr(const ornic_admin_reg_mr& c) {
  if (c.reserved0 != 0 || !field_is_zero(c.reserved1) ||
      (c.flags & ~(ORNIC_MR_FLAG_PHYSICAL | ORNIC_MR_FLAG_FAST_REG)) ||
      c.flags == (ORNIC_MR_FLAG_PHYSICAL | ORNIC_MR_FLAG_FAST_REG))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (c.flags & ORNIC_MR_FLAG_FAST_REG)
    return reg_fast_reg_mr(c);
  MemoryRegion mr;
  mr.key_variant = c.key_variant;
  mr.pd = le(c.pd);
  mr.iova = le(c.iova);
  mr.length = le(c.length);
  mr.access = le(c.access);
  mr.physical = (c.flags & ORNIC_MR_FLAG_PHYSICAL) != 0;
  mr.first_page_offset = le(c.first_page_offset);

  const uint32_t remote = ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ |
                          ORNIC_ACCESS_REMOTE_ATOMIC | ORNIC_ACCESS_FLUSH;
  if ((mr.access & ~ORNIC_ACCESS_ALL) != 0)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  // IB rule: a region the peer may write must be locally writable too.
  if ((mr.access & (ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_ATOMIC)) &&
      !(mr.access & ORNIC_ACCESS_LOCAL_WRITE))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (mr.length == 0 || mr.iova + (mr.length - 1) < mr.iova)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (core_.resources.pds.find(mr.pd) == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);

  if (mr.physical) {
    // Only for the kernel's own DMA: no page list, and never reachable from the wire.
    if (!field_is_zero(c.mem) || mr.first_page_offset != 0 || (mr.access & remote))
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
    if (core_.resources.mrs.size() >= limits::kMaxMr - 1)
      return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
    auto mem = read_mem_desc(core_.memory(), c.mem, MemDescRules{span, 0, limits::kMaxPagesPerMr});
    if (mem.status != ORNIC_ADMIN_STATUS_SUCCESS)
      return admin_status(mem.status);
    mr.pages = std::move(mem.memory);
  }
  const uint64_t pages = page_list_charge(mr);
  const uint8_t variant = mr.key_variant;
  const auto index = core_.resources.mrs.insert(std::move(mr));
  if (!index)
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  core_.resources.page_list_entries += pages;
  return admin_ok(ORNIC_MR_KEY(*index, variant));
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
  mr.key_variant = c.key_variant;
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
  return admin_ok(ORNIC_MR_KEY(*index, c.key_variant));
}

AdminResult AdminCommands::dereg_mr(const ornic_admin_destroy& c) {
  if (!field_is_zero(c.reserved))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const uint32_t key = le(c.handle);
  const uint32_t index = key >> ORNIC_MR_KEY_INDEX_SHIFT;
  auto& r = core_.resources;
  const MemoryRegion* mr = r.mrs.find(index);
  if (mr == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  // A fast-reg MR's variant is the consumer's to change (ib_update_fast_reg_key), and a
  // REG_MR WQE that failed leaves the device's variant behind the driver's: the index is
  // what names the object here.
  if (!mr->fast_reg && mr->key_variant != (key & ORNIC_MR_KEY_VARIANT_MASK))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  r.page_list_entries -= page_list_charge(*mr);
  r.mrs.erase(index);
  return admin_ok();
}

} // namespace ornic
