#include "nic/doorbell_decoder.hpp"

namespace ornic {
namespace {

uint32_t allowed_flags(DoorbellKind kind) {
  switch (kind) {
  case DoorbellKind::kCq:
    return ORNIC_DB_FLAG_ARM_NEXT | ORNIC_DB_FLAG_ARM_SOLICITED;
  case DoorbellKind::kEq:
    return ORNIC_DB_FLAG_ARM_NEXT;
  default:
    return 0;
  }
}

} // namespace

std::optional<Doorbell> DoorbellDecoder::decode(uint64_t offset, unsigned size, uint64_t value,
                                                const DoorbellPages& pages,
                                                DeviceCounters& counters) {
  counters.inc(ORNIC_CNT_DB_WRITES);
  const uint32_t page = static_cast<uint32_t>(offset >> ORNIC_DB_PAGE_SHIFT);
  const uint64_t in_page = offset & (ORNIC_DB_PAGE_SIZE - 1);
  // What doorbell suppression saves (doorbells.rst, "Doorbell records"): every write to a
  // work queue's doorbell register, whatever becomes of it.
  if (in_page < ORNIC_DB_CQ)
    counters.inc(ORNIC_CNT_DB_WQ_WRITES);
  if (!pages.allocated(page)) {
    counters.inc(ORNIC_CNT_DB_UNALLOCATED_PAGE);
    return std::nullopt;
  }
  const uint64_t slot = in_page / 8;
  if (slot >= kDoorbellKinds) {
    counters.inc(ORNIC_CNT_DB_BAD_OFFSET);
    return std::nullopt;
  }
  auto& latch = latched_low_[page][slot];
  uint64_t full = 0;
  if (size == 8 && in_page % 8 == 0) {
    full = value;
    latch.reset();
  } else if (size == 4 && in_page % 8 == 0) {
    latch = static_cast<uint32_t>(value);
    return std::nullopt; // the high half commits
  } else if (size == 4 && in_page % 8 == 4 && latch) {
    full = (value << 32) | *latch;
    latch.reset();
  } else {
    counters.inc(ORNIC_CNT_DB_BAD_OFFSET);
    return std::nullopt;
  }

  Doorbell db;
  db.page = page;
  db.kind = static_cast<DoorbellKind>(slot);
  db.queue = static_cast<uint32_t>(full & ORNIC_DB_QN_MASK);
  db.flags = static_cast<uint32_t>(full & ORNIC_DB_FLAGS_MASK);
  db.index = static_cast<uint32_t>(full >> ORNIC_DB_INDEX_SHIFT);
  if (db.flags & ~allowed_flags(db.kind)) {
    counters.inc(ORNIC_CNT_DB_BAD_OFFSET);
    return std::nullopt;
  }
  return db;
}

} // namespace ornic
