// Hostile and broken input: every bad message gets an error reply (or silence when sent
// NO_REPLY) and the server keeps serving, proven with a valid request after each.
#include "server_fixture.hpp"
#include "vfio_user/wire.hpp"

namespace ornic::vfio_user::testing {
namespace {

class BadInputTest : public ServerTest {
protected:
  void SetUp() override {
    ServerTest::SetUp();
    ASSERT_EQ(client_->negotiate(), 0);
  }

  void expect_still_serving() {
    EXPECT_EQ(client_->read_le(kConfig, 0, 4), 0x00011de5u) << "server stopped serving";
  }

  // Sends a raw header (+ payload) and expects an error reply with `error` for `id`.
  void expect_error(Header h, std::span<const std::byte> payload, uint32_t error,
                    std::span<const int> fds = {}) {
    std::vector<std::byte> bytes;
    encode_header(h, bytes);
    bytes.insert(bytes.end(), payload.begin(), payload.end());
    client_->send_raw(bytes, fds);
    std::optional<Message> reply = client_->receive();
    ASSERT_TRUE(reply.has_value());
    EXPECT_EQ(reply->header.msg_id, h.msg_id);
    EXPECT_EQ(reply->header.flags, kTypeReply | kFlagError);
    EXPECT_EQ(reply->header.error, error);
    EXPECT_EQ(reply->header.size, kHeaderSize);
    expect_still_serving();
  }
};

TEST_F(BadInputTest, SizeSmallerThanHeader) {
  for (uint32_t size : {0u, 1u, 15u})
    expect_error({900, static_cast<uint16_t>(Command::kDeviceGetInfo), size, 0, 0}, {}, EINVAL);
}

TEST_F(BadInputTest, HugeSize) {
  for (uint32_t size : {0xffffffffu, (2u << 20)})
    expect_error({901, static_cast<uint16_t>(Command::kRegionWrite), size, 0, 0}, {}, E2BIG);
}

TEST_F(BadInputTest, TruncatedPayloads) {
  // Each command with a payload shorter than its fixed part.
  for (Command c :
       {Command::kVersion, Command::kDmaMap, Command::kDmaUnmap, Command::kDeviceGetInfo,
        Command::kDeviceGetRegionInfo, Command::kDeviceGetIrqInfo, Command::kDeviceSetIrqs,
        Command::kRegionRead, Command::kRegionWrite, Command::kRegionWriteMulti}) {
    const std::byte three[3] = {};
    expect_error({902, static_cast<uint16_t>(c), 16 + 3, 0, 0}, three, EINVAL);
  }
}

TEST_F(BadInputTest, BadArgsz) {
  Payload info;
  info.put<uint32_t>(8).put<uint32_t>(0).put<uint32_t>(0).put<uint32_t>(0);
  expect_error({903, static_cast<uint16_t>(Command::kDeviceGetInfo), 32, 0, 0}, info, EINVAL);
  Payload region;
  region.put<uint32_t>(31)
      .put<uint32_t>(0)
      .put<uint32_t>(0)
      .put<uint32_t>(0)
      .put<uint64_t>(0)
      .put<uint64_t>(0);
  expect_error({904, static_cast<uint16_t>(Command::kDeviceGetRegionInfo), 48, 0, 0}, region,
               EINVAL);
  Payload unmap; // argsz claims more than was sent
  unmap.put<uint32_t>(4096).put<uint32_t>(0).put<uint64_t>(0).put<uint64_t>(4096);
  expect_error({905, static_cast<uint16_t>(Command::kDmaUnmap), 16 + 24, 0, 0}, unmap, EINVAL);
  Payload irq;
  irq.put<uint32_t>(0)
      .put<uint32_t>(kIrqSetDataNone | kIrqSetActionTrigger)
      .put<uint32_t>(2)
      .put<uint32_t>(0)
      .put<uint32_t>(0);
  expect_error({906, static_cast<uint16_t>(Command::kDeviceSetIrqs), 16 + 20, 0, 0}, irq, EINVAL);
}

TEST_F(BadInputTest, BadRegionIndex) {
  for (uint32_t region : {1u, 3u, 6u, 8u, 9u, 0xffffffffu}) {
    Payload p;
    p.put<uint64_t>(0).put(region).put<uint32_t>(4);
    expect_error({907, static_cast<uint16_t>(Command::kRegionRead), 32, 0, 0}, p, EINVAL);
  }
  Payload info;
  info.put<uint32_t>(32)
      .put<uint32_t>(0)
      .put<uint32_t>(9)
      .put<uint32_t>(0)
      .put<uint64_t>(0)
      .put<uint64_t>(0);
  expect_error({908, static_cast<uint16_t>(Command::kDeviceGetRegionInfo), 48, 0, 0}, info, EINVAL);
}

TEST_F(BadInputTest, OffsetAndCountOutOfRange) {
  struct Case {
    uint32_t region;
    uint64_t offset;
    uint32_t count;
    uint32_t error;
  };
  for (const Case& c : {Case{0, 64 * 1024, 4, EINVAL}, Case{0, 64 * 1024 - 2, 4, EINVAL},
                        Case{0, ~uint64_t{0} - 1, 4, EINVAL}, Case{kConfig, 4096, 1, EINVAL},
                        Case{kConfig, 4000, 200, EINVAL}, Case{0, 0, 8192, E2BIG},
                        Case{0, 0, (1u << 20) + 1, E2BIG}}) {
    Payload p;
    p.put(c.offset).put(c.region).put(c.count);
    expect_error({909, static_cast<uint16_t>(Command::kRegionRead), 32, 0, 0}, p, c.error);
  }
  Payload w; // write whose count does not match the data that came with it
  w.put<uint64_t>(0).put<uint32_t>(0).put<uint32_t>(8).put<uint32_t>(0);
  expect_error({910, static_cast<uint16_t>(Command::kRegionWrite), 16 + 20, 0, 0}, w, EINVAL);
}

TEST_F(BadInputTest, GarbageCommandNumbers) {
  for (uint16_t command : {0, 6, 11, 12, 14, 16, 0x7fff, 0xffff})
    expect_error({911, command, 16, 0, 0}, {}, ENOTSUP);
}

TEST_F(BadInputTest, TooManyFds) {
  std::vector<UniqueFd> owned;
  std::vector<int> fds;
  for (int i = 0; i < 17; ++i) {
    owned.push_back(make_eventfd());
    fds.push_back(owned.back().get());
  }
  Payload p;
  p.put<uint32_t>(20)
      .put<uint32_t>(kIrqSetDataEventfd | kIrqSetActionTrigger)
      .put<uint32_t>(2)
      .put<uint32_t>(0)
      .put<uint32_t>(17);
  expect_error({912, static_cast<uint16_t>(Command::kDeviceSetIrqs), 16 + 20, 0, 0}, p, EINVAL,
               fds);
  // More than the server's receive buffer has room for: the kernel truncates.
  for (int i = 17; i < 40; ++i) {
    owned.push_back(make_eventfd());
    fds.push_back(owned.back().get());
  }
  expect_error({913, static_cast<uint16_t>(Command::kDeviceSetIrqs), 16 + 20, 0, 0}, p, EINVAL,
               fds);
}

TEST_F(BadInputTest, FdsOnCommandThatTakesNone) {
  UniqueFd fd = make_eventfd();
  const int raw = fd.get();
  Payload p;
  p.put<uint32_t>(16).put<uint32_t>(0).put<uint32_t>(0).put<uint32_t>(0);
  expect_error({914, static_cast<uint16_t>(Command::kDeviceGetInfo), 32, 0, 0}, p, EINVAL,
               std::span(&raw, 1));
}

TEST_F(BadInputTest, BadVersion) {
  Payload wrong_major;
  wrong_major.put<uint16_t>(1).put<uint16_t>(0);
  expect_error({915, static_cast<uint16_t>(Command::kVersion), 20, 0, 0}, wrong_major, EINVAL);
  for (std::string json : {"{", "[1,2]", "\"x\"", R"({"capabilities":7})", "{\"a\":\xff}"}) {
    Payload p;
    p.put<uint16_t>(0).put<uint16_t>(0).bytes(std::as_bytes(std::span(json.data(), json.size())));
    expect_error({916, static_cast<uint16_t>(Command::kVersion),
                  static_cast<uint32_t>(16 + p.span().size()), 0, 0},
                 p, EINVAL);
  }
  std::string nested(100000, '[');
  Payload deep;
  deep.put<uint16_t>(0).put<uint16_t>(0).bytes(
      std::as_bytes(std::span(nested.data(), nested.size())));
  expect_error({917, static_cast<uint16_t>(Command::kVersion),
                static_cast<uint32_t>(16 + deep.span().size()), 0, 0},
               deep, E2BIG);
}

TEST_F(BadInputTest, RequestsBeforeVersionAreRefused) {
  client_ = connect_client(); // fresh session
  Payload p;
  p.put<uint32_t>(16).put<uint32_t>(0).put<uint32_t>(0).put<uint32_t>(0);
  Message reply = client_->request(Command::kDeviceGetInfo, p);
  EXPECT_TRUE(reply.is_error());
  ASSERT_EQ(client_->negotiate(), 0);
  expect_still_serving();
}

TEST_F(BadInputTest, BadNoReplyMessagesAreNeverAnswered) {
  Payload p;
  p.put<uint64_t>(0).put<uint32_t>(5).put<uint32_t>(4).put<uint32_t>(0); // no BAR5
  client_->send(Command::kRegionWrite, p, {}, kFlagNoReply);
  client_->send_command(0x4242, {}, {}, kFlagNoReply);
  EXPECT_TRUE(client_->silent_for());
  EXPECT_EQ(server_->stats().silent_errors, 2u);
  expect_still_serving();
}

TEST_F(BadInputTest, RepliesFromTheClientAreDropped) {
  std::vector<std::byte> bytes;
  encode_header({1, static_cast<uint16_t>(Command::kDeviceGetInfo), 16, kTypeReply, 0}, bytes);
  client_->send_raw(bytes);
  encode_header({2, static_cast<uint16_t>(Command::kDeviceGetInfo), 16, 0x7, 0}, bytes);
  client_->send_raw(bytes);
  EXPECT_TRUE(client_->silent_for());
  expect_still_serving();
}

TEST_F(BadInputTest, MessageDeliveredOneByteAtATime) {
  Payload p;
  p.put<uint64_t>(0).put<uint32_t>(kConfig).put<uint32_t>(2);
  std::vector<std::byte> bytes;
  encode_header({77, static_cast<uint16_t>(Command::kRegionRead), 32, 0, 0}, bytes);
  bytes.insert(bytes.end(), p.span().begin(), p.span().end());
  for (std::byte b : bytes) {
    client_->send_raw(std::span(&b, 1));
    pump();
  }
  std::optional<Message> reply = client_->receive();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->header.msg_id, 77);
  EXPECT_EQ(get_le<uint16_t>(reply->payload, 16), 0x1de5u);
}

TEST_F(BadInputTest, ManyMessagesInOneWrite) {
  std::vector<std::byte> bytes;
  for (uint16_t id = 0; id < 500; ++id) {
    encode_header({id, static_cast<uint16_t>(Command::kRegionRead), 32, 0, 0}, bytes);
    WireWriter(bytes).put<uint64_t>(0).put<uint32_t>(kConfig).put<uint32_t>(4);
  }
  client_->send_raw(bytes);
  for (uint16_t id = 0; id < 500; ++id) {
    std::optional<Message> reply = client_->receive();
    ASSERT_TRUE(reply.has_value());
    ASSERT_EQ(reply->header.msg_id, id);
  }
}

TEST_F(BadInputTest, RandomGarbageNeverKillsTheServer) {
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint8_t>(state >> 56);
  };
  for (int round = 0; round < 50; ++round) {
    std::vector<std::byte> junk(1 + next() * 4);
    for (auto& b : junk)
      b = std::byte{next()};
    client_->send_raw(junk);
    pump();
  }
  // The stream may now be mid-message; a fresh connection must work.
  client_ = connect_client();
  ASSERT_EQ(client_->negotiate(), 0);
  expect_still_serving();
}

} // namespace
} // namespace ornic::vfio_user::testing
