#include <csignal>
#include <cstring>
#include <limits>
#include <vector>

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "common/unique_fd.hpp"
#include "dma/fake_guest_memory.hpp"
#include "dma/gated_guest_memory.hpp"
#include "dma/mapped_guest_memory.hpp"

namespace ornic {
namespace {

constexpr uint64_t kPage = 4096;

class MappedGuestMemoryTest : public ::testing::Test {
protected:
  void SetUp() override {
    memfd_.reset(memfd_create("guest-ram", MFD_CLOEXEC));
    ASSERT_TRUE(memfd_.valid());
    ASSERT_EQ(ftruncate(memfd_.get(), 16 * kPage), 0);
    void* p = mmap(nullptr, 16 * kPage, PROT_READ | PROT_WRITE, MAP_SHARED, memfd_.get(), 0);
    ASSERT_NE(p, MAP_FAILED);
    guest_view_ = static_cast<std::byte*>(p);
  }
  void TearDown() override { munmap(guest_view_, 16 * kPage); }

  // Maps file pages [page, page + pages) at iova.
  int map(uint64_t iova, uint64_t page, uint64_t pages, bool readable = true,
          bool writable = true) {
    int error = 0;
    auto file =
        MappedFile::map(memfd_.get(), page * kPage, pages * kPage, readable, writable, &error);
    if (!file)
      return error;
    return table_.add(iova, pages * kPage, file->data(), readable, writable, file);
  }

