// DDP segments carrying RDMAP: header layouts, every opcode built and parsed back to the same
// fields and bytes, and every malformed segment refused with the TERMINATE cause RDMAP and
// DDP prescribe.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "iwarp/fpdu.hpp"
#include "iwarp/segment.hpp"
#include "sample_segments.hpp"

namespace ornic::iwarp {
namespace {

using testing::sample_segments;

std::vector<uint8_t> built(const Segment& segment) {
  auto bytes = build_segment(segment);
  EXPECT_TRUE(bytes);
  return bytes.value_or(std::vector<uint8_t>{});
}

TEST(IwarpSegment, TaggedLayout) {
  const auto samples = sample_segments();
  const auto bytes = built(samples[1].segment); // the last Write segment
  ASSERT_EQ(bytes.size(), kDdpTaggedHeaderSize + 37);
  EXPECT_EQ(bytes[0], 0xc1); // T, L, version 1
  EXPECT_EQ(bytes[1], 0x40); // RDMAP version 1, opcode Write
  EXPECT_EQ(std::vector<uint8_t>(bytes.begin() + 2, bytes.begin() + 14),
            (std::vector<uint8_t>{0x12, 0x34, 0x56, 0x01, 0, 0, 0x7f, 0, 0, 0, 0x10, 0x40}));
}

TEST(IwarpSegment, UntaggedLayout) {
  const auto samples = sample_segments();
  const auto bytes = built(samples[5].segment); // Send with Invalidate
  ASSERT_EQ(bytes.size(), kDdpUntaggedHeaderSize + 8);
  EXPECT_EQ(bytes[0], 0x41); // L, version 1
  EXPECT_EQ(bytes[1], 0x44); // RDMAP version 1, opcode 4
  EXPECT_EQ(std::vector<uint8_t>(bytes.begin() + 2, bytes.begin() + 18),
            (std::vector<uint8_t>{0x0b, 0xad, 0x57, 0x01, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0}));
}

TEST(IwarpSegment, ReadRequestAndTerminateLayout) {
  const auto samples = sample_segments();
  const auto read = built(samples[2].segment);
  ASSERT_EQ(read.size(), kDdpUntaggedHeaderSize + kReadRequestSize);
  EXPECT_EQ(read[1], 0x41);
  EXPECT_EQ(read[9], 1);         // queue 1
  EXPECT_EQ(read[18 + 15], 100); // the read size, last byte
  const auto terminate = built(samples[8].segment);
  ASSERT_EQ(terminate.size(), kDdpUntaggedHeaderSize + 4 + 2 + kDdpTaggedHeaderSize);
  EXPECT_EQ(terminate[1], 0x47);
  EXPECT_EQ(terminate[9], 2);     // queue 2
  EXPECT_EQ(terminate[18], 0x11); // layer DDP, error type tagged buffer
  EXPECT_EQ(terminate[19], 0x00); // invalid STag
  EXPECT_EQ(terminate[20], 0xc0); // M and D
  EXPECT_EQ(terminate[24], 0x81); // the copied header: T, version 1 (not last)
}

TEST(IwarpSegment, EveryOpcodeRoundTrips) {
  const auto samples = sample_segments();
  std::vector<bool> seen(kRdmapOpcodeCount);
  for (const auto& sample : samples) {
    const auto bytes = built(sample.segment);
    const SegmentParse parse = parse_segment(bytes);
    ASSERT_TRUE(parse.segment) << describe(parse.error);
    const Segment& segment = *parse.segment;
    seen[static_cast<size_t>(segment.opcode)] = true;
    EXPECT_EQ(segment.opcode, sample.segment.opcode);
    EXPECT_EQ(segment.ddp.tagged, sample.segment.ddp.tagged);
    EXPECT_EQ(segment.ddp.last, sample.segment.ddp.last);
    EXPECT_EQ(segment.ddp.stag, sample.segment.ddp.stag);
    EXPECT_EQ(segment.ddp.tagged_offset, sample.segment.ddp.tagged_offset);
    EXPECT_EQ(segment.ddp.queue_number, sample.segment.ddp.queue_number);
    EXPECT_EQ(segment.ddp.msn, sample.segment.ddp.msn);
    EXPECT_EQ(segment.invalidate_stag, sample.segment.invalidate_stag);
    EXPECT_EQ(segment.read_request, sample.segment.read_request);
    EXPECT_EQ(segment.terminate, sample.segment.terminate);
    EXPECT_TRUE(std::ranges::equal(segment.payload, sample.segment.payload));
    EXPECT_EQ(built(segment), bytes);
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), true), ptrdiff_t{kRdmapOpcodeCount});
}

