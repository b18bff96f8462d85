// M_Key protection (IBA 14.2.4): the four protection levels for Get, Set and TrapRepress,
// the driver's IGNORE_MKEY, M_KeyViolations and the lease that ends protection.
#include <gtest/gtest.h>

#include "mad/m_key.hpp"
#include "mad_rig.hpp"

namespace ornic::test {
namespace {

using mad::Outcome;

constexpr uint64_t kKey = 0x5eed'5eed'5eed'5eedull;
constexpr uint64_t kWrongKey = 0x0bad;
constexpr int64_t kSecond = 1'000'000'000;

class MKey : public ::testing::Test {
protected:
  void protect(uint8_t bits, uint16_t lease_seconds = 0) {
    rig.core.ib.m_key = kKey;
    rig.core.ib.m_key_protect_bits = bits;
    rig.core.ib.m_key_lease_period = lease_seconds;
  }
  Outcome get(uint64_t key, bool ignore = false) {
    return rig.run(
        MadRig::request(mad::kClassSubnDirected, mad::kMethodGet, mad::kAttrPortInfo, 1, key),
        ignore);
  }
  // A Set of the port's own PortInfo with LID 9 (the key field keeps the port's key).
  Outcome set_lid(uint64_t key, bool ignore = false) {
    auto set = MadRig::request(mad::kClassSubnLid, mad::kMethodSet, mad::kAttrPortInfo, 1, key);
    rig.core.ib.lid = 0;
    mad::MadContext context;
    context.ignore_m_key = true;
    mad::MadBytes current{};
    mad::process(rig.core,
                 MadRig::request(mad::kClassSubnLid, mad::kMethodGet, mad::kAttrPortInfo, 1),
                 current, context);
    std::copy(current.begin() + 64, current.begin() + 128, set.begin() + 64);
    put_be(set, 80, 2, 9);
    set[64 + 32] &= 0xf0; // PortState: no change
    set[64 + 33] = 0x02;  // PortPhysicalState: no change
    const Outcome outcome = rig.run(set, ignore);
    if (outcome == Outcome::reply) {
      EXPECT_EQ(be_at(rig.out, 4, 2), 0u) << "status";
    }
    return outcome;
  }

