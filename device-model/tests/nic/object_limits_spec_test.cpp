// The model's --max option (core/object_limits_spec.hpp): lower object counts, each
// within the device's maxima, and a clear error for anything else.
#include <stdexcept>

#include <gtest/gtest.h>

#include "core/object_limits_spec.hpp"

namespace ornic {
namespace {

TEST(ObjectLimitsSpec, KeysLowerTheirCountOnly) {
  const auto l = parse_object_limits("qp=64,mr=100,mcast-grp=2");
  EXPECT_EQ(l.qp, 64u);
  EXPECT_EQ(l.mr, 100u);
  EXPECT_EQ(l.mcast_grp, 2u);
  EXPECT_EQ(l.cq, limits::kMaxCq);
  EXPECT_EQ(l.ah, limits::kMaxAh);
  EXPECT_EQ(parse_object_limits("ah=32768").ah, limits::kMaxAh);
}

TEST(ObjectLimitsSpec, RefusesWhatIsNotACountWithinTheMaximum) {
  for (const char* bad : {"", "qp", "qp=", "qp=0", "qp=-1", "qp=1x", "qp=1048577", "ah=32769",
                          "mr=524288", "bogus=1", "qp=1,,cq=2", "qp=99999999999"})
    EXPECT_THROW(parse_object_limits(bad), std::invalid_argument) << bad;
}

} // namespace
} // namespace ornic
