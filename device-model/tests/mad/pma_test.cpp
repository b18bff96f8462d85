// The PMA: ClassPortInfo, PortCounters (narrow fields that stop at their maximum) and
// PortCountersExtended, Sets that clear the selected counters, and what it refuses. A PMA
// MAD's attribute starts at byte 64.
#include <gtest/gtest.h>

#include "mad/pma_attributes.hpp"
#include "mad_rig.hpp"

namespace ornic::test {
namespace {

using mad::Outcome;

mad::MadBytes pma(uint8_t method, uint16_t attribute, uint8_t port_select = 1,
                  uint16_t counter_select = 0) {
  auto m = MadRig::request(mad::kClassPerfMgt, method, attribute);
  m[65] = port_select;
  put_be(m, 66, 2, counter_select);
  return m;
}

void fill_counters(IbPortCounters& c, uint64_t base) {
  uint64_t* fields[] = {&c.symbol_errors,
                        &c.link_error_recovery,
                        &c.link_downed,
                        &c.rcv_errors,
                        &c.rcv_remote_physical_errors,
                        &c.rcv_switch_relay_errors,
                        &c.xmit_discards,
                        &c.xmit_constraint_errors,
                        &c.rcv_constraint_errors,
                        &c.local_link_integrity_errors,
                        &c.excessive_buffer_overrun_errors,
                        &c.vl15_dropped,
                        &c.xmit_data_words,
                        &c.rcv_data_words,
                        &c.xmit_packets,
                        &c.rcv_packets,
                        &c.xmit_wait,
                        &c.unicast_xmit_packets,
                        &c.unicast_rcv_packets,
                        &c.multicast_xmit_packets,
                        &c.multicast_rcv_packets};
  uint64_t value = base;
  for (uint64_t* field : fields)
    *field = value++;
}

TEST(Pma, ClassPortInfo) {
  MadRig rig;
  EXPECT_EQ(rig.answer(pma(mad::kMethodGet, mad::kAttrClassPortInfo, 0)), 0);
  EXPECT_EQ(rig.out[64], 1);                 // BaseVersion
  EXPECT_EQ(rig.out[65], 1);                 // ClassVersion
  EXPECT_EQ(be_at(rig.out, 66, 2), 0x0300u); // AllPortSelect, IsExtendedWidthSupported
  EXPECT_EQ(be_at(rig.out, 68, 4), 8u);      // CapabilityMask2 0, RespTimeValue
  EXPECT_TRUE(zero_at(rig.out, 72, 64));     // no redirection, no traps
  EXPECT_EQ(rig.answer(pma(mad::kMethodSet, mad::kAttrClassPortInfo, 0)),
            mad::kStatusUnsupportedMethodAttr);
}

TEST(Pma, PortCountersSmallValues) {
  MadRig rig;
  fill_counters(rig.core.ib.counters, 1);
  EXPECT_EQ(rig.answer(pma(mad::kMethodGet, mad::kAttrPortCounters)), 0);
  const auto& o = rig.out;
  EXPECT_EQ(o[65], 1);              // PortSelect
  EXPECT_EQ(be_at(o, 68, 2), 1u);   // SymbolErrorCounter
  EXPECT_EQ(o[70], 2);              // LinkErrorRecoveryCounter
  EXPECT_EQ(o[71], 3);              // LinkDownedCounter
  EXPECT_EQ(be_at(o, 72, 2), 4u);   // PortRcvErrors
  EXPECT_EQ(be_at(o, 74, 2), 5u);   // PortRcvRemotePhysicalErrors
  EXPECT_EQ(be_at(o, 76, 2), 6u);   // PortRcvSwitchRelayErrors
  EXPECT_EQ(be_at(o, 78, 2), 7u);   // PortXmitDiscards
  EXPECT_EQ(o[80], 8);              // PortXmitConstraintErrors
  EXPECT_EQ(o[81], 9);              // PortRcvConstraintErrors
  EXPECT_EQ(o[83], 0xab);           // LocalLinkIntegrityErrors | ExcessiveBufferOverrun
  EXPECT_EQ(be_at(o, 86, 2), 12u);  // VL15Dropped
  EXPECT_EQ(be_at(o, 88, 4), 13u);  // PortXmitData
  EXPECT_EQ(be_at(o, 92, 4), 14u);  // PortRcvData
  EXPECT_EQ(be_at(o, 96, 4), 15u);  // PortXmitPkts
  EXPECT_EQ(be_at(o, 100, 4), 16u); // PortRcvPkts
  EXPECT_EQ(be_at(o, 104, 4), 0u);  // PortXmitWait: not offered
}

TEST(Pma, PortCountersSaturate) {
  MadRig rig;
  fill_counters(rig.core.ib.counters, 0x1'0000'0000ull);
  EXPECT_EQ(rig.answer(pma(mad::kMethodGet, mad::kAttrPortCounters)), 0);
  const auto& o = rig.out;
  EXPECT_EQ(be_at(o, 68, 2), 0xffffu);
  EXPECT_EQ(o[70], 0xff);
  EXPECT_EQ(o[71], 0xff);
  EXPECT_EQ(be_at(o, 72, 8), 0xffff'ffff'ffff'ffffull);
  EXPECT_EQ(o[80], 0xff);
  EXPECT_EQ(o[81], 0xff);
  EXPECT_EQ(o[83], 0xff);
  EXPECT_EQ(be_at(o, 86, 2), 0xffffu);
  EXPECT_EQ(be_at(o, 88, 8), 0xffff'ffff'ffff'ffffull);
  EXPECT_EQ(be_at(o, 96, 8), 0xffff'ffff'ffff'ffffull);
  // Just below the limits, the values themselves.
  rig.core.ib.counters.link_downed = 0xfe;
  rig.core.ib.counters.xmit_data_words = 0xffff'fffe;
  rig.core.ib.counters.local_link_integrity_errors = 0xe;
  EXPECT_EQ(rig.answer(pma(mad::kMethodGet, mad::kAttrPortCounters)), 0);
  EXPECT_EQ(rig.out[71], 0xfe);
  EXPECT_EQ(be_at(rig.out, 88, 4), 0xffff'fffeu);
  EXPECT_EQ(rig.out[83] >> 4, 0xe);
}

TEST(Pma, PortCountersSetClearsTheSelectedCounters) {
  MadRig rig;
  fill_counters(rig.core.ib.counters, 1);
  // PortXmitData, PortRcvPkts and SymbolErrorCounter.
  const uint16_t select = mad::kSelXmitData | mad::kSelRcvPackets | mad::kSelSymbolError;
  EXPECT_EQ(rig.answer(pma(mad::kMethodSet, mad::kAttrPortCounters, 1, select)), 0);
  const IbPortCounters& c = rig.core.ib.counters;
  EXPECT_EQ(c.xmit_data_words, 0u);
  EXPECT_EQ(c.rcv_packets, 0u);
  EXPECT_EQ(c.symbol_errors, 0u);
  EXPECT_EQ(c.rcv_data_words, 14u);
  EXPECT_EQ(c.link_error_recovery, 2u);
  EXPECT_EQ(be_at(rig.out, 88, 4), 0u);
  EXPECT_EQ(be_at(rig.out, 92, 4), 14u);
  // Everything (perfquery -R).
  EXPECT_EQ(rig.answer(pma(mad::kMethodSet, mad::kAttrPortCounters, 0xff, 0xffff)), 0);
  EXPECT_TRUE(zero_at(rig.out, 68, 40));
  EXPECT_EQ(c.vl15_dropped, 0u);
  EXPECT_EQ(c.unicast_xmit_packets, 18u) << "only in PortCountersExtended";
}

TEST(Pma, PortCountersExtended) {
  MadRig rig;
  fill_counters(rig.core.ib.counters, 0x1'0000'0000ull);
  EXPECT_EQ(rig.answer(pma(mad::kMethodGet, mad::kAttrPortCountersExtended)), 0);
  const auto& o = rig.out;
  const uint64_t base = 0x1'0000'0000ull;
  EXPECT_EQ(be_at(o, 72, 8), base + 12);  // PortXmitData
  EXPECT_EQ(be_at(o, 80, 8), base + 13);  // PortRcvData
  EXPECT_EQ(be_at(o, 88, 8), base + 14);  // PortXmitPkts
  EXPECT_EQ(be_at(o, 96, 8), base + 15);  // PortRcvPkts
  EXPECT_EQ(be_at(o, 104, 8), base + 17); // PortUnicastXmitPkts
  EXPECT_EQ(be_at(o, 112, 8), base + 18); // PortUnicastRcvPkts
  EXPECT_EQ(be_at(o, 120, 8), base + 19); // PortMulticastXmitPkts
  EXPECT_EQ(be_at(o, 128, 8), base + 20); // PortMulticastRcvPkts
  EXPECT_EQ(be_at(o, 136, 8), 0u);
  EXPECT_EQ(rig.answer(pma(mad::kMethodSet, mad::kAttrPortCountersExtended, 1,
                           mad::kSelxRcvData | mad::kSelxMulticastXmitPackets)),
            0);
  EXPECT_EQ(be_at(o, 80, 8), 0u);
  EXPECT_EQ(be_at(o, 120, 8), 0u);
  EXPECT_EQ(be_at(o, 72, 8), base + 12);
  EXPECT_EQ(rig.core.ib.counters.rcv_data_words, 0u);
}

TEST(Pma, RefusedRequests) {
  MadRig rig;
  EXPECT_EQ(rig.answer(pma(mad::kMethodGet, mad::kAttrPortCounters, 2)), mad::kStatusInvalidField);
  EXPECT_EQ(rig.answer(pma(mad::kMethodSet, mad::kAttrPortCountersExtended, 2, 0xff)),
            mad::kStatusInvalidField);
  // perfquery given a LID and no port asks for port 0: a CA's one port.
  EXPECT_EQ(rig.answer(pma(mad::kMethodGet, mad::kAttrPortCounters, 0)), 0);
  auto with_modifier = pma(mad::kMethodGet, mad::kAttrPortCounters);
  put_be(with_modifier, 20, 4, 1);
  EXPECT_EQ(rig.answer(with_modifier), mad::kStatusInvalidField);
  EXPECT_EQ(rig.answer(pma(mad::kMethodGet, 0x0010)), mad::kStatusUnsupportedMethodAttr);
  auto bad_version = pma(mad::kMethodGet, mad::kAttrPortCounters);
  bad_version[2] = 2;
  EXPECT_EQ(rig.answer(bad_version), mad::kStatusBadVersion);
  // Responses are for a performance manager on this port.
  EXPECT_EQ(rig.run(pma(mad::kMethodGetResp, mad::kAttrPortCounters)), Outcome::not_handled);
  EXPECT_EQ(rig.run(pma(0x06, mad::kAttrPortCounters)), Outcome::not_handled);
}

} // namespace
} // namespace ornic::test
