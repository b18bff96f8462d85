#include "core/doorbell_record.hpp"

#include <array>
#include <atomic>
#include <cstring>

#include "core/hw.hpp"

namespace ornic {

uint64_t DoorbellRecord::ring_bytes(unsigned log_depth, bool with_record) {
  return (uint64_t{ORNIC_WQE_BLOCK_SIZE} << log_depth) +
         (with_record ? sizeof(ornic_db_record) : 0);
}

uint64_t DoorbellRecord::offset() const {
  return uint64_t{ORNIC_WQE_BLOCK_SIZE} << ring_.log_depth;
}

DoorbellRecord::Read DoorbellRecord::refresh() {
  if (!ring_.has_record)
    return Read::unchanged;
  std::array<std::byte, 4> raw{};
  if (!ring_memory_.read(memory_, offset() + offsetof(ornic_db_record, producer), raw)) {
    counters_.inc(ORNIC_CNT_DB_RECORD_ERRORS);
    return Read::refused;
  }
  uint32_t producer = 0;
  std::memcpy(&producer, raw.data(), sizeof(producer));
  producer = le(producer);
  if (producer == ring_.producer)
    return Read::unchanged;
  // Software only moves forward and never more than a ring ahead of the consumer; a
  // record behind the device or beyond the ring is a software bug (or malice): ignored.
  if (!ring_.producer_acceptable(producer)) {
    counters_.inc(ORNIC_CNT_DB_RECORD_ERRORS);
    return Read::refused;
  }
  ring_.producer = producer;
  return Read::advanced;
}

bool DoorbellRecord::set_kick(bool kick) {
  if (!ring_.has_record || ring_.kick == kick)
    return true;
  const uint32_t value = to_le<uint32_t>(kick ? ORNIC_DB_RECORD_KICK : 0);
  std::array<std::byte, 4> raw{};
  std::memcpy(raw.data(), &value, sizeof(value));
  if (!ring_memory_.write(memory_, offset() + offsetof(ornic_db_record, kick), raw)) {
    counters_.inc(ORNIC_CNT_DB_RECORD_ERRORS);
    return false;
  }
  ring_.kick = kick;
  return true;
}

bool DoorbellRecord::going_idle() {
  if (!ring_.has_record)
    return false;
  if (refresh() == Read::advanced)
    return true;
  // Either software's next post sees kick, or the read below sees its producer index, or
  // both. That needs the kick store visible before the load: a CPU may otherwise keep the
  // store in its store buffer while the load runs (store-load reordering, allowed on x86).
  if (!set_kick(true))
    return false;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return refresh() == Read::advanced;
}

bool DoorbellRecord::rewrite(bool kick) {
  if (!ring_.has_record)
    return true;
  ornic_db_record record{};
  record.producer = to_le(ring_.producer);
  record.kick = to_le<uint32_t>(kick ? ORNIC_DB_RECORD_KICK : 0);
  if (!ring_memory_.write(memory_, offset(), bytes_of(record))) {
    counters_.inc(ORNIC_CNT_DB_RECORD_ERRORS);
    return false;
  }
  ring_.kick = kick;
  return true;
}

} // namespace ornic
