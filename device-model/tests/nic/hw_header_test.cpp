// The shared header compiles as C++20 here, and as C in hw_header_check.c (linked into
// this test), so a layout that only works in one language fails the build.
#include <cstddef>

#include <gtest/gtest.h>

#include "nic/hw.hpp"

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

} // namespace