TEST(IwarpSegment, ReservedBitsSurviveARoundTrip) {
  auto samples = sample_segments();
  Segment segment = samples[4].segment;
  segment.ddp.reserved = kDdpReservedMask;
  segment.rdmap.reserved = kRdmapReservedMask;
  segment.ddp.ulp_word = 0xdeadbeef; // ignored on a plain Send, but kept
  const auto bytes = built(segment);
  const SegmentParse parse = parse_segment(bytes);
  ASSERT_TRUE(parse.segment);
  EXPECT_EQ(parse.segment->ddp.ulp_word, 0xdeadbeefu);
  EXPECT_FALSE(parse.segment->invalidate_stag);
  EXPECT_EQ(built(*parse.segment), bytes);
}

struct Malformed {
  const char* name;
  size_t sample;
  std::function<void(std::vector<uint8_t>&)> damage;
  TerminateCause expected;
};

void set_queue(std::vector<uint8_t>& bytes, uint32_t queue) {
  bytes[6] = static_cast<uint8_t>(queue >> 24);
  bytes[7] = static_cast<uint8_t>(queue >> 16);
  bytes[8] = static_cast<uint8_t>(queue >> 8);
  bytes[9] = static_cast<uint8_t>(queue);
}

TEST(IwarpSegment, MalformedSegmentsMapToTerminateCauses) {
  const auto samples = sample_segments();
  const std::vector<Malformed> cases = {
      {"empty", 4, [](auto& b) { b.clear(); }, cause::mpa_length_mismatch},
      {"one byte", 4, [](auto& b) { b.resize(1); }, cause::mpa_length_mismatch},
      {"tagged header cut", 1, [](auto& b) { b.resize(13); }, cause::mpa_length_mismatch},
      {"untagged header cut", 4, [](auto& b) { b.resize(17); }, cause::mpa_length_mismatch},
      {"tagged DDP version 0", 1, [](auto& b) { b[0] &= 0xfc; }, cause::ddp_tagged_invalid_version},
      {"tagged DDP version 2", 1, [](auto& b) { b[0] ^= 3; }, cause::ddp_tagged_invalid_version},
      {"untagged DDP version 3", 4, [](auto& b) { b[0] |= 3; },
       cause::ddp_untagged_invalid_version},
      {"queue 3", 4, [](auto& b) { set_queue(b, 3); }, cause::ddp_untagged_invalid_qn},
      {"queue 2^32-1", 4, [](auto& b) { set_queue(b, 0xffffffff); },
       cause::ddp_untagged_invalid_qn},
      {"RDMAP version 0", 4, [](auto& b) { b[1] &= 0x3f; }, cause::rdmap_invalid_version},
      {"RDMAP version 2", 1, [](auto& b) { b[1] ^= 0xc0; }, cause::rdmap_invalid_version},
      {"opcode 8", 4, [](auto& b) { b[1] = 0x48; }, cause::rdmap_unexpected_opcode},
      {"opcode 15", 1, [](auto& b) { b[1] = 0x4f; }, cause::rdmap_unexpected_opcode},
      {"Send in a tagged segment", 1, [](auto& b) { b[1] = 0x43; }, cause::rdmap_unexpected_opcode},
      {"Write in an untagged segment", 4, [](auto& b) { b[1] = 0x40; },
       cause::rdmap_unexpected_opcode},
      {"Read Response untagged", 4, [](auto& b) { b[1] = 0x42; }, cause::rdmap_unexpected_opcode},
      {"Send on the Read Request queue", 4, [](auto& b) { set_queue(b, 1); },
       cause::rdmap_unexpected_opcode},
      {"Read Request on the Send queue", 2, [](auto& b) { set_queue(b, 0); },
       cause::rdmap_unexpected_opcode},
      {"Terminate on the Send queue", 8, [](auto& b) { set_queue(b, 0); },
       cause::rdmap_unexpected_opcode},
      {"Read Request not last", 2, [](auto& b) { b[0] &= ~kDdpFlagLast; },
       cause::rdmap_unexpected_opcode},
      {"Read Request at an offset", 2, [](auto& b) { b[17] = 4; }, cause::ddp_untagged_invalid_mo},
      {"Read Request cut", 2, [](auto& b) { b.pop_back(); }, cause::mpa_length_mismatch},
      {"Read Request with data", 2, [](auto& b) { b.push_back(0); }, cause::ddp_untagged_too_long},
      {"Terminate at an offset", 8, [](auto& b) { b[16] = 1; }, cause::ddp_untagged_invalid_mo},
      {"Terminate control cut", 8, [](auto& b) { b.resize(kDdpUntaggedHeaderSize + 3); },
       cause::mpa_length_mismatch},
      {"Terminate segment length cut", 8, [](auto& b) { b.resize(kDdpUntaggedHeaderSize + 5); },
       cause::mpa_length_mismatch},
      {"Terminate copied header cut", 8, [](auto& b) { b.pop_back(); }, cause::mpa_length_mismatch},
      {"Terminate copied header turns untagged", 8, [](auto& b) { b[24] &= ~kDdpFlagTagged; },
       cause::mpa_length_mismatch},
      {"Terminate announces an RDMAP header it lacks", 8, [](auto& b) { b[20] |= 0x20; },
       cause::mpa_length_mismatch},
      {"Terminate with trailing bytes", 8, [](auto& b) { b.push_back(0); },
       cause::ddp_untagged_too_long},
  };
  for (const Malformed& test : cases) {
    auto bytes = built(samples[test.sample].segment);
    test.damage(bytes);
    const SegmentParse parse = parse_segment(bytes);
    EXPECT_FALSE(parse.segment) << test.name;
    EXPECT_EQ(parse.error, test.expected)
        << test.name << ": got " << describe(parse.error) << ", want " << describe(test.expected);
  }
}

