#include <limits>

#include <gtest/gtest.h>

#include "dma/dma_map_table.hpp"

namespace ornic {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// Host addresses are never dereferenced by the table: fake ones make offsets visible.
std::byte* host_at(uint64_t value) {
  return reinterpret_cast<std::byte*>(value);
}

int add(DmaMapTable& t, uint64_t iova, uint64_t size) {
  return t.add(iova, size, host_at(0x10000000 + iova % 0x1000000), true, true, nullptr);
}

TEST(DmaMapTable, AddAndFind) {
  DmaMapTable t;
  ASSERT_EQ(add(t, 0x1000, 0x2000), 0);
  EXPECT_EQ(t.find(0xfff), nullptr);
  ASSERT_NE(t.find(0x1000), nullptr);
  EXPECT_EQ(t.find(0x2fff)->first, 0x1000u);
  EXPECT_EQ(t.find(0x3000), nullptr);
}

TEST(DmaMapTable, RejectsZeroSizeWrapAndOverlap) {
  DmaMapTable t;
  EXPECT_EQ(add(t, 0x1000, 0), EINVAL);
  EXPECT_EQ(add(t, kMax - 0xfff, 0x2000), EINVAL); // wraps past 2^64
  ASSERT_EQ(add(t, 0x1000, 0x1000), 0);
  EXPECT_EQ(add(t, 0x1000, 0x1000), EEXIST);  // identical
  EXPECT_EQ(add(t, 0x0800, 0x1000), EEXIST);  // overlaps the start
  EXPECT_EQ(add(t, 0x1800, 0x1000), EEXIST);  // overlaps the end
  EXPECT_EQ(add(t, 0x0000, 0x10000), EEXIST); // covers it
  EXPECT_EQ(add(t, 0x2000, 0x1000), 0);       // adjacent is fine
  EXPECT_EQ(add(t, 0x0000, 0x1000), 0);
  EXPECT_EQ(t.count(), 3u);
}

TEST(DmaMapTable, MapEndingExactlyAtTopOfAddressSpace) {
  DmaMapTable t;
  ASSERT_EQ(add(t, kMax - 0xfff, 0x1000), 0);
  ASSERT_NE(t.find(kMax), nullptr);
  EXPECT_EQ(t.remove(kMax - 0xfff, 0x1000), 0x1000u); // iova + size == 2^64
  EXPECT_EQ(t.count(), 0u);
}

TEST(DmaMapTable, PartialUnmapSplits) {
  DmaMapTable t;
  ASSERT_EQ(add(t, 0x10000, 0x4000), 0);
  const std::byte* host = t.find(0x10000)->host;
  EXPECT_EQ(t.remove(0x11000, 0x1000), 0x1000u); // punch a hole in the middle
  ASSERT_EQ(t.count(), 2u);
  EXPECT_EQ(t.find(0x10fff)->last, 0x10fffu);
  EXPECT_EQ(t.find(0x11000), nullptr);
  EXPECT_EQ(t.find(0x12000)->first, 0x12000u);
  EXPECT_EQ(t.find(0x12000)->host, host + 0x2000);
  EXPECT_EQ(t.remove(0x10000, 0x800), 0x800u); // trim the head
  EXPECT_EQ(t.find(0x10800)->host, host + 0x800);
  EXPECT_EQ(t.remove(0x13800, 0x10000), 0x800u); // trim the tail, past the end
  EXPECT_EQ(t.find(0x137ff)->last, 0x137ffu);
}

TEST(DmaMapTable, UnmapAcrossSeveralMapsAndHoles) {
  DmaMapTable t;
  ASSERT_EQ(add(t, 0x1000, 0x1000), 0);
  ASSERT_EQ(add(t, 0x3000, 0x1000), 0);
  ASSERT_EQ(add(t, 0x5000, 0x1000), 0);
  EXPECT_EQ(t.remove(0x1800, 0x4000), 0x800u + 0x1000u + 0x800u);
  ASSERT_EQ(t.count(), 2u);
  EXPECT_NE(t.find(0x17ff), nullptr);
  EXPECT_NE(t.find(0x5800), nullptr);
  EXPECT_EQ(t.remove(0x100000, 0x1000), 0u); // nothing there
}

TEST(DmaMapTable, UnmapThatWrapsIsClippedAtTop) {
  DmaMapTable t;
  ASSERT_EQ(add(t, 0x1000, 0x1000), 0);
  ASSERT_EQ(add(t, kMax - 0x1fff, 0x2000), 0);
  EXPECT_EQ(t.remove(kMax - 0xfff, 0x10000), 0x1000u); // iova + size wraps 2^64
  EXPECT_EQ(t.count(), 2u);
  EXPECT_NE(t.find(0x1000), nullptr);    // nothing below iova touched
  EXPECT_EQ(t.remove(0, kMax), 0x2000u); // [0, 2^64-2]: both remaining pieces
  ASSERT_EQ(add(t, kMax - 0xfff, 0x1000), 0);
  EXPECT_EQ(t.remove(0, kMax), 0xfffu); // everything except the very last byte
  EXPECT_NE(t.find(kMax), nullptr);
  EXPECT_EQ(t.remove(1, kMax), 1u); // 1 + kMax == 2^64: last byte included
  EXPECT_EQ(t.count(), 0u);
}

TEST(DmaMapTable, FullTableRefuses) {
  DmaMapTable t(2);
  ASSERT_EQ(add(t, 0x1000, 0x1000), 0);
  ASSERT_EQ(add(t, 0x2000, 0x1000), 0);
  EXPECT_EQ(add(t, 0x3000, 0x1000), ENOSPC);
  t.clear();
  EXPECT_EQ(add(t, 0x3000, 0x1000), 0);
}

} // namespace
} // namespace ornic
