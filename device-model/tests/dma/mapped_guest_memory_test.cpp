#include <cstring>
#include <vector>

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
}

TEST(GatedGuestMemory, RefusesWhileClosed) {
  FakeGuestMemory inner(0x1000, 0x100);
  GatedGuestMemory gate(inner);
  std::array<std::byte, 4> buf{};
  EXPECT_FALSE(gate.read(0x1000, buf));
  EXPECT_FALSE(gate.write(0x1000, buf));
  EXPECT_EQ(gate.refused_count(), 2u);
  gate.set_open(true);
  EXPECT_TRUE(gate.read(0x1000, buf));
  EXPECT_FALSE(gate.read(0x1100 - 2, buf)); // inner still checks bounds
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
