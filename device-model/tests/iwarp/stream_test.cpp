// The receive path end to end on one direction of a connection: an MPA request, then an
// FPDU per RDMAP opcode, taken in chunks of every size from 1 to 64 bytes, parsed back into
// the segments that were sent.
#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "iwarp/fpdu.hpp"
#include "iwarp/fpdu_deframer.hpp"
#include "iwarp/mpa_setup.hpp"
#include "iwarp/segment.hpp"
#include "sample_segments.hpp"

namespace ornic::iwarp {
namespace {

TEST(IwarpStream, RequestThenEveryOpcodeInAnyChunking) {
  MpaSetupFrame request;
  request.crc = true;
  request.enhanced = MpaEnhancedParams{.peer_to_peer = true, .write_rtr = true, .ird = 2, .ord = 2};
  request.private_data = {9, 8, 7};
  std::vector<uint8_t> stream = build_mpa_setup(request).value();
  const auto samples = testing::sample_segments();
  std::vector<std::vector<uint8_t>> sent;
  for (const auto& sample : samples) {
    sent.push_back(build_segment(sample.segment).value());
    ASSERT_TRUE(append_fpdu(stream, sent.back(), true));
  }

  for (size_t chunk = 1; chunk <= 64; ++chunk) {
    std::span<const uint8_t> rest(stream);
    // The setup frame arrives a chunk at a time too.
    size_t have = 0;
    MpaSetupParse setup;
    do {
      have = std::min(have + chunk, rest.size());
      setup = parse_mpa_setup(rest.first(have), MpaFrameKind::request);
      ASSERT_NE(setup.status, MpaSetupParse::Status::invalid);
    } while (setup.status == MpaSetupParse::Status::need_more);
    EXPECT_EQ(setup.frame, request);
    rest = rest.subspan(setup.frame_size);

    const MpaAnswer answer = answer_mpa_request(setup.frame, MpaLocalPolicy{});
    ASSERT_TRUE(answer.accepted);
    FpduDeframer deframer({.crc = answer.crc});
    std::vector<std::vector<uint8_t>> received;
    while (!rest.empty()) {
      const auto piece = rest.first(std::min(chunk, rest.size()));
      const auto result = deframer.feed(piece, [&](std::span<const uint8_t> ulpdu) {
        const SegmentParse parse = parse_segment(ulpdu);
        EXPECT_TRUE(parse.segment) << describe(parse.error);
        received.emplace_back(ulpdu.begin(), ulpdu.end());
        return true;
      });
      ASSERT_FALSE(result.error);
      rest = rest.subspan(piece.size());
    }
    EXPECT_EQ(received, sent) << chunk;
  }
}

} // namespace
} // namespace ornic::iwarp
