// QueueMemory's ATOMIC WRITE store and FLUSH write-back over a page list (queues.rst,
// memory.rst): offsets split at page boundaries, adjacent pages merged into one run.
#include <array>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "core/queue_memory.hpp"
#include "dma/fake_guest_memory.hpp"

namespace ornic {
namespace {

constexpr uint64_t kBase = 0x100000;
using Range = FakeGuestMemory::Range;

TEST(QueueMemoryPersist, AdjacentPagesAreOneRun) {
  FakeGuestMemory memory(kBase, 16 * 4096);
  // Pages 0 and 1 adjacent, then page 5, then page 6 adjacent to it.
  const QueueMemory pages =
      QueueMemory::paged({kBase, kBase + 4096, kBase + 5 * 4096, kBase + 6 * 4096}, 12);
  ASSERT_TRUE(pages.persist(memory, 100, 4 * 4096 - 200));
  const std::vector<Range> expected = {{kBase + 100, 2 * 4096 - 100},
                                       {kBase + 5 * 4096, 2 * 4096 - 100}};
  EXPECT_EQ(memory.persisted(), expected);
}

TEST(QueueMemoryPersist, ContiguousIsOneCallAndBoundsAreChecked) {
  FakeGuestMemory memory(kBase, 16 * 4096);
  const QueueMemory ring = QueueMemory::contiguous(kBase + 4096, 8192);
  ASSERT_TRUE(ring.persist(memory, 10, 8000));
  EXPECT_EQ(memory.persisted(), (std::vector<Range>{{kBase + 4096 + 10, 8000}}));
  EXPECT_TRUE(ring.persist(memory, 8192, 0));
  EXPECT_FALSE(ring.persist(memory, 8000, 200)); // past the end: nothing written back
  EXPECT_EQ(memory.persisted().size(), 1u);
  memory.set_fail_persist(true);
  EXPECT_FALSE(ring.persist(memory, 0, 16));
}

TEST(QueueMemoryPersist, AFailingRunStopsTheWalk) {
  FakeGuestMemory memory(kBase, 4 * 4096);
  // The second page lies outside guest memory.
  const QueueMemory pages = QueueMemory::paged({kBase, kBase + 64 * 4096, kBase + 4096}, 12);
  EXPECT_FALSE(pages.persist(memory, 0, 3 * 4096));
  EXPECT_EQ(memory.persisted(), (std::vector<Range>{{kBase, 4096}}));
}

TEST(QueueMemoryAtomicStore, AlignedEightBytesAreOneStoreAtTheirPage) {
  FakeGuestMemory memory(kBase, 16 * 4096);
  const QueueMemory pages = QueueMemory::paged({kBase + 3 * 4096, kBase + 7 * 4096}, 12);
  const std::array<std::byte, 8> value{std::byte{0xa1}, std::byte{0xb2}, std::byte{0xc3},
                                       std::byte{0xd4}, std::byte{0xe5}, std::byte{0xf6},
                                       std::byte{0x07}, std::byte{0x18}};
  ASSERT_TRUE(pages.write_atomic64(memory, 4096 + 16, value));
  EXPECT_EQ(std::memcmp(memory.at(kBase + 7 * 4096 + 16), value.data(), 8), 0);
  EXPECT_EQ(memory.atomic_write_count(), 1u);
  // Split by a page boundary: two plain writes, still whole.
  ASSERT_TRUE(pages.write_atomic64(memory, 4096 - 4, value));
  EXPECT_EQ(std::memcmp(memory.at(kBase + 3 * 4096 + 4092), value.data(), 4), 0);
  EXPECT_EQ(std::memcmp(memory.at(kBase + 7 * 4096), value.data() + 4, 4), 0);
  EXPECT_EQ(memory.atomic_write_count(), 1u);
  EXPECT_FALSE(pages.write_atomic64(memory, 2 * 4096 - 4, value)); // past the end
}

} // namespace
} // namespace ornic
