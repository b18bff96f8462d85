// Doorbell pages, event queues and completion queues.
#include "nic/admin_commands.hpp"
#include "nic/mem_desc_reader.hpp"

namespace ornic {

AdminResult AdminCommands::alloc_db_page() {
  const auto page = core_.resources.db_pages.allocate();
  if (!page)
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  return admin_ok(*page);
}

AdminResult AdminCommands::free_db_page(const ornic_admin_destroy& c) {
  if (!field_is_zero(c.reserved))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const uint32_t page = le(c.handle);
  auto& r = core_.resources;
  if (page == ORNIC_DB_PAGE_KERNEL || !r.db_pages.allocated(page))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  const bool in_use =
      r.cqs.any_of([&](const CompletionQueue& cq) { return cq.db_page() == page; }) ||
      r.qps.any_of([&](const QueuePair& qp) { return qp.db_page == page; }) ||
      r.srqs.any_of([&](const SharedReceiveQueue& s) { return s.db_page == page; });
  if (in_use)
    return admin_status(ORNIC_ADMIN_STATUS_BUSY);
  r.db_pages.free(page);
  return admin_ok();
}

AdminResult AdminCommands::create_eq(const ornic_admin_create_eq& c) {
  if (c.reserved0 != 0 || !field_is_zero(c.reserved1))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const unsigned log_depth = c.log_depth;
  const unsigned vector = le(c.msix_vector);
  if (log_depth < 1 || vector < 1 || vector >= ORNIC_MSIX_VECTORS)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (log_depth > limits::kMaxEqLogDepth)
    return admin_status(ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
  if (core_.resources.eqs.size() >= limits::kMaxEq - 1)
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  const MemDescRules rules{uint64_t{ORNIC_EQE_SIZE} << log_depth, ORNIC_EQE_SIZE,
                           ORNIC_PBL_ENTRIES_PER_PAGE};
  auto mem = read_mem_desc(core_.memory(), c.mem, rules);
  if (mem.status != ORNIC_ADMIN_STATUS_SUCCESS)
    return admin_status(mem.status);
  const size_t pages = mem.memory.page_count();
  if (!page_budget_allows(pages))
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  const auto eqn = core_.resources.eqs.insert(EventQueue(std::move(mem.memory), log_depth, vector));
  if (!eqn)
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  core_.resources.page_list_entries += pages;
  return admin_ok(*eqn);
}

AdminResult AdminCommands::destroy_eq(const ornic_admin_destroy& c) {
  if (!field_is_zero(c.reserved))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const uint32_t eqn = le(c.handle);
  auto& r = core_.resources;
  const EventQueue* eq = r.eqs.find(eqn);
  if (eq == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  if (r.cqs.any_of([&](const CompletionQueue& cq) { return cq.eqn() == eqn; }))
    return admin_status(ORNIC_ADMIN_STATUS_BUSY);
  r.page_list_entries -= eq->page_count();
  r.eqs.erase(eqn);
  return admin_ok();
}

AdminResult AdminCommands::create_cq(const ornic_admin_create_cq& c) {
  if (!field_is_zero(c.reserved1) ||
      (c.flags & ~(ORNIC_CQ_FLAG_TIMESTAMP | ORNIC_CQ_FLAG_DB_RECORD)) != 0)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const bool timestamped = (c.flags & ORNIC_CQ_FLAG_TIMESTAMP) != 0;
  if (timestamped && !(limits::kCaps & ORNIC_CAP_CQE_TIMESTAMP))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  // A receive on an InfiniBand port reports its LIDs in the first half of a 64-byte entry.
  if (!timestamped && core_.is_ib())
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const bool has_record = (c.flags & ORNIC_CQ_FLAG_DB_RECORD) != 0;
  if (has_record && !(limits::kCaps & ORNIC_CAP_CQ_DB_RECORD))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const unsigned log_depth = c.log_depth;
  const uint32_t eqn = le(c.eqn);
  const uint32_t db_page = le(c.db_page);
  if (log_depth < 1)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (log_depth > limits::kMaxCqLogDepth)
    return admin_status(ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
  if (eqn == 0 || core_.resources.eqs.find(eqn) == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  if (!db_page_usable(db_page))
    return admin_status(ORNIC_ADMIN_STATUS_PERMISSION);
  if (core_.resources.cqs.size() >= core_.resources.cqs.capacity())
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  const uint32_t entry = CompletionQueue::entry_size(timestamped);
  const MemDescRules rules{CompletionQueue::ring_bytes(timestamped, log_depth, has_record), entry,
                           limits::kMaxPagesPerCq};
  auto mem = read_mem_desc(core_.memory(), c.mem, rules);
  if (mem.status != ORNIC_ADMIN_STATUS_SUCCESS)
    return admin_status(mem.status);
  const size_t pages = mem.memory.page_count();
  if (!page_budget_allows(pages))
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  const auto cqn = core_.resources.cqs.insert(
      CompletionQueue(std::move(mem.memory), log_depth, eqn, db_page, timestamped, has_record));
  if (!cqn)
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  core_.resources.page_list_entries += pages;
  return admin_ok(*cqn);
}

AdminResult AdminCommands::destroy_cq(const ornic_admin_destroy& c) {
  if (!field_is_zero(c.reserved))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const uint32_t cqn = le(c.handle);
  auto& r = core_.resources;
  const CompletionQueue* cq = r.cqs.find(cqn);
  if (cq == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  const bool in_use =
      r.qps.any_of([&](const QueuePair& qp) { return qp.send_cqn == cqn || qp.recv_cqn == cqn; }) ||
      r.srqs.any_of([&](const SharedReceiveQueue& srq) { return srq.cqn == cqn; }) ||
      r.eth_rings.any_of([&](const EthRing& ring) { return ring.cqn == cqn; });
  if (in_use)
    return admin_status(ORNIC_ADMIN_STATUS_BUSY);
  r.page_list_entries -= cq->page_count();
  r.cqs.erase(cqn);
  return admin_ok();
}

AdminResult AdminCommands::resize_cq(const ornic_admin_resize_cq& c) {
  if (!field_is_zero(c.reserved0) || !field_is_zero(c.reserved1))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const unsigned log_depth = c.log_depth;
  if (log_depth < 1)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (log_depth > limits::kMaxCqLogDepth)
    return admin_status(ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
  auto& r = core_.resources;
  CompletionQueue* cq = r.cqs.find(le(c.cqn));
  if (cq == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  // The new ring has the entries of the CQ's kind (timestamped CQEs stay 64 bytes).
  const uint32_t entry = CompletionQueue::entry_size(cq->timestamped());
  const MemDescRules rules{
      CompletionQueue::ring_bytes(cq->timestamped(), log_depth, cq->has_record()), entry,
      limits::kMaxPagesPerCq};
  auto mem = read_mem_desc(core_.memory(), c.mem, rules);
  if (mem.status != ORNIC_ADMIN_STATUS_SUCCESS)
    return admin_status(mem.status);
  const size_t old_pages = cq->page_count();
  const size_t new_pages = mem.memory.page_count();
  if (!page_budget_allows_swap(old_pages, new_pages))
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  const auto result = cq->resize(core_.memory(), std::move(mem.memory), log_depth, le(c.consumer));
  if (result.status != ORNIC_ADMIN_STATUS_SUCCESS)
    return admin_status(result.status);
  r.page_list_entries = r.page_list_entries - old_pages + new_pages;
  return admin_ok(result.moved);
}

} // namespace ornic
