#include <gtest/gtest.h>

#include "iba/aeth_syndrome.hpp"
#include "iba/psn.hpp"

namespace ornic::roce {

using namespace iba;
namespace {

TEST(RoceAethSyndrome, EncodingsOfTheSpec) {
  EXPECT_EQ(make_ack_syndrome(), 0x1f);
  EXPECT_EQ(make_ack_syndrome(3), 0x03);
  EXPECT_EQ(make_rnr_nak_syndrome(0x0e), 0x2e);
  EXPECT_EQ(make_nak_syndrome(NakCode::psn_sequence_error), 0x60);
  EXPECT_EQ(make_nak_syndrome(NakCode::invalid_request), 0x61);
  EXPECT_EQ(make_nak_syndrome(NakCode::remote_access_error), 0x62);
  EXPECT_EQ(make_nak_syndrome(NakCode::remote_operational_error), 0x63);
  EXPECT_EQ(ack_kind(0x2e), AckKind::rnr_nak);
  EXPECT_EQ(ack_kind(0x62), AckKind::nak);
  EXPECT_EQ(ack_kind(0x1f), AckKind::ack);
  EXPECT_EQ(ack_kind(0x40), AckKind::reserved);
  EXPECT_EQ(syndrome_value(0x62), 2);
}

TEST(RocePsn, WrapsAt24Bits) {
  EXPECT_EQ(psn_add(0xffffff, 1), 0u);
  EXPECT_EQ(psn_add(0xfffffe, 5), 3u);
  EXPECT_EQ(psn_distance(0xfffffe, 3), 5);
  EXPECT_EQ(psn_distance(3, 0xfffffe), -5);
  EXPECT_EQ(psn_distance(7, 7), 0);
  EXPECT_EQ(psn_distance(0, 0x7fffff), 0x7fffff);
  EXPECT_EQ(psn_distance(0, 0x800000), -0x800000);
  EXPECT_TRUE(psn_before(0xffffff, 0));
  EXPECT_FALSE(psn_before(0, 0xffffff));
  EXPECT_FALSE(psn_before(9, 9));
}

} // namespace
} // namespace ornic::roce
