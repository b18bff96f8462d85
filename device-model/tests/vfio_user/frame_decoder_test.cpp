#include <sys/eventfd.h>

#include <gtest/gtest.h>

#include "vfio_user/frame_decoder.hpp"
#include "vfio_user/wire.hpp"

namespace ornic::vfio_user {
namespace {

std::vector<std::byte> message(uint16_t id, uint32_t payload_size) {
  std::vector<std::byte> bytes;
  encode_header({id, 4, static_cast<uint32_t>(kHeaderSize + payload_size), 0, 0}, bytes);
  bytes.resize(bytes.size() + payload_size, std::byte{0xee});
  return bytes;
}

UniqueFd some_fd() {
  return UniqueFd(eventfd(0, EFD_CLOEXEC));
}

TEST(FrameDecoder, SplitsConcatenatedMessages) {
  FrameDecoder d(1024);
  auto a = message(1, 4);
  auto b = message(2, 0);
  a.insert(a.end(), b.begin(), b.end());
  d.feed(a);
  auto f1 = d.next();
  ASSERT_TRUE(f1);
  EXPECT_EQ(f1->header.msg_id, 1);
  EXPECT_EQ(f1->payload.size(), 4u);
  auto f2 = d.next();
  ASSERT_TRUE(f2);
  EXPECT_EQ(f2->header.msg_id, 2);
  EXPECT_FALSE(d.next());
  EXPECT_FALSE(d.mid_message());
}

TEST(FrameDecoder, ReassemblesPartialReads) {
  FrameDecoder d(1024);
  auto m = message(3, 100);
  for (size_t i = 0; i < m.size(); ++i) {
    EXPECT_FALSE(d.next());
    d.feed(std::span(m).subspan(i, 1));
  }
  auto f = d.next();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->payload.size(), 100u);
}

TEST(FrameDecoder, FdsBelongToTheMessageOfTheReadsLastByte) {
  FrameDecoder d(1024);
  auto a = message(1, 8);
  auto b = message(2, 8);
  // One read holding all of a (sent without fds) and all of b (sent with 2 fds): the
  // kernel glues them and hands out b's fds with the read.
  std::vector<std::byte> both = a;
  both.insert(both.end(), b.begin(), b.end());
  std::vector<UniqueFd> fds;
  fds.push_back(some_fd());
  fds.push_back(some_fd());
  d.feed(both, std::move(fds));
  auto f1 = d.next();
  ASSERT_TRUE(f1);
  EXPECT_TRUE(f1->fds.empty());
  auto f2 = d.next();
  ASSERT_TRUE(f2);
  EXPECT_EQ(f2->fds.size(), 2u);
}

TEST(FrameDecoder, FdsOfAReadEndingInsideAMessageBelongToIt) {
  FrameDecoder d(1024);
  auto a = message(1, 8);
  auto b = message(2, 8);
  std::vector<std::byte> a_and_start_of_b = a;
  a_and_start_of_b.insert(a_and_start_of_b.end(), b.begin(), b.begin() + 5);
  std::vector<UniqueFd> fds;
  fds.push_back(some_fd());
  d.feed(a_and_start_of_b, std::move(fds), /*fds_truncated=*/true);
  d.feed(std::span(b).subspan(5));
  auto f1 = d.next();
  ASSERT_TRUE(f1);
  EXPECT_TRUE(f1->fds.empty());
  EXPECT_FALSE(f1->fds_truncated);
  auto f2 = d.next();
  ASSERT_TRUE(f2);
  EXPECT_EQ(f2->fds.size(), 1u);
  EXPECT_TRUE(f2->fds_truncated);
}

TEST(FrameDecoder, UntrustworthySizesConsumeOnlyTheHeader) {
  FrameDecoder d(64);
  std::vector<std::byte> bytes;
  encode_header({1, 4, 3, 0, 0}, bytes);  // < header
  encode_header({2, 4, 65, 0, 0}, bytes); // > limit
  encode_header({3, 4, 16, 0, 0}, bytes); // fine
  d.feed(bytes);
  auto f1 = d.next();
  ASSERT_TRUE(f1);
  EXPECT_EQ(f1->framing_error, EINVAL);
  auto f2 = d.next();
  ASSERT_TRUE(f2);
  EXPECT_EQ(f2->framing_error, E2BIG);
  auto f3 = d.next();
  ASSERT_TRUE(f3);
  EXPECT_EQ(f3->framing_error, 0);
  EXPECT_EQ(f3->header.msg_id, 3);
}

} // namespace
} // namespace ornic::vfio_user
