// MPA request and reply frames: layout, round trips, every malformed header refused with
// "invalid request/reply frame", incomplete frames asking for more, and the answer and reply
// checks (markers refused, CRC when either side asks, the enhanced parameters).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "iwarp/mpa_setup.hpp"

namespace ornic::iwarp {
namespace {

MpaSetupFrame sample_request() {
  MpaSetupFrame frame;
  frame.kind = MpaFrameKind::request;
  frame.crc = true;
  frame.revision = kMpaRevision2;
  frame.enhanced = MpaEnhancedParams{.peer_to_peer = true,
                                     .send_rtr = false,
                                     .write_rtr = true,
                                     .read_rtr = true,
                                     .ird = 8,
                                     .ord = 4};
  frame.private_data = {1, 2, 3, 4, 5};
  return frame;
}

TEST(IwarpMpaSetup, RequestLayout) {
  const auto bytes = build_mpa_setup(sample_request());
  ASSERT_TRUE(bytes);
  ASSERT_EQ(bytes->size(), kMpaSetupHeaderSize + 4 + 5);
  EXPECT_EQ(std::string(bytes->begin(), bytes->begin() + 16), "MPA ID Req Frame");
  EXPECT_EQ((*bytes)[16], kMpaFlagCrc | kMpaFlagEnhanced);
  EXPECT_EQ((*bytes)[17], 2);
  EXPECT_EQ((*bytes)[18], 0);
  EXPECT_EQ((*bytes)[19], 9);
  // IRD 8 with the peer-to-peer bit, ORD 4 with both Write and Read ready-to-receive bits.
  EXPECT_EQ((*bytes)[20], 0x80);
  EXPECT_EQ((*bytes)[21], 8);
  EXPECT_EQ((*bytes)[22], 0xc0);
  EXPECT_EQ((*bytes)[23], 4);
}

TEST(IwarpMpaSetup, RoundTrips) {
  std::vector<MpaSetupFrame> frames;
  frames.push_back(sample_request());
  MpaSetupFrame reply;
  reply.kind = MpaFrameKind::reply;
  reply.revision = kMpaRevision1;
  reply.reject = true;
  reply.reserved_flags = 0x15; // with revision 1 the enhanced bit is reserved too
  reply.private_data.assign(kMpaMaxPrivateData, 0xab);
  frames.push_back(reply);
  MpaSetupFrame empty;
  empty.markers = true;
  frames.push_back(empty);
  for (const MpaSetupFrame& frame : frames) {
    const auto bytes = build_mpa_setup(frame);
    ASSERT_TRUE(bytes);
    std::vector<uint8_t> stream = *bytes;
    stream.push_back(0x77); // the first FPDU byte, not part of the frame
    const MpaSetupParse parse = parse_mpa_setup(stream, frame.kind);
    ASSERT_EQ(parse.status, MpaSetupParse::Status::complete);
    EXPECT_EQ(parse.frame_size, bytes->size());
    EXPECT_EQ(parse.frame, frame);
  }
}

TEST(IwarpMpaSetup, BuildRefusesWhatCannotBeSent) {
  MpaSetupFrame frame = sample_request();
  frame.private_data.assign(kMpaMaxPrivateData - 3, 0); // 4 enhanced bytes push it over
  EXPECT_FALSE(build_mpa_setup(frame));
  frame = sample_request();
  frame.revision = kMpaRevision1;
  EXPECT_FALSE(build_mpa_setup(frame));
  frame = sample_request();
  frame.enhanced->ird = 0x4000;
  EXPECT_FALSE(build_mpa_setup(frame));
  frame = sample_request();
  frame.revision = 3;
  EXPECT_FALSE(build_mpa_setup(frame));
  frame = sample_request();
  frame.reserved_flags = kMpaFlagCrc;
  EXPECT_FALSE(build_mpa_setup(frame));
  frame = MpaSetupFrame{};
  frame.reserved_flags = kMpaFlagEnhanced; // revision 2: would parse back as enhanced
  EXPECT_FALSE(build_mpa_setup(frame));
}

TEST(IwarpMpaSetup, MalformedFramesAreInvalid) {
  const std::vector<uint8_t> good = *build_mpa_setup(sample_request());
  auto expect_invalid = [](std::vector<uint8_t> bytes, MpaFrameKind kind, const char* what) {
    const MpaSetupParse parse = parse_mpa_setup(bytes, kind);
    EXPECT_EQ(parse.status, MpaSetupParse::Status::invalid) << what;
    EXPECT_EQ(parse.error, cause::mpa_invalid_setup_frame) << what;
  };
  expect_invalid(good, MpaFrameKind::reply, "request key where a reply is expected");
  auto bytes = good;
  bytes[3] = 'X';
  expect_invalid(bytes, MpaFrameKind::request, "bad key");
  bytes = std::vector<uint8_t>(good.begin(), good.begin() + 5);
  bytes[4] = 'x';
  expect_invalid(bytes, MpaFrameKind::request, "bad key seen before the header is in");
  for (uint8_t revision : {0, 3, 255}) {
    bytes = good;
    bytes[17] = revision;
    expect_invalid(bytes, MpaFrameKind::request, "revision");
  }
  bytes = good;
  bytes[18] = 0x02;
  bytes[19] = 0x01; // 513
  expect_invalid(bytes, MpaFrameKind::request, "private data over 512");
  bytes = good;
  bytes[19] = 3; // enhanced, but too short for IRD and ORD
  bytes.resize(kMpaSetupHeaderSize + 3);
  expect_invalid(bytes, MpaFrameKind::request, "enhanced without parameters");
}

TEST(IwarpMpaSetup, IncompleteFramesNeedMore) {
  const std::vector<uint8_t> good = *build_mpa_setup(sample_request());
  for (size_t size = 0; size < good.size(); ++size) {
    const MpaSetupParse parse =
        parse_mpa_setup(std::span<const uint8_t>(good).first(size), MpaFrameKind::request);
    ASSERT_EQ(parse.status, MpaSetupParse::Status::need_more) << size;
    EXPECT_GT(parse.frame_size, size);
    EXPECT_LE(parse.frame_size, good.size());
  }
}

TEST(IwarpMpaSetup, MarkersAreRejected) {
  MpaSetupFrame request = sample_request();
  request.markers = true;
  const MpaAnswer answer = answer_mpa_request(request, MpaLocalPolicy{});
  EXPECT_FALSE(answer.accepted);
  EXPECT_TRUE(answer.reply.reject);
  EXPECT_FALSE(answer.reply.markers);
  EXPECT_EQ(answer.reply.revision, request.revision);
  EXPECT_TRUE(build_mpa_setup(answer.reply));

  MpaSetupFrame reply = answer_mpa_request(sample_request(), MpaLocalPolicy{}).reply;
  reply.markers = true;
  const MpaReplyCheck check = check_mpa_reply(sample_request(), reply);
  EXPECT_FALSE(check.accepted);
  EXPECT_EQ(check.error, cause::mpa_invalid_setup_frame);
}

TEST(IwarpMpaSetup, CrcWhenEitherSideAsks) {
  for (bool asked : {false, true})
    for (bool wanted : {false, true}) {
      MpaSetupFrame request = sample_request();
      request.crc = asked;
      const MpaAnswer answer = answer_mpa_request(request, MpaLocalPolicy{.want_crc = wanted});
      ASSERT_TRUE(answer.accepted);
      EXPECT_EQ(answer.crc, asked || wanted);
      const MpaReplyCheck check = check_mpa_reply(request, answer.reply);
      ASSERT_TRUE(check.accepted);
      EXPECT_EQ(check.crc, asked || wanted);
    }
}

TEST(IwarpMpaSetup, EnhancedNegotiation) {
  const MpaAnswer answer =
      answer_mpa_request(sample_request(), MpaLocalPolicy{.ird = 32, .ord = 32});
  ASSERT_TRUE(answer.reply.enhanced);
  EXPECT_EQ(answer.reply.enhanced->ird, 32);
  EXPECT_EQ(answer.reply.enhanced->ord, 8); // never more than the initiator's IRD
  EXPECT_TRUE(answer.reply.enhanced->peer_to_peer);
  EXPECT_TRUE(answer.reply.enhanced->write_rtr);
  EXPECT_FALSE(answer.reply.enhanced->read_rtr);
  EXPECT_TRUE(check_mpa_reply(sample_request(), answer.reply).accepted);

  MpaSetupFrame reply = answer.reply;
  reply.enhanced->ird = 3; // below the initiator's ORD of 4
  EXPECT_EQ(check_mpa_reply(sample_request(), reply).error, cause::mpa_insufficient_ird);
  reply = answer.reply;
  reply.enhanced->write_rtr = false;
  reply.enhanced->send_rtr = true; // not offered
  EXPECT_EQ(check_mpa_reply(sample_request(), reply).error, cause::mpa_no_matching_rtr);

  MpaSetupFrame v1 = sample_request();
  v1.revision = kMpaRevision1;
  v1.enhanced.reset();
  const MpaAnswer old = answer_mpa_request(v1, MpaLocalPolicy{});
  EXPECT_EQ(old.reply.revision, kMpaRevision1);
  EXPECT_FALSE(old.reply.enhanced);
  MpaSetupFrame newer = old.reply;
  newer.revision = kMpaRevision2;
  EXPECT_EQ(check_mpa_reply(v1, newer).error, cause::mpa_invalid_setup_frame);
  MpaSetupFrame rejected = old.reply;
  rejected.reject = true;
  EXPECT_TRUE(check_mpa_reply(v1, rejected).rejected_by_peer);
}

} // namespace
} // namespace ornic::iwarp
