// Frames built in place (plan_frame / write_headers / seal_frame into a buffer that holds
// an old frame, as a port's ring slot does) are the frames build_frame makes; and a frame
// parsed where another process may rewrite it (an shm: port's ring slot) never yields a
// payload outside the frame, whatever the bytes do meanwhile.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "roce/builder.hpp"
#include "roce/parser.hpp"
#include "sample_packets.hpp"

namespace ornic::roce {

using namespace iba;
namespace {

TEST(InPlaceBuild, EqualsBuildFrameOverAnyOldContents) {
  int checked = 0;
  for (const OpcodeInfo& info : all_opcodes()) {
    for (const IpFamily family : {IpFamily::ipv4, IpFamily::ipv6}) {
      for (const size_t bytes : {0, 1, 5, 8, 1023, 4096}) {
        const PacketDescription packet = testing::sample_packet(info, family);
        const std::vector<uint8_t> payload = testing::sample_payload(info, bytes);
        std::vector<uint8_t> expected;
        ASSERT_EQ(build_frame(packet, payload, expected), BuildError::ok);
        FramePlan plan;
        ASSERT_EQ(plan_frame(packet, payload.size(), plan), BuildError::ok);
        ASSERT_EQ(plan.frame_bytes, expected.size());
        std::vector<uint8_t> slot(plan.frame_bytes + 64, 0xee); // an old frame's bytes
        const std::span<uint8_t> area = write_headers(packet, plan, slot);
        ASSERT_EQ(area.size(), payload.size());
        ASSERT_GE(area.data(), slot.data());
        ASSERT_LE(area.data() + area.size(), slot.data() + plan.frame_bytes);
        std::copy(payload.begin(), payload.end(), area.begin());
        seal_frame(packet, plan, slot);
        EXPECT_TRUE(std::equal(expected.begin(), expected.end(), slot.begin()))
            << static_cast<int>(info.opcode) << " " << bytes;
        EXPECT_EQ(slot[plan.frame_bytes], 0xee); // nothing beyond the frame is touched
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(InPlaceBuild, PlanRefusesWhatBuildFrameRefuses) {
  const OpcodeInfo read = *lookup_opcode(Opcode::rc_rdma_read_request);
  FramePlan plan;
  EXPECT_EQ(plan_frame(testing::sample_packet(read, IpFamily::ipv4), 4, plan),
            BuildError::unexpected_payload);
  const OpcodeInfo write = *lookup_opcode(Opcode::rc_rdma_write_only);
  EXPECT_EQ(plan_frame(testing::sample_packet(write, IpFamily::ipv4), 65536, plan),
            BuildError::too_long);
  EXPECT_EQ(plan_frame(testing::sample_packet(write, IpFamily::ipv4), SIZE_MAX, plan),
            BuildError::too_long);
}

// Two valid frames of different layouts (IPv4 WRITE First with a RETH and 1000 bytes,
// IPv6 SEND Only with 200) written over each other, over and over, by another thread
// while this one parses the buffer: every parse either fails cleanly or gives a payload
// inside the buffer of a length the frame's size allows.
TEST(HostileFrame, ParsingWhileThePeerRewritesTheFrameStaysInBounds) {
  const OpcodeInfo write = *lookup_opcode(Opcode::rc_rdma_write_first);
  const OpcodeInfo send = *lookup_opcode(Opcode::rc_send_only);
  std::vector<uint8_t> one, other;
  ASSERT_EQ(build_frame(testing::sample_packet(write, IpFamily::ipv4),
                        testing::sample_payload(write, 1000), one),
            BuildError::ok);
  ASSERT_EQ(build_frame(testing::sample_packet(send, IpFamily::ipv6),
                        testing::sample_payload(send, 200), other),
            BuildError::ok);
  const size_t size = std::max(one.size(), other.size());
  one.resize(size);
  other.resize(size);
  ParsedPacket parsed;
  ASSERT_EQ(parse_frame(one, parsed), ParseError::ok);
  ASSERT_EQ(parse_frame(other, parsed), ParseError::ok);

  std::vector<uint8_t> shared = one;
  std::atomic<bool> stop{false};
  std::thread peer([&] {
    for (uint64_t n = 0; !stop.load(std::memory_order_relaxed); ++n) {
      const std::vector<uint8_t>& next = n % 2 ? one : other;
      // Byte by byte, front to back or back to front: the parser sees every mixture.
      for (size_t i = 0; i < size; ++i) {
        const size_t at = n % 4 < 2 ? i : size - 1 - i;
        std::atomic_ref<uint8_t>(shared[at]).store(next[at], std::memory_order_relaxed);
      }
    }
  });
  int ok = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::span<const uint8_t> frame(shared);
    if (parse_frame(frame, parsed) != ParseError::ok)
      continue;
    ++ok;
    ASSERT_GE(parsed.payload.data(), frame.data());
    ASSERT_LE(parsed.payload.data() + parsed.payload.size(), frame.data() + frame.size());
    ASSERT_LE(parsed.payload.size(), size_t{1000});
  }
  stop = true;
  peer.join();
  RecordProperty("ok_parses", ok);
}

} // namespace
} // namespace ornic::roce
