// Each header's fields land at the byte offsets of the specs (IEEE 802.3, RFC 791/8200/768,
// IBA vol 1 ch. 9), worked out by hand here rather than derived from the code under test.
#include <array>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "iba/transport_headers.hpp"
#include "roce/network_headers.hpp"

namespace ornic::roce {

using namespace iba;
namespace {

template <typename Header>
std::vector<uint8_t> encoded(const Header& header) {
  std::array<uint8_t, Header::kSize> bytes{};
  header.encode(bytes);
  return {bytes.begin(), bytes.end()};
}

template <typename Header>
Header decoded(const std::vector<uint8_t>& bytes) {
  return Header::decode(std::span<const uint8_t, Header::kSize>(bytes.data(), Header::kSize));
}

TEST(RoceHeaderLayout, Ethernet) {
  const EthernetHeader header{
      .destination = {1, 2, 3, 4, 5, 6}, .source = {7, 8, 9, 10, 11, 12}, .ether_type = 0x86dd};
  const std::vector<uint8_t> expected = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0x86, 0xdd};
  EXPECT_EQ(encoded(header), expected);
  EXPECT_EQ(decoded<EthernetHeader>(expected), header);
}

TEST(RoceHeaderLayout, Ipv4WithChecksum) {
  Ipv4Header header;
  header.tos = 0x68;
  header.total_length = 0x0054;
  header.ttl = 0x40;
  header.source = {192, 168, 1, 1};
  header.destination = {192, 168, 1, 2};
  std::array<uint8_t, Ipv4Header::kSize> bytes{};
  header.encode(bytes);
  Ipv4Header::fill_checksum(bytes);
  // 4568 + 0054 + 0000 + 4000 + 4011 + c0a8 + 0101 + c0a8 + 0102 = 0x24920 -> 0x4922 -> ~ 0xb6dd
  const std::array<uint8_t, 20> expected = {0x45, 0x68, 0x00, 0x54, 0x00, 0x00, 0x40,
                                            0x00, 0x40, 0x11, 0xb6, 0xdd, 192,  168,
                                            1,    1,    192,  168,  1,    2};
  EXPECT_EQ(bytes, expected);
  EXPECT_TRUE(Ipv4Header::checksum_valid(bytes));
  bytes[15] ^= 1;
  EXPECT_FALSE(Ipv4Header::checksum_valid(bytes));
  header.checksum = 0xb6dd;
  EXPECT_EQ(decoded<Ipv4Header>({expected.begin(), expected.end()}), header);
}

TEST(RoceHeaderLayout, Ipv6) {
  Ipv6Header header;
  header.traffic_class = 0xab;
  header.flow_label = 0xcdef1;
  header.payload_length = 0x0102;
  header.hop_limit = 0x33;
  header.source[0] = 0xfd;
  header.source[15] = 0x01;
  header.destination[0] = 0xfe;
  header.destination[15] = 0x02;
  const std::vector<uint8_t> bytes = encoded(header);
  const std::vector<uint8_t> first_eight = {0x6a, 0xbc, 0xde, 0xf1, 0x01, 0x02, 0x11, 0x33};
  EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 8), first_eight);
  EXPECT_EQ(bytes[8], 0xfd);
  EXPECT_EQ(bytes[23], 0x01);
  EXPECT_EQ(bytes[24], 0xfe);
  EXPECT_EQ(bytes[39], 0x02);
  EXPECT_EQ(decoded<Ipv6Header>(bytes), header);
}

TEST(RoceHeaderLayout, Udp) {
  const UdpHeader header{
      .source_port = 0xc123, .destination_port = 4791, .length = 0x0040, .checksum = 0xbeef};
  const std::vector<uint8_t> expected = {0xc1, 0x23, 0x12, 0xb7, 0x00, 0x40, 0xbe, 0xef};
  EXPECT_EQ(encoded(header), expected);
  EXPECT_EQ(decoded<UdpHeader>(expected), header);
}

TEST(RoceHeaderLayout, Bth) {
  Bth bth;
  bth.opcode = 0x0a;
  bth.solicited = true;
  bth.migration_request = true;
  bth.pad_count = 3;
  bth.transport_version = 0;
  bth.partition_key = 0x8001;
  bth.fecn = true;
  bth.becn = false;
  bth.destination_qp = 0x123456;
  bth.ack_request = true;
  bth.psn = 0xfedcba;
  const std::vector<uint8_t> expected = {0x0a, 0xf0, 0x80, 0x01, 0x80, 0x12,
                                         0x34, 0x56, 0x80, 0xfe, 0xdc, 0xba};
  EXPECT_EQ(encoded(bth), expected);
  EXPECT_EQ(decoded<Bth>(expected), bth);
}

