// The doorbell record's kick protocol under a real race (doorbells.rst, "Doorbell records"):
// software stores its producer index, fences, reads kick; the device stores kick, fences,
// reads the producer index. Each side's store may sit in its CPU's store buffer while its
// load runs (x86 allows store-load reordering), so without both fences the two can miss
// each other: software does not ring, the device goes idle, the WQE is never sent. Many
// rounds with both sides on their own thread, started together, must never end that way.
// (Measured: without software's fence this fails in 9-11 of 200000 rounds; the device's
// path from store to load is long enough that its missing fence rarely shows here.)
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/doorbell_record.hpp"
#include "core/hw.hpp"
#include "dma/fake_guest_memory.hpp"

namespace ornic {
namespace {

constexpr uint64_t kBase = 0x40000;
constexpr unsigned kLogDepth = 2;
constexpr uint32_t kRounds = 200000;

// Spins a few iterations so that either side may run first within the round.
void jitter(uint32_t round, uint32_t salt) {
  const uint32_t spins = ((round * 2654435761u) ^ salt) >> 28; // 0..15
  for (uint32_t i = 0; i < spins; ++i)
    std::atomic_signal_fence(std::memory_order_seq_cst);
}

TEST(DoorbellRecordRace, SoftwareRingsOrTheDeviceSeesTheIndex) {
  const uint64_t ring_bytes = DoorbellRecord::ring_bytes(kLogDepth, true);
  FakeGuestMemory memory(kBase, ring_bytes);
  DeviceCounters counters;
  const QueueMemory ring_memory = QueueMemory::contiguous(kBase, ring_bytes);
  RingState ring;
  ring.log_depth = kLogDepth;
  ring.has_record = true;
  auto* record = reinterpret_cast<ornic_db_record*>(
      memory.at(kBase + (uint64_t{ORNIC_WQE_BLOCK_SIZE} << kLogDepth)));
  std::atomic_ref<uint32_t> producer(record->producer);
  std::atomic_ref<uint32_t> kick(record->kick);

  std::atomic<uint32_t> go{0}, done{0};
  std::vector<uint8_t> rang(kRounds);
  std::thread software([&] {
    for (uint32_t round = 0; round < kRounds; ++round) {
      while (go.load(std::memory_order_acquire) != round + 1) {
      }
      jitter(round, 0x5a5a5a5a);
      // The provider's ornic_wq_notify: producer, full fence, kick.
      producer.store(to_le(round + 1), std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_seq_cst);
      rang[round] = le(kick.load(std::memory_order_relaxed)) == ORNIC_DB_RECORD_KICK;
      done.store(round + 1, std::memory_order_release);
    }
  });

  uint32_t lost = 0, both = 0;
  for (uint32_t round = 0; round < kRounds; ++round) {
    // The device has consumed everything up to `round`; kick is 0 (it was busy).
    ring.producer = ring.consumer = round;
    ring.kick = false;
    producer.store(to_le(round), std::memory_order_relaxed);
    kick.store(0, std::memory_order_relaxed);
    go.store(round + 1, std::memory_order_release);
    jitter(round, 0xa5a5a5a5);
    const bool saw = DoorbellRecord(memory, counters, ring_memory, ring).going_idle();
    while (done.load(std::memory_order_acquire) != round + 1) {
    }
    if (!saw && !rang[round])
      ++lost;
    if (saw && rang[round])
      ++both;
  }
  software.join();
  EXPECT_EQ(lost, 0u) << "rounds where neither side saw the other, of " << kRounds;
  EXPECT_EQ(counters.get(ORNIC_CNT_DB_RECORD_ERRORS), 0u);
  RecordProperty("both_saw", static_cast<int>(both));
}

} // namespace
} // namespace ornic