  UniqueFd memfd_;
  std::byte* guest_view_ = nullptr;
  DmaMapTable table_;
  MappedGuestMemory memory_{table_};
};

TEST_F(MappedGuestMemoryTest, ReadWriteThroughSharedMapping) {
  ASSERT_EQ(map(0x100000, 2, 2), 0);
  std::memcpy(guest_view_ + 2 * kPage + 10, "hello", 5);
  std::array<std::byte, 5> buf{};
  ASSERT_TRUE(memory_.read(0x100000 + 10, buf));
  EXPECT_EQ(std::memcmp(buf.data(), "hello", 5), 0);
  const std::array<std::byte, 3> out{std::byte{1}, std::byte{2}, std::byte{3}};
  ASSERT_TRUE(memory_.write(0x100000 + kPage - 1, out)); // crosses a page, same map
  EXPECT_EQ(guest_view_[3 * kPage + 1], std::byte{3});
}

TEST_F(MappedGuestMemoryTest, AccessSpanningTwoAdjacentMaps) {
  // Adjacent in IOVA space, not in the file: pages 5 and 1.
  ASSERT_EQ(map(0x200000, 5, 1), 0);
  ASSERT_EQ(map(0x200000 + kPage, 1, 1), 0);
  std::vector<std::byte> data(64);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = std::byte(i);
  ASSERT_TRUE(memory_.write(0x200000 + kPage - 32, data));
  EXPECT_EQ(guest_view_[5 * kPage + kPage - 1], std::byte{31});
  EXPECT_EQ(guest_view_[1 * kPage + 0], std::byte{32});
  std::vector<std::byte> back(64);
  ASSERT_TRUE(memory_.read(0x200000 + kPage - 32, back));
  EXPECT_EQ(back, data);
}

TEST_F(MappedGuestMemoryTest, WholeAccessOrNothing) {
  ASSERT_EQ(map(0x300000, 0, 1), 0);
  std::vector<std::byte> data(16, std::byte{0xab});
  EXPECT_FALSE(memory_.write(0x300000 + kPage - 8, data));        // runs off the end
  EXPECT_EQ(guest_view_[kPage - 8], std::byte{0});                // not even partly written
  EXPECT_FALSE(memory_.read(0x2fffff, std::span(data).first(2))); // starts before
  EXPECT_FALSE(memory_.read(std::numeric_limits<uint64_t>::max(), std::span(data).first(2)));
  EXPECT_TRUE(memory_.read(0x12345, std::span<std::byte>{})); // empty always succeeds
}

TEST_F(MappedGuestMemoryTest, PermissionsAreEnforced) {
  ASSERT_EQ(map(0x400000, 0, 1, /*readable=*/true, /*writable=*/false), 0);
  ASSERT_EQ(map(0x400000 + kPage, 1, 1, /*readable=*/true, /*writable=*/true), 0);
  std::array<std::byte, 8> buf{};
  EXPECT_TRUE(memory_.read(0x400000, buf));
  EXPECT_FALSE(memory_.write(0x400000, buf));
  EXPECT_FALSE(memory_.write(0x400000 + kPage - 4, buf)); // half in the read-only map
  EXPECT_TRUE(memory_.write(0x400000 + kPage, buf));
}

TEST_F(MappedGuestMemoryTest, UnmappedHoleFails) {
  ASSERT_EQ(map(0x500000, 0, 3), 0);
  table_.remove(0x500000 + kPage, kPage);
  std::array<std::byte, 8> buf{};
  EXPECT_TRUE(memory_.read(0x500000, buf));
  EXPECT_FALSE(memory_.read(0x500000 + kPage, buf));
  EXPECT_TRUE(memory_.read(0x500000 + 2 * kPage, buf)); // the split tail still works
  EXPECT_FALSE(memory_.read(0x500000 + kPage - 4, buf));
}

TEST_F(MappedGuestMemoryTest, MappingBeyondEndOfFileIsRefused) {
  int error = 0;
  EXPECT_EQ(MappedFile::map(memfd_.get(), 15 * kPage, 2 * kPage, true, true, &error), nullptr);
  EXPECT_EQ(error, EINVAL);
  EXPECT_EQ(MappedFile::map(memfd_.get(), ~0ull - 10, 100, true, true, &error), nullptr);
  EXPECT_EQ(MappedFile::map(memfd_.get(), 0, 0, true, true, &error), nullptr);
}

TEST_F(MappedGuestMemoryTest, UnalignedFileOffsetWorks) {
  int error = 0;
  auto file = MappedFile::map(memfd_.get(), kPage + 100, 200, true, true, &error);
  ASSERT_NE(file, nullptr);
  guest_view_[kPage + 100] = std::byte{0x5a};
  EXPECT_EQ(file->data()[0], std::byte{0x5a});
}

TEST_F(MappedGuestMemoryTest, FileShrunkUnderTheMapFailsInsteadOfCrashing) {
  ASSERT_EQ(map(0x600000, 0, 4), 0);
  std::array<std::byte, 16> buf{};
  ASSERT_TRUE(memory_.read(0x600000 + 3 * kPage, buf));
  ASSERT_EQ(ftruncate(memfd_.get(), 2 * kPage), 0); // a hostile client
  EXPECT_FALSE(memory_.read(0x600000 + 3 * kPage, buf));
  EXPECT_FALSE(memory_.write(0x600000 + 2 * kPage, buf));
  EXPECT_TRUE(memory_.read(0x600000 + kPage, buf)); // what is left still works
  // A fault leaves SIGBUS deliverable: blocked, the next fault would kill the process.
  sigset_t blocked;
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, nullptr, &blocked), 0);
  EXPECT_EQ(sigismember(&blocked, SIGBUS), 0);
}

// ATOMIC WRITE's store: the 8 bytes land in their order; what is not one aligned store in
// one map still arrives whole or not at all.
TEST_F(MappedGuestMemoryTest, AtomicStoreOfEightBytes) {
  ASSERT_EQ(map(0x700000, 3, 2), 0);
  const std::array<std::byte, 8> value{std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4},
                                       std::byte{5}, std::byte{6}, std::byte{7}, std::byte{8}};
  ASSERT_TRUE(memory_.write_atomic64(0x700000 + 64, value));
  EXPECT_EQ(std::memcmp(guest_view_ + 3 * kPage + 64, value.data(), 8), 0);
  EXPECT_EQ(guest_view_[3 * kPage + 63], std::byte{0});
  EXPECT_EQ(guest_view_[3 * kPage + 72], std::byte{0});
  // Misaligned or across a page: a plain (still whole) write.
  ASSERT_TRUE(memory_.write_atomic64(0x700000 + kPage - 4, value));
  EXPECT_EQ(std::memcmp(guest_view_ + 3 * kPage + kPage - 4, value.data(), 8), 0);
  EXPECT_FALSE(memory_.write_atomic64(0x700000 + 2 * kPage - 4, value)); // runs off the map
  EXPECT_EQ(guest_view_[4 * kPage + kPage - 4], std::byte{0});
  EXPECT_FALSE(memory_.write_atomic64(0x6ff000, value)); // unmapped
  ASSERT_EQ(map(0x800000, 9, 1, true, false), 0);
  EXPECT_FALSE(memory_.write_atomic64(0x800000, value)); // read-only
  ASSERT_EQ(ftruncate(memfd_.get(), 4 * kPage), 0);      // pages 4.. gone under the map
  EXPECT_FALSE(memory_.write_atomic64(0x700000 + kPage + 8, value));
}

