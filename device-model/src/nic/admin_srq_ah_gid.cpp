// Shared receive queues, address handles and the GID table.
#include <algorithm>
#include <array>
#include <vector>

#include "nic/admin_commands.hpp"
#include "nic/mem_desc_reader.hpp"

namespace ornic {
namespace {

bool is_ipv4_mapped(const uint8_t (&gid)[16]) {
  static constexpr uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::equal(std::begin(prefix), std::end(prefix), gid);
}

} // namespace

AdminResult AdminCommands::create_srq(const ornic_admin_create_srq& c) {
  const uint32_t known_flags = (limits::kCaps & ORNIC_CAP_DB_RECORD) ? ORNIC_SRQ_FLAG_DB_RECORD : 0;
  if (!field_is_zero(c.reserved1) || c.srq_type > ORNIC_SRQT_XRC || (le(c.flags) & ~known_flags))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const bool with_record = (le(c.flags) & ORNIC_SRQ_FLAG_DB_RECORD) != 0;
  const bool xrc = c.srq_type == ORNIC_SRQT_XRC;
  // A basic SRQ is named by its QPs; only an XRC SRQ has a domain and a CQ of its own.
  if (!xrc && (c.xrcd != 0 || c.cqn != 0))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const unsigned log_depth = c.log_depth;
  if (log_depth < 1)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (log_depth > limits::kMaxQueueLogDepth)
    return admin_status(ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
  SharedReceiveQueue srq;
  srq.pd = le(c.pd);
  srq.db_page = le(c.db_page);
  srq.limit = le(c.limit);
  srq.ring.log_depth = log_depth;
  srq.ring.has_record = with_record;
  if (srq.limit >= srq.ring.depth())
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  auto& r = core_.resources;
  if (r.pds.find(srq.pd) == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  if (xrc) {
    srq.xrcd = le(c.xrcd);
    srq.cqn = le(c.cqn);
    if (r.xrcds.find(srq.xrcd) == nullptr || r.cqs.find(srq.cqn) == nullptr)
      return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  }
  if (!db_page_usable(srq.db_page))
    return admin_status(ORNIC_ADMIN_STATUS_PERMISSION);
  if (r.srqs.size() >= r.srqs.capacity())
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  auto mem = read_mem_desc(core_.memory(), c.mem,
                           MemDescRules{DoorbellRecord::ring_bytes(log_depth, with_record),
                                        ORNIC_WQE_BLOCK_SIZE, ORNIC_PBL_ENTRIES_PER_PAGE});
  if (mem.status != ORNIC_ADMIN_STATUS_SUCCESS)
    return admin_status(mem.status);
  srq.memory = std::move(mem.memory);
  // An SRQ never needs a doorbell: the device reads its record when it wants a WQE.
  if (!core_.srq_record(srq).rewrite(false))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_DMA);
  const size_t pages = srq.memory.page_count();
  if (!page_budget_allows(pages))
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  const auto srqn = r.srqs.insert(std::move(srq));
  if (!srqn)
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  r.page_list_entries += pages;
  return admin_ok(*srqn);
}

AdminResult AdminCommands::modify_srq(const ornic_admin_modify_srq& c) {
  if (!field_is_zero(c.reserved))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  SharedReceiveQueue* srq = core_.resources.srqs.find(le(c.srqn));
  if (srq == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  if (le(c.limit) >= srq->ring.depth())
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  srq->limit = le(c.limit);
  return admin_ok();
}

AdminResult AdminCommands::destroy_srq(const ornic_admin_destroy& c) {
  if (!field_is_zero(c.reserved))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const uint32_t srqn = le(c.handle);
  auto& r = core_.resources;
  const SharedReceiveQueue* srq = r.srqs.find(srqn);
  if (srq == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  // XRC SRQs are named by requests, not by QPs: a request naming a destroyed one fails.
  if (r.qps.any_of([&](const QueuePair& qp) { return qp.srqn == srqn; }))
    return admin_status(ORNIC_ADMIN_STATUS_BUSY);
  r.page_list_entries -= srq->memory.page_count();
  r.srqs.erase(srqn);
  return admin_ok();
}

AdminResult AdminCommands::resize_srq(const ornic_admin_resize_srq& c) {
  if (!field_is_zero(c.reserved0) || !field_is_zero(c.reserved1))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const unsigned log_depth = c.log_depth;
  if (log_depth < 1)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (log_depth > limits::kMaxQueueLogDepth)
    return admin_status(ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
  auto& r = core_.resources;
  SharedReceiveQueue* srq = r.srqs.find(le(c.srqn));
  if (srq == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  // Blocks posted without a doorbell move too: the record says how far software got.
  (void)core_.srq_record(*srq).refresh();
  RingState next = srq->ring;
  next.log_depth = log_depth;
  const uint32_t moved = srq->ring.used();
  if (moved > next.depth() || srq->limit >= next.depth())
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  auto mem = read_mem_desc(core_.memory(), c.mem,
                           MemDescRules{DoorbellRecord::ring_bytes(log_depth, next.has_record),
                                        ORNIC_WQE_BLOCK_SIZE, ORNIC_PBL_ENTRIES_PER_PAGE});
  if (mem.status != ORNIC_ADMIN_STATUS_SUCCESS)
    return admin_status(mem.status);
  const size_t old_pages = srq->memory.page_count();
  const size_t new_pages = mem.memory.page_count();
  if (!page_budget_allows_swap(old_pages, new_pages))
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  // Blocks not taken yet keep their free-running index: software's wqe_index bookkeeping
  // and later doorbells stay valid. Read all before writing any, so a failure changes
  // nothing.
  std::vector<std::array<std::byte, ORNIC_WQE_BLOCK_SIZE>> blocks(moved);
  for (uint32_t i = 0; i < moved; ++i) {
    const uint32_t index = srq->ring.consumer + i;
    if (!srq->memory.read(core_.memory(), uint64_t{srq->ring.slot(index)} * ORNIC_WQE_BLOCK_SIZE,
                          blocks[i]))
      return admin_status(ORNIC_ADMIN_STATUS_BAD_DMA);
  }
  for (uint32_t i = 0; i < moved; ++i) {
    const uint32_t index = srq->ring.consumer + i;
    if (!mem.memory.write(core_.memory(), uint64_t{next.slot(index)} * ORNIC_WQE_BLOCK_SIZE,
                          blocks[i]))
      return admin_status(ORNIC_ADMIN_STATUS_BAD_DMA);
  }
  // The record moves with the ring (the block past the new ring) and says the device's
  // producer index, which software continues from.
  if (!DoorbellRecord(core_.memory(), core_.counters, mem.memory, next).rewrite(false))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_DMA);
  srq->memory = std::move(mem.memory);
  srq->ring = next;
  r.page_list_entries = r.page_list_entries - old_pages + new_pages;
  return admin_ok(moved);
}

AdminResult AdminCommands::create_ah(const ornic_admin_create_ah& c) {
  if (c.reserved0 != 0 || !field_is_zero(c.reserved1) || !av_fields_valid(core_, c) ||
      le(c.flow_label) > 0xfffff)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  auto& r = core_.resources;
  if (!core_.gid_index_valid(c.sgid_index))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const uint32_t pdn = le(c.pd);
  if (r.pds.find(pdn) == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  const auto ahn = r.ahs.insert(AddressHandle{pdn, c});
  if (!ahn)
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  return admin_ok(*ahn);
}

AdminResult AdminCommands::destroy_ah(const ornic_admin_destroy& c) {
  if (!field_is_zero(c.reserved))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (!core_.resources.ahs.erase(le(c.handle)))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  return admin_ok();
}

AdminResult AdminCommands::add_gid(const ornic_admin_gid& c) {
  if (!field_is_zero(c.reserved1) || (c.flags & ~ORNIC_GID_FLAG_VLAN) != 0)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  // VLAN IDs 1..4094 (0 tags a priority only, 4095 is reserved), only with the flag.
  const uint16_t vlan_id = le(c.vlan_id);
  const bool tagged = (c.flags & ORNIC_GID_FLAG_VLAN) != 0;
  if (tagged ? ((core_.caps() & ORNIC_CAP_ROCE_VLAN) == 0 || vlan_id == 0 || vlan_id >= 0xfff)
             : vlan_id != 0)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const uint32_t index = le(c.index);
  if (index >= limits::kGidTableSize)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  // A RoCEv2 entry's form picks its IP family; a RoCE v1 entry's GRH carries either form.
  const bool v4 = is_ipv4_mapped(c.gid);
  bool valid = false;
  switch (c.type) {
  case ORNIC_GID_TYPE_ROCE_V2_IPV4:
    valid = v4;
    break;
  case ORNIC_GID_TYPE_ROCE_V2_IPV6:
    valid = !v4;
    break;
  case ORNIC_GID_TYPE_ROCE_V1:
    valid = (core_.caps() & ORNIC_CAP_ROCE_V1) != 0;
    break;
  default:
    break;
  }
  if (!valid)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  GidEntry entry;
  entry.type = static_cast<ornic_gid_type>(c.type);
  if (tagged)
    entry.vlan_id = vlan_id;
  std::copy(std::begin(c.gid), std::end(c.gid), entry.gid.begin());
  core_.resources.gids[index] = entry;
  return admin_ok();
}

AdminResult AdminCommands::del_gid(const ornic_admin_gid& c) {
  if (c.flags != 0 || c.vlan_id != 0 || !field_is_zero(c.reserved1) || c.type != 0 ||
      !field_is_zero(c.gid))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const uint32_t index = le(c.index);
  if (index >= limits::kGidTableSize || !core_.resources.gids[index])
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  core_.resources.gids[index].reset();
  return admin_ok();
}

} // namespace ornic