TEST(IwarpSegment, BuildRefusesInconsistentParts) {
  const auto samples = sample_segments();
  Segment segment = samples[4].segment; // a Send
  segment.read_request = ReadRequest{};
  EXPECT_FALSE(build_segment(segment));
  segment = samples[4].segment;
  segment.invalidate_stag = 1; // a plain Send invalidates nothing
  EXPECT_FALSE(build_segment(segment));
  segment = samples[2].segment; // a Read Request without its header
  segment.read_request.reset();
  EXPECT_FALSE(build_segment(segment));
  segment = samples[8].segment;
  segment.terminate->ddp_header.pop_back();
  EXPECT_FALSE(build_segment(segment));
  segment = samples[8].segment;
  segment.terminate->rdmap_header.assign(27, 0);
  EXPECT_FALSE(build_segment(segment));
  const std::vector<uint8_t> huge(kMaxUlpdu);
  segment = samples[0].segment;
  segment.payload = huge;
  EXPECT_FALSE(build_segment(segment));
}

TEST(IwarpSegment, TerminateCauseNames) {
  EXPECT_EQ(describe(cause::mpa_crc_error), "mpa/crc_error");
  EXPECT_EQ(describe(cause::ddp_untagged_invalid_qn), "ddp/untagged/invalid_qn");
  EXPECT_EQ(describe(TerminateCause{TerminateLayer::llp, 3, 3}), "unknown");
}

} // namespace
} // namespace ornic::iwarp
