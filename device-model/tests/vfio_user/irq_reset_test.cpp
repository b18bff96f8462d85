// Interrupt delivery through eventfds, DEVICE_RESET and FLR.
#include "server_fixture.hpp"

namespace ornic::vfio_user::testing {
namespace {

class IrqTest : public ServerTest {
protected:
  void SetUp() override {
    ServerTest::SetUp();
    ASSERT_EQ(client_->negotiate(), 0);
    for (auto& fd : fds_)
      fd = make_eventfd();
  }
  void enable_msix() { ASSERT_EQ(client_->write32(kConfig, kMsixControl, 0x8000), 0); }
  int assign(uint32_t start, uint32_t count) {
    std::vector<int> raw;
    for (uint32_t i = 0; i < count; ++i)
      raw.push_back(fds_[start + i].get());
    return client_->set_irqs(kIrqSetDataEventfd | kIrqSetActionTrigger, kPciMsixIrqIndex, start,
                             count, raw);
  }
  void raise(uint32_t vector) {
    client_->posted_write32(0, TestFunctionModel::kRegRaise, vector);
    pump();
  }
  std::array<UniqueFd, TestFunctionModel::kVectors> fds_;
};

TEST_F(IrqTest, VectorReachesItsEventfd) {
  enable_msix();
  ASSERT_EQ(assign(0, 4), 0);
  raise(2);
  EXPECT_EQ(drain(fds_[2].get()), 1u);
  EXPECT_EQ(drain(fds_[1].get()), 0u);
}

TEST_F(IrqTest, QemuStyleEnableThenPerVectorAssign) {
  enable_msix();
  // QEMU: one fd-less message (vector 0 "-1") to enable, then one message per vector.
  ASSERT_EQ(client_->set_irqs(kIrqSetDataEventfd | kIrqSetActionTrigger, kPciMsixIrqIndex, 0, 1),
            0);
  raise(3); // not wired yet: becomes pending
  EXPECT_EQ(assign(3, 1), 0);
  EXPECT_EQ(drain(fds_[3].get()), 1u);
}

TEST_F(IrqTest, DisableAllWithCountZero) {
  enable_msix();
  ASSERT_EQ(assign(0, 8), 0);
  ASSERT_EQ(client_->set_irqs(kIrqSetDataNone | kIrqSetActionTrigger, kPciMsixIrqIndex, 0, 0), 0);
  raise(0);
  EXPECT_EQ(drain(fds_[0].get()), 0u);
}

TEST_F(IrqTest, LoopbackTriggerWithDataNoneAndBool) {
  enable_msix();
  ASSERT_EQ(assign(0, 4), 0);
  ASSERT_EQ(client_->set_irqs(kIrqSetDataNone | kIrqSetActionTrigger, kPciMsixIrqIndex, 1, 1), 0);
  EXPECT_EQ(drain(fds_[1].get()), 1u);
  const std::byte bools[3] = {std::byte{1}, std::byte{0}, std::byte{1}};
  ASSERT_EQ(
      client_->set_irqs(kIrqSetDataBool | kIrqSetActionTrigger, kPciMsixIrqIndex, 0, 3, {}, bools),
      0);
  EXPECT_EQ(drain(fds_[0].get()), 1u);
  EXPECT_EQ(drain(fds_[1].get()), 0u);
  EXPECT_EQ(drain(fds_[2].get()), 1u);
}

TEST_F(IrqTest, BadSetIrqsRequests) {
  const int fd = fds_[0].get();
  const uint32_t trigger_eventfd = kIrqSetDataEventfd | kIrqSetActionTrigger;
  EXPECT_EQ(client_->set_irqs(trigger_eventfd, kPciMsixIrqIndex, 8, 1, std::span(&fd, 1)), EINVAL);
  EXPECT_EQ(client_->set_irqs(trigger_eventfd, kPciMsixIrqIndex, 0xffffffff, 2), EINVAL);
  EXPECT_EQ(client_->set_irqs(trigger_eventfd, kPciMsixIrqIndex, 0, 2, std::span(&fd, 1)), EINVAL);
  EXPECT_EQ(client_->set_irqs(trigger_eventfd, kPciErrIrqIndex, 0, 1, std::span(&fd, 1)), EINVAL);
  EXPECT_EQ(client_->set_irqs(kIrqSetDataEventfd | kIrqSetDataBool | kIrqSetActionTrigger,
                              kPciMsixIrqIndex, 0, 1),
            EINVAL);
  EXPECT_EQ(client_->set_irqs(kIrqSetDataNone | kIrqSetActionMask, kPciMsixIrqIndex, 0, 1), EINVAL);
  EXPECT_EQ(client_->set_irqs(kIrqSetDataBool | kIrqSetActionTrigger, kPciMsixIrqIndex, 0, 4),
            EINVAL); // bools missing
  // A memfd is not an eventfd: writing to arbitrary fds could block the server.
  UniqueFd not_eventfd(memfd_create("x", MFD_CLOEXEC));
  const int nfd = not_eventfd.get();
  EXPECT_EQ(client_->set_irqs(trigger_eventfd, kPciMsixIrqIndex, 0, 1, std::span(&nfd, 1)), EINVAL);
  // INTx / MSI have nothing to enable, but switching them off is accepted.
  EXPECT_EQ(client_->set_irqs(kIrqSetDataNone | kIrqSetActionTrigger, kPciIntxIrqIndex, 0, 0), 0);
  EXPECT_EQ(client_->read_le(kConfig, 0, 2), 0x1de5u);
}

TEST_F(IrqTest, DeviceResetResetsModelAndConfig) {
  ASSERT_EQ(client_->write32(kConfig, 0x04, 0x0006), 0);
  ASSERT_EQ(client_->write32(0, 0x10, 77), 0);
  ASSERT_EQ(client_->device_reset(), 0);
  EXPECT_EQ(model_.resets, 1);
  EXPECT_EQ(client_->read_le(kConfig, 0x04, 2), 0u);
  EXPECT_EQ(client_->read_le(0, 0x10, 4), 0u);
}

TEST_F(IrqTest, InterruptsStillWorkAfterReset) {
  enable_msix();
  ASSERT_EQ(assign(0, 1), 0);
  ASSERT_EQ(client_->device_reset(), 0);
  enable_msix(); // the guest re-enables MSI-X after a reset
  raise(0);
  EXPECT_EQ(drain(fds_[0].get()), 1u);
}

TEST_F(IrqTest, FunctionLevelResetThroughConfigWrite) {
  ASSERT_EQ(client_->write32(kConfig, 0x04, 0x0006), 0);
  ASSERT_EQ(client_->write32(0, 0x10, 77), 0);
  const uint64_t devctl = client_->read_le(kConfig, kDevCtl, 2);
  std::vector<std::byte> v = {std::byte(devctl & 0xff), std::byte((devctl >> 8) | 0x80)};
  ASSERT_EQ(client_->region_write(kConfig, kDevCtl, v), 0);
  EXPECT_EQ(model_.resets, 1);
  EXPECT_EQ(server_->device().flr_count(), 1u);
  EXPECT_EQ(client_->read_le(kConfig, kDevCtl, 2) & 0x8000, 0u);
  EXPECT_EQ(client_->read_le(kConfig, 0x04, 2), 0u);
  EXPECT_EQ(client_->read_le(0, 0x10, 4), 0u);
}

} // namespace
} // namespace ornic::vfio_user::testing
