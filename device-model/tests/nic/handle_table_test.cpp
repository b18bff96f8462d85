// The handle table (core/handle_table.hpp): allocation after the last handle given
// out, refusal when full or out of range, stable objects, iteration over objects only.
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/handle_table.hpp"

namespace ornic {
namespace {

TEST(HandleTable, HandsOutHandlesInTurnAndNotAJustFreedOne) {
  HandleTable<std::string> table(2, 4); // handles 2..5
  EXPECT_EQ(table.insert("a"), 2u);
  EXPECT_EQ(table.insert("b"), 3u);
  EXPECT_TRUE(table.erase(2));
  EXPECT_EQ(table.insert("c"), 4u); // not 2: freed a moment ago
  EXPECT_EQ(table.insert("d"), 5u);
  EXPECT_EQ(table.insert("e"), 2u); // wrapped around to the free one
  EXPECT_EQ(table.insert("f"), std::nullopt) << "full";
  EXPECT_EQ(table.size(), 4u);
}

TEST(HandleTable, FindsOnlyWhatIsThere) {
  HandleTable<int> table(1, 8);
  const uint32_t h = *table.insert(42);
  ASSERT_NE(table.find(h), nullptr);
  EXPECT_EQ(*table.find(h), 42);
  EXPECT_EQ(table.find(0), nullptr);
  EXPECT_EQ(table.find(h + 1), nullptr);
  EXPECT_EQ(table.find(9), nullptr);           // past the last handle
  EXPECT_EQ(table.find(0xffffffffu), nullptr); // a guest's garbage
  EXPECT_FALSE(table.erase(0xffffffffu));
  EXPECT_TRUE(table.erase(h));
  EXPECT_FALSE(table.erase(h));
  EXPECT_EQ(table.find(h), nullptr);
}

TEST(HandleTable, FixedHandlesBelowTheRangeAndNothingBeyondIt) {
  HandleTable<int> table(2, 4);
  EXPECT_TRUE(table.insert_at(1, 7)); // the GSI QP's QPN 1
  EXPECT_FALSE(table.insert_at(1, 8)) << "taken";
  EXPECT_FALSE(table.insert_at(6, 9)) << "beyond first + capacity";
  EXPECT_EQ(*table.find(1), 7);
}

TEST(HandleTable, ObjectsStayPutAndIterationSkipsHoles) {
  HandleTable<std::vector<int>> table(1, 16);
  std::vector<uint32_t> handles;
  for (int i = 0; i < 10; ++i)
    handles.push_back(*table.insert(std::vector<int>(3, i)));
  std::vector<int>* third = table.find(handles[2]);
  for (int i : {0, 1, 5, 9})
    table.erase(handles[i]);
  EXPECT_EQ(table.find(handles[2]), third); // unmoved by other erasures
  std::vector<uint32_t> seen;
  for (auto& [handle, object] : table) {
    seen.push_back(handle);
    EXPECT_EQ(object.front(), static_cast<int>(handle - 1));
  }
  EXPECT_EQ(seen, (std::vector<uint32_t>{3, 4, 5, 7, 8, 9}));
  EXPECT_TRUE(table.any_of([](const std::vector<int>& v) { return v.front() == 6; }));
  EXPECT_FALSE(table.any_of([](const std::vector<int>& v) { return v.front() == 0; }));
  table.clear();
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.begin(), table.end());
  EXPECT_EQ(table.insert({}), 1u); // from the start again
}

// A device-sized table (a million handles) holds objects far apart, finds them, iterates
// over them in order, and frees a chunk with its last object.
TEST(HandleTable, LargeCapacitySparseObjects) {
  HandleTable<int> table(2, 1u << 20);
  EXPECT_EQ(table.capacity(), 1u << 20);
  EXPECT_TRUE(table.insert_at(1, 1));
  EXPECT_TRUE(table.insert_at((1u << 20) + 1, 2)); // the last handle
  EXPECT_FALSE(table.insert_at((1u << 20) + 2, 3));
  EXPECT_TRUE(table.insert_at(500000, 3));
  std::vector<uint32_t> seen;
  for (auto& [handle, object] : table)
    seen.push_back(handle);
  EXPECT_EQ(seen, (std::vector<uint32_t>{1, 500000, (1u << 20) + 1}));
  EXPECT_TRUE(table.erase(500000));
  EXPECT_EQ(table.find(500000), nullptr);
  EXPECT_EQ(table.find(500001), nullptr);
  seen.clear();
  for (const auto& [handle, object] : std::as_const(table))
    seen.push_back(handle);
  EXPECT_EQ(seen, (std::vector<uint32_t>{1, (1u << 20) + 1}));
  EXPECT_EQ(table.size(), 2u);
}

// A lowered capacity refuses what lies beyond it and lets it back when raised again, never
// beyond what the table was built for.
TEST(HandleTable, CapacityLoweredAndRestored) {
  HandleTable<int> table(1, 100);
  table.set_capacity(2);
  EXPECT_EQ(table.insert(1), 1u);
  EXPECT_EQ(table.insert(2), 2u);
  EXPECT_EQ(table.insert(3), std::nullopt);
  EXPECT_FALSE(table.insert_at(50, 4));
  table.set_capacity(1000);
  EXPECT_EQ(table.capacity(), 100u);
  EXPECT_NE(table.insert(3), std::nullopt);
}

} // namespace
} // namespace ornic