TEST(RoceHeaderLayout, BthMasksOversizedFields) {
  Bth bth;
  bth.destination_qp = 0xff000001;
  bth.psn = 0xff000002;
  const std::vector<uint8_t> bytes = encoded(bth);
  EXPECT_EQ(decoded<Bth>(bytes).destination_qp, 0x000001u);
  EXPECT_EQ(decoded<Bth>(bytes).psn, 0x000002u);
}

TEST(RoceHeaderLayout, Reth) {
  const Reth reth{
      .virtual_address = 0x0102030405060708, .rkey = 0x090a0b0c, .dma_length = 0x0d0e0f10};
  const std::vector<uint8_t> expected = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  EXPECT_EQ(encoded(reth), expected);
  EXPECT_EQ(decoded<Reth>(expected), reth);
}

TEST(RoceHeaderLayout, Aeth) {
  const Aeth aeth{.syndrome = 0x60, .msn = 0x010203};
  const std::vector<uint8_t> expected = {0x60, 0x01, 0x02, 0x03};
  EXPECT_EQ(encoded(aeth), expected);
  EXPECT_EQ(decoded<Aeth>(expected), aeth);
}

TEST(RoceHeaderLayout, AtomicEth) {
  const AtomicEth atomic{.virtual_address = 0x0102030405060708,
                         .rkey = 0x090a0b0c,
                         .swap_or_add = 0x0d0e0f1011121314,
                         .compare = 0x15161718191a1b1c};
  std::vector<uint8_t> expected;
  for (uint8_t value = 1; value <= 28; ++value)
    expected.push_back(value);
  EXPECT_EQ(encoded(atomic), expected);
  EXPECT_EQ(decoded<AtomicEth>(expected), atomic);
}

TEST(RoceHeaderLayout, AtomicAckEth) {
  const AtomicAckEth ack{.original_data = 0x0102030405060708};
  const std::vector<uint8_t> expected = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(encoded(ack), expected);
  EXPECT_EQ(decoded<AtomicAckEth>(expected), ack);
}

TEST(RoceHeaderLayout, ImmDtAndIeth) {
  const std::vector<uint8_t> expected = {0xde, 0xad, 0xbe, 0xef};
  EXPECT_EQ(encoded(ImmDt{.immediate = 0xdeadbeef}), expected);
  EXPECT_EQ(decoded<ImmDt>(expected).immediate, 0xdeadbeefu);
  EXPECT_EQ(encoded(Ieth{.rkey = 0xdeadbeef}), expected);
  EXPECT_EQ(decoded<Ieth>(expected).rkey, 0xdeadbeefu);
}

TEST(RoceHeaderLayout, Deth) {
  const Deth deth{.qkey = 0x80010000, .source_qp = 0x000011};
  const std::vector<uint8_t> expected = {0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11};
  EXPECT_EQ(encoded(deth), expected);
  EXPECT_EQ(decoded<Deth>(expected), deth);
}

// rxe_hdr.h: placement type in bits 3..0, selectivity level in bits 5..4, big-endian.
TEST(RoceHeaderLayout, Feth) {
  const Feth persistent_mr{.placement_type = 0x2, .selectivity_level = 1};
  const std::vector<uint8_t> expected = {0x00, 0x00, 0x00, 0x12};
  EXPECT_EQ(encoded(persistent_mr), expected);
  EXPECT_EQ(decoded<Feth>(expected), persistent_mr);
  // Reserved bits survive a decode, so the responder can refuse them.
  const std::vector<uint8_t> reserved = {0x80, 0x00, 0x00, 0x41};
  const Feth odd = decoded<Feth>(reserved);
  EXPECT_EQ(odd.placement_type, 0x1);
  EXPECT_EQ(odd.selectivity_level, 0);
  EXPECT_EQ(odd.reserved, 0x80000040u);
  EXPECT_EQ(encoded(odd), reserved);
}

TEST(RoceUdpSourcePort, ConfiguredPortWins) {
  EXPECT_EQ(roce_udp_source_port(0x1234, 5, 6), 0x1234);
}

TEST(RoceUdpSourcePort, HashedPortIsStableAndInEntropyRange) {
  const uint16_t port = roce_udp_source_port(0, 0x11, 0x22);
  EXPECT_EQ(port, roce_udp_source_port(0, 0x11, 0x22));
  EXPECT_EQ(port & 0xc000, 0xc000);
  int differing = 0;
  for (uint32_t qpn = 1; qpn < 64; ++qpn)
    differing += roce_udp_source_port(0, qpn, 0x22) != port;
  EXPECT_GT(differing, 50);
}

} // namespace
} // namespace ornic::roce
