#include "core/completion_queue.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <vector>

namespace ornic {

CompletionQueue::PostResult CompletionQueue::post(GuestMemory& memory, DeviceCounters& counters,
                                                  ornic_cqe cqe, bool solicited, uint64_t clock_ns,
                                                  const iba::ReceiveOrigin& origin) {
  if (in_error_)
    return {Outcome::kDropped, false};
  if (ring_.full() && !room_from_record(memory, counters)) {
    // The entry cannot be written without destroying one software has not read.
    in_error_ = true;
    counters.inc(ORNIC_CNT_CQ_OVERFLOW);
    return {Outcome::kOverflow, false};
  }
  cqe.owner = ring_.phase(ring_.producer) ? ORNIC_CQE_OWNER_PHASE : 0;
  ornic_cqe_ts entry{};
  entry.timestamp = to_le(clock_ns);
  entry.slid = to_le(origin.slid);
  entry.pkey_index = to_le(origin.pkey_index);
  entry.sl = origin.sl;
  entry.dlid_path_bits = origin.dlid_path_bits;
  entry.cqe = cqe;
  std::span<const std::byte> bytes = timestamped_ ? bytes_of(entry) : bytes_of(cqe);
  const uint64_t offset = uint64_t{ring_.slot(ring_.producer)} * bytes.size();
  // Everything but the owner byte, then the owner byte (index.rst: written last), so that
  // software never owns an entry whose other bytes are still on their way.
  const size_t body = bytes.size() - 1;
  bool written = memory_.write(memory, offset, bytes.first(body));
  if (written) {
    std::atomic_thread_fence(std::memory_order_release);
    written = memory_.write(memory, offset + body, bytes.subspan(body));
  }
  if (!written) {
    in_error_ = true;
    counters.inc(ORNIC_CNT_DMA_ERRORS);
    return {Outcome::kDmaError, false};
  }
  ++ring_.producer;
  counters.inc(ORNIC_CNT_CQES);
  const bool is_error = cqe.status != ORNIC_CQE_SUCCESS;
  const bool notify = arm_ == Arm::kNext || (arm_ == Arm::kSolicited && (solicited || is_error));
  if (notify) {
    arm_ = Arm::kNone;
    notified_ = ring_.producer;
  }
  return {Outcome::kWritten, notify};
}

bool CompletionQueue::room_from_record(GuestMemory& memory, DeviceCounters& counters) {
  if (!ring_.has_record)
    return false;
  std::array<std::byte, 4> raw{};
  const uint64_t at = uint64_t{entry_size(timestamped_)} << ring_.log_depth;
  if (!memory_.read(memory, at + offsetof(ornic_cq_db_record, consumer), raw)) {
    counters.inc(ORNIC_CNT_DB_RECORD_ERRORS);
    return false;
  }
  uint32_t consumer = 0;
  std::memcpy(&consumer, raw.data(), sizeof(consumer));
  consumer = le(consumer);
  if (consumer == ring_.consumer)
    return false; // software has not polled since: a real overflow
  // Forward from what the device knows and never past its producer; anything else is a
  // software bug (or malice): ignored.
  if (!ring_.consumer_acceptable(consumer)) {
    counters.inc(ORNIC_CNT_DB_RECORD_ERRORS);
    return false;
  }
  ring_.consumer = consumer;
  return !ring_.full();
}

CompletionQueue::DoorbellResult CompletionQueue::doorbell(uint32_t consumer, uint32_t flags) {
  // With a record, a doorbell index behind the device's (serial number arithmetic) is stale,
  // not wrong: the doorbell was posted before software polled further and wrote the record
  // the device has already read. Its arming still counts; the consumer index stays.
  const bool stale = ring_.has_record && ring_.consumer - consumer < (uint32_t{1} << 31);
  if (!stale && !ring_.consumer_acceptable(consumer))
    return {false, false};
  if (!stale)
    ring_.consumer = consumer;
  if (flags & ORNIC_DB_FLAG_ARM_NEXT)
    arm_ = Arm::kNext;
  else if (flags & ORNIC_DB_FLAG_ARM_SOLICITED)
    arm_ = Arm::kSolicited;
  else
    return {true, false};
  // CQEs software has not consumed yet count as "the next CQE": without this, a CQE that
  // raced with the arm would never produce an event. Not those whose event was already
  // delivered: software that re-arms before it polls (the verbs pattern: get the event,
  // re-arm, poll) would take a second event for one CQE and, sleeping on it, find no new one.
  const uint32_t unnotified = std::min(ring_.used(), ring_.producer - notified_);
  if (unnotified != 0) {
    arm_ = Arm::kNone;
    notified_ = ring_.producer;
    return {true, true};
  }
  return {true, false};
}

CompletionQueue::ResizeResult CompletionQueue::resize(GuestMemory& guest, QueueMemory memory,
                                                      unsigned log_depth, uint32_t consumer) {
  if (in_error_)
    return {ORNIC_ADMIN_STATUS_BAD_STATE, 0};
  if (!ring_.consumer_acceptable(consumer))
    return {ORNIC_ADMIN_STATUS_BAD_FIELD, 0};
  RingState next;
  next.log_depth = log_depth;
  next.has_record = ring_.has_record; // past the new ring, zeroed by software: consumer 0
  const uint32_t moved = ring_.producer - consumer;
  if (moved > next.depth())
    return {ORNIC_ADMIN_STATUS_BAD_FIELD, 0};
  // Read everything first: a ring that cannot be read fails the command before the new
  // one is touched. Entries move whole (a timestamped CQE keeps its stamp); only the owner
  // byte, the last of each entry, takes the phase of the new index.
  const uint32_t size = entry_size(timestamped_);
  std::vector<std::byte> pending(size_t{moved} * size);
  for (uint32_t i = 0; i < moved; ++i)
    if (!memory_.read(guest, uint64_t{ring_.slot(consumer + i)} * size,
                      std::span(pending).subspan(size_t{i} * size, size)))
      return {ORNIC_ADMIN_STATUS_BAD_DMA, 0};
  for (uint32_t i = 0; i < moved; ++i) {
    const std::span entry = std::span(pending).subspan(size_t{i} * size, size);
    entry.back() = std::byte{next.phase(i) ? uint8_t{ORNIC_CQE_OWNER_PHASE} : uint8_t{0}};
    if (!memory.write(guest, uint64_t{next.slot(i)} * size, entry))
      return {ORNIC_ADMIN_STATUS_BAD_DMA, 0};
  }
  next.producer = moved;
  memory_ = std::move(memory);
  ring_ = next;
  notified_ = 0; // the moved CQEs may notify again: an event too many, never one too few
  return {ORNIC_ADMIN_STATUS_SUCCESS, moved};
}

} // namespace ornic
