// The shared header compiles as C++20 here, and as C in hw_header_check.c (linked into
// this test), so a layout that only works in one language fails the build.
#include <cstddef>
#include <cstdint>

#include <gtest/gtest.h>

#include "core/hw.hpp"

extern "C" int ornic_hw_header_check_c(void);

namespace {

TEST(HwHeader, CAndCxxAgreeOnLayouts) {
  EXPECT_EQ(ornic_hw_header_check_c(),
            static_cast<int>(sizeof(ornic_send_wqe) + sizeof(ornic_cqe)));
}

TEST(HwHeader, KeyLayouts) {
  EXPECT_EQ(sizeof(ornic_admin_sqe), 64u);
  EXPECT_EQ(sizeof(ornic_admin_cqe), 16u);
  EXPECT_EQ(sizeof(ornic_eqe), 16u);
  EXPECT_EQ(sizeof(ornic_cqe), 32u);
  EXPECT_EQ(offsetof(ornic_cqe, owner), 31u);
  EXPECT_EQ(sizeof(ornic_cqe_ts), 64u);
  EXPECT_EQ(offsetof(ornic_cqe_ts, cqe) + offsetof(ornic_cqe, owner), 63u); // owner last
  EXPECT_EQ(ORNIC_DB_CLOCK % 8, 0u);
  EXPECT_LT(ORNIC_DB_CLOCK_HI + 4, ORNIC_DB_PAGE_SIZE);
  EXPECT_EQ(ORNIC_MR_KEY(0x123, 0x45), 0x12345u);
  EXPECT_EQ(ORNIC_DB_VALUE(7, ORNIC_DB_FLAG_ARM_NEXT, 9), 0x0000000901000007ull);
}

TEST(HwHeader, VersionFields) {
  EXPECT_EQ(ORNIC_SPEC_VERSION, 0x00010000u);
  EXPECT_EQ(ORNIC_VERSION(2, 3), 0x00020003u);
  EXPECT_EQ(ORNIC_VERSION_MAJOR(0xabcd1234u), 0xabcdu);
  EXPECT_EQ(ORNIC_VERSION_MINOR(0xabcd1234u), 0x1234u);
}

// wqe.rst, "WQE geometry": the helpers driver, provider and model share.
TEST(HwHeader, WqeGeometry) {
  EXPECT_EQ(ornic_wqe_sge_blocks(0), 0u);
  EXPECT_EQ(ornic_wqe_sge_blocks(4), 1u);
  EXPECT_EQ(ornic_wqe_sge_blocks(5), 2u);
  EXPECT_EQ(ornic_wqe_inline_blocks(64), 1u);
  EXPECT_EQ(ornic_wqe_inline_blocks(65), 2u);
  EXPECT_EQ(ornic_wqe_inline_blocks(0xffffffffu), 0x4000000u); // no wrap to 0
  EXPECT_EQ(ornic_send_wqe_blocks(0, 0), 1u);
  EXPECT_EQ(ornic_send_wqe_blocks(2, 200), 5u);
  EXPECT_EQ(ornic_send_wqe_blocks(16, 0), 5u);
  EXPECT_EQ(ornic_recv_wqe_blocks(0), 1u);
  EXPECT_EQ(ornic_recv_wqe_blocks(ORNIC_RECV_SGES_BLOCK0), 1u);
  EXPECT_EQ(ornic_recv_wqe_blocks(ORNIC_RECV_SGES_BLOCK0 + 1), 2u);
  EXPECT_EQ(ornic_recv_wqe_blocks(15), 4u);
  EXPECT_EQ(ornic_send_sges_fit(0), 0u);
  EXPECT_EQ(ornic_inline_fit(0), 0u);
  EXPECT_EQ(ornic_recv_sges_fit(0), 0u);
  // What a WQE of n blocks holds needs exactly n blocks again.
  for (uint32_t n = 1; n <= ORNIC_WQE_MAX_BLOCKS; ++n) {
    EXPECT_EQ(ornic_send_wqe_blocks(ornic_send_sges_fit(n), 0), n);
    EXPECT_EQ(ornic_send_wqe_blocks(0, ornic_inline_fit(n)), n);
    EXPECT_EQ(ornic_recv_wqe_blocks(ornic_recv_sges_fit(n)), n);
  }
}

} // namespace
