#include <gtest/gtest.h>

#include "common/test_function_model.hpp"
#include "dma/fake_guest_memory.hpp"
#include "pci/layout_check.hpp"
#include "pci_test_util.hpp"

namespace ornic {
namespace {

using testing::read_le;
using testing::TestFunctionModel;
using testing::write_le;

constexpr unsigned kCfg = PciDevice::kConfigRegion;

class PciDeviceTest : public ::testing::Test {
protected:
  TestFunctionModel model_;
  FakeGuestMemory memory_{0x10000, 0x1000};
  PciDevice dev_{model_, memory_};
};

TEST_F(PciDeviceTest, AttachesModelOnce) {
  EXPECT_EQ(model_.attaches, 1);
  EXPECT_NE(model_.memory, nullptr);
  EXPECT_NE(model_.irqs, nullptr);
}

TEST_F(PciDeviceTest, HeaderIdentity) {
  EXPECT_EQ(read_le(dev_, kCfg, 0x00, 2), 0x1de5u);
  EXPECT_EQ(read_le(dev_, kCfg, 0x02, 2), 0x0001u);
  EXPECT_EQ(read_le(dev_, kCfg, 0x08, 1), 0x02u);          // revision
  EXPECT_EQ(read_le(dev_, kCfg, 0x08, 4) >> 8, 0x020000u); // class
  EXPECT_EQ(read_le(dev_, kCfg, 0x2c, 2), 0x1de5u);
  EXPECT_EQ(read_le(dev_, kCfg, 0x2e, 2), 0x0101u);
  EXPECT_EQ(read_le(dev_, kCfg, 0x0e, 1), 0x00u);   // type 0 header
  EXPECT_EQ(read_le(dev_, kCfg, 0x3d, 1), 0x00u);   // no INTx pin
  EXPECT_EQ(read_le(dev_, kCfg, 0x30, 4), 0x00u);   // no ROM
  EXPECT_TRUE(read_le(dev_, kCfg, 0x06, 2) & 0x10); // capability list
}

TEST_F(PciDeviceTest, BarTypesAndSizing) {
  EXPECT_EQ(read_le(dev_, kCfg, 0x10, 4), 0x4u); // 64-bit memory, not prefetchable
  EXPECT_EQ(read_le(dev_, kCfg, 0x18, 4), 0x4u);
  EXPECT_EQ(read_le(dev_, kCfg, 0x20, 4), 0x0u); // absent
  ASSERT_EQ(write_le(dev_, kCfg, 0x10, 4, 0xffffffff), 0);
  ASSERT_EQ(write_le(dev_, kCfg, 0x14, 4, 0xffffffff), 0);
  EXPECT_EQ(read_le(dev_, kCfg, 0x10, 4), 0xffff0004u); // 64 KiB
  EXPECT_EQ(read_le(dev_, kCfg, 0x14, 4), 0xffffffffu);
  ASSERT_EQ(write_le(dev_, kCfg, 0x20, 4, 0xffffffff), 0);
  EXPECT_EQ(read_le(dev_, kCfg, 0x20, 4), 0u);
}

TEST_F(PciDeviceTest, CapabilityChain) {
  const uint64_t first = read_le(dev_, kCfg, 0x34, 1);
  ASSERT_EQ(first, ConfigSpace::kPcieCapOffset);
  EXPECT_EQ(read_le(dev_, kCfg, first, 1), 0x10u);             // PCI Express
  EXPECT_EQ(read_le(dev_, kCfg, first + 2, 2) & 0xf0, 0x00u);  // endpoint
  EXPECT_TRUE(read_le(dev_, kCfg, first + 4, 4) & (1u << 28)); // FLR capable
  const uint64_t second = read_le(dev_, kCfg, first + 1, 1);
  ASSERT_EQ(second, ConfigSpace::kMsixCapOffset);
  EXPECT_EQ(read_le(dev_, kCfg, second, 1), 0x11u);  // MSI-X
  EXPECT_EQ(read_le(dev_, kCfg, second + 1, 1), 0u); // end of list
  EXPECT_EQ(read_le(dev_, kCfg, second + 2, 2) & 0x7ff, TestFunctionModel::kVectors - 1);
  EXPECT_EQ(read_le(dev_, kCfg, second + 4, 4), 0x0000u | 2); // table at BAR2 + 0
  EXPECT_EQ(read_le(dev_, kCfg, second + 8, 4), 0x2000u | 2); // PBA at BAR2 + 0x2000
  EXPECT_EQ(read_le(dev_, kCfg, 0x100, 4), 0u);               // no extended capabilities
}

TEST_F(PciDeviceTest, ReadOnlyFieldsIgnoreWrites) {
  ASSERT_EQ(write_le(dev_, kCfg, 0x00, 4, 0x12345678), 0);
  EXPECT_EQ(read_le(dev_, kCfg, 0x00, 2), 0x1de5u);
  ASSERT_EQ(write_le(dev_, kCfg, 0x80, 2, 0xffff), 0); // MSI-X ID / next pointer
  EXPECT_EQ(read_le(dev_, kCfg, 0x80, 2), 0x0011u);
}

TEST_F(PciDeviceTest, CommandRegisterGatesDma) {
  EXPECT_FALSE(dev_.dma_enabled());
  std::array<std::byte, 4> buf{};
  EXPECT_FALSE(model_.memory->read(0x10000, buf));
  ASSERT_EQ(write_le(dev_, kCfg, 0x04, 2, 0x0006), 0); // memory + bus master
  EXPECT_EQ(read_le(dev_, kCfg, 0x04, 2), 0x0006u);
  EXPECT_TRUE(dev_.dma_enabled());
  EXPECT_TRUE(model_.memory->read(0x10000, buf));
  ASSERT_EQ(write_le(dev_, kCfg, 0x04, 2, 0x0002), 0);
  EXPECT_FALSE(dev_.dma_enabled());
  EXPECT_EQ(model_.resets, 0); // turning bus mastering off does not reset the function
}

TEST_F(PciDeviceTest, FunctionLevelReset) {
  ASSERT_EQ(write_le(dev_, kCfg, 0x04, 2, 0x0006), 0);
  ASSERT_EQ(write_le(dev_, 0, 0x08, 4, 0xabcd), 0);
  const uint64_t devctl = ConfigSpace::kPcieCapOffset + 8;
  const uint64_t before = read_le(dev_, kCfg, devctl, 2);
  ASSERT_EQ(write_le(dev_, kCfg, devctl, 2, before | 0x8000), 0);
  EXPECT_EQ(model_.resets, 1);
  EXPECT_EQ(dev_.flr_count(), 1u);
  EXPECT_EQ(read_le(dev_, kCfg, devctl, 2) & 0x8000, 0u); // reads back 0
  EXPECT_EQ(read_le(dev_, kCfg, 0x04, 2), 0u);            // command cleared
  EXPECT_FALSE(dev_.dma_enabled());
  EXPECT_EQ(read_le(dev_, 0, 0x08, 4), 0u); // model state gone
}

TEST_F(PciDeviceTest, DeviceControlWritableBits) {
  const uint64_t devctl = ConfigSpace::kPcieCapOffset + 8;
  ASSERT_EQ(write_le(dev_, kCfg, devctl, 2, 0x5020), 0);
  EXPECT_EQ(read_le(dev_, kCfg, devctl, 2), 0x5020u);
  EXPECT_EQ(model_.resets, 0);
}

TEST_F(PciDeviceTest, RegionBounds) {
  std::array<std::byte, 8> buf{};
  EXPECT_EQ(dev_.region_read(1, 0, buf), EINVAL); // upper half of BAR0
  EXPECT_EQ(dev_.region_read(6, 0, buf), EINVAL); // no ROM
  EXPECT_EQ(dev_.region_read(8, 0, buf), EINVAL); // no VGA
  EXPECT_EQ(dev_.region_read(99, 0, buf), EINVAL);
  EXPECT_EQ(dev_.region_read(kCfg, 4092, buf), EINVAL);
  EXPECT_EQ(dev_.region_read(kCfg, ~uint64_t{0} - 2, buf), EINVAL);
  EXPECT_EQ(dev_.region_read(0, 64 * 1024 - 4, buf), EINVAL);
  EXPECT_EQ(dev_.region_read(0, 64 * 1024 - 8, buf), 0);
  std::vector<std::byte> big(PciDevice::kMaxBarAccess + 8);
  EXPECT_EQ(dev_.region_read(0, 0, big), E2BIG);
  std::vector<std::byte> whole_config(ConfigSpace::kSize);
  EXPECT_EQ(dev_.region_read(kCfg, 0, whole_config), 0);
}

TEST_F(PciDeviceTest, BarAccessesAreSplitNaturally) {
  std::vector<std::byte> buf(11, std::byte{0x11});
  ASSERT_EQ(dev_.region_write(0, 0x3, buf), 0);
  // 0x3 (1), 0x4 (4), 0x8 (4)... sizes follow alignment and what is left.
  ASSERT_EQ(model_.writes.size(), 4u);
  EXPECT_EQ(model_.writes[0].offset, 0x3u);
  EXPECT_EQ(model_.writes[0].size, 1u);
  EXPECT_EQ(model_.writes[1].offset, 0x4u);
  EXPECT_EQ(model_.writes[1].size, 4u);
  EXPECT_EQ(model_.writes[2].offset, 0x8u);
  EXPECT_EQ(model_.writes[2].size, 4u);
  EXPECT_EQ(model_.writes[3].offset, 0xcu);
  EXPECT_EQ(model_.writes[3].size, 2u);
}

TEST_F(PciDeviceTest, ResetRestoresEverything) {
  ASSERT_EQ(write_le(dev_, kCfg, 0x04, 2, 0x0006), 0);
  ASSERT_EQ(write_le(dev_, kCfg, ConfigSpace::kMsixCapOffset + 2, 2, 0x8000), 0);
  dev_.reset();
  EXPECT_EQ(model_.resets, 1);
  EXPECT_EQ(read_le(dev_, kCfg, 0x04, 2), 0u);
  EXPECT_FALSE(dev_.config().msix_enabled());
}

TEST(LayoutCheck, RejectsBadLayouts) {
  std::array<BarDescriptor, 6> bars{};
  bars[0] = {.size = 0x10000, .is_64bit = true};
  const MsixLayout good{.vectors = 4, .bar = 0, .table_offset = 0x8000, .pba_offset = 0x9000};
  EXPECT_EQ(check_function_layout(bars, good), std::nullopt);
  auto bad = bars;
  bad[1] = {.size = 0x1000, .is_64bit = false};
  EXPECT_NE(check_function_layout(bad, good), std::nullopt); // upper half used
  bad = bars;
  bad[0].size = 0x3000;
  EXPECT_NE(check_function_layout(bad, good), std::nullopt); // not a power of two
  EXPECT_NE(check_function_layout(bars, {0, 0, 0, 0x100}), std::nullopt);
  EXPECT_NE(check_function_layout(bars, {4, 1, 0, 0x100}), std::nullopt);      // BAR1 absent
  EXPECT_NE(check_function_layout(bars, {4, 0, 0xfff8, 0x100}), std::nullopt); // table off end
  EXPECT_NE(check_function_layout(bars, {4, 0, 0x0, 0x20}), std::nullopt);     // overlap
  EXPECT_NE(check_function_layout(bars, {4, 0, 0x4, 0x100}), std::nullopt);    // misaligned
}

} // namespace
} // namespace ornic
