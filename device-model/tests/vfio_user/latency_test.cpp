// Microbenchmarks of the two hot paths, with the server on its own thread and event
// loop as in ornic-model: a posted REGION_WRITE (doorbell) and an interrupt round trip
// (posted write -> model raises MSI-X -> eventfd readable in the client). Results are
// printed and recorded as test properties; the bounds are loose sanity checks only.
#include <chrono>
#include <iostream>
#include <thread>

#include <poll.h>

#include "server_fixture.hpp"

namespace ornic::vfio_user::testing {
namespace {

using Clock = std::chrono::steady_clock;

class LatencyTest : public ::testing::Test {
protected:
  void SetUp() override {
    server_ = std::make_unique<Server>(loop_, model_);
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    server_->adopt_client(UniqueFd(sv[0]));
    client_ = std::make_unique<TestClient>(UniqueFd(sv[1]), nullptr);
    thread_ = std::thread([this] { loop_.run(); });
    ASSERT_EQ(client_->negotiate(), 0);
  }
  void TearDown() override {
    loop_.stop();
    thread_.join();
    client_.reset();
    server_.reset();
  }
  void report(const char* name, double ns) {
    std::cout << "[ latency ] " << name << ": " << ns / 1000.0 << " us\n";
    RecordProperty(name, std::to_string(ns / 1000.0) + " us");
  }

  EventLoop loop_;
  TestFunctionModel model_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<TestClient> client_;
  std::thread thread_;
};

TEST_F(LatencyTest, PostedRegionWrite) {
  constexpr int kWrites = 20000;
  // Warm up, then a stream of posted doorbell-style writes closed by one read, which
  // returns only after the server has executed every write before it.
  for (int i = 0; i < 100; ++i)
    client_->posted_write32(0, 0x10, static_cast<uint32_t>(i));
  ASSERT_EQ(client_->read_le(0, 0x10, 4), 99u);
  const auto start = Clock::now();
  for (int i = 0; i < kWrites; ++i)
    client_->posted_write32(0, 0x10, static_cast<uint32_t>(i));
  ASSERT_EQ(client_->read_le(0, 0x10, 4), static_cast<uint64_t>(kWrites - 1));
  const double per_write =
      std::chrono::duration<double, std::nano>(Clock::now() - start).count() / kWrites;
  report("posted_region_write", per_write);

  // For comparison: a synchronous (non-posted) write, one full round trip each.
  constexpr int kSync = 2000;
  const auto sync_start = Clock::now();
  for (int i = 0; i < kSync; ++i)
    ASSERT_EQ(client_->write32(0, 0x10, static_cast<uint32_t>(i)), 0);
  report("synchronous_region_write_round_trip",
         std::chrono::duration<double, std::nano>(Clock::now() - sync_start).count() / kSync);
  EXPECT_LT(per_write, 1e6);
}

TEST_F(LatencyTest, InterruptRoundTrip) {
  UniqueFd efd(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  const int raw = efd.get();
  ASSERT_EQ(client_->write32(kConfig, kMsixControl, 0x8000), 0);
  ASSERT_EQ(client_->set_irqs(kIrqSetDataEventfd | kIrqSetActionTrigger, kPciMsixIrqIndex, 0, 1,
                              std::span(&raw, 1)),
            0);
  constexpr int kRounds = 5000;
  auto one_round = [&] {
    client_->posted_write32(0, TestFunctionModel::kRegRaise, 0);
    pollfd p{raw, POLLIN, 0};
    if (poll(&p, 1, 5000) != 1)
      return false;
    uint64_t value;
    return read(raw, &value, sizeof(value)) == sizeof(value) && value == 1;
  };
  for (int i = 0; i < 100; ++i)
    ASSERT_TRUE(one_round());
  const auto start = Clock::now();
  for (int i = 0; i < kRounds; ++i)
    ASSERT_TRUE(one_round());
  const double per_round =
      std::chrono::duration<double, std::nano>(Clock::now() - start).count() / kRounds;
  report("interrupt_round_trip", per_round);
  EXPECT_LT(per_round, 1e6);
}

// Server-side CPU cost alone: queue a batch of posted writes in the socket, then time
// the (same-thread) event loop while it consumes them.
class ServerCostTest : public ServerTest {};

TEST_F(ServerCostTest, PostedRegionWriteServerCost) {
  ASSERT_EQ(client_->negotiate(), 0);
  // One sendmsg per message, as QEMU does; 100 of them fit the socket buffer (each small
  // send costs about 1 KiB of buffer space), so the client never blocks unpumped.
  constexpr int kBatch = 100;
  double best = 1e18;
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < kBatch; ++i) {
      uint32_t value = static_cast<uint32_t>(i);
      Payload p;
      p.put<uint64_t>(0x10).put<uint32_t>(0).put<uint32_t>(4).put(value);
      client_->send(Command::kRegionWrite, p, {}, kFlagNoReply); // no pumping
    }
    const auto start = Clock::now();
    pump();
    const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    ASSERT_EQ((model_.scratch[{0, 0x10}]), static_cast<uint64_t>(kBatch - 1));
    best = std::min(best, ns / kBatch);
  }
  std::cout << "[ latency ] posted_region_write_server_cpu: " << best / 1000.0 << " us\n";
  RecordProperty("posted_region_write_server_cpu", std::to_string(best / 1000.0) + " us");
}

} // namespace
} // namespace ornic::vfio_user::testing