  MadRig rig;
};

TEST_F(MKey, NoKeyNoCheck) {
  rig.core.ib.m_key_protect_bits = 3;
  EXPECT_EQ(get(kWrongKey), Outcome::reply);
  EXPECT_EQ(set_lid(kWrongKey), Outcome::reply);
  EXPECT_EQ(rig.core.ib.lid, 9);
  EXPECT_EQ(rig.core.ib.m_key_violations, 0);
}

TEST_F(MKey, Level0ChecksNothing) {
  protect(0);
  EXPECT_EQ(get(kWrongKey), Outcome::reply);
  EXPECT_EQ(be_at(rig.out, 64, 8), kKey) << "the key is readable";
  EXPECT_EQ(set_lid(kWrongKey), Outcome::reply);
  EXPECT_EQ(rig.core.ib.lid, 9);
  EXPECT_EQ(rig.core.ib.m_key_violations, 0);
}

TEST_F(MKey, Level1HidesTheKeyFromGetsAndRefusesSets) {
  protect(1);
  EXPECT_EQ(get(kWrongKey), Outcome::reply);
  EXPECT_EQ(be_at(rig.out, 64, 8), 0u);
  EXPECT_EQ(get(kKey), Outcome::reply);
  EXPECT_EQ(be_at(rig.out, 64, 8), kKey);
  EXPECT_EQ(get(kWrongKey, true), Outcome::reply);
  EXPECT_EQ(be_at(rig.out, 64, 8), kKey) << "the driver's own query sees the key";
  EXPECT_EQ(set_lid(kWrongKey), Outcome::consumed);
  EXPECT_EQ(rig.core.ib.lid, 0);
  EXPECT_EQ(rig.core.ib.m_key_violations, 1);
  EXPECT_EQ(set_lid(kKey), Outcome::reply);
  EXPECT_EQ(rig.core.ib.lid, 9);
  EXPECT_EQ(set_lid(kWrongKey, true), Outcome::reply);
  EXPECT_EQ(rig.core.ib.m_key_violations, 1);
}

TEST_F(MKey, Levels2And3RefuseGetsAndSets) {
  for (uint8_t level : {uint8_t{2}, uint8_t{3}}) {
    rig.core.ib.m_key_violations = 0;
    protect(level);
    EXPECT_EQ(get(kWrongKey), Outcome::consumed) << int{level};
    EXPECT_EQ(get(0), Outcome::consumed) << int{level};
    EXPECT_EQ(set_lid(kWrongKey), Outcome::consumed) << int{level};
    EXPECT_EQ(rig.core.ib.lid, 0);
    EXPECT_EQ(rig.core.ib.m_key_violations, 3);
    EXPECT_EQ(get(kKey), Outcome::reply);
    EXPECT_EQ(get(kWrongKey, true), Outcome::reply);
    EXPECT_EQ(set_lid(kWrongKey, true), Outcome::reply);
    EXPECT_EQ(rig.core.ib.m_key_violations, 3);
  }
}

TEST_F(MKey, ViolatingTrapRepressIsCountedAndConsumed) {
  protect(1);
  EXPECT_EQ(
      rig.run(MadRig::request(mad::kClassSubnLid, mad::kMethodTrapRepress, 0x0002, 0, kWrongKey)),
      Outcome::consumed);
  EXPECT_EQ(rig.core.ib.m_key_violations, 1);
}

TEST_F(MKey, ChecksCoverEveryAttributeButNotSmInfoOrThePma) {
  protect(2);
  EXPECT_EQ(rig.run(MadRig::request(mad::kClassSubnLid, mad::kMethodGet, mad::kAttrNodeInfo, 0,
                                    kWrongKey)),
            Outcome::consumed);
  EXPECT_EQ(rig.run(MadRig::request(mad::kClassSubnLid, mad::kMethodGet, mad::kAttrSwitchInfo, 0,
                                    kWrongKey)),
            Outcome::consumed);
  EXPECT_EQ(
      rig.run(MadRig::request(mad::kClassSubnLid, mad::kMethodGet, mad::kAttrSmInfo, 0, kWrongKey)),
      Outcome::not_handled);
  auto pma = MadRig::request(mad::kClassPerfMgt, mad::kMethodGet, mad::kAttrClassPortInfo);
  EXPECT_EQ(rig.run(pma), Outcome::reply);
  EXPECT_EQ(rig.core.ib.m_key_violations, 2);
}

TEST_F(MKey, ViolationsShowInPortInfoAndSaturate) {
  protect(2);
  rig.core.ib.m_key_violations = 0xfffe;
  EXPECT_EQ(get(kWrongKey), Outcome::consumed);
  EXPECT_EQ(get(kWrongKey), Outcome::consumed);
  EXPECT_EQ(rig.core.ib.m_key_violations, 0xffff);
  EXPECT_EQ(get(kKey), Outcome::reply);
  EXPECT_EQ(be_at(rig.out, 64 + 44, 2), 0xffffu);
}

TEST_F(MKey, LeaseExpiryDropsTheProtection) {
  protect(2, 10);
  EXPECT_EQ(get(kWrongKey), Outcome::consumed);
  rig.clock.advance(9 * kSecond);
  EXPECT_EQ(get(kWrongKey), Outcome::consumed) << "a second violation does not extend it";
  rig.clock.advance(kSecond);
  // Ten seconds after the first violation the protection bits are 0: a new subnet manager
  // can take the port over, key and all.
  EXPECT_EQ(get(kWrongKey), Outcome::reply);
  EXPECT_EQ(be_at(rig.out, 64, 8), kKey);
  EXPECT_EQ(rig.out[64 + 34] >> 6, 0);
  EXPECT_EQ(set_lid(kWrongKey), Outcome::reply);
  EXPECT_EQ(rig.core.ib.m_key_protect_bits, 0);
  EXPECT_EQ(rig.core.ib.m_key_violations, 2);
}

TEST_F(MKey, TheRightKeyStopsTheLease) {
  protect(2, 10);
  EXPECT_EQ(get(kWrongKey), Outcome::consumed);
  rig.clock.advance(5 * kSecond);
  EXPECT_EQ(get(kKey), Outcome::reply);
  rig.clock.advance(60 * kSecond);
  EXPECT_EQ(get(kWrongKey), Outcome::consumed);
  EXPECT_EQ(rig.core.ib.m_key_protect_bits, 2);
  // Nor does the driver's own query stop a lease, or end protection early.
  rig.clock.advance(5 * kSecond);
  EXPECT_EQ(get(kWrongKey, true), Outcome::reply);
  rig.clock.advance(5 * kSecond);
  EXPECT_EQ(get(kWrongKey), Outcome::reply);
}

TEST_F(MKey, LeasePeriodZeroNeverEnds) {
  protect(2, 0);
  EXPECT_EQ(get(kWrongKey), Outcome::consumed);
  rig.clock.advance(3600 * kSecond);
  EXPECT_EQ(get(kWrongKey), Outcome::consumed);
  EXPECT_EQ(rig.core.ib.m_key_protect_bits, 2);
}

} // namespace
} // namespace ornic::test