// FLUSH to persistence: msync of what backs the range; anything not mapped fails.
TEST_F(MappedGuestMemoryTest, PersistWritesBackMappedRanges) {
  ASSERT_EQ(map(0x900000, 5, 1), 0);
  ASSERT_EQ(map(0x900000 + kPage, 1, 2), 0); // adjacent in IOVA space, not in the file
  EXPECT_TRUE(memory_.persist(0x900000 + 100, 3 * kPage - 200));
  EXPECT_TRUE(memory_.persist(0x900000 + 3 * kPage - 1, 1));
  EXPECT_TRUE(memory_.persist(0x1234, 0));                        // nothing to do
  EXPECT_FALSE(memory_.persist(0x900000 + 2 * kPage, 2 * kPage)); // runs off the end
  EXPECT_FALSE(memory_.persist(0x8ff000, 16));                    // unmapped
  EXPECT_FALSE(memory_.persist(std::numeric_limits<uint64_t>::max(), 2));
}

// A file-backed guest RAM: the stores reach the file (a second mapping of it sees them).
TEST(MappedGuestMemoryFile, PersistOfAFileBackedMap) {
  char path[] = "/tmp/ornic-guest-ram-XXXXXX";
  UniqueFd fd(mkstemp(path));
  ASSERT_TRUE(fd.valid());
  unlink(path);
  ASSERT_EQ(ftruncate(fd.get(), 2 * kPage), 0);
  int error = 0;
  auto file = MappedFile::map(fd.get(), 0, 2 * kPage, true, true, &error);
  ASSERT_NE(file, nullptr);
  DmaMapTable table;
  ASSERT_EQ(table.add(0x10000, 2 * kPage, file->data(), true, true, file), 0);
  MappedGuestMemory memory(table);
  const std::array<std::byte, 4> data{std::byte{9}, std::byte{8}, std::byte{7}, std::byte{6}};
  ASSERT_TRUE(memory.write(0x10000 + kPage + 10, data));
  ASSERT_TRUE(memory.persist(0x10000 + kPage, kPage));
  std::array<std::byte, 4> back{};
  ASSERT_EQ(pread(fd.get(), back.data(), back.size(), kPage + 10), 4);
  EXPECT_EQ(back, data);
}

TEST(GatedGuestMemory, RefusesWhileClosed) {
  FakeGuestMemory inner(0x1000, 0x100);
  GatedGuestMemory gate(inner);
  std::array<std::byte, 4> buf{};
  std::array<std::byte, 8> eight{};
  EXPECT_FALSE(gate.read(0x1000, buf));
  EXPECT_FALSE(gate.write(0x1000, buf));
  EXPECT_FALSE(gate.write_atomic64(0x1000, eight));
  EXPECT_FALSE(gate.persist(0x1000, 8));
  EXPECT_EQ(gate.refused_count(), 4u);
  gate.set_open(true);
  EXPECT_TRUE(gate.read(0x1000, buf));
  EXPECT_FALSE(gate.read(0x1100 - 2, buf)); // inner still checks bounds
  EXPECT_TRUE(gate.write_atomic64(0x1008, eight));
  EXPECT_EQ(inner.atomic_write_count(), 1u);
  EXPECT_TRUE(gate.persist(0x1000, 8));
  EXPECT_FALSE(gate.persist(0x10f8, 16));
}

TEST(FakeGuestMemory, BoundsAndFaultInjection) {
  FakeGuestMemory mem(0x1000, 0x100);
  std::array<std::byte, 4> buf{};
  EXPECT_TRUE(mem.write(0x10fc, buf));
  EXPECT_FALSE(mem.write(0x10fd, buf));
  EXPECT_FALSE(mem.read(0xfff, buf));
  mem.set_fail_reads(true);
  EXPECT_FALSE(mem.read(0x1000, buf));
}

} // namespace
} // namespace ornic
