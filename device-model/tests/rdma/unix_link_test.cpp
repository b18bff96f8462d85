// Two NICs on the real AF_UNIX datagram link with the EventLoop's real clock: a window of
// packets far beyond the socket's queue (net.unix.max_dgram_qlen, 10) crosses the connected
// sockets without loss, and a vanished peer ends in RETRY_EXC_ERR on real timers.
#include <filesystem>

#include <gtest/gtest.h>

#include "port/unix_dgram_port.hpp"
#include "port_test_support.hpp"
#include "rdma_pair.hpp"

namespace ornic::test {
namespace {

class UnixLink : public ::testing::Test {
protected:
  UnixLink()
      : port_a(std::make_unique<UnixDgramPort>(port_loop, dir.file("a"), dir.file("b"))),
        port_b(std::make_unique<UnixDgramPort>(port_loop, dir.file("b"), dir.file("a"))),
        pair(*port_a, *port_b,
             [this] { return port_loop.run_once(std::chrono::milliseconds(0)); }) {}

  TempDir dir;
  EventLoop port_loop;
  std::unique_ptr<UnixDgramPort> port_a, port_b;
  RdmaPair pair;
};

TEST_F(UnixLink, BigWriteCrossesTheRealSocketWithoutLoss) {
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_1024);
  constexpr size_t kLength = 256 * 1024; // 256 packets, four windows
  for (size_t i = 0; i < kLength; i += 512)
    *pair.a.at(i) = std::byte{static_cast<uint8_t>(i / 512)};
  auto w = send_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1);
  w.rdma.remote_addr = to_le(pair.b.buffer + 256 * 1024);
  w.rdma.rkey = to_le(pair.b.key);
  qa.post_send(w, {sge(pair.a.buffer, kLength, pair.a.key)});
  const auto done = pair.wait_cqes(pair.a, 1, 1'000'000, 5000);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(std::memcmp(pair.a.at(0), pair.b.at(256 * 1024), kLength), 0);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_RETRANSMITS), 0u)
      << "timeouts " << pair.a.counter(ORNIC_CNT_TIMEOUTS) << ", NAKs "
      << pair.a.counter(ORNIC_CNT_NAKS_RECEIVED);
  // Connected sockets are bounded by the send buffer, not by the 10-datagram queue: nothing
  // the transport sent was refused, whether or not some of it had to wait in the port.
  EXPECT_EQ(port_a->counters().tx_dropped_would_block, 0u);
  EXPECT_EQ(port_a->counters().tx_dropped_no_peer, 0u);
}

TEST_F(UnixLink, VanishedPeerEndsInRetryExceeded) {
  Qp qa = pair.create_qp(pair.a), qb = pair.create_qp(pair.b);
  // Timeout 8: about 1 ms per try on the real clock; two retries.
  pair.connect(qa, qb, ORNIC_MTU_1024, 0, /*retry_cnt=*/2, 7, /*timeout=*/8);
  pair.connect(qb, qa);
  std::filesystem::remove(dir.file("b")); // the peer socket is gone
  // a notices on its next probe and drops its connection to the socket nobody can reach.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (port_a->link_up() && std::chrono::steady_clock::now() < deadline)
    port_loop.run_once(std::chrono::milliseconds(10));
  ASSERT_FALSE(port_a->link_up());
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 1), {});
  const auto done = pair.wait_cqes(pair.a, 1, 1'000'000, 5000);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, ORNIC_CQE_RETRY_EXC_ERR);
  EXPECT_EQ(pair.a.counter(ORNIC_CNT_TIMEOUTS), 3u);
}

} // namespace
} // namespace ornic::test
