// The invariant CRC's masking (IBA 7.8.1): what a switch may change (VL, BTH byte 4) leaves
// it alone; in a global packet so does what a router may change (the LRH, the GRH's traffic
// class, flow label and hop limit); everything else changes it.
#include <vector>

#include <gtest/gtest.h>

#include "ib/icrc.hpp"
#include "ib/lrh.hpp"
#include "iba/grh.hpp"
#include "iba/transport_headers.hpp"

namespace ornic::ib {
namespace {

std::vector<uint8_t> sample(size_t bytes) {
  std::vector<uint8_t> packet(bytes);
  for (size_t i = 0; i < bytes; ++i)
    packet[i] = static_cast<uint8_t>(i * 7 + 3);
  return packet;
}

uint32_t icrc_after(std::vector<uint8_t> packet, size_t at, uint8_t flip, bool global) {
  packet[at] ^= flip;
  return compute_icrc(packet, global);
}

TEST(IbIcrc, LocalPacketIgnoresVlAndBthByte4Only) {
  for (const size_t size : {size_t{40}, size_t{300}}) {
    const std::vector<uint8_t> packet = sample(size);
    const uint32_t icrc = compute_icrc(packet, false);
    EXPECT_EQ(icrc_after(packet, 0, 0xf0, false), icrc) << "VL";
    EXPECT_EQ(icrc_after(packet, Lrh::kSize + iba::Bth::kIcrcMaskedByte, 0xff, false), icrc);
    EXPECT_NE(icrc_after(packet, 0, 0x0f, false), icrc) << "LVer";
    EXPECT_NE(icrc_after(packet, 1, 0xf0, false), icrc) << "SL";
    EXPECT_NE(icrc_after(packet, 3, 0x01, false), icrc) << "DLID";
    EXPECT_NE(icrc_after(packet, Lrh::kSize, 0x01, false), icrc) << "opcode";
    EXPECT_NE(icrc_after(packet, size - 1, 0x80, false), icrc) << "payload";
  }
}

TEST(IbIcrc, GlobalPacketIgnoresWhatRoutersChange) {
  constexpr size_t kGrh = Lrh::kSize;
  for (const size_t size : {size_t{80}, size_t{600}}) {
    const std::vector<uint8_t> packet = sample(size);
    const uint32_t icrc = compute_icrc(packet, true);
    for (size_t lrh_byte = 0; lrh_byte < Lrh::kSize; ++lrh_byte)
      EXPECT_EQ(icrc_after(packet, lrh_byte, 0xff, true), icrc) << "LRH byte " << lrh_byte;
    EXPECT_EQ(icrc_after(packet, kGrh, 0x0f, true), icrc) << "traffic class";
    EXPECT_EQ(icrc_after(packet, kGrh + 3, 0xff, true), icrc) << "flow label";
    EXPECT_EQ(icrc_after(packet, kGrh + 7, 0xff, true), icrc) << "hop limit";
    EXPECT_EQ(icrc_after(packet, kGrh + iba::Grh::kSize + iba::Bth::kIcrcMaskedByte, 0xff, true),
              icrc);
    EXPECT_NE(icrc_after(packet, kGrh, 0xf0, true), icrc) << "IP version";
    EXPECT_NE(icrc_after(packet, kGrh + 5, 0x01, true), icrc) << "payload length";
    EXPECT_NE(icrc_after(packet, kGrh + 6, 0x01, true), icrc) << "next header";
    EXPECT_NE(icrc_after(packet, kGrh + 8, 0x01, true), icrc) << "SGID";
    EXPECT_NE(icrc_after(packet, kGrh + 39, 0x01, true), icrc) << "DGID";
    EXPECT_NE(icrc_after(packet, size - 1, 0x01, true), icrc) << "payload";
  }
}

TEST(IbIcrc, TooShortForItsHeadersIsZeroNotARead) {
  EXPECT_EQ(compute_icrc(sample(19), false), 0u);
  EXPECT_EQ(compute_icrc(sample(59), true), 0u);
}

} // namespace
} // namespace ornic::ib
