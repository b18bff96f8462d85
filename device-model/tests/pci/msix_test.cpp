#include <sys/eventfd.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "common/test_function_model.hpp"
#include "dma/fake_guest_memory.hpp"
#include "pci_test_util.hpp"

namespace ornic {
namespace {

using testing::read_le;
using testing::TestFunctionModel;
using testing::write_le;

constexpr unsigned kCfg = PciDevice::kConfigRegion;
constexpr uint64_t kMsixControl = ConfigSpace::kMsixCapOffset + 2;

uint64_t drain(int fd) {
  uint64_t value = 0;
  if (read(fd, &value, sizeof(value)) != sizeof(value))
    return 0;
  return value;
}

class MsixTest : public ::testing::Test {
protected:
  void SetUp() override {
    for (unsigned v = 0; v < TestFunctionModel::kVectors; ++v) {
      int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
      ASSERT_GE(fd, 0);
      client_fds_.emplace_back(fd);
    }
  }
  void assign(unsigned vector) {
    dev_.msix().set_trigger(vector, UniqueFd(dup(client_fds_[vector].get())));
  }
  void raise(unsigned vector) {
    ASSERT_EQ(write_le(dev_, 0, TestFunctionModel::kRegRaise, 4, vector), 0);
  }
  void enable(bool on, bool function_mask = false) {
    ASSERT_EQ(
        write_le(dev_, kCfg, kMsixControl, 2, (on ? 0x8000 : 0) | (function_mask ? 0x4000 : 0)), 0);
  }

  TestFunctionModel model_;
  FakeGuestMemory memory_{0, 0x1000};
  PciDevice dev_{model_, memory_};
  std::vector<UniqueFd> client_fds_;
};

TEST_F(MsixTest, DeliversToEventfdWhenEnabled) {
  enable(true);
  assign(3);
  raise(3);
  EXPECT_EQ(drain(client_fds_[3].get()), 1u);
  EXPECT_EQ(dev_.msix().counters().signalled, 1u);
}

TEST_F(MsixTest, PendingWhileDisabledThenDeliveredOnEnable) {
  assign(1);
  raise(1);
  EXPECT_EQ(drain(client_fds_[1].get()), 0u);
  EXPECT_TRUE(dev_.msix().pending(1));
  EXPECT_EQ(read_le(dev_, 2, 0x2000, 8), 0x2u); // PBA bit 1 visible in BAR2
  enable(true);
  EXPECT_EQ(drain(client_fds_[1].get()), 1u);
  EXPECT_FALSE(dev_.msix().pending(1));
}

TEST_F(MsixTest, FunctionMaskHoldsInterrupts) {
  enable(true, /*function_mask=*/true);
  assign(0);
  raise(0);
  raise(0);
  EXPECT_EQ(drain(client_fds_[0].get()), 0u);
  enable(true, false);
  EXPECT_EQ(drain(client_fds_[0].get()), 1u); // pending is one bit: one interrupt
}

TEST_F(MsixTest, PendingUntilEventfdAssigned) {
  enable(true);
  raise(5);
  EXPECT_TRUE(dev_.msix().pending(5));
  assign(5);
  EXPECT_EQ(drain(client_fds_[5].get()), 1u);
}

TEST_F(MsixTest, VectorMaskHonouredOnceTableIsUsed) {
  enable(true);
  assign(2);
  // Entry 2 vector control at BAR2 + 2*16 + 12: the client unmasks entry 0 only.
  ASSERT_EQ(write_le(dev_, 2, 0 * 16 + 12, 4, 0), 0);
  raise(2);
  EXPECT_EQ(drain(client_fds_[2].get()), 0u); // entry 2 is still masked (power-on)
  ASSERT_EQ(write_le(dev_, 2, 2 * 16 + 12, 4, 0), 0);
  EXPECT_EQ(drain(client_fds_[2].get()), 1u);
  // Table contents read back.
  ASSERT_EQ(write_le(dev_, 2, 2 * 16, 8, 0xfee00000ull), 0);
  EXPECT_EQ(read_le(dev_, 2, 2 * 16, 8), 0xfee00000ull);
}

TEST_F(MsixTest, OutOfRangeVectorIsCountedNotFatal) {
  enable(true);
  raise(TestFunctionModel::kVectors);
  raise(~0u);
  EXPECT_EQ(dev_.msix().counters().out_of_range, 2u);
}

TEST_F(MsixTest, PbaIsReadOnlyAndTableNotForwardedToModel) {
  ASSERT_EQ(write_le(dev_, 2, 0x2000, 8, ~0ull), 0);
  EXPECT_EQ(read_le(dev_, 2, 0x2000, 8), 0u);
  EXPECT_TRUE(model_.writes.empty());
}

TEST_F(MsixTest, DeassignStopsDelivery) {
  enable(true);
  assign(4);
  dev_.msix().set_trigger(4, UniqueFd());
  raise(4);
  EXPECT_EQ(drain(client_fds_[4].get()), 0u);
  EXPECT_TRUE(dev_.msix().pending(4));
}

} // namespace
} // namespace ornic
