// The InfiniBand packet codec: every opcode, local and global, survives a round trip with
// its headers, route and payload; every length, CRC and header rule is enforced; and no
// byte sequence makes the parser read outside the packet.
#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "ib/icrc.hpp"
#include "ib/packet_codec.hpp"
#include "iba/transport_headers.hpp"
#include "sample_ib_packets.hpp"
#include "sample_packets.hpp"

namespace ornic::ib {
namespace {

using testing::build_ib_packet;
using testing::sample_ib_packet;

const iba::OpcodeInfo& info_of(iba::Opcode opcode) {
  static const std::vector<iba::OpcodeInfo> all(iba::all_opcodes().begin(),
                                                iba::all_opcodes().end());
  return *std::find_if(all.begin(), all.end(),
                       [&](const iba::OpcodeInfo& info) { return info.opcode == opcode; });
}

// Reseals a packet after a header change, so the change itself is what is judged.
void reseal(std::vector<uint8_t>& frame, bool global) {
  const size_t packet_bytes = frame.size() - kVcrcSize;
  iba::store_icrc(std::span(frame).subspan(packet_bytes - 4).first<4>(),
                  compute_icrc(std::span(frame).first(packet_bytes - 4), global));
  store_vcrc(std::span(frame).subspan(packet_bytes).first<kVcrcSize>(),
             compute_vcrc(std::span(frame).first(packet_bytes)));
}

TEST(IbPacketCodec, EveryOpcodeRoundTrips) {
  for (const bool global : {false, true})
    for (const iba::OpcodeInfo& info : iba::all_opcodes())
      for (const size_t bytes : {0, 3, 256, 4096}) {
        if (bytes != 0 && !info.has(iba::kPayload))
          continue;
        const iba::OutboundPacket packet = sample_ib_packet(info, global);
        const std::vector<uint8_t> payload = roce::testing::sample_payload(info, bytes);
        const std::vector<uint8_t> frame = build_ib_packet(packet, payload);
        EXPECT_EQ(frame.size() % 4, 2u);
        ParsedPacket parsed;
        ASSERT_EQ(parse_packet(frame, parsed), ParseError::ok) << info.name << " " << bytes;
        iba::TransportHeaders expected = packet;
        expected.bth.pad_count = iba::pad_count_for(bytes);
        EXPECT_EQ(parsed.headers, expected) << info.name;
        EXPECT_EQ(parsed.opcode_info.opcode, info.opcode);
        EXPECT_TRUE(std::equal(parsed.payload.begin(), parsed.payload.end(), payload.begin(),
                               payload.end()));
        EXPECT_EQ(parsed.lrh.destination_lid, packet.route.local.destination_lid);
        EXPECT_EQ(parsed.lrh.source_lid, packet.route.local.source_lid);
        EXPECT_EQ(parsed.lrh.service_level, packet.route.local.service_level);
        EXPECT_EQ(parsed.lrh.packet_words * 4u + kVcrcSize, frame.size());
        ASSERT_EQ(parsed.grh.has_value(), global);
        if (global) {
          EXPECT_EQ(parsed.grh->destination_gid, packet.route.global.destination_gid);
          EXPECT_EQ(parsed.grh->source_gid, packet.route.global.source_gid);
          EXPECT_EQ(parsed.grh->flow_label, packet.route.global.flow_label);
          EXPECT_EQ(parsed.grh->hop_limit, packet.route.global.hop_limit);
        }
      }
}

TEST(IbPacketCodec, PlanRefusesWhatTheLrhCannotDescribe) {
  const iba::OutboundPacket packet = sample_ib_packet(info_of(iba::Opcode::rc_send_only), true);
  iba::FramePlan plan;
  EXPECT_TRUE(plan_packet(packet, true, 4096, plan));
  EXPECT_FALSE(plan_packet(packet, true, kMaxPacketBytes, plan));
  iba::OutboundPacket no_deth = sample_ib_packet(info_of(iba::Opcode::ud_send_only), false);
  no_deth.deth.reset();
  EXPECT_FALSE(plan_packet(no_deth, false, 8, plan));
  const iba::OutboundPacket ack = sample_ib_packet(info_of(iba::Opcode::rc_acknowledge), false);
  EXPECT_FALSE(plan_packet(ack, false, 4, plan)) << "payload on an ACK";
}

TEST(IbPacketCodec, EachRuleIsEnforced) {
  const iba::OpcodeInfo& send = info_of(iba::Opcode::rc_send_only);
  const std::vector<uint8_t> local =
      build_ib_packet(sample_ib_packet(send, false), std::vector<uint8_t>(12, 0x5a));
  const std::vector<uint8_t> global =
      build_ib_packet(sample_ib_packet(send, true), std::vector<uint8_t>(12, 0x5a));
  ParsedPacket parsed;

  EXPECT_EQ(parse_packet(std::span(local).first(25), parsed), ParseError::too_short);

  std::vector<uint8_t> longer = local;
  longer.push_back(0);
  EXPECT_EQ(parse_packet(longer, parsed), ParseError::length_mismatch);

  std::vector<uint8_t> corrupt = local;
  corrupt[Lrh::kSize + iba::Bth::kSize + 1] ^= 0x01;
  EXPECT_EQ(parse_packet(corrupt, parsed), ParseError::bad_vcrc);
  // The same change with only the VCRC redone: the ICRC still catches it.
  store_vcrc(std::span(corrupt).subspan(corrupt.size() - 2).first<kVcrcSize>(),
             compute_vcrc(std::span(corrupt).first(corrupt.size() - 2)));
  EXPECT_EQ(parse_packet(corrupt, parsed), ParseError::bad_icrc);

  std::vector<uint8_t> version = local;
  version[0] |= 0x01;
  reseal(version, false);
  EXPECT_EQ(parse_packet(version, parsed), ParseError::bad_link_version);

  std::vector<uint8_t> raw = local;
  raw[1] &= static_cast<uint8_t>(~0x03);
  reseal(raw, false);
  EXPECT_EQ(parse_packet(raw, parsed), ParseError::not_transport);

  std::vector<uint8_t> next_header = global;
  next_header[Lrh::kSize + 6] = 0x11;
  reseal(next_header, true);
  EXPECT_EQ(parse_packet(next_header, parsed), ParseError::bad_grh);

  std::vector<uint8_t> grh_length = global;
  grh_length[Lrh::kSize + 5] ^= 0x04;
  reseal(grh_length, true);
  EXPECT_EQ(parse_packet(grh_length, parsed), ParseError::bad_grh);

  std::vector<uint8_t> tver = local;
  tver[Lrh::kSize + 1] |= 0x01;
  reseal(tver, false);
  EXPECT_EQ(parse_packet(tver, parsed), ParseError::bad_transport_version);

  std::vector<uint8_t> opcode = local;
  opcode[Lrh::kSize] = 0x1f; // reserved RC opcode
  reseal(opcode, false);
  EXPECT_EQ(parse_packet(opcode, parsed), ParseError::unknown_opcode);

  std::vector<uint8_t> pad = local;
  pad[Lrh::kSize + 1] |= 0x30; // pad count 3 on a 12-byte payload: misaligned, not > payload
  reseal(pad, false);
  EXPECT_EQ(parse_packet(pad, parsed), ParseError::ok);
  EXPECT_EQ(parsed.payload.size(), 9u);
}

TEST(IbPacketCodec, ArbitraryBytesNeverCrash) {
  std::mt19937 rng(11);
  std::vector<uint8_t> frame;
  ParsedPacket parsed;
  for (int round = 0; round < 4000; ++round) {
    frame.resize(rng() % 200);
    for (auto& byte : frame)
      byte = static_cast<uint8_t>(rng());
    if (frame.size() >= 6) {
      // A length that agrees, and both CRCs right, so the parser gets past them.
      const uint16_t words = static_cast<uint16_t>((frame.size() - 2) / 4);
      frame.resize(words * 4u + 2);
      frame[4] = static_cast<uint8_t>(words >> 8);
      frame[5] = static_cast<uint8_t>(words);
      if (frame.size() >= 26 && (rng() & 1))
        reseal(frame, (frame[1] & 3) == 3 && frame.size() >= 66);
    }
    (void)parse_packet(frame, parsed);
  }
}

} // namespace
} // namespace ornic::ib
